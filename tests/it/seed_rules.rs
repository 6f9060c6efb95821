//! Six rules of the seed profile that the reference pins down and the engine once missed
//! (behaviour §1, §3, §5, §6), each through the library: `Enter` saves trimmed text while `Esc`
//! saves it as typed; `Up` and `Down` in an editor with text go to the start of its first line
//! and the end of its last; choosing an option of a single-select question drops its custom
//! text; an answer whose serialised form is empty is left out of results; a blank preview on a
//! preview question is two issues; the transcript call line reads `question(s)` and cuts its
//! labels to 47 columns and `...`.

use crate::common::*;
use askd::core::{Answer, EditorTarget, Focus};
use serde_json::json;

use EditorTarget::{Custom, OptionNote};
use Focus::{Input, Options};

// §5 Enter saves trimmed; Esc and the empty-editor moves save as typed ----------------------

#[test]
fn enter_saves_custom_text_trimmed() {
    let mut s = open_main();
    press(&mut s, "<Down><Down>");
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
    type_text(&mut s, "  mine ");
    press(&mut s, "<S-CR>");
    type_text(&mut s, " more\t ");
    press(&mut s, "<CR>");
    assert_eq!(answer(&s, SCOPE), custom("mine \n more"));
    // Answered: Enter advanced.
    assert_eq!(at(&s), pos(LANGS, 0, Options));
}

#[test]
fn esc_saves_custom_text_as_typed() {
    let mut s = open_main();
    press(&mut s, "<Down><Down>");
    type_text(&mut s, "  mine ");
    press(&mut s, "<Esc>");
    assert_eq!(answer(&s, SCOPE), custom("  mine "));
    assert_eq!(at(&s), pos(SCOPE, 2, Options));
}

#[test]
fn notes_follow_the_same_rule_enter_trims_esc_keeps() {
    let mut s = open_main();
    press(&mut s, "n");
    type_text(&mut s, " why small? ");
    press(&mut s, "<CR><Down>n");
    type_text(&mut s, " why large? ");
    press(&mut s, "<Esc>");
    assert_eq!(
        answer(&s, SCOPE),
        Answer {
            option_notes: vec![(0, "why small?".into()), (1, " why large? ".into())],
            ..Answer::default()
        }
    );
    // Reopened, the editor holds the text as saved.
    press(&mut s, "n");
    assert_eq!(editor(&s), ed(OptionNote { option: 1 }, " why large? ", 12));
}

#[test]
fn text_that_is_blank_once_trimmed_removes_the_custom_answer_on_enter() {
    let mut s = open_main();
    press(&mut s, "<Down><Down>");
    type_text(&mut s, "x");
    press(&mut s, "<Esc><CR>");
    assert_eq!(editor(&s), ed(Custom, "x", 1));
    press(&mut s, "<BS>");
    type_text(&mut s, "   ");
    press(&mut s, "<CR>");
    assert_eq!(answer(&s, SCOPE), Answer::default());
    // Not answered: Enter only closed the editor.
    assert_eq!(at(&s), pos(SCOPE, 2, Options));
}

// §5 Up on the first line goes to its start, Down on the last line to its end -----------------

#[test]
fn up_and_down_in_a_one_line_editor_go_to_its_start_and_end() {
    let mut s = open_main();
    press(&mut s, "<Down><Down>");
    type_text(&mut s, "hello");
    press(&mut s, "<Left><Left><Up>");
    assert_eq!(editor(&s), ed(Custom, "hello", 0));
    // The keys stay in the editor: the row and the focus do not move.
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
    press(&mut s, "<Right><Down>");
    assert_eq!(editor(&s), ed(Custom, "hello", 5));
    press(&mut s, "<Down>");
    assert_eq!(editor(&s), ed(Custom, "hello", 5));
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
}

