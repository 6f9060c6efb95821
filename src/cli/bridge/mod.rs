//! `askd bridge <agent>`: long-running hub clients that carry an agent's questions into the
//! hub and its answers back. One agent today: [`opencode`] (an opencode server's questions).

pub mod host;
pub mod http;
pub mod hub;
pub mod opencode;

use std::process::ExitCode;

use crate::cli::bridge::http::{BaseUrl, Credentials, Server};

/// The address of `opencode serve` when it is started without `--port`.
pub const DEFAULT_OPENCODE_URL: &str = "http://127.0.0.1:4096";

/// Exit status of a bad argument.
pub const EXIT_USAGE: u8 = 2;
/// Exit status when the server refused the bridge (a password is missing or wrong).
pub const EXIT_REFUSED: u8 = 1;

/// Which agent to bridge.
#[derive(Debug, clap::Subcommand)]
pub enum BridgeCommand {
    /// Ask every question of an opencode server (`opencode serve`, or the server of a running
    /// opencode) in the hub, and answer it there.
    ///
    /// Watches the server's events (every directory it serves); each `question.asked` opens a
    /// flow in the hub (asker: opencode and the question's directory), which starts when none
    /// is running. The person's answer goes back with `POST /question/{id}/reply`, a dismissal
    /// with `POST /question/{id}/reject`. When another client (opencode's own interface)
    /// answers first, the hub's flow is withdrawn. A flow that ends without the person
    /// (withdrawn, timed out, its window closed) leaves the question to opencode's own
    /// clients. Runs until interrupted; reconnects, with backoff, when the server restarts,
    /// and asks again the questions still pending.
    ///
    /// A server with a password (`OPENCODE_SERVER_PASSWORD`) takes the same variables:
    /// OPENCODE_SERVER_PASSWORD and OPENCODE_SERVER_USERNAME (default `opencode`).
    ///
    /// Exit status: 0 when interrupted (SIGINT, SIGTERM, SIGHUP), 1 when the server refuses
    /// the credentials, 2 for a bad argument.
    Opencode(OpencodeArgs),
}

/// What `askd bridge opencode` takes.
#[derive(Debug, clap::Args)]
pub struct OpencodeArgs {
    /// The opencode server's address (plain HTTP, on this machine).
    #[arg(long, value_name = "URL", default_value = DEFAULT_OPENCODE_URL)]
    pub url: String,
}

/// Runs `askd bridge …`.
pub fn run(command: &BridgeCommand) -> ExitCode {
    match command {
        BridgeCommand::Opencode(args) => run_opencode(args),
    }
}

/// `askd bridge opencode`.
fn run_opencode(args: &OpencodeArgs) -> ExitCode {
    let base = match BaseUrl::parse(&args.url) {
        Ok(base) => base,
        Err(message) => {
            eprintln!("askd: bridge: --url: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("askd: bridge: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let server = Server::new(base, Credentials::from_env().as_ref());
        let hub = hub::Hub::new("opencode bridge", "askd: bridge", hub::Unattended::Tell);
        let bridge = opencode::Bridge::new(server, hub);
        match bridge.run(interrupted()).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("askd: bridge: {e}");
                ExitCode::from(EXIT_REFUSED)
            }
        }
    })
}

/// Resolves at the first SIGINT, SIGTERM or SIGHUP (never, where they cannot be watched).
pub async fn interrupted() {
    use tokio::signal::unix::{SignalKind, signal};
    let watch = |kind| signal(kind).ok();
    let (mut int, mut term, mut hup) = (
        watch(SignalKind::interrupt()),
        watch(SignalKind::terminate()),
        watch(SignalKind::hangup()),
    );
    let wait = |s: &mut Option<tokio::signal::unix::Signal>| {
        let mut s = s.take();
        async move {
            match s.as_mut() {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending().await,
            }
        }
    };
    tokio::select! {
        () = wait(&mut int) => {}
        () = wait(&mut term) => {}
        () = wait(&mut hup) => {}
    }
}
