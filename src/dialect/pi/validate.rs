//! Validation and normalisation of `ask_user` payloads (the pi dialect).
//!
//! The payload arrives as arbitrary JSON. Every problem is collected as an [`Issue`] in a fixed
//! order; only a payload without any issue is normalised into a [`FlowSpec`].

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::core::{
    Answer, Behaviour, CustomRow, FlowSpec, Issue, OptionItem, Question, QuestionType,
};
use crate::dialect::pi::RULES;

/// Validates and normalises an `ask_user` payload given as arbitrary JSON.
///
/// Returns every issue found, in the documented order, when the payload is invalid.
pub fn validate(payload: &Value) -> Result<FlowSpec, Vec<Issue>> {
    let mut issues = Vec::new();
    let Some(root) = payload.as_object() else {
        issues.push(issue("payload", "payload must be an object".to_owned()));
        return Err(issues);
    };

    let title = match Field::of(root, "title") {
        Field::Absent => None,
        Field::Text(text) => Some(text.to_owned()),
        Field::Other(_) => {
            issues.push(issue("title", "title must be a string".to_owned()));
            None
        }
    };

    let mut questions = Vec::new();
    match Field::of(root, "questions") {
        Field::Other(Value::Array(items)) if !items.is_empty() => {
            let mut seen_ids = HashSet::new();
            for (index, item) in items.iter().enumerate() {
                if let Some(question) = check_question(item, index, &mut seen_ids, &mut issues) {
                    questions.push(question);
                }
            }
        }
        Field::Absent | Field::Other(Value::Array(_)) => issues.push(issue(
            "questions",
            "At least one question is required".to_owned(),
        )),
        Field::Text(_) | Field::Other(_) => {
            issues.push(issue("questions", "questions must be an array".to_owned()))
        }
    }

    if issues.is_empty() {
        Ok(FlowSpec {
            title,
            questions,
            rules: RULES,
            requester: None,
            source: None,
            behaviour: Behaviour::default(),
        })
    } else {
        Err(issues)
    }
}

/// The payload's title as the invalid-input result reports it: `Some(title)` when `title` is a
/// string (as given), else `None`.
pub fn raw_title(payload: &Value) -> Option<String> {
    payload
        .get("title")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// One field of a JSON object, classified by what validation needs to know about it.
enum Field<'a> {
    /// Missing or JSON null.
    Absent,
    /// A string, as given.
    Text(&'a str),
    /// Any other JSON value.
    Other(&'a Value),
}

impl<'a> Field<'a> {
    /// Classifies `object[key]`.
    fn of(object: &'a Map<String, Value>, key: &str) -> Self {
        match object.get(key) {
            None | Some(Value::Null) => Field::Absent,
            Some(Value::String(text)) => Field::Text(text),
            Some(other) => Field::Other(other),
        }
    }
}

/// Where an object sits and how its messages are prefixed.
struct Place {
    /// Path of the object, e.g. `questions[0].options[1]`.
    path: String,
    /// Message prefix, e.g. `Question 1, option 2`.
    prefix: String,
}

impl Place {
    /// Records `what` about the field `key` of this object.
    fn report(&self, issues: &mut Vec<Issue>, key: &str, what: &str) {
        issues.push(issue(
            &format!("{}.{key}", self.path),
            format!("{}: {what}", self.prefix),
        ));
    }

    /// A required string field: present, a string, and non-blank; returns it trimmed.
    fn required<'a>(
        &self,
        object: &'a Map<String, Value>,
        key: &str,
        issues: &mut Vec<Issue>,
    ) -> Option<&'a str> {
        match Field::of(object, key) {
            Field::Text(text) if !text.trim().is_empty() => Some(text.trim()),
            Field::Absent | Field::Text(_) => {
                self.report(issues, key, &format!("{key} is required"));
                None
            }
            Field::Other(_) => {
                self.report(issues, key, &format!("{key} must be a string"));
                None
            }
        }
    }

    /// An optional string field: absent, or a non-blank string; returns `Ok(Some(trimmed))` when
    /// given, `Ok(None)` when absent, and `Err(())` after recording an issue.
    fn optional<'a>(
        &self,
        object: &'a Map<String, Value>,
        key: &str,
        issues: &mut Vec<Issue>,
    ) -> Result<Option<&'a str>, ()> {
        match Field::of(object, key) {
            Field::Absent => Ok(None),
            Field::Text(text) if !text.trim().is_empty() => Ok(Some(text.trim())),
            Field::Text(_) => {
                self.report(issues, key, &format!("{key} must not be empty"));
                Err(())
            }
            Field::Other(_) => {
                self.report(issues, key, &format!("{key} must be a string"));
                Err(())
            }
        }
    }
}

