//! Validation of an `AskUserQuestion` tool input and its mapping onto questions.
//!
//! Every issue is collected, question by question in order: the question's shape, `question`
//! (required, then unique), `header`, `multiSelect`, `options` (2 to 4), then per option
//! `label` (required, then unique), `description`, `preview`. `null` counts as absent; unknown
//! fields, and the `answers`, `annotations` and `metadata` a model may send, are not read.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::core::{Answer, CustomRow, Issue, OptionItem, Question, QuestionType, quoted};
use crate::dialect::claude::PreviewFormat;
use crate::dialect::shape::{Field, Place, issue, non_blank, questions, tab_label};

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
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        if let Some(question) = check_question(item, index, format, &mut seen, &mut issues) {
            out.push(question);
        }
    }
    if issues.is_empty() {
        Ok(out)
    } else {
        Err(issues)
    }
}

/// Validates question `index` (0-based), recording issues; returns it mapped when it has none.
fn check_question<'a>(
    item: &'a Value,
    index: usize,
    format: PreviewFormat,
    seen: &mut HashSet<&'a str>,
    issues: &mut Vec<Issue>,
) -> Option<Question> {
    let place = Place::question(index);
    let Some(object) = item.as_object() else {
        place.report_self(issues, "must be an object");
        return None;
    };
    let before = issues.len();
    let text = place.text(object, "question", issues);
    if let Some(text) = text
        && !seen.insert(text)
    {
        place.report(
            issues,
            "question",
            &format!("duplicate question text {}", quoted(text)),
        );
    }
    let header = place.string(object, "header", issues);
    let multi = place.flag(object, "multiSelect", issues).unwrap_or(false);
    let mut options = Vec::new();
    match Field::of(object, "options") {
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
            let mut labels = HashSet::new();
            for (j, option) in items.iter().enumerate() {
                if let Some(option) =
                    check_option(option, &place.option(j), format, multi, &mut labels, issues)
                {
                    options.push(option);
                }
            }
        }
        Field::Absent => place.report(
            issues,
            "options",
            &format!("{MIN_OPTIONS} to {MAX_OPTIONS} options are required"),
        ),
        Field::Text(_) | Field::Other(_) => {
            place.report(issues, "options", "options must be an array")
        }
    }
    if issues.len() != before {
        return None;
    }
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

/// Validates one option, recording issues; returns it mapped when it has none. The label is
/// both what is shown and what is answered, exactly as given; a preview is kept, exactly as
/// given, on single-select questions only (the tool shows previews for those alone).
fn check_option<'a>(
    item: &'a Value,
    place: &Place,
    format: PreviewFormat,
    multi: bool,
    labels: &mut HashSet<&'a str>,
    issues: &mut Vec<Issue>,
) -> Option<OptionItem> {
    let Some(object) = item.as_object() else {
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
    let preview = place.optional_string(object, "preview", issues);
    if let Ok(Some(preview)) = preview
        && format == PreviewFormat::Html
        && let Some(problem) = html_problem(preview)
    {
        place.report(issues, "preview", problem);
    }
    if issues.len() != before {
        return None;
    }
    let label = label?;
    Some(OptionItem {
        value: label.to_owned(),
        label: label.to_owned(),
        description: non_blank(description),
        preview: preview
            .ok()
            .flatten()
            .filter(|p| !multi && !p.trim().is_empty())
            .map(str::to_owned),
    })
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
