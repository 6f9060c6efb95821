//! The claude dialect (Claude Code's `AskUserQuestion`): validation, mapping, the result of
//! every ending, the answer encoding, answer sets, transcripts and snapshots.

use crate::common::*;
use askd::core::{CancelReason, Outcome, QuestionType};
use askd::dialect::DialectId;
use askd::dialect::claude::{self, CANCEL_MESSAGE, join, split};
use askd::session::{OpenOptions, Session, Status};
use askd::view;
use serde_json::{Value, json};

/// The tool input of the claude example of `protocol/dialects.md`.
fn example() -> Value {
    json!({
        "questions": [
            {
                "question": "Which database should we use?",
                "header": "Database",
                "options": [
                    { "label": "Postgres (Recommended)", "description": "Full SQL, runs as a server", "preview": "DATABASE_URL=postgres://localhost/app" },
                    { "label": "SQLite", "description": "A single file, no server" }
                ],
                "multiSelect": false
            },
            {
                "question": "Which features do you want to enable?",
                "header": "Features",
                "options": [
                    { "label": "Auth", "description": "Login and sessions" },
                    { "label": "Logging", "description": "Structured logs" },
                    { "label": "Metrics", "description": "Prometheus endpoint" }
                ],
                "multiSelect": true
            }
        ]
    })
}

/// The issues of an input that must fail validation, as (path, message).
fn issues_of(input: Value) -> Vec<(String, String)> {
    let session = open_in("claude", &input);
    assert_eq!(session.status(), Status::Done);
    session
        .issues()
        .expect("an invalid input")
        .iter()
        .map(|i| (i.path.clone(), i.message.clone()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, m)| ((*p).to_owned(), (*m).to_owned()))
        .collect()
}

/// One question with the given options and `multiSelect`.
fn one(options: Value, multi: bool) -> Value {
    json!({ "questions": [{ "question": "Pick?", "header": "Pick", "options": options, "multiSelect": multi }] })
}

fn abc() -> Value {
    json!([
        { "label": "A", "description": "" },
        { "label": "B, or not", "description": "" },
        { "label": "C", "description": "" }
    ])
}

#[test]
fn the_documented_example_answers_as_claude_code_expects() {
    let mut s = open_in("claude", &example());
    // A note on Postgres, Postgres chosen; Auth and Logging, and "Audit trail" typed.
    press(
        &mut s,
        "NUse the existing cluster<CR><Space><Tab>12<Down><Down><Down>Audit trail<CR>",
    );
    assert_eq!(flow(&s).focus(), askd::core::Focus::Review);
    press(&mut s, "1");
    assert_eq!(
        s.result().unwrap(),
        json!({
            "behavior": "allow",
            "updatedInput": {
                "questions": example()["questions"],
                "answers": {
                    "Which database should we use?": "Postgres (Recommended)",
                    "Which features do you want to enable?": "Auth, Logging, Audit trail"
                },
                "annotations": {
                    "Which database should we use?": { "preview": "DATABASE_URL=postgres://localhost/app", "notes": "Use the existing cluster" }
                }
            }
        })
    );
    let transcript = s.transcript().unwrap();
    assert_eq!(
        transcript.call,
        "AskUserQuestion 2 questions (Database, Features)"
    );
    assert_eq!(
        transcript.result,
        "✓ Database: Postgres (Recommended)\n  note: Use the existing cluster\n✓ Features: Auth, Logging, (wrote) Audit trail"
    );
}