/// Validates question `index` (0-based), recording issues; returns it normalised when it has none.
fn check_question<'a>(
    item: &'a Value,
    index: usize,
    seen_ids: &mut HashSet<&'a str>,
    issues: &mut Vec<Issue>,
) -> Option<Question> {
    let number = index + 1;
    let place = Place {
        path: format!("questions[{index}]"),
        prefix: format!("Question {number}"),
    };
    let Some(object) = item.as_object() else {
        issues.push(issue(
            &place.path,
            format!("{}: must be an object", place.prefix),
        ));
        return None;
    };
    let before = issues.len();

    let kind = match object.get("type") {
        None | Some(Value::Null) => Some(QuestionType::Single),
        Some(Value::String(name)) if name == "single" => Some(QuestionType::Single),
        Some(Value::String(name)) if name == "multi" => Some(QuestionType::Multi),
        Some(Value::String(name)) if name == "preview" => Some(QuestionType::Preview),
        Some(other) => {
            let what = format!(
                "invalid type {}; expected \"single\", \"multi\", or \"preview\"",
                encode(other)
            );
            place.report(issues, "type", &what);
            None
        }
    };

    let id = place.required(object, "id", issues);
    if let Some(id) = id
        && !seen_ids.insert(id)
    {
        place.report(
            issues,
            "id",
            &format!("duplicate question id {}", encode_str(id)),
        );
    }

    let label = place.optional(object, "label", issues);
    let prompt = place.required(object, "prompt", issues);

    let required = match object.get("required") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => *flag,
        Some(_) => {
            place.report(issues, "required", "required must be a boolean");
            false
        }
    };

    let is_preview = kind == Some(QuestionType::Preview);
    let mut options = Vec::new();
    match Field::of(object, "options") {
        Field::Other(Value::Array(items)) if !items.is_empty() => {
            let mut seen_values = HashSet::new();
            for (option_index, option) in items.iter().enumerate() {
                if let Some(option) = check_option(
                    option,
                    &place,
                    number,
                    option_index,
                    is_preview,
                    &mut seen_values,
                    issues,
                ) {
                    options.push(option);
                }
            }
        }
        Field::Absent | Field::Other(Value::Array(_)) => {
            place.report(issues, "options", "at least one option is required");
        }
        Field::Text(_) | Field::Other(_) => {
            place.report(issues, "options", "options must be an array");
        }
    }

    if issues.len() != before {
        return None;
    }
    Some(Question {
        id: id?.to_owned(),
        label: label
            .ok()?
            .map_or_else(|| format!("Q{number}"), str::to_owned),
        prompt: prompt?.to_owned(),
        kind: kind?,
        asked: None,
        required,
        options,
        detail: None,
        intent: None,
        custom_row: CustomRow::Standard,
        secret: false,
        initial: Answer::default(),
    })
}

/// Validates option `index` (0-based) of question `number` (1-based), recording issues; returns
/// it normalised when it has none.
fn check_option<'a>(
    item: &'a Value,
    question: &Place,
    number: usize,
    index: usize,
    is_preview: bool,
    seen_values: &mut HashSet<&'a str>,
    issues: &mut Vec<Issue>,
) -> Option<OptionItem> {
    let place = Place {
        path: format!("{}.options[{index}]", question.path),
        prefix: format!("Question {number}, option {}", index + 1),
    };
    let Some(object) = item.as_object() else {
        issues.push(issue(
            &place.path,
            format!("{}: must be an object", place.prefix),
        ));
        return None;
    };
    let before = issues.len();

    let value = place.required(object, "value", issues);
    if let Some(value) = value
        && !seen_values.insert(value)
    {
        place.report(
            issues,
            "value",
            &format!("duplicate option value {}", encode_str(value)),
        );
    }

    let label = place.required(object, "label", issues);
    let description = place.optional(object, "description", issues);
    let preview = place.optional(object, "preview", issues);
    // On a preview question a missing or blank preview also gets the fix hint: a blank one is
    // reported twice at the same path, "must not be empty" first.
    if is_preview
        && match Field::of(object, "preview") {
            Field::Absent => true,
            Field::Text(text) => text.trim().is_empty(),
            Field::Other(_) => false,
        }
    {
        place.report(issues, "preview", PREVIEW_REQUIRED);
    }

    if issues.len() != before {
        return None;
    }
    Some(OptionItem {
        value: value?.to_owned(),
        label: label?.to_owned(),
        description: description.ok()?.map(str::to_owned),
        preview: preview.ok()?.map(str::to_owned),
    })
}

/// The fix hint given for a preview-question option without preview text.
const PREVIEW_REQUIRED: &str = "preview questions require preview text for every option; \
    add preview text or use type \"single\" instead";

/// Builds an issue.
fn issue(path: &str, message: String) -> Issue {
    Issue {
        path: path.to_owned(),
        message,
    }
}

/// Most nested arrays/objects rendered in full by [`encode`]. JSON text read by `serde_json`
/// never nests this deeply; rendering deeper values built in memory could exhaust the stack.
const MAX_ENCODED_DEPTH: usize = 128;

/// Any JSON value, JSON-encoded; a value with more than [`MAX_ENCODED_DEPTH`] nested
/// arrays/objects is shown as `[...]` or `{...}`.
fn encode(value: &Value) -> String {
    if nests_deeper_than(value, MAX_ENCODED_DEPTH) {
        let shown = if value.is_array() { "[...]" } else { "{...}" };
        return shown.to_owned();
    }
    serde_json::to_string(value).unwrap_or_default()
}

/// Whether more than `limit` arrays/objects nest inside one another in `value` (checked without
/// recursion).
fn nests_deeper_than(value: &Value, limit: usize) -> bool {
    let mut pending = vec![(value, 1_usize)];
    while let Some((value, depth)) = pending.pop() {
        let children: Vec<&Value> = match value {
            Value::Array(items) => items.iter().collect(),
            Value::Object(fields) => fields.values().collect(),
            _ => continue,
        };
        if depth > limit {
            return true;
        }
        pending.extend(children.into_iter().map(|child| (child, depth + 1)));
    }
    false
}

