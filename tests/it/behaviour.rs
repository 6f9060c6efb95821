//! The behaviour options and the `pi-0.9` profile (behaviour §9), through the library: the four
//! flags in either profile, what the profile changes (the custom row on preview questions, the
//! selected state of multi custom text, auto-open only without saved text, the elaborate
//! wording, the non-interactive listing), the question-type toggle, the help overlay, and the
//! notices as view data and rendered lines.

use std::sync::Arc;

use crate::common::*;
use askd::core::{
    Answer, Behaviour, CancelReason, EditorTarget, Focus, Keymap, Outcome, QuestionType,
};
use askd::dialect::DialectId;
use askd::session::{BehaviourOptions, OpenOptions, Profile, Session};
use askd::view;
use serde_json::{Value, json};

use EditorTarget::Custom;
use Focus::{Input, Options};

/// Opens the main fixture's `payload` with the behaviour options `behaviour` (as `open` takes
/// them).
fn open_as(payload: &Value, behaviour: Value) -> Session {
    let options: BehaviourOptions = serde_json::from_value(behaviour).expect("valid options");
    let options = OpenOptions {
        behaviour: options.behaviour(),
        ..OpenOptions::default()
    };
    Session::open(payload, &options).expect("a pi payload always opens")
}

/// The main fixture under the `pi-0.9` profile, with `flags` on top.
fn pi09(flags: Value) -> Session {
    let mut behaviour = flags;
    behaviour["profile"] = json!("pi-0.9");
    open_as(&payload(), behaviour)
}

/// The main fixture in the seed profile with `flags`.
fn seed(flags: Value) -> Session {
    open_as(&payload(), flags)
}

/// The notices of the session's view, as JSON.
fn notices(s: &Session) -> Value {
    serde_json::to_value(view::build("s", s).notices).expect("notices serialise")
}

/// The session's screen at 60 columns, as plain text.
fn screen(s: &Session) -> String {
    view::plain(
        view::build_with_width("s", s, Some(60))
            .lines
            .iter()
            .flatten(),
    )
}

/// The hint actions of the session's view, in order.
fn hint_actions(s: &Session) -> Vec<&'static str> {
    view::build("s", s).hints.iter().map(|h| h.action).collect()
}

/// Presses `name` and asserts that nothing at all changed.
fn assert_ignored(s: &mut Session, name: &str) {
    let before = s.clone();
    press_key(s, name);
    assert_eq!(*s, before, "{name:?} must be ignored");
}

const DISMISS: &str = "Unsaved ask answers or drafts. Press cancel/dismiss again to discard.";
const TYPE_CONFIRM: &str = "Switching to single-select will clear selected options for this question. Press the type key again to confirm.";

fn dismiss_notice() -> Value {
    json!({ "kind": "dismissConfirm", "text": DISMISS })
}

// The options themselves ----------------------------------------------------------------------

#[test]
fn the_profiles_set_the_core_options_and_the_flags_default_to_off() {
    assert_eq!(
        BehaviourOptions::default().behaviour(),
        Behaviour::default()
    );
    assert_eq!(Profile::Seed.behaviour(), Behaviour::default());
    assert_eq!(
        Profile::Pi09.behaviour(),
        Behaviour {
            custom_row_on_preview: true,
            custom_text_toggles: true,
            auto_open_only_without_text: true,
            question_type_toggle: true,
            help_overlay: true,
            elaborate_with_current_answer: true,
            ..Behaviour::default()
        }
    );
    let flags: BehaviourOptions = serde_json::from_value(json!({
        "confirmDismissWhenDirty": true,
        "doublePressReviewShortcuts": true,
        "autoSubmitWhenAnsweredWithoutNotes": true,
        "presentSingleAsMulti": true
    }))
    .expect("valid options");
    assert_eq!(
        flags.behaviour(),
        Behaviour {
            confirm_dismiss_when_dirty: true,
            double_press_review_shortcuts: true,
            auto_submit_when_answered_without_notes: true,
            present_single_as_multi: true,
            ..Behaviour::default()
        }
    );
}

#[test]
fn options_given_replace_the_base_and_options_left_out_keep_it() {
    let base: BehaviourOptions =
        serde_json::from_value(json!({ "profile": "pi-0.9", "confirmDismissWhenDirty": true }))
            .expect("valid");
    let over: BehaviourOptions = serde_json::from_value(
        json!({ "confirmDismissWhenDirty": false, "presentSingleAsMulti": true }),
    )
    .expect("valid");
    assert_eq!(
        over.over(base).behaviour(),
        Behaviour {
            present_single_as_multi: true,
            ..Profile::Pi09.behaviour()
        }
    );
    let unknown = serde_json::from_value::<BehaviourOptions>(json!({ "confirmDismiss": true }));
    assert!(
        unknown
            .expect_err("unknown fields are refused")
            .to_string()
            .starts_with("unknown field `confirmDismiss`")
    );
    let profile = serde_json::from_value::<BehaviourOptions>(json!({ "profile": "pi-0.4" }));
    assert_eq!(
        profile
            .expect_err("unknown profiles are refused")
            .to_string(),
        "unknown variant `pi-0.4`, expected `seed` or `pi-0.9`"
    );
}

