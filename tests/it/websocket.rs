//! The WebSocket listener end to end: the real binary (`askd serve --listen`, `askd web`)
//! driven over real WebSocket connections (tungstenite's client) beside its stdio pipes. The
//! page and its files over HTTP, the token, the Origin check, loopback only, the connection
//! limit, replies identical to stdin's, the message size limit, `exit`, a client that never
//! reads, flows shared between connections, and `askd web` from start to result.
//!
//! Every wait is bounded by [`GUARD`], which only turns a hang into a failure.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tungstenite::client::IntoClientRequest;
use tungstenite::http::HeaderValue;
use tungstenite::protocol::CloseFrame;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

use crate::support::{ASKD, GUARD, Server, untimed};

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/// A payload of two questions.
pub(crate) fn payload() -> Value {
    json!({
        "title": "Setup",
        "questions": [
            {
                "id": "db",
                "label": "Database",
                "prompt": "Which database?",
                "options": [
                    { "value": "pg", "label": "Postgres" },
                    { "value": "sqlite", "label": "SQLite" }
                ]
            },
            {
                "id": "feat",
                "label": "Features",
                "prompt": "Which features?",
                "type": "multi",
                "options": [
                    { "value": "auth", "label": "Auth" },
                    { "value": "api", "label": "API" }
                ]
            }
        ]
    })
}

/// The pi result of [`payload`] answered with SQLite, and API.
fn submitted_result() -> Value {
    json!({
        "content": [{ "type": "text", "text": "Database: SQLite\nFeatures: API" }],
        "details": {
            "title": "Setup",
            "cancelled": false,
            "mode": "submit",
            "questions": [
                { "id": "db", "label": "Database", "prompt": "Which database?", "type": "single" },
                { "id": "feat", "label": "Features", "prompt": "Which features?", "type": "multi" }
            ],
            "answers": {
                "db": { "values": ["sqlite"], "labels": ["SQLite"], "indices": [2] },
                "feat": { "values": ["api"], "labels": ["API"], "indices": [2] }
            }
        }
    })
}

/// The keys that answer [`payload`] as [`submitted_result`] from its first screen.
const ANSWER_KEYS: &str = "2<Down><Space><Tab><CR>";

/// Polls `done` until it answers `Some`, failing after [`GUARD`].
pub(crate) fn eventually<T>(what: &str, mut done: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + GUARD;
    loop {
        if let Some(value) = done() {
            return value;
        }
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        thread::sleep(Duration::from_millis(10));
    }
}

/// The `host:port` and token a listener printed on stderr (`askd: WebSocket endpoint
/// ws://HOST:PORT/rpc?token=TOKEN`).
pub(crate) fn printed_endpoint(stderr: &str) -> Option<(String, String)> {
    let line = stderr
        .lines()
        .find_map(|line| line.strip_prefix("askd: WebSocket endpoint ws://"))?;
    let (address, token) = line.split_once("/rpc?token=")?;
    Some((address.to_owned(), token.to_owned()))
}

/// `askd serve --listen 127.0.0.1:0` (and more arguments), with its stdio pipes and the
/// address and token it printed.
pub(crate) struct Listening {
    pub(crate) server: Server,
    pub(crate) address: String,
    pub(crate) token: String,
}

impl Listening {
    pub(crate) fn start(args: &[&str]) -> Listening {
        // Not the hub: these tests are about the listener, and a hub tells the opener of a
        // flow no client is attached to (`hub.rs` tests that).
        let mut all = vec!["serve", "--listen", "127.0.0.1:0", "--no-hub"];
        all.extend_from_slice(args);
        let server = Server::start(&all);
        let (address, token) = eventually("the listener's address", || {
            printed_endpoint(&server.stderr_text())
        });
        Listening {
            server,
            address,
            token,
        }
    }

    /// The endpoint's URL with a query.
    pub(crate) fn url(&self, query: &str) -> String {
        format!("ws://{}/rpc{query}", self.address)
    }

    /// A connection with the right token and no `Origin` (a client that is not a browser).
    pub(crate) fn connect(&self) -> Client {
        Client::connect(&self.url(&format!("?token={}", self.token)), &[])
            .expect("the listener accepts the token")
    }

    /// A connection with the right token from a page of `origin`.
    fn connect_from(&self, origin: &str) -> Result<Client, Refusal> {
        Client::connect(
            &self.url(&format!("?token={}", self.token)),
            &[("Origin", origin)],
        )
    }
}

/// A refused upgrade: its HTTP status and body.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    status: u16,
    body: String,
}

/// A WebSocket client speaking JSON-RPC, one message per text frame.
pub(crate) struct Client {
    pub(crate) socket: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    /// Notifications read while waiting for a reply, oldest first.
    notifications: std::collections::VecDeque<Value>,
}

