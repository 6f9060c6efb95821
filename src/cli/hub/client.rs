//! The connection to the hub: found through the discovery file (a hub started when none runs),
//! a WebSocket with the token, JSON-RPC requests by id, and the notifications as a stream.
//!
//! One task owns the socket. It writes what the [`HubClient`] queues and reads what the hub
//! sends: a reply goes to the request that waits for it (by id), a notification to the
//! question it is about ([`crate::cli::hub::ask`]) or else to the stream of
//! [`HubClient::notifications`]. When the socket ends, every request still waiting fails with
//! [`HubError::Lost`], and so does every later one. The connection closes once the last
//! handle on it (the client, its clones, the questions it asks) is gone.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

use crate::server::discovery::{self, DiscoveryError, Found, HubFile};

/// How long connecting to a hub may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// An error the hub answered a request with.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The JSON-RPC error code (`protocol/README.md`, "Errors").
    pub code: i64,
    /// The message, in words.
    pub message: String,
    /// The error's data, when it has some (a dsh `UserQuestionError`).
    pub data: Option<Value>,
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (error {})", self.message, self.code)
    }
}

/// Why a call to the hub failed.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    /// The discovery directory cannot be used (another user's, or loose modes).
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    /// No hub runs (and none was to be started), with what was found instead.
    #[error("no hub is running ({0})")]
    NoHub(String),
    /// A hub could not be started.
    #[error("cannot start a hub: {0}")]
    Start(String),
    /// The hub did not take the connection.
    #[error("cannot connect to the hub at {url}: {reason}")]
    Connect {
        /// Its WebSocket endpoint.
        url: String,
        /// Why, in words.
        reason: String,
    },
    /// The connection ended before the answer came: the hub stopped or was killed.
    #[error("the hub at {url} went away ({reason}) before it answered")]
    Lost {
        /// Its WebSocket endpoint.
        url: String,
        /// How the connection ended.
        reason: String,
    },
    /// The hub answered with an error.
    #[error("the hub refused the request: {0}")]
    Rpc(RpcError),
}

/// A notification from the hub: `session/opened`, `session/changed`, `session/closed` (for a
/// subscribed connection), `hub/unattended` (for the opener of a flow).
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// Its method.
    pub method: String,
    /// Its params.
    pub params: Value,
}

/// How to find, start and greet the hub.
#[derive(Debug, Clone)]
pub struct HubOptions {
    /// The discovery directory (`<runtime>/askd`); default: this environment's
    /// ([`discovery::default_dir`]). A hub started for another directory is given
    /// `XDG_RUNTIME_DIR` = its parent.
    pub dir: Option<PathBuf>,
    /// The name the connection gives itself (`initialize`'s `clientInfo.name`): who asks, for
    /// the questions that do not say.
    pub client_name: Option<String>,
    /// The `askd` binary to start a hub with; default: this executable.
    pub askd: Option<PathBuf>,
    /// `--idle-exit` of a hub started here.
    pub idle_exit: Duration,
    /// How long to wait for a started hub to write its discovery file.
    pub start_wait: Duration,
    /// The log of a hub started here; default: `hub.log` in the state directory (else in the
    /// discovery directory).
    pub log: Option<PathBuf>,
    /// More arguments for a hub started here (e.g. `--state-dir DIR`, `--no-browser`).
    pub hub_args: Vec<OsString>,
    /// More environment for a hub started here (e.g. `XDG_STATE_HOME`, `BROWSER`).
    pub hub_env: Vec<(OsString, OsString)>,
}

impl Default for HubOptions {
    fn default() -> Self {
        HubOptions {
            dir: None,
            client_name: None,
            askd: None,
            idle_exit: Duration::from_secs(600),
            start_wait: Duration::from_secs(10),
            log: None,
            hub_args: Vec::new(),
            hub_env: Vec::new(),
        }
    }
}

impl HubOptions {
    /// The discovery directory these options name.
    pub fn dir(&self) -> PathBuf {
        self.dir.clone().unwrap_or_else(discovery::default_dir)
    }
}

/// A connection to the hub (see the module's documentation). Clones share the connection.
#[derive(Clone)]
pub struct HubClient {
    pub(super) shared: Arc<Shared>,
    hub: HubFile,
}

impl std::fmt::Debug for HubClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HubClient")
            .field("url", &self.hub.url)
            .field("pid", &self.hub.pid)
            .finish()
    }
}

/// What the connection's handles share with its task.
pub(super) struct Shared {
    url: String,
    /// Frames for the task to write.
    out: mpsc::UnboundedSender<Message>,
    next_id: AtomicU64,
    table: Mutex<Table>,
}

/// Who waits for what the hub sends.
#[derive(Default)]
struct Table {
    /// Requests waiting for their reply, by id.
    pending: HashMap<u64, oneshot::Sender<Result<Value, HubError>>>,
    /// Questions waiting for the notifications of their session.
    sessions: HashMap<String, mpsc::UnboundedSender<Notification>>,
    /// The stream of the other notifications, once taken.
    stream: Option<mpsc::UnboundedSender<Notification>>,
    /// How the connection ended, once it has.
    lost: Option<String>,
    /// In a pipe ([`HubClient::into_pipe`]): where every message from the hub goes, as it
    /// came.
    raw: Option<mpsc::UnboundedSender<String>>,
}