#[test]
fn the_seed_profile_ignores_the_type_and_help_keys() {
    let mut s = open_main();
    assert_ignored(&mut s, "t");
    assert_ignored(&mut s, "?");
    press(&mut s, "<Tab><Tab><Tab>");
    assert_eq!(at(&s), review(0));
    assert_ignored(&mut s, "t");
    assert_ignored(&mut s, "?");
    // In an editor both are text.
    press(&mut s, "<Tab><Down><Down>");
    type_text(&mut s, "t?");
    assert_eq!(editor(&s), ed(Custom, "t?", 2));
    assert!(!hint_actions(&s).contains(&"global.help"));
    press(&mut s, "<Esc>");
    assert!(!hint_actions(&s).contains(&"main.changeQuestionType"));
}

// confirmDismissWhenDirty -----------------------------------------------------------------------

#[test]
fn a_clean_flow_ends_at_the_first_cancel_even_with_the_guard() {
    let mut s = seed(json!({ "confirmDismissWhenDirty": true }));
    press(&mut s, "<Esc>");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
}

#[test]
fn a_dirty_flow_asks_once_then_the_next_cancel_ends_it() {
    let mut s = seed(json!({ "confirmDismissWhenDirty": true }));
    press(&mut s, "<Space><Esc>");
    assert_eq!(flow(&s).outcome(), None);
    assert_eq!(notices(&s), json!([dismiss_notice()]));
    assert!(screen(&s).contains(" Unsaved ask answers or drafts. Press cancel/dismiss again\n"));
    // A row move keeps the notice.
    press(&mut s, "<Down>");
    assert_eq!(notices(&s), json!([dismiss_notice()]));
    press(&mut s, "<Esc>");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
    assert_eq!(
        s.result().expect("done")["details"]["answers"],
        json!({ "scope": { "values": ["small"], "labels": ["Small"], "indices": [1] } })
    );
}

#[test]
fn either_cancel_or_dismiss_confirms_the_other() {
    let mut s = seed(json!({ "confirmDismissWhenDirty": true }));
    press(&mut s, "<Space><Esc><C-c>");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::Dismissed))
    );
    let mut s = seed(json!({ "confirmDismissWhenDirty": true }));
    press(&mut s, "<Space><C-c>");
    assert_eq!(flow(&s).outcome(), None);
    press(&mut s, "<Esc>");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
}

#[test]
fn the_notice_stays_until_the_tab_changes_and_then_a_cancel_asks_again() {
    let mut s = seed(json!({ "confirmDismissWhenDirty": true }));
    press(&mut s, "<Space><Esc><Tab>");
    assert_eq!(notices(&s), json!([]));
    press(&mut s, "<Esc>");
    assert_eq!(flow(&s).outcome(), None);
    assert_eq!(notices(&s), json!([dismiss_notice()]));
}

#[test]
fn an_editor_draft_makes_the_flow_dirty_and_survives_the_first_dismiss() {
    let mut s = seed(json!({ "confirmDismissWhenDirty": true }));
    press(&mut s, "<Down><Down>");
    type_text(&mut s, "draft");
    press(&mut s, "<C-c>");
    assert_eq!(flow(&s).outcome(), None);
    assert_eq!(editor(&s), ed(Custom, "draft", 5));
    assert_eq!(notices(&s), json!([dismiss_notice()]));
    press(&mut s, "<C-c>");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::Dismissed))
    );
    // The draft was not saved.
    assert_eq!(s.result().expect("done")["details"]["answers"], json!({}));
}

#[test]
fn esc_in_an_editor_saves_and_closes_without_the_guard() {
    let mut s = seed(json!({ "confirmDismissWhenDirty": true }));
    press(&mut s, "<Down><Down>");
    type_text(&mut s, "draft");
    press(&mut s, "<Esc>");
    assert_eq!(at(&s), pos(SCOPE, 2, Options));
    assert_eq!(notices(&s), json!([]));
    assert_eq!(answer(&s, SCOPE), custom("draft"));
}

#[test]
fn a_note_on_an_unselected_option_makes_the_flow_dirty() {
    let mut s = seed(json!({ "confirmDismissWhenDirty": true }));
    press(&mut s, "n");
    type_text(&mut s, "hm");
    press(&mut s, "<CR><Esc>");
    assert_eq!(flow(&s).outcome(), None);
    assert_eq!(notices(&s), json!([dismiss_notice()]));
}

#[test]
fn the_review_cancel_action_is_guarded_too() {
    let mut s = seed(json!({ "confirmDismissWhenDirty": true }));
    press(&mut s, "1<Tab><Tab>3");
    assert_eq!(at(&s), review(0));
    assert_eq!(flow(&s).outcome(), None);
    assert_eq!(notices(&s), json!([dismiss_notice()]));
    press(&mut s, "<Down><Down><CR>");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
}

#[test]
fn without_the_flag_a_dirty_flow_ends_at_once() {
    let mut s = open_main();
    press(&mut s, "<Space><Esc>");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
}

// doublePressReviewShortcuts --------------------------------------------------------------------

fn shortcut(text: &str) -> Value {
    json!({ "kind": "reviewShortcut", "text": text })
}

