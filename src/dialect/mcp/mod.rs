//! The mcp dialect: an MCP `elicitation/create` request in form mode, as an MCP client
//! receives it from a server. The request is the request's `params` (`ElicitRequestFormParams`);
//! the result is the `ElicitResult` the client answers with: `{ action: "accept", content }`,
//! `{ action: "decline" }` or `{ action: "cancel" }`. A request the engine cannot ask (URL mode,
//! a malformed form) fails `open` with the JSON-RPC error -32602 the client sends back.
//!
//! Mapping: `message` is the flow's title and the requesting server, named by the host in the
//! `mcp` param of `open`, is shown with it. One tab per property, in the order received: the
//! tab label is `title` or else the key; the prompt `description`, `title` or the key (with
//! both, `title` is the prompt and `description` the detail). Strings and numbers are free text
//! (the editor opens on arrival, its row says what the value must be); booleans are a choice of
//! `Yes` and `No`; enumerations a choice of their values (labelled by their titles or
//! `enumNames`); arrays of an enumeration a multiple choice. Defaults are filled in (a default
//! of the wrong type, outside the enumeration or failing the checks is left out). There are no
//! notes. Values are checked before they are saved, and answers before Accept (the `check` module):
//! the review names every problem, required properties without a value included, and Accept
//! waits until there is none. The review offers Accept, Decline and Cancel. A string's
//! `pattern` (which the specification's prose shows though its schema does not define it) is an
//! ECMA-262 regular expression: an invalid one fails the request, and a value must match it.
//! The form is read once, when the request is opened (a restore opens it again): the spec keeps
//! each property as read, its pattern compiled, and the checks and results read that.

mod check;
mod content;
mod form;
mod pattern;
pub mod schema;

use serde_json::{Map, Value, json};

use crate::core::{
    Answer, Behaviour, Checker, CustomRow, FlowSpec, Issue, OptionItem, Question, QuestionType,
    ReviewAction, Rules, Source, described,
};
use crate::dialect::shape::{self, issue, non_blank};
use crate::dialect::{
    AskError, Dialect, Ending, Rejection, SchemaFile, Schemas, Shape, Transcript,
};

pub use check::{
    REQUIRED, hint, is_date, is_date_time, is_email, is_uri, parse_number, text_problem,
};
pub use content::{UrlElicitation, accept, action, flow_result, transcript_result};
use form::Fields;
pub use form::{
    Choice, Format, Kind, Pattern, Property, Unchecked, VERSION_WITHOUT_ARRAYS, property,
};

/// The JSON-RPC error code of a request the engine cannot ask, and of invalid options.
pub const INVALID_PARAMS: i32 = -32602;

/// The label of the row where a string or number is typed.
pub const VALUE_LABEL: &str = "Enter a value";
/// The label of the row of a field that takes no value; its description says why.
pub const BLOCKED_LABEL: &str = "Cannot be answered";

/// What mcp flows offer: no notes, free-text questions, pre-filled defaults, values checked
/// against the schema, forms without fields, and Accept, Decline and Cancel on the review tab.
pub const RULES: Rules = Rules {
    dialect: "mcp",
    notes: false,
    review: &[
        ReviewAction::Submit,
        ReviewAction::Decline,
        ReviewAction::Cancel,
    ],
    exclusive_custom: true,
    free_text: true,
    option_notes: false,
    review_labels: &[(ReviewAction::Submit, "Accept")],
    checker: Some(Checker {
        text: check::check_text,
        answer: check::check_answer,
    }),
    empty: true,
    cursor_on_answer: true,
};

/// The `mcp` param of `open`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The server that sent the request (`requester`).
    pub requester: Requester,
    /// The protocol revision the session negotiated (`protocolVersion`).
    pub protocol_version: Option<String>,
}

/// The server that sent an elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requester {
    /// Its name, as the client knows it.
    pub name: String,
}

/// The protocol revisions `protocolVersion` may name.
const PROTOCOL_VERSIONS: [&str; 2] = ["2025-06-18", "2025-11-25"];

/// Options that are not valid: `problem` of the member at `path` under `mcp` (`""`: the param
/// itself).
fn bad_options(path: &str, problem: &str) -> AskError {
    AskError {
        code: INVALID_PARAMS,
        message: format!("invalid params: mcp{path}: {problem}"),
        data: None,
    }
}

