//! Whole answer sets collected outside the flow (a form, a quick-pick), as `submitAnswers`
//! receives them, checked against the flow's questions and turned into answers.

use serde_json::{Map, Value};

use crate::core::{Answer, FlowSpec, OptionItem, QuestionType, quoted};

/// Parses a pi answer set `{ <questionId>: { values?, customText?, note?, optionNotes? } }`.
/// Questions it does not name are left unanswered. Every error names the offending field.
pub fn parse_answers(spec: &FlowSpec, value: &Value) -> Result<Vec<Answer>, String> {
    let entries = value
        .as_object()
        .ok_or("answers must be an object keyed by question id")?;
    let mut answers = vec![Answer::default(); spec.questions.len()];
    for (id, entry) in entries {
        let path = format!("answers.{id}");
        let index = spec
            .questions
            .iter()
            .position(|q| &q.id == id)
            .ok_or_else(|| format!("{path}: unknown question id {}", quoted(id)))?;
        let question = &spec.questions[index];
        let entry = entry
            .as_object()
            .ok_or_else(|| format!("{path}: expected an object"))?;
        let answer = &mut answers[index];
        for (field, v) in entry {
            let at = format!("{path}.{field}");
            match field.as_str() {
                "values" => {
                    let list = v
                        .as_array()
                        .ok_or_else(|| format!("{at}: expected a list of option values"))?;
                    for (j, item) in list.iter().enumerate() {
                        let value = item
                            .as_str()
                            .ok_or_else(|| format!("{at}[{j}]: expected a string"))?;
                        let option = question
                            .options
                            .iter()
                            .position(|o| o.value == value)
                            .ok_or_else(|| {
                                format!(
                                    "{at}[{j}]: {} is not an option value of question {}",
                                    quoted(value),
                                    quoted(id)
                                )
                            })?;
                        if answer.selected.contains(&option) {
                            return Err(format!("{at}[{j}]: {} is listed twice", quoted(value)));
                        }
                        answer.selected.push(option);
                    }
                    if question.kind != QuestionType::Multi && answer.selected.len() > 1 {
                        return Err(format!(
                            "{at}: question {} is {} and takes one value at most",
                            quoted(id),
                            question.kind.as_str()
                        ));
                    }
                }
                "customText" => {
                    let text = string_field(v, &at)?;
                    if !spec.has_custom_row(question) {
                        let what = if question.kind == QuestionType::Preview {
                            "is a preview question"
                        } else {
                            "has no custom row"
                        };
                        return Err(format!(
                            "{at}: question {} {what} and takes no custom text",
                            quoted(id)
                        ));
                    }
                    answer.custom_text = (!text.trim().is_empty()).then(|| text.to_owned());
                }
                "note" => answer.set_note(string_field(v, &at)?),
                "optionNotes" => {
                    let notes = v
                        .as_object()
                        .ok_or_else(|| format!("{at}: expected an object keyed by option value"))?;
                    parse_option_notes(&question.options, notes, &at, id, answer)?;
                }
                other => return Err(format!("{path}: unknown field {}", quoted(other))),
            }
        }
    }
    Ok(answers)
}

fn parse_option_notes(
    options: &[OptionItem],
    notes: &Map<String, Value>,
    at: &str,
    id: &str,
    answer: &mut Answer,
) -> Result<(), String> {
    for (value, note) in notes {
        let option = options
            .iter()
            .position(|o| &o.value == value)
            .ok_or_else(|| {
                format!(
                    "{at}: {} is not an option value of question {}",
                    quoted(value),
                    quoted(id)
                )
            })?;
        answer.set_option_note(option, string_field(note, &format!("{at}.{value}"))?);
    }
    Ok(())
}

fn string_field<'a>(v: &'a Value, at: &str) -> Result<&'a str, String> {
    v.as_str().ok_or_else(|| format!("{at}: expected a string"))
}