impl Shared {
    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The error of a call on a connection that ended.
    pub(super) fn lost(&self, reason: &str) -> HubError {
        HubError::Lost {
            url: self.url.clone(),
            reason: reason.to_owned(),
        }
    }

    /// Sends request `method` with a new id; its reply comes on the receiver.
    pub(super) fn start(
        &self,
        method: &str,
        params: Value,
    ) -> Result<(u64, oneshot::Receiver<Result<Value, HubError>>), HubError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut table = self.table();
            if let Some(reason) = &table.lost {
                return Err(self.lost(reason));
            }
            table.pending.insert(id, tx);
        }
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        if self.out.send(Message::text(message.to_string())).is_err() {
            self.table().pending.remove(&id);
            return Err(self.lost("the connection is closed"));
        }
        Ok((id, rx))
    }

    /// Sends request `method` and forgets it: its reply is dropped.
    pub(super) fn fire(&self, method: &str, params: Value) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let _ = self.out.send(Message::text(message.to_string()));
    }

    /// Stops waiting for the reply to request `id`.
    pub(super) fn forget(&self, id: u64) {
        self.table().pending.remove(&id);
    }

    /// Routes the notifications of `session` to a receiver of their own (until
    /// [`Shared::unwatch`]); `Err` when the connection has ended.
    pub(super) fn watch(
        &self,
        session: &str,
    ) -> Result<mpsc::UnboundedReceiver<Notification>, HubError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut table = self.table();
        if let Some(reason) = &table.lost {
            return Err(self.lost(reason));
        }
        table.sessions.insert(session.to_owned(), tx);
        Ok(rx)
    }

    /// Stops routing the notifications of `session` apart.
    pub(super) fn unwatch(&self, session: &str) {
        self.table().sessions.remove(session);
    }

    /// Hands one message from the hub to whoever waits for it.
    fn dispatch(&self, text: &str) {
        if let Some(raw) = &self.table().raw {
            let _ = raw.send(text.to_owned());
            return;
        }
        let Ok(Value::Object(mut message)) = serde_json::from_str::<Value>(text) else {
            tracing::warn!("the hub sent something that is not a JSON-RPC message");
            return;
        };
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            let notification = Notification {
                method: method.to_owned(),
                params: message.remove("params").unwrap_or(Value::Null),
            };
            let table = self.table();
            let session = notification.params.get("session").and_then(Value::as_str);
            let to = session
                .and_then(|session| table.sessions.get(session))
                .or(table.stream.as_ref());
            if let Some(to) = to {
                let _ = to.send(notification);
            }
            return;
        }
        let Some(id) = message.get("id").and_then(Value::as_u64) else {
            return;
        };
        let Some(tx) = self.table().pending.remove(&id) else {
            return;
        };
        let reply = match message.remove("error") {
            Some(error) => Err(HubError::Rpc(RpcError {
                code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                data: error.get("data").cloned(),
            })),
            None => Ok(message.remove("result").unwrap_or(Value::Null)),
        };
        let _ = tx.send(reply);
    }

    /// The connection ended: everyone waiting is told why.
    fn end(&self, reason: String) {
        let mut table = self.table();
        table.sessions.clear();
        table.stream = None;
        table.raw = None;
        for (_, tx) in table.pending.drain() {
            let _ = tx.send(Err(HubError::Lost {
                url: self.url.clone(),
                reason: reason.clone(),
            }));
        }
        table.lost = Some(reason);
    }
}

impl HubClient {
    /// Connects to the hub that runs, without starting one: [`HubError::NoHub`] when none
    /// does.
    pub async fn connect(options: &HubOptions) -> Result<HubClient, HubError> {
        match discovery::find(&options.dir())? {
            Found::Hub(file) => HubClient::connect_to(file, options).await,
            Found::Nothing => Err(HubError::NoHub("no discovery file".into())),
            Found::Stale(reason) => Err(HubError::NoHub(reason)),
        }
    }

    /// Connects to the hub that runs, or starts one (`askd hub --idle-exit`, detached: see
    /// [`crate::cli::hub::start`]) when none does, and connects to it.
    pub async fn connect_or_start(options: &HubOptions) -> Result<HubClient, HubError> {
        let dir = options.dir();
        if let Found::Hub(file) = discovery::find(&dir)? {
            match HubClient::connect_to(file, options).await {
                Ok(client) => return Ok(client),
                // It ended between the check and the connection: another takes its place.
                Err(e) => tracing::info!("{e}; starting a hub"),
            }
        }
        let file = super::start::start(options, &dir).await?;
        HubClient::connect_to(file, options).await
    }