#[test]
fn up_and_down_move_between_lines_and_reach_the_ends_of_the_text() {
    let mut s = open_main();
    press(&mut s, "<Down><Down>");
    paste(&mut s, "one\ntwo\nthree");
    // Cursor at the end (13): Up to line 1 at column 5 clamps to its end (7).
    press(&mut s, "<Up>");
    assert_eq!(editor(&s), ed(Custom, "one\ntwo\nthree", 7));
    press(&mut s, "<Up>");
    assert_eq!(editor(&s), ed(Custom, "one\ntwo\nthree", 3));
    press(&mut s, "<Up>");
    assert_eq!(editor(&s), ed(Custom, "one\ntwo\nthree", 0));
    press(&mut s, "<Down><Down>");
    assert_eq!(editor(&s), ed(Custom, "one\ntwo\nthree", 8));
    press(&mut s, "<Down>");
    assert_eq!(editor(&s), ed(Custom, "one\ntwo\nthree", 13));
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
}

// §3 Choosing an option of a single-select question drops its custom text ---------------------

/// The main fixture with custom text saved on `scope` (kept open on its tab) and a question note.
fn scope_with_custom_text() -> askd::session::Session {
    let mut s = open_main();
    press(&mut s, "N");
    type_text(&mut s, "note");
    press(&mut s, "<CR><Down><Down>");
    type_text(&mut s, "mine");
    press(&mut s, "<Esc>");
    assert_eq!(
        answer(&s, SCOPE),
        Answer {
            custom_text: Some("mine".into()),
            note: Some("note".into()),
            ..Answer::default()
        }
    );
    s
}

fn small_with_note() -> Answer {
    Answer {
        selected: vec![0],
        note: Some("note".into()),
        ..Answer::default()
    }
}

#[test]
fn enter_on_an_option_drops_the_custom_text_and_keeps_the_note() {
    let mut s = scope_with_custom_text();
    press(&mut s, "<Up><Up><CR>");
    assert_eq!(answer(&s, SCOPE), small_with_note());
    assert_eq!(at(&s), pos(LANGS, 0, Options));
}

#[test]
fn space_on_an_option_drops_the_custom_text() {
    let mut s = scope_with_custom_text();
    press(&mut s, "<Up><Up><Space>");
    assert_eq!(answer(&s, SCOPE), small_with_note());
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
}

#[test]
fn a_digit_on_an_option_drops_the_custom_text() {
    let mut s = scope_with_custom_text();
    press(&mut s, "1");
    assert_eq!(answer(&s, SCOPE), small_with_note());
    assert_eq!(s.result(), None);
    press(&mut s, "<Tab><Tab>1");
    assert_eq!(
        s.result().expect("submitted")["details"]["answers"]["scope"],
        json!({ "values": ["small"], "labels": ["Small"], "indices": [1], "note": "note" })
    );
}

#[test]
fn on_a_multi_question_choosing_options_keeps_the_custom_text() {
    let mut s = open_main();
    press(&mut s, "<Tab>4");
    type_text(&mut s, "Zig");
    press(&mut s, "<Esc>1");
    assert_eq!(
        answer(&s, LANGS),
        Answer {
            selected: vec![0],
            custom_text: Some("Zig".into()),
            ..Answer::default()
        }
    );
}

// §6 An answer whose serialised form is empty is left out -------------------------------------

/// The main fixture with only a note on an option that is not selected (`langs` / Go).
fn only_an_unselected_option_note() -> askd::session::Session {
    let mut s = open_main();
    press(&mut s, "<Tab><Down>n");
    type_text(&mut s, "maybe");
    press(&mut s, "<CR>");
    assert_eq!(
        answer(&s, LANGS),
        Answer {
            option_notes: vec![(1, "maybe".into())],
            ..Answer::default()
        }
    );
    s
}

#[test]
fn submit_leaves_out_an_answer_holding_only_unselected_option_notes() {
    let mut s = only_an_unselected_option_note();
    press(&mut s, "<Tab><Tab>1");
    let result = s.result().expect("submitted");
    assert_eq!(result["details"]["answers"], json!({}));
    assert_eq!(
        result["content"],
        json!([{ "type": "text", "text": "User submitted the ask flow" }])
    );
    assert_eq!(s.transcript().expect("done").result, "Submitted");
}

