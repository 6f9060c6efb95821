//! Rendered screens: snapshots of every kind of screen at several widths, exact layout
//! properties (widths, graphemes, the cursor), and scripted flows (`play`, `demo`).

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

use askd::cli::play::{self, Format, PlayError};
use askd::core::Keymap;
use askd::core::{Answer, CustomRow, FlowSpec, Intent, OptionItem, Question, QuestionType};
use askd::core::{KeyError, parse_sequence};
use askd::dialect::DialectId;
use askd::session::{OpenOptions, Session};
use askd::view;
use askd::view::{Line, Span, Style};

// ---------------------------------------------------------------------------------------------
// Fixtures

fn open(payload: Value) -> Session {
    Session::open(&payload, &OpenOptions::default()).expect("payload opens")
}

fn press(session: &mut Session, keys: &str) {
    for key in parse_sequence(keys).expect("valid keys") {
        session.press(key).expect("flow is open");
    }
}

fn lines(session: &Session, width: usize) -> Vec<Line> {
    view::build_with_width("s", session, Some(width))
        .lines
        .expect("a width gives lines")
}

fn text(session: &Session, width: usize) -> String {
    view::plain(&lines(session, width))
}

fn snap(name: &str, session: &Session, width: usize) {
    let screen = text(session, width);
    insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("{name}_{width}"), screen);
    });
}

fn snap_spans(name: &str, session: &Session, width: usize) {
    let spans = lines(session, width);
    insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_json_snapshot!(format!("{name}_{width}_spans"), spans);
    });
}

fn single_payload() -> Value {
    json!({
        "title": "Release plan",
        "questions": [
            {
                "id": "scope",
                "label": "Scope",
                "prompt": "How much should the next release cover?",
                "options": [
                    { "value": "patch", "label": "Patch only (Recommended)", "description": "Bug fixes only; no new flags, no new behaviour, nothing renamed" },
                    { "value": "minor", "label": "Minor", "description": "The new play and demo commands" },
                    { "value": "major", "label": "Major release with the protocol methods renamed" }
                ]
            },
            {
                "id": "checks",
                "label": "Checks",
                "type": "multi",
                "prompt": "Which checks must pass before tagging?",
                "options": [
                    { "value": "unit", "label": "Unit tests" },
                    { "value": "lint", "label": "Clippy with warnings denied", "description": "cargo clippy --all-targets -- -D warnings" },
                    { "value": "screens", "label": "Screen snapshots" }
                ]
            },
            {
                "id": "notes",
                "label": "Notes",
                "type": "preview",
                "prompt": "Which layout for the release notes?",
                "options": [
                    { "value": "list", "label": "Bullet list", "preview": "## 0.2.0\n- play: scripted flows\n- demo: the example flow\n- rendered screens at any width, wrapped with hanging indents" },
                    { "value": "table", "label": "Table", "preview": "| change | kind    |\n|--------|---------|\n| play   | feature |\n| demo   | feature |" }
                ]
            }
        ]
    })
}

/// The single question with its first option selected (Space does not advance), second active.
fn single() -> Session {
    let mut s = open(single_payload());
    press(&mut s, "<Space><Down>");
    s
}

/// The multi question with two options toggled, the third active.
fn multi() -> Session {
    let mut s = open(single_payload());
    press(&mut s, "<Tab>1<Down><Down>3");
    s
}

/// The preview question with its first option (a preview with a long line) active.
fn preview() -> Session {
    let mut s = open(single_payload());
    press(&mut s, "<Tab><Tab>");
    s
}

/// The custom editor of the single question, holding text, the cursor before `parser`.
fn custom_editor() -> Session {
    let mut s = open(single_payload());
    press(&mut s, "4Fuzz the key parser<M-b>");
    s
}

/// The question-note editor, holding text.
fn question_note_editor() -> Session {
    let mut s = open(single_payload());
    press(&mut s, "NWhich release is next?");
    s
}

/// The option-note editor of the second option, still empty (placeholder).
fn option_note_editor() -> Session {
    let mut s = open(single_payload());
    press(&mut s, "<Down>n");
    s
}

/// Saved notes and a saved custom answer, back in options focus.
fn saved_notes() -> Session {
    let mut s = open(single_payload());
    press(
        &mut s,
        "<Down>nOnly if the docs are ready<CR>NAsk the release manager<CR>4Skip the release<Esc><Up><Up>",
    );
    s
}