#[test]
fn questions_map_onto_tabs_with_previews_on_single_select_only() {
    let s = open_in("claude", &example());
    let spec = flow(&s).spec();
    assert_eq!(spec.questions[0].id, "Which database should we use?");
    assert_eq!(spec.questions[0].label, "Database");
    assert_eq!(spec.questions[0].kind, QuestionType::Single);
    assert_eq!(
        spec.questions[0].options[0].preview.as_deref(),
        Some("DATABASE_URL=postgres://localhost/app")
    );
    assert_eq!(spec.questions[1].kind, QuestionType::Multi);
    let v = view::build("s", &s);
    let q = v.question.unwrap();
    assert!(q.has_previews);
    assert_eq!(
        q.preview.as_deref(),
        Some("DATABASE_URL=postgres://localhost/app")
    );
    let labels: Vec<(String, bool)> = q.rows.iter().map(|r| (r.label.clone(), r.custom)).collect();
    assert_eq!(
        labels,
        [
            ("Postgres".to_owned(), false),
            ("SQLite".to_owned(), false),
            ("Type your own".to_owned(), true)
        ]
    );
    // The hints offer the question note, not option notes.
    let actions: Vec<&str> = v.hints.iter().map(|h| h.action).collect();
    assert!(actions.contains(&"main.questionNote"));
    assert!(!actions.contains(&"main.optionNote"));
    // Previews of a multi-select question are not shown.
    let multi = one(
        json!([{ "label": "A", "description": "", "preview": "x" }, { "label": "B", "description": "" }]),
        true,
    );
    let s = open_in("claude", &multi);
    assert_eq!(flow(&s).spec().questions[0].options[0].preview, None);
}

#[test]
fn option_notes_are_not_offered() {
    let mut s = open_in("claude", &example());
    let before = s.clone();
    press(&mut s, "n");
    assert_eq!(s, before);
    let err = s
        .flow_mut()
        .unwrap()
        .set_note("Which database should we use?", Some("SQLite"), "x")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "option notes are not part of the claude dialect"
    );
}

#[test]
fn every_validation_rule_has_its_path_and_message() {
    assert_eq!(
        issues_of(json!([])),
        pairs(&[("input", "AskUserQuestion input must be an object")])
    );
    assert_eq!(
        issues_of(json!({})),
        pairs(&[("questions", "questions is required")])
    );
    assert_eq!(
        issues_of(json!({ "questions": [] })),
        pairs(&[("questions", "At least one question is required")])
    );
    assert_eq!(
        issues_of(json!({ "questions": "no" })),
        pairs(&[("questions", "questions must be an array")])
    );
    let q = json!({ "question": "Q?", "header": "H", "options": [{ "label": "A", "description": "" }, { "label": "B", "description": "" }] });
    let mut five = Vec::new();
    for i in 0..5 {
        let mut q = q.clone();
        q["question"] = json!(format!("Q{i}?"));
        five.push(q);
    }
    assert_eq!(
        issues_of(json!({ "questions": five })),
        pairs(&[("questions", "At most 4 questions are allowed (got 5)")])
    );
    assert_eq!(
        issues_of(json!({ "questions": [q, q, 3] })),
        pairs(&[
            (
                "questions[1].question",
                "Question 2: duplicate question text \"Q?\""
            ),
            ("questions[2]", "Question 3: must be an object"),
        ])
    );
    assert_eq!(
        issues_of(json!({ "questions": [{ "header": 1, "multiSelect": "yes" }] })),
        pairs(&[
            ("questions[0].question", "Question 1: question is required"),
            ("questions[0].header", "Question 1: header must be a string"),
            (
                "questions[0].multiSelect",
                "Question 1: multiSelect must be a boolean"
            ),
            (
                "questions[0].options",
                "Question 1: 2 to 4 options are required"
            ),
        ])
    );
    assert_eq!(
        issues_of(
            json!({ "questions": [{ "question": 2, "options": [{ "label": "A", "description": "" }] }] })
        ),
        pairs(&[
            (
                "questions[0].question",
                "Question 1: question must be a string"
            ),
            ("questions[0].header", "Question 1: header is required"),
            (
                "questions[0].options",
                "Question 1: 2 to 4 options are required (got 1)"
            ),
        ])
    );
    assert_eq!(
        issues_of(one(json!("x"), false)),
        pairs(&[(
            "questions[0].options",
            "Question 1: options must be an array"
        )])
    );
    assert_eq!(
        issues_of(one(
            json!([
                { "label": "A", "description": "" },
                { "label": "A", "description": "" },
                { "description": "d" },
                { "label": "D" },
                { "label": "E", "description": 3, "preview": 4 }
            ]),
            false
        )),
        pairs(&[
            (
                "questions[0].options",
                "Question 1: 2 to 4 options are required (got 5)"
            ),
            (
                "questions[0].options[1].label",
                "Question 1, option 2: duplicate option label \"A\""
            ),
            (
                "questions[0].options[2].label",
                "Question 1, option 3: label is required"
            ),
            (
                "questions[0].options[3].description",
                "Question 1, option 4: description is required"
            ),
            (
                "questions[0].options[4].description",
                "Question 1, option 5: description must be a string"
            ),
            (
                "questions[0].options[4].preview",
                "Question 1, option 5: preview must be a string"
            ),
        ])
    );
    assert_eq!(
        issues_of(one(json!([1, { "label": "B", "description": "" }]), false)),
        pairs(&[(
            "questions[0].options[0]",
            "Question 1, option 1: must be an object"
        )])
    );
    // Unknown keys inside questions and options are accepted and change nothing: not the flow,
    // not the answers; the questions are echoed exactly as asked, their unknown keys included,
    // as Claude Code wants them back.
    let mut extra = example();
    extra["questions"][0]["x-weight"] = json!(2);
    extra["questions"][1]["options"][0]["x-tag"] = json!("security");
    let keys = "NUse the existing cluster<CR><Space><Tab>12<Down><Down><Down>Audit trail<CR>";
    let (plain, s) = unknown_keys_change_nothing("claude", &example(), &extra, keys, "1");
    let answered = |questions: &Value| {
        json!({
            "behavior": "allow",
            "updatedInput": {
                "questions": questions,
                "answers": {
                    "Which database should we use?": "Postgres (Recommended)",
                    "Which features do you want to enable?": "Auth, Logging, Audit trail"
                },
                "annotations": {
                    "Which database should we use?": { "preview": "DATABASE_URL=postgres://localhost/app", "notes": "Use the existing cluster" }
                }
            }
        })
    };
    assert_eq!(s.result().unwrap(), answered(&extra["questions"]));
    assert_eq!(plain.result().unwrap(), answered(&example()["questions"]));
    assert_eq!(s.transcript(), plain.transcript());
}

