//! One ask from the engine's point of view: a request opened in its dialect into a flow (or
//! into a finished ask when it failed validation), keys and direct operations applied to it,
//! its result and transcript, and its snapshot ([`snapshot`]).
//!
//! This is the pure entry point the protocol shell drives; it knows nothing of ids,
//! transports or other sessions.
//!
//! Architecture invariant: `session` imports only `core` and `dialect`, and asks its dialect
//! for everything that differs between dialects.

mod behaviour;
pub mod snapshot;

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::core::{
    Behaviour, CancelReason, Flow, FlowError, FlowSpec, Issue, Key, Keymap, Outcome,
};
use crate::dialect::{AskError, DialectId, Ending, Invalid, Rejection, Transcript};

pub use behaviour::{BehaviourOptions, Profile};

/// How to open an ask.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// The request's dialect; `None` infers it ([`DialectId::infer`]).
    pub dialect: Option<DialectId>,
    /// `false` completes at once with the non-interactive result.
    pub has_ui: bool,
    /// The keymap in force for this flow.
    pub keymap: Arc<Keymap>,
    /// When the flow times out, in milliseconds since the Unix epoch (`None`: never).
    pub deadline: Option<u64>,
    /// Options of the dialects by name (the `open` params named after a dialect); the
    /// request's dialect gets its own.
    pub dialect_options: Map<String, Value>,
    /// The behaviour options of the flow.
    pub behaviour: Behaviour,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            dialect: None,
            has_ui: true,
            keymap: Arc::new(Keymap::default()),
            deadline: None,
            dialect_options: Map::new(),
            behaviour: Behaviour::default(),
        }
    }
}

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

/// One ask: a live or finished flow, or a request that failed validation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(
    clippy::large_enum_variant,
    reason = "almost every session is a flow; boxing it would add an indirection to every key"
)]
pub enum Session {
    /// A validated request and its flow state.
    Flow {
        /// The dialect the request came in.
        dialect: DialectId,
        /// The flow.
        flow: Flow,
        /// Opened without UI: the flow completed at once with the non-interactive result.
        non_interactive: bool,
    },
    /// A request that failed validation but opened (pi); complete from the start.
    Invalid {
        /// The dialect the request came in.
        dialect: DialectId,
        /// What validation found, and the result it answers with.
        invalid: Box<Invalid>,
    },
}

impl Session {
    /// Validates `payload` in its dialect and opens it; a refused request is the error its
    /// dialect answers with.
    pub fn open(payload: &Value, options: &OpenOptions) -> Result<Session, AskError> {
        let dialect = options.dialect.unwrap_or_else(|| DialectId::infer(payload));
        let dialect_options = options
            .dialect_options
            .get(dialect.name())
            .unwrap_or(&Value::Null);
        match dialect.open(payload, dialect_options) {
            Ok(spec) => {
                let spec = spec.with_behaviour(options.behaviour);
                Ok(Session::from_spec(dialect, Arc::new(spec), options))
            }
            Err(Rejection::Invalid(invalid)) => Ok(Session::Invalid { dialect, invalid }),
            Err(Rejection::Refused(error)) => Err(error),
        }
    }

    /// Opens a flow on an already validated spec of `dialect` (the spec's behaviour options
    /// apply, not `options.behaviour`).
    pub fn from_spec(dialect: DialectId, spec: Arc<FlowSpec>, options: &OpenOptions) -> Session {
        let mut flow = Flow::new(spec, options.keymap.clone());
        if options.has_ui {
            flow.set_deadline(options.deadline);
        } else {
            // A fresh flow is open, so cancelling cannot fail.
            let _ = flow.cancel(CancelReason::NoUi);
        }
        Session::Flow {
            dialect,
            flow,
            non_interactive: !options.has_ui,
        }
    }

    /// The flow, unless the request was invalid.
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
    pub fn dialect(&self) -> DialectId {
        match self {
            Session::Flow { dialect, .. } | Session::Invalid { dialect, .. } => *dialect,
        }
    }

    /// What validation found, for a request that failed it.
    pub fn issues(&self) -> Option<&[Issue]> {
        match self {
            Session::Invalid { invalid, .. } => Some(&invalid.issues),
            Session::Flow { .. } => None,
        }
    }

    /// Who asks, when the request names its sender.
    pub fn requester(&self) -> Option<&str> {
        self.flow().and_then(|f| f.spec().requester.as_deref())
    }

    /// The flow's title, if any.
    pub fn title(&self) -> Option<&str> {
        match self {
            Session::Flow { flow, .. } => flow.spec().title.as_deref(),
            Session::Invalid { invalid, .. } => invalid.title.as_deref(),
        }
    }

    /// Open or done.
    pub fn status(&self) -> Status {
        match self.flow() {
            Some(flow) if flow.outcome().is_none() => Status::Open,
            _ => Status::Done,
        }
    }

