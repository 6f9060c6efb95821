//! The protocol's own nouns: its error codes, its method names, and the Step every session
//! method answers.

use std::borrow::Cow;

use jsonrpsee::types::ErrorObjectOwned;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::Value;

use crate::core::Issue;
use crate::dialect::{AskError, DIALECTS, Transcript};
use crate::session::Status;
use crate::view::View;

/// JSON-RPC error codes of the protocol.
pub mod code {
    /// Invalid JSON.
    pub const PARSE_ERROR: i32 = -32700;
    /// Not a valid request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Params missing or of the wrong shape.
    pub const INVALID_PARAMS: i32 = -32602;
    /// A request failed inside the server (its method panicked).
    pub const INTERNAL_ERROR: i32 = -32603;
    /// No session has that id.
    pub const UNKNOWN_SESSION: i32 = -32001;
    /// The session has already completed.
    pub const COMPLETED: i32 = -32002;
    /// `insert` needs an open editor.
    pub const NO_EDITOR: i32 = -32003;
    /// A limit was exceeded.
    pub const LIMIT: i32 = -32004;
    /// A dsh `UserQuestionError`.
    pub const USER_QUESTION: i32 = crate::dialect::dsh::USER_QUESTION_CODE;
}

/// Every method the server answers, as `initialize` lists them.
pub const METHODS: &[&str] = &[
    "initialize",
    "open",
    "ask",
    "key",
    "keys",
    "insert",
    "activate",
    "setDraft",
    "saveCustom",
    "setNote",
    "submitAnswers",
    "getView",
    "getResult",
    "cancel",
    "close",
    "snapshot",
    "restore",
    "sessions",
    "recover",
    "discard",
    "subscribe",
    "unsubscribe",
    "hub/status",
    "shutdown",
    "exit",
];

/// A JSON-RPC error without data.
pub fn error(code: i32, message: impl Into<String>) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(code, message.into(), None::<()>)
}

/// A dialect's error as a JSON-RPC error.
pub fn ask_error(e: AskError) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(e.code, e.message, e.data)
}

/// What every method that changes a session answers: `{ session, status, version, view,
/// result?, transcript? }`, and `steps` for a traced `keys`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Step {
    /// The session id.
    pub session: String,
    /// `open` or `done`.
    pub status: Status,
    /// The session's version: 1 when opened, one more with every change any connection
    /// makes, so that a client can tell a stale view from a current one.
    pub version: u64,
    /// The view after the change.
    pub view: View,
    /// The result, present exactly when `status` is `done`, in the shape of the session's
    /// dialect (the pi tool output, the dsh `{ answer }` or `{ error }`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<StepResult>")]
    pub result: Option<Value>,
    /// The transcript lines, present exactly when `status` is `done`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<Transcript>,
    /// What validation found, when the request failed it and opened already done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<StepError>,
    /// `keys` with `trace: true`: the Step after each key applied, in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<Step>>,
}

/// The validation issues of a request that opened already done.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StepError {
    /// Always `invalid_input`.
    #[schemars(extend("const" = "invalid_input"))]
    pub kind: &'static str,
    /// Every issue found, in order.
    pub issues: Vec<Issue>,
}

impl StepError {
    /// The error of a request that failed validation with `issues`.
    pub fn invalid_input(issues: &[Issue]) -> StepError {
        StepError {
            kind: "invalid_input",
            issues: issues.to_vec(),
        }
    }
}

/// A writer into a reply that refuses to pass a number of bytes: a reply over its budget is
/// never built whole, its writing stops at the budget.
pub struct Bounded<'a> {
    out: &'a mut Vec<u8>,
    limit: usize,
    overflowed: bool,
}

impl<'a> Bounded<'a> {
    /// Writes after what `out` holds, up to `limit` bytes in all.
    pub fn new(out: &'a mut Vec<u8>, limit: usize) -> Bounded<'a> {
        Bounded {
            out,
            limit,
            overflowed: false,
        }
    }

    /// Whether a write was refused for passing the budget.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// The bytes written so far (those `out` held before included).
    pub fn bytes(&mut self) -> &mut Vec<u8> {
        self.out
    }
}

impl std::io::Write for Bounded<'_> {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf).map(|()| buf.len())
    }

    // Inlined into the serialiser, as writing to a `Vec` is: a reply is hundreds of writes.
    #[inline(always)]
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        if self.out.len() + buf.len() > self.limit {
            return Err(self.overflow());
        }
        self.out.extend_from_slice(buf);
        Ok(())
    }

    #[inline]
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Bounded<'_> {
    /// Notes that the budget was passed, and the error that stops the writing.
    #[cold]
    #[inline(never)]
    fn overflow(&mut self) -> std::io::Error {
        self.overflowed = true;
        std::io::Error::other("the reply passes its budget")
    }
}

/// The result of a finished flow, as the schemas describe it: the result of one of the
/// dialects, each as its own schema describes it.
pub struct StepResult;

impl JsonSchema for StepResult {
    fn schema_name() -> Cow<'static, str> {
        "StepResult".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let results: Vec<Schema> = DIALECTS
            .iter()
            .map(|d| (d.schemas().result.sub)(generator))
            .collect();
        json_schema!({
            "description": "The result of a finished flow, in the shape of its dialect: the pi `ask_user` tool output, the dsh `{ answer }` or `{ error }`, or the value another agent expects back.",
            "oneOf": results,
        })
    }
}
