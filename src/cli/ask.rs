//! `askd ask`: a flow answered in the terminal, for shell scripts and people.
//!
//! The flow runs in-process on the pure layers (a [`Session`], its [`view`] rendered at the
//! terminal's width): the screen is the one `askd play` prints at that width, drawn with ANSI
//! styles, and the result JSON goes to stdout on one line. Keys are read from the controlling
//! terminal, not from stdin, so `result=$(askd ask flow.json)` and `cat flow.json | askd ask -`
//! both work: crossterm puts the terminal in raw mode and reads its events from stdin when stdin
//! is a terminal and from `/dev/tty` otherwise, and the screen is written to `/dev/tty`.
//!
//! The screen is drawn inline by default, from the start of the cursor's line down; a redraw
//! goes back to the top of that area and clears below it (the cursor is parked there between
//! redraws, so that a terminal that reflows its lines on resize takes the cursor along), lines
//! never wrap (auto-wrap is off while the flow runs) and a screen taller than the terminal
//! shows its top rows. `--fullscreen` draws on the alternate screen instead. Once the flow is
//! done the area is cleared (inline) or the alternate screen left.
//!
//! Styles map to ANSI attributes and colours (see [`sgr`]), unless `NO_COLOR` is set to a
//! non-empty value or `TERM` is `dumb`: then the text is drawn plain and the terminal's own
//! cursor shows where the editor's cursor is.
//!
//! Keys are decoded by crossterm and mapped onto the engine's keys by [`key_of`]; pastes
//! arrive whole (bracketed paste) and go to the open editor as one `insert`. A terminal that
//! sends shift+enter as plain enter (most do, unless they encode modified keys as `CSI u`)
//! leaves alt+enter as the new-line key.
//!
//! The terminal is restored (raw mode off, cursor shown, auto-wrap on, bracketed paste off,
//! the inline area cleared or the alternate screen left) on every way out: a finished flow,
//! an error, a panic (by a panic hook, before the panic message is printed), and SIGTERM,
//! SIGHUP, SIGINT and SIGQUIT (by a thread that restores the terminal and ends the process
//! with status 128 + the signal's number). Ctrl+C is a key in raw mode: the engine's
//! `global.dismiss`, which cancels the flow.
//!
//! Exit statuses: [`EXIT_SUBMITTED`] (0) for a submitted flow (Submit or Elaborate),
//! [`EXIT_CANCELLED`] (1) for a cancelled one and for `--no-ui`, [`EXIT_INVALID`] (2) for a
//! payload that cannot be read or fails validation (its issues on stderr, in the dialect's
//! words; a pi payload's `invalid_input` result on stdout), [`EXIT_NO_TERMINAL`] (3) when
//! there is no terminal to draw on or it fails, 101 on a panic, 128 + N on signal N.
//!
//! `--behaviour` takes the flow's behaviour options as a JSON object, as `open` takes them
//! (`{ "profile": "pi-0.9", "confirmDismissWhenDirty": true }`, `protocol/behaviour.md` §9); an
//! unknown option or profile is refused with the reason.
//!
//! For the tests of terminal restoration only: when [`PANIC_ENV`] is set, the first key pressed
//! panics.

use std::fs::File;
use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::{Mutex, MutexGuard, PoisonError};

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

use crate::core::{Key, KeyCode, Limits, Mods, Outcome};
use crate::dialect::DialectId;
use crate::dialect::pi::EXAMPLE;
use crate::session::{BehaviourOptions, OpenOptions, Session, Status};
use crate::view::{self, Line, Style};

/// Exit status of a submitted flow (Submit, or Elaborate in the pi dialect).
pub const EXIT_SUBMITTED: u8 = 0;
/// Exit status of a cancelled flow, and of `--no-ui` (the non-interactive result is a cancel).
pub const EXIT_CANCELLED: u8 = 1;
/// Exit status of a payload that cannot be read or fails validation, or of a bad argument.
pub const EXIT_INVALID: u8 = 2;
/// Exit status when there is no terminal to draw on, or drawing on it fails.
pub const EXIT_NO_TERMINAL: u8 = 3;

