//! No request can take askd down: hostile requests against the real binary, one test (or
//! more) per way the server used to break its promises, each asserting the exact replies and
//! that nothing else changed.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;

use serde_json::{Value, json};

use askd::server::state::Config;

use crate::support::{ASKD, GUARD, Server, untimed};

/// A small pi flow: one single question (`1` selects and advances, `1` on the review submits).
fn small() -> Value {
    json!({
        "title": "Small",
        "questions": [{
            "id": "q",
            "label": "Q",
            "prompt": "Pick one",
            "options": [{ "value": "a", "label": "A" }, { "value": "b", "label": "B" }]
        }]
    })
}

/// A multi question of `options` options whose labels are `label_bytes` long.
fn wide(options: usize, label_bytes: usize) -> Value {
    let options: Vec<Value> = (0..options)
        .map(|i| {
            let label = format!("{i:04} {}", "l".repeat(label_bytes - 5));
            json!({ "value": format!("o{i}"), "label": label })
        })
        .collect();
    json!({
        "title": "Wide",
        "questions": [{ "id": "w", "label": "W", "prompt": "Which?", "type": "multi", "options": options }]
    })
}

fn error(code: i64, message: &str) -> Value {
    json!({ "code": code, "message": message })
}

// ---------------------------------------------------------------------------------------------
// 1. Output amplification

/// A traced script whose Steps pass `--max-reply-bytes` (at its default) is refused before its
/// reply is built, and the flow is as it was before the script.
#[test]
fn a_traced_script_over_the_reply_budget_is_refused_and_changes_nothing() {
    let mut s = Server::start(&[]);
    s.ok(
        "open",
        json!({ "session": "w", "payload": wide(1000, 200), "allRows": true, "width": 1000 }),
    );
    let before = s.view("w");
    let keys: Vec<&str> = ["space", "down"].repeat(30);
    assert_eq!(
        s.err(
            "keys",
            json!({ "session": "w", "keys": keys, "trace": true })
        ),
        error(
            -32004,
            "reply too large: the reply would pass the limit of 16777216 bytes (--max-reply-bytes)"
        )
    );
    assert_eq!(s.view("w"), before);
    assert_eq!(before["question"]["activeOption"], json!(0));
    // The same script without the trace is a reply of one Step, and applies.
    let step = s.ok("keys", json!({ "session": "w", "keys": keys }));
    assert_eq!(step["view"]["question"]["activeOption"], json!(30));
}

/// A change whose Step would pass the budget is undone, and an `open` whose first Step would
/// creates nothing: here the views carry every row, and the second question has a thousand.
#[test]
fn a_change_whose_step_passes_the_budget_is_undone() {
    let mut s = Server::start(&["--max-reply-bytes", "100000"]);
    let mut payload = wide(1000, 50);
    let long = payload["questions"][0].clone();
    payload["questions"] = json!([small()["questions"][0].clone(), long]);
    let too_large = error(
        -32004,
        "reply too large: the reply would pass the limit of 100000 bytes (--max-reply-bytes)",
    );
    s.ok(
        "open",
        json!({ "session": "t", "payload": payload, "allRows": true, "width": 100 }),
    );
    let before = s.view("t");
    assert_eq!(before["activeTab"], json!(0));
    for (method, params) in [
        ("key", json!({ "session": "t", "key": "tab" })),
        ("keys", json!({ "session": "t", "keys": "<Down><Tab>" })),
        ("keys", json!({ "session": "t", "keys": "2" })),
        (
            "saveCustom",
            json!({ "session": "t", "questionId": "q", "text": "mine", "submit": true }),
        ),
    ] {
        assert_eq!(
            s.err(method, params.clone()),
            too_large,
            "{method} {params}"
        );
        assert_eq!(s.view("t"), before, "{method} {params}");
    }
    // What fits is answered: the first tab, and the second one's window of ten rows.
    assert_eq!(
        s.ok("keys", json!({ "session": "t", "keys": "" }))["view"],
        before
    );
    let window = s.ok("getView", json!({ "session": "t", "allRows": false }));
    assert_eq!(window["activeTab"], json!(0));
    // An `open` whose first Step would pass the budget creates nothing.
    let mut first_long = payload.clone();
    first_long["questions"] = json!([payload["questions"][1].clone()]);
    assert_eq!(
        s.err(
            "open",
            json!({ "session": "u", "payload": first_long, "allRows": true })
        ),
        too_large
    );
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([{ "session": "t", "title": "Wide", "status": "open" }])
    );
}

/// `sessions` over the budget is refused; the sessions are all there.
#[test]
fn a_session_list_over_the_budget_is_refused() {
    let mut s = Server::start(&[]);
    let title = "t".repeat(65_000);
    for i in 0..300 {
        let mut payload = small();
        payload["title"] = json!(title);
        s.send(&json!({
            "jsonrpc": "2.0", "method": "open",
            "params": { "session": format!("s{i:03}"), "payload": payload }
        }));
    }
    assert_eq!(
        s.err("sessions", json!({})),
        error(
            -32004,
            "reply too large: the reply would pass the limit of 16777216 bytes (--max-reply-bytes)"
        )
    );
    for i in 0..300 {
        s.ok("close", json!({ "session": format!("s{i:03}") }));
    }
    assert_eq!(untimed(s.ok("sessions", json!({}))), json!([]));
}

