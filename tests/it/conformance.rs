//! The conformance scenarios of `protocol/scenarios/`, run against the built `askd` over its
//! real protocol, and the runner's own reporting.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use askd::cli::conformance::run_dir;

/// The fewest scenarios `protocol/scenarios/` may hold; guards against files going missing.
const MIN_SCENARIOS: usize = 272;

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_askd"))
}

/// A fresh, empty directory under the target's temporary directory.
fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    if dir.exists() {
        fs::remove_dir_all(&dir).expect("remove the old directory");
    }
    fs::create_dir_all(&dir).expect("create the directory");
    dir
}

const PAYLOAD: &str = r#"{ "questions": [ { "id": "scope", "prompt": "How big?",
    "options": [ { "value": "small", "label": "Small" }, { "value": "big", "label": "Big" } ] } ] }"#;

fn scenario(name: &str, steps: &str) -> String {
    format!(
        r#"{{ "name": "{name}", "rule": "test", "open": {{ "params": {{ "payload": {PAYLOAD} }} }},
  "steps": {steps} }}"#
    )
}

#[test]
fn every_committed_scenario_passes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol/scenarios");
    let report = run_dir(&dir, bin()).expect("the scenarios run");
    assert!(report.failures.is_empty(), "{report}");
    assert!(
        report.passed >= MIN_SCENARIOS,
        "only {} scenarios ran; expected at least {MIN_SCENARIOS}",
        report.passed
    );
    assert!(
        report
            .to_string()
            .ends_with(&format!("{} passed, 0 failed", report.passed))
    );
}

#[test]
fn the_conformance_command_runs_a_directory_and_prints_the_count() {
    let dir = temp_dir("conformance-cli");
    fs::write(
        dir.join("a-right.json"),
        scenario(
            "cli-right",
            r#"[ { "method": "keys", "params": { "keys": "21" }, "expect": { "/status": "done" } } ]"#,
        ),
    )
    .expect("write");
    let output = std::process::Command::new(bin())
        .arg("conformance")
        .arg(&dir)
        .output()
        .expect("askd runs");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "1 passed, 0 failed\n"
    );

    fs::write(
        dir.join("b-wrong.json"),
        scenario(
            "cli-wrong",
            r#"[ { "method": "keys", "params": { "keys": "21" }, "expect": { "/status": "open" } } ]"#,
        ),
    )
    .expect("write");
    let output = std::process::Command::new(bin())
        .arg("conformance")
        .arg(&dir)
        .output()
        .expect("askd runs");
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.ends_with("1 passed, 1 failed\n"), "{stdout}");
}

#[test]
fn wrong_expectations_are_reported_with_path_expected_and_actual() {
    let dir = temp_dir("conformance-wrong");
    fs::write(
        dir.join("a-right.json"),
        scenario(
            "right",
            r#"[ { "method": "keys", "params": { "keys": "1<CR>" },
                  "expect": { "/status": "done", "/result/content/0/text": "Q1: Small" } } ]"#,
        ),
    )
    .unwrap();
    fs::write(
        dir.join("b-wrong.json"),
        scenario(
            "wrong",
            r#"[ { "method": "key", "params": { "key": "down" }, "expect": { "/view/focus": "options" } },
                { "method": "keys", "params": { "keys": "2<CR>" },
                  "expect": { "/status": "open", "/result/details/answers/scope/values": ["small"] },
                  "absent": [ "/transcript" ] } ]"#,
        ),
    )
    .unwrap();
    fs::write(
        dir.join("c-wrong-error.json"),
        scenario(
            "wrong-error",
            r#"[ { "method": "insert", "params": { "text": "x" },
                  "expectError": { "code": -32001, "message": "no editor", "data": { "x": 1 } } },
                { "method": "key", "params": { "key": "N" }, "expectError": { "code": -32003 } } ]"#,
        ),
    )
    .unwrap();
    fs::write(dir.join("notes.txt"), "not a scenario").unwrap();
    fs::create_dir(dir.join("pending")).unwrap();
    fs::write(
        dir.join("pending/failing.json"),
        scenario(
            "pending",
            r#"[ { "method": "getView", "expect": { "/focus": "x" } } ]"#,
        ),
    )
    .unwrap();

    let report = run_dir(&dir, bin()).expect("the scenarios run");

    assert_eq!(report.passed, 1);
    assert_eq!(report.failed(), 2);
    assert_eq!(
        report.to_string(),
        [
            r#"FAIL wrong (b-wrong.json) steps[1]: /status: expected "open", got "done"; /result/details/answers/scope/values: expected ["small"], got ["big"]; /transcript: expected nothing, got {"call":"ask_user 1 question(s) (Q1)","result":"✓ Q1: Big"}"#,
            r#"FAIL wrong-error (c-wrong-error.json) steps[0]: error code: expected -32001, got -32003 "no editor is open"; error message: expected "no editor", got "no editor is open"; error data: expected {"x":1}, got nothing"#,
            "1 passed, 2 failed",
        ]
        .join("\n")
    );
}

