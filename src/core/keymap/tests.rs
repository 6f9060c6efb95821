//! The keymap's tests: the action table, lookups, overrides, presets and key sequences.

use super::*;
use crate::core::key::{KeyCode, Mods, char_key};
use Action::*;
use serde_json::{Value, json};

fn k(name: &str) -> Key {
    Key::parse(name).unwrap()
}

fn lookup(map: &Keymap, context: Context, key: &str) -> Vec<Action> {
    lookup_key(map, context, k(key))
}

fn lookup_key(map: &Keymap, context: Context, key: Key) -> Vec<Action> {
    map.actions(context, key).collect()
}

/// Every action with its expected wire name, context, description and default keys.
const EXPECTED: &[(Action, &str, Context, &str, &[&str])] = &[
    (
        GlobalDismiss,
        "global.dismiss",
        Context::Global,
        "dismiss",
        &["ctrl+c"],
    ),
    (GlobalHelp, "global.help", Context::Global, "help", &["?"]),
    (
        MainNextTab,
        "main.nextTab",
        Context::Main,
        "next tab",
        &["tab", "right"],
    ),
    (
        MainPrevTab,
        "main.prevTab",
        Context::Main,
        "previous tab",
        &["shift+tab", "left"],
    ),
    (MainDown, "main.down", Context::Main, "down", &["down"]),
    (MainUp, "main.up", Context::Main, "up", &["up"]),
    (
        MainPageDown,
        "main.pageDown",
        Context::Main,
        "page down",
        &["pagedown"],
    ),
    (
        MainPageUp,
        "main.pageUp",
        Context::Main,
        "page up",
        &["pageup"],
    ),
    (MainFirst, "main.first", Context::Main, "first", &["home"]),
    (MainLast, "main.last", Context::Main, "last", &["end"]),
    (MainFilter, "main.filter", Context::Main, "filter", &["/"]),
    (
        MainConfirm,
        "main.confirm",
        Context::Main,
        "confirm",
        &["enter"],
    ),
    (
        MainToggle,
        "main.toggle",
        Context::Main,
        "toggle",
        &["space"],
    ),
    (
        MainOptionNote,
        "main.optionNote",
        Context::Main,
        "option note",
        &["n"],
    ),
    (
        MainQuestionNote,
        "main.questionNote",
        Context::Main,
        "question note",
        &["N"],
    ),
    (
        MainChangeQuestionType,
        "main.changeQuestionType",
        Context::Main,
        "question type",
        &["t"],
    ),
    (
        MainCancel,
        "main.cancel",
        Context::Main,
        "cancel",
        &["escape"],
    ),
    (
        ReviewNextTab,
        "review.nextTab",
        Context::Review,
        "next tab",
        &["tab", "right"],
    ),
    (
        ReviewPrevTab,
        "review.prevTab",
        Context::Review,
        "previous tab",
        &["shift+tab", "left"],
    ),
    (
        ReviewDown,
        "review.down",
        Context::Review,
        "down",
        &["down"],
    ),
    (ReviewUp, "review.up", Context::Review, "up", &["up"]),
    (
        ReviewFirst,
        "review.first",
        Context::Review,
        "first",
        &["home", "pageup"],
    ),
    (
        ReviewLast,
        "review.last",
        Context::Review,
        "last",
        &["end", "pagedown"],
    ),
    (
        ReviewConfirm,
        "review.confirm",
        Context::Review,
        "confirm",
        &["enter"],
    ),
    (
        ReviewCancel,
        "review.cancel",
        Context::Review,
        "cancel",
        &["escape"],
    ),
    (
        EditorSubmit,
        "editor.submit",
        Context::Editor,
        "save",
        &["enter"],
    ),
    (
        EditorClose,
        "editor.close",
        Context::Editor,
        "close",
        &["escape"],
    ),
    (EditorUp, "editor.up", Context::Editor, "up", &["up"]),
    (
        EditorDown,
        "editor.down",
        Context::Editor,
        "down",
        &["down"],
    ),
    (
        EditorPageDown,
        "editor.pageDown",
        Context::Editor,
        "page down",
        &["pagedown"],
    ),
    (
        EditorPageUp,
        "editor.pageUp",
        Context::Editor,
        "page up",
        &["pageup"],
    ),
    (
        EditorNextTab,
        "editor.nextTab",
        Context::Editor,
        "next tab",
        &["tab", "right"],
    ),
    (
        EditorPrevTab,
        "editor.prevTab",
        Context::Editor,
        "previous tab",
        &["shift+tab", "left"],
    ),
    (
        EditorCursorLeft,
        "editor.cursorLeft",
        Context::Editor,
        "cursor left",
        &["left"],
    ),
    (
        EditorCursorRight,
        "editor.cursorRight",
        Context::Editor,
        "cursor right",
        &["right"],
    ),
    (
        EditorLineStart,
        "editor.lineStart",
        Context::Editor,
        "line start",
        &["home", "ctrl+a"],
    ),
    (
        EditorLineEnd,
        "editor.lineEnd",
        Context::Editor,
        "line end",
        &["end", "ctrl+e"],
    ),
    (
        EditorWordLeft,
        "editor.wordLeft",
        Context::Editor,
        "word left",
        &["alt+b", "ctrl+left"],
    ),
    (
        EditorWordRight,
        "editor.wordRight",
        Context::Editor,
        "word right",
        &["alt+f", "ctrl+right"],
    ),
    (
        EditorDeleteBack,
        "editor.deleteBack",
        Context::Editor,
        "delete back",
        &["backspace"],
    ),
    (
        EditorDeleteForward,
        "editor.deleteForward",
        Context::Editor,
        "delete forward",
        &["delete"],
    ),
    (
        EditorDeleteWordBack,
        "editor.deleteWordBack",
        Context::Editor,
        "delete word",
        &["ctrl+w", "alt+backspace"],
    ),
    (
        EditorDeleteToLineStart,
        "editor.deleteToLineStart",
        Context::Editor,
        "delete to line start",
        &["ctrl+u"],
    ),
    (
        EditorDeleteToLineEnd,
        "editor.deleteToLineEnd",
        Context::Editor,
        "delete to line end",
        &["ctrl+k"],
    ),
    (
        EditorNewline,
        "editor.newline",
        Context::Editor,
        "new line",
        &["shift+enter", "alt+enter"],
    ),
    (
        NoteEditorSubmit,
        "noteEditor.submit",
        Context::NoteEditor,
        "save",
        &["enter"],
    ),
    (
        NoteEditorClose,
        "noteEditor.close",
        Context::NoteEditor,
        "close",
        &["escape"],
    ),
    (
        NoteEditorUp,
        "noteEditor.up",
        Context::NoteEditor,
        "up",
        &["up"],
    ),
    (
        NoteEditorDown,
        "noteEditor.down",
        Context::NoteEditor,
        "down",
        &["down"],
    ),
    (
        NoteEditorPageDown,
        "noteEditor.pageDown",
        Context::NoteEditor,
        "page down",
        &["pagedown"],
    ),
    (
        NoteEditorPageUp,
        "noteEditor.pageUp",
        Context::NoteEditor,
        "page up",
        &["pageup"],
    ),
    (
        NoteEditorNextTab,
        "noteEditor.nextTab",
        Context::NoteEditor,
        "next tab",
        &["tab", "right"],
    ),
    (
        NoteEditorPrevTab,
        "noteEditor.prevTab",
        Context::NoteEditor,
        "previous tab",
        &["shift+tab", "left"],
    ),
    (
        FilterAccept,
        "filter.accept",
        Context::Filter,
        "done",
        &["enter"],
    ),
    (
        FilterClear,
        "filter.clear",
        Context::Filter,
        "clear filter",
        &["escape"],
    ),
    (FilterUp, "filter.up", Context::Filter, "up", &["up"]),
    (
        FilterDown,
        "filter.down",
        Context::Filter,
        "down",
        &["down"],
    ),
    (
        FilterNextTab,
        "filter.nextTab",
        Context::Filter,
        "next tab",
        &["tab"],
    ),
    (
        FilterPrevTab,
        "filter.prevTab",
        Context::Filter,
        "previous tab",
        &["shift+tab"],
    ),
];

