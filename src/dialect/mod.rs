//! The ask vocabularies: one module per dialect, each turning its agent's request into a flow
//! and a finished flow into the value that agent expects back, behind one trait.
//!
//! A dialect validates its request (paths and messages in its own words) and maps it onto a
//! [`FlowSpec`] whose [`Rules`] say what its flows offer (notes, review
//! actions, free-text questions); it builds the result of every ending, the answers of
//! `submitAnswers`, and the transcript lines. Everything here is pure.
//!
//! Architecture invariant: a dialect imports only `core`; nothing outside this folder names a
//! dialect but [`DIALECTS`], so adding one is a module and a line there.

pub mod dsh;
pub mod pi;

use std::fmt;
use std::sync::LazyLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::core::{Answer, FlowSpec, Issue, Outcome, Rules};

use dsh::Dsh;
use pi::Pi;

/// Every dialect the engine speaks, the default (`pi`) first. Adding a dialect is a line here.
pub static DIALECTS: &[&dyn Dialect] = &[&Pi, &Dsh];

/// The names of [`DIALECTS`], in order, as `open` takes them.
static NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| DIALECTS.iter().map(|d| d.name()).collect());

/// How a finished flow ended, as a dialect answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The flow ran and ended this way.
    Outcome(Outcome),
    /// The flow was opened without a UI and completed at once.
    NoUi,
}

/// Transcript lines for a chat log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Transcript {
    /// The one-line call text.
    pub call: String,
    /// The result text.
    pub result: String,
}

/// A request that fails validation, with what its dialect does about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// The ask opens already done: its result is the dialect's invalid-input result.
    Invalid(Box<Invalid>),
    /// The ask is refused with an error, and no session is created.
    Refused(AskError),
}

/// A request that failed validation but still opens, as a finished ask: what validation found,
/// and the result and transcript its dialect answers with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// The request's title, when it had one.
    pub title: Option<String>,
    /// Every validation issue, in order.
    pub issues: Vec<Issue>,
    /// Best-effort tab labels, for the transcript's call line.
    pub labels: Vec<String>,
    /// The result of the finished ask.
    pub result: Value,
    /// Its transcript lines.
    pub transcript: Transcript,
}

/// An error a dialect answers with instead of a result (a refused request, or a pending `ask`
/// that fails): a JSON-RPC error code, its message and optional data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskError {
    /// The JSON-RPC error code.
    pub code: i32,
    /// What went wrong.
    pub message: String,
    /// Structured detail, when the dialect defines some.
    pub data: Option<Value>,
}

/// One ask vocabulary: how its requests become flows and how its flows answer.
pub trait Dialect: Sync {
    /// The name `open` takes and views carry (`pi`, `dsh`).
    fn name(&self) -> &'static str;

    /// One line saying what the vocabulary is, for the protocol's schemas.
    fn description(&self) -> &'static str;

    /// What the dialect's flows offer.
    fn rules(&self) -> Rules;

    /// Whether a request unmistakably has this dialect's shape, so that `open` may take it in
    /// this dialect without being told.
    fn recognises(&self, _payload: &Value) -> bool {
        false
    }

    /// Validates a request given as arbitrary JSON and maps it onto a flow.
    fn open(&self, payload: &Value) -> Result<FlowSpec, Rejection>;

    /// The result of a finished flow; `answers[i]` belongs to `spec.questions[i]`.
    fn result(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Value;

    /// What a pending `ask` resolves with once the flow has ended: the result, unless the
    /// dialect fails such asks with an error.
    fn ask_reply(
        &self,
        spec: &FlowSpec,
        answers: &[Answer],
        ending: Ending,
    ) -> Result<Value, AskError> {
        Ok(self.result(spec, answers, ending))
    }

    /// The transcript lines of a finished flow.
    fn transcript(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Transcript;

    /// A whole answer set collected outside the flow (`submitAnswers`), checked against the
    /// questions; every error names the offending field.
    fn parse_answers(&self, spec: &FlowSpec, answers: &Value) -> Result<Vec<Answer>, String>;
}

impl PartialEq for dyn Dialect {
    fn eq(&self, other: &dyn Dialect) -> bool {
        self.name() == other.name()
    }
}

impl Eq for dyn Dialect {}

impl fmt::Debug for dyn Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One of [`DIALECTS`], written on the wire as its name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct DialectId(&'static dyn Dialect);

impl DialectId {
    /// The default dialect, `pi`.
    pub const PI: DialectId = DialectId(&Pi);
    /// The dsh dialect.
    pub const DSH: DialectId = DialectId(&Dsh);

    /// The dialect called `name`, if the engine speaks it.
    pub fn named(name: &str) -> Option<DialectId> {
        DIALECTS
            .iter()
            .find(|d| d.name() == name)
            .map(|&d| DialectId(d))
    }

    /// The dialect a request was sent in when `open` does not say: the first dialect that
    /// recognises its shape, else `pi`.
    pub fn infer(payload: &Value) -> DialectId {
        DIALECTS
            .iter()
            .find(|d| d.recognises(payload))
            .map_or(DialectId::PI, |&d| DialectId(d))
    }

    /// The dialect's name.
    pub fn name(self) -> &'static str {
        self.0.name()
    }
}

impl Default for DialectId {
    fn default() -> Self {
        DialectId::PI
    }
}

impl std::ops::Deref for DialectId {
    type Target = dyn Dialect;

    fn deref(&self) -> &(dyn Dialect + 'static) {
        self.0
    }
}

impl fmt::Debug for DialectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for DialectId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for DialectId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        DialectId::named(&name).ok_or_else(|| serde::de::Error::unknown_variant(&name, &NAMES))
    }
}

impl schemars::JsonSchema for DialectId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Dialect".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let variants: Vec<Value> = DIALECTS
            .iter()
            .map(|d| {
                serde_json::json!({
                    "description": d.description(),
                    "type": "string",
                    "const": d.name(),
                })
            })
            .collect();
        schemars::json_schema!({
            "description": "The dialect a flow was asked in.",
            "oneOf": variants,
        })
    }
}
