//! Results through the flow (behaviour §6): keys driven to completion, then the exact
//! `ask_user` result JSON and transcript lines.

use crate::common::*;
use askd::core::CancelReason;
use askd::dialect::Transcript;
use askd::session::{OpenOptions, Session};
use askd::view;
use serde_json::{Value, json};

fn questions_json() -> Value {
    json!([
        { "id": "scope", "label": "Scope", "prompt": "Which scope?", "type": "single" },
        { "id": "langs", "label": "Langs", "prompt": "Which languages?", "type": "multi" },
        { "id": "layout", "label": "Layout", "prompt": "Which layout?", "type": "preview" }
    ])
}

fn scope_context() -> Value {
    json!({
        "id": "scope", "label": "Scope", "prompt": "Which scope?", "type": "single",
        "options": [
            { "value": "small", "label": "Small" },
            { "value": "large", "label": "Large", "description": "Everything" }
        ]
    })
}

fn langs_context() -> Value {
    json!({
        "id": "langs", "label": "Langs", "prompt": "Which languages?", "type": "multi",
        "options": [
            { "value": "rs", "label": "Rust" },
            { "value": "go", "label": "Go" },
            { "value": "py", "label": "Python" }
        ]
    })
}

fn transcript(call: &str, result: &str) -> Option<Transcript> {
    Some(Transcript {
        call: call.to_owned(),
        result: result.to_owned(),
    })
}

const CALL: &str = "ask_user 3 question(s) (Scope, Langs, Layout)";

/// The finished result, checked for `null`s (the contract omits undefined fields).
fn result(s: &Session) -> Value {
    let value = s.result().expect("the session is done");
    assert_eq!(null_paths(&value), Vec::<String>::new(), "{value}");
    value
}

#[test]
fn no_result_before_completion() {
    let mut s = open_main();
    press(&mut s, "1<Tab>");
    assert_eq!(s.result(), None);
    assert_eq!(s.result(), None);
    assert_eq!(s.transcript(), None);
}

#[test]
fn submit_reports_selections_custom_text_and_notes_of_selected_options() {
    let mut s = open_main();
    press(&mut s, "231n");
    type_text(&mut s, "fast");
    press(&mut s, "<CR><Down><Down><Down>");
    type_text(&mut s, "Zig");
    press(&mut s, "<CR>N");
    type_text(&mut s, "hmm");
    press(&mut s, "<CR>1");
    assert_eq!(at(&s), review(0));
    press(&mut s, "1");
    let value = result(&s);
    assert_eq!(
        value,
        json!({
            "content": [{
                "type": "text",
                "text": "Scope: Large\nLangs: Python, Rust, Zig\nLangs / Rust note: fast\nLayout: Grid\nLayout note: hmm"
            }],
            "details": {
                "title": "Setup",
                "cancelled": false,
                "mode": "submit",
                "questions": questions_json(),
                "answers": {
                    "scope": { "values": ["large"], "labels": ["Large"], "indices": [2] },
                    "langs": {
                        "values": ["py", "rs", "Zig"],
                        "labels": ["Python", "Rust", "Zig"],
                        "indices": [3, 1],
                        "customText": "Zig",
                        "optionNotes": { "rs": "fast" }
                    },
                    "layout": { "values": ["grid"], "labels": ["Grid"], "indices": [1], "note": "hmm" }
                }
            }
        })
    );
    assert_eq!(
        keys_of(&value["details"]["answers"]),
        ["scope", "langs", "layout"]
    );
    assert_eq!(
        s.transcript(),
        transcript(
            CALL,
            "✓ Scope: Large\n✓ Langs: Python, Rust, Zig\n  Rust note: fast\n✓ Layout: Grid\n  note: hmm"
        )
    );
}

#[test]
fn answers_are_keyed_in_question_order_whatever_the_order_of_entry() {
    let mut s = open_main();
    press(
        &mut s,
        "<S-Tab><S-Tab>2<S-Tab><S-Tab><S-Tab>2<Space><Tab><Tab>1",
    );
    let value = result(&s);
    assert_eq!(
        keys_of(&value["details"]["answers"]),
        ["scope", "langs", "layout"]
    );
    assert_eq!(
        value["content"][0]["text"],
        json!("Scope: Large\nLangs: Rust\nLayout: List")
    );
}

