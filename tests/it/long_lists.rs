//! Long lists (behaviour §10): the page keys and first/last on question tabs and the review
//! tab, the `/` filter of questions with more than nine options, and the view's progress.

use askd::core::{CancelReason, EditorTarget, FlowError, Focus, Outcome, ROW_WINDOW};
use askd::session::Session;
use askd::view::{self, plain};
use serde_json::{Value, json};

use crate::common::{
    At, Step, answer, at, custom, ed, editor, flow, open, open_main, paste, pos, press, press_key,
    restore, review, save, selected, type_text,
};

/// A question of `n` options (`Option 1` …, descriptions `even` on the even ones, the fifth
/// `Café crème`), of `kind`, then a short second question.
fn long_payload(n: usize, kind: &str) -> Value {
    let options: Vec<Value> = (1..=n)
        .map(|i| {
            let label = if i == 5 {
                "Café crème".to_owned()
            } else {
                format!("Option {i}")
            };
            let mut option = json!({ "value": format!("o{i}"), "label": label });
            if i % 2 == 0 {
                option["description"] = json!("even");
            }
            if kind == "preview" {
                option["preview"] = json!(format!("preview {i}"));
            }
            option
        })
        .collect();
    json!({
        "title": "Pick",
        "questions": [
            { "id": "pick", "label": "Pick", "prompt": "Which one?", "type": kind, "options": options },
            { "id": "next", "label": "Next", "prompt": "Then?", "options": [{ "value": "y", "label": "Yes" }] }
        ]
    })
}

fn long(n: usize) -> Session {
    open(&long_payload(n, "single"))
}

/// The view of a session as JSON (without lines).
fn view_of(s: &Session) -> Value {
    serde_json::to_value(view::build("s", s)).expect("a view serialises")
}

/// The values of the rows a view carries.
fn row_values(view: &Value) -> Vec<String> {
    view["question"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["value"].as_str().expect("a value").to_owned())
        .collect()
}

/// Presses `keys` and checks the flow's invariants after each.
fn press_checked(s: &mut Session, keys: &str) {
    for key in askd::core::parse_sequence(keys).expect("valid keys") {
        s.press(key).expect("accepted");
        flow(s).check_invariants().expect("invariants hold");
    }
}

// The page keys and first/last ------------------------------------------------------------------

#[test]
fn page_keys_move_by_the_window_and_home_end_to_the_ends() {
    assert_eq!(ROW_WINDOW, 10);
    let mut s = long(30);
    press_checked(&mut s, "<PageDown>");
    assert_eq!(at(&s), pos(0, 10, Focus::Options));
    press_checked(&mut s, "<PageDown>");
    assert_eq!(at(&s), pos(0, 20, Focus::Options));
    press_checked(&mut s, "<PageUp>");
    assert_eq!(at(&s), pos(0, 10, Focus::Options));
    press_checked(&mut s, "<Up><PageUp>");
    assert_eq!(at(&s), pos(0, 0, Focus::Options));
    press_checked(&mut s, "<PageUp>");
    assert_eq!(at(&s), pos(0, 0, Focus::Options));
    // The last row is the custom row: a jump there does not open its editor (`home` comes
    // back up), `enter` does, and so does a move with `down`.
    press_checked(&mut s, "<End>");
    assert_eq!(at(&s), pos(0, 30, Focus::Options));
    press_checked(&mut s, "<Home>");
    assert_eq!(at(&s), pos(0, 0, Focus::Options));
    press_checked(&mut s, "<PageDown><PageDown><PageDown>");
    assert_eq!(at(&s), pos(0, 30, Focus::Options));
    press_checked(&mut s, "<CR>");
    assert_eq!(at(&s), pos(0, 30, Focus::Input));
    press_checked(&mut s, "<Esc><Up><Down>");
    assert_eq!(at(&s), pos(0, 30, Focus::Input));
    // Nothing was selected by moving.
    assert_eq!(answer(&s, 0), askd::core::Answer::default());
}

