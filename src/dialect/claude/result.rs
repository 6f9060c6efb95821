//! What a finished `AskUserQuestion` flow answers: a `PermissionResult` a host returns from
//! `canUseTool` unchanged (`allow` with the answers in `updatedInput`, or `deny` with a
//! message), and its transcript lines.

use serde_json::{Map, Value, json};

use crate::core::{Answer, CancelReason, FlowSpec, Issue, Outcome, Question, QuestionType};
use crate::dialect::shape::{
    QUESTIONS, Reported, answer_text, call_line, chosen_labels, custom_text, issue_list,
    result_lines,
};

/// The message of a flow the user cancelled: Claude Code's own rejection text.
pub const CANCEL_MESSAGE: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
/// The message of a flow the asker withdrew.
pub const ABORT_MESSAGE: &str = "The request was withdrawn before the user answered";
/// The message of a flow whose deadline passed: nothing was chosen for the user.
pub const TIMEOUT_MESSAGE: &str = "The user did not answer before the question timed out, and nothing was chosen on their behalf. Do not assume an answer: STOP what you are doing and wait for the user to tell you how to proceed.";
/// The message of a flow the client closed before the user answered.
pub const CLOSED_MESSAGE: &str = "The question was closed before the user answered. STOP what you are doing and wait for the user to tell you how to proceed.";
/// The first line of the message of a flow opened without UI; the questions follow.
pub const NO_UI_HEADING: &str = "AskUserQuestion needs an interactive user and none is available. Ask the user these questions in plain text instead:";
/// The first line of the message of an invalid input; the issues follow.
pub const INVALID_HEADING: &str = "Invalid AskUserQuestion input:";
/// The answer of a question that has notes but no selection.
pub const NOTES_ONLY: &str = "(notes only)";
/// The name of the tool, on the transcript's call line.
pub const TOOL: &str = "AskUserQuestion";

/// A `deny` result with `message`, and `interrupt: true` when the turn should stop.
pub fn deny(message: &str, interrupt: bool) -> Value {
    let mut result = json!({ "behavior": "deny", "message": message });
    if interrupt {
        result["interrupt"] = Value::Bool(true);
    }
    result
}

/// The result of an input that failed validation: a `deny` listing every issue.
pub fn invalid_result(issues: &[Issue]) -> Value {
    deny(&issue_list(INVALID_HEADING, issues), false)
}

/// The result of a flow opened without UI: a `deny` that lists the questions for the model to
/// ask in plain text.
pub fn no_ui_result(spec: &FlowSpec) -> Value {
    let mut text = NO_UI_HEADING.to_owned();
    for (i, q) in spec.questions.iter().enumerate() {
        text.push_str(&format!("\n{}. {}: {}", i + 1, q.label, q.prompt));
        for option in &q.options {
            text.push_str(&format!("\n   - {}", option.label));
        }
    }
    deny(&text, false)
}

/// The result of a finished flow: `allow` with the answers on submit, otherwise a `deny`
/// whose message says why the flow ended unanswered.
pub fn flow_result(spec: &FlowSpec, answers: &[Answer], outcome: Outcome) -> Value {
    match outcome {
        Outcome::Submit | Outcome::Elaborate => allow(spec, answers),
        Outcome::Cancelled(CancelReason::NoUi) => no_ui_result(spec),
        Outcome::Cancelled(reason) => deny(cancel_message(reason), interrupts(reason)),
        // The tool offers no Decline; a decline would be the user's cancel.
        Outcome::Declined => deny(CANCEL_MESSAGE, true),
    }
}

/// Whether the deny of a flow cancelled for `reason` stops the turn (`interrupt: true`). Claude
/// Code replaces the message of such a deny with its own rejection text, so only the user's
/// own cancel and dismiss, which that text describes, stop it; a timeout, a withdrawn request
/// and a closed client deny without it, so that the model reads what happened.
pub fn interrupts(reason: CancelReason) -> bool {
    matches!(reason, CancelReason::User | CancelReason::Dismissed)
}

/// The `deny` message of a flow cancelled for `reason` (the user's cancel and dismiss, and an
/// invalid input, which never ends a flow, read as Claude Code's own rejection).
pub fn cancel_message(reason: CancelReason) -> &'static str {
    match reason {
        CancelReason::Aborted => ABORT_MESSAGE,
        CancelReason::Timeout => TIMEOUT_MESSAGE,
        CancelReason::Closed => CLOSED_MESSAGE,
        CancelReason::User
        | CancelReason::Dismissed
        | CancelReason::NoUi
        | CancelReason::InvalidInput => CANCEL_MESSAGE,
    }
}

