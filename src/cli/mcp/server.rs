//! The MCP server (rmcp's `ServerHandler`): `tools/list` gives `ask`, and `tools/call`
//! asks its questions in the hub and waits for the person.
//!
//! A call is checked by the claude dialect first (a malformed input is a tool error naming each
//! field, and nothing is asked). It then opens a flow in the hub (connected on the first call,
//! started when none runs) in the claude dialect, named after the host (`clientInfo`), the
//! project folder (the working directory) and, in the hub, the time it opened. While the person
//! thinks, a call that carries a `progressToken` gets a progress notification at once and then
//! every `--progress-every` seconds, so that hosts do not time out. `notifications/cancelled`
//! aborts the flow. When the hub goes away before the answer, the call connects again (a new
//! hub starts) and asks again in the same session with `resume: true`, which resumes the flow
//! the new hub recovered from the state directory, where the person left it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorCode, ErrorData, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ProtocolVersion,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio::sync::Mutex;

use super::answer::{self, Ending};
use super::tool;
use crate::cli::hub::{Asker, Event, HubClient, HubError, HubOptions, Question};
use crate::dialect::claude::{PreviewFormat, validate};

/// How many times one call asks again after the hub went away.
pub const RECONNECTS: usize = 3;

/// How long an aborted flow's answer is waited for before the call lets it go.
const ABORT_WAIT: Duration = Duration::from_secs(2);

/// What `askd mcp` was started with.
#[derive(Debug, Clone)]
pub struct Settings {
    /// How the hub is found or started.
    pub hub: HubOptions,
    /// The person's time per call (`timeoutMs` of the flow); none when `None`.
    pub timeout: Option<Duration>,
    /// How often a waiting call sends progress.
    pub progress_every: Duration,
    /// The project folder: the asker's folder and the root of `@` completion.
    pub folder: Option<String>,
}

/// The server: the settings, the hub connection shared by every call, and the calls in flight.
#[derive(Clone)]
pub struct AskServer {
    settings: Arc<Settings>,
    hub: Arc<Mutex<Option<HubClient>>>,
    /// The calls in flight: the server waits for them to end when the host leaves.
    pub(super) inflight: Arc<AtomicUsize>,
}

impl AskServer {
    /// A server with `settings`, not yet connected to the hub.
    pub fn new(settings: Settings) -> AskServer {
        AskServer {
            settings: Arc::new(settings),
            hub: Arc::default(),
            inflight: Arc::default(),
        }
    }

    /// The connection to the hub, made (and a hub started) when there is none or it ended.
    async fn connected(&self) -> Result<HubClient, HubError> {
        let mut slot = self.hub.lock().await;
        if let Some(client) = slot.as_ref().filter(|c| c.lost().is_none()) {
            return Ok(client.clone());
        }
        *slot = None;
        let client = HubClient::connect_or_start(&self.settings.hub).await?;
        *slot = Some(client.clone());
        Ok(client)
    }

    /// The question of a call: the claude dialect, the asker, the session, the deadline.
    fn question(&self, payload: Value, asker: Option<String>, session: &str) -> Question {
        let mut question = Question::new(payload);
        question.dialect = Some("claude".into());
        question.session = Some(session.to_owned());
        question.asker = Asker {
            name: asker,
            folder: self.settings.folder.clone(),
        };
        question.timeout_ms = self
            .settings
            .timeout
            .map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX));
        if let Some(folder) = &self.settings.folder {
            question.params.insert("cwd".into(), json!(folder));
        }
        question
    }

    /// Asks `payload` and waits for its ending, sending progress on `progress` and aborting
    /// the flow when the call is cancelled (`None` then: nothing is to be answered).
    async fn ask(
        &self,
        payload: Value,
        asker: Option<String>,
        progress: &Progress,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Option<CallToolResult> {
        let session = fresh_session();
        let mut cancelled = std::pin::pin!(cancelled);
        let mut lost: Option<String> = None;
        for attempt in 0..=RECONNECTS {
            if let Some(why) = &lost {
                progress
                    .say(format!(
                        "askd's hub went away ({why}); asking again (attempt {attempt} of {RECONNECTS})"
                    ))
                    .await;
            }
            let connecting = self.connected();
            let client = tokio::select! {
                connected = connecting => match connected {
                    Ok(client) => client,
                    Err(e) => {
                        let why = match &lost {
                            Some(before) => format!("askd's hub went away ({before}), and no other could be reached: {e}"),
                            None => format!("askd's hub cannot be reached: {e}"),
                        };
                        return Some(answer::unreachable(&why));
                    }
                },
                () = &mut cancelled => return None,
            };
            let mut question = self.question(payload.clone(), asker.clone(), &session);
            if attempt > 0 {
                // Asked again after the hub went away: the flow the next hub recovered from the
                // state directory goes on (`resume`).
                question.params.insert("resume".into(), json!(true));
            }
            let mut asking = match client.ask(question) {
                Ok(asking) => asking,
                Err(e) => {
                    lost = Some(e.to_string());
                    continue;
                }
            };
            let mut ticker = tokio::time::interval(self.settings.progress_every);
            loop {
                let event = tokio::select! {
                    event = asking.next() => event,
                    _ = ticker.tick() => {
                        progress.tick().await;
                        continue;
                    }
                    () = &mut cancelled => {
                        // The host gave up: the flow ends aborted, and nothing is answered.
                        let _ = tokio::time::timeout(ABORT_WAIT, asking.abort()).await;
                        return None;
                    }
                };
                match event {
                    Ok(Event::Unattended { page, browser }) => {
                        if browser != "opened" && browser != "recent" {
                            eprintln!("askd mcp: answer the question at {page}");
                            progress
                                .say(format!(
                                    "No askd client is attached: the question waits at {page}"
                                ))
                                .await;
                        }
                    }
                    Ok(Event::Other(_)) => {}
                    Ok(Event::Answered(Ok(result))) => {
                        let ending = self.ending(&client, &session, &result).await;
                        return Some(answer::result(&ending));
                    }
                    Ok(Event::Answered(Err(refused))) => {
                        return Some(answer::unreachable(&format!(
                            "askd's hub refused them: {}",
                            refused.message
                        )));
                    }
                    Err(e @ HubError::Lost { .. }) => {
                        lost = Some(lost_reason(&e));
                        break;
                    }
                    Err(e) => return Some(answer::unreachable(&e.to_string())),
                }
            }
        }
        Some(answer::unreachable(&format!(
            "askd's hub went away {} times before the user answered ({})",
            RECONNECTS + 1,
            lost.unwrap_or_default()
        )))
    }

    /// How the flow `session` ended with `result`: for a result without answers, the view
    /// says why (`cancelReason`). The hub then forgets the flow.
    async fn ending(&self, client: &HubClient, session: &str, result: &Value) -> Ending {
        let reason = if result["behavior"] == "allow" {
            None
        } else {
            client
                .request("getView", json!({ "session": session }))
                .await
                .ok()
                .and_then(|view| view["cancelReason"].as_str().map(str::to_owned))
        };
        let _ = client.request("close", json!({ "session": session })).await;
        answer::ending(result, reason.as_deref())
    }
}