fn review_payload() -> Value {
    json!({
        "title": "Release plan",
        "questions": [
            {
                "id": "scope",
                "label": "Scope",
                "prompt": "How much should the next release cover?",
                "options": [
                    { "value": "patch", "label": "Patch only (Recommended)" },
                    { "value": "minor", "label": "Minor" }
                ]
            },
            {
                "id": "checks",
                "label": "Checks",
                "type": "multi",
                "prompt": "Which checks must pass before tagging?",
                "options": [
                    { "value": "unit", "label": "Unit tests" },
                    { "value": "lint", "label": "Clippy" }
                ]
            },
            {
                "id": "owner",
                "label": "Owner",
                "prompt": "Who tags the release?",
                "options": [{ "value": "me", "label": "Me" }]
            },
            {
                "id": "date",
                "label": "Date",
                "prompt": "When?",
                "options": [{ "value": "now", "label": "Now" }]
            }
        ]
    })
}

/// The review tab with notes everywhere: on a selected option, on an unselected one, a
/// question note on an answered and on an unanswered question, and a custom answer.
fn review() -> Session {
    let mut s = open(review_payload());
    press(
        &mut s,
        "nSmallest change that ships<CR><Down>nOnly with docs<CR>NDepends on the docs<CR><Up><CR>\
         <Space><Down><Space><CR>\
         NIs this needed?<CR><Tab>\
         2Tomorrow<CR>",
    );
    s
}

fn long_list() -> Session {
    let options: Vec<Value> = (1..=15)
        .map(|i| json!({ "value": format!("v{i}"), "label": format!("Option number {i}") }))
        .collect();
    let mut s = open(json!({
        "questions": [{ "id": "pick", "prompt": "Pick one of many", "options": options }]
    }));
    press(&mut s, &"<Down>".repeat(9));
    s
}

fn cjk() -> Session {
    let mut s = open(json!({
        "title": "배포 계획",
        "questions": [
            {
                "id": "scope",
                "label": "범위",
                "prompt": "다음 릴리스에는 무엇을 포함할까요? 범위를 골라 주세요.",
                "options": [
                    { "value": "patch", "label": "버그 수정만（推荐）", "description": "새 플래그나 동작 변경 없이 버그만 고칩니다" },
                    { "value": "minor", "label": "新しいコマンドを追加する", "description": "play と demo のコマンドとその文書" },
                    { "value": "major", "label": "协议方法全部重新命名" }
                ]
            },
            {
                "id": "who",
                "label": "담당",
                "prompt": "누가 태그를 붙이나요?",
                "options": [{ "value": "me", "label": "나" }]
            }
        ]
    }));
    press(
        &mut s,
        "<Down>n문서가 준비되면<CR><Down><Down>한국어로 직접 입력",
    );
    s
}

fn plan_review() -> Session {
    let option = |label: &str, description: Option<&str>| OptionItem {
        value: label.to_owned(),
        label: label.to_owned(),
        description: description.map(str::to_owned),
        preview: None,
    };
    let spec = FlowSpec {
        rules: askd::dialect::dsh::RULES,
        requester: None,
        source: None,
        behaviour: Default::default(),
        title: None,
        questions: vec![Question {
            id: "plan".to_owned(),
            label: "Plan".to_owned(),
            prompt: "Approve this plan?".to_owned(),
            kind: QuestionType::Single,
            asked: None,
            required: false,
            options: vec![
                option("Approve", Some("Start with step 1")),
                option("Revise", None),
            ],
            detail: Some(
                "1. Add `askd play` and `askd demo`.\n2. Render every screen at any width, \
                 wrapping long lines with hanging indents.\n3. Snapshot each screen."
                    .to_owned(),
            ),
            intent: Some(Intent {
                kind: "plan-review".to_owned(),
                approve: Some("Approve".to_owned()),
            }),
            custom_row: CustomRow::Standard,
            secret: false,
            initial: Answer::default(),
        }],
    };
    Session::from_spec(DialectId::DSH, Arc::new(spec), &OpenOptions::default())
}

fn done() -> Session {
    let mut s = open(single_payload());
    press(&mut s, "1<Space><CR>1<CR>");
    s
}

