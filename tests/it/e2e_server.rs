//! End-to-end tests of `askd serve`: the real binary driven over its stdio pipes, the way a
//! client drives it. Every method of the protocol, both framings, every error code, batches,
//! a stream of garbage, and the process's exit behaviour.

use crate::support::{Server, run_to_end, untimed};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

/// Two questions: a single-select and a multi-select.
fn payload() -> Value {
    json!({
        "title": "Setup",
        "questions": [
            {
                "id": "db",
                "label": "Database",
                "prompt": "Which database?",
                "options": [
                    { "value": "pg", "label": "Postgres" },
                    { "value": "sqlite", "label": "SQLite", "description": "A single file" }
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

/// `details.questions` of [`payload`].
fn detail_questions() -> Value {
    json!([
        { "id": "db", "label": "Database", "prompt": "Which database?", "type": "single" },
        { "id": "feat", "label": "Features", "prompt": "Which features?", "type": "multi" }
    ])
}

/// The transcript call line of [`payload`].
const CALL_LINE: &str = "ask_user 2 question(s) (Database, Features)";

/// The pi result of [`payload`] submitted with Postgres, and Auth + API.
fn submitted_result() -> Value {
    json!({
        "content": [{ "type": "text", "text": "Database: Postgres\nFeatures: Auth, API" }],
        "details": {
            "title": "Setup",
            "cancelled": false,
            "mode": "submit",
            "questions": detail_questions(),
            "answers": {
                "db": { "values": ["pg"], "labels": ["Postgres"], "indices": [1] },
                "feat": { "values": ["auth", "api"], "labels": ["Auth", "API"], "indices": [1, 2] }
            }
        }
    })
}

/// The pi result of [`payload`] cancelled for `reason` with nothing entered.
fn cancelled_result(reason: &str) -> Value {
    let text = match reason {
        "user" | "dismissed" | "aborted" | "closed" => "User cancelled the ask flow",
        "timeout" => "The ask flow timed out before the user answered",
        other => panic!("no flow is cancelled as {other}"),
    };
    json!({
        "content": [{ "type": "text", "text": text }],
        "details": {
            "title": "Setup",
            "cancelled": true,
            "cancelReason": reason,
            "mode": "submit",
            "questions": detail_questions(),
            "answers": {}
        }
    })
}

/// The non-interactive pi result of [`payload`].
fn non_interactive_result() -> Value {
    json!({
        "content": [{
            "type": "text",
            "text": "Needs user input: ask_user requires interactive UI.\n\
                     Run same tool call in interactive session, or ask user these questions manually:\n\
                     1. Database: Which database?\n   \
                     - Postgres [pg]\n   \
                     - SQLite [sqlite]\n   \
                     - Type your own [custom]\n\
                     2. Features: Which features?\n   \
                     - Auth [auth]\n   \
                     - API [api]\n   \
                     - Type your own [custom]\n\
                     details.questions contains normalized pending questions. \
                     details.answers stays empty until user responds."
        }],
        "details": {
            "title": "Setup",
            "cancelled": true,
            "cancelReason": "no_ui",
            "mode": "submit",
            "questions": detail_questions(),
            "answers": {}
        }
    })
}

/// A pi payload with four validation issues.
fn invalid_payload() -> Value {
    json!({
        "title": "Broken",
        "questions": [
            { "id": "db", "prompt": "  ", "options": [] },
            { "id": "db", "prompt": "Again?", "options": [{ "value": "a", "label": "" }] }
        ]
    })
}

/// The `invalid_input` result of [`invalid_payload`].
fn invalid_result() -> Value {
    json!({
        "content": [{
            "type": "text",
            "text": "Invalid ask_user payload:\n\
                     - questions[0].prompt: Question 1: prompt is required\n\
                     - questions[0].options: Question 1: at least one option is required\n\
                     - questions[1].id: Question 2: duplicate question id \"db\"\n\
                     - questions[1].options[0].label: Question 2, option 1: label is required"
        }],
        "details": {
            "title": "Broken",
            "cancelled": true,
            "cancelReason": "invalid_input",
            "mode": "submit",
            "questions": [],
            "answers": {},
            "error": {
                "kind": "invalid_input",
                "issues": [
                    { "path": "questions[0].prompt", "message": "Question 1: prompt is required" },
                    { "path": "questions[0].options", "message": "Question 1: at least one option is required" },
                    { "path": "questions[1].id", "message": "Question 2: duplicate question id \"db\"" },
                    { "path": "questions[1].options[0].label", "message": "Question 2, option 1: label is required" }
                ]
            }
        }
    })
}

/// One question with a short prompt and two short options (fits small text limits).
fn tiny_payload() -> Value {
    json!({
        "questions": [{
            "id": "q",
            "prompt": "Pick",
            "options": [{ "value": "a", "label": "A" }, { "value": "b", "label": "B" }]
        }]
    })
}

/// A JSON-RPC error object.
fn error(code: i64, message: &str) -> Value {
    json!({ "code": code, "message": message })
}

/// A whole error response.
fn error_reply(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": error(code, message) })
}

/// A whole success response.
fn ok_reply(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// A request message.
fn request(id: Value, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// A notification message.
fn notification(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

/// A session with some state of its own, whose view must not change while other requests
/// fail around it.
struct Bystander {
    id: &'static str,
    view: Value,
}

impl Bystander {
    /// Opens session `by` and moves it off its initial state (a row down, a note written).
    fn open(server: &mut Server) -> Bystander {
        server.open("by", payload());
        server.ok("key", json!({ "session": "by", "key": "down" }));
        server.ok(
            "setNote",
            json!({ "session": "by", "questionId": "db", "text": "keep me" }),
        );
        let view = server.view("by");
        assert_eq!(view["question"]["activeOption"], json!(1));
        assert_eq!(view["question"]["note"], json!("keep me"));
        Bystander { id: "by", view }
    }

    /// Asserts the bystander's view is exactly what it was.
    fn check(&self, server: &mut Server, after: &str) {
        assert_eq!(
            server.view(self.id),
            self.view,
            "the bystander session changed after {after}"
        );
    }
}

/// The view of a Step with its session id replaced (to compare sessions with each other).
fn view_as(step_or_view: &Value, session: &str) -> Value {
    let mut view = match step_or_view.get("view") {
        Some(view) => view.clone(),
        None => step_or_view.clone(),
    };
    view["session"] = json!(session);
    view
}

// ---------------------------------------------------------------------------------------------
// Framing
// ---------------------------------------------------------------------------------------------

#[test]
fn newline_framing_answers_each_line_with_one_line() {
    let mut s = Server::start(&[]);
    s.send_line(r#"{"jsonrpc":"2.0","id":1,"method":"sessions"}"#);
    assert_eq!(
        s.recv_raw_line().as_deref(),
        Some(r#"{"jsonrpc":"2.0","id":1,"result":[]}"#)
    );
    s.send_line(r#"{"jsonrpc":"2.0","id":"two","method":"shutdown"}"#);
    assert_eq!(
        s.recv_raw_line().as_deref(),
        Some(r#"{"jsonrpc":"2.0","id":"two","result":null}"#)
    );
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

#[test]
fn crlf_line_endings_and_blank_lines_are_tolerated() {
    let mut s = Server::start(&[]);
    let open = request(
        json!(2),
        "open",
        json!({ "session": "a", "payload": payload() }),
    );
    let bytes = format!(
        "\r\n{}\r\n\r\n   \r\n{}\r\n{}\r\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"sessions"}"#,
        open,
        r#"{"jsonrpc":"2.0","id":3,"method":"sessions"}"#
    );
    s.send_raw(bytes.as_bytes());
    assert_eq!(
        s.recv_raw_line().as_deref(),
        Some(r#"{"jsonrpc":"2.0","id":1,"result":[]}"#)
    );
    let opened = s.recv();
    assert_eq!(opened["id"], json!(2));
    assert_eq!(opened["result"]["session"], json!("a"));
    assert_eq!(opened["result"]["status"], json!("open"));
    let listed = s.recv_raw_line().expect("a reply");
    assert!(
        listed.starts_with(r#"{"jsonrpc":"2.0","id":3,"result":[{"session":"a","title":"Setup","status":"open","openedAt":"#),
        "{listed}"
    );
    assert_eq!(
        untimed(serde_json::from_str(&listed).unwrap()),
        json!({ "jsonrpc": "2.0", "id": 3, "result": [{ "session": "a", "title": "Setup", "status": "open" }] })
    );
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

/// The `openedAt` of the one session a `sessions` reply lists.
fn untimed_at(reply: &str) -> u64 {
    let reply: Value = serde_json::from_str(reply).unwrap();
    untimed(reply.clone());
    reply["result"][0]["openedAt"].as_u64().unwrap()
}

#[test]
fn content_length_framing_is_detected_and_used_for_replies() {
    let mut s = Server::start(&[]);
    let first = br#"{"jsonrpc":"2.0","id":1,"method":"sessions"}"#;
    let mut payload = payload();
    payload["title"] = json!("Réglages 한국어");
    let second = request(
        json!(2),
        "open",
        json!({ "session": "é", "payload": payload }),
    );
    let second = second.to_string();
    // Two frames in one write, the second with an extra header and a lower-case name.
    let mut bytes = format!("Content-Length: {}\r\n\r\n", first.len()).into_bytes();
    bytes.extend_from_slice(first);
    bytes.extend_from_slice(
        format!(
            "content-length: {}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n",
            second.len()
        )
        .as_bytes(),
    );
    bytes.extend_from_slice(second.as_bytes());
    s.send_raw(&bytes);

    let (header, body) = s.recv_raw_frame().expect("a framed reply");
    assert_eq!(header, "Content-Length: 36\r\n\r\n");
    assert_eq!(body, r#"{"jsonrpc":"2.0","id":1,"result":[]}"#);

    // The length counts bytes of UTF-8, not characters.
    let (header, body) = s.recv_raw_frame().expect("a framed reply");
    assert_eq!(header, format!("Content-Length: {}\r\n\r\n", body.len()));
    assert!(body.len() > body.chars().count());
    let reply = crate::support::parse_protocol_message(&body);
    assert_eq!(reply["id"], json!(2));
    assert_eq!(reply["result"]["session"], json!("é"));
    assert_eq!(reply["result"]["view"]["title"], json!("Réglages 한국어"));

    s.send_frame(br#"{"jsonrpc":"2.0","id":3,"method":"sessions"}"#);
    let (header, body) = s.recv_raw_frame().expect("a framed reply");
    let opened_at = untimed_at(&body);
    let expected = format!(
        r#"{{"jsonrpc":"2.0","id":3,"result":[{{"session":"é","title":"Réglages 한국어","status":"open","openedAt":{opened_at}}}]}}"#
    );
    assert_eq!(
        header,
        format!("Content-Length: {}\r\n\r\n", expected.len())
    );
    assert_eq!(body, expected);

    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

#[test]
fn content_length_framing_serves_every_method_through_the_harness() {
    let mut s = Server::start(&[]);
    s.use_content_length();
    let step = s.open("a", payload());
    assert_eq!(step["status"], json!("open"));
    let done = s.ok(
        "keys",
        json!({ "session": "a", "keys": "1<Space><Down><Space><Tab>1" }),
    );
    assert_eq!(done["status"], json!("done"));
    assert_eq!(done["result"], submitted_result());
    assert_eq!(
        s.err("getView", json!({ "session": "nope" })),
        error(-32001, "unknown session \"nope\"")
    );
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

#[test]
fn content_length_bad_header_is_a_parse_error_and_the_stream_goes_on() {
    let mut s = Server::start(&[]);
    s.use_content_length();
    s.send_raw(b"Content-Length: abc\r\n\r\n");
    assert_eq!(
        s.recv(),
        error_reply(
            Value::Null,
            -32700,
            "parse error: bad Content-Length value \"abc\""
        )
    );
    s.send_frame(br#"{"jsonrpc":"2.0","id":1,"method":"sessions"}"#);
    assert_eq!(s.recv(), ok_reply(json!(1), json!([])));
    s.send_frame(b"{\"js");
    assert_eq!(
        s.recv(),
        error_reply(
            Value::Null,
            -32700,
            "parse error: EOF while parsing a string at line 1 column 4"
        )
    );
    assert_eq!(untimed(s.ok("sessions", json!({}))), json!([]));
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

/// A `sessions` request padded to exactly `len` bytes.
fn padded_request(id: i64, len: usize) -> String {
    let bare =
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"sessions","params":{{"pad":""}}}}"#);
    assert!(bare.len() <= len);
    let pad = "x".repeat(len - bare.len());
    let text =
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"sessions","params":{{"pad":"{pad}"}}}}"#);
    assert_eq!(text.len(), len);
    text
}

#[test]
fn message_over_the_size_limit_is_refused_in_line_framing() {
    let mut s = Server::start(&["--max-message-bytes", "300"]);
    let by = Bystander::open_small(&mut s);
    s.send_line(&padded_request(1, 300));
    assert_eq!(untimed(s.recv()), ok_reply(json!(1), by.sessions()));
    // `\r\n` is not counted against the limit.
    s.send_raw(format!("{}\r\n", padded_request(2, 300)).as_bytes());
    assert_eq!(untimed(s.recv()), ok_reply(json!(2), by.sessions()));
    s.send_line(&padded_request(3, 301));
    assert_eq!(s.recv(), error_reply(Value::Null, -32004, &too_large_300()));
    // Far over the limit, in many writes.
    s.send_raw(br#"{"jsonrpc":"2.0","id":4,"method":"sessions","p":""#);
    for _ in 0..64 {
        s.send_raw("y".repeat(16 * 1024).as_bytes());
    }
    s.send_raw(b"\"}\n");
    assert_eq!(s.recv(), error_reply(Value::Null, -32004, &too_large_300()));
    by.check(&mut s, "oversized lines");
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

#[test]
fn message_over_the_size_limit_is_refused_in_content_length_framing() {
    let mut s = Server::start(&["--max-message-bytes", "300"]);
    s.use_content_length();
    let by = Bystander::open_small(&mut s);
    s.send_frame(padded_request(1, 300).as_bytes());
    assert_eq!(untimed(s.recv()), ok_reply(json!(1), by.sessions()));
    s.send_frame(padded_request(2, 301).as_bytes());
    assert_eq!(s.recv(), error_reply(Value::Null, -32004, &too_large_300()));
    s.send_frame(&vec![b'['; 100_000]);
    assert_eq!(s.recv(), error_reply(Value::Null, -32004, &too_large_300()));
    by.check(&mut s, "oversized frames");
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

impl Bystander {
    /// A bystander on [`tiny_payload`], small enough for tight message limits.
    fn open_small(server: &mut Server) -> Bystander {
        server.open("by", tiny_payload());
        server.ok("key", json!({ "session": "by", "key": "down" }));
        let view = server.view("by");
        assert_eq!(view["question"]["activeOption"], json!(1));
        Bystander { id: "by", view }
    }

    /// The `sessions` listing when the bystander is the only session.
    fn sessions(&self) -> Value {
        json!([{ "session": self.id, "status": "open" }])
    }
}

// ---------------------------------------------------------------------------------------------
// initialize
// ---------------------------------------------------------------------------------------------

#[test]
fn initialize_reports_server_protocol_version_and_methods() {
    let mut s = Server::start(&[]);
    let reply = s.call(
        "initialize",
        json!({ "clientInfo": { "name": "test", "version": "1" } }),
    );
    assert_eq!(
        reply["result"],
        json!({
            "serverInfo": { "name": "askd", "version": env!("CARGO_PKG_VERSION") },
            "protocolVersion": 1,
            "methods": [
                "initialize", "open", "ask", "key", "keys", "insert", "activate", "setDraft",
                "saveCustom", "setNote",
                "submitAnswers", "getView", "getResult", "cancel", "close", "snapshot",
                "restore", "sessions", "recover", "discard", "subscribe", "unsubscribe",
                "hub/status", "shutdown", "exit"
            ]
        })
    );
    // Without params too.
    s.send_line(r#"{"jsonrpc":"2.0","id":9,"method":"initialize"}"#);
    assert_eq!(s.recv(), ok_reply(json!(9), reply["result"].clone()));
}

#[test]
fn initialize_keymap_applies_to_later_opens() {
    let mut s = Server::start(&[]);
    s.ok(
        "initialize",
        json!({ "capabilities": { "keymap": { "main.toggle": ["x"] } } }),
    );
    let step = s.open("a", payload());
    let hints = step["view"]["hints"].as_array().expect("hints");
    assert!(
        hints.contains(&json!({ "action": "main.toggle", "keys": ["x"], "label": "toggle" })),
        "hints follow the connection keymap: {hints:?}"
    );
    // Space no longer toggles; x does (select without advancing on a single question).
    let step = s.ok("key", json!({ "session": "a", "key": "space" }));
    assert_eq!(
        step["view"]["question"]["rows"][0]["selected"],
        json!(false)
    );
    let step = s.ok("key", json!({ "session": "a", "key": "x" }));
    assert_eq!(step["view"]["question"]["rows"][0]["selected"], json!(true));
    assert_eq!(step["view"]["activeTab"], json!(0));
}

#[test]
fn open_keymap_overrides_only_that_session() {
    let mut s = Server::start(&[]);
    let step = s.ok(
        "open",
        json!({ "session": "a", "payload": payload(), "keymap": { "main.down": ["j"] } }),
    );
    assert!(
        step["view"]["hints"]
            .as_array()
            .expect("hints")
            .contains(&json!({ "action": "main.down", "keys": ["j"], "label": "down" }))
    );
    let step = s.ok("key", json!({ "session": "a", "key": "j" }));
    assert_eq!(step["view"]["question"]["activeOption"], json!(1));
    s.open("b", payload());
    let step = s.ok("key", json!({ "session": "b", "key": "j" }));
    assert_eq!(step["view"]["question"]["activeOption"], json!(0));
    let step = s.ok("key", json!({ "session": "b", "key": "down" }));
    assert_eq!(step["view"]["question"]["activeOption"], json!(1));
}

#[test]
fn behaviour_is_a_connection_default_and_a_per_session_option() {
    let mut s = Server::start(&[]);
    s.ok(
        "initialize",
        json!({ "capabilities": { "behaviour": { "profile": "pi-0.9", "confirmDismissWhenDirty": true } } }),
    );
    // The connection's: the profile's `t` and the dirty-dismiss guard.
    s.open("a", payload());
    let step = s.ok("keys", json!({ "session": "a", "keys": "t<Space><Esc>" }));
    assert_eq!(step["status"], json!("open"));
    assert_eq!(
        step["view"]["notices"],
        json!([
            { "kind": "dismissConfirm", "text": "Unsaved ask answers or drafts. Press cancel/dismiss again to discard." },
            { "kind": "typeChanged", "text": "Question type changed from single to multi." }
        ])
    );
    assert_eq!(step["view"]["question"]["type"], json!("multi"));
    // A session's fields replace the connection's; fields left out keep them.
    s.ok(
        "open",
        json!({ "session": "b", "payload": payload(), "behaviour": { "confirmDismissWhenDirty": false } }),
    );
    let step = s.ok("keys", json!({ "session": "b", "keys": "t<Space><Esc>" }));
    assert_eq!(step["status"], json!("done"));
    assert_eq!(
        step["result"]["details"]["questions"][0],
        json!({ "id": "db", "label": "Database", "prompt": "Which database?", "type": "single", "presentedType": "multi" })
    );
    // A later `initialize` replaces the connection's options whole.
    s.ok(
        "initialize",
        json!({ "capabilities": { "behaviour": { "presentSingleAsMulti": true } } }),
    );
    let step = s.open("c", payload());
    assert_eq!(step["view"]["question"]["type"], json!("multi"));
    let step = s.ok("keys", json!({ "session": "c", "keys": "t" }));
    assert_eq!(step["view"]["notices"], json!([]));
    assert_eq!(step["view"]["question"]["type"], json!("multi"));
    // The snapshot keeps the session's behaviour.
    let state = s.ok("snapshot", json!({ "session": "a" }))["state"].clone();
    let step = s.ok("restore", json!({ "state": state, "session": "a2" }));
    assert_eq!(step["view"]["notices"], s.view("a")["notices"]);
    let step = s.ok("key", json!({ "session": "a2", "key": "escape" }));
    assert_eq!(step["status"], json!("done"));
}

#[test]
fn sessions_of_one_request_are_each_their_own_flow() {
    // The sessions opened on one request keep it, and their spec, once between them; what one
    // of them does stays its own.
    let mut s = Server::start(&[]);
    s.ok(
        "initialize",
        json!({ "capabilities": { "behaviour": { "profile": "pi-0.9" } } }),
    );
    s.open("a", payload());
    s.open("b", payload());
    s.ok(
        "open",
        json!({ "session": "c", "payload": payload(), "behaviour": { "presentSingleAsMulti": true } }),
    );
    // `t` changes the type of a's first question, not b's.
    let step = s.ok("key", json!({ "session": "a", "key": "t" }));
    assert_eq!(step["view"]["question"]["type"], json!("multi"));
    assert_eq!(s.view("b")["question"]["type"], json!("single"));
    assert_eq!(s.view("c")["question"]["type"], json!("multi"));
    // Each snapshot holds the request as it came.
    for id in ["a", "b", "c"] {
        let state = s.ok("snapshot", json!({ "session": id }))["state"].clone();
        assert_eq!(state["request"], payload(), "the request of {id}");
    }
    // A session opened after the first of them has gone shares with those left.
    assert_eq!(
        s.ok("close", json!({ "session": "a" })),
        json!({ "closed": true })
    );
    s.open("d", payload());
    let step = s.ok("key", json!({ "session": "b", "key": "t" }));
    assert_eq!(step["view"]["question"]["type"], json!("multi"));
    assert_eq!(s.view("d")["question"]["type"], json!("single"));
    let state = s.ok("snapshot", json!({ "session": "d" }))["state"].clone();
    assert_eq!(state["request"], payload());
    assert_eq!(s.view("c")["question"]["type"], json!("multi"));
}

#[test]
fn unknown_behaviour_options_are_invalid_params() {
    let mut s = Server::start(&[]);
    let e = s.err(
        "open",
        json!({ "session": "a", "payload": payload(), "behaviour": { "confirmDismiss": true } }),
    );
    assert_eq!(
        e,
        error(
            -32602,
            r#"invalid params: behaviour.confirmDismiss: unknown; expected one of the members "profile", "confirmDismissWhenDirty", "doublePressReviewShortcuts", "autoSubmitWhenAnsweredWithoutNotes", "presentSingleAsMulti", "cursorOnAnswer""#
        )
    );
    let e = s.err(
        "initialize",
        json!({ "capabilities": { "behaviour": { "profile": "0.9" } } }),
    );
    assert_eq!(
        e,
        error(
            -32602,
            r#"invalid params: capabilities.behaviour.profile: expected "seed" or "pi-0.9", got the string "0.9""#
        )
    );
    let e = s.err(
        "open",
        json!({ "session": "a", "payload": payload(), "behaviour": [true] }),
    );
    assert_eq!(
        e,
        error(
            -32602,
            "invalid params: behaviour: expected an object, got an array"
        )
    );
    // Nothing was created or changed.
    assert_eq!(untimed(s.ok("sessions", json!({}))), json!([]));
    let step = s.open("b", payload());
    assert_eq!(step["view"]["notices"], json!([]));
}

#[test]
fn initialize_has_ui_false_applies_to_later_opens() {
    let mut s = Server::start(&[]);
    s.ok("initialize", json!({ "capabilities": { "hasUI": false } }));
    let step = s.open("a", payload());
    assert_eq!(step["status"], json!("done"));
    assert_eq!(step["result"], non_interactive_result());
    // An explicit `hasUI: true` on `open` wins over the connection default.
    let step = s.ok(
        "open",
        json!({ "session": "b", "payload": payload(), "hasUI": true }),
    );
    assert_eq!(step["status"], json!("open"));
}

#[test]
fn width_makes_views_carry_rendered_lines() {
    let mut s = Server::start(&[]);
    let step = s.open("plain", payload());
    assert_eq!(step["view"].get("lines"), None);
    assert_eq!(s.view("plain").get("lines"), None);
    let check_lines = |view: &Value| {
        let lines = view["lines"].as_array().expect("lines");
        assert!(!lines.is_empty());
        let text: Vec<String> = lines
            .iter()
            .map(|line| {
                line.as_array()
                    .expect("a line is a list of spans")
                    .iter()
                    .map(|span| {
                        assert!(span["style"].is_string(), "span style: {span}");
                        span["text"].as_str().expect("span text").to_owned()
                    })
                    .collect()
            })
            .collect();
        assert!(
            text.iter().any(|line| line.contains("Which database?")),
            "the prompt is rendered: {text:?}"
        );
        for line in &text {
            assert!(
                unicode_width::UnicodeWidthStr::width(line.as_str()) <= 60,
                "a line wider than 60 columns: {line:?}"
            );
        }
    };
    let view = s.ok("getView", json!({ "session": "plain", "width": 60 }));
    check_lines(&view);
    let step = s.ok(
        "open",
        json!({ "session": "wide", "payload": payload(), "width": 60 }),
    );
    check_lines(&step["view"]);
    check_lines(&s.ok("key", json!({ "session": "wide", "key": "down" }))["view"]);
    s.ok("initialize", json!({ "capabilities": { "width": 60 } }));
    check_lines(&s.open("later", payload())["view"]);
}

fn long_payload() -> Value {
    let options: Vec<Value> = (1..=15)
        .map(|i| json!({ "value": format!("v{i}"), "label": format!("Option {i}") }))
        .collect();
    json!({ "questions": [{ "id": "pick", "prompt": "Pick one", "options": options }] })
}

/// The `index` of every row a view carries, and its `rowCount`, `rowsAbove`, `rowsBelow`.
fn rows_of(view: &Value) -> (Vec<u64>, Value, Value, Value) {
    let q = &view["question"];
    let indices = q["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| row["index"].as_u64().expect("an index"))
        .collect();
    (
        indices,
        q["rowCount"].clone(),
        q["rowsAbove"].clone(),
        q["rowsBelow"].clone(),
    )
}

#[test]
fn views_carry_the_rows_window_unless_all_rows_are_asked_for() {
    let mut s = Server::start(&[]);
    let window = |a: u64, b: u64| (a..=b).collect::<Vec<u64>>();
    // Sixteen rows (fifteen options and the custom row); the screen shows ten.
    let step = s.open("long", long_payload());
    assert_eq!(
        rows_of(&step["view"]),
        (window(1, 10), json!(16), json!(0), json!(6))
    );
    let step = s.ok(
        "keys",
        json!({ "session": "long", "keys": "<Down>".repeat(12) }),
    );
    assert_eq!(step["view"]["question"]["activeOption"], json!(12));
    assert_eq!(
        rows_of(&step["view"]),
        (window(7, 16), json!(16), json!(6), json!(0))
    );
    // getView asks for every row for this call only.
    let view = s.ok("getView", json!({ "session": "long", "allRows": true }));
    assert_eq!(
        rows_of(&view),
        (window(1, 16), json!(16), json!(6), json!(0))
    );
    assert_eq!(rows_of(&s.view("long")).0, window(7, 16));
    // open asks for every row for the session; initialize for later sessions.
    let step = s.ok(
        "open",
        json!({ "session": "all", "payload": long_payload(), "allRows": true }),
    );
    assert_eq!(rows_of(&step["view"]).0, window(1, 16));
    let step = s.ok("key", json!({ "session": "all", "key": "down" }));
    assert_eq!(rows_of(&step["view"]).0, window(1, 16));
    s.ok("initialize", json!({ "capabilities": { "allRows": true } }));
    assert_eq!(
        rows_of(&s.open("later", long_payload())["view"]).0,
        window(1, 16)
    );
    let step = s.ok(
        "open",
        json!({ "session": "windowed", "payload": long_payload(), "allRows": false }),
    );
    assert_eq!(rows_of(&step["view"]).0, window(1, 10));
    assert_eq!(
        s.err("getView", json!({ "session": "long", "allRows": "yes" })),
        error(
            -32602,
            "invalid params: allRows: expected true or false, got the string \"yes\""
        )
    );
}

// ---------------------------------------------------------------------------------------------
// open
// ---------------------------------------------------------------------------------------------

#[test]
fn open_generates_distinct_session_ids() {
    let mut s = Server::start(&[]);
    let first = s.ok("open", json!({ "payload": payload() }));
    let second = s.ok("open", json!({ "payload": tiny_payload() }));
    let a = first["session"]
        .as_str()
        .expect("a generated id")
        .to_owned();
    let b = second["session"]
        .as_str()
        .expect("a generated id")
        .to_owned();
    assert!(!a.is_empty() && !b.is_empty());
    assert_ne!(a, b);
    assert_eq!(first["view"]["session"], json!(a));
    assert_eq!(second["view"]["session"], json!(b));
    assert_eq!(first["status"], json!("open"));
    assert_eq!(first.get("result"), None);
    assert_eq!(first.get("transcript"), None);
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([
            { "session": a, "title": "Setup", "status": "open" },
            { "session": b, "status": "open" }
        ])
    );
    assert_eq!(s.view(&a), first["view"]);
    assert_eq!(s.view(&b), second["view"]);
}

#[test]
fn open_with_a_client_chosen_id_and_reuse_of_a_live_id_is_refused() {
    let mut s = Server::start(&[]);
    let step = s.open("call-1", payload());
    assert_eq!(step["session"], json!("call-1"));
    assert_eq!(step["view"]["session"], json!("call-1"));
    s.ok("key", json!({ "session": "call-1", "key": "down" }));
    let before = s.view("call-1");
    assert_eq!(
        s.err(
            "open",
            json!({ "session": "call-1", "payload": tiny_payload() })
        ),
        error(
            -32602,
            "invalid params: session: \"call-1\" is already in use"
        )
    );
    // Also once it is done: a done session is still live until closed.
    let done = s.ok("cancel", json!({ "session": "call-1" }));
    assert_eq!(
        s.err(
            "open",
            json!({ "session": "call-1", "payload": tiny_payload() })
        ),
        error(
            -32602,
            "invalid params: session: \"call-1\" is already in use"
        )
    );
    assert_eq!(s.view("call-1"), done["view"]);
    assert_ne!(before, done["view"]);
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([{ "session": "call-1", "title": "Setup", "status": "done" }])
    );
    // After close the id is free again.
    assert_eq!(
        s.ok("close", json!({ "session": "call-1" })),
        json!({ "closed": true })
    );
    let again = s.open("call-1", tiny_payload());
    assert_eq!(again["status"], json!("open"));
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([{ "session": "call-1", "status": "open" }])
    );
}

#[test]
fn open_without_ui_completes_at_once_with_the_non_interactive_result() {
    let mut s = Server::start(&[]);
    let step = s.ok(
        "open",
        json!({ "session": "a", "payload": payload(), "hasUI": false }),
    );
    assert_eq!(step["session"], json!("a"));
    assert_eq!(step["status"], json!("done"));
    assert_eq!(step["result"], non_interactive_result());
    assert_eq!(
        step["transcript"],
        json!({ "call": CALL_LINE, "result": "Cancelled" })
    );
    assert_eq!(
        s.ok("getResult", json!({ "session": "a" })),
        non_interactive_result()
    );
    // `ask` without UI resolves at once.
    let reply = s.call(
        "ask",
        json!({ "session": "b", "payload": payload(), "hasUI": false }),
    );
    assert_eq!(reply["result"], non_interactive_result());
}

#[test]
fn open_with_an_invalid_pi_payload_is_a_done_step_not_an_error() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    let step = s.open("bad", invalid_payload());
    assert_eq!(step["session"], json!("bad"));
    assert_eq!(step["status"], json!("done"));
    assert_eq!(step["view"]["status"], json!("done"));
    assert_eq!(step["result"], invalid_result());
    assert_eq!(
        step["transcript"],
        json!({ "call": "ask_user 2 question(s) (Q1, Q2)", "result": "Invalid input" })
    );
    assert_eq!(
        s.ok("getResult", json!({ "session": "bad" })),
        invalid_result()
    );
    assert_eq!(
        s.err("key", json!({ "session": "bad", "key": "enter" })),
        error(-32002, "the flow has already completed")
    );
    // Wrong JSON shapes are invalid input too.
    let step = s.open("shape", json!({ "questions": "x" }));
    assert_eq!(
        step["result"],
        json!({
            "content": [{ "type": "text", "text": "Invalid ask_user payload:\n- questions: questions must be an array" }],
            "details": {
                "cancelled": true,
                "cancelReason": "invalid_input",
                "mode": "submit",
                "questions": [],
                "answers": {},
                "error": {
                    "kind": "invalid_input",
                    "issues": [{ "path": "questions", "message": "questions must be an array" }]
                }
            }
        })
    );
    by.check(&mut s, "invalid payloads");
}

// ---------------------------------------------------------------------------------------------
// ask
// ---------------------------------------------------------------------------------------------

#[test]
fn ask_stays_pending_while_later_requests_are_answered_then_resolves() {
    let mut s = Server::start(&[]);
    s.send(&request(
        json!("ask-1"),
        "ask",
        json!({ "session": "q", "payload": payload() }),
    ));
    // Later requests on the same connection are answered while the ask waits.
    s.send_line(r#"{"jsonrpc":"2.0","id":1,"method":"sessions"}"#);
    assert_eq!(
        untimed(s.recv()),
        ok_reply(
            json!(1),
            json!([{ "session": "q", "title": "Setup", "status": "open" }])
        )
    );
    s.send_line(r#"{"jsonrpc":"2.0","id":2,"method":"getResult","params":{"session":"q"}}"#);
    assert_eq!(s.recv(), ok_reply(json!(2), Value::Null));
    s.send(&request(
        json!(3),
        "keys",
        json!({ "session": "q", "keys": "1<Space><Down><Space>" }),
    ));
    let step = s.recv();
    assert_eq!(step["id"], json!(3));
    assert_eq!(step["result"]["status"], json!("open"));
    // Completing the flow resolves the ask with the pi result.
    let done = s.ok("keys", json!({ "session": "q", "keys": "<Tab><CR>" }));
    assert_eq!(done["status"], json!("done"));
    assert_eq!(done["result"], submitted_result());
    assert_eq!(
        s.reply_to(&json!("ask-1")),
        ok_reply(json!("ask-1"), submitted_result())
    );
    assert_eq!(s.take_stash(), Vec::<Value>::new());
    assert_eq!(
        s.ok("getResult", json!({ "session": "q" })),
        submitted_result()
    );
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

#[test]
fn cancel_request_aborts_a_pending_ask() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    s.send(&request(
        json!(7),
        "ask",
        json!({ "session": "q", "payload": payload() }),
    ));
    s.send(&request(
        json!("str"),
        "ask",
        json!({ "session": "r", "payload": payload() }),
    ));
    // Unknown ids are ignored silently.
    s.notify("$/cancelRequest", json!({ "id": 8 }));
    s.notify("$/cancelRequest", json!({ "id": "7" }));
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([
            { "session": "by", "title": "Setup", "status": "open" },
            { "session": "q", "title": "Setup", "status": "open" },
            { "session": "r", "title": "Setup", "status": "open" }
        ])
    );
    assert_eq!(s.take_stash(), Vec::<Value>::new());

    s.notify("$/cancelRequest", json!({ "id": 7 }));
    assert_eq!(s.recv(), ok_reply(json!(7), cancelled_result("aborted")));
    s.notify("$/cancelRequest", json!({ "id": "str" }));
    assert_eq!(
        s.recv(),
        ok_reply(json!("str"), cancelled_result("aborted"))
    );
    assert_eq!(
        s.ok("getResult", json!({ "session": "q" })),
        cancelled_result("aborted")
    );
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([
            { "session": "by", "title": "Setup", "status": "open" },
            { "session": "q", "title": "Setup", "status": "done" },
            { "session": "r", "title": "Setup", "status": "done" }
        ])
    );
    // Cancelling an ask that has already resolved does nothing.
    s.notify("$/cancelRequest", json!({ "id": 7 }));
    by.check(&mut s, "$/cancelRequest");
    assert_eq!(s.take_stash(), Vec::<Value>::new());
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

#[test]
fn close_resolves_a_pending_ask_on_its_session() {
    let mut s = Server::start(&[]);
    s.send(&request(
        json!("a-2"),
        "ask",
        json!({ "session": "t", "payload": payload() }),
    ));
    s.ok("key", json!({ "session": "t", "key": "down" }));
    assert_eq!(
        s.ok("close", json!({ "session": "t" })),
        json!({ "closed": true })
    );
    assert_eq!(
        s.reply_to(&json!("a-2")),
        ok_reply(json!("a-2"), cancelled_result("aborted"))
    );
    assert_eq!(untimed(s.ok("sessions", json!({}))), json!([]));
    assert_eq!(
        s.ok("close", json!({ "session": "t" })),
        json!({ "closed": false })
    );
    assert_eq!(s.take_stash(), Vec::<Value>::new());
}

#[test]
fn ask_with_an_invalid_payload_resolves_at_once_and_bad_params_fail_at_once() {
    let mut s = Server::start(&[]);
    s.send(&request(
        json!(1),
        "ask",
        json!({ "session": "bad", "payload": invalid_payload() }),
    ));
    assert_eq!(s.recv(), ok_reply(json!(1), invalid_result()));
    s.send(&request(json!(2), "ask", json!({ "session": "x" })));
    assert_eq!(
        s.recv(),
        error_reply(
            json!(2),
            -32602,
            "invalid params: payload: missing; expected the tool call's arguments (any JSON value)"
        )
    );
    s.send(&request(
        json!(3),
        "ask",
        json!({ "session": "bad", "payload": payload() }),
    ));
    assert_eq!(
        s.recv(),
        error_reply(
            json!(3),
            -32602,
            "invalid params: session: \"bad\" is already in use"
        )
    );
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([{ "session": "bad", "title": "Broken", "status": "done" }])
    );
}

#[test]
fn several_asks_resolve_independently() {
    let mut s = Server::start(&[]);
    s.send(&request(
        json!(1),
        "ask",
        json!({ "session": "one", "payload": payload() }),
    ));
    s.send(&request(
        json!(2),
        "ask",
        json!({ "session": "two", "payload": payload() }),
    ));
    s.ok("cancel", json!({ "session": "two" }));
    assert_eq!(
        s.reply_to(&json!(2)),
        ok_reply(json!(2), cancelled_result("user"))
    );
    s.ok(
        "keys",
        json!({ "session": "one", "keys": ["1", "space", "down", "space", "tab", "enter"] }),
    );
    assert_eq!(
        s.reply_to(&json!(1)),
        ok_reply(json!(1), submitted_result())
    );
    assert_eq!(s.take_stash(), Vec::<Value>::new());
}

// ---------------------------------------------------------------------------------------------
// The dsh dialect through the protocol
// ---------------------------------------------------------------------------------------------

/// A dsh request with one single-select question.
fn dsh_payload() -> Value {
    json!({
        "questions": [{
            "id": "lang",
            "question": "Which language?",
            "options": [{ "label": "Rust" }, { "label": "Go" }]
        }]
    })
}

/// The -32010 error of a dsh `UserQuestionError`.
fn user_question_error(code: &str, message: &str) -> Value {
    json!({
        "code": -32010,
        "message": message,
        "data": { "name": "UserQuestionError", "code": code }
    })
}

#[test]
fn dsh_steps_carry_the_answer_batch_or_the_user_question_error() {
    let mut s = Server::start(&[]);
    let step = s.open("d", dsh_payload());
    assert_eq!(step["view"]["dialect"], json!("dsh"));
    let done = s.ok("keys", json!({ "session": "d", "keys": "11" }));
    assert_eq!(done["status"], json!("done"));
    assert_eq!(
        done["result"],
        json!({ "answer": { "answers": [{ "id": "lang", "selected": ["Rust"] }] } })
    );
    s.open("e", dsh_payload());
    let cancelled = s.ok("cancel", json!({ "session": "e" }));
    assert_eq!(
        cancelled["result"],
        json!({
            "error": {
                "name": "UserQuestionError",
                "code": "ASK_CANCELLED",
                "message": "The user cancelled the questions"
            }
        })
    );
}

#[test]
fn dsh_requests_rejected_by_validation_fail_with_32010_and_create_nothing() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    let expected = user_question_error(
        "EMPTY_QUESTIONS",
        "questions must hold at least one question",
    );
    assert_eq!(
        s.err(
            "open",
            json!({ "session": "x", "payload": { "questions": [] }, "dialect": "dsh" })
        ),
        expected
    );
    s.send(&request(
        json!("dsh-ask"),
        "ask",
        json!({ "session": "x", "payload": { "questions": [] }, "dialect": "dsh" }),
    ));
    assert_eq!(
        s.recv(),
        json!({ "jsonrpc": "2.0", "id": "dsh-ask", "error": expected })
    );
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([{ "session": "by", "title": "Setup", "status": "open" }])
    );
    by.check(&mut s, "refused dsh requests");
}

#[test]
fn dsh_ask_resolves_with_answers_or_fails_with_32010() {
    let mut s = Server::start(&[]);
    s.send(&request(
        json!("sub"),
        "ask",
        json!({ "session": "d", "payload": dsh_payload() }),
    ));
    s.ok("keys", json!({ "session": "d", "keys": "11" }));
    assert_eq!(
        s.reply_to(&json!("sub")),
        ok_reply(
            json!("sub"),
            json!({ "answers": [{ "id": "lang", "selected": ["Rust"] }] })
        )
    );
    s.send(&request(
        json!("can"),
        "ask",
        json!({ "session": "e", "payload": dsh_payload() }),
    ));
    s.ok("cancel", json!({ "session": "e" }));
    assert_eq!(
        s.reply_to(&json!("can")),
        json!({
            "jsonrpc": "2.0",
            "id": "can",
            "error": user_question_error("ASK_CANCELLED", "The user cancelled the questions")
        })
    );
    s.send(&request(
        json!("abo"),
        "ask",
        json!({ "session": "f", "payload": dsh_payload() }),
    ));
    s.notify("$/cancelRequest", json!({ "id": "abo" }));
    assert_eq!(
        s.reply_to(&json!("abo")),
        json!({
            "jsonrpc": "2.0",
            "id": "abo",
            "error": user_question_error(
                "ASK_ABORTED",
                "The request was withdrawn before the user answered"
            )
        })
    );
}

#[test]
fn dsh_without_ui_completes_with_no_provider() {
    let mut s = Server::start(&[]);
    let step = s.ok(
        "open",
        json!({ "session": "d", "payload": dsh_payload(), "hasUI": false }),
    );
    assert_eq!(step["status"], json!("done"));
    assert_eq!(step["result"]["error"]["name"], json!("UserQuestionError"));
    assert_eq!(step["result"]["error"]["code"], json!("NO_PROVIDER"));
}

// ---------------------------------------------------------------------------------------------
// key, keys, insert
// ---------------------------------------------------------------------------------------------

#[test]
fn key_drives_the_flow_and_a_completed_session_refuses_keys() {
    let mut s = Server::start(&[]);
    s.open("a", payload());
    let step = s.ok("key", json!({ "session": "a", "key": "down" }));
    assert_eq!(step["session"], json!("a"));
    assert_eq!(step["status"], json!("open"));
    assert_eq!(step["view"]["question"]["activeOption"], json!(1));
    assert_eq!(step.get("result"), None);
    // Enter selects SQLite and advances to the next tab.
    let step = s.ok("key", json!({ "session": "a", "key": "Enter" }));
    assert_eq!(step["view"]["activeTab"], json!(1));
    assert_eq!(step["view"]["question"]["id"], json!("feat"));
    assert_eq!(step["view"]["tabs"][0]["answered"], json!(true));
    let step = s.ok("key", json!({ "session": "a", "key": "shift+tab" }));
    assert_eq!(step["view"]["activeTab"], json!(0));
    assert_eq!(step["view"]["question"]["rows"][1]["selected"], json!(true));
    // Esc cancels the flow.
    let done = s.ok("key", json!({ "session": "a", "key": "esc" }));
    assert_eq!(done["status"], json!("done"));
    assert_eq!(
        done["result"]["content"],
        json!([{ "type": "text", "text": "User cancelled the ask flow" }])
    );
    assert_eq!(
        done["result"]["details"]["answers"],
        json!({ "db": { "values": ["sqlite"], "labels": ["SQLite"], "indices": [2] } })
    );
    assert_eq!(
        done["transcript"],
        json!({ "call": CALL_LINE, "result": "Cancelled" })
    );
    assert_eq!(
        s.err("key", json!({ "session": "a", "key": "enter" })),
        error(-32002, "the flow has already completed")
    );
    assert_eq!(s.view("a"), done["view"]);
}

#[test]
fn keys_take_a_list_or_a_vim_string() {
    let mut s = Server::start(&[]);
    s.open("list", payload());
    s.open("vim", payload());
    let list = s.ok(
        "keys",
        json!({ "session": "list", "keys": ["1", "space", "down", "space", "tab", "1"] }),
    );
    let vim = s.ok(
        "keys",
        json!({ "session": "vim", "keys": "1<Space><Down><Space><Tab>1" }),
    );
    for step in [&list, &vim] {
        assert_eq!(step["status"], json!("done"));
        assert_eq!(step["result"], submitted_result());
        assert_eq!(
            step["transcript"],
            json!({ "call": CALL_LINE, "result": "✓ Database: Postgres\n✓ Features: Auth, API" })
        );
        assert_eq!(step.get("steps"), None);
    }
    assert_eq!(view_as(&list, "vim"), vim["view"]);
}

#[test]
fn keys_with_trace_give_one_step_per_key() {
    let mut s = Server::start(&[]);
    s.open("a", payload());
    let step = s.ok(
        "keys",
        json!({ "session": "a", "keys": ["down", "down", "up"], "trace": true }),
    );
    let steps = step["steps"].as_array().expect("steps").clone();
    assert_eq!(steps.len(), 3);
    let active: Vec<&Value> = steps
        .iter()
        .map(|s| &s["view"]["question"]["activeOption"])
        .collect();
    assert_eq!(active, [&json!(1), &json!(2), &json!(1)]);
    for traced in &steps {
        assert_eq!(traced["session"], json!("a"));
        assert_eq!(traced["status"], json!("open"));
        assert_eq!(traced.get("steps"), None);
    }
    // Down onto the custom row opens its editor by itself; Up saves and moves back.
    assert_eq!(steps[1]["view"]["focus"], json!("input"));
    assert_eq!(steps[2]["view"]["focus"], json!("options"));
    let mut last = step.clone();
    last.as_object_mut().expect("a Step").remove("steps");
    assert_eq!(last, steps[2]);
    assert_eq!(s.view("a"), steps[2]["view"]);

    // A trace through completion ends with the done Step.
    let step = s.ok(
        "keys",
        json!({ "session": "a", "keys": "<Esc>", "trace": true }),
    );
    assert_eq!(step["status"], json!("done"));
    assert_eq!(step["steps"][0]["status"], json!("done"));
    assert_eq!(step["steps"][0]["result"], step["result"]);
}

#[test]
fn keys_with_an_unknown_name_apply_nothing() {
    let mut s = Server::start(&[]);
    s.open("a", payload());
    let before = s.view("a");
    assert_eq!(
        s.err("keys", json!({ "session": "a", "keys": ["down", "foo"] })),
        error(-32602, "invalid params: keys[1]: unknown key \"foo\"")
    );
    assert_eq!(
        s.err("keys", json!({ "session": "a", "keys": "<Down><Foo>" })),
        error(-32602, "invalid params: keys: unknown key \"<Foo>\"")
    );
    assert_eq!(
        s.err("key", json!({ "session": "a", "key": "foo" })),
        error(-32602, "invalid params: key: unknown key \"foo\"")
    );
    assert_eq!(s.view("a"), before);
}

#[test]
fn insert_needs_an_open_editor_and_types_into_it() {
    let mut s = Server::start(&[]);
    s.open("a", payload());
    let before = s.view("a");
    assert_eq!(
        s.err("insert", json!({ "session": "a", "text": "hi" })),
        error(-32003, "no editor is open")
    );
    assert_eq!(s.view("a"), before);
    // `3` is the custom row: it opens the input editor.
    let step = s.ok("key", json!({ "session": "a", "key": "3" }));
    assert_eq!(step["view"]["focus"], json!("input"));
    assert_eq!(step["view"]["editor"]["text"], json!(""));
    s.ok("insert", json!({ "session": "a", "text": "Maria" }));
    let step = s.ok("insert", json!({ "session": "a", "text": "DB 한" }));
    assert_eq!(step["view"]["editor"]["text"], json!("MariaDB 한"));
    // Enter saves the custom answer and advances.
    let step = s.ok("key", json!({ "session": "a", "key": "enter" }));
    assert_eq!(step["view"]["focus"], json!("options"));
    assert_eq!(step["view"]["activeTab"], json!(1));
    assert_eq!(step["view"]["editor"], Value::Null);
    let done = s.ok("keys", json!({ "session": "a", "keys": "<Tab>1" }));
    assert_eq!(
        done["result"]["details"]["answers"],
        json!({
            "db": {
                "values": ["MariaDB 한"],
                "labels": ["MariaDB 한"],
                "indices": [],
                "customText": "MariaDB 한"
            }
        })
    );
}

// ---------------------------------------------------------------------------------------------
// saveCustom, setNote, submitAnswers
// ---------------------------------------------------------------------------------------------

#[test]
fn save_custom_and_set_note_act_directly_on_answers() {
    let mut s = Server::start(&[]);
    s.open("a", payload());
    let step = s.ok(
        "saveCustom",
        json!({ "session": "a", "questionId": "db", "text": "MariaDB" }),
    );
    assert_eq!(step["status"], json!("open"));
    assert_eq!(step["view"]["activeTab"], json!(0));
    assert_eq!(step["view"]["question"]["customText"], json!("MariaDB"));
    assert_eq!(step["view"]["tabs"][0]["answered"], json!(true));
    // Blank text clears.
    let step = s.ok(
        "saveCustom",
        json!({ "session": "a", "questionId": "db", "text": "   " }),
    );
    assert_eq!(step["view"]["question"]["customText"], Value::Null);
    assert_eq!(step["view"]["tabs"][0]["answered"], json!(false));
    // `submit: true` advances like Enter in the input editor.
    let step = s.ok(
        "saveCustom",
        json!({ "session": "a", "questionId": "db", "text": "MariaDB", "submit": true }),
    );
    assert_eq!(step["view"]["activeTab"], json!(1));
    s.ok("key", json!({ "session": "a", "key": "space" }));
    let step = s.ok(
        "setNote",
        json!({ "session": "a", "questionId": "feat", "optionValue": "auth", "text": "OAuth" }),
    );
    assert_eq!(step["view"]["question"]["rows"][0]["note"], json!("OAuth"));
    let step = s.ok(
        "setNote",
        json!({ "session": "a", "questionId": "db", "text": "prod only" }),
    );
    assert_eq!(step["view"]["tabs"][0]["hasNotes"], json!(true));
    let done = s.ok("keys", json!({ "session": "a", "keys": "<Tab>1" }));
    assert_eq!(
        done["result"],
        json!({
            "content": [{
                "type": "text",
                "text": "Database: MariaDB\nDatabase note: prod only\nFeatures: Auth\nFeatures / Auth note: OAuth"
            }],
            "details": {
                "title": "Setup",
                "cancelled": false,
                "mode": "submit",
                "questions": detail_questions(),
                "answers": {
                    "db": {
                        "values": ["MariaDB"],
                        "labels": ["MariaDB"],
                        "indices": [],
                        "customText": "MariaDB",
                        "note": "prod only"
                    },
                    "feat": {
                        "values": ["auth"],
                        "labels": ["Auth"],
                        "indices": [1],
                        "optionNotes": { "auth": "OAuth" }
                    }
                }
            }
        })
    );
}

#[test]
fn save_custom_and_set_note_refuse_unknown_targets() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    s.open("a", payload());
    let before = s.view("a");
    assert_eq!(
        s.err(
            "saveCustom",
            json!({ "session": "a", "questionId": "zz", "text": "x" })
        ),
        error(
            -32602,
            "invalid params: questionId: unknown question id \"zz\""
        )
    );
    assert_eq!(
        s.err(
            "setNote",
            json!({ "session": "a", "questionId": "zz", "text": "x" })
        ),
        error(
            -32602,
            "invalid params: questionId: unknown question id \"zz\""
        )
    );
    assert_eq!(
        s.err(
            "setNote",
            json!({ "session": "a", "questionId": "db", "optionValue": "zz", "text": "x" })
        ),
        error(
            -32602,
            "invalid params: optionValue: question \"db\" has no option with value \"zz\""
        )
    );
    assert_eq!(
        s.err("saveCustom", json!({ "session": "a", "questionId": "db" })),
        error(-32602, "invalid params: text: missing; expected a string")
    );
    assert_eq!(s.view("a"), before);
    by.check(&mut s, "refused direct edits");
}

#[test]
fn submit_answers_completes_the_flow_from_a_whole_answer_set() {
    let mut s = Server::start(&[]);
    s.open("a", payload());
    let done = s.ok(
        "submitAnswers",
        json!({
            "session": "a",
            "answers": {
                "db": { "values": ["sqlite"], "note": "small" },
                "feat": { "values": ["api", "auth"], "customText": "Billing", "optionNotes": { "api": "v2" } }
            }
        }),
    );
    assert_eq!(done["status"], json!("done"));
    assert_eq!(
        done["result"],
        json!({
            "content": [{
                "type": "text",
                "text": "Database: SQLite\nDatabase note: small\nFeatures: API, Auth, Billing\nFeatures / API note: v2"
            }],
            "details": {
                "title": "Setup",
                "cancelled": false,
                "mode": "submit",
                "questions": detail_questions(),
                "answers": {
                    "db": { "values": ["sqlite"], "labels": ["SQLite"], "indices": [2], "note": "small" },
                    "feat": {
                        "values": ["api", "auth", "Billing"],
                        "labels": ["API", "Auth", "Billing"],
                        "indices": [2, 1],
                        "customText": "Billing",
                        "optionNotes": { "api": "v2" }
                    }
                }
            }
        })
    );
    assert_eq!(s.ok("getResult", json!({ "session": "a" })), done["result"]);
    assert_eq!(
        s.err("submitAnswers", json!({ "session": "a", "answers": {} })),
        error(-32002, "the flow has already completed")
    );
}

#[test]
fn submit_answers_in_elaborate_mode() {
    let mut s = Server::start(&[]);
    s.open("a", payload());
    let done = s.ok(
        "submitAnswers",
        json!({
            "session": "a",
            "answers": { "db": { "values": ["pg"] }, "feat": { "note": "which is cheaper?" } },
            "mode": "elaborate"
        }),
    );
    assert_eq!(done["status"], json!("done"));
    assert_eq!(
        done["result"]["content"],
        json!([{
            "type": "text",
            "text": "User asked to elaborate on question \"Which features?\" with note \"which is cheaper?\""
        }])
    );
    let details = &done["result"]["details"];
    assert_eq!(details["mode"], json!("elaborate"));
    assert_eq!(details["cancelled"], json!(false));
    assert_eq!(
        details["answers"],
        json!({ "db": { "values": ["pg"], "labels": ["Postgres"], "indices": [1] } })
    );
    assert_eq!(
        details["continuation"],
        json!({
            "strategy": "refine_only",
            "affectedQuestionIds": ["feat"],
            "preservedAnswers": { "db": { "values": ["pg"], "labels": ["Postgres"], "indices": [1] } },
            "questionStates": {
                "db": { "status": "answered" },
                "feat": { "status": "needs_clarification" }
            }
        })
    );
}

#[test]
fn submit_answers_that_are_invalid_leave_the_session_open_and_unchanged() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    s.open("a", payload());
    s.ok(
        "saveCustom",
        json!({ "session": "a", "questionId": "db", "text": "MariaDB", "submit": true }),
    );
    s.ok("key", json!({ "session": "a", "key": "space" }));
    let before = s.view("a");
    let cases = [
        (
            json!({ "db": { "values": ["mysql"] } }),
            "invalid params: answers.db.values[0]: \"mysql\" is not an option value of question \"db\"",
        ),
        (
            json!({ "nope": { "values": ["pg"] } }),
            "invalid params: answers.nope: unknown question id \"nope\"",
        ),
        (
            json!({ "db": { "values": "pg" } }),
            "invalid params: answers.db.values: expected a list of option values",
        ),
        (
            json!([]),
            "invalid params: answers must be an object keyed by question id",
        ),
    ];
    for (answers, message) in cases {
        assert_eq!(
            s.err(
                "submitAnswers",
                json!({ "session": "a", "answers": answers })
            ),
            error(-32602, message),
            "answers {answers}"
        );
        assert_eq!(s.view("a"), before, "after answers {answers}");
        assert_eq!(s.ok("getResult", json!({ "session": "a" })), Value::Null);
    }
    assert_eq!(
        s.err(
            "submitAnswers",
            json!({ "session": "a", "answers": {}, "mode": "later" })
        ),
        error(
            -32602,
            "invalid params: mode: expected \"submit\" or \"elaborate\", got the string \"later\""
        )
    );
    assert_eq!(s.view("a"), before);
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([
            { "session": "by", "title": "Setup", "status": "open" },
            { "session": "a", "title": "Setup", "status": "open" }
        ])
    );
    by.check(&mut s, "invalid submitAnswers");
}

// ---------------------------------------------------------------------------------------------
// getView, getResult, cancel, close
// ---------------------------------------------------------------------------------------------

#[test]
fn get_view_and_get_result_follow_the_session() {
    let mut s = Server::start(&[]);
    let step = s.open("a", payload());
    assert_eq!(s.view("a"), step["view"]);
    assert_eq!(step["view"]["session"], json!("a"));
    assert_eq!(step["view"]["status"], json!("open"));
    assert_eq!(step["view"]["title"], json!("Setup"));
    assert_eq!(step["view"]["focus"], json!("options"));
    assert_eq!(step["view"]["activeTab"], json!(0));
    assert_eq!(
        step["view"]["tabs"],
        json!([
            { "label": "Database", "kind": "question", "answered": false, "hasNotes": false, "active": true },
            { "label": "Features", "kind": "question", "answered": false, "hasNotes": false, "active": false },
            { "label": "Submit", "kind": "review", "answered": false, "hasNotes": false, "active": false }
        ])
    );
    assert_eq!(step["view"]["review"], Value::Null);
    assert_eq!(step["view"]["editor"], Value::Null);
    assert_eq!(s.ok("getResult", json!({ "session": "a" })), Value::Null);
    let step = s.ok("keys", json!({ "session": "a", "keys": "1<Tab>" }));
    assert_eq!(s.view("a"), step["view"]);
    assert_eq!(step["view"]["focus"], json!("review"));
    assert_eq!(step["view"]["question"], Value::Null);
    assert_eq!(step["view"]["review"]["activeAction"], json!(0));
    assert_eq!(s.ok("getResult", json!({ "session": "a" })), Value::Null);
    let done = s.ok("key", json!({ "session": "a", "key": "1" }));
    assert_eq!(s.view("a"), done["view"]);
    assert_eq!(s.ok("getResult", json!({ "session": "a" })), done["result"]);
    assert_eq!(
        done["result"]["content"],
        json!([{ "type": "text", "text": "Database: Postgres" }])
    );
}

#[test]
fn cancel_by_the_user_and_abort_by_the_asker() {
    let mut s = Server::start(&[]);
    s.open("user", payload());
    s.ok(
        "saveCustom",
        json!({ "session": "user", "questionId": "db", "text": "MariaDB" }),
    );
    let done = s.ok("cancel", json!({ "session": "user", "reason": "user" }));
    assert_eq!(done["status"], json!("done"));
    assert_eq!(done["view"]["status"], json!("done"));
    let mut expected = cancelled_result("user");
    expected["details"]["answers"] = json!({
        "db": { "values": ["MariaDB"], "labels": ["MariaDB"], "indices": [], "customText": "MariaDB" }
    });
    assert_eq!(done["result"], expected);
    assert_eq!(
        done["transcript"],
        json!({ "call": CALL_LINE, "result": "Cancelled" })
    );

    s.open("asker", payload());
    let aborted = s.ok("cancel", json!({ "session": "asker", "reason": "abort" }));
    assert_eq!(aborted["status"], json!("done"));
    assert_eq!(aborted["result"], cancelled_result("aborted"));
    assert_eq!(
        aborted["transcript"]["result"],
        json!("Cancelled (withdrawn by the asker)")
    );

    s.open("window", payload());
    let closed = s.ok("cancel", json!({ "session": "window", "reason": "closed" }));
    assert_eq!(closed["result"], cancelled_result("closed"));
    assert_eq!(closed["view"]["cancelReason"], json!("closed"));
    assert_eq!(closed["transcript"]["result"], json!("Cancelled (closed)"));

    s.open("plain", payload());
    let cancelled = s.ok("cancel", json!({ "session": "plain" }));
    assert_eq!(cancelled["result"], cancelled_result("user"));
    assert_eq!(cancelled["view"]["cancelReason"], json!("user"));
    assert_eq!(cancelled["view"]["outcome"], json!("cancelled"));

    assert_eq!(
        s.err("cancel", json!({ "session": "plain" })),
        error(-32002, "the flow has already completed")
    );
    assert_eq!(
        s.err("cancel", json!({ "session": "plain", "reason": "bogus" })),
        error(
            -32602,
            "invalid params: reason: expected one of \"user\", \"abort\", \"closed\", \"decline\", got the string \"bogus\""
        )
    );
}

#[test]
fn close_forgets_a_session_once() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    s.open("a", payload());
    assert_eq!(
        s.ok("close", json!({ "session": "a" })),
        json!({ "closed": true })
    );
    assert_eq!(
        s.ok("close", json!({ "session": "a" })),
        json!({ "closed": false })
    );
    assert_eq!(
        s.err("getView", json!({ "session": "a" })),
        error(-32001, "unknown session \"a\"")
    );
    assert_eq!(
        s.ok("close", json!({ "session": "never" })),
        json!({ "closed": false })
    );
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([{ "session": "by", "title": "Setup", "status": "open" }])
    );
    by.check(&mut s, "close");
}

// ---------------------------------------------------------------------------------------------
// snapshot, restore, sessions
// ---------------------------------------------------------------------------------------------

#[test]
fn snapshot_and_restore_round_trip_into_a_new_session() {
    let mut s = Server::start(&[]);
    s.open("orig", payload());
    s.ok(
        "setNote",
        json!({ "session": "orig", "questionId": "db", "text": "prod only" }),
    );
    s.ok(
        "keys",
        json!({ "session": "orig", "keys": "2<Space><Down><Down>" }),
    );
    let step = s.ok("insert", json!({ "session": "orig", "text": "Bill" }));
    assert_eq!(step["view"]["focus"], json!("input"));
    assert_eq!(step["view"]["editor"]["text"], json!("Bill"));

    let snapshot = s.ok("snapshot", json!({ "session": "orig" }));
    let state = snapshot["state"].clone();
    assert!(state.is_object(), "the state is a JSON object: {state}");
    let copy = s.ok("restore", json!({ "state": state, "session": "copy" }));
    assert_eq!(copy["session"], json!("copy"));
    assert_eq!(copy["status"], json!("open"));
    assert_eq!(view_as(&copy, "orig"), s.view("orig"));

    // A generated id when none is given.
    let other = s.ok("restore", json!({ "state": state }));
    let other_id = other["session"].as_str().expect("an id").to_owned();
    assert!(!["orig", "copy", ""].contains(&other_id.as_str()));
    assert_eq!(view_as(&other, "orig"), s.view("orig"));

    // The copies go on exactly like the original.
    let keys = json!("ing<CR>1");
    let a = s.ok("keys", json!({ "session": "orig", "keys": keys }));
    let b = s.ok("keys", json!({ "session": "copy", "keys": keys }));
    assert_eq!(a["status"], json!("done"));
    assert_eq!(a["result"], b["result"]);
    assert_eq!(a["transcript"], b["transcript"]);
    assert_eq!(
        a["result"]["details"]["answers"]["feat"],
        json!({
            "values": ["auth", "Billing"],
            "labels": ["Auth", "Billing"],
            "indices": [1],
            "customText": "Billing"
        })
    );
    // The third copy did not move.
    assert_eq!(view_as(&s.view(&other_id), "orig"), view_as(&other, "orig"));

    // A done session round-trips with its result.
    let snapshot = s.ok("snapshot", json!({ "session": "orig" }));
    let done = s.ok(
        "restore",
        json!({ "state": snapshot["state"], "session": "done-copy" }),
    );
    assert_eq!(done["status"], json!("done"));
    assert_eq!(done["result"], a["result"]);
    assert_eq!(done["transcript"], a["transcript"]);

    // Restoring into a live id is refused, and changes nothing.
    let before = s.view("copy");
    assert_eq!(
        s.err(
            "restore",
            json!({ "state": snapshot["state"], "session": "copy" })
        ),
        error(
            -32602,
            "invalid params: session: \"copy\" is already in use"
        )
    );
    assert_eq!(s.view("copy"), before);
}

#[test]
fn restore_counts_against_the_session_limit() {
    let mut s = Server::start(&["--max-sessions", "1"]);
    s.open("a", payload());
    let state = s.ok("snapshot", json!({ "session": "a" }))["state"].clone();
    assert_eq!(
        s.err("restore", json!({ "state": state, "session": "b" })),
        error(
            -32004,
            "too many open sessions: the limit is 1; close one first"
        )
    );
    s.ok("cancel", json!({ "session": "a" }));
    let step = s.ok("restore", json!({ "state": state, "session": "b" }));
    assert_eq!(step["status"], json!("open"));
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([{ "session": "b", "title": "Setup", "status": "open" }])
    );
}

#[test]
fn restore_refuses_bad_states() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    assert_eq!(
        s.err("restore", json!({ "state": { "format": "nope" } })),
        error(
            -32602,
            "invalid params: state: unknown format \"nope\"; expected \"askd.session\""
        )
    );
    assert_eq!(
        s.err("restore", json!({ "state": 5 })),
        error(
            -32602,
            "invalid params: state: expected a snapshot (an object)"
        )
    );
    assert_eq!(
        s.err("snapshot", json!({ "session": "ghost" })),
        error(-32001, "unknown session \"ghost\"")
    );
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([{ "session": "by", "title": "Setup", "status": "open" }])
    );
    by.check(&mut s, "refused restores");
}

#[test]
fn sessions_lists_every_session_oldest_first() {
    let mut s = Server::start(&[]);
    assert_eq!(untimed(s.ok("sessions", json!({}))), json!([]));
    s.open("b", payload());
    s.open("a", tiny_payload());
    s.open("c", invalid_payload());
    s.ok("cancel", json!({ "session": "b" }));
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([
            { "session": "b", "title": "Setup", "status": "done" },
            { "session": "a", "status": "open" },
            { "session": "c", "title": "Broken", "status": "done" }
        ])
    );
    s.send_line(r#"{"jsonrpc":"2.0","id":1,"method":"sessions"}"#);
    assert_eq!(s.recv()["result"].as_array().map(Vec::len), Some(3));
}

// ---------------------------------------------------------------------------------------------
// shutdown, exit, EOF
// ---------------------------------------------------------------------------------------------

#[test]
fn shutdown_answers_null_and_exit_ends_the_process_with_status_0() {
    let mut s = Server::start(&[]);
    s.open("a", payload());
    s.send_line(r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#);
    assert_eq!(
        s.recv_raw_line().as_deref(),
        Some(r#"{"jsonrpc":"2.0","id":1,"result":null}"#)
    );
    s.send_line(r#"{"jsonrpc":"2.0","method":"exit"}"#);
    // The process ends on its own, stdin still open; nothing is written for `exit`.
    assert_eq!(s.wait().code(), Some(0));
    assert_eq!(s.drain(), Vec::<Value>::new());
}

#[test]
fn exit_ends_the_process_even_with_a_pending_ask() {
    let mut s = Server::start(&[]);
    s.send(&request(
        json!(1),
        "ask",
        json!({ "session": "q", "payload": payload() }),
    ));
    assert_eq!(s.ok("getResult", json!({ "session": "q" })), Value::Null);
    s.send_line(r#"{"jsonrpc":"2.0","method":"exit"}"#);
    assert_eq!(s.wait().code(), Some(0));
    assert!(s.drain().iter().all(|m| m["id"] == json!(1)));
}

#[test]
fn end_of_input_ends_the_process_with_status_0() {
    let mut s = Server::start(&[]);
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());

    let mut s = Server::start(&[]);
    s.send(&request(
        json!(1),
        "ask",
        json!({ "session": "q", "payload": payload() }),
    ));
    assert_eq!(s.ok("getResult", json!({ "session": "q" })), Value::Null);
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert!(rest.iter().all(|m| m["id"] == json!(1)), "{rest:?}");

    // Content-Length framing, and input that ends in the middle of a frame.
    let mut s = Server::start(&[]);
    s.use_content_length();
    assert_eq!(untimed(s.ok("sessions", json!({}))), json!([]));
    s.send_raw(b"Content-Length: 100\r\n\r\n{\"jsonrpc\"");
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// Sends raw bytes as one line and returns the one reply.
fn reply_to_raw(s: &mut Server, bytes: &[u8]) -> Value {
    let mut line = bytes.to_vec();
    line.push(b'\n');
    s.send_raw(&line);
    s.recv()
}

#[test]
fn parse_errors_answer_32700_with_a_null_id() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    let cases: [(&[u8], &str); 5] = [
        (
            b"{bad",
            "parse error: key must be a string at line 1 column 2",
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"sessions""#,
            "parse error: EOF while parsing an object at line 1 column 43",
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"sessions"} {}"#,
            "parse error: trailing characters at line 1 column 46",
        ),
        (b"\xff\xfe{}", "parse error: invalid UTF-8 at byte 0"),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\x28\",\"method\":\"sessions\"}",
            "parse error: invalid UTF-8 at byte 23",
        ),
    ];
    for (bytes, message) in cases {
        assert_eq!(
            reply_to_raw(&mut s, bytes),
            error_reply(Value::Null, -32700, message),
            "input {:?}",
            String::from_utf8_lossy(bytes)
        );
        by.check(&mut s, message);
    }
}

#[test]
fn invalid_requests_answer_32600() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    let cases = [
        (
            "42",
            error_reply(
                Value::Null,
                -32600,
                "invalid request: expected a request object",
            ),
        ),
        (
            "\"sessions\"",
            error_reply(
                Value::Null,
                -32600,
                "invalid request: expected a request object",
            ),
        ),
        (
            "null",
            error_reply(
                Value::Null,
                -32600,
                "invalid request: expected a request object",
            ),
        ),
        (
            r#"{"id":1,"method":"sessions"}"#,
            error_reply(
                json!(1),
                -32600,
                "invalid request: \"jsonrpc\" must be \"2.0\"",
            ),
        ),
        (
            r#"{"jsonrpc":"1.0","id":2,"method":"sessions"}"#,
            error_reply(
                json!(2),
                -32600,
                "invalid request: \"jsonrpc\" must be \"2.0\"",
            ),
        ),
        (
            r#"{"jsonrpc":2.0,"id":3,"method":"sessions"}"#,
            error_reply(
                json!(3),
                -32600,
                "invalid request: \"jsonrpc\" must be \"2.0\"",
            ),
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":5}"#,
            error_reply(
                json!(4),
                -32600,
                "invalid request: \"method\" must be a string",
            ),
        ),
        (
            r#"{"jsonrpc":"2.0","id":5}"#,
            error_reply(
                json!(5),
                -32600,
                "invalid request: \"method\" must be a string",
            ),
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"x":1},"method":"sessions"}"#,
            error_reply(
                Value::Null,
                -32600,
                "invalid request: \"id\" must be a string, an integer or null",
            ),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"sessions"}"#,
            error_reply(
                Value::Null,
                -32600,
                "invalid request: \"id\" must be a string, an integer or null",
            ),
        ),
        (
            "[]",
            error_reply(Value::Null, -32600, "invalid request: empty batch"),
        ),
    ];
    for (line, expected) in cases {
        assert_eq!(
            reply_to_raw(&mut s, line.as_bytes()),
            expected,
            "input {line}"
        );
        by.check(&mut s, line);
    }
    // `ask` inside a batch is refused; the rest of the batch runs.
    let batch = json!([
        request(
            json!("in-batch"),
            "ask",
            json!({ "session": "q", "payload": payload() })
        ),
        request(json!(6), "close", json!({ "session": "nothing" })),
    ]);
    s.send(&batch);
    let reply = s.recv();
    let items = reply.as_array().expect("one array reply");
    assert_eq!(items.len(), 2, "{reply}");
    assert_eq!(
        items[0],
        error_reply(
            json!("in-batch"),
            -32600,
            "invalid request: \"ask\" cannot be part of a batch; it stays pending until its flow completes"
        )
    );
    assert_eq!(items[1]["result"], json!({ "closed": false }));
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([{ "session": "by", "title": "Setup", "status": "open" }])
    );
    by.check(&mut s, "ask in a batch");
}

#[test]
fn unknown_methods_answer_32601_naming_the_method() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    assert_eq!(
        s.err("nope", json!({})),
        error(-32601, "method not found: \"nope\"")
    );
    assert_eq!(
        s.err("getview", json!({ "session": "by" })),
        error(-32601, "method not found: \"getview\"")
    );
    // An unknown notification gets no reply at all.
    s.notify("nope", json!({}));
    s.send_line(r#"{"jsonrpc":"2.0","id":1,"method":"sessions"}"#);
    assert_eq!(s.recv()["id"], json!(1));
    by.check(&mut s, "unknown methods");
}

#[test]
fn invalid_params_answer_32602_naming_the_problem() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    let cases = [
        (
            "open",
            json!({}),
            "invalid params: payload: missing; expected the tool call's arguments (any JSON value)",
        ),
        (
            "key",
            json!({ "session": "by" }),
            "invalid params: key: missing; expected a string",
        ),
        (
            "key",
            json!({ "session": 5, "key": "up" }),
            "invalid params: session: expected a string, got the number 5",
        ),
        (
            "key",
            json!({ "session": "by", "key": "foo" }),
            "invalid params: key: unknown key \"foo\"",
        ),
        (
            "keys",
            json!({ "session": "by", "keys": ["up", "ctrl+foo"] }),
            "invalid params: keys[1]: unknown key \"ctrl+foo\"",
        ),
        (
            "keys",
            json!({ "session": "by", "keys": "<Nope>" }),
            "invalid params: keys: unknown key \"<Nope>\"",
        ),
        (
            "getView",
            json!({ "session": "by", "width": "wide" }),
            "invalid params: width: expected a non-negative integer, got the string \"wide\"",
        ),
        (
            "insert",
            json!({ "session": "by", "text": 5 }),
            "invalid params: text: expected a string, got the number 5",
        ),
        (
            "open",
            json!({ "payload": payload(), "keymap": { "main.foo": ["x"] } }),
            "invalid params: keymap: unknown keymap action \"main.foo\"",
        ),
        (
            "open",
            json!({ "payload": payload(), "keymap": { "main.toggle": ["nosuchkey"] } }),
            "invalid params: keymap: keymap action \"main.toggle\": unknown key \"nosuchkey\"",
        ),
        (
            "initialize",
            json!({ "capabilities": { "keymap": { "main.foo": ["x"] } } }),
            "invalid params: keymap: unknown keymap action \"main.foo\"",
        ),
        (
            "open",
            json!({ "payload": payload(), "session": "" }),
            "invalid params: session: expected a non-empty string, got the string \"\"",
        ),
    ];
    for (method, params, message) in cases {
        assert_eq!(
            s.err(method, params.clone()),
            error(-32602, message),
            "{method} {params}"
        );
        by.check(&mut s, method);
    }
    s.send_line(r#"{"jsonrpc":"2.0","id":1,"method":"open","params":"str"}"#);
    assert_eq!(
        s.recv(),
        error_reply(
            json!(1),
            -32602,
            "invalid params: \"params\" must be an object"
        )
    );
    // A failed `initialize` leaves the connection keymap as it was.
    let step = s.open("after", payload());
    assert_eq!(view_as(&step, "by")["hints"], by.view["hints"]);
    by.check(&mut s, "params of the wrong type");
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([
            { "session": "by", "title": "Setup", "status": "open" },
            { "session": "after", "title": "Setup", "status": "open" }
        ])
    );
}

#[test]
fn unknown_sessions_answer_32001_for_every_session_method() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    let ghost = "ghost";
    let cases = [
        ("key", json!({ "session": ghost, "key": "down" })),
        ("keys", json!({ "session": ghost, "keys": "1" })),
        ("insert", json!({ "session": ghost, "text": "x" })),
        (
            "saveCustom",
            json!({ "session": ghost, "questionId": "db", "text": "x" }),
        ),
        (
            "setNote",
            json!({ "session": ghost, "questionId": "db", "text": "x" }),
        ),
        ("submitAnswers", json!({ "session": ghost, "answers": {} })),
        ("getView", json!({ "session": ghost })),
        ("getResult", json!({ "session": ghost })),
        ("cancel", json!({ "session": ghost })),
        ("snapshot", json!({ "session": ghost })),
    ];
    for (method, params) in cases {
        assert_eq!(
            s.err(method, params),
            error(-32001, "unknown session \"ghost\""),
            "{method}"
        );
        by.check(&mut s, method);
    }
}

#[test]
fn completed_sessions_answer_32002_and_stay_as_they_were() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    s.open("a", payload());
    let done = s.ok("keys", json!({ "session": "a", "keys": "1<Tab>1" }));
    let cases = [
        ("key", json!({ "session": "a", "key": "down" })),
        ("keys", json!({ "session": "a", "keys": "1" })),
        ("insert", json!({ "session": "a", "text": "x" })),
        (
            "saveCustom",
            json!({ "session": "a", "questionId": "db", "text": "x" }),
        ),
        (
            "setNote",
            json!({ "session": "a", "questionId": "db", "text": "x" }),
        ),
        ("submitAnswers", json!({ "session": "a", "answers": {} })),
        ("cancel", json!({ "session": "a", "reason": "abort" })),
    ];
    for (method, params) in cases {
        assert_eq!(
            s.err(method, params),
            error(-32002, "the flow has already completed"),
            "{method}"
        );
        assert_eq!(s.view("a"), done["view"], "after {method}");
        assert_eq!(s.ok("getResult", json!({ "session": "a" })), done["result"]);
        by.check(&mut s, method);
    }
}

#[test]
fn too_many_sessions_answer_32004_and_the_oldest_completed_one_is_evicted() {
    let mut s = Server::start(&["--max-sessions", "3"]);
    let by = Bystander::open(&mut s);
    s.open("a", payload());
    s.open("b", payload());
    let full = "too many open sessions: the limit is 3; close one first";
    assert_eq!(
        s.err("open", json!({ "session": "c", "payload": payload() })),
        error(-32004, full)
    );
    s.send(&request(
        json!("ask-c"),
        "ask",
        json!({ "session": "c", "payload": payload() }),
    ));
    assert_eq!(s.recv(), error_reply(json!("ask-c"), -32004, full));
    by.check(&mut s, "a refused open");
    // Complete both; the oldest completed one ("a") makes room.
    s.ok("cancel", json!({ "session": "a" }));
    let b_done = s.ok("cancel", json!({ "session": "b" }));
    let step = s.open("c", payload());
    assert_eq!(step["status"], json!("open"));
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([
            { "session": "by", "title": "Setup", "status": "open" },
            { "session": "b", "title": "Setup", "status": "done" },
            { "session": "c", "title": "Setup", "status": "open" }
        ])
    );
    assert_eq!(
        s.err("getView", json!({ "session": "a" })),
        error(-32001, "unknown session \"a\"")
    );
    assert_eq!(s.view("b"), b_done["view"]);
    // Then "b"; then nothing completed is left.
    s.open("d", payload());
    assert_eq!(
        s.err("open", json!({ "session": "e", "payload": payload() })),
        error(-32004, full)
    );
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([
            { "session": "by", "title": "Setup", "status": "open" },
            { "session": "c", "title": "Setup", "status": "open" },
            { "session": "d", "title": "Setup", "status": "open" }
        ])
    );
    by.check(&mut s, "eviction");
}

#[test]
fn payloads_over_the_limits_answer_32004_and_create_nothing() {
    let mut s = Server::start(&[
        "--max-questions",
        "1",
        "--max-options",
        "2",
        "--max-text-bytes",
        "10",
    ]);
    let by = Bystander::open_small(&mut s);
    let two_questions = json!({
        "questions": [
            { "id": "x", "prompt": "p", "options": [{ "value": "a", "label": "A" }] },
            { "id": "y", "prompt": "p", "options": [{ "value": "a", "label": "A" }] }
        ]
    });
    let three_options = json!({
        "questions": [{
            "id": "x",
            "prompt": "p",
            "options": [
                { "value": "a", "label": "A" },
                { "value": "b", "label": "B" },
                { "value": "c", "label": "C" }
            ]
        }]
    });
    let long_text = json!({
        "questions": [{ "id": "x", "prompt": "p", "options": [{ "value": "a", "label": "AAAAAAAAAAA" }] }]
    });
    let cases = [
        (two_questions, "payload has 2 questions; the limit is 1"),
        (
            three_options,
            "payload.questions[0] has 3 options; the limit is 2",
        ),
        (
            long_text,
            "payload.questions[0].options[0].label is 11 bytes; the limit is 10",
        ),
    ];
    for (payload, message) in cases {
        assert_eq!(
            s.err("open", json!({ "session": "big", "payload": payload })),
            error(-32004, message)
        );
        s.send(&request(
            json!("ask"),
            "ask",
            json!({ "session": "big", "payload": payload }),
        ));
        assert_eq!(s.recv(), error_reply(json!("ask"), -32004, message));
        by.check(&mut s, message);
    }
    assert_eq!(untimed(s.ok("sessions", json!({}))), by.sessions());
    // Texts given later are bounded too.
    assert_eq!(
        s.err(
            "saveCustom",
            json!({ "session": "by", "questionId": "q", "text": "12345678901" })
        ),
        error(-32004, "text is 11 bytes; the limit is 10")
    );
    assert_eq!(
        s.err(
            "setNote",
            json!({ "session": "by", "questionId": "q", "text": "12345678901" })
        ),
        error(-32004, "text is 11 bytes; the limit is 10")
    );
    by.check(&mut s, "oversized texts");
    s.ok("key", json!({ "session": "by", "key": "3" }));
    s.ok("insert", json!({ "session": "by", "text": "12345" }));
    assert_eq!(
        s.err("insert", json!({ "session": "by", "text": "678901" })),
        error(-32004, "the editor would hold 11 bytes; the limit is 10")
    );
    assert_eq!(s.view("by")["editor"]["text"], json!("12345"));
}

// ---------------------------------------------------------------------------------------------
// Batches
// ---------------------------------------------------------------------------------------------

/// A batch mixing requests, notifications and failing requests on session "a".
fn mixed_batch() -> Value {
    json!([
        request(json!(1), "getView", json!({ "session": "a" })),
        notification("key", json!({ "session": "a", "key": "down" })),
        request(json!(2), "getView", json!({ "session": "a" })),
        notification(
            "setNote",
            json!({ "session": "a", "questionId": "db", "text": "n" })
        ),
        request(
            json!("three"),
            "key",
            json!({ "session": "a", "key": "up" })
        ),
        request(json!(4), "nope", json!({})),
        notification("nope", json!({})),
        request(json!(5), "getView", json!({ "session": "ghost" })),
    ])
}

#[test]
fn a_batch_applies_its_items_in_order_and_answers_only_its_requests() {
    let mut s = Server::start(&[]);
    s.open("a", payload());
    s.send(&mixed_batch());
    let reply = s.recv();
    let items = reply.as_array().expect("one array reply");
    assert_eq!(items.len(), 5, "{reply}");
    assert_eq!(items[0]["result"]["question"]["activeOption"], json!(0));
    assert_eq!(items[0]["result"]["question"]["note"], Value::Null);
    assert_eq!(items[1]["result"]["question"]["activeOption"], json!(1));
    assert_eq!(items[1]["result"]["question"]["note"], Value::Null);
    assert_eq!(items[2]["result"]["session"], json!("a"));
    assert_eq!(
        items[2]["result"]["view"]["question"]["activeOption"],
        json!(0)
    );
    assert_eq!(items[2]["result"]["view"]["question"]["note"], json!("n"));
    assert_eq!(
        items[3],
        error_reply(json!(4), -32601, "method not found: \"nope\"")
    );
    assert_eq!(
        items[4]["error"],
        error(-32001, "unknown session \"ghost\"")
    );
    assert_eq!(s.view("a"), items[2]["result"]["view"]);
    // Nothing else was written.
    s.send_line(r#"{"jsonrpc":"2.0","id":6,"method":"sessions"}"#);
    assert_eq!(s.recv()["id"], json!(6));
}

#[test]
fn a_batch_reply_carries_each_request_id() {
    let mut s = Server::start(&[]);
    s.open("a", payload());
    s.send(&mixed_batch());
    let reply = s.recv();
    let ids: Vec<&Value> = reply
        .as_array()
        .expect("one array reply")
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(
        ids,
        [&json!(1), &json!(2), &json!("three"), &json!(4), &json!(5)]
    );
    s.send_line(r#"[1,{"jsonrpc":"2.0","id":2,"method":"sessions"},{"id":3,"method":"sessions"}]"#);
    assert_eq!(
        untimed(s.recv()),
        json!([
            error_reply(
                Value::Null,
                -32600,
                "invalid request: expected a request object"
            ),
            ok_reply(
                json!(2),
                json!([{ "session": "a", "title": "Setup", "status": "open" }])
            ),
            error_reply(
                json!(3),
                -32600,
                "invalid request: \"jsonrpc\" must be \"2.0\""
            )
        ])
    );
    s.send(&json!([
        request(
            json!("in-batch"),
            "ask",
            json!({ "session": "q", "payload": payload() })
        ),
        request(json!(6), "close", json!({ "session": "nothing" })),
    ]));
    assert_eq!(
        s.recv(),
        json!([
            error_reply(
                json!("in-batch"),
                -32600,
                "invalid request: \"ask\" cannot be part of a batch; it stays pending until its flow completes"
            ),
            ok_reply(json!(6), json!({ "closed": false }))
        ])
    );
}

#[test]
fn a_batch_of_notifications_writes_nothing() {
    let mut s = Server::start(&[]);
    s.open("a", payload());
    s.send(&json!([
        notification("key", json!({ "session": "a", "key": "down" })),
        notification("key", json!({ "session": "ghost", "key": "down" })),
        notification(
            "saveCustom",
            json!({ "session": "a", "questionId": "db", "text": "x" })
        ),
    ]));
    s.send_line(r#"{"jsonrpc":"2.0","id":1,"method":"getView","params":{"session":"a"}}"#);
    let reply = s.recv();
    assert_eq!(reply["id"], json!(1));
    assert_eq!(reply["result"]["question"]["activeOption"], json!(1));
    assert_eq!(reply["result"]["question"]["customText"], json!("x"));
}

#[test]
fn a_batch_of_invalid_items_answers_each() {
    let mut s = Server::start(&[]);
    s.send_line(r#"[1,{"jsonrpc":"2.0","id":2,"method":"sessions"},{"id":3,"method":"sessions"}]"#);
    let reply = s.recv();
    let items = reply.as_array().expect("one array reply");
    assert_eq!(items.len(), 3, "{reply}");
    assert_eq!(
        items[0],
        error_reply(
            Value::Null,
            -32600,
            "invalid request: expected a request object"
        )
    );
    assert_eq!(items[1]["result"], json!([]));
    assert_eq!(
        items[2],
        error_reply(
            json!(3),
            -32600,
            "invalid request: \"jsonrpc\" must be \"2.0\""
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Robustness
// ---------------------------------------------------------------------------------------------

/// A small deterministic generator (xorshift64*), so runs are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Random bytes without a newline.
    fn line(&mut self, len: usize) -> Vec<u8> {
        (0..len)
            .map(|_| match self.below(256) as u8 {
                b'\n' => b' ',
                b => b,
            })
            .collect()
    }
}

/// Hostile inputs, each one line; `true` when the line gets an error reply.
fn hostile_lines(rng: &mut Rng) -> Vec<(Vec<u8>, bool)> {
    let mut lines = vec![
        ("[".repeat(100_000).into_bytes(), true),
        ("{\"a\":".repeat(100_000).into_bytes(), true),
        ("]".repeat(10_000).into_bytes(), true),
        (br#"{"jsonrpc":"2.0","id":1e400,"method":"sessions"}"#.to_vec(), true),
        (
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"sessions","params":{{"n":{}}}}}"#, "9".repeat(5000))
                .into_bytes(),
            true,
        ),
        // Large but representable numbers in a notification: valid, and silent.
        (
            br#"{"jsonrpc":"2.0","method":"x/unknown","params":{"n":1e308,"m":-123456789012345678901234567890}}"#
                .to_vec(),
            false,
        ),
        (br#"{"jsonrpc":"2.0","id":"\ud800","method":"sessions"}"#.to_vec(), true),
        (br#"{"jsonrpc":"2.0","id":"\udc00\ud800x","method":"sessions"}"#.to_vec(), true),
        (
            br#"{"jsonrpc":"2.0","id":8,"method":"insert","params":{"session":"a","text":"\ud83d"}}"#
                .to_vec(),
            true,
        ),
        (b"\xed\xa0\x80".to_vec(), true),
        (b"\xc0\xaf".to_vec(), true),
        (b"\0\0\0".to_vec(), true),
        (b"Content-Length: 10".to_vec(), true),
        (b"   \t  ".to_vec(), false),
        (b"\"\\".to_vec(), true),
        (b"nul".to_vec(), true),
        (b"true".to_vec(), true),
        (b"-".to_vec(), true),
        // A long notification of an unknown method: valid, and silent.
        (
            format!(r#"{{"jsonrpc":"2.0","method":"x/unknown","params":{{"s":"{}"}}}}"#, "z".repeat(600_000))
                .into_bytes(),
            false,
        ),
        // Longer than the default message limit.
        (vec![b'x'; 2 * 1024 * 1024], true),
    ];
    for _ in 0..150 {
        let len = rng.below(300) as usize;
        let line = rng.line(len);
        let blank = line.iter().all(u8::is_ascii_whitespace);
        lines.push((line, !blank));
    }
    lines
}

#[test]
fn garbage_interleaved_with_requests_never_disturbs_the_server() {
    let mut s = Server::start(&[]);
    let by = Bystander::open(&mut s);
    s.open("a", payload());
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let lines = hostile_lines(&mut rng);
    let count = lines.len();
    for (i, (line, answered)) in lines.into_iter().enumerate() {
        let mut bytes = line;
        bytes.push(b'\n');
        s.send_raw(&bytes);
        // A valid request right behind it: a key on "a" for some, a read for others.
        let id = json!(format!("valid-{i}"));
        if i % 10 == 0 {
            s.send(&request(
                id.clone(),
                "key",
                json!({ "session": "a", "key": if i % 20 == 0 { "down" } else { "up" } }),
            ));
        } else {
            s.send(&request(id.clone(), "getView", json!({ "session": "by" })));
        }
        let mut before = Vec::new();
        let reply = loop {
            let message = s.recv();
            if message.get("id") == Some(&id) {
                break message;
            }
            before.push(message);
        };
        let expected_before = usize::from(answered);
        assert_eq!(
            before.len(),
            expected_before,
            "replies to hostile line {i}: {before:?}"
        );
        for message in &before {
            let code = &message["error"]["code"];
            assert!(
                [json!(-32700), json!(-32600), json!(-32004)].contains(code),
                "hostile line {i} answered {message}"
            );
            if code != &json!(-32600) {
                assert_eq!(message["id"], Value::Null, "hostile line {i}");
            }
        }
        assert_eq!(reply.get("error"), None, "valid request {i}: {reply}");
        if i % 10 != 0 {
            assert_eq!(reply["result"], by.view, "valid request {i}");
        }
    }
    assert!(count > 150);
    // Still fully working: finish the flow on "a".
    s.ok("keys", json!({ "session": "a", "keys": "<Up><Up><Up>" }));
    let done = s.ok(
        "keys",
        json!({ "session": "a", "keys": "1<Space><Down><Space><Tab>1" }),
    );
    assert_eq!(done["result"], submitted_result());
    by.check(&mut s, "the garbage stream");
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

#[test]
fn notifications_write_nothing_on_stdout() {
    let mut s = Server::start(&[]);
    s.notify("open", json!({ "session": "n", "payload": payload() }));
    s.notify("key", json!({ "session": "n", "key": "down" }));
    s.notify("key", json!({ "session": "ghost", "key": "down" }));
    s.notify("key", json!({ "session": "n", "key": "nosuchkey" }));
    s.notify("sessions", json!({}));
    s.notify("nope", json!({}));
    s.notify("$/cancelRequest", json!({ "id": 1 }));
    s.notify("shutdown", Value::Null);
    s.notify("open", json!({}));
    s.send_line(r#"{"jsonrpc":"2.0","id":1,"method":"getView","params":{"session":"n"}}"#);
    let reply = s.recv();
    assert_eq!(reply["id"], json!(1));
    assert_eq!(reply["result"]["question"]["activeOption"], json!(1));
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

// ---------------------------------------------------------------------------------------------
// stderr, --help, --version
// ---------------------------------------------------------------------------------------------

#[test]
fn logs_go_to_stderr_and_stdout_carries_only_protocol_messages() {
    let mut s = Server::start_with_env(&[], &[("ASKD_LOG", "debug")]);
    s.open("a", payload());
    s.notify("x/unknown", json!({}));
    assert_eq!(
        s.err("nope", json!({})),
        error(-32601, "method not found: \"nope\"")
    );
    s.send_line("{bad");
    assert_eq!(s.recv()["error"]["code"], json!(-32700));
    s.ok("keys", json!({ "session": "a", "keys": "<Esc>" }));
    // Every message read so far, and everything left, parsed as a JSON-RPC 2.0 response.
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
    let stderr = s.stderr_text();
    assert!(stderr.contains("DEBUG"), "debug logs on stderr: {stderr:?}");
}

#[test]
fn default_logging_is_quiet_for_a_clean_session() {
    let mut s = Server::start(&[]);
    s.open("a", payload());
    s.ok("cancel", json!({ "session": "a" }));
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
    assert_eq!(s.stderr_text(), "");
}

#[test]
fn help_and_version_exit_0() {
    let (status, stdout, _) = run_to_end(&["--help"]);
    assert_eq!(status.code(), Some(0));
    assert!(stdout.contains("Usage: askd"), "{stdout}");
    assert!(stdout.contains("--max-message-bytes"), "{stdout}");
    assert!(stdout.contains("serve"), "{stdout}");

    let (status, stdout, _) = run_to_end(&["--version"]);
    assert_eq!(status.code(), Some(0));
    assert_eq!(stdout, format!("askd {}\n", env!("CARGO_PKG_VERSION")));

    let (status, stdout, _) = run_to_end(&["serve", "--help"]);
    assert_eq!(status.code(), Some(0));
    assert!(stdout.contains("--max-sessions"), "{stdout}");
}

#[test]
fn serve_subcommand_speaks_the_protocol_too() {
    let mut s = Server::start(&["serve", "--max-sessions", "1"]);
    s.open("a", payload());
    assert_eq!(
        s.err("open", json!({ "payload": payload() })),
        error(
            -32004,
            "too many open sessions: the limit is 1; close one first"
        )
    );
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

/// A dsh batch: a plan review, then single, multi, free-text and skipped questions, in
/// Korean and Chinese.
fn dsh_batch() -> Value {
    json!({
        "questions": [
            {
                "id": "plan", "header": "계획", "question": "이 계획으로 진행할까요?",
                "detail": "1. 스키마 추가\n2. 테스트 작성",
                "options": [{ "label": "수정 요청" }, { "label": "승인 (Recommended)" }],
                "intent": { "kind": "plan-review", "approve": "승인 (Recommended)" }
            },
            { "id": "lang", "header": "语言", "question": "用哪种语言？", "options": [{ "label": "Rust" }, { "label": "Go" }] },
            {
                "id": "tools", "header": "도구", "question": "어떤 도구를 쓸까요?", "multiSelect": true,
                "options": [{ "label": "clippy" }, { "label": "rustfmt" }, { "label": "miri" }]
            },
            { "id": "why", "header": "理由", "question": "为什么？" },
            { "id": "skip", "header": "건너뛰기", "question": "건너뛸 질문", "options": [{ "label": "A" }, { "label": "B" }] }
        ]
    })
}

#[test]
fn a_dsh_batch_with_a_plan_review_resolves_its_ask_with_every_answer() {
    let mut s = Server::start(&[]);
    s.send(&request(
        json!("batch"),
        "ask",
        json!({ "session": "b", "payload": dsh_batch() }),
    ));
    let view = s.view("b");
    assert_eq!(view["dialect"], json!("dsh"));
    assert_eq!(
        view["question"]["planReview"],
        json!({ "plan": "1. 스키마 추가\n2. 테스트 작성", "approveLabel": "승인 (Recommended)" })
    );
    let first = &view["question"]["rows"][0];
    assert_eq!(
        (&first["label"], &first["value"], &first["recommended"]),
        (&json!("승인"), &json!("승인 (Recommended)"), &json!(true))
    );
    let review = &view["tabs"];
    assert_eq!(
        review
            .as_array()
            .map(|tabs| tabs.iter().map(|t| t["label"].clone()).collect::<Vec<_>>()),
        Some(vec![
            json!("계획"),
            json!("语言"),
            json!("도구"),
            json!("理由"),
            json!("건너뛰기"),
            json!("Submit")
        ])
    );
    // Enter approves the plan; 2 picks Go; 3 and 1 toggle miri then clippy; Tab moves on to
    // the free-text question, whose editor opens by itself.
    let step = s.ok("keys", json!({ "session": "b", "keys": "<CR>231<Tab>" }));
    assert_eq!(step["view"]["focus"], json!("input"));
    s.ok("insert", json!({ "session": "b", "text": "因为快" }));
    // Enter saves and advances to the skipped question; Tab reaches review; Enter submits.
    let done = s.ok("keys", json!({ "session": "b", "keys": "<CR><Tab><CR>" }));
    assert_eq!(done["status"], json!("done"));
    let answers = json!({ "answers": [
        { "id": "plan", "selected": ["승인 (Recommended)"] },
        { "id": "lang", "selected": ["Go"] },
        { "id": "tools", "selected": ["miri", "clippy"] },
        { "id": "why", "selected": [], "custom": "因为快" },
        { "id": "skip", "selected": [] }
    ] });
    assert_eq!(done["result"], json!({ "answer": answers }));
    assert_eq!(
        s.reply_to(&json!("batch")),
        ok_reply(json!("batch"), answers)
    );
}

#[test]
fn dsh_submit_answers_takes_the_dsh_shape_and_refuses_what_hosts_refuse() {
    let mut s = Server::start(&[]);
    s.open("b", dsh_batch());
    let before = s.view("b");
    let refused = s.err(
        "submitAnswers",
        json!({ "session": "b", "answers": { "answers": [
            { "id": "plan", "selected": ["승인 (Recommended)"] },
            { "id": "lang", "selected": ["Go"], "custom": "Zig" },
            { "id": "tools", "selected": [] },
            { "id": "why", "selected": [] },
            { "id": "skip", "selected": [] }
        ] } }),
    );
    assert_eq!(
        refused,
        json!({ "code": -32602, "message": "invalid params: answers[1]: question \"lang\" is single-select; send selected or custom, not both" })
    );
    assert_eq!(s.view("b"), before, "a refused answer set changes nothing");
    let answers = json!({ "answers": [
        { "id": "plan", "selected": ["수정 요청"] },
        { "id": "lang", "selected": [], "custom": "Zig" },
        { "id": "tools", "selected": ["rustfmt", "clippy"], "custom": "cargo-deny" },
        { "id": "why", "selected": [], "custom": "为了速度" },
        { "id": "skip", "selected": [] }
    ] });
    let done = s.ok(
        "submitAnswers",
        json!({ "session": "b", "answers": answers }),
    );
    assert_eq!(done["status"], json!("done"));
    assert_eq!(done["result"], json!({ "answer": answers }));
}

#[test]
fn the_text_limit_holds_for_every_edit_and_a_refused_script_changes_nothing() {
    let mut s = Server::start(&["--max-text-bytes", "50"]);
    s.open("t", payload());
    // Down twice lands on the custom row: its editor opens by itself.
    let step = s.ok("keys", json!({ "session": "t", "keys": "<Down><Down>" }));
    assert_eq!(step["view"]["focus"], json!("input"));
    let before = s.view("t");
    assert_eq!(
        s.err("keys", json!({ "session": "t", "keys": "a".repeat(60) })),
        error(-32004, "the editor would hold 51 bytes; the limit is 50")
    );
    assert_eq!(s.view("t"), before, "the refused script is undone whole");
    let full = s.ok("keys", json!({ "session": "t", "keys": "a".repeat(50) }));
    assert_eq!(full["view"]["editor"]["text"], json!("a".repeat(50)));
    let at_limit = s.view("t");
    for (method, params) in [
        ("key", json!({ "session": "t", "key": "shift+enter" })),
        ("key", json!({ "session": "t", "key": "alt+enter" })),
        ("key", json!({ "session": "t", "key": "b" })),
        ("insert", json!({ "session": "t", "text": "b" })),
    ] {
        assert_eq!(
            s.err(method, params.clone()),
            error(-32004, "the editor would hold 51 bytes; the limit is 50"),
            "{method} {params}"
        );
        assert_eq!(s.view("t"), at_limit, "{method} changed nothing");
    }
    // Deleting and moving still work at the limit.
    let step = s.ok("keys", json!({ "session": "t", "keys": "<BS><Home>" }));
    assert_eq!(step["view"]["editor"]["text"], json!("a".repeat(49)));
}

#[test]
fn traced_scripts_and_batches_are_bounded() {
    let mut s = Server::start(&[]);
    s.open("t", payload());
    let before = s.view("t");
    assert_eq!(
        s.err(
            "keys",
            json!({ "session": "t", "keys": "<Down><Up>".repeat(501), "trace": true })
        ),
        error(
            -32004,
            "a traced key script has 1002 keys; the limit is 1000"
        )
    );
    assert_eq!(s.view("t"), before);
    let batch: Vec<Value> = (0..101)
        .map(|i| request(json!(i), "getView", json!({ "session": "t" })))
        .collect();
    s.send(&Value::Array(batch));
    assert_eq!(
        s.recv(),
        error_reply(
            Value::Null,
            -32004,
            "batch too large: 101 messages; the limit is 100"
        )
    );
    let batch: Vec<Value> = (0..100)
        .map(|i| request(json!(i), "sessions", json!({})))
        .collect();
    s.send(&Value::Array(batch));
    assert_eq!(s.recv().as_array().map(Vec::len), Some(100));
}

#[test]
fn params_given_by_position_are_refused() {
    let mut s = Server::start(&[]);
    s.send(&json!({ "jsonrpc": "2.0", "id": 1, "method": "getView", "params": ["t"] }));
    assert_eq!(
        s.recv(),
        error_reply(
            json!(1),
            -32602,
            "invalid params: \"params\" must be an object"
        )
    );
}

#[test]
fn an_ask_completed_just_before_end_of_input_is_still_answered() {
    let mut s = Server::start(&[]);
    s.send(&request(
        json!("x"),
        "ask",
        json!({ "session": "a", "payload": payload() }),
    ));
    s.notify("$/cancelRequest", json!({ "id": "x" }));
    s.send(&request(
        json!("y"),
        "ask",
        json!({ "session": "b", "payload": payload() }),
    ));
    s.close_stdin();
    let reply = s.reply_to(&json!("x"));
    assert_eq!(reply["result"], cancelled_result("aborted"));
    let (status, rest) = s.finish();
    assert!(status.success());
    assert_eq!(
        rest,
        Vec::<Value>::new(),
        "the ask still pending ends unanswered"
    );
}

#[test]
fn a_flow_holds_at_most_its_budget_of_answers_and_notes() {
    let mut s = Server::start(&["--max-flow-text-bytes", "20"]);
    s.open("t", payload());
    s.ok(
        "setNote",
        json!({ "session": "t", "questionId": "db", "text": "fifteen bytes.." }),
    );
    let before = s.view("t");
    let refused = error(
        -32004,
        "the flow would hold 25 bytes of answers and notes; the limit is 20",
    );
    assert_eq!(
        s.err(
            "setNote",
            json!({ "session": "t", "questionId": "db", "optionValue": "pg", "text": "ten bytes." })
        ),
        refused
    );
    assert_eq!(
        s.err(
            "saveCustom",
            json!({ "session": "t", "questionId": "feat", "text": "ten bytes." })
        ),
        refused
    );
    assert_eq!(s.view("t"), before, "refused saves change nothing");
    // Through an editor: Esc cannot save past the budget, and the draft stays open.
    s.ok("keys", json!({ "session": "t", "keys": "nten bytes." }));
    let editing = s.view("t");
    assert_eq!(
        s.err("key", json!({ "session": "t", "key": "escape" })),
        refused
    );
    assert_eq!(s.view("t"), editing);
    // Replacing the note with a shorter one is fine.
    s.ok("keys", json!({ "session": "t", "keys": "<C-u>ok<Esc>" }));
    assert_eq!(
        s.err(
            "submitAnswers",
            json!({ "session": "t", "answers": { "db": { "note": "x".repeat(21) } } })
        ),
        error(
            -32004,
            "the flow would hold 21 bytes of answers and notes; the limit is 20"
        )
    );
}

#[test]
fn restore_holds_snapshots_to_the_limits() {
    let mut s = Server::start(&["--max-options", "2", "--max-text-bytes", "40"]);
    s.open("t", payload());
    let state = s.ok("snapshot", json!({ "session": "t" }))["state"].clone();
    let mut long = state.clone();
    long["request"]["questions"][0]["prompt"] = json!("p".repeat(41));
    assert_eq!(
        s.err("restore", json!({ "state": long })),
        error(
            -32004,
            "state.request.questions[0].prompt is 41 bytes; the limit is 40"
        )
    );
    let mut many = state.clone();
    many["request"]["questions"][0]["options"]
        .as_array_mut()
        .expect("options")
        .push(json!({ "value": "x", "label": "X" }));
    assert_eq!(
        s.err("restore", json!({ "state": many })),
        error(
            -32004,
            "state.request.questions[0] has 3 options; the limit is 2"
        )
    );
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([{ "session": "t", "title": "Setup", "status": "open" }])
    );
    let restored = s.ok("restore", json!({ "state": state, "session": "r" }));
    assert_eq!(restored["status"], json!("open"));
}

/// The error of a message over a limit of 300 bytes.
fn too_large_300() -> String {
    let config = askd::server::state::Config {
        max_message_bytes: 300,
        ..askd::server::state::Config::default()
    };
    format!(
        "message too large: the limit is 300 bytes ({} for a restore)",
        config.max_restore_message_bytes()
    )
}
