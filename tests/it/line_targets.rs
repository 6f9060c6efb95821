//! The view's `lineTargets`: which part of which rendered line a click activates, exactly, on
//! screens of each kind; and, on any screen, that every target it lists is one `activate` takes.

use askd::core::{EditorKind, Key, Target};
use askd::session::{OpenOptions, Session};
use askd::view;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{Value, json};

/// The view of `session` at `width`, as JSON.
fn view_at(session: &Session, width: usize) -> Value {
    serde_json::to_value(view::build_with_width("p", session, Some(width)))
        .expect("the view serialises")
}

/// The text of line `n` of `view`, without its trailing spaces.
fn line_text(view: &Value, n: usize) -> String {
    let spans = view["lines"][n].as_array().expect("the line");
    let text: String = spans.iter().map(|s| s["text"].as_str().unwrap()).collect();
    text.trim_end().to_owned()
}

/// Each line target of the view: `(line, start, end, target)`, with the line's text.
fn targets(session: &Session, width: usize) -> Vec<(usize, usize, usize, Value, String)> {
    let view = view_at(session, width);
    let lines: Vec<String> = view["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|line| {
            line.as_array()
                .expect("spans")
                .iter()
                .map(|span| span["text"].as_str().expect("text"))
                .collect::<String>()
        })
        .collect();
    view["lineTargets"]
        .as_array()
        .expect("lineTargets with lines")
        .iter()
        .map(|t| {
            let line = t["line"].as_u64().unwrap() as usize;
            (
                line,
                t["start"].as_u64().unwrap() as usize,
                t["end"].as_u64().unwrap() as usize,
                t["target"].clone(),
                lines[line].trim_end().to_owned(),
            )
        })
        .collect()
}

/// The target of `activate` that a line target's `target` spells.
fn target_of(value: &Value) -> Target {
    let object = value.as_object().expect("a target is an object");
    let number = |key: &str| object[key].as_u64().unwrap() as usize;
    if object.contains_key("tab") {
        Target::Tab(number("tab"))
    } else if object.contains_key("row") {
        Target::Row(number("row"))
    } else if object.contains_key("action") {
        Target::Action(number("action"))
    } else if object.contains_key("completion") {
        Target::Completion(number("completion"))
    } else if let Some(open) = object.get("filter") {
        Target::Filter(open.as_bool().unwrap())
    } else if let Some(open) = object.get("help") {
        Target::Help(open.as_bool().unwrap())
    } else {
        let kind: EditorKind = serde_json::from_value(object["editor"].clone()).unwrap();
        let option = object.get("option").map(|o| o.as_str().unwrap().to_owned());
        Target::Editor(kind, option)
    }
}

fn open(payload: Value) -> Session {
    Session::open(&payload, &OpenOptions::default()).expect("the payload opens")
}

fn press(session: &mut Session, keys: &[&str]) {
    for name in keys {
        session
            .press(Key::parse(name).expect("a key name"))
            .expect("the key is taken");
    }
}

fn questions(kinds: &[(&str, usize)]) -> Value {
    let questions: Vec<Value> = kinds
        .iter()
        .enumerate()
        .map(|(i, (kind, n))| {
            let options: Vec<Value> = (0..*n)
                .map(|j| json!({ "value": format!("v{j}"), "label": format!("Item {j}") }))
                .collect();
            json!({ "id": format!("q{i}"), "prompt": format!("Q{i}?"), "header": format!("H{i}"),
                    "type": kind, "options": options })
        })
        .collect();
    json!({ "questions": questions })
}

/// `(line, start, end, target)` of each line target.
fn spans(session: &Session, width: usize) -> Vec<(usize, usize, usize, Value)> {
    targets(session, width)
        .into_iter()
        .map(|(line, start, end, target, _)| (line, start, end, target))
        .collect()
}

/// The text of a line target's line.
fn text_of(session: &Session, width: usize, line: usize) -> String {
    targets(session, width)
        .into_iter()
        .find(|t| t.0 == line)
        .map(|t| t.4)
        .expect("a target on the line")
}