/// `payload` opened with the behaviour options `behaviour` (as `open` takes them).
fn open_as(payload: Value, behaviour: Value) -> Session {
    let options: askd::session::BehaviourOptions =
        serde_json::from_value(behaviour).expect("valid options");
    let options = OpenOptions {
        behaviour: options.behaviour(),
        ..OpenOptions::default()
    };
    Session::open(&payload, &options).expect("payload opens")
}

/// The help overlay of the `pi-0.9` profile, over the single question.
fn help_overlay() -> Session {
    let mut s = open_as(single_payload(), json!({ "profile": "pi-0.9" }));
    press(&mut s, "?");
    s
}

/// The review tab with the dirty-dismiss notice and the review-shortcut notice of an armed
/// digit.
fn review_notices() -> Session {
    let mut s = open_as(
        review_payload(),
        json!({ "confirmDismissWhenDirty": true, "doublePressReviewShortcuts": true }),
    );
    press(&mut s, "1<S-Tab><S-Tab>3<Esc>3");
    s
}

/// A multi question presented so by the question-type toggle, holding custom text set aside.
fn type_toggled() -> Session {
    let mut s = open_as(single_payload(), json!({ "profile": "pi-0.9" }));
    press(&mut s, "t1<Down><Down><Down>mine<CR><Space>");
    s
}

/// Every kind of screen, by name.
fn screens() -> Vec<(&'static str, Session)> {
    let mut elaborate = review();
    press(&mut elaborate, "<Down>");
    vec![
        ("single", single()),
        ("multi", multi()),
        ("preview", preview()),
        ("custom_editor", custom_editor()),
        ("question_note_editor", question_note_editor()),
        ("option_note_editor", option_note_editor()),
        ("saved_notes", saved_notes()),
        ("review_submit", review()),
        ("review_elaborate", elaborate),
        ("long_list", long_list()),
        ("cjk", cjk()),
        ("plan_review", plan_review()),
        ("done", done()),
        ("help_overlay", help_overlay()),
        ("review_notices", review_notices()),
        ("type_toggled", type_toggled()),
    ]
}

// ---------------------------------------------------------------------------------------------
// Snapshots

#[test]
fn snapshots_at_40_and_80() {
    for (name, session) in screens() {
        for width in [40, 80] {
            snap(name, &session, width);
        }
    }
}

#[test]
fn preview_side_by_side_at_100() {
    snap("preview", &preview(), 100);
}

#[test]
fn cjk_at_24() {
    snap("cjk", &cjk(), 24);
}

#[test]
fn span_snapshots() {
    snap_spans("single", &single(), 40);
    snap_spans("custom_editor", &custom_editor(), 40);
    snap_spans("option_note_editor", &option_note_editor(), 40);
    snap_spans("review_notices", &review_notices(), 40);
    snap_spans("type_toggled", &type_toggled(), 40);
}

// ---------------------------------------------------------------------------------------------
// Exact properties

#[test]
fn no_line_is_wider_than_the_width() {
    for (name, session) in screens() {
        for width in 20..=120 {
            for (i, line) in lines(&session, width).iter().enumerate() {
                let w = line.width();
                assert!(
                    w <= width,
                    "{name} at {width}: line {i} is {w} wide: {line:?}"
                );
            }
        }
    }
}

#[test]
fn spans_hold_text_without_control_characters() {
    for (name, session) in screens() {
        for line in lines(&session, 33) {
            for span in line.spans() {
                assert!(!span.text.is_empty(), "{name}: empty span");
                assert!(
                    !span.text.chars().any(char::is_control),
                    "{name}: control character in {:?}",
                    span.text
                );
            }
        }
    }
}

#[test]
fn graphemes_are_never_split() {
    let word = "👨‍👩‍👧🇰🇷e\u{301}\u{1112}\u{1161}\u{11AB}क्षि".repeat(8);
    let mut session = open(json!({
        "title": word,
        "questions": [{
            "id": "q",
            "label": word,
            "prompt": word,
            "options": [{ "value": "a", "label": word, "description": word }]
        }]
    }));
    press(&mut session, "n");
    session
        .flow_mut()
        .expect("open flow")
        .insert(&word)
        .expect("editor is open");
    let mut allowed: HashSet<&str> = word.graphemes(true).collect();
    let ui = "─│╭╮╰╯❯●○■□✓✎→↑↓←·…[]";
    allowed.extend(ui.graphemes(true));
    for width in 20..=70 {
        for line in lines(&session, width) {
            let joined = line.text();
            for g in joined.graphemes(true) {
                assert!(
                    g.is_ascii() || allowed.contains(g),
                    "at {width}: split grapheme {g:?} in {joined:?}"
                );
            }
            for span in line.spans() {
                let first = span.text.graphemes(true).next().unwrap_or_default();
                assert!(
                    first.is_ascii() || allowed.contains(first),
                    "at {width}: span starts inside a grapheme: {:?}",
                    span.text
                );
            }
        }
    }
}