#[test]
fn action_table() {
    assert_eq!(Action::ALL.len(), EXPECTED.len());
    for (i, &(action, name, context, description, keys)) in EXPECTED.iter().enumerate() {
        assert_eq!(Action::ALL[i], action);
        assert_eq!(action as usize, i);
        assert_eq!(action.name(), name);
        assert_eq!(action.context(), context);
        assert_eq!(action.description(), description);
        assert_eq!(action.default_keys(), keys);
        assert_eq!(Action::from_name(name), Some(action));
        assert!(name.starts_with(&format!("{}.", context.name())), "{name}");
    }
    let mut sorted = Action::ALL.to_vec();
    sorted.sort();
    assert_eq!(sorted, Action::ALL);
}

#[test]
fn from_name_rejects_unknown_names() {
    for name in [
        "",
        "main",
        "main.foo",
        "Main.nextTab",
        "main.nexttab",
        "nextTab",
        "global.dismiss ",
    ] {
        assert_eq!(Action::from_name(name), None, "{name:?}");
    }
}

#[test]
fn context_names() {
    let names: Vec<_> = Context::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(
        names,
        ["global", "main", "review", "editor", "noteEditor", "filter"]
    );
    for (i, &context) in Context::ALL.iter().enumerate() {
        assert_eq!(context as usize, i);
    }
}

