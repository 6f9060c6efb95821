//! `askd hub`: the long-lived askd every agent's questions go to, its `--status` and `--stop`,
//! and the registration that makes `askd serve --listen` the hub when none is.
//!
//! Exit statuses of `askd hub`: [`EXIT_OK`] (0) once stopped (a signal, `askd hub --stop`,
//! `--idle-exit`); [`EXIT_FAILED`] (1) when it cannot start (the address is taken, the
//! discovery directory is refused); [`EXIT_USAGE`] (2) for a bad argument; [`EXIT_RUNNING`] (3)
//! when another hub is registered (its address is printed).
//!
//! `askd hub --status`: 0 a hub runs (its address, pid, waiting flows and clients printed on
//! stdout, one `name: value` per line); 1 no hub runs (a stale file, if any, is named on
//! stderr); 2 the discovery directory is refused or unreadable; 3 a hub is registered but does
//! not answer.
//!
//! `askd hub --stop`: 0 the hub stopped; 1 no hub runs; 2 as `--status`; 3 it did not stop
//! within [`STOP_WAIT`].
//!
//! `askd hub --pipe` (`super::pipe`): 0 at the end of input; 1 when the hub cannot be reached
//! or goes away.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::cli::ServeArgs;
use crate::cli::hub::client::{HubClient, HubOptions};
use crate::server::access::{Token, parse_origin};
use crate::server::browser::Browser;
use crate::server::discovery::{self, Found, HubFile, Registration};
use crate::server::hub::{self, Stopped};
use crate::server::listener::{ListenOptions, Listener};
use crate::server::state::{HubInfo, State, now_ms};

/// Exit status of a hub that stopped as asked, or of a `--status` or `--stop` that succeeded.
pub const EXIT_OK: u8 = 0;
/// Exit status of a hub that could not start; of `--status`/`--stop` when no hub runs.
pub const EXIT_FAILED: u8 = 1;
/// Exit status of a bad argument; of `--status`/`--stop` when the directory is refused.
pub const EXIT_USAGE: u8 = 2;
/// Exit status when another hub is registered; of `--status` when the hub does not answer,
/// and of `--stop` when it does not stop.
pub const EXIT_RUNNING: u8 = 3;

/// Most WebSocket connections a hub takes at once unless `--max-connections` says otherwise:
/// every agent's question and every person's client is one.
pub const HUB_MAX_CONNECTIONS: usize = 256;

/// How long `askd hub --stop` waits for the hub to end.
pub const STOP_WAIT: Duration = Duration::from_secs(10);

/// The subdirectory of the user's state directory where a hub keeps its flows when no
/// `--state-dir` is given.
pub const HUB_STATE: &str = "hub";

/// How long a hub that finds the lock held waits for the other hub's file, to name it.
const OTHER_HUB_WAIT: Duration = Duration::from_secs(5);

/// A log file past this size is moved aside (`.old`) when a hub starts.
const MAX_LOG_BYTES: u64 = 1024 * 1024;

/// `askd hub`: what it takes.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The hub writes its address and token to $XDG_RUNTIME_DIR/askd/hub.json \
(else ${TMPDIR:-/tmp}/askd-<uid>/askd/hub.json), mode 0600, and removes it when it stops. \
`askd mcp`, `askd hook` and `askd bridge` start one (with --idle-exit 600) when none runs.\n\n\
Without --state-dir the hub keeps its flows in the subdirectory hub/ of the default state \
directory, apart from other askd processes: a killed hub's flows are offered by the next hub.\n\n\
Exit status: 0 stopped (a signal, --stop, --idle-exit); 1 cannot start; 2 bad argument; \
3 another hub runs.\n--status: 0 running; 1 none; 2 directory refused; 3 not answering.\n\
--stop: 0 stopped; 1 none; 2 directory refused; 3 did not stop.\n\
--pipe: 0 at the end of input; 1 the hub cannot be reached or went away."
)]
pub struct HubArgs {
    /// Print the running hub's address, pid, waiting flows and clients, and exit.
    #[arg(long, conflicts_with = "stop")]
    pub status: bool,
    /// Stop the running hub (SIGTERM), wait for it to end, and exit.
    #[arg(long, conflicts_with = "pipe")]
    pub stop: bool,
    /// Relay JSON-RPC between stdin/stdout and the hub (started when none runs, as agents'
    /// glue starts it), for clients without WebSocket (Neovim): one message per line, or
    /// Content-Length frames, as `askd serve` reads them. Ends with stdin (exit 0) or when the
    /// hub goes away (exit 1).
    #[arg(long, conflicts_with = "status")]
    pub pipe: bool,
    /// Listen at HOST:PORT, a loopback address [default: 127.0.0.1:0, a free port].
    #[arg(long, value_name = "HOST:PORT", value_parser = crate::cli::parse_listen)]
    pub listen: Option<SocketAddr>,
    /// Read the token from FILE (created with a fresh token, mode 0600, when missing) instead
    /// of making a new one per start.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Let pages of this origin connect too (repeatable); the hub's own origin always may.
    #[arg(long, value_name = "ORIGIN", value_parser = parse_origin)]
    pub allow_origin: Vec<String>,
    /// Most WebSocket connections open at once.
    #[arg(long, default_value_t = HUB_MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Exit once no flow has waited and no client has been connected for SECS seconds (hubs
    /// started by `askd mcp`, `askd hook` and `askd bridge` use 600); without it the hub runs
    /// until stopped.
    #[arg(long, value_name = "SECS")]
    pub idle_exit: Option<u64>,
    /// Never open a page in the browser when a flow arrives with no client attached (so does
    /// ASKD_NO_BROWSER=1); the asker is told the address instead.
    #[arg(long)]
    pub no_browser: bool,
    /// Append the log to FILE instead of stderr (level from ASKD_LOG, default info).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) limits: ServeArgs,
}