#[test]
fn long_words_break_and_lines_wrap_under_their_text() {
    let s = open(json!({
        "questions": [{
            "id": "q",
            "prompt": "Pick",
            "options": [{
                "value": "a",
                "label": "abcdefghijklmnopqrstuvwxyz0123456789",
                "description": "tab\there, escape\u{1b} and words that wrap"
            }]
        }]
    }));
    let plain = text(&s, 20);
    let expected = " ❯ 1. ○ abcdefghijkl\n        mnopqrstuvwx\n        yz0123456789\n        tab    here,\n        escape\u{fffd} and\n        words that\n        wrap\n";
    assert!(plain.contains(expected), "{plain}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn any_text_fits_any_width(
        label in "x[a-z 한字é\u{301}👍\t\u{7}-]{0,60}",
        description in "x[a-z 한字é\u{301}👍\t\u{7}-]{0,120}",
        draft in "[a-z 한字é\u{301}👍-]{0,80}",
        width in 20usize..130,
    ) {
        let mut s = open(json!({
            "title": label,
            "questions": [{
                "id": "q",
                "label": label,
                "prompt": description,
                "options": [
                    { "value": "a", "label": label, "description": description, "preview": description },
                    { "value": "b", "label": description, "preview": label }
                ]
            }]
        }));
        press(&mut s, "n");
        s.flow_mut().expect("open").insert(&draft).expect("editor is open");
        for line in lines(&s, width) {
            let w: usize = line.spans().map(|s| s.text.width()).sum();
            proptest::prop_assert!(w <= width, "{} > {}: {:?}", w, width, line);
            for span in line.spans() {
                proptest::prop_assert!(!span.text.chars().any(char::is_control));
            }
        }
    }
}

/// The column where the cursor span starts, and its text, on the only line that has one.
fn cursor(lines: &[Line]) -> (usize, String) {
    let found: Vec<(usize, String)> = lines
        .iter()
        .filter_map(|line| {
            let spans: Vec<Span> = line.spans().collect();
            let at = spans.iter().position(|s| s.style == Style::Cursor)?;
            let column = spans[..at].iter().map(|s| s.text.width()).sum();
            Some((column, spans[at].text.to_owned()))
        })
        .collect();
    assert_eq!(found.len(), 1, "exactly one cursor: {found:?}");
    found.into_iter().next().unwrap_or_default()
}

#[test]
fn cursor_sits_at_the_end_of_the_text() {
    let mut s = open(single_payload());
    press(&mut s, "4hello");
    for width in [20, 40, 80] {
        // Box at column 3, then `│ `, then the five letters.
        assert_eq!(
            cursor(&lines(&s, width)),
            (10, " ".to_owned()),
            "at {width}"
        );
    }
}

#[test]
fn cursor_sits_on_the_grapheme_after_it_counting_wide_columns() {
    let mut s = open(single_payload());
    press(&mut s, "4한국어<Left>");
    assert_eq!(cursor(&lines(&s, 40)), (9, "어".to_owned()));
    let mut s = open(single_payload());
    press(&mut s, "4e\u{301}x<Home>");
    assert_eq!(cursor(&lines(&s, 40)), (5, "e\u{301}".to_owned()));
}

#[test]
fn cursor_follows_a_wrapped_line() {
    let mut s = open(single_payload());
    // Inner width at 20 columns: 20 - 3 (indent) - 1 (margin) - 4 (borders) = 12.
    press(&mut s, "4aaaa bbbb cccc dd");
    let screen = lines(&s, 20);
    assert_eq!(cursor(&screen), (5 + 7, " ".to_owned()));
    let plain = view::plain(&screen);
    assert!(
        plain.contains("   │ aaaa bbbb    │\n   │ cccc dd      │\n"),
        "{plain}"
    );
}

