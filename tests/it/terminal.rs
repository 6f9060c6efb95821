//! `askd ask` in a real terminal: the binary runs inside a tmux pane (Debian's `tmux`, which
//! these tests need on the PATH), keys go in with `send-keys`, the screen comes out with
//! `capture-pane`. Every screen is checked line for line against the screen `askd play` prints
//! for the same keys at the pane's width, the result on stdout against play's result, and the
//! terminal's settings (`stty -a`) after `askd ask` against those before it, for every way out.
//!
//! A step waits for the screen with a bounded poll (a fixed number of captures with a short
//! pause between them); nothing is timed. A step that never sees its screen fails with the
//! last capture. With `ASKD_TERMINAL_CAPTURES` set to a directory, every checked screen is
//! also written there, one file per stage (`whole-flow-07.txt`), to look at.

use std::process::Command;

use askd::cli::play;
use askd::dialect::pi::EXAMPLE;
use serde_json::Value;

use crate::support::ASKD;
use crate::tmux::Pane;

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
    flow.step("two rows down", "<Down><Down>", |p| {
        p.keys(&["Down", "Down"])
    });
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
    flow.step("after alt+backspace", "<M-BS>", |p| p.keys(&["M-BSpace"]));
    flow.step("after typing a word", "tests", |p| p.type_text("tests"));
    flow.step("a word to the left", "<C-Left>", |p| p.keys(&["C-Left"]));
    flow.step("after typing before it", "e2e ", |p| p.type_text("e2e "));
    flow.step("at the line's end", "<C-e>", |p| p.keys(&["C-e"]));
    flow.step(
        "with the custom text saved, on the preview question",
        "<CR>",
        |p| p.keys(&["Enter"]),
    );
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
         Checks: Unit tests, Screen snapshots, 性能テスト\n한국어 e2e tests\n\
         Notes: Table"
    );
    assert_eq!(pane.capture(false), "", "the area is cleared");
    pane.assert_terminal_restored();
}

/// The cancelled result play gives for `keys`.
fn cancelled_by(keys: &str) -> Value {
    let result = play_result(EXAMPLE, keys);
    assert_eq!(result["details"]["cancelled"], true);
    result
}

/// Runs the example in a pane, waits for its first screen, presses `keys` and checks that
/// `askd ask` exits with `status`, prints `result` and leaves the terminal as it found it.
fn exit_path(name: &'static str, press: &[&str], status: i32, result: &Value) {
    exit_path_of(
        name,
        "\"$ASKD\" ask flow.json > out.json 2> err.txt",
        press,
        status,
        result,
    );
}

/// As [`exit_path`], running `command` (which writes `out.json` and `err.txt`).
fn exit_path_of(name: &'static str, command: &str, press: &[&str], status: i32, result: &Value) {
    let mut pane = Pane::start(name, EXAMPLE, command, 80, 40);
    pane.expect_screen("when the flow opens", &play_screen(EXAMPLE, "", 80));
    pane.keys(press);
    assert_eq!(pane.wait_exit(), status, "stderr: {}", pane.read("err.txt"));
    assert_eq!(pane.read("err.txt"), "");
    let out: Value = serde_json::from_str(&pane.read("out.json")).expect("the result is JSON");
    assert_eq!(&out, result);
    pane.expect_screen("once it has ended", "");
    pane.assert_terminal_restored();
}

#[test]
fn escape_cancels_with_status_1_and_restores_the_terminal() {
    exit_path("escape", &["Escape"], 1, &cancelled_by("<Esc>"));
}

#[test]
fn ctrl_c_is_the_dismiss_key_ending_with_status_130_and_restoring_the_terminal() {
    exit_path("ctrl-c", &["C-c"], 130, &cancelled_by("<C-c>"));
}

#[test]
fn a_script_taking_the_result_of_a_submitted_flow_gets_status_0_and_a_restored_terminal() {
    // The way a script takes the answer: `result=$(askd ask flow.json)`.
    let command = "sh -c 'result=$(\"$ASKD\" ask flow.json 2> err.txt); status=$?; \
                   printf \"%s\\n\" \"$result\" > out.json; exit $status'";
    let keys = ["1", "1", "Tab", "1", "1"];
    exit_path_of(
        "digits",
        command,
        &keys,
        0,
        &play_result(EXAMPLE, "11<Tab>11"),
    );
}

