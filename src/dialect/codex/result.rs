//! What a finished `request_user_input` flow answers: the `ToolRequestUserInputResponse` a
//! host sends back for `item/tool/requestUserInput`, its transcript lines, and answer sets of
//! `submitAnswers` in that shape.
//!
//! The answers of a question, as Codex's own terminal writes them: the chosen option's label,
//! or `None of the above` for the row that answers none; then one `user_note: <text>` entry
//! holding what was typed, trimmed: the text of the `None of the above` row or of a free-text
//! question, then the question note, joined with a line break. A question left unanswered has
//! no entries.

use serde_json::{Map, Value, json};

use crate::core::{Answer, CancelReason, FlowSpec, HIDDEN, Outcome, Question, quoted};
use crate::dialect::codex::validate::OTHER_LABEL;
use crate::dialect::shape::{QUESTIONS, Reported, answer_text, call_line, result_lines};

/// The prefix of the entry that carries what the user typed.
pub const NOTE_PREFIX: &str = "user_note: ";
/// The name of the tool, on the transcript's call line.
pub const TOOL: &str = "request_user_input";

/// The response of a flow that did not submit (cancelled, aborted, without UI, invalid):
/// empty answers, what Codex itself substitutes for a client that answers nothing.
pub fn empty_response() -> Value {
    json!({ "answers": {} })
}

/// Trimmed text, `None` when blank.
fn trimmed(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|t| !t.is_empty())
}

/// What was typed for a question: the custom text, then the note, joined with a line break.
fn typed(a: &Answer) -> Option<String> {
    let parts: Vec<&str> = [trimmed(a.chosen_custom()), trimmed(a.note.as_deref())]
        .into_iter()
        .flatten()
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}

/// The answer entries of one question.
pub fn entries(q: &Question, a: &Answer) -> Vec<String> {
    let mut entries = Vec::with_capacity(2);
    match a.selected.first() {
        Some(&row) => entries.push(q.options[row].label.clone()),
        None if a.chosen_custom().is_some() && !q.options.is_empty() => {
            entries.push(OTHER_LABEL.to_owned())
        }
        None => {}
    }
    if let Some(text) = typed(a) {
        entries.push(format!("{NOTE_PREFIX}{text}"));
    }
    entries
}

/// `{ answers: { "<id>": { answers: [ … ] } } }`, one key per question id in the order asked;
/// questions that share an id (Codex does not forbid it) share its list, their entries in the
/// order asked, so that no answer is lost.
pub fn response(spec: &FlowSpec, answers: &[Answer]) -> Value {
    let mut map: Map<String, Value> = Map::new();
    for (q, a) in spec.questions.iter().zip(answers) {
        let entries = entries(q, a).into_iter().map(Value::String);
        match map.get_mut(&q.id).and_then(|v| v["answers"].as_array_mut()) {
            Some(list) => list.extend(entries),
            None => {
                map.insert(
                    q.id.clone(),
                    json!({ "answers": entries.collect::<Vec<_>>() }),
                );
            }
        }
    }
    json!({ "answers": map })
}

/// The result of a finished flow: the answers on submit, empty answers otherwise.
pub fn flow_result(spec: &FlowSpec, answers: &[Answer], outcome: Outcome) -> Value {
    match outcome {
        Outcome::Submit | Outcome::Elaborate => response(spec, answers),
        Outcome::Cancelled(_) | Outcome::Declined => empty_response(),
    }
}

/// The transcript call line: `request_user_input <n> question(s) (<labels>)`.
pub fn transcript_call(labels: &[&str]) -> String {
    call_line(TOOL, QUESTIONS, labels)
}

