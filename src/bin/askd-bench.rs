//! `askd-bench`: what a key press costs askd, in process and over pipes, measured against the
//! pipe floor (`cat`) and the anchors of the reference implementation. Prints one JSON object.
//!
//! `askd-bench [--quick] [--askd PATH]`: `--quick` runs small iteration counts (to keep the
//! command working in CI; its figures are not meant to be compared); `--askd` names the server
//! binary. Without `--askd` the server is the `askd` beside this binary, and when run through
//! `cargo run` that binary is first rebuilt with the same profile, so it is never stale.

use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use serde_json::{Value, json};

use askd::core::Key;
use askd::view::ScreenCache;

/// The allocator askd runs with, so that the in-process figures are measured as the server
/// runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The workloads, shared with the criterion benches (`benches/engine.rs`).
pub mod workload {
    use askd::core::{Key, KeyCode, Mods, Target, parse_sequence};
    use askd::session::{OpenOptions, Session};
    use askd::view::{ScreenCache, ViewOptions};
    use serde_json::{Value, json};

    /// Terminal width every view is rendered at.
    pub const WIDTH: usize = 80;

    /// Session id given to in-process views.
    pub const SESSION: &str = "bench";

    /// One cycle of the key script on [`flow_payload`]. It starts and ends on the first row of
    /// the first tab with nothing answered, and never completes the flow: row moves, the
    /// custom row's editor opening by itself, typing and deleting, selecting and clearing,
    /// option and question notes opened and closed, multi toggles, tab cycling through the
    /// review tab (moving among its actions, never running one).
    pub const FLOW_KEYS: &str = concat!(
        "<Down><Down><Down>abc<BS><BS><BS><Up>",
        "<Space><Space>nhi<BS><BS><Esc>Nok<BS><BS><Esc><Up><Up><Tab>",
        "<Space><Down><Space><Space><Up><Space><Down><Down><Down>x<BS><Tab>",
        "<Down><Up><Tab>",
        "<Down><Down><Up><Up><Tab>",
        "<Left><Right><S-Tab><Tab>",
    );

    /// The three-question flow: a single question with descriptions and a recommended option,
    /// a multi question, and a preview question.
    pub fn flow_payload() -> Value {
        serde_json::from_str(askd::dialect::pi::EXAMPLE).expect("the demo payload is JSON")
    }

    /// One cycle of clicks on [`flow_payload`]: the multi question's tab, two of its rows
    /// toggled on and off, the preview question's tab, the review tab, the first tab again. It
    /// starts and ends on the first row of the first tab with nothing answered.
    pub fn flow_clicks() -> Vec<Target> {
        vec![
            Target::Tab(1),
            Target::Row(1),
            Target::Row(2),
            Target::Row(1),
            Target::Row(2),
            Target::Tab(2),
            Target::Tab(3),
            Target::Tab(0),
        ]
    }

    /// The keys of [`FLOW_KEYS`].
    pub fn flow_keys() -> Vec<Key> {
        parse_sequence(FLOW_KEYS).expect("the key script parses")
    }

    /// A single question with `n` options (labels only; `n` ≥ 2).
    pub fn options_payload(n: usize) -> Value {
        let options: Vec<Value> = (1..=n)
            .map(|i| json!({ "value": format!("o{i}"), "label": format!("Option {i}") }))
            .collect();
        json!({
            "title": "Pick one",
            "questions": [{ "id": "pick", "label": "Pick", "prompt": "Which one?", "options": options }]
        })
    }

    /// One cycle on [`options_payload`]: `Down` to the last option, then `Up` back to the
    /// first (never onto the custom row, whose editor would open).
    pub fn options_keys(n: usize) -> Vec<Key> {
        let key = |code| Key {
            code,
            mods: Mods::default(),
        };
        let mut keys = vec![key(KeyCode::Down); n - 1];
        keys.extend(vec![key(KeyCode::Up); n - 1]);
        keys
    }

    /// Opens `payload` with the default options.
    pub fn open(payload: &Value) -> Session {
        Session::open(payload, &OpenOptions::default()).expect("the payload opens")
    }

