//! The hub clients of the agents as binaries: `askd hook claude` and `askd bridge opencode`
//! started as Claude Code and a person start them, with what they print and how they exit when
//! there is nothing to do, nothing to reach, or input that is not theirs.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Output, Stdio};

use serde_json::json;

use crate::support::ASKD;

/// A runtime directory whose `askd/` folder others may write to: the hub's discovery refuses
/// it, so no hub can be found or started there.
fn refused_runtime() -> tempfile::TempDir {
    let runtime = tempfile::tempdir().expect("a temporary directory");
    let dir = runtime.path().join("askd");
    std::fs::create_dir(&dir).expect("the folder is made");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777))
        .expect("its mode is set");
    runtime
}

/// Runs `askd ARGS` with `input` on stdin and the runtime directory given.
fn askd(args: &[&str], input: &[u8], runtime: &std::path::Path) -> Output {
    let mut child = Command::new(ASKD)
        .args(args)
        .env("XDG_RUNTIME_DIR", runtime)
        .env("XDG_STATE_HOME", runtime.join("state"))
        .env_remove("ASKD_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("askd runs");
    child
        .stdin
        .take()
        .expect("a stdin")
        .write_all(input)
        .expect("the input is written");
    child.wait_with_output().expect("askd ends")
}

/// The hook input Claude Code writes before an `AskUserQuestion` call.
fn hook_input(tool: &str) -> Vec<u8> {
    json!({
        "session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": "/work/app",
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
        "tool_use_id": "toolu_e2e",
        "tool_input": { "questions": [{ "question": "Which database?", "header": "DB",
            "multiSelect": false, "options": [
                { "label": "Postgres", "description": "server" },
                { "label": "SQLite", "description": "file" }] }] },
    })
    .to_string()
    .into_bytes()
}

#[test]
fn the_hook_prints_nothing_and_exits_0_when_no_hub_can_be_reached() {
    let runtime = refused_runtime();
    let output = askd(
        &["hook", "claude"],
        &hook_input("AskUserQuestion"),
        runtime.path(),
    );
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let dir = runtime.path().join("askd");
    assert!(
        stderr.ends_with(&format!(
            "\naskd hook claude: passed on to Claude Code's dialog: no hub can be reached: {} is \
             not used: others may use it (mode 0777); it must be 0700\n",
            dir.display()
        )),
        "{stderr}"
    );
}

#[test]
fn the_hook_leaves_other_tools_alone_and_refuses_input_that_is_not_a_hook_s() {
    let runtime = refused_runtime();
    let other = askd(&["hook", "claude"], &hook_input("Bash"), runtime.path());
    assert_eq!(other.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&other.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&other.stderr),
        "askd hook claude: nothing to do: it answers PreToolUse for AskUserQuestion only, and was \
         run for PreToolUse of Bash; register it with \"matcher\": \"AskUserQuestion\"\n"
    );
    let broken = askd(&["hook", "claude"], b"{\"tool_name\":", runtime.path());
    assert_eq!(
        broken.status.code(),
        Some(1),
        "an error Claude Code shows, never 2"
    );
    assert_eq!(String::from_utf8_lossy(&broken.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&broken.stderr),
        "askd hook claude: the hook input is not JSON: EOF while parsing a value at line 1 column 13\n"
    );
    let zero = askd(&["hook", "claude", "--timeout", "0"], b"", runtime.path());
    assert_eq!(zero.status.code(), Some(2));
}

#[test]
fn the_bridge_refuses_an_address_it_cannot_use() {
    let runtime = refused_runtime();
    for (url, message) in [
        (
            "https://127.0.0.1:4096",
            "askd: bridge: --url: \"https://127.0.0.1:4096\": askd bridge speaks plain HTTP to a \
             server on this machine (use http://, or a tunnel that ends on this machine)\n",
        ),
        (
            "http://opencode:pw@127.0.0.1:4096",
            "askd: bridge: --url: \"http://opencode:pw@127.0.0.1:4096\": give the password in \
             OPENCODE_SERVER_PASSWORD, not in the URL\n",
        ),
    ] {
        let output = askd(&["bridge", "opencode", "--url", url], b"", runtime.path());
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&output.stderr), message);
    }
}
