//! Where a hub client asks: the small interface the bridge and the hook need of the hub (open
//! a flow and wait for its end; withdraw it), so that their logic is tested against a host of
//! the test's own.

use std::future::Future;

use serde_json::Value;

/// How a flow asked in the hub ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Ended {
    /// The flow's result, in its dialect's shape.
    pub result: Value,
    /// Why it ended without an answer (the view's `cancelReason`: `user`, `dismissed`,
    /// `aborted`, `timeout`, `closed`, …); `None` after a submit, or when the hub did not say.
    pub cancel_reason: Option<String>,
}

impl Ended {
    /// Whether the person ended the flow themselves without answering (cancelled, dismissed
    /// or declined): the agent is to be told so. Any other unanswered ending (withdrawn, timed
    /// out, closed by a client, or a reason the hub did not say) leaves the question to the
    /// agent's own prompt.
    pub fn person_declined(&self) -> bool {
        matches!(
            self.cancel_reason.as_deref(),
            Some("user" | "dismissed" | "declined")
        )
    }
}

/// Why the hub could not ask.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    /// No hub can be reached now (none could start, it went away, the connection broke); a
    /// later try may succeed, and asking again with the same session id (and `resume`)
    /// resumes the flow the hub recovered.
    #[error("no hub can be reached: {0}")]
    Unreachable(String),
    /// The hub took the flow, but no person can see it: no person's client is attached and no
    /// browser could show it.
    #[error(
        "no person's client is attached to the hub and no browser could show the question ({0})"
    )]
    Unattended(String),
    /// The hub refused the request; asking again will not help.
    #[error("the hub refused the flow ({code}): {message}")]
    Refused {
        /// The JSON-RPC error code.
        code: i64,
        /// The hub's words.
        message: String,
    },
}

/// A hub that opens flows for a hub client.
pub trait FlowHost: Clone + Send + Sync + 'static {
    /// Opens a flow with the `ask` params given (dialect, session id, payload, asker, …) and
    /// resolves once it ends, however it ends.
    fn ask(&self, params: Value) -> impl Future<Output = Result<Ended, HostError>> + Send;

    /// Withdraws the flow `session` (it ends aborted, and the hub forgets it); a session that
    /// is done already is only forgotten.
    fn close(&self, session: String) -> impl Future<Output = ()> + Send;
}
