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
//! keeps its header and key hints and scrolls the rest to keep the focus in sight ([`fit`]). `--fullscreen` draws on the alternate screen instead. Once the flow is
//! done the area is cleared (inline) or the alternate screen left.
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

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crossterm::event::{
    self, DisableBracketedPaste, EnableBracketedPaste, Event, KeyCode as TermCode, KeyEvent,
    KeyEventKind, KeyModifiers,
};
use crossterm::style::{Attribute, Color, SetAttribute, SetForegroundColor};
use crossterm::terminal::{
    self, BeginSynchronizedUpdate, Clear, ClearType, DisableLineWrap, EnableLineWrap,
    EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
};
use crossterm::{cursor, queue};
use serde_json::Value;
use unicode_width::UnicodeWidthStr;

use crate::cli::fit::fit;
use crate::cli::payload::{Failure, FlowArgs, Payload};
use crate::core::{CancelReason, Key, KeyCode, Limits, Mods, Outcome};
use crate::session::{Session, Status};
use crate::view::{self, Line, Style};

pub use crate::cli::payload::EXIT_INVALID;

/// Exit status of a submitted flow (Submit, or Elaborate: the result's `mode` says which).
pub const EXIT_SUBMITTED: u8 = 0;
/// Exit status of a cancelled or declined flow, and of `--no-ui` (the non-interactive result
/// is a cancel).
pub const EXIT_CANCELLED: u8 = 1;
/// Exit status when there is no terminal to draw on, or drawing on it fails.
pub const EXIT_NO_TERMINAL: u8 = 3;
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
#[command(after_long_help = AFTER_HELP)]
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

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
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

/// The failure of a terminal that cannot be drawn on.
fn terminal_failure(error: &io::Error) -> Failure {
    Failure::new(EXIT_NO_TERMINAL, format!("the terminal failed: {error}"))
}

/// The terminal while a flow is drawn on it, shared by the drawing loop, the signal thread and
/// the panic hook: `None` when nothing is to be restored.
static TERMINAL: Mutex<Option<Terminal>> = Mutex::new(None);

/// Locks [`TERMINAL`], whether or not a thread panicked while holding it.
fn terminal() -> MutexGuard<'static, Option<Terminal>> {
    TERMINAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The controlling terminal in raw mode, and how the screen is drawn on it.
struct Terminal {
    /// `/dev/tty`, where the screen is written.
    tty: File,
    /// Drawing on the alternate screen rather than inline.
    fullscreen: bool,
    /// Styles drawn as ANSI attributes; otherwise plain text.
    colour: bool,
    /// Rows between the top of the drawn area and the cursor (inline).
    parked: u16,
    /// How far the body of a screen taller than the terminal is scrolled ([`fit`]).
    top: usize,
}

impl Terminal {
    /// Opens `/dev/tty`, enters raw mode and sets the screen up, keeping the terminal in
    /// [`TERMINAL`] from the moment raw mode is on, so that every way out restores it.
    /// Answers a second handle of the terminal, for the thread that watches it for a hangup.
    fn open(fullscreen: bool) -> Result<File, Failure> {
        let tty = File::options()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .map_err(|e| Failure {
                status: EXIT_NO_TERMINAL,
                message: format!(
                    "ask needs a terminal, and /dev/tty cannot be opened ({e}); \
                     --no-ui prints the non-interactive result"
                ),
            })?;
        let watched = tty.try_clone().map_err(|e| terminal_failure(&e))?;
        terminal::enable_raw_mode().map_err(|e| terminal_failure(&e))?;
        let colour = colour_wanted(
            std::env::var_os("NO_COLOR").as_deref(),
            std::env::var_os("TERM").as_deref(),
        );
        *terminal() = Some(Terminal {
            tty,
            fullscreen,
            colour,
            parked: 0,
            top: 0,
        });
        terminal()
            .as_mut()
            .map_or(Ok(()), Terminal::set_up)
            .map_err(|e| terminal_failure(&e))?;
        Ok(watched)
    }

    /// Enters the alternate screen (fullscreen) or goes to the start of the cursor's line
    /// (inline), and turns on what the flow needs: bracketed paste, no auto-wrap, no cursor.
    fn set_up(&mut self) -> io::Result<()> {
        let mut out = Vec::new();
        if self.fullscreen {
            queue!(out, EnterAlternateScreen)?;
        }
        queue!(out, EnableBracketedPaste, DisableLineWrap, cursor::Hide)?;
        out.push(b'\r');
        self.write(&out)
    }

