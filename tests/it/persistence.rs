//! Crash safety through the real binary: a server killed with SIGKILL loses nothing typed; the
//! next one on the same state directory offers the flows as recovered (when a client asks),
//! resumes them exactly as they were when a client says so (`recover`, `open` with `resume`),
//! and never mixes them into a new flow; what does not restore is set aside and reported,
//! never trusted.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::{Server, untimed};

/// A flow with a custom row: `3` opens its editor.
fn payload() -> Value {
    json!({
        "title": "Deploy",
        "questions": [
            { "id": "env", "label": "Env", "prompt": "Where to?",
              "options": [{ "value": "prod", "label": "Prod" }, { "value": "dev", "label": "Dev" }] },
            { "id": "why", "label": "Why", "prompt": "Why now?",
              "options": [{ "value": "fix", "label": "A fix" }] }
        ]
    })
}

/// A state directory of its own, and a server on it.
struct Dir(TempDir);

impl Dir {
    fn new() -> Dir {
        Dir(tempfile::tempdir().expect("a temporary directory"))
    }

    fn path(&self) -> PathBuf {
        self.0.path().join("state")
    }

    fn start(&self) -> Server {
        Server::start(&["--state-dir", self.path().to_str().expect("UTF-8")])
    }

    /// Every file under the state directory, relative to it, sorted; directories end in `/`.
    fn files(&self) -> Vec<String> {
        fn list(root: &Path, dir: &Path, out: &mut Vec<String>) {
            for entry in fs::read_dir(dir).expect("readable").flatten() {
                let path = entry.path();
                let name = path
                    .strip_prefix(root)
                    .expect("under the root")
                    .display()
                    .to_string();
                if path.is_dir() {
                    out.push(format!("{name}/"));
                    list(root, &path, out);
                } else {
                    out.push(name);
                }
            }
        }
        let mut out = Vec::new();
        list(&self.path(), &self.path(), &mut out);
        out.sort();
        out
    }

    /// The files of the state directory, each process's directory named `<instance>`.
    fn shapes(&self) -> Vec<String> {
        self.files()
            .into_iter()
            .map(|name| match name.split_once('/') {
                Some((_, rest)) => format!("<instance>/{rest}"),
                None => name,
            })
            .collect()
    }
}

/// Typed into an editor, the cursor moved: SIGKILL, then a new server on the same directory
/// lists the flow as recovered, and `open` of its id on the same request resumes it with the
/// draft and the cursor exactly as they were.
#[test]
fn a_killed_server_loses_nothing_typed() {
    let dir = Dir::new();
    let mut first = dir.start();
    first.ok(
        "open",
        json!({ "session": "call-7", "payload": payload(), "width": 60 }),
    );
    first.ok("keys", json!({ "session": "call-7", "keys": "3" }));
    first.ok(
        "insert",
        json!({ "session": "call-7", "text": "the migration is\nready" }),
    );
    first.ok(
        "keys",
        json!({ "session": "call-7", "keys": "<Up><Left><Left>" }),
    );
    let before = first.view("call-7");
    assert_eq!(before["editor"]["text"], json!("the migration is\nready"));
    assert_eq!(
        before["editor"]["cursor"],
        json!({ "offset": 3, "byte": 3, "utf16": 3, "line": 0, "grapheme": 3, "column": 3 })
    );
    first.kill();
    // A state cut short (as a crash of the machine may leave the log) is passed over.
    let log = dir
        .files()
        .into_iter()
        .find(|f| f.ends_with(".flow.log"))
        .expect("the flow log");
    let mut torn = fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join(log))
        .expect("the log opens");
    std::io::Write::write_all(&mut torn, br#"{"keymap":{},"nonInter"#).expect("append");

    let mut second = dir.start();
    assert_eq!(
        untimed(second.ok("sessions", json!({}))),
        json!([{ "session": "call-7", "title": "Deploy", "status": "recovered",
                 "progress": { "answered": 0, "total": 2 }, "typed": true }])
    );
    let resumed = second.ok("recover", json!({ "session": "call-7", "width": 60 }));
    assert_eq!(resumed["view"], before);
    assert_eq!(
        untimed(second.ok("sessions", json!({}))),
        json!([{ "session": "call-7", "title": "Deploy", "status": "open" }])
    );
    // The flow goes on from there: what is typed after the line cut short is kept too.
    second.ok("keys", json!({ "session": "call-7", "keys": "<End>!" }));
    let typed = second.view("call-7");
    second.kill();
    let mut second = dir.start();
    second.ok(
        "open",
        json!({ "session": "call-7", "payload": payload(), "width": 60, "resume": true }),
    );
    assert_eq!(second.view("call-7"), typed);
    second.ok("keys", json!({ "session": "call-7", "keys": "<BS>" }));
    // Once done, it leaves the directory.
    let step = second.ok(
        "keys",
        json!({ "session": "call-7", "keys": "<End> now<CR>1<CR>" }),
    );
    assert_eq!(step["status"], json!("done"));
    assert_eq!(
        step["result"]["details"]["answers"]["env"]["customText"],
        json!("the migration is now\nready")
    );
    assert_eq!(dir.shapes(), ["<instance>/"]);
    second.kill();
    let mut third = dir.start();
    assert_eq!(untimed(third.ok("sessions", json!({}))), json!([]));
    let (status, rest) = third.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, Vec::<Value>::new());
    // A server that ends cleanly leaves no directory of its own behind.
    assert_eq!(dir.shapes(), Vec::<String>::new());
}

