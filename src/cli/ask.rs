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
//! The flow is kept in the state directory while it runs (`--state-dir`, `--no-state`), as
//! `askd serve` keeps its flows: it is opened in a session table of the process's own
//! ([`State`]) and every change is committed there, which writes it, before the screen shows
//! it. A killed `askd ask`, or one whose terminal went away, leaves its flow behind; the next
//! `askd ask` of the same payload offers it before asking ([`crate::cli::recover`]) and
//! resumes, discards or keeps it as the person says. A terminal that goes away prints the
//! result of the flow ended as `closed`, but the flow on disk stays open: a lost terminal is
//! not the person's word. Each fresh flow has an id of its own (`ask-<pid>-<ms>`), so two
//! flows left never share one.
//!
//! For the tests of terminal restoration only: when [`PANIC_ENV`] is set, the first key pressed
//! panics.

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crossterm::event::{self, Event};
use crossterm::terminal;
use serde_json::Value;

use serde_json::json;

use crate::cli::payload::{Failure, FlowArgs, Payload};
use crate::cli::recover;
use crate::core::{CancelReason, FlowError, Key, Outcome};
use crate::server::state::{Client, Config, State, now_ms};
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
    /// Where the flow is kept while it runs, so that an `askd ask` of the same payload
    /// offers it again after this one was killed or lost its terminal [default:
    /// $XDG_STATE_HOME/askd, else ~/.local/state/askd, as `askd serve`].
    #[arg(long, value_name = "DIR", conflicts_with = "no_state")]
    pub state_dir: Option<std::path::PathBuf>,
    /// Keep nothing on disk: the flow ends with the process, and no unfinished flow is
    /// offered.
    #[arg(long)]
    pub no_state: bool,
    /// Answer the questions waiting in the hub, every agent's, oldest first, and those that
    /// arrive (starting a hub when none runs); Esc or q between questions stops. The answers go
    /// to the agents that asked, not to stdout.
    #[arg(
        long,
        conflicts_with_all = [
            "file", "example", "no_ui", "dialect", "behaviour", "timeout", "format",
            "state_dir", "no_state"
        ]
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
  129  the terminal went away (its result, reason closed, is printed; the flow stays kept)
  130  dismissed with Ctrl+C
  128+N  killed by signal N (nothing is printed)

Output: the result on stdout, JSON on one line (--format json, the dialect's own result), or
the answers as plain lines (--format text). The screen goes to the terminal, never to stdout,
so `result=$(askd ask flow.json)` works. Ctrl+Z suspends; fg resumes.

Recovery: the flow is kept in the state directory while it runs (--state-dir, --no-state), so
an askd ask that is killed or loses its terminal leaves it behind. The next askd ask of the
same payload, before asking, shows it on the terminal (what it asked, when it was saved, how
far it got, how much was typed):
  r, enter  resume it where it was (draft, cursor, tab)
  s         start over: it is discarded, and the flow asked afresh
  k         keep it for later and ask afresh (it is offered again next time)
  esc, ctrl+c  keep it, and cancel or dismiss the fresh flow
Flows of other payloads are never offered here nor touched. It is offered on the terminal the
flow is drawn on, whatever stdin and stdout are; --no-state and --no-ui never offer (nor keep)
anything, and without a terminal askd ask fails with status 3 before it looks.";

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
    let session = payload.open(!args.no_ui)?;
    if session.issues().is_some() {
        return Ok((session, EXIT_INVALID));
    }
    if session.status() != Status::Open {
        // `--no-ui`: the non-interactive result, with nothing kept or offered.
        let status = status_of(&session, args.no_ui);
        return Ok((session, status));
    }
    let session = interact(args, &payload, session)?;
    let status = status_of(&session, args.no_ui);
    Ok((session, status))
}

/// The state directory `askd ask` keeps its flow in: `--state-dir`, none with `--no-state`,
/// else the user's, as `askd serve` keeps its flows.
fn state_dir(args: &AskArgs) -> Option<std::path::PathBuf> {
    if args.no_state {
        return None;
    }
    args.state_dir
        .clone()
        .or_else(crate::cli::default_state_dir)
}

/// The name a flow of `askd ask` gives as its asker, in the state directory and to the
/// clients that list its flows.
pub const ASKER: &str = "askd ask";

