//! The pi dialect's wire shapes that have no Rust type of their own (the engine validates raw
//! JSON itself), declared only to be described in the protocol's JSON Schemas.

use std::collections::BTreeMap;

use schemars::JsonSchema;

use crate::core::QuestionType;

/// Matches a string holding at least one non-whitespace character.
const NON_BLANK: &str = r"\S";

/// The `ask_user` tool input (pi dialect), as the agent sends it.
///
/// `null` counts as absent. The engine also checks what a schema cannot: question ids are
/// unique, option values are unique within a question; a payload breaking any rule is not an
/// error but completes at once with the `invalid_input` result.
#[derive(JsonSchema)]
pub struct PiPayload {
    /// Optional flow title.
    pub title: Option<String>,
    /// The questions, one tab each, in order (at least one).
    #[schemars(length(min = 1))]
    pub questions: Vec<PiQuestion>,
}

/// One question of a pi payload.
///
/// On a `preview` question every option must carry `preview` text.
#[derive(JsonSchema)]
#[schemars(extend(
    "if" = { "properties": { "type": { "const": "preview" } }, "required": ["type"] },
    "then" = {
        "properties": {
            "options": { "items": { "properties": { "preview": { "type": "string" } }, "required": ["preview"] } }
        }
    }
))]
pub struct PiQuestion {
    /// Stable id, unique within the payload, echoed in results (non-blank; trimmed).
    #[schemars(pattern(NON_BLANK))]
    pub id: String,
    /// Tab label (non-blank when given); `Q1`, `Q2`, … by position when absent.
    #[schemars(pattern(NON_BLANK))]
    pub label: Option<String>,
    /// The question text (non-blank; trimmed).
    #[schemars(pattern(NON_BLANK))]
    pub prompt: String,
    /// `single` (the default), `multi` or `preview`.
    #[serde(rename = "type")]
    pub kind: Option<QuestionType>,
    /// Metadata only: never blocks submission (default `false`).
    pub required: Option<bool>,
    /// The options in order (at least one; values unique within the question).
    #[schemars(length(min = 1))]
    pub options: Vec<PiOption>,
}

/// One option of a pi question.
#[derive(JsonSchema)]
pub struct PiOption {
    /// The value results report (non-blank; trimmed).
    #[schemars(pattern(NON_BLANK))]
    pub value: String,
    /// The label shown (non-blank; trimmed).
    #[schemars(pattern(NON_BLANK))]
    pub label: String,
    /// Help text shown under the label (non-blank when given).
    #[schemars(pattern(NON_BLANK))]
    pub description: Option<String>,
    /// Preview text shown beside or below the rows (non-blank when given; required on
    /// `preview` questions).
    #[schemars(pattern(NON_BLANK))]
    pub preview: Option<String>,
}

/// A pi answer set for `submitAnswers`, keyed by question id; questions it does not name stay
/// unanswered.
#[derive(JsonSchema)]
pub struct PiAnswerSet(pub BTreeMap<String, PiAnswerEntry>);

/// The answer to one pi question in a `submitAnswers` answer set.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PiAnswerEntry {
    /// Option values of that question, in selection order (one at most unless `multi`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    /// The free-form answer (not on `preview` questions); blank counts as none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_text: Option<String>,
    /// The question note; blank counts as none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Notes keyed by option value; blank counts as none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub option_notes: Option<BTreeMap<String, String>>,
}