/// A batch's replies share the budget: the results that fit, then an error for each request
/// whose result would pass it; those requests change nothing.
#[test]
fn a_batch_shares_the_reply_budget() {
    let mut s = Server::start(&[]);
    s.ok(
        "open",
        json!({ "session": "w", "payload": wide(1000, 200), "allRows": true, "width": 1000 }),
    );
    let one = s.ok("getView", json!({ "session": "w" })).to_string().len();
    let batch: Vec<Value> = (0..60)
        .map(|i| {
            json!({ "jsonrpc": "2.0", "id": i, "method": "key", "params": { "session": "w", "key": "down" } })
        })
        .collect();
    s.send(&Value::Array(batch));
    let replies = s.recv();
    let replies = replies.as_array().expect("a batch reply");
    assert_eq!(replies.len(), 60);
    let fits = replies.iter().filter(|r| r.get("result").is_some()).count();
    assert!(fits * one <= 16 * 1024 * 1024 && (fits + 1) * one > 16 * 1024 * 1024 - 64 * 1024);
    for (i, reply) in replies.iter().enumerate() {
        if i < fits {
            assert_eq!(
                reply["result"]["view"]["question"]["activeOption"],
                json!(i + 1)
            );
        } else {
            assert_eq!(
                reply["error"],
                error(
                    -32004,
                    "reply too large: the replies of the batch would pass the limit of 16777216 bytes (--max-reply-bytes)"
                ),
                "{i}"
            );
        }
    }
    // Only the requests that were answered moved the row.
    assert_eq!(s.view("w")["question"]["activeOption"], json!(fits));
}

// ---------------------------------------------------------------------------------------------
// 2. Backpressure

/// The resident size of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// A client that sends `getView` after `getView` and never reads: the server stops reading
/// its input once the replies waiting for it reach `--max-pending-bytes`, and its memory
/// stays bounded; once the client reads, every reply comes, in order.
#[test]
fn a_client_that_never_reads_cannot_grow_the_server() {
    const REQUESTS: usize = 20_000;
    let state = tempfile::tempdir().expect("a temporary directory");
    let mut child = Command::new(ASKD)
        .args(["--no-state", "--max-pending-bytes", "1048576"])
        .env("ASKD_LOG", "askd=debug")
        .env("XDG_STATE_HOME", state.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("askd starts");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let (events, seen) = mpsc::channel::<&'static str>();
    let paused = events.clone();
    thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("input paused") {
                let _ = paused.send("paused");
            }
        }
    });
    let writer = thread::spawn(move || {
        let open = json!({ "jsonrpc": "2.0", "id": 0, "method": "open",
            "params": { "session": "s", "width": 80, "payload": small() } });
        writeln!(stdin, "{open}").expect("write");
        for id in 1..=REQUESTS {
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"getView","params":{{"session":"s"}}}}"#
            );
            if writeln!(stdin, "{line}").is_err() {
                return;
            }
        }
        let _ = events.send("written");
        // Holding stdin open until every reply has been read.
        thread::park();
        drop(stdin);
    });
    // Either the server pauses (it stops reading; the writer blocks), or, without
    // backpressure, it reads everything and the writer finishes.
    let first = seen.recv_timeout(GUARD).expect("an event");
    let rss = rss_kib(pid);
    assert_eq!(first, "paused");
    assert!(rss < 48 * 1024, "the server holds {rss} KiB while paused");
    // Now the client reads: every reply arrives, in order.
    let mut lines = BufReader::new(stdout).lines();
    for id in 0..=REQUESTS {
        let line = lines.next().expect("a reply").expect("UTF-8");
        let reply: Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(reply["id"], json!(id));
        assert_eq!(reply["result"]["session"], json!("s"));
    }
    writer.thread().unpark();
    writer.join().expect("the writer ends");
    assert_eq!(lines.next().map(|l| l.is_ok()), None);
    assert_eq!(child.wait().expect("exit").code(), Some(0));
}

// ---------------------------------------------------------------------------------------------
// 3. Content-Length framing