const TWICE: &str = "Press 1, 2, or 3 twice to confirm a review action.";

#[test]
fn a_review_digit_arms_its_action_and_the_same_digit_runs_it() {
    let mut s = seed(json!({ "doublePressReviewShortcuts": true }));
    press(&mut s, "<S-Tab>");
    assert_eq!(notices(&s), json!([shortcut(TWICE)]));
    assert!(screen(&s).contains(" Press 1, 2, or 3 twice to confirm a review action.\n"));
    press(&mut s, "2");
    assert_eq!(at(&s), review(1));
    assert_eq!(flow(&s).outcome(), None);
    assert_eq!(
        notices(&s),
        json!([shortcut("Press 2 again to Elaborate.")])
    );
    press(&mut s, "2");
    assert_eq!(flow(&s).outcome(), Some(Outcome::Elaborate));
}

#[test]
fn another_digit_rearms_and_moves_clear_the_armed_digit() {
    let mut s = seed(json!({ "doublePressReviewShortcuts": true }));
    press(&mut s, "<S-Tab>13");
    assert_eq!(at(&s), review(2));
    assert_eq!(notices(&s), json!([shortcut("Press 3 again to Cancel.")]));
    press(&mut s, "<Up>");
    assert_eq!(at(&s), review(1));
    assert_eq!(notices(&s), json!([shortcut(TWICE)]));
    // Digits past the actions disarm too.
    press(&mut s, "14");
    assert_eq!(notices(&s), json!([shortcut(TWICE)]));
    // Keys that mean nothing on the review tab leave it armed.
    press(&mut s, "1nN");
    assert_eq!(notices(&s), json!([shortcut("Press 1 again to Submit.")]));
    press(&mut s, "1");
    assert_eq!(flow(&s).outcome(), Some(Outcome::Submit));
}

#[test]
fn enter_after_arming_runs_the_armed_action() {
    let mut s = seed(json!({ "doublePressReviewShortcuts": true }));
    press(&mut s, "<S-Tab>3<CR>");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
}

#[test]
fn a_guarded_cancel_keeps_its_digit_armed_so_the_same_digit_discards() {
    let mut s = seed(json!({
        "doublePressReviewShortcuts": true,
        "confirmDismissWhenDirty": true
    }));
    press(&mut s, "1<Tab><Tab>33");
    assert_eq!(flow(&s).outcome(), None);
    assert_eq!(
        notices(&s),
        json!([dismiss_notice(), shortcut("Press 3 again to Cancel.")])
    );
    press(&mut s, "3");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
}

#[test]
fn the_dsh_review_has_two_shortcuts() {
    let mut s = Session::open(
        &json!({ "questions": [{ "id": "a", "question": "A?", "options": [{ "label": "X" }] }] }),
        &OpenOptions {
            dialect: Some(DialectId::DSH),
            behaviour: Behaviour {
                double_press_review_shortcuts: true,
                ..Behaviour::default()
            },
            ..OpenOptions::default()
        },
    )
    .expect("a valid dsh request");
    press(&mut s, "<S-Tab>");
    assert_eq!(
        notices(&s),
        json!([shortcut("Press 1 or 2 twice to confirm a review action.")])
    );
    press(&mut s, "2");
    assert_eq!(notices(&s), json!([shortcut("Press 2 again to Cancel.")]));
}

#[test]
fn without_the_flag_a_review_digit_runs_at_once() {
    let mut s = open_main();
    press(&mut s, "<S-Tab>2");
    assert_eq!(flow(&s).outcome(), Some(Outcome::Elaborate));
    assert_eq!(notices(&s), json!([]));
}

// autoSubmitWhenAnsweredWithoutNotes -----------------------------------------------------------

#[test]
fn arriving_on_review_fully_answered_without_notes_submits() {
    let mut s = seed(json!({ "autoSubmitWhenAnsweredWithoutNotes": true }));
    press(&mut s, "1<Space><Tab>");
    assert_eq!(at(&s).tab, LAYOUT);
    press(&mut s, "1");
    assert_eq!(flow(&s).outcome(), Some(Outcome::Submit));
    assert_eq!(
        s.result().expect("done")["content"][0]["text"],
        json!("Scope: Small\nLangs: Rust\nLayout: Grid")
    );
}

#[test]
fn any_arrival_counts_tab_keys_included() {
    let mut s = seed(json!({ "autoSubmitWhenAnsweredWithoutNotes": true }));
    press(&mut s, "1<Space><Tab><Space><Left><Left>");
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
    press(&mut s, "<S-Tab>");
    assert_eq!(flow(&s).outcome(), Some(Outcome::Submit));
}

#[test]
fn a_note_or_an_unanswered_question_keeps_the_review_open() {
    let mut s = seed(json!({ "autoSubmitWhenAnsweredWithoutNotes": true }));
    press(&mut s, "1<Space><Tab>");
    press(&mut s, "n");
    type_text(&mut s, "hm");
    press(&mut s, "<CR><Down><CR>");
    assert_eq!(at(&s), review(0));
    assert_eq!(flow(&s).outcome(), None);
    let mut s = seed(json!({ "autoSubmitWhenAnsweredWithoutNotes": true }));
    press(&mut s, "1<Tab>1");
    assert_eq!(at(&s), review(0));
    assert_eq!(flow(&s).outcome(), None);
}

