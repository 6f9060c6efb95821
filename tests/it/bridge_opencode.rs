//! `askd bridge opencode`'s watcher against a small opencode server of the test's own (its
//! event streams, `/path`, `/question` and the reply and reject routes, with or without a
//! password) and a hub of the test's own that records every flow asked and answers them when
//! the test says.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use askd::cli::bridge::host::{Ended, FlowHost, HostError};
use askd::cli::bridge::http::{BaseUrl, Credentials, Server};
use askd::cli::bridge::opencode::{Bridge, BridgeError};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot, watch};

/// How long a test waits for something that should happen (a guard against hangs only).
const GUARD: Duration = Duration::from_secs(20);

/// A request the fake server received on a question route.
#[derive(Debug, Clone, PartialEq)]
struct Answered {
    route: &'static str,
    id: String,
    directory: Option<String>,
    body: Option<Value>,
}

/// What the fake opencode server holds.
#[derive(Default)]
struct OcState {
    /// Pending questions by directory.
    pending: HashMap<String, Vec<Value>>,
    /// Every reply and reject received.
    answered: Vec<Answered>,
    /// The open event streams (the senders of their events' data).
    streams: Vec<mpsc::UnboundedSender<String>>,
    /// Whether `/global/event` exists.
    no_global: bool,
    /// The password the server wants, if any (user name `opencode`).
    password: Option<String>,
    /// How many event streams were opened.
    connections: usize,
}

/// The server's own directory.
const OWN: &str = "/srv/project";

#[derive(Clone)]
struct Opencode {
    state: Arc<Mutex<OcState>>,
    addr: SocketAddr,
    changed: watch::Sender<u64>,
}

impl Opencode {
    async fn start(configure: impl FnOnce(&mut OcState)) -> Opencode {
        let mut state = OcState::default();
        configure(&mut state);
        let state = Arc::new(Mutex::new(state));
        let (changed, _) = watch::channel(0);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let addr = listener.local_addr().expect("an address");
        let server = Opencode {
            state,
            addr,
            changed,
        };
        let app = Router::new()
            .route("/global/event", get(global_events))
            .route("/event", get(events))
            .route("/path", get(path))
            .route("/question", get(questions))
            .route("/question/{id}/reply", post(reply))
            .route("/question/{id}/reject", post(reject))
            .with_state(server.clone());
        tokio::spawn(async move {
            axum::serve(listener, app).await.expect("serves");
        });
        server
    }

    fn url(&self) -> BaseUrl {
        BaseUrl::parse(&format!("http://{}", self.addr)).expect("a URL")
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, OcState> {
        self.state.lock().expect("not poisoned")
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    /// Asks a question: pending in `directory`, and announced on every open stream.
    fn ask(&self, id: &str, directory: &str, questions: Value) -> Value {
        let request = json!({ "id": id, "sessionID": "ses_1", "questions": questions });
        let mut state = self.lock();
        state
            .pending
            .entry(directory.to_owned())
            .or_default()
            .push(request.clone());
        let global = json!({ "directory": directory, "project": "p", "payload": {
            "id": "evt_1", "type": "question.asked", "properties": request } });
        let local = json!({ "id": "evt_1", "type": "question.asked", "properties": request });
        let data = if state.no_global { local } else { global };
        state.streams.retain(|s| s.send(data.to_string()).is_ok());
        drop(state);
        self.bump();
        request
    }

    /// Another client answers a question (opencode's own interface): it is no longer pending,
    /// and the streams say so.
    fn answered_elsewhere(&self, id: &str, how: &str) {
        let mut state = self.lock();
        for list in state.pending.values_mut() {
            list.retain(|q| q["id"] != id);
        }
        let event = json!({ "directory": OWN, "payload": { "id": "evt_2",
            "type": format!("question.{how}"),
            "properties": { "sessionID": "ses_1", "requestID": id, "answers": [["x"]] } } });
        state.streams.retain(|s| s.send(event.to_string()).is_ok());
        drop(state);
        self.bump();
    }

    /// The server restarts: its streams end, and what it held is gone.
    fn restart(&self) {
        let mut state = self.lock();
        state.streams.clear();
        state.pending.clear();
        drop(state);
        self.bump();
    }

    /// Waits until `check` holds of the server's state.
    async fn until<T>(&self, what: &str, mut check: impl FnMut(&OcState) -> Option<T>) -> T {
        let mut changed = self.changed.subscribe();
        let wait = async {
            loop {
                if let Some(found) = check(&self.lock()) {
                    return found;
                }
                changed.changed().await.expect("the server lives");
            }
        };
        tokio::time::timeout(GUARD, wait)
            .await
            .unwrap_or_else(|_| panic!("the fake opencode server never saw {what}"))
    }
}

/// Whether the request carries the password the server wants.
fn authorized(state: &OcState, headers: &HeaderMap) -> bool {
    let Some(password) = &state.password else {
        return true;
    };
    use base64::Engine;
    let want = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("opencode:{password}"))
    );
    headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(want.as_str())
}

