//! The codex dialect (OpenAI Codex `request_user_input`): validation, mapping, the `None of
//! the above` row, notes, secret questions, the result of every ending, answer sets,
//! transcripts and snapshots.

use crate::common::*;
use askd::core::{CancelReason, CustomRow, Focus, HIDDEN, Outcome};
use askd::dialect::DialectId;
use askd::session::{OpenOptions, Session, Status};
use askd::view;
use serde_json::{Value, json};

/// The model arguments of the codex example of `protocol/dialects.md`.
fn arguments() -> Value {
    json!({ "questions": [
        { "id": "db_choice", "header": "Database", "question": "Which database should we use?",
          "options": [
            { "label": "Postgres (Recommended)", "description": "Full SQL server." },
            { "label": "SQLite", "description": "Single file, no server." } ] },
        { "id": "deploy_target", "header": "Deploy", "question": "Where will it run?",
          "options": [
            { "label": "Fly.io", "description": "Managed containers." },
            { "label": "Bare VM", "description": "Self-managed host." } ] } ] })
}

/// The app-server request of the codex example of `protocol/dialects.md` (its `params`).
fn app_server_request() -> Value {
    json!({
        "threadId": "thr_1", "turnId": "turn_1", "itemId": "call_abc",
        "questions": [
            { "id": "db_choice", "header": "Database", "question": "Which database should we use?", "isOther": true, "isSecret": false,
              "options": [ { "label": "Postgres (Recommended)", "description": "Full SQL server." }, { "label": "SQLite", "description": "Single file, no server." } ] },
            { "id": "deploy_target", "header": "Deploy", "question": "Where will it run?", "isOther": true, "isSecret": false,
              "options": [ { "label": "Fly.io", "description": "Managed containers." }, { "label": "Bare VM", "description": "Self-managed host." } ] } ],
        "isBlocking": true, "autoResolutionMs": null
    })
}

/// The client response of the codex example of `protocol/dialects.md`.
fn documented_response() -> Value {
    json!({ "answers": {
        "db_choice": { "answers": ["Postgres (Recommended)", "user_note: reuse the staging cluster"] },
        "deploy_target": { "answers": ["None of the above", "user_note: our own Kubernetes"] } } })
}

/// `questions` as an app-server request (the model's bare arguments need options on every
/// question).
fn envelope(questions: Value) -> Value {
    json!({ "threadId": "t", "turnId": "u", "itemId": "i", "isBlocking": true, "questions": questions })
}

