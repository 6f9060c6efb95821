//! Crash safety through the real binary: a server killed with SIGKILL loses nothing typed; the
//! next one on the same state directory lists the flows as recovered and resumes them exactly
//! as they were; what does not restore is set aside and reported, never trusted.

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
        json!([{ "session": "call-7", "title": "Deploy", "status": "recovered" }])
    );
    let resumed = second.ok(
        "open",
        json!({ "session": "call-7", "payload": payload(), "width": 60 }),
    );
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
        json!({ "session": "call-7", "payload": payload(), "width": 60 }),
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

/// A pending `ask` is lost with its process; the client asks again (the same tool call) and
/// the flow resumes, its `ask` answered when it completes.
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
        "params": { "session": "tool-3", "payload": payload() } }));
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

/// An `open` of a recovered id on another request gives the recovered flow up and opens the
/// new one; `close` of a recovered flow forgets it too.
#[test]
fn a_recovered_flow_is_given_up_for_another_request_or_closed() {
    let dir = Dir::new();
    let mut first = dir.start();
    first.open("a", payload());
    first.open("b", payload());
    first.ok("keys", json!({ "session": "a", "keys": "2" }));
    first.ok("keys", json!({ "session": "b", "keys": "2" }));
    first.kill();
    let mut second = dir.start();
    assert_eq!(
        untimed(second.ok("sessions", json!({}))),
        json!([
            { "session": "a", "title": "Deploy", "status": "recovered" },
            { "session": "b", "title": "Deploy", "status": "recovered" }
        ])
    );
    let mut other = payload();
    other["title"] = json!("Other");
    let step = second.open("a", other);
    assert_eq!(step["view"]["title"], json!("Other"));
    assert_eq!(step["view"]["activeTab"], json!(0));
    assert_eq!(
        second.ok("close", json!({ "session": "b" })),
        json!({ "closed": true })
    );
    assert_eq!(
        untimed(second.ok("sessions", json!({}))),
        json!([{ "session": "a", "title": "Other", "status": "open" }])
    );
    second.kill();
    let mut third = dir.start();
    assert_eq!(
        untimed(third.ok("sessions", json!({}))),
        json!([{ "session": "a", "title": "Other", "status": "recovered" }])
    );
}

/// Recovered flows never keep new ones out: with the table full of them, a new `open` gives up
/// the oldest one nobody asked for again (its files leave the directory), and a completed
/// session goes before any recovered one.
#[test]
fn recovered_flows_make_room_for_new_ones() {
    let dir = Dir::new();
    let mut first = dir.start();
    first.open("a", payload());
    first.open("b", payload());
    // `a` changed last: of the two, `b` is the older.
    first.ok("keys", json!({ "session": "a", "keys": "2" }));
    first.kill();
    let state = dir.path();
    let state = state.to_str().expect("UTF-8");
    let mut second = Server::start(&["--state-dir", state, "--max-sessions", "2"]);
    let mut other = payload();
    other["title"] = json!("Other");
    assert_eq!(
        second.open("c", other.clone())["view"]["title"],
        json!("Other")
    );
    assert_eq!(
        untimed(second.ok("sessions", json!({}))),
        json!([
            { "session": "a", "title": "Deploy", "status": "recovered" },
            { "session": "c", "title": "Other", "status": "open" }
        ])
    );
    // `c` completes; the next open makes room with it, not with the recovered `a`.
    let done = second.ok("keys", json!({ "session": "c", "keys": "11<CR>" }));
    assert_eq!(done["status"], json!("done"));
    second.open("d", other);
    assert_eq!(
        untimed(second.ok("sessions", json!({}))),
        json!([
            { "session": "a", "title": "Deploy", "status": "recovered" },
            { "session": "d", "title": "Other", "status": "open" }
        ])
    );
    second.kill();
    let mut third = dir.start();
    assert_eq!(
        untimed(third.ok("sessions", json!({}))),
        json!([
            { "session": "a", "title": "Deploy", "status": "recovered" },
            { "session": "d", "title": "Other", "status": "recovered" }
        ])
    );
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
        json!([{ "session": "x", "title": "From A", "status": "recovered" }])
    );
    let step = c.open("x", titled("From A"));
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
        json!([{ "session": "x", "title": "From A", "status": "recovered" }])
    );
    assert_eq!(
        d.open("x", titled("From A"))["view"]["editor"]["text"],
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
        json!([{ "session": "good", "title": "Deploy", "status": "recovered" }])
    );
    let step = second.open("good", payload());
    assert_eq!(step["view"]["activeTab"], json!(1));
    // All it wrote to stderr is read once it has ended.
    second.kill();
    let log = second.stderr_text();
    for (file, reason) in [
        ("s2.request.json", "its request file is not one askd writes"),
        ("s2.flow.log", "its request file is not one askd writes"),
        (
            "s3.request.json",
            "its request file is of format \"other.state\" version 1",
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
        json!([{ "session": "tool-c", "status": "recovered" }])
    );
    let resumed = second.ok("open", claude_open("tool-c"));
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
                       "mcp": { "requester": { "name": "deploy-server" } } });
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
/// times out as soon as a server reads it back, its files leaving the directory.
#[test]
fn a_recovered_flow_keeps_its_deadline_and_times_out_once_past_it() {
    let dir = Dir::new();
    let mut first = dir.start();
    let open =
        |session: &str| json!({ "session": session, "payload": payload(), "timeoutMs": 3_600_000 });
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
    let resumed = second.ok("open", open("later"));
    assert_eq!(resumed["status"], json!("open"));
    assert_eq!(resumed["view"]["deadline"], json!(deadline));
    let timed_out = second.ok("open", open("past"));
    assert_eq!(timed_out["status"], json!("done"));
    assert_eq!(timed_out["view"]["cancelReason"], json!("timeout"));
    assert_eq!(
        timed_out["result"]["content"],
        json!([{ "type": "text", "text": "The ask flow timed out before the user answered" }])
    );
    assert_eq!(
        timed_out["result"]["details"]["answers"]["env"]["values"],
        json!(["dev"])
    );
    // Only the flow still open is on disk.
    let kept: Vec<String> = dir
        .shapes()
        .into_iter()
        .filter(|f| f.ends_with(".request.json"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
}