/// Runs the example in a pane, waits for its first screen, sends `signal` to `askd ask` and
/// checks that it ends with 128 + the signal's number, prints nothing and restores the terminal.
fn killed_by(name: &'static str, signal: &str, status: i32) {
    let mut pane = Pane::start(
        name,
        EXAMPLE,
        "\"$ASKD\" ask flow.json > out.json 2> err.txt",
        80,
        40,
    );
    pane.keys(&["Down"]);
    pane.expect_screen("after down", &play_screen(EXAMPLE, "<Down>", 80));
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &pane.pid()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    assert_eq!(pane.wait_exit(), status);
    assert_eq!(pane.read("out.json"), "");
    assert_eq!(pane.read("err.txt"), "");
    pane.expect_screen("once it has ended", "");
    pane.assert_terminal_restored();
}

#[test]
fn sigterm_restores_the_terminal_and_exits_143() {
    killed_by("sigterm", "TERM", 143);
}

#[test]
fn sighup_ends_the_flow_as_closed_prints_its_result_and_exits_129() {
    let mut pane = Pane::start(
        "sighup",
        EXAMPLE,
        "\"$ASKD\" ask flow.json > out.json 2> err.txt",
        80,
        40,
    );
    pane.keys(&["Down"]);
    pane.expect_screen("after down", &play_screen(EXAMPLE, "<Down>", 80));
    let killed = Command::new("kill")
        .args(["-HUP", &pane.pid()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    assert_eq!(pane.wait_exit(), 129);
    assert_eq!(pane.read("err.txt"), "");
    let out: Value = serde_json::from_str(&pane.read("out.json")).expect("the result is JSON");
    assert_eq!(out, closed_result());
    pane.expect_screen("once it has ended", "");
    pane.assert_terminal_restored();
}

/// The example's result when its terminal went away before anything was answered.
fn closed_result() -> Value {
    use askd::session::{OpenOptions, Session};
    let payload: Value = serde_json::from_str(EXAMPLE).expect("JSON");
    let mut session = Session::open(&payload, &OpenOptions::default()).expect("opens");
    session
        .flow_mut()
        .expect("a flow")
        .cancel(askd::core::CancelReason::Closed)
        .expect("cancels");
    let result = session.result().expect("done");
    assert_eq!(result["details"]["cancelReason"], "closed");
    result
}

#[test]
fn a_terminal_that_goes_away_without_a_sighup_ends_the_flow_as_closed() {
    // The script ignores SIGHUP, so that no SIGHUP reaches askd when the terminal hangs up:
    // askd must notice the hangup itself rather than read its end of file forever.
    let pane = Pane::start_after(
        "hangup",
        EXAMPLE,
        "trap '' HUP",
        "\"$ASKD\" ask flow.json > out.json 2> err.txt",
        80,
        40,
    );
    pane.expect_screen_loosely("when the flow opens", " Release plan");
    pane.tmux(&["kill-server"]);
    assert_eq!(pane.wait_exit(), 129, "stderr: {}", pane.read("err.txt"));
    let out: Value = serde_json::from_str(&pane.read("out.json")).expect("the result is JSON");
    assert_eq!(out, closed_result());
}

#[test]
fn a_panic_restores_the_terminal_before_its_message_is_printed() {
    let mut pane = Pane::start(
        "panic",
        EXAMPLE,
        // The panic message goes to the terminal, to show that it is printed after the restore.
        "ASKD_ASK_PANIC_ON_KEY=1 RUST_BACKTRACE=0 \"$ASKD\" ask flow.json > out.json",
        80,
        40,
    );
    pane.expect_screen("when the flow opens", &play_screen(EXAMPLE, "", 80));
    pane.keys(&["Down"]);
    assert_eq!(pane.wait_exit(), 101);
    assert_eq!(pane.read("out.json"), "");
    let screen = pane.capture(false);
    // Rust's hook may begin with an empty line.
    let lines: Vec<&str> = screen.lines().skip_while(|l| l.is_empty()).collect();
    assert_eq!(lines.len(), 3, "{screen}");
    assert!(lines[0].starts_with("thread 'main' "), "{screen}");
    assert!(
        lines[0].contains(" panicked at src/cli/ask.rs:"),
        "{screen}"
    );
    assert_eq!(
        lines[1..],
        [
            "ASKD_ASK_PANIC_ON_KEY is set: panicking on key down",
            "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        ]
    );
    pane.assert_terminal_restored();
}

#[test]
fn inline_drawing_keeps_what_the_terminal_showed_and_scrolls_no_garbage() {
    // Ten lines of earlier output on a 24-row pane: the 19-line screen scrolls it up.
    let prelude = "for i in 1 2 3 4 5 6 7 8 9 10; do echo \"earlier output $i\"; done";
    let mut pane = Pane::start_after(
        "inline",
        EXAMPLE,
        prelude,
        "\"$ASKD\" ask flow.json > out.json 2> err.txt",
        80,
        24,
    );
    let earlier: Vec<String> = (1..=10).map(|i| format!("earlier output {i}\n")).collect();
    let first = play_screen(EXAMPLE, "", 80);
    let shown = 24 - first.lines().count();
    let above: String = earlier[earlier.len() - shown..].concat();
    pane.expect_screen("when the flow opens", &format!("{above}{first}"));
    // A shorter screen leaves nothing of the longer one below it.
    pane.keys(&["Tab"]);
    let checks = play_screen(EXAMPLE, "<Tab>", 80);
    assert!(checks.lines().count() < first.lines().count());
    pane.expect_screen("on a shorter screen", &format!("{above}{checks}"));
    pane.keys(&["BTab"]);
    pane.expect_screen("back on the longer one", &format!("{above}{first}"));
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 1);
    pane.expect_screen("once it has ended", &above);
    pane.assert_terminal_restored();
}

/// A flow as `askd ask` draws it: the engine's screen at the terminal's width, fitted to its
/// height as the terminal client fits it after every key and resize ([`askd::cli::fit`]).
struct Fitted {
    session: askd::session::Session,
    top: usize,
}

impl Fitted {
    fn new(payload: &str) -> Fitted {
        use askd::session::{OpenOptions, Session};
        let payload: Value = serde_json::from_str(payload).expect("JSON");
        let session = Session::open(&payload, &OpenOptions::default()).expect("opens");
        Fitted { session, top: 0 }
    }

    /// The screen after `keys` (Vim notation) in a terminal of `width` × `height`.
    fn screen(&mut self, keys: &str, width: usize, height: usize) -> String {
        let mut screen = self.draw(width, height);
        for key in askd::core::parse_sequence(keys).expect("keys") {
            let columns = askd::view::editor_columns(&self.session, Some(width));
            self.session
                .press_wrapped(key, columns)
                .expect("the key applies");
            screen = self.draw(width, height);
        }
        screen
    }

    fn draw(&mut self, width: usize, height: usize) -> String {
        let view = askd::view::build_with_width("ask", &self.session, Some(width));
        let lines = view.lines.expect("lines");
        let (shown, top) = askd::cli::fit::fit(&lines, height, self.top);
        self.top = top;
        askd::view::plain(shown)
    }
}

/// The screen `askd ask` draws for `payload` after `keys` in a terminal of `width` × `height`.
fn fitted_screen(payload: &str, keys: &str, width: usize, height: usize) -> String {
    Fitted::new(payload).screen(keys, width, height)
}

/// A list of `n` options, each with a description: two lines a row.
fn long_list(n: usize) -> String {
    let options: Vec<Value> = (1..=n)
        .map(|i| {
            serde_json::json!({
                "value": i.to_string(),
                "label": format!("Option {i}"),
                "description": format!("What option {i} does"),
            })
        })
        .collect();
    serde_json::json!({
        "title": "Pick",
        "questions": [{"id": "n", "label": "Number", "prompt": "Which number?", "options": options}],
    })
    .to_string()
}

#[test]
fn a_screen_taller_than_the_terminal_keeps_its_header_and_hints_and_scrolls_to_the_focus() {
    let payload = long_list(200);
    let mut pane = Pane::start(
        "tall",
        &payload,
        "\"$ASKD\" ask flow.json > out.json 2> err.txt",
        80,
        24,
    );
    let opened = fitted_screen(&payload, "", 80, 24);
    assert!(opened.lines().count() <= 24);
    assert!(opened.starts_with(&format!(
        "{}\n Pick\n [□ Number]  ✓ Submit\n",
        "─".repeat(80)
    )));
    assert!(
        opened.contains("\n ↑ up · ↓ down · pgdn page down"),
        "{opened}"
    );
    pane.expect_screen("when the flow opens", &opened);
    pane.keys(&["End"]);
    let end = fitted_screen(&payload, "<End>", 80, 24);
    assert!(end.contains("\n ❯    ○ Type your own\n"), "{end}");
    assert!(end.contains("\n ↑ up · ↓ down · pgdn page down"), "{end}");
    assert!(
        end.starts_with(&format!("{}\n Pick\n", "─".repeat(80))),
        "{end}"
    );
    pane.expect_screen("after end", &end);
    pane.keys(&["Home"]);
    pane.expect_screen(
        "after home",
        &fitted_screen(&payload, "<End><Home>", 80, 24),
    );
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 1);
    pane.expect_screen("once it has ended", "");
    pane.assert_terminal_restored();
}

#[test]
fn in_an_eight_row_terminal_the_open_editor_stays_in_sight() {
    let payload = long_list(3);
    let mut pane = Pane::start(
        "eight-rows",
        &payload,
        "\"$ASKD\" ask flow.json > out.json 2> err.txt",
        100,
        8,
    );
    pane.expect_screen("when the flow opens", &fitted_screen(&payload, "", 100, 8));
    // Down to "Type your own" opens its editor on arrival.
    pane.keys(&["Down", "Down", "Down"]);
    let editing = fitted_screen(&payload, "<Down><Down><Down>", 100, 8);
    assert!(editing.contains("╭─ Your answer"), "{editing}");
    assert!(editing.contains("│ Type answer..."), "{editing}");
    assert!(editing.contains("╰──"), "{editing}");
    pane.expect_screen("in the editor", &editing);
    pane.type_text("forty-two");
    let typed = fitted_screen(&payload, "<Down><Down><Down>forty-two", 100, 8);
    assert!(typed.contains("│ forty-two"), "{typed}");
    pane.expect_screen("after typing", &typed);
    pane.keys(&["Enter"]);
    pane.expect_screen(
        "saved",
        &fitted_screen(&payload, "<Down><Down><Down>forty-two<CR>", 100, 8),
    );
    pane.keys(&["Escape"]);
    // The flow holds an answer: the first Esc only warns.
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 1);
    pane.assert_terminal_restored();
}