/// Every key code of interest (ASCII and other characters, every named key) under every
/// combination of modifiers.
fn sample_keys() -> Vec<Key> {
    use KeyCode::*;
    let codes = [
        Char('a'),
        Char('A'),
        Char(' '),
        Char('\u{0}'),
        Char('\u{7f}'),
        Char('\u{80}'),
        Char('c'),
        Char('n'),
        Char('N'),
        Char('x'),
        Char('é'),
        Char('한'),
        Char('\u{10ffff}'),
        Up,
        Down,
        Left,
        Right,
        Tab,
        Enter,
        Escape,
        Backspace,
        Delete,
        Home,
        End,
        PageUp,
        PageDown,
    ];
    let mut keys = Vec::new();
    for bits in 0..8u8 {
        let mods = Mods {
            ctrl: bits & 1 != 0,
            alt: bits & 2 != 0,
            shift: bits & 4 != 0,
        };
        keys.extend(codes.iter().map(|&code| Key { code, mods }));
    }
    keys
}

#[test]
fn packed_keys_and_slots_are_distinct() {
    let keys = sample_keys();
    let mut packed_keys: Vec<u32> = keys.iter().map(|&key| packed(key)).collect();
    packed_keys.sort_unstable();
    packed_keys.dedup();
    assert_eq!(packed_keys.len(), keys.len());
    let mut slots: Vec<usize> = keys.iter().filter_map(|&key| slot(key)).collect();
    assert!(slots.iter().all(|&s| s < SLOTS));
    let with_slot = slots.len();
    slots.sort_unstable();
    slots.dedup();
    assert_eq!(slots.len(), with_slot);
    // Every named key and the 9 ASCII characters, plain or with Shift.
    assert_eq!(with_slot, 2 * (NAMED_KEYS + 9));
}

#[test]
fn lookups_find_exactly_the_actions_bound() {
    let overridden = Keymap::default()
        .with_overrides(&json!({
            "main.toggle": ["x", "ctrl+x", "é", "shift+up", "<C-Del>"],
            "main.confirm": ["x", "enter"],
            "review.up": ["é", "ctrl+x"],
            "editor.newline": ["ctrl+j", "alt+enter", "shift+up"],
        }))
        .unwrap();
    for map in [Keymap::default(), overridden] {
        for key in sample_keys() {
            let bound = map.bound(key);
            let expected: Vec<Action> = Action::ALL
                .iter()
                .copied()
                .filter(|&action| map.keys(action).contains(&key))
                .collect();
            assert_eq!(bound.iter().collect::<Vec<_>>(), expected, "{key}");
            for &action in Action::ALL {
                assert_eq!(bound.contains(action), expected.contains(&action));
            }
            for &context in Context::ALL {
                let in_context: Vec<Action> = expected
                    .iter()
                    .copied()
                    .filter(|a| a.context() == context)
                    .collect();
                assert_eq!(lookup_key(&map, context, key), in_context, "{key}");
                assert_eq!(
                    bound.in_context(context).first(),
                    in_context.first().copied()
                );
            }
        }
    }
}

#[test]
fn default_key_names_are_canonical() {
    for &action in Action::ALL {
        for name in action.default_keys() {
            assert_eq!(k(name).to_string(), *name, "{}", action.name());
        }
    }
}

