//! Validation of an `AskUserQuestion` tool input and its mapping onto questions, as Claude Code
//! 2.1.333 checks the input before the tool runs: its schema (the input object takes no other
//! fields; questions and options drop the fields they do not know), the uniqueness of question
//! texts and of labels within a question, then `validateInput` (a label reserved for a skipped
//! question, and with `previewFormat: "html"` each preview checked as HTML).
//!
//! Every issue is collected, question by question in order: the question's shape, `question`
//! (a string, then unique), `header`, `multiSelect`, `options` (2 to 4), then per option
//! `label` (a string, then unique, then not the reserved label), `description`, `preview`.
//! `null` is not a value of any field (Claude Code refuses it where a field is optional too).
//! The `answers`, `annotations` and `metadata` a model may send are checked for their type and
//! not read as answers.

use serde_json::{Map, Value};

use crate::core::{Answer, CustomRow, Issue, OptionItem, Question, QuestionType, quoted};
use crate::dialect::claude::PreviewFormat;
use crate::dialect::shape::{Place, is_js_space, issue, questions, tab_label};
use crate::dialect::walk::{self, Unique};

/// Most questions one call may ask.
pub const MAX_QUESTIONS: usize = 4;
/// Fewest options a question may offer.
pub const MIN_OPTIONS: usize = 2;
/// Most options a question may offer.
pub const MAX_OPTIONS: usize = 4;
/// The label Claude Code keeps for a skipped question: an option labelled so (its spaces
/// folded) is refused.
pub const RESERVED_LABEL: &str = "[No preference]";
/// The fields of the input object; Claude Code refuses any other.
const FIELDS: [&str; 4] = ["questions", "answers", "annotations", "metadata"];

/// Validates an `AskUserQuestion` input given as arbitrary JSON and maps its questions, with
/// previews checked as `format` says.
pub fn validate(input: &Value, format: PreviewFormat) -> Result<Vec<Question>, Vec<Issue>> {
    let mut issues = Vec::new();
    let Some(root) = input.as_object() else {
        return Err(vec![issue(
            "input",
            "AskUserQuestion input must be an object",
        )]);
    };
    for key in root.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
        issues.push(issue(
            key,
            format!(
                "unknown field {}: the input takes questions, answers, annotations and metadata",
                quoted(key)
            ),
        ));
    }
    let items = questions(root, &mut issues);
    if root.get("questions").is_some_and(Value::is_array) {
        if items.is_empty() {
            issues.push(issue("questions", "At least one question is required"));
        } else if items.len() > MAX_QUESTIONS {
            issues.push(issue(
                "questions",
                format!(
                    "At most {MAX_QUESTIONS} questions are allowed (got {})",
                    items.len()
                ),
            ));
        }
    }
    model_fields(root, &mut issues);
    let mut texts = Unique::new("question", "question text");
    walk::questions(items, issues, |object, place, index, issues| {
        check_question(object, place, index, format, &mut texts, issues)
    })
}

/// The `answers`, `annotations` and `metadata` a model may send: checked for their type
/// (`answers` a record of strings or lists of strings, `annotations` a record of objects with
/// string `preview` and `notes`, `metadata` an object with a string `source`), never read.
fn model_fields(root: &Map<String, Value>, issues: &mut Vec<Issue>) {
    if let Some(answers) = root.get("answers") {
        match answers {
            Value::Object(members) => {
                for (key, value) in members {
                    let fits = match value {
                        Value::String(_) => true,
                        Value::Array(items) => items.iter().all(Value::is_string),
                        _ => false,
                    };
                    if !fits {
                        issues.push(issue(
                            &format!("answers.{key}"),
                            "answers must be strings or lists of strings",
                        ));
                    }
                }
            }
            _ => issues.push(issue("answers", "answers must be an object")),
        }
    }
    if let Some(annotations) = root.get("annotations") {
        match annotations {
            Value::Object(members) => {
                for (key, value) in members {
                    let at = format!("annotations.{key}");
                    match value {
                        Value::Object(fields) => {
                            for field in ["preview", "notes"] {
                                if fields.get(field).is_some_and(|v| !v.is_string()) {
                                    issues.push(issue(
                                        &format!("{at}.{field}"),
                                        format!("{field} must be a string"),
                                    ));
                                }
                            }
                        }
                        _ => issues.push(issue(&at, "an annotation must be an object")),
                    }
                }
            }
            _ => issues.push(issue("annotations", "annotations must be an object")),
        }
    }
    if let Some(metadata) = root.get("metadata") {
        match metadata {
            Value::Object(fields) => {
                if fields.get("source").is_some_and(|v| !v.is_string()) {
                    issues.push(issue("metadata.source", "source must be a string"));
                }
            }
            _ => issues.push(issue("metadata", "metadata must be an object")),
        }
    }
}