#[test]
fn thirty_columns_and_a_resize_mid_flow_keep_the_focus_in_sight() {
    let payload = long_list(40);
    let mut pane = Pane::start(
        "narrow",
        &payload,
        "\"$ASKD\" ask flow.json > out.json 2> err.txt",
        30,
        12,
    );
    let mut flow = Fitted::new(&payload);
    pane.expect_screen("when the flow opens", &flow.screen("", 30, 12));
    pane.keys(&["PageDown"]);
    let paged = flow.screen("<PageDown>", 30, 12);
    assert!(paged.contains("❯"), "{paged}");
    pane.expect_screen("after page down", &paged);
    pane.tmux(&["resize-window", "-t", "0", "-x", "60", "-y", "9"]);
    let resized = flow.screen("", 60, 9);
    assert!(resized.contains("❯"), "{resized}");
    pane.expect_screen("after the resize", &resized);
    // Back to the size `stty -a` saw before, to compare the settings.
    pane.tmux(&["resize-window", "-t", "0", "-x", "30", "-y", "12"]);
    pane.expect_screen("resized back", &flow.screen("", 30, 12));
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 1);
    pane.assert_terminal_restored();
}

#[test]
fn fullscreen_draws_on_the_alternate_screen_and_leaves_it() {
    let mut pane = Pane::start_after(
        "fullscreen",
        EXAMPLE,
        "echo 'earlier output'",
        "\"$ASKD\" ask --fullscreen flow.json > out.json 2> err.txt",
        80,
        40,
    );
    pane.expect_screen("when the flow opens", &play_screen(EXAMPLE, "", 80));
    pane.keys(&["Down", "n"]);
    pane.expect_screen("in the note editor", &play_screen(EXAMPLE, "<Down>n", 80));
    pane.keys(&["Escape"]);
    pane.expect_screen("note closed", &play_screen(EXAMPLE, "<Down>n<Esc>", 80));
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 1);
    let out: Value = serde_json::from_str(&pane.read("out.json")).expect("the result is JSON");
    assert_eq!(out, cancelled_by("<Down>n<Esc><Esc>"));
    pane.expect_screen("once it has ended", "earlier output\n");
    pane.assert_terminal_restored();
}

