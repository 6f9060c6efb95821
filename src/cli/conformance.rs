//! The conformance runner: language-neutral scenarios (JSON files, format described in
//! `protocol/scenarios/README.md`) played against an `askd` binary over its real protocol,
//! newline-delimited JSON-RPC on the child's stdin and stdout.
//!
//! One process serves every scenario of a directory; each scenario opens its own session
//! (named after the scenario) and closes it at the end.

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::core::quoted;
use crate::dialect::DialectId;

/// The outcome of a conformance run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
    /// Scenarios whose every expectation held.
    pub passed: usize,
    /// One entry per failed scenario.
    pub failures: Vec<Failure>,
}

impl Report {
    /// The number of failed scenarios.
    pub fn failed(&self) -> usize {
        self.failures.len()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for failure in &self.failures {
            writeln!(f, "{failure}")?;
        }
        write!(f, "{} passed, {} failed", self.passed, self.failed())
    }
}

/// The first failing request of a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The scenario file, relative to the directory run.
    pub file: String,
    /// The scenario's `name`.
    pub scenario: String,
    /// The index into `steps` of the failing step; `None` when the `open` failed.
    pub step: Option<usize>,
    /// Every unmet expectation of that request, `; `-separated, each naming the path, the
    /// expected value and the actual one.
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FAIL {} ({}) ", self.scenario, self.file)?;
        match self.step {
            Some(i) => write!(f, "steps[{i}]")?,
            None => write!(f, "open")?,
        }
        write!(f, ": {}", self.message)
    }
}

/// A method a step may call: every method that acts on one existing session without
/// creating, copying or removing it.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Method {
    Key,
    Keys,
    Insert,
    Activate,
    SetDraft,
    SaveCustom,
    SetNote,
    SubmitAnswers,
    Cancel,
    GetView,
    GetResult,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::Key => "key",
            Method::Keys => "keys",
            Method::Insert => "insert",
            Method::Activate => "activate",
            Method::SetDraft => "setDraft",
            Method::SaveCustom => "saveCustom",
            Method::SetNote => "setNote",
            Method::SubmitAnswers => "submitAnswers",
            Method::Cancel => "cancel",
            Method::GetView => "getView",
            Method::GetResult => "getResult",
        }
    }
}

/// An expected JSON-RPC error.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectError {
    code: i64,
    message: Option<String>,
    data: Option<Value>,
}

/// The `open` request of a scenario: its params and what its reply must hold.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct OpenSpec {
    params: Map<String, Value>,
    #[serde(default)]
    expect: Map<String, Value>,
    #[serde(default)]
    absent: Vec<String>,
    expect_error: Option<ExpectError>,
}

/// One request after `open`: a method, its params and what its reply must hold.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StepSpec {
    method: Method,
    #[serde(default)]
    params: Map<String, Value>,
    #[serde(default)]
    expect: Map<String, Value>,
    #[serde(default)]
    absent: Vec<String>,
    expect_error: Option<ExpectError>,
}

/// One scenario, as a file holds it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    name: String,
    rule: String,
    dialect: Option<DialectId>,
    open: OpenSpec,
    #[serde(default)]
    steps: Vec<StepSpec>,
}

/// What one request must answer.
struct Checks<'a> {
    expect: &'a Map<String, Value>,
    absent: &'a [String],
    error: Option<&'a ExpectError>,
}

