//! Properties of the engine core over random payloads and random key sequences: nothing
//! panics, every invariant holds after every key, finished results honour the contract, and
//! snapshots restore an equal session.

use std::sync::{Arc, LazyLock};

use crate::common::{null_paths, question, restore, save};
use crate::pointer::{arb_target, offered};
use askd::core::Action;
use askd::core::Key;
use askd::core::Target;
use askd::core::{EditorTarget, FlowError, Focus};
use askd::core::{FlowSpec, Outcome};
use askd::dialect::DialectId;
use askd::session::{OpenOptions, Profile, Session};
use askd::view;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{Map, Value, json};

const CASES: u32 = 256;

// Payloads ------------------------------------------------------------------------------------

/// Object keys: the payload's own field names, and a few others.
fn arb_key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "title", "questions", "id", "label", "prompt", "type", "required", "options",
            "value", "description", "preview", "question", "header", "multiSelect",
        ])
        .prop_map(str::to_owned),
        1 => "[a-zA-Z_]{1,6}",
    ]
}

/// Short texts, blank ones and non-ASCII ones included; a small alphabet so that duplicates occur.
fn arb_text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "",
            " ",
            "  \t",
            "a",
            " a ",
            "b",
            "single",
            "multi",
            "preview",
            "grid",
            "é",
            "한",
            "😀",
            "x (Recommended)",
            "line\nbreak",
            "\"quoted\"",
        ])
        .prop_map(str::to_owned),
        "[ab ]{0,4}",
        any::<String>(),
    ]
}

/// Any JSON value, a few levels deep.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        arb_text().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((arb_key(), inner), 0..5)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// A field value: usually a string, sometimes any JSON; `None` leaves the field out.
fn arb_field() -> impl Strategy<Value = Option<Value>> {
    prop::option::weighted(
        0.85,
        prop_oneof![4 => arb_text().prop_map(Value::from), 1 => arb_json()],
    )
}

fn object(fields: Vec<(&str, Option<Value>)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
            .collect::<Map<_, _>>(),
    )
}

/// Payloads shaped like `ask_user` payloads, with any field missing, blank, duplicated or of
/// the wrong JSON type.
fn arb_shaped_payload() -> impl Strategy<Value = Value> {
    let option = (arb_field(), arb_field(), arb_field(), arb_field()).prop_map(
        |(value, label, description, preview)| {
            object(vec![
                ("value", value),
                ("label", label),
                ("description", description),
                ("preview", preview),
            ])
        },
    );
    let options = prop_oneof![
        6 => prop::collection::vec(option, 0..4).prop_map(Value::Array),
        1 => arb_json(),
    ];
    let kind = prop::option::weighted(
        0.7,
        prop_oneof![
            4 => prop::sample::select(vec!["single", "multi", "preview"]).prop_map(Value::from),
            1 => arb_json(),
        ],
    );
    let required = prop::option::weighted(0.3, arb_json());
    let question = (
        arb_field(),
        prop::option::weighted(0.5, arb_text().prop_map(Value::from)),
        arb_field(),
        kind,
        required,
        prop::option::weighted(0.95, options),
    )
        .prop_map(|(id, label, prompt, kind, required, options)| {
            object(vec![
                ("id", id),
                ("label", label),
                ("prompt", prompt),
                ("type", kind),
                ("required", required),
                ("options", options),
            ])
        });
    let questions = prop_oneof![
        8 => prop::collection::vec(question, 0..4).prop_map(Value::Array),
        1 => arb_json(),
    ];
    (
        prop::option::weighted(0.4, arb_field().prop_map(|f| f.unwrap_or(Value::Null))),
        prop::option::weighted(0.95, questions),
    )
        .prop_map(|(title, questions)| object(vec![("title", title), ("questions", questions)]))
}

