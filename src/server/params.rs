//! The params of every protocol method, as typed structs: parsed by the shell and described
//! by the generated OpenRPC document.
//!
//! Each struct also lists its members with what they must hold ([`Params::FIELDS`]). Params are
//! read with serde; only when that fails are they looked at member by member, so that the error
//! names the param and says, in words, what it must be and what it was
//! (`invalid params: session: expected a string, got the number 5`): serde's own wording never
//! reaches a client.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{DeserializeOwned, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::core::{EditorKind, Preset, Target, described, quoted};
use crate::dialect::{DIALECTS, DialectId};
use crate::session::BehaviourOptions;

/// What a param must hold.
#[derive(Debug, Clone, Copy)]
pub enum Expect {
    /// A string.
    Text,
    /// `true` or `false`.
    Flag,
    /// A non-negative integer.
    Count,
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// The name of a dialect the engine speaks.
    Dialect,
    /// A list of key names, or one string in Vim notation.
    Keys,
    /// An object with these members (and others, which are ignored).
    Object(&'static [Field]),
    /// An object with these members and no other.
    Closed(&'static [Field]),
    /// Any JSON value, checked by the method itself; what it is meant to be, in words.
    Any(&'static str),
}

/// One member of a method's params.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The member's name, as the wire spells it.
    pub name: &'static str,
    /// What it must hold.
    pub expect: Expect,
    /// Whether it must be given (an optional member may also be `null`).
    pub required: bool,
}

const fn required(name: &'static str, expect: Expect) -> Field {
    Field {
        name,
        expect,
        required: true,
    }
}

const fn optional(name: &'static str, expect: Expect) -> Field {
    Field {
        name,
        expect,
        required: false,
    }
}

/// The params of one method: read with serde, described member by member when that fails.
pub trait Params: DeserializeOwned {
    /// Every member, in the order errors look at them.
    const FIELDS: &'static [Field];
    /// Whether the members are checked before serde reads them: for params holding a nested
    /// struct, which serde would also read from an array (by position).
    const CHECK_FIRST: bool = false;

    /// Reads params (`None`: none given, as `{}`); the error is the message of a -32602.
    fn parse(text: Option<&str>) -> Result<Self, String> {
        read(text)
    }
}

/// Reads params of `T` (`None`: none given, as `{}`); the error is the message of a -32602.
fn read<T: Params>(text: Option<&str>) -> Result<T, String> {
    let text = text.unwrap_or("{}");
    if T::CHECK_FIRST
        && let Some(problem) = problem(T::FIELDS, text, "")
    {
        return Err(format!("invalid params: {problem}"));
    }
    serde_json::from_str(text).map_err(|e| {
        let problem = problem(T::FIELDS, text, "").unwrap_or_else(|| {
            // Every shape serde refuses is described above; this is a defect.
            tracing::error!("params refused without a description: {e}");
            "the params do not have this method's shape".into()
        });
        format!("invalid params: {problem}")
    })
}

/// What is wrong with the members of the object `text`, named by their path under `prefix`;
/// `None` when nothing is.
fn problem(fields: &[Field], text: &str, prefix: &str) -> Option<String> {
    let Ok(Members(members)) = serde_json::from_str::<Members>(text) else {
        return Some(format!(
            "{}expected an object of named params",
            if prefix.is_empty() {
                String::new()
            } else {
                format!("{}: ", &prefix[..prefix.len() - 1])
            }
        ));
    };
    for field in fields {
        let path = format!("{prefix}{}", field.name);
        let mut given = members.iter().filter(|(name, _)| name == field.name);
        let Some((_, raw)) = given.next() else {
            if field.required {
                return Some(format!(
                    "{path}: missing; expected {}",
                    expected(field.expect)
                ));
            }
            continue;
        };
        if given.next().is_some() {
            return Some(format!("{path}: given twice"));
        }
        if let Some(problem) = check(field, raw, &path) {
            return Some(problem);
        }
    }
    None
}

/// What is wrong with the value `raw` of `field`, if anything.
fn check(field: &Field, raw: &RawValue, path: &str) -> Option<String> {
    let value: Value = serde_json::from_str(raw.get()).ok()?;
    if value.is_null() && !field.required {
        return None;
    }
    let wrong = || {
        Some(format!(
            "{path}: expected {}, got {}",
            expected(field.expect),
            described(&value)
        ))
    };
    match field.expect {
        Expect::Text if !value.is_string() => wrong(),
        Expect::Flag if !value.is_boolean() => wrong(),
        Expect::Count if value.as_u64().is_none() => wrong(),
        Expect::OneOf(names) if !value.as_str().is_some_and(|v| names.contains(&v)) => wrong(),
        Expect::Dialect if value.as_str().is_none_or(|v| DialectId::named(v).is_none()) => wrong(),
        Expect::Keys => match &value {
            Value::String(_) => None,
            Value::Array(items) => items.iter().enumerate().find_map(|(i, item)| {
                (!item.is_string()).then(|| {
                    format!(
                        "{path}[{i}]: expected a key name (a string), got {}",
                        described(item)
                    )
                })
            }),
            _ => wrong(),
        },
        Expect::Object(_) | Expect::Closed(_) if !value.is_object() => wrong(),
        Expect::Object(members) => problem(members, raw.get(), &format!("{path}.")),
        Expect::Closed(members) => {
            let known = |name: &String| members.iter().any(|f| f.name == name);
            match value.as_object().and_then(|o| o.keys().find(|k| !known(k))) {
                Some(unknown) => Some(format!(
                    "{path}.{unknown}: unknown; expected {}",
                    one_of(&members.iter().map(|f| f.name).collect::<Vec<_>>()).replacen(
                        "one of",
                        "one of the members",
                        1
                    )
                )),
                None => problem(members, raw.get(), &format!("{path}.")),
            }
        }
        _ => None,
    }
}

/// `names` as a choice in words: `"a"`, `"a" or "b"`, `one of "a", "b", "c"`.
fn one_of(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| quoted(n)).collect();
    match quoted.as_slice() {
        [only] => only.clone(),
        [first, second] => format!("{first} or {second}"),
        _ => format!("one of {}", quoted.join(", ")),
    }
}

/// What `expect` asks for, in words.
fn expected(expect: Expect) -> String {
    match expect {
        Expect::Text => "a string".into(),
        Expect::Flag => "true or false".into(),
        Expect::Count => "a non-negative integer".into(),
        Expect::OneOf(names) => one_of(names),
        Expect::Dialect => one_of(&DIALECTS.iter().map(|d| d.name()).collect::<Vec<_>>()),
        Expect::Keys => "a list of key names or a string in Vim notation".into(),
        Expect::Object(_) | Expect::Closed(_) => "an object".into(),
        Expect::Any(what) => what.into(),
    }
}

/// The members of a JSON object in order, repeats included.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                    members.push(entry);
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(MembersVisitor)
    }
}

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
    /// `true`: the client is a test (a scripted run, a snapshot suite). It starts clean: it
    /// is offered no recovered flow (`sessions` lists none, `recover`, `discard` and
    /// `resume` find none, and no flow of an ended process is adopted for it), and the flows
    /// it opens are not kept in the state directory (default `false`).
    pub test: Option<bool>,
}

