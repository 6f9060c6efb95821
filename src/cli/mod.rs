//! The command line: `askd` (serve JSON-RPC on stdin/stdout, and over WebSocket with
//! `--listen`), and the tools around the engine — a flow answered in the terminal ([`ask`]) or
//! in a browser ([`web`]), scripted flows ([`play`]), the conformance runner ([`conformance`])
//! and the protocol's generated documents ([`schema`]).
//!
//! Architecture invariant: `cli` is the top layer; nothing imports it. Its tools read and
//! write files and spawn processes; the engine below never calls them.

pub mod ask;
pub mod attach;
pub mod bridge;
pub mod conformance;
pub mod docs;
pub mod fit;
pub mod hook;
pub mod hub;
pub mod mcp;
pub mod payload;
pub mod play;
pub mod recover;
pub mod schema;
pub mod term;
pub mod web;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::cli::play::Format;
use crate::core::Limits;
use crate::server::access::{Token, parse_origin};
use crate::server::listener::{DEFAULT_MAX_CONNECTIONS, ListenError, ListenOptions, Listener};
use crate::server::{self, state::Config, state::State};

/// A headless ask-flow engine speaking JSON-RPC 2.0 on stdin/stdout.
#[derive(Parser)]
#[command(name = "askd", version)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeCommand,
}

#[derive(Subcommand)]
enum Command {
    /// Serve JSON-RPC on stdin/stdout (the default), and over WebSocket with --listen.
    Serve(ServeCommand),
    /// Answer a flow in this terminal; the result goes to stdout (exit 0 submitted,
    /// 1 cancelled, 2 invalid payload, 3 no terminal, 124 timed out, 129 terminal lost,
    /// 130 Ctrl+C; see --help).
    Ask(ask::AskArgs),
    /// The hub: one askd where every agent's questions wait for the person's clients (a
    /// WebSocket listener with no stdin; its address in the runtime directory's discovery file).
    Hub(hub::command::HubArgs),
    /// Answer a flow in a browser: prints the page's address on stderr and, once the flow
    /// completes, the result JSON on stdout (exit 0 submitted, 1 cancelled, 2 invalid payload,
    /// 3 no listener).
    Web(WebCommand),
    /// Run a payload through a key script, printing every screen and the result.
    Play(PlayArgs),
    /// An MCP server on stdio whose ask_user tool asks the agent's questions in the hub (for
    /// Claude Code, Codex, opencode, Gemini CLI and any MCP host).
    Mcp(mcp::McpArgs),
    /// Answer an agent's questions in the hub from the agent's hook (`askd hook claude`).
    #[command(subcommand)]
    Hook(hook::HookCommand),
    /// Carry an agent's questions into the hub and its answers back (`askd bridge opencode`).
    #[command(subcommand)]
    Bridge(bridge::BridgeCommand),
    /// Play the built-in example flow.
    Demo(ScreenArgs),
    /// Run the conformance scenarios of a directory against an askd binary over its pipes.
    Conformance(ConformanceArgs),
    /// Write the OpenRPC document and the JSON Schemas of the protocol.
    Schema(SchemaArgs),
    /// Print the completion script of a shell (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
    /// Print the man page, or write every page (one per subcommand) into a directory.
    Man(ManArgs),
}

/// Which shell to complete for.
#[derive(Args)]
struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Where the man pages go.
#[derive(Args)]
struct ManArgs {
    /// Write `askd.1` and a page per subcommand into this directory instead of printing
    /// `askd.1`.
    #[arg(long)]
    out_dir: Option<std::path::PathBuf>,
}

/// Where to write the generated protocol documents.
#[derive(Args)]
struct SchemaArgs {
    /// The output directory: `openrpc.json` and `schemas/` are written there.
    #[arg(long, default_value = "protocol")]
    out: std::path::PathBuf,
}

/// Where the scenarios are and which binary to test.
#[derive(Args)]
struct ConformanceArgs {
    /// The scenario directory (e.g. `protocol/scenarios`).
    dir: std::path::PathBuf,
    /// The askd binary to test (default: this executable).
    #[arg(long)]
    bin: Option<std::path::PathBuf>,
}

