//! The params of every protocol method, as typed structs: parsed by the shell and described
//! by the generated OpenRPC document.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::core::Preset;
use crate::dialect::DialectId;
use crate::session::BehaviourOptions;

/// `initialize` params.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    /// Free-form client name and version, for logs.
    pub client_info: Option<Value>,
    /// Connection-wide defaults for later `open`s.
    pub capabilities: Option<Capabilities>,
}

/// Connection-wide defaults set by `initialize`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    /// `false`: flows complete at once with the non-interactive result (pi) or `NO_PROVIDER` (dsh).
    #[serde(rename = "hasUI")]
    pub has_ui: Option<bool>,
    /// Terminal columns: views carry rendered `lines` at this width.
    pub width: Option<usize>,
    /// Views carry every row of a question, not only the window of at most 10 rows that the
    /// screen shows (default `false`).
    pub all_rows: Option<bool>,
    /// Keymap overrides `{ "<context>.<action>": ["<key>", ["<key>", "<key>"], ...] }` (an
    /// inner list is a key sequence), applied after `keymapPreset`.
    pub keymap: Option<Value>,
    /// Bindings added to the defaults before any override: `vim` (`j`/`k`, `h`/`l`, `gg`/`G`,
    /// `ctrl+d`/`ctrl+u`, `q` in options and review focus) or `default` (none).
    pub keymap_preset: Option<Preset>,
    /// Behaviour options for later `open`s: a profile and the four flags (replaces earlier
    /// ones whole).
    pub behaviour: Option<BehaviourOptions>,
}

/// `open` and `ask` params.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenParams {
    /// The tool arguments exactly as the agent sent them; validated by the engine.
    pub payload: Value,
    /// The request's dialect; when absent, inferred from a shape only one dialect has, else
    /// `pi`.
    pub dialect: Option<DialectId>,
    /// The session id to use (e.g. the tool-call id); generated when absent.
    pub session: Option<String>,
    /// `false`: complete at once without UI.
    #[serde(rename = "hasUI")]
    pub has_ui: Option<bool>,
    /// Terminal columns: views carry rendered `lines` at this width.
    pub width: Option<usize>,
    /// Views carry every row of a question, not only the window of at most 10 rows that the
    /// screen shows (default: the connection's, else `false`).
    pub all_rows: Option<bool>,
    /// Root directory for `@` file completion in editors.
    pub cwd: Option<String>,
    /// Keymap overrides for this flow, on top of the connection's.
    pub keymap: Option<Value>,
    /// Bindings added to the defaults before any override, for this flow (default: the
    /// connection's).
    pub keymap_preset: Option<Preset>,
    /// Milliseconds the user has to answer: once they pass with the flow still open, it
    /// completes as cancelled with reason `timeout` (never with an answer). `0` times out at
    /// once. Views carry the deadline.
    pub timeout_ms: Option<u64>,
    /// Behaviour options for this flow, over the connection's: each field given replaces the
    /// connection's, each left out keeps it.
    pub behaviour: Option<BehaviourOptions>,
    /// Every other param: the options of the dialects, each named after its dialect (the
    /// schemas describe them one by one).
    #[serde(flatten)]
    #[schemars(skip)]
    pub dialect_options: Map<String, Value>,
}

/// Params naming just a session.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SessionParams {
    /// The session id.
    pub session: String,
}

/// `key` params.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct KeyParams {
    /// The session id.
    pub session: String,
    /// One key name (`enter`, `shift+tab`, `<C-c>`, `n`, `한`).
    pub key: String,
}

/// A list of key names, or a Vim-notation string.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum KeyList {
    /// Key names, one per key.
    List(Vec<String>),
    /// Vim notation: every plain character is a key, `<...>` a named key (`2<Tab><Space>n`).
    Notation(String),
}

/// `keys` params.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct KeysParams {
    /// The session id.
    pub session: String,
    /// The keys, all parsed before any is applied.
    pub keys: KeyList,
    /// Answer a Step per key in `steps` too.
    #[serde(default)]
    pub trace: bool,
}

/// `insert` params.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct InsertParams {
    /// The session id.
    pub session: String,
    /// Text to insert at the open editor's cursor (a paste).
    pub text: String,
}

/// `saveCustom` params.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SaveCustomParams {
    /// The session id.
    pub session: String,
    /// The question whose custom answer to set.
    pub question_id: String,
    /// The custom answer; blank clears it.
    pub text: String,
    /// Advance like Enter in the input editor.
    #[serde(default)]
    pub submit: bool,
}

/// `setNote` params.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetNoteParams {
    /// The session id.
    pub session: String,
    /// The question.
    pub question_id: String,
    /// The option whose note to set; absent for the question note.
    pub option_value: Option<String>,
    /// The note; blank clears it.
    pub text: String,
}

/// How `submitAnswers` completes the flow.
#[derive(Debug, Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SubmitMode {
    /// `mode: "submit"`.
    Submit,
    /// `mode: "elaborate"` (pi only).
    Elaborate,
}

/// `submitAnswers` params.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SubmitAnswersParams {
    /// The session id.
    pub session: String,
    /// `{ <questionId>: { values?, customText?, note?, optionNotes? } }`, or in the dsh
    /// dialect also `{ answers: [{ id, selected, custom? }] }`.
    pub answers: Value,
    /// `submit` (default) or `elaborate`.
    pub mode: Option<SubmitMode>,
}

/// `getView` params.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetViewParams {
    /// The session id.
    pub session: String,
    /// Render `lines` at this width (overrides the session's width for this call).
    pub width: Option<usize>,
    /// Carry every row, or only the window the screen shows (overrides the session's choice
    /// for this call).
    pub all_rows: Option<bool>,
}

/// Who ends a flow with `cancel`.
#[derive(Debug, Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CancelCause {
    /// The user cancelled (default).
    User,
    /// The asker withdrew the request (dsh `ASK_ABORTED`).
    Abort,
    /// The client closed the flow without an answer, e.g. its window went away (pi
    /// `cancelReason: "closed"`, dsh `ASK_CANCELLED`).
    Closed,
    /// The user declined the request, in a dialect whose review offers Decline.
    Decline,
}

/// `cancel` params.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CancelParams {
    /// The session id.
    pub session: String,
    /// `user` (default), `abort`, `closed` or `decline`.
    pub reason: Option<CancelCause>,
}

/// `restore` params.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RestoreParams {
    /// A `state` from `snapshot`.
    pub state: Value,
    /// The id for the new session; generated when absent.
    pub session: Option<String>,
}