    /// Writes `bytes` to the terminal at once.
    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.tty.write_all(bytes)?;
        self.tty.flush()
    }

    /// The bytes that draw `lines` (the part of the screen that fits in `rows`, see
    /// [`fit`]) over the last screen.
    fn frame(&mut self, lines: &[Line], rows: u16) -> io::Result<(Vec<u8>, u16)> {
        let (shown, top) = fit(lines, usize::from(rows), self.top);
        self.top = top;
        let mut out = Vec::with_capacity(shown.len() * 128);
        queue!(out, BeginSynchronizedUpdate)?;
        if self.fullscreen {
            queue!(out, cursor::MoveTo(0, 0))?;
        } else if self.parked > 0 {
            queue!(out, cursor::MoveUp(self.parked))?;
        }
        out.push(b'\r');
        queue!(out, Clear(ClearType::FromCursorDown))?;
        let mut cursor_at = None;
        for (i, line) in shown.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b"\r\n");
            }
            let mut column = 0;
            for span in line.spans() {
                if span.style == Style::Cursor && cursor_at.is_none() {
                    cursor_at = Some((i, column));
                }
                column += span.text.width();
                if self.colour {
                    queue!(out, SetAttribute(Attribute::Reset))?;
                    let (colour, attributes) = sgr(span.style);
                    if let Some(colour) = colour {
                        queue!(out, SetForegroundColor(colour))?;
                    }
                    for &attribute in attributes {
                        queue!(out, SetAttribute(attribute))?;
                    }
                }
                out.extend_from_slice(span.text.as_bytes());
            }
            if self.colour {
                queue!(out, SetAttribute(Attribute::Reset))?;
            }
        }
        // Back to the top of the area, or (plain text) to the editor's cursor.
        let last = u16::try_from(shown.len().saturating_sub(1)).unwrap_or(u16::MAX);
        let (row, column) = match cursor_at {
            Some((row, column)) if !self.colour => (
                u16::try_from(row).unwrap_or(0),
                u16::try_from(column).unwrap_or(0),
            ),
            _ => (0, 0),
        };
        if last > row {
            queue!(out, cursor::MoveUp(last - row))?;
        }
        queue!(out, cursor::MoveToColumn(column))?;
        if cursor_at.is_some() && !self.colour {
            queue!(out, cursor::Show)?;
        } else {
            queue!(out, cursor::Hide)?;
        }
        queue!(out, EndSynchronizedUpdate)?;
        Ok((out, row))
    }

    /// Draws `lines` over the last screen.
    fn draw(&mut self, lines: &[Line], rows: u16) -> io::Result<()> {
        let (bytes, parked) = self.frame(lines, rows)?;
        self.write(&bytes)?;
        // Fullscreen positions are absolute: nothing to go back over.
        self.parked = if self.fullscreen { 0 } else { parked };
        Ok(())
    }

    /// Undoes what [`Terminal::open`] changed and clears what was drawn. Errors are ignored:
    /// the terminal may be gone (SIGHUP).
    fn restore(mut self) {
        self.leave();
    }

    /// What [`Terminal::restore`] does, keeping the terminal for [`Terminal::resume`]: the
    /// next screen is drawn from where the cursor then is.
    fn leave(&mut self) {
        let mut out = Vec::new();
        let _ = (|| {
            if self.fullscreen {
                queue!(out, LeaveAlternateScreen)?;
            } else {
                if self.parked > 0 {
                    queue!(out, cursor::MoveUp(self.parked))?;
                }
                out.push(b'\r');
                queue!(out, Clear(ClearType::FromCursorDown))?;
            }
            queue!(
                out,
                SetAttribute(Attribute::Reset),
                DisableBracketedPaste,
                EnableLineWrap,
                cursor::Show
            )
        })();
        let _ = self.write(&out);
        let _ = terminal::disable_raw_mode();
        self.parked = 0;
    }

    /// Puts the terminal back as [`Terminal::open`] set it, after [`Terminal::leave`].
    fn resume(&mut self) -> io::Result<()> {
        terminal::enable_raw_mode()?;
        self.set_up()
    }
}