/// What to play.
#[derive(Args)]
struct PlayArgs {
    /// The payload file (JSON); `-` reads stdin.
    file: String,
    /// Keys in Vim notation, e.g. `2<Tab><Space>n`.
    #[arg(long, default_value = "")]
    keys: String,
    #[command(flatten)]
    screen: ScreenArgs,
}

/// How to print a played flow.
#[derive(Args)]
struct ScreenArgs {
    /// Screen width in terminal columns.
    #[arg(long, default_value_t = play::DEFAULT_WIDTH)]
    width: usize,
    /// `text`: screens and the result; `json`: one Step per line.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Text,
    Json,
}

impl From<FormatArg> for Format {
    fn from(format: FormatArg) -> Self {
        match format {
            FormatArg::Text => Format::Text,
            FormatArg::Json => Format::Json,
        }
    }
}

/// Prints a played flow; errors go to stderr with status 2. A reader that stops early (a
/// closed pipe, as with `askd demo | head`) ends the output quietly.
fn print_play(output: Result<String, play::PlayError>) -> std::process::ExitCode {
    use std::io::Write;
    match output {
        Ok(text) => match std::io::stdout().lock().write_all(text.as_bytes()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                eprintln!("askd: cannot write the output: {e}");
                std::process::ExitCode::from(1)
            }
            _ => std::process::ExitCode::SUCCESS,
        },
        Err(e) => {
            eprintln!("askd: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

/// `askd serve`: the limits, and the WebSocket listener.
#[derive(Args)]
struct ServeCommand {
    #[command(flatten)]
    limits: ServeArgs,
    #[command(flatten)]
    listen: ListenArgs,
}

/// `askd web`: the flow, the listener, and the limits.
#[derive(Args)]
struct WebCommand {
    #[command(flatten)]
    web: web::WebArgs,
    #[command(flatten)]
    limits: ServeArgs,
}

/// The WebSocket listener beside stdin/stdout (`protocol/README.md`, "WebSocket").
#[derive(Args)]
#[command(next_help_heading = "WebSocket listener")]
struct ListenArgs {
    /// Also take WebSocket connections, and serve the browser client, at HOST:PORT
    /// (e.g. 127.0.0.1:8080, localhost:0; port 0 picks a free one). The address with the
    /// token goes to stderr.
    #[arg(long, value_name = "HOST:PORT", value_parser = parse_listen)]
    listen: Option<SocketAddr>,
    /// Read the token from FILE (created with a fresh token, mode 0600, when missing) instead
    /// of making a new one per start.
    #[arg(long, value_name = "FILE", requires = "listen")]
    token_file: Option<PathBuf>,
    /// Let pages of this origin connect too, e.g. https://editor.example (repeatable); the
    /// listener's own origin always may.
    #[arg(long, value_name = "ORIGIN", value_parser = parse_origin, requires = "listen")]
    allow_origin: Vec<String>,
    /// Listen on an address that is not a loopback one (anyone who can reach it and holds the
    /// token may answer flows).
    #[arg(long, requires = "listen")]
    allow_remote: bool,
    /// Most WebSocket connections open at once.
    #[arg(long, default_value_t = DEFAULT_MAX_CONNECTIONS, requires = "listen")]
    max_connections: usize,
    /// Do not register as the hub: by default a listener becomes the hub (its address in the
    /// runtime directory's discovery file) when no hub runs.
    #[arg(long, requires = "listen")]
    no_hub: bool,
    /// As the hub, never open a page in the browser for a flow no client is attached to (so
    /// does ASKD_NO_BROWSER=1).
    #[arg(long, requires = "listen")]
    no_browser: bool,
}

/// `--listen`: `HOST:PORT` with an IP address (IPv6 in brackets) or `localhost`.
pub(crate) fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    if let Some(port) = text.strip_prefix("localhost:") {
        let port = port
            .parse::<u16>()
            .map_err(|_| format!("{port:?} is not a port"))?;
        return Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    }
    text.parse()
        .map_err(|_| format!("{text:?} is not HOST:PORT (an IP address or localhost, and a port)"))
}

/// Limits of the server (exceeding one is refused with error -32004), and where it keeps open
/// flows.
#[derive(Args, Clone, Debug)]
pub(crate) struct ServeArgs {
    /// Largest accepted message, in bytes (a `restore` may be as large as this plus the
    /// largest snapshot the limits allow).
    #[arg(long, default_value_t = Config::default().max_message_bytes)]
    max_message_bytes: usize,
    /// Most sessions held at once (completed ones are evicted oldest-first beyond it), and most
    /// recovered flows offered at once.
    #[arg(long, default_value_t = Config::default().max_sessions)]
    max_sessions: usize,
    /// Most questions in one payload.
    #[arg(long, default_value_t = Limits::default().max_questions)]
    max_questions: usize,
    /// Most options in one question.
    #[arg(long, default_value_t = Limits::default().max_options)]
    max_options: usize,
    /// Most bytes in one text: a payload string, an editor, a custom answer or a note.
    #[arg(long, default_value_t = Limits::default().max_text_bytes)]
    max_text_bytes: usize,
    /// Most bytes of custom answers and notes one flow holds in all.
    #[arg(long, default_value_t = Limits::default().max_flow_text_bytes)]
    max_flow_text_bytes: usize,
    /// Largest reply, in bytes; a request whose reply would be larger fails and changes
    /// nothing (a batch's replies share it).
    #[arg(long, default_value_t = Config::default().max_reply_bytes)]
    max_reply_bytes: usize,
    /// Most bytes of replies waiting for the client to read them; past it, input is not read
    /// until the client catches up.
    #[arg(long, default_value_t = Config::default().max_pending_bytes)]
    max_pending_bytes: usize,
    /// Where the state of every open flow is kept, so that a new askd offers the flows of one
    /// that was killed, for 7 days, to be resumed on request [default: $XDG_STATE_HOME/askd,
    /// else ~/.local/state/askd].
    #[arg(long, value_name = "DIR", conflicts_with = "no_state")]
    state_dir: Option<std::path::PathBuf>,
    /// Keep no state on disk: open flows end with the process.
    #[arg(long)]
    no_state: bool,
}

impl ServeArgs {
    pub(crate) fn config(self) -> Config {
        let state_dir = match (self.no_state, self.state_dir) {
            (true, _) => None,
            (false, Some(dir)) => Some(dir),
            (false, None) => default_state_dir(),
        };
        Config {
            max_message_bytes: self.max_message_bytes,
            max_sessions: self.max_sessions.max(1),
            max_reply_bytes: self.max_reply_bytes,
            max_pending_bytes: self.max_pending_bytes,
            limits: Limits {
                max_questions: self.max_questions,
                max_options: self.max_options,
                max_text_bytes: self.max_text_bytes,
                max_flow_text_bytes: self.max_flow_text_bytes,
            },
            state_dir,
        }
    }
}

/// The user's state directory for askd: `$XDG_STATE_HOME/askd` (an absolute
/// `XDG_STATE_HOME`), else `~/.local/state/askd`; `None` without a home directory.
pub(crate) fn default_state_dir() -> Option<std::path::PathBuf> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(std::path::PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    match absolute("XDG_STATE_HOME") {
        Some(state) => Some(state.join("askd")),
        None => absolute("HOME").map(|home| home.join(".local/state/askd")),
    }
}

/// Runs the `askd` command with the process's arguments.
pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let log_file = match &cli.command {
        Some(Command::Hub(args)) => args.log.as_deref(),
        _ => None,
    };
    if let Err(code) = init_logging(log_file) {
        return code;
    }
    let args = match cli.command {
        Some(Command::Serve(args)) => args,
        None => cli.serve,
        Some(Command::Ask(args)) => return ask::run(&args),
        Some(Command::Mcp(args)) => return mcp::run(&args),
        Some(Command::Hook(command)) => return hook::run(&command),
        Some(Command::Bridge(command)) => return bridge::run(&command),
        Some(Command::Hub(args)) => return hub::command::run(args),
        Some(Command::Web(args)) => return web::run(&args.web, args.limits.config()),
        Some(Command::Play(args)) => {
            let output = play::read_payload(&args.file).and_then(|payload| {
                play::play(
                    &payload,
                    &args.keys,
                    args.screen.width,
                    args.screen.format.into(),
                )
            });
            return print_play(output);
        }
        Some(Command::Demo(args)) => return print_play(play::demo(args.width, args.format.into())),
        Some(Command::Conformance(args)) => return conformance(args),
        Some(Command::Schema(args)) => return schema(args),
        Some(Command::Completions(args)) => {
            docs::completions(args.shell, &mut std::io::stdout().lock());
            return std::process::ExitCode::SUCCESS;
        }
        Some(Command::Man(args)) => return man(args),
    };
    serve(args)
}

/// The log: on stderr, or appended to `file` (a hub's `--log`), at the level of `ASKD_LOG`
/// (default `warn`; `info` in a log file).
fn init_logging(file: Option<&std::path::Path>) -> Result<(), std::process::ExitCode> {
    let filter = |default: &str| {
        tracing_subscriber::EnvFilter::try_from_env("ASKD_LOG")
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default))
    };
    let subscriber = tracing_subscriber::fmt().with_ansi(false);
    match file {
        None => subscriber
            .with_writer(std::io::stderr)
            .with_env_filter(filter("warn"))
            .init(),
        Some(path) => match hub::command::open_log(path) {
            Ok(file) => subscriber
                .with_writer(Mutex::new(file))
                .with_env_filter(filter("info"))
                .init(),
            Err(e) => {
                eprintln!("askd: cannot write the log {}: {e}", path.display());
                return Err(std::process::ExitCode::from(1));
            }
        },
    }
    Ok(())
}