/// After every kind of malformed header block the next well-formed frame is answered.
#[test]
fn a_malformed_content_length_header_never_breaks_the_connection() {
    let mut s = Server::start(&[]);
    s.use_content_length();
    s.send_frame(br#"{"jsonrpc":"2.0","id":0,"method":"sessions"}"#);
    assert_eq!(s.recv()["result"], json!([]));
    let body = br#"{"jsonrpc":"2.0","id":"x","method":"sessions"}"#;
    let parse_error = |message: &str| json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32700, "message": format!("parse error: {message}") } });
    let bad: Vec<(Vec<u8>, Value)> = vec![
        (
            b"Content-Length: abc\r\n\r\n".to_vec(),
            parse_error(r#"bad Content-Length value "abc""#),
        ),
        (
            b"Content-Length: -5\r\n\r\n".to_vec(),
            parse_error(r#"bad Content-Length value "-5""#),
        ),
        (
            b"Content-Length: 0x10\r\n\r\n".to_vec(),
            parse_error(r#"bad Content-Length value "0x10""#),
        ),
        (
            b"Content-Length: 1e3\r\n\r\n".to_vec(),
            parse_error(r#"bad Content-Length value "1e3""#),
        ),
        (
            b"Content-Length: 18446744073709551616\r\n\r\n".to_vec(),
            parse_error(r#"bad Content-Length value "18446744073709551616""#),
        ),
        (
            b"Content-Length 46\r\n\r\n".to_vec(),
            parse_error(r#"malformed header line "Content-Length 46""#),
        ),
        (
            b"Content-Length: 46\r\nContent-Length: 47\r\n\r\n".to_vec(),
            parse_error("conflicting Content-Length headers: 46 and 47"),
        ),
        (
            format!("X: {}\r\n\r\n", "x".repeat(2 * 1024 * 1024)).into_bytes(),
            parse_error("a header block longer than 4096 bytes"),
        ),
        (
            b"Content-Length: 1000000000000\r\n\r\n".to_vec(),
            json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32004,
                "message": format!("message too large: the limit is 1048576 bytes ({} for a restore)",
                    Config::default().max_restore_message_bytes()) } }),
        ),
    ];
    for (i, (header, expected)) in bad.into_iter().enumerate() {
        let mut bytes = header.clone();
        bytes.extend_from_slice(body);
        s.send_raw(&bytes);
        assert_eq!(s.recv(), expected, "{i}");
        s.send_frame(format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"sessions"}}"#).as_bytes());
        assert_eq!(
            s.recv(),
            json!({ "jsonrpc": "2.0", "id": i, "result": [] }),
            "after {i}"
        );
    }
    // A bare body (which only the next header ends) is read through to that header.
    let mut bare = body.to_vec();
    let after = br#"{"jsonrpc":"2.0","id":"after","method":"sessions"}"#;
    bare.extend_from_slice(format!("Content-Length: {}\r\n\r\n", after.len()).as_bytes());
    bare.extend_from_slice(after);
    s.send_raw(&bare);
    assert_eq!(
        s.recv(),
        parse_error(
            r#"malformed header line "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"sess""#
        )
    );
    assert_eq!(
        s.recv(),
        json!({ "jsonrpc": "2.0", "id": "after", "result": [] })
    );
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

// ---------------------------------------------------------------------------------------------
// 4. `$/cancelRequest`

/// A cancel of an `ask` whose session was closed and reopened under the same id reaches
/// nothing: the new flow stays open.
#[test]
fn a_stale_cancel_never_reaches_a_later_session_of_the_same_id() {
    let mut s = Server::start(&[]);
    let ask = json!({ "jsonrpc": "2.0", "id": 1, "method": "ask", "params": { "session": "x", "payload": small() } });
    let close =
        json!({ "jsonrpc": "2.0", "id": 2, "method": "close", "params": { "session": "x" } });
    let open = json!({ "jsonrpc": "2.0", "id": 3, "method": "open", "params": { "session": "x", "payload": small() } });
    let cancel =
        json!({ "jsonrpc": "2.0", "id": 4, "method": "$/cancelRequest", "params": { "id": 1 } });
    s.send_raw(format!("{ask}\n{close}\n{open}\n{cancel}\n").as_bytes());
    assert_eq!(s.reply_to(&json!(2))["result"], json!({ "closed": true }));
    assert_eq!(
        s.reply_to(&json!(1))["result"]["details"]["cancelled"],
        json!(true)
    );
    assert_eq!(s.reply_to(&json!(3))["result"]["status"], json!("open"));
    assert_eq!(
        s.reply_to(&json!(4)),
        json!({ "jsonrpc": "2.0", "id": 4, "result": null })
    );
    let view = s.view("x");
    assert_eq!(view["status"], json!("open"));
    assert_eq!(view["outcome"], Value::Null);
}

// ---------------------------------------------------------------------------------------------
// 5. End of input

/// Every `ask` whose flow completed before end of input is answered before the process ends.
#[test]
fn every_ask_completed_before_end_of_input_is_answered() {
    let mut s = Server::start(&[]);
    let mut input = String::new();
    for i in 0..65 {
        input.push_str(&format!(
            "{}\n",
            json!({ "jsonrpc": "2.0", "id": format!("ask{i}"), "method": "ask",
                "params": { "session": format!("a{i}"), "payload": small() } })
        ));
    }
    for i in 0..65 {
        input.push_str(&format!(
            "{}\n",
            json!({ "jsonrpc": "2.0", "id": format!("keys{i}"), "method": "keys",
                "params": { "session": format!("a{i}"), "keys": "11" } })
        ));
    }
    s.send_raw(input.as_bytes());
    let (status, replies) = s.finish();
    assert_eq!(status.code(), Some(0));
    let mut asks: Vec<String> = replies
        .iter()
        .filter(|r| r["result"]["details"]["answers"]["q"]["values"] == json!(["a"]))
        .map(|r| r["id"].as_str().unwrap_or("").to_owned())
        .collect();
    asks.sort();
    let mut expected: Vec<String> = (0..65).map(|i| format!("ask{i}")).collect();
    expected.sort();
    assert_eq!(asks, expected);
    assert_eq!(replies.len(), 130);
}

// ---------------------------------------------------------------------------------------------
// 6. `restore`

/// A snapshot of a state no flow reaches is refused, and nothing is created: here the
/// version 1 snapshot of a dsh flow whose second question is a preview question without
/// options, which once restored and then failed `enter` after changing the flow.
#[test]
fn an_impossible_snapshot_is_refused() {
    let mut s = Server::start(&[]);
    let state = json!({
        "format": "askd.session", "version": 1, "kind": "flow",
        "spec": { "dialect": "dsh", "questions": [
            { "id": "a", "label": "A", "prompt": "A?", "type": "single", "required": false,
              "options": [{ "value": "x", "label": "x" }] },
            { "id": "b", "label": "B", "prompt": "B?", "type": "preview", "required": false, "options": [] }
        ] },
        "keymap": {}, "nonInteractive": false, "tab": 0, "row": 0, "reviewAction": 0,
        "editor": null, "answers": [{}, {}], "outcome": null
    });
    assert_eq!(
        s.err("restore", json!({ "state": state, "session": "r" })),
        error(
            -32602,
            "invalid params: state: version 1 is not supported (this build reads version 2)"
        )
    );
    // The same flow in version 2: its request is validated again, and dsh has no preview
    // question without options (a free-text question takes no `type`).
    let state = json!({
        "format": "askd.session", "version": 2, "dialect": "dsh",
        "request": { "questions": [
            { "id": "a", "question": "A?", "options": [{ "label": "x" }] },
            { "id": "b", "question": "B?", "options": [{ "label": "" }] }
        ] },
        "flow": { "keymap": {}, "nonInteractive": false, "tab": 0, "row": 0, "reviewAction": 0,
            "editor": null, "answers": [{}, {}], "outcome": null }
    });
    assert_eq!(
        s.err("restore", json!({ "state": state, "session": "r" })),
        error(
            -32602,
            r#"invalid params: state: the request is refused in the dsh dialect: questions[1] ("b"): options[0].label must not be blank"#
        )
    );
    assert_eq!(untimed(s.ok("sessions", json!({}))), json!([]));
}

// ---------------------------------------------------------------------------------------------
// 7. A FIFO in `cwd`

/// FIFOs named like ignore files (and one among the files) block nothing: the listing comes,
/// without them, and end of input still ends the process.
#[test]
fn a_fifo_in_the_completion_root_blocks_nothing() {
    let root = tempfile::tempdir().expect("a temporary directory");
    let mkfifo = |path: &std::path::Path| {
        let status = Command::new("mkfifo")
            .arg(path)
            .status()
            .expect("mkfifo runs");
        assert!(status.success());
    };
    std::fs::create_dir(root.path().join("sub")).expect("mkdir");
    std::fs::write(root.path().join("notes.md"), "x").expect("write");
    std::fs::write(root.path().join("sub/deep.md"), "x").expect("write");
    mkfifo(&root.path().join(".gitignore"));
    mkfifo(&root.path().join("sub/.ignore"));
    mkfifo(&root.path().join("pipe"));
    let mut s = Server::start(&[]);
    let payload = json!({ "questions": [{ "id": "q", "label": "Q", "prompt": "Why?",
        "options": [{ "value": "a", "label": "A" }] }] });
    s.ok(
        "open",
        json!({ "session": "c", "payload": payload, "cwd": root.path().to_str().expect("UTF-8") }),
    );
    s.ok("keys", json!({ "session": "c", "keys": "2@" }));
    let mut view = s.view("c");
    for _ in 0..1000 {
        if !view["editor"]["completion"].is_null() {
            break;
        }
        thread::sleep(std::time::Duration::from_millis(10));
        view = s.view("c");
    }
    let paths: Vec<&str> = view["editor"]["completion"]["items"]
        .as_array()
        .expect("a completion list")
        .iter()
        .map(|item| item["path"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(paths, ["sub", "notes.md"]);
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

// ---------------------------------------------------------------------------------------------
// 8. Keymap overrides

/// An action bound to more keys than it takes is refused at once.
#[test]
fn a_keymap_of_many_keys_is_refused_at_once() {
    let mut s = Server::start(&[]);
    let keys: Vec<String> = (0..60_000u32)
        .map(|i| {
            char::from_u32(0x1_0000 + i)
                .expect("a character")
                .to_string()
        })
        .collect();
    assert_eq!(
        s.err(
            "open",
            json!({ "session": "k", "payload": small(), "keymap": { "main.down": keys } })
        ),
        error(
            -32602,
            r#"invalid params: keymap: keymap action "main.down": 60000 keys given; an action takes at most 16"#
        )
    );
    assert_eq!(untimed(s.ok("sessions", json!({}))), json!([]));
}

// ---------------------------------------------------------------------------------------------
// 9. Snapshots within the limits

/// A session as large as the limits let it be (a payload of about 1 MB, and notes up to the
/// flow's text budget) snapshots and restores, into exactly the same flow.
#[test]
fn the_snapshot_of_a_session_at_the_limits_restores() {
    let mut s = Server::start(&[]);
    let questions: Vec<Value> = (0..16)
        .map(|i| {
            json!({ "id": format!("q{i}"), "label": format!("Q{i}"), "prompt": "p".repeat(60_000),
                "options": [{ "value": "a", "label": "A" }] })
        })
        .collect();
    let payload = json!({ "title": "Large", "questions": questions });
    assert!(payload.to_string().len() > 960_000);
    s.ok("open", json!({ "session": "big", "payload": payload }));
    for i in 0..15 {
        s.ok(
            "setNote",
            json!({ "session": "big", "questionId": format!("q{i}"), "text": "n".repeat(65_000) }),
        );
    }
    let state = s.ok("snapshot", json!({ "session": "big" }))["state"].clone();
    assert!(state.to_string().len() > 1_900_000);
    let restored = s.ok("restore", json!({ "state": state, "session": "copy" }));
    let mut original = s.view("big");
    original["session"] = json!("copy");
    assert_eq!(restored["view"], original);
    assert_eq!(
        s.ok("snapshot", json!({ "session": "copy" }))["state"],
        state
    );
}

/// Only a `restore` may pass `--max-message-bytes`, and only up to the largest snapshot.
#[test]
fn only_a_restore_may_be_larger_than_a_message() {
    let mut s = Server::start(&["--max-message-bytes", "300"]);
    let pad = "x".repeat(400);
    let config = Config {
        max_message_bytes: 300,
        ..Config::default()
    };
    let too_large = json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32004,
        "message": format!("message too large: the limit is 300 bytes ({} for a restore)",
            config.max_restore_message_bytes()) } });
    s.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"sessions","params":{{"pad":"{pad}"}}}}"#
    ));
    assert_eq!(s.recv(), too_large);
    s.send_line(&format!(
        r#"[{{"jsonrpc":"2.0","id":2,"method":"restore","params":{{"pad":"{pad}"}}}}]"#
    ));
    assert_eq!(s.recv(), too_large);
    s.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"restore","params":{{"state":{{"format":"{pad}"}}}}}}"#
    ));
    assert_eq!(s.recv()["error"]["code"], json!(-32602));
}

