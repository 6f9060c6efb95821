//! The claude dialect's wire shapes that have no Rust type of their own (the engine validates
//! raw JSON and builds its results as JSON), declared only to be described in the protocol's
//! JSON Schemas.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde_json::Value;

/// An `AskUserQuestion` tool input (claude dialect), as `canUseTool` receives it.
///
/// As Claude Code checks it: the input takes no other fields (a question or an option drops
/// those it does not know), and `null` is the value of no field. The engine also checks what a
/// schema cannot: question texts are unique, option labels are unique within a question and
/// none is `[No preference]` (its spaces folded), and with `previewFormat: "html"` every
/// preview is an HTML fragment. An input breaking any rule is not an error: it completes at
/// once with a `deny` result listing the issues.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskUserQuestionInput {
    /// The questions, one tab each, in order (1 to 4).
    #[schemars(length(min = 1, max = 4))]
    pub questions: Vec<ClaudeQuestion>,
    /// Answers a model may send (strings or lists of strings by question text); never read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answers: Option<BTreeMap<String, ClaudeAnswer>>,
    /// Annotations a model may send; never read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, ModelAnnotation>>,
    /// Echoed unchanged in the result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// What a model may send as an annotation.
#[derive(JsonSchema)]
pub struct ModelAnnotation {
    /// A preview.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// Notes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// The input's metadata.
#[derive(JsonSchema)]
pub struct Metadata {
    /// Where the question comes from (e.g. `remember`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// One question of an `AskUserQuestion` input.
#[derive(JsonSchema)]
pub struct ClaudeQuestion {
    /// The question text: the prompt, and the key of its answer (unique; it may be empty).
    pub question: String,
    /// The tab label (`Q1`, `Q2`, … by position when blank).
    pub header: String,
    /// The choices (2 to 4, labels unique); a `Type your own` row follows them.
    #[schemars(length(min = 2, max = 4))]
    pub options: Vec<ClaudeOption>,
    /// More than one option may be chosen (default `false`).
    #[serde(rename = "multiSelect", skip_serializing_if = "Option::is_none")]
    pub multi_select: Option<bool>,
}

/// One option of an `AskUserQuestion` question: its label is also the value answered.
#[derive(JsonSchema)]
pub struct ClaudeOption {
    /// Shown and answered exactly as given (it may be empty; not `[No preference]`).
    pub label: String,
    /// Help text shown under the label.
    pub description: String,
    /// Shown beside the options while this one is active (single-select questions only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
}

/// The `claude` param of `open`: options of the claude dialect.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClaudeOptions {
    /// The content of previews: `markdown` (the default) or `html` (each preview must then be
    /// an HTML fragment), as the host's `toolConfig.askUserQuestion.previewFormat`.
    pub preview_format: Option<PreviewFormatName>,
    /// The session advertises `ask_user_question_unanswered_v1`: a skipped question is marked
    /// `annotations[question].unanswered: "skipped"` (default `false`).
    #[serde(rename = "unansweredV1")]
    pub unanswered_v1: Option<bool>,
}

/// A preview format.
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PreviewFormatName {
    /// Markdown or plain text.
    Markdown,
    /// A self-contained HTML fragment.
    Html,
}

/// The `result` of a finished claude flow: a `PermissionResult` to return from `canUseTool`
/// unchanged.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum ClaudeResult {
    /// The user submitted.
    Allow(Allow),
    /// The user cancelled, the asker withdrew the request, no UI could ask, or the input was
    /// invalid.
    Deny(Deny),
}

/// `behavior: "allow"`: the tool runs with the answers.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Allow {
    /// Always `allow`.
    #[schemars(extend("const" = "allow"))]
    pub behavior: String,
    /// The input the tool runs with.
    pub updated_input: UpdatedInput,
}

/// The input of an `allow`: the questions as asked and the answers.
#[derive(JsonSchema)]
pub struct UpdatedInput {
    /// The `questions` of the input, unchanged.
    pub questions: Vec<Value>,
    /// Per question text, the answer: the chosen label or the typed text; on a multi-select
    /// question the labels in option order and then the typed text, joined with `, ` (an entry
    /// holding `, ` or `"` written as a JSON string literal); `(notes only)` when only notes
    /// were given. Skipped questions are left out.
    pub answers: BTreeMap<String, String>,
    /// Per question text, what goes with the answer (left out when empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, Annotation>>,
    /// The `metadata` of the input, unchanged (left out when it had none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// What goes with one answer.
#[derive(JsonSchema)]
pub struct Annotation {
    /// The preview of the chosen option, exactly as asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// The question note, trimmed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// `skipped`, for a question left unanswered when `unansweredV1` is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("const" = "skipped"))]
    pub unanswered: Option<String>,
}

/// `behavior: "deny"`: the tool does not run, and the model reads the message.
#[derive(JsonSchema)]
pub struct Deny {
    /// Always `deny`.
    #[schemars(extend("const" = "deny"))]
    pub behavior: String,
    /// What the model reads.
    pub message: String,
    /// `true` when the turn should stop (the user cancelled or dismissed the question).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("const" = true))]
    pub interrupt: Option<bool>,
}

/// An answer set of `submitAnswers` in the claude dialect: what `updatedInput` carries.
#[derive(JsonSchema)]
pub struct ClaudeAnswers {
    /// Per question text, the answer (on a multi-select question also a list of entries).
    pub answers: BTreeMap<String, ClaudeAnswer>,
    /// Per question text, `{ notes }`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, Annotation>>,
}

/// One answer of a claude answer set.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum ClaudeAnswer {
    /// A label, a text of one's own, entries joined with `, `, or `(notes only)`.
    Text(String),
    /// The entries of a multi-select answer.
    Entries(Vec<String>),
}