#[test]
fn submitting_nothing_says_so() {
    let mut s = open_main();
    press(&mut s, "<S-Tab>1");
    assert_eq!(
        result(&s),
        json!({
            "content": [{ "type": "text", "text": "User submitted the ask flow" }],
            "details": {
                "title": "Setup",
                "cancelled": false,
                "mode": "submit",
                "questions": questions_json(),
                "answers": {}
            }
        })
    );
    assert_eq!(s.transcript(), transcript(CALL, "Submitted"));
}

#[test]
fn a_custom_only_answer_is_written_text_in_the_transcript() {
    let mut s = open_main();
    press(&mut s, "3");
    type_text(&mut s, "my own");
    press(&mut s, "<CR><S-Tab><S-Tab>1");
    let value = result(&s);
    assert_eq!(
        value["details"]["answers"],
        json!({
            "scope": {
                "values": ["my own"],
                "labels": ["my own"],
                "indices": [],
                "customText": "my own"
            }
        })
    );
    assert_eq!(value["content"][0]["text"], json!("Scope: my own"));
    assert_eq!(s.transcript(), transcript(CALL, "✓ Scope: (wrote) my own"));
}

#[test]
fn submit_keeps_notes_only_answers_and_drops_notes_of_unselected_options() {
    let mut s = open_main();
    press(&mut s, "N");
    type_text(&mut s, "why?");
    press(&mut s, "<CR><Tab><Down>n");
    type_text(&mut s, "go?");
    press(&mut s, "<CR><Tab><Tab>1");
    let value = result(&s);
    // `langs` holds only a note on an unselected option: its serialised answer is empty, so
    // it is left out.
    assert_eq!(
        value["details"]["answers"],
        json!({
            "scope": { "values": [], "labels": [], "indices": [], "note": "why?" }
        })
    );
    assert_eq!(value["content"][0]["text"], json!("Scope note: why?"));
    assert_eq!(
        s.transcript(),
        transcript(CALL, "✓ Scope: (no answer)\n  note: why?")
    );
}

#[test]
fn elaborate_reports_committed_answers_a_continuation_and_one_item_per_note() {
    let mut s = open_main();
    press(&mut s, "<Down>n");
    type_text(&mut s, "why \"large\"?");
    press(&mut s, "<CR><Up>n");
    type_text(&mut s, "ok?");
    press(&mut s, "<CR><Space><Tab>N");
    type_text(&mut s, "which?");
    press(&mut s, "<CR><Tab>1");
    assert_eq!(at(&s), review(0));
    press(&mut s, "<Down><CR>");
    let scope_answer = json!({
        "values": ["small"], "labels": ["Small"], "indices": [1], "optionNotes": { "small": "ok?" }
    });
    let layout_answer = json!({ "values": ["grid"], "labels": ["Grid"], "indices": [1] });
    let text = "User asked to elaborate on question \"Which scope?\" option \"Large\" with note \"why \\\"large\\\"?\"\n\
                User asked to elaborate on question \"Which scope?\" option \"Small\" with note \"ok?\"\n\
                User asked to elaborate on question \"Which languages?\" with note \"which?\"";
    let value = result(&s);
    assert_eq!(
        value,
        json!({
            "content": [{ "type": "text", "text": text }],
            "details": {
                "title": "Setup",
                "cancelled": false,
                "mode": "elaborate",
                "questions": questions_json(),
                "answers": { "scope": scope_answer, "layout": layout_answer },
                "continuation": {
                    "strategy": "refine_only",
                    "affectedQuestionIds": ["scope", "langs"],
                    "preservedAnswers": { "layout": layout_answer },
                    "questionStates": {
                        "scope": { "status": "needs_clarification" },
                        "langs": { "status": "needs_clarification" },
                        "layout": { "status": "answered" }
                    }
                },
                "elaboration": {
                    "instruction": "First answer the user's noted clarification directly and concisely using the provided question and option context. Do not treat these notes as final answers. Then re-ask only the affected questions if a choice is still needed afterward. Do not jump straight to a follow-up question unless the note is already resolved.",
                    "nextAction": "clarify_then_reask",
                    "items": [
                        {
                            "target": { "kind": "option", "optionValue": "large" },
                            "question": scope_context(),
                            "option": { "value": "large", "label": "Large", "description": "Everything" },
                            "selected": false,
                            "answered": true,
                            "answer": scope_answer,
                            "note": "why \"large\"?"
                        },
                        {
                            "target": { "kind": "option", "optionValue": "small" },
                            "question": scope_context(),
                            "option": { "value": "small", "label": "Small" },
                            "selected": true,
                            "answered": true,
                            "answer": scope_answer,
                            "note": "ok?"
                        },
                        {
                            "target": { "kind": "question" },
                            "question": langs_context(),
                            "answered": false,
                            "note": "which?"
                        }
                    ]
                }
            }
        })
    );
    let states = &value["details"]["continuation"]["questionStates"];
    assert_eq!(keys_of(states), ["scope", "langs", "layout"]);
    assert_eq!(s.transcript(), transcript(CALL, text));
}

