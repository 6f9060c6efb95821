//! The opencode dialect (opencode's `question` tool): validation, mapping, the custom row,
//! the result of every ending, answer sets, transcripts and snapshots.

use crate::common::*;
use askd::core::{Answer, CancelReason, CustomRow, FlowError, Focus, Outcome, QuestionType};
use askd::session::{OpenOptions, Session, Status};
use askd::view;
use serde_json::{Value, json};

/// The tool input of the opencode example of `protocol/dialects.md`.
fn input() -> Value {
    json!({ "questions": [
        { "question": "Which database should we use?", "header": "Database",
          "options": [ { "label": "Postgres (Recommended)", "description": "Full SQL server" },
                       { "label": "SQLite", "description": "Single file" } ] },
        { "question": "Which features do you want to enable?", "header": "Features", "multiple": true,
          "options": [ { "label": "Auth", "description": "Login and sessions" },
                       { "label": "Logging", "description": "Structured logs" } ] } ] })
}

/// The `QuestionRequest` a client sees for that input.
fn request() -> Value {
    let mut request = input();
    request["id"] = json!("que_01J");
    request["sessionID"] = json!("ses_01J");
    request["tool"] = json!({ "messageID": "msg_01J", "callID": "toolu_01" });
    request
}

fn issues_of(request: Value) -> Vec<(String, String)> {
    let session = open_in("opencode", &request);
    assert_eq!(session.status(), Status::Done, "{request}");
    assert_eq!(session.result().unwrap(), json!({ "rejected": true }));
    session
        .issues()
        .unwrap()
        .iter()
        .map(|i| (i.path.clone(), i.message.clone()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, m)| ((*p).to_owned(), (*m).to_owned()))
        .collect()
}

#[test]
fn the_documented_example_replies_as_opencode_expects() {
    for payload in [input(), request()] {
        let mut s = open_in("opencode", &payload);
        press(&mut s, "11<Down><Down>Audit trail<CR>");
        assert_eq!(flow(&s).focus(), Focus::Review);
        press(&mut s, "1");
        assert_eq!(
            s.result().unwrap(),
            json!({ "answers": [ ["Postgres (Recommended)"], ["Auth", "Audit trail"] ] })
        );
        let transcript = s.transcript().unwrap();
        assert_eq!(
            transcript.call,
            "question: Asked 2 questions (Database, Features)"
        );
        assert_eq!(
            transcript.result,
            "✓ Database: Postgres (Recommended)\n✓ Features: Auth, (wrote) Audit trail"
        );
    }
}

/// `custom` turns the custom row off in a `QuestionRequest`; the tool's input has no such field
/// (opencode drops it, so that a model cannot turn the row off), and there it changes nothing.
#[test]
fn questions_are_keyed_by_position_with_the_custom_row_unless_turned_off() {
    let mut bare = input();
    bare["questions"][1]["custom"] = json!(false);
    let s = open_in("opencode", &bare);
    assert_eq!(
        flow(&s).spec().questions[1].custom_row,
        CustomRow::Labelled {
            label: "Type your own answer".to_owned(),
            description: None
        }
    );
    let mut payload = request();
    payload["questions"][1]["custom"] = json!(false);
    let s = open_in("opencode", &payload);
    let spec = flow(&s).spec();
    assert_eq!(spec.questions[0].id, "q1");
    assert_eq!(spec.questions[1].id, "q2");
    assert_eq!(spec.questions[1].kind, QuestionType::Multi);
    assert_eq!(
        spec.questions[0].custom_row,
        CustomRow::Labelled {
            label: "Type your own answer".to_owned(),
            description: None
        }
    );
    assert_eq!(spec.questions[1].custom_row, CustomRow::Absent);
    let v = view::build("s", &s);
    assert_eq!(v.question.unwrap().rows[2].label, "Type your own answer");
    let actions: Vec<&str> = v.hints.iter().map(|h| h.action).collect();
    assert!(!actions.contains(&"main.questionNote"));
    assert!(!actions.contains(&"main.optionNote"));
}

#[test]
fn a_question_without_options_is_free_text() {
    let payload =
        json!({ "questions": [{ "question": "Name?", "header": "Name", "options": [] }] });
    let mut s = open_in("opencode", &payload);
    assert_eq!(flow(&s).focus(), Focus::Input);
    press(&mut s, "  Ada  <CR>1");
    assert_eq!(s.result().unwrap(), json!({ "answers": [["Ada"]] }));
}

#[test]
fn the_review_offers_submit_and_dismiss_and_notes_are_not_offered() {
    let mut s = open_in("opencode", &input());
    let before = s.clone();
    press(&mut s, "nN");
    assert_eq!(s, before);
    press(&mut s, "<S-Tab>");
    let review = view::build("s", &s).review.unwrap();
    let labels: Vec<&str> = review.actions.iter().map(|a| a.label.as_str()).collect();
    assert_eq!(labels, ["Submit", "Dismiss"]);
    press(&mut s, "2");
    assert_eq!(s.result().unwrap(), json!({ "rejected": true }));
    assert_eq!(s.transcript().unwrap().result, "Dismissed");
}