#[test]
fn page_keys_clamp_on_questions_without_a_custom_row() {
    let mut s = open(&long_payload(12, "preview"));
    press_checked(&mut s, "<PageDown><PageDown>");
    assert_eq!(at(&s), pos(0, 11, Focus::Options));
    press_checked(&mut s, "<Home><End>");
    assert_eq!(at(&s), pos(0, 11, Focus::Options));
    let mut s = open(&long_payload(12, "multi"));
    press_checked(&mut s, "<PageDown><Space>");
    assert_eq!(answer(&s, 0), selected(&[10]));
}

#[test]
fn page_keys_on_a_short_list_go_to_its_ends() {
    let mut s = open_main();
    press_checked(&mut s, "<PageDown>");
    assert_eq!(at(&s), pos(0, 2, Focus::Options));
    press_checked(&mut s, "<Home>");
    assert_eq!(at(&s), pos(0, 0, Focus::Options));
}

#[test]
fn on_the_review_tab_they_move_among_the_actions() {
    let mut s = open_main();
    press_checked(&mut s, "<S-Tab>");
    assert_eq!(at(&s), review(0));
    for (key, action) in [
        ("end", 2),
        ("home", 0),
        ("pagedown", 2),
        ("pageup", 0),
        ("pagedown", 2),
        ("pagedown", 2),
    ] {
        press_key(&mut s, key);
        assert_eq!(at(&s), review(action), "{key}");
    }
    press_checked(&mut s, "<CR>");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
}

#[test]
fn in_editors_home_and_end_keep_their_editing_meaning() {
    let mut s = open_main();
    press_checked(&mut s, "3abc<Home>");
    assert_eq!(editor(&s), ed(EditorTarget::Custom, "abc", 0));
    press_checked(&mut s, "<End>");
    assert_eq!(editor(&s), ed(EditorTarget::Custom, "abc", 3));
    press_checked(&mut s, "<PageDown><PageUp>");
    assert_eq!(editor(&s), ed(EditorTarget::Custom, "abc", 3));
    assert_eq!(at(&s), pos(0, 2, Focus::Input));
}

#[test]
fn in_an_empty_editor_the_page_keys_save_and_move_as_up_and_down_do() {
    let mut s = long(30);
    // `down` onto the custom row opens its editor; `pageup` from it, empty, goes back up.
    press_checked(&mut s, "<End><Up><Down>");
    assert_eq!(at(&s), pos(0, 30, Focus::Input));
    press_checked(&mut s, "<PageUp>");
    assert_eq!(at(&s), pos(0, 20, Focus::Options));
    press_checked(&mut s, "nwhy<PageDown>");
    assert_eq!(
        editor(&s),
        ed(EditorTarget::OptionNote { option: 20 }, "why", 3)
    );
    press_checked(&mut s, "<BS><BS><BS><PageDown>");
    assert_eq!(at(&s), pos(0, 30, Focus::Options));
}

// The filter ------------------------------------------------------------------------------------

#[test]
fn slash_opens_the_filter_only_on_questions_of_more_than_nine_options() {
    let mut s = long(9);
    let before = s.clone();
    press_key(&mut s, "/");
    assert_eq!(s, before);
    assert_eq!(view_of(&s)["filter"], Value::Null);

    let mut s = long(10);
    press_checked(&mut s, "<Down>/");
    assert_eq!(at(&s), pos(0, 1, Focus::Filter));
    let view = view_of(&s);
    assert_eq!(view["focus"], json!("filter"));
    assert_eq!(view["editor"], Value::Null);
    assert_eq!(
        view["filter"],
        json!({
            "text": "",
            "cursor": { "offset": 0, "byte": 0, "utf16": 0, "line": 0, "grapheme": 0, "column": 0 },
            "editing": true,
            "matches": 10,
            "total": 10
        })
    );
}