#[test]
fn a_result_where_an_error_is_expected_fails_the_step() {
    let dir = temp_dir("conformance-error-expected");
    fs::write(
        dir.join("s.json"),
        scenario(
            "no-error",
            r#"[ { "method": "key", "params": { "key": "N" }, "expectError": { "code": -32003 } } ]"#,
        ),
    )
    .unwrap();
    let report = run_dir(&dir, bin()).expect("the scenario runs");
    assert_eq!(
        report.to_string(),
        "FAIL no-error (s.json) steps[0]: expected error -32003, got a result\n0 passed, 1 failed"
    );
}

#[test]
fn an_open_that_fails_unexpectedly_is_reported_at_open() {
    let dir = temp_dir("conformance-open");
    fs::write(
        dir.join("s.json"),
        r#"[ { "name": "bad-open", "rule": "test",
              "open": { "params": { "payload": {}, "keymap": { "main.nothing": ["x"] } } } },
            { "name": "good-open", "rule": "test",
              "open": { "params": { "payload": {} },
                        "expect": { "/status": "done", "/view/status": "done" } } } ]"#,
    )
    .unwrap();
    let report = run_dir(&dir, bin()).expect("the scenarios run");
    assert_eq!(report.passed, 1);
    let failure = &report.failures[0];
    assert_eq!(
        (
            failure.scenario.as_str(),
            failure.file.as_str(),
            failure.step
        ),
        ("bad-open", "s.json", None)
    );
    assert!(
        failure
            .message
            .starts_with("expected a result, got error -32602 "),
        "{}",
        failure.message
    );
}

fn load_error(name: &str, text: &str) -> io::Error {
    let dir = temp_dir(name);
    fs::write(dir.join("bad.json"), text).unwrap();
    run_dir(&dir, bin()).expect_err("the file is refused")
}

#[test]
fn unknown_fields_are_refused_naming_the_file() {
    let e = load_error(
        "conformance-unknown-field",
        &scenario(
            "x",
            r#"[ { "method": "getView", "expected": { "/focus": "options" } } ]"#,
        ),
    );
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    let message = e.to_string();
    assert!(
        message.contains("bad.json: unknown field `expected`"),
        "{message}"
    );
}

#[test]
fn malformed_scenarios_are_refused_with_the_reason() {
    let cases = [
        (
            scenario(
                "x",
                r#"[ { "method": "getView", "expect": { "focus": "options" } } ]"#,
            ),
            r#"scenario "x", steps[0]: "focus" is not a JSON pointer (it must be empty or start with `/`)"#,
        ),
        (
            scenario(
                "x",
                r#"[ { "method": "getView", "params": { "session": "y" } } ]"#,
            ),
            r#"scenario "x", steps[0]: `params` must not contain `session`: the runner sets it"#,
        ),
        (
            scenario(
                "x",
                r#"[ { "method": "cancel", "expect": { "/status": "done" }, "expectError": { "code": 1 } } ]"#,
            ),
            r#"scenario "x", steps[0]: `expectError` cannot be combined with `expect` or `absent`"#,
        ),
        (
            r#"{ "name": "x", "rule": "r", "open": { "params": { "payload": {}, "dialect": "pi" } } }"#
                .to_owned(),
            r#"scenario "x", open: `params` must not contain `dialect`: the runner sets it"#,
        ),
        (
            r#"{ "name": "x", "rule": "r", "open": { "params": {} } }"#.to_owned(),
            r#"scenario "x", open: `params` must contain `payload`"#,
        ),
    ];
    for (i, (text, reason)) in cases.iter().enumerate() {
        let e = load_error(&format!("conformance-malformed-{i}"), text);
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(
            e.to_string().ends_with(&format!("bad.json: {reason}")),
            "{e}"
        );
    }
}

#[test]
fn scenario_names_are_unique_across_files() {
    let dir = temp_dir("conformance-duplicate");
    fs::write(dir.join("a.json"), scenario("same", "[]")).unwrap();
    fs::write(dir.join("b.json"), scenario("same", "[]")).unwrap();
    let e = run_dir(&dir, bin()).expect_err("the name is refused");
    assert!(
        e.to_string()
            .ends_with(r#"b.json: scenario name "same" is used twice"#),
        "{e}"
    );
}