    /// One click, then the full view as [`key_and_view`] writes it.
    pub fn click_and_view(
        session: &mut Session,
        cache: &mut ScreenCache,
        target: &Target,
    ) -> String {
        session
            .flow_mut()
            .and_then(|flow| flow.activate(target))
            .expect("the flow stays open");
        let options = ViewOptions {
            width: Some(WIDTH),
            all_rows: false,
        };
        let view = cache.build(SESSION, session, options);
        serde_json::to_string(&cache.json(&view)).expect("a view serialises")
    }

    /// One key, then the full view at [`WIDTH`] columns serialised as a client receives it,
    /// its lines going through `cache` as the server's do.
    pub fn key_and_view(session: &mut Session, cache: &mut ScreenCache, key: Key) -> String {
        session.press(key).expect("the flow stays open");
        let options = ViewOptions {
            width: Some(WIDTH),
            all_rows: false,
        };
        let view = cache.build(SESSION, session, options);
        serde_json::to_string(&cache.json(&view)).expect("a view serialises")
    }
}

/// Measures askd's keystroke cost and prints one JSON object.
#[derive(Parser)]
#[command(name = "askd-bench")]
struct Cli {
    /// Small iteration counts: keeps the command working in CI, figures not comparable.
    #[arg(long)]
    quick: bool,
    /// The askd binary (default: `askd` beside this binary, rebuilt first under cargo).
    #[arg(long)]
    askd: Option<PathBuf>,
}

/// Iteration counts of one run.
struct Plan {
    /// Repetitions of each in-process measurement; the median is the figure, the fastest
    /// repetition is reported beside it.
    reps: usize,
    /// Cycles of the key script per repetition, for `core_ns_per_key`.
    core_cycles: usize,
    /// Cycles of the key script per repetition, for `view_us_per_key`.
    view_cycles: usize,
    /// Keys per repetition, for each side of `options_ratio`.
    options_keys: usize,
    /// Round trips per process, for the RTT figures.
    round_trips: usize,
    /// Spawns per process, for `startup_ratio`.
    startups: usize,
    /// Flows held open, for the RSS figure.
    sessions: usize,
}

/// Agents (connections) asking at once, and questions each, for the hub's RSS figure: the same
/// in both modes.
const HUB_AGENTS: usize = 10;
const HUB_QUESTIONS_PER_AGENT: usize = 10;

impl Plan {
    fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                reps: 3,
                core_cycles: 500,
                view_cycles: 20,
                options_keys: 200,
                round_trips: 400,
                startups: 5,
                sessions: 1_000,
            }
        } else {
            Plan {
                reps: 7,
                core_cycles: 40_000,
                view_cycles: 1_000,
                options_keys: 6_000,
                round_trips: 20_000,
                startups: 30,
                sessions: 10_000,
            }
        }
    }
}

/// The targets of the issue: each figure's upper bound.
const TARGETS: &[(&str, f64)] = &[
    ("core_ns_per_key", 30.0),
    ("view_us_per_key", 10.0),
    ("rtt_ratio", 1.25),
    ("startup_ratio", 3.0),
    ("rss_mb_10k_sessions", 50.0),
    ("options_ratio", 2.0),
    ("hub_rss_mb_100_questions", 50.0),
];

/// Round trips per block; askd and `cat` alternate by block so that both see the same machine.
const BLOCK: usize = 200;

/// Option counts compared by `options_ratio`.
const FEW_OPTIONS: usize = 10;
const MANY_OPTIONS: usize = 1_000;

/// The session id of the pipe measurements.
const PIPE_SESSION: &str = "bench-rtt-session";

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// The median and the fastest of repeated in-process measurements.
#[derive(Clone, Copy)]
struct Spread {
    median: f64,
    min: f64,
}

impl Spread {
    fn of(samples: Vec<f64>) -> Spread {
        Spread {
            min: samples.iter().copied().fold(f64::INFINITY, f64::min),
            median: median(samples),
        }
    }
}

