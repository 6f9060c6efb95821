//! The opencode dialect's wire shapes that have no Rust type of their own (the engine
//! validates raw JSON and builds its results as JSON), declared only to be described in the
//! protocol's JSON Schemas.

use schemars::JsonSchema;

/// An opencode `question` request (opencode dialect): a `QuestionRequest` as `GET /question`
/// lists it, or the bare tool input `{ questions }`.
///
/// As opencode 1.18.33 reads it: ids start with `que`, `ses` and `msg`; `null` is the value of
/// no field; unknown fields are ignored, and so is `custom` in the bare tool input (the tool's
/// input has no such field). A request breaking any rule is not an error: it completes at once
/// with `{ rejected: true }` and the issues in the Step's `error`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionRequest {
    /// The request id (`que_…`), for the host's `/question/{id}/reply`.
    pub id: Option<String>,
    /// The session asking.
    #[serde(rename = "sessionID")]
    pub session_id: Option<String>,
    /// The questions, one tab each, in order (there may be none).
    pub questions: Vec<QuestionInfo>,
    /// The tool call that asks.
    pub tool: Option<QuestionTool>,
}

/// The tool call of a `QuestionRequest`.
#[derive(JsonSchema)]
pub struct QuestionTool {
    /// The message holding the call.
    #[serde(rename = "messageID")]
    pub message_id: String,
    /// The call.
    #[serde(rename = "callID")]
    pub call_id: String,
}

/// One question of an opencode request.
#[derive(JsonSchema)]
pub struct QuestionInfo {
    /// The question text (it may be empty).
    pub question: String,
    /// The tab label (`Q1`, `Q2`, … by position when blank).
    pub header: String,
    /// The choices (labels unique; empty makes a free-text question, unless `custom` is
    /// `false`).
    pub options: Vec<QuestionOption>,
    /// More than one option may be chosen (default `false`).
    pub multiple: Option<bool>,
    /// Offer a `Type your own answer` row (default `true`).
    pub custom: Option<bool>,
}

/// One option of an opencode question: its label is also the value answered.
#[derive(JsonSchema)]
pub struct QuestionOption {
    /// Shown and answered exactly as given (it may be empty).
    pub label: String,
    /// Help text shown under the label.
    pub description: String,
}

/// The `result` of a finished opencode flow.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum OpencodeResult {
    /// The user submitted: the body of `POST /question/{id}/reply`.
    Reply(QuestionReply),
    /// The user dismissed the question, the asker withdrew it, no UI could ask, or the request
    /// was invalid: the host calls `POST /question/{id}/reject`.
    Rejected(Rejected),
}

/// The body of `POST /question/{id}/reply`.
#[derive(JsonSchema)]
pub struct QuestionReply {
    /// One list per question, in order: the chosen labels (in option order), then the typed
    /// text; empty when unanswered.
    pub answers: Vec<Vec<String>>,
}

/// A question the host rejects.
#[derive(JsonSchema)]
pub struct Rejected {
    /// Always `true`.
    #[schemars(extend("const" = true))]
    pub rejected: bool,
}
