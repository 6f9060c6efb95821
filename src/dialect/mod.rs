//! The ask vocabularies: one module per dialect, each turning its agent's request into a flow
//! and a finished flow into the value that agent expects back, behind one trait.
//!
//! A dialect validates its request (paths and messages in its own words) and maps it onto a
//! [`FlowSpec`] whose [`Rules`] say what its flows offer (notes, review actions, free-text
//! questions, the checks of values); it builds the result of every ending, the answers of
//! `submitAnswers`, the transcript lines, and says how the protocol's schemas describe its wire
//! shapes ([`Schemas`]). Everything here is pure.
//!
//! Architecture invariant: a dialect imports only `core`; nothing outside this folder names a
//! dialect but [`DIALECTS`], so adding one is a module and a line there.

pub mod claude;
pub mod codex;
pub mod dsh;
pub mod mcp;
pub mod opencode;
pub mod pi;
mod shape;
mod walk;

use std::fmt;
use std::sync::LazyLock;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::core::{Answer, FlowSpec, Issue, Outcome, Rules};

use claude::Claude;
use codex::Codex;
use dsh::Dsh;
use mcp::Mcp;
use opencode::Opencode;
use pi::Pi;

/// Every dialect the engine speaks, the default (`pi`) first. Adding a dialect is a line here.
///
/// `open` without a `dialect` asks them in this order whether they recognise the request
/// ([`Dialect::recognises`]): a dialect recognised by an envelope of its own comes before
/// `dsh`, whose rule (items carrying `question` and `id`) is the loosest.
pub static DIALECTS: &[&dyn Dialect] = &[&Pi, &Claude, &Codex, &Opencode, &Mcp, &Dsh];

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

/// A wire shape as the protocol's JSON Schemas describe it: written as a document of its own,
/// or referred to from another.
#[derive(Clone, Copy)]
pub struct Shape {
    /// The shape as a standalone document, its definitions under the generator's path.
    pub root: fn(&mut SchemaGenerator) -> Schema,
    /// A reference to the shape, its definition added to the generator's.
    pub sub: fn(&mut SchemaGenerator) -> Schema,
}

impl Shape {
    /// The shape of `T`.
    pub const fn of<T: JsonSchema>() -> Shape {
        Shape {
            root: SchemaGenerator::root_schema_for::<T>,
            sub: SchemaGenerator::subschema_for::<T>,
        }
    }
}

/// One file of `protocol/schemas/`.
pub struct SchemaFile {
    /// Its name, e.g. `pi-payload.json`.
    pub name: &'static str,
    /// Described as the engine writes it (an optional field absent, never `null`), or as it
    /// reads it (`null` wherever a field is optional).
    pub exact: bool,
    /// What it describes.
    pub shape: Shape,
}

/// What the protocol's schemas say of a dialect.
pub struct Schemas {
    /// Its files of `protocol/schemas/`, in order.
    pub files: &'static [SchemaFile],
    /// The request `open` takes as `payload`.
    pub request: Shape,
    /// The `result` of its finished flows.
    pub result: Shape,
    /// What an `ask` in the dialect resolves with.
    pub ask: Shape,
    /// An answer set `submitAnswers` takes in the dialect.
    pub answers: Shape,
    /// The `open` param named after the dialect, when it takes one.
    pub options: Option<Shape>,
    /// Further shapes the OpenRPC document names (written by the engine).
    pub components: &'static [Shape],
}

/// One ask vocabulary: how its requests become flows and how its flows answer.
pub trait Dialect: Sync {
    /// The name `open` takes and views carry (`pi`, `dsh`, …).
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

    /// Validates a request given as arbitrary JSON and maps it onto a flow. `options` is the
    /// `open` param named after the dialect (`null` when absent).
    fn open(&self, payload: &Value, options: &Value) -> Result<FlowSpec, Rejection>;

    /// How the protocol's schemas describe the dialect's wire shapes.
    fn schemas(&self) -> &'static Schemas;

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

    /// Whether a flow of `spec` that reaches its deadline submits what the user committed
    /// rather than timing out (a request that does not wait for its answer, codex's
    /// `isBlocking: false`); by default it times out.
    fn submits_at_deadline(&self, _spec: &FlowSpec) -> bool {
        false
    }

    /// The milliseconds the request itself gives the user (codex's `autoResolutionMs`), for
    /// an `open` without `timeoutMs`; by default none.
    fn time_limit(&self, _spec: &FlowSpec) -> Option<u64> {
        None
    }

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