#[test]
fn typing_keeps_the_rows_whose_label_or_description_contains_the_text() {
    let mut s = long(30);
    press_checked(&mut s, "/2");
    let view = view_of(&s);
    assert_eq!(view["filter"]["matches"], json!(12));
    assert_eq!(
        row_values(&view),
        [
            "o2", "o12", "o20", "o21", "o22", "o23", "o24", "o25", "o26", "o27"
        ]
    );
    assert_eq!(view["question"]["rowCount"], json!(13));
    assert_eq!(view["question"]["rowsBelow"], json!(3));
    assert_eq!(view["question"]["activeOption"], json!(1));
    // Rows are numbered among the rows that match.
    assert_eq!(view["question"]["rows"][1]["index"], json!(2));
    // Case does not matter, descriptions count, and non-ASCII folds too.
    for (text, matches) in [
        ("OPTION 2", 11),
        ("EVEN", 15),
        ("CAFÉ", 1),
        ("crème", 1),
        ("cafe", 0),
        ("", 30),
    ] {
        let mut s = long(30);
        press_checked(&mut s, "/");
        paste(&mut s, text);
        assert_eq!(view_of(&s)["filter"]["matches"], json!(matches), "{text}");
    }
}

#[test]
fn enter_applies_the_filter_and_digits_address_the_rows_that_match() {
    let mut s = long(30);
    press_checked(&mut s, "/2<CR>");
    assert_eq!(at(&s), pos(0, 1, Focus::Options));
    let view = view_of(&s);
    assert_eq!(view["filter"]["editing"], json!(false));
    assert_eq!(view["filter"]["text"], json!("2"));
    // The third row that matches is Option 20.
    press_checked(&mut s, "3");
    assert_eq!(answer(&s, 0), selected(&[19]));
    // Selecting advanced to the next tab, which drops the filter.
    assert_eq!(at(&s), pos(1, 0, Focus::Options));
    assert_eq!(view_of(&s)["filter"], Value::Null);
    // Coming back, every row is there again.
    press_checked(&mut s, "<S-Tab>");
    assert_eq!(view_of(&s)["question"]["rowCount"], json!(31));
}

#[test]
fn up_and_down_move_among_the_matches_while_filtering_and_among_the_rows_after() {
    let mut s = long(30);
    press_checked(&mut s, "/1");
    // Matches: Option 1, 10 to 19 and 21 (0, 9..=18, 20). Down moves among them, never onto the
    // custom row.
    press_checked(&mut s, "<Down><Down>");
    assert_eq!(at(&s), pos(0, 10, Focus::Filter));
    press_checked(&mut s, "<Up><Up><Up>");
    assert_eq!(at(&s), pos(0, 0, Focus::Filter));
    press_checked(&mut s, "<End>");
    // End edits the filter text (its cursor), it does not move rows.
    assert_eq!(at(&s), pos(0, 0, Focus::Filter));
    press_checked(&mut s, "<CR><End>");
    // In options focus the last row is the custom row, after the matches.
    assert_eq!(at(&s), pos(0, 30, Focus::Options));
    assert_eq!(view_of(&s)["filter"]["text"], json!("1"));
    press_checked(&mut s, "<Up>");
    assert_eq!(at(&s), pos(0, 20, Focus::Options));
    // Twelve rows that match: a page up from the twelfth is the second.
    press_checked(&mut s, "<PageUp>");
    assert_eq!(at(&s), pos(0, 9, Focus::Options));
}

#[test]
fn esc_clears_the_filter_and_keeps_the_row() {
    let mut s = long(30);
    press_checked(&mut s, "/2<Down><Down><Esc>");
    assert_eq!(at(&s), pos(0, 19, Focus::Options));
    assert_eq!(view_of(&s)["filter"], Value::Null);
    assert_eq!(view_of(&s)["question"]["rowCount"], json!(31));

    // Applied, the first Esc clears the filter and the second cancels.
    let mut s = long(30);
    press_checked(&mut s, "/2<CR><Down>");
    assert_eq!(at(&s), pos(0, 11, Focus::Options));
    let hints = view_of(&s)["hints"].clone();
    let cancel = hints
        .as_array()
        .expect("hints")
        .iter()
        .find(|h| h["action"] == json!("main.cancel"))
        .expect("a cancel hint")
        .clone();
    assert_eq!(cancel["label"], json!("clear filter"));
    press_checked(&mut s, "<Esc>");
    assert_eq!(at(&s), pos(0, 11, Focus::Options));
    assert_eq!(view_of(&s)["filter"], Value::Null);
    press_key(&mut s, "escape");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
}

