//! Pointer actions (behaviour §11): what the view says can be activated agrees with what the
//! core takes; a thing done by keys and the same thing done by activations end in equal
//! sessions; `activate` and `setDraft` through the real binary.

use askd::core::{EditorKind, Focus, Key, Target};
use askd::session::Session;
use askd::view;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{Value, json};

use crate::support::Server;

/// Any target, in range or out of it, naming options of the generated flows or none of them.
pub fn arb_target() -> impl Strategy<Value = Target> {
    let kind = prop::sample::select(vec![
        EditorKind::Custom,
        EditorKind::QuestionNote,
        EditorKind::OptionNote,
    ]);
    let option = prop::option::weighted(
        0.8,
        prop::sample::select(vec!["v0", "v1", "v2", "v11", "A", "B", "a", "X", "nope"]),
    );
    prop_oneof![
        3 => (0..6usize).prop_map(Target::Tab),
        5 => (0..13usize).prop_map(Target::Row),
        2 => (0..4usize).prop_map(Target::Action),
        1 => (0..3usize).prop_map(Target::Completion),
        1 => any::<bool>().prop_map(Target::Filter),
        1 => any::<bool>().prop_map(Target::Help),
        2 => (kind, option).prop_map(|(kind, option)| {
            let option = match kind {
                // Mostly the member that belongs with the kind.
                EditorKind::OptionNote => option.map(str::to_owned),
                _ => None,
            };
            Target::Editor(kind, option)
        }),
    ]
}