#[test]
fn default_keys_of_every_action() {
    let map = Keymap::default();
    for &(action, _, _, _, keys) in EXPECTED {
        let expected: Vec<Key> = keys.iter().map(|name| k(name)).collect();
        assert_eq!(map.keys(action), expected, "{}", action.name());
    }
    assert_eq!(
        map.keys(EditorWordLeft),
        [
            Key {
                code: KeyCode::Char('b'),
                mods: Mods {
                    alt: true,
                    ..Mods::default()
                }
            },
            Key {
                code: KeyCode::Left,
                mods: Mods {
                    ctrl: true,
                    ..Mods::default()
                }
            },
        ]
    );
    assert_eq!(map.keys(MainQuestionNote), [char_key('N')]);
    assert_eq!(map.keys(MainToggle), [char_key(' ')]);
}

#[test]
fn default_lookups() {
    use Context::*;
    let map = Keymap::default();
    let cases: &[(Context, &str, &[Action])] = &[
        (Global, "ctrl+c", &[GlobalDismiss]),
        (Global, "escape", &[]),
        (Main, "tab", &[MainNextTab]),
        (Main, "right", &[MainNextTab]),
        (Main, "shift+tab", &[MainPrevTab]),
        (Main, "left", &[MainPrevTab]),
        (Main, "down", &[MainDown]),
        (Main, "up", &[MainUp]),
        (Main, "enter", &[MainConfirm]),
        (Main, "space", &[MainToggle]),
        (Main, "n", &[MainOptionNote]),
        (Main, "N", &[MainQuestionNote]),
        (Main, "shift+n", &[MainQuestionNote]),
        (Main, "escape", &[MainCancel]),
        (Main, "ctrl+c", &[]),
        (Main, "1", &[]),
        (Main, "x", &[]),
        (Main, "ctrl+n", &[]),
        (Main, "pagedown", &[MainPageDown]),
        (Main, "pageup", &[MainPageUp]),
        (Main, "home", &[MainFirst]),
        (Main, "end", &[MainLast]),
        (Main, "/", &[MainFilter]),
        (Main, "j", &[]),
        (Main, "g", &[]),
        (Review, "tab", &[ReviewNextTab]),
        (Review, "right", &[ReviewNextTab]),
        (Review, "shift+tab", &[ReviewPrevTab]),
        (Review, "left", &[ReviewPrevTab]),
        (Review, "down", &[ReviewDown]),
        (Review, "up", &[ReviewUp]),
        (Review, "enter", &[ReviewConfirm]),
        (Review, "escape", &[ReviewCancel]),
        (Review, "n", &[]),
        (Review, "N", &[]),
        (Review, "space", &[]),
        (Review, "home", &[ReviewFirst]),
        (Review, "pageup", &[ReviewFirst]),
        (Review, "end", &[ReviewLast]),
        (Review, "pagedown", &[ReviewLast]),
        (Editor, "enter", &[EditorSubmit]),
        (Editor, "escape", &[EditorClose]),
        (Editor, "up", &[EditorUp]),
        (Editor, "down", &[EditorDown]),
        (Editor, "tab", &[EditorNextTab]),
        (Editor, "right", &[EditorNextTab, EditorCursorRight]),
        (Editor, "shift+tab", &[EditorPrevTab]),
        (Editor, "left", &[EditorPrevTab, EditorCursorLeft]),
        (Editor, "home", &[EditorLineStart]),
        (Editor, "ctrl+a", &[EditorLineStart]),
        (Editor, "end", &[EditorLineEnd]),
        (Editor, "ctrl+e", &[EditorLineEnd]),
        (Editor, "alt+b", &[EditorWordLeft]),
        (Editor, "ctrl+left", &[EditorWordLeft]),
        (Editor, "alt+f", &[EditorWordRight]),
        (Editor, "ctrl+right", &[EditorWordRight]),
        (Editor, "backspace", &[EditorDeleteBack]),
        (Editor, "delete", &[EditorDeleteForward]),
        (Editor, "ctrl+w", &[EditorDeleteWordBack]),
        (Editor, "alt+backspace", &[EditorDeleteWordBack]),
        (Editor, "ctrl+u", &[EditorDeleteToLineStart]),
        (Editor, "ctrl+k", &[EditorDeleteToLineEnd]),
        (Editor, "shift+enter", &[EditorNewline]),
        (Editor, "alt+enter", &[EditorNewline]),
        (Editor, "n", &[]),
        (Editor, "space", &[]),
        (NoteEditor, "enter", &[NoteEditorSubmit]),
        (NoteEditor, "escape", &[NoteEditorClose]),
        (NoteEditor, "up", &[NoteEditorUp]),
        (NoteEditor, "down", &[NoteEditorDown]),
        (NoteEditor, "tab", &[NoteEditorNextTab]),
        (NoteEditor, "right", &[NoteEditorNextTab]),
        (NoteEditor, "shift+tab", &[NoteEditorPrevTab]),
        (NoteEditor, "left", &[NoteEditorPrevTab]),
        (NoteEditor, "ctrl+a", &[]),
        (Filter, "enter", &[FilterAccept]),
        (Filter, "escape", &[FilterClear]),
        (Filter, "up", &[FilterUp]),
        (Filter, "down", &[FilterDown]),
        (Filter, "tab", &[FilterNextTab]),
        (Filter, "shift+tab", &[FilterPrevTab]),
        (Filter, "right", &[]),
        (Filter, "home", &[]),
        (NoteEditor, "shift+enter", &[]),
    ];
    for &(context, key, expected) in cases {
        assert_eq!(
            lookup(&map, context, key),
            expected,
            "{} {key}",
            context.name()
        );
    }
}