impl Options {
    /// The options given as the `mcp` param; `None` for `null`.
    pub fn parse(value: &Value) -> Result<Option<Options>, AskError> {
        let expected = |path: &str, what: &str, value: &Value| {
            bad_options(path, &format!("expected {what}, got {}", described(value)))
        };
        let members = match value {
            Value::Null => return Ok(None),
            Value::Object(members) => members,
            other => return Err(expected("", "an object", other)),
        };
        if let Some(unknown) = members
            .keys()
            .find(|k| !matches!(k.as_str(), "requester" | "protocolVersion"))
        {
            return Err(bad_options(
                &format!(".{unknown}"),
                "unknown; expected \"requester\" or \"protocolVersion\"",
            ));
        }
        let requester = match members.get("requester") {
            None => return Err(bad_options(".requester", "missing; expected an object")),
            Some(Value::Object(requester)) => requester,
            Some(other) => return Err(expected(".requester", "an object", other)),
        };
        if let Some(unknown) = requester.keys().find(|k| *k != "name") {
            return Err(bad_options(
                &format!(".requester.{unknown}"),
                "unknown; expected \"name\"",
            ));
        }
        let name = match requester.get("name") {
            Some(Value::String(name)) if name.trim().is_empty() => {
                return Err(bad_options(".requester.name", "must not be blank"));
            }
            Some(Value::String(name)) => name.clone(),
            Some(other) => return Err(expected(".requester.name", "a string", other)),
            None => return Err(bad_options(".requester.name", "missing; expected a string")),
        };
        let protocol_version = match members.get("protocolVersion") {
            None | Some(Value::Null) => None,
            Some(Value::String(v)) if PROTOCOL_VERSIONS.contains(&v.as_str()) => Some(v.clone()),
            Some(other) => {
                return Err(expected(
                    ".protocolVersion",
                    "\"2025-06-18\" or \"2025-11-25\"",
                    other,
                ));
            }
        };
        Ok(Some(Options {
            requester: Requester { name },
            protocol_version,
        }))
    }
}

/// The JSON-RPC error of a request the engine cannot ask: `Invalid params: ` and every issue as
/// `<path>: <message>`, with the issues as `data`.
pub fn refusal(issues: &[Issue]) -> AskError {
    let listed: Vec<String> = issues
        .iter()
        .map(|i| format!("{}: {}", i.path, i.message))
        .collect();
    AskError {
        code: INVALID_PARAMS,
        message: format!("Invalid params: {}", listed.join("; ")),
        data: Some(json!({ "issues": issues })),
    }
}

/// The request's `_meta` and `task`, as the SDK reads them: an object, and an object whose
/// `ttl` is a number. A `_meta` of `null` is taken as absent: Codex writes an elicitation
/// without `_meta` that way when it forwards one (`mcpServer/elicitation/request`).
fn envelope(root: &Map<String, Value>, issues: &mut Vec<Issue>) {
    if root
        .get("_meta")
        .is_some_and(|m| !m.is_object() && !m.is_null())
    {
        issues.push(issue("_meta", "must be an object"));
    }
    match root.get("task") {
        None => {}
        Some(Value::Object(task)) if task.get("ttl").is_none_or(Value::is_number) => {}
        Some(Value::Object(_)) => issues.push(issue("task.ttl", "must be a number")),
        Some(_) => issues.push(issue("task", "must be an object")),
    }
}

/// A URL elicitation (2025-11-25): `message`, `elicitationId` and a `url` that a WHATWG URL
/// parser reads (once trimmed), asked as a flow without fields whose title says what accepting
/// opens; accepting answers `{ action: "accept" }`, and the host opens the URL.
fn url_mode(root: &Map<String, Value>, mut issues: Vec<Issue>) -> Result<FlowSpec, AskError> {
    let message = form::message(root, &mut issues);
    match root.get("elicitationId") {
        Some(Value::String(_)) => {}
        None => issues.push(issue("elicitationId", "is required")),
        Some(_) => issues.push(issue("elicitationId", "must be a string")),
    }
    let url = match root.get("url") {
        Some(Value::String(url)) => match url::Url::parse(url.trim()) {
            Ok(parsed) => Some((url.clone(), parsed)),
            Err(why) => {
                issues.push(issue("url", format!("is not a URL: {why}")));
                None
            }
        },
        None => {
            issues.push(issue("url", "is required"));
            None
        }
        Some(_) => {
            issues.push(issue("url", "must be a string"));
            None
        }
    };
    if !issues.is_empty() {
        return Err(refusal(&issues));
    }
    let (url, parsed) = url.expect("checked above");
    let host = parsed.host_str().unwrap_or("").to_owned();
    let opens = if host.is_empty() {
        format!("Accept to open {url}")
    } else {
        format!("Accept to open {url} (on {host})")
    };
    let title = match non_blank(message) {
        Some(message) => format!("{message} — {opens}"),
        None => opens,
    };
    Ok(FlowSpec {
        title: Some(title),
        questions: Vec::new(),
        rules: RULES,
        requester: None,
        source: Some(Source::new(UrlElicitation {
            url,
            host,
            elicitation_id: root
                .get("elicitationId")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        })),
        behaviour: Behaviour::default(),
    })
}

