//! The flow, rule by rule (behaviour §2–§5), through the library API: every key in every focus,
//! the direct operations, and snapshots. Each test asserts the exact state after each step.

use crate::common::*;
use askd::core::{Answer, CancelReason, Outcome, QuestionType};
use askd::core::{EditorTarget, FlowError, Focus};
use askd::dialect::DialectId;
use askd::dialect::pi::parse_answers as parse_pi_answers;
use askd::session::{OpenOptions, Session, Status};
use askd::view;
use serde_json::{Value, json};

use EditorTarget::{Custom, OptionNote, QuestionNote};
use Focus::{Input, Note, Options, Review};

/// The rows of the active question as (index, value, label, custom).
fn rows(session: &Session) -> Vec<(usize, String, String, bool)> {
    view::build("s", session)
        .question
        .expect("a question tab")
        .rows
        .into_iter()
        .map(|r| (r.index, r.value, r.label, r.custom))
        .collect()
}

fn row(index: usize, value: &str, label: &str, custom: bool) -> (usize, String, String, bool) {
    (index, value.to_owned(), label.to_owned(), custom)
}

/// Presses `name` and asserts that nothing at all changed.
fn assert_ignored(session: &mut Session, name: &str) {
    let before = session.clone();
    press_key(session, name);
    assert_eq!(*session, before, "{name:?} must be ignored");
}

fn note_answer(note: &str) -> Answer {
    Answer {
        note: Some(note.to_owned()),
        ..Answer::default()
    }
}

// §2 Flow state ---------------------------------------------------------------------------

#[test]
fn a_new_flow_starts_on_the_first_row_of_the_first_tab() {
    let s = open_main();
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    assert_eq!(editor(&s), None);
    assert_eq!(flow(&s).answers(), vec![Answer::default(); 3]);
    assert_eq!(flow(&s).outcome(), None);
    assert_eq!(s.status(), Status::Open);
    assert_eq!(s.result(), None);
    assert_eq!(s.transcript(), None);
}

#[test]
fn one_tab_per_question_then_the_review_tab() {
    let s = open_main();
    let tabs = serde_json::to_value(view::build("s", &s).tabs).unwrap();
    assert_eq!(
        tabs,
        json!([
            { "label": "Scope", "kind": "question", "answered": false, "hasNotes": false, "active": true },
            { "label": "Langs", "kind": "question", "answered": false, "hasNotes": false, "active": false },
            { "label": "Layout", "kind": "question", "answered": false, "hasNotes": false, "active": false },
            { "label": "Submit", "kind": "review", "answered": false, "hasNotes": false, "active": false }
        ])
    );
}

#[test]
fn missing_labels_become_q1_q2_by_position() {
    let s = open(&json!({ "questions": [
        { "id": "a", "prompt": "A?", "options": [{ "value": "x", "label": "X" }] },
        { "id": "b", "label": " Named ", "prompt": "B?", "options": [{ "value": "x", "label": "X" }] },
        { "id": "c", "prompt": "C?", "options": [{ "value": "x", "label": "X" }] }
    ]}));
    let labels: Vec<String> = view::build("s", &s)
        .tabs
        .into_iter()
        .map(|t| t.label)
        .collect();
    assert_eq!(labels, ["Q1", "Named", "Q3", "Submit"]);
}

#[test]
fn single_and_multi_questions_end_with_the_custom_row_preview_questions_do_not() {
    let mut s = open_main();
    assert_eq!(
        rows(&s),
        [
            row(1, "small", "Small", false),
            row(2, "large", "Large", false),
            row(3, "__other__", "Type your own", true),
        ]
    );
    press(&mut s, "<Tab>");
    assert_eq!(
        rows(&s),
        [
            row(1, "rs", "Rust", false),
            row(2, "go", "Go", false),
            row(3, "py", "Python", false),
            row(4, "__other__", "Type your own", true),
        ]
    );
    press(&mut s, "<Tab>");
    assert_eq!(
        rows(&s),
        [row(1, "grid", "Grid", false), row(2, "list", "List", false)]
    );
    let spec = flow(&s).spec();
    let counts: Vec<usize> = spec.questions.iter().map(|q| spec.row_count(q)).collect();
    assert_eq!(counts, [3, 4, 2]);
}

#[test]
fn answered_means_a_selection_or_custom_text_and_notes_alone_do_not_count() {
    let mut s = open_main();
    press(&mut s, "N");
    type_text(&mut s, "just a note");
    press(&mut s, "<CR><Tab><Space>");
    let tabs = view::build("s", &s).tabs;
    let flags: Vec<(bool, bool)> = tabs.iter().map(|t| (t.answered, t.has_notes)).collect();
    assert_eq!(
        flags,
        [(false, true), (true, false), (false, false), (false, false)]
    );
    assert_eq!(answer(&s, SCOPE), note_answer("just a note"));
    assert_eq!(answer(&s, LANGS), selected(&[0]));
}

// §3 options focus: tabs and rows ------------------------------------------------------------

#[test]
fn tab_and_right_move_to_the_next_tab_wrapping_past_review() {
    let mut s = open_main();
    press(&mut s, "<Tab>");
    assert_eq!(at(&s), pos(LANGS, 0, Options));
    press(&mut s, "<Right>");
    assert_eq!(at(&s), pos(LAYOUT, 0, Options));
    press(&mut s, "<Tab>");
    assert_eq!(at(&s), review(0));
    press(&mut s, "<Right>");
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    press(&mut s, "<Right>");
    assert_eq!(at(&s), pos(LANGS, 0, Options));
}

#[test]
fn shift_tab_and_left_move_to_the_previous_tab_wrapping() {
    let mut s = open_main();
    press(&mut s, "<S-Tab>");
    assert_eq!(at(&s), review(0));
    press(&mut s, "<Left>");
    assert_eq!(at(&s), pos(LAYOUT, 0, Options));
    press(&mut s, "<S-Tab>");
    assert_eq!(at(&s), pos(LANGS, 0, Options));
    press(&mut s, "<Left>");
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    press(&mut s, "<Left>");
    assert_eq!(at(&s), review(0));
}

#[test]
fn tab_moves_reset_the_row_and_the_review_action() {
    let mut s = open_main();
    press(&mut s, "<Down>");
    assert_eq!(at(&s), pos(SCOPE, 1, Options));
    press(&mut s, "<Tab>");
    assert_eq!(at(&s), pos(LANGS, 0, Options));
    press(&mut s, "<Down><Down>");
    assert_eq!(at(&s), pos(LANGS, 2, Options));
    press(&mut s, "<S-Tab>");
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    press(&mut s, "<Left><Down><Down>");
    assert_eq!(at(&s), review(2));
    press(&mut s, "<Tab>");
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    press(&mut s, "<S-Tab>");
    assert_eq!(at(&s), review(0));
    press(&mut s, "<Down><Left><Right>");
    assert_eq!(at(&s), review(0));
}

#[test]
fn down_and_up_move_the_row_clamped() {
    let mut s = open_main();
    press(&mut s, "<Up>");
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    press(&mut s, "<Down>");
    assert_eq!(at(&s), pos(SCOPE, 1, Options));
    press(&mut s, "<Up><Up>");
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    // The preview question has no custom row: its last option is the last row.
    press(&mut s, "<Tab><Tab><Down>");
    assert_eq!(at(&s), pos(LAYOUT, 1, Options));
    press(&mut s, "<Down><Down>");
    assert_eq!(at(&s), pos(LAYOUT, 1, Options));
    press(&mut s, "<Up>");
    assert_eq!(at(&s), pos(LAYOUT, 0, Options));
    assert_eq!(flow(&s).answers(), vec![Answer::default(); 3]);
}

// §3 Enter ---------------------------------------------------------------------------------

#[test]
fn enter_on_single_selects_the_active_row_and_advances() {
    let mut s = open_main();
    press(&mut s, "<Down><CR>");
    assert_eq!(answer(&s, SCOPE), selected(&[1]));
    assert_eq!(at(&s), pos(LANGS, 0, Options));
}

#[test]
fn enter_replaces_the_selection_and_keeps_notes() {
    let mut s = open_main();
    press(&mut s, "n");
    type_text(&mut s, "a");
    press(&mut s, "<CR>N");
    type_text(&mut s, "q");
    press(&mut s, "<CR><Space>");
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    press(&mut s, "<Down><CR>");
    assert_eq!(
        answer(&s, SCOPE),
        Answer {
            selected: vec![1],
            note: Some("q".into()),
            option_notes: vec![(0, "a".into())],
            ..Answer::default()
        }
    );
    assert_eq!(at(&s), pos(LANGS, 0, Options));
}

#[test]
fn enter_on_the_last_question_advances_to_review() {
    let mut s = open_main();
    press(&mut s, "<Tab><Tab><Down><CR>");
    assert_eq!(answer(&s, LAYOUT), selected(&[1]));
    assert_eq!(at(&s), review(0));
}

#[test]
fn enter_on_multi_advances_without_toggling() {
    let mut s = open_main();
    press(&mut s, "<Tab><Down><CR>");
    assert_eq!(answer(&s, LANGS), Answer::default());
    assert_eq!(at(&s), pos(LAYOUT, 0, Options));
    press(&mut s, "<S-Tab><Space><CR>");
    assert_eq!(answer(&s, LANGS), selected(&[0]));
    assert_eq!(at(&s), pos(LAYOUT, 0, Options));
}

#[test]
fn enter_on_the_custom_row_opens_the_input_editor() {
    let mut s = open_main();
    press(&mut s, "<Down><Down><Esc>");
    assert_eq!(at(&s), pos(SCOPE, 2, Options));
    press(&mut s, "<CR>");
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
    assert_eq!(editor(&s), ed(Custom, "", 0));
    type_text(&mut s, "abc");
    press(&mut s, "<Esc><CR>");
    assert_eq!(editor(&s), ed(Custom, "abc", 3));
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
}

