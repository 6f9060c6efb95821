//! `askd ask`: a flow answered in the terminal, for shell scripts and people.
//!
//! The flow runs in-process on the pure layers (a [`Session`], its [`view`] rendered at the
//! terminal's width): the screen is the one `askd play` prints at that width, drawn with ANSI
//! styles, and the result goes to stdout (JSON on one line, or with `--format text` the answers
//! as plain lines). Keys are read from the controlling terminal, not from stdin, so
//! `result=$(askd ask flow.json)` and `cat flow.json | askd ask -` both work: crossterm puts the
//! terminal in raw mode and reads its events from stdin when stdin is a terminal and from
//! `/dev/tty` otherwise, and the screen is written to `/dev/tty`.
//!
//! The screen is drawn inline by default, from the start of the cursor's line down; a redraw
//! goes back to the top of that area and clears below it (the cursor is parked there between
//! redraws, so that a terminal that reflows its lines on resize takes the cursor along), lines
//! never wrap (auto-wrap is off while the flow runs), and a screen taller than the terminal
//! keeps its header and key hints and scrolls the rest to keep the focus in sight
//! ([`crate::cli::fit`]). `--fullscreen` draws on the alternate screen instead. Once the flow
//! is done the area is cleared (inline) or the alternate screen left. The terminal's side of
//! it (raw mode, drawing, styles, key names, signals) is [`crate::cli::term`].
//!
//! A flow with a deadline (`--timeout`, or the time the request gives itself, such as codex's
//! `autoResolutionMs`) shows a countdown at the right end of its top rule and ends at the
//! deadline as the server's timer ends it.
//!
//! Styles map to ANSI attributes and colours (see [`sgr`]), unless `NO_COLOR` is set to a
//! non-empty value or `TERM` is `dumb`: then the text is drawn plain and the terminal's own
//! cursor shows where the editor's cursor is.
//!
//! Keys are decoded by crossterm and mapped onto the engine's keys by [`key_of`]; pastes
//! arrive whole (bracketed paste) and go to the open editor as one `insert`. A terminal that
//! sends shift+enter as plain enter (most do, unless they encode modified keys as `CSI u`)
//! leaves alt+enter as the new-line key. Ctrl+Z suspends, as in any terminal program.
//!
//! The terminal is restored (raw mode off, cursor shown, auto-wrap on, bracketed paste off,
//! the inline area cleared or the alternate screen left) on every way out: a finished flow,
//! an error, a panic (by a panic hook, before the panic message is printed), and SIGTERM,
//! SIGHUP, SIGINT and SIGQUIT (by a thread that restores the terminal and ends the process
//! with status 128 + the signal's number). Ctrl+C is a key in raw mode: the engine's
//! `global.dismiss`. Ctrl+Z and SIGTSTP restore the terminal before the process stops; SIGCONT
//! puts it back in raw mode and redraws. A terminal that goes away (a hangup, whether or not a
//! SIGHUP reaches askd) ends the flow with reason `closed`: its result is printed and the
//! process exits with status 129, as after a SIGHUP.
//!
//! Exit statuses (the conventions of `gum` and `fzf` where they have one): [`EXIT_SUBMITTED`]
//! (0) for a submitted flow, Submit or Elaborate (the result's `mode` says which),
//! [`EXIT_CANCELLED`] (1) for a flow cancelled or declined and for `--no-ui`, [`EXIT_INVALID`]
//! (2) for a payload that cannot be read or fails validation (its issues on stderr, in the
//! dialect's words; a pi payload's `invalid_input` result on stdout), [`EXIT_NO_TERMINAL`] (3)
//! when there is no terminal to draw on or it fails, [`EXIT_TIMEOUT`] (124) for a flow that
//! timed out, [`EXIT_HANGUP`] (129) for a terminal that went away, [`EXIT_INTERRUPTED`] (130)
//! for a flow dismissed with Ctrl+C, 101 on a panic, 128 + N on signal N.
//!
//! `--behaviour` takes the flow's behaviour options as a JSON object, as `open` takes them
//! (`{ "profile": "pi-0.9", "confirmDismissWhenDirty": true }`, `protocol/behaviour.md` §9); an
//! unknown option or profile is refused with the reason. `confirmDismissWhenDirty` is on
//! unless it says otherwise or `--no-confirm-dismiss` is given.
//!
//! For the tests of terminal restoration only: when [`PANIC_ENV`] is set, the first key pressed
//! panics.

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crossterm::event::{self, Event};
use crossterm::terminal;
use serde_json::Value;