#[test]
fn cancel_leaves_it_out_too() {
    let mut s = only_an_unselected_option_note();
    press(&mut s, "<Esc>");
    let result = s.result().expect("cancelled");
    assert_eq!(result["details"]["cancelled"], json!(true));
    assert_eq!(result["details"]["answers"], json!({}));
}

#[test]
fn elaborate_still_reports_that_note() {
    let mut s = only_an_unselected_option_note();
    press(&mut s, "<Tab><Tab>2");
    let result = s.result().expect("elaborated");
    assert_eq!(result["details"]["answers"], json!({}));
    assert_eq!(
        result["content"][0]["text"],
        json!(
            "User asked to elaborate on question \"Which languages?\" option \"Go\" with note \"maybe\""
        )
    );
}

// §1 A blank preview on a preview question is two issues --------------------------------------

#[test]
fn a_blank_preview_on_a_preview_question_yields_both_issues_in_order() {
    let s = open(&json!({ "questions": [{
        "id": "layout", "prompt": "Which?", "type": "preview",
        "options": [
            { "value": "a", "label": "A", "preview": " \n " },
            { "value": "b", "label": "B", "preview": "b" }
        ]
    }]}));
    let result = s.result().expect("an invalid payload completes at once");
    assert_eq!(
        result["details"]["error"]["issues"],
        json!([
            {
                "path": "questions[0].options[0].preview",
                "message": "Question 1, option 1: preview must not be empty"
            },
            {
                "path": "questions[0].options[0].preview",
                "message": "Question 1, option 1: preview questions require preview text for every option; add preview text or use type \"single\" instead"
            }
        ])
    );
}

#[test]
fn a_blank_preview_on_a_single_question_is_one_issue() {
    let s = open(&json!({ "questions": [{
        "id": "layout", "prompt": "Which?",
        "options": [{ "value": "a", "label": "A", "preview": "" }]
    }]}));
    assert_eq!(
        s.result().expect("done")["details"]["error"]["issues"],
        json!([{
            "path": "questions[0].options[0].preview",
            "message": "Question 1, option 1: preview must not be empty"
        }])
    );
}

// §6 The transcript call line ------------------------------------------------------------------

#[test]
fn the_call_line_reads_question_s_whatever_the_count() {
    let mut one = open(&json!({ "questions": [
        { "id": "a", "label": "Goal", "prompt": "A?", "options": [{ "value": "x", "label": "X" }] }
    ]}));
    press(&mut one, "<Esc>");
    assert_eq!(
        one.transcript().expect("done").call,
        "ask_user 1 question(s) (Goal)"
    );
    let mut main = open_main();
    press(&mut main, "<Esc>");
    assert_eq!(
        main.transcript().expect("done").call,
        "ask_user 3 question(s) (Scope, Langs, Layout)"
    );
    // No questions, no labels: no parentheses.
    let invalid = open(&json!({ "questions": [] }));
    assert_eq!(
        invalid.transcript().expect("done").call,
        "ask_user 0 question(s)"
    );
}

#[test]
fn labels_wider_than_fifty_columns_are_cut_to_47_and_an_ellipsis() {
    let option = json!([{ "value": "x", "label": "X" }]);
    let label = |l: &str| json!({ "id": l, "label": l, "prompt": "?", "options": option });
    // 12 + 2 + 12 + 2 + 12 + 2 + 12 = 54 columns.
    let mut s = open(&json!({ "questions": [
        label("Architecture"), label("Dependencies"), label("Distribution"), label("Localisation")
    ]}));
    press(&mut s, "<Esc>");
    assert_eq!(
        s.transcript().expect("done").call,
        "ask_user 4 question(s) (Architecture, Dependencies, Distribution, Local...)"
    );
    // 50 columns exactly are kept whole.
    let mut s = open(&json!({ "questions": [
        label("Architecture"), label("Dependencies"), label("Distribution"), label("Localise")
    ]}));
    press(&mut s, "<Esc>");
    assert_eq!(
        s.transcript().expect("done").call,
        "ask_user 4 question(s) (Architecture, Dependencies, Distribution, Localise)"
    );
}