// §3 Space ---------------------------------------------------------------------------------

#[test]
fn space_on_single_selects_or_clears_and_never_advances() {
    let mut s = open_main();
    press(&mut s, "<Space>");
    assert_eq!(answer(&s, SCOPE), selected(&[0]));
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    press(&mut s, "<Space>");
    assert_eq!(answer(&s, SCOPE), Answer::default());
    press(&mut s, "<Down><Space>");
    assert_eq!(answer(&s, SCOPE), selected(&[1]));
    press(&mut s, "<Up><Space>");
    assert_eq!(answer(&s, SCOPE), selected(&[0]));
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
}

#[test]
fn space_on_preview_selects_or_clears() {
    let mut s = open_main();
    press(&mut s, "<S-Tab><S-Tab><Down><Space>");
    assert_eq!(answer(&s, LAYOUT), selected(&[1]));
    assert_eq!(at(&s), pos(LAYOUT, 1, Options));
    press(&mut s, "<Space>");
    assert_eq!(answer(&s, LAYOUT), Answer::default());
    assert_eq!(at(&s), pos(LAYOUT, 1, Options));
}

#[test]
fn space_on_multi_toggles_keeping_the_selection_order() {
    let mut s = open_main();
    press(&mut s, "<Tab><Down><Down><Space>");
    assert_eq!(answer(&s, LANGS), selected(&[2]));
    press(&mut s, "<Up><Up><Space>");
    assert_eq!(answer(&s, LANGS), selected(&[2, 0]));
    press(&mut s, "<Down><Space>");
    assert_eq!(answer(&s, LANGS), selected(&[2, 0, 1]));
    press(&mut s, "<Down><Space>");
    assert_eq!(answer(&s, LANGS), selected(&[0, 1]));
    assert_eq!(at(&s), pos(LANGS, 2, Options));
}

#[test]
fn space_on_the_custom_row_opens_the_input_editor() {
    let mut s = open_main();
    press(&mut s, "<Tab><Down><Down><Down><Esc>");
    assert_eq!(at(&s), pos(LANGS, 3, Options));
    press(&mut s, "<Space>");
    assert_eq!(at(&s), pos(LANGS, 3, Input));
    assert_eq!(editor(&s), ed(Custom, "", 0));
    assert_eq!(answer(&s, LANGS), Answer::default());
}

// §3 digits --------------------------------------------------------------------------------

#[test]
fn a_digit_on_single_selects_that_row_and_advances() {
    let mut s = open_main();
    press(&mut s, "<Down>2");
    assert_eq!(answer(&s, SCOPE), selected(&[1]));
    assert_eq!(at(&s), pos(LANGS, 0, Options));
    press(&mut s, "<S-Tab>1");
    assert_eq!(answer(&s, SCOPE), selected(&[0]));
    assert_eq!(at(&s), pos(LANGS, 0, Options));
}

#[test]
fn a_digit_on_preview_selects_and_the_last_question_advances_to_review() {
    let mut s = open_main();
    press(&mut s, "<S-Tab><S-Tab>2");
    assert_eq!(answer(&s, LAYOUT), selected(&[1]));
    assert_eq!(at(&s), review(0));
}

#[test]
fn a_digit_on_multi_makes_the_row_active_and_toggles() {
    let mut s = open_main();
    press(&mut s, "<Tab>3");
    assert_eq!(answer(&s, LANGS), selected(&[2]));
    assert_eq!(at(&s), pos(LANGS, 2, Options));
    press(&mut s, "1");
    assert_eq!(answer(&s, LANGS), selected(&[2, 0]));
    assert_eq!(at(&s), pos(LANGS, 0, Options));
    press(&mut s, "3");
    assert_eq!(answer(&s, LANGS), selected(&[0]));
    assert_eq!(at(&s), pos(LANGS, 2, Options));
}

#[test]
fn a_digit_naming_the_custom_row_opens_the_input_editor() {
    let mut s = open_main();
    press(&mut s, "3");
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
    assert_eq!(editor(&s), ed(Custom, "", 0));
    let mut s = open_main();
    press(&mut s, "<Tab>1");
    press(&mut s, "4");
    assert_eq!(at(&s), pos(LANGS, 3, Input));
    assert_eq!(answer(&s, LANGS), selected(&[0]));
}

#[test]
fn digits_past_the_rows_and_zero_are_ignored() {
    let mut s = open_main();
    press(&mut s, "<Down>");
    for name in ["4", "5", "9", "0"] {
        assert_ignored(&mut s, name);
    }
    press(&mut s, "<Tab><Tab>");
    for name in ["3", "9", "0"] {
        assert_ignored(&mut s, name);
    }
    assert_eq!(at(&s), pos(LAYOUT, 0, Options));
}

// §3 notes ---------------------------------------------------------------------------------

#[test]
fn n_opens_the_note_editor_of_the_active_option_prefilled() {
    let mut s = open_main();
    press(&mut s, "<Down>n");
    assert_eq!(at(&s), pos(SCOPE, 1, Note));
    assert_eq!(editor(&s), ed(OptionNote { option: 1 }, "", 0));
    type_text(&mut s, "hé");
    press(&mut s, "<CR>");
    assert_eq!(at(&s), pos(SCOPE, 1, Options));
    assert_eq!(answer(&s, SCOPE).option_notes, vec![(1, "hé".to_owned())]);
    press(&mut s, "n");
    assert_eq!(editor(&s), ed(OptionNote { option: 1 }, "hé", 3));
    // Preview and multi options take notes too.
    let mut s = open_main();
    press(&mut s, "<Tab><Tab><Down>n");
    assert_eq!(at(&s), pos(LAYOUT, 1, Note));
    assert_eq!(editor(&s), ed(OptionNote { option: 1 }, "", 0));
}

#[test]
fn n_is_ignored_on_the_custom_row() {
    let mut s = open_main();
    press(&mut s, "3<Esc>");
    assert_eq!(at(&s), pos(SCOPE, 2, Options));
    assert_ignored(&mut s, "n");
}

#[test]
fn shift_n_opens_the_question_note_editor_prefilled() {
    let mut s = open_main();
    press(&mut s, "<Down>N");
    assert_eq!(at(&s), pos(SCOPE, 1, Note));
    assert_eq!(editor(&s), ed(QuestionNote, "", 0));
    type_text(&mut s, "why?");
    press(&mut s, "<Esc>");
    assert_eq!(answer(&s, SCOPE), note_answer("why?"));
    assert_eq!(at(&s), pos(SCOPE, 1, Options));
    press_key(&mut s, "shift+n");
    assert_eq!(editor(&s), ed(QuestionNote, "why?", 4));
    // Also from the custom row.
    let mut s = open_main();
    press(&mut s, "3<Esc>N");
    assert_eq!(at(&s), pos(SCOPE, 2, Note));
    assert_eq!(editor(&s), ed(QuestionNote, "", 0));
}

// §3 Esc, Ctrl+C, other keys ------------------------------------------------------------------

#[test]
fn esc_cancels_the_flow() {
    let mut s = open_main();
    press(&mut s, "<Down><Esc>");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
    assert_eq!(s.status(), Status::Done);
}

#[test]
fn ctrl_c_dismisses_the_flow() {
    let mut s = open_main();
    press_key(&mut s, "ctrl+c");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::Dismissed))
    );
    assert_eq!(s.status(), Status::Done);
}

#[test]
fn other_keys_are_ignored_in_options_focus() {
    let mut s = open_main();
    press(&mut s, "<Tab><Space><Down>");
    for name in [
        "x",
        "q",
        "é",
        "한",
        "😀",
        "?",
        "backspace",
        "delete",
        "ctrl+x",
        "ctrl+n",
        "alt+n",
        "ctrl+1",
        "alt+2",
        "shift+enter",
        "alt+enter",
        "ctrl+enter",
    ] {
        assert_ignored(&mut s, name);
    }
    assert_eq!(at(&s), pos(LANGS, 1, Options));
}

// §3 auto-open -----------------------------------------------------------------------------

#[test]
fn a_row_move_onto_the_custom_row_opens_its_editor_prefilled() {
    let mut s = open_main();
    press(&mut s, "<Down><Down>");
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
    assert_eq!(editor(&s), ed(Custom, "", 0));
    type_text(&mut s, "héllo");
    press(&mut s, "<Esc>");
    assert_eq!(answer(&s, SCOPE), custom("héllo"));
    press(&mut s, "<Up>");
    assert_eq!(at(&s), pos(SCOPE, 1, Options));
    press(&mut s, "<Down>");
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
    assert_eq!(editor(&s), ed(Custom, "héllo", 6));
}

#[test]
fn an_empty_editor_move_onto_the_custom_row_opens_its_editor() {
    let mut s = open_main();
    press(&mut s, "<Down>n");
    assert_eq!(at(&s), pos(SCOPE, 1, Note));
    press(&mut s, "<Down>");
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
    assert_eq!(editor(&s), ed(Custom, "", 0));
}

#[test]
fn an_editor_closed_with_esc_stays_closed_until_the_next_move() {
    let mut s = open_main();
    press(&mut s, "<Down><Down><Esc>");
    assert_eq!(at(&s), pos(SCOPE, 2, Options));
    assert_ignored(&mut s, "x");
    assert_ignored(&mut s, "n");
    assert_eq!(editor(&s), None);
    press(&mut s, "<Up>");
    assert_eq!(at(&s), pos(SCOPE, 1, Options));
    press(&mut s, "<Down>");
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
}

