//! `askd bridge opencode`: every question an opencode server asks, asked in the hub.
//!
//! The bridge reads the server's event stream (`GET /global/event`, the events of every
//! directory the server serves, each with its directory; `GET /event`, the server's own
//! directory only, on a server without the global stream). Each `question.asked` opens a flow
//! in the hub in the opencode dialect (session id: the question's id; asker: `opencode` and
//! the directory), and its result goes back through the server's API: `POST
//! /question/{id}/reply` with the answers, or `POST /question/{id}/reject` when the person
//! dismissed it. A `question.replied` or `question.rejected` for a question still open in the
//! hub means another client (opencode's own interface) answered first: the hub's flow is
//! withdrawn. A flow that ends any other way (withdrawn, timed out, closed by a client) leaves
//! the question to opencode's own clients.
//!
//! At every connection, and after every reconnection, the questions pending on the server
//! (`GET /question` of each directory seen) are compared with those open in the hub: new ones
//! open, and those the server no longer holds (answered meanwhile, or lost with a restart) are
//! withdrawn. The stream is taken as broken when nothing arrives for [`IDLE_LIMIT`] (the server
//! sends a heartbeat every 10 seconds); reconnection waits [`Backoff`], from 200 ms doubling
//! to 5 s.

use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::time::Duration;

use futures_util::StreamExt;
use hyper::Method;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::cli::bridge::host::{Ended, FlowHost, HostError};
use crate::cli::bridge::http::{HttpError, Server};

/// The stream of every directory's events.
pub const GLOBAL_EVENTS: &str = "/global/event";
/// The stream of the server's own directory, for a server without [`GLOBAL_EVENTS`].
pub const EVENTS: &str = "/event";
/// How long the stream may stay silent before it is taken as broken (three heartbeats).
pub const IDLE_LIMIT: Duration = Duration::from_secs(30);
/// The name a question's flow gives as its asker.
pub const ASKER: &str = "opencode";

/// One event of the stream, as the bridge reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// `question.asked`: a `QuestionRequest`.
    Asked {
        /// The question's id (`que…`).
        id: String,
        /// The request, exactly as the server sent it.
        request: Value,
        /// The directory it was asked in (the global stream says it).
        directory: Option<String>,
    },
    /// `question.replied` or `question.rejected`: some client answered it.
    Answered {
        /// The question's id.
        id: String,
        /// `replied` or `rejected`.
        how: &'static str,
    },
    /// Any other event (heartbeats, sessions, messages).
    Other,
}

/// Reads one event's data: `{ directory?, payload: { type, properties } }` on the global
/// stream, `{ type, properties }` on a directory's.
pub fn parse_event(data: &str, global: bool) -> Result<Event, String> {
    let value: Value =
        serde_json::from_str(data).map_err(|e| format!("an event that is not JSON: {e}"))?;
    let (event, directory) = if global {
        let directory = value
            .get("directory")
            .and_then(Value::as_str)
            .filter(|d| !d.is_empty())
            .map(str::to_owned);
        match value.get("payload") {
            Some(payload) => (payload, directory),
            None => return Err("a global event without a payload".to_owned()),
        }
    } else {
        (&value, None)
    };
    let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
    let properties = event.get("properties");
    let id_at = |key: &str| {
        properties
            .and_then(|p| p.get(key))
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| format!("a {kind} event without its {key}"))
    };
    Ok(match kind {
        "question.asked" => Event::Asked {
            id: id_at("id")?,
            request: properties.cloned().unwrap_or(Value::Null),
            directory,
        },
        "question.replied" => Event::Answered {
            id: id_at("requestID")?,
            how: "replied",
        },
        "question.rejected" => Event::Answered {
            id: id_at("requestID")?,
            how: "rejected",
        },
        _ => Event::Other,
    })
}

/// The waits between reconnections: 200 ms, doubling up to 5 s, back to the start after a
/// connection that worked.
#[derive(Debug, Clone)]
pub struct Backoff {
    next: Duration,
}

