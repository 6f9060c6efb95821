//! What a call of `ask` returns: the claude dialect's result (and why a flow ended
//! unanswered) turned into the text a model reads and the `structuredContent` of the tool's
//! output schema; a malformed input turned into a tool error naming each field.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value, json};

use crate::core::Issue;

/// How a call ended, as the model is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The person answered: the claude dialect's `updatedInput`.
    Answered(Value),
    /// The person dismissed the questions.
    Declined,
    /// The flow's time ran out (`--timeout`).
    TimedOut,
    /// The flow was ended by someone other than the person (withdrawn, closed by a client).
    Withdrawn,
}

/// The message of a call the person declined.
pub const DECLINED: &str = "The user declined to answer these questions. Do not assume an \
answer: go on without it, or ask the user how to proceed.";
/// The message of a call whose time ran out.
pub const TIMED_OUT: &str = "The user did not answer before the question timed out, and \
nothing was chosen for them. Do not assume an answer: go on without it, or ask the user how to \
proceed.";
/// The message of a call withdrawn before the person answered.
pub const WITHDRAWN: &str = "The question was withdrawn before the user answered. Do not \
assume an answer: go on without it, or ask the user how to proceed.";

/// The ending of a flow whose claude result is `result`, ended for `cancel_reason` (the view's
/// `cancelReason`) when it has no answers.
pub fn ending(result: &Value, cancel_reason: Option<&str>) -> Ending {
    if result["behavior"] == "allow" {
        return Ending::Answered(result["updatedInput"].clone());
    }
    match cancel_reason {
        Some("user" | "dismissed") => Ending::Declined,
        Some("timeout") => Ending::TimedOut,
        _ => Ending::Withdrawn,
    }
}

/// The tool result of an ending: text and structured content, never an error.
pub fn result(ending: &Ending) -> CallToolResult {
    let (text, structured) = match ending {
        Ending::Answered(input) => answered(input),
        Ending::Declined => unanswered("declined", DECLINED),
        Ending::TimedOut => unanswered("timedOut", TIMED_OUT),
        Ending::Withdrawn => unanswered("withdrawn", WITHDRAWN),
    };
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result
}

/// The text and structured content of an ending without an answer.
fn unanswered(status: &str, message: &str) -> (String, Value) {
    (
        message.to_owned(),
        json!({ "status": status, "message": message }),
    )
}

/// The text and structured content of an answer (`updatedInput`: `questions` as asked,
/// `answers` and `annotations` by question text).
fn answered(input: &Value) -> (String, Value) {
    let answers = input.get("answers").cloned().unwrap_or_else(|| json!({}));
    let annotations = input.get("annotations").and_then(Value::as_object);
    let mut lines = vec!["The user answered:".to_owned()];
    let mut kept = Map::new();
    for question in input["questions"].as_array().into_iter().flatten() {
        let Some(text) = question["question"].as_str() else {
            continue;
        };
        let quoted = serde_json::to_string(text).unwrap_or_default();
        match answers.get(text).and_then(Value::as_str) {
            Some(answer) => lines.push(format!("{quoted} → {answer}")),
            None => lines.push(format!("{quoted} → (skipped)")),
        }
        let annotation = annotations.and_then(|a| a.get(text));
        let mut note = Map::new();
        for field in ["notes", "preview"] {
            if let Some(value) = annotation
                .and_then(|a| a.get(field))
                .and_then(Value::as_str)
            {
                note.insert(field.to_owned(), json!(value));
            }
        }
        if let Some(notes) = note.get("notes").and_then(Value::as_str) {
            lines.push(format!("  notes: {notes}"));
        }
        if !note.is_empty() {
            kept.insert(text.to_owned(), Value::Object(note));
        }
    }
    let mut structured = json!({ "status": "answered", "answers": answers });
    if !kept.is_empty() {
        structured["annotations"] = Value::Object(kept);
    }
    (lines.join("\n"), structured)
}

/// The tool error of an input the claude dialect refuses: each issue with the field it names.
pub fn malformed(issues: &[Issue]) -> CallToolResult {
    let mut text = format!(
        "The questions were not asked: the input of {} is malformed. Fix these fields and call \
         it again:",
        super::tool::NAME
    );
    for issue in issues {
        text.push_str(&format!("\n- {}: {}", issue.path, issue.message));
    }
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The tool error of a call that could not reach a person: `why`, in words.
pub fn unreachable(why: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!(
        "The questions could not be asked: {why}. Do not assume an answer: ask the user in \
         plain text instead, or try again later."
    ))])
}
