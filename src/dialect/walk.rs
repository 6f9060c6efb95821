//! Walking the arrays of objects a question tool's request holds (its questions, a question's
//! options) while collecting issues in the style of [`shape`](super::shape): an item that is not
//! an object, a text that repeats an earlier one's, and the option fields the tools share.
//!
//! Issues come in the order met: an item's own, then those of the objects it holds, item by item.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::core::{Issue, OptionItem, Question, quoted};
use crate::dialect::shape::{Place, non_blank};

/// The items of `items` that validate, each mapped by `check` from its object at `place(index)`.
/// An item that is not an object is `<prefix>: must be an object`; an item whose check records
/// an issue (its own, or one of the objects it holds) is left out.
pub fn objects<'a, T>(
    items: &'a [Value],
    place: impl Fn(usize) -> Place,
    issues: &mut Vec<Issue>,
    mut check: impl FnMut(&'a Map<String, Value>, &Place, usize, &mut Vec<Issue>) -> Option<T>,
) -> Vec<T> {
    let mut mapped = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let place = place(index);
        let Some(object) = item.as_object() else {
            place.report_self(issues, "must be an object");
            continue;
        };
        let before = issues.len();
        let item = check(object, &place, index, issues);
        if issues.len() == before
            && let Some(item) = item
        {
            mapped.push(item);
        }
    }
    mapped
}

/// The questions `items` of a request, each mapped by `check` from its object at
/// `questions[index]`; or, when the request (`issues` holds what was found before its questions)
/// or any question has an issue, every issue.
pub fn questions<'a>(
    items: &'a [Value],
    mut issues: Vec<Issue>,
    check: impl FnMut(&'a Map<String, Value>, &Place, usize, &mut Vec<Issue>) -> Option<Question>,
) -> Result<Vec<Question>, Vec<Issue>> {
    let questions = objects(items, Place::question, &mut issues, check);
    if issues.is_empty() {
        Ok(questions)
    } else {
        Err(issues)
    }
}

/// A required, non-blank string field that no two objects of one array may share (a question's
/// `id`, an option's `label`), compared exactly as given.
pub struct Unique<'a> {
    /// The field's key.
    key: &'static str,
    /// What a message calls the field, e.g. `question id`.
    noun: &'static str,
    /// The texts of the objects met so far.
    seen: HashSet<&'a str>,
}

impl<'a> Unique<'a> {
    /// The field `key`, called `noun` in messages, before any object is met.
    pub fn new(key: &'static str, noun: &'static str) -> Unique<'a> {
        Unique {
            key,
            noun,
            seen: HashSet::new(),
        }
    }

    /// Notes `text`, the field of the object at `place` (read by the caller, blank or not):
    /// a text an earlier object had is `<prefix>: duplicate <noun> "<text>"`.
    pub fn note(&mut self, place: &Place, text: &'a str, issues: &mut Vec<Issue>) {
        if !self.seen.insert(text) {
            let what = format!("duplicate {} {}", self.noun, quoted(text));
            place.report(issues, self.key, &what);
        }
    }
}

/// The options `items` of the question at `question`, as every question tool has them: `label`
/// and `description` strings (a label may be empty; it is shown and answered exactly as given,
/// and the description kept when not blank); `label` checks what the dialect adds of a label
/// right after it is read, and `preview` reads what the dialect keeps as the option's preview,
/// each recording its issues.
pub fn options<'a>(
    items: &'a [Value],
    question: &Place,
    issues: &mut Vec<Issue>,
    mut label: impl FnMut(&Place, &'a str, &mut Vec<Issue>),
    mut preview: impl FnMut(&'a Map<String, Value>, &Place, &mut Vec<Issue>) -> Option<String>,
) -> Vec<OptionItem> {
    objects(
        items,
        |index| question.option(index),
        issues,
        |object, place, _, issues| {
            let text = place.string(object, "label", issues);
            if let Some(text) = text {
                label(place, text, issues);
            }
            let description = place.string(object, "description", issues);
            let preview = preview(object, place, issues);
            let label = text;
            let label = label?;
            Some(OptionItem {
                value: label.to_owned(),
                label: label.to_owned(),
                description: non_blank(description),
                preview,
            })
        },
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::dialect::shape::issue;

    #[test]
    fn an_item_with_an_issue_is_left_out_and_a_repeated_text_is_named() {
        let items = json!([{ "id": "a" }, { "id": 1 }, 7, { "id": "a" }, { "id": "" }]);
        let mut ids = Unique::new("id", "question id");
        let mut issues = Vec::new();
        let kept = objects(
            items.as_array().unwrap(),
            Place::question,
            &mut issues,
            |object, place, index, issues| {
                let id = place.string(object, "id", issues)?;
                ids.note(place, id, issues);
                Some((index, id))
            },
        );
        assert_eq!(kept, [(0, "a"), (4, "")]);
        assert_eq!(
            issues,
            [
                issue("questions[1].id", "Question 2: id must be a string"),
                issue("questions[2]", "Question 3: must be an object"),
                issue("questions[3].id", "Question 4: duplicate question id \"a\""),
            ]
        );
    }
}
