//! `askd mcp` end to end: the real binary spoken to as an MCP host speaks to it (JSON-RPC lines
//! on its stdin and stdout), with a hub of the test's own (its runtime and state directories)
//! and a person's client attached to that hub that answers. Covers `tools/list`, a call
//! answered, declined, timed out, cancelled by the host, a malformed call, progress, and a hub
//! killed while the person thinks.
//!
//! Every wait is bounded by [`GUARD`], which only turns a hang into a failure.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

use askd::cli::hub::{HubClient, HubOptions, Notification};
use askd::cli::mcp::answer::{DECLINED, TIMED_OUT};
use askd::cli::mcp::server::WAITING;
use askd::cli::mcp::tool::DESCRIPTION;
use askd::server::discovery::{self, HubFile};
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::support::{ASKD, GUARD};

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

fn block_on<F: std::future::Future>(body: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(body)
}

async fn within<F: std::future::Future>(what: &str, future: F) -> F::Output {
    tokio::time::timeout(GUARD, future)
        .await
        .unwrap_or_else(|_| panic!("gave up waiting for {what}"))
}

/// A runtime directory, a state directory and a project folder of the test's own; the hubs
/// started there are killed when it goes.
struct Place {
    runtime: tempfile::TempDir,
    state: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        Place {
            runtime: tempfile::tempdir().unwrap(),
            state: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        }
    }

    fn dir(&self) -> PathBuf {
        self.runtime.path().join("askd")
    }

    fn file(&self) -> Option<HubFile> {
        let text = std::fs::read_to_string(self.dir().join(discovery::FILE)).ok()?;
        serde_json::from_str(&text).ok()
    }

    fn options(&self, name: &str) -> HubOptions {
        HubOptions {
            dir: Some(self.dir()),
            client_name: Some(name.to_owned()),
            askd: Some(ASKD.into()),
            idle_exit: Duration::from_secs(120),
            start_wait: GUARD,
            log: Some(self.state.path().join("hub.log")),
            hub_args: Vec::new(),
            hub_env: vec![
                (
                    OsString::from("XDG_STATE_HOME"),
                    self.state.path().as_os_str().to_owned(),
                ),
                ("ASKD_NO_BROWSER".into(), "1".into()),
            ],
        }
    }

    /// The project folder, as `askd mcp` names it.
    fn folder(&self) -> String {
        self.project.path().to_string_lossy().into_owned()
    }

    /// A hub started here, and a person's client attached to it.
    async fn person(&self) -> (HubClient, UnboundedReceiver<Notification>) {
        let client = within(
            "the hub",
            HubClient::connect_or_start(&self.options("person")),
        )
        .await
        .unwrap();
        let seen = client.notifications();
        client
            .request("subscribe", json!({ "attach": true }))
            .await
            .unwrap();
        (client, seen)
    }

    /// `askd mcp ARGS` started here, greeted as `host`.
    fn mcp(&self, args: &[&str], host: Value) -> Mcp {
        let mut child = Command::new(ASKD)
            .arg("mcp")
            .args(args)
            .current_dir(self.project.path())
            .env("XDG_RUNTIME_DIR", self.runtime.path())
            .env("XDG_STATE_HOME", self.state.path())
            .env("ASKD_NO_BROWSER", "1")
            .env_remove("ASKD_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("askd mcp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, messages) = unbounded_channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("askd mcp wrote a line that is not JSON: {e}: {line}")
                });
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp {
            child,
            stdin: Some(stdin),
            messages,
            seen: Vec::new(),
        };
        mcp.send(
            json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": host } }),
        );
        mcp
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Some(file) = self.file() {
            // SAFETY: a signal to a hub this test started.
            unsafe { libc::kill(file.pid as i32, libc::SIGKILL) };
        }
    }
}

/// `askd mcp` and the host's side of its pipes.
struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: UnboundedReceiver<Value>,
    /// Messages received while waiting for another.
    seen: Vec<Value>,
}

impl Mcp {
    fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next message that `matches`, the others kept in `seen`.
    async fn until(&mut self, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
        if let Some(at) = self.seen.iter().position(&matches) {
            return self.seen.remove(at);
        }
        within(what, async {
            loop {
                let message = self.messages.recv().await.expect("askd mcp goes on");
                if matches(&message) {
                    return message;
                }
                self.seen.push(message);
            }
        })
        .await
    }

    /// The reply to request `id`.
    async fn reply(&mut self, id: u64) -> Value {
        self.until(&format!("the reply to {id}"), |m| {
            m["id"] == id && m.get("method").is_none()
        })
        .await
    }