#[test]
fn empty_editors_show_their_placeholder_under_the_cursor() {
    let mut s = open(single_payload());
    press(&mut s, "4");
    let screen = lines(&s, 40);
    assert_eq!(cursor(&screen), (5, "T".to_owned()));
    let line = screen
        .iter()
        .find(|l| l.spans().any(|s| s.style == Style::Cursor))
        .expect("cursor line");
    assert!(line.spans().any(|span| span
        == Span {
            text: "ype answer...",
            style: Style::Muted
        }));
    let screen = lines(&option_note_editor(), 40);
    assert!(view::plain(&screen).contains("│ Add a note... "));
}

#[test]
fn previews_go_beside_the_rows_from_90_columns() {
    let s = preview();
    let row = |width: usize| -> String {
        view::plain(&lines(&s, width))
            .lines()
            .find(|l| l.contains("❯ 1."))
            .expect("active row")
            .to_owned()
    };
    assert!(!row(89).contains("╭─ Preview"), "{}", row(89));
    assert!(row(90).contains("╭─ Preview"), "{}", row(90));
}

#[test]
fn long_lists_show_a_window_with_markers() {
    // Fifteen options and the custom row: sixteen rows.
    let mut s = long_list();
    let plain = text(&s, 40);
    assert!(plain.contains("   ↑ 5 more\n"), "{plain}");
    assert!(plain.contains("   ↓ 1 more\n"), "{plain}");
    assert!(plain.contains(" ❯    ○ Option number 10\n"), "{plain}");
    press(&mut s, &"<Up>".repeat(9));
    let plain = text(&s, 40);
    assert!(!plain.contains("↑ 5"), "{plain}");
    assert!(!plain.contains("   ↑ "), "{plain}");
    assert!(plain.contains("   ↓ 6 more\n"), "{plain}");
    press(&mut s, &"<Down>".repeat(6));
    let plain = text(&s, 40);
    assert!(plain.contains("   ↑ 2 more\n"), "{plain}");
    assert!(plain.contains("   ↓ 4 more\n"), "{plain}");
    let rows = plain
        .lines()
        .filter(|l| l.contains("Option number"))
        .count();
    assert_eq!(rows, 10);
}

#[test]
fn views_carry_the_window_of_rows_the_screen_shows() {
    // Sixteen rows, the tenth active: the screen shows rows 6 to 15.
    let mut s = long_list();
    let q = view::build("s", &s).question.expect("a question");
    assert_eq!(
        (q.row_count, q.rows_above, q.rows_below, q.active_option),
        (16, 5, 1, 9)
    );
    let indices: Vec<usize> = q.rows.iter().map(|r| r.index).collect();
    assert_eq!(indices, (6..=15).collect::<Vec<_>>());
    let active: Vec<usize> = q
        .rows
        .iter()
        .filter(|r| r.active)
        .map(|r| r.index)
        .collect();
    assert_eq!(active, [10]);
    assert_eq!(q.rows[0].value, "v6");
    assert_eq!(q.rows[0].label, "Option number 6");

    // At the end of the list the window holds the custom row.
    press(&mut s, &"<Down>".repeat(5));
    let q = view::build("s", &s).question.expect("a question");
    assert_eq!((q.rows_above, q.rows_below, q.active_option), (6, 0, 14));
    let indices: Vec<usize> = q.rows.iter().map(|r| r.index).collect();
    assert_eq!(indices, (7..=16).collect::<Vec<_>>());
    let last = q.rows.last().expect("rows");
    assert_eq!(
        (last.value.as_str(), last.custom),
        (view::CUSTOM_VALUE, true)
    );

    // The same counts reach clients under their protocol names.
    let json = serde_json::to_value(view::build("s", &s)).expect("a view serialises");
    let q = &json["question"];
    assert_eq!(
        (
            &q["rowCount"],
            &q["rowsAbove"],
            &q["rowsBelow"],
            &q["hasPreviews"]
        ),
        (&json!(16), &json!(6), &json!(0), &json!(false))
    );
    assert_eq!(q["rows"].as_array().map(Vec::len), Some(10));
}

#[test]
fn views_asked_for_all_rows_carry_every_row_and_the_same_screen() {
    let s = long_list();
    let all = view::build_with(
        "s",
        &s,
        view::ViewOptions {
            width: Some(40),
            all_rows: true,
        },
    );
    let q = all.question.as_ref().expect("a question");
    let indices: Vec<usize> = q.rows.iter().map(|r| r.index).collect();
    assert_eq!(indices, (1..=16).collect::<Vec<_>>());
    assert_eq!((q.row_count, q.rows_above, q.rows_below), (16, 5, 1));
    assert_eq!(all.lines, view::build_with_width("s", &s, Some(40)).lines);
}