/// Restores the terminal if a flow holds it (see [`Terminal::restore`]).
fn restore_terminal() {
    if let Some(term) = terminal().take() {
        term.restore();
    }
}

/// Restores the terminal when dropped, as a function returns or unwinds.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// The ANSI colour and attributes of a style (see the styles of `view::render`).
pub fn sgr(style: Style) -> (Option<Color>, &'static [Attribute]) {
    match style {
        Style::Text => (None, &[]),
        Style::Title => (None, &[Attribute::Bold]),
        Style::Accent => (Some(Color::Cyan), &[Attribute::Bold]),
        Style::Success => (Some(Color::Green), &[]),
        Style::Muted | Style::Border => (Some(Color::DarkGrey), &[]),
        Style::Dim => (None, &[Attribute::Dim]),
        Style::Warning => (Some(Color::Yellow), &[]),
        Style::Selected => (Some(Color::Green), &[Attribute::Bold]),
        Style::Cursor => (None, &[Attribute::Reverse]),
    }
}

/// Whether styles are drawn: not when `NO_COLOR` is set to a non-empty value, nor on a `dumb`
/// terminal.
pub fn colour_wanted(no_color: Option<&std::ffi::OsStr>, term: Option<&std::ffi::OsStr>) -> bool {
    no_color.is_none_or(|value| value.is_empty()) && term.is_none_or(|term| term != "dumb")
}

/// The engine's key for a terminal key event, in its normal form (`shift` never on a
/// character; a character under ctrl or alt in lowercase); `None` for a key release and for
/// keys the engine has no name for (function keys, keys with super or hyper held).
pub fn key_of(event: &KeyEvent) -> Option<Key> {
    let held = event.modifiers;
    if event.kind == KeyEventKind::Release
        || held.intersects(KeyModifiers::SUPER | KeyModifiers::HYPER)
    {
        return None;
    }
    let mut mods = Mods {
        ctrl: held.contains(KeyModifiers::CONTROL),
        alt: held.intersects(KeyModifiers::ALT | KeyModifiers::META),
        shift: held.contains(KeyModifiers::SHIFT),
    };
    let code = match event.code {
        TermCode::Char(c) if c.is_control() => return None,
        TermCode::Char(c) => {
            mods.shift = false;
            let mut lower = c.to_lowercase();
            match (lower.next(), lower.next()) {
                (Some(l), None) if mods.ctrl || mods.alt => KeyCode::Char(l),
                _ => KeyCode::Char(c),
            }
        }
        TermCode::BackTab => {
            mods.shift = true;
            KeyCode::Tab
        }
        TermCode::Tab => KeyCode::Tab,
        TermCode::Enter => KeyCode::Enter,
        TermCode::Esc => KeyCode::Escape,
        TermCode::Backspace => KeyCode::Backspace,
        TermCode::Delete => KeyCode::Delete,
        TermCode::Up => KeyCode::Up,
        TermCode::Down => KeyCode::Down,
        TermCode::Left => KeyCode::Left,
        TermCode::Right => KeyCode::Right,
        TermCode::Home => KeyCode::Home,
        TermCode::End => KeyCode::End,
        TermCode::PageUp => KeyCode::PageUp,
        TermCode::PageDown => KeyCode::PageDown,
        _ => return None,
    };
    Some(Key { code, mods })
}

/// Pasted text as the editor takes it: terminals send line breaks as `\r`.
fn pasted(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Watches the signals that concern the terminal: SIGHUP ends the flow as a terminal that went
/// away ([`Shared::hang_up`]); SIGTERM, SIGINT and SIGQUIT restore the terminal and end the
/// process with status 128 + the signal's number; SIGTSTP restores the terminal and stops the
/// process, and SIGCONT takes the terminal back and has the screen redrawn.
fn watch_signals(shared: Arc<Shared>) -> io::Result<()> {
    use signal_hook::consts::{SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP};
    let mut signals =
        signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGCONT])?;
    std::thread::spawn(move || {
        for signal in signals.forever() {
            match signal {
                SIGHUP => shared.hang_up(),
                SIGTSTP => {
                    if let Some(term) = terminal().as_mut() {
                        term.leave();
                    }
                    // Stops the process as SIGTSTP would have; returns once it is continued.
                    let _ = signal_hook::low_level::emulate_default_handler(SIGTSTP);
                    resume_terminal();
                }
                SIGCONT => resume_terminal(),
                _ => {
                    // Held until the process ends, so that the flow cannot draw again.
                    let mut held = terminal();
                    if let Some(term) = held.take() {
                        term.restore();
                    }
                    std::process::exit(128 + signal);
                }
            }
        }
    });
    Ok(())
}

