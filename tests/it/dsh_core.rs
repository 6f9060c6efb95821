//! The dsh dialect's pure core: request validation and mapping, answers, results, answer
//! batches, transcripts, and flows driven by keys ending in the expected answer.

use std::sync::Arc;

use askd::core::Focus;
use askd::core::PLAN_REVIEW;
use askd::core::parse_sequence;
use askd::core::{
    Answer, CancelReason, CustomRow, FlowSpec, Intent, OptionItem, Outcome, Question, QuestionType,
};
use askd::dialect::DialectId;
use askd::dialect::dsh::{
    self, ErrorCode, UserQuestionError, ask_aborted, ask_cancelled, ask_outcome, no_provider,
    transcript_call, transcript_result,
};
use askd::session::{OpenOptions, Session, Status};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// helpers

fn option(label: &str) -> OptionItem {
    OptionItem {
        value: label.to_owned(),
        label: label.to_owned(),
        description: None,
        preview: None,
    }
}

fn question(id: &str, label: &str, prompt: &str, kind: QuestionType, labels: &[&str]) -> Question {
    Question {
        asked: None,
        id: id.to_owned(),
        label: label.to_owned(),
        prompt: prompt.to_owned(),
        kind,
        required: false,
        options: labels.iter().map(|l| option(l)).collect(),
        detail: None,
        intent: None,
        custom_row: CustomRow::Standard,
        secret: false,
        initial: Answer::default(),
    }
}

fn dsh_spec(questions: Vec<Question>) -> FlowSpec {
    FlowSpec {
        rules: askd::dialect::dsh::RULES,
        requester: None,
        source: None,
        behaviour: Default::default(),
        title: None,
        questions,
    }
}

fn valid(request: Value) -> FlowSpec {
    match dsh::validate(&request) {
        Ok(spec) => spec,
        Err(e) => panic!(
            "expected a valid request, got {}: {}",
            e.code.as_str(),
            e.message
        ),
    }
}

fn rejected(request: Value) -> (&'static str, String) {
    match dsh::validate(&request) {
        Ok(spec) => panic!("expected a rejection, got {spec:?}"),
        Err(e) => (e.code.as_str(), e.message),
    }
}

fn answer(selected: &[usize], custom: Option<&str>) -> Answer {
    Answer {
        selected: selected.to_vec(),
        custom_text: custom.map(str::to_owned),
        ..Answer::default()
    }
}

fn open(spec: FlowSpec) -> Session {
    Session::from_spec(DialectId::DSH, Arc::new(spec), &OpenOptions::default())
}

fn press(session: &mut Session, keys: &str) {
    for key in parse_sequence(keys).expect("key names parse") {
        session.press(key).expect("the flow is open");
    }
}

/// The dsh result of a finished session.
fn result_of(session: &Session) -> Value {
    let flow = session.flow().expect("a flow");
    let outcome = flow.outcome().expect("the flow has finished");
    dsh::result(flow.spec(), flow.answers(), outcome)
}

// ---------------------------------------------------------------------------------------------
// error codes and errors

#[test]
fn error_codes_have_their_wire_names() {
    let codes = [
        (ErrorCode::EmptyQuestions, "EMPTY_QUESTIONS"),
        (ErrorCode::BadIntent, "BAD_INTENT"),
        (ErrorCode::InvalidRequest, "INVALID_REQUEST"),
        (ErrorCode::AskCancelled, "ASK_CANCELLED"),
        (ErrorCode::AskAborted, "ASK_ABORTED"),
        (ErrorCode::NoProvider, "NO_PROVIDER"),
    ];
    for (code, name) in codes {
        assert_eq!(code.as_str(), name);
        assert_eq!(serde_json::to_value(code).expect("serialises"), json!(name));
    }
}

#[test]
fn an_error_displays_its_message_and_serialises_with_its_name() {
    let error = UserQuestionError::new(ErrorCode::BadIntent, "something is off");
    assert_eq!(error.to_string(), "something is off");
    assert_eq!(
        error.to_json(),
        json!({ "name": "UserQuestionError", "code": "BAD_INTENT", "message": "something is off" })
    );
}

#[test]
fn outcome_errors_have_fixed_codes_and_messages() {
    assert_eq!(
        no_provider().to_json(),
        json!({
            "name": "UserQuestionError",
            "code": "NO_PROVIDER",
            "message": "No user-question provider is available: there is no UI to ask the user"
        })
    );
    assert_eq!(
        ask_cancelled().to_json(),
        json!({
            "name": "UserQuestionError",
            "code": "ASK_CANCELLED",
            "message": "The user cancelled the questions"
        })
    );
    assert_eq!(
        ask_aborted().to_json(),
        json!({
            "name": "UserQuestionError",
            "code": "ASK_ABORTED",
            "message": "The request was withdrawn before the user answered"
        })
    );
}

// ---------------------------------------------------------------------------------------------
// mapping