/// Claude Code's input object takes no other fields than `questions`, `answers`, `annotations`
/// and `metadata` (its schema is strict there), and `null` is the value of no field: both are
/// refused, naming the field.
#[test]
fn unknown_top_level_fields_and_nulls_are_refused_as_claude_code_refuses_them() {
    let mut extra = example();
    extra["afkTimeoutMs"] = json!(1000);
    extra["unansweredV1"] = json!(true);
    assert_eq!(
        issues_of(extra),
        pairs(&[
            (
                "afkTimeoutMs",
                "unknown field \"afkTimeoutMs\": the input takes questions, answers, annotations and metadata"
            ),
            (
                "unansweredV1",
                "unknown field \"unansweredV1\": the input takes questions, answers, annotations and metadata"
            ),
        ])
    );
    let nulls = json!({ "questions": [{ "question": "Q?", "header": "H", "multiSelect": null, "options": [
        { "label": "A", "description": "", "preview": null }, { "label": "B", "description": null } ] }] });
    assert_eq!(
        issues_of(nulls),
        pairs(&[
            (
                "questions[0].multiSelect",
                "Question 1: multiSelect must be a boolean"
            ),
            (
                "questions[0].options[0].preview",
                "Question 1, option 1: preview must be a string"
            ),
            (
                "questions[0].options[1].description",
                "Question 1, option 2: description must be a string"
            ),
        ])
    );
    let mut model = example();
    model["answers"] = json!({ "Which database should we use?": 3 });
    model["annotations"] = json!({ "Which database should we use?": { "notes": 1 }, "x": 2 });
    model["metadata"] = json!({ "source": false });
    assert_eq!(
        issues_of(model),
        pairs(&[
            (
                "answers.Which database should we use?",
                "answers must be strings or lists of strings"
            ),
            (
                "annotations.Which database should we use?.notes",
                "notes must be a string"
            ),
            ("annotations.x", "an annotation must be an object"),
            ("metadata.source", "source must be a string"),
        ])
    );
    // What a model may send in those fields, well typed, is accepted (and not read).
    let mut model = example();
    model["answers"] = json!({ "Which database should we use?": ["SQLite"] });
    model["annotations"] = json!({ "x": { "notes": "n", "other": 1 } });
    model["metadata"] = json!({ "source": "remember", "other": 1 });
    assert_eq!(open_in("claude", &model).status(), Status::Open);
}

