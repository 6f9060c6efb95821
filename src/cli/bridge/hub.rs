//! The hub as a [`FlowHost`]: the hub client ([`crate::cli::hub`]), connected on first use
//! (a hub is started when none runs) and again after the hub went away.
//!
//! A flow is asked with the client's `ask`; a negative result is followed by `getView` to
//! learn why the flow ended (`cancelReason`), which the result alone does not always say.
//! Dropping a question before its answer withdraws it (the client's rule), so a hub client
//! whose own wait ends only drops its future.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::sync::Mutex;

use crate::cli::bridge::host::{Ended, FlowHost, HostError};
use crate::cli::hub::{Asker, Event, HubClient, HubError, HubOptions, Question};

/// What to do when a question opens with no person's client attached and no browser took it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unattended {
    /// Say where it waits (on stderr) and keep waiting: another client of the agent may answer
    /// meanwhile (the opencode bridge).
    Tell,
    /// Withdraw it: nobody can be reached, and the agent's own prompt asks instead (the
    /// Claude Code hook).
    GiveUp,
}

/// The hub, found or started as `options` say.
#[derive(Clone)]
pub struct Hub {
    options: HubOptions,
    unattended: Unattended,
    /// Who says what happened, on stderr (`askd hook claude`, `askd: bridge`).
    speaker: &'static str,
    client: Arc<Mutex<Option<HubClient>>>,
}

impl Hub {
    /// A hub client named `name` (the asker of questions that name none).
    pub fn new(name: &str, speaker: &'static str, unattended: Unattended) -> Hub {
        Hub {
            options: HubOptions {
                client_name: Some(name.to_owned()),
                ..HubOptions::default()
            },
            unattended,
            speaker,
            client: Arc::default(),
        }
    }

    /// The connection, made (and a hub started) when there is none or it ended.
    async fn connected(&self) -> Result<HubClient, HostError> {
        let mut slot = self.client.lock().await;
        if let Some(client) = slot.as_ref().filter(|c| c.lost().is_none()) {
            return Ok(client.clone());
        }
        *slot = None;
        let client = HubClient::connect_or_start(&self.options)
            .await
            .map_err(|e| HostError::Unreachable(e.to_string()))?;
        *slot = Some(client.clone());
        Ok(client)
    }
}

/// A [`Question`] of `ask` params.
fn question(params: Value) -> Question {
    let Value::Object(mut params) = params else {
        return Question::new(Value::Null);
    };
    let text = |params: &mut Map<String, Value>, key: &str| match params.remove(key) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    let mut question = Question::new(params.remove("payload").unwrap_or(Value::Null));
    question.dialect = text(&mut params, "dialect");
    question.session = text(&mut params, "session");
    question.timeout_ms = params.remove("timeoutMs").and_then(|ms| ms.as_u64());
    if let Some(Value::Object(mut asker)) = params.remove("asker") {
        question.asker = Asker {
            name: text(&mut asker, "name"),
            folder: text(&mut asker, "folder"),
        };
    }
    question.params = params;
    question
}

impl FlowHost for Hub {
    async fn ask(&self, params: Value) -> Result<Ended, HostError> {
        let client = self.connected().await?;
        let mut asking = client
            .ask(question(params))
            .map_err(|e| HostError::Unreachable(e.to_string()))?;
        let session = asking.session().to_owned();
        let result = loop {
            match asking.next().await {
                Ok(Event::Unattended { page, browser }) => match self.unattended {
                    _ if browser == "opened" || browser == "recent" => {}
                    Unattended::Tell => {
                        eprintln!("{}: answer the question at {page}", self.speaker);
                    }
                    Unattended::GiveUp => {
                        // Dropping the question withdraws it.
                        drop(asking);
                        let _ = client.request("close", json!({ "session": session })).await;
                        return Err(HostError::Unattended(browser));
                    }
                },
                Ok(Event::Answered(Ok(result))) => break result,
                Ok(Event::Answered(Err(refused))) => {
                    return Err(HostError::Refused {
                        code: refused.code,
                        message: refused.message,
                    });
                }
                Ok(Event::Other(_)) => {}
                Err(e @ HubError::Rpc(_)) => {
                    return Err(HostError::Refused {
                        code: 0,
                        message: e.to_string(),
                    });
                }
                Err(e) => return Err(HostError::Unreachable(e.to_string())),
            }
        };
        let cancel_reason = if is_answer(&result) {
            None
        } else {
            match client
                .request("getView", json!({ "session": session }))
                .await
            {
                Ok(view) => view
                    .get("cancelReason")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                // A flow the hub forgot at once was withdrawn.
                Err(_) => Some("aborted".to_owned()),
            }
        };
        Ok(Ended {
            result,
            cancel_reason,
        })
    }

    /// Closes the session on the connection there is; never starts a hub for it (a hub that
    /// went away forgot the flow's client anyway).
    async fn close(&self, session: String) {
        let client = self.client.lock().await.clone();
        if let Some(client) = client.filter(|c| c.lost().is_none()) {
            let _ = client.request("close", json!({ "session": session })).await;
        }
    }
}

/// Whether a result carries answers (a submit) in the dialects hub clients ask in.
fn is_answer(result: &Value) -> bool {
    result.get("answers").is_some()
        || result.get("behavior").and_then(Value::as_str) == Some("allow")
}
