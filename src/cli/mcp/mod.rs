//! `askd mcp`: an MCP server on stdio (built on rmcp, the official Rust MCP SDK) whose one tool,
//! `ask`, asks the agent's questions in the hub, where the person's clients answer them.
//!
//! - [`tool`]: the tool's name, description, input schema (close to Claude Code's
//!   `AskUserQuestion`, read by the claude dialect) and output schema.
//! - [`server`]: the `ServerHandler`: a call checked, asked in the hub (connected on the first
//!   call, started when none runs), progress while the person thinks, the flow aborted on
//!   `notifications/cancelled`, asked again in a new hub when the hub goes away.
//! - [`answer`]: the result the model reads (text and `structuredContent`), and tool errors.

pub mod answer;
pub mod server;
pub mod tool;

use std::process::ExitCode;
use std::time::Duration;

use rmcp::ServiceExt;

use crate::cli::hub::HubOptions;

/// What `askd mcp` takes.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// The person's time per question, in seconds: the flow then ends and the model is told it
    /// timed out. Default: no limit of askd's own (the host's own timeout, if any, cancels
    /// the call).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: Option<u64>,
    /// How often a call that waits for the person sends a progress notification, in seconds
    /// (when the host asked for progress; hosts that reset their timeout on progress then
    /// wait as long as the person needs).
    #[arg(long, value_name = "SECONDS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub progress_every: u64,
}

/// Runs `askd mcp` until the host closes its standard input.
pub fn run(args: &McpArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("askd mcp: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    let settings = server::Settings {
        hub: HubOptions {
            client_name: Some("askd mcp".to_owned()),
            ..HubOptions::default()
        },
        timeout: args.timeout.map(Duration::from_secs),
        progress_every: Duration::from_secs(args.progress_every),
        folder: std::env::current_dir()
            .ok()
            .map(|dir| dir.to_string_lossy().into_owned()),
    };
    runtime.block_on(async {
        let server = server::AskServer::new(settings);
        let inflight = server.inflight.clone();
        let running = match server.serve(rmcp::transport::stdio()).await {
            Ok(running) => running,
            Err(e) => {
                eprintln!("askd mcp: the host did not start the MCP session: {e}");
                return ExitCode::FAILURE;
            }
        };
        let quit = tokio::select! {
            quit = running.waiting() => quit.map(|q| format!("{q:?}")).unwrap_or_else(|e| e.to_string()),
            () = crate::cli::bridge::interrupted() => "interrupted".to_owned(),
        };
        tracing::info!("the MCP session ended: {quit}");
        // The calls still waiting abort their flows in the hub before the process ends.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
        while inflight.load(std::sync::atomic::Ordering::SeqCst) > 0
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        ExitCode::SUCCESS
    })
}