/// Set (to anything), the first key pressed panics: the tests' way to check that a panic
/// restores the terminal. Read once, when the flow starts.
pub const PANIC_ENV: &str = "ASKD_ASK_PANIC_ON_KEY";

/// What `askd ask` takes.
#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// The payload file (JSON); `-` reads stdin.
    #[arg(required_unless_present = "example", conflicts_with = "example")]
    pub file: Option<String>,
    /// Answer the built-in example flow instead of a payload file.
    #[arg(long)]
    pub example: bool,
    /// The payload's dialect: `pi`, `dsh`, `claude`, `codex`, `opencode` or `mcp` (inferred from
    /// the payload when left out).
    #[arg(long)]
    pub dialect: Option<String>,
    /// Behaviour options of the flow, a JSON object as `open` takes them: `profile` (`seed` or
    /// `pi-0.9`) and the flags `confirmDismissWhenDirty`, `doublePressReviewShortcuts`,
    /// `autoSubmitWhenAnsweredWithoutNotes`, `presentSingleAsMulti`.
    #[arg(long, value_name = "JSON")]
    pub behaviour: Option<String>,
    /// Draw on the alternate screen instead of inline below the prompt.
    #[arg(long)]
    pub fullscreen: bool,
    /// Print the non-interactive result (the flow opened without UI) and exit with status 1.
    #[arg(long)]
    pub no_ui: bool,
}

/// Why `askd ask` stopped before or without a finished flow: the message and the exit status.
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

    fn terminal(error: &io::Error) -> Failure {
        Failure {
            status: EXIT_NO_TERMINAL,
            message: format!("the terminal failed: {error}"),
        }
    }
}

/// Runs `askd ask`: prints the result on stdout and returns the exit status.
pub fn run(args: &AskArgs) -> ExitCode {
    match ask(args) {
        Ok((result, status)) => {
            print_result(&result);
            ExitCode::from(status)
        }
        Err(failure) => {
            eprintln!("askd: {}", failure.message);
            ExitCode::from(failure.status)
        }
    }
}

/// Writes the result as one line of JSON; a reader that has gone away is not an error.
fn print_result(result: &Value) {
    let mut stdout = io::stdout().lock();
    let _ = writeln!(stdout, "{result}").and_then(|()| stdout.flush());
}

