//! A small client for end-to-end tests: runs the `askd` binary with piped stdio and talks
//! JSON-RPC to it, in newline framing or in `Content-Length` framing.
//!
//! Every read waits at most [`GUARD`]; that bound only turns a hang into a failure and is never
//! asserted on. Every message read from stdout is checked to be a JSON-RPC 2.0 message.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long any read or wait may take before the test fails as hung.
pub const GUARD: Duration = Duration::from_secs(60);

/// The path of the binary under test.
pub const ASKD: &str = env!("CARGO_BIN_EXE_askd");

/// A running `askd` process and the client side of its pipes.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    chunks: Receiver<Vec<u8>>,
    buffer: Vec<u8>,
    eof: bool,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_reader: Option<thread::JoinHandle<()>>,
    /// Messages read while waiting for another id, in arrival order.
    stash: VecDeque<Value>,
    next_id: i64,
    /// Whether requests and replies use `Content-Length` frames instead of lines.
    content_length: bool,
    /// The user state directory the server sees (`XDG_STATE_HOME`), its own: no test meets
    /// the flows another left behind.
    _state_home: tempfile::TempDir,
    /// The runtime directory the server sees (`XDG_RUNTIME_DIR`), its own: a listener that
    /// registers as the hub writes its discovery file there, never in the user's.
    runtime: tempfile::TempDir,
}

impl Server {
    /// Starts `askd` with the given arguments.
    pub fn start(args: &[&str]) -> Server {
        Server::start_with_env(args, &[])
    }

    /// Starts `askd` with the given arguments and extra environment variables.
    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Server {
        Server::spawn(args, env, None)
    }

    /// Starts `askd` with the given arguments and its limit of open descriptors
    /// (`RLIMIT_NOFILE`) set to `soft` and `hard`.
    pub fn start_with_descriptors(args: &[&str], soft: u64, hard: u64) -> Server {
        Server::spawn(args, &[], Some((soft, hard)))
    }