#[test]
fn elaborate_puts_the_question_note_before_option_notes_and_keeps_custom_answers() {
    let mut s = open_main();
    press(&mut s, "<Tab><Down><Down>n");
    type_text(&mut s, "py?");
    press(&mut s, "<CR>N");
    type_text(&mut s, "all?");
    press(&mut s, "<CR><Down>");
    type_text(&mut s, "Zig");
    press(&mut s, "<CR><Tab>2");
    let value = result(&s);
    let langs_answer = json!({
        "values": ["Zig"], "labels": ["Zig"], "indices": [], "customText": "Zig", "note": "all?"
    });
    assert_eq!(
        value["details"]["answers"],
        json!({ "langs": langs_answer })
    );
    assert_eq!(
        value["details"]["elaboration"]["items"],
        json!([
            {
                "target": { "kind": "question" },
                "question": langs_context(),
                "answered": true,
                "answer": langs_answer,
                "note": "all?"
            },
            {
                "target": { "kind": "option", "optionValue": "py" },
                "question": langs_context(),
                "option": { "value": "py", "label": "Python" },
                "selected": false,
                "answered": true,
                "answer": langs_answer,
                "note": "py?"
            }
        ])
    );
    assert_eq!(
        value["content"][0]["text"],
        json!(
            "User asked to elaborate on question \"Which languages?\" with note \"all?\"\n\
             User asked to elaborate on question \"Which languages?\" option \"Python\" with note \"py?\""
        )
    );
}

#[test]
fn elaborate_without_notes_says_so() {
    let mut s = open_main();
    press(&mut s, "1<S-Tab><S-Tab>2");
    let scope_answer = json!({ "values": ["small"], "labels": ["Small"], "indices": [1] });
    assert_eq!(
        result(&s),
        json!({
            "content": [{ "type": "text", "text": "User asked for elaboration based on notes" }],
            "details": {
                "title": "Setup",
                "cancelled": false,
                "mode": "elaborate",
                "questions": questions_json(),
                "answers": { "scope": scope_answer },
                "continuation": {
                    "strategy": "refine_only",
                    "affectedQuestionIds": [],
                    "preservedAnswers": { "scope": scope_answer },
                    "questionStates": {
                        "scope": { "status": "answered" },
                        "langs": { "status": "unanswered" },
                        "layout": { "status": "unanswered" }
                    }
                },
                "elaboration": {
                    "instruction": "First answer the user's noted clarification directly and concisely using the provided question and option context. Do not treat these notes as final answers. Then re-ask only the affected questions if a choice is still needed afterward. Do not jump straight to a follow-up question unless the note is already resolved.",
                    "nextAction": "clarify_then_reask",
                    "items": []
                }
            }
        })
    );
    assert_eq!(
        s.transcript(),
        transcript(CALL, "User asked for elaboration based on notes")
    );
}

/// Scope: Small selected; Langs: a question note only.
fn partly_answered() -> Session {
    let mut s = open_main();
    press(&mut s, "<Space><Tab>N");
    type_text(&mut s, "n1");
    press(&mut s, "<CR>");
    s
}

fn cancelled_result(text: &str, reason: &str) -> Value {
    json!({
        "content": [{ "type": "text", "text": text }],
        "details": {
            "title": "Setup",
            "cancelled": true,
            "cancelReason": reason,
            "mode": "submit",
            "questions": questions_json(),
            "answers": {
                "scope": { "values": ["small"], "labels": ["Small"], "indices": [1] },
                "langs": { "values": [], "labels": [], "indices": [], "note": "n1" }
            }
        }
    })
}