/// Validates an `ElicitRequestFormParams` (or, with `mode: "url"`, an
/// `ElicitRequestURLParams`) and maps it onto a flow; `arrays` is false for a session of the
/// protocol revision without multi-select schemas.
pub fn validate(request: &Value, arrays: bool) -> Result<FlowSpec, AskError> {
    let mut issues = Vec::new();
    let Some(root) = request.as_object() else {
        return Err(refusal(&[issue("params", "must be an object")]));
    };
    envelope(root, &mut issues);
    match root.get("mode") {
        None => {}
        Some(Value::String(mode)) if mode == "form" => {}
        Some(Value::String(mode)) if mode == "url" => return url_mode(root, issues),
        Some(Value::String(mode)) => issues.push(issue(
            "mode",
            format!("unknown elicitation mode {mode:?}; expected \"form\" or \"url\""),
        )),
        Some(_) => issues.push(issue("mode", "must be a string")),
    }
    let message = form::message(root, &mut issues);
    let mut questions = Vec::new();
    let mut kinds = Vec::new();
    if let Some(form) = form::form(root, &mut issues) {
        for (key, schema) in form.properties {
            let mut problems = Vec::new();
            let found = property(schema, arrays, &mut problems);
            for problem in problems {
                issues.push(issue(&form::property_path(key), problem));
            }
            if let Some(found) = found {
                questions.push(question(key, &found, form.required.contains(&key.as_str())));
                kinds.push(found.kind);
            }
        }
        for key in form.missing {
            let kind = Kind::Blocked {
                reason: "the form requires it but does not describe it".to_owned(),
                whole_form: false,
            };
            let missing = Property {
                title: None,
                description: None,
                kind,
            };
            questions.push(question(key, &missing, true));
            kinds.push(missing.kind);
        }
    }
    if !issues.is_empty() {
        return Err(refusal(&issues));
    }
    let mut spec = FlowSpec {
        title: non_blank(message),
        questions,
        rules: RULES,
        requester: None,
        source: Some(Source::new(Fields(kinds))),
        behaviour: Behaviour::default(),
    };
    drop_failing_defaults(&mut spec);
    Ok(spec)
}