#[test]
fn advancing_into_a_question_whose_only_row_is_the_custom_row_opens_its_editor() {
    let mut s = from_spec(
        DialectId::DSH,
        vec![
            question("pick", QuestionType::Single, &["A", "B"]),
            question("free", QuestionType::Single, &[]),
        ],
    );
    assert_eq!(at(&s), pos(0, 0, Options));
    press(&mut s, "1");
    assert_eq!(answer(&s, 0), selected(&[0]));
    assert_eq!(at(&s), pos(1, 0, Input));
    assert_eq!(editor(&s), ed(Custom, "", 0));
    type_text(&mut s, "hello");
    press(&mut s, "<CR>");
    assert_eq!(answer(&s, 1), custom("hello"));
    assert_eq!(
        at(&s),
        At {
            tab: 2,
            row: 0,
            focus: Review,
            action: 0
        }
    );
    // A tab move onto it opens it too, pre-filled.
    press(&mut s, "<S-Tab>");
    assert_eq!(at(&s), pos(1, 0, Input));
    assert_eq!(editor(&s), ed(Custom, "hello", 5));
}

#[test]
fn a_flow_whose_first_question_is_free_text_opens_its_editor_at_once() {
    let s = from_spec(
        DialectId::DSH,
        vec![question("free", QuestionType::Multi, &[])],
    );
    assert_eq!(at(&s), pos(0, 0, Input));
    assert_eq!(editor(&s), ed(Custom, "", 0));
}

#[test]
fn the_dsh_dialect_has_no_notes_and_two_review_actions() {
    let mut s = from_spec(
        DialectId::DSH,
        vec![question("pick", QuestionType::Single, &["A", "B"])],
    );
    assert_ignored(&mut s, "n");
    assert_ignored(&mut s, "N");
    press(&mut s, "<S-Tab><Down><Down>");
    assert_eq!(
        at(&s),
        At {
            tab: 1,
            row: 0,
            focus: Review,
            action: 1
        }
    );
    assert_ignored(&mut s, "3");
    press(&mut s, "2");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
}

// §4 review --------------------------------------------------------------------------------

fn on_review() -> Session {
    let mut s = open_main();
    press(&mut s, "<S-Tab>");
    assert_eq!(at(&s), review(0));
    s
}

#[test]
fn up_and_down_move_among_the_review_actions_clamped() {
    let mut s = on_review();
    press(&mut s, "<Up>");
    assert_eq!(at(&s), review(0));
    press(&mut s, "<Down>");
    assert_eq!(at(&s), review(1));
    press(&mut s, "<Down>");
    assert_eq!(at(&s), review(2));
    press(&mut s, "<Down>");
    assert_eq!(at(&s), review(2));
    press(&mut s, "<Up>");
    assert_eq!(at(&s), review(1));
    press(&mut s, "<Up><Up>");
    assert_eq!(at(&s), review(0));
}

#[test]
fn enter_runs_the_active_review_action() {
    for (keys, outcome) in [
        ("<CR>", Outcome::Submit),
        ("<Down><CR>", Outcome::Elaborate),
        ("<Down><Down><CR>", Outcome::Cancelled(CancelReason::User)),
    ] {
        let mut s = on_review();
        press(&mut s, keys);
        assert_eq!(flow(&s).outcome(), Some(outcome), "{keys}");
    }
}

#[test]
fn digits_one_two_three_run_the_review_actions_directly() {
    for (keys, outcome) in [
        ("1", Outcome::Submit),
        ("2", Outcome::Elaborate),
        ("3", Outcome::Cancelled(CancelReason::User)),
        ("<Down><Down>1", Outcome::Submit),
        ("<Down><Down>2", Outcome::Elaborate),
        ("<Down>3", Outcome::Cancelled(CancelReason::User)),
    ] {
        let mut s = on_review();
        press(&mut s, keys);
        assert_eq!(flow(&s).outcome(), Some(outcome), "{keys}");
    }
}

#[test]
fn other_keys_are_ignored_on_review() {
    let mut s = on_review();
    press(&mut s, "<Down>");
    for name in [
        "4",
        "5",
        "9",
        "0",
        "n",
        "N",
        "space",
        "x",
        "é",
        "한",
        "backspace",
        "ctrl+x",
        "alt+1",
    ] {
        assert_ignored(&mut s, name);
    }
    assert_eq!(at(&s), review(1));
}

#[test]
fn tab_keys_move_tabs_from_review() {
    for (keys, tab) in [
        ("<Tab>", SCOPE),
        ("<Right>", SCOPE),
        ("<S-Tab>", LAYOUT),
        ("<Left>", LAYOUT),
    ] {
        let mut s = on_review();
        press(&mut s, "<Down>");
        press(&mut s, keys);
        assert_eq!(at(&s), pos(tab, 0, Options), "{keys}");
    }
}

#[test]
fn esc_cancels_and_ctrl_c_dismisses_on_review() {
    let mut s = on_review();
    press(&mut s, "<Esc>");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
    let mut s = on_review();
    press(&mut s, "<C-c>");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::Dismissed))
    );
}

#[test]
fn submitting_is_never_blocked_by_unanswered_or_required_questions() {
    let mut s = on_review();
    assert!(flow(&s).spec().questions[LAYOUT].required);
    press(&mut s, "1");
    assert_eq!(flow(&s).outcome(), Some(Outcome::Submit));
    assert_eq!(flow(&s).answers(), vec![Answer::default(); 3]);
}

/// Scope: Small selected with a note, a note on the unselected Large, a question note.
/// Langs: Rust (noted) and Python selected, custom text `Zig`.
/// Layout: unanswered, with a question note and a note on the unselected List.
fn noted_review() -> Session {
    let mut s = open_main();
    press(&mut s, "<Down>n");
    type_text(&mut s, "why large?");
    press(&mut s, "<CR><Up>n");
    type_text(&mut s, "ok");
    press(&mut s, "<CR>N");
    type_text(&mut s, "scope note");
    press(&mut s, "<CR><Space><Tab><Space>n");
    type_text(&mut s, "fast");
    press(&mut s, "<CR><Down><Down><Space><Down>");
    type_text(&mut s, "Zig");
    press(&mut s, "<Esc><Tab>N");
    type_text(&mut s, "layout?");
    press(&mut s, "<CR><Down>n");
    type_text(&mut s, "list?");
    press(&mut s, "<CR><Tab>");
    assert_eq!(at(&s), review(0));
    s
}

fn review_json(s: &Session) -> Value {
    serde_json::to_value(view::build("s", s).review.expect("on review")).unwrap()
}

fn actions_json(active: usize) -> Value {
    let labels = ["Submit", "Elaborate", "Cancel"];
    Value::Array(
        labels
            .iter()
            .enumerate()
            .map(|(i, l)| json!({ "key": (i + 1).to_string(), "label": l, "active": i == active }))
            .collect(),
    )
}

#[test]
fn review_under_submit_and_cancel_shows_notes_of_answered_questions_only() {
    let mut s = noted_review();
    let questions = json!([
        {
            "id": "scope", "label": "Scope", "answered": true,
            "answers": [{ "label": "Small", "custom": false, "note": "ok" }],
            "note": "scope note", "otherNotes": []
        },
        {
            "id": "langs", "label": "Langs", "answered": true,
            "answers": [
                { "label": "Rust", "custom": false, "note": "fast" },
                { "label": "Python", "custom": false, "note": null },
                { "label": "Zig", "custom": true, "note": null }
            ],
            "note": null, "otherNotes": []
        },
        {
            "id": "layout", "label": "Layout", "answered": false,
            "answers": [], "note": null, "otherNotes": []
        }
    ]);
    assert_eq!(
        review_json(&s),
        json!({ "actions": actions_json(0), "activeAction": 0, "questions": questions })
    );
    press(&mut s, "<Down><Down>");
    assert_eq!(
        review_json(&s),
        json!({ "actions": actions_json(2), "activeAction": 2, "questions": questions })
    );
}

#[test]
fn review_under_elaborate_shows_every_note_including_unselected_options() {
    let mut s = noted_review();
    press(&mut s, "<Down>");
    assert_eq!(
        review_json(&s),
        json!({
            "actions": actions_json(1),
            "activeAction": 1,
            "questions": [
                {
                    "id": "scope", "label": "Scope", "answered": true,
                    "answers": [{ "label": "Small", "custom": false, "note": "ok" }],
                    "note": "scope note",
                    "otherNotes": [{ "value": "large", "label": "Large", "note": "why large?" }]
                },
                {
                    "id": "langs", "label": "Langs", "answered": true,
                    "answers": [
                        { "label": "Rust", "custom": false, "note": "fast" },
                        { "label": "Python", "custom": false, "note": null },
                        { "label": "Zig", "custom": true, "note": null }
                    ],
                    "note": null, "otherNotes": []
                },
                {
                    "id": "layout", "label": "Layout", "answered": false,
                    "answers": [], "note": "layout?",
                    "otherNotes": [{ "value": "list", "label": "List", "note": "list?" }]
                }
            ]
        })
    );
}

// §5 editing: closing, saving, advancing --------------------------------------------------------

#[test]
fn ctrl_c_in_an_editor_dismisses_without_saving_the_draft() {
    for keys in ["3", "N", "n"] {
        let mut s = open_main();
        press(&mut s, keys);
        type_text(&mut s, "draft");
        press(&mut s, "<C-c>");
        assert_eq!(
            flow(&s).outcome(),
            Some(Outcome::Cancelled(CancelReason::Dismissed)),
            "{keys}"
        );
        assert_eq!(editor(&s), None);
        assert_eq!(answer(&s, SCOPE), Answer::default(), "{keys}");
    }
}

#[test]
fn esc_saves_the_draft_and_closes_without_advancing() {
    let mut s = open_main();
    press(&mut s, "3");
    type_text(&mut s, "abc");
    press(&mut s, "<Esc>");
    assert_eq!(answer(&s, SCOPE), custom("abc"));
    assert_eq!(at(&s), pos(SCOPE, 2, Options));
    assert_eq!(editor(&s), None);
    press(&mut s, "<Up>n");
    type_text(&mut s, "on large");
    press(&mut s, "<Esc>");
    assert_eq!(
        answer(&s, SCOPE).option_notes,
        vec![(1, "on large".to_owned())]
    );
    assert_eq!(at(&s), pos(SCOPE, 1, Options));
}

