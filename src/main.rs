//! The `askd` command: serves the protocol on stdin/stdout.

use clap::{Args, Parser, Subcommand};

use askd::limits::Limits;
use askd::server::{self, state::Config};

/// A headless ask-flow engine speaking JSON-RPC 2.0 on stdin/stdout.
#[derive(Parser)]
#[command(name = "askd", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Serve JSON-RPC on stdin/stdout (the default).
    Serve(ServeArgs),
}

/// Limits of the server; exceeding one is refused with error -32004.
#[derive(Args, Clone, Copy)]
struct ServeArgs {
    /// Largest accepted message, in bytes.
    #[arg(long, default_value_t = 1024 * 1024)]
    max_message_bytes: usize,
    /// Most sessions held at once; completed ones are evicted oldest-first beyond it.
    #[arg(long, default_value_t = 1024)]
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
}

impl ServeArgs {
    fn config(self) -> Config {
        Config {
            max_message_bytes: self.max_message_bytes,
            max_sessions: self.max_sessions.max(1),
            limits: Limits {
                max_questions: self.max_questions,
                max_options: self.max_options,
                max_text_bytes: self.max_text_bytes,
            },
        }
    }
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ASKD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let args = match cli.command {
        Some(Command::Serve(args)) => args,
        None => cli.serve,
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("askd: cannot start: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let stdin = tokio::io::BufReader::with_capacity(64 * 1024, tokio::io::stdin());
    let result = runtime.block_on(server::serve(stdin, tokio::io::stdout(), args.config()));
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("askd: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