/// Opens the payload and runs the flow: the result and the exit status.
fn ask(args: &AskArgs) -> Result<(Value, u8), Failure> {
    let text = match (&args.file, args.example) {
        (_, true) => EXAMPLE.to_owned(),
        (Some(path), false) => read_payload(path)?,
        (None, false) => {
            return Err(Failure::invalid(
                "no payload: give a file, `-` or --example",
            ));
        }
    };
    let payload: Value = serde_json::from_str(&text)
        .map_err(|e| Failure::invalid(format!("the payload is not valid JSON: {e}")))?;
    let behaviour = match &args.behaviour {
        Some(text) => parse_behaviour(text)?,
        None => BehaviourOptions::default(),
    };
    let dialect = match args.dialect.as_deref() {
        None => None,
        Some(name) => Some(
            DialectId::named(name)
                .ok_or_else(|| Failure::invalid(format!("unknown dialect {name:?}")))?,
        ),
    };
    let limits = Limits::default();
    limits
        .check_payload(&payload)
        .map_err(|e| Failure::invalid(format!("the payload is too large: {e}")))?;
    let options = OpenOptions {
        dialect,
        has_ui: !args.no_ui,
        behaviour: behaviour.behaviour(),
        ..OpenOptions::default()
    };
    let mut session = Session::open(&payload, &options).map_err(|e| {
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
        let mut message = String::from("invalid payload:");
        for issue in &invalid.issues {
            message.push_str(&format!("\n- {}: {}", issue.path, issue.message));
        }
        eprintln!("askd: {message}");
        return Ok((invalid.result.clone(), EXIT_INVALID));
    }
    if let Ok(flow) = session.flow_mut() {
        flow.set_text_limit(limits.max_text_bytes);
        flow.set_stored_limit(limits.max_flow_text_bytes);
    }
    if session.status() == Status::Open {
        interact(&mut session, args.fullscreen)?;
    }
    let outcome = session.flow().and_then(|flow| flow.outcome());
    let status = match outcome {
        Some(Outcome::Submit | Outcome::Elaborate) if !args.no_ui => EXIT_SUBMITTED,
        _ => EXIT_CANCELLED,
    };
    Ok((session.result().unwrap_or(Value::Null), status))
}

/// Reads a payload file, or stdin for `-`.
fn read_payload(path: &str) -> Result<String, Failure> {
    let read = if path == "-" {
        io::read_to_string(io::stdin())
    } else {
        std::fs::read_to_string(path)
    };
    read.map_err(|e| Failure::invalid(format!("cannot read {path}: {e}")))
}

/// Reads `--behaviour`: a JSON object of behaviour options, as `open` takes them.
fn parse_behaviour(text: &str) -> Result<BehaviourOptions, Failure> {
    match serde_json::from_str::<Value>(text) {
        Ok(options @ Value::Object(_)) => serde_json::from_value(options)
            .map_err(|e| Failure::invalid(format!("--behaviour: {e}"))),
        Ok(_) => Err(Failure::invalid("--behaviour: expected a JSON object")),
        Err(e) => Err(Failure::invalid(format!(
            "--behaviour: not valid JSON: {e}"
        ))),
    }
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
}

impl Terminal {
    /// Opens `/dev/tty`, enters raw mode and sets the screen up, keeping the terminal in
    /// [`TERMINAL`] from the moment raw mode is on, so that every way out restores it.
    fn open(fullscreen: bool) -> Result<(), Failure> {
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
        terminal::enable_raw_mode().map_err(|e| Failure::terminal(&e))?;
        let colour = colour_wanted(
            std::env::var_os("NO_COLOR").as_deref(),
            std::env::var_os("TERM").as_deref(),
        );
        *terminal() = Some(Terminal {
            tty,
            fullscreen,
            colour,
            parked: 0,
        });
        terminal()
            .as_mut()
            .map_or(Ok(()), Terminal::set_up)
            .map_err(|e| Failure::terminal(&e))
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

    /// The bytes that draw `lines` (at most `rows` of them) over the last screen.
    fn frame(&self, lines: &[Line], rows: u16) -> io::Result<(Vec<u8>, u16)> {
        let shown = &lines[..lines.len().min(usize::from(rows.max(1)))];
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

/// Watches the signals that end the process: the first one restores the terminal and exits
/// with status 128 + its number.
fn watch_signals() -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT, SIGQUIT])?;
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            // Held until the process ends, so that the flow cannot draw again.
            let mut held = terminal();
            if let Some(term) = held.take() {
                term.restore();
            }
            std::process::exit(128 + signal);
        }
    });
    Ok(())
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

/// Runs the open flow on the terminal until it is done.
fn interact(session: &mut Session, fullscreen: bool) -> Result<(), Failure> {
    let panic_on_key = std::env::var_os(PANIC_ENV).is_some();
    watch_signals().map_err(|e| Failure::terminal(&e))?;
    hook_panics();
    let _restore = Restore;
    Terminal::open(fullscreen)?;
    let (mut columns, mut rows) = terminal::size().map_err(|e| Failure::terminal(&e))?;
    let mut redraw = true;
    while session.status() == Status::Open {
        if redraw {
            let view = view::build_with_width("ask", session, Some(usize::from(columns)));
            let lines = view.lines.unwrap_or_default();
            if let Some(term) = terminal().as_mut() {
                term.draw(&lines, rows).map_err(|e| Failure::terminal(&e))?;
            }
        }
        redraw = match event::read().map_err(|e| Failure::terminal(&e))? {
            Event::Key(event) => match key_of(&event) {
                Some(key) => {
                    if panic_on_key {
                        panic!("{PANIC_ENV} is set: panicking on key {key}");
                    }
                    // A key fails only once the flow is done, which ends the loop.
                    let columns = view::editor_columns(session, Some(usize::from(columns)));
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
    Ok(())
}

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
