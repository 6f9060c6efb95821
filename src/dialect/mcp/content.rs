//! The answers of an elicitation form as `content`: each answered property's value typed as its
//! schema says (a string, a JSON number, a boolean, a list of strings); the transcript lines;
//! and answer sets of `submitAnswers` in the shape of an `ElicitResult`.

use serde_json::{Map, Value, json};

use crate::core::{Answer, FlowSpec, Outcome, Question, quoted};
use crate::dialect::mcp::check::parse_number;
use crate::dialect::mcp::form::{Fields, Kind};
use crate::dialect::shape::{Reported, answer_text, result_lines};

/// The value of option `row` of a boolean question.
pub const TRUE: &str = "true";

/// What an mcp flow keeps of a URL elicitation, as its
/// [`FlowSpec::source`](crate::core::FlowSpec::source): accepting it answers no content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlElicitation {
    /// The URL to open, as the request gave it.
    pub url: String,
    /// Its host, shown before the person agrees.
    pub host: String,
    /// The request's `elicitationId`.
    pub elicitation_id: String,
}

/// The typed text, trimmed, when it is not blank.
fn typed(a: &Answer) -> Option<&str> {
    a.chosen_custom().map(str::trim).filter(|t| !t.is_empty())
}

/// The chosen rows in option order.
fn rows(a: &Answer) -> Vec<usize> {
    let mut rows = a.selected.clone();
    rows.sort_unstable();
    rows
}

/// The value of one answered question, typed as its property (`kind`) says; `None` when
/// unanswered.
fn value(kind: &Kind, q: &Question, a: &Answer) -> Option<Value> {
    if !a.is_answered() {
        return None;
    }
    let option_value = |row: usize| q.options[row].value.clone();
    Some(match *kind {
        Kind::Text { .. } => Value::String(typed(a)?.to_owned()),
        Kind::Number { integer, .. } => {
            let n = parse_number(typed(a)?)?;
            match (integer, n.as_f64()) {
                (true, Some(f)) if !n.is_i64() && !n.is_u64() => json!(f as i64),
                _ => Value::Number(n),
            }
        }
        Kind::Boolean { .. } => Value::Bool(q.options[*a.selected.first()?].value == TRUE),
        Kind::One { .. } => Value::String(option_value(*a.selected.first()?)),
        Kind::Many { .. } => Value::Array(
            rows(a)
                .into_iter()
                .map(|row| Value::String(option_value(row)))
                .collect(),
        ),
        Kind::Blocked { .. } => return None,
    })
}

/// `{ action: "accept", content }`: every answered property, in the order of the schema.
pub fn accept(spec: &FlowSpec, answers: &[Answer]) -> Value {
    let content: Map<String, Value> = spec
        .questions
        .iter()
        .zip(answers)
        .enumerate()
        .filter_map(|(index, (q, a))| Some((q.id.clone(), value(Fields::of(spec, index)?, q, a)?)))
        .collect();
    json!({ "action": "accept", "content": content })
}

/// `{ action }` alone: `decline` or `cancel`.
pub fn action(name: &str) -> Value {
    json!({ "action": name })
}

/// The result of a finished flow: accept with the content (without any for a URL
/// elicitation), decline, or cancel.
pub fn flow_result(spec: &FlowSpec, answers: &[Answer], outcome: Outcome) -> Value {
    match outcome {
        Outcome::Submit | Outcome::Elaborate if spec.kept::<UrlElicitation>().is_some() => {
            action("accept")
        }
        Outcome::Submit | Outcome::Elaborate => accept(spec, answers),
        Outcome::Declined => action("decline"),
        Outcome::Cancelled(_) => action("cancel"),
    }
}

/// The transcript result: a line per field on accept, else `Declined`, or why the flow was
/// cancelled in words (`Cancelled`, `Cancelled (timed out)`, …).
pub fn transcript_result(spec: &FlowSpec, answers: &[Answer], outcome: Outcome) -> String {
    match outcome {
        Outcome::Declined => "Declined".to_owned(),
        Outcome::Cancelled(reason) => reason.words().to_owned(),
        Outcome::Submit | Outcome::Elaborate if spec.questions.is_empty() => "Accepted".to_owned(),
        Outcome::Submit | Outcome::Elaborate => {
            let reported: Vec<Reported> = spec
                .questions
                .iter()
                .zip(answers)
                .map(|(q, a)| {
                    let labels: Vec<&str> = rows(a)
                        .into_iter()
                        .map(|row| q.options[row].label.as_str())
                        .collect();
                    Reported {
                        label: q.label.clone(),
                        answer: answer_text(&labels, None).or_else(|| typed(a).map(str::to_owned)),
                        note: None,
                    }
                })
                .collect();
            result_lines(&reported)
        }
    }
}