#[test]
fn a_request_maps_onto_a_dsh_flow_spec() {
    let spec = valid(json!({
        "questions": [
            {
                "id": "scope",
                "question": "  How big is the change?  ",
                "header": " Scope ",
                "detail": "\n  Pick the *smallest* that fits.\n",
                "options": [
                    { "label": "Small", "description": "  one file  " },
                    { "label": "Medium (Recommended)", "description": "   " },
                    { "label": " Large " }
                ]
            },
            {
                "id": "areas",
                "question": "Which areas?",
                "options": [{ "label": "API" }, { "label": "UI" }],
                "multiSelect": true
            },
            { "id": " name ", "question": "Name it", "header": "   ", "multiSelect": false }
        ]
    }));
    let mut scope = question(
        "scope",
        "Scope",
        "How big is the change?",
        QuestionType::Single,
        &["Small", "Medium (Recommended)", " Large "],
    );
    scope.detail = Some("Pick the *smallest* that fits.".to_owned());
    scope.options[0].description = Some("one file".to_owned());
    let expected = dsh_spec(vec![
        scope,
        question(
            "areas",
            "Q2",
            "Which areas?",
            QuestionType::Multi,
            &["API", "UI"],
        ),
        question(" name ", "Q3", "Name it", QuestionType::Single, &[]),
    ]);
    assert_eq!(spec, expected);
}

#[test]
fn mapping_ignores_pi_fields_and_unknown_fields() {
    // Validation does not depend on how the dialect was chosen: pi-looking fields are just
    // unknown fields here.
    let spec = valid(json!({
        "title": "ignored",
        "agent": { "id": "a1" },
        "questions": [{
            "id": "q",
            "question": "Go?",
            "prompt": "ignored prompt",
            "label": "ignored label",
            "type": "multi",
            "options": [{ "label": "Yes", "value": "y", "preview": "p" }]
        }]
    }));
    assert_eq!(
        spec,
        dsh_spec(vec![question(
            "q",
            "Q1",
            "Go?",
            QuestionType::Single,
            &["Yes"]
        )])
    );
}

#[test]
fn null_counts_as_absent() {
    let spec = valid(json!({
        "questions": [{
            "id": "q",
            "question": "Go?",
            "header": null,
            "detail": null,
            "options": null,
            "multiSelect": null,
            "intent": null
        }]
    }));
    assert_eq!(
        spec,
        dsh_spec(vec![question("q", "Q1", "Go?", QuestionType::Single, &[])])
    );
}

#[test]
fn questions_without_options_are_free_text_only() {
    let spec = valid(json!({
        "questions": [
            { "id": "a", "question": "Absent?" },
            { "id": "b", "question": "Empty?", "options": [] },
            { "id": "c", "question": "Multi?", "options": [], "multiSelect": true }
        ]
    }));
    for q in &spec.questions {
        assert!(q.options.is_empty());
        assert_eq!(spec.row_count(q), 1);
        assert!(spec.is_custom_row(q, 0));
    }
    assert_eq!(spec.questions[2].kind, QuestionType::Multi);
}

#[test]
fn an_unknown_intent_kind_is_kept_without_reordering() {
    let spec = valid(json!({
        "questions": [{
            "id": "poll",
            "question": "Which?",
            "detail": "context",
            "options": [{ "label": "A" }, { "label": "B" }],
            "intent": { "kind": "poll", "approve": "B" }
        }]
    }));
    let q = &spec.questions[0];
    assert_eq!(
        q.intent,
        Some(Intent {
            kind: "poll".to_owned(),
            approve: Some("B".to_owned())
        })
    );
    assert_eq!(labels(q), ["A", "B"]);
}

fn labels(q: &Question) -> Vec<&str> {
    q.options.iter().map(|o| o.label.as_str()).collect()
}

#[test]
fn a_plan_review_offers_its_approve_option_first() {
    let spec = valid(json!({
        "questions": [{
            "id": "plan",
            "question": "Approve this plan?",
            "header": "Plan",
            "detail": "1. Add the parser\n2. Wire it up",
            "options": [
                { "label": "Revise", "description": "send it back" },
                { "label": "Reject" },
                { "label": "Approve (Recommended)", "description": "go ahead" },
                { "label": "Later" }
            ],
            "intent": { "kind": "plan-review", "approve": "Approve (Recommended)" }
        }]
    }));
    let q = &spec.questions[0];
    assert_eq!(
        labels(q),
        ["Approve (Recommended)", "Revise", "Reject", "Later"]
    );
    assert_eq!(q.options[0].description.as_deref(), Some("go ahead"));
    assert_eq!(q.options[0].value, "Approve (Recommended)");
    assert_eq!(q.options[1].description.as_deref(), Some("send it back"));
    assert_eq!(
        q.intent,
        Some(Intent {
            kind: PLAN_REVIEW.to_owned(),
            approve: Some("Approve (Recommended)".to_owned())
        })
    );
    assert_eq!(
        q.detail.as_deref(),
        Some("1. Add the parser\n2. Wire it up")
    );
}

#[test]
fn a_plan_review_whose_approve_option_is_first_keeps_its_order() {
    let spec = valid(json!({
        "questions": [{
            "id": "plan",
            "question": "Ship?",
            "detail": "the plan",
            "options": [{ "label": "Ship" }, { "label": "Hold" }],
            "intent": { "kind": "plan-review", "approve": "Ship" }
        }]
    }));
    assert_eq!(labels(&spec.questions[0]), ["Ship", "Hold"]);
}

// ---------------------------------------------------------------------------------------------
// validation errors

fn q(extra: Value) -> Value {
    let mut item = json!({ "id": "a", "question": "A?" });
    for (k, v) in extra.as_object().expect("an object") {
        item[k] = v.clone();
    }
    item
}

#[test]
fn empty_questions() {
    let msg = "questions must hold at least one question".to_owned();
    for request in [
        json!({}),
        json!({ "questions": null }),
        json!({ "questions": [] }),
    ] {
        assert_eq!(rejected(request), ("EMPTY_QUESTIONS", msg.clone()));
    }
}