    /// Applies one key; `Up` and `Down` in an editor move by the text's own lines.
    pub fn press(&mut self, key: Key) -> Result<(), FlowError> {
        self.flow_mut()?.press(key)
    }

    /// Applies one key with the open editor's text laid out in `editor_columns` columns
    /// ([`Flow::press_wrapped`]).
    pub fn press_wrapped(&mut self, key: Key, editor_columns: usize) -> Result<(), FlowError> {
        self.flow_mut()?.press_wrapped(key, editor_columns)
    }

    /// Applies the deadline rule at `now` (milliseconds since the Unix epoch): the timeout
    /// ([`Flow::expire`]), or, for a request its dialect says does not wait for its answer, the
    /// submit of what the user committed ([`Flow::expire_submitting`]); answers whether this
    /// ended the flow.
    pub fn expire(&mut self, now: u64) -> bool {
        match self {
            Session::Flow { dialect, flow, .. } if dialect.submits_at_deadline(flow.spec()) => {
                flow.expire_submitting(now)
            }
            Session::Flow { flow, .. } => flow.expire(now),
            Session::Invalid { .. } => false,
        }
    }

    /// The milliseconds the request itself gives the user, when its dialect reads one from it
    /// (codex's `autoResolutionMs`): the shell sets the deadline from it when `open` gives no
    /// `timeoutMs`. `None` once done.
    pub fn time_limit(&self) -> Option<u64> {
        match self {
            Session::Flow { dialect, flow, .. } if flow.outcome().is_none() => {
                dialect.time_limit(flow.spec())
            }
            _ => None,
        }
    }

    /// Sets the deadline of the open flow (milliseconds since the Unix epoch); nothing once
    /// done.
    pub fn set_deadline(&mut self, deadline: u64) {
        if let Session::Flow { flow, .. } = self
            && flow.outcome().is_none()
        {
            flow.set_deadline(Some(deadline));
        }
    }

    /// When the open flow times out (milliseconds since the Unix epoch); `None` without a
    /// timeout and once done.
    pub fn deadline(&self) -> Option<u64> {
        self.flow()
            .filter(|flow| flow.outcome().is_none())
            .and_then(Flow::deadline)
    }

    /// Why the ask ended without an answer: the reason its flow was cancelled with (`no_ui`
    /// when opened without UI), `invalid_input` for a request that failed validation; `None`
    /// while open and after a submit or an elaborate.
    pub fn cancel_reason(&self) -> Option<CancelReason> {
        match self {
            Session::Flow { flow, .. } => flow.outcome().and_then(Outcome::cancel_reason),
            Session::Invalid { .. } => Some(CancelReason::InvalidInput),
        }
    }

    /// How a finished flow ended, as its dialect answers it; `None` while open or invalid.
    fn ending(&self) -> Option<(&Flow, Ending)> {
        match self {
            Session::Flow {
                flow,
                non_interactive: true,
                ..
            } => Some((flow, Ending::NoUi)),
            Session::Flow { flow, .. } => flow.outcome().map(|o| (flow, Ending::Outcome(o))),
            Session::Invalid { .. } => None,
        }
    }

    /// The result as JSON once done, in the dialect's shape (the pi tool output, the dsh
    /// `{ answer }` / `{ error }`, …).
    pub fn result(&self) -> Option<Value> {
        if let Session::Invalid { invalid, .. } = self {
            return Some(invalid.result.clone());
        }
        let (flow, ending) = self.ending()?;
        Some(self.dialect().result(flow.spec(), flow.answers(), ending))
    }

    /// What a pending `ask` resolves with once done: the result, or the error the dialect
    /// fails it with.
    pub fn ask_reply(&self) -> Option<Result<Value, AskError>> {
        if let Session::Invalid { invalid, .. } = self {
            return Some(Ok(invalid.result.clone()));
        }
        let (flow, ending) = self.ending()?;
        Some(
            self.dialect()
                .ask_reply(flow.spec(), flow.answers(), ending),
        )
    }

    /// Completes the flow from a whole answer set, in the shapes its dialect takes.
    /// Nothing changes when the set is invalid.
    pub fn submit_answer_set(
        &mut self,
        answers: &Value,
        outcome: Outcome,
    ) -> Result<(), FlowError> {
        let dialect = self.dialect();
        let flow = self.flow_mut()?;
        if flow.outcome().is_some() {
            return Err(FlowError::Completed);
        }
        let parsed = dialect
            .parse_answers(flow.spec(), answers)
            .map_err(FlowError::InvalidAnswers)?;
        flow.submit_answers(parsed, outcome)
    }

    /// The transcript's call and result lines, once done.
    pub fn transcript(&self) -> Option<Transcript> {
        if let Session::Invalid { invalid, .. } = self {
            return Some(invalid.transcript.clone());
        }
        let (flow, ending) = self.ending()?;
        Some(
            self.dialect()
                .transcript(flow.spec(), flow.answers(), ending),
        )
    }
}
