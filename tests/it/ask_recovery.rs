//! Recovery in `askd ask`, as a person meets it, in a real terminal (tmux): a flow left
//! unfinished by an `askd ask` that was killed or lost its terminal is offered by the next
//! `askd ask` of the same payload, and resumed, discarded or kept on the person's word; a
//! flow of another payload never is, and nothing is ever deleted without that word. Each
//! pane has a state directory of its own (`state/` in its scratch directory).

use std::path::Path;
use std::process::Command;

use askd::cli::play;
use askd::dialect::pi::EXAMPLE;
use serde_json::Value;

use crate::tmux::Pane;

/// The command every step runs.
const ASK: &str = "\"$ASKD\" ask flow.json > out.json 2> err.txt";

/// The keys typed before `askd ask` is killed: a note on Minor, its caret two characters
/// before the end.
const DRAFT: &str = "<Down>ndocs first<Left><Left>";

/// The screen `askd play` shows for `payload` after `keys` at 80 columns.
fn play_screen(payload: &str, keys: &str) -> String {
    let run = play::run(payload, keys, 80).expect("the keys play");
    run.frames.last().expect("a frame").screen.clone()
}

/// The offer of the example left with [`DRAFT`], as the terminal shows it.
fn offer_screen() -> String {
    let rule = "─".repeat(80);
    format!(
        "{rule}\n\
         \x20This request was left unfinished\n\
         \x20Release plan\n\
         \x20How much should the next release cover?\n\
         \x20saved less than a minute ago · 0 of 3 answered · 10 characters typed\n\
         \n\
         \x20r resume  s start over (discards it)  k keep it for later\n\
         {rule}\n"
    )
}

/// Types [`DRAFT`] in `askd ask` of the example, checks that the screen shows it, and ends
/// the process by `signal`.
fn left_unfinished(name: &'static str, command: &str, signal: &str) -> Pane {
    let mut pane = Pane::start(name, EXAMPLE, command, 80, 40);
    pane.expect_screen("when the flow opens", &play_screen(EXAMPLE, ""));
    pane.keys(&["Down", "n"]);
    pane.type_text("docs first");
    pane.keys(&["Left", "Left"]);
    pane.expect_screen("with the draft typed", &play_screen(EXAMPLE, DRAFT));
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &pane.pid()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    pane
}

/// As [`left_unfinished`], by SIGKILL.
fn killed(name: &'static str) -> Pane {
    let pane = left_unfinished(name, ASK, "KILL");
    assert_eq!(pane.wait_exit(), 137, "killed by SIGKILL");
    pane
}

/// The ids of the flows kept in the pane's state directory (every request file, wherever it
/// is in it), sorted; fails if a file was set aside.
fn stored(pane: &Pane) -> Vec<String> {
    fn walk(dir: &Path, ids: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            assert!(
                !name.ends_with(".corrupt")
                    && !name.ends_with(".superseded")
                    && !name.ends_with(".expired"),
                "nothing is set aside: {name}"
            );
            if path.is_dir() {
                walk(&path, ids);
            } else if name.ends_with(".request.json") {
                let text = std::fs::read_to_string(&path).expect("readable");
                let file: Value = serde_json::from_str(&text).expect("JSON");
                ids.push(file["session"].as_str().expect("an id").to_owned());
            }
        }
    }
    let mut ids = Vec::new();
    walk(&pane.path("state/askd"), &mut ids);
    ids.sort();
    ids
}

/// The id of the flow the running `askd ask` keeps: `ask-<pid>-…`.
fn own_id(pane: &Pane, ids: &[String]) -> String {
    let prefix = format!("ask-{}-", pane.pid());
    let own: Vec<&String> = ids.iter().filter(|id| id.starts_with(&prefix)).collect();
    assert_eq!(own.len(), 1, "one flow of the running askd ask in {ids:?}");
    own[0].clone()
}

/// The cancelled result of the example, untouched.
fn cancelled() -> Value {
    play::run(EXAMPLE, "<Esc>", 80)
        .expect("the keys play")
        .result
        .expect("the flow is done")
}

#[test]
fn a_killed_ask_is_offered_again_and_resumes_with_its_draft_and_caret() {
    let mut pane = killed("recover-resume");
    let left = stored(&pane);
    assert_eq!(left.len(), 1, "the flow is left behind: {left:?}");
    pane.run_again(ASK, 80, 40);
    pane.expect_screen("offering the flow left unfinished", &offer_screen());
    pane.keys(&["r"]);
    pane.expect_screen("resumed", &play_screen(EXAMPLE, DRAFT));
    assert_eq!(stored(&pane), left, "it goes on under its id");
    // The caret is where it was: a character typed lands before the last two.
    pane.type_text("X");
    let keys = format!("{DRAFT}X");
    pane.expect_screen("with a character typed", &play_screen(EXAMPLE, &keys));
    assert!(pane.capture(false).contains("│ docs firXst "));
    pane.keys(&["Enter", "Enter", "Space", "Enter", "Enter", "Enter"]);
    assert_eq!(pane.wait_exit(), 0, "stderr: {}", pane.read("err.txt"));
    assert_eq!(pane.read("err.txt"), "");
    let result: Value = serde_json::from_str(&pane.read("out.json")).expect("JSON");
    let expected = play::run(EXAMPLE, &format!("{keys}<CR><CR><Space><CR><CR><CR>"), 80)
        .expect("the keys play")
        .result
        .expect("submitted");
    assert_eq!(result, expected);
    assert_eq!(
        result["details"]["answers"]["scope"]["optionNotes"]["minor"],
        "docs firXst"
    );
    assert_eq!(
        stored(&pane),
        Vec::<String>::new(),
        "a finished flow leaves"
    );
}