/// `open` and `ask` params.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenParams {
    /// The tool arguments exactly as the agent sent them; validated by the engine, and kept as
    /// they came (a snapshot holds them).
    #[schemars(with = "Value")]
    pub payload: Box<RawValue>,
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
    /// completes as cancelled with reason `timeout` (never with an answer; a codex request
    /// that does not wait for its answer, `isBlocking: false`, is submitted instead with what
    /// the user committed). `0` times out at once. Views carry the deadline.
    pub timeout_ms: Option<u64>,
    /// Behaviour options for this flow, over the connection's: each field given replaces the
    /// connection's, each left out keeps it.
    pub behaviour: Option<BehaviourOptions>,
    /// Who asks, so that a person can tell flows apart: `sessions` and `session/opened` carry
    /// it. Each member left out defaults: `name` to `initialize`'s `clientInfo.name`, `folder`
    /// to `cwd`.
    pub asker: Option<Asker>,
    /// `true`: when a recovered flow (`sessions` lists it as `recovered`) has this `session`
    /// id and its request opens to the same flow (the same dialect and questions), resume it,
    /// with its draft, instead of opening a new one. Otherwise (and without `resume`) a new
    /// flow opens and the recovered one stays offered, apart from it.
    pub resume: Option<bool>,
    /// The params named after a dialect: the options of that dialect (the schemas describe
    /// them one by one). Read beside the other members, as `payload` is kept raw.
    #[serde(skip)]
    #[schemars(skip)]
    pub dialect_options: Map<String, Value>,
}