#[test]
fn a_filter_that_matches_nothing_says_so_and_leaves_the_custom_row() {
    let mut s = long(30);
    press_checked(&mut s, "/zzz");
    let view = view_of(&s);
    assert_eq!(view["filter"]["matches"], json!(0));
    assert_eq!(row_values(&view), ["__other__"]);
    assert_eq!(view["question"]["activeOption"], json!(30));
    let lines = view::build_with_width("s", &s, Some(60))
        .lines
        .expect("lines");
    let text = plain(&lines);
    assert!(text.contains(" / zzz    no option matches\n"), "{text}");
    press_checked(&mut s, "<CR><CR>");
    assert_eq!(at(&s), pos(0, 30, Focus::Input));
    type_text(&mut s, "mine");
    press_checked(&mut s, "<CR>");
    assert_eq!(answer(&s, 0), custom("mine"));
    assert_eq!(at(&s), pos(1, 0, Focus::Options));
}

#[test]
fn with_nothing_to_move_among_row_keys_do_nothing() {
    let mut s = open(&long_payload(12, "preview"));
    press_checked(&mut s, "<Down>/zzz<CR>");
    assert_eq!(row_values(&view_of(&s)), Vec::<String>::new());
    let before = s.clone();
    for key in ["enter", "space", "down", "end", "pagedown", "1", "n"] {
        press_key(&mut s, key);
        assert_eq!(s, before, "{key}");
    }
    press_checked(&mut s, "/<BS><BS><BS>");
    assert_eq!(view_of(&s)["filter"]["matches"], json!(12));
    assert_eq!(at(&s), pos(0, 0, Focus::Filter));
}

#[test]
fn tab_in_the_filter_editor_drops_the_filter_and_moves_tabs() {
    let mut s = long(30);
    press_checked(&mut s, "/2<Tab>");
    assert_eq!(at(&s), pos(1, 0, Focus::Options));
    assert_eq!(view_of(&s)["filter"], Value::Null);
    let mut s = long(30);
    press_checked(&mut s, "/2<S-Tab>");
    // The review tab of this two-question flow.
    assert_eq!(
        at(&s),
        At {
            tab: 2,
            row: 0,
            focus: Focus::Review,
            action: 0
        }
    );
}

#[test]
fn the_filter_text_is_edited_like_an_editor_and_reopens_where_it_was() {
    let mut s = long(30);
    press_checked(&mut s, "/12<Left>3");
    assert_eq!(view_of(&s)["filter"]["text"], json!("132"));
    assert_eq!(view_of(&s)["filter"]["matches"], json!(0));
    press_checked(&mut s, "<BS>");
    assert_eq!(view_of(&s)["filter"]["text"], json!("12"));
    assert_eq!(at(&s), pos(0, 11, Focus::Filter));
    press_checked(&mut s, "<C-u>");
    assert_eq!(view_of(&s)["filter"]["text"], json!("2"));
    press_checked(&mut s, "<CR>/");
    let filter = view_of(&s)["filter"].clone();
    assert_eq!(filter["editing"], json!(true));
    assert_eq!(filter["cursor"]["byte"], json!(1));
    // Enter on an empty text drops the filter.
    press_checked(&mut s, "<BS><CR>");
    assert_eq!(view_of(&s)["filter"], Value::Null);
    assert_eq!(at(&s).focus, Focus::Options);
}

