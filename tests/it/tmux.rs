//! A tmux server of a test's own, for the real binary in a real terminal (Debian's `tmux`,
//! which these tests need on the PATH): keys go in with `send-keys`, the screen comes out with
//! `capture-pane`, and a script records the command's pid, exit status and `stty -a` before
//! and after it. Used by `terminal` (`askd ask`) and `attach` (`askd ask --attach`).
//!
//! A step waits for the screen with a bounded poll (a fixed number of captures with a short
//! pause between them); nothing is timed. With `ASKD_TERMINAL_CAPTURES` set to a directory,
//! every checked screen is also written there, one file per stage, to look at.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::support::ASKD;

/// Captures a step makes before it gives up waiting for the screen it expects.
pub(crate) const POLLS: usize = 1500;
/// The pause between two captures.
pub(crate) const PAUSE: std::time::Duration = std::time::Duration::from_millis(20);

/// Distinguishes the tmux servers of tests running at once.
static SERVERS: AtomicUsize = AtomicUsize::new(0);

/// A tmux server of its own with one pane running a shell script in a scratch directory.
pub(crate) struct Pane {
    socket: String,
    dir: tempfile::TempDir,
    /// Every stage checked so far, for the captures directory.
    stage: usize,
    name: &'static str,
    /// The tmux session the pane is in (`0`, then the one of each [`Pane::run_again`]).
    target: String,
}

impl Pane {
    /// Starts `command` (a shell command line run in the scratch directory, with `$ASKD` the
    /// binary, `flow.json` the payload and `state/` the user's state directory,
    /// `XDG_STATE_HOME`) in a pane of `width` × `height`, between two
    /// `stty -a`. The command runs in the background of the script, so that its pid is known
    /// (`pid`); the script records its exit status in `rc` once it has ended, and then keeps
    /// the pane open until the server is killed.
    pub(crate) fn start(
        name: &'static str,
        payload: &str,
        command: &str,
        width: u16,
        height: u16,
    ) -> Pane {
        Pane::start_after(name, payload, "", command, width, height)
    }

    /// As [`Pane::start`], with `prelude` (shell commands) run first, after the first `stty -a`.
    pub(crate) fn start_after(
        name: &'static str,
        payload: &str,
        prelude: &str,
        command: &str,
        width: u16,
        height: u16,
    ) -> Pane {
        let dir = tempfile::tempdir().expect("a scratch directory");
        std::fs::write(dir.path().join("flow.json"), payload).expect("the payload is written");
        let script = format!(
            "cd '{dir}' || exit 1\n\
             unset NO_COLOR\n\
             export ASKD='{ASKD}'\n\
             export XDG_STATE_HOME='{dir}/state'\n\
             stty -a > before\n\
             {prelude}\n\
             {command} &\n\
             echo $! > pid\n\
             wait $!\n\
             echo $? > rc.part\n\
             stty -a > after\n\
             mv rc.part rc\n\
             exec sleep infinity\n",
            dir = dir.path().display(),
        );
        std::fs::write(dir.path().join("run.sh"), script).expect("the script is written");
        let socket = format!(
            "askd-it-{}-{}",
            std::process::id(),
            SERVERS.fetch_add(1, Ordering::Relaxed)
        );
        let pane = Pane {
            socket,
            dir,
            stage: 0,
            name,
            target: "0".to_owned(),
        };
        let script = pane.path("run.sh");
        pane.tmux(&[
            "new-session",
            "-d",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
            "sh",
            &script.display().to_string(),
        ]);
        pane
    }

    /// An interactive shell with job control (bash, as a person has one) in a pane of 80 × 40,
    /// in the scratch directory with `flow.json` and `$ASKD`.
    pub(crate) fn start_shell(name: &'static str, payload: &str) -> Pane {
        let dir = tempfile::tempdir().expect("a scratch directory");
        std::fs::write(dir.path().join("flow.json"), payload).expect("the payload is written");
        let script = format!(
            "cd '{dir}' || exit 1\n\
             unset NO_COLOR\n\
             export ASKD='{ASKD}'\n\
             export XDG_STATE_HOME='{dir}/state'\n\
             exec env PS1='$ ' bash --norc --noprofile -i\n",
            dir = dir.path().display(),
        );
        std::fs::write(dir.path().join("shell.sh"), script).expect("the script is written");
        let socket = format!(
            "askd-it-{}-{}",
            std::process::id(),
            SERVERS.fetch_add(1, Ordering::Relaxed)
        );
        let pane = Pane {
            socket,
            dir,
            stage: 0,
            name,
            target: "0".to_owned(),
        };
        let script = pane.path("shell.sh");
        pane.tmux(&[
            "new-session",
            "-d",
            "-x",
            "80",
            "-y",
            "40",
            "sh",
            &script.display().to_string(),
        ]);
        pane
    }