#[test]
fn enter_in_the_input_editor_saves_then_advances_when_answered() {
    let mut s = open_main();
    press(&mut s, "3");
    type_text(&mut s, "abc");
    press(&mut s, "<CR>");
    assert_eq!(answer(&s, SCOPE), custom("abc"));
    assert_eq!(at(&s), pos(LANGS, 0, Options));
    // The last question's input editor advances to review.
    let mut s = from_spec(
        DialectId::PI,
        vec![question("only", QuestionType::Multi, &["A"])],
    );
    press(&mut s, "2");
    type_text(&mut s, "mine");
    press(&mut s, "<CR>");
    assert_eq!(answer(&s, 0), custom("mine"));
    assert_eq!(
        at(&s),
        At {
            tab: 1,
            row: 0,
            focus: Review,
            action: 0
        }
    );
}

#[test]
fn enter_in_the_input_editor_just_closes_when_unanswered() {
    let mut s = open_main();
    press(&mut s, "3<CR>");
    assert_eq!(at(&s), pos(SCOPE, 2, Options));
    assert_eq!(answer(&s, SCOPE), Answer::default());
    press(&mut s, "<CR>");
    type_text(&mut s, "   ");
    press(&mut s, "<CR>");
    assert_eq!(at(&s), pos(SCOPE, 2, Options));
    assert_eq!(answer(&s, SCOPE), Answer::default());
}

#[test]
fn enter_in_the_input_editor_advances_when_a_selection_answers_the_question() {
    let mut s = open_main();
    press(&mut s, "<Tab>1<Down><Down><Down>");
    assert_eq!(at(&s), pos(LANGS, 3, Input));
    press(&mut s, "<CR>");
    assert_eq!(answer(&s, LANGS), selected(&[0]));
    assert_eq!(at(&s), pos(LAYOUT, 0, Options));
}

#[test]
fn enter_in_a_note_editor_saves_and_closes_without_advancing() {
    let mut s = open_main();
    press(&mut s, "<Tab><Down>n");
    type_text(&mut s, "go?");
    press(&mut s, "<CR>");
    assert_eq!(at(&s), pos(LANGS, 1, Options));
    press(&mut s, "N");
    type_text(&mut s, "langs?");
    press(&mut s, "<CR>");
    assert_eq!(at(&s), pos(LANGS, 1, Options));
    assert_eq!(
        answer(&s, LANGS),
        Answer {
            note: Some("langs?".into()),
            option_notes: vec![(1, "go?".into())],
            ..Answer::default()
        }
    );
}

#[test]
fn arrows_and_tab_keys_in_an_empty_editor_save_then_move() {
    // Input editor (on the custom row): Up moves the row, tab keys move tabs.
    for (keys, expected) in [
        ("<Up>", pos(SCOPE, 1, Options)),
        ("<Tab>", pos(LANGS, 0, Options)),
        ("<Right>", pos(LANGS, 0, Options)),
        ("<S-Tab>", review(0)),
        ("<Left>", review(0)),
    ] {
        let mut s = open_main();
        press(&mut s, "3");
        press(&mut s, keys);
        assert_eq!(at(&s), expected, "input {keys}");
        assert_eq!(answer(&s, SCOPE), Answer::default());
    }
    // Note editors: Down and Up move the row.
    for (keys, expected) in [
        ("<Down>n<Up>", pos(SCOPE, 0, Options)),
        ("<Down>N<Up>", pos(SCOPE, 0, Options)),
        ("n<Down>", pos(SCOPE, 1, Options)),
        ("n<Tab>", pos(LANGS, 0, Options)),
        ("N<Right>", pos(LANGS, 0, Options)),
        ("n<S-Tab>", review(0)),
        ("N<Left>", review(0)),
    ] {
        let mut s = open_main();
        press(&mut s, keys);
        assert_eq!(at(&s), expected, "note {keys}");
    }
}

#[test]
fn a_draft_emptied_before_a_move_is_saved_as_removal() {
    let mut s = open_main();
    press(&mut s, "n");
    type_text(&mut s, "x");
    press(&mut s, "<Esc>");
    assert_eq!(answer(&s, SCOPE).option_notes, vec![(0, "x".to_owned())]);
    press(&mut s, "n<BS><Down>");
    assert_eq!(at(&s), pos(SCOPE, 1, Options));
    assert_eq!(answer(&s, SCOPE), Answer::default());
}

#[test]
fn with_text_arrows_and_tab_stay_in_the_editor() {
    let mut s = open_main();
    press(&mut s, "3");
    type_text(&mut s, "ab");
    press(&mut s, "<S-CR>");
    type_text(&mut s, "c");
    assert_eq!(editor(&s), ed(Custom, "ab\nc", 4));
    press(&mut s, "<Up>");
    assert_eq!(editor(&s), ed(Custom, "ab\nc", 1));
    press(&mut s, "<Down>");
    assert_eq!(editor(&s), ed(Custom, "ab\nc", 4));
    press(&mut s, "<Left>");
    assert_eq!(editor(&s), ed(Custom, "ab\nc", 3));
    press(&mut s, "<Right>");
    assert_eq!(editor(&s), ed(Custom, "ab\nc", 4));
    press(&mut s, "<Right><Tab><S-Tab>");
    assert_eq!(editor(&s), ed(Custom, "ab\nc", 4));
    press(&mut s, "<Left><Left><Left>");
    assert_eq!(editor(&s), ed(Custom, "ab\nc", 1));
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
    // A single line: Up and Down keep the editor open and the text as it is.
    let mut s = open_main();
    press(&mut s, "N");
    type_text(&mut s, "abc");
    press(&mut s, "<Up><Down><Tab><Right><S-Tab>");
    assert_eq!(at(&s), pos(SCOPE, 0, Note));
    assert_eq!(
        editor(&s).map(|(t, text, _)| (t, text)),
        Some((QuestionNote, "abc".to_owned()))
    );
    assert_eq!(answer(&s, SCOPE), Answer::default());
}

#[test]
fn every_other_key_is_typed_into_the_editor() {
    let mut s = open_main();
    press(&mut s, "3");
    press(&mut s, "n N 1 9 0 x <Space>é한😀<lt>");
    assert_eq!(editor(&s), ed(Custom, "n N 1 9 0 x  é한😀<", 23));
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
    assert_eq!(answer(&s, SCOPE), Answer::default());
}

#[test]
fn saved_custom_text_is_kept_as_typed_and_blank_text_removes_it() {
    let mut s = open_main();
    press(&mut s, "3");
    type_text(&mut s, "  padded  ");
    press(&mut s, "<Esc>");
    assert_eq!(answer(&s, SCOPE), custom("  padded  "));
    press(&mut s, "<CR><C-u>");
    assert_eq!(editor(&s), ed(Custom, "", 0));
    type_text(&mut s, "  ");
    press(&mut s, "<Esc>");
    assert_eq!(answer(&s, SCOPE), Answer::default());
}

#[test]
fn saving_custom_text_on_single_clears_the_selection_and_on_multi_keeps_it() {
    let mut s = open_main();
    press(&mut s, "<Space>3");
    type_text(&mut s, "mine");
    press(&mut s, "<Esc>");
    assert_eq!(answer(&s, SCOPE), custom("mine"));
    press(&mut s, "<Tab>13");
    assert_eq!(answer(&s, LANGS), selected(&[0, 2]));
    press(&mut s, "<Down>");
    type_text(&mut s, "Zig");
    press(&mut s, "<Esc>");
    assert_eq!(
        answer(&s, LANGS),
        Answer {
            selected: vec![0, 2],
            custom_text: Some("Zig".into()),
            ..Answer::default()
        }
    );
}

#[test]
fn notes_are_stored_trimmed_by_enter_as_typed_by_esc_and_blank_notes_are_removed() {
    let mut s = open_main();
    press(&mut s, "N");
    type_text(&mut s, " spaced ");
    press(&mut s, "<CR>");
    assert_eq!(answer(&s, SCOPE), note_answer("spaced"));
    press(&mut s, "N<C-u>");
    type_text(&mut s, " typed ");
    press(&mut s, "<Esc>");
    assert_eq!(answer(&s, SCOPE), note_answer(" typed "));
    press(&mut s, "N<C-u>");
    type_text(&mut s, "   ");
    press(&mut s, "<CR>");
    assert_eq!(answer(&s, SCOPE), Answer::default());
}

#[test]
fn option_notes_are_kept_when_the_option_is_not_selected() {
    let mut s = open_main();
    press(&mut s, "<Space>n");
    type_text(&mut s, "first");
    press(&mut s, "<CR><Down><Space>");
    assert_eq!(
        answer(&s, SCOPE),
        Answer {
            selected: vec![1],
            option_notes: vec![(0, "first".into())],
            ..Answer::default()
        }
    );
    press(&mut s, "<Space>");
    assert_eq!(
        answer(&s, SCOPE),
        Answer {
            option_notes: vec![(0, "first".into())],
            ..Answer::default()
        }
    );
}