#[test]
fn pasting_into_the_filter_makes_one_line_and_keys_of_other_contexts_are_typed() {
    let mut s = long(30);
    press_checked(&mut s, "/");
    paste(&mut s, "option\r\n1");
    assert_eq!(view_of(&s)["filter"]["text"], json!("option 1"));
    // `n`, `N`, space and digits are text here; a new line is not.
    press_checked(&mut s, "<BS><BS>nN <S-CR>");
    assert_eq!(view_of(&s)["filter"]["text"], json!("optionnN "));
}

#[test]
fn the_filter_text_is_bounded_by_the_text_limit() {
    let mut s = long(30);
    s.flow_mut().expect("a flow").set_text_limit(3);
    press_checked(&mut s, "/abc");
    let before = s.clone();
    assert_eq!(
        s.press(askd::core::char_key('d')),
        Err(FlowError::TextLimit {
            would_hold: 4,
            limit: 3
        })
    );
    assert_eq!(s, before);
}

#[test]
fn on_a_multi_question_the_filter_keeps_selections_made_through_it() {
    let mut s = open(&long_payload(20, "multi"));
    press_checked(&mut s, "/even<CR>2<Down><Space>");
    // Rows that match: Option 2, 4, 6, …: the second (Option 4) toggled by its digit, then
    // the next one (Option 6).
    assert_eq!(answer(&s, 0), selected(&[3, 5]));
    press_checked(&mut s, "<Esc>");
    assert_eq!(answer(&s, 0), selected(&[3, 5]));
    assert_eq!(view_of(&s)["question"]["rowCount"], json!(21));
}

#[test]
fn notes_and_the_custom_editor_open_on_filtered_rows_and_the_filter_stays() {
    let mut s = long(30);
    press_checked(&mut s, "/2<CR><Down>n");
    assert_eq!(
        editor(&s),
        ed(EditorTarget::OptionNote { option: 11 }, "", 0)
    );
    type_text(&mut s, "why");
    press_checked(&mut s, "<CR>");
    assert_eq!(at(&s), pos(0, 11, Focus::Options));
    assert_eq!(view_of(&s)["filter"]["text"], json!("2"));
    assert_eq!(view_of(&s)["question"]["rows"][1]["note"], json!("why"));
}

#[test]
fn a_snapshot_keeps_the_filter_open_or_applied() {
    for keys in ["/2<Left>", "/2<CR><Down>", "/zz<CR>"] {
        let mut s = long(30);
        press_checked(&mut s, keys);
        let state = save(&s, &long_payload(30, "single"));
        assert!(state["flow"]["filter"].is_object(), "{keys}");
        assert_eq!(restore(&state).expect("restores"), s, "{keys}");
    }
    let mut s = long(30);
    press_checked(&mut s, "/2");
    let mut state = save(&s, &long_payload(30, "single"));
    assert_eq!(
        state["flow"]["filter"],
        json!({ "question": 0, "text": "2", "cursor": 1, "editing": true })
    );
    state["flow"]["row"] = json!(0);
    assert_eq!(
        restore(&state).expect_err("refused").to_string(),
        "row 0 is filtered out"
    );
    state["flow"]["row"] = json!(1);
    state["flow"]["tab"] = json!(1);
    assert_eq!(
        restore(&state).expect_err("refused").to_string(),
        "the filter belongs to another tab"
    );
    let mut state = save(&open_main(), &crate::common::payload());
    state["flow"]["filter"] = json!({ "question": 0, "text": "", "cursor": 0, "editing": true });
    assert_eq!(
        restore(&state).expect_err("refused").to_string(),
        "\"scope\" has too few options to be filtered"
    );
}

