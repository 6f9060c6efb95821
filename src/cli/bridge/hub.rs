//! The hub as a [`FlowHost`]: one JSON-RPC connection over WebSocket, shared by every flow a
//! hub client asks at once, made again after it breaks.
//!
//! A flow is asked with `ask` (it resolves once the flow ends); a negative result is followed
//! by `getView` to learn why the flow ended (`cancelReason`), which the result alone does not
//! always say. `close` withdraws a flow.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{Mutex, mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

use crate::cli::bridge::host::{Ended, FlowHost, HostError};

/// What a reply brought: the result, or the error object.
type Reply = Result<Value, Value>;

/// One open connection: where requests are written, and who waits for which reply.
struct Connection {
    outgoing: mpsc::UnboundedSender<String>,
    waiting: Arc<std::sync::Mutex<HashMap<u64, oneshot::Sender<Reply>>>>,
    next_id: u64,
    /// Set by the reader when the connection ends.
    closed: Arc<std::sync::atomic::AtomicBool>,
}

/// The hub at a WebSocket address (token included).
#[derive(Clone)]
pub struct Hub {
    url: String,
    name: &'static str,
    connection: Arc<Mutex<Option<Connection>>>,
}

impl Hub {
    /// A hub client of `url` (`ws://…/rpc?token=…`), introducing itself as `name`.
    pub fn new(url: String, name: &'static str) -> Hub {
        Hub {
            url,
            name,
            connection: Arc::new(Mutex::new(None)),
        }
    }

    /// Sends a request, connecting first when needed; resolves with its reply.
    pub async fn request(&self, method: &str, params: Value) -> Result<Reply, HostError> {
        let receiver = {
            let mut slot = self.connection.lock().await;
            let usable = slot.as_ref().is_some_and(|c| {
                !c.closed.load(std::sync::atomic::Ordering::SeqCst) && !c.outgoing.is_closed()
            });
            if !usable {
                *slot = Some(self.connect().await?);
            }
            let connection = slot.as_mut().expect("connected above");
            connection.next_id += 1;
            let id = connection.next_id;
            let (sender, receiver) = oneshot::channel();
            lock(&connection.waiting).insert(id, sender);
            let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
            if connection.outgoing.send(message.to_string()).is_err() {
                lock(&connection.waiting).remove(&id);
                *slot = None;
                return Err(HostError::Unreachable(
                    "the hub's connection closed".to_owned(),
                ));
            }
            receiver
        };
        receiver
            .await
            .map_err(|_| HostError::Unreachable("the hub's connection closed".to_owned()))
    }

    /// Opens the connection and introduces this client.
    async fn connect(&self) -> Result<Connection, HostError> {
        let (socket, _) = tokio_tungstenite::connect_async(self.url.as_str())
            .await
            .map_err(|e| HostError::Unreachable(format!("cannot connect to the hub: {e}")))?;
        let (mut sink, mut stream) = socket.split();
        let (outgoing, mut queue) = mpsc::unbounded_channel::<String>();
        let waiting: Arc<std::sync::Mutex<HashMap<u64, oneshot::Sender<Reply>>>> = Arc::default();
        let closed = Arc::new(std::sync::atomic::AtomicBool::new(false));
        tokio::spawn(async move {
            while let Some(text) = queue.recv().await {
                if sink.send(Message::text(text)).await.is_err() {
                    break;
                }
            }
        });
        let readers = waiting.clone();
        let ended = closed.clone();
        tokio::spawn(async move {
            while let Some(Ok(message)) = stream.next().await {
                let Message::Text(text) = message else {
                    continue;
                };
                let Ok(reply) = serde_json::from_str::<Value>(text.as_str()) else {
                    continue;
                };
                let Some(id) = reply.get("id").and_then(Value::as_u64) else {
                    continue;
                };
                if let Some(sender) = lock(&readers).remove(&id) {
                    let _ = sender.send(match reply.get("error") {
                        Some(error) => Err(error.clone()),
                        None => Ok(reply.get("result").cloned().unwrap_or(Value::Null)),
                    });
                }
            }
            ended.store(true, std::sync::atomic::Ordering::SeqCst);
            // Every request still waiting learns that the connection is gone.
            lock(&readers).clear();
        });
        let mut connection = Connection {
            outgoing,
            waiting,
            next_id: 0,
            closed,
        };
        connection.next_id += 1;
        let hello = json!({ "jsonrpc": "2.0", "id": connection.next_id, "method": "initialize",
            "params": { "clientInfo": { "name": self.name } } });
        let _ = connection.outgoing.send(hello.to_string());
        Ok(connection)
    }
}

/// Locks a table of waiting requests (a poisoned lock still holds a usable table).
fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// An error object's code and message.
fn refused(error: &Value) -> HostError {
    HostError::Refused {
        code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
        message: error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no message")
            .to_owned(),
    }
}

impl FlowHost for Hub {
    async fn ask(&self, params: Value) -> Result<Ended, HostError> {
        let session = params.get("session").cloned();
        let result = self
            .request("ask", params)
            .await?
            .map_err(|e| refused(&e))?;
        let cancel_reason = match session {
            Some(session) if !is_answer(&result) => self
                .request("getView", json!({ "session": session }))
                .await
                .ok()
                .and_then(Result::ok)
                .and_then(|view| {
                    view.get("cancelReason")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                // A flow the hub forgot at once was withdrawn.
                .or_else(|| Some("aborted".to_owned())),
            _ => None,
        };
        Ok(Ended {
            result,
            cancel_reason,
        })
    }

    async fn close(&self, session: String) {
        let _ = self.request("close", json!({ "session": session })).await;
    }
}

/// Whether a result carries answers (a submit) in the dialects hub clients ask in.
fn is_answer(result: &Value) -> bool {
    result.get("answers").is_some()
        || result.get("behavior").and_then(Value::as_str) == Some("allow")
}
