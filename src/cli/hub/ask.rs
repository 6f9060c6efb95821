//! One question asked through the hub: opened with `ask` (it stays pending until the flow
//! completes), its `hub/unattended` notice passed on, its result awaited, and aborted
//! (`cancel { reason: "abort" }`) when the caller says so or drops it.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};

use super::client::{HubClient, HubError, Notification, RpcError, Shared};
use crate::server::params::Asker;

/// What to ask: a payload in a dialect, who asks, and any other `ask` params.
#[derive(Debug, Clone, Default)]
pub struct Question {
    /// The payload, as the agent's tool call carried it.
    pub payload: Value,
    /// Its dialect (`pi`, `dsh`, `claude`, `codex`, `opencode`, `mcp`); inferred when `None`.
    pub dialect: Option<String>,
    /// Who asks; a member left out defaults to the connection's `clientInfo.name` and to
    /// `cwd`.
    pub asker: Asker,
    /// The session id (e.g. the tool call's id); a fresh `ask-<random>` when `None`.
    pub session: Option<String>,
    /// Milliseconds the person has: the flow then ends as timed out (its dialect's result).
    pub timeout_ms: Option<u64>,
    /// Any other params of `ask` (`cwd`, `behaviour`, `width`, a dialect's options, …).
    pub params: Map<String, Value>,
}

impl Question {
    /// A question on `payload`, everything else left to the defaults.
    pub fn new(payload: Value) -> Question {
        Question {
            payload,
            ..Question::default()
        }
    }
}

/// What happened to a question.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// No client was attached when it opened: its page, and what became of opening it in the
    /// browser (`opened`, `recent`, `unavailable`, `off`; see `protocol/README.md`, "The
    /// hub"). Print the page where the person looks unless it was `opened`.
    Unattended {
        /// The page's address, with the token and the session.
        page: String,
        /// What the hub did with it.
        browser: String,
    },
    /// The flow completed: its result in the dialect's shape, or the error its dialect ends
    /// with (dsh's `UserQuestionError`), or the hub's refusal of the request.
    Answered(Result<Value, RpcError>),
    /// Another notification about the session.
    Other(Notification),
}

/// A question asked and not yet answered. Dropping it before its answer aborts the flow.
pub struct Asking {
    shared: Arc<Shared>,
    session: String,
    id: u64,
    reply: oneshot::Receiver<Result<Value, HubError>>,
    events: mpsc::UnboundedReceiver<Notification>,
    finished: bool,
}

impl HubClient {
    /// Asks `question` in the hub: answers at once with a handle on it (the flow is opened
    /// as the request reaches the hub); its [`Asking::answer`] is the result.
    pub fn ask(&self, question: Question) -> Result<Asking, HubError> {
        let session = question.session.clone().unwrap_or_else(fresh_session);
        let mut params = question.params;
        params.insert("payload".into(), question.payload);
        params.insert("session".into(), json!(session));
        if let Some(dialect) = question.dialect {
            params.insert("dialect".into(), json!(dialect));
        }
        if !question.asker.is_empty() {
            params.insert("asker".into(), json!(question.asker));
        }
        if let Some(ms) = question.timeout_ms {
            params.insert("timeoutMs".into(), json!(ms));
        }
        let events = self.shared.watch(&session)?;
        let (id, reply) = match self.shared.start("ask", Value::Object(params)) {
            Ok(started) => started,
            Err(e) => {
                self.shared.unwatch(&session);
                return Err(e);
            }
        };
        Ok(Asking {
            shared: self.shared.clone(),
            session,
            id,
            reply,
            events,
            finished: false,
        })
    }
}

impl Asking {
    /// The session the question is in.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// The next thing that happens to the question; after [`Event::Answered`] there is
    /// nothing more (the call waits forever). [`HubError::Lost`] when the hub goes away
    /// first.
    pub async fn next(&mut self) -> Result<Event, HubError> {
        if self.finished {
            return std::future::pending().await;
        }
        tokio::select! {
            biased;
            Some(notification) = self.events.recv() => Ok(match notification {
                n if n.method == "hub/unattended" => Event::Unattended {
                    page: n.params["page"].as_str().unwrap_or_default().to_owned(),
                    browser: n.params["browser"].as_str().unwrap_or_default().to_owned(),
                },
                n => Event::Other(n),
            }),
            reply = &mut self.reply => self.settle(reply),
        }
    }

    fn settle(
        &mut self,
        reply: Result<Result<Value, HubError>, oneshot::error::RecvError>,
    ) -> Result<Event, HubError> {
        self.finished = true;
        self.shared.unwatch(&self.session);
        match reply {
            Ok(Ok(result)) => Ok(Event::Answered(Ok(result))),
            Ok(Err(HubError::Rpc(e))) => Ok(Event::Answered(Err(e))),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(self.shared.lost("the connection is closed")),
        }
    }

    /// Waits for the answer, passing over the other events: the result, or the hub's error
    /// as [`HubError::Rpc`], or [`HubError::Lost`].
    pub async fn answer(mut self) -> Result<Value, HubError> {
        loop {
            if let Event::Answered(answered) = self.next().await? {
                return answered.map_err(HubError::Rpc);
            }
        }
    }

    /// Ends the flow as aborted by the asker (`cancel { reason: "abort" }`); its answer (the
    /// dialect's aborted result) still comes through [`Asking::next`].
    pub fn abort_now(&mut self) {
        if !self.finished {
            self.shared.fire(
                "cancel",
                json!({ "session": self.session, "reason": "abort" }),
            );
        }
    }

    /// Aborts the flow and waits for its answer, the dialect's aborted result (or the result
    /// the person gave first).
    pub async fn abort(mut self) -> Result<Value, HubError> {
        self.abort_now();
        self.answer().await
    }
}

impl Drop for Asking {
    fn drop(&mut self) {
        if !self.finished {
            self.abort_now();
            self.shared.forget(self.id);
            self.shared.unwatch(&self.session);
        }
    }
}

/// A session id no other question has: `ask-` and 16 random hex digits.
fn fresh_session() -> String {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        // The clock and the process stand in for randomness the system did not give.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = (nanos as u64 ^ u64::from(std::process::id()).rotate_left(32)).to_le_bytes();
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("ask-{hex}")
}