/// Runs `askd hub`.
pub fn run(args: HubArgs) -> ExitCode {
    let dir = discovery::default_dir();
    if args.status {
        return ExitCode::from(block_on(status(&dir)));
    }
    if args.stop {
        return ExitCode::from(block_on(stop(&dir)));
    }
    if args.pipe {
        return ExitCode::from(block_on(super::pipe::run(dir)));
    }
    let addr = args
        .listen
        .unwrap_or(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)));
    if !addr.ip().is_loopback() {
        eprintln!("askd: the hub listens on loopback addresses only, not {addr}");
        return ExitCode::from(EXIT_USAGE);
    }
    let mut registration = match Registration::take(&dir) {
        Ok(Some(registration)) => registration,
        Ok(None) => return ExitCode::from(other_hub(&dir)),
        Err(e) => {
            eprintln!("askd: cannot register the hub: {e}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let token = match &args.token_file {
        Some(path) => Token::from_file(path),
        None => Token::generate(),
    };
    let token = match token {
        Ok(token) => token,
        Err(e) => {
            eprintln!("askd: {e}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let options = ListenOptions {
        addr,
        token,
        allowed_origins: args.allow_origin.clone(),
        allow_remote: false,
        max_connections: args.max_connections,
    };
    let mut config = args.limits.clone().config();
    if args.limits.state_dir.is_none() && config.state_dir.is_some() {
        // The hub keeps its flows apart from the other askd processes of the user: a killed
        // hub's flows are taken over by the next hub, where its agents ask again, never by an
        // editor's own `askd serve` that happens to look first.
        config.state_dir = crate::cli::default_state_dir().map(|dir| dir.join(HUB_STATE));
    }
    let browser = Browser::from_env(args.no_browser);
    let idle_exit = args.idle_exit.map(Duration::from_secs);
    let stopped = block_on(async move {
        let listener = match Listener::bind(options).await {
            Ok(listener) => listener,
            Err(e) => {
                eprintln!("askd: {e}");
                return None;
            }
        };
        let state = Arc::new(Mutex::new(State::new(config)));
        let signals = hub::StopSignals::install();
        let file = match publish(&listener, &state, &mut registration, browser) {
            Ok(file) => file,
            Err(e) => {
                eprintln!("askd: cannot write the hub's discovery file: {e}");
                return None;
            }
        };
        tracing::info!(pid = file.pid, url = file.url, "the hub runs");
        eprintln!("askd: hub listening on {}", listener.page_url(None));
        eprintln!(
            "askd: its address is in {}",
            registration.dir().join(discovery::FILE).display()
        );
        let stopped = hub::run(listener, state, idle_exit, signals).await;
        registration.end();
        Some(stopped)
    });
    match stopped {
        None => ExitCode::from(EXIT_FAILED),
        Some(stopped) => {
            let why = match stopped {
                Stopped::Signal(name) => format!("stopped by {name}"),
                Stopped::Idle => "stopped: idle (--idle-exit)".to_owned(),
            };
            tracing::info!("the hub {why}");
            eprintln!("askd: the hub {why}");
            ExitCode::from(EXIT_OK)
        }
    }
}

/// Makes the table of `listener` the hub's and writes the discovery file.
pub(crate) fn publish(
    listener: &Listener,
    state: &Arc<Mutex<State>>,
    registration: &mut Registration,
    browser: Browser,
) -> Result<HubFile, discovery::DiscoveryError> {
    let file = HubFile {
        pid: std::process::id(),
        url: listener.socket_base(),
        page: listener.page_base(),
        token: listener.token().as_str().to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        protocol_version: 1,
        started_at: now_ms(),
    };
    registration.publish(&file)?;
    crate::server::methods::lock(state).set_hub(HubInfo {
        url: file.url.clone(),
        page: file.page.clone(),
        token: file.token.clone(),
        browser,
    });
    Ok(file)
}

/// The lock is held by another process: names its hub once its file is there.
fn other_hub(dir: &Path) -> u8 {
    let deadline = std::time::Instant::now() + OTHER_HUB_WAIT;
    loop {
        if let Ok(Found::Hub(file)) = discovery::find(dir) {
            eprintln!(
                "askd: a hub is already running (pid {}) at {}",
                file.pid, file.page
            );
            return EXIT_RUNNING;
        }
        if std::time::Instant::now() >= deadline {
            eprintln!(
                "askd: another hub holds {}; it has not written its address yet",
                dir.join(discovery::LOCK).display()
            );
            return EXIT_RUNNING;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// `askd hub --status`.
async fn status(dir: &Path) -> u8 {
    let file = match discovery::find(dir) {
        Ok(Found::Hub(file)) => file,
        Ok(Found::Nothing) => {
            eprintln!("askd: no hub is running");
            return EXIT_FAILED;
        }
        Ok(Found::Stale(reason)) => {
            eprintln!("askd: no hub is running ({reason})");
            return EXIT_FAILED;
        }
        Err(e) => {
            eprintln!("askd: {e}");
            return EXIT_USAGE;
        }
    };
    let options = HubOptions {
        dir: Some(dir.to_owned()),
        ..HubOptions::default()
    };
    let status = match HubClient::connect(&options).await {
        Ok(client) => client.request("hub/status", serde_json::json!({})).await,
        Err(e) => Err(e),
    };
    let status = match status {
        Ok(status) => status,
        Err(e) => {
            eprintln!("askd: the hub (pid {}) does not answer: {e}", file.pid);
            return EXIT_RUNNING;
        }
    };
    let number = |name: &str| status[name].as_u64().unwrap_or(0);
    println!("pid: {}", file.pid);
    println!("url: {}", file.url);
    println!("page: {}", file.page);
    println!("version: {}", file.version);
    println!("started: {}", file.started_at);
    println!("waiting: {}", number("waiting"));
    println!("clients: {}", number("clients"));
    println!("attached: {}", number("attached"));
    println!("file: {}", dir.join(discovery::FILE).display());
    EXIT_OK
}

/// `askd hub --stop`.
async fn stop(dir: &Path) -> u8 {
    let file = match discovery::find(dir) {
        Ok(Found::Hub(file)) => file,
        Ok(Found::Nothing | Found::Stale(_)) => {
            eprintln!("askd: no hub is running");
            return EXIT_FAILED;
        }
        Err(e) => {
            eprintln!("askd: {e}");
            return EXIT_USAGE;
        }
    };
    let Ok(pid) = libc::pid_t::try_from(file.pid) else {
        return EXIT_FAILED;
    };
    // SAFETY: a plain signal to a process the discovery checks found to be the user's hub.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let deadline = tokio::time::Instant::now() + STOP_WAIT;
    while discovery::alive(file.pid) {
        if tokio::time::Instant::now() >= deadline {
            eprintln!(
                "askd: the hub (pid {}) did not stop within {} s",
                file.pid,
                STOP_WAIT.as_secs()
            );
            return EXIT_RUNNING;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    eprintln!("askd: the hub (pid {}) stopped", file.pid);
    EXIT_OK
}

/// Runs a future on a runtime of the current thread; once it is done, the runtime's blocking
/// work (a read of stdin that waits for input) is left behind rather than waited for.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .expect("a runtime of the current thread starts");
    let output = runtime.block_on(future);
    runtime.shutdown_background();
    output
}

/// The file a hub logs to with `--log`, opened for appending (mode 0600); one past
/// `MAX_LOG_BYTES` (1 MiB) is moved aside first.
pub fn open_log(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    if std::fs::metadata(path).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
        let mut old = path.as_os_str().to_owned();
        old.push(".old");
        let _ = std::fs::rename(path, old);
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(path)
}