impl Backoff {
    /// The first wait.
    pub const FIRST: Duration = Duration::from_millis(200);
    /// The longest wait.
    pub const MAX: Duration = Duration::from_secs(5);

    /// A backoff at its first wait.
    pub fn new() -> Backoff {
        Backoff {
            next: Backoff::FIRST,
        }
    }

    /// The next wait (and doubles the one after).
    pub fn next_wait(&mut self) -> Duration {
        let wait = self.next;
        self.next = (self.next * 2).min(Backoff::MAX);
        wait
    }

    /// Back to the first wait.
    pub fn reset(&mut self) {
        self.next = Backoff::FIRST;
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff::new()
    }
}

/// Why the bridge stopped.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// The server refused the bridge's credentials, or wants some.
    #[error("{0}")]
    Refused(HttpError),
}

/// A question open in the hub.
struct Tracked {
    directory: Option<String>,
    task: JoinHandle<()>,
}

/// The `ask` params of a question: the opencode dialect, the question's id as the session,
/// the request as the payload, who asked (opencode, in its directory), and `resume`: the
/// question asked again (after the hub was lost) goes on with the flow the next hub recovered
/// of it, which no other question's id names.
pub fn ask_params(id: &str, request: &Value, directory: Option<&str>) -> Value {
    let mut asker = json!({ "name": ASKER });
    let mut params = json!({
        "dialect": "opencode",
        "session": id,
        "payload": request,
        "resume": true,
    });
    if let Some(directory) = directory {
        asker["folder"] = json!(directory);
        params["cwd"] = json!(directory);
    }
    params["asker"] = asker;
    params
}

/// Whether askd can ask this request: a request opencode sent that askd's opencode dialect
/// refuses is left to opencode's own clients (never rejected for the person), and said.
fn askable(id: &str, request: &Value) -> bool {
    match crate::dialect::opencode::validate(request) {
        Ok(_) => true,
        Err(issues) => {
            let issues: Vec<String> = issues
                .iter()
                .map(|i| format!("{}: {}", i.path, i.message))
                .collect();
            eprintln!(
                "askd: bridge: question {id} is left to opencode's own clients: askd cannot ask it ({})",
                issues.join("; ")
            );
            false
        }
    }
}

/// The bridge between one opencode server and the hub.
pub struct Bridge<H: FlowHost> {
    server: Server,
    host: H,
    tracked: HashMap<String, Tracked>,
    /// Every directory seen, whose pending questions are listed at each connection (`None`:
    /// the server's own).
    directories: BTreeSet<Option<String>>,
    /// The server's own directory (`GET /path`), the directory of the events of `/event`.
    own: Option<String>,
    done_tx: mpsc::UnboundedSender<String>,
    done_rx: mpsc::UnboundedReceiver<String>,
}

impl<H: FlowHost> Bridge<H> {
    /// A bridge between `server` and `host`.
    pub fn new(server: Server, host: H) -> Bridge<H> {
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        Bridge {
            server,
            host,
            tracked: HashMap::new(),
            directories: BTreeSet::from([None]),
            own: None,
            done_tx,
            done_rx,
        }
    }