/// A string, JSON-encoded.
fn encode_str(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn expected(pairs: &[(&str, &str)]) -> Vec<Issue> {
        pairs
            .iter()
            .map(|(path, message)| issue(path, (*message).to_owned()))
            .collect()
    }

    fn invalid_type(number: usize, encoded: &str) -> String {
        format!(
            "Question {number}: invalid type {encoded}; \
             expected \"single\", \"multi\", or \"preview\""
        )
    }

    fn errors(payload: Value) -> Vec<Issue> {
        validate(&payload).expect_err("payload should be invalid")
    }

    fn valid(payload: Value) -> FlowSpec {
        validate(&payload).expect("payload should be valid")
    }

    /// A payload with one question made of `question`, completed with a valid option list when
    /// `question` has none.
    fn one(mut question: Value) -> Value {
        let object = question.as_object_mut().expect("question object");
        object
            .entry("options")
            .or_insert_with(|| json!([{ "value": "a", "label": "A" }]));
        json!({ "questions": [question] })
    }

    /// A payload with one question (id `q`, prompt `P?`) holding `options`.
    fn with_options(options: Value) -> Value {
        json!({ "questions": [{ "id": "q", "prompt": "P?", "options": options }] })
    }

    /// Same as [`with_options`], on a preview question.
    fn preview_with(options: Value) -> Value {
        json!({ "questions": [{
            "id": "q", "prompt": "P?", "type": "preview", "options": options
        }] })
    }

    // One test per row of the table.

    #[test]
    fn row_questions_required() {
        let want = expected(&[("questions", "At least one question is required")]);
        assert_eq!(errors(json!({})), want);
        assert_eq!(errors(json!({ "questions": [] })), want);
        assert_eq!(errors(json!({ "questions": null })), want);
    }

    #[test]
    fn row_invalid_type() {
        assert_eq!(
            errors(one(json!({ "id": "q", "prompt": "P?", "type": "grid" }))),
            expected(&[(
                "questions[0].type",
                "Question 1: invalid type \"grid\"; expected \"single\", \"multi\", or \"preview\"",
            )])
        );
    }

    #[test]
    fn type_is_not_trimmed_nor_case_folded() {
        assert_eq!(
            errors(one(json!({ "id": "q", "prompt": "P?", "type": " Multi" }))),
            expected(&[("questions[0].type", &invalid_type(1, "\" Multi\""))])
        );
    }

    #[test]
    fn row_id_required() {
        let want = expected(&[("questions[0].id", "Question 1: id is required")]);
        assert_eq!(errors(one(json!({ "prompt": "P?" }))), want);
        assert_eq!(errors(one(json!({ "id": "", "prompt": "P?" }))), want);
        assert_eq!(errors(one(json!({ "id": " \t\n", "prompt": "P?" }))), want);
        assert_eq!(errors(one(json!({ "id": null, "prompt": "P?" }))), want);
    }

    #[test]
    fn row_duplicate_question_id() {
        let option = json!([{ "value": "a", "label": "A" }]);
        let payload = json!({ "questions": [
            { "id": "scope", "prompt": "P1", "options": option },
            { "id": "scope", "prompt": "P2", "options": option },
        ] });
        assert_eq!(
            errors(payload),
            expected(&[(
                "questions[1].id",
                "Question 2: duplicate question id \"scope\""
            )])
        );
    }

    #[test]
    fn row_label_must_not_be_empty() {
        let want = expected(&[("questions[0].label", "Question 1: label must not be empty")]);
        assert_eq!(
            errors(one(json!({ "id": "q", "label": "", "prompt": "P?" }))),
            want
        );
        assert_eq!(
            errors(one(json!({ "id": "q", "label": "   ", "prompt": "P?" }))),
            want
        );
    }

    #[test]
    fn row_prompt_required() {
        let want = expected(&[("questions[0].prompt", "Question 1: prompt is required")]);
        assert_eq!(errors(one(json!({ "id": "q" }))), want);
        assert_eq!(errors(one(json!({ "id": "q", "prompt": " " }))), want);
        assert_eq!(errors(one(json!({ "id": "q", "prompt": null }))), want);
    }

    #[test]
    fn row_options_required() {
        let want = expected(&[(
            "questions[0].options",
            "Question 1: at least one option is required",
        )]);
        assert_eq!(
            errors(json!({ "questions": [{ "id": "q", "prompt": "P?" }] })),
            want
        );
        assert_eq!(errors(with_options(json!([]))), want);
        assert_eq!(errors(with_options(Value::Null)), want);
    }

    #[test]
    fn row_option_value_required() {
        let want = expected(&[(
            "questions[0].options[0].value",
            "Question 1, option 1: value is required",
        )]);
        assert_eq!(errors(with_options(json!([{ "label": "A" }]))), want);
        assert_eq!(
            errors(with_options(json!([{ "value": " ", "label": "A" }]))),
            want
        );
        assert_eq!(
            errors(with_options(json!([{ "value": null, "label": "A" }]))),
            want
        );
    }

    #[test]
    fn row_duplicate_option_value() {
        let payload = with_options(json!([
            { "value": "small", "label": "Small" },
            { "value": "small", "label": "Also small" },
        ]));
        assert_eq!(
            errors(payload),
            expected(&[(
                "questions[0].options[1].value",
                "Question 1, option 2: duplicate option value \"small\""
            )])
        );
    }

    #[test]
    fn row_option_label_required() {
        let want = expected(&[(
            "questions[0].options[0].label",
            "Question 1, option 1: label is required",
        )]);
        assert_eq!(errors(with_options(json!([{ "value": "a" }]))), want);
        assert_eq!(
            errors(with_options(json!([{ "value": "a", "label": "  " }]))),
            want
        );
        assert_eq!(
            errors(with_options(json!([{ "value": "a", "label": null }]))),
            want
        );
    }

    #[test]
    fn row_description_must_not_be_empty() {
        assert_eq!(
            errors(with_options(
                json!([{ "value": "a", "label": "A", "description": " " }])
            )),
            expected(&[(
                "questions[0].options[0].description",
                "Question 1, option 1: description must not be empty"
            )])
        );
    }

    #[test]
    fn row_preview_must_not_be_empty() {
        let want = expected(&[(
            "questions[0].options[0].preview",
            "Question 1, option 1: preview must not be empty",
        )]);
        let option = json!([{ "value": "a", "label": "A", "preview": "\n" }]);
        assert_eq!(errors(with_options(option.clone())), want);
        // On a preview question a blank preview breaks both rules: two issues at one path,
        // in this order.
        assert_eq!(
            errors(preview_with(option)),
            expected(&[
                (
                    "questions[0].options[0].preview",
                    "Question 1, option 1: preview must not be empty"
                ),
                (
                    "questions[0].options[0].preview",
                    &format!("Question 1, option 1: {PREVIEW_REQUIRED}")
                ),
            ])
        );
    }

    #[test]
    fn row_preview_required() {
        let want = expected(&[(
            "questions[0].options[0].preview",
            "Question 1, option 1: preview questions require preview text for every option; \
             add preview text or use type \"single\" instead",
        )]);
        assert_eq!(
            errors(preview_with(json!([{ "value": "a", "label": "A" }]))),
            want
        );
        assert_eq!(
            errors(preview_with(
                json!([{ "value": "a", "label": "A", "preview": null }])
            )),
            want
        );
    }

    // Ordering.

    #[test]
    fn issues_follow_the_documented_order() {
        let payload = json!({
            "title": "Many problems",
            "questions": [
                {
                    "id": "dup",
                    "prompt": "First",
                    "options": [{ "value": "x", "label": "X" }]
                },
                {
                    "type": "grid",
                    "id": " dup ",
                    "label": "",
                    "prompt": "",
                    "options": [
                        { "value": "", "label": "", "description": "", "preview": "" },
                        { "value": "v", "label": "V" },
                        { "value": "v ", "label": "V again", "description": " " }
                    ]
                },
                {
                    "type": "preview",
                    "id": "p",
                    "prompt": "Pick",
                    "options": [
                        { "value": "a", "label": "A", "description": "only a description" },
                        { "value": "a", "label": "", "preview": " " }
                    ]
                },
                {
                    "id": "",
                    "prompt": "No options",
                    "options": []
                }
            ]
        });
        assert_eq!(
            errors(payload),
            expected(&[
                ("questions[1].type", &invalid_type(2, "\"grid\"")),
                (
                    "questions[1].id",
                    "Question 2: duplicate question id \"dup\""
                ),
                ("questions[1].label", "Question 2: label must not be empty"),
                ("questions[1].prompt", "Question 2: prompt is required"),
                (
                    "questions[1].options[0].value",
                    "Question 2, option 1: value is required"
                ),
                (
                    "questions[1].options[0].label",
                    "Question 2, option 1: label is required"
                ),
                (
                    "questions[1].options[0].description",
                    "Question 2, option 1: description must not be empty"
                ),
                (
                    "questions[1].options[0].preview",
                    "Question 2, option 1: preview must not be empty"
                ),
                (
                    "questions[1].options[2].value",
                    "Question 2, option 3: duplicate option value \"v\""
                ),
                (
                    "questions[1].options[2].description",
                    "Question 2, option 3: description must not be empty"
                ),
                (
                    "questions[2].options[0].preview",
                    &format!("Question 3, option 1: {PREVIEW_REQUIRED}")
                ),
                (
                    "questions[2].options[1].value",
                    "Question 3, option 2: duplicate option value \"a\""
                ),
                (
                    "questions[2].options[1].label",
                    "Question 3, option 2: label is required"
                ),
                (
                    "questions[2].options[1].preview",
                    "Question 3, option 2: preview must not be empty"
                ),
                (
                    "questions[2].options[1].preview",
                    &format!("Question 3, option 2: {PREVIEW_REQUIRED}")
                ),
                ("questions[3].id", "Question 4: id is required"),
                (
                    "questions[3].options",
                    "Question 4: at least one option is required"
                ),
            ])
        );
    }

    #[test]
    fn title_issue_comes_before_question_issues() {
        assert_eq!(
            errors(json!({ "title": 7, "questions": [] })),
            expected(&[
                ("title", "title must be a string"),
                ("questions", "At least one question is required"),
            ])
        );
    }

    // Duplicates.

    #[test]
    fn duplicate_ids_reported_on_each_later_occurrence() {
        let option = json!([{ "value": "a", "label": "A" }]);
        let payload = json!({ "questions": [
            { "id": "x", "prompt": "1", "options": option },
            { "id": " x", "prompt": "2", "options": option },
            { "id": "y", "prompt": "3", "options": option },
            { "id": "x\t", "prompt": "4", "options": option },
        ] });
        assert_eq!(
            errors(payload),
            expected(&[
                ("questions[1].id", "Question 2: duplicate question id \"x\""),
                ("questions[3].id", "Question 4: duplicate question id \"x\""),
            ])
        );
    }

    #[test]
    fn duplicate_values_reported_on_each_later_occurrence() {
        let payload = with_options(json!([
            { "value": "s", "label": "1" },
            { "value": "s ", "label": "2" },
            { "value": " s", "label": "3" },
        ]));
        assert_eq!(
            errors(payload),
            expected(&[
                (
                    "questions[0].options[1].value",
                    "Question 1, option 2: duplicate option value \"s\""
                ),
                (
                    "questions[0].options[2].value",
                    "Question 1, option 3: duplicate option value \"s\""
                ),
            ])
        );
    }

    #[test]
    fn duplicate_values_are_per_question() {
        let payload = json!({ "questions": [
            { "id": "a", "prompt": "1", "options": [{ "value": "v", "label": "V" }] },
            { "id": "b", "prompt": "2", "options": [{ "value": "v", "label": "V" }] },
        ] });
        assert_eq!(valid(payload).questions.len(), 2);
    }

    #[test]
    fn blank_ids_and_values_are_required_not_duplicates() {
        let option = json!([{ "value": "a", "label": "A" }]);
        let payload = json!({ "questions": [
            { "id": " ", "prompt": "1", "options": option },
            { "id": "", "prompt": "2", "options": [
                { "value": "", "label": "A" },
                { "value": "  ", "label": "B" },
            ] },
        ] });
        assert_eq!(
            errors(payload),
            expected(&[
                ("questions[0].id", "Question 1: id is required"),
                ("questions[1].id", "Question 2: id is required"),
                (
                    "questions[1].options[0].value",
                    "Question 2, option 1: value is required"
                ),
                (
                    "questions[1].options[1].value",
                    "Question 2, option 2: value is required"
                ),
            ])
        );
    }

    #[test]
    fn duplicates_encode_non_ascii_and_quotes() {
        let payload = with_options(json!([
            { "value": "é \"q\"", "label": "1" },
            { "value": "é \"q\"", "label": "2" },
        ]));
        assert_eq!(
            errors(payload),
            expected(&[(
                "questions[0].options[1].value",
                "Question 1, option 2: duplicate option value \"é \\\"q\\\"\""
            )])
        );
    }

    #[test]
    fn many_duplicates_are_all_reported() {
        let options: Vec<Value> = (0..20_000)
            .map(|i| json!({ "value": format!("v{}", i % 10_000), "label": "L" }))
            .collect();
        let issues = errors(with_options(Value::Array(options)));
        assert_eq!(issues.len(), 10_000);
        assert_eq!(
            issues[0],
            issue(
                "questions[0].options[10000].value",
                "Question 1, option 10001: duplicate option value \"v0\"".to_owned()
            )
        );
    }

    // Wrong JSON types.

    #[test]
    fn payload_not_an_object() {
        let want = expected(&[("payload", "payload must be an object")]);
        for payload in [
            json!(null),
            json!(true),
            json!(0),
            json!(-1.5),
            json!(1e300),
            json!(u64::MAX),
            json!(""),
            json!("questions"),
            json!([]),
            json!([[[]]]),
            json!([{ "questions": [] }]),
        ] {
            assert_eq!(errors(payload), want);
        }
    }

    #[test]
    fn title_not_a_string() {
        for title in [json!(1), json!(true), json!([]), json!({ "a": "b" })] {
            let mut payload = one(json!({ "id": "q", "prompt": "P?" }));
            payload["title"] = title;
            assert_eq!(
                errors(payload),
                expected(&[("title", "title must be a string")])
            );
        }
    }

    #[test]
    fn questions_not_an_array() {
        let want = expected(&[("questions", "questions must be an array")]);
        for questions in [json!({}), json!("q"), json!(3), json!(false)] {
            assert_eq!(errors(json!({ "questions": questions })), want);
        }
    }

    #[test]
    fn question_not_an_object() {
        let payload = json!({ "questions": [
            1,
            { "id": "q", "prompt": "P?", "options": [{ "value": "a", "label": "A" }] },
            [],
            "q",
            null,
        ] });
        assert_eq!(
            errors(payload),
            expected(&[
                ("questions[0]", "Question 1: must be an object"),
                ("questions[2]", "Question 3: must be an object"),
                ("questions[3]", "Question 4: must be an object"),
                ("questions[4]", "Question 5: must be an object"),
            ])
        );
    }

    #[test]
    fn type_not_a_string() {
        let cases = [
            (json!(3), "3"),
            (json!(true), "true"),
            (json!(["single"]), "[\"single\"]"),
            (json!({ "a": 1 }), "{\"a\":1}"),
        ];
        for (kind, encoded) in cases {
            assert_eq!(
                errors(one(json!({ "id": "q", "prompt": "P?", "type": kind }))),
                expected(&[("questions[0].type", &invalid_type(1, encoded))])
            );
        }
    }

    #[test]
    fn id_label_prompt_not_strings() {
        let payload = one(json!({ "id": 1, "label": false, "prompt": ["P?"] }));
        assert_eq!(
            errors(payload),
            expected(&[
                ("questions[0].id", "Question 1: id must be a string"),
                ("questions[0].label", "Question 1: label must be a string"),
                ("questions[0].prompt", "Question 1: prompt must be a string"),
            ])
        );
    }

    #[test]
    fn non_string_ids_are_not_compared() {
        let option = json!([{ "value": "a", "label": "A" }]);
        let payload = json!({ "questions": [
            { "id": 1, "prompt": "1", "options": option },
            { "id": 1, "prompt": "2", "options": option },
            { "id": "1", "prompt": "3", "options": option },
        ] });
        assert_eq!(
            errors(payload),
            expected(&[
                ("questions[0].id", "Question 1: id must be a string"),
                ("questions[1].id", "Question 2: id must be a string"),
            ])
        );
    }

    #[test]
    fn required_not_a_boolean() {
        for flag in [json!("true"), json!(1), json!([]), json!({})] {
            let payload = json!({ "questions": [{
                "id": "q",
                "prompt": " ",
                "required": flag,
                "options": []
            }] });
            assert_eq!(
                errors(payload),
                expected(&[
                    ("questions[0].prompt", "Question 1: prompt is required"),
                    (
                        "questions[0].required",
                        "Question 1: required must be a boolean"
                    ),
                    (
                        "questions[0].options",
                        "Question 1: at least one option is required"
                    ),
                ])
            );
        }
    }

    #[test]
    fn options_not_an_array() {
        for options in [json!({}), json!("a"), json!(1), json!(true)] {
            assert_eq!(
                errors(with_options(options)),
                expected(&[(
                    "questions[0].options",
                    "Question 1: options must be an array"
                )])
            );
        }
    }

    #[test]
    fn option_not_an_object() {
        let payload = with_options(json!([
            "a",
            { "value": "b", "label": "B" },
            7,
            null,
            [{ "value": "c", "label": "C" }],
        ]));
        assert_eq!(
            errors(payload),
            expected(&[
                (
                    "questions[0].options[0]",
                    "Question 1, option 1: must be an object"
                ),
                (
                    "questions[0].options[2]",
                    "Question 1, option 3: must be an object"
                ),
                (
                    "questions[0].options[3]",
                    "Question 1, option 4: must be an object"
                ),
                (
                    "questions[0].options[4]",
                    "Question 1, option 5: must be an object"
                ),
            ])
        );
    }

    #[test]
    fn option_fields_not_strings() {
        let payload = with_options(json!([
            { "value": 1, "label": ["A"], "description": {}, "preview": false },
        ]));
        assert_eq!(
            errors(payload),
            expected(&[
                (
                    "questions[0].options[0].value",
                    "Question 1, option 1: value must be a string"
                ),
                (
                    "questions[0].options[0].label",
                    "Question 1, option 1: label must be a string"
                ),
                (
                    "questions[0].options[0].description",
                    "Question 1, option 1: description must be a string"
                ),
                (
                    "questions[0].options[0].preview",
                    "Question 1, option 1: preview must be a string"
                ),
            ])
        );
    }

    #[test]
    fn non_string_preview_on_preview_question_is_reported_once() {
        assert_eq!(
            errors(preview_with(
                json!([{ "value": "a", "label": "A", "preview": 3 }])
            )),
            expected(&[(
                "questions[0].options[0].preview",
                "Question 1, option 1: preview must be a string"
            )])
        );
    }

    #[test]
    fn wrong_types_do_not_stop_later_checks() {
        let payload = json!({
            "title": [],
            "questions": [
                "not a question",
                { "id": 5, "prompt": "P", "options": "none" },
                { "id": "ok", "prompt": "P", "options": [1, { "value": 2, "label": "" }] },
            ]
        });
        assert_eq!(
            errors(payload),
            expected(&[
                ("title", "title must be a string"),
                ("questions[0]", "Question 1: must be an object"),
                ("questions[1].id", "Question 2: id must be a string"),
                (
                    "questions[1].options",
                    "Question 2: options must be an array"
                ),
                (
                    "questions[2].options[0]",
                    "Question 3, option 1: must be an object"
                ),
                (
                    "questions[2].options[1].value",
                    "Question 3, option 2: value must be a string"
                ),
                (
                    "questions[2].options[1].label",
                    "Question 3, option 2: label is required"
                ),
            ])
        );
    }

    // Nulls.

    #[test]
    fn null_optional_fields_count_as_absent() {
        let payload = json!({
            "title": null,
            "questions": [{
                "id": "q",
                "label": null,
                "prompt": "P?",
                "type": null,
                "required": null,
                "options": [{ "value": "a", "label": "A", "description": null, "preview": null }]
            }]
        });
        let spec = valid(payload);
        assert_eq!(spec.title, None);
        let question = &spec.questions[0];
        assert_eq!(question.label, "Q1");
        assert_eq!(question.kind, QuestionType::Single);
        assert!(!question.required);
        assert_eq!(question.options[0].description, None);
        assert_eq!(question.options[0].preview, None);
    }

    #[test]
    fn null_required_fields_are_missing() {
        let payload = json!({ "questions": [{
            "id": null,
            "prompt": null,
            "options": [{ "value": null, "label": null }]
        }] });
        assert_eq!(
            errors(payload),
            expected(&[
                ("questions[0].id", "Question 1: id is required"),
                ("questions[0].prompt", "Question 1: prompt is required"),
                (
                    "questions[0].options[0].value",
                    "Question 1, option 1: value is required"
                ),
                (
                    "questions[0].options[0].label",
                    "Question 1, option 1: label is required"
                ),
            ])
        );
    }

    // Normalisation.

    #[test]
    fn normalises_a_valid_payload() {
        let payload = json!({
            "title": "  Setup  ",
            "extra": { "ignored": true },
            "questions": [
                {
                    "id": "  scope ",
                    "prompt": "\tWhich scope?\n",
                    "unknown": 1,
                    "options": [
                        {
                            "value": " small ",
                            "label": " Small (Recommended) ",
                            "description": "  tiny "
                        },
                        { "value": "large", "label": "Large", "whatever": [] }
                    ]
                },
                {
                    "id": "langs",
                    "label": "  Languages ",
                    "prompt": "Which?",
                    "type": "multi",
                    "required": true,
                    "options": [{ "value": "rs", "label": "Rust", "preview": " fn main() {} " }]
                },
                {
                    "id": "layout",
                    "prompt": "Layout?",
                    "type": "preview",
                    "required": false,
                    "options": [{ "value": "a", "label": "A", "preview": "\n+--+\n|  |\n+--+\n" }]
                }
            ]
        });
        let want = FlowSpec {
            rules: RULES,
            requester: None,
            source: None,
            behaviour: Default::default(),
            title: Some("  Setup  ".to_owned()),
            questions: vec![
                Question {
                    id: "scope".to_owned(),
                    label: "Q1".to_owned(),
                    prompt: "Which scope?".to_owned(),
                    kind: QuestionType::Single,
                    asked: None,
                    required: false,
                    options: vec![
                        OptionItem {
                            value: "small".to_owned(),
                            label: "Small (Recommended)".to_owned(),
                            description: Some("tiny".to_owned()),
                            preview: None,
                        },
                        OptionItem {
                            value: "large".to_owned(),
                            label: "Large".to_owned(),
                            description: None,
                            preview: None,
                        },
                    ],
                    detail: None,
                    intent: None,
                    custom_row: CustomRow::Standard,
                    secret: false,
                    initial: Answer::default(),
                },
                Question {
                    id: "langs".to_owned(),
                    label: "Languages".to_owned(),
                    prompt: "Which?".to_owned(),
                    kind: QuestionType::Multi,
                    asked: None,
                    required: true,
                    options: vec![OptionItem {
                        value: "rs".to_owned(),
                        label: "Rust".to_owned(),
                        description: None,
                        preview: Some("fn main() {}".to_owned()),
                    }],
                    detail: None,
                    intent: None,
                    custom_row: CustomRow::Standard,
                    secret: false,
                    initial: Answer::default(),
                },
                Question {
                    id: "layout".to_owned(),
                    label: "Q3".to_owned(),
                    prompt: "Layout?".to_owned(),
                    kind: QuestionType::Preview,
                    asked: None,
                    required: false,
                    options: vec![OptionItem {
                        value: "a".to_owned(),
                        label: "A".to_owned(),
                        description: None,
                        preview: Some("+--+\n|  |\n+--+".to_owned()),
                    }],
                    detail: None,
                    intent: None,
                    custom_row: CustomRow::Standard,
                    secret: false,
                    initial: Answer::default(),
                },
            ],
        };
        assert_eq!(valid(payload), want);
    }

    #[test]
    fn minimal_payload_gets_defaults() {
        let spec = valid(one(json!({ "id": "q", "prompt": "P?" })));
        assert_eq!(
            spec,
            FlowSpec {
                rules: RULES,
                requester: None,
                source: None,
                behaviour: Default::default(),
                title: None,
                questions: vec![Question {
                    id: "q".to_owned(),
                    label: "Q1".to_owned(),
                    prompt: "P?".to_owned(),
                    kind: QuestionType::Single,
                    asked: None,
                    required: false,
                    options: vec![OptionItem {
                        value: "a".to_owned(),
                        label: "A".to_owned(),
                        description: None,
                        preview: None,
                    }],
                    detail: None,
                    intent: None,
                    custom_row: CustomRow::Standard,
                    secret: false,
                    initial: Answer::default(),
                }],
            }
        );
    }

    #[test]
    fn default_labels_follow_position() {
        let option = json!([{ "value": "a", "label": "A" }]);
        let payload = json!({ "questions": [
            { "id": "a", "prompt": "1", "options": option },
            { "id": "b", "label": "Named", "prompt": "2", "options": option },
            { "id": "c", "prompt": "3", "options": option },
        ] });
        let labels: Vec<String> = valid(payload)
            .questions
            .into_iter()
            .map(|q| q.label)
            .collect();
        assert_eq!(labels, ["Q1", "Named", "Q3"]);
    }

    // Preview questions.

    #[test]
    fn description_does_not_satisfy_preview() {
        assert_eq!(
            errors(preview_with(json!([
                { "value": "a", "label": "A", "description": "about a" },
                { "value": "b", "label": "B", "preview": "b" },
                { "value": "c", "label": "C", "preview": "" },
            ]))),
            expected(&[
                (
                    "questions[0].options[0].preview",
                    &format!("Question 1, option 1: {PREVIEW_REQUIRED}")
                ),
                (
                    "questions[0].options[2].preview",
                    "Question 1, option 3: preview must not be empty"
                ),
                (
                    "questions[0].options[2].preview",
                    &format!("Question 1, option 3: {PREVIEW_REQUIRED}")
                ),
            ])
        );
    }

    #[test]
    fn preview_is_optional_on_other_questions() {
        let options = json!([{ "value": "a", "label": "A" }]);
        let payload = json!({ "questions": [
            { "id": "s", "prompt": "1", "type": "single", "options": options },
            { "id": "m", "prompt": "2", "type": "multi", "options": options },
        ] });
        assert!(validate(&payload).is_ok());
    }

    #[test]
    fn invalid_type_is_not_a_preview_question() {
        assert_eq!(
            errors(one(json!({
                "id": "q",
                "prompt": "P?",
                "type": "Preview",
                "options": [{ "value": "a", "label": "A" }]
            }))),
            expected(&[("questions[0].type", &invalid_type(1, "\"Preview\""))])
        );
    }

    // Title.

    #[test]
    fn raw_title_reports_string_titles_only() {
        assert_eq!(
            raw_title(&json!({ "title": " T " })),
            Some(" T ".to_owned())
        );
        assert_eq!(raw_title(&json!({ "title": 1 })), None);
        assert_eq!(raw_title(&json!({ "title": null })), None);
        assert_eq!(raw_title(&json!({})), None);
        assert_eq!(raw_title(&json!("title")), None);
        assert_eq!(raw_title(&json!([{ "title": "T" }])), None);
    }

    // Robustness.

    fn nested_arrays(depth: usize) -> Value {
        (0..depth).fold(json!(0), |inner, _| Value::Array(vec![inner]))
    }

    fn nested_objects(depth: usize) -> Value {
        (0..depth).fold(json!({}), |inner, _| json!({ "questions": inner }))
    }

    #[test]
    fn odd_values_never_panic() {
        let deep_text = format!("{}{}", "[".repeat(120), "]".repeat(120));
        let deep_parsed: Value = serde_json::from_str(&deep_text).expect("parse deep arrays");
        let huge_number: Value =
            serde_json::from_str("123456789012345678901234567890e-5").expect("parse number");
        let odd = [
            json!(null),
            json!(false),
            json!(0),
            json!(-0.0),
            json!(i64::MIN),
            json!(u64::MAX),
            json!(f64::MAX),
            huge_number.clone(),
            json!(""),
            json!("\u{0}\u{feff}漢字 🦀"),
            json!([]),
            nested_arrays(100),
            deep_parsed.clone(),
            nested_objects(100),
            json!({}),
            json!({ "questions": {} }),
            json!({ "questions": [[]] }),
            json!({ "questions": [null, 1, "x", true] }),
            json!({ "questions": [{}] }),
            json!({ "questions": [{ "options": [{}] }] }),
            json!({ "questions": [{ "options": [[], null, 1.5] }] }),
            json!({ "questions": [{
                "type": huge_number, "id": "q", "prompt": "P", "options": {}
            }] }),
            json!({ "questions": [{ "type": nested_arrays(100), "id": "q", "prompt": "P" }] }),
            json!({ "questions": [{ "type": deep_parsed, "id": "q", "prompt": "P" }] }),
            json!({ "title": nested_objects(50), "questions": nested_arrays(50) }),
            json!({ "questions": [{
                "id": "\u{3000}", "prompt": "\u{a0}", "label": "\u{2003}",
                "options": [{ "value": "\u{200b}", "label": "ok" }]
            }] }),
            json!({ "questions": [{
                "id": "日本", "prompt": "質問",
                "options": [
                    { "value": "一", "label": "一" },
                    { "value": " 一 ", "label": "二" }
                ]
            }] }),
            json!({ "questions": [{
                "id": "q", "prompt": "P", "type": "preview",
                "options": [{ "value": "v", "label": "L", "preview": { "text": "x" } }]
            }] }),
            json!({ "questions": [{
                "id": "q", "prompt": "P", "required": 0,
                "options": [{ "value": "v", "label": "L" }]
            }] }),
            json!({ "questions": [{
                "id": "q", "prompt": "P",
                "options": [{ "value": "v", "label": "L" }]
            }] }),
            json!({ "questions": [{
                "id": "q", "prompt": "P", "type": "multi",
                "options": [{ "value": "v", "label": "L", "description": "d", "preview": "p" }]
            }] }),
        ];
        for value in &odd {
            if let Err(issues) = validate(value) {
                assert!(!issues.is_empty(), "empty issue list for {value}");
            }
            let _ = raw_title(value);
        }
    }

    #[test]
    fn nested_type_is_encoded_in_full() {
        let text = format!("{}0{}", "[".repeat(120), "]".repeat(120));
        let kind: Value = serde_json::from_str(&text).expect("parse nested arrays");
        let payload = one(json!({ "id": "q", "prompt": "P?", "type": kind }));
        assert_eq!(
            errors(payload),
            expected(&[("questions[0].type", &invalid_type(1, &text))])
        );
        let limit = format!("{}0{}", "[".repeat(128), "]".repeat(128));
        let payload = one(json!({ "id": "q", "prompt": "P?", "type": nested_arrays(128) }));
        assert_eq!(
            errors(payload),
            expected(&[("questions[0].type", &invalid_type(1, &limit))])
        );
    }

    #[test]
    fn deeper_type_is_abbreviated() {
        let arrays = one(json!({ "id": "q", "prompt": "P?", "type": nested_arrays(129) }));
        assert_eq!(
            errors(arrays),
            expected(&[("questions[0].type", &invalid_type(1, "[...]"))])
        );
        let objects = one(json!({ "id": "q", "prompt": "P?", "type": nested_objects(1_000) }));
        assert_eq!(
            errors(objects),
            expected(&[("questions[0].type", &invalid_type(1, "{...}"))])
        );
        let wide = Value::Array(vec![json!(1), nested_arrays(1_000), json!("x")]);
        let payload = one(json!({ "id": "q", "prompt": "P?", "type": wide }));
        assert_eq!(
            errors(payload),
            expected(&[("questions[0].type", &invalid_type(1, "[...]"))])
        );
    }

    #[test]
    fn unicode_whitespace_is_blank() {
        assert_eq!(
            errors(one(json!({ "id": "\u{3000}", "prompt": "\u{a0}\u{2003}" }))),
            expected(&[
                ("questions[0].id", "Question 1: id is required"),
                ("questions[0].prompt", "Question 1: prompt is required"),
            ])
        );
    }
}