/// The question of property `key`.
fn question(key: &str, property: &Property, required: bool) -> Question {
    let title = non_blank(property.title.as_deref());
    let description = non_blank(property.description.as_deref());
    let (prompt, detail) = match (&title, &description) {
        (Some(title), Some(_)) => (title.clone(), description.clone()),
        _ => (
            description
                .clone()
                .or(title.clone())
                .unwrap_or(key.to_owned()),
            None,
        ),
    };
    let option = |choice: &Choice| OptionItem {
        value: choice.value.clone(),
        label: choice.label.clone(),
        description: None,
        preview: None,
    };
    let row_of = |choices: &[Choice], value: &str| choices.iter().position(|c| c.value == value);
    let mut initial = Answer::default();
    let (kind, options, custom_row) = match &property.kind {
        Kind::Text { default, .. } => {
            initial.custom_text = default.clone().filter(|d| !d.trim().is_empty());
            (QuestionType::Single, Vec::new(), value_row(&property.kind))
        }
        Kind::Number { default, .. } => {
            initial.custom_text = default.as_ref().map(ToString::to_string);
            (QuestionType::Single, Vec::new(), value_row(&property.kind))
        }
        Kind::Boolean { default } => {
            let choices = [("true", "Yes"), ("false", "No")].map(|(value, label)| Choice {
                value: value.to_owned(),
                label: label.to_owned(),
            });
            initial.selected = default.map(|d| usize::from(!d)).into_iter().collect();
            (
                QuestionType::Single,
                choices.iter().map(option).collect(),
                CustomRow::Absent,
            )
        }
        Kind::One { choices, default } => {
            initial.selected = default
                .as_deref()
                .and_then(|d| row_of(choices, d))
                .into_iter()
                .collect();
            (
                QuestionType::Single,
                choices.iter().map(option).collect(),
                CustomRow::Absent,
            )
        }
        Kind::Blocked { reason, .. } => (
            QuestionType::Single,
            Vec::new(),
            CustomRow::Inert {
                label: BLOCKED_LABEL.to_owned(),
                description: Some(capitalised(reason)),
            },
        ),
        Kind::Many {
            choices, default, ..
        } => {
            for value in default.iter().flatten() {
                if let Some(row) = row_of(choices, value)
                    && !initial.selected.contains(&row)
                {
                    initial.selected.push(row);
                }
            }
            (
                QuestionType::Multi,
                choices.iter().map(option).collect(),
                CustomRow::Absent,
            )
        }
    };
    Question {
        id: key.to_owned(),
        label: title.unwrap_or(key.to_owned()),
        prompt,
        kind,
        required,
        options,
        detail,
        intent: None,
        custom_row,
        secret: false,
        initial,
        asked: None,
    }
}

/// `text` with its first letter upper-cased (askd's name stays as it is written).
fn capitalised(text: &str) -> String {
    if text.starts_with("askd") {
        return text.to_owned();
    }
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The row of a free-text property: `Enter a value`, described by what the value must be.
fn value_row(kind: &Kind) -> CustomRow {
    CustomRow::Labelled {
        label: VALUE_LABEL.to_owned(),
        description: hint(kind),
    }
}

/// Leaves out the pre-filled values that fail the checks (a default shorter than `minLength`,
/// a number out of bounds, more choices than `maxItems`).
fn drop_failing_defaults(spec: &mut FlowSpec) {
    for index in 0..spec.questions.len() {
        let initial = &spec.questions[index].initial;
        if initial.is_empty() {
            continue;
        }
        let text_ok = initial
            .custom_text
            .as_deref()
            .is_none_or(|t| check::check_text(spec, index, t).is_ok());
        if !text_ok || check::check_answer(spec, index, initial).is_err() {
            spec.questions[index].initial = Answer::default();
        }
    }
}

/// MCP elicitation, form mode.
#[derive(Debug, Clone, Copy)]
pub struct Mcp;

impl Dialect for Mcp {
    fn name(&self) -> &'static str {
        "mcp"
    }

    fn description(&self) -> &'static str {
        "MCP `elicitation/create`, form mode."
    }

    fn rules(&self) -> Rules {
        RULES
    }

    /// The `params` of `elicitation/create`: an object with `requestedSchema`.
    fn recognises(&self, payload: &Value) -> bool {
        payload.get("requestedSchema").is_some_and(Value::is_object)
    }

    fn open(&self, payload: &Value, options: &Value) -> Result<FlowSpec, Rejection> {
        let options = Options::parse(options).map_err(Rejection::Refused)?;
        let arrays = options.as_ref().and_then(|o| o.protocol_version.as_deref())
            != Some(VERSION_WITHOUT_ARRAYS);
        let mut spec = validate(payload, arrays).map_err(Rejection::Refused)?;
        spec.requester = options.map(|o| o.requester.name.trim().to_owned());
        Ok(spec)
    }

    fn result(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Value {
        match ending {
            Ending::NoUi => action("cancel"),
            Ending::Outcome(outcome) => flow_result(spec, answers, outcome),
        }
    }

    fn transcript(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Transcript {
        let tool = match &spec.requester {
            Some(name) => format!("elicitation/create from {name}:"),
            None => "elicitation/create".to_owned(),
        };
        let call = match spec.kept::<UrlElicitation>() {
            Some(url) => format!("{tool} open {}", url.url),
            None => shape::call_line(&tool, ("field", "fields"), &shape::labels(spec)),
        };
        Transcript {
            call,
            result: match ending {
                Ending::NoUi => "Not asked: no UI".to_owned(),
                Ending::Outcome(outcome) => transcript_result(spec, answers, outcome),
            },
        }
    }

    /// An `ElicitResult` with `action: "accept"` and its `content`, or an answer set keyed by
    /// property with option values (enumeration values, `true` / `false`) and custom text.
    fn parse_answers(&self, spec: &FlowSpec, answers: &Value) -> Result<Vec<Answer>, String> {
        if content::is_elicit_result(answers) {
            content::parse_elicit_result(spec, answers)
        } else {
            crate::dialect::pi::parse_answers(spec, answers)
        }
    }

    fn schemas(&self) -> &'static Schemas {
        &SCHEMAS
    }
}