/// The `p`-th percentile (0..=100) of samples, nearest rank.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn round(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

/// Median nanoseconds per key of `Session::press` alone over the key script.
fn core_ns_per_key(plan: &Plan) -> Spread {
    let payload = workload::flow_payload();
    let keys = workload::flow_keys();
    let samples = (0..plan.reps)
        .map(|_| {
            let mut session = workload::open(&payload);
            let start = Instant::now();
            for _ in 0..plan.core_cycles {
                for &key in &keys {
                    black_box(&mut session)
                        .press(black_box(key))
                        .expect("the flow stays open");
                }
            }
            let elapsed = start.elapsed();
            black_box(&session);
            elapsed.as_secs_f64() * 1e9 / (plan.core_cycles * keys.len()) as f64
        })
        .collect();
    Spread::of(samples)
}

/// Median microseconds per key of key + view + rendered lines + JSON, over `total` keys
/// cycling through `keys`.
fn view_us_per_key(payload: &Value, keys: &[Key], total: usize, reps: usize) -> Spread {
    let samples = (0..reps)
        .map(|_| {
            let mut session = workload::open(payload);
            let mut cache = ScreenCache::default();
            let start = Instant::now();
            for &key in keys.iter().cycle().take(total) {
                black_box(workload::key_and_view(
                    &mut session,
                    &mut cache,
                    black_box(key),
                ));
            }
            micros(start.elapsed()) / total as f64
        })
        .collect();
    Spread::of(samples)
}

/// Median microseconds per click of `activate` + view + rendered lines + JSON, over `total`
/// clicks cycling through [`workload::flow_clicks`].
fn view_us_per_click(total: usize, reps: usize) -> Spread {
    let clicks = workload::flow_clicks();
    let samples = (0..reps)
        .map(|_| {
            let mut session = workload::open(&workload::flow_payload());
            let mut cache = ScreenCache::default();
            let start = Instant::now();
            for target in clicks.iter().cycle().take(total) {
                black_box(workload::click_and_view(
                    &mut session,
                    &mut cache,
                    black_box(target),
                ));
            }
            micros(start.elapsed()) / total as f64
        })
        .collect();
    Spread::of(samples)
}

/// Checks that one cycle of each key script keeps its flow open and ends where it started,
/// so that the measured keys stay representative however long they run.
fn check_workloads() -> Result<(), String> {
    let scripts = [
        ("flow", workload::flow_payload(), workload::flow_keys()),
        (
            "options",
            workload::options_payload(FEW_OPTIONS),
            workload::options_keys(FEW_OPTIONS),
        ),
    ];
    let start = workload::open(&workload::flow_payload());
    let mut session = start.clone();
    for target in workload::flow_clicks() {
        session
            .flow_mut()
            .and_then(|flow| flow.activate(&target))
            .map_err(|e| format!("the click script failed at {target:?}: {e}"))?;
    }
    if session != start {
        return Err("the click script does not end where it started".into());
    }
    for (name, payload, keys) in scripts {
        let start = workload::open(&payload);
        let mut session = start.clone();
        for key in keys {
            session
                .press(key)
                .map_err(|e| format!("the {name} script failed at {key}: {e}"))?;
        }
        if session != start {
            return Err(format!("the {name} script does not end where it started"));
        }
    }
    Ok(())
}

/// A child process spoken to over pipes, one line at a time.
struct Pipe {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
}