#[test]
fn every_default_binding_is_found() {
    let map = Keymap::default();
    for &action in Action::ALL {
        for &key in map.keys(action) {
            assert!(
                map.actions(action.context(), key).any(|a| a == action),
                "{} {key}",
                action.name()
            );
        }
    }
}

#[test]
fn overrides_replace_keys() {
    let base = Keymap::default();
    let map = base
        .with_overrides(
            &json!({ "main.toggle": ["x", "ctrl+t"], "editor.cursorRight": ["ctrl+f"] }),
        )
        .unwrap();
    assert_eq!(map.keys(MainToggle), [k("x"), k("ctrl+t")]);
    assert_eq!(lookup(&map, Context::Main, "x"), [MainToggle]);
    assert_eq!(lookup(&map, Context::Main, "ctrl+t"), [MainToggle]);
    assert_eq!(lookup(&map, Context::Main, "space"), []);
    assert_eq!(lookup(&map, Context::Editor, "right"), [EditorNextTab]);
    assert_eq!(lookup(&map, Context::Editor, "ctrl+f"), [EditorCursorRight]);
    assert_eq!(map.keys(MainConfirm), base.keys(MainConfirm));
    assert_eq!(lookup(&map, Context::Main, "enter"), [MainConfirm]);
    // The base keymap is untouched.
    assert_eq!(base, Keymap::default());
}

#[test]
fn overrides_accept_any_key_spelling_and_drop_repeats() {
    let map = Keymap::default()
        .with_overrides(&json!({ "main.nextTab": ["<Tab>", "TAB", "ctrl+L", "ctrl+l"] }))
        .unwrap();
    assert_eq!(map.keys(MainNextTab), [k("tab"), k("ctrl+l")]);
    assert_eq!(lookup(&map, Context::Main, "tab"), [MainNextTab]);
    assert_eq!(lookup(&map, Context::Main, "right"), []);
}

#[test]
fn overrides_can_share_keys_within_a_context() {
    let map = Keymap::default()
        .with_overrides(&json!({ "main.confirm": ["space", "enter"] }))
        .unwrap();
    assert_eq!(
        lookup(&map, Context::Main, "space"),
        [MainConfirm, MainToggle]
    );
    assert_eq!(lookup(&map, Context::Main, "enter"), [MainConfirm]);
}

#[test]
fn single_string_and_empty_list() {
    let map = Keymap::default()
        .with_overrides(&json!({ "global.dismiss": "ctrl+q", "main.optionNote": [] }))
        .unwrap();
    assert_eq!(map.keys(GlobalDismiss), [k("ctrl+q")]);
    assert_eq!(lookup(&map, Context::Global, "ctrl+q"), [GlobalDismiss]);
    assert_eq!(lookup(&map, Context::Global, "ctrl+c"), []);
    assert_eq!(map.keys(MainOptionNote), []);
    assert_eq!(lookup(&map, Context::Main, "n"), []);
    assert_eq!(lookup(&map, Context::Main, "N"), [MainQuestionNote]);
}

#[test]
fn overrides_stack() {
    let first = Keymap::default()
        .with_overrides(&json!({ "main.toggle": ["x"], "main.up": ["k"] }))
        .unwrap();
    let second = first
        .with_overrides(&json!({ "main.toggle": ["y"] }))
        .unwrap();
    assert_eq!(second.keys(MainToggle), [k("y")]);
    assert_eq!(second.keys(MainUp), [k("k")]);
    assert_eq!(lookup(&second, Context::Main, "x"), []);
    assert_eq!(
        Keymap::default().with_overrides(&json!({})).unwrap(),
        Keymap::default()
    );
}