// presentSingleAsMulti --------------------------------------------------------------------------

#[test]
fn single_questions_are_presented_as_multi_and_results_keep_the_type_asked() {
    let mut s = seed(json!({ "presentSingleAsMulti": true }));
    let spec = flow(&s).spec();
    assert_eq!(spec.questions[SCOPE].kind, QuestionType::Multi);
    assert_eq!(spec.questions[SCOPE].asked, Some(QuestionType::Single));
    assert_eq!(spec.questions[LANGS].asked, None);
    assert_eq!(
        view::build("s", &s).question.expect("a question").kind,
        QuestionType::Multi
    );
    // Space toggles, Enter advances without selecting.
    press(&mut s, "<Space><Down><Space><CR><Space><Tab>11");
    assert_eq!(flow(&s).outcome(), Some(Outcome::Submit));
    let result = s.result().expect("done");
    assert_eq!(
        result["details"]["questions"],
        json!([
            { "id": "scope", "label": "Scope", "prompt": "Which scope?", "type": "single", "presentedType": "multi" },
            { "id": "langs", "label": "Langs", "prompt": "Which languages?", "type": "multi" },
            { "id": "layout", "label": "Layout", "prompt": "Which layout?", "type": "preview" }
        ])
    );
    assert_eq!(
        result["content"][0]["text"],
        json!(
            "Scope: Small, Large\nLangs: Rust\nLayout: Grid\nNote: Some questions were presented as multi-select by user preference."
        )
    );
    assert_eq!(
        s.transcript().expect("done").result,
        "✓ Scope: Small, Large\n✓ Langs: Rust\n✓ Layout: Grid\n  Note: Some questions were presented as multi-select by user preference."
    );
}

#[test]
fn the_presentation_note_needs_an_answered_question_presented_as_multi() {
    let mut s = seed(json!({ "presentSingleAsMulti": true }));
    press(&mut s, "N");
    type_text(&mut s, "later");
    press(&mut s, "<CR><Tab><Space><Tab><Tab>1");
    assert_eq!(
        s.result().expect("done")["content"][0]["text"],
        json!("Scope note: later\nLangs: Rust")
    );
}

#[test]
fn elaboration_items_and_the_non_interactive_result_carry_the_presented_type() {
    let mut s = seed(json!({ "presentSingleAsMulti": true }));
    press(&mut s, "N");
    type_text(&mut s, "why?");
    press(&mut s, "<CR><S-Tab>2");
    let result = s.result().expect("done");
    assert_eq!(
        keys_of(&result["details"]["elaboration"]["items"][0]["question"]),
        ["id", "label", "prompt", "type", "presentedType", "options"]
    );
    assert_eq!(
        result["details"]["elaboration"]["items"][0]["question"]["presentedType"],
        json!("multi")
    );
    let options = OpenOptions {
        has_ui: false,
        behaviour: Behaviour {
            present_single_as_multi: true,
            ..Behaviour::default()
        },
        ..OpenOptions::default()
    };
    let s = Session::open(&payload(), &options).expect("opens");
    assert_eq!(
        s.result().expect("done")["details"]["questions"][0],
        json!({ "id": "scope", "label": "Scope", "prompt": "Which scope?", "type": "single", "presentedType": "multi" })
    );
}

// The pi-0.9 profile: the custom row on preview questions --------------------------------------

#[test]
fn preview_questions_get_the_custom_row() {
    let mut s = pi09(json!({}));
    press(&mut s, "<Tab><Tab>");
    let rows: Vec<(String, bool)> = view::build("s", &s)
        .question
        .expect("a question")
        .rows
        .into_iter()
        .map(|r| (r.label, r.custom))
        .collect();
    assert_eq!(
        rows,
        [
            ("Grid".to_owned(), false),
            ("List".to_owned(), false),
            ("Type your own".to_owned(), true)
        ]
    );
    // Its text clears the selection, as on a single question; Enter with text advances.
    press(&mut s, "1<S-Tab><Down><Down>");
    assert_eq!(at(&s), pos(LAYOUT, 2, Input));
    type_text(&mut s, "Stacked");
    press(&mut s, "<CR>");
    assert_eq!(answer(&s, LAYOUT), custom("Stacked"));
    assert_eq!(at(&s), review(0));
    // Choosing an option drops it again.
    press(&mut s, "<S-Tab>2");
    assert_eq!(answer(&s, LAYOUT), selected(&[1]));
}

#[test]
fn the_non_interactive_listing_offers_type_your_own_on_preview_questions() {
    let options = OpenOptions {
        has_ui: false,
        behaviour: Profile::Pi09.behaviour(),
        ..OpenOptions::default()
    };
    let s = Session::open(&payload(), &options).expect("opens");
    assert_eq!(
        s.result().expect("done")["content"][0]["text"],
        json!(
            "Needs user input: ask_user requires interactive UI.\nRun same tool call in interactive session, or ask user these questions manually:\n1. Scope: Which scope?\n   - Small [small]\n   - Large [large]\n   - Type your own [custom]\n2. Langs: Which languages?\n   - Rust [rs]\n   - Go [go]\n   - Python [py]\n   - Type your own [custom]\n3. Layout: Which layout?\n   - Grid [grid]\n   - List [list]\n   - Type your own [custom]\ndetails.questions contains normalized pending questions. details.answers stays empty until user responds."
        )
    );
}