#[test]
fn invalid_request_shapes() {
    let cases: Vec<(Value, &str)> = vec![
        (json!([]), "request must be an object (got an array)"),
        (json!(null), "request must be an object (got null)"),
        (
            json!({ "questions": "a" }),
            "questions must be an array (got a string)",
        ),
        (
            json!({ "questions": { "id": "a" } }),
            "questions must be an array (got an object)",
        ),
        (
            json!({ "questions": [1] }),
            "questions[0] must be an object (got a number)",
        ),
        (
            json!({ "questions": [{ "question": "A?" }] }),
            "questions[0]: id is required",
        ),
        (
            json!({ "questions": [q(json!({ "id": null }))] }),
            "questions[0]: id is required",
        ),
        (
            json!({ "questions": [q(json!({ "id": " \t" }))] }),
            "questions[0]: id must not be blank",
        ),
        (
            json!({ "questions": [q(json!({ "id": 7 }))] }),
            "questions[0]: id must be a string (got a number)",
        ),
        (
            json!({ "questions": [q(json!({})), q(json!({ "id": "b" })), q(json!({ "id": "a" }))] }),
            "questions[2] (\"a\"): duplicate question id \"a\" (first used by questions[0])",
        ),
        (
            json!({ "questions": [q(json!({})), q(json!({ "id": " a " }))] }),
            "questions[1] (\" a \"): duplicate question id \" a \" (first used by questions[0])",
        ),
        (
            json!({ "questions": [{ "id": "a" }] }),
            "questions[0] (\"a\"): question is required",
        ),
        (
            json!({ "questions": [q(json!({ "question": "  " }))] }),
            "questions[0] (\"a\"): question must not be blank",
        ),
        (
            json!({ "questions": [q(json!({ "question": ["A?"] }))] }),
            "questions[0] (\"a\"): question must be a string (got an array)",
        ),
        (
            json!({ "questions": [q(json!({ "header": true }))] }),
            "questions[0] (\"a\"): header must be a string (got a boolean)",
        ),
        (
            json!({ "questions": [q(json!({ "detail": { "md": "x" } }))] }),
            "questions[0] (\"a\"): detail must be a string (got an object)",
        ),
        (
            json!({ "questions": [q(json!({ "options": { "label": "x" } }))] }),
            "questions[0] (\"a\"): options must be an array (got an object)",
        ),
        (
            json!({ "questions": [q(json!({ "options": [{ "label": "x" }, "y"] }))] }),
            "questions[0] (\"a\"): options[1] must be an object (got a string)",
        ),
        (
            json!({ "questions": [q(json!({ "options": [{ "description": "x" }] }))] }),
            "questions[0] (\"a\"): options[0].label is required",
        ),
        (
            json!({ "questions": [q(json!({ "options": [{ "label": "x" }, { "label": " " }] }))] }),
            "questions[0] (\"a\"): options[1].label must not be blank",
        ),
        (
            json!({ "questions": [q(json!({ "options": [{ "label": 3 }] }))] }),
            "questions[0] (\"a\"): options[0].label must be a string (got a number)",
        ),
        (
            json!({ "questions": [q(json!({ "options": [{ "label": "x", "description": 1 }] }))] }),
            "questions[0] (\"a\"): options[0].description must be a string (got a number)",
        ),
        (
            json!({ "questions": [q(json!({ "multiSelect": "yes" }))] }),
            "questions[0] (\"a\"): multiSelect must be a boolean (got a string)",
        ),
        (
            json!({ "questions": [q(json!({ "intent": "plan-review" }))] }),
            "questions[0] (\"a\"): intent must be an object (got a string)",
        ),
        (
            json!({ "questions": [q(json!({ "intent": { "approve": "x" } }))] }),
            "questions[0] (\"a\"): intent.kind is required",
        ),
        (
            json!({ "questions": [q(json!({ "intent": { "kind": 1 } }))] }),
            "questions[0] (\"a\"): intent.kind must be a string (got a number)",
        ),
        (
            json!({ "questions": [q(json!({ "intent": { "kind": "plan-review", "approve": ["x"] } }))] }),
            "questions[0] (\"a\"): intent.approve must be a string (got an array)",
        ),
    ];
    for (request, message) in cases {
        assert_eq!(
            rejected(request.clone()),
            ("INVALID_REQUEST", message.to_owned()),
            "request {request}"
        );
    }
}

#[test]
fn duplicate_option_labels_name_the_question_and_both_options() {
    let request = json!({
        "questions": [
            { "id": "name", "question": "Name?" },
            {
                "id": "scope",
                "question": "How big?",
                "options": [{ "label": "Small" }, { "label": "Large" }, { "label": "Small" }]
            }
        ]
    });
    assert_eq!(
        rejected(request),
        (
            "INVALID_REQUEST",
            "questions[1] (\"scope\"): duplicate option label \"Small\" (options[0] and options[2])"
                .to_owned()
        )
    );
    // Labels that differ only in surrounding whitespace look the same to the user.
    let request = json!({
        "questions": [q(json!({ "options": [{ "label": "작게" }, { "label": " 작게 " }] }))]
    });
    assert_eq!(
        rejected(request),
        (
            "INVALID_REQUEST",
            "questions[0] (\"a\"): duplicate option label \" 작게 \" (options[0] and options[1])"
                .to_owned()
        )
    );
}

#[test]
fn the_first_shape_problem_of_a_question_is_reported() {
    // id before question, question before options.
    let request = json!({ "questions": [{ "options": 1 }] });
    assert_eq!(
        rejected(request),
        ("INVALID_REQUEST", "questions[0]: id is required".to_owned())
    );
    let request = json!({ "questions": [{ "id": "a", "options": 1 }] });
    assert_eq!(
        rejected(request),
        (
            "INVALID_REQUEST",
            "questions[0] (\"a\"): question is required".to_owned()
        )
    );
}