/// Who asks a question: the agent (or the tool acting for it) and the project folder it works
/// in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, serde::Serialize, JsonSchema)]
pub struct Asker {
    /// The agent's name, e.g. `claude-code`, `codex`, `opencode`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The folder the agent works in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
}

impl Asker {
    /// Whether it names nobody.
    pub fn is_empty(&self) -> bool {
        self.name.is_none() && self.folder.is_none()
    }
}

/// `recover` params.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecoverParams {
    /// The id of the recovered flow, as `sessions` lists it.
    pub session: String,
    /// The id to resume it under (default: its own), for when a session of its id is open.
    #[serde(rename = "as")]
    pub as_id: Option<String>,
    /// Terminal columns: views carry rendered `lines` at this width.
    pub width: Option<usize>,
    /// Views carry every row of a question (default: the connection's, else `false`).
    pub all_rows: Option<bool>,
    /// Root directory for `@` file completion in editors.
    pub cwd: Option<String>,
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
    #[schemars(extend("default" = false))]
    pub trace: Option<bool>,
}

/// `insert` params.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct InsertParams {
    /// The session id.
    pub session: String,
    /// Text to insert at the open editor's cursor (a paste).
    pub text: String,
}

/// `activate` params.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ActivateParams {
    /// The session id.
    pub session: String,
    /// What was clicked or tapped: exactly one of its members.
    pub target: TargetParams,
}

/// A pointer target: exactly one of `tab`, `row`, `action`, `completion`, `filter`, `help` and
/// `editor` (with `option` for an option note).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetParams {
    /// A tab, by its 0-based index in the view's `tabs`.
    pub tab: Option<usize>,
    /// A row of the active question, by its `index` in the view (1-based, the digit that
    /// selects it).
    pub row: Option<usize>,
    /// A review action, by its 0-based index in the view's `review.actions`.
    pub action: Option<usize>,
    /// An item of the open completion list, by its 0-based index.
    pub completion: Option<usize>,
    /// `true` opens the filter editor of a long list, `false` clears the filter.
    pub filter: Option<bool>,
    /// `true` opens the help overlay, `false` closes it.
    pub help: Option<bool>,
    /// An editor of the active question to open.
    pub editor: Option<EditorKind>,
    /// With `editor: "optionNote"`: the option's value.
    pub option: Option<String>,
}

impl TargetParams {
    /// The core's target; the error is the message of a -32602 when not exactly one member
    /// names a target.
    pub fn target(self) -> Result<Target, String> {
        let mut targets = Vec::with_capacity(1);
        targets.extend(self.tab.map(Target::Tab));
        targets.extend(self.row.map(Target::Row));
        targets.extend(self.action.map(Target::Action));
        targets.extend(self.completion.map(Target::Completion));
        targets.extend(self.filter.map(Target::Filter));
        targets.extend(self.help.map(Target::Help));
        let option = self.option;
        if self.editor.is_none() && option.is_some() {
            return Err("invalid params: target.option: given without editor".into());
        }
        targets.extend(self.editor.map(|kind| Target::Editor(kind, option)));
        match targets.len() {
            1 => Ok(targets.remove(0)),
            0 => Err(format!(
                "invalid params: target: expected one of {TARGETS}, got none"
            )),
            _ => Err(format!(
                "invalid params: target: expected one of {TARGETS}, got several"
            )),
        }
    }
}

/// The members of a target, in words.
const TARGETS: &str =
    "\"tab\", \"row\", \"action\", \"completion\", \"filter\", \"help\" or \"editor\"";

/// `setDraft` params.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SetDraftParams {
    /// The session id.
    pub session: String,
    /// The open editor's whole text.
    pub text: String,
    /// Where the cursor stands, in UTF-16 code units into `text` (a browser's
    /// `selectionEnd`); the end of the text when absent.
    pub caret: Option<usize>,
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
    #[schemars(extend("default" = false))]
    pub submit: Option<bool>,
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