#[test]
fn an_unchanged_editor_saves_nothing_so_passing_the_custom_row_keeps_the_selection() {
    let mut s = open_main();
    press(&mut s, "<Space><Down><Down>");
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
    press(&mut s, "<Up>");
    assert_eq!(answer(&s, SCOPE), selected(&[0]));
    press(&mut s, "<Down><Esc>");
    assert_eq!(answer(&s, SCOPE), selected(&[0]));
    press(&mut s, "<CR>");
    type_text(&mut s, " ");
    press(&mut s, "<BS><BS><Esc>");
    assert_eq!(answer(&s, SCOPE), selected(&[0]));
    // Saved text whose trimmed form is unchanged is not rewritten either.
    press(&mut s, "<CR>");
    type_text(&mut s, "abc");
    press(&mut s, "<Esc>");
    assert_eq!(answer(&s, SCOPE), custom("abc"));
    press(&mut s, "<CR>");
    type_text(&mut s, "  ");
    press(&mut s, "<Esc>");
    assert_eq!(answer(&s, SCOPE), custom("abc"));
}

// §5 editing keys on text with accents, emoji and Hangul ---------------------------------------

/// `café 👍🏽 한글 done`: café 0..5, space, 👍🏽 6..14, space, 한글 15..21, space, done 22..26.
const MIXED: &str = "café 👍🏽 한글 done";

fn mixed_editor() -> Session {
    let mut s = open_main();
    press(&mut s, "3");
    type_text(&mut s, MIXED);
    assert_eq!(editor(&s), ed(Custom, MIXED, 26));
    s
}

/// Presses `keys` and returns the editor's (text, cursor).
fn edit(s: &mut Session, keys: &[&str]) -> (String, usize) {
    for k in keys {
        press_key(s, k);
    }
    let (_, text, cursor) = editor(s).expect("editor open");
    (text, cursor)
}

fn tc(text: &str, cursor: usize) -> (String, usize) {
    (text.to_owned(), cursor)
}

#[test]
fn cursor_keys_move_by_grapheme_and_by_word() {
    let mut s = mixed_editor();
    assert_eq!(edit(&mut s, &["home"]), tc(MIXED, 0));
    assert_eq!(edit(&mut s, &["end"]), tc(MIXED, 26));
    assert_eq!(edit(&mut s, &["ctrl+a"]), tc(MIXED, 0));
    assert_eq!(edit(&mut s, &["ctrl+e"]), tc(MIXED, 26));
    assert_eq!(edit(&mut s, &["alt+b"]), tc(MIXED, 22));
    assert_eq!(edit(&mut s, &["alt+b"]), tc(MIXED, 15));
    assert_eq!(edit(&mut s, &["ctrl+left"]), tc(MIXED, 0));
    assert_eq!(edit(&mut s, &["alt+f"]), tc(MIXED, 5));
    assert_eq!(edit(&mut s, &["alt+f"]), tc(MIXED, 21));
    assert_eq!(edit(&mut s, &["ctrl+right"]), tc(MIXED, 26));
    assert_eq!(edit(&mut s, &["ctrl+left", "left"]), tc(MIXED, 21));
    assert_eq!(edit(&mut s, &["left"]), tc(MIXED, 18));
    assert_eq!(edit(&mut s, &["left", "left"]), tc(MIXED, 14));
    assert_eq!(edit(&mut s, &["left"]), tc(MIXED, 6));
    assert_eq!(edit(&mut s, &["left", "left"]), tc(MIXED, 3));
    assert_eq!(edit(&mut s, &["right", "right", "right"]), tc(MIXED, 14));
    // The view reports the cursor in graphemes, bytes, UTF-16 units and columns.
    let cursor = view::build("s", &s).editor.unwrap().cursor;
    assert_eq!(
        serde_json::to_value(cursor).unwrap(),
        json!({ "offset": 6, "byte": 14, "utf16": 9, "line": 0, "grapheme": 6, "column": 7 })
    );
    edit(&mut s, &["right", "right"]);
    let cursor = view::build("s", &s).editor.unwrap().cursor;
    assert_eq!(
        serde_json::to_value(cursor).unwrap(),
        json!({ "offset": 8, "byte": 18, "utf16": 11, "line": 0, "grapheme": 8, "column": 10 })
    );
}

#[test]
fn deletion_keys_remove_whole_graphemes_and_words() {
    let mut s = mixed_editor();
    assert_eq!(edit(&mut s, &["ctrl+w"]), tc("café 👍🏽 한글 ", 22));
    assert_eq!(edit(&mut s, &["ctrl+w"]), tc("café 👍🏽 ", 15));
    assert_eq!(edit(&mut s, &["backspace"]), tc("café 👍🏽", 14));
    assert_eq!(edit(&mut s, &["backspace"]), tc("café ", 6));
    assert_eq!(edit(&mut s, &["backspace", "backspace"]), tc("caf", 3));

    let mut s = mixed_editor();
    assert_eq!(edit(&mut s, &["home", "delete"]), tc("afé 👍🏽 한글 done", 0));
    assert_eq!(edit(&mut s, &["alt+f", "delete"]), tc("afé👍🏽 한글 done", 4));
    assert_eq!(edit(&mut s, &["delete"]), tc("afé 한글 done", 4));
    assert_eq!(
        edit(&mut s, &["right", "right", "delete"]),
        tc("afé 한 done", 8)
    );
    assert_eq!(edit(&mut s, &["ctrl+k"]), tc("afé 한", 8));
    assert_eq!(edit(&mut s, &["left", "ctrl+u"]), tc("한", 0));
    assert_eq!(
        edit(&mut s, &["alt+backspace", "ctrl+e", "ctrl+w"]),
        tc("", 0)
    );
}

#[test]
fn decomposed_accents_and_conjoining_jamo_move_and_delete_as_one_grapheme() {
    // `e` + combining acute, then 한 as three conjoining jamo.
    let text = "e\u{301}\u{1112}\u{1161}\u{11AB}";
    let mut s = open_main();
    press(&mut s, "N");
    type_text(&mut s, text);
    assert_eq!(editor(&s), ed(QuestionNote, text, 12));
    assert_eq!(edit(&mut s, &["left"]), tc(text, 3));
    assert_eq!(edit(&mut s, &["left"]), tc(text, 0));
    assert_eq!(edit(&mut s, &["right"]), tc(text, 3));
    assert_eq!(edit(&mut s, &["delete"]), tc("e\u{301}", 3));
    assert_eq!(edit(&mut s, &["backspace"]), tc("", 0));
    paste(&mut s, text);
    assert_eq!(edit(&mut s, &["backspace"]), tc("e\u{301}", 3));
    let cursor = view::build("s", &s).editor.unwrap().cursor;
    assert_eq!((cursor.offset, cursor.column, cursor.utf16), (1, 1, 2));
}

// Keymap overrides ----------------------------------------------------------------------------

#[test]
fn keymap_overrides_change_which_key_does_what() {
    let overrides = json!({
        "main.down": ["j"],
        "main.up": ["k"],
        "main.toggle": ["x"],
        "main.optionNote": [],
        "main.nextTab": ["l"],
        "global.dismiss": ["ctrl+q"],
        "editor.submit": ["ctrl+s"],
        "review.confirm": ["y"]
    });
    let mut s = open_with_keymap(&payload(), &overrides);
    press(&mut s, "j");
    assert_eq!(at(&s), pos(SCOPE, 1, Options));
    assert_ignored(&mut s, "down");
    press(&mut s, "k");
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    assert_ignored(&mut s, "space");
    press(&mut s, "x");
    assert_eq!(answer(&s, SCOPE), selected(&[0]));
    assert_ignored(&mut s, "n");
    assert_ignored(&mut s, "tab");
    assert_ignored(&mut s, "right");
    assert_ignored(&mut s, "ctrl+c");
    press(&mut s, "N<Esc>");
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    press(&mut s, "l");
    assert_eq!(at(&s), pos(LANGS, 0, Options));
    // Digits stay fixed; keys bound in `main` are typed in the editor.
    press(&mut s, "4");
    assert_eq!(at(&s), pos(LANGS, 3, Input));
    type_text(&mut s, "jx");
    press(&mut s, "<CR>");
    assert_eq!(editor(&s), ed(Custom, "jx", 2));
    press_key(&mut s, "ctrl+s");
    assert_eq!(answer(&s, LANGS), custom("jx"));
    assert_eq!(at(&s), pos(LAYOUT, 0, Options));
    press(&mut s, "<S-Tab><S-Tab><S-Tab>");
    assert_eq!(at(&s), review(0));
    assert_ignored(&mut s, "enter");
    press(&mut s, "y");
    assert_eq!(flow(&s).outcome(), Some(Outcome::Submit));

    let mut s = open_with_keymap(&payload(), &overrides);
    press_key(&mut s, "ctrl+q");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::Dismissed))
    );
}

#[test]
fn digits_cannot_be_rebound() {
    let mut s = open_with_keymap(&payload(), &json!({ "main.down": ["1"], "review.up": "2" }));
    press(&mut s, "1");
    assert_eq!(answer(&s, SCOPE), selected(&[0]));
    assert_eq!(at(&s), pos(LANGS, 0, Options));
    press(&mut s, "<S-Tab><S-Tab>2");
    assert_eq!(flow(&s).outcome(), Some(Outcome::Elaborate));
}

// Direct operations ---------------------------------------------------------------------------

fn flow_mut(s: &mut Session) -> &mut askd::core::Flow {
    s.flow_mut().expect("a flow session")
}

#[test]
fn save_custom_sets_or_clears_the_custom_answer() {
    let mut s = open_main();
    press(&mut s, "<Space>");
    flow_mut(&mut s)
        .save_custom("scope", " typed ", false)
        .unwrap();
    assert_eq!(answer(&s, SCOPE), custom(" typed "));
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    flow_mut(&mut s).save_custom("scope", "  ", false).unwrap();
    assert_eq!(answer(&s, SCOPE), Answer::default());
    flow_mut(&mut s).save_custom("langs", "x", false).unwrap();
    press(&mut s, "<Tab><Space>");
    flow_mut(&mut s).save_custom("langs", "y", false).unwrap();
    assert_eq!(
        answer(&s, LANGS),
        Answer {
            selected: vec![0],
            custom_text: Some("y".into()),
            ..Answer::default()
        }
    );
}

