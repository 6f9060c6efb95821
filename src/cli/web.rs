//! `askd web`: a flow answered in a browser, for shell scripts and people away from a terminal.
//!
//! The payload is validated first, as `askd ask` does; then a WebSocket listener starts on
//! `127.0.0.1` (see [`crate::server::listener`]), the flow is opened in its session table as
//! session [`SESSION`], and the address of the page that shows it (token and session included)
//! goes to stderr. Once the flow completes, from any connection, the result JSON goes to stdout
//! on one line, the connections are closed (status 1001, "the flow is complete") and the
//! command ends.
//!
//! The flow is kept in the state directory (`--state-dir`, `--no-state`) as `askd serve`
//! keeps its flows: when `askd web` is killed, the same command run again (the same payload)
//! takes the flow up where it was (it opens its flow with `resume: true`), draft and cursor
//! included, and a page left open reconnects
//! to it when the address and token are the same (`--port`, `--token-file`).
//!
//! Exit statuses: [`EXIT_SUBMITTED`] (0) for a submitted flow (Submit or Elaborate),
//! [`EXIT_CANCELLED`] (1) for a cancelled or aborted one, [`EXIT_INVALID`] (2) for a payload
//! that cannot be read or fails validation (its issues on stderr, in the dialect's words; a pi
//! payload's `invalid_input` result on stdout), [`EXIT_NO_LISTENER`] (3) when the listener
//! cannot start.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::cli::payload::{Failure, FlowArgs, Payload};
use crate::core::Outcome;
use crate::server;
use crate::server::access::Token;
use crate::server::listener::{DEFAULT_MAX_CONNECTIONS, ListenOptions, Listener};
use crate::server::methods::lock;
use crate::server::state::{Config, State};

/// The session id of the flow `askd web` opens.
pub const SESSION: &str = "web";

/// Exit status of a submitted flow (Submit, or Elaborate in the pi dialect).
pub const EXIT_SUBMITTED: u8 = 0;
/// Exit status of a cancelled or aborted flow.
pub const EXIT_CANCELLED: u8 = 1;
pub use crate::cli::payload::EXIT_INVALID;
/// Exit status when the listener cannot start (the port is taken, the token file is unusable).
pub const EXIT_NO_LISTENER: u8 = 3;

/// The reason of the close frame the page's connection ends with.
const DONE_REASON: &str = "the flow is complete";

/// What `askd web` takes.
#[derive(Debug, clap::Args)]
pub struct WebArgs {
    /// The payload and the flow's options, as `askd ask` takes them.
    #[command(flatten)]
    pub flow: FlowArgs,
    /// The port to listen on, on 127.0.0.1; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Read the token from FILE (created with a fresh token, mode 0600, when missing) instead
    /// of making a new one.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Most WebSocket connections open at once.
    #[arg(long, default_value_t = DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
}

fn no_listener(message: impl Into<String>) -> Failure {
    Failure::new(EXIT_NO_LISTENER, message)
}

/// Runs `askd web` with the server's limits: prints the result on stdout and returns the exit
/// status.
pub fn run(args: &WebArgs, config: Config) -> ExitCode {
    let outcome = prepare(args).and_then(|prepared| match prepared {
        Prepared::Invalid(result) => Ok((result, EXIT_INVALID)),
        Prepared::Open(params) => serve(args, config, params),
    });
    match outcome {
        Ok((result, status)) => {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{result}").and_then(|()| stdout.flush());
            ExitCode::from(status)
        }
        Err(failure) => {
            eprintln!("askd: {}", failure.message);
            ExitCode::from(failure.status)
        }
    }
}

/// A payload read and validated.
enum Prepared {
    /// A pi payload that failed validation: its `invalid_input` result (the issues are on
    /// stderr already).
    Invalid(Value),
    /// The params of the `ask` that opens the flow.
    Open(Value),
}

/// Reads and validates the payload, reporting its issues as `askd ask` does: the params of
/// the `ask` that opens it (its dialect, behaviour options and deadline with it).
fn prepare(args: &WebArgs) -> Result<Prepared, Failure> {
    let payload = Payload::read(&args.flow)?;
    let session = payload.open(true)?;
    if session.issues().is_some() {
        return Ok(Prepared::Invalid(session.result().unwrap_or(Value::Null)));
    }
    // The same command run again after a crash goes on with the flow it left (`resume`); a
    // flow of another payload left under the same id stays offered, apart.
    let mut params = json!({
        "session": SESSION,
        "payload": payload.value,
        "behaviour": payload.behaviour,
        "resume": true,
    });
    if let Some(dialect) = payload.dialect {
        params["dialect"] = json!(dialect.name());
    }
    if let Some(timeout) = payload.timeout {
        params["timeoutMs"] = json!(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
    }
    Ok(Prepared::Open(params))
}

/// Starts the listener, opens the flow and waits for it: its result and the exit status.
fn serve(args: &WebArgs, config: Config, params: Value) -> Result<(Value, u8), Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| no_listener(format!("cannot start: {e}")))?;
    runtime.block_on(async {
        let token = match &args.token_file {
            Some(path) => Token::from_file(path),
            None => Token::generate(),
        }
        .map_err(|e| no_listener(e.to_string()))?;
        let listener = Listener::bind(ListenOptions {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, args.port)),
            token,
            allowed_origins: Vec::new(),
            allow_remote: false,
            max_connections: args.max_connections,
        })
        .await
        .map_err(|e| no_listener(e.to_string()))?;
        // The flow is kept in the state directory as `serve` keeps its flows (unless
        // `--no-state`): the same command run again after a crash takes up where it was.
        let state = Arc::new(Mutex::new(State::new(config)));
        let mut client = lock(&state).client();
        let waiter = lock(&state)
            .ask(&mut client, Some(&params.to_string()))
            .map_err(|e| {
                Failure::new(
                    EXIT_INVALID,
                    format!("cannot open the flow: {}", e.message()),
                )
            })?;
        eprintln!(
            "askd: answer the flow at {}",
            listener.page_url(Some(SESSION))
        );
        let serving = listener.serve(state.clone());
        // A flow with a deadline (a codex `autoResolutionMs`) ends at it, answered or not.
        let timer = tokio::spawn(server::expire_on_time(state.clone()));
        // The waiter answers once the flow completes, or once a client closes the session
        // (which aborts it first).
        let reply = waiter.await;
        let held = lock(&state).session(SESSION).map(|session| {
            let outcome = session.flow().and_then(|flow| flow.outcome());
            (session.result().unwrap_or(Value::Null), outcome)
        });
        timer.abort();
        serving.stop(DONE_REASON).await;
        // What was written is made durable, and this process's directory goes.
        lock(&state).close_store();
        Ok(match held {
            Some((result, Some(Outcome::Submit | Outcome::Elaborate))) => (result, EXIT_SUBMITTED),
            Some((result, _)) => (result, EXIT_CANCELLED),
            None => {
                eprintln!("askd: a client closed the flow before it completed");
                let result = reply.ok().and_then(Result::ok).unwrap_or(Value::Null);
                (result, EXIT_CANCELLED)
            }
        })
    })
}