/// Claude Code's schema takes any string as a question or a label, the empty one included;
/// its `validateInput` refuses an option labelled `[No preference]` (the text it writes for a
/// skipped question), its white space folded: both ways.
#[test]
fn empty_texts_are_asked_and_the_reserved_label_is_refused() {
    let input = json!({ "questions": [
        { "question": "", "header": "", "multiSelect": false, "options": [
            { "label": "", "description": "" }, { "label": "B", "description": "" } ] },
        { "question": " ", "header": "H", "multiSelect": false, "options": [
            { "label": "[No preference", "description": "" }, { "label": "No preference", "description": "" },
            { "label": "[No preference]x", "description": "" } ] } ] });
    let mut s = open_in("claude", &input);
    assert_eq!(s.status(), Status::Open);
    assert_eq!(flow(&s).spec().questions[0].id, "");
    assert_eq!(flow(&s).spec().questions[0].label, "Q1");
    press(&mut s, "111");
    assert_eq!(
        s.result().unwrap()["updatedInput"]["answers"],
        json!({ "": "", " ": "[No preference" })
    );
    for label in [
        "[No preference]",
        "  [No \t\u{a0}\u{3000}preference]\n",
        "\u{feff}[No\u{2028}preference]",
    ] {
        let input = one(
            json!([{ "label": label, "description": "" }, { "label": "B", "description": "" }]),
            false,
        );
        assert_eq!(
            issues_of(input),
            pairs(&[(
                "questions[0].options[0].label",
                "Question 1, option 1: the label \"[No preference]\" is reserved for a skipped question"
            )]),
            "{label:?}"
        );
    }
    // NEL is no white space to JavaScript: the label is asked.
    let input = one(
        json!([{ "label": "[No\u{85}preference]", "description": "" }, { "label": "B", "description": "" }]),
        false,
    );
    assert_eq!(open_in("claude", &input).status(), Status::Open);
}

#[test]
fn the_call_line_cuts_labels_to_47_columns_and_an_ellipsis() {
    let call = |headers: &[&str]| {
        let questions: Vec<Value> = headers
            .iter()
            .enumerate()
            .map(|(i, h)| json!({ "question": format!("Q{i}?"), "header": h, "options": abc() }))
            .collect();
        let mut s = open_in("claude", &json!({ "questions": questions }));
        s.flow_mut().unwrap().cancel(CancelReason::User).unwrap();
        s.transcript().unwrap().call
    };
    // 15 + 2 + 17 + 2 + 13 = 49 columns: shown whole.
    assert_eq!(
        call(&["Database engine", "Deployment target", "Feature flags"]),
        "AskUserQuestion 3 questions (Database engine, Deployment target, Feature flags)"
    );
    // 58 columns: the first 47, then `...`.
    assert_eq!(
        call(&[
            "Database engine",
            "Deployment target",
            "Feature flags",
            "Rollout"
        ]),
        "AskUserQuestion 4 questions (Database engine, Deployment target, Feature fla...)"
    );
    // A wide character counts two columns: 21 of them are 42, and 二 would straddle 47.
    let wide = "一".repeat(21);
    assert_eq!(
        call(&[&wide, "二三四五"]),
        format!("AskUserQuestion 2 questions ({wide}, 二...)")
    );
    // An input without questions has no parenthesised part.
    assert_eq!(
        open_in("claude", &json!({})).transcript().unwrap().call,
        "AskUserQuestion 0 questions"
    );
}