use crate::cli::payload::{Failure, FlowArgs, Payload};
use crate::core::{CancelReason, Limits, Outcome};
use crate::server::state::now_ms;
use crate::session::{Session, Status};
use crate::view;

pub use crate::cli::payload::EXIT_INVALID;
pub use crate::cli::term::{
    EXIT_NO_TERMINAL, colour_wanted, countdown, key_of, sgr, with_countdown,
};
use crate::cli::term::{
    HangUp, Restore, SUSPEND, Terminal, hook_panics, pasted, suspend, terminal, terminal_failure,
    until_tick, watch_hangup, watch_signals,
};

/// Exit status of a submitted flow (Submit, or Elaborate: the result's `mode` says which).
pub const EXIT_SUBMITTED: u8 = 0;
/// Exit status of a cancelled or declined flow, and of `--no-ui` (the non-interactive result
/// is a cancel).
pub const EXIT_CANCELLED: u8 = 1;
/// Exit status of a flow that timed out (as `timeout(1)` and `gum` use it).
pub const EXIT_TIMEOUT: u8 = 124;
/// Exit status when the terminal went away (as after a SIGHUP): the flow ended with reason
/// `closed`, and its result is printed.
pub const EXIT_HANGUP: u8 = 129;
/// Exit status of a flow dismissed with Ctrl+C (reason `dismissed`; 128 + SIGINT, as `gum` and
/// `fzf` use it).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Set (to anything), the first key pressed panics: the tests' way to check that a panic
/// restores the terminal. Read once, when the flow starts.
pub const PANIC_ENV: &str = "ASKD_ASK_PANIC_ON_KEY";

/// What `askd ask` takes.
#[derive(Debug, clap::Args)]
#[command(
    after_long_help = AFTER_HELP,
    mut_arg("file", |file| file.required_unless_present_any(["example", "attach"]))
)]
pub struct AskArgs {
    /// The payload and the flow's options.
    #[command(flatten)]
    pub flow: FlowArgs,
    /// Draw on the alternate screen instead of inline below the prompt.
    #[arg(long)]
    pub fullscreen: bool,
    /// Print the non-interactive result (the flow opened without UI) and exit with status 1.
    #[arg(long)]
    pub no_ui: bool,
    /// How the result is printed: `json`, the dialect's result on one line; `text`, the
    /// answers as plain lines (one per selected option value or custom answer; with several
    /// questions each line starts with the question's id and `: `), nothing when the flow was
    /// not answered.
    #[arg(long, value_enum, default_value_t = OutputFormat::Json)]
    pub format: OutputFormat,
    /// Answer the questions waiting in the hub, every agent's, oldest first, and those that
    /// arrive (starting a hub when none runs); Esc or q between questions stops. The answers go
    /// to the agents that asked, not to stdout.
    #[arg(
        long,
        conflicts_with_all = ["file", "example", "no_ui", "dialect", "behaviour", "timeout", "format"]
    )]
    pub attach: bool,
}

