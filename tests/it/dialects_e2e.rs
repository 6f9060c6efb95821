//! The claude, codex, opencode and mcp dialects through the real binary: `ask` resolving with
//! each agent's own value, the mcp refusal as a JSON-RPC error, a withdrawn `ask`, the dialect
//! params of `open`, and snapshots of their sessions.

use crate::support::Server;
use serde_json::{Value, json};

fn request(id: Value, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

fn claude_input() -> Value {
    json!({ "questions": [
        { "question": "Which database?", "header": "DB", "multiSelect": false, "options": [
            { "label": "Postgres", "description": "" }, { "label": "SQLite", "description": "" } ] } ] })
}

fn codex_request() -> Value {
    json!({ "threadId": "thr", "turnId": "turn", "itemId": "call", "questions": [
        { "id": "db", "header": "DB", "question": "Which database?", "isOther": true, "options": [
            { "label": "Postgres", "description": "" }, { "label": "SQLite", "description": "" } ] } ] })
}

fn opencode_request() -> Value {
    json!({ "id": "que_1", "sessionID": "ses_1", "questions": [
        { "question": "Which database?", "header": "DB", "options": [
            { "label": "Postgres", "description": "" }, { "label": "SQLite", "description": "" } ] } ] })
}

fn mcp_params() -> Value {
    json!({ "message": "Pick a database", "requestedSchema": { "type": "object", "properties": {
        "db": { "type": "string", "title": "DB", "enum": ["postgres", "sqlite"] } }, "required": ["db"] } })
}

/// `ask` in `dialect` with `params`, answered by the keys `keys` on another request.
fn ask_and_answer(dialect: &str, payload: Value, extra: Value, keys: &str) -> Value {
    let mut s = Server::start(&[]);
    let mut params = json!({ "session": "a", "payload": payload, "dialect": dialect });
    if let Value::Object(extra) = extra {
        params.as_object_mut().unwrap().extend(extra);
    }
    s.send(&request(json!("ask"), "ask", params));
    let step = s.ok("keys", json!({ "session": "a", "keys": keys }));
    assert_eq!(step["status"], json!("done"));
    let reply = s.reply_to(&json!("ask"));
    assert_eq!(reply["result"], step["result"]);
    reply["result"].clone()
}

#[test]
fn ask_resolves_with_each_agents_own_value() {
    assert_eq!(
        ask_and_answer("claude", claude_input(), json!({}), "2<CR>"),
        json!({ "behavior": "allow", "updatedInput": {
            "questions": claude_input()["questions"], "answers": { "Which database?": "SQLite" } } })
    );
    assert_eq!(
        ask_and_answer("codex", codex_request(), json!({}), "3no db<CR><CR>"),
        json!({ "answers": { "db": { "answers": ["None of the above", "user_note: no db"] } } })
    );
    assert_eq!(
        ask_and_answer("opencode", opencode_request(), json!({}), "1<CR>"),
        json!({ "answers": [["Postgres"]] })
    );
    assert_eq!(
        ask_and_answer(
            "mcp",
            mcp_params(),
            json!({ "mcp": { "requester": { "name": "db-server" } } }),
            "2<CR>"
        ),
        json!({ "action": "accept", "content": { "db": "sqlite" } })
    );
    assert_eq!(
        ask_and_answer("mcp", mcp_params(), json!({}), "<S-Tab>2"),
        json!({ "action": "decline" })
    );
}

#[test]
fn an_elicitation_the_engine_cannot_ask_fails_with_invalid_params_and_opens_nothing() {
    let mut s = Server::start(&[]);
    let url = json!({ "mode": "url", "message": "Sign in", "url": "https://x" });
    for method in ["open", "ask"] {
        let error = s.err(
            method,
            json!({ "session": "u", "payload": url, "dialect": "mcp" }),
        );
        assert_eq!(
            error,
            json!({ "code": -32602, "message": "Invalid params: elicitationId: is required",
                    "data": { "issues": [{ "path": "elicitationId", "message": "is required" }] } })
        );
    }
    assert_eq!(s.ok("sessions", json!({})), json!([]));
    // A URL elicitation the SDK takes is asked, and accepting it answers no content.
    let url =
        json!({ "mode": "url", "message": "Sign in", "elicitationId": "e", "url": "https://x" });
    s.send(&request(
        json!("u"),
        "ask",
        json!({ "session": "u", "payload": url, "dialect": "mcp" }),
    ));
    s.ok("keys", json!({ "session": "u", "keys": "1" }));
    assert_eq!(
        s.reply_to(&json!("u"))["result"],
        json!({ "action": "accept" })
    );
}

#[test]
fn a_withdrawn_ask_resolves_with_the_dialects_negative_value() {
    let mut s = Server::start(&[]);
    s.send(&request(
        json!("m"),
        "ask",
        json!({ "session": "m", "payload": mcp_params() }),
    ));
    assert_eq!(
        s.ok("close", json!({ "session": "m" })),
        json!({ "closed": true })
    );
    assert_eq!(
        s.reply_to(&json!("m"))["result"],
        json!({ "action": "cancel" })
    );

    s.send(&request(
        json!("c"),
        "ask",
        json!({ "session": "c", "payload": claude_input(), "dialect": "claude" }),
    ));
    s.notify("$/cancelRequest", json!({ "id": "c" }));
    assert_eq!(
        s.reply_to(&json!("c"))["result"],
        json!({ "behavior": "deny", "message": "The request was withdrawn before the user answered" })
    );
}

#[test]
fn the_dialect_params_of_open_reach_their_dialect() {
    let mut s = Server::start(&[]);
    let step = s.ok(
        "open",
        json!({ "session": "m", "payload": mcp_params(), "width": 50,
                "mcp": { "requester": { "name": "db-server" } }, "claude": { "previewFormat": "html" } }),
    );
    assert_eq!(step["view"]["requester"], json!("db-server"));
    let second_line: String = step["view"]["lines"][2]
        .as_array()
        .unwrap()
        .iter()
        .map(|span| span["text"].as_str().unwrap())
        .collect();
    assert_eq!(second_line, " Requested by db-server");
    let error = s.err(
        "open",
        json!({ "session": "x", "payload": mcp_params(), "mcp": { "requester": "db-server" } }),
    );
    assert_eq!(error["code"], json!(-32602));
    assert_eq!(
        error["message"],
        json!("invalid params: mcp.requester: expected an object, got the string \"db-server\"")
    );
}

#[test]
fn invalid_requests_open_done_with_their_issues_and_survive_a_snapshot() {
    let mut s = Server::start(&[]);
    let step = s.ok(
        "open",
        json!({ "session": "o", "dialect": "opencode", "payload": { "questions": [{ "header": "H", "options": [] }] } }),
    );
    assert_eq!(step["status"], json!("done"));
    assert_eq!(step["result"], json!({ "rejected": true }));
    assert_eq!(
        step["error"],
        json!({ "kind": "invalid_input", "issues": [{ "path": "questions[0].question", "message": "Question 1: question is required" }] })
    );
    let state = s.ok("snapshot", json!({ "session": "o" }))["state"].clone();
    let restored = s.ok("restore", json!({ "state": state, "session": "o2" }));
    assert_eq!(restored["result"], step["result"]);
    assert_eq!(restored["error"], step["error"]);
    assert_eq!(restored["transcript"], step["transcript"]);
}

#[test]
fn a_codex_request_that_does_not_wait_is_submitted_when_its_time_is_up() {
    let mut s = Server::start(&[]);
    // autoResolutionMs sets the deadline: the timer submits what was committed (nothing).
    let mut legacy = codex_request();
    legacy["autoResolutionMs"] = json!(50);
    s.send(&request(
        json!("legacy"),
        "ask",
        json!({ "session": "l", "dialect": "codex", "payload": legacy }),
    ));
    let view = s.view("l");
    assert_eq!(view["status"], json!("open"));
    assert!(view["deadline"].as_u64().is_some());
    let reply = s.reply_to(&json!("legacy"));
    assert_eq!(
        reply["result"],
        json!({ "answers": { "db": { "answers": [] } } })
    );
    let view = s.view("l");
    assert_eq!(
        (&view["status"], &view["outcome"]),
        (&json!("done"), &json!("submit"))
    );
    // isBlocking: false takes the host's timeoutMs; 0 ends it at once.
    let mut non_blocking = codex_request();
    non_blocking["isBlocking"] = json!(false);
    let step = s.ok(
        "open",
        json!({ "session": "n", "dialect": "codex", "payload": non_blocking, "timeoutMs": 0 }),
    );
    assert_eq!(
        (&step["status"], &step["view"]["outcome"], &step["result"]),
        (
            &json!("done"),
            &json!("submit"),
            &json!({ "answers": { "db": { "answers": [] } } })
        )
    );
    // timeoutMs comes before autoResolutionMs.
    let step = s.ok(
        "open",
        json!({ "session": "t", "dialect": "codex", "payload": legacy, "timeoutMs": 3_600_000 }),
    );
    assert_eq!(step["status"], json!("open"));
    let (status, _) = s.finish();
    assert!(status.success());
}

/// `Enter` keeps what is chosen, through the binary: an MCP boolean with `default: false` and an
/// enumeration with a default, answered with `Enter` alone, resolve the `ask` with the defaults.
#[test]
fn enter_keeps_the_defaults_of_an_elicitation() {
    let params = json!({ "message": "Deploy", "requestedSchema": { "type": "object", "properties": {
        "public": { "type": "boolean", "title": "Public", "default": false },
        "size": { "type": "string", "title": "Size", "enum": ["s", "m", "l"], "default": "l" } } } });
    assert_eq!(
        ask_and_answer("mcp", params, json!({}), "<CR><CR><CR>"),
        json!({ "action": "accept", "content": { "public": false, "size": "l" } })
    );
}