/// The transcript result: a line per question on submit (`[hidden]` for secret text), else
/// why the flow ended in words (`Cancelled`, `Cancelled (timed out)`, …).
pub fn transcript_result(spec: &FlowSpec, answers: &[Answer], outcome: Outcome) -> String {
    match outcome {
        Outcome::Cancelled(reason) => reason.words().to_owned(),
        Outcome::Declined => CancelReason::User.words().to_owned(),
        Outcome::Submit | Outcome::Elaborate => {
            let reported: Vec<Reported> = spec
                .questions
                .iter()
                .zip(answers)
                .map(|(q, a)| {
                    let shown = |text: Option<&str>| {
                        trimmed(text).map(|t| if q.secret { HIDDEN } else { t }.to_owned())
                    };
                    let labels: Vec<&str> = match (a.selected.first(), a.chosen_custom()) {
                        (Some(&row), _) => vec![q.options[row].label.as_str()],
                        (None, Some(_)) if !q.options.is_empty() => vec![OTHER_LABEL],
                        _ => Vec::new(),
                    };
                    let custom = shown(a.chosen_custom());
                    Reported {
                        label: q.label.clone(),
                        answer: answer_text(&labels, custom.as_deref()),
                        note: shown(a.note.as_deref()),
                    }
                })
                .collect();
            result_lines(&reported)
        }
    }
}

/// Whether `value` has the shape of a response: an `answers` object whose every member is an
/// object with an `answers` list.
pub fn is_response(value: &Value) -> bool {
    value
        .get("answers")
        .and_then(Value::as_object)
        .is_some_and(|answers| {
            answers
                .values()
                .all(|a| a.get("answers").is_some_and(Value::is_array))
        })
}

/// Parses an answer set in the shape of a response, the way the engine writes one: per
/// question id an option label (or `None of the above`, which needs a `user_note` entry), then
/// at most one `user_note: ` entry. Ids left out stay unanswered.
pub fn parse_response(spec: &FlowSpec, value: &Value) -> Result<Vec<Answer>, String> {
    let mut answers = vec![Answer::default(); spec.questions.len()];
    let given = value
        .get("answers")
        .and_then(Value::as_object)
        .ok_or("answers must be an object keyed by question id")?;
    for (id, entry) in given {
        let at = format!("answers.{id}.answers");
        let index = spec
            .questions
            .iter()
            .position(|q| &q.id == id)
            .ok_or_else(|| format!("answers.{id}: unknown question id {}", quoted(id)))?;
        let q = &spec.questions[index];
        let list = entry
            .get("answers")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{at}: expected a list of strings"))?;
        let mut texts = Vec::with_capacity(list.len());
        for (j, item) in list.iter().enumerate() {
            texts.push(
                item.as_str()
                    .ok_or_else(|| format!("{at}[{j}]: expected a string"))?,
            );
        }
        answers[index] = parse_entries(spec, q, &texts, &at)?;
    }
    Ok(answers)
}

/// The answer of question `q` from its entries.
fn parse_entries(
    spec: &FlowSpec,
    q: &Question,
    texts: &[&str],
    at: &str,
) -> Result<Answer, String> {
    let (choice, note) = match texts {
        [] => (None, None),
        [only] => match only.strip_prefix(NOTE_PREFIX) {
            Some(note) => (None, Some(note)),
            None => (Some(*only), None),
        },
        [choice, note] => match note.strip_prefix(NOTE_PREFIX) {
            Some(note) => (Some(*choice), Some(note)),
            None => {
                return Err(format!(
                    "{at}[1]: expected an entry starting with {}",
                    quoted(NOTE_PREFIX)
                ));
            }
        },
        _ => {
            return Err(format!(
                "{at}: expected an option label and at most one {} entry",
                quoted(NOTE_PREFIX)
            ));
        }
    };
    let mut answer = Answer::default();
    let other = spec.has_custom_row(q) && !q.options.is_empty();
    match choice {
        None if q.options.is_empty() => {
            answer.custom_text = note.filter(|t| !t.trim().is_empty()).map(str::to_owned);
            return Ok(answer);
        }
        None => {}
        Some(OTHER_LABEL) if other => {
            let text = note.filter(|t| !t.trim().is_empty()).ok_or_else(|| {
                format!(
                    "{at}: {} needs the text of the answer as a {} entry",
                    quoted(OTHER_LABEL),
                    quoted(NOTE_PREFIX)
                )
            })?;
            answer.custom_text = Some(text.to_owned());
            return Ok(answer);
        }
        Some(label) => {
            let row = q
                .options
                .iter()
                .position(|o| o.label == label)
                .ok_or_else(|| {
                    format!(
                        "{at}[0]: {} is not an option of question {}",
                        quoted(label),
                        quoted(&q.id)
                    )
                })?;
            answer.selected.push(row);
        }
    }
    if let Some(note) = note {
        answer.set_note(note);
    }
    Ok(answer)
}
