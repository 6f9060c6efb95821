//! Validation of an opencode `question` request and its mapping onto questions: a
//! `QuestionRequest` (with `id`, `sessionID` and the calling `tool`), or the bare tool input
//! `{ questions }`.
//!
//! Every issue is collected: the envelope's fields, then question by question its shape,
//! `question`, `header`, `multiple`, `custom`, `options`, then per option `label` (required,
//! then unique) and `description`. `null` counts as absent; unknown fields are ignored.

use serde_json::{Map, Value};

use crate::core::{Answer, CustomRow, Issue, Question, QuestionType};
use crate::dialect::shape::{Field, Place, issue, questions, tab_label};
use crate::dialect::walk;

/// The label of the row where the user types an answer of their own.
pub const CUSTOM_LABEL: &str = "Type your own answer";

/// Whether `request` is a `QuestionRequest` rather than a bare tool input.
pub fn is_request(request: &Value) -> bool {
    request.get("sessionID").is_some()
}

/// The id of question `index` (0-based): `q1`, `q2`, … (opencode keys answers by position).
pub fn question_id(index: usize) -> String {
    format!("q{}", index + 1)
}

/// Validates a request given as arbitrary JSON and maps its questions.
pub fn validate(request: &Value) -> Result<Vec<Question>, Vec<Issue>> {
    let mut issues = Vec::new();
    let Some(root) = request.as_object() else {
        return Err(vec![issue("request", "request must be an object")]);
    };
    if is_request(request) {
        for key in ["id", "sessionID"] {
            if !matches!(Field::of(root, key), Field::Text(_)) {
                issues.push(issue(key, format!("{key} must be a string")));
            }
        }
        match root.get("tool") {
            None | Some(Value::Null) => {}
            Some(Value::Object(tool)) => {
                for key in ["messageID", "callID"] {
                    if !matches!(Field::of(tool, key), Field::Text(_)) {
                        issues.push(issue(
                            &format!("tool.{key}"),
                            format!("tool.{key} must be a string"),
                        ));
                    }
                }
            }
            Some(_) => issues.push(issue("tool", "tool must be an object")),
        }
    }
    let items = questions(root, &mut issues);
    walk::questions(items, issues, check_question)
}

/// Validates question `index` (0-based) at `place`, recording issues, and maps it (the walk
/// leaves it out when it recorded any).
fn check_question(
    object: &Map<String, Value>,
    place: &Place,
    index: usize,
    issues: &mut Vec<Issue>,
) -> Option<Question> {
    let prompt = place.text(object, "question", issues);
    let header = place.string(object, "header", issues);
    let multiple = place.flag(object, "multiple", issues).unwrap_or(false);
    let custom = place.flag(object, "custom", issues).unwrap_or(true);
    let options = match Field::of(object, "options") {
        Field::Other(Value::Array(items)) => {
            if items.is_empty() && !custom {
                place.report(
                    issues,
                    "options",
                    "at least one option is required when custom is false",
                );
            }
            walk::options(items, place, issues, |_, _, _| None)
        }
        Field::Absent => {
            place.report(issues, "options", "options is required");
            Vec::new()
        }
        Field::Text(_) | Field::Other(_) => {
            place.report(issues, "options", "options must be an array");
            Vec::new()
        }
    };
    Some(Question {
        id: question_id(index),
        label: tab_label(header, index + 1),
        prompt: prompt?.trim().to_owned(),
        kind: if multiple {
            QuestionType::Multi
        } else {
            QuestionType::Single
        },
        required: false,
        options,
        detail: None,
        intent: None,
        custom_row: if custom {
            CustomRow::Labelled {
                label: CUSTOM_LABEL.to_owned(),
                description: None,
            }
        } else {
            CustomRow::Absent
        },
        secret: false,
        initial: Answer::default(),
        asked: None,
    })
}
