//! One ask from the engine's point of view: a payload opened into a flow (or into an
//! immediate result), keys and direct operations applied to it, and its result.
//!
//! This is the pure entry point the protocol shell drives; it knows nothing of ids,
//! transports or other sessions.

use std::sync::Arc;

use serde_json::Value;

use crate::answer_set::parse_pi_answers;
use crate::dsh::{self, UserQuestionError};
use crate::flow::{Flow, FlowError};
use crate::key::Key;
use crate::keymap::Keymap;
use crate::model::{Dialect, FlowSpec, Issue, Outcome};
use crate::payload::{raw_title, validate_pi};
use crate::result::{
    INVALID_TRANSCRIPT, ToolResult, Transcript, flow_result, invalid_input_result,
    non_interactive_result, transcript_call, transcript_result,
};

/// How to open an ask.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// The payload's dialect; `None` infers it (items with `question` rather than `prompt` are dsh).
    pub dialect: Option<Dialect>,
    /// `false` completes at once with the non-interactive result.
    pub has_ui: bool,
    /// The keymap in force for this flow.
    pub keymap: Arc<Keymap>,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            dialect: None,
            has_ui: true,
            keymap: Arc::new(Keymap::default()),
        }
    }
}

/// Transcript result of a dsh ask opened without UI.
pub const NO_PROVIDER_TRANSCRIPT: &str = "No provider";

/// Whether an ask still takes input.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    /// Waiting for the user.
    Open,
    /// Completed; the result is final.
    Done,
}

/// One ask: a live or finished flow, or a payload that failed validation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(
    clippy::large_enum_variant,
    reason = "almost every session is a flow; boxing it would add an indirection to every key"
)]
pub enum Session {
    /// A validated payload and its flow state.
    Flow {
        /// The flow.
        flow: Flow,
        /// Opened without UI: the flow completed at once with the non-interactive result.
        non_interactive: bool,
    },
    /// A pi payload that failed validation; complete from the start.
    Invalid {
        /// The payload's title, when it had one.
        title: Option<String>,
        /// Every validation issue, in order.
        issues: Vec<Issue>,
        /// Labels for the transcript's call line.
        labels: Vec<String>,
    },
}

/// Infers the dialect of a payload: dsh when its first question carries `question` and no `prompt`.
pub fn infer_dialect(payload: &Value) -> Dialect {
    let first = payload
        .get("questions")
        .and_then(Value::as_array)
        .and_then(|q| q.first());
    match first {
        Some(q) if q.get("question").is_some() && q.get("prompt").is_none() => Dialect::Dsh,
        _ => Dialect::Pi,
    }
}

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

/// Why a payload could not be opened at all (as opposed to an invalid pi payload, which
/// opens as a completed `Invalid` session).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    /// A dsh request rejected before any UI (`EMPTY_QUESTIONS`, `BAD_INTENT`, `INVALID_REQUEST`).
    #[error(transparent)]
    UserQuestion(#[from] UserQuestionError),
}

impl Session {
    /// Validates `payload` and opens it.
    pub fn open(payload: &Value, options: &OpenOptions) -> Result<Session, OpenError> {
        let dialect = options.dialect.unwrap_or_else(|| infer_dialect(payload));
        if dialect == Dialect::Dsh {
            let spec = dsh::validate_dsh(payload)?;
            return Ok(Session::from_spec(Arc::new(spec), options));
        }
        match validate_pi(payload) {
            Ok(spec) => Ok(Session::from_spec(Arc::new(spec), options)),
            Err(issues) => Ok(Session::Invalid {
                title: raw_title(payload),
                issues,
                labels: raw_labels(payload),
            }),
        }
    }

    /// Opens a flow on an already validated spec.
    pub fn from_spec(spec: Arc<FlowSpec>, options: &OpenOptions) -> Session {
        let mut flow = Flow::new(spec, options.keymap.clone());
        if !options.has_ui {
            // A fresh flow is open, so cancelling cannot fail.
            let _ = flow.cancel(Outcome::Cancelled);
        }
        Session::Flow {
            flow,
            non_interactive: !options.has_ui,
        }
    }

    /// The flow, unless the payload was invalid.
    pub fn flow(&self) -> Option<&Flow> {
        match self {
            Session::Flow { flow, .. } => Some(flow),
            Session::Invalid { .. } => None,
        }
    }

    /// The flow for changing, or `Completed` when there is none to change.
    pub fn flow_mut(&mut self) -> Result<&mut Flow, FlowError> {
        match self {
            Session::Flow { flow, .. } => Ok(flow),
            Session::Invalid { .. } => Err(FlowError::Completed),
        }
    }