#[test]
fn an_invalid_input_is_a_deny_listing_the_issues() {
    let request = json!({ "questions": [{ "question": "Q?", "header": "H" }] });
    let s = open_in("claude", &request);
    assert_eq!(s.status(), Status::Done);
    assert_eq!(
        s.result().unwrap(),
        json!({
            "behavior": "deny",
            "message": "Invalid AskUserQuestion input:\n- questions[0].options: Question 1: 2 to 4 options are required"
        })
    );
    let transcript = s.transcript().unwrap();
    assert_eq!(transcript.call, "AskUserQuestion 1 question (H)");
    assert_eq!(transcript.result, "Invalid input");
    assert_eq!(round_trip(&s, &request, &Value::Null), s);
}

#[test]
fn html_previews_are_checked_only_in_html_mode() {
    let input = one(
        json!([
            { "label": "A", "description": "", "preview": "<div>a</div>< html>" },
            { "label": "B", "description": "", "preview": "<p>x</p><  SCRIPT >1</script>" },
            { "label": "C", "description": "", "preview": "no tags <1> < p>" },
            { "label": "D", "description": "", "preview": "<bodyguard>fine</bodyguard>" }
        ]),
        false,
    );
    assert_eq!(open_in("claude", &input).status(), Status::Open);
    let s = try_open_in("claude", &input, json!({ "previewFormat": "html" })).unwrap();
    let issues: Vec<(String, String)> = s
        .issues()
        .unwrap()
        .iter()
        .map(|i| (i.path.clone(), i.message.clone()))
        .collect();
    assert_eq!(
        issues,
        pairs(&[
            (
                "questions[0].options[0].preview",
                "Question 1, option 1: preview must be an HTML fragment, not a full document (no <html>, <body>, or <!DOCTYPE>)"
            ),
            (
                "questions[0].options[1].preview",
                "Question 1, option 2: preview must not contain <script> or <style> tags; use inline styles through the style attribute"
            ),
            (
                "questions[0].options[2].preview",
                "Question 1, option 3: preview must contain HTML (previewFormat is \"html\"): wrap the content in a tag such as <div> or <pre>"
            ),
        ])
    );
}

#[test]
fn options_that_are_not_valid_are_refused() {
    for (options, message) in [
        (
            json!({ "previewFormat": "pdf" }),
            "invalid params: claude.previewFormat: expected \"markdown\" or \"html\", got the string \"pdf\"",
        ),
        (
            json!({ "other": true }),
            "invalid params: claude.other: unknown; expected \"previewFormat\" or \"unansweredV1\"",
        ),
        (
            json!({ "unansweredV1": "yes" }),
            "invalid params: claude.unansweredV1: expected true or false, got the string \"yes\"",
        ),
        (
            json!([1]),
            "invalid params: claude: expected an object, got an array",
        ),
    ] {
        let error = try_open_in("claude", &example(), options).unwrap_err();
        assert_eq!((error.code, error.message.as_str()), (-32602, message));
    }
}

#[test]
fn cancel_abort_and_no_ui_deny() {
    let mut s = open_in("claude", &example());
    press(&mut s, "<Esc>");
    assert_eq!(
        s.result().unwrap(),
        json!({ "behavior": "deny", "message": CANCEL_MESSAGE, "interrupt": true })
    );
    assert_eq!(s.transcript().unwrap().result, "Cancelled");

    let mut s = open_in("claude", &example());
    s.flow_mut().unwrap().cancel(CancelReason::Aborted).unwrap();
    assert_eq!(
        s.result().unwrap(),
        json!({ "behavior": "deny", "message": "The request was withdrawn before the user answered" })
    );
    assert_eq!(
        s.transcript().unwrap().result,
        "Cancelled (withdrawn by the asker)"
    );

    let s = open_without_ui("claude", &example());
    assert_eq!(
        s.result().unwrap(),
        json!({
            "behavior": "deny",
            "message": "AskUserQuestion needs an interactive user and none is available. Ask the user these questions in plain text instead:\n1. Database: Which database should we use?\n   - Postgres (Recommended)\n   - SQLite\n2. Features: Which features do you want to enable?\n   - Auth\n   - Logging\n   - Metrics"
        })
    );
    assert_eq!(s.transcript().unwrap().result, "Not asked: no UI");

    // Decline is not offered.
    let mut s = open_in("claude", &example());
    assert_eq!(
        s.flow_mut().unwrap().decline().unwrap_err().to_string(),
        "decline is not part of the claude dialect"
    );
}

