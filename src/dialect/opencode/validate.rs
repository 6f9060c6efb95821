//! Validation of an opencode `question` request and its mapping onto questions, as opencode
//! 1.18.33 checks them: a `QuestionRequest` (`id`, `sessionID` and the calling `tool`, each id
//! with its prefix), or the tool's bare input `{ questions }`, whose questions have no `custom`
//! field (opencode drops it: the model cannot turn the custom row off).
//!
//! Every issue is collected: the envelope's fields, then question by question its shape,
//! `question`, `header`, `multiple`, `custom`, `options`, then per option `label` and
//! `description`. opencode checks types only: texts may be empty, labels may repeat, a request
//! may ask no question and a question may have no options. `null` is not a value of any field;
//! unknown fields are ignored.

use serde_json::{Map, Value};

use crate::core::{Answer, CustomRow, Issue, Question, QuestionType};
use crate::dialect::shape::{Place, issue, questions, tab_label};
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

/// The label of the row of a question that has no options and no custom answer: nothing can
/// be chosen or typed, and the question can only be left unanswered.
pub const NO_ANSWER_LABEL: &str = "No answer possible";
/// Its description: why.
pub const NO_ANSWER_DESCRIPTION: &str =
    "This question offers no options and no answer of your own: leave it unanswered.";

/// The prefixes of opencode's ids, by field.
const PREFIXES: [(&str, &str); 3] = [("id", "que"), ("sessionID", "ses"), ("messageID", "msg")];

/// An id field of `object` at `path`: a string that starts with its prefix.
fn id_field(object: &Map<String, Value>, key: &str, path: &str, issues: &mut Vec<Issue>) {
    let prefix = PREFIXES.iter().find(|(k, _)| *k == key).map(|(_, p)| *p);
    match (object.get(key), prefix) {
        (Some(Value::String(id)), Some(prefix)) if !id.starts_with(prefix) => {
            issues.push(issue(path, format!("{path} must start with \"{prefix}\"")))
        }
        (Some(Value::String(_)), _) => {}
        (None, _) => issues.push(issue(path, format!("{path} is required"))),
        (Some(_), _) => issues.push(issue(path, format!("{path} must be a string"))),
    }
}

/// Validates a request given as arbitrary JSON and maps its questions.
pub fn validate(request: &Value) -> Result<Vec<Question>, Vec<Issue>> {
    let mut issues = Vec::new();
    let Some(root) = request.as_object() else {
        return Err(vec![issue("request", "request must be an object")]);
    };
    let envelope = is_request(request);
    if envelope {
        id_field(root, "id", "id", &mut issues);
        id_field(root, "sessionID", "sessionID", &mut issues);
        match root.get("tool") {
            None => {}
            Some(Value::Object(tool)) => {
                id_field(tool, "messageID", "tool.messageID", &mut issues);
                id_field(tool, "callID", "tool.callID", &mut issues);
            }
            Some(_) => issues.push(issue("tool", "tool must be an object")),
        }
    }
    let items = questions(root, &mut issues);
    walk::questions(items, issues, |object, place, index, issues| {
        check_question(object, place, index, envelope, issues)
    })
}

/// Validates question `index` (0-based) at `place`, recording issues, and maps it (the walk
/// leaves it out when it recorded any); `custom` is read in a `QuestionRequest` only.
fn check_question(
    object: &Map<String, Value>,
    place: &Place,
    index: usize,
    envelope: bool,
    issues: &mut Vec<Issue>,
) -> Option<Question> {
    let prompt = place.string(object, "question", issues);
    let header = place.string(object, "header", issues);
    let multiple = place.flag(object, "multiple", issues).unwrap_or(false);
    let custom = if envelope {
        place.flag(object, "custom", issues).unwrap_or(true)
    } else {
        true
    };
    let options = match object.get("options") {
        Some(Value::Array(items)) => {
            walk::options(items, place, issues, |_, _, _| {}, |_, _, _| None)
        }
        None => {
            place.report(issues, "options", "options is required");
            Vec::new()
        }
        Some(_) => {
            place.report(issues, "options", "options must be an array");
            Vec::new()
        }
    };
    let custom_row = if custom {
        CustomRow::Labelled {
            label: CUSTOM_LABEL.to_owned(),
            description: None,
        }
    } else if options.is_empty() {
        CustomRow::Inert {
            label: NO_ANSWER_LABEL.to_owned(),
            description: Some(NO_ANSWER_DESCRIPTION.to_owned()),
        }
    } else {
        CustomRow::Absent
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
        custom_row,
        secret: false,
        initial: Answer::default(),
        asked: None,
    })
}
