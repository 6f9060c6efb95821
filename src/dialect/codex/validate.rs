//! Validation of a `request_user_input` request and its mapping onto questions: the Codex
//! app-server's `ToolRequestUserInputParams` (with `threadId`, `turnId`, `itemId`), or the bare
//! model arguments `{ questions }`, whose questions get the `None of the above` row unless they
//! say otherwise (the Codex core forces `isOther` on them).
//!
//! Every issue is collected: the envelope's fields, then question by question its shape, `id`
//! (required, then unique), `header`, `question`, `isOther`, `isSecret`, `options`, then per
//! option `label` (required, then unique) and `description`. `null` counts as absent; unknown
//! fields are ignored.

use serde_json::{Map, Value};

use crate::core::{Answer, CustomRow, Issue, Question, QuestionType};
use crate::dialect::shape::{Field, Place, issue, questions, tab_label};
use crate::dialect::walk::{self, Unique};

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

/// Validates a request given as arbitrary JSON and maps its questions.
pub fn validate(request: &Value) -> Result<Vec<Question>, Vec<Issue>> {
    let mut issues = Vec::new();
    let Some(root) = request.as_object() else {
        return Err(vec![issue("request", "request must be an object")]);
    };
    let envelope = is_envelope(request);
    if envelope {
        for key in ENVELOPE {
            if !matches!(Field::of(root, key), Field::Text(_)) {
                issues.push(issue(key, format!("{key} must be a string")));
            }
        }
        if !matches!(
            root.get("isBlocking"),
            None | Some(Value::Null | Value::Bool(_))
        ) {
            issues.push(issue("isBlocking", "isBlocking must be a boolean"));
        }
        if !matches!(
            root.get("autoResolutionMs"),
            None | Some(Value::Null | Value::Number(_))
        ) {
            issues.push(issue(
                "autoResolutionMs",
                "autoResolutionMs must be a number",
            ));
        }
    }
    let items = questions(root, &mut issues);
    let mut ids = Unique::new("id", "question id");
    walk::questions(items, issues, |object, place, index, issues| {
        check_question(object, place, index, !envelope, &mut ids, issues)
    })
}

/// Validates question `index` (0-based) at `place`, recording issues, and maps it (the walk
/// leaves it out when it recorded any); `other_by_default` is `isOther` when absent.
fn check_question<'a>(
    object: &'a Map<String, Value>,
    place: &Place,
    index: usize,
    other_by_default: bool,
    ids: &mut Unique<'a>,
    issues: &mut Vec<Issue>,
) -> Option<Question> {
    let id = ids.text(place, object, issues);
    let header = place.string(object, "header", issues);
    let prompt = place.text(object, "question", issues);
    let is_other = place.flag(object, "isOther", issues);
    let is_secret = place.flag(object, "isSecret", issues).unwrap_or(false);
    let options = match Field::of(object, "options") {
        Field::Absent => Vec::new(),
        Field::Other(Value::Array(items)) => walk::options(items, place, issues, |_, _, _| None),
        Field::Text(_) | Field::Other(_) => {
            place.report(issues, "options", "options must be an array or null");
            Vec::new()
        }
    };
    let custom_row = if options.is_empty() {
        CustomRow::Standard
    } else if is_other.unwrap_or(other_by_default) {
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