/// Whether the view of `session` (every row) offers `target`: its `activatable` allows the
/// kind and the index names something the view shows.
pub fn offered(session: &Session, target: &Target) -> bool {
    let view = serde_json::to_value(view::build_with(
        "p",
        session,
        view::ViewOptions {
            width: None,
            all_rows: true,
        },
    ))
    .expect("the view serialises");
    let marks = &view["activatable"];
    if marks.is_null() {
        return false;
    }
    let allows = |kind: &str| marks[kind] == json!(true);
    let count = |pointer: &str| {
        view.pointer(pointer)
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    };
    match target {
        Target::Tab(tab) => allows("tabs") && *tab < count("/tabs"),
        Target::Row(row) => {
            allows("rows")
                && *row >= 1
                && *row <= view["question"]["rowCount"].as_u64().unwrap_or(0) as usize
        }
        Target::Action(action) => allows("actions") && *action < count("/review/actions"),
        Target::Completion(item) => {
            allows("completion") && *item < count("/editor/completion/items")
        }
        Target::Filter(open) => allows("filter") && (*open || !view["filter"].is_null()),
        Target::Help(open) => allows("help") && *open == view["help"].is_null(),
        Target::Editor(kind, option) => {
            let listed = marks["editors"]
                .as_array()
                .is_some_and(|kinds| kinds.contains(&json!(kind.name())));
            let rows = view["question"]["rows"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            listed
                && match (kind, option) {
                    (EditorKind::OptionNote, Some(value)) => rows
                        .iter()
                        .any(|row| row["custom"] == json!(false) && row["value"] == json!(value)),
                    (EditorKind::OptionNote, None) => false,
                    (_, option) => option.is_none(),
                }
        }
    }
}

/// A thing a person does, by keys or by a pointer.
#[derive(Debug, Clone)]
enum Deed {
    /// A row, by its number (digits reach 1 to 9).
    Row(usize),
    /// The next tab, or the previous.
    NextTab(bool),
    /// A review action, from the first.
    Action(usize),
    /// The question's note editor.
    QuestionNote,
    /// The active row's note editor.
    OptionNote,
    /// The filter opened, or cleared while typed.
    Filter(bool),
    /// The help overlay opened or closed.
    Help,
    /// Text typed into an empty editor.
    Draft(&'static str),
}

fn arb_deed() -> impl Strategy<Value = Deed> {
    prop_oneof![
        5 => (1..10usize).prop_map(Deed::Row),
        3 => any::<bool>().prop_map(Deed::NextTab),
        2 => (0..3usize).prop_map(Deed::Action),
        1 => Just(Deed::QuestionNote),
        1 => Just(Deed::OptionNote),
        1 => any::<bool>().prop_map(Deed::Filter),
        1 => Just(Deed::Help),
        2 => prop::sample::select(vec!["x", "한글 ok", "a\nb", "👍🏽"]).prop_map(Deed::Draft),
    ]
}

fn key(name: &str) -> Key {
    Key::parse(name).expect("a key name")
}

/// The keys and the pointer action that do `deed` on `session`, when both reach it from where
/// the flow stands (`None` otherwise): the keys of the default keymap, with no key sequence
/// waiting.
fn both_ways(session: &Session, deed: &Deed) -> Option<(Vec<Key>, Way)> {
    let flow = session.flow()?;
    if flow.outcome().is_some() || !flow.pending_keys().is_empty() || flow.prompts().help {
        return match deed {
            Deed::Help if flow.prompts().help => {
                Some((vec![key("?")], Way::Target(Target::Help(false))))
            }
            _ => None,
        };
    }
    let focus = flow.focus();
    let tabs = flow.spec().questions.len() + 1;
    match deed {
        Deed::Row(n) if focus == Focus::Options && *n <= flow.rows().len() => {
            Some((vec![key(&n.to_string())], Way::Target(Target::Row(*n))))
        }
        Deed::NextTab(forward) if matches!(focus, Focus::Options | Focus::Review) => {
            let (name, tab) = if *forward {
                ("tab", (flow.tab() + 1) % tabs)
            } else {
                ("shift+tab", (flow.tab() + tabs - 1) % tabs)
            };
            Some((vec![key(name)], Way::Target(Target::Tab(tab))))
        }
        Deed::Action(i) if focus == Focus::Review && *i < flow.review_actions().len() => {
            let mut keys = vec![key("up"); flow.review_actions().len()];
            keys.extend(vec![key("down"); *i]);
            keys.push(key("enter"));
            Some((keys, Way::Target(Target::Action(*i))))
        }
        Deed::QuestionNote if focus == Focus::Options && flow.spec().rules.notes => Some((
            vec![key("N")],
            Way::Target(Target::Editor(EditorKind::QuestionNote, None)),
        )),
        Deed::OptionNote if focus == Focus::Options && flow.spec().rules.option_notes => {
            let question = flow.current_question()?;
            let option = question.options.get(flow.row())?;
            flow.rows().position(flow.row())?;
            Some((
                vec![key("n")],
                Way::Target(Target::Editor(
                    EditorKind::OptionNote,
                    Some(option.value.clone()),
                )),
            ))
        }
        Deed::Filter(true)
            if focus == Focus::Options
                && flow.filter().is_none()
                && flow
                    .current_question()
                    .is_some_and(|q| q.options.len() >= askd::core::FILTER_MIN_OPTIONS) =>
        {
            Some((vec![key("/")], Way::Target(Target::Filter(true))))
        }
        Deed::Filter(false) if focus == Focus::Filter => {
            Some((vec![key("escape")], Way::Target(Target::Filter(false))))
        }
        Deed::Help
            if flow.spec().behaviour.help_overlay
                && matches!(focus, Focus::Options | Focus::Review) =>
        {
            Some((vec![key("?")], Way::Target(Target::Help(true))))
        }
        Deed::Draft(text) if flow.editor().is_some_and(|e| e.text.is_empty()) => {
            Some((Vec::new(), Way::Draft(text)))
        }
        _ => None,
    }
}

/// How a pointer client does a deed.
enum Way {
    Target(Target),
    /// `setDraft` beside the keys' `insert`.
    Draft(&'static str),
}

/// A valid pi payload of a single, a multi, a long and a preview question.
fn payload(kinds: &[(&str, usize)]) -> Value {
    let questions: Vec<Value> = kinds
        .iter()
        .enumerate()
        .map(|(i, (kind, n))| {
            let options: Vec<Value> = (0..*n)
                .map(|j| {
                    json!({ "value": format!("v{j}"), "label": format!("Item {j}"),
                            "preview": format!("preview {j}") })
                })
                .collect();
            json!({ "id": format!("q{i}"), "prompt": format!("Q{i}?"), "type": kind, "options": options })
        })
        .collect();
    json!({ "questions": questions })
}

fn arb_flow() -> impl Strategy<Value = Session> {
    let question = (
        prop::sample::select(vec!["single", "multi", "preview"]),
        prop_oneof![3 => 1..5usize, 1 => 10..13usize],
    );
    (prop::collection::vec(question, 1..4), any::<bool>()).prop_map(|(questions, pi09)| {
        let mut options = askd::session::OpenOptions::default();
        if pi09 {
            options.behaviour = askd::session::Profile::Pi09.behaviour();
        }
        Session::open(&payload(&questions), &options).expect("a pi payload opens")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The differential: from wherever a run of deeds has brought the flow, a deed done by keys
    /// and the same deed done by a pointer leave equal sessions, with equal views.
    #[test]
    fn keys_and_activations_do_the_same(
        session in arb_flow(),
        deeds in prop::collection::vec(arb_deed(), 1..30),
    ) {
        let mut by_keys = session.clone();
        let mut by_pointer = session;
        for deed in &deeds {
            let Some((keys, way)) = both_ways(&by_keys, deed) else {
                continue;
            };
            match way {
                Way::Target(target) => {
                    for key in keys {
                        by_keys.press(key).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    }
                    prop_assert!(offered(&by_pointer, &target), "{:?} is not offered", target);
                    by_pointer
                        .flow_mut()
                        .and_then(|f| f.activate(&target))
                        .map_err(|e| TestCaseError::fail(format!("{target:?}: {e}")))?;
                }
                Way::Draft(text) => {
                    by_keys.flow_mut().and_then(|f| f.insert(text)).unwrap();
                    by_pointer.flow_mut().and_then(|f| f.set_draft(text, None)).unwrap();
                }
            }
            prop_assert_eq!(&by_pointer, &by_keys, "after {:?}", deed);
            prop_assert_eq!(view::build("p", &by_pointer), view::build("p", &by_keys));
        }
    }
}

// Exact cases -----------------------------------------------------------------------------

fn trip() -> Session {
    Session::open(
        &payload(&[("single", 2), ("multi", 3), ("preview", 2)]),
        &askd::session::OpenOptions::default(),
    )
    .unwrap()
}

fn activate(session: &mut Session, target: Target) -> Result<(), String> {
    session
        .flow_mut()
        .and_then(|f| f.activate(&target))
        .map_err(|e| e.to_string())
}

#[test]
fn a_whole_flow_by_pointer_gives_the_result_of_the_same_flow_by_keys() {
    let mut by_pointer = trip();
    activate(&mut by_pointer, Target::Row(2)).unwrap();
    activate(&mut by_pointer, Target::Row(1)).unwrap();
    activate(&mut by_pointer, Target::Row(3)).unwrap();
    activate(&mut by_pointer, Target::Row(4)).unwrap();
    by_pointer
        .flow_mut()
        .unwrap()
        .set_draft("Rope", Some(2))
        .unwrap();
    assert_eq!(
        by_pointer.flow().unwrap().editor().unwrap().text.cursor(),
        2
    );
    by_pointer.press(key("enter")).unwrap();
    activate(&mut by_pointer, Target::Tab(2)).unwrap();
    activate(&mut by_pointer, Target::Row(2)).unwrap();
    activate(&mut by_pointer, Target::Action(0)).unwrap();

    let mut by_keys = trip();
    for name in ["2", "1", "3", "4", "R", "o", "p", "e", "enter", "2", "1"] {
        by_keys.press(key(name)).unwrap();
    }
    assert_eq!(by_pointer.result(), by_keys.result());
    let result = by_pointer.result().expect("submitted");
    assert_eq!(
        result["details"]["answers"]["q1"]["values"],
        json!(["v0", "v2", "Rope"])
    );
    assert_eq!(result["details"]["answers"]["q2"]["values"], json!(["v1"]));
}

#[test]
fn a_refused_target_changes_nothing() {
    let mut session = trip();
    activate(&mut session, Target::Tab(1)).unwrap();
    activate(&mut session, Target::Row(2)).unwrap();
    let before = session.clone();
    for (target, message) in [
        (
            Target::Tab(4),
            "tab 4 is not on the screen: the flow has 4 tabs (0 to 3)",
        ),
        (
            Target::Row(5),
            "row 5 is not on the screen: the rows are numbered 1 to 4",
        ),
        (
            Target::Completion(0),
            "completion item 0 is not on the screen: no completion list is open",
        ),
        (
            Target::Filter(false),
            "no filter is on the screen: this question has too few options to filter (a filter needs 10)",
        ),
    ] {
        assert_eq!(activate(&mut session, target), Err(message.to_owned()));
        assert_eq!(session, before);
    }
    activate(&mut session, Target::Row(4)).unwrap();
    session.flow_mut().unwrap().insert("held").unwrap();
    let before = session.clone();
    assert_eq!(
        activate(&mut session, Target::Tab(0)),
        Err("tabs cannot be reached while the answer editor holds text".to_owned())
    );
    assert_eq!(
        activate(&mut session, Target::Row(1)),
        Err(
            "row 1 is not on the screen: no row can be reached while the answer editor holds text"
                .to_owned()
        )
    );
    assert_eq!(session, before);
    // Emptied, the editor lets the rows be reached again, as its keys do.
    session.flow_mut().unwrap().set_draft("", None).unwrap();
    activate(&mut session, Target::Row(1)).unwrap();
    assert_eq!(session.flow().unwrap().editor(), None);
    assert_eq!(session.flow().unwrap().answers()[1].selected, vec![1, 0]);
}

#[test]
fn set_draft_keeps_the_editor_limits_and_places_the_caret_on_a_grapheme() {
    let mut session = trip();
    activate(&mut session, Target::Row(3)).unwrap();
    let flow = session.flow_mut().unwrap();
    flow.set_text_limit(10);
    assert_eq!(
        flow.set_draft("12345678901", None)
            .map_err(|e| e.to_string()),
        Err("the editor would hold 11 bytes; the limit is 10".to_owned())
    );
    assert_eq!(flow.editor().unwrap().text.text(), "");
    // 👍🏽 is four UTF-16 code units; a caret inside it goes back to its start.
    flow.set_draft("a👍🏽b", Some(2)).unwrap();
    assert_eq!(flow.editor().unwrap().text.cursor(), 1);
    flow.set_draft("a👍🏽b", Some(5)).unwrap();
    assert_eq!(flow.editor().unwrap().text.cursor(), 9);
    // Line ends are normalised as typing normalises them.
    flow.set_draft("a\r\nb", Some(4)).unwrap();
    assert_eq!(flow.editor().unwrap().text.text(), "a\nb");
    assert_eq!(flow.editor().unwrap().text.cursor(), 3);
}

// Through the real binary -----------------------------------------------------------------

#[test]
fn activate_and_set_draft_through_the_binary() {
    let mut server = Server::start(&[]);
    let methods = server.ok("initialize", json!({}))["methods"].clone();
    let methods: Vec<&str> = methods
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(methods.contains(&"activate") && methods.contains(&"setDraft"));
    server.open("t", payload(&[("single", 2), ("multi", 3)]));
    let step = server.ok(
        "activate",
        json!({ "session": "t", "target": { "row": 2 } }),
    );
    assert_eq!(step["view"]["activeTab"], json!(1));
    assert_eq!(step["version"], json!(2));
    let step = server.ok(
        "activate",
        json!({ "session": "t", "target": { "row": 4 } }),
    );
    assert_eq!(step["view"]["focus"], json!("input"));
    let step = server.ok(
        "setDraft",
        json!({ "session": "t", "text": "Rope", "caret": 4 }),
    );
    assert_eq!(step["view"]["editor"]["text"], json!("Rope"));
    let step = server.ok("key", json!({ "session": "t", "key": "enter" }));
    assert_eq!(step["view"]["activeTab"], json!(2));
    let error = server.err(
        "activate",
        json!({ "session": "t", "target": { "row": 1 } }),
    );
    assert_eq!(
        error,
        json!({ "code": -32602, "message": "invalid params: target: row 1 is not on the screen: no row can be reached on the review tab" })
    );
    let error = server.err("setDraft", json!({ "session": "t", "text": "x" }));
    assert_eq!(
        error,
        json!({ "code": -32003, "message": "no editor is open" })
    );
    let error = server.err("activate", json!({ "session": "t", "target": [1] }));
    assert_eq!(
        error,
        json!({ "code": -32602, "message": "invalid params: target: expected an object, got an array" })
    );
    let step = server.ok(
        "activate",
        json!({ "session": "t", "target": { "action": 0 } }),
    );
    assert_eq!(step["status"], json!("done"));
    assert_eq!(
        step["result"]["details"]["answers"]["q1"]["values"],
        json!(["Rope"])
    );
    assert_eq!(step["view"]["activatable"], Value::Null);
    let error = server.err(
        "activate",
        json!({ "session": "t", "target": { "tab": 0 } }),
    );
    assert_eq!(error["code"], json!(-32002));
}
