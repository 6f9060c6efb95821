//! `askd hook <agent>`: an agent's hook command that answers its ask tool in the hub. One agent
//! today: [`claude`] (Claude Code's `PreToolUse` hook for `AskUserQuestion`).

pub mod claude;

use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::Duration;

use crate::cli::bridge::{hub, interrupted};

/// Exit status of an input that is not a hook's (Claude Code shows the error and goes on).
pub const EXIT_NOT_A_HOOK_INPUT: u8 = 1;

/// Which agent's hook.
#[derive(Debug, clap::Subcommand)]
pub enum HookCommand {
    /// Claude Code's PreToolUse hook for AskUserQuestion: the questions are answered in the
    /// hub (started when none runs), in the person's editor, browser or terminal.
    ///
    /// Reads the hook input on stdin. Prints the hook output that answers the tool call
    /// (`permissionDecision: "allow"` with the answers), or a `deny` the model reads when the
    /// person cancels. When nobody answers in time (no hub can start, the time runs out, the
    /// flow is withdrawn or its window closed), prints nothing and exits 0: Claude Code then
    /// asks with its own dialog.
    ///
    /// Time: Claude Code stops a hook after the hook's `timeout` setting (seconds; 600 when
    /// unset). Give askd the same number with --timeout: it gives up 5 seconds before (a
    /// quarter of a limit under 20 seconds), so that Claude Code's own dialog still asks. To
    /// give the person longer, raise both.
    ///
    /// Settings (`.claude/settings.json`):
    /// {"hooks": {"PreToolUse": [{"matcher": "AskUserQuestion", "hooks": [{"type": "command",
    /// "command": "askd hook claude --timeout 1800", "timeout": 1800}]}]}}
    ///
    /// Exit status: 0 (with or without output), 1 for an input that is not a hook's.
    Claude(ClaudeArgs),
}

/// What `askd hook claude` takes.
#[derive(Debug, clap::Args)]
pub struct ClaudeArgs {
    /// The hook's `timeout` setting in Claude Code, in seconds (Claude Code's default: 600).
    #[arg(long, value_name = "SECONDS", default_value_t = claude::CLAUDE_DEFAULT_TIMEOUT_SECS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
}

/// Runs `askd hook …`.
pub fn run(command: &HookCommand) -> ExitCode {
    match command {
        HookCommand::Claude(args) => run_claude(args),
    }
}

/// `askd hook claude`.
fn run_claude(args: &ClaudeArgs) -> ExitCode {
    let started = std::time::Instant::now();
    let mut bytes = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(claude::MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes);
    if let Err(e) = read {
        eprintln!("askd hook claude: cannot read the hook input: {e}");
        return ExitCode::from(EXIT_NOT_A_HOOK_INPUT);
    }
    let input = match claude::read_input(&bytes) {
        Ok(claude::Input::Ask(input)) => input,
        Ok(claude::Input::NotOurs(why)) => {
            eprintln!("askd hook claude: nothing to do: {why}");
            return ExitCode::SUCCESS;
        }
        Err(why) => {
            eprintln!("askd hook claude: {why}");
            return ExitCode::from(EXIT_NOT_A_HOOK_INPUT);
        }
    };
    let limit = Duration::from_secs(args.timeout);
    let budget = (limit - claude::margin(limit)).saturating_sub(started.elapsed());
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("askd hook claude: passed on to Claude Code's dialog: cannot start: {e}");
            return ExitCode::SUCCESS;
        }
    };
    let decision = runtime.block_on(async {
        let hub = hub::Hub::new(claude::ASKER, "askd hook claude", hub::Unattended::GiveUp);
        claude::decide(&input, &hub, budget, interrupted()).await
    });
    match decision {
        claude::Decision::Print(output) => {
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = writeln!(stdout, "{output}").and_then(|()| stdout.flush()) {
                eprintln!("askd hook claude: cannot write the hook output: {e}");
            }
        }
        claude::Decision::PassOn(why) => {
            eprintln!("askd hook claude: passed on to Claude Code's dialog: {why}");
        }
    }
    ExitCode::SUCCESS
}