/// Whether `value` has the shape of an `ElicitResult`: an `action` string.
pub fn is_elicit_result(value: &Value) -> bool {
    value.get("action").is_some_and(Value::is_string)
}

/// Parses an `ElicitResult` with `action: "accept"`: per property its value, typed as the
/// schema says (a string, a number, a boolean, one of the enumeration's values, a list of
/// them). Properties left out stay unanswered; the flow's checks then run on the whole set.
pub fn parse_elicit_result(spec: &FlowSpec, value: &Value) -> Result<Vec<Answer>, String> {
    match value.get("action").and_then(Value::as_str) {
        Some("accept") => {}
        Some(other) => {
            return Err(format!(
                "answers.action: {} carries no answers; use cancel with reason \"decline\" or \"user\"",
                quoted(other)
            ));
        }
        None => return Err("answers.action must be \"accept\"".to_owned()),
    }
    for key in value.as_object().into_iter().flat_map(Map::keys) {
        if key != "action" && key != "content" && key != "_meta" {
            return Err(format!("answers: unknown field {}", quoted(key)));
        }
    }
    let mut answers: Vec<Answer> = vec![Answer::default(); spec.questions.len()];
    let Some(content) = value.get("content").filter(|c| !c.is_null()) else {
        return Ok(answers);
    };
    let content = content
        .as_object()
        .ok_or("answers.content must be an object keyed by property")?;
    for (key, given) in content {
        let at = format!("answers.content.{key}");
        let index = spec
            .questions
            .iter()
            .position(|q| &q.id == key)
            .ok_or_else(|| format!("{at}: {} is not a property of the form", quoted(key)))?;
        let q = &spec.questions[index];
        let kind =
            Fields::of(spec, index).ok_or_else(|| format!("{at}: the property has no schema"))?;
        answers[index] = parse_value(q, kind, given, &at)?;
    }
    Ok(answers)
}

/// The answer of `q` from its value in `content`.
fn parse_value(q: &Question, kind: &Kind, given: &Value, at: &str) -> Result<Answer, String> {
    let row_of = |value: &str| {
        q.options
            .iter()
            .position(|o| o.value == value)
            .ok_or_else(|| format!("{at}: {} is not one of the values offered", quoted(value)))
    };
    let mut answer = Answer::default();
    match (kind, given) {
        (Kind::Text { .. }, Value::String(text)) if text.trim().is_empty() => {
            return Err(format!("{at}: must not be blank (leave the property out)"));
        }
        (Kind::Text { .. }, Value::String(text)) => answer.custom_text = Some(text.clone()),
        (Kind::Number { .. }, Value::Number(n)) => answer.custom_text = Some(n.to_string()),
        (Kind::Boolean { .. }, Value::Bool(flag)) => {
            answer
                .selected
                .push(row_of(if *flag { TRUE } else { "false" })?)
        }
        (Kind::One { .. }, Value::String(text)) => answer.selected.push(row_of(text)?),
        (Kind::Many { .. }, Value::Array(items)) => {
            for (j, item) in items.iter().enumerate() {
                let text = item
                    .as_str()
                    .ok_or_else(|| format!("{at}[{j}]: expected a string"))?;
                let row = row_of(text)?;
                if answer.selected.contains(&row) {
                    return Err(format!("{at}[{j}]: {} is given twice", quoted(text)));
                }
                answer.selected.push(row);
            }
        }
        (Kind::Blocked { reason, .. }, _) => {
            return Err(format!("{at}: the field takes no value: {reason}"));
        }
        (kind, _) => {
            let expected = match kind {
                Kind::Text { .. } | Kind::One { .. } => "a string",
                Kind::Number { .. } => "a number",
                Kind::Boolean { .. } => "a boolean",
                Kind::Many { .. } | Kind::Blocked { .. } => "a list of strings",
            };
            return Err(format!("{at}: expected {expected}"));
        }
    }
    Ok(answer)
}
