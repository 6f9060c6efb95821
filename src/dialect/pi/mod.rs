//! The pi dialect: the `ask_user` contract (`protocol/behaviour.md` §1–§6). Its payload is validated with
//! every issue collected ([`validate`]); an invalid payload opens as a finished ask whose result
//! is the contract's `invalid_input` result; results, elaborations and transcripts follow
//! the contract ([`flow_result`]); answer sets of `submitAnswers` are keyed by question id
//! ([`parse_answers`]).

mod answers;
mod result;
pub mod schema;
mod validate;

use serde_json::Value;

use crate::core::{Answer, CancelReason, FlowSpec, Issue, Outcome, ReviewAction, Rules};
use crate::dialect::{Dialect, Ending, Invalid, Rejection, SchemaFile, Schemas, Shape, Transcript};

pub use answers::parse_answers;
pub use result::{
    ELABORATE_INSTRUCTION, INVALID_TRANSCRIPT, ToolResult, flow_result, invalid_input_result,
    non_interactive_result, transcript_call, transcript_result,
};
pub use validate::{raw_title, validate};

/// What pi flows offer: notes, and Submit, Elaborate and Cancel on the review tab.
pub const RULES: Rules = Rules {
    dialect: "pi",
    notes: true,
    review: &[
        ReviewAction::Submit,
        ReviewAction::Elaborate,
        ReviewAction::Cancel,
    ],
    exclusive_custom: false,
    free_text: false,
    option_notes: true,
    review_labels: &[],
    checker: None,
    empty: false,
    // pi-ask opens every tab on its first row.
    cursor_on_answer: false,
};

/// The payload of the built-in example flow (`askd demo`): a single question with descriptions and a
/// recommended option, a multi question, and a preview question.
pub const EXAMPLE: &str = r###"{
  "title": "Release plan",
  "questions": [
    {
      "id": "scope",
      "label": "Scope",
      "prompt": "How much should the next release cover?",
      "options": [
        { "value": "patch", "label": "Patch only (Recommended)", "description": "Bug fixes; no new flags or behaviour" },
        { "value": "minor", "label": "Minor", "description": "The new play and demo commands, with their docs" },
        { "value": "major", "label": "Major", "description": "Also rename the protocol methods" }
      ]
    },
    {
      "id": "checks",
      "label": "Checks",
      "type": "multi",
      "prompt": "Which checks must pass before tagging?",
      "options": [
        { "value": "unit", "label": "Unit tests" },
        { "value": "lint", "label": "Clippy with warnings denied" },
        { "value": "screens", "label": "Screen snapshots" }
      ]
    },
    {
      "id": "notes",
      "label": "Notes",
      "type": "preview",
      "prompt": "Which layout for the release notes?",
      "options": [
        { "value": "list", "label": "Bullet list", "preview": "## 0.2.0\n- play: scripted flows\n- demo: the example flow\n- rendered screens" },
        { "value": "table", "label": "Table", "preview": "| change | kind    |\n|--------|---------|\n| play   | feature |\n| demo   | feature |" }
      ]
    }
  ]
}"###;

/// The `ask_user` contract.
#[derive(Debug, Clone, Copy)]
pub struct Pi;

/// Best-effort tab labels of a payload that failed validation, for the transcript call line.
fn raw_labels(payload: &Value) -> Vec<String> {
    let Some(questions) = payload.get("questions").and_then(Value::as_array) else {
        return Vec::new();
    };
    questions
        .iter()
        .enumerate()
        .map(|(i, q)| match q.get("label").and_then(Value::as_str) {
            Some(label) if !label.trim().is_empty() => label.trim().to_owned(),
            _ => format!("Q{}", i + 1),
        })
        .collect()
}

/// A payload that failed validation, opened as a finished ask: its result is the contract's
/// `invalid_input` result, its transcript `Invalid input`.
pub fn invalid(title: Option<String>, issues: Vec<Issue>, labels: Vec<String>) -> Invalid {
    let label_refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    Invalid {
        result: to_json(invalid_input_result(title.as_deref(), &issues)),
        transcript: Transcript {
            call: transcript_call(&label_refs),
            result: INVALID_TRANSCRIPT.to_owned(),
        },
        title,
        issues,
        labels,
    }
}

/// A tool result as JSON (it always serialises).
fn to_json(result: ToolResult) -> Value {
    serde_json::to_value(result).unwrap_or(Value::Null)
}

impl Dialect for Pi {
    fn name(&self) -> &'static str {
        "pi"
    }

    fn rules(&self) -> Rules {
        RULES
    }

    fn description(&self) -> &'static str {
        "The `ask_user` contract."
    }

    fn open(&self, payload: &Value, _options: &Value) -> Result<FlowSpec, Rejection> {
        validate(payload).map_err(|issues| {
            Rejection::Invalid(Box::new(invalid(
                raw_title(payload),
                issues,
                raw_labels(payload),
            )))
        })
    }

    fn result(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Value {
        to_json(match ending {
            Ending::NoUi => non_interactive_result(spec),
            Ending::Outcome(outcome) => flow_result(spec, answers, outcome),
        })
    }

    fn transcript(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Transcript {
        let labels: Vec<&str> = spec.questions.iter().map(|q| q.label.as_str()).collect();
        let outcome = match ending {
            Ending::NoUi => Outcome::Cancelled(CancelReason::NoUi),
            Ending::Outcome(outcome) => outcome,
        };
        Transcript {
            call: transcript_call(&labels),
            result: transcript_result(spec, answers, outcome),
        }
    }

    fn parse_answers(&self, spec: &FlowSpec, answers: &Value) -> Result<Vec<Answer>, String> {
        parse_answers(spec, answers)
    }

    fn schemas(&self) -> &'static Schemas {
        &SCHEMAS
    }
}

/// The pi dialect's shapes: the `ask_user` tool input and output, and answer sets keyed by
/// question id.
static SCHEMAS: Schemas = Schemas {
    files: &[
        SchemaFile {
            name: "pi-payload.json",
            exact: false,
            shape: Shape::of::<schema::PiPayload>(),
        },
        SchemaFile {
            name: "pi-result.json",
            exact: true,
            shape: Shape::of::<ToolResult>(),
        },
    ],
    request: Shape::of::<schema::PiPayload>(),
    result: Shape::of::<ToolResult>(),
    ask: Shape::of::<ToolResult>(),
    answers: Shape::of::<schema::PiAnswerSet>(),
    options: None,
    components: &[],
};