/// Every way a flow ends without an answer keeps what was entered, and says why: in
/// `cancelReason`, in the summary text, and in the transcript's words.
#[test]
fn every_way_of_cancelling_keeps_what_was_entered() {
    const USER: &str = "User cancelled the ask flow";
    let endings: [(&str, Step, &str, &str, &str); 8] = [
        ("esc", |s| press(s, "<Esc>"), "user", USER, "Cancelled"),
        (
            "ctrl+c",
            |s| press(s, "<C-c>"),
            "dismissed",
            USER,
            "Cancelled",
        ),
        (
            "review cancel",
            |s| press(s, "<Tab><Tab><Down><Down><CR>"),
            "user",
            USER,
            "Cancelled",
        ),
        (
            "review 3",
            |s| press(s, "<Tab><Tab>3"),
            "user",
            USER,
            "Cancelled",
        ),
        (
            "abort",
            |s| s.flow_mut().unwrap().cancel(CancelReason::Aborted).unwrap(),
            "aborted",
            USER,
            "Cancelled (withdrawn by the asker)",
        ),
        (
            "closed",
            |s| s.flow_mut().unwrap().cancel(CancelReason::Closed).unwrap(),
            "closed",
            USER,
            "Cancelled (closed)",
        ),
        (
            "timeout",
            |s| {
                s.flow_mut().unwrap().set_deadline(Some(1_000));
                assert!(s.expire(1_000));
            },
            "timeout",
            "The ask flow timed out before the user answered",
            "Cancelled (timed out)",
        ),
        (
            "timeout with a draft",
            |s| {
                s.flow_mut().unwrap().set_deadline(Some(1_000));
                press(s, "4typed");
                assert!(s.expire(5_000));
            },
            "timeout",
            "The ask flow timed out before the user answered",
            "Cancelled (timed out)",
        ),
    ];
    for (name, end, reason, text, words) in endings {
        let mut s = partly_answered();
        end(&mut s);
        assert_eq!(result(&s), cancelled_result(text, reason), "{name}");
        assert_eq!(s.transcript(), transcript(CALL, words), "{name}");
        assert_eq!(
            s.cancel_reason().map(CancelReason::name),
            Some(reason),
            "{name}"
        );
    }
}

#[test]
fn ctrl_c_in_an_editor_drops_the_draft_from_the_result() {
    let mut s = open_main();
    press(&mut s, "3");
    type_text(&mut s, "saved");
    press(&mut s, "<Esc><CR>");
    type_text(&mut s, " and more");
    press(&mut s, "<C-c>");
    let mut expected = cancelled_result("User cancelled the ask flow", "dismissed");
    expected["details"]["answers"] = json!({
        "scope": { "values": ["saved"], "labels": ["saved"], "indices": [], "customText": "saved" }
    });
    assert_eq!(result(&s), expected);

    let mut s = open_main();
    press(&mut s, "n");
    type_text(&mut s, "draft");
    press(&mut s, "<C-c>");
    expected["details"]["answers"] = json!({});
    assert_eq!(result(&s), expected);
    assert_eq!(s.transcript(), transcript(CALL, "Cancelled"));
}

fn invalid_result(title: Option<&str>, issues: &[(&str, &str)]) -> Value {
    let text = std::iter::once("Invalid ask_user payload:".to_owned())
        .chain(issues.iter().map(|(p, m)| format!("- {p}: {m}")))
        .collect::<Vec<_>>()
        .join("\n");
    let issues: Vec<Value> = issues
        .iter()
        .map(|(p, m)| json!({ "path": p, "message": m }))
        .collect();
    let mut details = json!({
        "cancelled": true,
        "cancelReason": "invalid_input",
        "error": { "kind": "invalid_input", "issues": issues },
        "mode": "submit",
        "questions": [],
        "answers": {}
    });
    if let Some(title) = title {
        details["title"] = json!(title);
    }
    json!({ "content": [{ "type": "text", "text": text }], "details": details })
}