#[test]
fn bad_intents() {
    let plan = |extra: Value| {
        let mut item = json!({
            "id": "plan",
            "question": "Approve?",
            "detail": "the plan",
            "options": [{ "label": "Approve" }, { "label": "Revise" }]
        });
        for (k, v) in extra.as_object().expect("an object") {
            item[k] = v.clone();
        }
        json!({ "questions": [item] })
    };
    let cases: Vec<(Value, &str)> = vec![
        (
            plan(json!({ "intent": { "kind": "plan-review", "approve": "Ship it" } })),
            "questions[0] (\"plan\"): intent approve \"Ship it\" names none of the question's option labels",
        ),
        (
            // approve must name a label exactly
            plan(json!({ "intent": { "kind": "plan-review", "approve": "Approve " } })),
            "questions[0] (\"plan\"): intent approve \"Approve \" names none of the question's option labels",
        ),
        (
            plan(
                json!({ "options": [], "intent": { "kind": "plan-review", "approve": "Approve" } }),
            ),
            "questions[0] (\"plan\"): intent approve \"Approve\" names none of the question's option labels",
        ),
        (
            plan(json!({ "intent": { "kind": "plan-review" } })),
            "questions[0] (\"plan\"): a \"plan-review\" intent needs approve, the label of the option that approves",
        ),
        (
            plan(
                json!({ "detail": null, "intent": { "kind": "plan-review", "approve": "Approve" } }),
            ),
            "questions[0] (\"plan\"): intent \"plan-review\" needs detail on its question",
        ),
        (
            plan(
                json!({ "detail": " \n ", "intent": { "kind": "plan-review", "approve": "Approve" } }),
            ),
            "questions[0] (\"plan\"): intent \"plan-review\" needs detail on its question",
        ),
        (
            // the approve check comes first
            plan(json!({ "detail": null, "intent": { "kind": "plan-review", "approve": "Nope" } })),
            "questions[0] (\"plan\"): intent approve \"Nope\" names none of the question's option labels",
        ),
        (
            // any intent, of any kind, needs detail
            plan(json!({ "detail": null, "intent": { "kind": "poll" } })),
            "questions[0] (\"plan\"): intent \"poll\" needs detail on its question",
        ),
    ];
    for (request, message) in cases {
        assert_eq!(
            rejected(request.clone()),
            ("BAD_INTENT", message.to_owned()),
            "request {request}"
        );
    }
}

#[test]
fn shape_problems_come_before_bad_intents() {
    let request = json!({
        "questions": [
            { "id": "plan", "question": "Approve?", "intent": { "kind": "plan-review", "approve": "x" } },
            { "id": "next", "question": "Then?", "multiSelect": 1 }
        ]
    });
    assert_eq!(
        rejected(request),
        (
            "INVALID_REQUEST",
            "questions[1] (\"next\"): multiSelect must be a boolean (got a number)".to_owned()
        )
    );
    let request = json!({
        "questions": [
            { "id": "a", "question": "A?" },
            { "id": "b", "question": "B?", "intent": { "kind": "x" } }
        ]
    });
    assert_eq!(
        rejected(request),
        (
            "BAD_INTENT",
            "questions[1] (\"b\"): intent \"x\" needs detail on its question".to_owned()
        )
    );
}

// ---------------------------------------------------------------------------------------------
// answers and results

/// A batch: free text, single, multi, a skipped single, in Korean and Chinese.
fn batch() -> FlowSpec {
    valid(json!({
        "questions": [
            { "id": "name", "header": "이름", "question": "프로젝트 이름은 무엇인가요?" },
            {
                "id": "lang",
                "header": "语言",
                "question": "用哪种语言？",
                "options": [{ "label": "Rust（推荐）" }, { "label": "Go" }, { "label": "TypeScript" }]
            },
            {
                "id": "areas",
                "header": "영역",
                "question": "어느 영역인가요?",
                "multiSelect": true,
                "options": [{ "label": "서버" }, { "label": "클라이언트 (Recommended)" }, { "label": "문서" }]
            },
            {
                "id": "extra",
                "question": "还有吗？",
                "options": [{ "label": "有" }, { "label": "没有 (推荐)" }]
            }
        ]
    }))
}

#[test]
fn a_mixed_batch_answers_one_item_per_question_in_order() {
    let spec = batch();
    let answers = vec![
        answer(&[], Some("  새 프로젝트 \n")),
        answer(&[0], None),
        answer(&[2, 0], Some("  인프라 ")),
        Answer::default(),
    ];
    assert_eq!(
        dsh::answer(&spec, &answers),
        json!({
            "answers": [
                { "id": "name", "selected": [], "custom": "새 프로젝트" },
                { "id": "lang", "selected": ["Rust（推荐）"] },
                { "id": "areas", "selected": ["문서", "서버"], "custom": "인프라" },
                { "id": "extra", "selected": [] }
            ]
        })
    );
}

#[test]
fn answers_missing_from_the_slice_count_as_skipped() {
    let spec = batch();
    assert_eq!(
        dsh::answer(&spec, &[answer(&[], Some("x"))]),
        json!({
            "answers": [
                { "id": "name", "selected": [], "custom": "x" },
                { "id": "lang", "selected": [] },
                { "id": "areas", "selected": [] },
                { "id": "extra", "selected": [] }
            ]
        })
    );
}