// ---------------------------------------------------------------------------------------------
// 10. Errors name the param

/// A wrong value of each kind, with the message it gets.
fn wrong_values(expect: &str) -> Vec<(Value, String)> {
    match expect {
        "string" => vec![
            (json!(5), "expected a string, got the number 5".into()),
            (json!(true), "expected a string, got true".into()),
            (json!([]), "expected a string, got an array".into()),
        ],
        "flag" => vec![
            (
                json!("yes"),
                r#"expected true or false, got the string "yes""#.into(),
            ),
            (json!(1), "expected true or false, got the number 1".into()),
        ],
        "count" => vec![
            (
                json!(-1),
                "expected a non-negative integer, got the number -1".into(),
            ),
            (
                json!(1.5),
                "expected a non-negative integer, got the number 1.5".into(),
            ),
            (
                json!("80"),
                r#"expected a non-negative integer, got the string "80""#.into(),
            ),
        ],
        "object" => vec![(json!([true, 80]), "expected an object, got an array".into())],
        _ => vec![],
    }
}

/// Every method, every param, a wrong value of each kind: the message names the param, says
/// what it must be and what it was, in words; nothing changes.
#[test]
fn every_invalid_param_is_named_with_what_it_must_be() {
    let mut s = Server::start(&[]);
    s.ok("open", json!({ "session": "s", "payload": small() }));
    let state = s.ok("snapshot", json!({ "session": "s" }))["state"].clone();
    let view = s.view("s");
    // The params of a dialect are read for a request of that dialect.
    let claude = json!({ "dialect": "claude", "payload": { "questions": [
        { "question": "Which?", "header": "W", "multiSelect": false, "options": [
            { "label": "A", "description": "" }, { "label": "B", "description": "" }] }] } });
    let mcp = json!({ "dialect": "mcp", "payload": { "message": "Name?", "requestedSchema": {
        "type": "object", "properties": { "name": { "type": "string" } } } } });
    // (method, the other params a request needs, param, kind).
    let params: &[(&str, Value, &str, &str)] = &[
        ("initialize", json!({}), "capabilities", "object"),
        ("initialize", json!({}), "capabilities.hasUI", "flag"),
        ("initialize", json!({}), "capabilities.width", "count"),
        ("initialize", json!({}), "capabilities.allRows", "flag"),
        ("initialize", json!({}), "capabilities.behaviour", "object"),
        ("initialize", json!({}), "capabilities.test", "flag"),
        (
            "initialize",
            json!({}),
            "capabilities.keymapPreset",
            "preset",
        ),
        ("open", json!({ "payload": small() }), "behaviour", "object"),
        ("ask", json!({ "payload": small() }), "behaviour", "object"),
        ("open", json!({ "payload": small() }), "session", "string"),
        ("open", json!({ "payload": small() }), "hasUI", "flag"),
        ("open", json!({ "payload": small() }), "width", "count"),
        ("open", json!({ "payload": small() }), "allRows", "flag"),
        ("open", json!({ "payload": small() }), "cwd", "string"),
        ("open", json!({ "payload": small() }), "dialect", "dialect"),
        (
            "open",
            json!({ "payload": small() }),
            "keymapPreset",
            "preset",
        ),
        ("open", json!({ "payload": small() }), "timeoutMs", "count"),
        ("open", json!({ "payload": small() }), "asker", "object"),
        ("open", json!({ "payload": small() }), "resume", "flag"),
        (
            "open",
            json!({ "payload": small() }),
            "asker.name",
            "string",
        ),
        (
            "open",
            json!({ "payload": small() }),
            "asker.folder",
            "string",
        ),
        ("ask", json!({ "payload": small() }), "asker", "object"),
        ("ask", json!({ "payload": small() }), "asker.name", "string"),
        ("ask", json!({ "payload": small() }), "session", "string"),
        ("ask", json!({ "payload": small() }), "hasUI", "flag"),
        ("ask", json!({ "payload": small() }), "width", "count"),
        ("ask", json!({ "payload": small() }), "allRows", "flag"),
        ("ask", json!({ "payload": small() }), "cwd", "string"),
        ("ask", json!({ "payload": small() }), "dialect", "dialect"),
        (
            "ask",
            json!({ "payload": small() }),
            "keymapPreset",
            "preset",
        ),
        ("ask", json!({ "payload": small() }), "timeoutMs", "count"),
        ("ask", json!({ "payload": small() }), "resume", "flag"),
        ("open", claude.clone(), "claude", "object"),
        ("open", claude.clone(), "claude.unansweredV1", "flag"),
        ("ask", claude.clone(), "claude", "object"),
        ("ask", claude.clone(), "claude.unansweredV1", "flag"),
        ("open", mcp.clone(), "mcp", "object"),
        ("open", mcp.clone(), "mcp.requester", "object"),
        ("ask", mcp.clone(), "mcp", "object"),
        ("ask", mcp.clone(), "mcp.requester", "object"),
        ("key", json!({ "key": "down" }), "session", "string"),
        ("key", json!({ "session": "s" }), "key", "string"),
        ("keys", json!({ "keys": "j" }), "session", "string"),
        ("keys", json!({ "session": "s" }), "keys", "keys"),
        (
            "keys",
            json!({ "session": "s", "keys": "j" }),
            "trace",
            "flag",
        ),
        ("insert", json!({ "text": "t" }), "session", "string"),
        ("insert", json!({ "session": "s" }), "text", "string"),
        (
            "activate",
            json!({ "target": { "tab": 0 } }),
            "session",
            "string",
        ),
        ("activate", json!({ "session": "s" }), "target", "object"),
        ("setDraft", json!({ "text": "t" }), "session", "string"),
        ("setDraft", json!({ "session": "s" }), "text", "string"),
        (
            "setDraft",
            json!({ "session": "s", "text": "t" }),
            "caret",
            "count",
        ),
        (
            "saveCustom",
            json!({ "questionId": "q", "text": "t" }),
            "session",
            "string",
        ),
        (
            "saveCustom",
            json!({ "session": "s", "text": "t" }),
            "questionId",
            "string",
        ),
        (
            "saveCustom",
            json!({ "session": "s", "questionId": "q" }),
            "text",
            "string",
        ),
        (
            "saveCustom",
            json!({ "session": "s", "questionId": "q", "text": "t" }),
            "submit",
            "flag",
        ),
        (
            "setNote",
            json!({ "questionId": "q", "text": "t" }),
            "session",
            "string",
        ),
        (
            "setNote",
            json!({ "session": "s", "text": "t" }),
            "questionId",
            "string",
        ),
        (
            "setNote",
            json!({ "session": "s", "questionId": "q", "text": "t" }),
            "optionValue",
            "string",
        ),
        (
            "setNote",
            json!({ "session": "s", "questionId": "q" }),
            "text",
            "string",
        ),
        (
            "submitAnswers",
            json!({ "answers": {} }),
            "session",
            "string",
        ),
        (
            "submitAnswers",
            json!({ "session": "s", "answers": {} }),
            "mode",
            "mode",
        ),
        ("getView", json!({}), "session", "string"),
        ("getView", json!({ "session": "s" }), "width", "count"),
        ("getView", json!({ "session": "s" }), "allRows", "flag"),
        ("getResult", json!({}), "session", "string"),
        ("cancel", json!({}), "session", "string"),
        ("cancel", json!({ "session": "s" }), "reason", "reason"),
        ("close", json!({}), "session", "string"),
        ("snapshot", json!({}), "session", "string"),
        ("restore", json!({ "state": state }), "session", "string"),
        ("recover", json!({}), "session", "string"),
        ("recover", json!({ "session": "s" }), "as", "string"),
        ("recover", json!({ "session": "s" }), "width", "count"),
        ("recover", json!({ "session": "s" }), "allRows", "flag"),
        ("recover", json!({ "session": "s" }), "cwd", "string"),
        ("discard", json!({}), "session", "string"),
        ("subscribe", json!({}), "session", "string"),
        ("subscribe", json!({}), "width", "count"),
        ("subscribe", json!({}), "allRows", "flag"),
        ("subscribe", json!({}), "attach", "flag"),
    ];
    let mut covered: Vec<(String, String)> = Vec::new();
    for (method, base, param, kind) in params {
        let mut cases = wrong_values(kind);
        match *kind {
            "dialect" => {
                cases = vec![
                    (
                        json!("xx"),
                        r#"expected one of "pi", "claude", "codex", "opencode", "mcp", "dsh", got the string "xx""#
                            .into(),
                    ),
                    (
                        json!(5),
                        r#"expected one of "pi", "claude", "codex", "opencode", "mcp", "dsh", got the number 5"#
                            .into(),
                    ),
                ]
            }
            "mode" => {
                cases = vec![(
                    json!("later"),
                    r#"expected "submit" or "elaborate", got the string "later""#.into(),
                )]
            }
            "preset" => {
                cases = vec![(
                    json!("emacs"),
                    r#"expected "default" or "vim", got the string "emacs""#.into(),
                )]
            }
            "reason" => {
                cases = vec![(
                    json!({}),
                    r#"expected one of "user", "abort", "closed", "decline", got an object"#.into(),
                )]
            }
            "keys" => {
                cases = vec![
                (
                    json!(5),
                    "expected a list of key names or a string in Vim notation, got the number 5"
                        .into(),
                ),
                (json!(["j", 5]), "".into()),
            ]
            }
            _ => {}
        }
        for (value, words) in cases {
            let mut p = base.clone();
            match param.split_once('.') {
                Some((outer, inner)) => p[outer] = json!({ inner: value.clone() }),
                None => p[*param] = value.clone(),
            }
            let expected = if words.is_empty() {
                format!(
                    "invalid params: {param}[1]: expected a key name (a string), got the number 5"
                )
            } else {
                format!("invalid params: {param}: {words}")
            };
            assert_eq!(
                s.err(method, p.clone()),
                error(-32602, &expected),
                "{method} {p}"
            );
        }
        covered.push((
            (*method).to_owned(),
            param.split('.').next().unwrap_or(param).to_owned(),
        ));
        // A required param left out is named too.
    }
    for (method, params, param, words) in [
        (
            "open",
            json!({}),
            "payload",
            "the tool call's arguments (any JSON value)",
        ),
        ("key", json!({ "session": "s" }), "key", "a string"),
        (
            "keys",
            json!({ "session": "s" }),
            "keys",
            "a list of key names or a string in Vim notation",
        ),
        (
            "submitAnswers",
            json!({ "session": "s" }),
            "answers",
            "an answer set",
        ),
        ("restore", json!({}), "state", "a state from `snapshot`"),
        ("getView", json!({}), "session", "a string"),
    ] {
        assert_eq!(
            s.err(method, params.clone()),
            error(
                -32602,
                &format!("invalid params: {param}: missing; expected {words}")
            ),
            "{method} {params}"
        );
        covered.push((method.to_owned(), param.to_owned()));
    }
    // A param given twice.
    s.send_line(r#"{"jsonrpc":"2.0","id":"twice","method":"key","params":{"session":"s","session":"t","key":"down"}}"#);
    assert_eq!(
        s.recv()["error"],
        error(-32602, "invalid params: session: given twice")
    );
    // Nothing changed.
    assert_eq!(s.view("s"), view);
    assert_eq!(
        untimed(s.ok("sessions", json!({}))),
        json!([{ "session": "s", "title": "Small", "status": "open" }])
    );
    // Every param of every method that names a type is covered, as the OpenRPC document
    // lists them (free-form params are checked by their methods: payload, keymap, answers,
    // state, clientInfo).
    let document: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol/openrpc.json"),
        )
        .expect("the OpenRPC document"),
    )
    .expect("JSON");
    for method in document["methods"].as_array().expect("methods") {
        let name = method["name"].as_str().expect("a name");
        for param in method["params"].as_array().expect("params") {
            let param = param["name"].as_str().expect("a name");
            if ["keymap", "clientInfo", "payload", "answers", "state"].contains(&param) {
                continue;
            }
            assert!(
                covered.contains(&(name.to_owned(), param.to_owned())),
                "{name}.{param} is not checked"
            );
        }
    }
}