#[test]
fn tabs_and_single_rows() {
    let session = open(questions(&[("single", 2), ("multi", 3)]));
    assert_eq!(
        spans(&session, 60),
        vec![
            (1, 1, 7, json!({ "tab": 0 })),
            (1, 8, 14, json!({ "tab": 1 })),
            (1, 15, 25, json!({ "tab": 2 })),
            (5, 0, 60, json!({ "row": 1 })),
            (6, 0, 60, json!({ "row": 2 })),
            (7, 0, 60, json!({ "row": 3 })),
        ]
    );
    assert_eq!(text_of(&session, 60, 1), " [□ Q1]  □ Q2   ✓ Submit");
    assert_eq!(text_of(&session, 60, 7), "   3. ○ Type your own");
}

#[test]
fn multi_rows_and_the_custom_row() {
    let mut session = open(questions(&[("single", 2), ("multi", 3)]));
    press(&mut session, &["tab"]);
    assert_eq!(
        spans(&session, 60),
        vec![
            (1, 1, 7, json!({ "tab": 0 })),
            (1, 8, 14, json!({ "tab": 1 })),
            (1, 15, 25, json!({ "tab": 2 })),
            (5, 0, 60, json!({ "row": 1 })),
            (6, 0, 60, json!({ "row": 2 })),
            (7, 0, 60, json!({ "row": 3 })),
            (8, 0, 60, json!({ "row": 4 })),
        ]
    );
    assert_eq!(text_of(&session, 60, 8), "   4. [ ] Type your own");
    // The custom row's editor open and empty: its row and the others stay, its box has none.
    let mut session = open(questions(&[("single", 2)]));
    activate(&mut session, &json!({ "row": 3 }));
    let view = view_at(&session, 60);
    assert_eq!(view["focus"], json!("input"));
    let listed = spans(&session, 60);
    assert_eq!(
        listed,
        vec![
            (1, 1, 7, json!({ "tab": 0 })),
            (1, 8, 18, json!({ "tab": 1 })),
            (5, 0, 60, json!({ "row": 1 })),
            (6, 0, 60, json!({ "row": 2 })),
            (7, 0, 60, json!({ "row": 3 })),
        ]
    );
    // With text in the editor, nothing but the editor's own keys reach anything.
    session.flow_mut().unwrap().insert("x").unwrap();
    assert_eq!(spans(&session, 60), vec![]);
}

#[test]
fn review_questions_and_actions() {
    let mut session = open(questions(&[("single", 2), ("multi", 3)]));
    press(&mut session, &["tab", "tab"]);
    assert_eq!(
        spans(&session, 60),
        vec![
            (1, 1, 7, json!({ "tab": 0 })),
            (1, 8, 14, json!({ "tab": 1 })),
            (1, 15, 25, json!({ "tab": 2 })),
            (5, 0, 60, json!({ "tab": 0 })),
            (6, 0, 60, json!({ "tab": 1 })),
            (8, 0, 60, json!({ "action": 0 })),
            (9, 0, 60, json!({ "action": 1 })),
            (10, 0, 60, json!({ "action": 2 })),
        ]
    );
    assert_eq!(text_of(&session, 60, 6), " Q2 → unanswered");
    assert_eq!(text_of(&session, 60, 9), "   2. Elaborate");
    // Submit from its line ends the flow, and a done flow lists nothing.
    activate(&mut session, &json!({ "action": 0 }));
    assert_eq!(spans(&session, 60), vec![]);
}

#[test]
fn a_window_of_a_long_list_leaves_its_more_lines_out() {
    let mut session = open(questions(&[("single", 15)]));
    press(&mut session, &["down"; 11]);
    let listed = spans(&session, 60);
    assert_eq!(
        &listed[..2],
        &[
            (1, 1, 7, json!({ "tab": 0 })),
            (1, 8, 18, json!({ "tab": 1 }))
        ]
    );
    let rows: Vec<(usize, usize, usize, Value)> = (7..=16)
        .map(|row| (row - 1, 0, 60, json!({ "row": row })))
        .collect();
    assert_eq!(&listed[2..], &rows[..]);
    assert_eq!(text_of(&session, 60, 6), "   7. ○ Item 6");
    assert_eq!(text_of(&session, 60, 11), " ❯    ○ Item 11");
    // Line 5 is `↑ 6 more`: no target.
    assert_eq!(line_text(&view_at(&session, 60), 5), "   ↑ 6 more");
    // At the top, `↓ N more` under the window has none either.
    press(&mut session, &["home"]);
    let listed = spans(&session, 60);
    let rows: Vec<(usize, usize, usize, Value)> = (1..=10)
        .map(|row| (row + 4, 0, 60, json!({ "row": row })))
        .collect();
    assert_eq!(&listed[2..], &rows[..]);
    assert_eq!(line_text(&view_at(&session, 60), 15), "   ↓ 6 more");
}