fn issues_of(request: Value) -> Vec<(String, String)> {
    let session = open_in("codex", &request);
    assert_eq!(session.status(), Status::Done, "{request}");
    assert_eq!(session.result().unwrap(), json!({ "answers": {} }));
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
fn the_documented_example_answers_as_the_tui_does() {
    for request in [arguments(), app_server_request()] {
        let mut s = open_in("codex", &request);
        // Postgres with a note; then the None of the above row with details.
        press(
            &mut s,
            "Nreuse the staging cluster<CR>1<Down><Down>our own Kubernetes<CR>",
        );
        assert_eq!(flow(&s).focus(), Focus::Review);
        press(&mut s, "1");
        assert_eq!(s.result().unwrap(), documented_response());
        let transcript = s.transcript().unwrap();
        assert_eq!(
            transcript.call,
            "request_user_input 2 questions (Database, Deploy)"
        );
        assert_eq!(
            transcript.result,
            "✓ Database: Postgres (Recommended)\n  note: reuse the staging cluster\n✓ Deploy: None of the above, (wrote) our own Kubernetes"
        );
    }
}

#[test]
fn the_other_row_comes_from_is_other_and_bare_arguments_get_it() {
    let s = open_in("codex", &arguments());
    let q = &flow(&s).spec().questions[0];
    assert_eq!(
        q.custom_row,
        CustomRow::Labelled {
            label: "None of the above".to_owned(),
            description: Some("Optionally, add details in notes (tab).".to_owned()),
        }
    );
    let row = view::build("s", &s).question.unwrap().rows[2].clone();
    assert_eq!(
        (row.label.as_str(), row.description.as_deref(), row.custom),
        (
            "None of the above",
            Some("Optionally, add details in notes (tab)."),
            true
        )
    );
    let mut request = app_server_request();
    request["questions"][0]["isOther"] = json!(false);
    request["questions"][1]
        .as_object_mut()
        .unwrap()
        .remove("isOther");
    let s = open_in("codex", &request);
    assert_eq!(flow(&s).spec().questions[0].custom_row, CustomRow::Absent);
    assert_eq!(flow(&s).spec().questions[1].custom_row, CustomRow::Absent);
    assert_eq!(view::build("s", &s).question.unwrap().row_count, 2);
}

#[test]
fn answer_lists_for_every_kind_of_answer() {
    let request = envelope(json!([
        { "id": "a", "header": "A", "question": "A?", "isOther": true, "options": [{ "label": "X", "description": "" }] },
        { "id": "b", "header": "B", "question": "B?", "isOther": true, "options": [{ "label": "X", "description": "" }] },
        { "id": "c", "header": "C", "question": "C?", "isOther": true, "options": [{ "label": "X", "description": "" }] },
        { "id": "d", "header": "D", "question": "Tell me?", "options": null },
        { "id": "e", "header": "E", "question": "E?", "options": [] }
    ]));
    let mut s = open_in("codex", &request);
    // a: X alone; b: the other row without a note; c: a note and nothing chosen;
    // d: free text and a note; e: skipped.
    press(&mut s, "1");
    press(&mut s, "2 text <CR>");
    press(&mut s, "N only a note <CR><Tab>");
    assert_eq!(flow(&s).focus(), Focus::Input);
    press(&mut s, "typed<Esc>Nand a note<CR><Tab><Tab>1");
    assert_eq!(
        s.result().unwrap(),
        json!({ "answers": {
            "a": { "answers": ["X"] },
            "b": { "answers": ["None of the above", "user_note: text"] },
            "c": { "answers": ["user_note: only a note"] },
            "d": { "answers": ["user_note: typed\nand a note"] },
            "e": { "answers": [] }
        } })
    );
}

#[test]
fn secret_questions_are_masked_in_views_and_transcripts() {
    let request = envelope(json!([
        { "id": "token", "header": "Token", "question": "Paste the token?", "isSecret": true }
    ]));
    let mut s = open_in("codex", &request);
    assert_eq!(flow(&s).focus(), Focus::Input);
    press(&mut s, "s3cr");
    let editor = view::build("s", &s).editor.unwrap();
    assert_eq!(editor.text, "••••");
    assert!(editor.secret);
    assert_eq!(
        (
            editor.cursor.offset,
            editor.cursor.byte,
            editor.cursor.column
        ),
        (4, 12, 4)
    );
    press(&mut s, "et<Esc>");
    let v = view::build("s", &s);
    assert_eq!(v.question.unwrap().custom_text.as_deref(), Some(HIDDEN));
    press(&mut s, "<Tab>");
    let review = view::build("s", &s).review.unwrap();
    assert_eq!(review.questions[0].answers[0].label, HIDDEN);
    assert!(!screen(&s, 60).contains("s3cret"));
    press(&mut s, "1");
    assert_eq!(
        s.result().unwrap(),
        json!({ "answers": { "token": { "answers": ["user_note: s3cret"] } } })
    );
    assert_eq!(s.transcript().unwrap().result, "✓ Token: (wrote) [hidden]");
}

/// What `codex app-server generate-json-schema` (0.171.0) writes for
/// `ToolRequestUserInputParams`, and what the tool's handler checks of the model's arguments:
/// types, the envelope's required fields, `autoResolutionMs` a whole number of 0 or more or
/// `null`, and non-empty options on a model call. Both ways: what Codex takes opens.
#[test]
fn every_validation_rule_has_its_path_and_message() {
    assert_eq!(
        issues_of(json!([1])),
        pairs(&[("request", "request must be an object")])
    );
    assert_eq!(
        issues_of(json!({})),
        pairs(&[("questions", "questions is required")])
    );
    assert_eq!(
        issues_of(
            json!({ "itemId": 1, "isBlocking": "no", "autoResolutionMs": "x", "questions": 1 })
        ),
        pairs(&[
            ("threadId", "threadId is required"),
            ("turnId", "turnId is required"),
            ("itemId", "itemId must be a string"),
            ("isBlocking", "isBlocking must be a boolean"),
            (
                "autoResolutionMs",
                "autoResolutionMs must be a whole number of milliseconds, 0 or more"
            ),
            ("questions", "questions must be an array"),
        ])
    );
    for ms in [json!(-1), json!(2.5), json!("5")] {
        let mut request = app_server_request();
        request["autoResolutionMs"] = ms;
        assert_eq!(
            issues_of(request),
            pairs(&[(
                "autoResolutionMs",
                "autoResolutionMs must be a whole number of milliseconds, 0 or more"
            )])
        );
    }
    let mut request = app_server_request();
    request["threadId"] = Value::Null;
    request["isBlocking"] = Value::Null;
    assert_eq!(
        issues_of(request),
        pairs(&[
            ("threadId", "threadId must be a string"),
            ("isBlocking", "isBlocking must be a boolean"),
        ])
    );
    assert_eq!(
        issues_of(envelope(json!([
            { "id": "a", "header": 1, "question": null, "isOther": 1, "isSecret": null, "options": "y" },
            { "header": "C" },
            "no"
        ]))),
        pairs(&[
            ("questions[0].header", "Question 1: header must be a string"),
            (
                "questions[0].question",
                "Question 1: question must be a string"
            ),
            (
                "questions[0].isOther",
                "Question 1: isOther must be a boolean"
            ),
            (
                "questions[0].isSecret",
                "Question 1: isSecret must be a boolean"
            ),
            (
                "questions[0].options",
                "Question 1: options must be an array or null"
            ),
            ("questions[1].id", "Question 2: id is required"),
            ("questions[1].question", "Question 2: question is required"),
            ("questions[2]", "Question 3: must be an object"),
        ])
    );
    assert_eq!(
        issues_of(envelope(json!([
            { "id": "a", "header": "A", "question": "A?", "options": [
                { "label": 1, "description": "" }, { "description": "" }, { "label": "" }, 7
            ] }
        ]))),
        pairs(&[
            (
                "questions[0].options[0].label",
                "Question 1, option 1: label must be a string"
            ),
            (
                "questions[0].options[1].label",
                "Question 1, option 2: label is required"
            ),
            (
                "questions[0].options[2].description",
                "Question 1, option 3: description is required"
            ),
            (
                "questions[0].options[3]",
                "Question 1, option 4: must be an object"
            ),
        ])
    );
    // The model's arguments: every question needs options, as the tool's handler says.
    for options in [None, Some(json!(null)), Some(json!([]))] {
        let mut question = json!({ "id": "a", "header": "A", "question": "A?" });
        if let Some(options) = options {
            question["options"] = options;
        }
        assert_eq!(
            issues_of(json!({ "questions": [question] })),
            pairs(&[(
                "questions[0].options",
                "Question 1: request_user_input requires non-empty options for every question"
            )])
        );
    }
    // Unknown keys, at every level, are accepted and change nothing: not the flow, not the
    // response, not the transcript.
    let mut extra = app_server_request();
    extra["waitMode"] = json!("async");
    extra["questions"][0]["x-weight"] = json!(2);
    extra["questions"][1]["options"][0]["x-tag"] = json!("managed");
    let keys = "Nreuse the staging cluster<CR>1<Down><Down>our own Kubernetes<CR>";
    let (plain, s) = unknown_keys_change_nothing("codex", &app_server_request(), &extra, keys, "1");
    assert_eq!(s.result().unwrap(), documented_response());
    assert_eq!(plain.result().unwrap(), documented_response());
    assert_eq!(s.transcript(), plain.transcript());
}

/// What Codex takes and askd asks: no questions (Codex sends `questions: []`), empty texts,
/// repeated ids and labels, a request without `isBlocking` (what Codex sent before it had the
/// field), and `autoResolutionMs: null`. Questions that share an id share its answer list.
#[test]
fn what_codex_takes_is_asked() {
    for questions in [json!([]), json!({ "questions": [] })] {
        let request = if questions.is_array() {
            envelope(questions)
        } else {
            questions
        };
        let mut s = open_in("codex", &request);
        assert_eq!(s.status(), Status::Open, "{request}");
        assert_eq!(flow(&s).focus(), Focus::Review);
        press(&mut s, "1");
        assert_eq!(s.result().unwrap(), json!({ "answers": {} }));
    }
    let mut request = envelope(json!([
        { "id": "a", "header": "", "question": "", "options": [
            { "label": "X", "description": "" }, { "label": "X", "description": "" }, { "label": "", "description": "" } ] },
        { "id": "a", "header": "Again", "question": "Again?", "isOther": true, "options": [
            { "label": "Y", "description": "" } ] },
        { "id": "", "header": "", "question": "Free?" }
    ]));
    request.as_object_mut().unwrap().remove("isBlocking");
    request["autoResolutionMs"] = Value::Null;
    let mut s = open_in("codex", &request);
    assert_eq!(s.status(), Status::Open);
    assert_eq!(s.time_limit(), None);
    press(&mut s, "2<Down>more<CR>typed<CR>1");
    assert_eq!(
        s.result().unwrap(),
        json!({ "answers": {
            "a": { "answers": ["X", "None of the above", "user_note: more"] },
            "": { "answers": ["user_note: typed"] } } })
    );
}

#[test]
fn the_call_line_cuts_labels_to_47_columns_and_an_ellipsis() {
    let call = |headers: &[&str]| {
        let questions: Vec<Value> = headers
            .iter()
            .enumerate()
            .map(|(i, h)| json!({ "id": format!("q{i}"), "header": h, "question": "Q?", "options": [{ "label": "A", "description": "" }] }))
            .collect();
        let mut s = open_in("codex", &envelope(json!(questions)));
        s.flow_mut().unwrap().cancel(CancelReason::User).unwrap();
        s.transcript().unwrap().call
    };
    let wide = "가나다라마바사아자차";
    // 20 + 2 + 20 + 2 + 6 = 50 columns: shown whole.
    assert_eq!(
        call(&[wide, wide, "가나다"]),
        format!("request_user_input 3 questions ({wide}, {wide}, 가나다)")
    );
    // 52 columns: cut to 47, and 나 would straddle column 47.
    assert_eq!(
        call(&[wide, wide, "가나다라"]),
        format!("request_user_input 3 questions ({wide}, {wide}, 가...)")
    );
    // A letter and its combining accent are one grapheme of one column, kept whole.
    let header = format!("{}e\u{301}tail", "x".repeat(46));
    assert_eq!(
        call(&[&header]),
        format!(
            "request_user_input 1 question ({}e\u{301}...)",
            "x".repeat(46)
        )
    );
    // A request without questions has no parenthesised part.
    let mut s = open_in("codex", &json!({ "questions": [] }));
    s.flow_mut().unwrap().cancel(CancelReason::User).unwrap();
    assert_eq!(
        s.transcript().unwrap().call,
        "request_user_input 0 questions"
    );
}

#[test]
fn more_than_three_questions_are_asked() {
    let questions: Vec<Value> = (0..5)
        .map(|i| json!({ "id": format!("q{i}"), "header": "", "question": "Q?", "options": [{ "label": "A", "description": "" }] }))
        .collect();
    let s = open_in("codex", &json!({ "questions": questions }));
    assert_eq!(s.status(), Status::Open);
    let labels: Vec<&str> = flow(&s)
        .spec()
        .questions
        .iter()
        .map(|q| q.label.as_str())
        .collect();
    assert_eq!(labels, ["Q1", "Q2", "Q3", "Q4", "Q5"]);
}

#[test]
fn nothing_but_a_submit_has_answers() {
    let mut s = open_in("codex", &arguments());
    press(&mut s, "1<Esc>");
    assert_eq!(s.result().unwrap(), json!({ "answers": {} }));
    assert_eq!(s.transcript().unwrap().result, "Cancelled");
    let mut s = open_in("codex", &arguments());
    s.flow_mut().unwrap().cancel(CancelReason::Aborted).unwrap();
    assert_eq!(s.result().unwrap(), json!({ "answers": {} }));
    assert_eq!(
        s.transcript().unwrap().result,
        "Cancelled (withdrawn by the asker)"
    );
    let s = open_without_ui("codex", &arguments());
    assert_eq!(s.result().unwrap(), json!({ "answers": {} }));
    assert_eq!(s.transcript().unwrap().result, "Not asked: no UI");
    let mut s = open_in("codex", &arguments());
    press(&mut s, "<S-Tab>1");
    assert_eq!(
        s.result().unwrap(),
        json!({ "answers": { "db_choice": { "answers": [] }, "deploy_target": { "answers": [] } } })
    );
}

#[test]
fn responses_are_answer_sets_too() {
    let mut s = open_in("codex", &app_server_request());
    s.submit_answer_set(&documented_response(), Outcome::Submit)
        .unwrap();
    assert_eq!(s.result().unwrap(), documented_response());

    let mut s = open_in("codex", &arguments());
    s.submit_answer_set(
        &json!({ "deploy_target": { "values": ["Bare VM"], "note": "n" } }),
        Outcome::Submit,
    )
    .unwrap();
    assert_eq!(
        s.result().unwrap(),
        json!({ "answers": { "db_choice": { "answers": [] }, "deploy_target": { "answers": ["Bare VM", "user_note: n"] } } })
    );

    for (set, message) in [
        (
            json!({ "answers": { "other": { "answers": [] } } }),
            "answers.other: unknown question id \"other\"",
        ),
        (
            json!({ "answers": { "db_choice": { "answers": ["MySQL"] } } }),
            "answers.db_choice.answers[0]: \"MySQL\" is not an option of question \"db_choice\"",
        ),
        (
            json!({ "answers": { "db_choice": { "answers": ["None of the above"] } } }),
            "answers.db_choice.answers: \"None of the above\" needs the text of the answer as a \"user_note: \" entry",
        ),
        (
            json!({ "answers": { "db_choice": { "answers": ["SQLite", "why"] } } }),
            "answers.db_choice.answers[1]: expected an entry starting with \"user_note: \"",
        ),
    ] {
        let mut s = open_in("codex", &arguments());
        let before = s.clone();
        let err = s.submit_answer_set(&set, Outcome::Submit).unwrap_err();
        assert_eq!(err.to_string(), message);
        assert_eq!(s, before);
    }
}

#[test]
fn the_app_server_envelope_is_recognised_and_bare_arguments_are_dsh() {
    let s = Session::open(&app_server_request(), &OpenOptions::default()).unwrap();
    assert_eq!(s.dialect().name(), "codex");
    // Bare arguments carry items with `id` and `question`: the dsh shape, as before.
    let s = Session::open(&arguments(), &OpenOptions::default()).unwrap();
    assert_eq!(s.dialect(), DialectId::DSH);
}

#[test]
fn snapshots_keep_secret_questions_and_invalid_requests() {
    let request =
        envelope(json!([{ "id": "t", "header": "T", "question": "T?", "isSecret": true }]));
    let mut s = open_in("codex", &request);
    press(&mut s, "abc");
    let restored = round_trip(&s, &request, &Value::Null);
    assert_eq!(restored, s);
    assert_eq!(view::build("s", &restored).editor.unwrap().text, "•••");
    let malformed = json!({ "questions": 1 });
    let invalid = open_in("codex", &malformed);
    assert_eq!(invalid.status(), Status::Done);
    assert_eq!(round_trip(&invalid, &malformed, &Value::Null), invalid);
}

/// Opens `request` in codex with a deadline at 10,000 ms.
fn open_until_ten_seconds(request: &Value) -> Session {
    let options = OpenOptions {
        dialect: DialectId::named("codex"),
        deadline: Some(10_000),
        ..OpenOptions::default()
    };
    Session::open(request, &options).expect("the request opens")
}

#[test]
fn a_request_that_does_not_wait_is_submitted_at_its_deadline_with_what_was_committed() {
    let mut request = app_server_request();
    request["isBlocking"] = json!(false);
    let mut s = open_until_ten_seconds(&request);
    // Postgres with a note, committed; on Deploy, text typed into None of the above, not saved.
    press(
        &mut s,
        "Nreuse the staging cluster<CR>1<Down><Down>our own Kub",
    );
    assert_eq!(flow(&s).focus(), Focus::Input);
    assert!(!s.expire(9_999));
    assert_eq!(s.status(), Status::Open);
    assert!(s.expire(10_000));
    assert_eq!(s.status(), Status::Done);
    let submitted = json!({ "answers": {
        "db_choice": { "answers": ["Postgres (Recommended)", "user_note: reuse the staging cluster"] },
        "deploy_target": { "answers": [] } } });
    assert_eq!(s.result().unwrap(), submitted);
    assert_eq!(flow(&s).outcome(), Some(Outcome::Submit));
    let v = view::build("s", &s);
    assert_eq!(serde_json::to_value(v.outcome).unwrap(), json!("submit"));
    assert_eq!(
        s.transcript().unwrap().result,
        "✓ Database: Postgres (Recommended)\n  note: reuse the staging cluster\n- Deploy: (skipped)"
    );
    assert_eq!(round_trip(&s, &request, &Value::Null).result(), s.result());
    // The same keys on a blocking request time out with empty answers.
    let mut s = open_until_ten_seconds(&app_server_request());
    press(
        &mut s,
        "Nreuse the staging cluster<CR>1<Down><Down>our own Kub",
    );
    assert!(s.expire(10_000));
    assert_eq!(s.result().unwrap(), json!({ "answers": {} }));
    assert_eq!(s.transcript().unwrap().result, "Cancelled (timed out)");
}

#[test]
fn auto_resolution_ms_makes_a_request_non_blocking_with_its_own_time_limit() {
    let limit = |request: &Value| open_in("codex", request).time_limit();
    let mut legacy = app_server_request();
    legacy["autoResolutionMs"] = json!(5000);
    assert_eq!(limit(&legacy), Some(5000));
    let mut both = legacy.clone();
    both["isBlocking"] = json!(true);
    assert_eq!(limit(&both), Some(5000));
    // Non-blocking without a time: the host's timeoutMs is its deadline.
    let mut non_blocking = app_server_request();
    non_blocking["isBlocking"] = json!(false);
    assert_eq!(limit(&non_blocking), None);
    assert_eq!(limit(&app_server_request()), None);
    // Bare arguments carry no envelope: isBlocking there is an unknown key.
    let mut bare = arguments();
    bare["isBlocking"] = json!(false);
    bare["autoResolutionMs"] = json!(5000);
    assert_eq!(limit(&bare), None);
    let mut s = open_until_ten_seconds(&bare);
    assert!(s.expire(10_000));
    assert_eq!(s.result().unwrap(), json!({ "answers": {} }));
    // The legacy time submits alike at the deadline.
    let mut s = open_until_ten_seconds(&legacy);
    press(&mut s, "2");
    assert!(s.expire(10_000));
    assert_eq!(
        s.result().unwrap(),
        json!({ "answers": { "db_choice": { "answers": ["SQLite"] }, "deploy_target": { "answers": [] } } })
    );
}