/// The pane's cursor: its column and row, and whether it is shown.
fn cursor(pane: &Pane) -> String {
    let out = pane.tmux(&[
        "display-message",
        "-p",
        "-t",
        "0",
        "#{cursor_x},#{cursor_y},#{cursor_flag}",
    ]);
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .trim()
        .to_owned()
}

#[test]
fn styles_are_drawn_as_ansi_attributes_and_the_cursor_is_hidden() {
    let mut pane = Pane::start(
        "colour",
        EXAMPLE,
        // One Esc ends the flow that holds a note: this test is about drawing.
        "TERM=xterm-256color \"$ASKD\" ask --no-confirm-dismiss flow.json > out.json 2> err.txt",
        80,
        40,
    );
    pane.keys(&["Down", "n", "a", "b"]);
    pane.expect_screen("in the note editor", &play_screen(EXAMPLE, "<Down>nab", 80));
    // tmux writes the cells' attributes as it keeps them (a change of style at a time): the
    // title in bold, a dim row number, a grey (muted) mark, a green badge, the note box's
    // border in bold cyan (accent) and the editor's cursor in reverse video.
    let styled = pane.capture(true);
    let lines: Vec<&str> = styled.lines().collect();
    let reset = "\u{1b}[0m\u{1b}[39m\u{1b}[49m";
    assert_eq!(lines[1], "\u{1b}[39m \u{1b}[1mRelease plan");
    assert_eq!(
        lines[6],
        format!(
            "{reset}   \u{1b}[2m1. \u{1b}[0m\u{1b}[38;5;8m\u{1b}[49m○ \u{1b}[39mPatch only\
             \u{1b}[38;5;10m (recommended)"
        )
    );
    assert_eq!(
        lines[11],
        format!(
            "{reset}   \u{1b}[1m\u{1b}[38;5;14m│ {reset}ab\u{1b}[7m {reset}{:69}\u{1b}[1m\u{1b}[38;5;14m │",
            ""
        )
    );
    assert_eq!(
        cursor(&pane),
        "0,0,0",
        "parked at the top of the area, hidden"
    );
    pane.keys(&["Escape"]);
    pane.expect_screen("note saved", &play_screen(EXAMPLE, "<Down>nab<Esc>", 80));
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 1);
    pane.assert_terminal_restored();
}