#[test]
fn an_invalid_payload_completes_at_once_with_every_issue() {
    let s = open(&json!({
        "title": "T",
        "questions": [
            { "id": "", "prompt": "P", "options": [] },
            { "id": "b", "prompt": " ", "type": "grid", "options": [{ "value": "x" }] }
        ]
    }));
    assert_eq!(s.flow(), None);
    assert_eq!(
        result(&s),
        invalid_result(
            Some("T"),
            &[
                ("questions[0].id", "Question 1: id is required"),
                (
                    "questions[0].options",
                    "Question 1: at least one option is required"
                ),
                (
                    "questions[1].type",
                    "Question 2: invalid type \"grid\"; expected \"single\", \"multi\", or \"preview\""
                ),
                ("questions[1].prompt", "Question 2: prompt is required"),
                (
                    "questions[1].options[0].label",
                    "Question 2, option 1: label is required"
                ),
            ]
        )
    );
    assert_eq!(
        s.transcript(),
        transcript("ask_user 2 question(s) (Q1, Q2)", "Invalid input")
    );
}

#[test]
fn duplicates_blank_optional_fields_and_missing_previews_are_issues() {
    let s = open(&json!({
        "questions": [
            { "id": "a", "label": "First", "prompt": "A", "options": [{ "value": "x", "label": "X" }] },
            {
                "id": " a ", "label": "  ", "prompt": "B", "type": "preview",
                "options": [
                    { "value": "v", "label": "V", "preview": "p" },
                    { "value": " v", "label": "W", "description": " " },
                    { "value": "w", "label": "W", "preview": "" }
                ]
            }
        ]
    }));
    assert_eq!(
        result(&s),
        invalid_result(
            None,
            &[
                ("questions[1].id", "Question 2: duplicate question id \"a\""),
                ("questions[1].label", "Question 2: label must not be empty"),
                (
                    "questions[1].options[1].value",
                    "Question 2, option 2: duplicate option value \"v\""
                ),
                (
                    "questions[1].options[1].description",
                    "Question 2, option 2: description must not be empty"
                ),
                (
                    "questions[1].options[1].preview",
                    "Question 2, option 2: preview questions require preview text for every option; add preview text or use type \"single\" instead"
                ),
                (
                    "questions[1].options[2].preview",
                    "Question 2, option 3: preview must not be empty"
                ),
                // A blank preview on a preview question breaks both rules.
                (
                    "questions[1].options[2].preview",
                    "Question 2, option 3: preview questions require preview text for every option; add preview text or use type \"single\" instead"
                ),
            ]
        )
    );
    assert_eq!(
        s.transcript(),
        transcript("ask_user 2 question(s) (First, Q2)", "Invalid input")
    );
}

#[test]
fn malformed_shapes_are_invalid_input_not_errors() {
    type Issues = Vec<(&'static str, &'static str)>;
    let cases: Vec<(Value, Issues, &str)> = vec![
        (
            json!([1, 2]),
            vec![("payload", "payload must be an object")],
            "ask_user 0 question(s)",
        ),
        (
            json!({}),
            vec![("questions", "At least one question is required")],
            "ask_user 0 question(s)",
        ),
        (
            json!({ "title": 5, "questions": "all" }),
            vec![
                ("title", "title must be a string"),
                ("questions", "questions must be an array"),
            ],
            "ask_user 0 question(s)",
        ),
        (
            json!({ "questions": [
                7,
                { "id": 5, "prompt": "p", "required": "yes", "options": { "value": "x" } },
                { "id": "c", "prompt": "p", "type": 3, "options": ["x"] }
            ] }),
            vec![
                ("questions[0]", "Question 1: must be an object"),
                ("questions[1].id", "Question 2: id must be a string"),
                (
                    "questions[1].required",
                    "Question 2: required must be a boolean",
                ),
                (
                    "questions[1].options",
                    "Question 2: options must be an array",
                ),
                (
                    "questions[2].type",
                    "Question 3: invalid type 3; expected \"single\", \"multi\", or \"preview\"",
                ),
                (
                    "questions[2].options[0]",
                    "Question 3, option 1: must be an object",
                ),
            ],
            "ask_user 3 question(s) (Q1, Q2, Q3)",
        ),
    ];
    for (payload, issues, call) in cases {
        let s = open(&payload);
        assert_eq!(result(&s), invalid_result(None, &issues), "{payload}");
        assert_eq!(
            s.transcript(),
            transcript(call, "Invalid input"),
            "{payload}"
        );
    }
}