#[test]
fn submitting_nothing_answers_nothing_and_v1_marks_skipped_questions() {
    let mut s = open_in("claude", &example());
    press(&mut s, "<S-Tab>1");
    let input = s.result().unwrap()["updatedInput"].clone();
    assert_eq!(input["answers"], json!({}));
    assert!(input.get("annotations").is_none());
    assert_eq!(
        s.transcript().unwrap().result,
        "- Database: (skipped)\n- Features: (skipped)"
    );

    let mut s = try_open_in("claude", &example(), json!({ "unansweredV1": true })).unwrap();
    press(&mut s, "2<Tab>1");
    assert_eq!(
        s.result().unwrap()["updatedInput"],
        json!({
            "questions": example()["questions"],
            "answers": { "Which database should we use?": "SQLite" },
            "annotations": { "Which features do you want to enable?": { "unanswered": "skipped" } }
        })
    );
}

#[test]
fn notes_without_a_selection_answer_notes_only() {
    let mut s = open_in("claude", &example());
    press(&mut s, "N  keep it small  <CR><S-Tab>1");
    assert_eq!(
        s.result().unwrap()["updatedInput"]["answers"],
        json!({ "Which database should we use?": "(notes only)" })
    );
    assert_eq!(
        s.result().unwrap()["updatedInput"]["annotations"],
        json!({ "Which database should we use?": { "notes": "keep it small" } })
    );
    assert_eq!(
        s.transcript().unwrap().result,
        "✓ Database: (notes only)\n  note: keep it small\n- Features: (skipped)"
    );
}

#[test]
fn typed_text_replaces_the_label_and_multi_select_entries_are_quoted_when_needed() {
    let mut s = open_in("claude", &one(abc(), false));
    press(&mut s, "4  my own  <CR>1");
    assert_eq!(
        s.result().unwrap()["updatedInput"]["answers"],
        json!({ "Pick?": "my own" })
    );

    // Chosen in the order C, A; sent in option order; entries with ", " or '"' quoted.
    let mut s = open_in("claude", &one(abc(), true));
    press(&mut s, "312<Down><Down><Down>say \"hi\", twice<CR>1");
    assert_eq!(
        s.result().unwrap()["updatedInput"]["answers"],
        json!({ "Pick?": "A, \"B, or not\", C, \"say \\\"hi\\\", twice\"" })
    );
    assert_eq!(
        join(&["plain", "a, b", "q\"q"]),
        "plain, \"a, b\", \"q\\\"q\""
    );
    assert_eq!(
        split("A, \"B, or not\", C").unwrap(),
        ["A", "B, or not", "C"]
    );
    assert_eq!(split("\"open"), None);
}

#[test]
fn metadata_is_echoed_and_model_answers_are_not_read() {
    let mut input = example();
    input["metadata"] = json!({ "source": "remember" });
    input["answers"] = json!({ "Which database should we use?": "SQLite" });
    input["annotations"] = json!({ "Which database should we use?": { "notes": "n" } });
    let mut s = open_in("claude", &input);
    assert!(flow(&s).answers().iter().all(|a| a.is_empty()));
    press(&mut s, "<S-Tab>1");
    assert_eq!(
        s.result().unwrap()["updatedInput"],
        json!({
            "questions": example()["questions"],
            "answers": {},
            "metadata": { "source": "remember" }
        })
    );
}