/// Checks that with `env` set the screen is drawn without any style, and that the terminal's
/// own cursor stands where the editor's cursor is.
fn plain_with(name: &'static str, env: &str) {
    let mut pane = Pane::start(
        name,
        EXAMPLE,
        // One Esc ends the flow that holds a note: this test is about drawing.
        &format!("{env} \"$ASKD\" ask --no-confirm-dismiss flow.json > out.json 2> err.txt"),
        80,
        40,
    );
    pane.expect_screen("when the flow opens", &play_screen(EXAMPLE, "", 80));
    assert_eq!(
        pane.capture(true),
        pane.capture(false),
        "no escape sequences"
    );
    assert_eq!(cursor(&pane), "0,0,0", "no editor, no cursor");
    pane.keys(&["Down", "n", "a", "b"]);
    let screen = play_screen(EXAMPLE, "<Down>nab", 80);
    pane.expect_screen("in the note editor", &screen);
    assert_eq!(pane.capture(true), screen, "no escape sequences");
    let row = screen
        .lines()
        .position(|l| l.contains("│ ab "))
        .expect("the note line");
    assert_eq!(cursor(&pane), format!("7,{row},1"), "after `ab`, shown");
    pane.keys(&["Escape"]);
    pane.expect_screen("note saved", &play_screen(EXAMPLE, "<Down>nab<Esc>", 80));
    assert_eq!(cursor(&pane), "0,0,0", "no editor, no cursor");
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 1);
    pane.expect_screen("once it has ended", "");
    assert_eq!(cursor(&pane), "0,0,1", "shown again");
    pane.assert_terminal_restored();
}

#[test]
fn no_color_draws_plain_text_with_the_terminal_cursor_in_the_editor() {
    plain_with("no-color", "NO_COLOR=1");
}

#[test]
fn a_dumb_terminal_gets_plain_text_with_the_terminal_cursor_in_the_editor() {
    plain_with("dumb", "TERM=dumb");
}