/// `subscribe` params.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeParams {
    /// The session to be notified of; every session (those opened later too) when absent.
    pub session: Option<String>,
    /// Render the `lines` of this connection's Steps and notifications of the session (of
    /// every session it gave no width for, without `session`) at this width from now on.
    pub width: Option<usize>,
    /// Carry every row in this connection's views of the session (of every session, without
    /// `session`) from now on.
    pub all_rows: Option<bool>,
    /// `true`: this connection is a person's client that shows arriving flows (every session,
    /// so no `session` with it). While one is connected, the hub opens no browser page for a
    /// new flow.
    pub attach: Option<bool>,
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
    /// A `state` from `snapshot`, exactly as it came.
    #[schemars(with = "Value")]
    pub state: Box<RawValue>,
    /// The id for the new session; generated when absent.
    pub session: Option<String>,
}

const SESSION: Field = required("session", Expect::Text);
const KEYMAP: Field = optional("keymap", Expect::Any("keymap overrides"));
const HAS_UI: Field = optional("hasUI", Expect::Flag);
const WIDTH: Field = optional("width", Expect::Count);
const ALL_ROWS: Field = optional("allRows", Expect::Flag);
const KEYMAP_PRESET: Field = optional("keymapPreset", Expect::OneOf(&["default", "vim"]));
const BEHAVIOUR: Field = optional(
    "behaviour",
    Expect::Closed(&[
        optional("profile", Expect::OneOf(&["seed", "pi-0.9"])),
        optional("confirmDismissWhenDirty", Expect::Flag),
        optional("doublePressReviewShortcuts", Expect::Flag),
        optional("autoSubmitWhenAnsweredWithoutNotes", Expect::Flag),
        optional("presentSingleAsMulti", Expect::Flag),
        optional("cursorOnAnswer", Expect::Flag),
    ]),
);

impl Params for InitializeParams {
    const FIELDS: &'static [Field] = &[
        optional("clientInfo", Expect::Any("any JSON value")),
        optional(
            "capabilities",
            Expect::Object(&[
                HAS_UI,
                WIDTH,
                ALL_ROWS,
                KEYMAP,
                KEYMAP_PRESET,
                BEHAVIOUR,
                optional("test", Expect::Flag),
            ]),
        ),
    ];
    const CHECK_FIRST: bool = true;
}

impl Params for OpenParams {
    const FIELDS: &'static [Field] = &[
        required(
            "payload",
            Expect::Any("the tool call's arguments (any JSON value)"),
        ),
        optional("dialect", Expect::Dialect),
        optional("session", Expect::Text),
        HAS_UI,
        WIDTH,
        ALL_ROWS,
        optional("cwd", Expect::Text),
        KEYMAP,
        KEYMAP_PRESET,
        optional("timeoutMs", Expect::Count),
        BEHAVIOUR,
        optional(
            "asker",
            Expect::Closed(&[
                optional("name", Expect::Text),
                optional("folder", Expect::Text),
            ]),
        ),
        optional("resume", Expect::Flag),
    ];
    // `behaviour` is a struct, which serde would also read from an array.
    const CHECK_FIRST: bool = true;

    fn parse(text: Option<&str>) -> Result<Self, String> {
        let mut params: OpenParams = read(text)?;
        // `read` found an object of named params.
        if let Some(text) = text
            && let Ok(Members(members)) = serde_json::from_str::<Members>(text)
        {
            for (name, raw) in members {
                if DialectId::named(&name).is_some()
                    && let Ok(value) = serde_json::from_str(raw.get())
                {
                    params.dialect_options.insert(name, value);
                }
            }
        }
        Ok(params)
    }
}

impl Params for RecoverParams {
    const FIELDS: &'static [Field] = &[
        SESSION,
        optional("as", Expect::Text),
        WIDTH,
        ALL_ROWS,
        optional("cwd", Expect::Text),
    ];
}

impl Params for SessionParams {
    const FIELDS: &'static [Field] = &[SESSION];
}

impl Params for KeyParams {
    const FIELDS: &'static [Field] = &[SESSION, required("key", Expect::Text)];
}

impl Params for KeysParams {
    const FIELDS: &'static [Field] = &[
        SESSION,
        required("keys", Expect::Keys),
        optional("trace", Expect::Flag),
    ];
}

impl Params for InsertParams {
    const FIELDS: &'static [Field] = &[SESSION, required("text", Expect::Text)];
}