#[test]
fn the_filter_screen_shows_the_text_the_cursor_and_the_count() {
    let mut s = long(30);
    press_checked(&mut s, "/ca");
    let lines = view::build_with_width("s", &s, Some(60))
        .lines
        .expect("lines");
    let filter_line = serde_json::to_value(&lines[5]).expect("serialises");
    assert_eq!(
        filter_line,
        json!([
            { "text": " ", "style": "text" },
            { "text": "/ ", "style": "accent" },
            { "text": "ca", "style": "text" },
            { "text": " ", "style": "cursor" },
            { "text": "   ", "style": "text" },
            { "text": "1 of 30 match", "style": "dim" }
        ])
    );
    press_checked(&mut s, "<CR>");
    let lines = view::build_with_width("s", &s, Some(60))
        .lines
        .expect("lines");
    let filter_line = serde_json::to_value(&lines[5]).expect("serialises");
    assert_eq!(
        filter_line,
        json!([
            { "text": " ", "style": "text" },
            { "text": "/ ", "style": "dim" },
            { "text": "ca   ", "style": "text" },
            { "text": "1 of 30 match", "style": "dim" }
        ])
    );
}

#[test]
fn hints_offer_the_page_keys_and_the_filter_where_they_apply() {
    let hint_actions = |s: &Session| -> Vec<String> {
        view_of(s)["hints"]
            .as_array()
            .expect("hints")
            .iter()
            .map(|h| h["action"].as_str().expect("an action").to_owned())
            .collect()
    };
    let base = [
        "main.up",
        "main.down",
        "main.nextTab",
        "main.prevTab",
        "main.confirm",
        "main.toggle",
        "main.optionNote",
        "main.questionNote",
        "digits",
        "main.cancel",
        "global.dismiss",
    ];
    assert_eq!(hint_actions(&open_main()), base);
    // Ten options and the custom row: more rows than a screen shows.
    let mut s = long(10);
    assert_eq!(
        hint_actions(&s),
        [
            "main.up",
            "main.down",
            "main.pageDown",
            "main.pageUp",
            "main.first",
            "main.last",
            "main.filter",
            "main.nextTab",
            "main.prevTab",
            "main.confirm",
            "main.toggle",
            "main.optionNote",
            "main.questionNote",
            "digits",
            "main.cancel",
            "global.dismiss",
        ]
    );
    // Filtered down to a few rows, the page keys go; the filter key stays.
    press_checked(&mut s, "/option 1<CR>");
    let mut filtered: Vec<&str> = base.to_vec();
    filtered.insert(2, "main.filter");
    assert_eq!(hint_actions(&s), filtered);
    press_checked(&mut s, "/");
    assert_eq!(
        hint_actions(&s),
        [
            "filter.up",
            "filter.down",
            "filter.accept",
            "filter.clear",
            "global.dismiss"
        ]
    );
    // The digits hint counts the rows that match.
    press_checked(&mut s, "<CR>");
    let digits = view_of(&s)["hints"]
        .as_array()
        .expect("hints")
        .iter()
        .find(|h| h["action"] == json!("digits"))
        .expect("digits")["keys"]
        .clone();
    assert_eq!(digits, json!(["1", "2", "3"]));
}

// Progress --------------------------------------------------------------------------------------

#[test]
fn progress_counts_the_questions_answered() {
    let steps: [(&str, Step, Value); 4] = [
        ("opened", |_| {}, json!({ "answered": 0, "total": 3 })),
        (
            "one",
            |s| press(s, "1"),
            json!({ "answered": 1, "total": 3 }),
        ),
        (
            "a note is not an answer",
            |s| press(s, "1N"),
            json!({ "answered": 1, "total": 3 }),
        ),
        (
            "all",
            |s| press(s, "1<Space><Tab>1"),
            json!({ "answered": 3, "total": 3 }),
        ),
    ];
    for (name, step, expected) in steps {
        let mut s = open_main();
        step(&mut s);
        assert_eq!(view_of(&s)["progress"], expected, "{name}");
    }
    let invalid = open(&json!({ "questions": [] }));
    assert_eq!(
        view_of(&invalid)["progress"],
        json!({ "answered": 0, "total": 0 })
    );
    let mut done = open_main();
    press(&mut done, "1<Esc>");
    assert_eq!(
        view_of(&done)["progress"],
        json!({ "answered": 1, "total": 3 })
    );
}