/// Runs `askd ask` with `args` and `stdin`, without a controlling terminal (`setsid`), with a
/// state directory of its own: its status, stdout and stderr. Fails if anything was written
/// in the state directory.
fn ask_detached(args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    let state_home = tempfile::tempdir().expect("a temporary directory");
    let mut child = Command::new("setsid")
        .arg("--wait")
        .arg(ASKD)
        .arg("ask")
        .args(args)
        .env("XDG_STATE_HOME", state_home.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("setsid runs askd");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("stdin is written");
    let out = child.wait_with_output().expect("askd ends");
    let written: Vec<_> = std::fs::read_dir(state_home.path())
        .expect("readable")
        .collect();
    assert_eq!(
        written.len(),
        0,
        "nothing is kept without a terminal to ask on"
    );
    (
        out.status.code().expect("an exit status"),
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

#[test]
fn without_a_terminal_ask_fails_at_once_with_status_3() {
    let (status, out, err) = ask_detached(&["-"], EXAMPLE);
    assert_eq!((status, out.as_str()), (3, ""));
    assert_eq!(
        err,
        "askd: ask needs a terminal, and /dev/tty cannot be opened (No such device or address \
         (os error 6)); --no-ui prints the non-interactive result\n"
    );
}

#[test]
fn no_ui_prints_the_non_interactive_result_with_status_1() {
    let (status, out, err) = ask_detached(&["--example", "--no-ui"], "");
    assert_eq!((status, err.as_str()), (1, ""));
    let options = askd::session::OpenOptions {
        has_ui: false,
        ..Default::default()
    };
    let payload: Value = serde_json::from_str(EXAMPLE).expect("JSON");
    let expected = askd::session::Session::open(&payload, &options)
        .expect("opens")
        .result()
        .expect("done");
    assert_eq!(out, format!("{expected}\n"));
    assert_eq!(expected["details"]["cancelled"], true);
}

#[test]
fn an_invalid_pi_payload_prints_its_issues_and_result_with_status_2() {
    let payload = r#"{"questions":[{"label":"A","prompt":"?","options":[]}]}"#;
    let (status, out, err) = ask_detached(&["-"], payload);
    assert_eq!(status, 2);
    assert_eq!(
        err,
        "askd: invalid payload:\n\
         - questions[0].id: Question 1: id is required\n\
         - questions[0].options: Question 1: at least one option is required\n"
    );
    let result: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(result["details"]["error"]["kind"], "invalid_input");
    assert_eq!(
        result["content"][0]["text"],
        "Invalid ask_user payload:\n\
         - questions[0].id: Question 1: id is required\n\
         - questions[0].options: Question 1: at least one option is required"
    );
}

#[test]
fn an_invalid_dsh_request_is_refused_with_its_code_and_status_2() {
    let request = r#"{"questions":[{"question":"Which?","options":[]}]}"#;
    let (status, out, err) = ask_detached(&["--dialect", "dsh", "-"], request);
    assert_eq!((status, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "askd: invalid payload: INVALID_REQUEST: questions[0]: id is required\n"
    );
}

#[test]
fn bad_input_is_status_2_with_its_reason() {
    let cases: [(&[&str], &str, &str); 5] = [
        (
            &["-"],
            "{",
            "askd: the payload is not valid JSON: EOF while parsing an object at line 1 column 1\n",
        ),
        (
            &["missing.json"],
            "",
            "askd: cannot read missing.json: No such file or directory (os error 2)\n",
        ),
        (
            &["--dialect", "xyz", "--example"],
            "",
            "askd: unknown dialect \"xyz\": one of pi, claude, codex, opencode, mcp, dsh\n",
        ),
        (
            &["--behaviour", "[]", "--example"],
            "",
            "askd: --behaviour: expected a JSON object\n",
        ),
        (
            &["--behaviour", "{", "--example"],
            "",
            "askd: --behaviour: not valid JSON: EOF while parsing an object at line 1 column 1\n",
        ),
    ];
    for (args, stdin, message) in cases {
        assert_eq!(
            ask_detached(args, stdin),
            (2, String::new(), message.to_owned()),
            "{args:?}"
        );
    }
}

#[test]
fn behaviour_options_apply_and_unknown_ones_are_refused() {
    let (status, out, err) = ask_detached(
        &[
            "--example",
            "--no-ui",
            "--behaviour",
            "{\"timeoutMs\":1000}",
        ],
        "",
    );
    assert_eq!((status, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "askd: --behaviour: unknown field `timeoutMs`, expected one of `profile`, \
         `confirmDismissWhenDirty`, `doublePressReviewShortcuts`, \
         `autoSubmitWhenAnsweredWithoutNotes`, `presentSingleAsMulti`, `cursorOnAnswer`\n"
    );
    // The pi-0.9 profile lists Type your own under the example's preview question too.
    let text = |out: &str| {
        let result: serde_json::Value = serde_json::from_str(out).expect("a JSON result");
        result["content"][0]["text"]
            .as_str()
            .expect("a text")
            .to_owned()
    };
    let (status, seed, err) = ask_detached(&["--example", "--no-ui", "--behaviour", "{}"], "");
    assert_eq!((status, err.as_str()), (1, ""));
    assert!(text(&seed).ends_with(
        "   - Table [table]\ndetails.questions contains normalized pending questions. details.answers stays empty until user responds."
    ));
    let (status, later, err) = ask_detached(
        &[
            "--example",
            "--no-ui",
            "--behaviour",
            "{\"profile\":\"pi-0.9\"}",
        ],
        "",
    );
    assert_eq!((status, err.as_str()), (1, ""));
    assert!(text(&later).ends_with(
        "   - Table [table]\n   - Type your own [custom]\ndetails.questions contains normalized pending questions. details.answers stays empty until user responds."
    ));
    assert_eq!(ask_detached(&["--example", "--no-ui"], "").1, seed);
}

#[test]
fn a_deadline_is_counted_down_and_ends_the_flow_with_status_124() {
    // A codex request gives itself 3 seconds; `--timeout` gives the example 2.
    let request = r#"{"threadId":"t","turnId":"u","itemId":"i","autoResolutionMs":3000,
        "questions":[{"id":"q","header":"Pick","question":"Which?","isOther":false,
        "isSecret":false,"options":[{"label":"A","description":"a"}]}]}"#;
    for (name, payload, command) in [
        (
            "codex-deadline",
            request,
            "\"$ASKD\" ask flow.json > out.json 2> err.txt",
        ),
        (
            "timeout",
            EXAMPLE,
            "\"$ASKD\" ask --timeout 2s flow.json > out.json 2> err.txt",
        ),
    ] {
        let pane = Pane::start(name, payload, command, 80, 40);
        // The countdown stands at the right end of the top rule.
        let rule_with = |left: &str| format!("{} {left} ─", "─".repeat(80 - left.len() - 3));
        pane.expect_screen_loosely("while it runs", &rule_with("0:01"));
        let status = pane.wait_exit();
        assert_eq!(pane.read("err.txt"), "");
        let out: Value = serde_json::from_str(&pane.read("out.json")).expect("JSON");
        if name == "timeout" {
            assert_eq!(status, 124);
            assert_eq!(out["details"]["cancelReason"], "timeout");
            assert_eq!(
                out["content"][0]["text"],
                "The ask flow timed out before the user answered"
            );
        } else {
            // Codex resolves at its deadline with what was committed: nothing here.
            assert_eq!(status, 0, "{out}");
            assert_eq!(out, serde_json::json!({"answers": {"q": {"answers": []}}}));
        }
        pane.assert_terminal_restored();
    }
}

#[test]
fn the_countdown_goes_into_the_top_rule_or_beside_the_first_line() {
    use askd::cli::ask::with_countdown;
    let view = demo_view();
    let rendered = askd::view::render(&view, 40);
    let now = 1_000_000;
    let with = with_countdown(rendered.clone(), 40, now + 65_000, now);
    assert_eq!(with[0].text(), format!("{} 1:05 ─", "─".repeat(33)));
    assert_eq!(with.len(), rendered.len());
    let warned = with_countdown(rendered.clone(), 40, now + 9_001, now);
    assert_eq!(warned[0].text(), format!("{} 0:10 ─", "─".repeat(33)));
    assert_eq!(
        warned[0].spans().map(|s| s.style).collect::<Vec<_>>(),
        [
            askd::view::Style::Border,
            askd::view::Style::Warning,
            askd::view::Style::Border
        ]
    );
    let long = with_countdown(rendered, 40, now + 3_725_000, now);
    assert_eq!(long[0].text(), format!("{} 1:02:05 ─", "─".repeat(30)));
    assert_eq!(askd::cli::ask::countdown(now + 1, now), "0:01");
    assert_eq!(askd::cli::ask::countdown(now, now + 5), "0:00");
}

/// The example's first view, as `askd ask` builds it.
fn demo_view() -> askd::view::View {
    use askd::session::{OpenOptions, Session};
    let payload: Value = serde_json::from_str(EXAMPLE).expect("JSON");
    let session = Session::open(&payload, &OpenOptions::default()).expect("opens");
    askd::view::build_with_width("ask", &session, None)
}

#[test]
fn ctrl_z_suspends_with_the_terminal_restored_and_fg_resumes_in_raw_mode() {
    let pane = Pane::start_shell("suspend", EXAMPLE);
    pane.expect_screen_loosely("the shell", "$");
    pane.type_text("\"$ASKD\" ask flow.json > out.json");
    pane.keys(&["Enter"]);
    pane.expect_screen_loosely("when the flow opens", " Release plan");
    pane.keys(&["Down"]);
    pane.keys(&["C-z"]);
    pane.expect_screen_loosely(
        "suspended",
        "[1]+  Stopped                 \"$ASKD\" ask flow.json > out.json",
    );
    // Back at the shell the terminal is cooked: what is typed is echoed.
    pane.type_text("stty -a | grep -o ' icanon' ; jobs");
    pane.keys(&["Enter"]);
    pane.expect_screen_loosely("cooked mode", " icanon");
    pane.type_text("fg");
    pane.keys(&["Enter"]);
    // Redrawn where the cursor stands, in raw mode: keys reach the flow again.
    let down = play_screen(EXAMPLE, "<Down>", 80);
    let first = down.lines().nth(6).expect("the active row").to_owned();
    pane.expect_screen_loosely("resumed", &first);
    pane.keys(&["Down"]);
    let second = play_screen(EXAMPLE, "<Down><Down>", 80);
    pane.expect_screen_loosely("a key after fg", second.lines().nth(8).expect("the row"));
    pane.keys(&["Escape"]);
    pane.type_text("echo \"status $?\"");
    pane.keys(&["Enter"]);
    pane.expect_screen_loosely("ended", "status 1");
    let out: Value = serde_json::from_str(&pane.read("out.json")).expect("JSON");
    assert_eq!(out, cancelled_by("<Down><Down><Esc>"));
}

#[test]
fn one_stray_esc_does_not_throw_away_what_was_answered() {
    let mut pane = Pane::start(
        "confirm",
        EXAMPLE,
        "\"$ASKD\" ask flow.json > out.json 2> err.txt",
        80,
        40,
    );
    pane.expect_screen("when the flow opens", &play_screen(EXAMPLE, "", 80));
    pane.keys(&["Space"]);
    pane.keys(&["Escape"]);
    pane.expect_screen_loosely(
        "warned",
        "Unsaved ask answers or drafts. Press cancel/dismiss again to discard.",
    );
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 1);
    let out: Value = serde_json::from_str(&pane.read("out.json")).expect("JSON");
    assert_eq!(out["details"]["cancelled"], true);
    pane.assert_terminal_restored();
}

#[test]
fn text_output_prints_the_answers_as_plain_lines() {
    let command = "\"$ASKD\" ask --format text flow.json > out.txt 2> err.txt";
    let mut pane = Pane::start("text", EXAMPLE, command, 80, 40);
    pane.expect_screen("when the flow opens", &play_screen(EXAMPLE, "", 80));
    // Scope: Minor; Checks: the first two; Notes: the first; then Submit.
    pane.keys(&["2", "Space", "Down", "Space", "Enter", "1", "Enter"]);
    assert_eq!(pane.wait_exit(), 0, "{}", pane.read("err.txt"));
    let result = play_result(EXAMPLE, "2<Space><Down><Space><CR>1<CR>");
    assert_eq!(result["details"]["mode"], "submit");
    let answers = &result["details"]["answers"];
    let expected = format!(
        "scope: {}\nchecks: {}\nchecks: {}\nnotes: {}\n",
        answers["scope"]["values"][0].as_str().expect("a value"),
        answers["checks"]["values"][0].as_str().expect("a value"),
        answers["checks"]["values"][1].as_str().expect("a value"),
        answers["notes"]["values"][0].as_str().expect("a value"),
    );
    assert_eq!(pane.read("out.txt"), expected);
}

#[test]
fn a_payload_of_another_agent_says_which_dialect_it_looks_like() {
    let claude = r#"{"questions":[{"question":"Which database?","header":"DB",
        "multiSelect":false,"options":[{"label":"Postgres","description":"a server"},
        {"label":"SQLite","description":"a file"}]}]}"#;
    let (status, _, err) = ask_detached(&["-"], claude);
    assert_eq!(status, 2);
    assert!(
        err.ends_with(
            "\nIt was read as a pi request; it looks like a claude one: try --dialect claude\n"
        ),
        "{err}"
    );
    let (status, _, err) = ask_detached(&["--dialect", "pi", "-"], claude);
    assert_eq!(status, 2);
    assert!(!err.contains("looks like"), "{err}");
}