    /// Finishes the handshake.
    async fn ready(&mut self) -> Value {
        let greeting = self.reply(0).await;
        self.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        greeting
    }

    /// Calls `ask` with `arguments` as request `id`, asking for progress as `token`.
    fn call(&mut self, id: u64, arguments: Value, token: &str) {
        self.send(
            json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "ask", "arguments": arguments, "_meta": { "progressToken": token } } }),
        );
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The next notification of `method`, others passed over.
async fn next_of(seen: &mut UnboundedReceiver<Notification>, method: &str) -> Notification {
    within(method, async {
        loop {
            let n = seen.recv().await.expect("the connection goes on");
            if n.method == method {
                return n;
            }
        }
    })
    .await
}

/// The question of the examples: Claude Code's `AskUserQuestion` shape.
fn questions() -> Value {
    json!({ "questions": [
        { "question": "Which database should we use?", "header": "Database", "multiSelect": false,
          "options": [
            { "label": "Postgres", "description": "Full SQL, runs as a server" },
            { "label": "SQLite", "description": "A single file, no server",
              "preview": "db.sqlite3" } ] },
        { "question": "Which features?", "header": "Features", "multiSelect": true,
          "options": [
            { "label": "Auth", "description": "Sign-in" },
            { "label": "Search", "description": "Full text" } ] } ] })
}

const HOST: &str = "Test Host";

fn host() -> Value {
    json!({ "name": "test-host", "title": HOST, "version": "1.0.0" })
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[test]
fn the_server_offers_ask_with_the_ask_user_question_shape() {
    let place = Place::new();
    block_on(async {
        let mut mcp = place.mcp(&[], host());
        let greeting = mcp.ready().await;
        assert_eq!(
            greeting["result"],
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "askd", "title": "askd", "version": env!("CARGO_PKG_VERSION") },
                "instructions": "askd asks the user structured questions (its tool `ask`) in their editor, browser or terminal, and returns the answers."
            })
        );
        mcp.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" }));
        let listed = mcp.reply(1).await;
        let tools = listed["result"]["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 1);
        let tool = &tools[0];
        assert_eq!(tool["name"], "ask");
        assert_eq!(tool["title"], "Ask the user");
        assert_eq!(tool["description"], DESCRIPTION);
        assert_eq!(
            tool["annotations"],
            json!({ "title": "Ask the user", "readOnlyHint": true, "openWorldHint": false })
        );
        assert_eq!(
            tool["inputSchema"],
            json!({
                "type": "object",
                "description": "The questions to ask the user.",
                "properties": {
                    "questions": {
                        "description": "The questions to ask (1 to 4), one tab each, in this order.",
                        "type": "array",
                        "items": {
                            "description": "One question.",
                            "type": "object",
                            "properties": {
                                "question": {
                                    "description": "The complete question to ask, ending with a question mark; unique among the questions\n(the answers are keyed by it).",
                                    "type": "string"
                                },
                                "header": {
                                    "description": "A very short label for the question's tab (at most 12 characters), e.g. \"Database\".",
                                    "type": "string"
                                },
                                "options": {
                                    "description": "The choices (2 to 4, labels unique). The user may also type an answer of their own.",
                                    "type": "array",
                                    "items": {
                                        "description": "One choice.",
                                        "type": "object",
                                        "properties": {
                                            "label": {
                                                "description": "What the user picks (1 to 5 words), and the answer returned when they do.",
                                                "type": "string"
                                            },
                                            "description": {
                                                "description": "What this choice means or implies.",
                                                "type": "string"
                                            },
                                            "preview": {
                                                "description": "Shown beside the options while this one is highlighted (single-choice questions): a\ncode snippet, a mock-up or a diff, as Markdown or plain text.",
                                                "type": "string"
                                            }
                                        },
                                        "required": ["label", "description"]
                                    },
                                    "minItems": 2,
                                    "maxItems": 4
                                },
                                "multiSelect": {
                                    "description": "Let the user choose more than one option.",
                                    "type": "boolean",
                                    "default": false
                                }
                            },
                            "required": ["question", "header", "options"]
                        },
                        "minItems": 1,
                        "maxItems": 4
                    }
                },
                "additionalProperties": false,
                "required": ["questions"]
            })
        );
        let output = &tool["outputSchema"];
        assert_eq!(output["type"], "object");
        assert_eq!(output["required"], json!(["status"]));
        assert_eq!(
            output["properties"]["status"]["enum"],
            json!(["answered", "declined", "timedOut", "withdrawn"])
        );
        assert_eq!(
            output["properties"]["answers"]["additionalProperties"],
            json!({ "type": "string" })
        );
        assert_eq!(output["properties"]["message"]["type"], "string");
        assert!(
            place.file().is_none(),
            "no hub is started before a question is asked"
        );
    });
}