/// Checks what any opened session must satisfy (a pi session, the contract's too).
fn check_opened(session: &Session) -> Result<(), TestCaseError> {
    if let Some(flow) = session.flow() {
        prop_assert_eq!(flow.check_invariants(), Ok(()));
    }
    if session.dialect() != DialectId::PI {
        return Ok(());
    }
    match session {
        Session::Flow { flow, .. } => {
            prop_assert_eq!(flow.check_invariants(), Ok(()));
            for q in &flow.spec().questions {
                prop_assert!(!q.id.is_empty() && q.id.trim() == q.id);
                prop_assert!(!q.prompt.is_empty() && q.prompt.trim() == q.prompt);
                prop_assert!(!q.options.is_empty());
            }
            prop_assert_eq!(session.result(), None);
        }
        Session::Invalid { invalid, .. } => {
            prop_assert!(!invalid.issues.is_empty());
            let result = session
                .result()
                .expect("an invalid payload is done at once");
            prop_assert_eq!(null_paths(&result), Vec::<String>::new());
            prop_assert_eq!(&result["details"]["error"]["kind"], &json!("invalid_input"));
            prop_assert_eq!(&result["details"]["cancelled"], &json!(true));
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            let lines: Vec<&str> = text.split('\n').collect();
            prop_assert_eq!(lines[0], "Invalid ask_user payload:");
            prop_assert_eq!(lines.len(), invalid.issues.len() + 1);
            prop_assert_eq!(
                session.transcript().map(|t| t.result),
                Some("Invalid input".to_owned())
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn any_json_payload_opens_without_panicking(payload in arb_json()) {
        if let Ok(session) = Session::open(&payload, &OpenOptions::default()) {
            check_opened(&session)?;
        }
    }

    #[test]
    fn shaped_payloads_open_as_a_flow_or_an_invalid_input_result(payload in arb_shaped_payload()) {
        if DialectId::infer(&payload) == DialectId::DSH {
            // Only a `questions` value drawn as arbitrary JSON can look like a dsh request.
            let _ = Session::open(&payload, &OpenOptions::default());
            return Ok(());
        }
        let session = Session::open(&payload, &OpenOptions::default())
            .expect("a pi payload always opens");
        check_opened(&session)?;
        let without_ui = OpenOptions { has_ui: false, ..OpenOptions::default() };
        let session = Session::open(&payload, &without_ui).unwrap();
        let result = session.result().expect("done at once");
        prop_assert_eq!(null_paths(&result), Vec::<String>::new());
        prop_assert_eq!(&result["details"]["cancelled"], &json!(true));
        prop_assert_eq!(&result["details"]["answers"], &json!({}));
    }
}

// Flows and keys ------------------------------------------------------------------------------

/// A valid pi payload: 1–4 questions of any type with 1–5 options each.
fn arb_valid_payload() -> impl Strategy<Value = Value> {
    let label = prop::sample::select(vec![
        "Alpha",
        "Beta (Recommended)",
        "Café",
        "한국어",
        "😀 emoji",
        "Long label text",
        "x",
    ]);
    let option = (label, prop::option::of("[a-z ]{1,8}"));
    let question = (
        prop::sample::select(vec!["single", "multi", "preview"]),
        prop::collection::vec(option, 1..6),
        any::<bool>(),
        prop::option::of(prop::sample::select(vec![
            "Scope",
            "범위",
            "A rather long tab label",
        ])),
    );
    (
        prop::collection::vec(question, 1..5),
        prop::option::of("[A-Za-z ]{1,10}"),
    )
        .prop_map(|(questions, title)| {
            let questions: Vec<Value> = questions
                .into_iter()
                .enumerate()
                .map(|(i, (kind, options, required, label))| {
                    let options: Vec<Value> = options
                        .into_iter()
                        .enumerate()
                        .map(|(j, (label, description))| {
                            let mut o = json!({ "value": format!("v{j}"), "label": label });
                            if let Some(d) = description.filter(|d| !d.trim().is_empty()) {
                                o["description"] = json!(d);
                            }
                            if kind == "preview" || j % 2 == 1 {
                                o["preview"] = json!(format!("preview {j}"));
                            }
                            o
                        })
                        .collect();
                    let mut q = json!({
                        "id": format!("q{i}"),
                        "prompt": format!("Question {i}?"),
                        "type": kind,
                        "required": required,
                        "options": options
                    });
                    if let Some(label) = label {
                        q["label"] = json!(label);
                    }
                    q
                })
                .collect();
            let mut payload = json!({ "questions": questions });
            if let Some(title) = title.filter(|t| !t.trim().is_empty()) {
                payload["title"] = json!(title);
            }
            payload
        })
}

/// Behaviour options: either profile, each of the four flags on or off.
fn arb_behaviour() -> impl Strategy<Value = askd::core::Behaviour> {
    (any::<bool>(), prop::collection::vec(any::<bool>(), 4)).prop_map(|(later, flags)| {
        let profile = if later { Profile::Pi09 } else { Profile::Seed };
        askd::core::Behaviour {
            confirm_dismiss_when_dirty: flags[0],
            double_press_review_shortcuts: flags[1],
            auto_submit_when_answered_without_notes: flags[2],
            present_single_as_multi: flags[3],
            ..profile.behaviour()
        }
    })
}

/// A fresh session under random behaviour options: usually a random valid pi payload,
/// sometimes a hand-built dsh spec with free-text questions (only the custom row).
fn arb_session() -> impl Strategy<Value = Session> {
    (arb_spec_session(), arb_behaviour()).prop_map(|(session, behaviour)| {
        let dialect = session.dialect();
        let spec = session.flow().expect("a flow").spec().clone();
        let options = OpenOptions {
            behaviour,
            ..OpenOptions::default()
        };
        Session::from_spec(dialect, Arc::new(spec.with_behaviour(behaviour)), &options)
    })
}

/// A fresh session: usually a random valid pi payload, sometimes a hand-built dsh spec with
/// free-text questions (only the custom row).
fn arb_spec_session() -> impl Strategy<Value = Session> {
    let dsh = prop::collection::vec((any::<bool>(), 0..4usize), 1..4).prop_map(|questions| {
        let questions = questions
            .into_iter()
            .enumerate()
            .map(|(i, (multi, options))| {
                let kind = if multi {
                    askd::core::QuestionType::Multi
                } else {
                    askd::core::QuestionType::Single
                };
                let labels = ["A", "B", "C"];
                question(&format!("d{i}"), kind, &labels[..options.min(3)])
            })
            .collect();
        let spec = FlowSpec {
            rules: askd::dialect::dsh::RULES,
            requester: None,
            source: None,
            behaviour: Default::default(),
            title: None,
            questions,
        };
        Session::from_spec(DialectId::DSH, Arc::new(spec), &OpenOptions::default())
    });
    // A long question (a filter, pages) before a short one, with the Vim keys or without.
    let long = (
        prop::sample::select(vec!["single", "multi", "preview"]),
        10..25usize,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(kind, n, vim, pi09)| {
            let options: Vec<Value> = (0..n)
                .map(|j| {
                    json!({
                        "value": format!("v{j}"),
                        "label": format!("Item {j}"),
                        "description": if j % 3 == 0 { "third" } else { "other" },
                        "preview": format!("preview {j}"),
                    })
                })
                .collect();
            let payload = json!({ "questions": [
                { "id": "long", "prompt": "Which?", "type": kind, "options": options },
                { "id": "short", "prompt": "And?", "options": [{ "value": "a", "label": "A" }] }
            ] });
            let mut keymap = askd::core::Keymap::default();
            if vim {
                keymap = keymap.with_preset(askd::core::Preset::Vim);
            }
            let mut options = OpenOptions {
                keymap: Arc::new(keymap),
                ..OpenOptions::default()
            };
            // The profile's custom row on preview questions and its type toggle, under a filter.
            if pi09 {
                options.behaviour = Profile::Pi09.behaviour();
            }
            Session::open(&payload, &options).expect("a pi payload opens")
        });
    let others = prop::sample::select(other_dialect_requests()).prop_map(|(name, payload)| {
        let options = OpenOptions {
            dialect: DialectId::named(name),
            ..OpenOptions::default()
        };
        Session::open(&payload, &options).expect("the example opens")
    });
    prop_oneof![
        4 => arb_valid_payload().prop_map(|p| {
            Session::open(&p, &OpenOptions::default()).expect("a pi payload opens")
        }),
        1 => dsh,
        2 => long,
        2 => others,
    ]
}

/// A request in each of the other agents' dialects: previews and multi-select (claude), the
/// `None of the above` row, a free-text and a secret question, a repeated id (codex), a question
/// without the custom row and one that cannot be answered (opencode), and a form with defaults,
/// checks, required fields and fields that take no value (mcp).
fn other_dialect_requests() -> Vec<(&'static str, Value)> {
    vec![
        (
            "claude",
            json!({ "questions": [
            { "question": "Which?", "header": "Which", "multiSelect": false, "options": [
                { "label": "A (Recommended)", "description": "a", "preview": "# a" },
                { "label": "B", "description": "" } ] },
            { "question": "Many?", "header": "Many", "multiSelect": true, "options": [
                { "label": "X", "description": "" }, { "label": "Y, Z", "description": "" } ] } ] }),
        ),
        (
            "codex",
            json!({ "threadId": "t", "turnId": "u", "itemId": "i", "questions": [
            { "id": "a", "header": "A", "question": "A?", "isOther": true, "options": [
                { "label": "X", "description": "" }, { "label": "Y", "description": "" } ] },
            { "id": "b", "header": "B", "question": "B?", "options": null },
            { "id": "c", "header": "C", "question": "C?", "isSecret": true },
            { "id": "a", "header": "", "question": "", "options": [
                { "label": "X", "description": "" }, { "label": "X", "description": "" } ] } ] }),
        ),
        (
            "opencode",
            json!({ "id": "que_1", "sessionID": "ses_1", "questions": [
            { "question": "None?", "header": "None", "custom": false, "options": [] },
            { "question": "One?", "header": "One", "custom": false, "options": [
                { "label": "X", "description": "" }, { "label": "Y", "description": "" } ] },
            { "question": "Many?", "header": "Many", "multiple": true, "options": [
                { "label": "X", "description": "" } ] },
            { "question": "Free?", "header": "Free", "options": [] } ] }),
        ),
        (
            "mcp",
            json!({ "message": "Form", "requestedSchema": { "type": "object", "properties": {
            "name": { "type": "string", "minLength": 2, "maxLength": 4, "default": "abc" },
            "mail": { "type": "string", "format": "email" },
            "n": { "type": "integer", "minimum": 1, "maximum": 3 },
            "ok": { "type": "boolean", "default": true },
            "pick": { "type": "string", "enum": ["a", "b"] },
            "many": { "type": "array", "minItems": 1, "maxItems": 2, "items": { "type": "string", "enum": ["x", "y", "z"] } },
            "none": { "type": "string", "enum": [] },
            "odd": { "type": "string", "minLength": 3, "maxLength": 1 }
        }, "required": ["name", "many", "gone"] } }),
        ),
    ]
}

/// A fresh session and the request it was opened on, under random behaviour options: usually
/// a random valid pi payload, sometimes a dsh request with free-text questions (no options)
/// among others.
fn arb_requested_session() -> impl Strategy<Value = (Session, Value)> {
    let dsh = prop::collection::vec((any::<bool>(), 0..4usize), 1..4).prop_map(|questions| {
        let questions: Vec<Value> = questions
            .into_iter()
            .enumerate()
            .map(|(i, (multi, options))| {
                let mut q = json!({ "id": format!("d{i}"), "question": format!("d{i}?") });
                if options > 0 {
                    let labels = ["A", "B", "C"];
                    q["options"] = labels[..options.min(3)]
                        .iter()
                        .map(|label| json!({ "label": label }))
                        .collect();
                    q["multiSelect"] = json!(multi);
                }
                q
            })
            .collect();
        json!({ "questions": questions })
    });
    (
        prop_oneof![4 => arb_valid_payload(), 1 => dsh],
        arb_behaviour(),
    )
        .prop_map(|(request, behaviour)| {
            let options = OpenOptions {
                behaviour,
                ..OpenOptions::default()
            };
            let session = Session::open(&request, &options).expect("the request opens");
            (session, request)
        })
}

/// Keys that end a flow from the options focus; drawn less often so that runs go deeper.
const ENDING_KEYS: [&str; 2] = ["escape", "ctrl+c"];

/// Every default key name, plus letters, digits and non-ASCII characters, without repeats
/// and without [`ENDING_KEYS`].
static KEY_POOL: LazyLock<Vec<Key>> = LazyLock::new(|| {
    let mut names: Vec<String> = Action::ALL
        .iter()
        .flat_map(|a| a.default_keys().iter().map(|k| (*k).to_owned()))
        .collect();
    names.extend("abnNxZ0123456789".chars().map(String::from));
    names.extend(["é", "한", "😀", "pageup", "pagedown", "ctrl+x", "alt+1"].map(String::from));
    // The Vim preset's keys (`g` twice makes `g g`), and the profile's toggle and help.
    names.extend(["j", "k", "h", "l", "g", "G", "ctrl+d", "t", "?"].map(String::from));
    let mut keys: Vec<Key> = Vec::new();
    for name in names.iter().filter(|n| !ENDING_KEYS.contains(&n.as_str())) {
        let key = Key::parse(name).expect("pool keys parse");
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
});

/// One step of a random run.
#[derive(Debug, Clone)]
enum Op {
    /// Press a key.
    Press(Key),
    /// Paste text into the open editor (refused when none is open).
    Paste(String),
    /// A click or a tap on a target (refused when the screen does not offer it).
    Activate(Target),
    /// The open editor's whole text and caret set (refused when none is open).
    Draft(String, Option<usize>),
}

fn arb_ops() -> impl Strategy<Value = Vec<Op>> {
    let ending: Vec<Key> = ENDING_KEYS.iter().map(|n| Key::parse(n).unwrap()).collect();
    let op = prop_oneof![
        40 => prop::sample::select(KEY_POOL.clone()).prop_map(Op::Press),
        2 => prop::sample::select(ending).prop_map(Op::Press),
        3 => prop::sample::select(vec!["é", "👍🏽", "한글", "a b", "x\ny", "  "])
            .prop_map(|t| Op::Paste(t.to_owned())),
        12 => arb_target().prop_map(Op::Activate),
        2 => (
            prop::sample::select(vec!["", "é", "👍🏽 x", "a\r\nb", "  ", "@"]),
            prop::option::of(0..8usize),
        )
            .prop_map(|(t, caret)| Op::Draft(t.to_owned(), caret)),
    ];
    prop::collection::vec(op, 0..60)
}

/// Applies one step; once the flow is done every step must be refused.
fn apply(session: &mut Session, op: &Op) -> Result<(), TestCaseError> {
    let done = session.result().is_some();
    let before = session.clone();
    let outcome = match op {
        Op::Press(key) => session.press(*key),
        Op::Paste(text) => session.flow_mut().and_then(|f| f.insert(text)),
        Op::Activate(target) => {
            // What the view offers is exactly what the core takes.
            let offered = offered(session, target);
            let outcome = session.flow_mut().and_then(|f| f.activate(target));
            let refused = matches!(outcome, Err(FlowError::NotOnScreen(_)));
            prop_assert_eq!(offered, !done && !refused, "{:?}: {:?}", target, outcome);
            outcome
        }
        Op::Draft(text, caret) => {
            let units = text.encode_utf16().count();
            let outcome = session.flow_mut().and_then(|f| f.set_draft(text, *caret));
            if let Err(FlowError::Caret { .. }) = outcome {
                prop_assert!(caret.is_some_and(|c| c > units));
            }
            outcome
        }
    };
    if outcome.is_err() {
        prop_assert_eq!(&*session, &before, "a refused {:?} changed the session", op);
    }
    match outcome {
        Ok(()) => prop_assert!(!done, "a done flow took {:?}", op),
        Err(FlowError::Completed) => prop_assert!(done),
        Err(FlowError::NoEditor) => {
            prop_assert!(matches!(op, Op::Paste(_) | Op::Draft(..)));
            prop_assert!(session.flow().is_some_and(|f| f.editor().is_none()));
            if matches!(op, Op::Paste(_)) {
                prop_assert!(session.flow().is_some_and(|f| f.focus() != Focus::Filter));
            }
        }
        Err(FlowError::NotOnScreen(_)) => prop_assert!(matches!(op, Op::Activate(_))),
        Err(FlowError::Caret { .. }) => prop_assert!(matches!(op, Op::Draft(..))),
        Err(e) => prop_assert!(false, "unexpected error {e}"),
    }
    Ok(())
}

/// The invariants of a flow after any step.
fn check_flow(session: &Session) -> Result<(), TestCaseError> {
    let flow = session.flow().expect("a flow session");
    prop_assert_eq!(flow.check_invariants(), Ok(()));
    let count = flow.spec().questions.len();
    match flow.current_question() {
        Some(q) => prop_assert!(flow.row() < flow.spec().row_count(q)),
        None => prop_assert_eq!(flow.row(), 0),
    }
    prop_assert!(flow.review_action() < flow.review_actions().len());
    match (flow.focus(), flow.editor()) {
        (Focus::Options, None) => prop_assert!(flow.tab() < count),
        (Focus::Review, None) => prop_assert_eq!(flow.tab(), count),
        (Focus::Filter, None) => {
            prop_assert!(flow.tab() < count);
            prop_assert!(flow.filter().is_some_and(|f| f.editing));
        }
        (Focus::Input, Some(e)) => {
            prop_assert_eq!(e.target, EditorTarget::Custom);
            prop_assert_eq!(e.question, flow.tab());
        }
        (Focus::Note, Some(e)) => {
            prop_assert_ne!(e.target, EditorTarget::Custom);
            prop_assert_eq!(e.question, flow.tab());
            prop_assert!(flow.spec().rules.notes);
        }
        (focus, editor) => prop_assert!(false, "focus {:?} with editor {:?}", focus, editor),
    }
    if let Some(e) = flow.editor() {
        prop_assert!(
            askd::core::TextEditor::from_parts(e.text.text(), e.text.cursor()).is_some(),
            "cursor off a boundary"
        );
    }
    if flow.outcome().is_some() {
        prop_assert!(flow.editor().is_none());
    }
    let view = serde_json::to_value(view::build("p", session)).expect("the view serialises");
    prop_assert_eq!(&view["activeTab"], &json!(flow.tab()));
    Ok(())
}

fn is_string_array(v: &Value) -> bool {
    v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
}

fn check_answer(a: &Value) -> Result<(), TestCaseError> {
    let fields = a.as_object().expect("an answer is an object");
    for key in fields.keys() {
        prop_assert!(
            [
                "values",
                "labels",
                "indices",
                "customText",
                "note",
                "optionNotes"
            ]
            .contains(&key.as_str()),
            "unexpected answer field {}",
            key
        );
    }
    prop_assert!(is_string_array(&a["values"]));
    prop_assert!(is_string_array(&a["labels"]));
    let values = a["values"].as_array().map_or(0, Vec::len);
    prop_assert_eq!(a["labels"].as_array().map_or(0, Vec::len), values);
    let indices = a["indices"].as_array().expect("indices");
    prop_assert!(indices.iter().all(|i| i.as_u64().is_some_and(|i| i >= 1)));
    let custom = usize::from(fields.contains_key("customText"));
    prop_assert_eq!(indices.len() + custom, values);
    for key in ["customText", "note"] {
        if let Some(v) = fields.get(key) {
            prop_assert!(v.as_str().is_some_and(|t| !t.trim().is_empty()));
        }
    }
    if let Some(notes) = fields.get("optionNotes") {
        let notes = notes.as_object().expect("optionNotes is an object");
        prop_assert!(!notes.is_empty());
        prop_assert!(notes.values().all(Value::is_string));
    }
    Ok(())
}

/// The contract's required fields of a finished pi result, and nothing undefined in it.
fn check_result(session: &Session) -> Result<(), TestCaseError> {
    let flow = session.flow().expect("a flow session");
    let outcome = flow.outcome().expect("done");
    let result = session.result().expect("a done flow has a result");
    prop_assert_eq!(null_paths(&result), Vec::<String>::new());
    let content = result["content"].as_array().expect("content");
    prop_assert_eq!(content.len(), 1);
    prop_assert_eq!(&content[0]["type"], &json!("text"));
    prop_assert!(content[0]["text"].as_str().is_some_and(|t| !t.is_empty()));
    let details = &result["details"];
    let reason = outcome.cancel_reason();
    prop_assert_eq!(&details["cancelled"], &json!(reason.is_some()));
    let expected_reason = reason.map(|r| json!(r.name()));
    prop_assert_eq!(details.get("cancelReason"), expected_reason.as_ref());
    prop_assert!(details.get("error").is_none());
    let ids: Vec<&str> = flow
        .spec()
        .questions
        .iter()
        .map(|q| q.id.as_str())
        .collect();
    let questions = details["questions"].as_array().expect("questions");
    prop_assert_eq!(questions.len(), ids.len());
    for (q, id) in questions.iter().zip(&ids) {
        prop_assert_eq!(&q["id"], &json!(id));
        for key in ["label", "prompt", "type"] {
            prop_assert!(q[key].is_string());
        }
    }
    let answers = details["answers"].as_object().expect("answers");
    let keys: Vec<&str> = answers.keys().map(String::as_str).collect();
    let in_order: Vec<&str> = ids.iter().copied().filter(|id| keys.contains(id)).collect();
    prop_assert_eq!(&keys, &in_order);
    for a in answers.values() {
        check_answer(a)?;
    }
    let elaborate = outcome == Outcome::Elaborate;
    prop_assert_eq!(
        &details["mode"],
        &json!(if elaborate { "elaborate" } else { "submit" })
    );
    prop_assert_eq!(details.get("continuation").is_some(), elaborate);
    prop_assert_eq!(details.get("elaboration").is_some(), elaborate);
    if elaborate {
        let c = &details["continuation"];
        prop_assert_eq!(&c["strategy"], &json!("refine_only"));
        prop_assert!(is_string_array(&c["affectedQuestionIds"]));
        for a in c["preservedAnswers"]
            .as_object()
            .expect("preservedAnswers")
            .values()
        {
            check_answer(a)?;
        }
        let states = c["questionStates"].as_object().expect("questionStates");
        prop_assert_eq!(
            states.keys().map(String::as_str).collect::<Vec<_>>(),
            ids.clone()
        );
        let e = &details["elaboration"];
        prop_assert!(e["instruction"].is_string());
        prop_assert_eq!(&e["nextAction"], &json!("clarify_then_reask"));
        for item in e["items"].as_array().expect("items") {
            prop_assert!(item["note"].is_string());
            prop_assert!(item["answered"].is_boolean());
            prop_assert!(item["question"]["options"].is_array());
            let option_item = item["target"]["kind"] == json!("option");
            prop_assert_eq!(item.get("option").is_some(), option_item);
            prop_assert_eq!(item.get("selected").is_some(), option_item);
            prop_assert_eq!(
                item.get("answer").is_some(),
                item["answered"] == json!(true)
            );
        }
    }
    let transcript = session.transcript().expect("a done flow has a transcript");
    prop_assert!(transcript.call.starts_with("ask_user "));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn random_keys_keep_every_invariant(mut session in arb_session(), ops in arb_ops()) {
        check_flow(&session)?;
        for op in &ops {
            apply(&mut session, op)?;
            check_flow(&session)?;
        }
        if session.result().is_some() && session.dialect() == DialectId::PI {
            check_result(&session)?;
        }
    }

    #[test]
    fn random_runs_finish_with_a_result_that_honours_the_contract(
        mut session in arb_valid_payload()
            .prop_map(|p| Session::open(&p, &OpenOptions::default()).unwrap()),
        ops in arb_ops(),
        ending in prop::sample::select(vec!["1", "2", "3", "escape", "ctrl+c"]),
    ) {
        for op in &ops {
            apply(&mut session, op)?;
        }
        if session.result().is_none() {
            // Finish the run: a review digit from the review tab, Esc from the options focus,
            // or Ctrl+C from anywhere.
            let press = |s: &mut Session, name: &str| s.press(Key::parse(name).unwrap()).unwrap();
            let close_editor = |s: &mut Session| {
                while s.flow().unwrap().editor().is_some() {
                    press(s, "escape");
                }
            };
            if ending != "ctrl+c" {
                close_editor(&mut session);
            }
            if ending.len() == 1 {
                let review = session.flow().unwrap().spec().questions.len();
                while session.flow().unwrap().tab() != review {
                    press(&mut session, "tab");
                    close_editor(&mut session);
                }
            }
            press(&mut session, ending);
        }
        check_result(&session)?;
        prop_assert_eq!(session.press(Key::parse("enter").unwrap()), Err(FlowError::Completed));
    }

    #[test]
    fn snapshots_restore_an_equal_session_at_every_step(
        (session, request) in arb_requested_session(),
        ops in arb_ops(),
    ) {
        let mut original = session.clone();
        let mut restored = session;
        for op in &ops {
            apply(&mut original, op)?;
            apply(&mut restored, op)?;
            let state = save(&restored, &request);
            restored = restore(&state)
                .map_err(|e| TestCaseError::fail(format!("{e}: {state}")))?;
            prop_assert_eq!(&restored, &original);
            prop_assert_eq!(restored.result(), original.result());
            prop_assert_eq!(restored.transcript(), original.transcript());
        }
    }
}