#[test]
fn override_errors() {
    let base = Keymap::default()
        .with_overrides(&json!({ "main.up": ["k"] }))
        .unwrap();
    let before = base.clone();
    let cases = [
        (json!(["main.toggle"]), KeymapError::NotAnObject),
        (json!(null), KeymapError::NotAnObject),
        (json!("main.toggle"), KeymapError::NotAnObject),
        (
            json!({ "main.foo": ["x"] }),
            KeymapError::UnknownAction("main.foo".into()),
        ),
        (
            json!({ "main.toggle": ["x", "ctrl+nope"] }),
            KeymapError::BadKey {
                action: MainToggle,
                key: "ctrl+nope".into(),
            },
        ),
        (
            json!({ "main.toggle": "" }),
            KeymapError::BadKey {
                action: MainToggle,
                key: String::new(),
            },
        ),
        (
            json!({ "main.toggle": 3 }),
            KeymapError::BadValue(MainToggle),
        ),
        (
            json!({ "main.toggle": null }),
            KeymapError::BadValue(MainToggle),
        ),
        (
            json!({ "main.toggle": { "key": "x" } }),
            KeymapError::BadValue(MainToggle),
        ),
        (
            json!({ "main.toggle": ["x", 1] }),
            KeymapError::BadValue(MainToggle),
        ),
        // A valid entry before a bad one is not applied either.
        (
            json!({ "main.down": ["j"], "main.bogus": [] }),
            KeymapError::UnknownAction("main.bogus".into()),
        ),
    ];
    for (overrides, expected) in cases {
        assert_eq!(
            base.with_overrides(&overrides),
            Err(expected),
            "{overrides}"
        );
        assert_eq!(base, before);
    }
}

#[test]
fn error_messages() {
    let message = |overrides: Value| {
        Keymap::default()
            .with_overrides(&overrides)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        message(json!([])),
        "keymap must be an object mapping action names to lists of key names"
    );
    assert_eq!(
        message(json!({ "main.foo": [] })),
        r#"unknown keymap action "main.foo""#
    );
    assert_eq!(
        message(json!({ "main.toggle": ["<name>"] })),
        r#"keymap action "main.toggle": unknown key "<name>""#
    );
    assert_eq!(
        message(json!({ "main.toggle": 1 })),
        r#"keymap action "main.toggle": expected a list of key names"#
    );
}

/// An action takes at most `MAX_KEYS_PER_ACTION` keys, so that applying overrides stays
/// cheap however long a list a client sends; the count is of the keys given, before
/// repeats are dropped.
#[test]
fn an_action_takes_a_bounded_number_of_keys() {
    let keys = |n: usize| -> Value {
        (0..n)
            .map(|i| Value::from(char::from_u32(0x1_0000 + i as u32).unwrap().to_string()))
            .collect()
    };
    let at_limit = Keymap::default()
        .with_overrides(&json!({ "main.down": keys(MAX_KEYS_PER_ACTION) }))
        .unwrap();
    assert_eq!(at_limit.keys(MainDown).len(), MAX_KEYS_PER_ACTION);
    for n in [MAX_KEYS_PER_ACTION + 1, 60_000] {
        let refused = Keymap::default().with_overrides(&json!({ "main.down": keys(n) }));
        assert_eq!(
            refused,
            Err(KeymapError::TooManyKeys {
                action: MainDown,
                count: n,
            })
        );
    }
    // The keys of key sequences count: eight sequences of two keys are the most.
    let pairs: Vec<Value> = "abcdefgh"
        .chars()
        .map(|c| json!(["z", c.to_string()]))
        .collect();
    let at_limit = Keymap::default()
        .with_overrides(&json!({ "main.first": pairs }))
        .unwrap();
    assert_eq!(at_limit.sequences(MainFirst).len(), MAX_KEYS_PER_ACTION / 2);
    let mut over = vec![json!("home")];
    over.extend(pairs);
    assert_eq!(
        Keymap::default()
            .with_overrides(&json!({ "main.first": over }))
            .unwrap_err()
            .to_string(),
        r#"keymap action "main.first": 17 keys given; an action takes at most 16"#
    );
    let repeated: Vec<&str> = vec!["j"; MAX_KEYS_PER_ACTION + 1];
    assert_eq!(
        Keymap::default()
            .with_overrides(&json!({ "main.down": repeated }))
            .unwrap_err()
            .to_string(),
        format!(
            r#"keymap action "main.down": 17 keys given; an action takes at most {MAX_KEYS_PER_ACTION}"#
        )
    );
}

