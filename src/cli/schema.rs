//! The machine-readable half of `protocol/`: an OpenRPC document of every method and JSON
//! Schemas of the payloads, the Step, the view and the results, generated from the Rust types
//! (schemars) by `askd schema`. A test fails when the committed files differ from what this
//! module generates, so the documents cannot drift from the code.
//!
//! Two contracts are generated. What the engine writes (Steps, views, results) is described
//! exactly: an optional field is absent, never `null`. What the engine reads leniently (payloads
//! and params, where `null` counts as absent) allows `null` wherever an optional field does.
//! Every schema uses JSON Schema 2020-12 keywords that draft-07 understands alike, so that the
//! OpenRPC document's component schemas load in either dialect.
//!
//! The types in this module exist only to be described: the engine validates raw JSON itself
//! and builds its replies as JSON (`server`), so the wire shapes that have no Rust type of
//! their own are declared here, or by each dialect ([`Dialect::schemas`]), which this module
//! reaches through [`DIALECTS`] alone.
//!
//! [`Dialect::schemas`]: crate::dialect::Dialect::schemas

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::{JsonSchema, Schema, json_schema};
use serde_json::{Map, Value, json};

use crate::core::{Action, MAX_SEQUENCE};
use crate::dialect::{DIALECTS, Shape};
use crate::server::params::{
    ActivateParams, CancelParams, GetViewParams, InitializeParams, InsertParams, KeyParams,
    KeysParams, OpenParams, RecoverParams, RestoreParams, SaveCustomParams, SessionParams,
    SetDraftParams, SetNoteParams, SubmitAnswersParams, SubscribeParams,
};
use crate::server::state::{HubStatus, ListedStatus};
use crate::server::{METHODS, Step, StepResult, code};
use crate::session::snapshot;
use crate::view::View;

/// The OpenRPC version the document follows.
pub const OPENRPC_VERSION: &str = "1.2.6";
/// The OpenRPC document's file name inside the output directory.
pub const OPENRPC_FILE: &str = "openrpc.json";
/// The folder of the JSON Schemas inside the output directory.
pub const SCHEMAS_DIR: &str = "schemas";

// ---------------------------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------------------------

/// The schemas of one shape of every dialect, each once, in the order of [`DIALECTS`].
fn of_every_dialect(
    generator: &mut SchemaGenerator,
    shape: fn(&crate::dialect::Schemas) -> Shape,
) -> Vec<Schema> {
    let mut schemas: Vec<Schema> = Vec::with_capacity(DIALECTS.len());
    for dialect in DIALECTS {
        let schema = (shape(dialect.schemas()).sub)(generator);
        if !schemas.contains(&schema) {
            schemas.push(schema);
        }
    }
    schemas
}

/// What a pending `ask` resolves with: what `ask` in one of the dialects resolves with.
pub struct AskResult;

impl JsonSchema for AskResult {
    fn schema_name() -> Cow<'static, str> {
        "AskResult".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let results = of_every_dialect(generator, |s| s.ask);
        json_schema!({
            "description": "What `ask` resolves with, in the shape of its dialect: the pi `ask_user` tool output, the dsh `AskUserQuestionAnswer`, or the value another agent expects back.",
            "oneOf": results,
        })
    }
}

/// The `initialize` result.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The server's name and version.
    pub server_info: ServerInfo,
    /// The protocol version, `1`.
    #[schemars(extend("const" = 1))]
    pub protocol_version: u32,
    /// Every method the server answers.
    pub methods: Vec<String>,
}

/// The server's name and version.
#[derive(JsonSchema)]
pub struct ServerInfo {
    /// Always `askd`.
    #[schemars(extend("const" = "askd"))]
    pub name: String,
    /// The engine's version.
    pub version: String,
}

/// The `close` result.
#[derive(JsonSchema)]
pub struct CloseResult {
    /// Whether a session with that id existed (and is now gone).
    pub closed: bool,
}

/// The `discard` result.
#[derive(JsonSchema)]
pub struct DiscardResult {
    /// Whether a recovered flow with that id was offered (and is now gone, its files with it).
    pub discarded: bool,
}

/// The `snapshot` result.
#[derive(JsonSchema)]
pub struct SnapshotResult {
    /// The session's state, to hand back to `restore`.
    pub state: SnapshotState,
}

/// A session's saved state: versioned JSON, opaque beyond its `format` and `version`.
#[derive(JsonSchema)]
pub struct SnapshotState {
    /// Always `askd.session`.
    #[schemars(extend("const" = snapshot::FORMAT))]
    pub format: String,
    /// The snapshot version (`restore` refuses other versions).
    #[schemars(extend("const" = snapshot::VERSION))]
    pub version: u32,
}

