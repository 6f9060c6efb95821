//! The terminal a flow is drawn on, for `askd ask` and `askd ask --attach`: raw mode, the
//! screen drawn inline or on the alternate screen (fitted to the terminal's rows by [`fit`]),
//! ANSI styles, the engine's names of terminal keys, the countdown, and the ways out that must
//! restore the terminal (signals, a hangup, a panic, Ctrl+Z and `fg`).

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyCode as TermCode, KeyEvent, KeyEventKind,
    KeyModifiers,
};
use crossterm::style::{Attribute, Color, SetAttribute, SetForegroundColor};
use crossterm::terminal::{
    self, BeginSynchronizedUpdate, Clear, ClearType, DisableLineWrap, EnableLineWrap,
    EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
};
use crossterm::{cursor, queue};
use unicode_width::UnicodeWidthStr;

use crate::cli::fit::fit;
use crate::cli::payload::Failure;
use crate::core::{Key, KeyCode, Mods};
use crate::view::{Line, Style};

/// Exit status when there is no terminal to draw on, or drawing on it fails.
pub const EXIT_NO_TERMINAL: u8 = 3;

/// What ends a flow whose terminal went away (a SIGHUP, or the terminal's hangup seen by the
/// thread that watches it); it ends the process.
pub type HangUp = Arc<dyn Fn() + Send + Sync>;

/// The failure of a terminal that cannot be drawn on.
pub(crate) fn terminal_failure(error: &io::Error) -> Failure {
    Failure::new(EXIT_NO_TERMINAL, format!("the terminal failed: {error}"))
}

/// The terminal while a flow is drawn on it, shared by the drawing loop, the signal thread and
/// the panic hook: `None` when nothing is to be restored.
pub(crate) static TERMINAL: Mutex<Option<Terminal>> = Mutex::new(None);

/// Locks [`TERMINAL`], whether or not a thread panicked while holding it.
pub(crate) fn terminal() -> MutexGuard<'static, Option<Terminal>> {
    TERMINAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The controlling terminal in raw mode, and how the screen is drawn on it.
pub(crate) struct Terminal {
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
    pub(crate) fn open(fullscreen: bool) -> Result<File, Failure> {
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
    pub(crate) fn draw(&mut self, lines: &[Line], rows: u16) -> io::Result<()> {
        let (bytes, parked) = self.frame(lines, rows)?;
        self.write(&bytes)?;
        // Fullscreen positions are absolute: nothing to go back over.
        self.parked = if self.fullscreen { 0 } else { parked };
        Ok(())
    }

    /// Undoes what [`Terminal::open`] changed and clears what was drawn. Errors are ignored:
    /// the terminal may be gone (SIGHUP).
    pub(crate) fn restore(mut self) {
        self.leave();
    }

    /// What [`Terminal::restore`] does, keeping the terminal for [`Terminal::resume`]: the
    /// next screen is drawn from where the cursor then is.
    pub(crate) fn leave(&mut self) {
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
pub(crate) fn restore_terminal() {
    if let Some(term) = terminal().take() {
        term.restore();
    }
}

/// Restores the terminal when dropped, as a function returns or unwinds.
pub(crate) struct Restore;

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
pub(crate) fn pasted(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Watches the signals that concern the terminal: SIGHUP ends the flow as a terminal that went
/// away (`hang_up`); SIGTERM, SIGINT and SIGQUIT restore the terminal and end the
/// process with status 128 + the signal's number; SIGTSTP restores the terminal and stops the
/// process, and SIGCONT takes the terminal back and has the screen redrawn.
pub(crate) fn watch_signals(hang_up: HangUp) -> io::Result<()> {
    use signal_hook::consts::{SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP};
    let mut signals =
        signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGCONT])?;
    std::thread::spawn(move || {
        for signal in signals.forever() {
            match signal {
                SIGHUP => hang_up(),
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
pub(crate) fn resume_terminal() {
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
pub(crate) fn suspend() {
    // SAFETY: kill() with pid 0 signals this process's group; no memory is involved.
    unsafe {
        libc::kill(0, libc::SIGTSTP);
    }
}

/// Watches the terminal for a hangup: the reader of keys would spin on its end of file, so a
/// thread of its own waits for the hangup and calls `hang_up`.
pub(crate) fn watch_hangup(tty: File, hang_up: HangUp) {
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
                hang_up();
            }
            if ready < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                return;
            }
        }
    });
}

/// Restores the terminal before a panic's message is printed.
pub(crate) fn hook_panics() {
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
pub(crate) fn until_tick(deadline: u64, now: u64) -> Duration {
    let left = deadline.saturating_sub(now);
    let to_next = match left % 1000 {
        0 => 1000,
        rest => rest,
    };
    Duration::from_millis(to_next.min(left).max(1))
}

/// The key that suspends `askd ask` (Ctrl+Z), whatever the keymap binds.
pub(crate) const SUSPEND: Key = Key {
    code: KeyCode::Char('z'),
    mods: Mods {
        ctrl: true,
        alt: false,
        shift: false,
    },
};

/// `text` cut to `width` columns (with `…` at the end when cut), for the lines the terminal
/// clients draw around a flow.
pub(crate) fn clip(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    if text.width() <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// A line of `(text, style)` parts (empty parts left out).
pub(crate) fn line(parts: &[(&str, Style)]) -> Line {
    let mut text = String::new();
    let mut ends = Vec::new();
    for (part, style) in parts {
        if !part.is_empty() {
            text.push_str(part);
            ends.push((*style, text.len()));
        }
    }
    Line::from_parts(text, ends)
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