/// A pending `ask` is lost with its process; the client asks again (the same tool call) with
/// `resume: true` and the flow resumes, its `ask` answered when it completes.
#[test]
fn an_ask_asked_again_resumes_its_flow() {
    let dir = Dir::new();
    let mut first = dir.start();
    first.send(&json!({ "jsonrpc": "2.0", "id": "ask-1", "method": "ask",
        "params": { "session": "tool-3", "payload": payload() } }));
    first.ok("keys", json!({ "session": "tool-3", "keys": "2" }));
    first.kill();
    let mut second = dir.start();
    second.send(&json!({ "jsonrpc": "2.0", "id": "ask-2", "method": "ask",
        "params": { "session": "tool-3", "payload": payload(), "resume": true } }));
    let step = second.ok("keys", json!({ "session": "tool-3", "keys": "1<CR>1" }));
    assert_eq!(step["status"], json!("done"));
    let answer = second.reply_to(&json!("ask-2"));
    assert_eq!(
        answer["result"]["details"]["answers"],
        json!({
            "env": { "values": ["dev"], "labels": ["Dev"], "indices": [2] },
            "why": { "values": ["fix"], "labels": ["A fix"], "indices": [1] }
        })
    );
}

/// Nothing of an ended process is read back until a client asks: a server that starts leaves
/// the killed one's directory as it is; `sessions` then adopts it.
#[test]
fn flows_of_an_ended_process_are_adopted_only_when_a_client_asks() {
    let dir = Dir::new();
    let mut first = dir.start();
    first.open("a", payload());
    first.kill();
    let left = dir.files();
    let mut second = dir.start();
    second.ok("initialize", json!({}));
    let mut open = second.open("b", payload());
    open["view"] = json!(null);
    assert_eq!(open["status"], json!("open"));
    // The killed server's directory is where it was; the new one has a directory of its own.
    let files = dir.files();
    for file in &left {
        assert!(files.contains(file), "{file} was taken: {files:?}");
    }
    assert_eq!(files.len(), left.len() + 3, "{files:?}");
    assert_eq!(
        untimed(second.ok("sessions", json!({}))),
        json!([
            { "session": "a", "title": "Deploy", "status": "recovered",
              "progress": { "answered": 0, "total": 2 }, "typed": false },
            { "session": "b", "title": "Deploy", "status": "open" }
        ])
    );
    let files = dir.files();
    assert!(!files.contains(&left[0]), "{files:?}");
}