/// A call in flight, counted while it lives.
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn new(count: &Arc<AtomicUsize>) -> InFlight {
        count.fetch_add(1, Ordering::SeqCst);
        InFlight(count.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The reason inside a [`HubError::Lost`].
fn lost_reason(e: &HubError) -> String {
    match e {
        HubError::Lost { reason, .. } => reason.clone(),
        other => other.to_string(),
    }
}

/// A session id for a call: `mcp-` and 16 random hex digits.
fn fresh_session() -> String {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = (nanos as u64 ^ u64::from(std::process::id()).rotate_left(32)).to_le_bytes();
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("mcp-{hex}")
}

/// The progress notifications of one call (none when it carries no `progressToken`).
struct Progress {
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
    count: AtomicU64,
}

impl Progress {
    /// The next notification, with `message`.
    async fn say(&self, message: String) {
        let Some(token) = &self.token else {
            return;
        };
        let n = self.count.fetch_add(1, Ordering::Relaxed);
        let _ = self
            .peer
            .notify_progress(
                ProgressNotificationParam::new(token.clone(), n as f64).with_message(message),
            )
            .await;
    }

    /// The notification of a wait that goes on.
    async fn tick(&self) {
        self.say(WAITING.to_owned()).await;
    }
}

/// The message of a progress notification while the person thinks.
pub const WAITING: &str = "Waiting for the user to answer in askd";

/// The name the host gives itself in `initialize` (its `title`, else its `name`).
fn host_name(context: &RequestContext<RoleServer>) -> Option<String> {
    let info = context.peer.peer_info()?;
    let client = &info.client_info;
    client
        .title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .or_else(|| Some(client.name.clone()).filter(|n| !n.trim().is_empty()))
}

impl ServerHandler for AskServer {
    fn get_info(&self) -> ServerConfig {
        let mut server = rmcp::model::Implementation::new("askd", env!("CARGO_PKG_VERSION"));
        server.title = Some("askd".to_owned());
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(server)
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
            .with_instructions(
                "askd asks the user structured questions (its tool `ask`) in their editor, browser or \
                 terminal, and returns the answers.",
            )
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(ProtocolVersion::known_up_to(
            &ProtocolVersion::LATEST_WITH_INITIALIZE,
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![tool::tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != tool::NAME {
            return Err(ErrorData::new(
                ErrorCode::INVALID_PARAMS,
                format!(
                    "unknown tool {:?}: askd offers {}",
                    request.name,
                    tool::NAME
                ),
                None,
            ));
        }
        let _inflight = InFlight::new(&self.inflight);
        let payload = Value::Object(request.arguments.unwrap_or_default());
        if let Err(issues) = validate(&payload, PreviewFormat::Markdown) {
            return Ok(answer::malformed(&issues).into());
        }
        let progress = Progress {
            peer: context.peer.clone(),
            token: context.meta.get_progress_token(),
            count: AtomicU64::new(0),
        };
        let asker = host_name(&context);
        let ct = context.ct.clone();
        match self.ask(payload, asker, &progress, ct.cancelled()).await {
            Some(result) => Ok(result.into()),
            // Cancelled: rmcp sends nothing for a cancelled request.
            None => Err(ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                "the call was cancelled",
                None,
            )),
        }
    }
}