// The pi-0.9 profile: multi custom text has its own selected state -----------------------------

/// `pi-0.9`, `langs` with Rust selected and the custom text `Zig` saved with Enter.
fn langs_with_zig() -> Session {
    let mut s = pi09(json!({}));
    press(&mut s, "<Tab>1<Down><Down><Down>");
    assert_eq!(at(&s), pos(LANGS, 3, Input));
    type_text(&mut s, "Zig");
    press(&mut s, "<CR>");
    s
}

fn custom_row_selected(s: &Session) -> bool {
    let q = view::build("s", s).question.expect("a question");
    q.rows.last().expect("rows").selected
}

#[test]
fn enter_in_a_multi_custom_editor_saves_and_stays_on_the_tab() {
    let s = langs_with_zig();
    assert_eq!(at(&s), pos(LANGS, 3, Options));
    assert_eq!(
        answer(&s, LANGS),
        Answer {
            selected: vec![0],
            custom_text: Some("Zig".into()),
            ..Answer::default()
        }
    );
    assert!(custom_row_selected(&s));
}

#[test]
fn space_and_the_digit_set_the_custom_text_aside_and_choose_it_again() {
    let mut s = langs_with_zig();
    press(&mut s, "<Space>");
    assert_eq!(at(&s), pos(LANGS, 3, Options));
    assert_eq!(
        answer(&s, LANGS),
        Answer {
            selected: vec![0],
            custom_text: Some("Zig".into()),
            custom_off: true,
            ..Answer::default()
        }
    );
    assert!(!custom_row_selected(&s));
    // Still shown under the row.
    assert_eq!(
        view::build("s", &s)
            .question
            .expect("a question")
            .custom_text
            .as_deref(),
        Some("Zig")
    );
    press(&mut s, "4");
    assert!(custom_row_selected(&s));
    press(&mut s, "4<Tab><Tab>1");
    let result = s.result().expect("submitted");
    assert_eq!(
        result["details"]["answers"]["langs"],
        json!({ "values": ["rs"], "labels": ["Rust"], "indices": [1] })
    );
}

#[test]
fn custom_text_set_aside_answers_nothing_and_leaves_the_result() {
    let mut s = pi09(json!({}));
    press(&mut s, "<Tab>4");
    type_text(&mut s, "Zig");
    press(&mut s, "<CR><Space>");
    assert!(!answer(&s, LANGS).is_answered());
    assert!(!view::build("s", &s).tabs[LANGS].answered);
    // The review lists no answer for it.
    press(&mut s, "<Tab><Tab>");
    let review = serde_json::to_value(view::build("s", &s).review).expect("serialises");
    assert_eq!(
        review["questions"][LANGS],
        json!({ "id": "langs", "label": "Langs", "answered": false, "answers": [], "note": null, "otherNotes": [] })
    );
    press(&mut s, "1");
    let result = s.result().expect("submitted");
    assert_eq!(result["details"]["answers"], json!({}));
}

#[test]
fn enter_on_the_custom_row_opens_its_editor_and_saving_chooses_the_text_again() {
    let mut s = langs_with_zig();
    press(&mut s, "<Space><CR>");
    assert_eq!(editor(&s), ed(Custom, "Zig", 3));
    press(&mut s, "<Esc>");
    assert!(custom_row_selected(&s));
    assert!(!answer(&s, LANGS).custom_off);
}

// The pi-0.9 profile: auto-open only without saved text -----------------------------------------

#[test]
fn a_custom_row_with_saved_text_does_not_open_by_itself() {
    let mut s = pi09(json!({}));
    press(&mut s, "<Down><Down>");
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
    type_text(&mut s, "mine");
    press(&mut s, "<Esc><Up><Down>");
    assert_eq!(at(&s), pos(SCOPE, 2, Options));
    assert_eq!(editor(&s), None);
    // The seed profile opens it, pre-filled.
    let mut s = open_main();
    press(&mut s, "<Down><Down>");
    type_text(&mut s, "mine");
    press(&mut s, "<Esc><Up><Down>");
    assert_eq!(editor(&s), ed(Custom, "mine", 4));
}

/// As in pi-ask 0.9.0: the editor of an empty custom row opens again after the Enter that
/// closed it empty, and the next keys type into it; only `Esc` leaves it closed.
#[test]
fn enter_on_an_empty_custom_editor_opens_it_again() {
    let mut s = pi09(json!({}));
    press(&mut s, "3<CR>");
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
    assert_eq!(editor(&s), ed(Custom, "", 0));
    press(&mut s, "<Esc>");
    assert_eq!(at(&s), pos(SCOPE, 2, Options));
    assert_eq!(editor(&s), None);
}

// The pi-0.9 profile: the elaborate wording -----------------------------------------------------