    /// Watches the server until `stop` resolves (then every flow still open in the hub is
    /// withdrawn), or until the server refuses the bridge.
    pub async fn run(mut self, stop: impl Future<Output = ()>) -> Result<(), BridgeError> {
        tokio::pin!(stop);
        let mut backoff = Backoff::new();
        let mut down_since_reported = false;
        let outcome = loop {
            let connected = tokio::select! {
                () = &mut stop => break Ok(()),
                connected = self.connect() => connected,
            };
            match connected {
                Ok((events, global)) => {
                    eprintln!(
                        "askd: bridge: watching {}{}",
                        self.server.base(),
                        if global { GLOBAL_EVENTS } else { EVENTS }
                    );
                    backoff.reset();
                    down_since_reported = false;
                    if let Err(e) = self.catch_up().await {
                        if matches!(e, HttpError::Unauthorized { .. }) {
                            break Err(BridgeError::Refused(e));
                        }
                        eprintln!("askd: bridge: cannot list the pending questions: {e}");
                    }
                    match self.watch(events, global, &mut stop).await {
                        Watch::Stopped => break Ok(()),
                        Watch::Broken(why) => {
                            eprintln!("askd: bridge: {why}; reconnecting");
                        }
                    }
                }
                Err(e @ HttpError::Unauthorized { .. }) => break Err(BridgeError::Refused(e)),
                Err(e) => {
                    if !down_since_reported {
                        eprintln!("askd: bridge: {e}; trying again until the server is back");
                        down_since_reported = true;
                    }
                }
            }
            let wait = tokio::time::sleep(backoff.next_wait());
            tokio::pin!(wait);
            loop {
                tokio::select! {
                    () = &mut stop => return self.shut_down(Ok(())).await,
                    () = &mut wait => break,
                    Some(id) = self.done_rx.recv() => { self.tracked.remove(&id); }
                }
            }
        };
        self.shut_down(outcome).await
    }

    /// Withdraws every flow still open, then hands back `outcome`.
    async fn shut_down(&mut self, outcome: Result<(), BridgeError>) -> Result<(), BridgeError> {
        let ids: Vec<String> = self.tracked.keys().cloned().collect();
        for id in ids {
            self.withdraw(&id).await;
        }
        outcome
    }

    /// Opens the event stream: the global one, else the directory's.
    async fn connect(&self) -> Result<(crate::cli::bridge::http::Events, bool), HttpError> {
        match self.server.events(GLOBAL_EVENTS).await {
            Ok(events) => Ok((events, true)),
            Err(HttpError::NotFound { .. }) => Ok((self.server.events(EVENTS).await?, false)),
            Err(e) => Err(e),
        }
    }