#[test]
fn without_ui_the_flow_completes_at_once_with_the_pending_questions() {
    let options = OpenOptions {
        has_ui: false,
        ..OpenOptions::default()
    };
    let s = Session::open(&payload(), &options).unwrap();
    let text = "Needs user input: ask_user requires interactive UI.\n\
                Run same tool call in interactive session, or ask user these questions manually:\n\
                1. Scope: Which scope?\n   - Small [small]\n   - Large [large]\n   - Type your own [custom]\n\
                2. Langs: Which languages?\n   - Rust [rs]\n   - Go [go]\n   - Python [py]\n   - Type your own [custom]\n\
                3. Layout: Which layout?\n   - Grid [grid]\n   - List [list]\n\
                details.questions contains normalized pending questions. details.answers stays empty until user responds.";
    assert_eq!(
        result(&s),
        json!({
            "content": [{ "type": "text", "text": text }],
            "details": {
                "title": "Setup",
                "cancelled": true,
                "cancelReason": "no_ui",
                "mode": "submit",
                "questions": questions_json(),
                "answers": {}
            }
        })
    );
    assert_eq!(s.transcript(), transcript(CALL, "Cancelled"));
}

#[test]
fn without_ui_the_questions_are_normalised() {
    let options = OpenOptions {
        has_ui: false,
        ..OpenOptions::default()
    };
    let s = Session::open(
        &json!({ "questions": [{
            "id": " pick ", "prompt": "  Pick one?  ", "type": "multi",
            "options": [{ "value": " a ", "label": " Alpha (Recommended) " }]
        }] }),
        &options,
    )
    .unwrap();
    assert_eq!(
        result(&s),
        json!({
            "content": [{
                "type": "text",
                "text": "Needs user input: ask_user requires interactive UI.\n\
                         Run same tool call in interactive session, or ask user these questions manually:\n\
                         1. Q1: Pick one?\n   - Alpha (Recommended) [a]\n   - Type your own [custom]\n\
                         details.questions contains normalized pending questions. details.answers stays empty until user responds."
            }],
            "details": {
                "cancelled": true,
                "cancelReason": "no_ui",
                "mode": "submit",
                "questions": [{ "id": "pick", "label": "Q1", "prompt": "Pick one?", "type": "multi" }],
                "answers": {}
            }
        })
    );
    assert_eq!(
        s.transcript(),
        transcript("ask_user 1 question(s) (Q1)", "Cancelled")
    );
}

#[test]
fn the_call_line_cuts_labels_wider_than_fifty_columns_to_47_and_an_ellipsis() {
    let label = "가나다라마바사아자차";
    let option = json!([{ "value": "x", "label": "X" }]);
    let payload = json!({ "questions": [
        { "id": "a", "label": label, "prompt": "A", "options": option },
        { "id": "b", "label": label, "prompt": "B", "options": option },
        { "id": "c", "label": label, "prompt": "C", "options": option }
    ] });
    let mut s = open(&payload);
    press(&mut s, "<S-Tab>1");
    assert_eq!(
        s.transcript().unwrap().call,
        // 20 + 2 + 20 + 2 + 2 = 46 columns; the next wide character would reach 48.
        "ask_user 3 question(s) (가나다라마바사아자차, 가나다라마바사아자차, 가...)"
    );
}

#[test]
fn labels_keep_their_recommended_marker_in_results() {
    let mut s = open(&json!({ "questions": [{
        "id": "db", "label": "DB", "prompt": "Which database?",
        "options": [
            { "value": "pg", "label": "Postgres (Recommended)" },
            { "value": "my", "label": "MySQL" }
        ]
    }] }));
    let rows = view::build("s", &s).question.unwrap().rows;
    assert_eq!(
        (rows[0].label.as_str(), rows[0].recommended),
        ("Postgres", true)
    );
    press(&mut s, "11");
    assert_eq!(
        result(&s)["details"]["answers"],
        json!({ "db": { "values": ["pg"], "labels": ["Postgres (Recommended)"], "indices": [1] } })
    );
    assert_eq!(
        s.transcript(),
        transcript(
            "ask_user 1 question(s) (DB)",
            "✓ DB: Postgres (Recommended)"
        )
    );
}
