//! Shared fixtures and helpers of the engine-core test suites (flow rules, results, properties).

use std::sync::Arc;

use askd::core::Keymap;
use askd::core::{Answer, CustomRow, FlowSpec, OptionItem, Question, QuestionType};
use askd::core::{EditorTarget, Flow, FlowError, Focus};
use askd::core::{Key, parse_sequence};
use askd::dialect::DialectId;
use askd::session::{OpenOptions, Session};
use serde_json::{Value, json};

/// The main fixture: a single question (`scope`, rows Small, Large, custom), a multi question
/// (`langs`, rows Rust, Go, Python, custom) and a preview question (`layout`, rows Grid, List).
/// Tabs: 0 scope, 1 langs, 2 layout, 3 review.
pub fn payload() -> Value {
    json!({
        "title": "Setup",
        "questions": [
            {
                "id": "scope",
                "label": "Scope",
                "prompt": "Which scope?",
                "options": [
                    { "value": "small", "label": "Small" },
                    { "value": "large", "label": "Large", "description": "Everything" }
                ]
            },
            {
                "id": "langs",
                "label": "Langs",
                "prompt": "Which languages?",
                "type": "multi",
                "options": [
                    { "value": "rs", "label": "Rust" },
                    { "value": "go", "label": "Go" },
                    { "value": "py", "label": "Python" }
                ]
            },
            {
                "id": "layout",
                "label": "Layout",
                "prompt": "Which layout?",
                "type": "preview",
                "required": true,
                "options": [
                    { "value": "grid", "label": "Grid", "preview": "# grid" },
                    { "value": "list", "label": "List", "preview": "- list" }
                ]
            }
        ]
    })
}

/// One way of driving a session, named in test tables.
pub type Step = fn(&mut Session);

/// Tab of the `scope` question.
pub const SCOPE: usize = 0;
/// Tab of the `langs` question.
pub const LANGS: usize = 1;
/// Tab of the `layout` question.
pub const LAYOUT: usize = 2;
/// The review tab of the main fixture.
pub const REVIEW: usize = 3;

/// Opens `payload` with the default options; it must open (pi dialect).
pub fn open(payload: &Value) -> Session {
    Session::open(payload, &OpenOptions::default()).expect("a pi payload always opens")
}

/// Opens the main fixture.
pub fn open_main() -> Session {
    open(&payload())
}

/// Opens `payload` with keymap overrides applied to the defaults.
pub fn open_with_keymap(payload: &Value, overrides: &Value) -> Session {
    let keymap = Keymap::default()
        .with_overrides(overrides)
        .expect("valid overrides");
    let options = OpenOptions {
        keymap: Arc::new(keymap),
        ..OpenOptions::default()
    };
    Session::open(payload, &options).expect("a pi payload always opens")
}

/// One key by name.
pub fn key(name: &str) -> Key {
    Key::parse(name).unwrap_or_else(|e| panic!("{name:?}: {e}"))
}

/// Presses every key of a Vim-notation sequence; each must be accepted.
pub fn press(session: &mut Session, keys: &str) {
    for k in parse_sequence(keys).unwrap_or_else(|e| panic!("{keys:?}: {e}")) {
        session
            .press(k)
            .unwrap_or_else(|e| panic!("{keys:?} at {k}: {e}"));
    }
}

/// Presses one key by name; it must be accepted.
pub fn press_key(session: &mut Session, name: &str) {
    session
        .press(key(name))
        .unwrap_or_else(|e| panic!("{name:?}: {e}"));
}

/// Types `text` one character key at a time.
pub fn type_text(session: &mut Session, text: &str) {
    for c in text.chars() {
        session
            .press(askd::core::char_key(c))
            .unwrap_or_else(|e| panic!("typing {c:?}: {e}"));
    }
}

/// Pastes `text` into the open editor.
pub fn paste(session: &mut Session, text: &str) {
    session
        .flow_mut()
        .and_then(|f| f.insert(text))
        .unwrap_or_else(|e| panic!("pasting {text:?}: {e}"));
}