    /// Opens the questions pending on the server that the hub does not have, and withdraws
    /// the flows of questions the server no longer holds.
    async fn catch_up(&mut self) -> Result<(), HttpError> {
        // The server's own directory (`GET /path`), so that its questions name it too.
        match self.server.json(Method::GET, "/path", &[], None).await {
            Ok(path) => {
                if let Some(own) = path.get("directory").and_then(Value::as_str) {
                    self.directories.remove(&None);
                    self.directories.insert(Some(own.to_owned()));
                    self.own = Some(own.to_owned());
                }
            }
            Err(e @ HttpError::Unauthorized { .. }) => return Err(e),
            Err(_) => {
                self.directories.insert(None);
            }
        }
        let mut listed: HashMap<String, (Value, Option<String>)> = HashMap::new();
        let mut listed_directories = BTreeSet::new();
        let directories: Vec<Option<String>> = self.directories.iter().cloned().collect();
        for directory in directories {
            let query: Vec<(&str, &str)> = directory
                .as_deref()
                .map(|d| vec![("directory", d)])
                .unwrap_or_default();
            let pending = match self
                .server
                .json(Method::GET, "/question", &query, None)
                .await
            {
                Ok(pending) => pending,
                Err(e @ HttpError::Unauthorized { .. }) => return Err(e),
                Err(e) => {
                    eprintln!(
                        "askd: bridge: cannot list the questions of {}: {e}",
                        directory.as_deref().unwrap_or("the server's directory")
                    );
                    continue;
                }
            };
            listed_directories.insert(directory.clone());
            for request in pending.as_array().into_iter().flatten() {
                if let Some(id) = request.get("id").and_then(Value::as_str) {
                    listed
                        .entry(id.to_owned())
                        .or_insert_with(|| (request.clone(), directory.clone()));
                }
            }
        }
        // Withdraw what the server no longer holds, where its list could be read.
        let gone: Vec<String> = self
            .tracked
            .iter()
            .filter(|(id, t)| {
                !listed.contains_key(*id) && listed_directories.contains(&t.directory)
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in gone {
            eprintln!("askd: bridge: question {id} is no longer pending on the server");
            self.withdraw(&id).await;
        }
        for (id, (request, directory)) in listed {
            self.open(id, request, directory);
        }
        Ok(())
    }

    /// Reads the stream until it breaks or `stop` resolves.
    async fn watch(
        &mut self,
        mut events: crate::cli::bridge::http::Events,
        global: bool,
        stop: &mut std::pin::Pin<&mut impl Future<Output = ()>>,
    ) -> Watch {
        loop {
            let next = tokio::select! {
                () = stop.as_mut() => return Watch::Stopped,
                Some(id) = self.done_rx.recv() => {
                    self.tracked.remove(&id);
                    continue;
                }
                next = tokio::time::timeout(IDLE_LIMIT, events.next()) => next,
            };
            let sse = match next {
                Err(_) => {
                    return Watch::Broken(format!("no event for {} seconds", IDLE_LIMIT.as_secs()));
                }
                Ok(None) => return Watch::Broken("the event stream ended".to_owned()),
                Ok(Some(Err(e))) => return Watch::Broken(format!("the event stream broke: {e}")),
                Ok(Some(Ok(sse))) => sse,
            };
            let Some(data) = sse.data.as_deref().filter(|d| !d.is_empty()) else {
                continue;
            };
            match parse_event(data, global) {
                Ok(Event::Asked {
                    id,
                    request,
                    directory,
                }) => {
                    let directory = if global { directory } else { self.own.clone() };
                    self.directories.insert(directory.clone());
                    self.open(id, request, directory);
                }
                Ok(Event::Answered { id, how }) => {
                    if self.tracked.contains_key(&id) {
                        eprintln!(
                            "askd: bridge: question {id} was {how} by another client; withdrawing it"
                        );
                        self.withdraw(&id).await;
                    }
                }
                Ok(Event::Other) => {}
                Err(e) => eprintln!("askd: bridge: skipped {e}"),
            }
        }
    }

    /// Asks a question in the hub, unless it is open there already.
    fn open(&mut self, id: String, request: Value, directory: Option<String>) {
        if self.tracked.contains_key(&id) || !askable(&id, &request) {
            return;
        }
        eprintln!(
            "askd: bridge: question {id} asked{}",
            directory
                .as_deref()
                .map(|d| format!(" in {d}"))
                .unwrap_or_default()
        );
        let task = tokio::spawn(answer(
            self.host.clone(),
            self.server.clone(),
            id.clone(),
            ask_params(&id, &request, directory.as_deref()),
            directory.clone(),
            self.done_tx.clone(),
        ));
        self.tracked.insert(id, Tracked { directory, task });
    }

    /// Stops asking a question: its task ends and the hub withdraws its flow.
    async fn withdraw(&mut self, id: &str) {
        if let Some(tracked) = self.tracked.remove(id) {
            tracked.task.abort();
            self.host.close(id.to_owned()).await;
        }
    }
}

/// How watching the stream ended.
enum Watch {
    Stopped,
    Broken(String),
}

/// One question's life: asked in the hub (again after the hub was lost, which resumes the
/// flow it recovered), then answered on the server, retried while the server is away.
async fn answer<H: FlowHost>(
    host: H,
    server: Server,
    id: String,
    params: Value,
    directory: Option<String>,
    done: mpsc::UnboundedSender<String>,
) {
    let mut backoff = Backoff::new();
    let ended = loop {
        match host.ask(params.clone()).await {
            Ok(ended) => break Some(ended),
            Err(HostError::Unreachable(why)) => {
                eprintln!("askd: bridge: question {id}: {why}; asking again");
                tokio::time::sleep(backoff.next_wait()).await;
            }
            Err(error) => {
                eprintln!("askd: bridge: question {id}: {error}");
                break None;
            }
        }
    };
    if let Some(ended) = ended {
        hand_back(&server, &id, directory.as_deref(), &ended).await;
        host.close(id.clone()).await;
    }
    let _ = done.send(id);
}

/// What the server is told of a finished flow: the answers, the person's dismissal, or nothing
/// (the flow ended without the person: opencode's own clients may still answer).
async fn hand_back(server: &Server, id: &str, directory: Option<&str>, ended: &Ended) {
    let query: Vec<(&str, &str)> = directory
        .map(|d| vec![("directory", d)])
        .unwrap_or_default();
    let (path, body, words) = if ended.result.get("answers").is_some() {
        (
            format!("/question/{id}/reply"),
            Some(&ended.result),
            "answered",
        )
    } else if ended.person_declined() {
        (format!("/question/{id}/reject"), None, "dismissed")
    } else {
        eprintln!(
            "askd: bridge: question {id} ended unanswered ({}); left to opencode's own clients",
            ended.cancel_reason.as_deref().unwrap_or("no reason given")
        );
        return;
    };
    let mut backoff = Backoff::new();
    loop {
        match server.json(Method::POST, &path, &query, body).await {
            Ok(_) => {
                eprintln!("askd: bridge: question {id} {words}");
                return;
            }
            Err(HttpError::NotFound { .. }) => {
                eprintln!("askd: bridge: question {id} was answered elsewhere first");
                return;
            }
            Err(e) if e.is_transient() => {
                tokio::time::sleep(backoff.next_wait()).await;
            }
            Err(e) => {
                eprintln!("askd: bridge: question {id}: {e}");
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_of_both_streams_are_read() {
        let asked = r#"{"directory":"/w","project":"global","payload":{"id":"evt_1","type":"question.asked","properties":{"id":"que_1","sessionID":"ses_1","questions":[]}}}"#;
        assert_eq!(
            parse_event(asked, true),
            Ok(Event::Asked {
                id: "que_1".to_owned(),
                request: json!({ "id": "que_1", "sessionID": "ses_1", "questions": [] }),
                directory: Some("/w".to_owned()),
            })
        );
        let replied = r#"{"id":"evt_2","type":"question.replied","properties":{"sessionID":"ses_1","requestID":"que_1","answers":[["A"]]}}"#;
        assert_eq!(
            parse_event(replied, false),
            Ok(Event::Answered {
                id: "que_1".to_owned(),
                how: "replied"
            })
        );
        let rejected = r#"{"payload":{"type":"question.rejected","properties":{"sessionID":"ses_1","requestID":"que_2"}}}"#;
        assert_eq!(
            parse_event(rejected, true),
            Ok(Event::Answered {
                id: "que_2".to_owned(),
                how: "rejected"
            })
        );
        assert_eq!(
            parse_event(
                r#"{"payload":{"type":"server.heartbeat","properties":{}}}"#,
                true
            ),
            Ok(Event::Other)
        );
        assert_eq!(
            parse_event(r#"{"type":"question.asked","properties":{}}"#, false),
            Err("a question.asked event without its id".to_owned())
        );
        assert_eq!(
            parse_event(r#"{"type":"server.connected"}"#, true),
            Err("a global event without a payload".to_owned())
        );
        assert!(parse_event("{", false).is_err());
    }

    #[test]
    fn the_backoff_doubles_to_its_ceiling_and_resets() {
        let mut backoff = Backoff::new();
        let waits: Vec<u128> = (0..7).map(|_| backoff.next_wait().as_millis()).collect();
        assert_eq!(waits, [200, 400, 800, 1600, 3200, 5000, 5000]);
        backoff.reset();
        assert_eq!(backoff.next_wait(), Duration::from_millis(200));
    }

    #[test]
    fn a_question_is_asked_as_opencode_in_its_directory() {
        let request = json!({ "id": "que_1", "sessionID": "ses_1", "questions": [] });
        assert_eq!(
            ask_params("que_1", &request, Some("/w")),
            json!({
                "dialect": "opencode",
                "session": "que_1",
                "payload": request,
                "resume": true,
                "cwd": "/w",
                "asker": { "name": "opencode", "folder": "/w" },
            })
        );
        assert_eq!(
            ask_params("que_1", &request, None),
            json!({
                "dialect": "opencode",
                "session": "que_1",
                "payload": request,
                "resume": true,
                "asker": { "name": "opencode" },
            })
        );
    }
}
