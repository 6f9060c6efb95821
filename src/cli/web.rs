//! `askd web`: a flow answered in a browser, for shell scripts and people away from a terminal.
//!
//! The payload is validated first, as `askd ask` does; then a WebSocket listener starts on
//! `127.0.0.1` (see [`crate::server::listener`]), the flow is opened in its session table as
//! session [`SESSION`], and the address of the page that shows it (token and session included)
//! goes to stderr. Once the flow completes, from any connection, the result JSON goes to stdout
//! on one line, the connections are closed (status 1001, "the flow is complete") and the
//! command ends.
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

use crate::core::Outcome;
use crate::dialect::DialectId;
use crate::dialect::pi::EXAMPLE;
use crate::server;
use crate::server::access::Token;
use crate::server::listener::{DEFAULT_MAX_CONNECTIONS, ListenOptions, Listener};
use crate::server::methods::lock;
use crate::server::state::{Config, State};
use crate::session::{OpenOptions, Session};

/// The session id of the flow `askd web` opens.
pub const SESSION: &str = "web";

/// Exit status of a submitted flow (Submit, or Elaborate in the pi dialect).
pub const EXIT_SUBMITTED: u8 = 0;
/// Exit status of a cancelled or aborted flow.
pub const EXIT_CANCELLED: u8 = 1;
/// Exit status of a payload that cannot be read or fails validation, or of a bad argument.
pub const EXIT_INVALID: u8 = 2;
/// Exit status when the listener cannot start (the port is taken, the token file is unusable).
pub const EXIT_NO_LISTENER: u8 = 3;

/// The reason of the close frame the page's connection ends with.
const DONE_REASON: &str = "the flow is complete";

/// What `askd web` takes.
#[derive(Debug, clap::Args)]
pub struct WebArgs {
    /// The payload file (JSON); `-` reads stdin.
    #[arg(required_unless_present = "example", conflicts_with = "example")]
    pub file: Option<String>,
    /// Answer the built-in example flow instead of a payload file.
    #[arg(long)]
    pub example: bool,
    /// The payload's dialect (inferred from the payload when left out).
    #[arg(long)]
    pub dialect: Option<String>,
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

/// Why `askd web` stopped before or without a finished flow: the message and the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Failure {
    status: u8,
    message: String,
}

impl Failure {
    fn invalid(message: impl Into<String>) -> Failure {
        Failure {
            status: EXIT_INVALID,
            message: message.into(),
        }
    }

    fn no_listener(message: impl Into<String>) -> Failure {
        Failure {
            status: EXIT_NO_LISTENER,
            message: message.into(),
        }
    }
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

/// Reads and validates the payload, reporting its issues as `askd ask` does.
fn prepare(args: &WebArgs) -> Result<Prepared, Failure> {
    let text = match (&args.file, args.example) {
        (_, true) => EXAMPLE.to_owned(),
        (Some(path), false) => {
            let read = if path == "-" {
                std::io::read_to_string(std::io::stdin())
            } else {
                std::fs::read_to_string(path)
            };
            read.map_err(|e| Failure::invalid(format!("cannot read {path}: {e}")))?
        }
        (None, false) => {
            return Err(Failure::invalid(
                "no payload: give a file, `-` or --example",
            ));
        }
    };
    let payload: Value = serde_json::from_str(&text)
        .map_err(|e| Failure::invalid(format!("the payload is not valid JSON: {e}")))?;
    let dialect = match args.dialect.as_deref() {
        None => None,
        Some(name) => Some(
            DialectId::named(name)
                .ok_or_else(|| Failure::invalid(format!("unknown dialect {name:?}")))?,
        ),
    };
    let options = OpenOptions {
        dialect,
        ..OpenOptions::default()
    };
    let session = Session::open(&payload, &options).map_err(|e| {
        let code = e
            .data
            .as_ref()
            .and_then(|d| d.get("code"))
            .and_then(Value::as_str);
        Failure::invalid(match code {
            Some(code) => format!("invalid payload: {code}: {}", e.message),
            None => format!("invalid payload: {}", e.message),
        })
    })?;
    if let Session::Invalid { invalid, .. } = &session {
        let mut message = String::from("askd: invalid payload:");
        for issue in &invalid.issues {
            message.push_str(&format!("\n- {}: {}", issue.path, issue.message));
        }
        eprintln!("{message}");
        return Ok(Prepared::Invalid(invalid.result.clone()));
    }
    let mut params = json!({ "session": SESSION, "payload": payload });
    if let Some(name) = &args.dialect {
        params["dialect"] = json!(name);
    }
    Ok(Prepared::Open(params))
}

/// Starts the listener, opens the flow and waits for it: its result and the exit status.
fn serve(args: &WebArgs, config: Config, params: Value) -> Result<(Value, u8), Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::no_listener(format!("cannot start: {e}")))?;
    runtime.block_on(async {
        let token = match &args.token_file {
            Some(path) => Token::from_file(path),
            None => Token::generate(),
        }
        .map_err(|e| Failure::no_listener(e.to_string()))?;
        let listener = Listener::bind(ListenOptions {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, args.port)),
            token,
            allowed_origins: Vec::new(),
            allow_remote: false,
            max_connections: args.max_connections,
        })
        .await
        .map_err(|e| Failure::no_listener(e.to_string()))?;
        // The flow lives as long as this command: nothing is kept on disk for it.
        let config = Config {
            state_dir: None,
            ..config
        };
        let state = Arc::new(Mutex::new(State::new(config)));
        let mut client = lock(&state).client();
        let waiter = lock(&state)
            .ask(&mut client, Some(&params.to_string()))
            .map_err(|e| Failure::invalid(format!("cannot open the flow: {}", e.message())))?;
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