#[test]
fn every_ending_but_a_submit_rejects() {
    let mut s = open_in("opencode", &input());
    press(&mut s, "<Esc>");
    assert_eq!(s.result().unwrap(), json!({ "rejected": true }));
    let mut s = open_in("opencode", &input());
    s.flow_mut().unwrap().cancel(CancelReason::Aborted).unwrap();
    assert_eq!(s.result().unwrap(), json!({ "rejected": true }));
    assert_eq!(
        s.transcript().unwrap().result,
        "Cancelled (withdrawn by the asker)"
    );
    let s = open_without_ui("opencode", &input());
    assert_eq!(s.result().unwrap(), json!({ "rejected": true }));
    let mut s = open_in("opencode", &input());
    press(&mut s, "<S-Tab>1");
    assert_eq!(s.result().unwrap(), json!({ "answers": [[], []] }));
    assert_eq!(
        s.transcript().unwrap().result,
        "- Database: (skipped)\n- Features: (skipped)"
    );
}

#[test]
fn multi_select_answers_come_in_option_order_then_the_typed_text() {
    let mut s = open_in("opencode", &input());
    press(&mut s, "<Tab>21<Down><Down>x<CR>1");
    assert_eq!(
        s.result().unwrap(),
        json!({ "answers": [[], ["Auth", "Logging", "x"]] })
    );
}

/// What opencode's schemas (1.18.33) check: types, `null` for no field, and ids with their
/// prefixes (`que`, `ses`, `msg`). Both ways: what opencode takes opens.
#[test]
fn every_validation_rule_has_its_path_and_message() {
    assert_eq!(
        issues_of(json!("x")),
        pairs(&[("request", "request must be an object")])
    );
    assert_eq!(
        issues_of(json!({ "sessionID": 1, "tool": { "callID": 2 }, "questions": null })),
        pairs(&[
            ("id", "id is required"),
            ("sessionID", "sessionID must be a string"),
            ("tool.messageID", "tool.messageID is required"),
            ("tool.callID", "tool.callID must be a string"),
            ("questions", "questions must be an array"),
        ])
    );
    assert_eq!(
        issues_of(
            json!({ "id": "q_1", "sessionID": "s_1", "tool": { "messageID": "prt_1", "callID": "" },
            "questions": [] })
        ),
        pairs(&[
            ("id", "id must start with \"que\""),
            ("sessionID", "sessionID must start with \"ses\""),
            ("tool.messageID", "tool.messageID must start with \"msg\""),
        ])
    );
    assert_eq!(
        issues_of(json!({ "id": "que_1", "sessionID": "ses_1", "questions": [
            { "header": 3, "multiple": "y", "custom": null },
            { "question": "Q?", "header": "", "options": [
                { "label": null, "description": "" }, { "label": "B" }, []
            ] }
        ] })),
        pairs(&[
            ("questions[0].question", "Question 1: question is required"),
            ("questions[0].header", "Question 1: header must be a string"),
            (
                "questions[0].multiple",
                "Question 1: multiple must be a boolean"
            ),
            (
                "questions[0].custom",
                "Question 1: custom must be a boolean"
            ),
            ("questions[0].options", "Question 1: options is required"),
            (
                "questions[1].options[0].label",
                "Question 2, option 1: label must be a string"
            ),
            (
                "questions[1].options[1].description",
                "Question 2, option 2: description is required"
            ),
            (
                "questions[1].options[2]",
                "Question 2, option 3: must be an object"
            ),
        ])
    );
    // Without questions, the call line has no parenthesised part.
    let invalid = open_in("opencode", &json!({ "questions": "x" }));
    assert_eq!(
        invalid.transcript().unwrap().call,
        "question: Asked 0 questions"
    );
    // Unknown keys, at every level, are accepted and change nothing: not the flow, not the
    // reply, not the transcript.
    let mut extra = request();
    extra["time"] = json!({ "created": 1 });
    extra["tool"]["x-part"] = json!("prt_01");
    extra["questions"][0]["x-weight"] = json!(2);
    extra["questions"][1]["options"][0]["x-tag"] = json!("security");
    let keys = "11<Down><Down>Audit trail<CR>";
    let (plain, s) = unknown_keys_change_nothing("opencode", &request(), &extra, keys, "1");
    let reply = json!({ "answers": [ ["Postgres (Recommended)"], ["Auth", "Audit trail"] ] });
    assert_eq!(s.result().unwrap(), reply);
    assert_eq!(plain.result().unwrap(), reply);
    assert_eq!(s.transcript(), plain.transcript());
}

