//! The claude dialect: Claude Code's `AskUserQuestion` tool. The request is the tool input a
//! host's `canUseTool` callback (or a `PreToolUse` hook) receives; the result is the
//! `PermissionResult` it returns: `allow` with the answers in `updatedInput`, or `deny`.
//!
//! Mapping of a question onto a [`Question`](crate::core::Question): the question text is its
//! id (answers are keyed by it) and its prompt; `header` is the tab label (`Q1`, … when blank);
//! each option's value and label are its `label` exactly as given; `multiSelect: true` makes a
//! multi question; options' previews show on single-select questions; every question has the
//! `Type your own` row, and takes a question note (Claude Code has one notes field per
//! question). The review offers Submit and Cancel.
//!
//! The `claude` param of `open` takes `{ previewFormat?: "markdown" | "html", unansweredV1?:
//! bool }` ([`Options`]).

mod answers;
mod result;
pub mod schema;
mod validate;

use serde_json::{Value, json};

use crate::core::{Answer, Behaviour, FlowSpec, ReviewAction, Rules, Source, described};
use crate::dialect::shape;
use crate::dialect::{
    AskError, Dialect, Ending, Rejection, SchemaFile, Schemas, Shape, Transcript,
};

pub use answers::split;
pub use result::{
    ABORT_MESSAGE, CANCEL_MESSAGE, CLOSED_MESSAGE, INVALID_HEADING, NO_UI_HEADING, NOTES_ONLY,
    TIMEOUT_MESSAGE, answer_value, cancel_message, flow_result, interrupts, invalid_result, join,
    no_ui_result, transcript_call, transcript_result,
};
pub use validate::{
    MAX_OPTIONS, MAX_QUESTIONS, MIN_OPTIONS, RESERVED_LABEL, html_problem, validate,
};

/// What claude flows offer: a note per question, the `Type your own` row on every question,
/// and Submit and Cancel on the review tab.
pub const RULES: Rules = Rules {
    dialect: "claude",
    notes: true,
    review: &[ReviewAction::Submit, ReviewAction::Cancel],
    exclusive_custom: true,
    free_text: false,
    option_notes: false,
    review_labels: &[],
    checker: None,
    empty: false,
    cursor_on_answer: true,
};

/// The JSON-RPC error code of options that are not valid.
const INVALID_PARAMS: i32 = -32602;

/// How previews are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PreviewFormat {
    /// Markdown or plain text (the default).
    #[default]
    Markdown,
    /// Self-contained HTML fragments, checked as Claude Code checks them.
    Html,
}

/// The `claude` param of `open`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// How previews are written (`previewFormat`).
    pub preview_format: PreviewFormat,
    /// The session advertises `ask_user_question_unanswered_v1` (`unansweredV1`).
    pub unanswered_v1: bool,
}

impl Options {
    /// The options given as the `claude` param (`null` for the defaults).
    pub fn parse(value: &Value) -> Result<Options, AskError> {
        if value.is_null() {
            return Ok(Options::default());
        }
        let refuse = |problem: String| AskError {
            code: INVALID_PARAMS,
            message: format!("invalid params: claude{problem}"),
            data: None,
        };
        let Value::Object(members) = value else {
            return Err(refuse(format!(
                ": expected an object, got {}",
                described(value)
            )));
        };
        let mut options = Options::default();
        for (name, member) in members {
            match (name.as_str(), member) {
                (_, Value::Null) => {}
                ("previewFormat", Value::String(f)) if f == "markdown" => {}
                ("previewFormat", Value::String(f)) if f == "html" => {
                    options.preview_format = PreviewFormat::Html;
                }
                ("previewFormat", _) => {
                    return Err(refuse(format!(
                        ".previewFormat: expected \"markdown\" or \"html\", got {}",
                        described(member)
                    )));
                }
                ("unansweredV1", Value::Bool(b)) => options.unanswered_v1 = *b,
                ("unansweredV1", _) => {
                    return Err(refuse(format!(
                        ".unansweredV1: expected true or false, got {}",
                        described(member)
                    )));
                }
                (other, _) => {
                    return Err(refuse(format!(
                        ".{other}: unknown; expected \"previewFormat\" or \"unansweredV1\""
                    )));
                }
            }
        }
        Ok(options)
    }
}

/// Claude Code's `AskUserQuestion`.
#[derive(Debug, Clone, Copy)]
pub struct Claude;

impl Dialect for Claude {
    fn name(&self) -> &'static str {
        "claude"
    }

    fn description(&self) -> &'static str {
        "Claude Code's `AskUserQuestion` tool."
    }

    fn rules(&self) -> Rules {
        RULES
    }

    fn open(&self, payload: &Value, options: &Value) -> Result<FlowSpec, Rejection> {
        let options = Options::parse(options).map_err(Rejection::Refused)?;
        // An input that fails validation opens finished, denied with every issue.
        let questions = validate(payload, options.preview_format).map_err(|issues| {
            shape::rejection(payload, transcript_call, invalid_result(&issues), issues)
        })?;
        let mut source = validate::echoed(payload);
        source.insert("unansweredV1".to_owned(), json!(options.unanswered_v1));
        Ok(FlowSpec {
            title: None,
            questions,
            rules: RULES,
            requester: None,
            source: Some(Source::new(Value::Object(source))),
            behaviour: Behaviour::default(),
        })
    }

    fn result(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Value {
        match ending {
            Ending::NoUi => no_ui_result(spec),
            Ending::Outcome(outcome) => flow_result(spec, answers, outcome),
        }
    }

    fn transcript(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Transcript {
        shape::transcript(spec, answers, ending, transcript_call, transcript_result)
    }

    /// The shape a host returns (`{ answers: { "<question>": "<answer>" }, annotations? }`),
    /// or one keyed by question text with option values (the labels).
    fn parse_answers(&self, spec: &FlowSpec, answers: &Value) -> Result<Vec<Answer>, String> {
        if answers::is_native(answers) {
            answers::parse(spec, answers)
        } else {
            crate::dialect::pi::parse_answers(spec, answers)
        }
    }

    fn schemas(&self) -> &'static Schemas {
        &SCHEMAS
    }
}

/// The claude dialect's shapes.
static SCHEMAS: Schemas = Schemas {
    files: &[
        SchemaFile {
            name: "claude-request.json",
            exact: true,
            shape: Shape::of::<schema::AskUserQuestionInput>(),
        },
        SchemaFile {
            name: "claude-result.json",
            exact: true,
            shape: Shape::of::<schema::ClaudeResult>(),
        },
    ],
    request: Shape::of::<schema::AskUserQuestionInput>(),
    result: Shape::of::<schema::ClaudeResult>(),
    ask: Shape::of::<schema::ClaudeResult>(),
    answers: Shape::of::<schema::ClaudeAnswers>(),
    options: Some(Shape::of::<schema::ClaudeOptions>()),
    components: &[],
};