#[test]
fn short_lists_carry_all_rows() {
    let s = open(single_payload());
    let q = view::build("s", &s).question.expect("a question");
    let indices: Vec<usize> = q.rows.iter().map(|r| r.index).collect();
    assert_eq!(indices, [1, 2, 3, 4]);
    assert_eq!((q.row_count, q.rows_above, q.rows_below), (4, 0, 0));
}

#[test]
fn cached_lines_serialise_exactly_as_fresh_ones() {
    // Two flows share one cache, their keys interleaved, at two widths.
    let mut demo = open(serde_json::from_str(askd::dialect::pi::EXAMPLE).expect("demo payload"));
    let mut list = long_list();
    let script = parse_sequence(
        "<Down><Down><Down>mine<CR><S-Tab><Up>nnote<CR><Up><Down><Space><Space>\
         <Down><Down><Down>ab\"c\\<BS><Up><Space>n<Esc>N\"x<Esc><Tab><Space><Down><Tab><Tab><Left>",
    )
    .expect("valid keys");
    let mut cache = askd::view::ScreenCache::default();
    let mut served = 0;
    let mut seen = [false, false];
    for (i, key) in script.into_iter().enumerate() {
        for (session, width) in [(&mut demo, 80), (&mut list, 33 + i)] {
            let _ = session.press(key);
            let options = view::ViewOptions {
                width: Some(width),
                all_rows: false,
            };
            let fresh = serde_json::to_string(&view::build_with("s", session, options))
                .expect("a view serialises");
            let view = cache.build("s", session, options);
            let cached = serde_json::to_string(&cache.json(&view)).expect("a view serialises");
            assert_eq!(cached, fresh, "key {i} at {width}");
            seen[0] |= cached.contains("\"text\":\"→ \",\"style\":\"success\"},{\"text\":\"mine\"");
            seen[1] |= cached.contains("\"note\":\"note\"");
            served += 1;
        }
    }
    assert_eq!(served, 86);
    // The script reaches rows with a saved custom answer and a saved note.
    assert_eq!(seen, [true, true]);
}

#[test]
fn the_footer_follows_the_keymap() {
    let keymap = Keymap::default()
        .with_overrides(&json!({ "main.toggle": ["x"], "main.down": ["j", "down"] }))
        .expect("valid overrides");
    let options = OpenOptions {
        keymap: Arc::new(keymap),
        ..OpenOptions::default()
    };
    let s = Session::open(&single_payload(), &options).expect("opens");
    let plain = text(&s, 120);
    assert!(plain.contains(" · j/↓ down · "), "{plain}");
    assert!(plain.contains(" · x toggle · "), "{plain}");
    assert!(!plain.contains("space"), "{plain}");
}

#[test]
fn lines_are_omitted_without_a_width() {
    let s = single();
    let plain = serde_json::to_value(view::build("s", &s)).expect("serialises");
    assert!(plain.get("lines").is_none());
    assert_eq!(plain["outcome"], Value::Null);
    let wide = serde_json::to_value(view::build_with_width("s", &s, Some(30))).expect("json");
    let first = &wide["lines"][0][0];
    assert_eq!(first, &json!({ "text": "─".repeat(30), "style": "border" }));
}

#[test]
fn plan_review_questions_say_so_in_the_view() {
    let v = serde_json::to_value(view::build("s", &plan_review())).expect("serialises");
    assert_eq!(
        v["question"]["planReview"],
        json!({
            "plan": "1. Add `askd play` and `askd demo`.\n2. Render every screen at any width, wrapping long lines with hanging indents.\n3. Snapshot each screen.",
            "approveLabel": "Approve"
        })
    );
    let v = serde_json::to_value(view::build("s", &single())).expect("serialises");
    assert_eq!(v["question"]["planReview"], Value::Null);
}

#[test]
fn the_view_reports_how_the_flow_ended() {
    let v = serde_json::to_value(view::build("s", &done())).expect("serialises");
    assert_eq!(v["outcome"], json!("submit"));
    let invalid = open(json!({ "questions": [] }));
    let v = serde_json::to_value(view::build("s", &invalid)).expect("serialises");
    assert_eq!(v["outcome"], json!("invalid"));
    assert!(text(&invalid, 30).contains("\n ✗ Invalid input\n"));
}