#[test]
fn elaborate_lines_name_the_current_answer_of_answered_questions() {
    let mut s = pi09(json!({}));
    press(&mut s, "N");
    type_text(&mut s, "why?");
    press(&mut s, "<CR>2<Down>n");
    type_text(&mut s, "and go?");
    press(&mut s, "<CR><S-Tab><S-Tab>2");
    assert_eq!(
        s.result().expect("done")["content"][0]["text"],
        json!(
            "User asked to elaborate on question \"Which scope?\" after current answer \"Large\" with note \"why?\"\nUser asked to elaborate on question \"Which languages?\" option \"Go\" with note \"and go?\""
        )
    );
}

#[test]
fn without_notes_each_answered_question_gets_a_line() {
    let mut s = pi09(json!({}));
    press(&mut s, "2<Space><Down><Space><Tab><Tab>2");
    let text = "User asked to elaborate on question \"Which scope?\" after current answer \"Large\"\nUser asked to elaborate on question \"Which languages?\" after current answer \"Rust, Go\"";
    assert_eq!(s.result().expect("done")["content"][0]["text"], json!(text));
    assert_eq!(s.transcript().expect("done").result, text);
    // Nothing answered and no notes: the fallback line.
    let mut s = pi09(json!({}));
    press(&mut s, "<S-Tab>2");
    assert_eq!(
        s.result().expect("done")["content"][0]["text"],
        json!("User asked for elaboration based on notes")
    );
}

// The pi-0.9 profile: the question-type toggle --------------------------------------------------

fn type_changed(from: &str, to: &str) -> Value {
    json!({ "kind": "typeChanged", "text": format!("Question type changed from {from} to {to}.") })
}

fn type_confirm() -> Value {
    json!({ "kind": "typeConfirm", "text": TYPE_CONFIRM })
}

#[test]
fn t_switches_single_and_multi_and_results_keep_the_type_asked() {
    let mut s = pi09(json!({}));
    press(&mut s, "t");
    assert_eq!(flow(&s).spec().questions[SCOPE].kind, QuestionType::Multi);
    assert_eq!(notices(&s), json!([type_changed("single", "multi")]));
    assert!(screen(&s).contains(" Question type changed from single to multi.\n"));
    // One selection: back to single without asking.
    press(&mut s, "<Space>t");
    assert_eq!(flow(&s).spec().questions[SCOPE].kind, QuestionType::Single);
    assert_eq!(flow(&s).spec().questions[SCOPE].asked, None);
    assert_eq!(answer(&s, SCOPE), selected(&[0]));
    press(&mut s, "t<Tab>");
    assert_eq!(notices(&s), json!([]));
    press(&mut s, "<S-Tab><S-Tab>1");
    assert_eq!(
        s.result().expect("done")["details"]["questions"][0],
        json!({ "id": "scope", "label": "Scope", "prompt": "Which scope?", "type": "single", "presentedType": "multi" })
    );
}

#[test]
fn a_switch_that_would_clear_selections_asks_for_a_second_t() {
    let mut s = pi09(json!({}));
    press(&mut s, "<Tab><Space><Down><Space>t");
    assert_eq!(flow(&s).spec().questions[LANGS].kind, QuestionType::Multi);
    assert_eq!(answer(&s, LANGS), selected(&[0, 1]));
    assert_eq!(notices(&s), json!([type_confirm()]));
    press(&mut s, "t");
    assert_eq!(flow(&s).spec().questions[LANGS].kind, QuestionType::Single);
    assert_eq!(
        flow(&s).spec().questions[LANGS].asked,
        Some(QuestionType::Multi)
    );
    assert_eq!(answer(&s, LANGS), Answer::default());
    assert_eq!(notices(&s), json!([type_changed("multi", "single")]));
}

#[test]
fn any_other_key_of_the_tab_drops_the_pending_confirmation() {
    let mut s = pi09(json!({}));
    press(&mut s, "<Tab><Space><Down><Space>t<Up>");
    assert_eq!(notices(&s), json!([]));
    press(&mut s, "t");
    assert_eq!(flow(&s).spec().questions[LANGS].kind, QuestionType::Multi);
    assert_eq!(notices(&s), json!([type_confirm()]));
    // `?` and keys that mean nothing keep it.
    press(&mut s, "x?<Esc>");
    assert_eq!(notices(&s), json!([type_confirm()]));
    press(&mut s, "t");
    assert_eq!(flow(&s).spec().questions[LANGS].kind, QuestionType::Single);
}

#[test]
fn a_confirmed_switch_keeps_custom_text_chosen_and_notes() {
    let mut s = langs_with_zig();
    press(&mut s, "N");
    type_text(&mut s, "keep");
    press(&mut s, "<CR><Space>");
    // Rust and set-aside Zig: one answer, so no confirmation; the single question holds both.
    press(&mut s, "t");
    assert_eq!(notices(&s), json!([type_changed("multi", "single")]));
    assert_eq!(
        answer(&s, LANGS),
        Answer {
            selected: vec![0],
            custom_text: Some("Zig".into()),
            custom_off: true,
            note: Some("keep".into()),
            ..Answer::default()
        }
    );
    // Rust and chosen Zig: two answers.
    let mut s = langs_with_zig();
    press(&mut s, "tt");
    assert_eq!(
        answer(&s, LANGS),
        Answer {
            custom_text: Some("Zig".into()),
            ..Answer::default()
        }
    );
}