/// `askd serve`: JSON-RPC on stdin/stdout until its end or `exit`, and the WebSocket listener
/// beside it with `--listen`, every connection on one session table. A listener registers as
/// the hub when no hub runs (unless `--no-hub`), and then ends on `SIGINT`, `SIGTERM` or
/// `SIGHUP` too, removing its discovery file.
fn serve(args: ServeCommand) -> std::process::ExitCode {
    let listen = match listen_options(&args.listen) {
        Ok(listen) => listen,
        Err(message) => {
            eprintln!("askd: {message}");
            return std::process::ExitCode::from(2);
        }
    };
    // The server waits on pipes, on the deadlines of flows asked with a timeout, and with a
    // listener on its sockets (HTTP keeps timers of its own too).
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("askd: cannot start: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let config = args.limits.config();
    runtime.block_on(async {
        let (input, output) = stdio();
        let stdin = tokio::io::BufReader::with_capacity(64 * 1024, input);
        let served = match listen {
            None => server::serve(stdin, output, config).await,
            Some(options) => {
                let listener = match Listener::bind(options).await {
                    Ok(listener) => listener,
                    Err(e) => {
                        eprintln!("askd: {e}");
                        return std::process::ExitCode::from(match e {
                            ListenError::Remote(_) => 2,
                            ListenError::Bind { .. } => 1,
                        });
                    }
                };
                eprintln!("askd: listening on {}", listener.page_url(None));
                eprintln!("askd: WebSocket endpoint {}", listener.socket_url());
                let state = Arc::new(Mutex::new(State::new(config)));
                // Before the hub's file is written, so that a signal sent as soon as it is
                // read ends the hub cleanly.
                let mut signals = (!args.listen.no_hub).then(server::hub::StopSignals::install);
                let registration = (!args.listen.no_hub)
                    .then(|| register(&listener, &state, args.listen.no_browser))
                    .flatten();
                let serving = listener.serve(state.clone());
                // A server that installed the handlers ends on the signals whether or not it
                // became the hub (installed, they replace the default action for good).
                let served = tokio::select! {
                    served = server::serve_shared(stdin, output, state.clone()) => served,
                    name = async {
                        match signals.as_mut() {
                            Some(signals) => signals.recv().await,
                            None => std::future::pending().await,
                        }
                    } => {
                        let who = if registration.is_some() { "the hub" } else { "askd" };
                        tracing::info!("{who} stopped by {name}");
                        server::methods::lock(&state).close_store();
                        Ok(())
                    }
                };
                if let Some(registration) = registration {
                    registration.end();
                }
                serving.stop("askd stopped").await;
                served
            }
        };
        match served {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("askd: {e}");
                std::process::ExitCode::FAILURE
            }
        }
    })
}