/// An `open` of a recovered flow's id without `resume` (or with it, on another request) opens
/// a new flow: the old draft is not shown, and the recovered flow stays offered beside it.
/// `recover` resumes it under another id while one of its id is open; `discard` drops it and
/// its files.
#[test]
fn a_recovered_flow_is_never_mixed_into_a_new_one() {
    let dir = Dir::new();
    let mut first = dir.start();
    first.open("a", payload());
    first.open("b", payload());
    first.ok("keys", json!({ "session": "a", "keys": "22dr" }));
    first.ok("keys", json!({ "session": "b", "keys": "2" }));
    let drafted = first.view("a");
    assert_eq!(drafted["editor"]["text"], json!("dr"));
    first.kill();
    let mut second = dir.start();
    let listed = json!([
        { "session": "a", "title": "Deploy", "status": "recovered",
          "progress": { "answered": 1, "total": 2 }, "typed": true },
        { "session": "b", "title": "Deploy", "status": "recovered",
          "progress": { "answered": 1, "total": 2 }, "typed": false }
    ]);
    assert_eq!(untimed(second.ok("sessions", json!({}))), listed);
    // The same request under the same id, without `resume`: a new flow, no draft.
    let fresh = second.open("a", payload());
    assert_eq!(fresh["view"]["activeTab"], json!(0));
    assert_eq!(fresh["view"]["editor"], json!(null));
    // Another request with `resume`: a new flow too.
    let mut other = payload();
    other["title"] = json!("Other");
    let step = second.ok(
        "open",
        json!({ "session": "b", "payload": other, "resume": true }),
    );
    assert_eq!(step["view"]["title"], json!("Other"));
    assert_eq!(step["view"]["activeTab"], json!(0));
    assert_eq!(
        untimed(second.ok("sessions", json!({}))),
        json!([listed[0], listed[1],
            { "session": "a", "title": "Deploy", "status": "open" },
            { "session": "b", "title": "Other", "status": "open" }])
    );
    // `a` is open: the recovered `a` is resumed under another id, exactly as it was.
    let error = second.err("recover", json!({ "session": "a" }));
    assert_eq!(
        error,
        json!({ "code": -32602, "message": "invalid params: session: \"a\" is already in use by an open session; recover it `as` another id" })
    );
    let resumed = second.ok("recover", json!({ "session": "a", "as": "a-2" }));
    assert_eq!(resumed["session"], json!("a-2"));
    assert_eq!(resumed["view"]["editor"], drafted["editor"]);
    assert_eq!(resumed["view"]["activeTab"], drafted["activeTab"]);
    assert_eq!(
        second.err("recover", json!({ "session": "a" })),
        json!({ "code": -32001, "message": "no recovered flow has the id \"a\"" })
    );
    // `discard` drops `b` and its files, once.
    let before = dir.files().len();
    assert_eq!(
        second.ok("discard", json!({ "session": "b" })),
        json!({ "discarded": true })
    );
    // Its two files go, and the directory taken over that held them, left empty (the flow
    // resumed as `a-2` is written in the new server's own directory).
    assert_eq!(dir.files().len(), before - 3);
    assert_eq!(
        second.ok("discard", json!({ "session": "b" })),
        json!({ "discarded": false })
    );
    assert_eq!(
        untimed(second.ok("sessions", json!({}))),
        // `a-2` is listed by when it first opened, before the server was killed.
        json!([
            { "session": "a-2", "title": "Deploy", "status": "open" },
            { "session": "a", "title": "Deploy", "status": "open" },
            { "session": "b", "title": "Other", "status": "open" }
        ])
    );
    second.ok("keys", json!({ "session": "a-2", "keys": "!" }));
    second.kill();
    // The flow resumed as `a-2` is kept under that id, opened when it first was.
    let mut third = dir.start();
    assert_eq!(
        untimed(third.ok("sessions", json!({})))
            .as_array()
            .expect("a list")
            .iter()
            .map(|s| (
                s["session"].clone(),
                s["status"].clone(),
                s["typed"].clone()
            ))
            .collect::<Vec<_>>(),
        [
            (json!("a-2"), json!("recovered"), json!(true)),
            (json!("a"), json!("recovered"), json!(false)),
            (json!("b"), json!("recovered"), json!(false)),
        ]
    );
    let step = third.ok("recover", json!({ "session": "a-2" }));
    assert_eq!(step["view"]["editor"]["text"], json!("dr!"));
}

/// Recovered flows never keep new ones out: they are offered apart from the table. At most
/// `--max-sessions` are offered; the others stay on disk for a later process.
#[test]
fn recovered_flows_never_keep_new_ones_out_and_are_bounded() {
    let dir = Dir::new();
    let mut first = dir.start();
    first.open("a", payload());
    first.open("b", payload());
    first.open("c", payload());
    first.kill();
    let state = dir.path();
    let state = state.to_str().expect("UTF-8");
    let mut second = Server::start(&["--state-dir", state, "--max-sessions", "2"]);
    let offered = untimed(second.ok("sessions", json!({})));
    assert_eq!(offered.as_array().map(Vec::len), Some(2), "{offered}");
    let mut other = payload();
    other["title"] = json!("Other");
    second.open("d", other.clone());
    second.open("e", other);
    assert_eq!(
        untimed(second.ok("sessions", json!({})))
            .as_array()
            .expect("a list")
            .iter()
            .map(|s| s["status"].clone())
            .collect::<Vec<_>>(),
        ["recovered", "recovered", "open", "open"]
    );
    // The one not offered is on disk still, offered once this server has ended.
    second.kill();
    let mut third = dir.start();
    let ids: Vec<Value> = untimed(third.ok("sessions", json!({})))
        .as_array()
        .expect("a list")
        .iter()
        .map(|s| s["session"].clone())
        .collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e"]);
}