#[test]
fn a_wrapped_description_belongs_to_its_row() {
    let session = open(
        json!({"questions": [{"id": "a", "prompt": "Pick?", "options": [
        {"value": "x", "label": "First",
         "description": "a description long enough to wrap onto a second line at this width"},
        {"value": "y", "label": "Second"}]}]}),
    );
    assert_eq!(
        spans(&session, 40),
        vec![
            (1, 1, 7, json!({ "tab": 0 })),
            (1, 8, 18, json!({ "tab": 1 })),
            (5, 0, 40, json!({ "row": 1 })),
            (6, 0, 40, json!({ "row": 1 })),
            (7, 0, 40, json!({ "row": 1 })),
            (8, 0, 40, json!({ "row": 1 })),
            (9, 0, 40, json!({ "row": 2 })),
            (10, 0, 40, json!({ "row": 3 })),
        ]
    );
    assert_eq!(text_of(&session, 40, 8), "        width");
}

#[test]
fn tabs_wrapped_and_wide_take_the_columns_drawn() {
    let session = open(json!({"questions": [
        {"id": "a", "label": "字幕", "prompt": "A?", "options": [{"value": "x", "label": "X"}]},
        {"id": "b", "label": "Second", "prompt": "B?", "options": [{"value": "x", "label": "X"}]},
        {"id": "c", "label": "Third", "prompt": "C?", "options": [{"value": "x", "label": "X"}]}]}));
    let listed: Vec<_> = spans(&session, 24).into_iter().take(4).collect();
    assert_eq!(
        listed,
        vec![
            (1, 1, 9, json!({ "tab": 0 })),
            (1, 10, 20, json!({ "tab": 1 })),
            (2, 1, 10, json!({ "tab": 2 })),
            (2, 11, 21, json!({ "tab": 3 })),
        ]
    );
    assert_eq!(text_of(&session, 24, 1), " [□ 字幕]  □ Second");
    assert_eq!(text_of(&session, 24, 2), "  □ Third   ✓ Submit");
}

/// Activates `target` (as a line target spells it) on `session`.
fn activate(session: &mut Session, target: &Value) {
    let target = target_of(target);
    session
        .flow_mut()
        .and_then(|f| f.activate(&target))
        .unwrap_or_else(|e| panic!("{target:?}: {e}"));
}

fn arb_session() -> impl Strategy<Value = Session> {
    let question = (
        prop::sample::select(vec!["single", "multi", "preview"]),
        prop_oneof![3 => 1..5usize, 1 => 10..14usize],
    );
    prop::collection::vec(question, 1..4).prop_map(|kinds| {
        let mut payload = questions(&kinds);
        // Descriptions that wrap at narrow widths, on every other option.
        for q in payload["questions"].as_array_mut().unwrap() {
            for (i, o) in q["options"].as_array_mut().unwrap().iter_mut().enumerate() {
                if i % 2 == 0 {
                    o["description"] = json!("an option described at some length, to wrap");
                }
            }
        }
        open(payload)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Wherever keys have brought a flow and at any width, every line target is on a line of
    /// the screen, inside its width, and `activate` takes it.
    #[test]
    fn every_line_target_is_taken_by_activate(
        session in arb_session(),
        keys in prop::collection::vec(prop::sample::select(vec![
            "down", "up", "tab", "shift+tab", "space", "enter", "n", "N", "/", "x", "esc",
            "pagedown", "end", "3", "?",
        ]), 0..20),
        width in prop::sample::select(vec![20usize, 33, 60, 100, 140]),
    ) {
        let mut session = session;
        for name in keys {
            let _ = session.press(Key::parse(name).expect("a key name"));
        }
        let view = view_at(&session, width);
        let count = view["lines"].as_array().map_or(0, Vec::len);
        for (line, start, end, target) in spans(&session, width) {
            prop_assert!(line < count, "line {} of {}", line, count);
            prop_assert!(start < end && end <= width, "{}..{} at {}", start, end, width);
            let mut clicked = session.clone();
            let target = target_of(&target);
            clicked
                .flow_mut()
                .and_then(|f| f.activate(&target))
                .map_err(|e| TestCaseError::fail(format!("{target:?} on line {line}: {e}")))?;
        }
    }
}