impl Params for ActivateParams {
    const FIELDS: &'static [Field] = &[
        SESSION,
        required(
            "target",
            Expect::Closed(&[
                optional("tab", Expect::Count),
                optional("row", Expect::Count),
                optional("action", Expect::Count),
                optional("completion", Expect::Count),
                optional("filter", Expect::Flag),
                optional("help", Expect::Flag),
                optional(
                    "editor",
                    Expect::OneOf(&["custom", "questionNote", "optionNote"]),
                ),
                optional("option", Expect::Text),
            ]),
        ),
    ];
    // `target` is a struct, which serde would also read from an array.
    const CHECK_FIRST: bool = true;
}

impl Params for SetDraftParams {
    const FIELDS: &'static [Field] = &[
        SESSION,
        required("text", Expect::Text),
        optional("caret", Expect::Count),
    ];
}

impl Params for SaveCustomParams {
    const FIELDS: &'static [Field] = &[
        SESSION,
        required("questionId", Expect::Text),
        required("text", Expect::Text),
        optional("submit", Expect::Flag),
    ];
}

impl Params for SetNoteParams {
    const FIELDS: &'static [Field] = &[
        SESSION,
        required("questionId", Expect::Text),
        optional("optionValue", Expect::Text),
        required("text", Expect::Text),
    ];
}

impl Params for SubmitAnswersParams {
    const FIELDS: &'static [Field] = &[
        SESSION,
        required("answers", Expect::Any("an answer set")),
        optional("mode", Expect::OneOf(&["submit", "elaborate"])),
    ];
}

impl Params for GetViewParams {
    const FIELDS: &'static [Field] = &[SESSION, WIDTH, ALL_ROWS];
}

impl Params for SubscribeParams {
    const FIELDS: &'static [Field] = &[
        optional("session", Expect::Text),
        WIDTH,
        ALL_ROWS,
        optional("attach", Expect::Flag),
    ];
}

impl Params for CancelParams {
    const FIELDS: &'static [Field] = &[
        SESSION,
        optional(
            "reason",
            Expect::OneOf(&["user", "abort", "closed", "decline"]),
        ),
    ];
}

impl Params for RestoreParams {
    const FIELDS: &'static [Field] = &[
        required("state", Expect::Any("a state from `snapshot`")),
        optional("session", Expect::Text),
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The member lists agree with the structs: the same names, required exactly when the
    /// derived schema requires them, as the OpenRPC document publishes them.
    #[test]
    fn every_member_is_listed_as_the_schema_has_it() {
        fn members<T: Params + JsonSchema>() -> (Vec<String>, Vec<String>, Vec<String>, Vec<String>)
        {
            let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap();
            let mut names: Vec<String> = schema["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            names.sort();
            let mut required: Vec<String> = schema["required"]
                .as_array()
                .map(|r| r.iter().map(|v| v.as_str().unwrap().to_owned()).collect())
                .unwrap_or_default();
            required.sort();
            let mut listed: Vec<String> = T::FIELDS.iter().map(|f| f.name.to_owned()).collect();
            listed.sort();
            let mut listed_required: Vec<String> = T::FIELDS
                .iter()
                .filter(|f| f.required)
                .map(|f| f.name.to_owned())
                .collect();
            listed_required.sort();
            (names, listed, required, listed_required)
        }
        fn agree<T: Params + JsonSchema>() {
            let (names, listed, required, listed_required) = members::<T>();
            assert_eq!(names, listed, "{}", std::any::type_name::<T>());
            assert_eq!(required, listed_required, "{}", std::any::type_name::<T>());
        }
        agree::<InitializeParams>();
        agree::<OpenParams>();
        agree::<SessionParams>();
        agree::<KeyParams>();
        agree::<KeysParams>();
        agree::<InsertParams>();
        agree::<SaveCustomParams>();
        agree::<ActivateParams>();
        agree::<SetDraftParams>();
        agree::<SetNoteParams>();
        agree::<SubmitAnswersParams>();
        agree::<GetViewParams>();
        agree::<CancelParams>();
        agree::<RestoreParams>();
        agree::<RecoverParams>();
        agree::<SubscribeParams>();
        let capabilities = serde_json::to_value(schemars::schema_for!(Capabilities)).unwrap();
        let mut names: Vec<&str> = capabilities["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        names.sort_unstable();
        let Expect::Object(members) = InitializeParams::FIELDS[1].expect else {
            panic!("capabilities is an object");
        };
        let mut listed: Vec<&str> = members.iter().map(|f| f.name).collect();
        listed.sort_unstable();
        assert_eq!(names, listed);
    }
}
