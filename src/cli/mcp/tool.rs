//! The one tool `askd mcp` offers, `ask`: its name, its description (what a model reads
//! to use it), its input schema (close to Claude Code's `AskUserQuestion`, whose shape models
//! already know, and read by the claude dialect), and its output schema (the
//! `structuredContent` of [`super::answer`]).
//!
//! The schemas are derived from the types below, which exist only to be described: the input
//! is read and checked by [`crate::dialect::claude::validate`], the output is built as JSON.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// The tool's name.
pub const NAME: &str = "ask";

/// The tool's title, for hosts that show one.
pub const TITLE: &str = "Ask the user";

/// What a model reads about the tool.
pub const DESCRIPTION: &str = "\
Ask the user one to four multiple-choice questions and wait for the answers. Use it when you \
need a decision, a preference or a clarification that only the user can give; not for what \
you can find out yourself. The questions appear in the user's askd client (editor, browser or \
terminal), and the call returns once the user has answered.

Input: `questions`, 1 to 4, asked in order, each with:
- `question`: the complete question, ending with a question mark (unique among the questions);
- `header`: a very short label for the question's tab (at most 12 characters, e.g. \"Database\");
- `options`: 2 to 4 choices, each with `label` (1 to 5 words: what the user picks, and what you \
get back), `description` (what the choice means or implies) and, on a single-choice question, \
an optional `preview` (text shown beside the options while that one is highlighted: a code \
snippet, a mock-up, a diff);
- `multiSelect`: true to let the user pick several options (default false).
The user can always type an answer of their own instead of the options, and add notes.

Result: one line per question, `\"question\" → answer`, followed by the user's notes, and the \
same as structured content: `{\"status\": \"answered\", \"answers\": {\"<question>\": \
\"<answer>\"}, \"annotations\": {\"<question>\": {\"notes\": \"...\", \"preview\": \"...\"}}}`. \
An answer is the label picked, the user's own text, or on a multi-select question the labels \
joined with \", \"; a question the user skipped has no answer. When the user declines, the time \
runs out or the question is withdrawn, `status` is `declined`, `timedOut` or `withdrawn` and \
`message` says so: do not assume an answer then; go on without it or ask how to proceed.";

// The input: Claude Code's `AskUserQuestion` input as the claude dialect reads it, without the
// answers and annotations a host adds. (Doc comments here are what a model reads.)
/// The questions to ask the user.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct AskInput {
    /// The questions to ask (1 to 4), one tab each, in this order.
    #[schemars(length(min = 1, max = 4))]
    questions: Vec<AskQuestion>,
}

/// One question.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct AskQuestion {
    /// The complete question to ask, ending with a question mark; unique among the questions
    /// (the answers are keyed by it).
    question: String,
    /// A very short label for the question's tab (at most 12 characters), e.g. "Database".
    header: String,
    /// The choices (2 to 4, labels unique). The user may also type an answer of their own.
    #[schemars(length(min = 2, max = 4))]
    options: Vec<AskOption>,
    /// Let the user choose more than one option.
    #[serde(rename = "multiSelect", default)]
    multi_select: bool,
}

/// One choice.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct AskOption {
    /// What the user picks (1 to 5 words), and the answer returned when they do.
    label: String,
    /// What this choice means or implies.
    description: String,
    /// Shown beside the options while this one is highlighted (single-choice questions): a
    /// code snippet, a mock-up or a diff, as Markdown or plain text.
    #[serde(skip_serializing_if = "Option::is_none")]
    preview: Option<String>,
}

/// What the user answered, or why there is no answer.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct AskOutput {
    /// `answered`, or why there is no answer: `declined` (the user dismissed the questions),
    /// `timedOut` (nobody answered in time), `withdrawn` (the question was taken back before
    /// the user answered).
    status: Status,
    /// Per question text, the answer: the label picked, the user's own text, or on a
    /// multi-select question the labels joined with ", "; "(notes only)" when the user gave
    /// only notes. A skipped question is left out. Only when `status` is `answered`.
    #[serde(skip_serializing_if = "Option::is_none")]
    answers: Option<std::collections::BTreeMap<String, String>>,
    /// Per question text, what goes with the answer: the user's notes, and the preview of the
    /// option picked. Left out when empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<std::collections::BTreeMap<String, Annotation>>,
    /// Why there is no answer, and what to do: only when `status` is not `answered`.
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
}

/// How a call ended.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
enum Status {
    Answered,
    Declined,
    TimedOut,
    Withdrawn,
}

/// What goes with one answer.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Annotation {
    /// The user's notes on the question.
    #[serde(skip_serializing_if = "Option::is_none")]
    notes: Option<String>,
    /// The preview of the option picked.
    #[serde(skip_serializing_if = "Option::is_none")]
    preview: Option<String>,
}

/// The JSON Schema of `T`, every subschema inline (some hosts do not follow `$ref`), without
/// `$schema` and `title`.
fn schema_of<T: JsonSchema>() -> JsonObject {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
        })
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut value = schema.to_value();
    without_null(&mut value);
    let Value::Object(mut object) = value else {
        unreachable!("a struct's schema is an object");
    };
    object.remove("$schema");
    object.remove("title");
    object
}

/// `value` with `null` taken out of every `type` list: the tool neither takes nor gives `null`
/// for a field it may leave out.
fn without_null(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if let Some(Value::Array(types)) = object.get_mut("type") {
                types.retain(|t| t != "null");
                if let [one] = types.as_slice() {
                    let one = one.clone();
                    object.insert("type".to_owned(), one);
                }
            }
            object.values_mut().for_each(without_null);
        }
        Value::Array(items) => items.iter_mut().for_each(without_null),
        _ => {}
    }
}

/// The input schema of `ask`.
pub fn input_schema() -> JsonObject {
    schema_of::<AskInput>()
}

/// The output schema of `ask`.
pub fn output_schema() -> JsonObject {
    schema_of::<AskOutput>()
}

/// The tool as `tools/list` gives it.
pub fn tool() -> Tool {
    let mut annotations = ToolAnnotations::with_title(TITLE);
    annotations.read_only_hint = Some(true);
    annotations.open_world_hint = Some(false);
    Tool::new(NAME, DESCRIPTION, Arc::new(input_schema()))
        .with_title(TITLE)
        .with_raw_output_schema(Arc::new(output_schema()))
        .with_annotations(annotations)
}
