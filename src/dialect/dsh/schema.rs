//! The dsh dialect's wire shapes that have no Rust type of their own (the engine validates raw
//! JSON and builds its answers as JSON), declared only to be described in the protocol's JSON
//! Schemas.

use schemars::JsonSchema;

use crate::dialect::dsh::ErrorCode;

/// Matches a string holding at least one non-whitespace character.
const NON_BLANK: &str = r"\S";

/// An `AskUserQuestionRequest` (dsh dialect).
///
/// `null` counts as absent and unknown fields (such as `agent` or `signal`) are ignored. The
/// engine also checks what a schema cannot: ids are unique, option labels are unique within a
/// question, and a `plan-review` intent's `approve` names one of its question's option labels.
/// A request breaking any rule fails `open` and `ask` with error -32010.
#[derive(JsonSchema)]
pub struct AskUserQuestionRequest {
    /// The questions, one tab each, in order (at least one, else `EMPTY_QUESTIONS`).
    #[schemars(length(min = 1))]
    pub questions: Vec<AskUserQuestionItem>,
}

/// One question of a dsh request.
///
/// A question with an `intent` must have a non-blank `detail`.
#[derive(JsonSchema)]
#[schemars(extend(
    "if" = { "properties": { "intent": { "type": "object" } }, "required": ["intent"] },
    "then" = {
        "properties": { "detail": { "type": "string", "pattern": "\\S" } },
        "required": ["detail"]
    }
))]
pub struct AskUserQuestionItem {
    /// Stable id, echoed in the answer exactly as given (non-blank).
    #[schemars(pattern(NON_BLANK))]
    pub id: String,
    /// The question text (non-blank).
    #[schemars(pattern(NON_BLANK))]
    pub question: String,
    /// Supporting text shown with the question (the plan, for a `plan-review` intent).
    pub detail: Option<String>,
    /// Short heading used as the tab label; `Q1`, `Q2`, … by position when absent or blank.
    pub header: Option<String>,
    /// The choices; absent or empty makes a free-text question.
    pub options: Option<Vec<AskUserQuestionOption>>,
    /// More than one option may be selected (default `false`).
    #[serde(rename = "multiSelect")]
    pub multi_select: Option<bool>,
    /// A presentation intent; unknown kinds are shown as a plain option list.
    pub intent: Option<AskUserQuestionIntent>,
}

/// One option of a dsh question: its label is also the value answered.
#[derive(JsonSchema)]
pub struct AskUserQuestionOption {
    /// Shown and answered exactly as given (non-blank; unique within the question).
    #[schemars(pattern(NON_BLANK))]
    pub label: String,
    /// Help text shown under the label.
    pub description: Option<String>,
}

/// A presentation intent of a dsh question.
///
/// A `plan-review` intent must name its `approve` option.
#[derive(JsonSchema)]
#[schemars(extend(
    "if" = { "properties": { "kind": { "const": "plan-review" } }, "required": ["kind"] },
    "then" = { "properties": { "approve": { "type": "string" } }, "required": ["approve"] }
))]
pub struct AskUserQuestionIntent {
    /// `plan-review`: `detail` is the plan and `approve` the option that approves it.
    pub kind: String,
    /// The label of the option that approves.
    pub approve: Option<String>,
}

/// An `AskUserQuestionAnswer`: what a dsh `ask` resolves with on submit.
#[derive(JsonSchema)]
pub struct AskUserQuestionAnswer {
    /// One entry per question, in the order asked.
    pub answers: Vec<AskUserQuestionAnswerItem>,
}

/// The answer to one dsh question.
#[derive(JsonSchema)]
pub struct AskUserQuestionAnswerItem {
    /// The question's id, exactly as asked.
    pub id: String,
    /// The selected option labels in selection order; empty when skipped, and on a single
    /// question that has `custom` text.
    pub selected: Vec<String>,
    /// The free-form answer, trimmed; present only when non-blank.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(NON_BLANK))]
    pub custom: Option<String>,
}

/// The `result` of a finished dsh flow: the answer, or the error the `ask` failed with.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum DshResult {
    /// The user submitted.
    Answer(AskUserQuestionAnswer),
    /// The user cancelled or the client closed the flow (`ASK_CANCELLED`), the asker aborted
    /// (`ASK_ABORTED`), the deadline passed (`ASK_TIMEOUT`), or the flow was opened without UI
    /// (`NO_PROVIDER`).
    Error(UserQuestionErrorObject),
}

/// A dsh `UserQuestionError`.
#[derive(JsonSchema)]
pub struct UserQuestionErrorObject {
    /// Always `UserQuestionError`.
    #[schemars(extend("const" = "UserQuestionError"))]
    pub name: String,
    /// What kind of failure.
    pub code: ErrorCode,
    /// What went wrong, for people.
    pub message: String,
}

/// The `data` of JSON-RPC error -32010.
#[derive(JsonSchema)]
pub struct UserQuestionErrorData {
    /// Always `UserQuestionError`.
    #[schemars(extend("const" = "UserQuestionError"))]
    pub name: String,
    /// What kind of failure.
    pub code: ErrorCode,
}