#[test]
fn start_over_discards_the_flow_left_and_asks_afresh() {
    let mut pane = killed("recover-start-over");
    let left = stored(&pane);
    pane.run_again(ASK, 80, 40);
    pane.expect_screen("offering the flow left unfinished", &offer_screen());
    pane.keys(&["s"]);
    pane.expect_screen("a fresh flow", &play_screen(EXAMPLE, ""));
    let now = stored(&pane);
    assert_eq!(now, vec![own_id(&pane, &now)], "the one left is gone");
    assert_ne!(now, left);
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 1);
    let result: Value = serde_json::from_str(&pane.read("out.json")).expect("JSON");
    assert_eq!(result, cancelled());
    assert_eq!(stored(&pane), Vec::<String>::new());
    pane.run_again(ASK, 80, 40);
    pane.expect_screen("nothing left to offer", &play_screen(EXAMPLE, ""));
}

#[test]
fn keep_for_later_asks_afresh_and_the_flow_left_is_offered_next_time() {
    let mut pane = killed("recover-keep");
    let left = stored(&pane);
    pane.run_again(ASK, 80, 40);
    pane.expect_screen("offering the flow left unfinished", &offer_screen());
    pane.keys(&["k"]);
    pane.expect_screen("a fresh flow", &play_screen(EXAMPLE, ""));
    let now = stored(&pane);
    let own = own_id(&pane, &now);
    let mut both = vec![left[0].clone(), own];
    both.sort();
    assert_eq!(now, both, "the one left stays beside the fresh one");
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 1);
    assert_eq!(stored(&pane), left, "the one left is untouched");
    pane.run_again(ASK, 80, 40);
    pane.expect_screen("offering it again", &offer_screen());
    pane.keys(&["r"]);
    pane.expect_screen("resumed", &play_screen(EXAMPLE, DRAFT));
}

#[test]
fn esc_on_the_offer_keeps_the_flow_and_cancels_the_fresh_one() {
    let mut pane = killed("recover-esc");
    let left = stored(&pane);
    pane.run_again(ASK, 80, 40);
    pane.expect_screen("offering the flow left unfinished", &offer_screen());
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 1);
    let result: Value = serde_json::from_str(&pane.read("out.json")).expect("JSON");
    assert_eq!(result, cancelled());
    assert_eq!(stored(&pane), left, "the one left is untouched");
}

#[test]
fn a_flow_of_another_payload_is_never_offered_nor_touched() {
    let mut pane = killed("recover-other");
    let left = stored(&pane);
    let other = EXAMPLE.replace("Release plan", "Hotfix plan");
    std::fs::write(pane.path("other.json"), &other).expect("written");
    pane.run_again("\"$ASKD\" ask other.json > out.json 2> err.txt", 80, 40);
    pane.expect_screen("the other payload asked at once", &play_screen(&other, ""));
    let now = stored(&pane);
    assert_eq!(now.len(), 2, "{now:?}");
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 1);
    assert_eq!(stored(&pane), left, "the one left is untouched");
    pane.run_again(ASK, 80, 40);
    pane.expect_screen("its own payload offers it", &offer_screen());
}

#[test]
fn a_lost_terminal_leaves_the_flow_to_be_offered() {
    let mut pane = left_unfinished("recover-hangup", ASK, "HUP");
    assert_eq!(pane.wait_exit(), 129);
    let result: Value = serde_json::from_str(&pane.read("out.json")).expect("JSON");
    assert_eq!(result["details"]["cancelReason"], "closed");
    assert_eq!(stored(&pane).len(), 1);
    pane.run_again(ASK, 80, 40);
    pane.expect_screen("offering the flow left unfinished", &offer_screen());
}

#[test]
fn without_state_nothing_is_kept_or_offered() {
    let no_state = "\"$ASKD\" ask --no-state flow.json > out.json 2> err.txt";
    let pane = left_unfinished("recover-no-state", no_state, "KILL");
    assert_eq!(pane.wait_exit(), 137);
    assert!(!pane.path("state").exists(), "nothing is written");
    let mut pane = killed("recover-no-state-later");
    let left = stored(&pane);
    pane.run_again(no_state, 80, 40);
    pane.expect_screen("asked at once", &play_screen(EXAMPLE, ""));
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 1);
    pane.run_again(
        "\"$ASKD\" ask --no-ui flow.json > out.json 2> err.txt",
        80,
        40,
    );
    assert_eq!(pane.wait_exit(), 1);
    let result: Value = serde_json::from_str(&pane.read("out.json")).expect("JSON");
    assert_eq!(result["details"]["cancelReason"], "no_ui");
    assert_eq!(stored(&pane), left, "the one left is untouched");
}