#[test]
fn a_question_asked_as_preview_switches_between_preview_and_multi() {
    let mut s = pi09(json!({}));
    press(&mut s, "<Tab><Tab>t");
    assert_eq!(flow(&s).spec().questions[LAYOUT].kind, QuestionType::Multi);
    assert_eq!(notices(&s), json!([type_changed("preview", "multi")]));
    press(&mut s, "<Space><Down><Space>t");
    assert_eq!(notices(&s), json!([type_confirm()]));
    press(&mut s, "t");
    assert_eq!(
        flow(&s).spec().questions[LAYOUT].kind,
        QuestionType::Preview
    );
    assert_eq!(flow(&s).spec().questions[LAYOUT].asked, None);
    assert_eq!(answer(&s, LAYOUT), Answer::default());
}

#[test]
fn t_does_nothing_on_the_review_tab_and_is_text_in_editors() {
    let mut s = pi09(json!({}));
    press(&mut s, "<S-Tab>");
    assert_ignored(&mut s, "t");
    press(&mut s, "<Tab><Down><Down>t");
    assert_eq!(editor(&s), ed(Custom, "t", 1));
}

#[test]
fn the_type_key_is_a_keymap_action() {
    let keymap = Keymap::default()
        .with_overrides(&json!({ "main.changeQuestionType": ["ctrl+t"] }))
        .expect("valid overrides");
    let options = OpenOptions {
        keymap: Arc::new(keymap),
        behaviour: Profile::Pi09.behaviour(),
        ..OpenOptions::default()
    };
    let mut s = Session::open(&payload(), &options).expect("opens");
    assert_ignored(&mut s, "t");
    press(&mut s, "<C-t>");
    assert_eq!(flow(&s).spec().questions[SCOPE].kind, QuestionType::Multi);
    let hint = view::build("s", &s)
        .hints
        .into_iter()
        .find(|h| h.action == "main.changeQuestionType")
        .expect("a hint");
    assert_eq!(&*hint.keys, ["ctrl+t"]);
    assert_eq!(hint.label, "question type");
}

// The pi-0.9 profile: the help overlay ----------------------------------------------------------

#[test]
fn question_mark_opens_the_help_overlay_listing_every_binding_by_context() {
    let mut s = pi09(json!({}));
    press(&mut s, "?");
    let help = serde_json::to_value(view::build("s", &s).help).expect("serialises");
    assert_eq!(help["title"], json!("Key bindings"));
    let contexts: Vec<(Value, Value, usize)> = help["sections"]
        .as_array()
        .expect("sections")
        .iter()
        .map(|s| {
            (
                s["context"].clone(),
                s["label"].clone(),
                s["bindings"].as_array().expect("bindings").len(),
            )
        })
        .collect();
    assert_eq!(
        contexts,
        [
            (json!("global"), json!("Everywhere"), 2),
            (json!("main"), json!("Question tab"), 16),
            (json!("review"), json!("Review tab"), 9),
            (json!("editor"), json!("Answer editor"), 20),
            (json!("noteEditor"), json!("Note editor"), 8),
            (json!("filter"), json!("Filter editor"), 6),
        ]
    );
    assert_eq!(
        help["sections"][0]["bindings"],
        json!([
            { "action": "global.dismiss", "keys": ["ctrl+c"], "label": "dismiss" },
            { "action": "global.help", "keys": ["?"], "label": "help" }
        ])
    );
    assert_eq!(
        help["sections"][1]["bindings"][13],
        json!({ "action": "main.changeQuestionType", "keys": ["t"], "label": "question type" })
    );
    assert_eq!(
        help["sections"][1]["bindings"][15],
        json!({ "action": "digits", "keys": ["1", "2", "3", "4", "5", "6", "7", "8", "9"], "label": "quick select" })
    );
    assert_eq!(
        help["sections"][2]["bindings"][8],
        json!({ "action": "digits", "keys": ["1", "2", "3"], "label": "run action" })
    );
    let text = screen(&s);
    assert!(text.contains(" Key bindings\n\n Everywhere\n   ctrl+c                 dismiss\n   ?                      help\n"), "{text}");
    assert_eq!(
        serde_json::to_value(view::build("s", &s).hints).expect("serialises"),
        json!([
            { "action": "global.help", "keys": ["?"], "label": "close help" },
            { "action": "main.cancel", "keys": ["escape"], "label": "close help" }
        ])
    );
}

#[test]
fn esc_or_question_mark_closes_the_overlay_and_other_keys_do_nothing() {
    let mut s = pi09(json!({}));
    press(&mut s, "?");
    for key in ["down", "enter", "space", "1", "t", "tab", "n"] {
        assert_ignored(&mut s, key);
    }
    press(&mut s, "<Esc>");
    assert!(!flow(&s).prompts().help);
    assert_eq!(flow(&s).outcome(), None);
    press(&mut s, "??");
    assert!(!flow(&s).prompts().help);
    // Ctrl+C closes it too; the flow goes on.
    press(&mut s, "?<C-c>");
    assert!(!flow(&s).prompts().help);
    assert_eq!(flow(&s).outcome(), None);
    assert_eq!(at(&s), pos(SCOPE, 0, Options));
}