/// A JSON answer.
fn json_response(value: Value) -> Response {
    ([("content-type", "application/json")], value.to_string()).into_response()
}

fn unauthorized() -> Response {
    (StatusCode::UNAUTHORIZED, "Unauthorized").into_response()
}

async fn global_events(State(server): State<Opencode>, headers: HeaderMap) -> Response {
    if server.lock().no_global {
        return (StatusCode::NOT_FOUND, "Not Found").into_response();
    }
    stream(
        server,
        headers,
        json!({ "payload": { "type": "server.connected", "properties": {} } }),
    )
}

async fn events(State(server): State<Opencode>, headers: HeaderMap) -> Response {
    stream(
        server,
        headers,
        json!({ "type": "server.connected", "properties": {} }),
    )
}

/// An event stream: the first event, then whatever the test sends, until the server restarts.
fn stream(server: Opencode, headers: HeaderMap, first: Value) -> Response {
    let (sender, receiver) = mpsc::unbounded_channel::<String>();
    {
        let mut state = server.lock();
        if !authorized(&state, &headers) {
            return unauthorized();
        }
        let _ = sender.send(first.to_string());
        state.streams.push(sender);
        state.connections += 1;
    }
    server.bump();
    let body = futures_util::stream::unfold(receiver, |mut receiver| async move {
        let data = receiver.recv().await?;
        Some((
            Ok::<_, Infallible>(Bytes::from(format!("data: {data}\n\n"))),
            receiver,
        ))
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(body))
        .expect("a response")
}

async fn path(State(server): State<Opencode>, headers: HeaderMap) -> Response {
    if !authorized(&server.lock(), &headers) {
        return unauthorized();
    }
    json_response(json!({ "home": "/home", "directory": OWN, "worktree": "/" }))
}

async fn questions(
    State(server): State<Opencode>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let state = server.lock();
    if !authorized(&state, &headers) {
        return unauthorized();
    }
    let directory = query.get("directory").cloned().unwrap_or(OWN.to_owned());
    json_response(json!(
        state.pending.get(&directory).cloned().unwrap_or_default()
    ))
}

async fn reply(
    State(server): State<Opencode>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    answer(server, "reply", id, query, headers, Some(body))
}

async fn reject(
    State(server): State<Opencode>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    answer(server, "reject", id, query, headers, None)
}

fn answer(
    server: Opencode,
    route: &'static str,
    id: String,
    query: HashMap<String, String>,
    headers: HeaderMap,
    body: Option<Bytes>,
) -> Response {
    let mut state = server.lock();
    if !authorized(&state, &headers) {
        return unauthorized();
    }
    let directory = query.get("directory").cloned();
    let list = state
        .pending
        .entry(directory.clone().unwrap_or(OWN.to_owned()))
        .or_default();
    let found = list.iter().any(|q| q["id"] == id.as_str());
    list.retain(|q| q["id"] != id.as_str());
    state.answered.push(Answered {
        route,
        id: id.clone(),
        directory,
        body: body.map(|b| serde_json::from_slice(&b).expect("a JSON body")),
    });
    drop(state);
    server.bump();
    if found {
        json_response(json!(true))
    } else {
        let error = json!({ "_tag": "QuestionNotFoundError", "requestID": id,
            "message": format!("Question request not found: {id}") });
        (StatusCode::NOT_FOUND, json_response(error)).into_response()
    }
}

/// A flow the fake hub was asked: its params, and how the test ends it.
struct Asked {
    params: Value,
    end: oneshot::Sender<Result<Ended, HostError>>,
}

/// A hub of the test's own.
#[derive(Clone)]
struct FakeHub {
    asked: mpsc::UnboundedSender<Asked>,
    closed: Arc<Mutex<Vec<String>>>,
    closes: watch::Sender<usize>,
}

impl FlowHost for FakeHub {
    async fn ask(&self, params: Value) -> Result<Ended, HostError> {
        let (end, ended) = oneshot::channel();
        self.asked
            .send(Asked { params, end })
            .map_err(|_| HostError::Unreachable("the test ended".to_owned()))?;
        ended
            .await
            .unwrap_or_else(|_| Err(HostError::Unreachable("the test dropped it".to_owned())))
    }

    async fn close(&self, session: String) {
        self.closed.lock().expect("not poisoned").push(session);
        self.closes.send_modify(|n| *n += 1);
    }
}

/// The fake hub, the flows it is asked, and a way to stop the bridge.
struct Harness {
    hub: FakeHub,
    asked: mpsc::UnboundedReceiver<Asked>,
    stop: Option<oneshot::Sender<()>>,
    bridge: tokio::task::JoinHandle<Result<(), BridgeError>>,
}

impl Harness {
    fn start(server: &Opencode, credentials: Option<Credentials>) -> Harness {
        let (asked_tx, asked) = mpsc::unbounded_channel();
        let (closes, _) = watch::channel(0);
        let hub = FakeHub {
            asked: asked_tx,
            closed: Arc::default(),
            closes,
        };
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let bridge = Bridge::new(Server::new(server.url(), credentials.as_ref()), hub.clone());
        let bridge = tokio::spawn(bridge.run(async {
            let _ = stop_rx.await;
        }));
        Harness {
            hub,
            asked,
            stop: Some(stop_tx),
            bridge,
        }
    }

    async fn next_ask(&mut self) -> Asked {
        tokio::time::timeout(GUARD, self.asked.recv())
            .await
            .expect("the bridge asks the hub")
            .expect("the bridge lives")
    }

    async fn closed(&self, session: &str) {
        let mut closes = self.hub.closes.subscribe();
        let wait = async {
            loop {
                if self
                    .hub
                    .closed
                    .lock()
                    .expect("not poisoned")
                    .iter()
                    .any(|s| s == session)
                {
                    return;
                }
                closes.changed().await.expect("the hub lives");
            }
        };
        tokio::time::timeout(GUARD, wait)
            .await
            .unwrap_or_else(|_| panic!("the bridge never closed {session}"));
    }

    async fn stop(mut self) -> Result<(), BridgeError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(GUARD, self.bridge)
            .await
            .expect("the bridge stops")
            .expect("the bridge does not panic")
    }
}