#[test]
fn custom_text_wins_over_a_selection_on_a_single_question() {
    let spec = batch();
    let answers = vec![
        Answer::default(),
        answer(&[1], Some("Zig")),
        answer(&[1], None),
        answer(&[0], Some(" \t ")),
    ];
    assert_eq!(
        dsh::answer(&spec, &answers),
        json!({
            "answers": [
                { "id": "name", "selected": [] },
                { "id": "lang", "selected": [], "custom": "Zig" },
                { "id": "areas", "selected": ["클라이언트 (Recommended)"] },
                // blank custom text is never sent and never hides the selection
                { "id": "extra", "selected": ["有"] }
            ]
        })
    );
}

#[test]
fn results_on_submit_cancel_and_abort() {
    let spec = batch();
    let answers = vec![
        answer(&[], Some("이름")),
        answer(&[2], None),
        Answer::default(),
        answer(&[1], None),
    ];
    let answer_json = json!({
        "answers": [
            { "id": "name", "selected": [], "custom": "이름" },
            { "id": "lang", "selected": ["TypeScript"] },
            { "id": "areas", "selected": [] },
            { "id": "extra", "selected": ["没有 (推荐)"] }
        ]
    });
    assert_eq!(
        dsh::result(&spec, &answers, Outcome::Submit),
        json!({ "answer": answer_json })
    );
    assert_eq!(
        ask_outcome(&spec, &answers, Outcome::Submit),
        Ok(answer_json.clone())
    );
    assert_eq!(
        dsh::result(&spec, &answers, Outcome::Cancelled(CancelReason::User)),
        json!({ "error": {
            "name": "UserQuestionError",
            "code": "ASK_CANCELLED",
            "message": "The user cancelled the questions"
        } })
    );
    assert_eq!(
        ask_outcome(&spec, &answers, Outcome::Cancelled(CancelReason::User)),
        Err(ask_cancelled())
    );
    assert_eq!(
        dsh::result(&spec, &answers, Outcome::Cancelled(CancelReason::Aborted)),
        json!({ "error": {
            "name": "UserQuestionError",
            "code": "ASK_ABORTED",
            "message": "The request was withdrawn before the user answered"
        } })
    );
    assert_eq!(
        ask_outcome(&spec, &answers, Outcome::Cancelled(CancelReason::Aborted)),
        Err(ask_aborted())
    );
    // Every other reason: the user dismissing, the client closing, the deadline passing.
    for (reason, code, message) in [
        (
            CancelReason::Dismissed,
            "ASK_CANCELLED",
            "The user cancelled the questions",
        ),
        (
            CancelReason::Closed,
            "ASK_CANCELLED",
            "The questions were closed before the user answered",
        ),
        (
            CancelReason::Timeout,
            "ASK_TIMEOUT",
            "The questions timed out before the user answered",
        ),
    ] {
        assert_eq!(
            dsh::result(&spec, &answers, Outcome::Cancelled(reason)),
            json!({ "error": { "name": "UserQuestionError", "code": code, "message": message } }),
            "{reason:?}"
        );
    }
    // Elaborate never ends a dsh flow; were it to, the answers would still be delivered.
    assert_eq!(
        dsh::result(&spec, &answers, Outcome::Elaborate),
        json!({ "answer": answer_json })
    );
}

#[test]
fn results_keep_every_recommended_marker() {
    let spec = valid(json!({
        "questions": [{
            "id": "pick",
            "question": "Which?",
            "multiSelect": true,
            "options": [
                { "label": "A (Recommended)" },
                { "label": "B (recommended)" },
                { "label": "C（推荐）" },
                { "label": "D (推荐)  " },
                { "label": "E" }
            ]
        }]
    }));
    assert_eq!(
        dsh::answer(&spec, &[answer(&[3, 2, 1, 0], None)]),
        json!({ "answers": [{
            "id": "pick",
            "selected": ["D (推荐)  ", "C（推荐）", "B (recommended)", "A (Recommended)"]
        }] })
    );
}

// ---------------------------------------------------------------------------------------------
// answer batches (submitAnswers in the dsh shape)

/// single `scope` (Small, Medium), multi `size` (S, M, L), free-text `name`.
fn three() -> FlowSpec {
    dsh_spec(vec![
        question(
            "scope",
            "Scope",
            "Scope?",
            QuestionType::Single,
            &["Small", "Medium (Recommended)"],
        ),
        question(
            "size",
            "Size",
            "Size?",
            QuestionType::Multi,
            &["S", "M", "L"],
        ),
        question("name", "Name", "Name?", QuestionType::Single, &[]),
    ])
}

#[test]
fn a_valid_batch_parses_into_answers() {
    let spec = three();
    let batch = json!({
        "answers": [
            { "id": "scope", "selected": ["Medium (Recommended)"] },
            { "id": "size", "selected": ["L", "S"], "custom": " XL " },
            { "id": "name", "selected": [], "custom": "  이름  " }
        ]
    });
    let answers = dsh::parse_answers(&spec, &batch).expect("valid");
    assert_eq!(
        answers,
        vec![
            answer(&[1], None),
            answer(&[2, 0], Some(" XL ")),
            answer(&[], Some("  이름  ")),
        ]
    );
    assert_eq!(
        dsh::answer(&spec, &answers),
        json!({
            "answers": [
                { "id": "scope", "selected": ["Medium (Recommended)"] },
                { "id": "size", "selected": ["L", "S"], "custom": "XL" },
                { "id": "name", "selected": [], "custom": "이름" }
            ]
        })
    );
}