#[test]
fn question_mark_opens_the_overlay_from_an_empty_editor_but_is_text_in_one_with_text() {
    let mut s = pi09(json!({}));
    press(&mut s, "<Down><Down>");
    assert!(hint_actions(&s).contains(&"global.help"));
    press(&mut s, "?");
    assert!(flow(&s).prompts().help);
    assert_eq!(editor(&s), ed(Custom, "", 0));
    press(&mut s, "<Esc>");
    assert!(!flow(&s).prompts().help);
    assert_eq!(at(&s), pos(SCOPE, 2, Input));
    type_text(&mut s, "a?");
    assert_eq!(editor(&s), ed(Custom, "a?", 2));
    assert!(!hint_actions(&s).contains(&"global.help"));
}

#[test]
fn the_overlay_follows_the_keymap_and_the_dialect() {
    let keymap = Keymap::default()
        .with_overrides(&json!({ "global.help": ["h"], "main.confirm": [] }))
        .expect("valid overrides");
    let options = OpenOptions {
        keymap: Arc::new(keymap),
        dialect: Some(DialectId::DSH),
        behaviour: Profile::Pi09.behaviour(),
        ..OpenOptions::default()
    };
    let mut s = Session::open(
        &json!({ "questions": [{ "id": "a", "question": "A?", "options": [{ "label": "X" }] }] }),
        &options,
    )
    .expect("a valid dsh request");
    assert_ignored(&mut s, "?");
    press(&mut s, "h");
    let help = view::build("s", &s).help.expect("open");
    assert_eq!(&*help.sections[0].bindings[1].keys, ["h"]);
    let main: Vec<&str> = help.sections[1].bindings.iter().map(|b| b.action).collect();
    // No notes in dsh, and no keys for main.confirm.
    assert_eq!(
        main,
        [
            "main.nextTab",
            "main.prevTab",
            "main.down",
            "main.up",
            "main.pageDown",
            "main.pageUp",
            "main.first",
            "main.last",
            "main.filter",
            "main.toggle",
            "main.changeQuestionType",
            "main.cancel",
            "digits"
        ]
    );
}

// Snapshots -------------------------------------------------------------------------------------

#[test]
fn a_snapshot_keeps_the_behaviour_the_switched_types_and_the_notices() {
    let mut s = pi09(json!({
        "confirmDismissWhenDirty": true,
        "doublePressReviewShortcuts": true,
        "presentSingleAsMulti": true
    }));
    press(&mut s, "<Space><Tab>t<S-Tab><S-Tab>2<Esc>");
    assert_eq!(at(&s), review(1));
    let state = save(&s, &payload());
    assert_eq!(
        state["flow"]["behaviour"],
        json!({
            "confirmDismissWhenDirty": true,
            "doublePressReviewShortcuts": true,
            "autoSubmitWhenAnsweredWithoutNotes": false,
            "presentSingleAsMulti": true,
            "customRowOnPreview": true,
            "customTextToggles": true,
            "autoOpenOnlyWithoutText": true,
            "questionTypeToggle": true,
            "helpOverlay": true,
            "elaborateWithCurrentAnswer": true
        })
    );
    assert_eq!(state["flow"]["prompts"], json!({ "dismiss": true }));
    // Scope is presented as multi by the option, Langs switched to single by `t`.
    assert_eq!(
        state["flow"]["presented"],
        json!([[0, "multi"], [1, "single"]])
    );
    let restored = restore(&state).expect("a valid snapshot");
    assert_eq!(restored, s);
    // A notice the behaviour does not allow is refused.
    let mut state = save(&open_main(), &payload());
    state["flow"]["prompts"] = json!({ "help": true });
    assert_eq!(
        restore(&state).expect_err("refused").to_string(),
        "the help overlay is not offered"
    );
    // A switched type the behaviour does not allow is refused too.
    let mut state = save(&open_main(), &payload());
    state["flow"]["presented"] = json!([[1, "single"]]);
    assert_eq!(
        restore(&state).expect_err("refused").to_string(),
        "question 2 cannot be presented as \"single\""
    );
}

#[test]
fn seed_snapshots_are_written_as_before() {
    let state = save(&open_main(), &payload());
    assert_eq!(state["flow"].get("behaviour"), None);
    assert_eq!(state["flow"].get("prompts"), None);
    assert_eq!(state["flow"].get("presented"), None);
}

#[test]
fn direct_operations_follow_the_options_too() {
    let mut s = langs_with_zig();
    // saveCustom with submit stays on a multi question, as Enter does.
    s.flow_mut()
        .expect("a flow")
        .save_custom("langs", "Nim", true)
        .expect("saved");
    assert_eq!(at(&s).tab, LANGS);
    assert_eq!(answer(&s, LANGS).custom_text.as_deref(), Some("Nim"));
    // `cancel` is not guarded: the client means it.
    let mut s = seed(json!({ "confirmDismissWhenDirty": true }));
    press(&mut s, "<Space>");
    s.flow_mut()
        .expect("a flow")
        .cancel(CancelReason::User)
        .expect("cancelled");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
}
