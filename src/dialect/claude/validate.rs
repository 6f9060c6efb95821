//! Validation of an `AskUserQuestion` tool input and its mapping onto questions.
//!
//! Every issue is collected, question by question in order: the question's shape, `question`
//! (required, then unique), `header`, `multiSelect`, `options` (2 to 4), then per option
//! `label` (required, then unique), `description`, `preview`. `null` counts as absent; unknown
//! fields, and the `answers`, `annotations` and `metadata` a model may send, are not read.

use serde_json::{Map, Value};

use crate::core::{Answer, CustomRow, Issue, Question, QuestionType};
use crate::dialect::claude::PreviewFormat;
use crate::dialect::shape::{Field, Place, issue, questions, tab_label};
use crate::dialect::walk::{self, Unique};

/// Most questions one call may ask.
pub const MAX_QUESTIONS: usize = 4;
/// Fewest options a question may offer.
pub const MIN_OPTIONS: usize = 2;
/// Most options a question may offer.
pub const MAX_OPTIONS: usize = 4;

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
    let items = questions(root, &mut issues);
    if items.len() > MAX_QUESTIONS {
        issues.push(issue(
            "questions",
            format!(
                "At most {MAX_QUESTIONS} questions are allowed (got {})",
                items.len()
            ),
        ));
    }
    let mut texts = Unique::new("question", "question text");
    walk::questions(items, issues, |object, place, index, issues| {
        check_question(object, place, index, format, &mut texts, issues)
    })
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
    let text = texts.text(place, object, issues);
    let header = place.string(object, "header", issues);
    let multi = place.flag(object, "multiSelect", issues).unwrap_or(false);
    let options = match Field::of(object, "options") {
        Field::Other(Value::Array(items)) => {
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
            walk::options(items, place, issues, |option, at, issues| {
                preview(option, at, format, multi, issues)
            })
        }
        Field::Absent => {
            place.report(
                issues,
                "options",
                &format!("{MIN_OPTIONS} to {MAX_OPTIONS} options are required"),
            );
            Vec::new()
        }
        Field::Text(_) | Field::Other(_) => {
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

/// The preview of an option at `place`, checked as `format` says; kept, exactly as given, on
/// single-select questions only (the tool shows previews for those alone).
fn preview(
    option: &Map<String, Value>,
    place: &Place,
    format: PreviewFormat,
    multi: bool,
    issues: &mut Vec<Issue>,
) -> Option<String> {
    let preview = place
        .optional_string(option, "preview", issues)
        .ok()
        .flatten()?;
    if format == PreviewFormat::Html
        && let Some(problem) = html_problem(preview)
    {
        place.report(issues, "preview", problem);
    }
    (!multi && !preview.trim().is_empty()).then(|| preview.to_owned())
}

/// What is wrong with an HTML preview, if anything: it must be a fragment (no `<html>`,
/// `<body>` or `<!DOCTYPE>`), hold no `<script>` or `<style>`, and hold at least one tag.
pub fn html_problem(preview: &str) -> Option<&'static str> {
    let lower = preview.to_ascii_lowercase();
    if ["<html", "<body", "<!doctype"]
        .iter()
        .any(|tag| lower.contains(tag))
    {
        Some(
            "preview must be an HTML fragment, not a whole document (no <html>, <body> or <!DOCTYPE>)",
        )
    } else if lower.contains("<script") || lower.contains("<style") {
        Some("preview must not hold <script> or <style> elements")
    } else if !has_tag(preview) {
        Some("preview must hold at least one HTML tag")
    } else {
        None
    }
}

/// Whether `text` holds something that opens or closes an HTML element (`<p`, `</p`).
fn has_tag(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b'<' && {
            let rest = &bytes[i + 1..];
            let rest = rest.strip_prefix(b"/").unwrap_or(rest);
            rest.first().is_some_and(u8::is_ascii_alphabetic)
        }
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