/// The flow of a session that has one.
pub fn flow(session: &Session) -> &Flow {
    session.flow().expect("a flow session")
}

/// Where the flow stands: tab, row, focus and review action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At {
    /// Active tab.
    pub tab: usize,
    /// Active row.
    pub row: usize,
    /// Focus.
    pub focus: Focus,
    /// Active review action.
    pub action: usize,
}

/// Where `session` stands.
pub fn at(session: &Session) -> At {
    let f = flow(session);
    At {
        tab: f.tab(),
        row: f.row(),
        focus: f.focus(),
        action: f.review_action(),
    }
}

/// A position with review action 0.
pub fn pos(tab: usize, row: usize, focus: Focus) -> At {
    At {
        tab,
        row,
        focus,
        action: 0,
    }
}

/// The review tab of the main fixture with `action` active.
pub fn review(action: usize) -> At {
    At {
        tab: REVIEW,
        row: 0,
        focus: Focus::Review,
        action,
    }
}

/// The open editor as (target, text, cursor byte offset).
pub fn editor(session: &Session) -> Option<(EditorTarget, String, usize)> {
    flow(session)
        .editor()
        .map(|e| (e.target, e.text.text().to_owned(), e.text.cursor()))
}

/// An editor state, for comparison with [`editor`].
pub fn ed(
    target: EditorTarget,
    text: &str,
    cursor: usize,
) -> Option<(EditorTarget, String, usize)> {
    Some((target, text.to_owned(), cursor))
}

/// The answer of question `index`.
pub fn answer(session: &Session, index: usize) -> Answer {
    flow(session).answers()[index].clone()
}

/// An answer with only a selection.
pub fn selected(rows: &[usize]) -> Answer {
    Answer {
        selected: rows.to_vec(),
        ..Answer::default()
    }
}

/// An answer with only custom text.
pub fn custom(text: &str) -> Answer {
    Answer {
        custom_text: Some(text.to_owned()),
        ..Answer::default()
    }
}

/// The error of a key press that must be refused.
pub fn press_err(session: &mut Session, name: &str) -> FlowError {
    session
        .press(key(name))
        .expect_err("the key must be refused")
}

/// A question for hand-built specs: label `ID`, prompt `id?`, each option's value and label `label`.
pub fn question(id: &str, kind: QuestionType, options: &[&str]) -> Question {
    Question {
        asked: None,
        id: id.to_owned(),
        label: id.to_uppercase(),
        prompt: format!("{id}?"),
        kind,
        required: false,
        options: options
            .iter()
            .map(|label| OptionItem {
                value: (*label).to_owned(),
                label: (*label).to_owned(),
                description: None,
                preview: None,
            })
            .collect(),
        detail: None,
        intent: None,
        custom_row: CustomRow::Standard,
        secret: false,
        initial: Answer::default(),
    }
}

/// A session on a hand-built spec.
pub fn from_spec(dialect: DialectId, questions: Vec<Question>) -> Session {
    let spec = FlowSpec {
        title: None,
        questions,
        rules: dialect.rules(),
        requester: None,
        source: None,
        behaviour: Default::default(),
    };
    Session::from_spec(dialect, Arc::new(spec), &OpenOptions::default())
}

/// Every `null` in `value`, as JSON pointers.
pub fn null_paths(value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![(String::new(), value)];
    while let Some((path, v)) = pending.pop() {
        match v {
            Value::Null => found.push(path),
            Value::Array(items) => pending.extend(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| (format!("{path}/{i}"), item)),
            ),
            Value::Object(fields) => {
                pending.extend(fields.iter().map(|(k, item)| (format!("{path}/{k}"), item)))
            }
            _ => {}
        }
    }
    found
}