impl Checks<'_> {
    /// Checks the shape of the expectations themselves; the message names the problem.
    fn validate(&self, params: &Map<String, Value>, forbidden: &[&str]) -> Result<(), String> {
        if self.error.is_some() && (!self.expect.is_empty() || !self.absent.is_empty()) {
            return Err("`expectError` cannot be combined with `expect` or `absent`".into());
        }
        for path in self.expect.keys().chain(self.absent) {
            if !path.is_empty() && !path.starts_with('/') {
                return Err(format!(
                    "{} is not a JSON pointer (it must be empty or start with `/`)",
                    quoted(path)
                ));
            }
        }
        for name in forbidden {
            if params.contains_key(*name) {
                return Err(format!(
                    "`params` must not contain `{name}`: the runner sets it"
                ));
            }
        }
        Ok(())
    }

    /// Every unmet expectation for a reply (`Ok` result or `Err` error object).
    fn mismatches(&self, reply: &Result<Value, Value>) -> Vec<String> {
        let mut out = Vec::new();
        match (reply, self.error) {
            (Ok(result), None) => {
                for (path, want) in self.expect {
                    match result.pointer(path) {
                        Some(got) if got == want => {}
                        Some(got) => out.push(format!("{path}: expected {want}, got {got}")),
                        None => out.push(format!("{path}: expected {want}, got nothing")),
                    }
                }
                for path in self.absent {
                    if let Some(got) = result.pointer(path) {
                        out.push(format!("{path}: expected nothing, got {got}"));
                    }
                }
            }
            (Ok(_), Some(want)) => {
                out.push(format!("expected error {}, got a result", want.code));
            }
            (Err(error), None) => out.push(format!(
                "expected a result, got error {} {}",
                error.get("code").unwrap_or(&Value::Null),
                error.get("message").unwrap_or(&Value::Null)
            )),
            (Err(error), Some(want)) => {
                let code = error.get("code").unwrap_or(&Value::Null);
                if code.as_i64() != Some(want.code) {
                    out.push(format!(
                        "error code: expected {}, got {code} {}",
                        want.code,
                        error.get("message").unwrap_or(&Value::Null)
                    ));
                }
                if let Some(message) = &want.message {
                    let got = error.get("message").unwrap_or(&Value::Null);
                    if got.as_str() != Some(message) {
                        out.push(format!(
                            "error message: expected {}, got {got}",
                            quoted(message)
                        ));
                    }
                }
                if let Some(data) = &want.data {
                    match error.get("data") {
                        Some(got) if got == data => {}
                        Some(got) => out.push(format!("error data: expected {data}, got {got}")),
                        None => out.push(format!("error data: expected {data}, got nothing")),
                    }
                }
            }
        }
        out
    }
}

impl OpenSpec {
    fn checks(&self) -> Checks<'_> {
        Checks {
            expect: &self.expect,
            absent: &self.absent,
            error: self.expect_error.as_ref(),
        }
    }
}

impl StepSpec {
    fn checks(&self) -> Checks<'_> {
        Checks {
            expect: &self.expect,
            absent: &self.absent,
            error: self.expect_error.as_ref(),
        }
    }
}

impl Scenario {
    fn validate(&self) -> Result<(), String> {
        if self.name.trim().is_empty() {
            return Err("`name` must not be empty".into());
        }
        if self.rule.trim().is_empty() {
            return Err(format!(
                "scenario {}: `rule` must not be empty",
                quoted(&self.name)
            ));
        }
        let at =
            |place: String, e: String| format!("scenario {}, {place}: {e}", quoted(&self.name));
        self.open
            .checks()
            .validate(&self.open.params, &["session", "dialect"])
            .map_err(|e| at("open".into(), e))?;
        if !self.open.params.contains_key("payload") {
            return Err(at("open".into(), "`params` must contain `payload`".into()));
        }
        if self.open.expect_error.is_some() && !self.steps.is_empty() {
            return Err(at(
                "open".into(),
                "an `open` expected to fail creates no session, so `steps` must be empty".into(),
            ));
        }
        for (i, step) in self.steps.iter().enumerate() {
            step.checks()
                .validate(&step.params, &["session"])
                .map_err(|e| at(format!("steps[{i}]"), e))?;
        }
        Ok(())
    }
}

/// Reads and checks one scenario file: one scenario object, or an array of them.
fn load_file(path: &Path) -> io::Result<Vec<Scenario>> {
    let text = fs::read_to_string(path)?;
    let invalid = |e: String| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {e}", path.display()),
        )
    };
    let scenarios = if text.trim_start().starts_with('[') {
        serde_json::from_str::<Vec<Scenario>>(&text)
    } else {
        serde_json::from_str::<Scenario>(&text).map(|s| vec![s])
    }
    .map_err(|e| invalid(e.to_string()))?;
    for scenario in &scenarios {
        scenario.validate().map_err(invalid)?;
    }
    Ok(scenarios)
}

