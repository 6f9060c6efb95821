//! `askd ask` in a real terminal: the binary runs inside a tmux pane (Debian's `tmux`, which
//! these tests need on the PATH), keys go in with `send-keys`, the screen comes out with
//! `capture-pane`. Every screen is checked line for line against the screen `askd play` prints
//! for the same keys at the pane's width, the result on stdout against play's result, and the
//! terminal's settings (`stty -a`) after `askd ask` against those before it, for every way out.
//!
//! A step waits for the screen with a bounded poll (a fixed number of captures with a short
//! pause between them); nothing is timed. Without `ASKD_TERMINAL_CAPTURES` unset, each capture
//! a step waited for is kept in memory and printed when the step fails; with it set to a
//! directory, every checked screen is also written there, one file per stage.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use askd::cli::play;
use askd::dialect::pi::EXAMPLE;
use serde_json::Value;

use crate::support::ASKD;

/// Captures a step makes before it gives up waiting for the screen it expects.
const POLLS: usize = 1500;
/// The pause between two captures.
const PAUSE: std::time::Duration = std::time::Duration::from_millis(20);

/// Distinguishes the tmux servers of tests running at once.
static SERVERS: AtomicUsize = AtomicUsize::new(0);

/// A tmux server of its own with one pane running a shell script in a scratch directory.
struct Pane {
    socket: String,
    dir: tempfile::TempDir,
    /// Every stage checked so far, for the captures directory.
    stage: usize,
    name: &'static str,
}