    /// Runs `command` again in the scratch directory (its files and its state directory as the
    /// last command left them), in a new pane of `width` × `height` in place of this one, as
    /// [`Pane::start`] runs it: the pane a person opens to run a command again after the last
    /// one was killed.
    pub(crate) fn run_again(&mut self, command: &str, width: u16, height: u16) {
        for file in ["pid", "rc", "rc.part"] {
            let _ = std::fs::remove_file(self.path(file));
        }
        let script = std::fs::read_to_string(self.path("run.sh")).expect("the first script");
        let line = script
            .lines()
            .find(|line| line.ends_with(" &"))
            .expect("the command line");
        let again = script.replacen(line, &format!("{command} &"), 1);
        let name = format!("again{}", SERVERS.fetch_add(1, Ordering::Relaxed));
        let path = self.path(&format!("{name}.sh"));
        std::fs::write(&path, again).expect("the script is written");
        self.tmux(&[
            "new-session",
            "-d",
            "-s",
            &name,
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
            "sh",
            &path.display().to_string(),
        ]);
        let old = std::mem::replace(&mut self.target, name);
        self.tmux(&["kill-session", "-t", &old]);
    }

    /// A file of the scratch directory.
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs a tmux command on this server; fails the test if tmux fails or is missing.
    pub(crate) fn tmux(&self, args: &[&str]) -> Output {
        let output = Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .env_remove("TMUX")
            .output()
            .unwrap_or_else(|e| {
                panic!("tmux is needed for these tests (apt-get install tmux): {e}")
            });
        assert!(
            output.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// Sends keys by their tmux names (`Down`, `BTab`, `M-Enter`, `C-c`).
    pub(crate) fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.target];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Types `text` literally.
    pub(crate) fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", &self.target, "-l", text]);
    }

    /// Pastes `text` as the terminal would, in a bracketed paste.
    pub(crate) fn paste(&self, text: &str) {
        self.tmux(&["set-buffer", "-b", "paste", text]);
        self.tmux(&[
            "paste-buffer",
            "-p",
            "-d",
            "-b",
            "paste",
            "-t",
            &self.target,
        ]);
    }

    /// The visible screen as text, as play prints a screen (each line without its trailing
    /// spaces), without the blank lines at its end; `escapes` keeps the styles as escape
    /// sequences.
    pub(crate) fn capture(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-t", &self.target];
        if escapes {
            args.push("-e");
        }
        let text = String::from_utf8(self.tmux(&args).stdout).expect("the screen is UTF-8");
        let mut lines: Vec<&str> = text.lines().collect();
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
        lines
            .iter()
            .map(|line| format!("{}\n", line.trim_end()))
            .collect()
    }

    /// Waits until the screen is `expected`, and fails with the last capture if it never is.
    pub(crate) fn expect_screen(&mut self, what: &str, expected: &str) {
        self.stage += 1;
        let mut screen = String::new();
        for _ in 0..POLLS {
            screen = self.capture(false);
            if screen == expected {
                break;
            }
            std::thread::sleep(PAUSE);
        }
        if let Some(dir) = std::env::var_os("ASKD_TERMINAL_CAPTURES") {
            let file = Path::new(&dir).join(format!("{}-{:02}.txt", self.name, self.stage));
            std::fs::write(file, format!("── {what} ──\n{screen}")).expect("capture is written");
        }
        assert_eq!(screen, expected, "{}: the screen {what}", self.name);
    }

    /// Waits until the screen holds a line that is `line` (both trimmed), and fails with the last capture if
    /// it never does.
    pub(crate) fn expect_screen_loosely(&self, what: &str, line: &str) {
        let mut screen = String::new();
        for _ in 0..POLLS {
            screen = self.capture(false);
            if screen.lines().any(|l| l.trim() == line.trim()) {
                return;
            }
            std::thread::sleep(PAUSE);
        }
        panic!(
            "{}: the screen {what} never showed {line:?}:\n{screen}",
            self.name
        );
    }

    /// Waits for `askd ask` to end and the script to record it: its exit status.
    pub(crate) fn wait_exit(&self) -> i32 {
        let rc = self.path("rc");
        for _ in 0..POLLS {
            if let Ok(text) = std::fs::read_to_string(&rc) {
                return text.trim().parse().expect("rc holds a number");
            }
            std::thread::sleep(PAUSE);
        }
        panic!(
            "{}: askd ask did not end; the screen:\n{}",
            self.name,
            self.capture(false)
        );
    }

    /// The pid of `askd ask`, once the script has recorded it.
    pub(crate) fn pid(&self) -> String {
        let file = self.path("pid");
        for _ in 0..POLLS {
            if let Ok(text) = std::fs::read_to_string(&file)
                && text.ends_with('\n')
            {
                return text.trim().to_owned();
            }
            std::thread::sleep(PAUSE);
        }
        panic!("{}: the script recorded no pid", self.name);
    }

    /// A file the script wrote.
    pub(crate) fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// Checks that `stty -a` after `askd ask` printed exactly what it printed before.
    pub(crate) fn assert_terminal_restored(&self) {
        let before = self.read("before");
        assert!(before.contains("speed"), "stty -a ran: {before}");
        assert_eq!(
            self.read("after"),
            before,
            "{}: the terminal is restored",
            self.name
        );
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .env_remove("TMUX")
            .output();
    }
}