#[test]
fn save_custom_closes_the_matching_editor_only() {
    let mut s = open_main();
    press(&mut s, "3");
    type_text(&mut s, "draft");
    flow_mut(&mut s)
        .save_custom("scope", "final", false)
        .unwrap();
    assert_eq!(editor(&s), None);
    assert_eq!(at(&s), pos(SCOPE, 2, Options));
    assert_eq!(answer(&s, SCOPE), custom("final"));

    let mut s = open_main();
    press(&mut s, "N");
    type_text(&mut s, "draft");
    flow_mut(&mut s)
        .save_custom("scope", "final", false)
        .unwrap();
    assert_eq!(editor(&s), ed(QuestionNote, "draft", 5));
    press(&mut s, "<Esc>3");
    assert_eq!(editor(&s), ed(Custom, "final", 5));
    type_text(&mut s, "ly");
    flow_mut(&mut s)
        .save_custom("langs", "other", false)
        .unwrap();
    assert_eq!(editor(&s), ed(Custom, "finally", 7));
    assert_eq!(answer(&s, LANGS), custom("other"));
}

#[test]
fn save_custom_with_submit_advances_from_that_question_when_answered() {
    let mut s = open_main();
    flow_mut(&mut s).save_custom("scope", "", true).unwrap();
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    press(&mut s, "3");
    flow_mut(&mut s).save_custom("scope", "abc", true).unwrap();
    assert_eq!(at(&s), pos(LANGS, 0, Options));
    assert_eq!(editor(&s), None);
    press(&mut s, "<Tab><Tab>");
    assert_eq!(at(&s), review(0));
    flow_mut(&mut s).save_custom("langs", "Zig", true).unwrap();
    assert_eq!(at(&s), pos(LAYOUT, 0, Options));
}

#[test]
fn save_custom_is_refused_on_preview_and_unknown_questions() {
    let mut s = open_main();
    press(&mut s, "<Space>");
    let before = s.clone();
    let err = flow_mut(&mut s)
        .save_custom("layout", "x", true)
        .unwrap_err();
    assert_eq!(err, FlowError::NoCustomAnswer("\"layout\"".into()));
    assert_eq!(
        err.to_string(),
        "question \"layout\" has no custom answer (preview questions only take an option)"
    );
    let err = flow_mut(&mut s)
        .save_custom("nope", "x", false)
        .unwrap_err();
    assert_eq!(err.to_string(), "unknown question id \"nope\"");
    assert_eq!(s, before);
}

#[test]
fn set_note_sets_question_and_option_notes() {
    let mut s = open_main();
    let f = flow_mut(&mut s);
    f.set_note("scope", None, "why").unwrap();
    f.set_note("scope", Some("large"), "big?").unwrap();
    f.set_note("scope", Some("small"), "tiny?").unwrap();
    f.set_note("layout", Some("grid"), " g ").unwrap();
    assert_eq!(
        answer(&s, SCOPE),
        Answer {
            note: Some("why".into()),
            option_notes: vec![(1, "big?".into()), (0, "tiny?".into())],
            ..Answer::default()
        }
    );
    assert_eq!(answer(&s, LAYOUT).option_notes, vec![(0, " g ".to_owned())]);
    let f = flow_mut(&mut s);
    f.set_note("scope", None, " ").unwrap();
    f.set_note("scope", Some("large"), "").unwrap();
    assert_eq!(
        answer(&s, SCOPE).option_notes,
        vec![(0, "tiny?".to_owned())]
    );
    assert_eq!(answer(&s, SCOPE).note, None);
}

#[test]
fn set_note_closes_the_matching_editor_only() {
    let mut s = open_main();
    press(&mut s, "n");
    type_text(&mut s, "draft");
    flow_mut(&mut s)
        .set_note("scope", Some("large"), "x")
        .unwrap();
    assert_eq!(editor(&s), ed(OptionNote { option: 0 }, "draft", 5));
    flow_mut(&mut s).set_note("scope", None, "q").unwrap();
    assert_eq!(editor(&s), ed(OptionNote { option: 0 }, "draft", 5));
    flow_mut(&mut s)
        .set_note("scope", Some("small"), "set")
        .unwrap();
    assert_eq!(editor(&s), None);
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    press(&mut s, "N");
    flow_mut(&mut s).set_note("scope", None, "new").unwrap();
    assert_eq!(editor(&s), None);
    assert_eq!(
        answer(&s, SCOPE),
        Answer {
            note: Some("new".into()),
            option_notes: vec![(1, "x".into()), (0, "set".into())],
            ..Answer::default()
        }
    );
}

#[test]
fn set_note_is_refused_for_unknown_options_and_questions() {
    let mut s = open_main();
    press(&mut s, "n");
    let before = s.clone();
    let err = flow_mut(&mut s)
        .set_note("scope", Some("huge"), "x")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "question \"scope\" has no option with value \"huge\""
    );
    let err = flow_mut(&mut s)
        .set_note("scope", Some("__other__"), "x")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "question \"scope\" has no option with value \"__other__\""
    );
    let err = flow_mut(&mut s).set_note("nope", None, "x").unwrap_err();
    assert_eq!(err, FlowError::UnknownQuestion("\"nope\"".into()));
    assert_eq!(s, before);
}

#[test]
fn submit_answers_replaces_every_answer_and_completes() {
    let mut s = open_main();
    press(&mut s, "<Space>3");
    type_text(&mut s, "draft");
    let set = json!({
        "langs": { "values": ["py", "rs"], "customText": "Zig", "optionNotes": { "go": "maybe" } },
        "layout": { "values": ["list"], "note": "n" }
    });
    let answers = parse_pi_answers(flow(&s).spec(), &set).unwrap();
    flow_mut(&mut s)
        .submit_answers(answers, Outcome::Submit)
        .unwrap();
    assert_eq!(flow(&s).outcome(), Some(Outcome::Submit));
    assert_eq!(editor(&s), None);
    assert_eq!(
        flow(&s).answers(),
        [
            Answer::default(),
            Answer {
                selected: vec![2, 0],
                custom_text: Some("Zig".into()),
                option_notes: vec![(1, "maybe".into())],
                ..Answer::default()
            },
            Answer {
                selected: vec![1],
                note: Some("n".into()),
                ..Answer::default()
            },
        ]
    );
    let mut s = open_main();
    let answers = parse_pi_answers(flow(&s).spec(), &json!({ "scope": {} })).unwrap();
    flow_mut(&mut s)
        .submit_answers(answers, Outcome::Elaborate)
        .unwrap();
    assert_eq!(flow(&s).outcome(), Some(Outcome::Elaborate));
    assert_eq!(flow(&s).answers(), vec![Answer::default(); 3]);
}

#[test]
fn answer_sets_are_parsed_with_blank_text_dropped() {
    let s = open_main();
    let answers = parse_pi_answers(
        flow(&s).spec(),
        &json!({ "scope": { "customText": "  ", "note": "", "optionNotes": { "small": " " } } }),
    )
    .unwrap();
    assert_eq!(answers, vec![Answer::default(); 3]);
}

#[test]
fn invalid_answer_sets_are_refused_with_the_reason() {
    let s = open_main();
    let spec = flow(&s).spec();
    let cases = [
        (json!([]), "answers must be an object keyed by question id"),
        (
            json!({ "nope": {} }),
            "answers.nope: unknown question id \"nope\"",
        ),
        (json!({ "scope": [] }), "answers.scope: expected an object"),
        (
            json!({ "scope": { "values": ["huge"] } }),
            "answers.scope.values[0]: \"huge\" is not an option value of question \"scope\"",
        ),
        (
            json!({ "scope": { "values": ["__other__"] } }),
            "answers.scope.values[0]: \"__other__\" is not an option value of question \"scope\"",
        ),
        (
            json!({ "langs": { "values": ["rs", "rs"] } }),
            "answers.langs.values[1]: \"rs\" is listed twice",
        ),
        (
            json!({ "scope": { "values": ["small", "large"] } }),
            "answers.scope.values: question \"scope\" is single and takes one value at most",
        ),
        (
            json!({ "layout": { "values": ["grid", "list"] } }),
            "answers.layout.values: question \"layout\" is preview and takes one value at most",
        ),
        (
            json!({ "layout": { "customText": "x" } }),
            "answers.layout.customText: question \"layout\" is a preview question and takes no custom text",
        ),
        (
            json!({ "scope": { "values": "small" } }),
            "answers.scope.values: expected a list of option values",
        ),
        (
            json!({ "scope": { "values": [1] } }),
            "answers.scope.values[0]: expected a string",
        ),
        (
            json!({ "scope": { "customText": 3 } }),
            "answers.scope.customText: expected a string",
        ),
        (
            json!({ "scope": { "note": null } }),
            "answers.scope.note: expected a string",
        ),
        (
            json!({ "scope": { "optionNotes": ["small"] } }),
            "answers.scope.optionNotes: expected an object keyed by option value",
        ),
        (
            json!({ "scope": { "optionNotes": { "huge": "x" } } }),
            "answers.scope.optionNotes: \"huge\" is not an option value of question \"scope\"",
        ),
        (
            json!({ "scope": { "optionNotes": { "small": false } } }),
            "answers.scope.optionNotes.small: expected a string",
        ),
        (
            json!({ "scope": { "value": ["small"] } }),
            "answers.scope: unknown field \"value\"",
        ),
    ];
    for (set, message) in cases {
        assert_eq!(
            parse_pi_answers(spec, &set),
            Err(message.to_owned()),
            "{set}"
        );
    }
}