#[test]
fn narrow_widths_render_at_the_minimum() {
    let s = single();
    assert_eq!(lines(&s, 5), lines(&s, view::MIN_WIDTH));
    assert_eq!(lines(&s, 0), lines(&s, view::MIN_WIDTH));
}

// ---------------------------------------------------------------------------------------------
// Scripted flows

const SMALL: &str = r#"{"questions":[{"id":"color","label":"Color","prompt":"Pick a color","options":[{"value":"red","label":"Red"},{"value":"blue","label":"Blue"}]}]}"#;

#[test]
fn play_prints_every_screen_and_the_result() {
    let out = play::play(SMALL, "2<CR>", 40, Format::Text).expect("plays");
    let expected = "\
── open ──
────────────────────────────────────────
 [□ Color]  ✓ Submit

 Pick a color

 ❯ 1. ○ Red
   2. ○ Blue
   3. ○ Type your own

 ↑ up · ↓ down · tab/→ next tab ·
 shift+tab/← previous tab ·
 enter confirm · space toggle ·
 n option note · N question note ·
 1-3 quick select · esc cancel ·
 ctrl+c dismiss
────────────────────────────────────────
── after 2 ──
────────────────────────────────────────
  ■ Color  [✓ Submit]

 Review your answers

 Color → Blue

 ❯ 1. Submit
   2. Elaborate
   3. Cancel

 ↑ up · ↓ down · enter confirm ·
 tab/→ next tab ·
 shift+tab/← previous tab ·
 1-3 run action · esc cancel ·
 ctrl+c dismiss
────────────────────────────────────────
── after enter ──
────────────────────────────────────────
  ■ Color  [✓ Submit]

 ✓ Submitted
────────────────────────────────────────
── result ──
{
  \"content\": [
    {
      \"type\": \"text\",
      \"text\": \"Color: Blue\"
    }
  ],
  \"details\": {
    \"cancelled\": false,
    \"mode\": \"submit\",
    \"questions\": [
      {
        \"id\": \"color\",
        \"label\": \"Color\",
        \"prompt\": \"Pick a color\",
        \"type\": \"single\"
      }
    ],
    \"answers\": {
      \"color\": {
        \"values\": [
          \"blue\"
        ],
        \"labels\": [
          \"Blue\"
        ],
        \"indices\": [
          2
        ]
      }
    }
  }
}
";
    assert_eq!(out, expected);
}

#[test]
fn play_groups_typed_characters_into_one_screen() {
    let run = play::run(SMALL, "3hi<CR>", 40).expect("plays");
    let labels: Vec<&str> = run.frames.iter().map(|f| f.label.as_str()).collect();
    assert_eq!(labels, ["open", "after 3", "typed \"hi\"", "after enter"]);
    assert_eq!(run.result, None);
}

#[test]
fn play_json_prints_one_step_per_line() {
    let out = play::play(SMALL, "1<CR>", 30, Format::Json).expect("plays");
    let steps: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON step per line"))
        .collect();
    assert_eq!(steps.len(), 3);
    assert_eq!(steps[0]["session"], json!("play"));
    assert_eq!(steps[0]["status"], json!("open"));
    assert_eq!(
        steps[0]["view"]["lines"][0][0]["text"],
        json!("─".repeat(30))
    );
    assert!(steps[1].get("result").is_none());
    assert_eq!(steps[2]["status"], json!("done"));
    assert_eq!(
        steps[2]["result"]["content"][0]["text"],
        json!("Color: Red")
    );
    assert_eq!(
        steps[2]["transcript"],
        json!({ "call": "ask_user 1 question(s) (Color)", "result": "✓ Color: Red" })
    );
}

#[test]
fn play_reports_bad_input() {
    assert!(matches!(
        play::play("{", "", 40, Format::Text),
        Err(PlayError::Json(_))
    ));
    assert_eq!(
        play::play(SMALL, "1<Nope>", 40, Format::Text),
        Err(PlayError::Key(KeyError::Unknown("<Nope>".to_owned())))
    );
    assert_eq!(
        play::play(SMALL, "1<CR><CR>", 40, Format::Text),
        Err(PlayError::Completed {
            index: 3,
            key: "enter".to_owned()
        })
    );
    assert_eq!(
        play::play(SMALL, "1<Nope>", 40, Format::Text)
            .unwrap_err()
            .to_string(),
        "bad key script: unknown key \"<Nope>\""
    );
}