/// The params of the `open` of a fresh flow of `payload` as session `id`.
fn open_params(payload: &Payload, id: &str) -> String {
    let mut params = json!({
        "session": id,
        "payload": payload.value,
        "behaviour": payload.behaviour,
        "asker": { "name": ASKER },
    });
    if let Some(folder) = std::env::current_dir()
        .ok()
        .and_then(|dir| dir.to_str().map(str::to_owned))
    {
        params["asker"]["folder"] = json!(folder);
    }
    if let Some(dialect) = payload.dialect {
        params["dialect"] = json!(dialect.name());
    }
    if let Some(timeout) = payload.timeout {
        params["timeoutMs"] = json!(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
    }
    params.to_string()
}

/// The session table of this process, with its state directory, and the flow asked in it.
struct Local {
    /// The table and this process's client of it, once the terminal is open (nothing is
    /// written or looked at before).
    table: Option<(State, Client)>,
    /// The id of the flow in the table, once it is open there.
    id: Option<String>,
    /// The flow as the payload opens it, before it is open in the table (while the offer
    /// screen shows).
    asked: Session,
}

impl Local {
    /// The flow as it is now.
    fn session(&self) -> &Session {
        self.id
            .as_deref()
            .and_then(|id| self.table.as_ref()?.0.session(id))
            .unwrap_or(&self.asked)
    }

    /// Makes a change to the flow and commits it, which writes it to the state directory; a
    /// refused change is rolled back. Whether it was made.
    fn change(&mut self, f: impl FnOnce(&mut Session) -> Result<(), FlowError>) -> bool {
        let (Some(id), Some((state, client))) = (self.id.as_deref(), self.table.as_mut()) else {
            return false;
        };
        match state.change_here(client, id, f) {
            Ok(()) => {
                state.commit(client);
                true
            }
            Err(_) => {
                state.rollback(client);
                false
            }
        }
    }

    /// Calls a method of the table with `params` and commits what it changed; whether it
    /// succeeded.
    fn call<T>(
        &mut self,
        method: impl FnOnce(
            &mut State,
            &mut Client,
            Option<&str>,
        ) -> Result<T, jsonrpsee::types::ErrorObjectOwned>,
        params: &str,
    ) -> bool {
        let Some((state, client)) = self.table.as_mut() else {
            return false;
        };
        match method(state, client, Some(params)) {
            Ok(_) => {
                state.commit(client);
                true
            }
            Err(e) => {
                tracing::warn!("{}", e.message());
                state.rollback(client);
                false
            }
        }
    }
}

/// The flow while it runs, shared with the threads that end it from outside (a terminal that
/// goes away).
struct Shared {
    local: Mutex<Local>,
    format: OutputFormat,
}

impl Shared {
    /// Locks the table, whether or not a thread panicked while holding it.
    fn local(&self) -> MutexGuard<'_, Local> {
        self.local.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The terminal went away: restores what can be restored, prints the result of the flow
    /// ended with reason `closed` and ends the process with [`EXIT_HANGUP`]. The flow itself
    /// stays in the state directory as it was, offered by the next `askd ask` of the same
    /// payload: a terminal that went away is not the person's word.
    fn hang_up(&self) -> ! {
        // Held until the process ends, so that the flow cannot change or draw again.
        let mut local = self.local();
        let mut session = local.session().clone();
        if let Ok(flow) = session.flow_mut() {
            let _ = flow.cancel(CancelReason::Closed);
        }
        if let Some((state, _)) = local.table.as_mut() {
            state.close_store();
        }
        let mut held = terminal();
        if let Some(term) = held.take() {
            term.restore();
        }
        print_result(&session, self.format);
        std::process::exit(i32::from(EXIT_HANGUP));
    }
}

/// Runs the open flow `asked` of `payload` on the terminal until it is done, keeping it in
/// the state directory meanwhile, after offering the flow of the same request an earlier
/// `askd ask` left unfinished: the finished session.
fn interact(args: &AskArgs, payload: &Payload, asked: Session) -> Result<Session, Failure> {
    let shared = Arc::new(Shared {
        local: Mutex::new(Local {
            table: None,
            id: None,
            asked,
        }),
        format: args.format,
    });
    let ran = drive(&shared, args, payload);
    let mut local = shared.local();
    // What was written is made durable, and this process's directories go once empty.
    if let Some((state, _)) = local.table.as_mut() {
        state.close_store();
    }
    ran.map(|()| local.session().clone())
}

/// Draws the offer and then the flow on the terminal until the flow is done.
fn drive(shared: &Arc<Shared>, args: &AskArgs, payload: &Payload) -> Result<(), Failure> {
    let panic_on_key = std::env::var_os(PANIC_ENV).is_some();
    let on_hangup = shared.clone();
    let hang_up: HangUp = Arc::new(move || on_hangup.hang_up());
    watch_signals(hang_up.clone()).map_err(|e| terminal_failure(&e))?;
    hook_panics();
    let _restore = Restore;
    let tty = Terminal::open(args.fullscreen)?;
    watch_hangup(tty, hang_up);
    let (mut columns, mut rows) = terminal::size().map_err(|e| terminal_failure(&e))?;
    let mut state = State::new(Config {
        state_dir: state_dir(args),
        ..Config::default()
    });
    let client = state.client();
    shared.local().table = Some((state, client));
    // A key that kept the offered flow for later (Esc, Ctrl+C) goes on to the fresh flow.
    let mut pending = offer(shared, payload, &mut columns, &mut rows)?;
    let mut redraw = true;
    loop {
        let now = now_ms();
        let deadline = {
            let mut local = shared.local();
            if let Some((state, _)) = local.table.as_mut() {
                state.expire_due(now);
            }
            let session = local.session();
            if session.status() != Status::Open {
                return Ok(());
            }
            let deadline = session.deadline();
            if redraw {
                let width = usize::from(columns);
                let view = view::build_with_width("ask", session, Some(width));
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
        let width = Some(usize::from(columns));
        // A key fails only once the flow is done, which ends the loop.
        let press = |local: &mut Local, key: Key| {
            local.change(|session| {
                let columns = view::editor_columns(session, width);
                session.press_wrapped(key, columns)
            })
        };
        if let Some(key) = pending.take() {
            press(&mut shared.local(), key);
            redraw = true;
            continue;
        }
        if let Some(deadline) = deadline {
            let ready = event::poll(until_tick(deadline, now)).map_err(|e| terminal_failure(&e))?;
            if !ready {
                redraw = true;
                continue;
            }
        }
        let event = event::read().map_err(|e| terminal_failure(&e))?;
        let mut local = shared.local();
        redraw = match event {
            Event::Key(event) => match key_of(&event) {
                Some(key) if key == SUSPEND => {
                    drop(local);
                    suspend();
                    false
                }
                Some(key) => {
                    if panic_on_key {
                        panic!("{PANIC_ENV} is set: panicking on key {key}");
                    }
                    press(&mut local, key);
                    true
                }
                None => false,
            },
            Event::Paste(text) => {
                local.change(|session| session.flow_mut().and_then(|f| f.insert(&pasted(&text))))
            }
            Event::Resize(new_columns, new_rows) => {
                (columns, rows) = (new_columns, new_rows);
                true
            }
            _ => false,
        };
    }
}

/// Opens the flow in the table: when the state directory holds a flow of the same request
/// that an earlier `askd ask` left unfinished, it is offered first and resumed, discarded or
/// kept as the person says. Answers the key that said to keep it when the fresh flow is to
/// have it too (Esc, Ctrl+C).
fn offer(
    shared: &Shared,
    payload: &Payload,
    columns: &mut u16,
    rows: &mut u16,
) -> Result<Option<Key>, Failure> {
    let fresh = format!("ask-{}-{}", std::process::id(), now_ms());
    let found = {
        let mut local = shared.local();
        let Local { table, asked, .. } = &mut *local;
        let Some((state, client)) = table.as_mut() else {
            return Ok(None);
        };
        let offered = state.offered(client, asked);
        let mut same = offered.iter().filter(|o| o.same_flow);
        same.next().map(|latest| {
            let summary = recover::Summary::of(latest);
            let older = same.count();
            let others = offered.iter().filter(|o| !o.same_flow).count();
            (summary, older, others)
        })
    };
    let mut decision = recover::Decision::Keep(None);
    if let Some((summary, older, others)) = &found {
        decision = loop {
            let lines = recover::screen(summary, *older, *others, usize::from(*columns), now_ms());
            if let Some(term) = terminal().as_mut() {
                term.draw(&lines, *rows).map_err(|e| terminal_failure(&e))?;
            }
            match event::read().map_err(|e| terminal_failure(&e))? {
                Event::Key(event) => match key_of(&event) {
                    Some(key) if key == SUSPEND => suspend(),
                    Some(key) => {
                        if let Some(decision) = recover::decision_of(key) {
                            break decision;
                        }
                    }
                    None => {}
                },
                Event::Resize(new_columns, new_rows) => (*columns, *rows) = (new_columns, new_rows),
                _ => {}
            }
        };
    }
    let mut local = shared.local();
    if let Some((summary, ..)) = &found {
        let params = json!({ "session": summary.id }).to_string();
        match decision {
            recover::Decision::Resume => {
                if local.call(State::recover, &params) {
                    local.id = Some(summary.id.clone());
                    return Ok(None);
                }
            }
            recover::Decision::StartOver => {
                local.call(State::discard, &params);
            }
            recover::Decision::Keep(_) => {}
        }
    }
    if !local.call(State::open, &open_params(payload, &fresh)) {
        return Err(Failure::new(
            EXIT_INVALID,
            "the flow cannot be opened in the session table",
        ));
    }
    local.id = Some(fresh);
    Ok(match decision {
        recover::Decision::Keep(key) => key,
        _ => None,
    })
}