#[test]
fn submit_answers_refuses_answers_that_do_not_fit_and_changes_nothing() {
    let mut s = open_main();
    press(&mut s, "<Space>3");
    type_text(&mut s, "draft");
    let before = s.clone();
    let mut two_on_single = vec![Answer::default(); 3];
    two_on_single[SCOPE].selected = vec![0, 1];
    let mut out_of_range = vec![Answer::default(); 3];
    out_of_range[LANGS].selected = vec![3];
    let mut custom_on_preview = vec![Answer::default(); 3];
    custom_on_preview[LAYOUT].custom_text = Some("x".into());
    for (answers, message) in [
        (two_on_single, "\"scope\" takes one option at most"),
        (
            out_of_range,
            "an answer to \"langs\" selects a missing option",
        ),
        (custom_on_preview, "\"layout\" takes no custom answer"),
        (
            vec![Answer::default(); 2],
            "there must be one answer per question",
        ),
    ] {
        let err = flow_mut(&mut s)
            .submit_answers(answers, Outcome::Submit)
            .unwrap_err();
        assert_eq!(err, FlowError::InvalidAnswers(message.to_owned()));
        assert_eq!(s, before);
    }
}

#[test]
fn cancel_records_who_ended_the_flow() {
    let mut s = open_main();
    flow_mut(&mut s).cancel(CancelReason::User).unwrap();
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
    let mut s = open_main();
    press(&mut s, "3");
    flow_mut(&mut s).cancel(CancelReason::Aborted).unwrap();
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::Aborted))
    );
    assert_eq!(editor(&s), None);
    assert_eq!(
        flow_mut(&mut s).cancel(CancelReason::Closed),
        Err(FlowError::Completed)
    );
}

#[test]
fn insert_needs_an_open_editor() {
    let mut s = open_main();
    let before = s.clone();
    assert_eq!(flow_mut(&mut s).insert("x"), Err(FlowError::NoEditor));
    assert_eq!(s, before);
    press(&mut s, "3");
    paste(&mut s, "a\r\nb\u{7}c");
    assert_eq!(editor(&s), ed(Custom, "a\nbc", 4));
}

#[test]
fn every_operation_after_completion_is_refused() {
    let endings: [(&str, Step); 6] = [
        ("submit", |s| press(s, "<S-Tab>1")),
        ("elaborate", |s| press(s, "<S-Tab>2")),
        ("esc", |s| press(s, "<Esc>")),
        ("ctrl+c in editor", |s| press(s, "3<C-c>")),
        ("abort", |s| {
            flow_mut(s).cancel(CancelReason::Aborted).unwrap()
        }),
        ("submitAnswers", |s| {
            flow_mut(s)
                .submit_answers(vec![Answer::default(); 3], Outcome::Submit)
                .unwrap()
        }),
    ];
    for (name, end) in endings {
        let mut s = open_main();
        end(&mut s);
        let before = s.clone();
        for k in ["enter", "escape", "ctrl+c", "1", "tab", "x"] {
            assert_eq!(press_err(&mut s, k), FlowError::Completed, "{name} {k}");
        }
        let f = flow_mut(&mut s);
        assert_eq!(f.insert("x"), Err(FlowError::Completed), "{name}");
        assert_eq!(f.save_custom("scope", "x", true), Err(FlowError::Completed));
        assert_eq!(f.set_note("scope", None, "x"), Err(FlowError::Completed));
        assert_eq!(
            f.submit_answers(vec![Answer::default(); 3], Outcome::Submit),
            Err(FlowError::Completed)
        );
        assert_eq!(f.cancel(CancelReason::Aborted), Err(FlowError::Completed));
        assert_eq!(s, before, "{name}");
    }
}

#[test]
fn invalid_and_non_interactive_sessions_take_no_keys() {
    let mut s = open(&json!({ "questions": [] }));
    assert_eq!(s.flow(), None);
    assert_eq!(press_err(&mut s, "enter"), FlowError::Completed);
    let options = OpenOptions {
        has_ui: false,
        ..OpenOptions::default()
    };
    let mut s = Session::open(&payload(), &options).unwrap();
    assert_eq!(s.status(), Status::Done);
    assert_eq!(press_err(&mut s, "1"), FlowError::Completed);
}

// Snapshots -----------------------------------------------------------------------------------

fn roundtrip(s: &Session, request: &Value) {
    let state = save(s, request);
    assert_eq!(state["format"], json!("askd.session"));
    assert_eq!(state["version"], json!(2));
    assert_eq!(&state["request"], request);
    let restored = restore(&state).unwrap_or_else(|e| panic!("{e}: {state}"));
    assert_eq!(&restored, s);
    assert_eq!(save(&restored, request), state);
    assert_eq!(restored.result(), s.result());
}

#[test]
fn snapshots_restore_an_equal_session_at_every_stage() {
    let request = payload();
    let mut s = open_main();
    roundtrip(&s, &request);
    press(&mut s, "<Space>n");
    type_text(&mut s, "note");
    roundtrip(&s, &request);
    press(&mut s, "<CR><Tab>3<Down>");
    type_text(&mut s, "héllo wörld");
    press(&mut s, "<C-Left><Left>");
    assert_eq!(editor(&s), ed(Custom, "héllo wörld", 6));
    roundtrip(&s, &request);
    // The restored session carries on exactly like the original.
    let mut restored = restore(&save(&s, &request)).unwrap();
    for keys in ["x<CR>", "<Tab><Down>", "2"] {
        press(&mut s, keys);
        press(&mut restored, keys);
        assert_eq!(restored, s, "{keys}");
        roundtrip(&s, &request);
    }
    assert_eq!(flow(&s).outcome(), Some(Outcome::Elaborate));
}

#[test]
fn snapshots_keep_invalid_non_interactive_and_rebound_sessions() {
    let invalid = json!({ "title": "T", "questions": [{ "id": "" }] });
    roundtrip(&open(&invalid), &invalid);
    let options = OpenOptions {
        has_ui: false,
        ..OpenOptions::default()
    };
    roundtrip(&Session::open(&payload(), &options).unwrap(), &payload());
    let mut s = open_with_keymap(
        &payload(),
        &json!({ "main.down": ["j", "down"], "main.toggle": [] }),
    );
    press(&mut s, "j");
    roundtrip(&s, &payload());
    let mut restored = restore(&save(&s, &payload())).unwrap();
    press(&mut restored, "j");
    assert_eq!(at(&restored), pos(SCOPE, 2, Input));
    let free = json!({ "questions": [{ "id": "free", "question": "Anything?" }] });
    roundtrip(
        &Session::open(&free, &OpenOptions::default()).unwrap(),
        &free,
    );
}

/// A snapshot of the main fixture with the custom editor of `scope` open on `héllo`, cursor 3.
fn editing_snapshot() -> Value {
    let mut s = open_main();
    press(&mut s, "<Space>3");
    type_text(&mut s, "héllo");
    press(&mut s, "<Home><Right><Right>");
    assert_eq!(editor(&s), ed(Custom, "héllo", 3));
    save(&s, &payload())
}

fn restore_err(state: &Value) -> String {
    restore(state)
        .expect_err("the snapshot must be refused")
        .to_string()
}

fn with(pointer: &str, value: Value) -> Value {
    let mut state = editing_snapshot();
    *state
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("{pointer}")) = value;
    state
}

#[test]
fn foreign_snapshots_are_refused_with_the_reason() {
    assert_eq!(restore_err(&json!("x")), "expected a snapshot (an object)");
    assert_eq!(
        restore_err(&with("/format", json!("other"))),
        "unknown format \"other\"; expected \"askd.session\""
    );
    let mut state = editing_snapshot();
    state.as_object_mut().unwrap().remove("format");
    assert_eq!(restore_err(&state), "missing \"format\": \"askd.session\"");
    assert_eq!(
        restore_err(&with("/version", json!(1))),
        "version 1 is not supported (this build reads version 2)"
    );
    let mut state = editing_snapshot();
    state.as_object_mut().unwrap().remove("version");
    assert_eq!(restore_err(&state), "missing \"version\"");
}

#[test]
fn malformed_snapshots_are_refused_with_the_reason() {
    let cases = [
        ("/flow/tab", json!(9), "tab 9 is out of range"),
        ("/flow/row", json!(3), "row 3 is out of range"),
        (
            "/flow/reviewAction",
            json!(3),
            "review action 3 is out of range",
        ),
        (
            "/flow/editor/cursor",
            json!(2),
            "the editor's cursor is not on a character boundary",
        ),
        (
            "/flow/editor/cursor",
            json!(7),
            "the editor's cursor is not on a character boundary",
        ),
        (
            "/flow/editor/question",
            json!(1),
            "the open editor belongs to another tab",
        ),
        (
            "/flow/editor/initial",
            json!("earlier"),
            "the open editor did not open with the text its answer holds",
        ),
        (
            "/flow/answers/0/selected",
            json!([5]),
            "an answer to \"scope\" selects a missing option",
        ),
        (
            "/flow/answers/0/selected",
            json!([0, 1]),
            "\"scope\" takes one option at most",
        ),
        (
            "/flow/nonInteractive",
            json!(true),
            "a session opened without UI is cancelled at once and never changes",
        ),
        (
            "/flow/keymap",
            json!({ "main.nope": [] }),
            "keymap: unknown keymap action \"main.nope\"",
        ),
        (
            "/request/questions",
            json!([]),
            "the request fails validation, so its session has no flow",
        ),
        (
            "/dialect",
            json!("dsh"),
            "the request is refused in the dsh dialect: questions[0] (\"scope\"): question is required",
        ),
    ];
    for (pointer, value, reason) in cases {
        assert_eq!(
            restore_err(&with(pointer, value.clone())),
            reason,
            "{pointer} = {value}"
        );
    }
    let shape = "expected a snapshot as `snapshot` writes it (its members do not have their shape)";
    let mut state = editing_snapshot();
    state["bogus"] = json!(1);
    assert_eq!(restore_err(&state), shape);
    let mut state = editing_snapshot();
    state["flow"]["bogus"] = json!(1);
    assert_eq!(restore_err(&state), shape);
    assert_eq!(restore_err(&with("/flow/tab", json!("x"))), shape);
    let mut state = editing_snapshot();
    state.as_object_mut().unwrap().remove("flow");
    assert_eq!(
        restore_err(&state),
        "the request is valid, so the snapshot needs the state of its flow"
    );
}