#[test]
fn answer_sets_in_claude_codes_shape_and_keyed_by_question() {
    let mut s = open_in("claude", &example());
    s.submit_answer_set(
        &json!({
            "questions": [],
            "answers": {
                "Which database should we use?": "SQLite",
                "Which features do you want to enable?": "Metrics, \"Audit, trail\", Auth"
            },
            "annotations": { "Which database should we use?": { "notes": "n", "preview": "ignored" } }
        }),
        Outcome::Submit,
    )
    .unwrap();
    assert_eq!(
        s.result().unwrap()["updatedInput"]["answers"],
        json!({
            "Which database should we use?": "SQLite",
            "Which features do you want to enable?": "Auth, Metrics, \"Audit, trail\""
        })
    );
    assert_eq!(
        s.result().unwrap()["updatedInput"]["annotations"],
        json!({ "Which database should we use?": { "notes": "n" } })
    );

    let mut s = open_in("claude", &example());
    s.submit_answer_set(
        &json!({ "answers": { "Which features do you want to enable?": ["Logging", "Auth"] } }),
        Outcome::Submit,
    )
    .unwrap();
    assert_eq!(
        s.result().unwrap()["updatedInput"]["answers"],
        json!({ "Which features do you want to enable?": "Auth, Logging" })
    );

    let mut s = open_in("claude", &example());
    s.submit_answer_set(
        &json!({ "Which database should we use?": { "values": ["Postgres (Recommended)"] } }),
        Outcome::Submit,
    )
    .unwrap();
    assert_eq!(
        s.result().unwrap()["updatedInput"]["answers"],
        json!({ "Which database should we use?": "Postgres (Recommended)" })
    );

    for (set, message) in [
        (
            json!({ "answers": { "Who?": "x" } }),
            "answers.Who?: \"Who?\" is not a question of this request",
        ),
        (
            json!({ "answers": { "Which database should we use?": ["SQLite"] } }),
            "answers.Which database should we use?: question \"Which database should we use?\" is single-select and takes one string",
        ),
        (
            json!({ "answers": {}, "extra": 1 }),
            "unknown field \"extra\"",
        ),
        (
            json!({ "answers": {}, "annotations": { "Which database should we use?": { "mood": "x" } } }),
            "annotations.Which database should we use?: unknown field \"mood\"",
        ),
        (
            json!({ "answers": { "Which features do you want to enable?": "Auth, Auth" } }),
            "answers.Which features do you want to enable?: \"Auth\" is given twice",
        ),
    ] {
        let mut s = open_in("claude", &example());
        let before = s.clone();
        let err = s.submit_answer_set(&set, Outcome::Submit).unwrap_err();
        assert_eq!(err.to_string(), message);
        assert_eq!(s, before);
    }
}

#[test]
fn a_claude_payload_is_not_taken_for_dsh() {
    let s = Session::open(&example(), &OpenOptions::default()).unwrap();
    assert_eq!(s.dialect(), DialectId::PI);
    assert_eq!(s.status(), Status::Done);
}

#[test]
fn snapshots_keep_what_the_result_echoes() {
    let mut input = example();
    input["metadata"] = json!({ "source": "x" });
    let options = json!({ "unansweredV1": true });
    let mut s = try_open_in("claude", &input, options.clone()).unwrap();
    press(&mut s, "NA note<CR>");
    let mut restored = round_trip(&s, &input, &options);
    assert_eq!(restored, s);
    press(&mut restored, "<S-Tab>1");
    press(&mut s, "<S-Tab>1");
    assert_eq!(restored.result(), s.result());
    assert_eq!(
        restored.result().unwrap()["updatedInput"]["metadata"],
        json!({ "source": "x" })
    );
}

#[test]
fn the_screen_offers_the_question_note_and_the_preview() {
    assert_eq!(
        claude::RULES.review_label(askd::core::ReviewAction::Cancel),
        "Cancel"
    );
    let s = open_in("claude", &example());
    assert_eq!(
        screen(&s, 60),
        "────────────────────────────────────────────────────────────\n [□ Database]  □ Features   ✓ Submit\n\n Which database should we use?\n\n ❯ 1. ○ Postgres (recommended)\n        Full SQL, runs as a server\n   2. ○ SQLite\n        A single file, no server\n   3. ○ Type your own\n\n ╭─ Preview ──────────────────────────────────────────────╮\n │ DATABASE_URL=postgres://localhost/app                  │\n ╰────────────────────────────────────────────────────────╯\n\n ↑ up · ↓ down · tab/→ next tab · shift+tab/← previous tab ·\n enter confirm · space toggle · N question note ·\n 1-3 quick select · esc cancel · ctrl+c dismiss\n 0/2 answered\n────────────────────────────────────────────────────────────\n"
    );
}