/// Two servers on one state directory keep to their own files: killing one leaves the other
/// as it was, and only the killed one's flows are recovered by a third.
#[test]
fn servers_sharing_a_state_directory_keep_apart() {
    let dir = Dir::new();
    let mut a = dir.start();
    let mut b = dir.start();
    let titled = |title: &str| {
        let mut p = payload();
        p["title"] = json!(title);
        p
    };
    a.open("x", titled("From A"));
    b.open("x", titled("From B"));
    a.ok("keys", json!({ "session": "x", "keys": "3a" }));
    b.ok("keys", json!({ "session": "x", "keys": "3b" }));
    a.kill();
    let mut c = dir.start();
    assert_eq!(
        untimed(c.ok("sessions", json!({}))),
        json!([{ "session": "x", "title": "From A", "status": "recovered",
                 "progress": { "answered": 0, "total": 2 }, "typed": true }])
    );
    let step = c.ok("recover", json!({ "session": "x" }));
    assert_eq!(step["view"]["editor"]["text"], json!("a"));
    let step = b.ok("keys", json!({ "session": "x", "keys": "c" }));
    assert_eq!(step["view"]["editor"]["text"], json!("bc"));
    // Typed into last, A's flow is the one a later server keeps of the two.
    let step = c.ok("keys", json!({ "session": "x", "keys": "z" }));
    assert_eq!(step["view"]["editor"]["text"], json!("az"));
    b.kill();
    c.kill();
    let mut d = dir.start();
    assert_eq!(
        untimed(d.ok("sessions", json!({}))),
        json!([{ "session": "x", "title": "From A", "status": "recovered",
                 "progress": { "answered": 0, "total": 2 }, "typed": true }])
    );
    assert_eq!(
        d.ok("recover", json!({ "session": "x" }))["view"]["editor"]["text"],
        json!("az")
    );
    // All it wrote to stderr is read once it has ended.
    d.kill();
    assert!(
        d.stderr_text()
            .contains("two recovered flows have the id \"x\"; the older one is set aside")
    );
    // B's files, set aside by the server that kept A's (in the directory it took over from
    // B, `<instance>.<k>`), are named for why.
    let aside: Vec<String> = dir
        .files()
        .into_iter()
        .filter(|name| !name.contains('/') && name.contains(".s"))
        .map(|name| name[name.find(".s").expect("<instance>.<file>") + 1..].to_owned())
        .collect();
    assert_eq!(
        aside,
        ["s1.flow.log.superseded", "s1.request.json.superseded"]
    );
}