/// What opencode takes and askd asks: no questions, empty texts, repeated labels, and a
/// question with no options and no custom answer, which can only be left unanswered (its row
/// says why and takes no text).
#[test]
fn what_opencode_takes_is_asked() {
    for payload in [
        json!({ "questions": [] }),
        json!({ "id": "que", "sessionID": "ses", "questions": [] }),
    ] {
        let mut s = open_in("opencode", &payload);
        assert_eq!(s.status(), Status::Open);
        press(&mut s, "1");
        assert_eq!(s.result().unwrap(), json!({ "answers": [] }));
    }
    let payload = json!({ "id": "que_1", "sessionID": "ses_1", "questions": [
        { "question": "", "header": "", "options": [
            { "label": "X", "description": "" }, { "label": "X", "description": "" } ] },
        { "question": "Nothing?", "header": "None", "custom": false, "options": [] }
    ] });
    let mut s = open_in("opencode", &payload);
    assert_eq!(s.status(), Status::Open);
    press(&mut s, "2");
    let v = view::build("s", &s);
    let row = &v.question.unwrap().rows[0];
    assert_eq!(
        (row.label.as_str(), row.description.as_deref()),
        (
            "No answer possible",
            Some("This question offers no options and no answer of your own: leave it unanswered.")
        )
    );
    // The row is inert: no editor opens on it, and no key answers it.
    assert_eq!(
        (flow(&s).tab(), flow(&s).row(), flow(&s).editor()),
        (1, 0, None)
    );
    press(&mut s, "1<Space>nNx<Down><Up>");
    assert_eq!(
        (flow(&s).tab(), flow(&s).row(), flow(&s).editor()),
        (1, 0, None)
    );
    assert_eq!(answer(&s, 1), Answer::default());
    assert!(matches!(
        s.flow_mut().unwrap().save_custom("q2", "x", false),
        Err(FlowError::NoCustomAnswer(_))
    ));
    // Enter only moves on; the question is left unanswered.
    press(&mut s, "<CR>");
    assert_eq!(flow(&s).focus(), Focus::Review);
    press(&mut s, "1");
    assert_eq!(s.result().unwrap(), json!({ "answers": [["X"], []] }));
}

#[test]
fn the_call_line_cuts_labels_to_47_columns_and_an_ellipsis() {
    let call = |headers: &[&str]| {
        let questions: Vec<Value> = headers
            .iter()
            .map(|h| json!({ "question": format!("{h}?"), "header": h, "options": [{ "label": "A", "description": "" }] }))
            .collect();
        let mut s = open_in("opencode", &json!({ "questions": questions }));
        s.flow_mut().unwrap().cancel(CancelReason::User).unwrap();
        s.transcript().unwrap().call
    };
    // 8 + 2 + 8 + 2 + 10 + 2 + 10 + 2 + 6 = 50 columns: shown whole.
    assert_eq!(
        call(&["Database", "Features", "Deployment", "Monitoring", "Backup"]),
        "question: Asked 5 questions (Database, Features, Deployment, Monitoring, Backup)"
    );
    // 51 columns: the first 47, then `...`.
    assert_eq!(
        call(&[
            "Database",
            "Features",
            "Deployment",
            "Monitoring",
            "Backups"
        ]),
        "question: Asked 5 questions (Database, Features, Deployment, Monitoring, Bac...)"
    );
    assert_eq!(call(&["Database"]), "question: Asked 1 question (Database)");
}

#[test]
fn replies_are_answer_sets_too() {
    let mut s = open_in("opencode", &input());
    s.submit_answer_set(
        &json!({ "answers": [["Own text"], ["Logging", "Auth"]] }),
        Outcome::Submit,
    )
    .unwrap();
    assert_eq!(
        s.result().unwrap(),
        json!({ "answers": [["Own text"], ["Auth", "Logging"]] })
    );
    let mut s = open_in("opencode", &input());
    s.submit_answer_set(&json!({ "q2": { "values": ["Auth"] } }), Outcome::Submit)
        .unwrap();
    assert_eq!(s.result().unwrap(), json!({ "answers": [[], ["Auth"]] }));
    for (set, message) in [
        (
            json!({ "answers": [[]] }),
            "answers: expected 2 lists, one per question in order (got 1)",
        ),
        (
            json!({ "answers": [["SQLite", "mine"], []] }),
            "answers[0]: question Database is single-select and takes one answer",
        ),
        (
            json!({ "answers": [[], ["a", "b"]] }),
            "answers[1][1]: one text of the user's own at most",
        ),
        (
            json!({ "answers": [[1], []] }),
            "answers[0][0]: expected a string",
        ),
    ] {
        let mut s = open_in("opencode", &input());
        let before = s.clone();
        let err = s.submit_answer_set(&set, Outcome::Submit).unwrap_err();
        assert_eq!(err.to_string(), message);
        assert_eq!(s, before);
    }
}

#[test]
fn a_question_request_is_recognised_and_the_bare_input_is_not() {
    let s = Session::open(&request(), &OpenOptions::default()).unwrap();
    assert_eq!(s.dialect().name(), "opencode");
    let s = Session::open(&input(), &OpenOptions::default()).unwrap();
    assert_eq!(s.dialect().name(), "pi");
}

#[test]
fn snapshots_round_trip() {
    let mut s = open_in("opencode", &input());
    press(&mut s, "1<Down><Down>");
    assert_eq!(round_trip(&s, &input(), &Value::Null), s);
    let bad = json!({ "questions": [1] });
    let invalid = open_in("opencode", &bad);
    assert_eq!(round_trip(&invalid, &bad, &Value::Null), invalid);
}
