//! Validation of a `request_user_input` request and its mapping onto questions: the Codex
//! app-server's `ToolRequestUserInputParams` (with `threadId`, `turnId`, `itemId`), or the bare
//! model arguments `{ questions }`, whose questions get the `None of the above` row unless they
//! say otherwise (the Codex core forces `isOther` on them).
//!
//! Every issue is collected: the envelope's fields, then question by question its shape, `id`
//! (required, then unique), `header`, `question`, `isOther`, `isSecret`, `options`, then per
//! option `label` (required, then unique) and `description`. `null` counts as absent; unknown
//! fields are ignored.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::core::{Answer, CustomRow, Issue, OptionItem, Question, QuestionType, quoted};
use crate::dialect::shape::{Field, Place, issue, non_blank, questions, tab_label};

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
    let mut ids = HashSet::new();
    let mut out = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        if let Some(q) = check_question(item, index, !envelope, &mut ids, &mut issues) {
            out.push(q);
        }
    }
    if issues.is_empty() {
        Ok(out)
    } else {
        Err(issues)
    }
}

/// Validates question `index` (0-based); `other_by_default` is `isOther` when absent.
fn check_question<'a>(
    item: &'a Value,
    index: usize,
    other_by_default: bool,
    ids: &mut HashSet<&'a str>,
    issues: &mut Vec<Issue>,
) -> Option<Question> {
    let place = Place::question(index);
    let Some(object) = item.as_object() else {
        place.report_self(issues, "must be an object");
        return None;
    };
    let before = issues.len();
    let id = place.text(object, "id", issues);
    if let Some(id) = id
        && !ids.insert(id)
    {
        place.report(
            issues,
            "id",
            &format!("duplicate question id {}", quoted(id)),
        );
    }
    let header = place.string(object, "header", issues);
    let prompt = place.text(object, "question", issues);
    let is_other = place.flag(object, "isOther", issues);
    let is_secret = place.flag(object, "isSecret", issues).unwrap_or(false);
    let mut options: Vec<OptionItem> = Vec::new();
    match Field::of(object, "options") {
        Field::Absent => {}
        Field::Other(Value::Array(items)) => {
            let mut labels = HashSet::new();
            for (j, option) in items.iter().enumerate() {
                if let Some(option) = check_option(option, &place.option(j), &mut labels, issues) {
                    options.push(option);
                }
            }
        }
        Field::Text(_) | Field::Other(_) => {
            place.report(issues, "options", "options must be an array or null")
        }
    }
    if issues.len() != before {
        return None;
    }
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