/// Registers the server of `listener` as the hub when no hub runs; `None` when one does, or
/// when the discovery directory cannot be used (said in the log).
fn register(
    listener: &Listener,
    state: &Arc<Mutex<State>>,
    no_browser: bool,
) -> Option<crate::server::discovery::Registration> {
    use crate::server::discovery::{self, Registration};
    let dir = discovery::default_dir();
    let mut registration = match Registration::take(&dir) {
        Ok(Some(registration)) => registration,
        Ok(None) => {
            tracing::info!("a hub runs already; this server is not the hub");
            return None;
        }
        Err(e) => {
            tracing::warn!("this server is not the hub: {e}");
            return None;
        }
    };
    let browser = crate::server::browser::Browser::from_env(no_browser);
    match hub::command::publish(listener, state, &mut registration, browser) {
        Ok(_) => {
            eprintln!(
                "askd: the hub: its address is in {}",
                dir.join(discovery::FILE).display()
            );
            Some(registration)
        }
        Err(e) => {
            tracing::warn!("this server is not the hub: {e}");
            None
        }
    }
}

/// The listener's options from the command line (`None` without `--listen`); the token is
/// made or read here.
fn listen_options(args: &ListenArgs) -> Result<Option<ListenOptions>, String> {
    let Some(addr) = args.listen else {
        return Ok(None);
    };
    let token = match &args.token_file {
        Some(path) => Token::from_file(path),
        None => Token::generate(),
    }
    .map_err(|e| e.to_string())?;
    Ok(Some(ListenOptions {
        addr,
        token,
        allowed_origins: args.allow_origin.clone(),
        allow_remote: args.allow_remote,
        max_connections: args.max_connections,
    }))
}