/// Who asked a flow, as `sessions` and `session/opened` list it (what `open`'s `asker` said,
/// each member left out taken from the connection's `clientInfo.name` and from `cwd`).
#[derive(JsonSchema)]
pub struct AskedBy {
    /// The agent's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The folder the agent works in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
}

/// One entry of the `sessions` result.
#[derive(JsonSchema)]
pub struct SessionSummary {
    /// The session id.
    pub session: String,
    /// The flow title, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `open`, `done`, or `recovered` (a flow a process that ended left unfinished, offered
    /// until `recover` resumes it or `discard` drops it).
    pub status: ListedStatus,
    /// Who asked: the agent and its folder, when the flow's opener said or the connection
    /// named itself (absent when neither is known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asker: Option<AskedBy>,
    /// When the flow was opened, in milliseconds since the Unix epoch (a recovered flow whose
    /// state file did not record it, written by an earlier askd: when it was last saved).
    /// Lists are ordered by it, oldest first.
    #[serde(rename = "openedAt")]
    pub opened_at: u64,
    /// A recovered flow: when it was last saved, in milliseconds since the Unix epoch.
    #[serde(rename = "savedAt", skip_serializing_if = "Option::is_none")]
    pub saved_at: Option<u64>,
    /// A recovered flow: how long ago it was last saved, in milliseconds, by the server's
    /// clock. Recovered flows are offered for 7 days after their last save.
    #[serde(rename = "ageMs", skip_serializing_if = "Option::is_none")]
    pub age_ms: Option<u64>,
    /// A recovered flow: how far it got.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
    /// A recovered flow: whether text was typed in it (a custom answer, a note, or a draft in
    /// an open editor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typed: Option<bool>,
}

/// How far a recovered flow got.
#[derive(JsonSchema)]
pub struct Progress {
    /// How many of its questions are answered.
    pub answered: u64,
    /// How many questions it has.
    pub total: u64,
}

// ---------------------------------------------------------------------------------------------
// Params whose Rust type is raw JSON
// ---------------------------------------------------------------------------------------------

/// The `answers` of `submitAnswers`: an answer set keyed by question id (every dialect takes
/// one), or one in the session's dialect's own shape.
pub struct SubmittedAnswers;

impl JsonSchema for SubmittedAnswers {
    fn schema_name() -> Cow<'static, str> {
        "SubmittedAnswers".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let sets = of_every_dialect(generator, |s| s.answers);
        json_schema!({
            "description": "An answer set keyed by question id (every dialect takes one), or one in the shape of the session's dialect: in the dsh dialect an `AskUserQuestionAnswer`, in the others the answer their agent expects back.",
            "anyOf": sets,
        })
    }
}

/// Keymap overrides: `{ "<context>.<action>": ["<key>", ["<key>", "<key>"], ...] }`, each list
/// replacing the keys of that action (an empty list unbinds it; a single string is a one-key
/// list; an inner list of 2 to 4 key names is a key sequence).
pub struct KeymapOverrides;

impl JsonSchema for KeymapOverrides {
    fn schema_name() -> Cow<'static, str> {
        "KeymapOverrides".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = Action::ALL.iter().map(|a| a.name()).collect();
        json_schema!({
            "description": "Keymap overrides `{ \"<context>.<action>\": [\"<key>\", [\"<key>\", \"<key>\"], ...] }`: each list replaces the keys of that action (an empty list unbinds it; a single string is a one-key list; an inner list of 2 to 4 key names is a key sequence, for `main` and `review` actions).",
            "type": "object",
            "propertyNames": { "enum": names },
            "additionalProperties": {
                "anyOf": [
                    { "type": "string" },
                    {
                        "type": "array",
                        "items": {
                            "anyOf": [
                                { "type": "string" },
                                {
                                    "type": "array",
                                    "items": { "type": "string" },
                                    "minItems": 2,
                                    "maxItems": MAX_SEQUENCE,
                                },
                            ],
                        },
                    },
                ],
            },
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------

/// A generator for one contract, with definitions under `definitions_path`.
fn generator(exact: bool, definitions_path: &str) -> SchemaGenerator {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.definitions_path = definitions_path.to_owned().into();
    });
    let settings = if exact {
        settings.for_serialize()
    } else {
        settings.for_deserialize()
    };
    settings.into_generator()
}

/// Removes `null` from the properties an object schema does not require, everywhere inside
/// `value`: in the exact contract an optional field is left out, never written as `null`.
fn strip_optional_nulls(value: &mut Value) {
    match value {
        Value::Object(object) => {
            let required: Vec<String> = object
                .get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Object(properties)) = object.get_mut("properties") {
                for (name, property) in properties.iter_mut() {
                    if !required.contains(name) {
                        drop_null(property);
                    }
                }
            }
            object.values_mut().for_each(strip_optional_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_optional_nulls),
        _ => {}
    }
}

/// Makes a schema that allows `null` beside something else allow only the something else.
fn drop_null(schema: &mut Value) {
    let Value::Object(object) = schema else {
        return;
    };
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            object.insert("type".to_owned(), only);
        }
    }
    let is_null = |s: &Value| s.get("type").is_some_and(|t| t == "null");
    if let Some(Value::Array(alternatives)) = object.get("anyOf")
        && alternatives.iter().any(is_null)
    {
        let rest: Vec<Value> = alternatives
            .iter()
            .filter(|s| !is_null(s))
            .cloned()
            .collect();
        object.remove("anyOf");
        match <[Value; 1]>::try_from(rest) {
            Ok([Value::Object(only)]) => {
                for (k, v) in only {
                    object.entry(k).or_insert(v);
                }
            }
            Ok([only]) => {
                object.insert("anyOf".to_owned(), json!([only]));
            }
            Err(rest) => {
                object.insert("anyOf".to_owned(), Value::Array(rest));
            }
        }
    }
}