fn database_question() -> Value {
    json!([{ "question": "Which database?", "header": "DB",
             "options": [{ "label": "Postgres", "description": "server" },
                         { "label": "SQLite", "description": "file" }] }])
}

fn answered(result: Value) -> Result<Ended, HostError> {
    Ok(Ended {
        result,
        cancel_reason: None,
    })
}

fn unanswered(reason: &str) -> Result<Ended, HostError> {
    Ok(Ended {
        result: json!({ "rejected": true }),
        cancel_reason: Some(reason.to_owned()),
    })
}

#[tokio::test]
async fn a_question_is_asked_in_the_hub_and_its_answer_replied() {
    let server = Opencode::start(|_| {}).await;
    let mut harness = Harness::start(&server, None);
    server
        .until("the bridge's stream", |s| {
            (s.connections == 1).then_some(())
        })
        .await;
    let request = server.ask("que_1", "/work/app", database_question());
    let asked = harness.next_ask().await;
    assert_eq!(
        asked.params,
        json!({ "dialect": "opencode", "session": "que_1", "payload": request, "resume": true,
                "cwd": "/work/app", "asker": { "name": "opencode", "folder": "/work/app" } })
    );
    let _ = asked.end.send(answered(json!({ "answers": [["SQLite"]] })));
    let reply = server
        .until("the reply", |s| s.answered.first().cloned())
        .await;
    assert_eq!(
        reply,
        Answered {
            route: "reply",
            id: "que_1".to_owned(),
            directory: Some("/work/app".to_owned()),
            body: Some(json!({ "answers": [["SQLite"]] })),
        }
    );
    harness.closed("que_1").await;
    assert!(harness.stop().await.is_ok());
}