#[test]
fn a_call_is_asked_in_the_hub_with_progress_and_answered_by_the_person() {
    let place = Place::new();
    block_on(async {
        let (person, mut seen) = place.person().await;
        let mut mcp = place.mcp(&["--progress-every", "1"], host());
        mcp.ready().await;
        mcp.call(1, questions(), "p-1");

        let opened = next_of(&mut seen, "session/opened").await;
        let session = opened.params["session"].as_str().unwrap().to_owned();
        assert!(session.starts_with("mcp-"), "{session}");
        assert_eq!(
            opened.params["asker"],
            json!({ "name": HOST, "folder": place.folder() })
        );
        assert!(opened.params["openedAt"].is_u64());
        let view = person
            .request("getView", json!({ "session": session }))
            .await
            .unwrap();
        assert_eq!(view["dialect"], "claude");

        // Progress while the person thinks: at once, then every second, in order.
        for n in 0..2 {
            let progress = mcp
                .until("progress", |m| m["method"] == "notifications/progress")
                .await;
            assert_eq!(
                progress["params"],
                json!({ "progressToken": "p-1", "progress": n as f64, "message": WAITING })
            );
        }

        person
            .request(
                "submitAnswers",
                json!({ "session": session, "answers": {
                    "answers": { "Which database should we use?": "SQLite",
                                 "Which features?": ["Auth", "Search"] },
                    "annotations": { "Which features?": { "notes": "both, please" } } } }),
            )
            .await
            .unwrap();
        let reply = mcp.reply(1).await;
        assert_eq!(
            reply["result"],
            json!({
                "content": [{ "type": "text", "text": "The user answered:\n\"Which database should we use?\" → SQLite\n\"Which features?\" → Auth, Search\n  notes: both, please" }],
                "structuredContent": {
                    "status": "answered",
                    "answers": { "Which database should we use?": "SQLite", "Which features?": "Auth, Search" },
                    "annotations": {
                        "Which database should we use?": { "preview": "db.sqlite3" },
                        "Which features?": { "notes": "both, please" }
                    }
                },
                "isError": false
            })
        );
        // The hub forgets the answered flow.
        let closed = next_of(&mut seen, "session/closed").await;
        assert_eq!(closed.params["session"], session.as_str());
    });
}

#[test]
fn a_person_who_declines_and_a_time_that_runs_out_are_results_the_model_reads() {
    let place = Place::new();
    block_on(async {
        let (person, mut seen) = place.person().await;
        let mut mcp = place.mcp(&["--timeout", "1"], host());
        mcp.ready().await;
        mcp.call(1, questions(), "p-1");
        let opened = next_of(&mut seen, "session/opened").await;
        person
            .request(
                "cancel",
                json!({ "session": opened.params["session"], "reason": "user" }),
            )
            .await
            .unwrap();
        let reply = mcp.reply(1).await;
        assert_eq!(
            reply["result"],
            json!({
                "content": [{ "type": "text", "text": DECLINED }],
                "structuredContent": { "status": "declined", "message": DECLINED },
                "isError": false
            })
        );

        // Nobody answers within --timeout.
        mcp.call(2, questions(), "p-2");
        let reply = mcp.reply(2).await;
        assert_eq!(
            reply["result"],
            json!({
                "content": [{ "type": "text", "text": TIMED_OUT }],
                "structuredContent": { "status": "timedOut", "message": TIMED_OUT },
                "isError": false
            })
        );
    });
}

#[test]
fn a_call_the_host_cancels_ends_its_flow_aborted_and_gets_no_reply() {
    let place = Place::new();
    block_on(async {
        let (_person, mut seen) = place.person().await;
        let mut mcp = place.mcp(&[], host());
        mcp.ready().await;
        mcp.call(7, questions(), "p-7");
        let opened = next_of(&mut seen, "session/opened").await;
        mcp.send(
            json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": { "requestId": 7, "reason": "the user pressed Escape" } }),
        );
        let changed = next_of(&mut seen, "session/changed").await;
        assert_eq!(changed.params["session"], opened.params["session"]);
        assert_eq!(changed.params["status"], "done");
        assert_eq!(
            changed.params["result"],
            json!({ "behavior": "deny", "message": "The request was withdrawn before the user answered" })
        );
        // The next request is answered, and the cancelled one never is.
        mcp.send(json!({ "jsonrpc": "2.0", "id": 8, "method": "ping" }));
        assert_eq!(mcp.reply(8).await["result"], json!({}));
        assert!(
            !mcp.seen.iter().any(|m| m["id"] == 7),
            "a reply to the cancelled call: {:?}",
            mcp.seen
        );
    });
}