/// The keys of a JSON object, in order.
pub fn keys_of(value: &Value) -> Vec<String> {
    value
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

/// The snapshot of `session`, opened on `request`.
pub fn save(session: &Session, request: &Value) -> Value {
    let raw = serde_json::value::to_raw_value(request).expect("a request serialises");
    askd::session::snapshot::save(session, &raw, &Value::Null)
}

/// The session a snapshot restores to under the default limits (requests of up to 1 MiB), or
/// why it is refused.
pub fn restore(state: &Value) -> Result<Session, askd::session::snapshot::RestoreError> {
    askd::session::snapshot::restore(&state.to_string(), &askd::core::Limits::default(), 1 << 20)
        .map(|restored| restored.session)
}

/// Opens `payload` in the dialect called `name`, with `options` as that dialect's `open` param
/// (`null` for none).
pub fn try_open_in(
    name: &str,
    payload: &Value,
    options: Value,
) -> Result<Session, askd::dialect::AskError> {
    let dialect = DialectId::named(name).unwrap_or_else(|| panic!("no dialect {name}"));
    let mut dialect_options = serde_json::Map::new();
    if !options.is_null() {
        dialect_options.insert(name.to_owned(), options);
    }
    let options = OpenOptions {
        dialect: Some(dialect),
        dialect_options,
        ..OpenOptions::default()
    };
    Session::open(payload, &options)
}

/// Opens `payload` in the dialect called `name` without options; it must open.
pub fn open_in(name: &str, payload: &Value) -> Session {
    try_open_in(name, payload, Value::Null)
        .unwrap_or_else(|e| panic!("{name} refused the request: {}", e.message))
}

/// Opens `payload` in the dialect called `name` without a UI.
pub fn open_without_ui(name: &str, payload: &Value) -> Session {
    let options = OpenOptions {
        dialect: DialectId::named(name),
        has_ui: false,
        ..OpenOptions::default()
    };
    Session::open(payload, &options).unwrap_or_else(|e| panic!("{}", e.message))
}

/// The session after a snapshot and its restoration, which must succeed and save alike;
/// `session` was opened on `request` with the options of its dialect `options` (`null`: none).
pub fn round_trip(session: &Session, request: &Value, options: &Value) -> Session {
    let raw = serde_json::value::to_raw_value(request).expect("a request serialises");
    let state = askd::session::snapshot::save(session, &raw, options);
    let restored = askd::session::snapshot::restore(
        &state.to_string(),
        &askd::core::Limits::default(),
        1 << 20,
    )
    .unwrap_or_else(|e| panic!("{e}: {state}"));
    assert_eq!(restored.options, *options);
    let saved =
        askd::session::snapshot::save(&restored.session, &restored.request, &restored.options);
    assert_eq!(saved, state);
    restored.session
}

/// The rendered screen of `session` at `width`, as plain text.
pub fn screen(session: &Session, width: usize) -> String {
    let view = askd::view::build_with_width("s", session, Some(width));
    askd::view::plain(view.lines.iter().flatten())
}

/// Opens `plain` and `extra` (the same request with unknown keys added) in `dialect`, drives
/// both through `keys` and then `submit`, and checks that the unknown keys change nothing the
/// user sees: both open, their screens (at 70 columns) equal before and after `keys`, and their
/// transcripts equal at the end. Answers the two finished sessions, `(plain, extra)`, for their
/// results to be checked.
pub fn unknown_keys_change_nothing(
    dialect: &str,
    plain: &Value,
    extra: &Value,
    keys: &str,
    submit: &str,
) -> (Session, Session) {
    let mut plain = open_in(dialect, plain);
    let mut extra = open_in(dialect, extra);
    assert_eq!(extra.status(), askd::session::Status::Open);
    assert_eq!(screen(&extra, 70), screen(&plain, 70));
    press(&mut plain, keys);
    press(&mut extra, keys);
    assert_eq!(screen(&extra, 70), screen(&plain, 70));
    press(&mut plain, submit);
    press(&mut extra, submit);
    assert_eq!(extra.transcript(), plain.transcript());
    (plain, extra)
}