/// Negative integer ids are ids; params by position are refused; a notification is never
/// answered, whatever is wrong with it.
#[test]
fn ids_positions_and_notifications() {
    let mut s = Server::start(&[]);
    s.send_line(r#"{"jsonrpc":"2.0","id":-5,"method":"sessions"}"#);
    assert_eq!(
        s.recv(),
        json!({ "jsonrpc": "2.0", "id": -5, "result": [] })
    );
    s.send_line(r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"key","params":{"session":"none","key":"up"}}"#);
    assert_eq!(
        s.recv(),
        json!({ "jsonrpc": "2.0", "id": -9223372036854775808i64,
            "error": { "code": -32001, "message": "unknown session \"none\"" } })
    );
    s.send_line(r#"{"jsonrpc":"2.0","id":-1,"method":"ask","params":{"session":"n","payload":{"questions":[]}}}"#);
    assert_eq!(s.recv()["id"], json!(-1));
    s.send_line(r#"{"jsonrpc":"2.0","id":7,"method":"key","params":["s","down"]}"#);
    assert_eq!(
        s.recv(),
        json!({ "jsonrpc": "2.0", "id": 7, "error": { "code": -32602,
            "message": "invalid params: \"params\" must be an object" } })
    );
    let notifications = [
        r#"{"jsonrpc":"2.0","method":"key","params":["s","down"]}"#,
        r#"{"jsonrpc":"2.0","method":"key","params":"x"}"#,
        r#"{"jsonrpc":"2.0","method":"key","params":{"session":5}}"#,
        r#"{"jsonrpc":"2.0","method":"key","params":{"session":"none","key":"up"}}"#,
        r#"{"jsonrpc":"2.0","method":"open","params":{}}"#,
        r#"{"jsonrpc":"2.0","method":"ask","params":{"payload":{"questions":[{"id":"a","question":"?"}]},"dialect":"dsh","hasUI":false}}"#,
        r#"{"jsonrpc":"2.0","method":"nope"}"#,
        r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":[1]}"#,
        r#"[{"jsonrpc":"2.0","method":"key","params":[1]},{"jsonrpc":"2.0","method":"ask"}]"#,
    ];
    for notification in notifications {
        s.send_line(notification);
    }
    s.send_line(r#"{"jsonrpc":"2.0","id":"last","method":"getResult","params":{"session":"n"}}"#);
    assert_eq!(s.recv()["id"], json!("last"));
    let (status, rest) = s.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
}

/// The state directory's files are its owner's only (checked here so that every test run
/// meets it: the servers of the other tests write one too).
#[test]
fn the_state_directory_is_private() {
    let home = tempfile::tempdir().expect("a temporary directory");
    let mut s = Server::start_with_env(
        &[],
        &[("XDG_STATE_HOME", home.path().to_str().expect("UTF-8"))],
    );
    s.ok("open", json!({ "session": "p", "payload": small() }));
    let root = home.path().join("askd");
    let mode =
        |p: &std::path::Path| std::fs::metadata(p).expect("metadata").permissions().mode() & 0o777;
    assert_eq!(mode(&root), 0o700);
    let dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("the state directory")
        .flatten()
        .collect();
    assert_eq!(dirs.len(), 1);
    assert_eq!(mode(&dirs[0].path()), 0o700);
    let mut files: Vec<(String, u32)> = std::fs::read_dir(dirs[0].path())
        .expect("the process's directory")
        .flatten()
        .map(|f| {
            (
                f.file_name().to_string_lossy().into_owned(),
                mode(&f.path()),
            )
        })
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            ("s1.flow.log".to_owned(), 0o600),
            ("s1.request.json".to_owned(), 0o600)
        ]
    );
}

/// Every limit is in `askd --help` with its default, in the protocol's table of limits with
/// the same default, and in the README's paragraph of limits.
#[test]
fn every_limit_is_documented_with_its_default() {
    let (status, help, _) = crate::support::run_to_end(&["--help"]);
    assert_eq!(status.code(), Some(0));
    let options = help
        .split_once("Options:\n")
        .and_then(|(_, rest)| rest.split_once("  -h, --help"))
        .map(|(options, _)| options)
        .expect("the options of --help");
    assert_eq!(
        options,
        "      --max-message-bytes <MAX_MESSAGE_BYTES>
          Largest accepted message, in bytes (a `restore` may be as large as this plus the largest snapshot the limits allow) [default: 1048576]
      --max-sessions <MAX_SESSIONS>
          Most sessions held at once (completed ones are evicted oldest-first beyond it), and most recovered flows offered at once [default: 1024]
      --max-questions <MAX_QUESTIONS>
          Most questions in one payload [default: 64]
      --max-options <MAX_OPTIONS>
          Most options in one question [default: 1000]
      --max-text-bytes <MAX_TEXT_BYTES>
          Most bytes in one text: a payload string, an editor, a custom answer or a note [default: 65536]
      --max-flow-text-bytes <MAX_FLOW_TEXT_BYTES>
          Most bytes of custom answers and notes one flow holds in all [default: 1048576]
      --max-reply-bytes <MAX_REPLY_BYTES>
          Largest reply, in bytes; a request whose reply would be larger fails and changes nothing (a batch's replies share it) [default: 16777216]
      --max-pending-bytes <MAX_PENDING_BYTES>
          Most bytes of replies waiting for the client to read them; past it, input is not read until the client catches up [default: 4194304]
      --state-dir <DIR>
          Where the state of every open flow is kept, so that a new askd offers the flows of one that was killed, for 7 days, to be resumed on request [default: $XDG_STATE_HOME/askd, else ~/.local/state/askd]
      --no-state
          Keep no state on disk: open flows end with the process
"
    );
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let protocol = std::fs::read_to_string(root.join("protocol/README.md")).expect("readable");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("readable");
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    for (flag, default, in_readme) in [
        (
            "--max-message-bytes",
            "1048576",
            "`--max-message-bytes` (default 1 MiB;",
        ),
        ("--max-sessions", "1024", "`--max-sessions` (1024;"),
        ("--max-questions", "64", "`--max-questions` (64)"),
        ("--max-options", "1000", "`--max-options` (1000)"),
        ("--max-text-bytes", "65536", "`--max-text-bytes` (64 KiB"),
        (
            "--max-flow-text-bytes",
            "1048576",
            "`--max-flow-text-bytes` (1 MiB",
        ),
        (
            "--max-reply-bytes",
            "16777216",
            "`--max-reply-bytes` (16 MiB",
        ),
        (
            "--max-pending-bytes",
            "4194304",
            "`--max-pending-bytes` (4 MiB",
        ),
    ] {
        assert!(
            protocol.contains(&format!("| `{flag}` | `{default}` |")),
            "{flag} in protocol/README.md"
        );
        assert!(readme.contains(in_readme), "{flag} in README.md");
    }
    assert!(
        protocol
            .contains("| `--state-dir DIR` | `$XDG_STATE_HOME/askd`, else `~/.local/state/askd` |")
    );
    assert!(readme.contains(
        "`--state-dir` (default `$XDG_STATE_HOME/askd`, else `~/.local/state/askd`; `--no-state` keeps none)"
    ));
    // The bound of a restore message the documents give is the one the server applies.
    let restore = Config::default().max_restore_message_bytes();
    let snapshot = restore - Config::default().max_message_bytes;
    let protocol_words = protocol.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(protocol_words.contains(&format!(
        "At the defaults a snapshot holds at most {snapshot} bytes, and a `restore` message may be {restore} bytes."
    )));
    assert!(readme.contains(&format!("{restore} bytes at the defaults")));
    assert!(protocol_words.contains(&format!(
        "{} bytes for every keymap action (16 keys each, those of its key sequences included)",
        askd::session::snapshot::KEYMAP_ACTION_BYTES
    )));
}