/// Takes the terminal back after a stop and has the screen drawn anew: raw mode on again, and
/// a SIGWINCH to this process, which the key reader reports as a resize.
fn resume_terminal() {
    if let Some(term) = terminal().as_mut()
        && term.resume().is_ok()
    {
        // SAFETY: raise() only sends a signal to this process; crossterm's handler of
        // SIGWINCH turns it into a resize event.
        unsafe {
            libc::raise(libc::SIGWINCH);
        }
    }
}

/// Stops the whole process group, as the terminal does with Ctrl+Z outside raw mode: the
/// signal thread restores the terminal first.
fn suspend() {
    // SAFETY: kill() with pid 0 signals this process's group; no memory is involved.
    unsafe {
        libc::kill(0, libc::SIGTSTP);
    }
}

/// Watches the terminal for a hangup: the reader of keys would spin on its end of file, so a
/// thread of its own waits for the hangup and ends the flow ([`Shared::hang_up`]).
fn watch_hangup(tty: File, shared: Arc<Shared>) {
    std::thread::spawn(move || {
        let mut poll = libc::pollfd {
            fd: tty.as_raw_fd(),
            events: 0,
            revents: 0,
        };
        loop {
            // SAFETY: one valid pollfd, for a descriptor this thread owns.
            let ready = unsafe { libc::poll(&mut poll, 1, -1) };
            if ready > 0 && poll.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
                shared.hang_up();
            }
            if ready < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                return;
            }
        }
    });
}

/// Restores the terminal before a panic's message is printed.
fn hook_panics() {
    let print = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // A panic while the terminal is locked (never while drawing) leaves it to `Restore`.
        if let Ok(mut held) = TERMINAL.try_lock()
            && let Some(term) = held.take()
        {
            term.restore();
        }
        print(info);
    }));
}

/// The countdown to `deadline` at `now` (milliseconds since the Unix epoch), as the other
/// clients show it: `m:ss` (`h:mm:ss` from an hour) of the whole seconds left, rounded up.
pub fn countdown(deadline: u64, now: u64) -> String {
    let seconds = deadline.saturating_sub(now).div_ceil(1000);
    let (hours, minutes, rest) = (seconds / 3600, seconds % 3600 / 60, seconds % 60);
    if hours > 0 {
        format!("{hours}:{minutes:02}:{rest:02}")
    } else {
        format!("{minutes}:{rest:02}")
    }
}

/// Seconds left under which the countdown is drawn as a warning.
const COUNTDOWN_WARNING_SECONDS: u64 = 10;

/// The screen with the countdown at the right end of its first line: into the top rule
/// (`───── 1:05 ─`), after the first line's text when it leaves room, else on a line of its
/// own above it.
pub fn with_countdown(mut lines: Vec<Line>, width: usize, deadline: u64, now: u64) -> Vec<Line> {
    let label = countdown(deadline, now);
    let style = if deadline.saturating_sub(now) <= COUNTDOWN_WARNING_SECONDS * 1000 {
        Style::Warning
    } else {
        Style::Muted
    };
    let label_width = label.width();
    let first_is_rule = lines
        .first()
        .is_some_and(|line| !line.text().is_empty() && line.text().chars().all(|c| c == '─'));
    let mut text = String::new();
    let mut ends = Vec::new();
    let mut push = |text: &mut String, piece: &str, style: Style| {
        if !piece.is_empty() {
            text.push_str(piece);
            ends.push((style, text.len()));
        }
    };
    if first_is_rule && width >= label_width + 4 {
        push(
            &mut text,
            &"─".repeat(width - label_width - 3),
            Style::Border,
        );
        push(&mut text, &format!(" {label} "), style);
        push(&mut text, "─", Style::Border);
        lines[0] = Line::from_parts(text, ends);
        return lines;
    }
    let used = lines.first().map_or(0, Line::width);
    if let Some(first) = lines.first()
        && width >= used + label_width + 2
    {
        for span in first.spans() {
            push(&mut text, span.text, span.style);
        }
        push(
            &mut text,
            &" ".repeat(width - used - label_width - 1),
            Style::Text,
        );
        push(&mut text, &label, style);
        lines[0] = Line::from_parts(text, ends);
        return lines;
    }
    push(
        &mut text,
        &" ".repeat(width.saturating_sub(label_width + 1)),
        Style::Text,
    );
    push(&mut text, &label, style);
    lines.insert(0, Line::from_parts(text, ends));
    lines
}