/// What does not restore is reported and set aside, never trusted: a file that is not JSON, a
/// request file of another format, a request its dialect refuses, a flow no key reaches, a
/// request without its flow, a file askd does not write. Temporary files go; what is whole
/// is recovered; a directory that is not a process's is left alone.
#[test]
fn corrupt_and_foreign_files_are_set_aside() {
    let dir = Dir::new();
    let mut first = dir.start();
    first.open("good", payload());
    first.ok("keys", json!({ "session": "good", "keys": "2" }));
    first.kill();
    let instance = dir
        .files()
        .into_iter()
        .find_map(|f| f.strip_suffix('/').map(str::to_owned))
        .expect("the killed server's directory");
    let dead = dir.path().join(&instance);
    let request = fs::read_to_string(dead.join("s1.request.json")).expect("the request file");
    let flow = fs::read_to_string(dead.join("s1.flow.log")).expect("the flow log");
    let write = |name: &str, text: &str| fs::write(dead.join(name), text).expect("write");
    write("s2.request.json", "not json");
    write("s2.flow.log", &flow);
    write(
        "s3.request.json",
        &request.replace("askd.state", "other.state"),
    );
    write("s3.flow.log", &flow);
    let refused = request.replace(r#""dialect":"pi""#, r#""dialect":"dsh""#);
    write(
        "s4.request.json",
        &refused.replace(r#""session":"good""#, r#""session":"s4""#),
    );
    write("s4.flow.log", &flow);
    write(
        "s5.request.json",
        &request.replace(r#""session":"good""#, r#""session":"s5""#),
    );
    write("s5.flow.log", &flow.replace(r#""row":0"#, r#""row":9"#));
    write(
        "s6.request.json",
        &request.replace(r#""session":"good""#, r#""session":"s6""#),
    );
    write("notes.txt", "hello");
    write("s7.flow.log.tmp", "{");
    fs::create_dir(dir.path().join("not-a-process")).expect("mkdir");
    assert!(flow.contains(r#""row":0"#), "{flow}");

    let mut second = dir.start();
    assert_eq!(
        untimed(second.ok("sessions", json!({}))),
        json!([{ "session": "good", "title": "Deploy", "status": "recovered",
                 "progress": { "answered": 1, "total": 2 }, "typed": false }])
    );
    let step = second.ok("recover", json!({ "session": "good" }));
    assert_eq!(step["view"]["activeTab"], json!(1));
    // All it wrote to stderr is read once it has ended.
    second.kill();
    let log = second.stderr_text();
    for (file, reason) in [
        ("s2.request.json", "its request file is not one askd writes"),
        ("s2.flow.log", "its request file is not one askd writes"),
        (
            "s3.request.json",
            "its request file is of format \"other.state\" version 2",
        ),
        (
            "s4.request.json",
            "the request is refused in the dsh dialect: questions[0] (\"env\"): question is required",
        ),
        ("s5.flow.log", "row 9 is out of range"),
        ("s6.request.json", "its flow file is missing"),
        ("notes.txt", "it is not a file askd writes"),
    ] {
        assert!(
            log.contains(&format!(
                "{file} does not hold a flow that can be restored ({reason}); it is set aside as "
            )),
            "{file}: {log}"
        );
    }
    let aside: Vec<String> = dir
        .files()
        .into_iter()
        .filter_map(|f| f.strip_suffix(".corrupt").map(str::to_owned))
        .map(|f| {
            f.split_once(".1.")
                .map(|(_, name)| name.to_owned())
                .unwrap_or(f)
        })
        .collect();
    assert_eq!(
        aside,
        [
            "notes.txt",
            "s2.flow.log",
            "s2.request.json",
            "s3.flow.log",
            "s3.request.json",
            "s4.flow.log",
            "s4.request.json",
            "s5.flow.log",
            "s5.request.json",
            "s6.request.json",
        ]
    );
    // The temporary file is gone; the foreign directory is where it was.
    assert!(dir.files().iter().all(|f| !f.ends_with(".tmp")));
    assert!(dir.files().contains(&"not-a-process/".to_owned()));
}

/// A claude request (`AskUserQuestion`), two questions.
fn claude_input() -> Value {
    json!({ "questions": [
        { "question": "Which database?", "header": "DB", "multiSelect": false, "options": [
            { "label": "Postgres", "description": "" }, { "label": "SQLite", "description": "" } ] },
        { "question": "Which cache?", "header": "Cache", "multiSelect": false, "options": [
            { "label": "Redis", "description": "" }, { "label": "None", "description": "" } ] } ] })
}

/// The `open` params of the claude flow of these tests: its dialect and the options of it.
fn claude_open(session: &str) -> Value {
    json!({ "session": session, "payload": claude_input(), "dialect": "claude", "width": 60,
            "claude": { "unansweredV1": true } })
}

/// A flow of another dialect than pi, opened with options of its dialect, survives SIGKILL
/// the same way: the draft and cursor come back exactly, and the options it was opened with
/// still shape its result (a skipped question is marked, as `unansweredV1` asks).
#[test]
fn a_killed_server_loses_nothing_typed_in_another_dialect() {
    let dir = Dir::new();
    let mut first = dir.start();
    first.ok("open", claude_open("tool-c"));
    first.ok("keys", json!({ "session": "tool-c", "keys": "3" }));
    first.ok("insert", json!({ "session": "tool-c", "text": "DuckDB" }));
    first.ok(
        "keys",
        json!({ "session": "tool-c", "keys": "<Left><Left>" }),
    );
    let before = first.view("tool-c");
    assert_eq!(before["dialect"], json!("claude"));
    assert_eq!(before["editor"]["text"], json!("DuckDB"));
    assert_eq!(before["editor"]["cursor"]["offset"], json!(4));
    first.kill();

    let mut second = dir.start();
    assert_eq!(
        untimed(second.ok("sessions", json!({}))),
        json!([{ "session": "tool-c", "status": "recovered",
                 "progress": { "answered": 0, "total": 2 }, "typed": true }])
    );
    let mut resume = claude_open("tool-c");
    resume["resume"] = json!(true);
    let resumed = second.ok("open", resume);
    assert_eq!(resumed["view"], before);
    let step = second.ok(
        "keys",
        json!({ "session": "tool-c", "keys": "<End>!<CR><Tab>1" }),
    );
    assert_eq!(step["status"], json!("done"));
    assert_eq!(
        step["result"],
        json!({ "behavior": "allow", "updatedInput": {
            "questions": claude_input()["questions"],
            "answers": { "Which database?": "DuckDB!" },
            "annotations": { "Which cache?": { "unanswered": "skipped" } } } })
    );
    assert_eq!(dir.shapes(), ["<instance>/"]);
}

/// An mcp form opened with its requester, its draft refused by the form's checks: after
/// SIGKILL the new server shows the same screen, refusal and requester included.
#[test]
fn a_refused_draft_in_an_mcp_form_survives_a_kill() {
    let params = json!({ "message": "How many replicas?", "requestedSchema": { "type": "object",
        "properties": { "n": { "type": "integer", "title": "Replicas", "minimum": 1 } },
        "required": ["n"] } });
    let open = json!({ "session": "e-1", "payload": params, "dialect": "mcp", "width": 60,
                       "mcp": { "requester": { "name": "deploy-server" } }, "resume": true });
    let dir = Dir::new();
    let mut first = dir.start();
    first.ok("open", open.clone());
    first.ok("keys", json!({ "session": "e-1", "keys": "0<CR>" }));
    let before = first.view("e-1");
    assert_eq!(before["requester"], json!("deploy-server"));
    assert_eq!(before["editor"]["text"], json!("0"));
    assert_eq!(
        before["editor"]["error"],
        json!("Enter a whole number of at least 1")
    );
    first.kill();

    let mut second = dir.start();
    let resumed = second.ok("open", open);
    assert_eq!(resumed["view"], before);
    let step = second.ok("keys", json!({ "session": "e-1", "keys": "<BS>3<CR>1" }));
    assert_eq!(step["status"], json!("done"));
    assert_eq!(
        step["result"],
        json!({ "action": "accept", "content": { "n": 3 } })
    );
}

/// The deadline of a flow (`timeoutMs`) is kept with what the flow keeps as it opened: a flow
/// recovered before its deadline keeps it, and one whose deadline passed while no server ran
/// is dropped as timed out when a server reads it back, its files leaving the directory.
#[test]
fn a_recovered_flow_keeps_its_deadline_and_is_dropped_once_past_it() {
    let dir = Dir::new();
    let mut first = dir.start();
    let open = |session: &str| {
        json!({ "session": session, "payload": payload(), "timeoutMs": 3_600_000,
                "resume": true })
    };
    let opened = first.ok("open", open("later"));
    let deadline = opened["view"]["deadline"].as_u64().expect("a deadline");
    let past = first.ok("open", open("past"))["view"]["deadline"].clone();
    first.ok("keys", json!({ "session": "past", "keys": "2" }));
    first.kill();
    // The deadline of `past` goes by while no server runs.
    let path = dir
        .files()
        .into_iter()
        .map(|f| dir.path().join(f))
        .find(|f| {
            f.to_string_lossy().ends_with(".request.json")
                && fs::read_to_string(f).is_ok_and(|t| t.contains(r#""session":"past""#))
        })
        .expect("the request file of the second flow");
    let mut stored: Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("readable")).expect("JSON");
    assert_eq!(stored["flow"]["deadline"], past, "kept as it opened");
    stored["flow"]["deadline"] = json!(1);
    fs::write(&path, stored.to_string()).expect("writable");

    let mut second = dir.start();
    assert_eq!(
        untimed(second.ok("sessions", json!({}))),
        json!([{ "session": "later", "title": "Deploy", "status": "recovered",
                 "progress": { "answered": 0, "total": 2 }, "typed": false }])
    );
    // Only the flow still open is on disk.
    let kept: Vec<String> = dir
        .shapes()
        .into_iter()
        .filter(|f| f.ends_with(".request.json"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let resumed = second.ok("open", open("later"));
    assert_eq!(resumed["status"], json!("open"));
    assert_eq!(resumed["view"]["deadline"], json!(deadline));
    assert_eq!(
        second.err("recover", json!({ "session": "past" }))["code"],
        json!(-32001)
    );
    // `past` under its id is a new flow, with a deadline of its own.
    let fresh = second.ok("open", open("past"));
    assert_eq!(fresh["status"], json!("open"));
    assert_eq!(fresh["view"]["activeTab"], json!(0));
}

/// The time in nanoseconds since the Unix epoch `days` days ago.
fn days_ago(days: u64) -> u128 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos();
    now - u128::from(days) * 24 * 3_600 * 1_000_000_000
}

/// Makes the flow log `path` say its last state was saved at `at` (nanoseconds).
fn saved_at(path: &Path, at: u128) {
    let log = fs::read_to_string(path).expect("the log");
    let last = log.lines().last().expect("a state");
    let (_, state) = last.split_once(' ').expect("a time and a state");
    fs::write(path, format!("{at} {state}\n")).expect("writable");
}

/// A recovered flow is listed with who asked it (from the request file, version 2) and its
/// age; one last saved more than seven days ago is set aside as `.expired`, never deleted and
/// never offered; a request file of version 1 (no asker, no opening time) is still read.
#[test]
fn flows_older_than_seven_days_are_set_aside_and_offers_say_who_asked_and_when() {
    let dir = Dir::new();
    let mut first = dir.start();
    first.ok("initialize", json!({ "clientInfo": { "name": "nvim" } }));
    for id in ["old", "week", "v1"] {
        first.ok(
            "open",
            json!({ "session": id, "payload": payload(),
                    "asker": { "folder": "/home/me/project" } }),
        );
    }
    first.ok("keys", json!({ "session": "week", "keys": "3why" }));
    first.kill();
    let file_of = |id: &str, ending: &str| {
        dir.files()
            .into_iter()
            .map(|f| dir.path().join(f))
            .find(|f| {
                let request = f.with_file_name(
                    f.file_name()
                        .expect("a name")
                        .to_string_lossy()
                        .replace(".flow.log", ".request.json"),
                );
                f.to_string_lossy().ends_with(ending)
                    && fs::read_to_string(request)
                        .is_ok_and(|t| t.contains(&format!(r#""session":"{id}""#)))
            })
            .expect("the flow's file")
    };
    let request: Value = serde_json::from_str(
        &fs::read_to_string(file_of("week", ".request.json")).expect("readable"),
    )
    .expect("JSON");
    assert_eq!(request["version"], json!(2));
    assert_eq!(
        request["asker"],
        json!({ "name": "nvim", "folder": "/home/me/project" })
    );
    let opened_at = request["openedAt"].as_u64().expect("openedAt");
    saved_at(&file_of("old", ".flow.log"), days_ago(8));
    let week_saved = days_ago(6);
    saved_at(&file_of("week", ".flow.log"), week_saved);
    // A request file an earlier askd wrote: version 1, no asker, no opening time.
    let v1 = file_of("v1", ".request.json");
    let mut old: Value =
        serde_json::from_str(&fs::read_to_string(&v1).expect("readable")).expect("JSON");
    old["version"] = json!(1);
    let members = old.as_object_mut().expect("an object");
    members.remove("asker");
    members.remove("openedAt");
    fs::write(&v1, old.to_string()).expect("writable");

    let mut second = dir.start();
    let listed = second.ok("sessions", json!({}));
    let week = listed
        .as_array()
        .expect("a list")
        .iter()
        .find(|s| s["session"] == "week")
        .expect("week is offered")
        .clone();
    let week_saved = u64::try_from(week_saved / 1_000_000).expect("milliseconds");
    assert_eq!(week["savedAt"], json!(week_saved));
    assert_eq!(week["openedAt"], json!(opened_at));
    let age = week["ageMs"].as_u64().expect("an age");
    assert!(
        (6 * 24 * 3_600_000..6 * 24 * 3_600_000 + 600_000).contains(&age),
        "{age}"
    );
    let v1 = listed
        .as_array()
        .expect("a list")
        .iter()
        .find(|s| s["session"] == "v1")
        .expect("v1 is offered")
        .clone();
    assert_eq!(v1["openedAt"], v1["savedAt"]);
    let mut week = week;
    for member in ["savedAt", "ageMs", "openedAt"] {
        week.as_object_mut().expect("an object").remove(member);
    }
    assert_eq!(
        week,
        json!({ "session": "week", "title": "Deploy", "status": "recovered",
                "asker": { "name": "nvim", "folder": "/home/me/project" },
                "progress": { "answered": 0, "total": 2 }, "typed": true })
    );
    assert_eq!(v1.get("asker"), None);
    assert_eq!(listed.as_array().map(Vec::len), Some(2), "{listed}");
    // The expired flow's files are set aside, named for why.
    let expired: Vec<String> = dir
        .files()
        .into_iter()
        .filter(|f| f.ends_with(".expired"))
        .map(|f| f[f.find(".s").expect("<instance>.<file>") + 1..].to_owned())
        .collect();
    assert_eq!(expired.len(), 2, "{expired:?}");
    assert!(
        expired
            .iter()
            .all(|f| f.ends_with(".flow.log.expired") || f.ends_with(".request.json.expired")),
        "{expired:?}"
    );
    let step = second.ok("recover", json!({ "session": "week" }));
    assert_eq!(step["view"]["editor"]["text"], json!("why"));
    assert_eq!(
        second.err("recover", json!({ "session": "old" }))["code"],
        json!(-32001)
    );
    second.kill();
    assert!(
        second
            .stderr_text()
            .contains("holds a flow last saved more than 7 days ago; it is set aside as "),
        "{}",
        second.stderr_text()
    );
}

/// A client that says it is a test starts clean: it is offered nothing, resumes nothing, and
/// keeps nothing on disk; the flows of the ended process stay for a later client.
#[test]
fn a_test_client_starts_clean_and_leaves_nothing() {
    let dir = Dir::new();
    let mut first = dir.start();
    first.open("snap-1", payload());
    first.ok("keys", json!({ "session": "snap-1", "keys": "3old draft" }));
    first.kill();
    let left = dir.files();
    let mut test = dir.start();
    test.ok("initialize", json!({ "capabilities": { "test": true } }));
    assert_eq!(test.ok("sessions", json!({})), json!([]));
    let step = test.ok(
        "open",
        json!({ "session": "snap-1", "payload": payload(), "resume": true }),
    );
    assert_eq!(step["view"]["activeTab"], json!(0));
    assert_eq!(step["view"]["editor"], json!(null));
    test.ok("keys", json!({ "session": "snap-1", "keys": "3new" }));
    assert_eq!(
        test.err("recover", json!({ "session": "snap-1", "as": "x" }))["code"],
        json!(-32001)
    );
    assert_eq!(
        test.ok("discard", json!({ "session": "snap-1" })),
        json!({ "discarded": false })
    );
    // Nothing was taken over or written: only the test server's empty directory is new.
    let files = dir.files();
    assert_eq!(files.len(), left.len() + 1, "{files:?}");
    for file in &left {
        assert!(files.contains(file), "{file}: {files:?}");
    }
    test.kill();
    let mut person = dir.start();
    let listed = untimed(person.ok("sessions", json!({})));
    assert_eq!(
        listed,
        json!([{ "session": "snap-1", "title": "Deploy", "status": "recovered",
                 "progress": { "answered": 0, "total": 2 }, "typed": true }])
    );
    let step = person.ok("recover", json!({ "session": "snap-1" }));
    assert_eq!(step["view"]["editor"]["text"], json!("old draft"));
}

/// Scripted runs start clean: `askd play` (and `demo`) never read the state directory, so a
/// run after a killed server shows no draft of it, run after run, and the killed server's
/// flow stays for a later server.
#[test]
fn scripted_runs_start_clean_after_a_kill() {
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let state = scratch.path().join("askd");
    let mut first = Server::start(&["--state-dir", state.to_str().expect("UTF-8")]);
    first.open("play", payload());
    first.ok("keys", json!({ "session": "play", "keys": "3left over" }));
    first.kill();
    let payload_file = scratch.path().join("payload.json");
    fs::write(&payload_file, payload().to_string()).expect("writable");
    let play = || {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_askd"))
            .args(["play", payload_file.to_str().expect("UTF-8"), "--keys", "3"])
            .env("XDG_STATE_HOME", scratch.path())
            .output()
            .expect("askd play runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).expect("UTF-8")
    };
    let once = play();
    assert!(!once.contains("left over"), "{once}");
    assert_eq!(play(), once);
    let demo = std::process::Command::new(env!("CARGO_BIN_EXE_askd"))
        .arg("demo")
        .env("XDG_STATE_HOME", scratch.path())
        .output()
        .expect("askd demo runs");
    assert!(demo.status.success());
    let mut later = Server::start(&["--state-dir", state.to_str().expect("UTF-8")]);
    let step = later.ok("recover", json!({ "session": "play" }));
    assert_eq!(step["view"]["editor"]["text"], json!("left over"));
}

/// A `recover` or `open` with `resume` whose reply is over `--max-reply-bytes` changes
/// nothing: the flow is still offered, exactly as it was, and can be resumed later.
#[test]
fn a_refused_recover_leaves_the_offer_as_it_was() {
    let dir = Dir::new();
    let mut first = dir.start();
    first.open("r", payload());
    first.ok("keys", json!({ "session": "r", "keys": "3kept" }));
    first.kill();
    let state = dir.path();
    let state = state.to_str().expect("UTF-8");
    let mut small = Server::start(&["--state-dir", state, "--max-reply-bytes", "600"]);
    let listed = untimed(small.ok("sessions", json!({})));
    assert_eq!(
        listed,
        json!([{ "session": "r", "title": "Deploy", "status": "recovered",
                 "progress": { "answered": 0, "total": 2 }, "typed": true }])
    );
    for (method, params) in [
        ("recover", json!({ "session": "r" })),
        ("recover", json!({ "session": "r", "as": "r-2" })),
        (
            "open",
            json!({ "session": "r", "payload": payload(), "resume": true }),
        ),
    ] {
        assert_eq!(small.err(method, params)["code"], json!(-32004), "{method}");
        assert_eq!(untimed(small.ok("sessions", json!({}))), listed, "{method}");
    }
    small.kill();
    let mut next = dir.start();
    let step = next.ok("recover", json!({ "session": "r", "as": "r-2" }));
    assert_eq!(step["view"]["editor"]["text"], json!("kept"));
}

/// The listing of `sessions` as a connection of `state` sees it.
fn listing(
    state: &mut askd::server::state::State,
    client: &mut askd::server::state::Client,
) -> Value {
    state.sessions(client);
    let mut out = Vec::new();
    state
        .write_list(
            client,
            &mut askd::server::Bounded::new(&mut out, usize::MAX),
        )
        .expect("the list is written");
    state.commit(client);
    untimed(serde_json::from_slice(&out).expect("JSON"))
}

/// In a process shared by several connections (the hub), a test client is offered nothing
/// either when another connection has already adopted a recovered flow: it does not list it
/// and `resume` does not resume it.
#[test]
fn a_test_client_of_a_shared_process_sees_no_offer_another_adopted() {
    use askd::server::state::{Config, State};
    let dir = Dir::new();
    let mut first = dir.start();
    first.open("shared", payload());
    first.ok("keys", json!({ "session": "shared", "keys": "3mine" }));
    first.kill();
    let mut state = State::new(Config {
        state_dir: Some(dir.path()),
        ..Config::default()
    });
    let mut person = state.client();
    let offered = json!([{ "session": "shared", "title": "Deploy", "status": "recovered",
                           "progress": { "answered": 0, "total": 2 }, "typed": true }]);
    assert_eq!(listing(&mut state, &mut person), offered);
    let mut test = state.client();
    state
        .initialize(&mut test, Some(r#"{"capabilities":{"test":true}}"#))
        .expect("initialized");
    state.commit(&mut test);
    assert_eq!(listing(&mut state, &mut test), json!([]));
    let params = json!({ "session": "shared", "payload": payload(), "resume": true });
    let step = state
        .open(&mut test, Some(&params.to_string()))
        .expect("opens");
    state.commit(&mut test);
    assert_eq!(step.view.editor, None);
    // The person still has it on offer, beside the test's new flow.
    let listed = listing(&mut state, &mut person);
    assert_eq!(
        listed,
        json!([offered[0], { "session": "shared", "title": "Deploy", "status": "open" }])
    );
    state.close_store();
}