#[test]
fn a_batch_of_skips_and_customs_parses() {
    let spec = three();
    let batch = json!({
        "answers": [
            { "id": "scope", "selected": [], "custom": "Tiny" },
            { "id": "size", "selected": [], "custom": null },
            { "id": "name", "selected": [] }
        ],
        "extra": true
    });
    assert_eq!(
        dsh::parse_answers(&spec, &batch),
        Ok(vec![
            answer(&[], Some("Tiny")),
            Answer::default(),
            Answer::default()
        ])
    );
}

#[test]
fn invalid_batches_name_the_first_problem() {
    let spec = three();
    let ok = [
        json!({ "id": "scope", "selected": [] }),
        json!({ "id": "size", "selected": [] }),
        json!({ "id": "name", "selected": [] }),
    ];
    // `with(i, item)`: the valid batch with entry `i` replaced.
    let with = |i: usize, item: Value| {
        let mut items = ok.to_vec();
        items[i] = item;
        json!({ "answers": items })
    };
    let cases: Vec<(Value, &str)> = vec![
        (
            json!([]),
            "expected an object { answers: [...] } (got an array)",
        ),
        (
            json!({}),
            "answers is required: an array with one entry per question",
        ),
        (
            json!({ "answers": null }),
            "answers is required: an array with one entry per question",
        ),
        (
            json!({ "answers": {} }),
            "answers must be an array (got an object)",
        ),
        (
            json!({ "answers": [] }),
            "answers[0]: missing; expected an entry for question \"scope\" (one entry per question, 3 questions in the order asked)",
        ),
        (
            json!({ "answers": [ok[0], ok[1]] }),
            "answers[2]: missing; expected an entry for question \"name\" (one entry per question, 3 questions in the order asked)",
        ),
        (
            json!({ "answers": [ok[0], ok[1], ok[2], ok[2]] }),
            "answers[3]: unexpected entry; the request has 3 questions",
        ),
        (
            json!({ "answers": [ok[1], ok[0], ok[2]] }),
            "answers[0].id: expected \"scope\" (one entry per question, 3 questions in the order asked), got \"size\"",
        ),
        (
            json!({ "answers": [ok[0], ok[2]] }),
            "answers[1].id: expected \"size\" (one entry per question, 3 questions in the order asked), got \"name\"",
        ),
        (
            with(0, json!("scope")),
            "answers[0] must be an object (got a string)",
        ),
        (
            with(0, json!({ "selected": [] })),
            "answers[0].id is required (expected \"scope\")",
        ),
        (
            with(0, json!({ "id": 1, "selected": [] })),
            "answers[0].id must be a string (got a number)",
        ),
        (
            with(0, json!({ "id": "scope" })),
            "answers[0].selected is required (an array of option labels, empty when none)",
        ),
        (
            with(0, json!({ "id": "scope", "selected": "Small" })),
            "answers[0].selected must be an array (got a string)",
        ),
        (
            with(0, json!({ "id": "scope", "selected": [0] })),
            "answers[0].selected[0] must be a string (got a number)",
        ),
        (
            with(1, json!({ "id": "size", "selected": ["Huge"] })),
            "answers[1].selected[0]: \"Huge\" is not an option of question \"size\"",
        ),
        (
            // the label must be sent back unchanged, marker included
            with(0, json!({ "id": "scope", "selected": ["Medium"] })),
            "answers[0].selected[0]: \"Medium\" is not an option of question \"scope\"",
        ),
        (
            with(1, json!({ "id": "size", "selected": ["S", "M", "S"] })),
            "answers[1].selected[2]: \"S\" is selected twice",
        ),
        (
            with(
                0,
                json!({ "id": "scope", "selected": ["Small", "Medium (Recommended)"] }),
            ),
            "answers[0].selected: question \"scope\" is single-select; select one label at most",
        ),
        (
            with(2, json!({ "id": "name", "selected": [], "custom": "   " })),
            "answers[2].custom must not be blank; omit it",
        ),
        (
            with(2, json!({ "id": "name", "selected": [], "custom": "" })),
            "answers[2].custom must not be blank; omit it",
        ),
        (
            with(2, json!({ "id": "name", "selected": [], "custom": 5 })),
            "answers[2].custom must be a string (got a number)",
        ),
        (
            with(
                0,
                json!({ "id": "scope", "selected": ["Small"], "custom": "Tiny" }),
            ),
            "answers[0]: question \"scope\" is single-select; send selected or custom, not both",
        ),
    ];
    for (batch, message) in cases {
        assert_eq!(
            dsh::parse_answers(&spec, &batch),
            Err(message.to_owned()),
            "batch {batch}"
        );
    }
}

#[test]
fn a_batch_for_one_question_says_question_in_the_singular() {
    let spec = dsh_spec(vec![question(
        "q",
        "Q1",
        "Q?",
        QuestionType::Single,
        &["A"],
    )]);
    assert_eq!(
        dsh::parse_answers(
            &spec,
            &json!({ "answers": [{ "id": "q", "selected": [] }, { "id": "q", "selected": [] }] })
        ),
        Err("answers[1]: unexpected entry; the request has 1 question".to_owned())
    );
    assert_eq!(
        dsh::parse_answers(&spec, &json!({ "answers": [] })),
        Err("answers[0]: missing; expected an entry for question \"q\" (one entry per question, 1 question in the order asked)".to_owned())
    );
}

