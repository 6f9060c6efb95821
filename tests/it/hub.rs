//! The hub end to end: the real binary (`askd hub`, `askd serve --listen`) started, found and
//! talked to through the Rust hub client (`askd::cli::hub`), as `askd mcp`, `askd hook` and
//! `askd bridge` use it. Each test has a runtime directory and a state directory of its own
//! (the hub's discovery file and its flows), and never opens a browser unless it gives the hub
//! a fake one that records the address it was given.
//!
//! Every wait is bounded by [`GUARD`], which only turns a hang into a failure.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use askd::cli::hub::{Asking, Event, HubClient, HubError, HubOptions, Notification, Question};
use askd::server::discovery::{self, HubFile};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::support::{ASKD, GUARD, Server};

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/// Runs a test's body on a runtime of its own.
fn block_on<F: std::future::Future>(body: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(body)
}

/// `future`, failing the test after [`GUARD`].
async fn within<F: std::future::Future>(what: &str, future: F) -> F::Output {
    tokio::time::timeout(GUARD, future)
        .await
        .unwrap_or_else(|_| panic!("gave up waiting for {what}"))
}

/// Polls `done` until it holds, failing after [`GUARD`].
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + GUARD;
    while !done() {
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A place for hubs: a runtime directory (the discovery file is in its `askd/`) and a state
/// directory of the test's own. Hubs started there are killed when it goes.
struct Place {
    runtime: tempfile::TempDir,
    state: tempfile::TempDir,
    /// Environment of the hubs started here, besides the two directories.
    env: Vec<(String, String)>,
}

impl Place {
    /// A place whose hubs open no browser.
    fn new() -> Place {
        Place::with_env(&[("ASKD_NO_BROWSER", "1")])
    }

    fn with_env(env: &[(&str, &str)]) -> Place {
        Place {
            runtime: tempfile::tempdir().unwrap(),
            state: tempfile::tempdir().unwrap(),
            env: env
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
        }
    }

    /// The discovery directory.
    fn dir(&self) -> PathBuf {
        self.runtime.path().join("askd")
    }

    /// The discovery file's path.
    fn file_path(&self) -> PathBuf {
        self.dir().join(discovery::FILE)
    }

    /// The discovery file as it is on disk, if any.
    fn file(&self) -> Option<HubFile> {
        let text = std::fs::read_to_string(self.file_path()).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Options of a client named `name` whose hubs start here.
    fn options(&self, name: &str) -> HubOptions {
        let mut hub_env: Vec<(OsString, OsString)> = vec![(
            "XDG_STATE_HOME".into(),
            self.state.path().as_os_str().to_owned(),
        )];
        hub_env.extend(self.env.iter().map(|(n, v)| (n.into(), v.into())));
        HubOptions {
            dir: Some(self.dir()),
            client_name: Some(name.to_owned()),
            askd: Some(ASKD.into()),
            idle_exit: Duration::from_secs(120),
            start_wait: GUARD,
            log: Some(self.state.path().join("hub.log")),
            hub_args: Vec::new(),
            hub_env,
        }
    }

    /// `askd` run here with `args`, to its end.
    fn askd(&self, args: &[&str]) -> Output {
        self.command(args).stdin(Stdio::null()).output().unwrap()
    }

    /// `askd` with `args` and the environment of this place.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(ASKD);
        command
            .args(args)
            .env("XDG_RUNTIME_DIR", self.runtime.path())
            .env("XDG_STATE_HOME", self.state.path())
            .env_remove("ASKD_LOG");
        for (name, value) in &self.env {
            command.env(name, value);
        }
        command
    }

    /// What `askd serve`, run here with the default state directory, lists as `sessions`.
    fn serve_sessions(&self) -> Value {
        let mut child = self
            .command(&["serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sessions\"}\n")
            .unwrap();
        let output = child.wait_with_output().unwrap();
        let reply: Value =
            serde_json::from_slice(output.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
        assert_eq!(reply["id"], 1, "{reply}");
        reply["result"].clone()
    }

    /// The hub's log so far.
    fn log(&self) -> String {
        std::fs::read_to_string(self.state.path().join("hub.log")).unwrap_or_default()
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Some(file) = self.file() {
            kill(file.pid);
        }
    }
}

/// Ends process `pid` at once, and waits until it is gone.
fn kill(pid: u32) {
    // SAFETY: a signal to a process this test started.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    eventually("the process to end", || !discovery::alive(pid));
}

/// The mode bits of a file.
fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A pi payload of one question.
fn payload() -> Value {
    json!({
        "title": "Deploy",
        "questions": [{
            "id": "env",
            "label": "Env",
            "prompt": "Where to?",
            "options": [
                { "value": "prod", "label": "Prod" },
                { "value": "dev", "label": "Dev" }
            ]
        }]
    })
}

/// A question on [`payload`] in session `session`, asked from `folder`.
fn question(session: &str, folder: &str) -> Question {
    let mut question = Question::new(payload());
    question.session = Some(session.to_owned());
    question.asker.folder = Some(folder.to_owned());
    question
}

/// A person's client: connected, attached, its notifications taken.
async fn person(place: &Place) -> (HubClient, UnboundedReceiver<Notification>) {
    let client = HubClient::connect(&place.options("person")).await.unwrap();
    let seen = client.notifications();
    let listed = client
        .request("subscribe", json!({ "attach": true }))
        .await
        .unwrap();
    assert!(listed.is_array());
    (client, seen)
}

/// The next notification of `method`, those of other methods passed over.
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

/// Answers session `session` with Dev, from `person`.
async fn answer_dev(person: &HubClient, session: &str) {
    let step = person
        .request(
            "submitAnswers",
            json!({ "session": session, "answers": { "env": { "values": ["dev"] } } }),
        )
        .await
        .unwrap();
    assert_eq!(step["status"], "done");
}

/// The next event of a question.
async fn event(asking: &mut Asking) -> Event {
    within("an event of the question", asking.next())
        .await
        .unwrap()
}

// ---------------------------------------------------------------------------------------------
// Starting, finding, asking
// ---------------------------------------------------------------------------------------------

#[test]
fn a_started_hub_carries_an_agents_question_to_an_attached_person() {
    let place = Place::new();
    block_on(async {
        let agent = within(
            "a hub",
            HubClient::connect_or_start(&place.options("agent-a")),
        )
        .await
        .unwrap();
        let file = place.file().expect("the hub wrote its file");
        assert_eq!(agent.hub(), &file);
        assert_eq!(mode(&place.dir()), 0o700);
        assert_eq!(mode(&place.file_path()), 0o600);
        assert_eq!(file.url, format!("ws{}rpc", &file.page[4..]));
        assert_eq!(
            (file.protocol_version, file.version.as_str()),
            (1, env!("CARGO_PKG_VERSION"))
        );
        assert!(discovery::alive(file.pid));

        let (person, mut seen) = person(&place).await;
        let mut asking = agent.ask(question("q1", "/work/project")).unwrap();
        let opened = next_of(&mut seen, "session/opened").await;
        let opened_at = opened.params["openedAt"].as_u64().expect("openedAt");
        assert_eq!(
            opened.params,
            json!({
                "session": "q1",
                "title": "Deploy",
                "status": "open",
                "asker": { "name": "agent-a", "folder": "/work/project" },
                "openedAt": opened_at,
            })
        );
        let status = agent.request("hub/status", json!({})).await.unwrap();
        assert_eq!(
            status,
            json!({
                "hub": true,
                "pid": file.pid,
                "version": env!("CARGO_PKG_VERSION"),
                "protocolVersion": 1,
                "startedAt": status["startedAt"],
                "url": file.url,
                "page": file.page,
                "waiting": 1,
                "clients": 1,
                "attached": 1,
            })
        );
        answer_dev(&person, "q1").await;
        // A person was attached: the first thing the asker hears of is the answer.
        let Event::Answered(Ok(result)) = event(&mut asking).await else {
            panic!("answered");
        };
        assert_eq!(result["details"]["cancelled"], false);
        assert_eq!(
            result["details"]["answers"]["env"]["values"],
            json!(["dev"])
        );
        assert_eq!(result["content"][0]["text"], "Env: Dev");
    });
    // `--status` prints what the hub holds; `--stop` ends it and its file goes.
    let file = place.file().unwrap();
    let status = place.askd(&["hub", "--status"]);
    assert_eq!(status.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(status.stdout).unwrap(),
        format!(
            "pid: {}\nurl: {}\npage: {}\nversion: {}\nstarted: {}\nwaiting: 0\nclients: 0\nattached: 0\nfile: {}\n",
            file.pid,
            file.url,
            file.page,
            file.version,
            file.started_at,
            place.file_path().display()
        )
    );
    let stop = place.askd(&["hub", "--stop"]);
    assert_eq!(stop.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(stop.stderr).unwrap(),
        format!("askd: the hub (pid {}) stopped\n", file.pid)
    );
    assert!(!place.file_path().exists());
    assert!(
        place.log().contains("the hub stopped by SIGTERM"),
        "{}",
        place.log()
    );
    let none = place.askd(&["hub", "--status"]);
    assert_eq!(none.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(none.stderr).unwrap(),
        "askd: no hub is running\n"
    );
    assert_eq!(place.askd(&["hub", "--stop"]).status.code(), Some(1));
}

#[test]
fn a_dropped_question_is_aborted_and_an_aborted_one_answers_its_result() {
    let place = Place::new();
    block_on(async {
        let agent = HubClient::connect_or_start(&place.options("agent"))
            .await
            .unwrap();
        let (_person, mut seen) = person(&place).await;
        let asking = agent.ask(question("dropped", "/p")).unwrap();
        next_of(&mut seen, "session/opened").await;
        drop(asking);
        let changed = next_of(&mut seen, "session/changed").await;
        assert_eq!(changed.params["session"], "dropped");
        assert_eq!(changed.params["status"], "done");
        assert_eq!(
            changed.params["result"]["details"]["cancelReason"],
            "aborted"
        );

        let asking = agent.ask(question("aborted", "/p")).unwrap();
        next_of(&mut seen, "session/opened").await;
        let result = within("the aborted result", asking.abort()).await.unwrap();
        assert_eq!(result["details"]["cancelled"], true);
        assert_eq!(result["details"]["cancelReason"], "aborted");
        // A refused request is the hub's error, in its words.
        let mut bad = question("aborted", "/p");
        bad.session = Some(String::new());
        let refused = agent.ask(bad).unwrap().answer().await.unwrap_err();
        assert_eq!(
            refused.to_string(),
            "the hub refused the request: invalid params: session: expected a non-empty string, got the string \"\" (error -32602)"
        );
    });
}

#[test]
fn a_hub_killed_mid_question_is_a_clear_error_and_the_next_hub_recovers_the_flow() {
    let place = Place::new();
    block_on(async {
        let agent = HubClient::connect_or_start(&place.options("agent"))
            .await
            .unwrap();
        let first = agent.hub().clone();
        let (_person, mut seen) = person(&place).await;
        let asking = agent.ask(question("kept", "/work/kept")).unwrap();
        next_of(&mut seen, "session/opened").await;
        kill(first.pid);
        let lost = within("the lost question", asking.answer())
            .await
            .unwrap_err();
        assert!(matches!(lost, HubError::Lost { .. }), "{lost:?}");
        let text = lost.to_string();
        let start = format!("the hub at {} went away (", first.url);
        assert!(
            text.starts_with(&start) && text.ends_with(") before it answered"),
            "{text}"
        );
        // The file stays behind; it is stale, and the next hub takes its place.
        assert_eq!(place.file(), Some(first.clone()));
        // An editor's own `askd serve` of the same user, looking first, is not offered the
        // hub's flow: the hub keeps its flows apart, for the next hub.
        assert_eq!(place.serve_sessions(), json!([]));
        assert!(
            place.state.path().join("askd/hub").is_dir(),
            "the hub's flows are in hub/ of the state directory"
        );
        let agent = HubClient::connect_or_start(&place.options("agent"))
            .await
            .unwrap();
        let second = agent.hub().clone();
        assert_ne!(second.pid, first.pid);
        assert_eq!(place.file(), Some(second));
        let listed = agent.request("sessions", json!({})).await.unwrap();
        assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
        assert_eq!(listed[0]["session"], "kept");
        assert_eq!(listed[0]["title"], "Deploy");
        assert_eq!(listed[0]["status"], "recovered");
        assert!(listed[0]["openedAt"].is_u64());
        // Who asked it comes back with it.
        assert_eq!(listed[0]["asker"]["folder"], "/work/kept");
        assert_eq!(listed[0]["progress"], json!({ "answered": 0, "total": 1 }));
        assert_eq!(listed[0]["typed"], json!(false));
    });
    assert!(
        place
            .log()
            .contains("1 unfinished flow of an ended process is offered for recovery"),
        "{}",
        place.log()
    );
}

/// The discovery file of a hub started here (by a client that then goes).
async fn started_hub(place: &Place) -> HubFile {
    HubClient::connect_or_start(&place.options("starter"))
        .await
        .unwrap()
        .hub()
        .clone()
}

/// `askd hook claude` started here with Claude Code's input of an `AskUserQuestion` call
/// (`tool_use_id` `toolu_kill`) on its stdin, and its budget `timeout` seconds.
fn hook(place: &Place, timeout: &str) -> std::process::Child {
    let input = json!({
        "session_id": "7b0c1d2e-0000-4000-8000-000000000001",
        "transcript_path": "/work/app/transcript.jsonl",
        "cwd": "/work/app",
        "hook_event_name": "PreToolUse",
        "tool_name": "AskUserQuestion",
        "tool_input": { "questions": [{
            "question": "Which database should we use?",
            "header": "Database",
            "multiSelect": false,
            "options": [
                { "label": "Postgres", "description": "Full SQL, runs as a server" },
                { "label": "SQLite", "description": "A single file, no server" }
            ]
        }] },
        "tool_use_id": "toolu_kill",
    });
    let mut child = place
        .command(&["hook", "claude", "--timeout", timeout])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, input.to_string().as_bytes()).unwrap();
    child
}

/// A child's whole output once it ends, waited for off the runtime's thread.
async fn output_of(child: std::process::Child) -> Output {
    within(
        "the hook to end",
        tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()),
    )
    .await
    .unwrap()
}

#[test]
fn a_hook_whose_hub_is_killed_mid_question_asks_again_where_the_next_hub_recovered_the_flow() {
    let place = Place::new();
    block_on(async {
        let first = started_hub(&place).await;
        let (before, mut seen) = person(&place).await;
        let child = hook(&place, "120");
        let opened = next_of(&mut seen, "session/opened").await;
        assert_eq!(opened.params["session"], "toolu_kill");
        // The person moves to SQLite, then the hub is killed.
        let step = before
            .request("keys", json!({ "session": "toolu_kill", "keys": ["down"] }))
            .await
            .unwrap();
        assert_eq!(step["status"], "open");
        kill(first.pid);

        // The hook found no hub, started the next one, which recovered the flow from the state
        // directory, and asked again under the same session: the flow goes on where it was.
        eventually("the next hub", || {
            place.file().is_some_and(|file| file.pid != first.pid)
        });
        let (person, _) = person(&place).await;
        let mut waited = 0;
        loop {
            let listed = person.request("sessions", json!({})).await.unwrap();
            let entry = listed
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["session"] == "toolu_kill")
                .cloned();
            if entry.as_ref().is_some_and(|e| e["status"] == "open") {
                assert_eq!(entry.unwrap()["asker"]["name"], "Claude Code");
                break;
            }
            waited += 1;
            assert!(waited < 500, "the hook's flow did not open again: {listed}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let view = person
            .request("getView", json!({ "session": "toolu_kill" }))
            .await
            .unwrap();
        // The row the person moved to before the kill (SQLite, the second) is still theirs.
        assert_eq!(view["question"]["activeOption"], 1, "{view}");
        assert_eq!(view["question"]["rows"][1]["label"], "SQLite");
        assert_eq!(view["question"]["rows"][1]["active"], true);
        let step = person
            .request(
                "keys",
                json!({ "session": "toolu_kill", "keys": ["enter"] }),
            )
            .await
            .unwrap();
        if step["status"] == "open" {
            // The review: its first action submits.
            let step = person
                .request("keys", json!({ "session": "toolu_kill", "keys": ["1"] }))
                .await
                .unwrap();
            assert_eq!(step["status"], "done", "{step}");
        }
        let out = output_of(child).await;
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
        let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            printed["hookSpecificOutput"]["permissionDecision"], "allow",
            "{printed}"
        );
        assert_eq!(
            printed["hookSpecificOutput"]["updatedInput"]["answers"],
            json!({ "Which database should we use?": "SQLite" })
        );
    });
    // The hub the hook started logs where a started hub does: in the state directory.
    let log = std::fs::read_to_string(place.state.path().join("askd").join("hub.log")).unwrap();
    assert!(
        log.contains("1 unfinished flow of an ended process is offered for recovery"),
        "{log}"
    );
}

#[test]
fn a_hook_whose_hub_is_killed_and_none_can_come_back_passes_the_call_on_saying_why() {
    let place = Place::new();
    block_on(async {
        let first = started_hub(&place).await;
        let (_person, mut seen) = person(&place).await;
        let child = hook(&place, "120");
        next_of(&mut seen, "session/opened").await;
        // No hub can start any more: the directory is opened to others before the kill.
        std::fs::set_permissions(place.dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
        kill(first.pid);
        let out = output_of(child).await;
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "",
            "Claude Code's dialog asks"
        );
        let stderr = String::from_utf8(out.stderr).unwrap();
        // The last line: the lines before it are the log's, naming the refused directory.
        let said = stderr.lines().last().unwrap_or_default().to_owned() + "\n";
        let dir = place.dir().display().to_string();
        let start = format!(
            "askd hook claude: passed on to Claude Code's dialog: no hub can be reached: the hub at {} went away (",
            first.url
        );
        let end = format!(
            ") before it answered; asked again: {dir} is not used: others may use it (mode 0755); it must be 0700\n"
        );
        assert!(said.starts_with(&start) && said.ends_with(&end), "{said}");
    });
}

#[test]
fn of_two_hubs_starting_at_once_exactly_one_wins() {
    let place = Place::new();
    let start = || {
        place
            .command(&["hub"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (mut one, mut two) = (start(), start());
    let mut loser = None;
    eventually("one hub to give way", || {
        for (child, other) in [(&mut one, 2), (&mut two, 1)] {
            if let Ok(Some(status)) = child.try_wait() {
                loser = Some((status, other));
            }
        }
        loser.is_some()
    });
    let (status, winner) = loser.unwrap();
    assert_eq!(status.code(), Some(3));
    let (mut lost, mut won) = if winner == 1 { (two, one) } else { (one, two) };
    let mut said = String::new();
    std::io::Read::read_to_string(lost.stderr.as_mut().unwrap(), &mut said).unwrap();
    eventually("the winner's file", || place.file().is_some());
    let file = place.file().unwrap();
    assert_eq!(file.pid, won.id());
    assert_eq!(
        said,
        format!(
            "askd: a hub is already running (pid {}) at {}\n",
            file.pid, file.page
        )
    );
    assert!(won.try_wait().unwrap().is_none(), "the winner runs on");
    // Two clients that find no hub at once meet in one.
    let other = Place::new();
    let (a, b) = block_on(async {
        let (a, b) = (other.options("a"), other.options("b"));
        let (a, b) = tokio::join!(
            HubClient::connect_or_start(&a),
            HubClient::connect_or_start(&b)
        );
        (a.unwrap().hub().pid, b.unwrap().hub().pid)
    });
    assert_eq!(a, b);
    assert_eq!(other.file().unwrap().pid, a);
    // SIGINT stops the hub as SIGTERM does; its file goes with it.
    // SAFETY: a signal to a process this test started.
    unsafe { libc::kill(won.id() as i32, libc::SIGINT) };
    assert_eq!(won.wait().unwrap().code(), Some(0));
    assert!(!place.file_path().exists());
    let _ = lost.wait();
}

#[test]
fn stale_and_untrusted_discovery_files_are_never_used_and_a_new_hub_replaces_them() {
    let place = Place::new();
    std::fs::create_dir_all(place.dir()).unwrap();
    std::fs::set_permissions(place.dir(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let write = |pid: u32, mode: u32| {
        let path = place.file_path();
        let fake = HubFile {
            pid,
            url: "ws://127.0.0.1:9/rpc".into(),
            page: "http://127.0.0.1:9/".into(),
            token: "0123456789abcdef0123".into(),
            version: "0".into(),
            protocol_version: 1,
            started_at: 0,
        };
        std::fs::write(&path, serde_json::to_vec(&fake).unwrap()).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let refused = |options: &HubOptions| {
        block_on(async { HubClient::connect(options).await.unwrap_err().to_string() })
    };
    let path = place.file_path().display().to_string();
    // A process that is gone.
    let mut gone = Command::new("true").spawn().unwrap();
    let gone_pid = gone.id();
    gone.wait().unwrap();
    write(gone_pid, 0o600);
    assert_eq!(
        refused(&place.options("a")),
        format!("no hub is running ({path} is stale: its process {gone_pid} is gone)")
    );
    // A live process that holds no lock (this test's own).
    let me = std::process::id();
    write(me, 0o600);
    assert_eq!(
        refused(&place.options("a")),
        format!(
            "no hub is running ({path} is stale: no hub holds {} (process {me} is not a hub))",
            place.dir().join(discovery::LOCK).display()
        )
    );
    // Others may read it.
    write(me, 0o644);
    assert_eq!(
        refused(&place.options("a")),
        format!(
            "no hub is running ({path} is not used: others may read it (mode 0644); it must be 0600)"
        )
    );
    // Another user's (only root can make one).
    if discovery::uid() == 0 {
        write(me, 0o600);
        std::os::unix::fs::chown(place.file_path(), Some(65534), None).unwrap();
        assert_eq!(
            refused(&place.options("a")),
            format!(
                "no hub is running ({path} is not used: it belongs to user 65534, not to this user (0))"
            )
        );
    }
    // A hub that starts replaces it.
    let started = block_on(async {
        HubClient::connect_or_start(&place.options("a"))
            .await
            .unwrap()
            .hub()
            .clone()
    });
    assert_eq!(place.file(), Some(started));
    assert_eq!(mode(&place.file_path()), 0o600);
    assert!(
        place.log().contains("replacing the discovery file"),
        "{}",
        place.log()
    );
}

#[test]
fn a_directory_others_may_use_or_of_another_user_is_refused() {
    let place = Place::new();
    std::fs::create_dir_all(place.dir()).unwrap();
    let dir = place.dir().display().to_string();
    std::fs::set_permissions(place.dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let refused = || {
        block_on(async {
            HubClient::connect_or_start(&place.options("a"))
                .await
                .unwrap_err()
                .to_string()
        })
    };
    assert_eq!(
        refused(),
        format!("{dir} is not used: others may use it (mode 0755); it must be 0700")
    );
    let hub = place.askd(&["hub"]);
    assert_eq!(hub.status.code(), Some(1));
    let said = String::from_utf8(hub.stderr).unwrap();
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 2, "{said}");
    // The log names the directory, then the command says why it stops.
    assert!(
        lines[0].ends_with(&format!(
            " WARN askd::server::discovery: the hub's directory {dir} is not used: others may use it (mode 0755); it must be 0700"
        )),
        "{said}"
    );
    assert_eq!(
        lines[1],
        format!(
            "askd: cannot register the hub: {dir} is not used: others may use it (mode 0755); it must be 0700"
        )
    );
    let status = place.askd(&["hub", "--status"]);
    assert_eq!(status.status.code(), Some(2));
    if discovery::uid() == 0 {
        std::fs::set_permissions(place.dir(), std::fs::Permissions::from_mode(0o700)).unwrap();
        std::os::unix::fs::chown(place.dir(), Some(65534), None).unwrap();
        assert_eq!(
            refused(),
            format!("{dir} is not used: it belongs to user 65534, not to this user (0)")
        );
    }
    assert!(!place.file_path().exists());
}

#[test]
fn an_idle_hub_exits_once_no_flow_waits_and_no_client_is_there() {
    let place = Place::new();
    let mut options = place.options("agent");
    options.idle_exit = Duration::from_secs(1);
    let pid = block_on(async {
        let agent = HubClient::connect_or_start(&options).await.unwrap();
        let pid = agent.hub().pid;
        let (person, mut seen) = person(&place).await;
        let asking = agent.ask(question("waits", "/p")).unwrap();
        next_of(&mut seen, "session/opened").await;
        // Past the idle time with a flow waiting: the hub stays.
        tokio::time::sleep(Duration::from_millis(2500)).await;
        assert!(discovery::alive(pid));
        answer_dev(&person, "waits").await;
        asking.answer().await.unwrap();
        pid
    });
    eventually("the idle hub to exit", || !discovery::alive(pid));
    assert!(!place.file_path().exists());
    assert!(
        place.log().contains("the hub stopped: idle (--idle-exit)"),
        "{}",
        place.log()
    );
}

// ---------------------------------------------------------------------------------------------
// The browser rule
// ---------------------------------------------------------------------------------------------

/// A fake browser: a script that appends the address it is given to a file.
struct FakeBrowser {
    dir: tempfile::TempDir,
}

impl FakeBrowser {
    fn new(exit: u8) -> FakeBrowser {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("browser");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\nexit {exit}\n",
                dir.path().join("opened").display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        FakeBrowser { dir }
    }

    fn command(&self) -> String {
        self.dir.path().join("browser").display().to_string()
    }

    /// The addresses it was given.
    fn opened(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("opened"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

#[test]
fn with_no_client_attached_the_hub_opens_the_flows_page_once_and_tells_the_asker() {
    let browser = FakeBrowser::new(0);
    let place = Place::with_env(&[("BROWSER", &browser.command()), ("PATH", "/nowhere")]);
    block_on(async {
        let agent = HubClient::connect_or_start(&place.options("agent"))
            .await
            .unwrap();
        let file = agent.hub().clone();
        let mut first = agent.ask(question("first one", "/p")).unwrap();
        let page = format!("{}?token={}&session=first%20one", file.page, file.token);
        assert_eq!(
            event(&mut first).await,
            Event::Unattended {
                page: page.clone(),
                browser: "opened".into()
            }
        );
        assert_eq!(browser.opened(), vec![page]);
        // Soon after, the page on its way shows this one too: no second window.
        let mut second = agent.ask(question("second", "/p")).unwrap();
        assert_eq!(
            event(&mut second).await,
            Event::Unattended {
                page: format!("{}?token={}&session=second", file.page, file.token),
                browser: "recent".into()
            }
        );
        assert_eq!(browser.opened().len(), 1);
        // With a person attached, nothing is opened and the asker hears only the answer.
        let (person, mut seen) = person(&place).await;
        let mut third = agent.ask(question("third", "/p")).unwrap();
        next_of(&mut seen, "session/opened").await;
        answer_dev(&person, "third").await;
        assert!(matches!(event(&mut third).await, Event::Answered(Ok(_))));
        assert_eq!(browser.opened().len(), 1);
    });
}

#[test]
fn without_a_browser_the_asker_is_told_the_page_to_print() {
    for (browser, env) in [
        ("off", vec![("ASKD_NO_BROWSER", "1".to_owned())]),
        (
            "unavailable",
            vec![
                ("BROWSER", FakeBrowser::new(1).command()),
                ("PATH", "/nowhere".to_owned()),
            ],
        ),
    ] {
        let env: Vec<(&str, &str)> = env.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let place = Place::with_env(&env);
        block_on(async {
            let agent = HubClient::connect_or_start(&place.options("agent"))
                .await
                .unwrap();
            let file = agent.hub().clone();
            let mut asking = agent.ask(question("q", "/p")).unwrap();
            assert_eq!(
                event(&mut asking).await,
                Event::Unattended {
                    page: format!("{}?token={}&session=q", file.page, file.token),
                    browser: browser.into()
                }
            );
        });
    }
}

// ---------------------------------------------------------------------------------------------
// `askd serve --listen` as the hub
// ---------------------------------------------------------------------------------------------

/// The `hub/unattended` notification of session `session`, as a served flow's opener gets it.
fn unattended_of(server: &mut Server, session: &str) -> Value {
    let deadline = Instant::now() + GUARD;
    loop {
        if let Some(n) = server
            .take_stash()
            .into_iter()
            .find(|m| m["method"] == "hub/unattended" && m["params"]["session"] == session)
        {
            return n;
        }
        assert!(Instant::now() < deadline, "no hub/unattended for {session}");
        // A request whose reply comes after the notice, if there is one.
        server.ok("sessions", json!({}));
    }
}

#[test]
fn a_listening_serve_is_the_hub_when_none_runs_and_only_then_opens_a_browser() {
    let browser = FakeBrowser::new(0);
    let env = [("ASKD_NO_BROWSER", ""), ("BROWSER", &browser.command())];
    let mut first = Server::start_with_env(&["serve", "--listen", "127.0.0.1:0"], &env);
    let dir = first.runtime_dir().join("askd");
    eventually("the hub's file", || dir.join(discovery::FILE).exists());
    let Ok(discovery::Found::Hub(file)) = discovery::find(&dir) else {
        panic!("the serve is the hub");
    };
    assert_eq!(file.pid, first.pid());
    first.open("mine", payload());
    let notice = unattended_of(&mut first, "mine");
    let page = format!("{}?token={}&session=mine", file.page, file.token);
    assert_eq!(
        notice,
        json!({ "jsonrpc": "2.0", "method": "hub/unattended",
                "params": { "session": "mine", "page": page, "browser": "opened" } })
    );
    assert_eq!(browser.opened(), vec![page]);
    // A second listener with the same runtime directory is not the hub, and opens nothing.
    let runtime = first.runtime_dir().display().to_string();
    let mut second = Server::start_with_env(
        &["serve", "--listen", "127.0.0.1:0"],
        &[
            ("ASKD_NO_BROWSER", ""),
            ("BROWSER", &browser.command()),
            ("XDG_RUNTIME_DIR", &runtime),
        ],
    );
    second.open("theirs", payload());
    let status = second.ok("hub/status", json!({}));
    assert_eq!(status["hub"], false);
    assert_eq!(status["waiting"], 1);
    assert!(
        second
            .take_stash()
            .iter()
            .all(|m| m["method"] != "hub/unattended"),
        "only the hub tells of unattended flows"
    );
    assert_eq!(browser.opened().len(), 1);
    // Nor is one with --no-hub.
    let mut third = Server::start_with_env(
        &["serve", "--listen", "127.0.0.1:0", "--no-hub"],
        &[("ASKD_NO_BROWSER", ""), ("BROWSER", &browser.command())],
    );
    third.open("other", payload());
    assert_eq!(third.ok("hub/status", json!({}))["hub"], false);
    assert!(!third.runtime_dir().join("askd").exists());
    // The hub's file goes when its input ends, and with SIGTERM.
    let (status, _) = first.finish();
    assert!(status.success());
    assert!(!dir.join(discovery::FILE).exists());
    let mut fourth = Server::start(&["serve", "--listen", "127.0.0.1:0"]);
    let dir = fourth.runtime_dir().join("askd");
    eventually("the hub's file", || dir.join(discovery::FILE).exists());
    // SAFETY: a signal to a process this test started.
    unsafe { libc::kill(fourth.pid() as i32, libc::SIGTERM) };
    assert_eq!(fourth.wait().code(), Some(0));
    assert!(!dir.join(discovery::FILE).exists());
}

// ---------------------------------------------------------------------------------------------
// Who asked, and attach, on any server
// ---------------------------------------------------------------------------------------------

#[test]
fn flows_name_who_asked_from_the_params_the_connection_and_the_folder() {
    let mut server = Server::start(&["--no-state"]);
    server.ok(
        "initialize",
        json!({ "clientInfo": { "name": "neovim", "version": "0.11" } }),
    );
    server.ok(
        "open",
        json!({ "session": "a", "payload": payload(), "cwd": "/work/a" }),
    );
    server.ok(
        "open",
        json!({ "session": "b", "payload": payload(), "asker": { "name": "codex" } }),
    );
    server.ok(
        "open",
        json!({ "session": "c", "payload": payload(), "cwd": "/work/c",
                "asker": { "folder": "/elsewhere" } }),
    );
    let listed = server.ok("sessions", json!({}));
    let at = |i: usize| listed[i]["openedAt"].as_u64().expect("openedAt");
    assert!(at(0) <= at(1) && at(1) <= at(2), "oldest first: {listed}");
    assert_eq!(
        listed,
        json!([
            { "session": "a", "title": "Deploy", "status": "open",
              "asker": { "name": "neovim", "folder": "/work/a" }, "openedAt": at(0) },
            { "session": "b", "title": "Deploy", "status": "open",
              "asker": { "name": "codex" }, "openedAt": at(1) },
            { "session": "c", "title": "Deploy", "status": "open",
              "asker": { "name": "neovim", "folder": "/elsewhere" }, "openedAt": at(2) },
        ])
    );
    // A connection with no name and no folder says nothing of who asked.
    let mut other = Server::start(&["--no-state"]);
    other.open("d", payload());
    let listed = other.ok("sessions", json!({}));
    assert_eq!(
        listed,
        json!([{ "session": "d", "title": "Deploy", "status": "open",
                 "openedAt": listed[0]["openedAt"] }])
    );
    // Bad askers are refused in words, and open nothing.
    for (asker, message) in [
        (
            json!({ "name": 5 }),
            "invalid params: asker.name: expected a string, got the number 5",
        ),
        (
            json!({ "nick": "x" }),
            "invalid params: asker.nick: unknown; expected \"name\" or \"folder\"",
        ),
        (
            json!("me"),
            "invalid params: asker: expected an object, got the string \"me\"",
        ),
    ] {
        let error = other.err("open", json!({ "payload": payload(), "asker": asker }));
        assert_eq!(error["message"], message);
    }
    let error = other.err("subscribe", json!({ "session": "d", "attach": true }));
    assert_eq!(
        error["message"],
        "invalid params: attach: an attached client is told of every session; give no session with it"
    );
    assert_eq!(other.ok("sessions", json!({})).as_array().unwrap().len(), 1);
}

// ---------------------------------------------------------------------------------------------
// `askd hub --pipe`: the hub for clients without WebSocket
// ---------------------------------------------------------------------------------------------

#[test]
fn a_pipe_attaches_a_stdio_client_to_the_hub_it_starts_and_says_when_the_hub_goes() {
    let place = Place::new();
    let runtime = place.runtime.path().display().to_string();
    let state = place.state.path().display().to_string();
    let env = [
        ("XDG_RUNTIME_DIR", runtime.as_str()),
        ("XDG_STATE_HOME", state.as_str()),
    ];
    // No hub runs: the pipe starts one, and speaks to it.
    let mut pipe = Server::start_with_env(&["hub", "--pipe"], &env);
    assert_eq!(pipe.ok("subscribe", json!({ "attach": true })), json!([]));
    let file = place.file().expect("the pipe started a hub");
    assert_ne!(file.pid, pipe.pid());
    block_on(async {
        let agent = HubClient::connect(&place.options("agent")).await.unwrap();
        let status = agent.request("hub/status", json!({})).await.unwrap();
        assert_eq!(
            (&status["clients"], &status["attached"]),
            (&json!(1), &json!(1))
        );
        let asking = agent.ask(question("piped", "/p")).unwrap();
        // The pipe is read blocking: the agent's connection first sends the question (its
        // requests take effect in order).
        agent.request("sessions", json!({})).await.unwrap();
        let opened = untimed_recv(&mut pipe);
        assert_eq!(
            opened,
            json!({ "jsonrpc": "2.0", "method": "session/opened", "params": {
                "session": "piped", "title": "Deploy", "status": "open",
                "asker": { "name": "agent", "folder": "/p" } } })
        );
        let step = pipe.ok(
            "submitAnswers",
            json!({ "session": "piped", "answers": { "env": { "values": ["prod"] } } }),
        );
        assert_eq!(step["status"], "done");
        let result = within("the answer", asking.answer()).await.unwrap();
        assert_eq!(
            result["details"]["answers"]["env"]["values"],
            json!(["prod"])
        );
    });
    // The end of its input ends it; the hub runs on.
    let (status, _) = pipe.finish();
    assert_eq!(status.code(), Some(0));
    assert!(discovery::alive(file.pid));
    // A second pipe finds that hub; when the hub goes, the pipe says so and ends.
    let mut second = Server::start_with_env(&["hub", "--pipe"], &env);
    assert_eq!(
        crate::support::untimed(second.ok("sessions", json!({}))),
        json!([{ "session": "piped", "title": "Deploy", "status": "done",
                 "asker": { "name": "agent", "folder": "/p" } }])
    );
    kill(file.pid);
    assert_eq!(second.wait().code(), Some(1));
    let said = second.stderr_text();
    assert!(
        said.starts_with(&format!("askd: the hub at {} went away (", file.url)),
        "{said}"
    );
}

/// The next message of a pipe, its `openedAt` checked and left out.
fn untimed_recv(server: &mut Server) -> Value {
    crate::support::untimed(server.recv())
}
