//! The opencode dialect: opencode's `question` tool. The request is a `QuestionRequest` (or the
//! tool's bare input); the result is the body of `POST /question/{id}/reply`, or `{ rejected:
//! true }` when the host should `POST /question/{id}/reject`.
//!
//! Mapping of a question onto a [`Question`](crate::core::Question): questions are keyed by
//! position (ids `q1`, `q2`, …); `header` is the tab label (`Q1`, … when blank); `question` the
//! prompt; each option's value and label are its `label` exactly as given; `multiple: true`
//! makes a multi question; `custom` (default `true`) adds a `Type your own answer` row, and no
//! options make a free-text question. There are no notes (opencode has nowhere to put them).
//! The review offers Submit and Dismiss.

mod result;
pub mod schema;
mod validate;

use serde_json::Value;

use crate::core::{Answer, Behaviour, FlowSpec, ReviewAction, Rules};
use crate::dialect::shape;
use crate::dialect::{Dialect, Ending, Rejection, SchemaFile, Schemas, Shape, Transcript};

pub use result::{answer_list, flow_result, rejected, reply, transcript_call, transcript_result};
pub use validate::{
    CUSTOM_LABEL, NO_ANSWER_DESCRIPTION, NO_ANSWER_LABEL, is_request, question_id, validate,
};

/// What opencode flows offer: no notes, free-text questions, requests without questions, and
/// Submit and Dismiss on the review tab (a question that offers neither options nor an answer
/// of one's own has an inert row saying so, and is left unanswered).
pub const RULES: Rules = Rules {
    dialect: "opencode",
    notes: false,
    review: &[ReviewAction::Submit, ReviewAction::Cancel],
    exclusive_custom: true,
    free_text: true,
    option_notes: false,
    review_labels: &[(ReviewAction::Cancel, "Dismiss")],
    checker: None,
    empty: true,
    cursor_on_answer: true,
};

/// opencode's `question` tool.
#[derive(Debug, Clone, Copy)]
pub struct Opencode;

impl Dialect for Opencode {
    fn name(&self) -> &'static str {
        "opencode"
    }

    fn description(&self) -> &'static str {
        "opencode's `question` tool."
    }

    fn rules(&self) -> Rules {
        RULES
    }

    /// A `QuestionRequest`: `sessionID` beside `questions`.
    fn recognises(&self, payload: &Value) -> bool {
        is_request(payload) && payload.get("questions").is_some()
    }

    fn open(&self, payload: &Value, _options: &Value) -> Result<FlowSpec, Rejection> {
        // A request that fails validation opens finished, rejected.
        let questions = validate(payload)
            .map_err(|issues| shape::rejection(payload, transcript_call, rejected(), issues))?;
        Ok(FlowSpec {
            title: None,
            questions,
            rules: RULES,
            requester: None,
            source: None,
            behaviour: Behaviour::default(),
        })
    }

    fn result(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Value {
        match ending {
            Ending::NoUi => rejected(),
            Ending::Outcome(outcome) => flow_result(spec, answers, outcome),
        }
    }

    fn transcript(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Transcript {
        shape::transcript(spec, answers, ending, transcript_call, transcript_result)
    }

    /// A reply (`{ answers: [[ … ], …] }`), or an answer set keyed by question id (`q1`, …)
    /// with option values (the labels).
    fn parse_answers(&self, spec: &FlowSpec, answers: &Value) -> Result<Vec<Answer>, String> {
        if result::is_reply(answers) {
            result::parse_reply(spec, answers)
        } else {
            crate::dialect::pi::parse_answers(spec, answers)
        }
    }

    fn schemas(&self) -> &'static Schemas {
        &SCHEMAS
    }
}

/// The opencode dialect's shapes.
static SCHEMAS: Schemas = Schemas {
    files: &[
        SchemaFile {
            name: "opencode-request.json",
            exact: false,
            shape: Shape::of::<schema::QuestionRequest>(),
        },
        SchemaFile {
            name: "opencode-result.json",
            exact: true,
            shape: Shape::of::<schema::OpencodeResult>(),
        },
    ],
    request: Shape::of::<schema::QuestionRequest>(),
    result: Shape::of::<schema::OpencodeResult>(),
    ask: Shape::of::<schema::OpencodeResult>(),
    answers: Shape::of::<schema::QuestionReply>(),
    options: None,
    components: &[],
};