/// `{ behavior: "allow", updatedInput: { questions, answers, annotations?, metadata? } }`:
/// the questions (and metadata) echoed as asked, the answers keyed by question text.
fn allow(spec: &FlowSpec, answers: &[Answer]) -> Value {
    let source = spec.kept::<Value>();
    let kept = |key: &str| source.and_then(|s| s.get(key)).cloned();
    let unanswered_v1 = source
        .and_then(|s| s.get("unansweredV1"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut texts = Map::new();
    let mut annotations = Map::new();
    for (q, a) in spec.questions.iter().zip(answers) {
        let mut annotation = Map::new();
        match answer_value(q, a) {
            Some(text) => {
                texts.insert(q.id.clone(), Value::String(text));
            }
            None if unanswered_v1 => {
                annotation.insert("unanswered".to_owned(), json!("skipped"));
            }
            None => {}
        }
        if let Some(preview) = selected_preview(q, a) {
            annotation.insert("preview".to_owned(), Value::String(preview.to_owned()));
        }
        if let Some(note) = note(a) {
            annotation.insert("notes".to_owned(), Value::String(note.to_owned()));
        }
        if !annotation.is_empty() {
            annotations.insert(q.id.clone(), Value::Object(annotation));
        }
    }
    let mut input = Map::new();
    input.insert(
        "questions".to_owned(),
        kept("questions").unwrap_or(Value::Array(Vec::new())),
    );
    input.insert("answers".to_owned(), Value::Object(texts));
    if !annotations.is_empty() {
        input.insert("annotations".to_owned(), Value::Object(annotations));
    }
    if let Some(metadata) = kept("metadata") {
        input.insert("metadata".to_owned(), metadata);
    }
    json!({ "behavior": "allow", "updatedInput": input })
}

/// The question note, trimmed, when it is not blank.
fn note(a: &Answer) -> Option<&str> {
    a.note.as_deref().map(str::trim).filter(|n| !n.is_empty())
}

/// The answer of a question as the tool takes it: the label, or the typed text in its place;
/// on a multi-select question the chosen labels in option order and then the typed text,
/// joined as Claude Code joins them ([`join`]); `(notes only)` when only notes were given;
/// `None` when the question was skipped.
pub fn answer_value(q: &Question, a: &Answer) -> Option<String> {
    let mut entries = chosen_labels(q, a);
    if let Some(text) = custom_text(a) {
        entries.push(text);
    }
    if entries.is_empty() {
        return note(a).map(|_| NOTES_ONLY.to_owned());
    }
    Some(if q.kind == QuestionType::Multi {
        join(&entries)
    } else {
        entries.join(", ")
    })
}

/// Entries joined with `, `, each entry that holds `, ` or `"` written as a JSON string
/// literal, so that Claude Code splits them back exactly.
pub fn join(entries: &[&str]) -> String {
    entries
        .iter()
        .map(|e| {
            if e.contains(", ") || e.contains('"') {
                serde_json::to_string(e).unwrap_or_default()
            } else {
                (*e).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The preview of the selected option of a single-select question, exactly as asked.
fn selected_preview<'a>(q: &'a Question, a: &Answer) -> Option<&'a str> {
    match (q.kind, a.selected.as_slice()) {
        (QuestionType::Single, [row]) => q.options[*row].preview.as_deref(),
        _ => None,
    }
}

/// The transcript call line: `AskUserQuestion <n> question(s) (<labels>)`.
pub fn transcript_call(labels: &[&str]) -> String {
    call_line(TOOL, QUESTIONS, labels)
}

/// The transcript result of a finished flow: one line per question on submit, else why it
/// ended in words (`Cancelled`, `Cancelled (timed out)`, …).
pub fn transcript_result(spec: &FlowSpec, answers: &[Answer], outcome: Outcome) -> String {
    match outcome {
        Outcome::Cancelled(reason) => reason.words().to_owned(),
        Outcome::Declined => CancelReason::User.words().to_owned(),
        Outcome::Submit | Outcome::Elaborate => {
            let reported: Vec<Reported> = spec
                .questions
                .iter()
                .zip(answers)
                .map(|(q, a)| Reported {
                    label: q.label.clone(),
                    answer: answer_text(&chosen_labels(q, a), custom_text(a))
                        .or_else(|| note(a).map(|_| NOTES_ONLY.to_owned())),
                    note: note(a).map(str::to_owned),
                })
                .collect();
            result_lines(&reported)
        }
    }
}