    /// The dialect of the ask.
    pub fn dialect(&self) -> Dialect {
        self.flow().map_or(Dialect::Pi, |f| f.spec().dialect)
    }

    /// The flow's title, if any.
    pub fn title(&self) -> Option<&str> {
        match self {
            Session::Flow { flow, .. } => flow.spec().title.as_deref(),
            Session::Invalid { title, .. } => title.as_deref(),
        }
    }

    /// Open or done.
    pub fn status(&self) -> Status {
        match self.flow() {
            Some(flow) if flow.outcome().is_none() => Status::Open,
            _ => Status::Done,
        }
    }

    /// Applies one key.
    pub fn press(&mut self, key: Key) -> Result<(), FlowError> {
        self.flow_mut()?.press(key)
    }

    /// The pi tool result, once done.
    pub fn tool_result(&self) -> Option<ToolResult> {
        match self {
            Session::Flow {
                flow,
                non_interactive: true,
            } => Some(non_interactive_result(flow.spec())),
            Session::Flow { flow, .. } => flow
                .outcome()
                .map(|outcome| flow_result(flow.spec(), flow.answers(), outcome)),
            Session::Invalid { title, issues, .. } => {
                Some(invalid_input_result(title.as_deref(), issues))
            }
        }
    }

    /// The result as JSON, once done: the pi tool result, or the dsh `{ answer }` / `{ error }`.
    pub fn result(&self) -> Option<Value> {
        if self.dialect() == Dialect::Dsh {
            return self.ask_reply().map(|reply| match reply {
                Ok(answer) => serde_json::json!({ "answer": answer }),
                Err(error) => serde_json::json!({ "error": error.to_json() }),
            });
        }
        self.tool_result()
            .and_then(|result| serde_json::to_value(result).ok())
    }

    /// What a pending `ask` resolves with once done: the pi result, or the dsh answer, or the
    /// dsh error it fails with.
    pub fn ask_reply(&self) -> Option<Result<Value, UserQuestionError>> {
        match self {
            Session::Flow {
                flow,
                non_interactive,
            } if flow.spec().dialect == Dialect::Dsh => {
                let outcome = flow.outcome()?;
                Some(if *non_interactive {
                    Err(dsh::no_provider())
                } else {
                    dsh::ask_outcome(flow.spec(), flow.answers(), outcome)
                })
            }
            _ => self
                .tool_result()
                .and_then(|result| serde_json::to_value(result).ok())
                .map(Ok),
        }
    }

    /// Completes the flow from a whole answer set: the pi shape keyed by question id, or, in
    /// the dsh dialect, also the dsh shape `{ answers: [{ id, selected, custom? }] }`.
    /// Nothing changes when the set is invalid.
    pub fn submit_answer_set(
        &mut self,
        answers: &Value,
        outcome: Outcome,
    ) -> Result<(), FlowError> {
        let flow = self.flow_mut()?;
        if flow.outcome().is_some() {
            return Err(FlowError::Completed);
        }
        let spec = flow.spec();
        let dsh_shape =
            spec.dialect == Dialect::Dsh && answers.get("answers").is_some_and(Value::is_array);
        let parsed = if dsh_shape {
            dsh::parse_dsh_answers(spec, answers)
        } else {
            parse_pi_answers(spec, answers)
        }
        .map_err(FlowError::InvalidAnswers)?;
        flow.submit_answers(parsed, outcome)
    }

    /// The transcript's call and result lines, once done.
    pub fn transcript(&self) -> Option<Transcript> {
        match self {
            Session::Flow {
                flow,
                non_interactive,
            } => {
                let outcome = flow.outcome()?;
                let spec = flow.spec();
                if spec.dialect == Dialect::Dsh {
                    return Some(Transcript {
                        call: dsh::transcript_call(spec),
                        result: if *non_interactive {
                            NO_PROVIDER_TRANSCRIPT.to_owned()
                        } else {
                            dsh::transcript_result(spec, flow.answers(), outcome)
                        },
                    });
                }
                let labels: Vec<&str> = spec.questions.iter().map(|q| q.label.as_str()).collect();
                Some(Transcript {
                    call: transcript_call(&labels),
                    result: transcript_result(spec, flow.answers(), outcome),
                })
            }
            Session::Invalid { labels, .. } => {
                let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
                Some(Transcript {
                    call: transcript_call(&labels),
                    result: INVALID_TRANSCRIPT.to_owned(),
                })
            }
        }
    }
}