/// Restoring accepts exactly the states a flow can reach: what a request could never be
/// validated into, or a flow never be driven into, is refused, whatever its shape.
#[test]
fn snapshots_the_engine_never_writes_are_refused() {
    // An editor open on the review tab.
    let mut state = editing_snapshot();
    let review = payload()["questions"].as_array().map_or(0, Vec::len);
    state["flow"]["tab"] = json!(review);
    state["flow"]["row"] = json!(0);
    state["flow"]["editor"]["question"] = json!(review);
    assert_eq!(
        restore_err(&state),
        "the open editor belongs to no question"
    );
    // Requests that no validation passes: each is checked again as the dialect checks it.
    let dsh_question = |question: Value| {
        let request = json!({ "questions": [
            { "id": "size", "question": "How big?", "options": [{ "label": "Small" }] },
            question,
        ] });
        let session = Session::open(
            &json!({ "questions": [
            { "id": "size", "question": "How big?", "options": [{ "label": "Small" }] },
            { "id": "more", "question": "More?", "options": [{ "label": "Yes" }] },
        ] }),
            &OpenOptions::default(),
        )
        .expect("a valid dsh request");
        let mut state = save(&session, &json!({}));
        state["request"] = request;
        restore_err(&state)
    };
    let refused: Vec<String> = [
        json!({ "id": "more", "question": " ", "options": [{ "label": "Yes" }] }),
        json!({ "id": "more", "question": "More?", "options": [{ "label": "Yes" }, { "label": "Yes" }] }),
        json!({ "id": "more", "question": "More?", "detail": "plan", "options": [{ "label": "Yes" }], "intent": { "kind": "plan-review", "approve": "No" } }),
        json!({ "id": "size", "question": "More?", "options": [{ "label": "Yes" }] }),
    ]
    .into_iter()
    .map(dsh_question)
    .collect();
    assert_eq!(
        refused,
        [
            r#"the request is refused in the dsh dialect: questions[1] ("more"): question must not be blank"#,
            r#"the request is refused in the dsh dialect: questions[1] ("more"): duplicate option label "Yes" (options[0] and options[1])"#,
            r#"the request is refused in the dsh dialect: questions[1] ("more"): intent approve "No" names none of the question's option labels"#,
            r#"the request is refused in the dsh dialect: questions[1] ("size"): duplicate question id "size" (first used by questions[0])"#,
        ]
    );
    // The snapshot of a valid pi flow whose request breaks a rule opens no flow.
    let pi_invalid = |question: Value| {
        let mut state = editing_snapshot();
        state["request"]["questions"][2] = question;
        restore_err(&state)
    };
    let broken = [
        json!({ "id": "layout", "label": "Layout", "prompt": " ", "options": [{ "value": "grid", "label": "Grid" }] }),
        json!({ "id": "layout", "label": "Layout", "prompt": "Which?", "type": "preview", "options": [{ "value": "grid", "label": "Grid" }] }),
        json!({ "id": "scope", "label": "Layout", "prompt": "Which?", "options": [{ "value": "grid", "label": "Grid" }] }),
        json!({ "id": "layout", "label": "Layout", "prompt": "Which?", "type": "multi", "options": [] }),
    ];
    for question in broken {
        assert_eq!(
            pi_invalid(question.clone()),
            "the request fails validation, so its session has no flow",
            "{question}"
        );
    }
    // An invalid pi request restores only as the invalid session it opens, with the issues
    // validation finds (never issues of the snapshot's own).
    let invalid = json!({ "questions": [] });
    let mut state = save(&open(&invalid), &invalid);
    assert_eq!(restore(&state).unwrap(), open(&invalid));
    state["issues"] = json!([]);
    assert_eq!(
        restore_err(&state),
        "expected a snapshot as `snapshot` writes it (its members do not have their shape)"
    );
    // The dsh dialect has no Elaborate, and a single question never holds both a selection
    // and custom text there; a preview question of dsh would have options with previews.
    let request = json!({ "questions": [
        { "id": "size", "question": "How big?", "options": [{ "label": "Small" }, { "label": "Large" }] }
    ] });
    let dsh = Session::open(&request, &OpenOptions::default()).expect("a valid dsh request");
    let mut state = save(&dsh, &request);
    state["flow"]["outcome"] = json!("elaborate");
    assert_eq!(
        restore_err(&state),
        "the dsh dialect has no elaborate outcome"
    );
    let mut state = save(&dsh, &request);
    state["flow"]["answers"][0] = json!({ "selected": [0], "custom_text": "Tiny" });
    assert_eq!(
        restore_err(&state),
        "\"size\" is single-select: a selection or custom text, not both"
    );
}

#[test]
fn digit_hints_stand_before_the_ways_out_whatever_is_bound() {
    let actions = |s: &Session| -> Vec<&'static str> {
        view::build("s", s).hints.iter().map(|h| h.action).collect()
    };
    let defaults = actions(&open_main());
    assert_eq!(
        defaults[defaults.len() - 3..],
        ["digits", "main.cancel", "global.dismiss"]
    );
    let unbound = open_with_keymap(&payload(), &json!({ "main.cancel": [] }));
    let unbound = actions(&unbound);
    assert_eq!(unbound[unbound.len() - 2..], ["digits", "global.dismiss"]);
}

/// The snapshot of `session`, opened on `request` with the options of its dialect `options`.
fn save_with(session: &Session, request: &Value, options: &Value) -> Value {
    let raw = serde_json::value::to_raw_value(request).expect("a request serialises");
    askd::session::snapshot::save(session, &raw, options)
}

/// Every dialect's snapshots are checked by that dialect: its request opens again with its
/// own validation and with the options the session was opened with, and the flow is held to
/// the dialect's checks of values.
#[test]
fn snapshots_of_every_dialect_are_checked_by_their_dialect() {
    // claude: the options take part in validation (an HTML preview must hold a tag).
    let claude = json!({ "questions": [{ "question": "Which?", "header": "W", "multiSelect": false,
        "options": [{ "label": "A", "description": "", "preview": "<p>a</p>" },
                    { "label": "B", "description": "" }] }] });
    let html = json!({ "previewFormat": "html" });
    let s = try_open_in("claude", &claude, html.clone()).expect("a valid claude request");
    let state = save_with(&s, &claude, &html);
    assert_eq!(state["options"], html);
    assert_eq!(restore(&state).unwrap(), s);
    let mut plain = state.clone();
    plain["request"]["questions"][0]["options"][0]["preview"] = json!("a");
    assert_eq!(
        restore_err(&plain),
        "the request fails validation, so its session has no flow"
    );
    let mut bad_options = state.clone();
    bad_options["options"] = json!({ "previewFormat": "pdf" });
    assert_eq!(
        restore_err(&bad_options),
        r#"the request is refused in the claude dialect: invalid params: claude.previewFormat: expected "markdown" or "html", got the string "pdf""#
    );
    let mut one_option = state;
    one_option["request"]["questions"][0]["options"] = json!([{ "label": "A", "description": "" }]);
    assert_eq!(
        restore_err(&one_option),
        "the request fails validation, so its session has no flow"
    );

    // codex and opencode: a request their validation refuses opens no flow.
    let codex = json!({ "questions": [{ "id": "t", "header": "T", "question": "T?",
        "options": [{ "label": "A", "description": "" }] }] });
    let s = open_in("codex", &codex);
    let mut state = save_with(&s, &codex, &Value::Null);
    assert_eq!(restore(&state).unwrap(), s);
    state["request"]["questions"][0]["id"] = json!(7);
    assert_eq!(
        restore_err(&state),
        "the request fails validation, so its session has no flow"
    );
    let opencode = json!({ "questions": [{ "question": "Which?", "header": "W",
        "options": [{ "label": "A", "description": "" }] }] });
    let s = open_in("opencode", &opencode);
    let mut state = save_with(&s, &opencode, &Value::Null);
    assert_eq!(restore(&state).unwrap(), s);
    state["request"]["questions"][0]["question"] = Value::Null;
    assert_eq!(
        restore_err(&state),
        "the request fails validation, so its session has no flow"
    );

    // mcp: a value its checks refuse is never held, and an editor's refusal is the one its
    // checks give for the draft.
    let form = json!({ "message": "How many?", "requestedSchema": { "type": "object",
        "properties": { "n": { "type": "integer", "title": "N", "minimum": 1 } } } });
    let mut s = open_in("mcp", &form);
    press(&mut s, "0<CR>");
    let state = save_with(&s, &form, &Value::Null);
    assert_eq!(
        state["flow"]["editor"]["refusal"],
        json!("Enter a whole number of at least 1")
    );
    assert_eq!(restore(&state).unwrap(), s);
    let mut forged = state.clone();
    forged["flow"]["editor"]["refusal"] = json!("Enter anything");
    assert_eq!(
        restore_err(&forged),
        "the open editor's refusal is not what the dialect says of its draft"
    );
    let mut forged = state.clone();
    forged["flow"]["editor"]["text"] = json!("2");
    forged["flow"]["editor"]["cursor"] = json!(1);
    assert_eq!(
        restore_err(&forged),
        "the open editor's refusal is not what the dialect says of its draft"
    );
    let mut forged = state;
    forged["flow"]["editor"] = Value::Null;
    forged["flow"]["answers"][0] = json!({ "custom_text": "0" });
    assert_eq!(
        restore_err(&forged),
        "the custom answer of \"n\" is refused: Enter a whole number of at least 1"
    );
}
