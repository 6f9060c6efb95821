//! The codex dialect's wire shapes that have no Rust type of their own (the engine validates
//! raw JSON and builds its results as JSON), declared only to be described in the protocol's
//! JSON Schemas.

use std::collections::BTreeMap;

use schemars::JsonSchema;

/// A `request_user_input` request (codex dialect): the Codex app-server's
/// `ToolRequestUserInputParams`, or the bare model arguments `{ questions }`.
///
/// As Codex 0.171.0 reads it: an app-server request has `threadId`, `turnId` and `itemId`
/// (`isBlocking` too, but a request of an older Codex without it blocks); `null` is a value of
/// `options` and `autoResolutionMs` only; unknown fields are ignored. The model's bare arguments
/// need options on every question. A request breaking any rule is not an error: it completes
/// at once with empty answers and the issues in the Step's `error`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolRequestUserInputParams {
    /// The thread (app-server requests).
    pub thread_id: Option<String>,
    /// The turn (app-server requests).
    pub turn_id: Option<String>,
    /// The tool call (app-server requests).
    pub item_id: Option<String>,
    /// The questions, one tab each, in order (there may be none).
    pub questions: Vec<CodexQuestion>,
    /// Whether the turn waits for the answers (default: it does). A request that does not
    /// wait is submitted at its deadline (`timeoutMs` of `open`) with what the user committed.
    pub is_blocking: Option<bool>,
    /// The older way to say a request does not wait: milliseconds after which it is submitted
    /// with what the user committed, when `open` gives no `timeoutMs`.
    pub auto_resolution_ms: Option<u64>,
}

/// One question of a `request_user_input` request.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CodexQuestion {
    /// Stable id, the key of its answers (it may be empty or repeat another).
    pub id: String,
    /// The tab label (`Q1`, `Q2`, … by position when blank).
    pub header: String,
    /// The question text (it may be empty).
    pub question: String,
    /// Offer a `None of the above` row after the options (default `false` in an app-server
    /// request, `true` in bare model arguments).
    pub is_other: Option<bool>,
    /// The typed answer is secret: masked while typed, `[hidden]` in views and transcripts.
    pub is_secret: Option<bool>,
    /// The choices (labels may repeat); absent, `null` or empty makes a free-text question.
    pub options: Option<Vec<CodexOption>>,
}

/// One option of a codex question: its label is also the value answered.
#[derive(JsonSchema)]
pub struct CodexOption {
    /// Shown and answered exactly as given (it may be empty).
    pub label: String,
    /// Help text shown under the label.
    pub description: String,
}

/// A `ToolRequestUserInputResponse`: the `result` of a finished codex flow, to send back for
/// `item/tool/requestUserInput` unchanged. Empty when the flow did not submit.
#[derive(JsonSchema)]
pub struct ToolRequestUserInputResponse {
    /// Per question id (every id asked, on submit), its answers.
    pub answers: BTreeMap<String, ToolRequestUserInputAnswer>,
}

/// The answers of one codex question.
#[derive(JsonSchema)]
pub struct ToolRequestUserInputAnswer {
    /// The chosen label (or `None of the above`), then at most one `user_note: <text>` entry;
    /// empty when unanswered.
    #[schemars(length(max = 2))]
    pub answers: Vec<String>,
}
