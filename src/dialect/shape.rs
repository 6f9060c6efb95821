//! Pieces the dialects of other agents share: reading fields of arbitrary JSON while collecting
//! issues with paths and messages in the style of the pi dialect, the transcript's call line and
//! result lines, and the rejection of an invalid request as a finished ask.

use std::borrow::Cow;

use serde_json::{Map, Value};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

use crate::core::{Answer, FlowSpec, Issue, Outcome, Question};
use crate::dialect::{Ending, Invalid, Rejection, Transcript};

/// The transcript result of a request that failed validation.
pub const INVALID_TRANSCRIPT: &str = "Invalid input";

/// The transcript result of a flow opened without a UI.
const NO_UI_TRANSCRIPT: &str = "Not asked: no UI";

/// The nouns of a call line that counts questions.
pub const QUESTIONS: (&str, &str) = ("question", "questions");

/// Widest the labels of a transcript call line may be, in terminal columns.
const CALL_LABELS_WIDTH: usize = 50;

/// What ends labels cut to fit the call line.
const ELLIPSIS: &str = "...";

/// An issue at `path`.
pub fn issue(path: &str, message: impl Into<String>) -> Issue {
    Issue {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// Where an object sits in a request and how its messages are prefixed, e.g. path
/// `questions[0].options[1]` and prefix `Question 1, option 2`.
pub struct Place {
    /// Path of the object.
    pub path: String,
    /// Message prefix.
    pub prefix: String,
}

impl Place {
    /// Question `index` (0-based) of `questions`.
    pub fn question(index: usize) -> Place {
        Place {
            path: format!("questions[{index}]"),
            prefix: format!("Question {}", index + 1),
        }
    }

    /// Option `index` (0-based) of this question.
    pub fn option(&self, index: usize) -> Place {
        Place {
            path: format!("{}.options[{index}]", self.path),
            prefix: format!("{}, option {}", self.prefix, index + 1),
        }
    }

    /// Records `what` about the field `key` of this object.
    pub fn report(&self, issues: &mut Vec<Issue>, key: &str, what: &str) {
        issues.push(issue(
            &format!("{}.{key}", self.path),
            format!("{}: {what}", self.prefix),
        ));
    }

    /// Records `what` about the object itself.
    pub fn report_self(&self, issues: &mut Vec<Issue>, what: &str) {
        issues.push(issue(&self.path, format!("{}: {what}", self.prefix)));
    }

    /// A required string field, which may be empty; returns it as given (`null` is not a
    /// string).
    pub fn string<'a>(
        &self,
        object: &'a Map<String, Value>,
        key: &str,
        issues: &mut Vec<Issue>,
    ) -> Option<&'a str> {
        match object.get(key) {
            Some(Value::String(text)) => Some(text),
            None => {
                self.report(issues, key, &format!("{key} is required"));
                None
            }
            Some(_) => {
                self.report(issues, key, &format!("{key} must be a string"));
                None
            }
        }
    }

    /// An optional boolean field; `None` when absent, or after recording an issue (`null` is
    /// not a boolean).
    pub fn flag(
        &self,
        object: &Map<String, Value>,
        key: &str,
        issues: &mut Vec<Issue>,
    ) -> Option<bool> {
        match object.get(key) {
            None => None,
            Some(Value::Bool(flag)) => Some(*flag),
            Some(_) => {
                self.report(issues, key, &format!("{key} must be a boolean"));
                None
            }
        }
    }
}

/// The `questions` array of a request (it may be empty), or the issue that it is missing or
/// not an array.
pub fn questions<'a>(root: &'a Map<String, Value>, issues: &mut Vec<Issue>) -> &'a [Value] {
    match root.get("questions") {
        Some(Value::Array(items)) => items,
        None => {
            issues.push(issue("questions", "questions is required"));
            &[]
        }
        Some(_) => {
            issues.push(issue("questions", "questions must be an array"));
            &[]
        }
    }
}

/// A tab label from a header: trimmed, or `Q<number>` when blank or absent.
pub fn tab_label(header: Option<&str>, number: usize) -> String {
    match header.map(str::trim) {
        Some(label) if !label.is_empty() => label.to_owned(),
        _ => format!("Q{number}"),
    }
}

