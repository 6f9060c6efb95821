//! Validation of a `request_user_input` request and its mapping onto questions, as Codex
//! 0.171.0 reads it: the app-server's `ToolRequestUserInputParams` (with `threadId`, `turnId`,
//! `itemId`), checked as the JSON Schema `codex app-server generate-json-schema` writes, or the
//! model's bare arguments `{ questions }`, as the tool's handler reads them (every question
//! needs options; each gets the `None of the above` row unless it says otherwise).
//!
//! Every issue is collected: the envelope's fields, then question by question its shape, `id`,
//! `header`, `question`, `isOther`, `isSecret`, `options`, then per option `label` and
//! `description`. Codex checks types only: texts may be empty, ids and labels may repeat, and
//! a request may ask no question. `null` is not a value but where the schema says so
//! (`options`, `autoResolutionMs`); unknown fields are ignored.

use serde_json::{Map, Value};

use crate::core::{Answer, CustomRow, Issue, Question, QuestionType};
use crate::dialect::shape::{Place, issue, questions, tab_label};
use crate::dialect::walk;

/// The label of the row that answers none of the options.
pub const OTHER_LABEL: &str = "None of the above";
/// The description of that row.
pub const OTHER_DESCRIPTION: &str = "Optionally, add details in notes (tab).";

/// The fields of the app-server envelope; a request with any of them is one.
const ENVELOPE: [&str; 3] = ["threadId", "turnId", "itemId"];

/// Whether `request` is an app-server `ToolRequestUserInputParams` rather than bare arguments.
pub fn is_envelope(request: &Value) -> bool {
    ENVELOPE.iter().any(|key| request.get(key).is_some())
}

/// What the handler answers a model call one of whose questions has no options.
pub const NO_OPTIONS: &str = "request_user_input requires non-empty options for every question";

/// Validates a request given as arbitrary JSON and maps its questions.
pub fn validate(request: &Value) -> Result<Vec<Question>, Vec<Issue>> {
    let mut issues = Vec::new();
    let Some(root) = request.as_object() else {
        return Err(vec![issue("request", "request must be an object")]);
    };
    let envelope = is_envelope(request);
    if envelope {
        for key in ENVELOPE {
            match root.get(key) {
                Some(Value::String(_)) => {}
                None => issues.push(issue(key, format!("{key} is required"))),
                Some(_) => issues.push(issue(key, format!("{key} must be a string"))),
            }
        }
        // Codex before `isBlocking` sent none: a request without it blocks.
        if root.get("isBlocking").is_some_and(|b| !b.is_boolean()) {
            issues.push(issue("isBlocking", "isBlocking must be a boolean"));
        }
        match root.get("autoResolutionMs") {
            None | Some(Value::Null) => {}
            Some(Value::Number(n)) if n.is_u64() => {}
            Some(_) => issues.push(issue(
                "autoResolutionMs",
                "autoResolutionMs must be a whole number of milliseconds, 0 or more",
            )),
        }
    }
    let items = questions(root, &mut issues);
    walk::questions(items, issues, |object, place, index, issues| {
        check_question(object, place, index, !envelope, issues)
    })
}

/// Validates question `index` (0-based) at `place`, recording issues, and maps it (the walk
/// leaves it out when it recorded any); `model` is true for the model's bare arguments, whose
/// questions need options and offer `None of the above` unless `isOther` says otherwise.
fn check_question(
    object: &Map<String, Value>,
    place: &Place,
    index: usize,
    model: bool,
    issues: &mut Vec<Issue>,
) -> Option<Question> {
    let id = place.string(object, "id", issues);
    let header = place.string(object, "header", issues);
    let prompt = place.string(object, "question", issues);
    let is_other = place.flag(object, "isOther", issues);
    let is_secret = place.flag(object, "isSecret", issues).unwrap_or(false);
    let options = match object.get("options") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            walk::options(items, place, issues, |_, _, _| {}, |_, _, _| None)
        }
        Some(_) => {
            place.report(issues, "options", "options must be an array or null");
            Vec::new()
        }
    };
    if model && !matches!(object.get("options"), Some(Value::Array(items)) if !items.is_empty()) {
        place.report(issues, "options", NO_OPTIONS);
    }
    let custom_row = if options.is_empty() {
        CustomRow::Standard
    } else if is_other.unwrap_or(model) {
        CustomRow::Labelled {
            label: OTHER_LABEL.to_owned(),
            description: Some(OTHER_DESCRIPTION.to_owned()),
        }
    } else {
        CustomRow::Absent
    };
    Some(Question {
        id: id?.to_owned(),
        label: tab_label(header, index + 1),
        prompt: prompt?.trim().to_owned(),
        kind: QuestionType::Single,
        required: false,
        options,
        detail: None,
        intent: None,
        custom_row,
        secret: is_secret,
        initial: Answer::default(),
        asked: None,
    })
}