impl Pipe {
    fn spawn(command: &mut Command) -> Result<Pipe, String> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot spawn {:?}: {e}", command.get_program()))?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = BufReader::with_capacity(1 << 20, child.stdout.take().expect("piped"));
        Ok(Pipe {
            child,
            stdin,
            stdout,
            line: Vec::with_capacity(1 << 16),
        })
    }

    /// Sends one line (newline included) and reads one whole line back into `self.line`.
    fn round_trip(&mut self, request: &[u8]) -> Result<Duration, String> {
        self.line.clear();
        let start = Instant::now();
        self.stdin
            .write_all(request)
            .map_err(|e| format!("write: {e}"))?;
        self.stdout
            .read_until(b'\n', &mut self.line)
            .map_err(|e| format!("read: {e}"))?;
        let elapsed = start.elapsed();
        if self.line.last() != Some(&b'\n') {
            return Err("the process closed its output".into());
        }
        Ok(elapsed)
    }

    /// Closes stdin and waits for the process to exit.
    fn finish(self) -> Result<(), String> {
        let Pipe {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        let status = child.wait().map_err(|e| format!("wait: {e}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("the process exited with {status}"))
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// A JSON-RPC request line.
fn request(id: u64, method: &str, params: Value) -> Vec<u8> {
    let mut line =
        json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string();
    line.push('\n');
    line.into_bytes()
}

/// The request of one key press over pipes.
fn key_request(id: u64, key: Key) -> Vec<u8> {
    request(
        id,
        "key",
        json!({ "session": PIPE_SESSION, "key": key.to_string() }),
    )
}

/// Fails unless `reply` is a successful JSON-RPC response whose Step is still open.
fn check_step(reply: &[u8]) -> Result<(), String> {
    let value: Value =
        serde_json::from_slice(reply).map_err(|e| format!("a reply is not JSON: {e}"))?;
    match value["result"]["status"].as_str() {
        Some("open") => Ok(()),
        _ => Err(format!(
            "unexpected reply: {}",
            String::from_utf8_lossy(&reply[..reply.len().min(300)])
        )),
    }
}

/// The pipe figures of one run.
struct Rtt {
    askd_p50: f64,
    askd_p99: f64,
    cat_p50: f64,
    cat_p99: f64,
    request_bytes: usize,
    reply_bytes: usize,
}

/// CPUs this process may run on, per `Cpus_allowed_list` in `/proc/self/status`.
fn allowed_cpus() -> Vec<usize> {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return Vec::new();
    };
    let Some(list) = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
    else {
        return Vec::new();
    };
    let mut cpus = Vec::new();
    for part in list.trim().split(',') {
        let (first, last) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(first), Ok(last)) = (first.parse::<usize>(), last.parse::<usize>()) {
            cpus.extend(first..=last);
        }
    }
    cpus
}

/// Pins this process (every thread) to `cpu` with `taskset`; false when that is not possible.
fn pin_self(cpu: usize) -> bool {
    Command::new("taskset")
        .args([
            "-a",
            "-p",
            "-c",
            &cpu.to_string(),
            &std::process::id().to_string(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Which CPUs the pipe measurements use: this process on `client`, the spawned process on
/// `other` (cross-core) or on `client` too (same core).
#[derive(Clone, Copy)]
struct Cpus {
    client: usize,
    other: usize,
}

/// `program` with `args`, run on `cpu` when one is given.
fn command_on(program: &Path, args: &[&str], cpu: Option<usize>) -> Command {
    let mut command = match cpu {
        Some(cpu) => {
            let mut command = Command::new("taskset");
            command.arg("-c").arg(cpu.to_string()).arg(program);
            command
        }
        None => Command::new(program),
    };
    command.args(args);
    command
}

/// The arguments of askd for the figures measured without a state directory (as every figure
/// was before askd kept one).
const NO_STATE: &[&str] = &["--no-state"];

/// A state directory for the figure measured with one, removed when dropped.
struct StateDir(PathBuf);

impl StateDir {
    fn new() -> StateDir {
        StateDir(std::env::temp_dir().join(format!("askd-bench-state-{}", std::process::id())))
    }

    /// askd's arguments to keep its state here.
    fn args(&self) -> [&str; 2] {
        ["--state-dir", self.0.to_str().unwrap_or(".")]
    }
}

impl Drop for StateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Round trips of `key` requests to askd (run with `args`) and of the same bytes to `cat`,
/// alternating by block, both spawned on `cpu` when one is given.
fn rtt(askd: &Path, args: &[&str], plan: &Plan, cpu: Option<usize>) -> Result<Rtt, String> {
    let keys = workload::flow_keys();
    let mut server = Pipe::spawn(&mut command_on(askd, args, cpu))?;
    let mut cat = Pipe::spawn(&mut command_on(Path::new("cat"), &[], cpu))?;
    server.round_trip(&request(
        0,
        "open",
        json!({ "session": PIPE_SESSION, "width": workload::WIDTH, "payload": workload::flow_payload() }),
    ))?;
    check_step(&server.line)?;
    // A warm-up block each, not recorded.
    let blocks = plan.round_trips.div_ceil(BLOCK) + 1;
    let mut askd_samples = Vec::with_capacity(plan.round_trips);
    let mut cat_samples = Vec::with_capacity(plan.round_trips);
    let mut request_bytes = 0;
    let mut reply_bytes = 0;
    let mut id = 0u64;
    for block in 0..blocks {
        let requests: Vec<Vec<u8>> = (0..BLOCK)
            .map(|i| key_request(id + 1 + i as u64, keys[(id as usize + i) % keys.len()]))
            .collect();
        id += BLOCK as u64;
        for request in &requests {
            let took = server.round_trip(request)?;
            if block > 0 {
                askd_samples.push(micros(took));
            }
            reply_bytes = reply_bytes.max(server.line.len());
            request_bytes = request.len();
            // A cheap check on every reply; the whole Step is checked below.
            if !server.line.starts_with(b"{\"jsonrpc\":\"2.0\",\"id\":")
                || !server.line[..64.min(server.line.len())]
                    .windows(9)
                    .any(|w| w == b"\"result\":")
            {
                check_step(&server.line)?;
                return Err("a reply does not start with its result".into());
            }
        }
        check_step(&server.line)?;
        for request in &requests {
            let took = cat.round_trip(request)?;
            if block > 0 {
                cat_samples.push(micros(took));
            }
            if cat.line != *request {
                return Err("cat did not echo the request".into());
            }
        }
    }
    server.finish()?;
    cat.finish()?;
    askd_samples.sort_by(f64::total_cmp);
    cat_samples.sort_by(f64::total_cmp);
    Ok(Rtt {
        askd_p50: percentile(&askd_samples, 50.0),
        askd_p99: percentile(&askd_samples, 99.0),
        cat_p50: percentile(&cat_samples, 50.0),
        cat_p99: percentile(&cat_samples, 99.0),
        request_bytes,
        reply_bytes,
    })
}

/// Median microseconds from spawning askd to its exit after answering `initialize`, and the
/// same for `cat` echoing one line; alternating, after a warm-up of each.
fn startup(askd: &Path, plan: &Plan) -> Result<(f64, f64), String> {
    let initialize = request(
        1,
        "initialize",
        json!({ "capabilities": { "width": workload::WIDTH } }),
    );
    let once = |program: &Path| -> Result<f64, String> {
        let start = Instant::now();
        let args = if program == askd { NO_STATE } else { &[] };
        let mut pipe = Pipe::spawn(Command::new(program).args(args))?;
        pipe.round_trip(&initialize)?;
        pipe.finish()?;
        Ok(micros(start.elapsed()))
    };
    let cat = Path::new("cat");
    once(askd)?;
    once(cat)?;
    let mut askd_samples = Vec::with_capacity(plan.startups);
    let mut cat_samples = Vec::with_capacity(plan.startups);
    for _ in 0..plan.startups {
        askd_samples.push(once(askd)?);
        cat_samples.push(once(cat)?);
    }
    Ok((median(askd_samples), median(cat_samples)))
}

/// Resident memory, in MiB, of a process per its `/proc/<pid>/status`.
fn rss_mib(pid: u32) -> Result<f64, String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("cannot read /proc/{pid}/status: {e}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map(|kib| kib / 1024.0)
        .ok_or_else(|| "no VmRSS in /proc status".into())
}

/// Resident memory of askd after `initialize`, and after opening `plan.sessions` flows of the
/// three-question payload one request at a time: all of the same request, or (`distinct`) each
/// of its own, the payload's title numbered.
fn rss(askd: &Path, plan: &Plan, distinct: bool) -> Result<(f64, f64), String> {
    let mut server = Pipe::spawn(
        Command::new(askd)
            .args(NO_STATE)
            .args(["--max-sessions", &(2 * plan.sessions).to_string()]),
    )?;
    server.round_trip(&request(
        0,
        "initialize",
        json!({ "capabilities": { "width": workload::WIDTH } }),
    ))?;
    let idle = rss_mib(server.pid())?;
    let mut payload = workload::flow_payload();
    for i in 0..plan.sessions {
        if distinct {
            payload["title"] = json!(format!("Release plan {i:05}"));
        }
        server.round_trip(&request(
            i as u64 + 1,
            "open",
            json!({ "payload": payload }),
        ))?;
        if i == 0 || i + 1 == plan.sessions {
            check_step(&server.line)?;
        }
    }
    let held = rss_mib(server.pid())?;
    server.finish()?;
    Ok((idle, held))
}

/// Resident memory of a hub (`askd hub --no-state --no-browser`, its discovery file in a
/// temporary runtime directory) once started, and while [`HUB_AGENTS`] connections, each
/// through the hub client, wait on [`HUB_QUESTIONS_PER_AGENT`] questions of the three-question
/// payload, and one person's client is attached (subscribed to every session at 80 columns).
fn hub_rss(askd: &Path) -> Result<(f64, f64), String> {
    use askd::cli::hub::{HubClient, HubOptions, Question};
    use askd::server::discovery::{self, Found};
    let runtime = std::env::temp_dir().join(format!("askd-bench-hub-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&runtime);
    let dir = runtime.join("askd");
    let mut hub = Command::new(askd)
        .args(["hub", "--no-state", "--no-browser"])
        .env("XDG_RUNTIME_DIR", &runtime)
        .env_remove("ASKD_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", askd.display()))?;
    let measured = (|| {
        let started = Instant::now();
        while !matches!(discovery::find(&dir), Ok(Found::Hub(_))) {
            if started.elapsed() > Duration::from_secs(30) {
                return Err("the hub wrote no discovery file".to_owned());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(200));
        let idle = rss_mib(hub.id())?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        runtime.block_on(async {
            let options = |name: &str| HubOptions {
                dir: Some(dir.clone()),
                client_name: Some(name.to_owned()),
                ..HubOptions::default()
            };
            let failed = |e: askd::cli::hub::HubError| e.to_string();
            let person = HubClient::connect(&options("person"))
                .await
                .map_err(failed)?;
            person
                .request(
                    "subscribe",
                    json!({ "attach": true, "width": workload::WIDTH }),
                )
                .await
                .map_err(failed)?;
            let _seen = person.notifications();
            let mut asking = Vec::new();
            let mut agents = Vec::new();
            for agent in 0..HUB_AGENTS {
                let client = HubClient::connect(&options(&format!("agent-{agent}")))
                    .await
                    .map_err(failed)?;
                for n in 0..HUB_QUESTIONS_PER_AGENT {
                    let mut question = Question::new(workload::flow_payload());
                    question.session = Some(format!("agent-{agent}-q{n}"));
                    question.asker.folder = Some(format!("/work/project-{agent}"));
                    asking.push(client.ask(question).map_err(failed)?);
                }
                agents.push(client);
            }
            let want = HUB_AGENTS * HUB_QUESTIONS_PER_AGENT;
            loop {
                let status = person
                    .request("hub/status", json!({}))
                    .await
                    .map_err(failed)?;
                if status["waiting"].as_u64() == Some(want as u64) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            let held = rss_mib(hub.id())?;
            Ok::<_, String>((idle, held))
        })
    })();
    // SAFETY: a signal to the hub this function started.
    unsafe { libc::kill(hub.id() as i32, libc::SIGTERM) };
    let _ = hub.wait();
    let _ = std::fs::remove_dir_all(&runtime);
    measured
}

/// `model name` of the first processor in `/proc/cpuinfo`.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, model)| model.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The one-minute load average in `/proc/loadavg` (other work competing for the cores).
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `MemTotal` in `/proc/meminfo`, in GiB.
fn memory_gib() -> Option<f64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: f64 = info
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(round(kib / (1024.0 * 1024.0), 1))
}

/// The server to measure: the one given, or `askd` beside this binary, rebuilt first with this
/// binary's profile when run by cargo.
fn askd_path(given: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(path) = given {
        return Ok(path);
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate this binary: {e}"))?;
    let dir = exe.parent().ok_or("this binary has no directory")?;
    if let (Some(cargo), Some(manifest)) = (
        std::env::var_os("CARGO"),
        std::env::var_os("CARGO_MANIFEST_DIR"),
    ) {
        let profile = match dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") => "dev",
            Some(name) => name,
            None => "release",
        };
        let status = Command::new(cargo)
            .args(["build", "--quiet", "--bin", "askd", "--profile", profile])
            .arg("--manifest-path")
            .arg(Path::new(&manifest).join("Cargo.toml"))
            .stdout(Stdio::null())
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !status.success() {
            return Err("cargo could not build askd".into());
        }
    }
    let path = dir.join("askd");
    if path.exists() {
        Ok(path)
    } else {
        Err(format!(
            "no askd beside this binary ({}); build it or pass --askd",
            path.display()
        ))
    }
}

fn run(cli: Cli) -> Result<Value, String> {
    let plan = Plan::new(cli.quick);
    let load_before = load_average();
    // Before any pinning, which would narrow what this process sees.
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    check_workloads()?;
    let askd = askd_path(cli.askd)?;

    let core_ns = core_ns_per_key(&plan);
    let flow_keys = workload::flow_keys();
    let view_us = view_us_per_key(
        &workload::flow_payload(),
        &flow_keys,
        plan.view_cycles * flow_keys.len(),
        plan.reps,
    );
    let clicks = workload::flow_clicks().len();
    let click_us = view_us_per_click(plan.view_cycles * clicks, plan.reps);
    let options_us = |n: usize| {
        view_us_per_key(
            &workload::options_payload(n),
            &workload::options_keys(n),
            plan.options_keys,
            plan.reps,
        )
    };
    let few_us = options_us(FEW_OPTIONS);
    let many_us = options_us(MANY_OPTIONS);
    // Pipe latency depends on where the two ends run: waking a process on another, idle CPU
    // costs far more than on the same one, and left to the scheduler `cat` (which does
    // little) and askd end up placed differently. So both are measured on a fixed placement:
    // the figures are cross-core (client and server on different CPUs), same-core beside them.
    let cpus = allowed_cpus();
    let cpus = match cpus[..] {
        [client, other, ..] if pin_self(client) => Some(Cpus { client, other }),
        _ => None,
    };
    let rtt_cross = rtt(&askd, NO_STATE, &plan, cpus.map(|c| c.other))?;
    let rtt_same = match cpus {
        Some(c) => Some(rtt(&askd, NO_STATE, &plan, Some(c.client))?),
        None => None,
    };
    // The same round trips with a state directory: every key also writes the session's state.
    let state = StateDir::new();
    let rtt_state = rtt(&askd, &state.args(), &plan, cpus.map(|c| c.other))?;
    drop(state);
    let rtt = rtt_cross;
    let (askd_start_us, cat_start_us) = startup(&askd, &plan)?;
    let (idle_mib, held_mib) = rss(&askd, &plan, false)?;
    let (_, distinct_mib) = rss(&askd, &plan, true)?;
    let (hub_idle_mib, hub_held_mib) = hub_rss(&askd)?;

    let figures = [
        ("core_ns_per_key", round(core_ns.median, 1)),
        ("view_us_per_key", round(view_us.median, 2)),
        ("rtt_ratio", round(rtt.askd_p50 / rtt.cat_p50, 3)),
        ("startup_ratio", round(askd_start_us / cat_start_us, 3)),
        ("rss_mb_10k_sessions", round(held_mib, 1)),
        ("options_ratio", round(many_us.median / few_us.median, 3)),
        ("hub_rss_mb_100_questions", round(hub_held_mib, 1)),
    ];
    let mut targets = serde_json::Map::new();
    let mut all_met = true;
    for ((name, value), (target_name, max)) in figures.iter().zip(TARGETS) {
        debug_assert_eq!(name, target_name);
        let met = value <= max;
        all_met &= met;
        targets.insert(
            (*name).to_owned(),
            json!({ "max": max, "value": value, "met": met }),
        );
    }
    let figure = |name: &str| {
        figures
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(Value::Null, |(_, v)| json!(v))
    };
    Ok(json!({
        "mode": if cli.quick { "quick" } else { "full" },
        "core_ns_per_key": figure("core_ns_per_key"),
        "view_us_per_key": figure("view_us_per_key"),
        "rtt_p50_us": round(rtt.askd_p50, 1),
        "rtt_p99_us": round(rtt.askd_p99, 1),
        "floor_p50_us": round(rtt.cat_p50, 1),
        "rtt_ratio": figure("rtt_ratio"),
        "startup_ratio": figure("startup_ratio"),
        "rss_mb_10k_sessions": figure("rss_mb_10k_sessions"),
        "options_ratio": figure("options_ratio"),
        "hub_rss_mb_100_questions": figure("hub_rss_mb_100_questions"),
        "rtt_ratio_with_state": round(rtt_state.askd_p50 / rtt_state.cat_p50, 3),
        "view_us_per_click": round(click_us.median, 2),
        "details": {
            "with_state": {
                "rtt_p50_us": round(rtt_state.askd_p50, 1),
                "rtt_p99_us": round(rtt_state.askd_p99, 1),
                "floor_p50_us": round(rtt_state.cat_p50, 1),
            },
            "keys_per_cycle": flow_keys.len(),
            "clicks_per_cycle": clicks,
            "view_us_per_click_fastest": round(click_us.min, 2),
            "floor_p99_us": round(rtt.cat_p99, 1),
            "pipe_placement": match cpus {
                Some(c) => json!({ "client_cpu": c.client, "server_cpu": c.other }),
                None => json!("unpinned"),
            },
            "same_core": rtt_same.map(|r| json!({
                "cpu": cpus.map(|c| c.client),
                "rtt_p50_us": round(r.askd_p50, 1),
                "rtt_p99_us": round(r.askd_p99, 1),
                "floor_p50_us": round(r.cat_p50, 1),
                "rtt_ratio": round(r.askd_p50 / r.cat_p50, 3),
            })),
            "request_bytes": rtt.request_bytes,
            "largest_reply_bytes": rtt.reply_bytes,
            "round_trips": plan.round_trips,
            "startup_askd_us": round(askd_start_us, 1),
            "startup_cat_us": round(cat_start_us, 1),
            "startups": plan.startups,
            "rss_mb_idle": round(idle_mib, 1),
            "sessions_held": plan.sessions,
            "rss_mb_10k_distinct_sessions": round(distinct_mib, 1),
            "hub_rss_mb_idle": round(hub_idle_mib, 1),
            "hub_agents": HUB_AGENTS,
            "hub_questions_per_agent": HUB_QUESTIONS_PER_AGENT,
            "core_ns_per_key_fastest": round(core_ns.min, 1),
            "view_us_per_key_fastest": round(view_us.min, 2),
            "options_view_us_per_key": {
                FEW_OPTIONS.to_string(): round(few_us.median, 2),
                MANY_OPTIONS.to_string(): round(many_us.median, 2),
            },
            "reference_core_ns_per_key": 323,
            "reference_view_us_per_key": 489,
            "reference_floor_p50_us": "45-70",
        },
        "machine": {
            "cores": cores,
            "cpu_model": cpu_model(),
            "memory_gib": memory_gib(),
            "load_average_1m": { "before": load_before, "after": load_average() },
        },
        "targets": targets,
        "all_met": all_met,
    }))
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(report) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&report).expect("a report serialises")
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("askd-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