    /// Connects to the hub of `file` with its token and greets it (`initialize`, with
    /// `clientInfo.name` when the options give one).
    pub async fn connect_to(file: HubFile, options: &HubOptions) -> Result<HubClient, HubError> {
        let url = file.url.clone();
        let failed = |reason: String| HubError::Connect {
            url: url.clone(),
            reason,
        };
        let mut request = file
            .url
            .as_str()
            .into_client_request()
            .map_err(|e| failed(e.to_string()))?;
        let bearer = HeaderValue::from_str(&format!("Bearer {}", file.token))
            .map_err(|e| failed(e.to_string()))?;
        request.headers_mut().insert("Authorization", bearer);
        let (socket, _) =
            tokio::time::timeout(CONNECT_TIMEOUT, tokio_tungstenite::connect_async(request))
                .await
                .map_err(|_| failed("it did not answer".into()))?
                .map_err(|e| failed(e.to_string()))?;
        let (out, queued) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            url: file.url.clone(),
            out,
            next_id: AtomicU64::new(1),
            table: Mutex::default(),
        });
        tokio::spawn(run(socket, queued, Arc::downgrade(&shared)));
        let client = HubClient { shared, hub: file };
        let mut info = json!({ "version": env!("CARGO_PKG_VERSION") });
        if let Some(name) = &options.client_name {
            info["name"] = json!(name);
        }
        let greeting = client
            .request("initialize", json!({ "clientInfo": info }))
            .await?;
        if greeting["protocolVersion"] != 1 {
            return Err(failed(format!(
                "it speaks protocol version {}, not 1",
                greeting["protocolVersion"]
            )));
        }
        Ok(client)
    }

    /// The discovery file of the hub this client is connected to.
    pub fn hub(&self) -> &HubFile {
        &self.hub
    }

    /// Calls `method` with `params` and waits for the reply: its result, or the hub's error
    /// ([`HubError::Rpc`]), or [`HubError::Lost`] when the connection ends first.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, HubError> {
        let (_, reply) = self.shared.start(method, params)?;
        reply
            .await
            .unwrap_or_else(|_| Err(self.shared.lost("the connection is closed")))
    }

    /// The notifications that no question of this client takes (`session/*` once subscribed,
    /// for one): from now on, in the order they came. A later call takes the stream over. The
    /// stream ends when the connection does.
    pub fn notifications(&self) -> mpsc::UnboundedReceiver<Notification> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut table = self.shared.table();
        if table.lost.is_none() {
            table.stream = Some(tx);
        }
        rx
    }

    /// Turns the connection into a pipe: every message from the hub comes on the receiver as
    /// it came (replies to any id, notifications), and [`Pipe::send`] sends one as it is. For
    /// relays such as `askd hub --pipe`; requests and questions of this client no longer get
    /// their replies.
    pub fn into_pipe(self) -> (Pipe, mpsc::UnboundedReceiver<String>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut table = self.shared.table();
        if table.lost.is_none() {
            table.raw = Some(tx);
        }
        drop(table);
        (
            Pipe {
                shared: self.shared,
            },
            rx,
        )
    }

    /// Whether the connection has ended, and how.
    pub fn lost(&self) -> Option<String> {
        self.shared.table().lost.clone()
    }
}

/// The sending half of a connection turned into a pipe ([`HubClient::into_pipe`]).
pub struct Pipe {
    shared: Arc<Shared>,
}

impl Pipe {
    /// Sends one message (a JSON-RPC message or batch) as it is; [`HubError::Lost`] once the
    /// connection has ended.
    pub fn send(&self, text: String) -> Result<(), HubError> {
        if let Some(reason) = &self.shared.table().lost {
            return Err(self.shared.lost(reason));
        }
        self.shared
            .out
            .send(Message::text(text))
            .map_err(|_| self.shared.lost("the connection is closed"))
    }

    /// How the connection ended, once it has.
    pub fn lost(&self) -> Option<String> {
        self.shared.table().lost.clone()
    }
}

/// The connection's task: writes what is queued, reads what comes, until either side ends.
async fn run(
    socket: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    mut queued: mpsc::UnboundedReceiver<Message>,
    shared: Weak<Shared>,
) {
    let (mut sink, mut stream) = socket.split();
    let reason = loop {
        tokio::select! {
            message = queued.recv() => match message {
                Some(message) => {
                    if let Err(e) = sink.send(message).await {
                        break format!("cannot send: {e}");
                    }
                }
                // Every handle is gone: the connection closes.
                None => {
                    let _ = sink.close().await;
                    return;
                }
            },
            frame = stream.next() => match frame {
                Some(Ok(Message::Text(text))) => {
                    if let Some(shared) = shared.upgrade() {
                        shared.dispatch(text.as_str());
                    }
                }
                Some(Ok(Message::Close(frame))) => {
                    break match frame {
                        Some(frame) if !frame.reason.is_empty() => {
                            format!("the connection was closed: {}", frame.reason)
                        }
                        _ => "the connection was closed".to_owned(),
                    };
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => break format!("the connection failed: {e}"),
                None => break "the connection was closed".to_owned(),
            },
        }
    };
    if let Some(shared) = shared.upgrade() {
        shared.end(reason);
    }
}