impl Client {
    /// Connects to `url` with extra request headers; a refused upgrade is its status and body.
    pub(crate) fn connect(url: &str, headers: &[(&str, &str)]) -> Result<Client, Refusal> {
        let mut request = url.into_client_request().expect("a WebSocket URL");
        for (name, value) in headers {
            request.headers_mut().insert(
                tungstenite::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        match tungstenite::connect(request) {
            Ok((socket, _)) => {
                if let MaybeTlsStream::Plain(stream) = socket.get_ref() {
                    stream.set_read_timeout(Some(GUARD)).unwrap();
                }
                Ok(Client {
                    socket,
                    next_id: 1,
                    notifications: Default::default(),
                })
            }
            Err(tungstenite::Error::Http(response)) => Err(Refusal {
                status: response.status().as_u16(),
                body: String::from_utf8(response.body().clone().unwrap_or_default()).unwrap(),
            }),
            Err(e) => panic!("cannot connect to {url}: {e}"),
        }
    }

    /// Sends one text frame.
    pub(crate) fn send_text(&mut self, text: &str) {
        self.socket.send(Message::text(text)).expect("send");
    }

    /// The next text frame.
    fn recv_text(&mut self) -> String {
        loop {
            match self.socket.read().expect("a message from askd") {
                Message::Text(text) => return text.as_str().to_owned(),
                Message::Ping(_) | Message::Pong(_) => {}
                other => panic!("expected a text frame, got {other:?}"),
            }
        }
    }

    /// The next message, parsed.
    pub(crate) fn recv(&mut self) -> Value {
        let text = self.recv_text();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    }

    /// The close frame that ends the connection, after any messages before it.
    pub(crate) fn recv_close(&mut self) -> (Vec<Value>, Option<CloseFrame>) {
        let mut before = Vec::new();
        loop {
            match self.socket.read() {
                Ok(Message::Text(text)) => {
                    before.push(serde_json::from_str(text.as_str()).unwrap())
                }
                Ok(Message::Close(frame)) => return (before, frame),
                Ok(_) => {}
                Err(e) => panic!("the connection ended without a close frame: {e}"),
            }
        }
    }

    /// Sends a request and answers its whole reply.
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.send_text(&request.to_string());
        loop {
            let message = self.recv();
            if message.get("id").is_none() {
                self.notifications.push_back(message);
                continue;
            }
            assert_eq!(message["id"], json!(id), "{message}");
            return message;
        }
    }

    /// The next notification (one read while waiting for a reply first), each `openedAt` of
    /// a listed session checked and left out (see `untimed`).
    fn notification(&mut self) -> Value {
        untimed(match self.notifications.pop_front() {
            Some(notification) => notification,
            None => {
                let message = self.recv();
                assert!(message.get("id").is_none(), "not a notification: {message}");
                message
            }
        })
    }

    /// Sends a request and answers its result, failing on an error reply.
    pub(crate) fn ok(&mut self, method: &str, params: Value) -> Value {
        let reply = self.call(method, params);
        assert!(reply.get("error").is_none(), "{method} failed: {reply}");
        reply["result"].clone()
    }
}

/// The status line, headers and body of a plain HTTP/1.1 `GET`, as the listener sent them.
fn http_get(address: &str, path: &str) -> (String, Vec<(String, String)>, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(GUARD)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap().to_owned();
    let headers = lines
        .map(|line| {
            let (name, value) = line.split_once(": ").unwrap();
            (name.to_ascii_lowercase(), value.to_owned())
        })
        .filter(|(name, _)| name != "date")
        .collect();
    (status, headers, body.to_owned())
}

/// A file of the browser client, as the repository holds it.
fn web_file(name: &str) -> String {
    std::fs::read_to_string(format!("{}/editors/web/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

// ---------------------------------------------------------------------------------------------
// HTTP: the page and its files
// ---------------------------------------------------------------------------------------------

#[test]
fn the_page_and_its_files_are_served_from_the_binary() {
    let listening = Listening::start(&[]);
    let policy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                  img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    for (path, file, content_type) in [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/index.html", "index.html", "text/html; charset=utf-8"),
        ("/page.css", "page.css", "text/css; charset=utf-8"),
        ("/askd.css", "askd.css", "text/css; charset=utf-8"),
        ("/app.js", "app.js", "text/javascript; charset=utf-8"),
        (
            "/askd-view.js",
            "askd-view.js",
            "text/javascript; charset=utf-8",
        ),
        (
            "/askd-lines.js",
            "askd-lines.js",
            "text/javascript; charset=utf-8",
        ),
        (
            "/askd-keys.js",
            "askd-keys.js",
            "text/javascript; charset=utf-8",
        ),
        (
            "/askd-form.js",
            "askd-form.js",
            "text/javascript; charset=utf-8",
        ),
        (
            "/askd-waiting.js",
            "askd-waiting.js",
            "text/javascript; charset=utf-8",
        ),
        (
            "/askd-wide.js",
            "askd-wide.js",
            "text/javascript; charset=utf-8",
        ),
        (
            "/askd-socket.js",
            "askd-socket.js",
            "text/javascript; charset=utf-8",
        ),
    ] {
        let body = web_file(file);
        let (status, headers, served) = http_get(&listening.address, path);
        assert_eq!(status, "HTTP/1.1 200 OK", "{path}");
        assert_eq!(
            headers,
            vec![
                ("content-type".into(), content_type.into()),
                ("cache-control".into(), "no-cache".into()),
                ("x-content-type-options".into(), "nosniff".into()),
                ("referrer-policy".into(), "no-referrer".into()),
                ("content-security-policy".into(), policy.into()),
                ("content-length".into(), body.len().to_string()),
                ("connection".into(), "close".into()),
            ],
            "{path}"
        );
        assert!(
            served == body,
            "{path} is served as the repository holds it"
        );
    }
    for path in [
        "/nope.js",
        "/tests/browser/flow.mjs",
        "/../Cargo.toml",
        "/package.json",
    ] {
        let (status, _, body) = http_get(&listening.address, path);
        assert_eq!(
            (status.as_str(), body.as_str()),
            ("HTTP/1.1 404 Not Found", "askd: no such file\n"),
            "{path}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Access: the token, the Origin, loopback only, the connection limit
// ---------------------------------------------------------------------------------------------

const BAD_TOKEN: &str = "askd: the token is missing or wrong: give the one askd printed, as ?token= or Authorization: Bearer\n";

#[test]
fn a_connection_must_present_the_token() {
    let listening = Listening::start(&[]);
    let refused = |query: &str, headers: &[(&str, &str)]| {
        Client::connect(&listening.url(query), headers).err()
    };
    let unauthorized = Some(Refusal {
        status: 401,
        body: BAD_TOKEN.into(),
    });
    let token = listening.token.clone();
    let mut wrong = token.clone();
    wrong.replace_range(..1, if token.starts_with('0') { "1" } else { "0" });
    assert_eq!(refused("", &[]), unauthorized);
    assert_eq!(refused("?token=", &[]), unauthorized);
    assert_eq!(refused(&format!("?token={wrong}"), &[]), unauthorized);
    assert_eq!(
        refused(&format!("?token={}", &token[1..]), &[]),
        unauthorized
    );
    assert_eq!(refused(&format!("?token={token}x"), &[]), unauthorized);
    assert_eq!(
        refused(&format!("?token={token}&token={token}"), &[]),
        unauthorized
    );
    let wrong_bearer = format!("Bearer {wrong}");
    assert_eq!(
        refused(
            &format!("?token={token}"),
            &[("Authorization", &wrong_bearer)]
        ),
        unauthorized,
        "the header, when given, is the token presented"
    );
    // The token in the query, or in the Authorization header.
    let mut by_query = Client::connect(&listening.url(&format!("?token={token}")), &[]).unwrap();
    assert_eq!(untimed(by_query.ok("sessions", json!({}))), json!([]));
    let bearer = format!("Bearer {token}");
    let mut by_header = Client::connect(&listening.url(""), &[("Authorization", &bearer)]).unwrap();
    assert_eq!(untimed(by_header.ok("sessions", json!({}))), json!([]));
}

#[test]
fn a_page_of_another_origin_is_refused_before_the_token_is_looked_at() {
    let listening = Listening::start(&["--allow-origin", "https://Editor.Example/"]);
    let port = listening.address.rsplit_once(':').unwrap().1.to_owned();
    let forbidden = |origin: &str| Refusal {
        status: 403,
        body: format!("askd: the origin {origin} may not connect; allow it with --allow-origin\n"),
    };
    for origin in [
        "http://evil.example".to_string(),
        format!("http://evil.example:{port}"),
        format!("https://127.0.0.1:{port}"),
        "http://127.0.0.1:1".into(),
        "null".into(),
        "https://editor.example:8443".into(),
    ] {
        assert_eq!(
            listening.connect_from(&origin).err(),
            Some(forbidden(&origin)),
            "{origin}"
        );
        assert_eq!(
            Client::connect(&listening.url("?token=wrong"), &[("Origin", &origin)]).err(),
            Some(forbidden(&origin)),
            "{origin}, without the token"
        );
    }
    for origin in [
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        format!("http://LOCALHOST:{port}"),
        "https://editor.example".into(),
    ] {
        let mut client = listening
            .connect_from(&origin)
            .unwrap_or_else(|r| panic!("{origin} refused: {r:?}"));
        assert_eq!(
            untimed(client.ok("sessions", json!({}))),
            json!([]),
            "{origin}"
        );
    }
    // Its own origin still needs the token.
    assert_eq!(
        Client::connect(
            &listening.url("?token=wrong"),
            &[("Origin", &format!("http://127.0.0.1:{port}"))]
        )
        .err(),
        Some(Refusal {
            status: 401,
            body: BAD_TOKEN.into()
        })
    );
}

#[test]
fn other_requests_to_the_endpoint_are_refused_with_their_status() {
    let listening = Listening::start(&[]);
    let (status, headers, body) = http_get(&listening.address, "/rpc");
    assert_eq!(
        (status.as_str(), body.as_str()),
        ("HTTP/1.1 401 Unauthorized", BAD_TOKEN)
    );
    assert!(headers.contains(&("www-authenticate".into(), "Bearer".into())));
    let (status, _, body) = http_get(
        &listening.address,
        &format!("/rpc?token={}", listening.token),
    );
    assert_eq!(
        (status.as_str(), body.as_str()),
        (
            "HTTP/1.1 426 Upgrade Required",
            "askd: this address takes WebSocket connections only\n"
        )
    );
}

#[test]
fn addresses_that_are_not_loopback_ones_need_allow_remote() {
    let output = Command::new(ASKD)
        .args(["serve", "--listen", "0.0.0.0:0"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "askd: 0.0.0.0:0 is not a loopback address: askd listens on other addresses only with --allow-remote\n"
    );
    let output = Command::new(ASKD)
        .args(["serve", "--allow-remote"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(2),
        "--allow-remote needs --listen"
    );

    let remote = Server::start(&["serve", "--listen", "0.0.0.0:0", "--allow-remote"]);
    let (address, token) = eventually("the listener's address", || {
        printed_endpoint(&remote.stderr_text())
    });
    assert!(address.starts_with("127.0.0.1:"), "{address}");
    let mut client = Client::connect(&format!("ws://{address}/rpc?token={token}"), &[]).unwrap();
    assert_eq!(untimed(client.ok("sessions", json!({}))), json!([]));
}

#[test]
fn listen_addresses_and_origins_are_checked_when_askd_starts() {
    let started = |args: &[&str]| {
        let output = Command::new(ASKD)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let (status, stderr) = started(&["serve", "--listen", "nowhere"]);
    assert_eq!(status, Some(2));
    assert!(
        stderr.contains(
            "invalid value 'nowhere' for '--listen <HOST:PORT>': \"nowhere\" is not HOST:PORT (an IP address or localhost, and a port)"
        ),
        "{stderr}"
    );
    let (status, stderr) = started(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--allow-origin",
        "example.test",
    ]);
    assert_eq!(status, Some(2));
    assert!(
        stderr.contains("\"example.test\" is not an origin: give scheme://host[:port], e.g. http://localhost:8080"),
        "{stderr}"
    );
}

#[test]
fn the_number_of_connections_is_bounded() {
    let listening = Listening::start(&["--max-connections", "2"]);
    let mut first = listening.connect();
    let mut second = listening.connect();
    let full = Refusal {
        status: 503,
        body: "askd: too many connections: the limit is 2; close one first\n".into(),
    };
    let url = listening.url(&format!("?token={}", listening.token));
    assert_eq!(Client::connect(&url, &[]).err(), Some(full));
    assert_eq!(untimed(first.ok("sessions", json!({}))), json!([]));
    assert_eq!(untimed(second.ok("sessions", json!({}))), json!([]));
    // A connection that closes makes room for another, once the listener has seen it close.
    second.socket.close(None).unwrap();
    let _ = second.recv_close();
    let mut third = eventually("room for a new connection", || {
        Client::connect(&url, &[]).ok()
    });
    assert_eq!(untimed(third.ok("sessions", json!({}))), json!([]));
    // The limit counts WebSocket connections only: the page is still served.
    let (status, _, _) = http_get(&listening.address, "/");
    assert_eq!(status, "HTTP/1.1 200 OK");
}

#[test]
fn a_token_file_is_created_for_its_owner_only_and_used_on_every_start() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("askd-token");
    let path_text = path.to_str().unwrap();
    let first = Listening::start(&["--token-file", path_text]);
    let written = std::fs::read_to_string(&path).unwrap();
    assert_eq!(written, format!("{}\n", first.token));
    assert_eq!(first.token.len(), 64);
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    drop(first);
    let second = Listening::start(&["--token-file", path_text]);
    assert_eq!(second.token, written.trim());
    second.connect().ok("sessions", json!({}));
    // A token of one's own.
    std::fs::write(&path, "my-own-token-0123456789\n").unwrap();
    let third = Listening::start(&["--token-file", path_text]);
    assert_eq!(third.token, "my-own-token-0123456789");
    third.connect().ok("sessions", json!({}));
}

// ---------------------------------------------------------------------------------------------
// The connection: the same dispatch as stdin
// ---------------------------------------------------------------------------------------------

/// Messages of every kind: valid requests on every method, notifications, batches, and every
/// error stdin answers.
fn mixed_messages() -> Vec<String> {
    let payload = payload();
    let mut messages: Vec<String> = [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": { "width": 60 } } }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "open", "params": { "session": "m", "payload": payload } }),
        json!({ "jsonrpc": "2.0", "id": "k", "method": "key", "params": { "session": "m", "key": "down" } }),
        json!({ "jsonrpc": "2.0", "id": 3, "method": "key", "params": { "session": "m", "key": "nope" } }),
        json!({ "jsonrpc": "2.0", "id": 4, "method": "key", "params": { "session": "none", "key": "up" } }),
        json!({ "jsonrpc": "2.0", "id": 5, "method": "insert", "params": { "session": "m", "text": "x" } }),
        json!({ "jsonrpc": "2.0", "id": 6, "method": "keys", "params": { "session": "m", "keys": "<Space><Tab>", "trace": true } }),
        json!({ "jsonrpc": "2.0", "id": 7, "method": "getView", "params": { "session": "m", "width": 40 } }),
        json!({ "jsonrpc": "2.0", "method": "key", "params": { "session": "m", "key": "up" } }),
        json!({ "jsonrpc": "2.0", "id": 8, "method": "nope" }),
        json!({ "jsonrpc": "2.0", "id": 9, "method": "snapshot", "params": { "session": "m" } }),
        json!({ "jsonrpc": "2.0", "id": 10, "method": "sessions" }),
        json!({ "jsonrpc": "2.0", "id": 11, "method": "open", "params": { "payload": { "questions": [] } } }),
        json!({ "jsonrpc": "2.0", "id": 12, "method": "cancel", "params": { "session": "m" } }),
        json!({ "jsonrpc": "2.0", "id": 13, "method": "key", "params": { "session": "m", "key": "up" } }),
        json!({ "jsonrpc": "2.0", "id": 14, "method": "getResult", "params": { "session": "m" } }),
        json!({ "jsonrpc": "2.0", "id": 15, "method": "close", "params": { "session": "m" } }),
        json!({ "jsonrpc": "2.0", "id": 16, "method": "shutdown" }),
    ]
    .iter()
    .map(Value::to_string)
    .collect();
    messages.extend(
        [
            "{not json",
            "[]",
            "[1,2]",
            r#"{"jsonrpc":"1.0","id":17,"method":"sessions"}"#,
            r#"{"jsonrpc":"2.0","id":18.5,"method":"sessions"}"#,
            r#"{"jsonrpc":"2.0","id":19,"method":"key","params":[1]}"#,
            r#"[{"jsonrpc":"2.0","id":20,"method":"sessions"},{"jsonrpc":"2.0","method":"sessions"},{"jsonrpc":"2.0","id":21,"method":"ask","params":{}}]"#,
            r#"{"jsonrpc":"2.0","id":22,"method":"sessions"}  "#,
            r#"{"jsonrpc":"2.0","id":"\u00e9","method":"sessions"}"#,
        ]
        .map(str::to_owned),
    );
    messages
}

/// A reply with every `openedAt` number written as 0.
fn untimed_text(reply: &str) -> String {
    regex::Regex::new(r#""openedAt":\d+"#)
        .unwrap()
        .replace_all(reply, r#""openedAt":0"#)
        .into_owned()
}

#[test]
fn websocket_frames_are_answered_exactly_as_stdin_lines() {
    let mut stdin = Server::start(&[]);
    let listening = Listening::start(&[]);
    let mut client = listening.connect();
    for message in mixed_messages() {
        stdin.send_line(&message);
        client.send_text(&message);
        let quiet = message.contains(r#""method":"key","params":{"session":"m","key":"up"}}"#)
            && !message.contains("\"id\"");
        if quiet {
            continue;
        }
        let on_stdin = stdin.recv_raw_line().expect("a reply on stdout");
        // The two tables opened their sessions at times that may differ.
        assert_eq!(
            untimed_text(&client.recv_text()),
            untimed_text(&on_stdin),
            "{message}"
        );
    }
    // Nothing else was sent: the next request's reply comes next on both.
    let last = r#"{"jsonrpc":"2.0","id":"last","method":"sessions"}"#;
    stdin.send_line(last);
    client.send_text(last);
    assert_eq!(
        untimed_text(&client.recv_text()),
        untimed_text(&stdin.recv_raw_line().unwrap())
    );
}

#[test]
fn a_binary_frame_is_read_as_a_text_frame() {
    let listening = Listening::start(&[]);
    let mut client = listening.connect();
    client
        .socket
        .send(Message::binary(
            br#"{"jsonrpc":"2.0","id":1,"method":"sessions"}"#.to_vec(),
        ))
        .unwrap();
    assert_eq!(
        client.recv(),
        json!({ "jsonrpc": "2.0", "id": 1, "result": [] })
    );
    client
        .socket
        .send(Message::binary(vec![b'"', 0xff, b'"']))
        .unwrap();
    assert_eq!(
        client.recv(),
        json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32700, "message": "parse error: invalid UTF-8 at byte 1" } })
    );
}

#[test]
fn a_message_over_the_limit_is_answered_as_on_stdin_and_one_past_every_limit_closes() {
    // Small flows, so that a restore's limit is small too.
    let mut listening = Listening::start(&[
        "--max-message-bytes",
        "200",
        "--max-questions",
        "1",
        "--max-options",
        "1",
        "--max-text-bytes",
        "1",
        "--max-flow-text-bytes",
        "1",
    ]);
    let mut client = listening.connect();
    // Exactly at the limit is accepted.
    let head = r#"{"jsonrpc":"2.0","id":1,"method":"sessions","pad":""#;
    let padded = |len: usize| format!("{head}{}\"}}", "x".repeat(len - head.len() - 2));
    client.send_text(&padded(200));
    assert_eq!(
        client.recv(),
        json!({ "jsonrpc": "2.0", "id": 1, "result": [] })
    );
    // One byte more is answered exactly as stdin answers it, and the connection goes on.
    client.send_text(&padded(201));
    listening.server.send_line(&padded(201));
    let refused = client.recv();
    assert_eq!(refused, listening.server.recv());
    let message = refused["error"]["message"].as_str().unwrap().to_owned();
    let restore_limit: usize = message
        .strip_prefix("message too large: the limit is 200 bytes (")
        .and_then(|rest| rest.strip_suffix(" for a restore)"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{message}"));
    assert_eq!(
        (refused["id"].clone(), refused["error"]["code"].clone()),
        (json!(null), json!(-32004))
    );
    assert_eq!(untimed(client.ok("sessions", json!({}))), json!([]));
    // A message longer than any message may be (a restore's limit) cannot be skipped: it is
    // answered, then the connection closes.
    client.send_text(&padded(restore_limit + 1));
    let (before, close) = client.recv_close();
    assert_eq!(before, vec![refused]);
    let close = close.unwrap();
    assert_eq!(
        (close.code, close.reason.as_str()),
        (CloseCode::Size, "message too large")
    );
    // Other connections and stdin go on.
    let mut other = listening.connect();
    assert_eq!(untimed(other.ok("sessions", json!({}))), json!([]));
}

#[test]
fn exit_closes_only_its_own_connection() {
    let mut listening = Listening::start(&[]);
    let mut client = listening.connect();
    client.send_text(r#"{"jsonrpc":"2.0","method":"exit"}"#);
    let (before, close) = client.recv_close();
    assert_eq!(before, Vec::<Value>::new());
    let close = close.unwrap();
    assert_eq!(
        (close.code, close.reason.as_str()),
        (CloseCode::Normal, "exit")
    );
    assert_eq!(
        untimed(listening.server.ok("sessions", json!({}))),
        json!([])
    );
    let mut other = listening.connect();
    assert_eq!(untimed(other.ok("sessions", json!({}))), json!([]));
    // Stdin's end still ends the process, closing the connections that are left.
    listening.server.close_stdin();
    let (before, close) = other.recv_close();
    assert_eq!(before, Vec::<Value>::new());
    let close = close.unwrap();
    assert_eq!(
        (close.code, close.reason.as_str()),
        (CloseCode::Away, "askd stopped")
    );
    assert_eq!(listening.server.wait().code(), Some(0));
}

/// The resident memory of a process, in KiB.
pub(crate) fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn a_client_that_never_reads_stops_being_read_and_holds_up_no_one() {
    let mut listening = Listening::start(&[]);
    let mut reader = listening.connect();
    reader.ok(
        "open",
        json!({ "session": "s", "payload": payload(), "width": 200 }),
    );
    let before = resident_kib(listening.server.pid());
    // A client that sends requests for big replies as fast as it can and never reads.
    let mut flood = listening.connect();
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = sent.clone();
    let writer = thread::spawn(move || {
        let request = json!({ "jsonrpc": "2.0", "id": 1, "method": "getView", "params": { "session": "s", "width": 200, "allRows": true } }).to_string();
        while flood.socket.send(Message::text(request.clone())).is_ok() {
            counter.fetch_add(1, Ordering::SeqCst);
        }
    });
    // Everyone else is answered meanwhile, until the flood is blocked: its count stays the same
    // over many round trips of another connection and of stdin.
    let mut unchanged = 0;
    let mut last = usize::MAX;
    let mut round_trips = 0;
    while unchanged < 50 {
        let now = sent.load(Ordering::SeqCst);
        unchanged = if now == last { unchanged + 1 } else { 0 };
        last = now;
        let step = reader.ok("key", json!({ "session": "s", "key": "down" }));
        assert_eq!(step["session"], json!("s"));
        untimed(listening.server.ok("sessions", json!({})));
        round_trips += 1;
        assert!(
            round_trips < 20_000,
            "the flooding client was never held back"
        );
    }
    let grown = resident_kib(listening.server.pid()).saturating_sub(before);
    assert!(
        grown < 64 * 1024,
        "askd grew by {grown} KiB for a client that never reads ({last} requests taken)"
    );
    assert!(
        last < 100_000,
        "askd read {last} requests of a client that never reads"
    );
    drop(listening);
    writer.join().unwrap();
}

// ---------------------------------------------------------------------------------------------
// Shared sessions
// ---------------------------------------------------------------------------------------------

#[test]
fn an_ask_on_stdin_is_answered_over_websocket_and_resolves_on_stdin() {
    let mut listening = Listening::start(&[]);
    listening.server.send(&json!({
        "jsonrpc": "2.0", "id": "ask-1", "method": "ask",
        "params": { "session": "call-1", "payload": payload() }
    }));
    let mut browser = listening.connect();
    let listed = eventually("the ask's session", || {
        let list = untimed(browser.ok("sessions", json!({})));
        (list != json!([])).then_some(list)
    });
    assert_eq!(
        listed,
        json!([{ "session": "call-1", "title": "Setup", "status": "open" }])
    );
    let done = browser.ok("keys", json!({ "session": "call-1", "keys": ANSWER_KEYS }));
    assert_eq!(done["status"], json!("done"));
    assert_eq!(done["result"], submitted_result());
    assert_eq!(
        listening.server.reply_to(&json!("ask-1")),
        json!({ "jsonrpc": "2.0", "id": "ask-1", "result": submitted_result() })
    );
    assert_eq!(
        listening
            .server
            .ok("getResult", json!({ "session": "call-1" })),
        submitted_result()
    );
}

#[test]
fn two_clients_pressing_keys_on_one_session_drive_the_same_flow() {
    let listening = Listening::start(&[]);
    let (mut left, mut right) = (listening.connect(), listening.connect());
    left.ok("open", json!({ "session": "s", "payload": payload() }));
    let keys = ["2", "down", "space", "tab"];
    for (index, key) in keys.iter().enumerate() {
        let (presser, watcher) = if index % 2 == 0 {
            (&mut left, &mut right)
        } else {
            (&mut right, &mut left)
        };
        let step = presser.ok("key", json!({ "session": "s", "key": key }));
        let seen = watcher.ok("getView", json!({ "session": "s" }));
        assert_eq!(seen, step["view"], "after {key}");
    }
    let done = left.ok("key", json!({ "session": "s", "key": "enter" }));
    assert_eq!(done["result"], submitted_result());
    assert_eq!(
        right.call("key", json!({ "session": "s", "key": "enter" }))["error"],
        json!({ "code": -32002, "message": "the flow has already completed" })
    );
}

/// A notification as askd sends it.
fn notification(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

#[test]
fn subscribers_hear_of_sessions_opened_changed_and_closed_by_other_connections() {
    let mut listening = Listening::start(&[]);
    let mut watcher = listening.connect();
    watcher.ok("initialize", json!({ "capabilities": { "width": 40 } }));
    listening
        .server
        .ok("open", json!({ "session": "before", "payload": payload() }));
    // `subscribe` answers the sessions the connection is now told about.
    assert_eq!(
        untimed(watcher.ok("subscribe", json!({}))),
        json!([{ "session": "before", "title": "Setup", "status": "open" }])
    );
    let mut agent = listening.connect();
    let opened = agent.ok(
        "open",
        json!({ "session": "s", "payload": payload(), "width": 80 }),
    );
    assert_eq!(opened["version"], json!(1));
    assert_eq!(
        watcher.notification(),
        notification(
            "session/opened",
            json!({ "session": "s", "title": "Setup", "status": "open" })
        )
    );
    let step = agent.ok("key", json!({ "session": "s", "key": "down" }));
    assert_eq!(step["version"], json!(2));
    // The watcher's view is rendered with its own width, the agent's with its own.
    let at_40 = watcher.ok("getView", json!({ "session": "s", "width": 40 }));
    assert_eq!(
        watcher.notification(),
        notification(
            "session/changed",
            json!({ "session": "s", "status": "open", "version": 2, "view": at_40 })
        )
    );
    assert_eq!(
        step["view"],
        agent.ok("getView", json!({ "session": "s", "width": 80 }))
    );
    assert_ne!(step["view"]["lines"], at_40["lines"]);
    // A refused request changes nothing, the version neither.
    assert_eq!(
        agent.call("key", json!({ "session": "s", "key": "nope" }))["error"]["code"],
        json!(-32602)
    );
    let done = agent.ok(
        "keys",
        json!({ "session": "s", "keys": "<Up>2<Down><Space><Tab><CR>" }),
    );
    assert_eq!(
        (&done["status"], &done["version"], &done["result"]),
        (&json!("done"), &json!(3), &submitted_result())
    );
    let at_40 = watcher.ok("getView", json!({ "session": "s", "width": 40 }));
    assert_eq!(
        watcher.notification(),
        notification(
            "session/changed",
            json!({
                "session": "s", "status": "done", "version": 3, "view": at_40,
                "result": done["result"], "transcript": done["transcript"]
            })
        )
    );
    assert_eq!(
        agent.ok("close", json!({ "session": "s" })),
        json!({ "closed": true })
    );
    assert_eq!(
        watcher.notification(),
        notification("session/closed", json!({ "session": "s" }))
    );
    // Stdin subscribes as well; a connection is not told of its own changes.
    listening.server.ok("subscribe", json!({ "session": "t" }));
    agent.ok("open", json!({ "session": "t", "payload": payload() }));
    assert_eq!(
        untimed(listening.server.recv()),
        notification(
            "session/opened",
            json!({ "session": "t", "title": "Setup", "status": "open" })
        )
    );
    assert_eq!(
        watcher.notification(),
        notification(
            "session/opened",
            json!({ "session": "t", "title": "Setup", "status": "open" })
        )
    );
    // After `unsubscribe`, nothing; subscribed again to one session, only that one.
    assert_eq!(watcher.ok("unsubscribe", json!({})), json!(null));
    watcher.ok("key", json!({ "session": "t", "key": "down" }));
    agent.ok("key", json!({ "session": "before", "key": "down" }));
    assert_eq!(
        untimed(watcher.ok("subscribe", json!({ "session": "t" }))),
        json!([{ "session": "t", "title": "Setup", "status": "open" }])
    );
    agent.ok("key", json!({ "session": "before", "key": "down" }));
    let step = agent.ok("key", json!({ "session": "t", "key": "up" }));
    assert_eq!(step["version"], json!(3));
    let changed = watcher.notification();
    assert_eq!(
        (
            &changed["method"],
            &changed["params"]["session"],
            &changed["params"]["version"]
        ),
        (&json!("session/changed"), &json!("t"), &json!(3))
    );
    // Stdin, subscribed to `t` only, heard of the watcher's key and the agent's: both, or only
    // the later when it had not yet been told of the earlier (coalesced).
    let mut versions = Vec::new();
    while versions.last() != Some(&json!(3)) {
        let heard = listening.server.recv();
        assert_eq!(
            (&heard["method"], &heard["params"]["session"]),
            (&json!("session/changed"), &json!("t"))
        );
        versions.push(heard["params"]["version"].clone());
    }
    assert!(
        versions == [json!(2), json!(3)] || versions == [json!(3)],
        "{versions:?}"
    );
}

#[test]
fn a_flow_that_times_out_is_a_change_every_subscriber_hears_of() {
    let mut listening = Listening::start(&[]);
    let mut watcher = listening.connect();
    watcher.ok("subscribe", json!({}));
    // Asked on stdin with a deadline (long enough for the opened notification to come first on
    // a loaded machine); the one timer of the table ends it.
    listening.server.send(&json!({
        "jsonrpc": "2.0", "id": "ask-t", "method": "ask",
        "params": { "session": "t", "payload": payload(), "timeoutMs": 2_000 }
    }));
    assert_eq!(
        watcher.notification(),
        notification(
            "session/opened",
            json!({ "session": "t", "title": "Setup", "status": "open" })
        )
    );
    let changed = watcher.notification();
    assert_eq!(
        (
            &changed["method"],
            &changed["params"]["status"],
            &changed["params"]["version"]
        ),
        (&json!("session/changed"), &json!("done"), &json!(2))
    );
    let answered = listening.server.reply_to(&json!("ask-t"));
    assert_eq!(changed["params"]["result"], answered["result"]);
    assert_eq!(
        watcher.ok("getResult", json!({ "session": "t" })),
        answered["result"]
    );
}

#[test]
fn each_connection_gets_steps_and_notifications_at_its_own_width() {
    let listening = Listening::start(&[]);
    let mut wide = listening.connect();
    let mut narrow = listening.connect();
    let mut plain = listening.connect();
    wide.ok("subscribe", json!({}));
    wide.ok(
        "open",
        json!({ "session": "s", "payload": payload(), "width": 72 }),
    );
    // A subscription to one session may carry its view options.
    narrow.ok("subscribe", json!({ "session": "s", "width": 36 }));
    let step = narrow.ok("key", json!({ "session": "s", "key": "down" }));
    assert_eq!(
        step["view"],
        narrow.ok("getView", json!({ "session": "s", "width": 36 }))
    );
    let heard = wide.notification();
    assert_eq!(
        heard["params"]["view"],
        wide.ok("getView", json!({ "session": "s", "width": 72 }))
    );
    // A connection that gave no width gets views without lines; its own keys do not change
    // the others' widths.
    let step = plain.ok("key", json!({ "session": "s", "key": "up" }));
    assert_eq!(step["view"].get("lines"), None);
    assert_eq!(step["view"], plain.ok("getView", json!({ "session": "s" })));
    let heard = wide.notification();
    assert_eq!(heard["params"]["version"], json!(3));
    assert_eq!(
        heard["params"]["view"],
        wide.ok("getView", json!({ "session": "s", "width": 72 }))
    );
    let step = wide.ok("key", json!({ "session": "s", "key": "down" }));
    assert_eq!(
        step["view"],
        wide.ok("getView", json!({ "session": "s", "width": 72 }))
    );
    // `initialize` sets a connection's width for sessions it gave none for.
    plain.ok("initialize", json!({ "capabilities": { "width": 50 } }));
    let step = plain.ok("key", json!({ "session": "s", "key": "up" }));
    assert_eq!(
        step["view"],
        plain.ok("getView", json!({ "session": "s", "width": 50 }))
    );
    let step = narrow.ok("key", json!({ "session": "s", "key": "down" }));
    assert_eq!(
        step["view"],
        narrow.ok("getView", json!({ "session": "s", "width": 36 }))
    );
}

#[test]
fn view_options_of_a_subscription_wait_for_the_session_to_open() {
    let listening = Listening::start(&["--max-sessions", "2"]);
    let mut early = listening.connect();
    // Subscribed with a width before the session exists: its Steps and notifications will
    // come at that width.
    assert_eq!(
        early.ok("subscribe", json!({ "session": "later", "width": 36 })),
        json!([])
    );
    let mut agent = listening.connect();
    agent.ok(
        "open",
        json!({ "session": "later", "payload": payload(), "width": 72 }),
    );
    assert_eq!(
        early.notification(),
        notification(
            "session/opened",
            json!({ "session": "later", "title": "Setup", "status": "open" })
        )
    );
    agent.ok("key", json!({ "session": "later", "key": "down" }));
    let at_36 = early.ok("getView", json!({ "session": "later", "width": 36 }));
    assert_eq!(
        early.notification(),
        notification(
            "session/changed",
            json!({ "session": "later", "status": "open", "version": 2, "view": at_36 })
        )
    );
    let step = early.ok("key", json!({ "session": "later", "key": "down" }));
    assert_eq!(
        step["view"],
        early.ok("getView", json!({ "session": "later", "width": 36 }))
    );
    // A connection subscribes by id to at most as many sessions as the table holds: one more
    // drops the oldest subscription to a session not held ("other"), whose opening the
    // connection then does not hear of.
    early.ok("subscribe", json!({ "session": "other" }));
    early.ok("subscribe", json!({ "session": "third", "width": 50 }));
    agent.ok("open", json!({ "session": "other", "payload": payload() }));
    agent.ok("key", json!({ "session": "later", "key": "up" }));
    let at_36 = early.ok("getView", json!({ "session": "later", "width": 36 }));
    assert_eq!(
        early.notification(),
        notification(
            "session/changed",
            json!({ "session": "later", "status": "open", "version": 4, "view": at_36 })
        )
    );
    // With every one of them open, one more is refused, and changes nothing.
    agent.ok("close", json!({ "session": "other" }));
    early.ok("subscribe", json!({ "session": "fourth" }));
    agent.ok("open", json!({ "session": "fourth", "payload": payload() }));
    assert_eq!(
        early.notification(),
        notification(
            "session/opened",
            json!({ "session": "fourth", "title": "Setup", "status": "open" })
        )
    );
    let refused = early.call("subscribe", json!({ "session": "fifth", "width": 50 }));
    assert_eq!(
        refused["error"],
        json!({
            "code": -32004,
            "message": "this connection is subscribed by id to 2 open sessions, the most it may \
                        be; `subscribe {}` without a session covers every one"
        })
    );
    early.ok("subscribe", json!({ "session": "later" }));
    early.ok("subscribe", json!({}));
    early.ok("subscribe", json!({ "session": "fifth", "width": 50 }));
}

#[test]
fn a_subscriber_that_never_reads_is_owed_the_latest_view_not_a_backlog() {
    let listening = Listening::start(&[]);
    let mut sleeper = listening.connect();
    sleeper.ok("subscribe", json!({ "width": 200 }));
    let mut agent = listening.connect();
    agent.ok(
        "open",
        json!({ "session": "s", "payload": payload(), "width": 200 }),
    );
    let before = resident_kib(listening.server.pid());
    // Thousands of changes while the sleeper reads nothing: askd neither queues them nor
    // waits for it.
    let mut version = json!(1);
    for round in 0..6_000 {
        let key = if round % 2 == 0 { "down" } else { "up" };
        version = agent.ok("key", json!({ "session": "s", "key": key }))["version"].clone();
    }
    assert_eq!(version, json!(6_001));
    let grown = resident_kib(listening.server.pid()).saturating_sub(before);
    assert!(grown < 16 * 1024, "askd grew by {grown} KiB");
    // What the sleeper reads at last is what its socket's buffers took (askd writes a
    // notification only once the one before is written), then the latest view: far fewer
    // than the changes.
    let opened = sleeper.notification();
    assert_eq!(opened["method"], json!("session/opened"));
    let mut heard = 0;
    let last = loop {
        let changed = sleeper.notification();
        heard += 1;
        if changed["params"]["version"] == version {
            break changed;
        }
    };
    assert!(heard < 2_000, "{heard} notifications for 6,000 changes");
    assert_eq!(
        last["params"]["view"],
        sleeper.ok("getView", json!({ "session": "s", "width": 200 }))
    );
}

#[test]
fn every_limit_of_stdin_applies_to_each_websocket_connection() {
    let listening = Listening::start(&["--max-reply-bytes", "3000", "--max-message-bytes", "4096"]);
    let mut client = listening.connect();
    let mut other = listening.connect();
    client.ok("open", json!({ "session": "s", "payload": payload() }));
    // A reply over --max-reply-bytes is refused and changes nothing.
    let error = client.call(
        "getView",
        json!({ "session": "s", "width": 400, "allRows": true }),
    )["error"]
        .clone();
    assert_eq!(
        error,
        json!({ "code": -32004, "message": "reply too large: the reply would pass the limit of 3000 bytes (--max-reply-bytes)" })
    );
    // The limit is the connection's own: the other connection is answered as before.
    assert_eq!(
        untimed(other.ok("sessions", json!({}))),
        json!([{ "session": "s", "title": "Setup", "status": "open" }])
    );
    // Params errors are worded as on stdin.
    assert_eq!(
        client.call("key", json!({ "session": "s", "key": 5 }))["error"],
        json!({ "code": -32602, "message": "invalid params: key: expected a string, got the number 5" })
    );
}

// ---------------------------------------------------------------------------------------------
// askd web
// ---------------------------------------------------------------------------------------------

/// `askd web` on a payload file, with its page's address read from stderr.
struct Web {
    server: Server,
    address: String,
    token: String,
    session: String,
}

impl Web {
    fn start(payload: &Value, args: &[&str]) -> (Web, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("payload.json");
        std::fs::write(&path, payload.to_string()).unwrap();
        let mut all = vec!["web", path.to_str().unwrap()];
        all.extend_from_slice(args);
        let server = Server::start(&all);
        let url = eventually("the page's address", || {
            server
                .stderr_text()
                .lines()
                .find_map(|line| line.strip_prefix("askd: answer the flow at http://"))
                .map(str::to_owned)
        });
        let (address, query) = url.split_once("/?token=").unwrap();
        let (token, session) = query.split_once("&session=").unwrap();
        let web = Web {
            address: address.to_owned(),
            token: token.to_owned(),
            session: session.to_owned(),
            server,
        };
        (web, dir)
    }

    fn connect(&self) -> Client {
        Client::connect(
            &format!("ws://{}/rpc?token={}", self.address, self.token),
            &[("Origin", &format!("http://{}", self.address))],
        )
        .unwrap()
    }

    /// The exit status and stdout once the command has ended.
    fn finish(mut self) -> (Option<i32>, String, String) {
        let status = self.server.wait();
        let mut stdout = String::new();
        while let Some(line) = self.server.recv_raw_line() {
            stdout.push_str(&line);
            stdout.push('\n');
        }
        (status.code(), stdout, self.server.stderr_text())
    }
}

#[test]
fn askd_web_prints_the_address_then_the_result_of_the_flow_answered_there() {
    let (web, _dir) = Web::start(&payload(), &[]);
    assert_eq!(web.session, "web");
    assert!(web.address.starts_with("127.0.0.1:"), "{}", web.address);
    assert_eq!(web.token.len(), 64);
    let (status, _, _) = http_get(&web.address, "/");
    assert_eq!(status, "HTTP/1.1 200 OK");
    let mut page = web.connect();
    assert_eq!(
        untimed(page.ok("sessions", json!({}))),
        json!([{ "session": "web", "title": "Setup", "status": "open" }])
    );
    let done = page.ok("keys", json!({ "session": "web", "keys": ANSWER_KEYS }));
    assert_eq!(done["result"], submitted_result());
    let (_, close) = page.recv_close();
    let close = close.unwrap();
    assert_eq!(
        (close.code, close.reason.as_str()),
        (CloseCode::Away, "the flow is complete")
    );
    let (status, stdout, stderr) = web.finish();
    assert_eq!(status, Some(0));
    assert_eq!(stdout, format!("{}\n", submitted_result()));
    assert_eq!(
        stderr.lines().count(),
        1,
        "only the address goes to stderr: {stderr}"
    );
}

#[test]
fn askd_web_exits_1_when_the_flow_is_cancelled() {
    let (web, _dir) = Web::start(&payload(), &[]);
    let mut page = web.connect();
    let done = page.ok("key", json!({ "session": "web", "key": "escape" }));
    assert_eq!(done["status"], json!("done"));
    let (status, stdout, _) = web.finish();
    assert_eq!(status, Some(1));
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["details"]["cancelled"], json!(true));
    assert_eq!(result, done["result"]);
}

#[test]
fn askd_web_ends_a_flow_at_its_deadline() {
    // A codex app-server request that waits 300 ms for its answer is submitted then with what
    // the user committed: nobody answers here, so every asked id comes back empty.
    let codex = json!({
        "threadId": "thr_1",
        "turnId": "turn_1",
        "itemId": "call_1",
        "questions": [{
            "id": "db",
            "header": "Database",
            "question": "Which database?",
            "options": [{ "label": "Postgres", "description": "A server" }]
        }],
        "autoResolutionMs": 300
    });
    let (web, _dir) = Web::start(&codex, &["--dialect", "codex"]);
    let (status, stdout, _) = web.finish();
    assert_eq!(status, Some(0));
    assert_eq!(stdout, "{\"answers\":{\"db\":{\"answers\":[]}}}\n");
}

#[test]
fn a_killed_askd_web_run_again_takes_its_flow_up_where_it_was() {
    let scratch = tempfile::tempdir().unwrap();
    let state = scratch.path().join("state");
    let token = scratch.path().join("token");
    let args = [
        "--state-dir",
        state.to_str().unwrap(),
        "--token-file",
        token.to_str().unwrap(),
    ];
    let (mut web, _dir) = Web::start(&payload(), &args);
    let mut page = web.connect();
    page.ok(
        "keys",
        json!({ "session": "web", "keys": "2<Down><Space>" }),
    );
    let before = page.ok("getView", json!({ "session": "web" }));
    web.server.kill();
    // The same command again: the same token, the flow as it was.
    let (again, _dir) = Web::start(&payload(), &args);
    assert_eq!(again.token, web.token);
    let mut page = again.connect();
    assert_eq!(page.ok("getView", json!({ "session": "web" })), before);
    let done = page.ok("keys", json!({ "session": "web", "keys": "<Tab><CR>" }));
    assert_eq!(done["result"], submitted_result());
    let (status, stdout, _) = again.finish();
    assert_eq!(status, Some(0));
    assert_eq!(stdout, format!("{}\n", submitted_result()));
    // Nothing is left once it completed; `--no-state` keeps nothing at all.
    let left: Vec<_> = std::fs::read_dir(&state).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
    let (mut web, _dir) = Web::start(&payload(), &["--no-state"]);
    let mut page = web.connect();
    page.ok("keys", json!({ "session": "web", "keys": "2" }));
    web.server.kill();
    let (again, _dir) = Web::start(&payload(), &["--no-state"]);
    let mut page = again.connect();
    assert_eq!(
        page.ok("getView", json!({ "session": "web" }))["activeTab"],
        json!(0)
    );
}

#[test]
fn askd_web_refuses_an_invalid_payload_with_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("payload.json");
    std::fs::write(&path, r#"{"questions":[]}"#).unwrap();
    let output = Command::new(ASKD)
        .args(["web", path.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        result["details"]["error"],
        json!({ "kind": "invalid_input", "issues": [{ "path": "questions", "message": "At least one question is required" }] })
    );
    // A request without questions is one Codex sends: the hint names that dialect.
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "askd: invalid payload:\n- questions: At least one question is required\nIt was read as a pi request; it looks like a codex one: try --dialect codex\n"
    );
    std::fs::write(&path, "{").unwrap();
    let output = Command::new(ASKD)
        .args(["web", path.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(output.stdout, b"");
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "askd: the payload is not valid JSON: EOF while parsing an object at line 1 column 1\n"
    );
}

#[test]
fn askd_web_reads_the_payload_from_stdin_and_exits_3_when_the_port_is_taken() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let mut child = Command::new(ASKD)
        .args(["web", "-", "--port", &port])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload().to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(output.stdout, b"");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!("askd: cannot listen on 127.0.0.1:{port}: ")),
        "{stderr}"
    );
}