/// `askd conformance`: prints the report; fails unless every scenario passed.
fn conformance(args: ConformanceArgs) -> std::process::ExitCode {
    let bin = match args.bin.map_or_else(std::env::current_exe, Ok) {
        Ok(bin) => bin,
        Err(e) => {
            eprintln!("askd: conformance: cannot find this executable: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match conformance::run_dir(&args.dir, &bin) {
        Ok(report) => {
            println!("{report}");
            if report.failed() == 0 {
                std::process::ExitCode::SUCCESS
            } else {
                std::process::ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("askd: conformance: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `askd man`: prints the man page, or writes every page into a directory.
fn man(args: ManArgs) -> std::process::ExitCode {
    let written = match &args.out_dir {
        Some(dir) => std::fs::create_dir_all(dir).and_then(|()| docs::man_pages(dir)),
        None => docs::man(&mut std::io::stdout().lock()),
    };
    match written {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("askd: man: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `askd schema`: writes the generated protocol documents and lists them.
fn schema(args: SchemaArgs) -> std::process::ExitCode {
    match schema::write(&args.out) {
        Ok(paths) => {
            for path in paths {
                println!("{}", path.display());
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("askd: schema: cannot write {}: {e}", args.out.display());
            std::process::ExitCode::FAILURE
        }
    }
}

/// Stdin and stdout for the runtime: pipes are polled by the runtime itself (no thread hop per
/// read or write); anything else (a file, a terminal) goes through tokio's blocking stdio.
fn stdio() -> (
    Box<dyn tokio::io::AsyncRead + Unpin + Send>,
    Box<dyn tokio::io::AsyncWrite + Unpin + Send>,
) {
    use std::os::fd::AsFd;
    use tokio::net::unix::pipe;
    let input: Box<dyn tokio::io::AsyncRead + Unpin + Send> = match std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .and_then(pipe::Receiver::from_owned_fd)
    {
        Ok(rx) => Box::new(rx),
        Err(_) => Box::new(tokio::io::stdin()),
    };
    let output: Box<dyn tokio::io::AsyncWrite + Unpin + Send> = match std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .and_then(pipe::Sender::from_owned_fd)
    {
        Ok(tx) => Box::new(tx),
        Err(_) => Box::new(tokio::io::stdout()),
    };
    (input, output)
}