#[test]
fn overrides_round_trip() {
    assert_eq!(Keymap::default().overrides(), json!({}));
    let map = Keymap::default()
        .with_overrides(&json!({
            "editor.newline": ["ctrl+j"],
            "main.toggle": "<Space>",
            "main.optionNote": [],
            "main.nextTab": ["<C-n>", "tab"],
        }))
        .unwrap();
    // Unchanged bindings are left out; the rest come in `Action::ALL` order, canonically named.
    let saved = map.overrides();
    assert_eq!(
        saved,
        json!({
            "main.nextTab": ["ctrl+n", "tab"],
            "main.optionNote": [],
            "editor.newline": ["ctrl+j"],
        })
    );
    assert_eq!(
        serde_json::to_string(&saved).unwrap(),
        r#"{"main.nextTab":["ctrl+n","tab"],"main.optionNote":[],"editor.newline":["ctrl+j"]}"#
    );
    assert_eq!(Keymap::default().with_overrides(&saved), Ok(map));
}

fn seq(names: &[&str]) -> Box<[Key]> {
    names.iter().map(|n| k(n)).collect()
}

#[test]
fn the_vim_preset_adds_its_keys_after_the_defaults() {
    let vim = Keymap::default().with_preset(Preset::Vim);
    assert_eq!(vim.keys(MainDown), [k("down"), k("j")]);
    assert_eq!(vim.keys(MainUp), [k("up"), k("k")]);
    assert_eq!(vim.keys(MainPrevTab), [k("shift+tab"), k("left"), k("h")]);
    assert_eq!(vim.keys(MainNextTab), [k("tab"), k("right"), k("l")]);
    assert_eq!(vim.keys(MainFirst), [k("home")]);
    assert_eq!(vim.sequences(MainFirst), [seq(&["g", "g"])]);
    assert_eq!(vim.keys(MainLast), [k("end"), k("G")]);
    assert_eq!(vim.keys(MainPageDown), [k("pagedown"), k("ctrl+d")]);
    assert_eq!(vim.keys(MainPageUp), [k("pageup"), k("ctrl+u")]);
    assert_eq!(vim.keys(MainCancel), [k("escape"), k("q")]);
    assert_eq!(vim.keys(ReviewFirst), [k("home"), k("pageup"), k("ctrl+u")]);
    assert_eq!(vim.sequences(ReviewFirst), [seq(&["g", "g"])]);
    assert_eq!(
        vim.keys(ReviewLast),
        [k("end"), k("pagedown"), k("G"), k("ctrl+d")]
    );
    assert_eq!(vim.keys(ReviewCancel), [k("escape"), k("q")]);
    // Editors are unchanged: `ctrl+u` still deletes to the line start there.
    for &action in Action::ALL {
        if !action.context().takes_sequences() {
            assert_eq!(
                vim.keys(action),
                Keymap::default().keys(action),
                "{}",
                action.name()
            );
        }
    }
    assert_eq!(
        lookup(&vim, Context::Editor, "ctrl+u"),
        [EditorDeleteToLineStart]
    );
    assert_eq!(lookup(&vim, Context::Main, "ctrl+u"), [MainPageUp]);
    assert_eq!(lookup(&vim, Context::Main, "g"), []);
    assert_eq!(&*vim.key_names(MainFirst), ["home", "g g"]);
    assert_eq!(
        Keymap::default().with_preset(Preset::Default),
        Keymap::default()
    );
    // Applied twice, nothing repeats.
    assert_eq!(vim.with_preset(Preset::Vim), vim);
    assert!(vim.has_sequences());
    assert!(!Keymap::default().has_sequences());
}