/// Validates question `index` (0-based) at `place`, recording issues, and maps it (the walk
/// leaves it out when it recorded any).
fn check_question<'a>(
    object: &'a Map<String, Value>,
    place: &Place,
    index: usize,
    format: PreviewFormat,
    texts: &mut Unique<'a>,
    issues: &mut Vec<Issue>,
) -> Option<Question> {
    let text = place.string(object, "question", issues);
    if let Some(text) = text {
        texts.note(place, text, issues);
    }
    let header = place.string(object, "header", issues);
    let multi = place.flag(object, "multiSelect", issues).unwrap_or(false);
    let options = match object.get("options") {
        Some(Value::Array(items)) => {
            if !(MIN_OPTIONS..=MAX_OPTIONS).contains(&items.len()) {
                place.report(
                    issues,
                    "options",
                    &format!(
                        "{MIN_OPTIONS} to {MAX_OPTIONS} options are required (got {})",
                        items.len()
                    ),
                );
            }
            options(items, place, format, multi, issues)
        }
        None => {
            place.report(
                issues,
                "options",
                &format!("{MIN_OPTIONS} to {MAX_OPTIONS} options are required"),
            );
            Vec::new()
        }
        Some(_) => {
            place.report(issues, "options", "options must be an array");
            Vec::new()
        }
    };
    let text = text?;
    Some(Question {
        id: text.to_owned(),
        label: tab_label(header, index + 1),
        prompt: text.trim().to_owned(),
        kind: if multi {
            QuestionType::Multi
        } else {
            QuestionType::Single
        },
        required: false,
        options,
        detail: None,
        intent: None,
        custom_row: CustomRow::Standard,
        secret: false,
        initial: Answer::default(),
        asked: None,
    })
}

/// The options `items` of the question at `question`: each label unique within the question
/// and not [`RESERVED_LABEL`] once its spaces are folded; previews checked as `format` says.
fn options(
    items: &[Value],
    question: &Place,
    format: PreviewFormat,
    multi: bool,
    issues: &mut Vec<Issue>,
) -> Vec<OptionItem> {
    let mut labels = Unique::new("label", "option label");
    walk::options(
        items,
        question,
        issues,
        |place, label, issues| {
            labels.note(place, label, issues);
            if folded(label) == RESERVED_LABEL {
                place.report(
                    issues,
                    "label",
                    &format!(
                        "the label {} is reserved for a skipped question",
                        quoted(RESERVED_LABEL)
                    ),
                );
            }
        },
        |object, place, issues| preview(object, place, format, multi, issues),
    )
}

/// `text` with every run of white space folded into one space, and trimmed.
fn folded(text: &str) -> String {
    text.split(is_js_space)
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The preview of an option at `place`, checked as `format` says; kept, exactly as given, on
/// single-select questions only (the tool shows previews for those alone).
fn preview(
    option: &Map<String, Value>,
    place: &Place,
    format: PreviewFormat,
    multi: bool,
    issues: &mut Vec<Issue>,
) -> Option<String> {
    let preview = match option.get("preview") {
        None => return None,
        Some(Value::String(preview)) => preview.as_str(),
        Some(_) => {
            place.report(issues, "preview", "preview must be a string");
            return None;
        }
    };
    if format == PreviewFormat::Html
        && let Some(problem) = html_problem(preview)
    {
        place.report(issues, "preview", problem);
    }
    (!multi && !preview.trim().is_empty()).then(|| preview.to_owned())
}

/// What is wrong with an HTML preview, if anything, as Claude Code checks it: a whole document
/// (`<html`, `<body` or `<!doctype` as a whole word after `<` and any spaces), a `<script` or
/// `<style` element (alike), or no tag at all (no `<` and a letter, closed by a `>`); letters
/// in any case.
pub fn html_problem(preview: &str) -> Option<&'static str> {
    if opens_element(preview, &["html", "body", "!doctype"]) {
        Some(
            "preview must be an HTML fragment, not a full document (no <html>, <body>, or <!DOCTYPE>)",
        )
    } else if opens_element(preview, &["script", "style"]) {
        Some(
            "preview must not contain <script> or <style> tags; use inline styles through the style attribute",
        )
    } else if !has_tag(preview) {
        Some(
            "preview must contain HTML (previewFormat is \"html\"): wrap the content in a tag such as <div> or <pre>",
        )
    } else {
        None
    }
}

/// Whether `text` holds `<`, any white space, then one of `names` (ASCII letters in any case)
/// not followed by a letter, a digit or `_`.
fn opens_element(text: &str, names: &[&str]) -> bool {
    text.match_indices('<').any(|(at, _)| {
        let rest = text[at + 1..].trim_start_matches(is_js_space);
        names.iter().any(|name| {
            rest.len() >= name.len()
                && rest.as_bytes()[..name.len()].eq_ignore_ascii_case(name.as_bytes())
                && !rest
                    .as_bytes()
                    .get(name.len())
                    .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
        })
    })
}

/// Whether `text` holds a tag: `<`, an ASCII letter, anything but `>`, then `>`.
fn has_tag(text: &str) -> bool {
    text.match_indices('<').any(|(at, _)| {
        let rest = &text[at + 1..];
        rest.as_bytes().first().is_some_and(u8::is_ascii_alphabetic) && rest.contains('>')
    })
}

/// The request's `questions` exactly as given (echoed in results), and its `metadata` when
/// present.
pub fn echoed(input: &Value) -> Map<String, Value> {
    let mut kept = Map::new();
    for key in ["questions", "metadata"] {
        if let Some(value) = input.get(key).filter(|v| !v.is_null()) {
            kept.insert(key.to_owned(), value.clone());
        }
    }
    kept
}