#[test]
fn custom_text_is_refused_on_a_question_without_a_custom_row() {
    let spec = dsh_spec(vec![question(
        "p",
        "P",
        "P?",
        QuestionType::Preview,
        &["A"],
    )]);
    assert_eq!(
        dsh::parse_answers(
            &spec,
            &json!({ "answers": [{ "id": "p", "selected": [], "custom": "x" }] })
        ),
        Err("answers[0].custom: question \"p\" takes no custom answer".to_owned())
    );
}

#[test]
fn a_parsed_batch_completes_a_session() {
    let spec = three();
    let mut session = open(spec.clone());
    let batch = json!({
        "answers": [
            { "id": "scope", "selected": ["Small"] },
            { "id": "size", "selected": ["M"] },
            { "id": "name", "selected": [], "custom": "Zed" }
        ]
    });
    let answers = dsh::parse_answers(&spec, &batch).expect("valid");
    session
        .flow_mut()
        .expect("a flow")
        .submit_answers(answers, Outcome::Submit)
        .expect("accepted");
    assert_eq!(session.status(), Status::Done);
    assert_eq!(result_of(&session), json!({ "answer": batch }));
}

// ---------------------------------------------------------------------------------------------
// flows driven by keys

#[test]
fn a_mixed_batch_driven_by_keys() {
    let spec = valid(json!({
        "questions": [
            {
                "id": "scope",
                "header": "Scope",
                "question": "How big?",
                "options": [{ "label": "Small" }, { "label": "Medium (Recommended)" }, { "label": "Large" }]
            },
            {
                "id": "areas",
                "header": "Areas",
                "question": "Which areas?",
                "multiSelect": true,
                "options": [{ "label": "API" }, { "label": "UI (recommended)" }, { "label": "Docs" }]
            },
            { "id": "name", "header": "이름", "question": "프로젝트 이름은?" },
            {
                "id": "plan",
                "header": "计划",
                "question": "批准这个计划吗？",
                "detail": "1. 做 A\n2. 做 B",
                "options": [{ "label": "修改" }, { "label": "批准（推荐）" }],
                "intent": { "kind": "plan-review", "approve": "批准（推荐）" }
            },
            {
                "id": "extra",
                "question": "Anything else?",
                "options": [{ "label": "Yes" }, { "label": "No" }]
            }
        ]
    }));
    let mut session = open(spec);
    // single: `2` selects and advances
    press(&mut session, "2");
    // multi: toggle Docs then API, then type on the custom row and save
    press(&mut session, "31");
    press(&mut session, "4");
    assert_eq!(session.flow().map(|f| f.focus()), Some(Focus::Input));
    press(&mut session, "Infra<CR>");
    // free text: the editor is open on arrival
    let flow = session.flow().expect("a flow");
    assert_eq!((flow.tab(), flow.focus()), (2, Focus::Input));
    press(&mut session, "새 프로젝트 <CR>");
    // plan review: Enter on arrival approves
    assert_eq!(session.flow().map(|f| (f.tab(), f.row())), Some((3, 0)));
    press(&mut session, "<CR>");
    // skip the last question and submit from the review tab
    press(&mut session, "<Tab>");
    assert_eq!(session.flow().map(|f| f.focus()), Some(Focus::Review));
    press(&mut session, "<CR>");
    assert_eq!(session.status(), Status::Done);
    assert_eq!(
        result_of(&session),
        json!({ "answer": { "answers": [
            { "id": "scope", "selected": ["Medium (Recommended)"] },
            { "id": "areas", "selected": ["Docs", "API"], "custom": "Infra" },
            { "id": "name", "selected": [], "custom": "새 프로젝트" },
            { "id": "plan", "selected": ["批准（推荐）"] },
            { "id": "extra", "selected": [] }
        ] } })
    );
    let flow = session.flow().expect("a flow");
    assert_eq!(
        transcript_result(flow.spec(), flow.answers(), Outcome::Submit),
        "✓ Scope: Medium (Recommended)\n\
         ✓ Areas: Docs, API, (wrote) Infra\n\
         ✓ 이름: (wrote) 새 프로젝트\n\
         ✓ 计划: 批准（推荐）\n\
         - Q5: (skipped)"
    );
}

#[test]
fn a_plan_review_approves_with_enter_on_arrival() {
    let spec = valid(json!({
        "questions": [{
            "id": "plan",
            "question": "Approve the plan?",
            "detail": "## Plan\n- step one",
            "options": [{ "label": "Revise" }, { "label": "Approve" }],
            "intent": { "kind": "plan-review", "approve": "Approve" }
        }]
    }));
    let mut session = open(spec);
    press(&mut session, "<CR><CR>");
    assert_eq!(
        result_of(&session),
        json!({ "answer": { "answers": [{ "id": "plan", "selected": ["Approve"] }] } })
    );
}

#[test]
fn declining_a_plan_review_answers_the_declining_label() {
    let spec = valid(json!({
        "questions": [{
            "id": "plan",
            "question": "Approve the plan?",
            "detail": "the plan",
            "options": [{ "label": "Revise" }, { "label": "Approve" }],
            "intent": { "kind": "plan-review", "approve": "Approve" }
        }]
    }));
    let mut session = open(spec);
    press(&mut session, "<Down><CR>1");
    assert_eq!(
        result_of(&session),
        json!({ "answer": { "answers": [{ "id": "plan", "selected": ["Revise"] }] } })
    );
}

#[test]
fn the_review_tab_offers_submit_and_cancel_only() {
    let spec = valid(
        json!({ "questions": [{ "id": "q", "question": "Q?", "options": [{ "label": "A" }] }] }),
    );
    let mut session = open(spec);
    // Tab to review; `2` is Cancel in this dialect (there is no Elaborate)
    press(&mut session, "<Tab>2");
    assert_eq!(result_of(&session)["error"]["code"], json!("ASK_CANCELLED"));
}