/// Trimmed text, `None` when blank.
pub fn non_blank(text: Option<&str>) -> Option<String> {
    text.map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

/// Best-effort tab labels of a request that failed validation: each question's `header` when
/// it is a non-blank string, else `Q1`, `Q2`, … by position.
fn raw_labels(request: &Value) -> Vec<String> {
    let Some(questions) = request.get("questions").and_then(Value::as_array) else {
        return Vec::new();
    };
    questions
        .iter()
        .enumerate()
        .map(|(i, q)| tab_label(q.get("header").and_then(Value::as_str), i + 1))
        .collect()
}

/// The transcript call line: `<tool> <n> <nouns> (<labels>)` with `1 <noun>` or
/// `<n> <nouns>` (`nouns` holds both). As in pi, the labels are joined with `, ` and, wider
/// than 50 terminal columns, cut to their longest run of whole leading graphemes at most 47
/// columns wide, followed by `...`; without labels the parenthesised part is left out.
pub fn call_line(tool: &str, nouns: (&str, &str), labels: &[&str]) -> String {
    let n = labels.len();
    let noun = if n == 1 { nouns.0 } else { nouns.1 };
    let joined = labels.join(", ");
    if joined.is_empty() {
        return format!("{tool} {n} {noun}");
    }
    format!(
        "{tool} {n} {noun} ({})",
        cut_to_width(&joined, CALL_LABELS_WIDTH)
    )
}

/// The labels of a spec's questions.
pub fn labels(spec: &FlowSpec) -> Vec<&str> {
    spec.questions.iter().map(|q| q.label.as_str()).collect()
}

/// `text` itself when it is at most `max` terminal columns wide; otherwise its longest run of
/// whole leading graphemes at most `max - 3` columns wide, followed by `...` (a wide character
/// counts two columns, and one that would straddle the limit is left out whole).
fn cut_to_width(text: &str, max: usize) -> Cow<'_, str> {
    if text.width() <= max {
        return Cow::Borrowed(text);
    }
    let room = max.saturating_sub(ELLIPSIS.len());
    let mut width = 0;
    let mut end = 0;
    for (at, grapheme) in text.grapheme_indices(true) {
        width += grapheme.width();
        if width > room {
            break;
        }
        end = at + grapheme.len();
    }
    Cow::Owned(format!("{}{ELLIPSIS}", &text[..end]))
}

/// What the transcript says of one question of a submitted flow.
pub struct Reported {
    /// The question's tab label.
    pub label: String,
    /// The answer as one text (`None` when skipped).
    pub answer: Option<String>,
    /// The note, when there is one.
    pub note: Option<String>,
}

/// The transcript result lines of a submitted flow: per question in order `✓ Label: <answer>`
/// (and `  note: <note>`), or `- Label: (skipped)`.
pub fn result_lines(reported: &[Reported]) -> String {
    let mut lines = Vec::with_capacity(reported.len());
    for r in reported {
        match &r.answer {
            Some(answer) => lines.push(format!("✓ {}: {answer}", r.label)),
            None => lines.push(format!("- {}: (skipped)", r.label)),
        }
        if let Some(note) = &r.note {
            lines.push(format!("  note: {note}"));
        }
    }
    lines.join("\n")
}

/// The labels of the options `a` chose of `q`, in option order.
pub fn chosen_labels<'a>(q: &'a Question, a: &Answer) -> Vec<&'a str> {
    let mut rows = a.selected.clone();
    rows.sort_unstable();
    rows.iter().map(|&i| q.options[i].label.as_str()).collect()
}

/// The custom text `a` reports ([`Answer::chosen_custom`]), trimmed, when it is not blank.
pub fn custom_text(a: &Answer) -> Option<&str> {
    a.chosen_custom().map(str::trim).filter(|t| !t.is_empty())
}

/// The answer text of chosen labels and typed text, as the transcript shows it: the labels
/// joined with `, `, then `(wrote) <text>`.
pub fn answer_text(labels: &[&str], text: Option<&str>) -> Option<String> {
    let mut parts: Vec<String> = labels.iter().map(|l| (*l).to_owned()).collect();
    if let Some(text) = text {
        parts.push(format!("(wrote) {text}"));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// A request that failed validation, as a finished ask: the dialect's negative `result`, the
/// call line of the request's best-effort labels and `Invalid input`.
pub fn rejection(
    request: &Value,
    call: fn(&[&str]) -> String,
    result: Value,
    issues: Vec<Issue>,
) -> Rejection {
    let labels = raw_labels(request);
    let label_refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    Rejection::Invalid(Box::new(Invalid {
        title: None,
        transcript: Transcript {
            call: call(&label_refs),
            result: INVALID_TRANSCRIPT.to_owned(),
        },
        result,
        issues,
        labels,
    }))
}

/// The transcript of a flow that ended `ending`: the call line `call` writes of its labels, and
/// `Not asked: no UI` or the result lines `result` writes of its outcome.
pub fn transcript(
    spec: &FlowSpec,
    answers: &[Answer],
    ending: Ending,
    call: fn(&[&str]) -> String,
    result: fn(&FlowSpec, &[Answer], Outcome) -> String,
) -> Transcript {
    Transcript {
        call: call(&labels(spec)),
        result: match ending {
            Ending::NoUi => NO_UI_TRANSCRIPT.to_owned(),
            Ending::Outcome(outcome) => result(spec, answers, outcome),
        },
    }
}

/// The message listing every issue: `<heading>` then one line `- <path>: <message>` each.
pub fn issue_list(heading: &str, issues: &[Issue]) -> String {
    let mut text = heading.to_owned();
    for i in issues {
        text.push_str(&format!("\n- {}: {}", i.path, i.message));
    }
    text
}

/// Whether `c` is white space as a JavaScript regular expression's `\s` and `trim()` take it:
/// the Unicode space separators, tab, vertical tab, form feed, the byte order mark and the
/// line terminators.
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}
