//! Validation of an opencode `question` request and its mapping onto questions: a
//! `QuestionRequest` (with `id`, `sessionID` and the calling `tool`), or the bare tool input
//! `{ questions }`.
//!
//! Every issue is collected: the envelope's fields, then question by question its shape,
//! `question`, `header`, `multiple`, `custom`, `options`, then per option `label` (required,
//! then unique) and `description`. `null` counts as absent; unknown fields are ignored.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::core::{Answer, CustomRow, Issue, OptionItem, Question, QuestionType, quoted};
use crate::dialect::shape::{Field, Place, issue, non_blank, questions, tab_label};

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
    let mut out = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        if let Some(q) = check_question(item, index, &mut issues) {
            out.push(q);
        }
    }
    if issues.is_empty() {
        Ok(out)
    } else {
        Err(issues)
    }
}

/// Validates question `index` (0-based), recording issues; returns it mapped when it has none.
fn check_question(item: &Value, index: usize, issues: &mut Vec<Issue>) -> Option<Question> {
    let place = Place::question(index);
    let Some(object) = item.as_object() else {
        place.report_self(issues, "must be an object");
        return None;
    };
    let before = issues.len();
    let prompt = place.text(object, "question", issues);
    let header = place.string(object, "header", issues);
    let multiple = place.flag(object, "multiple", issues).unwrap_or(false);
    let custom = place.flag(object, "custom", issues).unwrap_or(true);
    let mut options = Vec::new();
    match Field::of(object, "options") {
        Field::Other(Value::Array(items)) => {
            if items.is_empty() && !custom {
                place.report(
                    issues,
                    "options",
                    "at least one option is required when custom is false",
                );
            }
            let mut labels = HashSet::new();
            for (j, option) in items.iter().enumerate() {
                if let Some(option) = check_option(option, &place.option(j), &mut labels, issues) {
                    options.push(option);
                }
            }
        }
        Field::Absent => place.report(issues, "options", "options is required"),
        Field::Text(_) | Field::Other(_) => {
            place.report(issues, "options", "options must be an array")
        }
    }
    if issues.len() != before {
        return None;
    }
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

/// Validates one option: `label` non-blank and unique (it is what is answered, exactly as
/// given), `description` a string.
fn check_option<'a>(
    item: &'a Value,
    place: &Place,
    labels: &mut HashSet<&'a str>,
    issues: &mut Vec<Issue>,
) -> Option<OptionItem> {
    let Some(object): Option<&Map<String, Value>> = item.as_object() else {
        place.report_self(issues, "must be an object");
        return None;
    };
    let before = issues.len();
    let label = place.text(object, "label", issues);
    if let Some(label) = label
        && !labels.insert(label)
    {
        place.report(
            issues,
            "label",
            &format!("duplicate option label {}", quoted(label)),
        );
    }
    let description = place.string(object, "description", issues);
    if issues.len() != before {
        return None;
    }
    let label = label?;
    Some(OptionItem {
        value: label.to_owned(),
        label: label.to_owned(),
        description: non_blank(description),
        preview: None,
    })
}