impl Pane {
    /// Starts `command` (a shell command line run in the scratch directory, with `$ASKD` the
    /// binary and `flow.json` the payload) in a pane of `width` × `height`, between two
    /// `stty -a`. The command runs in the background of the script, so that its pid is known
    /// (`pid`); the script records its exit status in `rc` once it has ended, and then keeps
    /// the pane open until the server is killed.
    fn start(name: &'static str, payload: &str, command: &str, width: u16, height: u16) -> Pane {
        let dir = tempfile::tempdir().expect("a scratch directory");
        std::fs::write(dir.path().join("flow.json"), payload).expect("the payload is written");
        let script = format!(
            "cd '{dir}' || exit 1\n\
             unset NO_COLOR\n\
             export ASKD='{ASKD}'\n\
             stty -a > before\n\
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

    /// A file of the scratch directory.
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs a tmux command on this server; fails the test if tmux fails or is missing.
    fn tmux(&self, args: &[&str]) -> Output {
        let output = Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .env_remove("TMUX")
            .output()
            .unwrap_or_else(|e| panic!("tmux is needed for these tests (apt-get install tmux): {e}"));
        assert!(
            output.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// Sends keys by their tmux names (`Down`, `BTab`, `M-Enter`, `C-c`).
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Types `text` literally.
    fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "0", "-l", text]);
    }

    /// Pastes `text` as the terminal would, in a bracketed paste.
    fn paste(&self, text: &str) {
        self.tmux(&["set-buffer", "-b", "paste", text]);
        self.tmux(&["paste-buffer", "-p", "-d", "-b", "paste", "-t", "0"]);
    }

    /// The visible screen as text, as play prints a screen (each line without its trailing
    /// spaces), without the blank lines at its end; `escapes` keeps the styles as escape
    /// sequences.
    fn capture(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-t", "0"];
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
    fn expect_screen(&mut self, what: &str, expected: &str) {
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

    /// Waits for `askd ask` to end and the script to record it: its exit status.
    fn wait_exit(&self) -> i32 {
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
    fn pid(&self) -> String {
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
    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// Checks that `stty -a` after `askd ask` printed exactly what it printed before.
    fn assert_terminal_restored(&self) {
        let before = self.read("before");
        assert!(before.contains("speed"), "stty -a ran: {before}");
        assert_eq!(self.read("after"), before, "{}: the terminal is restored", self.name);
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

/// The screen `askd play` shows for `payload` after `keys` (Vim notation) at `width`.
fn play_screen(payload: &str, keys: &str, width: usize) -> String {
    let run = play::run(payload, keys, width).expect("the keys play");
    run.frames.last().expect("a frame").screen.clone()
}

/// The result `askd play` ends with for `payload` after `keys`.
fn play_result(payload: &str, keys: &str) -> Value {
    play::run(payload, keys, 80)
        .expect("the keys play")
        .result
        .expect("the flow is done")
}

/// A flow driven step by step in the pane, each step checked against play.
struct Flow<'a> {
    pane: Pane,
    payload: &'a str,
    keys: String,
    width: usize,
}

impl Flow<'_> {
    /// Does `act` in the pane, as `keys` (Vim notation) would in play, and checks the screen.
    fn step(&mut self, what: &str, keys: &str, act: impl FnOnce(&Pane)) {
        act(&self.pane);
        self.keys.push_str(keys);
        let expected = play_screen(self.payload, &self.keys, self.width);
        self.pane.expect_screen(what, &expected);
    }
}

#[test]
fn a_whole_flow_answered_in_the_terminal_shows_plays_screens_and_prints_its_result() {
    let pane = Pane::start(
        "whole-flow",
        EXAMPLE,
        "cat flow.json | \"$ASKD\" ask - > out.json 2> err.txt",
        80,
        40,
    );
    let mut flow = Flow {
        pane,
        payload: EXAMPLE,
        keys: String::new(),
        width: 80,
    };
    flow.step("when the flow opens", "", |_| {});
    flow.step("after down", "<Down>", |p| p.keys(&["Down"]));
    flow.step("in the note editor", "n", |p| p.keys(&["n"]));
    flow.step(
        "after a paste of two lines",
        "docs first<M-CR>then code",
        |p| p.paste("docs first\nthen code"),
    );
    flow.step("with the note saved", "<CR>", |p| p.keys(&["Enter"]));
    flow.step("on the multi question", "<CR>", |p| p.keys(&["Enter"]));
    flow.step("with a check toggled", "<Space>", |p| p.keys(&["Space"]));
    flow.step("two rows down", "<Down><Down>", |p| p.keys(&["Down", "Down"]));
    flow.step("with another toggled", "<Space>", |p| p.keys(&["Space"]));
    flow.step("on Type your own, its editor open", "<Down>", |p| {
        p.keys(&["Down"])
    });
    flow.step("after typing CJK text", "性能テスト", |p| {
        p.type_text("性能テスト")
    });
    flow.step("after a new line", "<M-CR>", |p| p.keys(&["M-Enter"]));
    flow.step("after typing Hangul", "한국어 docs", |p| {
        p.type_text("한국어 docs")
    });
    flow.step("after a backspace", "<BS>", |p| p.keys(&["BSpace"]));
    flow.step("with the custom text saved, on the preview question", "<CR>", |p| {
        p.keys(&["Enter"])
    });
    flow.width = 100;
    flow.step("resized to 100 columns", "", |p| {
        p.tmux(&["resize-window", "-t", "0", "-x", "100", "-y", "40"]);
    });
    flow.step("on its second option", "<Down>", |p| p.keys(&["Down"]));
    flow.step("on the review tab", "<CR>", |p| p.keys(&["Enter"]));
    flow.step("back a tab", "<S-Tab>", |p| p.keys(&["BTab"]));
    flow.width = 72;
    flow.step("resized to 72 columns", "", |p| {
        p.tmux(&["resize-window", "-t", "0", "-x", "72", "-y", "40"]);
    });
    flow.step("forward a tab, to the review", "<Right>", |p| {
        p.keys(&["Right"])
    });
    // Back to the size `stty -a` saw first, so that it can compare whole.
    flow.width = 80;
    flow.step("resized back to 80 columns", "", |p| {
        p.tmux(&["resize-window", "-t", "0", "-x", "80", "-y", "40"]);
    });
    let exit = {
        flow.pane.keys(&["Enter"]);
        flow.keys.push_str("<CR>");
        flow.pane.wait_exit()
    };
    let pane = &flow.pane;
    assert_eq!(exit, 0, "submitted; stderr: {}", pane.read("err.txt"));
    assert_eq!(pane.read("err.txt"), "");
    let out = pane.read("out.json");
    assert_eq!(out.lines().count(), 1, "one line: {out}");
    let result: Value = serde_json::from_str(&out).expect("the result is JSON");
    assert_eq!(result, play_result(EXAMPLE, &flow.keys));
    assert_eq!(
        result["content"][0]["text"],
        "Scope: Minor\nScope / Minor note: docs first\nthen code\n\
         Checks: Unit tests, Screen snapshots, 性能テスト\n한국어 doc\n\
         Notes: Table"
    );
    assert_eq!(pane.capture(false), "", "the area is cleared");
    pane.assert_terminal_restored();
}