#[test]
fn play_runs_dsh_requests() {
    let request = json!({
        "questions": [
            {
                "id": "plan",
                "header": "Plan",
                "question": "Approve this plan?",
                "detail": "1. Add play\n2. Add demo",
                "options": [{ "label": "Revise" }, { "label": "Approve" }],
                "intent": { "kind": "plan-review", "approve": "Approve" }
            },
            { "id": "name", "question": "Release name?" }
        ]
    });
    let run = play::run(&request.to_string(), "<CR>Rocket<CR><CR>", 40).expect("plays");
    let open = &run.frames[0].screen;
    assert!(
        open.contains(" ❯ 1. ○ Approve (approves the plan)\n   2. ○ Revise\n"),
        "{open}"
    );
    assert!(open.contains(" │ 1. Add play"), "{open}");
    assert_eq!(
        run.result,
        Some(json!({ "answer": { "answers": [
            { "id": "plan", "selected": ["Approve"] },
            { "id": "name", "selected": [], "custom": "Rocket" }
        ] } }))
    );
    let bad = json!({ "questions": [{
        "id": "p", "question": "Q?", "options": [{ "label": "A" }],
        "intent": { "kind": "plan-review", "approve": "A" }
    }] });
    let error = play::run(&bad.to_string(), "", 40).expect_err("rejected");
    assert!(
        error
            .to_string()
            .starts_with("cannot open the payload: BAD_INTENT: "),
        "{error}"
    );
}

#[test]
fn demo_submits_its_answers() {
    let run = play::run(askd::dialect::pi::EXAMPLE, play::DEMO_KEYS, 80).expect("plays");
    let result = run.result.expect("the demo finishes");
    assert_eq!(
        result["content"][0]["text"],
        json!(
            "Scope: Minor\nScope / Minor note: Only if the docs are ready\n\
             Checks: Unit tests, Screen snapshots, Fuzz the key parser\nNotes: Table"
        )
    );
    assert_eq!(result["details"]["mode"], json!("submit"));
    assert_eq!(result["details"]["cancelled"], json!(false));
    let last = run.frames.last().expect("frames");
    assert_eq!(last.label, "after enter");
    assert!(last.screen.contains("\n ✓ Submitted\n"), "{}", last.screen);
    let labels: Vec<&str> = run.frames.iter().map(|f| f.label.as_str()).collect();
    assert!(labels.contains(&"typed \"Fuzz the key parser\""));
    assert!(labels.contains(&"typed \"Only if the docs are ready\""));
}

#[test]
fn the_command_plays_and_fails_with_status_2() {
    let exe = env!("CARGO_BIN_EXE_askd");
    let out = std::process::Command::new(exe)
        .args(["demo", "--width", "40"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    assert!(stdout.starts_with("── open ──\n"), "{stdout}");
    assert!(stdout.contains("\n ✓ Submitted\n"), "{stdout}");
    let dir = std::env::temp_dir().join(format!("askd-screens-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("small.json");
    std::fs::write(&file, SMALL).expect("write payload");
    let path = file.to_str().expect("utf-8 path");
    let out = std::process::Command::new(exe)
        .args(["play", path, "--keys", "1<CR>", "--format", "json"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 3);
    let out = std::process::Command::new(exe)
        .args(["play", path, "--keys", "<Bogus>"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "askd: bad key script: unknown key \"<Bogus>\"\n"
    );
    let missing = dir.join("missing.json");
    let out = std::process::Command::new(exe)
        .args(["play", missing.to_str().expect("utf-8 path")])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn play_ends_quietly_when_its_reader_stops_early() {
    use std::io::{Read, Write};
    // Some hundred screens: far more than a pipe holds, so the writer meets the closed pipe.
    let keys = "<Down><Up>".repeat(100);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_askd"))
        .args(["play", "-", "--keys", &keys])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("askd starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(askd::dialect::pi::EXAMPLE.as_bytes())
        .expect("the payload is sent");
    let mut first = [0u8; 11];
    let mut stdout = child.stdout.take().expect("stdout");
    stdout.read_exact(&mut first).expect("output starts");
    assert_eq!(String::from_utf8_lossy(&first), "── open");
    drop(stdout);
    let out = child.wait_with_output().expect("askd ends");
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned()
        ),
        (Some(0), String::new())
    );
}