/// How long to wait for a key before the countdown to `deadline` changes at `now`: until the
/// next whole second left, at least a millisecond.
fn until_tick(deadline: u64, now: u64) -> Duration {
    let left = deadline.saturating_sub(now);
    let to_next = match left % 1000 {
        0 => 1000,
        rest => rest,
    };
    Duration::from_millis(to_next.min(left).max(1))
}

/// Runs the open flow on the terminal until it is done.
fn interact(shared: &Arc<Shared>, fullscreen: bool) -> Result<(), Failure> {
    let panic_on_key = std::env::var_os(PANIC_ENV).is_some();
    watch_signals(shared.clone()).map_err(|e| terminal_failure(&e))?;
    hook_panics();
    let _restore = Restore;
    let tty = Terminal::open(fullscreen)?;
    watch_hangup(tty, shared.clone());
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

/// The key that suspends `askd ask` (Ctrl+Z), whatever the keymap binds.
const SUSPEND: Key = Key {
    code: KeyCode::Char('z'),
    mods: Mods {
        ctrl: true,
        alt: false,
        shift: false,
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Action, Keymap};
    use crossterm::event::KeyEventState;

    fn press(code: TermCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    /// Every key the engine names, as a terminal reports it, and the name it must reach the
    /// engine with.
    fn table() -> Vec<(KeyEvent, &'static str)> {
        use KeyModifiers as M;
        use TermCode as T;
        let mut table = vec![
            (press(T::Up, M::NONE), "up"),
            (press(T::Down, M::NONE), "down"),
            (press(T::Left, M::NONE), "left"),
            (press(T::Right, M::NONE), "right"),
            (press(T::Tab, M::NONE), "tab"),
            (press(T::BackTab, M::SHIFT), "shift+tab"),
            (press(T::BackTab, M::NONE), "shift+tab"),
            (press(T::Enter, M::NONE), "enter"),
            (press(T::Enter, M::SHIFT), "shift+enter"),
            (press(T::Enter, M::ALT), "alt+enter"),
            (press(T::Esc, M::NONE), "escape"),
            (press(T::Backspace, M::NONE), "backspace"),
            (press(T::Delete, M::NONE), "delete"),
            (press(T::Home, M::NONE), "home"),
            (press(T::End, M::NONE), "end"),
            (press(T::PageUp, M::NONE), "pageup"),
            (press(T::PageDown, M::NONE), "pagedown"),
            (press(T::Left, M::CONTROL), "ctrl+left"),
            (press(T::Right, M::ALT), "alt+right"),
            (press(T::Right, M::CONTROL), "ctrl+right"),
            (press(T::Backspace, M::ALT), "alt+backspace"),
            (press(T::Delete, M::CONTROL), "ctrl+delete"),
            (press(T::Home, M::CONTROL | M::SHIFT), "ctrl+shift+home"),
            (press(T::Char(' '), M::NONE), "space"),
            (press(T::Char(' '), M::CONTROL), "ctrl+space"),
            (press(T::Char('n'), M::NONE), "n"),
            (press(T::Char('N'), M::SHIFT), "N"),
            (press(T::Char('1'), M::NONE), "1"),
            (press(T::Char('!'), M::SHIFT), "!"),
            (press(T::Char('t'), M::NONE), "t"),
            (press(T::Char('?'), M::SHIFT), "?"),
            (press(T::Char('?'), M::NONE), "?"),
            (press(T::Char('<'), M::NONE), "<"),
            (press(T::Char('/'), M::NONE), "/"),
            (press(T::Char('é'), M::NONE), "é"),
            (press(T::Char('한'), M::NONE), "한"),
            (press(T::Char('数'), M::NONE), "数"),
            (press(T::Char('C'), M::CONTROL | M::SHIFT), "ctrl+c"),
            (press(T::Char('x'), M::META), "alt+x"),
        ];
        for c in 'a'..='z' {
            let ctrl = Box::leak(format!("ctrl+{c}").into_boxed_str());
            let alt = Box::leak(format!("alt+{c}").into_boxed_str());
            table.push((press(T::Char(c), M::CONTROL), ctrl));
            table.push((press(T::Char(c), M::ALT), alt));
        }
        table
    }

    #[test]
    fn every_key_reaches_the_engine_with_its_name() {
        for (event, name) in table() {
            let key = key_of(&event);
            assert_eq!(
                key.map(|k| k.to_string()).as_deref(),
                Some(name),
                "{event:?}"
            );
            assert_eq!(
                key,
                Key::parse(name).ok(),
                "{event:?} is {name} in normal form"
            );
        }
    }

    #[test]
    fn repeats_count_and_releases_do_not() {
        let mut repeat = press(TermCode::Down, KeyModifiers::NONE);
        repeat.kind = KeyEventKind::Repeat;
        assert_eq!(key_of(&repeat), Key::parse("down").ok());
        let mut release = repeat;
        release.kind = KeyEventKind::Release;
        release.state = KeyEventState::NONE;
        assert_eq!(key_of(&release), None);
    }

    #[test]
    fn keys_without_a_name_are_dropped() {
        for event in [
            press(TermCode::F(1), KeyModifiers::NONE),
            press(TermCode::Insert, KeyModifiers::NONE),
            press(TermCode::Null, KeyModifiers::NONE),
            press(TermCode::Char('\u{7}'), KeyModifiers::NONE),
            press(TermCode::Char('a'), KeyModifiers::SUPER),
            press(TermCode::Up, KeyModifiers::HYPER),
        ] {
            assert_eq!(key_of(&event), None, "{event:?}");
        }
    }

    #[test]
    fn the_table_holds_every_default_binding() {
        let names: Vec<&str> = table().into_iter().map(|(_, name)| name).collect();
        let keymap = Keymap::default();
        for &action in Action::ALL {
            for key in keymap.keys(action) {
                let name = key.to_string();
                assert!(names.contains(&name.as_str()), "{action:?}: {name}");
            }
        }
        for digit in '1'..='9' {
            assert_eq!(
                key_of(&press(TermCode::Char(digit), KeyModifiers::NONE)),
                Key::parse(&digit.to_string()).ok()
            );
        }
    }

    #[test]
    fn colour_unless_no_color_or_a_dumb_terminal() {
        use std::ffi::OsStr;
        let xterm = Some(OsStr::new("xterm-256color"));
        assert!(colour_wanted(None, xterm));
        assert!(colour_wanted(None, None));
        assert!(colour_wanted(Some(OsStr::new("")), xterm));
        assert!(!colour_wanted(Some(OsStr::new("1")), xterm));
        assert!(!colour_wanted(None, Some(OsStr::new("dumb"))));
    }

    #[test]
    fn pasted_line_breaks_become_newlines() {
        assert_eq!(pasted("a\r\nb\rc\nd"), "a\nb\nc\nd");
    }

    #[test]
    fn each_style_has_its_attributes() {
        assert_eq!(sgr(Style::Text), (None, &[][..]));
        assert_eq!(sgr(Style::Title), (None, &[Attribute::Bold][..]));
        assert_eq!(
            sgr(Style::Accent),
            (Some(Color::Cyan), &[Attribute::Bold][..])
        );
        assert_eq!(sgr(Style::Success), (Some(Color::Green), &[][..]));
        assert_eq!(sgr(Style::Muted), (Some(Color::DarkGrey), &[][..]));
        assert_eq!(sgr(Style::Dim), (None, &[Attribute::Dim][..]));
        assert_eq!(sgr(Style::Warning), (Some(Color::Yellow), &[][..]));
        assert_eq!(
            sgr(Style::Selected),
            (Some(Color::Green), &[Attribute::Bold][..])
        );
        assert_eq!(sgr(Style::Cursor), (None, &[Attribute::Reverse][..]));
        assert_eq!(sgr(Style::Border), (Some(Color::DarkGrey), &[][..]));
    }
}