#[tokio::test]
async fn a_dismissal_rejects_and_other_endings_leave_the_question_pending() {
    let server = Opencode::start(|_| {}).await;
    let mut harness = Harness::start(&server, None);
    server
        .until("the bridge's stream", |s| {
            (s.connections == 1).then_some(())
        })
        .await;
    server.ask("que_1", OWN, database_question());
    server.ask("que_2", OWN, database_question());
    server.ask("que_3", OWN, database_question());
    let mut by_id = HashMap::new();
    for _ in 0..3 {
        let asked = harness.next_ask().await;
        by_id.insert(asked.params["session"].as_str().unwrap().to_owned(), asked);
    }
    let _ = by_id
        .remove("que_2")
        .unwrap()
        .end
        .send(unanswered("closed"));
    let _ = by_id
        .remove("que_3")
        .unwrap()
        .end
        .send(unanswered("timeout"));
    harness.closed("que_2").await;
    harness.closed("que_3").await;
    let _ = by_id.remove("que_1").unwrap().end.send(unanswered("user"));
    let answered = server
        .until("the reject", |s| s.answered.first().cloned())
        .await;
    assert_eq!(
        answered,
        Answered {
            route: "reject",
            id: "que_1".to_owned(),
            directory: Some(OWN.to_owned()),
            body: None,
        }
    );
    harness.closed("que_1").await;
    let (answers, pending) = {
        let state = server.lock();
        let pending: Vec<Value> = state.pending[OWN].iter().map(|q| q["id"].clone()).collect();
        (state.answered.len(), pending)
    };
    assert_eq!(answers, 1, "closed and timed-out flows answer nothing");
    assert_eq!(pending, [json!("que_2"), json!("que_3")]);
    assert!(harness.stop().await.is_ok());
}

#[tokio::test]
async fn another_client_answering_first_withdraws_the_flow() {
    let server = Opencode::start(|_| {}).await;
    let mut harness = Harness::start(&server, None);
    server
        .until("the bridge's stream", |s| {
            (s.connections == 1).then_some(())
        })
        .await;
    server.ask("que_1", OWN, database_question());
    let mut asked = harness.next_ask().await;
    server.answered_elsewhere("que_1", "replied");
    harness.closed("que_1").await;
    // The bridge stops waiting for the flow: ending it now reaches nobody, and nothing is
    // posted.
    tokio::time::timeout(GUARD, asked.end.closed())
        .await
        .expect("the bridge stopped waiting for the flow");
    server.ask("que_2", OWN, database_question());
    let mut second = harness.next_ask().await;
    server.answered_elsewhere("que_2", "rejected");
    harness.closed("que_2").await;
    tokio::time::timeout(GUARD, second.end.closed())
        .await
        .expect("the bridge stopped waiting for the flow");
    assert!(server.lock().answered.is_empty());
    assert!(harness.stop().await.is_ok());
}

#[tokio::test]
async fn pending_questions_are_asked_at_connection_and_lost_ones_withdrawn_after_a_restart() {
    let server = Opencode::start(|_| {}).await;
    server.ask("que_1", OWN, database_question());
    let mut harness = Harness::start(&server, None);
    let first = harness.next_ask().await;
    assert_eq!(first.params["session"], "que_1");
    assert_eq!(
        first.params["asker"],
        json!({ "name": "opencode", "folder": OWN })
    );
    // The server restarts: the question is gone with it, and the bridge comes back.
    server.restart();
    server
        .until("the bridge's second stream", |s| {
            (s.connections == 2).then_some(())
        })
        .await;
    harness.closed("que_1").await;
    // Questions asked after the restart reach the hub.
    server.ask("que_2", OWN, database_question());
    let second = harness.next_ask().await;
    assert_eq!(second.params["session"], "que_2");
    let _ = second
        .end
        .send(answered(json!({ "answers": [["Postgres"]] })));
    let reply = server
        .until("the reply", |s| s.answered.first().cloned())
        .await;
    assert_eq!(reply.id, "que_2");
    assert!(harness.stop().await.is_ok());
}