/// The exit statuses and output, for `--help`.
const AFTER_HELP: &str = "\
Exit status:
  0    submitted (Submit or Elaborate; in JSON the result's mode says which)
  1    cancelled (Esc, the Cancel action) or declined; --no-ui
  2    the payload cannot be read or fails validation (issues on stderr)
  3    no terminal to draw on
  124  timed out (--timeout, or the request's own deadline)
  129  the terminal went away (the flow ends with reason closed; its result is printed)
  130  dismissed with Ctrl+C
  128+N  killed by signal N (nothing is printed)

Output: the result on stdout, JSON on one line (--format json, the dialect's own result), or
the answers as plain lines (--format text). The screen goes to the terminal, never to stdout,
so `result=$(askd ask flow.json)` works. Ctrl+Z suspends; fg resumes.";

/// How `askd ask` prints the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// The dialect's result as JSON on one line.
    Json,
    /// The answers as plain lines.
    Text,
}

/// Runs `askd ask`: prints the result on stdout and returns the exit status.
pub fn run(args: &AskArgs) -> ExitCode {
    if args.attach {
        return crate::cli::attach::run(args.fullscreen);
    }
    match ask(args) {
        Ok((session, status)) => {
            print_result(&session, args.format);
            ExitCode::from(status)
        }
        Err(failure) => {
            eprintln!("askd: {}", failure.message);
            ExitCode::from(failure.status)
        }
    }
}

/// Writes the result in `format`; a reader that has gone away is not an error.
fn print_result(session: &Session, format: OutputFormat) {
    let text = match format {
        OutputFormat::Json => format!("{}\n", session.result().unwrap_or(Value::Null)),
        OutputFormat::Text => answer_lines(session),
    };
    let mut stdout = io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

/// The answers of a submitted flow as plain lines: each selected option's value, then the
/// custom answer, one per line; with several questions, each line starts with the question's
/// id and `: `. Nothing for a flow that was not submitted.
pub fn answer_lines(session: &Session) -> String {
    let Some(flow) = session.flow() else {
        return String::new();
    };
    if !matches!(flow.outcome(), Some(Outcome::Submit | Outcome::Elaborate)) {
        return String::new();
    }
    let questions = &flow.spec().questions;
    let several = questions.len() > 1;
    let mut out = String::new();
    for (question, answer) in questions.iter().zip(flow.answers()) {
        let values = answer
            .selected
            .iter()
            .filter_map(|&i| question.options.get(i))
            .map(|option| option.value.as_str());
        let custom = answer.custom_text.as_deref().filter(|_| !answer.custom_off);
        for value in values.chain(custom) {
            if several {
                out.push_str(&question.id);
                out.push_str(": ");
            }
            out.push_str(value);
            out.push('\n');
        }
    }
    out
}

/// The exit status of a finished session.
fn status_of(session: &Session, no_ui: bool) -> u8 {
    match session.flow().and_then(|flow| flow.outcome()) {
        Some(Outcome::Submit | Outcome::Elaborate) if !no_ui => EXIT_SUBMITTED,
        _ => match session.cancel_reason() {
            Some(CancelReason::Timeout) => EXIT_TIMEOUT,
            Some(CancelReason::Closed) => EXIT_HANGUP,
            Some(CancelReason::Dismissed) => EXIT_INTERRUPTED,
            _ => EXIT_CANCELLED,
        },
    }
}

/// Opens the payload and runs the flow: the finished session and the exit status.
fn ask(args: &AskArgs) -> Result<(Session, u8), Failure> {
    let payload = Payload::read(&args.flow)?;
    let mut session = payload.open(!args.no_ui)?;
    if session.issues().is_some() {
        return Ok((session, EXIT_INVALID));
    }
    let limits = Limits::default();
    if let Ok(flow) = session.flow_mut() {
        flow.set_text_limit(limits.max_text_bytes);
        flow.set_stored_limit(limits.max_flow_text_bytes);
    }
    if let Some(deadline) = payload.deadline(&session, now_ms()) {
        session.set_deadline(deadline);
    }
    if session.status() == Status::Open {
        let shared = Arc::new(Shared {
            session: Mutex::new(session),
            format: args.format,
        });
        interact(&shared, args.fullscreen)?;
        session = Arc::try_unwrap(shared)
            .map(|shared| {
                shared
                    .session
                    .into_inner()
                    .unwrap_or_else(PoisonError::into_inner)
            })
            .unwrap_or_else(|shared| shared.session().clone());
    }
    let status = status_of(&session, args.no_ui);
    Ok((session, status))
}

/// The session while the flow runs, shared with the threads that end it from outside (a
/// terminal that goes away).
struct Shared {
    session: Mutex<Session>,
    format: OutputFormat,
}

impl Shared {
    /// Locks the session, whether or not a thread panicked while holding it.
    fn session(&self) -> MutexGuard<'_, Session> {
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The terminal went away: ends the flow with reason `closed`, restores what can be
    /// restored, prints the result and ends the process with [`EXIT_HANGUP`].
    fn hang_up(&self) -> ! {
        let session = {
            let mut session = self.session();
            if let Ok(flow) = session.flow_mut() {
                let _ = flow.cancel(CancelReason::Closed);
            }
            session.clone()
        };
        // Held until the process ends, so that the flow cannot draw again.
        let mut held = terminal();
        if let Some(term) = held.take() {
            term.restore();
        }
        print_result(&session, self.format);
        std::process::exit(i32::from(EXIT_HANGUP));
    }
}

/// Runs the open flow on the terminal until it is done.
fn interact(shared: &Arc<Shared>, fullscreen: bool) -> Result<(), Failure> {
    let panic_on_key = std::env::var_os(PANIC_ENV).is_some();
    let on_hangup = shared.clone();
    let hang_up: HangUp = Arc::new(move || on_hangup.hang_up());
    watch_signals(hang_up.clone()).map_err(|e| terminal_failure(&e))?;
    hook_panics();
    let _restore = Restore;
    let tty = Terminal::open(fullscreen)?;
    watch_hangup(tty, hang_up);
    let (mut columns, mut rows) = terminal::size().map_err(|e| terminal_failure(&e))?;
    let mut redraw = true;
    loop {
        let now = now_ms();
        let deadline = {
            let mut session = shared.session();
            session.expire(now);
            if session.status() != Status::Open {
                return Ok(());
            }
            let deadline = session.deadline();
            if redraw {
                let width = usize::from(columns);
                let view = view::build_with_width("ask", &session, Some(width));
                let mut lines = view.lines.unwrap_or_default();
                if let Some(deadline) = deadline {
                    lines = with_countdown(lines, width, deadline, now);
                }
                if let Some(term) = terminal().as_mut() {
                    term.draw(&lines, rows).map_err(|e| terminal_failure(&e))?;
                }
            }
            deadline
        };
        if let Some(deadline) = deadline {
            let ready = event::poll(until_tick(deadline, now)).map_err(|e| terminal_failure(&e))?;
            if !ready {
                redraw = true;
                continue;
            }
        }
        let event = event::read().map_err(|e| terminal_failure(&e))?;
        let mut session = shared.session();
        redraw = match event {
            Event::Key(event) => match key_of(&event) {
                Some(key) if key == SUSPEND => {
                    drop(session);
                    suspend();
                    false
                }
                Some(key) => {
                    if panic_on_key {
                        panic!("{PANIC_ENV} is set: panicking on key {key}");
                    }
                    // A key fails only once the flow is done, which ends the loop.
                    let columns = view::editor_columns(&session, Some(usize::from(columns)));
                    let _ = session.press_wrapped(key, columns);
                    true
                }
                None => false,
            },
            Event::Paste(text) => session
                .flow_mut()
                .and_then(|flow| flow.insert(&pasted(&text)))
                .is_ok(),
            Event::Resize(new_columns, new_rows) => {
                (columns, rows) = (new_columns, new_rows);
                true
            }
            _ => false,
        };
    }
}
