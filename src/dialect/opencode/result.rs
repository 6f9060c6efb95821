//! What a finished opencode `question` flow answers: the body of `POST
//! /question/{id}/reply` (`{ answers: [[ … ], …] }`), or `{ rejected: true }` for a host to
//! `POST /question/{id}/reject`; its transcript lines; and answer sets of `submitAnswers` in the
//! reply's shape.
//!
//! One list per question, in question order: on a single-select question the chosen label or
//! the typed text; on a multi-select question the chosen labels in option order, then the typed
//! text; a question left unanswered is an empty list.

use serde_json::{Value, json};

use crate::core::{Answer, CancelReason, FlowSpec, Outcome, Question, QuestionType, quoted};
use crate::dialect::shape::{
    QUESTIONS, Reported, answer_text, chosen_labels, custom_text, result_lines,
};

/// The result of every flow that does not submit: the host rejects the question.
pub fn rejected() -> Value {
    json!({ "rejected": true })
}

/// The answer list of one question.
pub fn answer_list(q: &Question, a: &Answer) -> Vec<String> {
    let mut list: Vec<String> = chosen_labels(q, a).into_iter().map(str::to_owned).collect();
    if let Some(text) = custom_text(a) {
        list.push(text.to_owned());
    }
    list
}

/// `{ answers: [[ … ], …] }`, one list per question in order.
pub fn reply(spec: &FlowSpec, answers: &[Answer]) -> Value {
    let lists: Vec<Vec<String>> = spec
        .questions
        .iter()
        .zip(answers)
        .map(|(q, a)| answer_list(q, a))
        .collect();
    json!({ "answers": lists })
}

/// The result of a finished flow: the reply on submit, `{ rejected: true }` otherwise.
pub fn flow_result(spec: &FlowSpec, answers: &[Answer], outcome: Outcome) -> Value {
    match outcome {
        Outcome::Submit | Outcome::Elaborate => reply(spec, answers),
        Outcome::Cancelled(_) | Outcome::Declined => rejected(),
    }
}

/// The transcript call line: `question: Asked <n> question(s) (<labels>)`, the labels joined
/// with `, ` and cut to 50 columns.
pub fn transcript_call(labels: &[&str]) -> String {
    crate::dialect::shape::call_line("question: Asked", QUESTIONS, labels)
}

/// What the transcript says of a flow the user dismissed.
pub const DISMISSED: &str = "Dismissed";

/// The transcript result: a line per question on submit, `Dismissed` when the user dismissed
/// the flow, else why it ended in words (`Cancelled (timed out)`, …).
pub fn transcript_result(spec: &FlowSpec, answers: &[Answer], outcome: Outcome) -> String {
    match outcome {
        Outcome::Cancelled(CancelReason::User | CancelReason::Dismissed) | Outcome::Declined => {
            DISMISSED.to_owned()
        }
        Outcome::Cancelled(reason) => reason.words().to_owned(),
        Outcome::Submit | Outcome::Elaborate => {
            let reported: Vec<Reported> = spec
                .questions
                .iter()
                .zip(answers)
                .map(|(q, a)| Reported {
                    label: q.label.clone(),
                    answer: answer_text(&chosen_labels(q, a), custom_text(a)),
                    note: None,
                })
                .collect();
            result_lines(&reported)
        }
    }
}

/// Whether `value` has the shape of a reply: `answers` a list.
pub fn is_reply(value: &Value) -> bool {
    value.get("answers").is_some_and(Value::is_array)
}

/// Parses an answer set in the shape of a reply: exactly one list per question, in order; in
/// each, option labels and at most one text of the user's own (on a question with the custom
/// row), never both on a single-select question.
pub fn parse_reply(spec: &FlowSpec, value: &Value) -> Result<Vec<Answer>, String> {
    let lists = value
        .get("answers")
        .and_then(Value::as_array)
        .ok_or("answers must be a list with one list per question")?;
    let count = spec.questions.len();
    if lists.len() != count {
        return Err(format!(
            "answers: expected {count} lists, one per question in order (got {})",
            lists.len()
        ));
    }
    spec.questions
        .iter()
        .zip(lists)
        .enumerate()
        .map(|(i, (q, list))| parse_list(spec, q, list, &format!("answers[{i}]")))
        .collect()
}

/// The answer of question `q` from its list.
fn parse_list(spec: &FlowSpec, q: &Question, list: &Value, at: &str) -> Result<Answer, String> {
    let items = list
        .as_array()
        .ok_or_else(|| format!("{at}: expected a list of strings"))?;
    let mut answer = Answer::default();
    for (j, item) in items.iter().enumerate() {
        let text = item
            .as_str()
            .ok_or_else(|| format!("{at}[{j}]: expected a string"))?;
        match q.options.iter().position(|o| o.label == text) {
            Some(row) if answer.selected.contains(&row) => {
                return Err(format!("{at}[{j}]: {} is given twice", quoted(text)));
            }
            Some(row) => answer.selected.push(row),
            None if !spec.has_custom_row(q) => {
                return Err(format!(
                    "{at}[{j}]: {} is not an option of question {}, which takes no text of its own",
                    quoted(text),
                    q.label
                ));
            }
            None if answer.custom_text.is_some() => {
                return Err(format!("{at}[{j}]: one text of the user's own at most"));
            }
            None if text.trim().is_empty() => {
                return Err(format!("{at}[{j}]: must not be blank"));
            }
            None => answer.custom_text = Some(text.to_owned()),
        }
    }
    let single = q.kind != QuestionType::Multi;
    if single
        && (answer.selected.len() > 1
            || (!answer.selected.is_empty() && answer.custom_text.is_some()))
    {
        return Err(format!(
            "{at}: question {} is single-select and takes one answer",
            q.label
        ));
    }
    Ok(answer)
}