#[test]
fn escape_cancels_and_an_abort_aborts() {
    let spec = valid(
        json!({ "questions": [{ "id": "q", "question": "Q?", "options": [{ "label": "A" }] }] }),
    );
    let mut session = open(spec.clone());
    press(&mut session, "<Space><Esc>");
    assert_eq!(
        result_of(&session),
        json!({ "error": ask_cancelled().to_json() })
    );
    let mut session = open(spec);
    press(&mut session, "<Space>");
    session
        .flow_mut()
        .expect("a flow")
        .cancel(CancelReason::Aborted)
        .expect("open");
    assert_eq!(
        result_of(&session),
        json!({ "error": ask_aborted().to_json() })
    );
    let flow = session.flow().expect("a flow");
    assert_eq!(
        transcript_result(
            flow.spec(),
            flow.answers(),
            Outcome::Cancelled(CancelReason::Aborted)
        ),
        "Cancelled (withdrawn by the asker)"
    );
    for (reason, words) in [
        (CancelReason::User, "Cancelled"),
        (CancelReason::Dismissed, "Cancelled"),
        (CancelReason::Timeout, "Cancelled (timed out)"),
        (CancelReason::Closed, "Cancelled (closed)"),
    ] {
        assert_eq!(
            transcript_result(flow.spec(), flow.answers(), Outcome::Cancelled(reason)),
            words
        );
    }
}

#[test]
fn a_free_text_question_submits_with_enter() {
    let spec = valid(
        json!({ "questions": [{ "id": "why", "header": "为什么", "question": "说明原因" }] }),
    );
    let mut session = open(spec);
    press(&mut session, "因为<CR><CR>");
    assert_eq!(
        result_of(&session),
        json!({ "answer": { "answers": [{ "id": "why", "selected": [], "custom": "因为" }] } })
    );
}

// ---------------------------------------------------------------------------------------------
// transcript

#[test]
fn the_call_line_counts_questions_and_lists_labels() {
    let one = valid(json!({ "questions": [{ "id": "a", "question": "A?" }] }));
    assert_eq!(transcript_call(&one), "ask_user_question 1 question (Q1)");
    assert_eq!(
        transcript_call(&batch()),
        "ask_user_question 4 questions (이름, 语言, 영역, Q4)"
    );
}

#[test]
fn the_call_line_cuts_labels_to_fifty_columns() {
    // 26 wide characters are 52 columns: the cut keeps 25 (50 columns).
    let wide = "가".repeat(26);
    let spec = valid(json!({ "questions": [{ "id": "a", "header": wide, "question": "A?" }] }));
    assert_eq!(
        transcript_call(&spec),
        format!("ask_user_question 1 question ({})", "가".repeat(25))
    );
    // A wide character straddling column 50 is left out whole.
    let header = format!("x{}", "가".repeat(25));
    let spec = valid(json!({ "questions": [{ "id": "a", "header": header, "question": "A?" }] }));
    assert_eq!(
        transcript_call(&spec),
        format!("ask_user_question 1 question (x{})", "가".repeat(24))
    );
    let spec = valid(json!({ "questions": [
        { "id": "a", "header": "a".repeat(24), "question": "A?" },
        { "id": "b", "header": "b".repeat(24), "question": "B?" }
    ] }));
    assert_eq!(
        transcript_call(&spec),
        format!(
            "ask_user_question 2 questions ({}, {})",
            "a".repeat(24),
            "b".repeat(24)
        )
    );
}

#[test]
fn the_result_lines_follow_the_answer() {
    let spec = batch();
    let answers = vec![
        Answer::default(),
        answer(&[1], Some("  Zig ")),
        answer(&[1], None),
        answer(&[0], None),
    ];
    assert_eq!(
        transcript_result(&spec, &answers, Outcome::Submit),
        "- 이름: (skipped)\n✓ 语言: (wrote) Zig\n✓ 영역: 클라이언트 (Recommended)\n✓ Q4: 有"
    );
}

#[test]
fn a_dsh_session_reports_its_result_and_transcript_in_its_own_dialect() {
    let request = json!({ "questions": [
        { "id": "size", "header": "Size", "question": "How big?", "options": [{ "label": "Small" }, { "label": "Large" }] }
    ] });
    let mut session = Session::open(&request, &OpenOptions::default()).expect("valid");
    press(&mut session, "2<CR>");
    assert_eq!(
        session.result(),
        Some(json!({ "answer": { "answers": [{ "id": "size", "selected": ["Large"] }] } }))
    );
    let transcript = session.transcript().expect("done");
    assert_eq!(transcript.call, "ask_user_question 1 question (Size)");
    assert_eq!(transcript.result, "✓ Size: Large");

    let mut aborted = Session::open(&request, &OpenOptions::default()).expect("valid");
    aborted
        .flow_mut()
        .expect("a flow")
        .cancel(CancelReason::Aborted)
        .expect("open");
    assert_eq!(
        aborted.transcript().expect("done").result,
        "Cancelled (withdrawn by the asker)"
    );

    let without_ui = Session::open(
        &request,
        &OpenOptions {
            has_ui: false,
            ..OpenOptions::default()
        },
    )
    .expect("valid");
    assert_eq!(
        without_ui.result(),
        Some(json!({ "error": no_provider().to_json() }))
    );
    assert_eq!(
        without_ui.transcript().expect("done").result,
        askd::dialect::dsh::NO_PROVIDER_TRANSCRIPT
    );
}