#[test]
fn sequences_are_matched_key_by_key_in_their_context() {
    let vim = Keymap::default().with_preset(Preset::Vim);
    let g = k("g");
    assert_eq!(vim.sequence(Context::Main, &[g]), SequenceMatch::Prefix);
    assert_eq!(
        vim.sequence(Context::Main, &[g, g]),
        SequenceMatch::Complete(MainFirst)
    );
    assert_eq!(
        vim.sequence(Context::Review, &[g, g]),
        SequenceMatch::Complete(ReviewFirst)
    );
    assert_eq!(
        vim.sequence(Context::Main, &[g, k("j")]),
        SequenceMatch::None
    );
    assert_eq!(vim.sequence(Context::Main, &[k("j")]), SequenceMatch::None);
    assert_eq!(vim.sequence(Context::Main, &[g, g, g]), SequenceMatch::None);
    assert_eq!(vim.sequence(Context::Editor, &[g]), SequenceMatch::None);
}

#[test]
fn overrides_bind_sequences_as_inner_lists_and_round_trip() {
    let map = Keymap::default()
        .with_overrides(&json!({
            "main.last": ["end", ["g", "e"], ["g", "e"]],
            "review.confirm": [["z", "<CR>"]],
            "main.first": [["ctrl+w", "g", "g"]],
        }))
        .unwrap();
    assert_eq!(map.keys(MainLast), [k("end")]);
    assert_eq!(map.sequences(MainLast), [seq(&["g", "e"])]);
    assert_eq!(map.keys(ReviewConfirm), []);
    assert_eq!(map.sequences(ReviewConfirm), [seq(&["z", "enter"])]);
    assert_eq!(&*map.key_names(MainFirst), ["ctrl+w g g"]);
    assert_eq!(
        map.sequence(Context::Main, &[k("ctrl+w"), k("g")]),
        SequenceMatch::Prefix
    );
    let saved = map.overrides();
    assert_eq!(
        saved,
        json!({
            "main.first": [["ctrl+w", "g", "g"]],
            "main.last": ["end", ["g", "e"]],
            "review.confirm": [["z", "enter"]],
        })
    );
    assert_eq!(Keymap::default().with_overrides(&saved), Ok(map));
    let vim = Keymap::default().with_preset(Preset::Vim);
    assert_eq!(Keymap::default().with_overrides(&vim.overrides()), Ok(vim));
}

#[test]
fn sequence_errors() {
    let vim = Keymap::default().with_preset(Preset::Vim);
    let cases = [
        (
            json!({ "main.first": [["g"]] }),
            r#"keymap action "main.first": a key sequence holds 2 to 4 keys"#,
        ),
        (
            json!({ "main.first": [["a", "b", "c", "d", "e"]] }),
            r#"keymap action "main.first": a key sequence holds 2 to 4 keys"#,
        ),
        (
            json!({ "editor.submit": [["g", "g"]] }),
            r#"keymap action "editor.submit": key sequences bind only main and review actions"#,
        ),
        (
            json!({ "global.dismiss": [["g", "g"]] }),
            r#"keymap action "global.dismiss": key sequences bind only main and review actions"#,
        ),
        (
            json!({ "main.first": [["g", "nope"]] }),
            r#"keymap action "main.first": unknown key "nope""#,
        ),
        (
            json!({ "main.first": [["g", 1]] }),
            r#"keymap action "main.first": expected a list of key names"#,
        ),
        (
            json!({ "main.toggle": ["g"] }),
            r#"keymap action "main.toggle": "g" starts the sequence "g g" of "main.first""#,
        ),
        (
            json!({ "main.last": [["g", "g", "x"]] }),
            r#"keymap action "main.first": "g g" starts the sequence "g g x" of "main.last""#,
        ),
    ];
    for (overrides, message) in cases {
        assert_eq!(
            vim.with_overrides(&overrides).unwrap_err().to_string(),
            message,
            "{overrides}"
        );
    }
    // The same key alone in another context is no conflict.
    let ok = vim
        .with_overrides(&json!({ "noteEditor.submit": ["g"], "review.toggle": [] }))
        .map(|_| ());
    assert_eq!(ok, Err(KeymapError::UnknownAction("review.toggle".into())));
    assert!(
        vim.with_overrides(&json!({ "noteEditor.submit": ["g"] }))
            .is_ok()
    );
    // Unbinding the sequence frees its first key.
    let freed = vim
        .with_overrides(&json!({ "main.first": ["home"], "main.toggle": ["g"] }))
        .unwrap();
    assert_eq!(lookup(&freed, Context::Main, "g"), [MainToggle]);
    assert_eq!(
        freed.sequence(Context::Main, &[k("g")]),
        SequenceMatch::None
    );
}
