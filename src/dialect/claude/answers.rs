//! Answer sets of `submitAnswers` in the shape a host returns to Claude Code: `{ answers: {
//! "<question>": "<answer>" }, annotations?: { "<question>": { notes? } } }` (the `questions`
//! and `metadata` of an `updatedInput` may come along and are not read).

use serde_json::{Map, Value};

use crate::core::{Answer, FlowSpec, Question, QuestionType, quoted};
use crate::dialect::claude::result::NOTES_ONLY;

/// Whether `value` has the shape of this module's answer sets: an `answers` object whose every
/// member is a string or a list.
pub fn is_native(value: &Value) -> bool {
    value
        .get("answers")
        .and_then(Value::as_object)
        .is_some_and(|answers| answers.values().all(|a| a.is_string() || a.is_array()))
}

/// Parses an answer set keyed by question text, checking every field; the error names it.
pub fn parse(spec: &FlowSpec, value: &Value) -> Result<Vec<Answer>, String> {
    let Some(root) = value.as_object() else {
        return Err("answers must be an object".to_owned());
    };
    for key in root.keys() {
        if !["answers", "annotations", "questions", "metadata"].contains(&key.as_str()) {
            return Err(format!("unknown field {}", quoted(key)));
        }
    }
    let mut answers: Vec<Answer> = vec![Answer::default(); spec.questions.len()];
    let texts = root
        .get("answers")
        .and_then(Value::as_object)
        .ok_or("answers.answers must be an object keyed by question text")?;
    for (text, given) in texts {
        let at = format!("answers.{text}");
        let index = question_index(spec, text, &at)?;
        answers[index] = parse_answer(&spec.questions[index], given, &at)?;
    }
    if let Some(annotations) = root.get("annotations").filter(|a| !a.is_null()) {
        let annotations = annotations
            .as_object()
            .ok_or("annotations must be an object keyed by question text")?;
        for (text, annotation) in annotations {
            let at = format!("annotations.{text}");
            let index = question_index(spec, text, &at)?;
            parse_annotation(&mut answers[index], annotation, &at)?;
        }
    }
    Ok(answers)
}

/// The index of the question asked as `text`.
fn question_index(spec: &FlowSpec, text: &str, at: &str) -> Result<usize, String> {
    spec.questions
        .iter()
        .position(|q| q.id == text)
        .ok_or_else(|| format!("{at}: {} is not a question of this request", quoted(text)))
}

/// One answer: a label, or any other text as the typed answer; on a multi-select question a
/// list, or entries joined with `, ` (an entry written as a JSON string literal taken as one);
/// `(notes only)` selects nothing.
fn parse_answer(q: &Question, given: &Value, at: &str) -> Result<Answer, String> {
    let entries: Vec<String> = match given {
        Value::String(text) if text == NOTES_ONLY => Vec::new(),
        Value::String(text) if q.kind == QuestionType::Multi => split(text)
            .ok_or_else(|| format!("{at}: an entry starting with \" is not a JSON string"))?,
        Value::String(text) => vec![text.clone()],
        Value::Array(items) if q.kind == QuestionType::Multi => items
            .iter()
            .enumerate()
            .map(|(j, item)| {
                item.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("{at}[{j}]: expected a string"))
            })
            .collect::<Result<_, _>>()?,
        Value::Array(_) => {
            return Err(format!(
                "{at}: question {} is single-select and takes one string",
                quoted(&q.id)
            ));
        }
        _ => return Err(format!("{at}: expected a string")),
    };
    let mut answer = Answer::default();
    let mut typed: Vec<String> = Vec::new();
    for entry in entries {
        match q.options.iter().position(|o| o.label == entry) {
            Some(row) if answer.selected.contains(&row) => {
                return Err(format!("{at}: {} is given twice", quoted(&entry)));
            }
            Some(row) => answer.selected.push(row),
            None if entry.trim().is_empty() => {}
            None => typed.push(entry),
        }
    }
    if q.kind != QuestionType::Multi && !answer.selected.is_empty() && !typed.is_empty() {
        return Err(format!(
            "{at}: question {} is single-select; give a label or a text of your own",
            quoted(&q.id)
        ));
    }
    if !typed.is_empty() {
        answer.custom_text = Some(typed.join(", "));
    }
    Ok(answer)
}

/// Entries joined with `, `, as Claude Code splits them: an entry that starts with `"` is a
/// JSON string literal; `None` when such an entry does not parse.
pub fn split(text: &str) -> Option<Vec<String>> {
    let mut entries = Vec::new();
    let mut rest = text;
    loop {
        if rest.starts_with('"') {
            let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<String>();
            let entry = stream.next()?.ok()?;
            rest = &rest[stream.byte_offset()..];
            entries.push(entry);
            match rest.strip_prefix(", ") {
                Some(after) => rest = after,
                None if rest.is_empty() => return Some(entries),
                None => return None,
            }
        } else {
            match rest.split_once(", ") {
                Some((entry, after)) => {
                    entries.push(entry.to_owned());
                    rest = after;
                }
                None => {
                    entries.push(rest.to_owned());
                    return Some(entries);
                }
            }
        }
    }
}

/// An annotation: `notes` becomes the question note; `preview` and `unanswered` are what the
/// engine writes itself and are not read.
fn parse_annotation(answer: &mut Answer, annotation: &Value, at: &str) -> Result<(), String> {
    let fields: &Map<String, Value> = annotation
        .as_object()
        .ok_or_else(|| format!("{at}: expected an object"))?;
    for (key, value) in fields {
        match key.as_str() {
            "notes" => {
                let notes = value
                    .as_str()
                    .ok_or_else(|| format!("{at}.notes: expected a string"))?;
                answer.set_note(notes);
            }
            "preview" | "unanswered" => {}
            other => return Err(format!("{at}: unknown field {}", quoted(other))),
        }
    }
    Ok(())
}