/// The mcp dialect's shapes.
static SCHEMAS: Schemas = Schemas {
    files: &[
        SchemaFile {
            name: "mcp-request.json",
            exact: false,
            shape: Shape::of::<schema::ElicitRequestParams>(),
        },
        SchemaFile {
            name: "mcp-result.json",
            exact: true,
            shape: Shape::of::<schema::ElicitResult>(),
        },
    ],
    request: Shape::of::<schema::ElicitRequestParams>(),
    result: Shape::of::<schema::ElicitResult>(),
    ask: Shape::of::<schema::ElicitResult>(),
    answers: Shape::of::<schema::ElicitResult>(),
    options: Some(Shape::of::<schema::McpOptions>()),
    components: &[],
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Flow, FlowError, Keymap, Outcome, parse_sequence};
    use crate::dialect::mcp::pattern::COMPILED;
    use std::sync::Arc;

    /// The patterns compiled on this thread so far.
    fn compiled() -> usize {
        COMPILED.with(std::cell::Cell::get)
    }

    /// A form of a string with a pattern (and a default that matches it) and a required one.
    fn request(pattern: &str) -> Value {
        json!({ "message": "Name the service", "requestedSchema": { "type": "object",
            "properties": {
                "name": { "type": "string", "pattern": pattern, "default": "web" },
                "team": { "type": "string", "minLength": 2 }
            },
            "required": ["team"] } })
    }

    /// The form is read when it opens, its pattern compiled once; checking typed values, the
    /// review's problems, answer sets and clones of the flow compile nothing again. Opening the
    /// request again (as a restore does) reads it again, into an equal spec.
    #[test]
    fn a_pattern_is_compiled_once_per_open() {
        let start = compiled();
        let spec = Mcp.open(&request("^[a-z]+$"), &Value::Null).unwrap();
        assert_eq!(compiled() - start, 1);
        assert_eq!(
            spec.questions[0].initial.custom_text.as_deref(),
            Some("web")
        );

        let mut flow = Flow::new(Arc::new(spec), Arc::new(Keymap::default()));
        for key in parse_sequence("<C-u>API<CR>").unwrap() {
            flow.press(key).unwrap();
        }
        let refusal = "Enter a value that matches the pattern ^[a-z]+$";
        assert_eq!(
            flow.editor().and_then(|e| e.refusal.as_deref()),
            Some(refusal)
        );
        for key in parse_sequence("<C-u>api<CR>x<CR>").unwrap() {
            flow.press(key).unwrap();
        }
        assert_eq!(
            flow.editor().and_then(|e| e.refusal.as_deref()),
            Some("Enter at least 2 characters")
        );
        assert_eq!(flow.answers()[0].custom_text.as_deref(), Some("api"));
        assert!(flow.submit_blocked());
        assert_eq!(flow.problem(0), None);
        assert_eq!(flow.problem(1).as_deref(), Some(REQUIRED));

        let copy = flow.clone();
        assert!(copy.submit_blocked());
        let answers = vec![
            Answer {
                custom_text: Some("API".to_owned()),
                ..Answer::default()
            },
            Answer::default(),
        ];
        assert_eq!(
            flow.submit_answers(answers, Outcome::Submit),
            Err(FlowError::InvalidAnswers(format!(
                "the custom answer of \"name\" is refused: {refusal}"
            )))
        );
        flow.check_invariants().unwrap();
        assert_eq!(compiled() - start, 1);

        let again = Mcp.open(&request("^[a-z]+$"), &Value::Null).unwrap();
        assert_eq!(compiled() - start, 2);
        assert_eq!(flow.spec(), &again);
        let other = Mcp.open(&request("^[a-z]*$"), &Value::Null).unwrap();
        assert_ne!(flow.spec(), &other);
    }
}