#[tokio::test]
async fn stopping_withdraws_every_open_flow() {
    let server = Opencode::start(|_| {}).await;
    let mut harness = Harness::start(&server, None);
    server
        .until("the bridge's stream", |s| {
            (s.connections == 1).then_some(())
        })
        .await;
    server.ask("que_1", OWN, database_question());
    let _asked = harness.next_ask().await;
    let closed = harness.hub.closed.clone();
    assert!(harness.stop().await.is_ok());
    assert_eq!(*closed.lock().unwrap(), ["que_1"]);
    assert!(server.lock().answered.is_empty());
}

#[tokio::test]
async fn a_server_without_the_global_stream_is_watched_on_its_own() {
    let server = Opencode::start(|s| s.no_global = true).await;
    let mut harness = Harness::start(&server, None);
    server
        .until("the bridge's stream", |s| {
            (s.connections == 1).then_some(())
        })
        .await;
    server.ask("que_1", OWN, database_question());
    let asked = harness.next_ask().await;
    assert_eq!(
        asked.params["asker"],
        json!({ "name": "opencode", "folder": OWN })
    );
    assert!(harness.stop().await.is_ok());
}

#[tokio::test]
async fn a_password_protected_server_takes_basic_auth() {
    let server = Opencode::start(|s| s.password = Some("s3cret".to_owned())).await;
    // Without credentials the bridge stops, saying what to set.
    let harness = Harness::start(&server, None);
    let refused = tokio::time::timeout(GUARD, harness.bridge)
        .await
        .expect("the bridge stops")
        .expect("no panic")
        .expect_err("refused");
    assert_eq!(
        refused.to_string(),
        format!(
            "http://{}/global/event refused the request (401): the server has a password: set \
             OPENCODE_SERVER_PASSWORD (and OPENCODE_SERVER_USERNAME when the user name is not \
             `opencode`) as for the server",
            server.addr
        )
    );
    // With the wrong password too.
    let wrong = Credentials {
        username: "opencode".to_owned(),
        password: "nope".to_owned(),
    };
    let harness = Harness::start(&server, Some(wrong));
    let refused = tokio::time::timeout(GUARD, harness.bridge)
        .await
        .expect("the bridge stops")
        .expect("no panic")
        .expect_err("refused");
    assert!(refused.to_string().ends_with(
        "refused the request (401): the user name or password is wrong: set \
         OPENCODE_SERVER_PASSWORD and OPENCODE_SERVER_USERNAME as for the server"
    ));
    // With the right one, questions are asked and answered.
    let right = Credentials {
        username: "opencode".to_owned(),
        password: "s3cret".to_owned(),
    };
    let mut harness = Harness::start(&server, Some(right));
    server
        .until("the bridge's stream", |s| {
            (s.connections == 1).then_some(())
        })
        .await;
    server.ask("que_1", OWN, database_question());
    let asked = harness.next_ask().await;
    let _ = asked
        .end
        .send(answered(json!({ "answers": [["Postgres"]] })));
    let reply = server
        .until("the reply", |s| s.answered.first().cloned())
        .await;
    assert_eq!(reply.body, Some(json!({ "answers": [["Postgres"]] })));
    assert!(harness.stop().await.is_ok());
}

#[tokio::test]
async fn a_lost_hub_is_asked_again_and_a_request_askd_cannot_ask_is_left_alone() {
    let server = Opencode::start(|_| {}).await;
    let mut harness = Harness::start(&server, None);
    server
        .until("the bridge's stream", |s| {
            (s.connections == 1).then_some(())
        })
        .await;
    // A request askd cannot ask (here a question that is not text) stays with opencode's
    // own clients: it is neither asked nor rejected.
    server.ask(
        "que_0",
        OWN,
        json!([{ "question": 5, "header": "H", "options": [] }]),
    );
    server.ask("que_1", OWN, database_question());
    let first = harness.next_ask().await;
    assert_eq!(first.params["session"], "que_1", "que_0 is not asked");
    let _ = first
        .end
        .send(Err(HostError::Unreachable("the hub went away".to_owned())));
    let again = harness.next_ask().await;
    assert_eq!(again.params, first.params, "asked again, the same flow");
    let _ = again.end.send(answered(json!({ "answers": [["SQLite"]] })));
    let reply = server
        .until("the reply", |s| s.answered.first().cloned())
        .await;
    assert_eq!(reply.id, "que_1");
    assert_eq!(
        server.lock().answered.len(),
        1,
        "que_0 is neither replied nor rejected"
    );
    assert!(harness.stop().await.is_ok());
}