    fn spawn(args: &[&str], env: &[(&str, &str)], descriptors: Option<(u64, u64)>) -> Server {
        let state_home = tempfile::tempdir().expect("a temporary directory");
        let runtime = tempfile::tempdir().expect("a temporary directory");
        let mut command = Command::new(ASKD);
        command
            .args(args)
            .env("XDG_STATE_HOME", state_home.path())
            .env("XDG_RUNTIME_DIR", runtime.path())
            .env("ASKD_NO_BROWSER", "1")
            .env_remove("ASKD_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        if let Some((soft, hard)) = descriptors {
            use std::os::unix::process::CommandExt;
            let limit = libc::rlimit {
                rlim_cur: soft,
                rlim_max: hard,
            };
            // SAFETY: setrlimit is async-signal-safe and reads only the struct given.
            unsafe {
                command.pre_exec(move || {
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
        }
        let mut child = command.spawn().expect("askd starts");
        let stdin = child.stdin.take();
        let mut stdout = child.stdout.take().expect("piped stdout");
        let mut stderr_pipe = child.stderr.take().expect("piped stderr");
        let (tx, chunks) = channel();
        thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match stdout.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if tx.send(buf[..n].to_vec()).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = stderr.clone();
        let stderr_reader = thread::spawn(move || {
            let mut buf = vec![0u8; 16 * 1024];
            loop {
                match stderr_pipe.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => sink.lock().unwrap().extend_from_slice(&buf[..n]),
                }
            }
        });
        Server {
            child,
            stdin,
            chunks,
            buffer: Vec::new(),
            eof: false,
            stderr,
            stderr_reader: Some(stderr_reader),
            stash: VecDeque::new(),
            next_id: 1000,
            content_length: false,
            _state_home: state_home,
            runtime,
        }
    }

    /// The runtime directory the server sees (`XDG_RUNTIME_DIR`).
    pub fn runtime_dir(&self) -> &std::path::Path {
        self.runtime.path()
    }

    /// Switches the harness's own framing for [`Server::send`] and [`Server::recv`].
    pub fn use_content_length(&mut self) {
        self.content_length = true;
    }

    /// Writes bytes to stdin as they are.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("write to askd");
        stdin.flush().expect("flush to askd");
    }

    /// Writes one line (a newline is appended).
    pub fn send_line(&mut self, line: &str) {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        self.send_raw(&bytes);
    }

    /// Writes one `Content-Length` frame around `body`.
    pub fn send_frame(&mut self, body: &[u8]) {
        let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        bytes.extend_from_slice(body);
        self.send_raw(&bytes);
    }

    /// Writes one message in the harness's framing.
    pub fn send(&mut self, message: &Value) {
        let text = message.to_string();
        if self.content_length {
            self.send_frame(text.as_bytes());
        } else {
            self.send_line(&text);
        }
    }

    /// Kills the server with SIGKILL (nothing of it runs after) and waits for it, and for
    /// everything it wrote to stderr.
    pub fn kill(&mut self) {
        self.child.kill().expect("kill askd");
        self.child.wait().expect("wait for askd");
        if let Some(reader) = self.stderr_reader.take() {
            let _ = reader.join();
        }
    }

    /// Closes stdin (EOF for the server).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for more stdout bytes; false at end of output.
    fn fill(&mut self) -> bool {
        if self.eof {
            return false;
        }
        match self.chunks.recv_timeout(GUARD) {
            Ok(chunk) => {
                self.buffer.extend_from_slice(&chunk);
                true
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.eof = true;
                false
            }
            Err(RecvTimeoutError::Timeout) => {
                panic!(
                    "askd wrote nothing for {GUARD:?}; stderr: {}",
                    self.stderr_text()
                )
            }
        }
    }

    /// The next raw stdout line (without its `\n`), or `None` at end of output.
    pub fn recv_raw_line(&mut self) -> Option<String> {
        loop {
            if let Some(at) = self.buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=at).collect();
                let text = String::from_utf8(line[..at].to_vec()).expect("stdout is UTF-8");
                return Some(text);
            }
            if !self.fill() {
                assert!(
                    self.buffer.is_empty(),
                    "stdout ended inside a line: {:?}",
                    String::from_utf8_lossy(&self.buffer)
                );
                return None;
            }
        }
    }

    /// Every whole message left on stdout once the server is gone (a line cut short by a kill
    /// is left out), in order.
    pub fn whole_messages_left(&mut self) -> Vec<Value> {
        while self.fill() {}
        let mut messages = Vec::new();
        while let Some(at) = self.buffer.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=at).collect();
            let text = String::from_utf8(line[..at].to_vec()).expect("stdout is UTF-8");
            messages.push(parse_protocol_message(&text));
        }
        messages
    }

    /// The next `Content-Length` frame: the raw header block (through the blank line) and the
    /// body. `None` at end of output.
    pub fn recv_raw_frame(&mut self) -> Option<(String, String)> {
        let header_end = loop {
            if let Some(at) = self.buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            if !self.fill() {
                assert!(
                    self.buffer.is_empty(),
                    "stdout ended inside a header: {:?}",
                    String::from_utf8_lossy(&self.buffer)
                );
                return None;
            }
        };
        let header = String::from_utf8(self.buffer[..header_end].to_vec()).expect("ASCII header");
        let length: usize = header
            .strip_prefix("Content-Length: ")
            .and_then(|rest| rest.strip_suffix("\r\n\r\n"))
            .unwrap_or_else(|| panic!("unexpected header block {header:?}"))
            .parse()
            .expect("a decimal length");
        while self.buffer.len() < header_end + length {
            assert!(self.fill(), "stdout ended inside a frame body");
        }
        let body: Vec<u8> = self.buffer.drain(..header_end + length).collect();
        let body = String::from_utf8(body[header_end..].to_vec()).expect("body is UTF-8");
        Some((header, body))
    }

    /// The next message in the harness's framing, checked to be JSON-RPC 2.0; `None` at end.
    pub fn recv_message(&mut self) -> Option<Value> {
        let text = if self.content_length {
            self.recv_raw_frame()?.1
        } else {
            self.recv_raw_line()?
        };
        Some(parse_protocol_message(&text))
    }

    /// The next message, which must exist.
    pub fn recv(&mut self) -> Value {
        if let Some(message) = self.stash.pop_front() {
            return message;
        }
        self.recv_message()
            .unwrap_or_else(|| panic!("askd closed stdout; stderr: {}", self.stderr_text()))
    }

    /// The response with this id, reading past (and keeping) any other messages.
    pub fn reply_to(&mut self, id: &Value) -> Value {
        if let Some(at) = self.stash.iter().position(|m| m.get("id") == Some(id)) {
            return self.stash.remove(at).expect("present");
        }
        loop {
            let message = self
                .recv_message()
                .unwrap_or_else(|| panic!("askd closed stdout before answering {id}"));
            if message.get("id") == Some(id) {
                return message;
            }
            self.stash.push_back(message);
        }
    }

    /// A fresh numeric request id.
    pub fn fresh_id(&mut self) -> Value {
        self.next_id += 1;
        json!(self.next_id)
    }

    /// Sends a request and returns its whole response.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.fresh_id();
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.reply_to(&id)
    }

    /// Sends a request that must succeed and returns its `result`.
    pub fn ok(&mut self, method: &str, params: Value) -> Value {
        let reply = self.call(method, params);
        match reply.get("result") {
            Some(result) if reply.get("error").is_none() => result.clone(),
            _ => panic!("{method} failed: {reply}"),
        }
    }

    /// Sends a request that must fail and returns its `error` object.
    pub fn err(&mut self, method: &str, params: Value) -> Value {
        let reply = self.call(method, params);
        match reply.get("error") {
            Some(error) if reply.get("result").is_none() => error.clone(),
            _ => panic!("{method} was expected to fail: {reply}"),
        }
    }

    /// Sends a notification (no id).
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Opens a session with a client-chosen id and returns its Step.
    pub fn open(&mut self, session: &str, payload: Value) -> Value {
        self.ok("open", json!({ "session": session, "payload": payload }))
    }

    /// The current view of a session.
    pub fn view(&mut self, session: &str) -> Value {
        self.ok("getView", json!({ "session": session }))
    }

    /// Messages that arrived while waiting for other replies, taken.
    pub fn take_stash(&mut self) -> Vec<Value> {
        self.stash.drain(..).collect()
    }

    /// Closes stdin, reads everything left on stdout (each a JSON-RPC message) and waits
    /// for the exit status.
    pub fn finish(&mut self) -> (ExitStatus, Vec<Value>) {
        self.close_stdin();
        let mut rest: Vec<Value> = self.stash.drain(..).collect();
        while let Some(message) = self.recv_message() {
            rest.push(message);
        }
        let status = self.wait();
        (status, rest)
    }

    /// Waits for the process to end (stdin left as it is).
    pub fn wait(&mut self) -> ExitStatus {
        let deadline = Instant::now() + GUARD;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                if let Some(reader) = self.stderr_reader.take() {
                    let _ = reader.join();
                }
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("askd did not exit within {GUARD:?}");
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Reads stdout to its end (after the process ended or will end), checking every message.
    pub fn drain(&mut self) -> Vec<Value> {
        let mut rest: Vec<Value> = self.stash.drain(..).collect();
        while let Some(message) = self.recv_message() {
            rest.push(message);
        }
        rest
    }

    /// The process id of the running server.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything written to stderr so far.
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Parses one message of stdout and checks it is JSON-RPC 2.0 (a response object, or a
/// non-empty array of them).
pub fn parse_protocol_message(text: &str) -> Value {
    let value: Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("stdout carried a non-JSON message ({e}): {text:?}"));
    match &value {
        Value::Array(items) => {
            assert!(!items.is_empty(), "stdout carried an empty array");
            items.iter().for_each(check_response);
        }
        other if other.get("id").is_none() => check_notification(other),
        other => check_response(other),
    }
    value
}

/// A notification askd sends unasked: one of the `session/…` notifications of `subscribe`, or
/// the hub's `hub/unattended` to the opener of a flow.
fn check_notification(message: &Value) {
    assert_eq!(
        message.get("jsonrpc"),
        Some(&json!("2.0")),
        "not a JSON-RPC 2.0 message: {message}"
    );
    let method = message.get("method").and_then(Value::as_str);
    assert!(
        matches!(
            method,
            Some("session/opened" | "session/changed" | "session/closed" | "hub/unattended")
        ),
        "a response without id: {message}"
    );
    assert!(
        message.get("params").is_some_and(Value::is_object),
        "a notification without params: {message}"
    );
}

fn check_response(message: &Value) {
    assert_eq!(
        message.get("jsonrpc"),
        Some(&json!("2.0")),
        "not a JSON-RPC 2.0 message: {message}"
    );
    assert!(
        message.get("id").is_some(),
        "a response without id: {message}"
    );
    assert!(
        message.get("result").is_some() != message.get("error").is_some(),
        "a response must carry exactly one of result and error: {message}"
    );
    if let Some(result) = message.get("result") {
        check_against_schema(result);
    }
}

/// The committed schemas of `protocol/schemas/`, compiled once.
struct Schemas {
    step: jsonschema::Validator,
    pi_result: jsonschema::Validator,
    dsh_answer: jsonschema::Validator,
    claude_result: jsonschema::Validator,
    codex_result: jsonschema::Validator,
    opencode_result: jsonschema::Validator,
    mcp_result: jsonschema::Validator,
}

static SCHEMAS: std::sync::LazyLock<Schemas> = std::sync::LazyLock::new(|| {
    let load = |name: &str| {
        let path = format!("{}/protocol/schemas/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let schema: Value = serde_json::from_str(&text).expect("schema files are JSON");
        jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    Schemas {
        step: load("step.json"),
        pi_result: load("pi-result.json"),
        dsh_answer: load("dsh-answer.json"),
        claude_result: load("claude-result.json"),
        codex_result: load("codex-result.json"),
        opencode_result: load("opencode-result.json"),
        mcp_result: load("mcp-result.json"),
    }
});

/// Every Step and result the end-to-end tests see must match its published schema.
fn check_against_schema(result: &Value) {
    let is = |keys: &[&str]| keys.iter().all(|k| result.get(k).is_some());
    let validator = if is(&["session", "status", "view"]) {
        &SCHEMAS.step
    } else if is(&["content", "details"]) {
        &SCHEMAS.pi_result
    } else if result.as_object().is_some_and(|o| o.len() == 1) && is(&["answers"]) {
        match &result["answers"] {
            Value::Object(_) => &SCHEMAS.codex_result,
            Value::Array(items) if items.iter().all(Value::is_array) => &SCHEMAS.opencode_result,
            _ => &SCHEMAS.dsh_answer,
        }
    } else if is(&["behavior"]) {
        &SCHEMAS.claude_result
    } else if is(&["action"]) {
        &SCHEMAS.mcp_result
    } else if is(&["rejected"]) {
        &SCHEMAS.opencode_result
    } else {
        return;
    };
    let errors: Vec<String> = validator
        .iter_errors(result)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "a reply does not match its schema: {errors:?}\n{result}"
    );
}

/// Runs `askd` with arguments and no input; returns status, stdout and stderr.
pub fn run_to_end(args: &[&str]) -> (ExitStatus, String, String) {
    let state_home = tempfile::tempdir().expect("a temporary directory");
    let runtime = tempfile::tempdir().expect("a temporary directory");
    let output = Command::new(ASKD)
        .args(args)
        .env("XDG_STATE_HOME", state_home.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .env("ASKD_NO_BROWSER", "1")
        .stdin(Stdio::null())
        .output()
        .expect("askd runs");
    (
        output.status,
        String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        String::from_utf8(output.stderr).expect("UTF-8 stderr"),
    )
}

/// `value` with every `openedAt` of a listed session (`sessions`, `subscribe`,
/// `session/opened`) and every `savedAt` and `ageMs` of a recovered flow left out, each checked
/// to be a time in milliseconds since the Unix epoch no later than now (an age: less than an
/// hour): the times a flow opened and was saved at, which a test cannot know in advance.
pub fn untimed(value: Value) -> Value {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    fn strip(value: Value, now: u64) -> Value {
        match value {
            Value::Array(items) => Value::Array(items.into_iter().map(|v| strip(v, now)).collect()),
            Value::Object(mut members) => {
                for name in ["openedAt", "savedAt"] {
                    if let Some(at) = members.remove(name) {
                        let at = at.as_u64().unwrap_or_else(|| panic!("{name}: {at}"));
                        assert!(
                            at > 1_600_000_000_000 && at <= now,
                            "{name} {at} is not a time"
                        );
                    }
                }
                // A recovered flow's age: how long ago it was saved, as the server saw it.
                if let Some(age) = members.remove("ageMs") {
                    let age = age.as_u64().unwrap_or_else(|| panic!("ageMs: {age}"));
                    assert!(
                        age < 3_600_000,
                        "ageMs {age} is not the age of a flow just saved"
                    );
                }
                Value::Object(
                    members
                        .into_iter()
                        .map(|(k, v)| (k, strip(v, now)))
                        .collect(),
                )
            }
            other => other,
        }
    }
    strip(value, now)
}
