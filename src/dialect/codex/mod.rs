//! The codex dialect: OpenAI Codex's `request_user_input` tool. The request is the Codex
//! app-server's `item/tool/requestUserInput` params (or the model's bare arguments); the result
//! is the `ToolRequestUserInputResponse` the host sends back: `{ answers: { "<id>": { answers:
//! [ … ] } } }`.
//!
//! Mapping of a question onto a [`Question`](crate::core::Question): `id` is kept exactly as
//! given; `header` is the tab label (`Q1`, … when blank); `question` the prompt; each option's
//! value and label are its `label` exactly as given; questions are single-select (the tool has
//! no multi-select); `isOther` adds a `None of the above` row whose text is sent as the note;
//! no options make a free-text question; `isSecret` masks the typed text. Questions take a
//! note. The review offers Submit and Cancel; no outcome but a submit has answers.
//!
//! An app-server request that does not wait for its answer (`isBlocking: false`, or the
//! legacy `autoResolutionMs`) is submitted at its deadline with what the user committed:
//! `autoResolutionMs` sets that deadline when `open` gives no `timeoutMs`.

mod result;
pub mod schema;
mod validate;

use serde_json::{Value, json};

use crate::core::{Answer, Behaviour, FlowSpec, ReviewAction, Rules, Source};
use crate::dialect::shape;
use crate::dialect::{Dialect, Ending, Rejection, SchemaFile, Schemas, Shape, Transcript};

pub use result::{
    NOTE_PREFIX, empty_response, entries, flow_result, response, transcript_call, transcript_result,
};
pub use validate::{NO_OPTIONS, OTHER_DESCRIPTION, OTHER_LABEL, is_envelope, validate};

/// What codex flows offer: a note per question, free-text questions, requests without
/// questions (Codex sends `questions: []`), and Submit and Cancel on the review tab.
pub const RULES: Rules = Rules {
    dialect: "codex",
    notes: true,
    review: &[ReviewAction::Submit, ReviewAction::Cancel],
    exclusive_custom: true,
    free_text: true,
    option_notes: false,
    review_labels: &[],
    checker: None,
    empty: true,
    cursor_on_answer: true,
};

/// OpenAI Codex's `request_user_input`.
#[derive(Debug, Clone, Copy)]
pub struct Codex;

/// What a spec keeps of an app-server request that does not wait for its answer
/// (`isBlocking: false`, or `autoResolutionMs` given): `{ nonBlocking: true,
/// autoResolutionMs? }`. `None` for a blocking request and for bare arguments.
fn pacing(request: &Value) -> Option<Value> {
    if !is_envelope(request) {
        return None;
    }
    let ms = request.get("autoResolutionMs").and_then(Value::as_u64);
    let blocking = request
        .get("isBlocking")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    if blocking && ms.is_none() {
        return None;
    }
    let mut kept = json!({ "nonBlocking": true });
    if let Some(ms) = ms {
        kept["autoResolutionMs"] = json!(ms);
    }
    Some(kept)
}

impl Dialect for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn description(&self) -> &'static str {
        "OpenAI Codex's `request_user_input` tool."
    }

    fn rules(&self) -> Rules {
        RULES
    }

    /// An app-server request: `threadId`, `turnId` or `itemId` beside `questions`.
    fn recognises(&self, payload: &Value) -> bool {
        is_envelope(payload) && payload.get("questions").is_some()
    }

    fn open(&self, payload: &Value, _options: &Value) -> Result<FlowSpec, Rejection> {
        // A request that fails validation opens finished, with empty answers.
        let questions = validate(payload).map_err(|issues| {
            shape::rejection(payload, transcript_call, empty_response(), issues)
        })?;
        Ok(FlowSpec {
            title: None,
            questions,
            rules: RULES,
            requester: None,
            source: pacing(payload).map(Source::new),
            behaviour: Behaviour::default(),
        })
    }

    fn result(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Value {
        match ending {
            Ending::NoUi => empty_response(),
            Ending::Outcome(outcome) => flow_result(spec, answers, outcome),
        }
    }

    /// A request that does not wait for its answer is submitted at its deadline.
    fn submits_at_deadline(&self, spec: &FlowSpec) -> bool {
        spec.kept::<Value>()
            .is_some_and(|kept| kept.get("nonBlocking") == Some(&Value::Bool(true)))
    }

    /// `autoResolutionMs`, on a request that does not wait for its answer.
    fn time_limit(&self, spec: &FlowSpec) -> Option<u64> {
        spec.kept::<Value>()?.get("autoResolutionMs")?.as_u64()
    }

    fn transcript(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Transcript {
        shape::transcript(spec, answers, ending, transcript_call, transcript_result)
    }

    /// A response (`{ answers: { "<id>": { answers: [ … ] } } }`), or an answer set keyed by
    /// question id with option values (the labels).
    fn parse_answers(&self, spec: &FlowSpec, answers: &Value) -> Result<Vec<Answer>, String> {
        if result::is_response(answers) {
            result::parse_response(spec, answers)
        } else {
            crate::dialect::pi::parse_answers(spec, answers)
        }
    }

    fn schemas(&self) -> &'static Schemas {
        &SCHEMAS
    }
}

/// The codex dialect's shapes.
static SCHEMAS: Schemas = Schemas {
    files: &[
        SchemaFile {
            name: "codex-request.json",
            exact: false,
            shape: Shape::of::<schema::ToolRequestUserInputParams>(),
        },
        SchemaFile {
            name: "codex-result.json",
            exact: true,
            shape: Shape::of::<schema::ToolRequestUserInputResponse>(),
        },
    ],
    request: Shape::of::<schema::ToolRequestUserInputParams>(),
    result: Shape::of::<schema::ToolRequestUserInputResponse>(),
    ask: Shape::of::<schema::ToolRequestUserInputResponse>(),
    answers: Shape::of::<schema::ToolRequestUserInputResponse>(),
    options: None,
    components: &[],
};