/// The `*.json` files directly in a directory, sorted by name.
fn scenario_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_file() && path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// A JSON-RPC client over a child's pipes, one message per line.
struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Client {
    fn spawn(bin: &Path) -> io::Result<Client> {
        // Scenarios start from nothing: no flow of another run is read back.
        let mut child = Command::new(bin)
            .arg("--no-state")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", bin.display())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(io::Error::other("the child's pipes are missing"));
        };
        Ok(Client {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            next_id: 0,
        })
    }

    /// Sends a request and waits for its response: `Ok(result)` or `Err(error object)`.
    fn call(&mut self, method: &str, params: Value) -> io::Result<Result<Value, Value>> {
        self.next_id += 1;
        let id = self.next_id;
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        writeln!(self.stdin, "{request}")?;
        self.stdin.flush()?;
        let mut line = String::new();
        loop {
            line.clear();
            if self.stdout.read_line(&mut line)? == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("askd closed its output before answering {method} (request {id})"),
                ));
            }
            if line.trim().is_empty() {
                continue;
            }
            let mut message: Value = serde_json::from_str(&line).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "askd sent a line that is not JSON ({e}): {}",
                        line.trim_end()
                    ),
                )
            })?;
            if message.get("id") != Some(&json!(id)) {
                continue;
            }
            return Ok(match message.get_mut("error") {
                Some(error) => Err(error.take()),
                None => Ok(message.get_mut("result").map_or(Value::Null, Value::take)),
            });
        }
    }

    /// Ends the process with `shutdown` and `exit`, then waits for it.
    fn finish(mut self) -> io::Result<()> {
        // `shutdown` answers `null`; its reply carries nothing to check.
        let _ = self.call("shutdown", Value::Null)?;
        writeln!(
            self.stdin,
            "{}",
            json!({ "jsonrpc": "2.0", "method": "exit" })
        )?;
        drop(self.stdin);
        let status = self.child.wait()?;
        if status.success() {
            Ok(())
        } else {
            Err(io::Error::other(format!("askd exited with {status}")))
        }
    }
}

fn with_session(params: &Map<String, Value>, session: &str) -> Value {
    let mut params = params.clone();
    params.insert("session".into(), Value::from(session));
    Value::Object(params)
}

/// Runs one scenario; `Some((step, message))` describes its first failing request.
fn run_scenario(
    client: &mut Client,
    scenario: &Scenario,
) -> io::Result<Option<(Option<usize>, String)>> {
    let mut params = with_session(&scenario.open.params, &scenario.name);
    if let Some(dialect) = scenario.dialect {
        params["dialect"] = json!(dialect.name());
    }
    let reply = client.call("open", params)?;
    let opened = reply.is_ok();
    let mut failure = None;
    let mismatches = scenario.open.checks().mismatches(&reply);
    if !mismatches.is_empty() {
        failure = Some((None, mismatches.join("; ")));
    } else if opened {
        for (i, step) in scenario.steps.iter().enumerate() {
            let reply = client.call(
                step.method.name(),
                with_session(&step.params, &scenario.name),
            )?;
            let mismatches = step.checks().mismatches(&reply);
            if !mismatches.is_empty() {
                failure = Some((Some(i), mismatches.join("; ")));
                break;
            }
        }
    }
    if opened {
        // Closing is housekeeping, not part of the scenario: its reply is not checked.
        let _ = client.call("close", json!({ "session": scenario.name }))?;
    }
    Ok(failure)
}

/// Runs every scenario file directly in `dir` (sorted by name; subdirectories and files not
/// ending in `.json` are skipped) against the `askd` binary at `bin`, in one process.
///
/// Every file is read and checked before anything runs: a file that is not valid JSON, has an
/// unknown field or a malformed expectation, or reuses a scenario name is an `InvalidData`
/// error naming the file. An I/O failure talking to the process is an error too.
pub fn run_dir(dir: &Path, bin: &Path) -> io::Result<Report> {
    let mut loaded = Vec::new();
    let mut names = BTreeSet::new();
    for path in scenario_files(dir)? {
        let file = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        for scenario in load_file(&path)? {
            if !names.insert(scenario.name.clone()) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{}: scenario name {} is used twice",
                        path.display(),
                        quoted(&scenario.name)
                    ),
                ));
            }
            loaded.push((file.clone(), scenario));
        }
    }
    let mut client = Client::spawn(bin)?;
    let mut report = Report::default();
    for (file, scenario) in &loaded {
        match run_scenario(&mut client, scenario)? {
            None => report.passed += 1,
            Some((step, message)) => report.failures.push(Failure {
                file: file.clone(),
                scenario: scenario.name.clone(),
                step,
                message,
            }),
        }
    }
    client.finish()?;
    Ok(report)
}