#[test]
fn a_malformed_call_is_a_tool_error_naming_each_field() {
    let place = Place::new();
    block_on(async {
        let mut mcp = place.mcp(&[], host());
        mcp.ready().await;
        mcp.call(
            1,
            json!({ "questions": [{ "question": "Which?", "options": [
                { "label": "A", "description": "a" }, { "label": "A" }] }] }),
            "p-1",
        );
        let reply = mcp.reply(1).await;
        assert_eq!(
            reply["result"],
            json!({
                "content": [{ "type": "text", "text": "The questions were not asked: the input of ask is malformed. Fix these fields and call it again:\n- questions[0].header: Question 1: header is required\n- questions[0].options[1].label: Question 1, option 2: duplicate option label \"A\"\n- questions[0].options[1].description: Question 1, option 2: description is required" }],
                "isError": true
            })
        );
        mcp.call(2, json!({}), "p-2");
        let reply = mcp.reply(2).await;
        assert_eq!(reply["result"]["isError"], true);
        assert_eq!(
            reply["result"]["content"][0]["text"],
            "The questions were not asked: the input of ask is malformed. Fix these fields and call it again:\n- questions: questions is required"
        );
        assert!(place.file().is_none(), "nothing was asked");
    });
}

#[test]
fn a_hub_killed_while_the_person_thinks_is_replaced_and_the_flow_goes_on() {
    let place = Place::new();
    block_on(async {
        let (person, mut seen) = place.person().await;
        let first = place.file().unwrap();
        let mut mcp = place.mcp(&[], host());
        mcp.ready().await;
        mcp.call(1, questions(), "p-1");
        let opened = next_of(&mut seen, "session/opened").await;
        let session = opened.params["session"].as_str().unwrap().to_owned();
        drop(person);
        // SAFETY: a signal to the hub this test started.
        unsafe { libc::kill(first.pid as i32, libc::SIGKILL) };
        // askd mcp starts the next hub, which recovers the flow, and asks again in it.
        let said = mcp
            .until("progress about the hub", |m| {
                m["method"] == "notifications/progress"
                    && m["params"]["message"]
                        .as_str()
                        .is_some_and(|t| t.starts_with("askd's hub went away"))
            })
            .await;
        assert!(
            said["params"]["message"]
                .as_str()
                .unwrap()
                .ends_with("; asking again (attempt 1 of 3)"),
            "{said}"
        );
        let person = within("the next hub", async {
            loop {
                if let Some(file) = place.file().filter(|f| f.pid != first.pid)
                    && let Ok(client) = HubClient::connect_to(file, &place.options("person")).await
                {
                    return client;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
        let listed = within("the flow asked again", async {
            loop {
                let listed = person.request("sessions", json!({})).await.unwrap();
                if listed[0]["status"] == "open" {
                    return listed;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
        assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
        assert_eq!(listed[0]["session"], session.as_str());
        person
            .request(
                "submitAnswers",
                json!({ "session": session, "answers": { "answers": {
                    "Which database should we use?": "Postgres", "Which features?": "Auth" } } }),
            )
            .await
            .unwrap();
        let reply = mcp.reply(1).await;
        assert_eq!(
            reply["result"]["structuredContent"],
            json!({ "status": "answered", "answers": {
                "Which database should we use?": "Postgres", "Which features?": "Auth" } })
        );
    });
}

#[test]
fn a_host_that_leaves_mid_question_withdraws_it_and_askd_mcp_exits() {
    let place = Place::new();
    block_on(async {
        let (_person, mut seen) = place.person().await;
        let mut mcp = place.mcp(&[], host());
        mcp.ready().await;
        mcp.call(1, questions(), "p-1");
        let opened = next_of(&mut seen, "session/opened").await;
        // The host closes askd's stdin, as it does when it quits.
        drop(mcp.stdin.take());
        let changed = next_of(&mut seen, "session/changed").await;
        assert_eq!(changed.params["session"], opened.params["session"]);
        assert_eq!(changed.params["status"], "done");
        assert_eq!(
            changed.params["result"]["message"],
            "The request was withdrawn before the user answered"
        );
        let status = within("askd mcp to exit", async {
            loop {
                if let Some(status) = mcp.child.try_wait().unwrap() {
                    return status;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
        assert_eq!(status.code(), Some(0));
    });
}