/// Joins the lines of every `description` inside `value` that doc comments wrapped, keeping
/// paragraph breaks.
fn unwrap_descriptions(value: &mut Value) {
    match value {
        Value::Object(object) => {
            for (key, item) in object.iter_mut() {
                match item {
                    Value::String(text) if key == "description" => {
                        *text = text
                            .split("\n\n")
                            .map(|paragraph| paragraph.replace('\n', " "))
                            .collect::<Vec<_>>()
                            .join("\n\n");
                    }
                    _ => unwrap_descriptions(item),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// `schema` with its keywords in the conventional order (`$schema`, `title`, `description`,
/// `type`, …, `$defs` last), recursively; property and definition names keep their order;
/// descriptions unwrapped.
fn tidy(mut schema: Value) -> Value {
    unwrap_descriptions(&mut schema);
    match Schema::try_from(schema) {
        Ok(schema) => serde_json::to_value(&schema).unwrap_or_default(),
        Err(_) => Value::Null,
    }
}

/// `map` with its keys in alphabetical order.
fn sorted(map: Map<String, Value>) -> Map<String, Value> {
    let mut entries: Vec<(String, Value)> = map.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().collect()
}

/// The root schema of `shape` as a standalone document with its definitions under `$defs`.
fn root_schema(shape: Shape, exact: bool) -> Value {
    let mut generator = generator(exact, "/$defs");
    let mut schema = (shape.root)(&mut generator).to_value();
    if let Value::Object(object) = &mut schema
        && let Some(Value::Object(defs)) = object.remove("$defs")
    {
        object.insert("$defs".to_owned(), Value::Object(sorted(defs)));
    }
    if exact {
        strip_optional_nulls(&mut schema);
    }
    tidy(schema)
}

/// The JSON Schemas of `protocol/schemas/`, as (file name, schema), in a fixed order.
pub fn schemas() -> Vec<(String, Value)> {
    let mut files: Vec<(String, Value)> = DIALECTS
        .iter()
        .flat_map(|d| d.schemas().files)
        .map(|file| (file.name.to_owned(), root_schema(file.shape, file.exact)))
        .collect();
    files.push((
        "step.json".to_owned(),
        root_schema(Shape::of::<Step>(), true),
    ));
    files.push((
        "view.json".to_owned(),
        root_schema(Shape::of::<View>(), true),
    ));
    files
}

/// The OpenRPC document's generators: lenient for what the engine reads, exact for what it
/// writes; both put their definitions in `components.schemas`.
struct Generators {
    lenient: SchemaGenerator,
    exact: SchemaGenerator,
}

/// How a method's params are described.
type ParamsOf = fn(&mut SchemaGenerator) -> Schema;
/// How a method's result is described.
type ResultOf = fn(&mut SchemaGenerator) -> Schema;

/// One method of the OpenRPC document.
struct MethodDoc {
    summary: &'static str,
    description: &'static str,
    /// The params struct, when the method takes params.
    params: Option<ParamsOf>,
    /// The result's name and schema; `None` for a notification.
    result: Option<(&'static str, &'static str, ResultOf)>,
    /// The JSON-RPC error codes the method can answer.
    errors: &'static [i32],
}

const SESSION_ERRORS: &[i32] = &[code::INVALID_PARAMS, code::UNKNOWN_SESSION];
const CHANGE_ERRORS: &[i32] = &[
    code::INVALID_PARAMS,
    code::UNKNOWN_SESSION,
    code::COMPLETED,
    code::LIMIT,
];

fn step_result(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<Step>()
}

/// The documentation of method `name`, `None` for a name this module does not know.
fn method_doc(name: &str) -> Option<MethodDoc> {
    let step = Some(("step", "The session's Step.", step_result as ResultOf));
    let doc = match name {
        "initialize" => MethodDoc {
            summary: "Sets connection-wide defaults (optional).",
            description: "Sets defaults for later `open`s: `hasUI`, `width`, `allRows`, a keymap preset and keymap overrides. May be called at any time, or never. A test client (a scripted run, a snapshot suite) says `test: true`: it starts clean, offered no recovered flow, and its flows are not kept in the state directory.",
            params: Some(SchemaGenerator::subschema_for::<InitializeParams>),
            result: Some((
                "initializeResult",
                "The server's name and version, the protocol version and every method.",
                SchemaGenerator::subschema_for::<InitializeResult>,
            )),
            errors: &[code::INVALID_PARAMS],
        },
        "open" => MethodDoc {
            summary: "Opens a session on a payload and answers its first Step.",
            description: "Validates the payload in its dialect. An invalid request either opens a session that is already done, with its dialect's negative result and the issues in the Step's `error` (pi's `invalid_input` result), or, in a dialect that refuses invalid requests, fails and creates no session (dsh with -32010, mcp with -32602). With `timeoutMs` the flow ends, cancelled as timed out, when its deadline passes. A recovered flow (listed by `sessions` as `recovered`) of the same `session` id is resumed, draft and all, only with `resume: true` and a request that opens to the same flow; otherwise a new flow opens and the recovered one stays offered.",
            params: Some(SchemaGenerator::subschema_for::<OpenParams>),
            result: step,
            errors: &[code::INVALID_PARAMS, code::LIMIT, code::USER_QUESTION],
        },
        "ask" => MethodDoc {
            summary: "Opens a session and answers once its flow completes.",
            description: "Like `open`, but the response is the finished result, sent when the flow completes through other requests. It never blocks later requests and cannot be part of a batch. In the dsh dialect a cancelled, aborted, timed-out or UI-less flow fails with -32010. `close` on its session, or `$/cancelRequest` with its id, aborts it; with `timeoutMs` the server's timer ends it at its deadline.",
            params: Some(SchemaGenerator::subschema_for::<OpenParams>),
            result: Some((
                "askResult",
                "The result, in the shape of the session's dialect (the dsh answer, in that dialect).",
                SchemaGenerator::subschema_for::<AskResult>,
            )),
            errors: &[
                code::INVALID_REQUEST,
                code::INVALID_PARAMS,
                code::COMPLETED,
                code::LIMIT,
                code::USER_QUESTION,
            ],
        },
        "key" => MethodDoc {
            summary: "Applies one key.",
            description: "Applies one key to the session's flow. An unknown key name is an invalid-params error and changes nothing.",
            params: Some(SchemaGenerator::subschema_for::<KeyParams>),
            result: step,
            errors: CHANGE_ERRORS,
        },
        "keys" => MethodDoc {
            summary: "Applies a list of keys, or a Vim-notation string.",
            description: "Parses every key before applying any; keys after the flow completes are not applied. With `trace`, the Step also carries `steps`, the Step after each key.",
            params: Some(SchemaGenerator::subschema_for::<KeysParams>),
            result: step,
            errors: CHANGE_ERRORS,
        },
        "insert" => MethodDoc {
            summary: "Inserts text at the open editor's cursor (a paste).",
            description: "Inserts text into the open editor; fails with -32003 when no editor is open.",
            params: Some(SchemaGenerator::subschema_for::<InsertParams>),
            result: step,
            errors: &[
                code::INVALID_PARAMS,
                code::UNKNOWN_SESSION,
                code::COMPLETED,
                code::NO_EDITOR,
                code::LIMIT,
            ],
        },
        "activate" => MethodDoc {
            summary: "Acts on what a click or a tap hit.",
            description: "Does what the keys that reach the target do: a tab is entered, a row does what its digit does (a single-choice row is chosen and the flow moves on as Enter does, a multi-choice row toggles, the custom row opens its editor), a review action runs as Enter on it does, a completion item is accepted, the filter and the help overlay open or close, an editor opens. The view's `activatable` says which targets the screen offers; any other is refused with -32602 naming what was wrong, and nothing changes.",
            params: Some(SchemaGenerator::subschema_for::<ActivateParams>),
            result: step,
            errors: &[
                code::INVALID_PARAMS,
                code::UNKNOWN_SESSION,
                code::COMPLETED,
                code::LIMIT,
            ],
        },
        "setDraft" => MethodDoc {
            summary: "Sets the open editor's whole text (a client's own text area).",
            description: "Replaces the open editor's text, normalised as typing normalises it, with the cursor at `caret` (UTF-16 code units, a browser's `selectionEnd`; the end when absent). Nothing is saved: the editor's Enter saves it. Fails with -32003 when no editor is open, -32004 past the text limit, -32602 for a caret past the text's end.",
            params: Some(SchemaGenerator::subschema_for::<SetDraftParams>),
            result: step,
            errors: &[
                code::INVALID_PARAMS,
                code::UNKNOWN_SESSION,
                code::COMPLETED,
                code::NO_EDITOR,
                code::LIMIT,
            ],
        },
        "saveCustom" => MethodDoc {
            summary: "Sets a question's custom answer directly.",
            description: "For clients that edit text in their own input: sets (or, when blank, clears) the custom answer and closes that question's input editor if it is open; `submit: true` then advances like Enter in the input editor.",
            params: Some(SchemaGenerator::subschema_for::<SaveCustomParams>),
            result: step,
            errors: CHANGE_ERRORS,
        },
        "setNote" => MethodDoc {
            summary: "Sets a question note or an option note directly.",
            description: "Sets (or, when blank, clears) the note of a question, or of one of its options with `optionValue`, and closes the matching note editor if it is open.",
            params: Some(SchemaGenerator::subschema_for::<SetNoteParams>),
            result: step,
            errors: CHANGE_ERRORS,
        },
        "submitAnswers" => MethodDoc {
            summary: "Completes the flow from a whole answer set.",
            description: "Completes the flow from answers collected elsewhere (a form, a quick-pick). Anything invalid is refused with -32602 naming the field, and the session stays open and unchanged.",
            params: Some(SchemaGenerator::subschema_for::<SubmitAnswersParams>),
            result: step,
            errors: CHANGE_ERRORS,
        },
        "getView" => MethodDoc {
            summary: "Answers the view.",
            description: "Answers the session's view; `width` renders its `lines` at that width for this call.",
            params: Some(SchemaGenerator::subschema_for::<GetViewParams>),
            result: Some((
                "view",
                "The session's view.",
                SchemaGenerator::subschema_for::<View>,
            )),
            errors: SESSION_ERRORS,
        },
        "getResult" => MethodDoc {
            summary: "Answers the result, or null while the flow is open.",
            description: "Answers the session's result once it is done, `null` before.",
            params: Some(SchemaGenerator::subschema_for::<SessionParams>),
            result: Some((
                "result",
                "The result, or `null` while open.",
                |g| json_schema!({ "oneOf": [g.subschema_for::<StepResult>(), { "type": "null" }] }),
            )),
            errors: SESSION_ERRORS,
        },
        "cancel" => MethodDoc {
            summary: "Cancels the flow (the user), or withdraws the request (the asker).",
            description: "Completes the flow as cancelled by the user (`reason: \"user\"`, the default), aborted by the asker (`reason: \"abort\"`, dsh `ASK_ABORTED`), closed by the client (`reason: \"closed\"`, e.g. its window went away) or, where the review offers Decline, declined (`reason: \"decline\"`, the mcp `decline` action; elsewhere -32602).",
            params: Some(SchemaGenerator::subschema_for::<CancelParams>),
            result: step,
            errors: &[code::INVALID_PARAMS, code::UNKNOWN_SESSION, code::COMPLETED],
        },
        "close" => MethodDoc {
            summary: "Forgets a session.",
            description: "Removes the session; its open flow ends first, aborted when an `ask` waits on it (which then resolves), closed otherwise. Closing an unknown id answers `closed: false`.",
            params: Some(SchemaGenerator::subschema_for::<SessionParams>),
            result: Some((
                "closeResult",
                "Whether the session existed.",
                SchemaGenerator::subschema_for::<CloseResult>,
            )),
            errors: &[code::INVALID_PARAMS],
        },
        "recover" => MethodDoc {
            summary: "Resumes a recovered flow as a live session.",
            description: "Resumes the recovered flow `session` (one a process that ended left unfinished, listed by `sessions` as `recovered`) exactly as it was last saved, draft and cursor included, as a live session of its id or of `as` (needed when a session of its id is open), and answers its Step. Its flow keeps its request, its dialect's options, its deadline and who asked it. An id no recovered flow has fails with -32001.",
            params: Some(SchemaGenerator::subschema_for::<RecoverParams>),
            result: step,
            errors: &[code::INVALID_PARAMS, code::UNKNOWN_SESSION, code::LIMIT],
        },
        "discard" => MethodDoc {
            summary: "Drops a recovered flow.",
            description: "Drops the recovered flow `session` and removes its files from the state directory; answers `discarded: false` when no recovered flow has that id.",
            params: Some(SchemaGenerator::subschema_for::<SessionParams>),
            result: Some((
                "discardResult",
                "Whether a recovered flow had that id.",
                SchemaGenerator::subschema_for::<DiscardResult>,
            )),
            errors: &[code::INVALID_PARAMS],
        },
        "snapshot" => MethodDoc {
            summary: "Saves a session's state.",
            description: "Answers the session's whole state as versioned JSON, for `restore`.",
            params: Some(SchemaGenerator::subschema_for::<SessionParams>),
            result: Some((
                "snapshotResult",
                "The saved state.",
                SchemaGenerator::subschema_for::<SnapshotResult>,
            )),
            errors: SESSION_ERRORS,
        },
        "restore" => MethodDoc {
            summary: "Opens a new session from a snapshot.",
            description: "Checks the snapshot whole (format, version and every invariant) and opens a session in exactly that state.",
            params: Some(SchemaGenerator::subschema_for::<RestoreParams>),
            result: step,
            errors: &[code::INVALID_PARAMS, code::LIMIT],
        },
        "sessions" => MethodDoc {
            summary: "Lists every session held.",
            description: "Answers every session held, the earliest opened first (by `openedAt`), each with its title, status, who asked and when; then, mixed in by `openedAt`, the recovered flows offered: flows that processes which ended (killed, or gone with flows open) left unfinished in the state directory, with status `recovered`, when they were last saved (`savedAt`, `ageMs`), how far they got (`progress`) and whether text was typed (`typed`). Listing reads back the flows of processes that ended since (not for a test client). A recovered flow is offered for 7 days after its last save, or until its request's deadline; `recover` resumes it, `discard` drops it.",
            params: None,
            result: Some((
                "sessions",
                "Every session held, the earliest opened first.",
                |g| json_schema!({ "type": "array", "items": g.subschema_for::<SessionSummary>() }),
            )),
            errors: &[],
        },
        "subscribe" => MethodDoc {
            summary: "Notifies this connection of other connections' changes.",
            description: "From now on, sends this connection `session/opened`, `session/changed` (a Step rendered with this connection's view options) and `session/closed` for the changes other connections make to one session, or to every session (those opened later too) without `session`; adds to an earlier subscription. `width` and `allRows` become this connection's view options for that session (for every session it gave none for, without `session`). `attach: true` (without `session`) marks the connection as a person's client that shows arriving flows: while one is connected, the hub opens no browser page for a new flow. Answers the sessions it covers that are held now, the earliest opened first.",
            params: Some(SchemaGenerator::subschema_for::<SubscribeParams>),
            result: Some((
                "sessions",
                "The sessions the subscription covers, held now, oldest first.",
                |g| json_schema!({ "type": "array", "items": g.subschema_for::<SessionSummary>() }),
            )),
            errors: &[code::INVALID_PARAMS],
        },
        "unsubscribe" => MethodDoc {
            summary: "Stops every notification to this connection.",
            description: "Ends every subscription of this connection; answers `null`.",
            params: None,
            result: Some((
                "null",
                "Always `null`.",
                |_| json_schema!({ "type": "null" }),
            )),
            errors: &[],
        },
        "hub/status" => MethodDoc {
            summary: "Tells what the process is and holds.",
            description: "Answers whether the process is the registered hub (with its addresses, without the token), its pid, version and start time, how many flows wait for an answer, and how many other connections it has and how many of them are attached.",
            params: None,
            result: Some((
                "hubStatus",
                "The process and what it holds.",
                SchemaGenerator::subschema_for::<HubStatus>,
            )),
            errors: &[],
        },
        "shutdown" => MethodDoc {
            summary: "Answers null; `exit` then ends the process.",
            description: "Answers `null`, as LSP clients expect before `exit`.",
            params: None,
            result: Some((
                "null",
                "Always `null`.",
                |_| json_schema!({ "type": "null" }),
            )),
            errors: &[],
        },
        "exit" => MethodDoc {
            summary: "Ends the process (a notification).",
            description: "Ends the process with status 0 without a response; pending `ask`s end with it. End of input does the same.",
            params: None,
            result: None,
            errors: &[],
        },
        _ => return None,
    };
    Some(doc)
}

/// Every error code the protocol answers, with its component name and a short message.
const ERRORS: &[(&str, i32, &str)] = &[
    (
        "ParseError",
        code::PARSE_ERROR,
        "Parse error: the message is not valid JSON (or not UTF-8, or a malformed Content-Length header).",
    ),
    (
        "InvalidRequest",
        code::INVALID_REQUEST,
        "Invalid request: not a JSON-RPC 2.0 request object (or an empty batch, or `ask` inside a batch).",
    ),
    (
        "MethodNotFound",
        code::METHOD_NOT_FOUND,
        "Method not found.",
    ),
    (
        "InvalidParams",
        code::INVALID_PARAMS,
        "Invalid params: the message names the field and what is wrong with it.",
    ),
    (
        "InternalError",
        -32603,
        "Internal error: the request failed; the connection and every other session go on.",
    ),
    (
        "UnknownSession",
        code::UNKNOWN_SESSION,
        "Unknown session: no session has that id.",
    ),
    (
        "SessionCompleted",
        code::COMPLETED,
        "The session has already completed.",
    ),
    ("NoEditor", code::NO_EDITOR, "No editor is open."),
    (
        "LimitExceeded",
        code::LIMIT,
        "A limit was exceeded: message size, number of sessions, payload or text size.",
    ),
    (
        "UserQuestionError",
        code::USER_QUESTION,
        "A dsh UserQuestionError; `data` is `{ name: \"UserQuestionError\", code }`.",
    ),
];

/// A reference to the error component with `code`.
fn error_ref(code: i32) -> Value {
    let name = ERRORS
        .iter()
        .find(|(_, c, _)| *c == code)
        .map_or("InternalError", |(name, _, _)| name);
    json!({ "$ref": format!("#/components/errors/{name}") })
}

/// Per (params type, field): a richer schema for a field whose Rust type is raw JSON.
fn field_override(generators: &mut Generators, params: &str, field: &str) -> Option<Schema> {
    match (params, field) {
        ("SubmitAnswersParams", "answers") => {
            Some(generators.exact.subschema_for::<SubmittedAnswers>())
        }
        ("RestoreParams", "state") => Some(generators.exact.subschema_for::<SnapshotState>()),
        ("OpenParams" | "Capabilities", "keymap") => Some(json_schema!({
            "anyOf": [generators.lenient.subschema_for::<KeymapOverrides>(), { "type": "null" }],
        })),
        _ => None,
    }
}

/// Applies [`field_override`] to every params definition, keeping each field's description.
fn apply_overrides(generators: &mut Generators) {
    let names: Vec<String> = generators.lenient.definitions().keys().cloned().collect();
    for name in names {
        let fields: Vec<String> = generators.lenient.definitions()[&name]
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        for field in fields {
            let Some(schema) = field_override(generators, &name, &field) else {
                continue;
            };
            let property = &mut generators.lenient.definitions_mut()[&name]["properties"][&field];
            let description = property.get("description").cloned();
            *property = schema.to_value();
            if let Some(description) = description {
                property["description"] = description;
            }
        }
    }
}

/// Adds to `open`'s params the options of every dialect that takes some, each as the param
/// named after its dialect.
fn add_dialect_options(generators: &mut Generators) {
    let options: Vec<(&str, Schema)> = DIALECTS
        .iter()
        .filter_map(|d| Some((d.name(), d.schemas().options?)))
        .map(|(name, shape)| (name, (shape.sub)(&mut generators.lenient)))
        .collect();
    let Some(Value::Object(properties)) = generators
        .lenient
        .definitions_mut()
        .get_mut("OpenParams")
        .and_then(|params| params.get_mut("properties"))
    else {
        return;
    };
    for (name, schema) in options {
        properties.insert(
            name.to_owned(),
            json!({
                "description": format!("Options of the {name} dialect, read only when the request is in it."),
                "anyOf": [schema.to_value(), { "type": "null" }],
            }),
        );
    }
}

/// The content descriptors of a params struct's fields, in declaration order.
fn param_descriptors(definition: &Value) -> Vec<Value> {
    let required: Vec<&str> = definition
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = definition.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, schema)| {
            let mut schema = schema.clone();
            let description = match &mut schema {
                Value::Object(object) => object.remove("description"),
                _ => None,
            };
            let mut descriptor = Map::new();
            descriptor.insert("name".to_owned(), json!(name));
            if let Some(description) = description {
                descriptor.insert("description".to_owned(), description);
            }
            descriptor.insert(
                "required".to_owned(),
                json!(required.contains(&name.as_str())),
            );
            descriptor.insert("schema".to_owned(), tidy(schema));
            Value::Object(descriptor)
        })
        .collect()
}

/// The OpenRPC document of every method of the protocol, with every named type in
/// `components.schemas` and every error code in `components.errors`.
///
/// # Panics
///
/// When a type is described differently as read and as written (a programming error that
/// generating the document once reveals).
pub fn openrpc() -> Value {
    let mut generators = Generators {
        lenient: generator(false, "/components/schemas"),
        exact: generator(true, "/components/schemas"),
    };
    // The payload schemas are part of the contract even though `payload` is raw JSON.
    for dialect in DIALECTS {
        let schemas = dialect.schemas();
        (schemas.request.sub)(&mut generators.lenient);
        for component in schemas.components {
            (component.sub)(&mut generators.exact);
        }
    }
    // First every params struct, so that the overrides can be applied to all of them.
    let docs: Vec<(&str, MethodDoc)> = METHODS
        .iter()
        .filter_map(|&name| method_doc(name).map(|doc| (name, doc)))
        .collect();
    let params: Vec<Option<String>> = docs
        .iter()
        .map(|(_, doc)| {
            doc.params.map(|params| {
                let reference = params(&mut generators.lenient);
                reference
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.rsplit('/').next())
                    .unwrap_or_default()
                    .to_owned()
            })
        })
        .collect();
    apply_overrides(&mut generators);
    add_dialect_options(&mut generators);
    let mut methods = Vec::new();
    for ((name, doc), params) in docs.iter().zip(&params) {
        let mut method = Map::new();
        method.insert("name".to_owned(), json!(name));
        method.insert("summary".to_owned(), json!(doc.summary));
        method.insert("description".to_owned(), json!(doc.description));
        method.insert("paramStructure".to_owned(), json!("by-name"));
        let descriptors = params
            .as_ref()
            .map(|p| param_descriptors(&generators.lenient.definitions()[p]))
            .unwrap_or_default();
        method.insert("params".to_owned(), Value::Array(descriptors));
        if let Some((result_name, description, schema)) = doc.result {
            let mut schema = schema(&mut generators.exact).to_value();
            strip_optional_nulls(&mut schema);
            method.insert(
                "result".to_owned(),
                json!({ "name": result_name, "description": description, "schema": tidy(schema) }),
            );
        }
        method.insert(
            "errors".to_owned(),
            Value::Array(doc.errors.iter().map(|&c| error_ref(c)).collect()),
        );
        methods.push(Value::Object(method));
    }
    let mut schemas = generators.lenient.take_definitions(true);
    let mut exact = Value::Object(generators.exact.take_definitions(true));
    strip_optional_nulls(&mut exact);
    if let Value::Object(exact) = exact {
        for (name, schema) in exact {
            if let Some(lenient) = schemas.get(&name) {
                // One name, one schema: a type read and written alike must be described alike.
                assert_eq!(
                    *lenient, schema,
                    "schema {name} differs between what the engine reads and what it writes"
                );
            }
            schemas.insert(name, schema);
        }
    }
    let schemas: Map<String, Value> = sorted(schemas)
        .into_iter()
        .map(|(name, schema)| (name, tidy(schema)))
        .collect();
    let errors: Map<String, Value> = ERRORS
        .iter()
        .map(|(name, code, message)| {
            (
                (*name).to_owned(),
                json!({ "code": code, "message": message }),
            )
        })
        .collect();
    let mut doc = json!({
        "openrpc": OPENRPC_VERSION,
        "info": {
            "title": "askd",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "A headless engine for structured \"ask the user\" flows, speaking JSON-RPC 2.0 on stdin/stdout. protocol/README.md describes the transport, the lifecycle, the view, the keys and both dialects.",
        },
        "methods": methods,
        "components": {
            "schemas": Value::Object(schemas),
            "errors": Value::Object(errors),
        },
    });
    unwrap_descriptions(&mut doc);
    doc
}

/// `value` as the files hold it: pretty JSON with a trailing newline.
pub fn to_text(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Every generated file as (path relative to the output directory, text).
pub fn files() -> Vec<(PathBuf, String)> {
    let mut files = vec![(PathBuf::from(OPENRPC_FILE), to_text(&openrpc()))];
    files.extend(
        schemas()
            .into_iter()
            .map(|(name, schema)| (Path::new(SCHEMAS_DIR).join(name), to_text(&schema))),
    );
    files
}

/// Writes every generated file under `dir`, and removes the `.json` files of `dir/schemas/`
/// that are no longer generated. Returns the paths written.
pub fn write(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let files = files();
    std::fs::create_dir_all(dir.join(SCHEMAS_DIR))?;
    for entry in std::fs::read_dir(dir.join(SCHEMAS_DIR))? {
        let path = entry?.path();
        let generated = files.iter().any(|(name, _)| dir.join(name) == path);
        if !generated && path.extension().is_some_and(|e| e == "json") {
            std::fs::remove_file(&path)?;
        }
    }
    let mut written = Vec::with_capacity(files.len());
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text)?;
        written.push(path);
    }
    Ok(written)
}
