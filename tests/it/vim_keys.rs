//! The `vim` keymap preset and key sequences (behaviour §10): `j`/`k`, `h`/`l`, `gg`/`G`,
//! `ctrl+d`/`ctrl+u` and `q` in options and review focus, editors unchanged, the pending keys
//! of `gg` kept in the core and shown in the view and on the screen; the preset through the
//! protocol, before any override.

use std::sync::Arc;

use askd::core::{CancelReason, EditorTarget, Focus, Keymap, Outcome, Preset};
use askd::session::{OpenOptions, Session};
use askd::view::{self, plain};
use serde_json::{Value, json};

use crate::common::{
    LANGS, REVIEW, SCOPE, at, ed, editor, flow, payload, pos, press, press_key, restore, review,
    save,
};
use crate::support::Server;

/// `payload` opened with the vim preset (and `overrides` on top).
fn vim_with(payload: &Value, overrides: &Value) -> Session {
    let keymap = Keymap::default()
        .with_preset(Preset::Vim)
        .with_overrides(overrides)
        .expect("valid overrides");
    let options = OpenOptions {
        keymap: Arc::new(keymap),
        ..OpenOptions::default()
    };
    Session::open(payload, &options).expect("a pi payload opens")
}

fn vim() -> Session {
    vim_with(&payload(), &json!({}))
}

/// A single question of `n` options.
fn long(n: usize) -> Value {
    let options: Vec<Value> = (1..=n)
        .map(|i| json!({ "value": format!("o{i}"), "label": format!("Option {i}") }))
        .collect();
    json!({ "questions": [{ "id": "pick", "prompt": "Which?", "type": "preview",
        "options": options.iter().map(|o| {
            let mut o = o.clone();
            o["preview"] = json!("p");
            o
        }).collect::<Vec<_>>() }] })
}

fn pending(s: &Session) -> Value {
    serde_json::to_value(view::build("s", s)).expect("serialises")["pendingKeys"].clone()
}

#[test]
fn j_k_h_l_move_rows_and_tabs() {
    let mut s = vim();
    press(&mut s, "j");
    assert_eq!(at(&s), pos(SCOPE, 1, Focus::Options));
    press(&mut s, "k");
    assert_eq!(at(&s), pos(SCOPE, 0, Focus::Options));
    press(&mut s, "l");
    assert_eq!(at(&s), pos(LANGS, 0, Focus::Options));
    press(&mut s, "h");
    assert_eq!(at(&s), pos(SCOPE, 0, Focus::Options));
    press(&mut s, "hh");
    assert_eq!(at(&s), pos(LANGS + 1, 0, Focus::Options));
}

#[test]
fn gg_and_g_go_to_the_first_and_last_row_and_ctrl_d_u_page() {
    let mut s = vim_with(&long(25), &json!({}));
    press(&mut s, "G");
    assert_eq!(at(&s), pos(0, 24, Focus::Options));
    press(&mut s, "g");
    assert_eq!(pending(&s), json!("g"));
    assert_eq!(at(&s), pos(0, 24, Focus::Options));
    press(&mut s, "g");
    assert_eq!(pending(&s), Value::Null);
    assert_eq!(at(&s), pos(0, 0, Focus::Options));
    press_key(&mut s, "ctrl+d");
    assert_eq!(at(&s), pos(0, 10, Focus::Options));
    press_key(&mut s, "ctrl+d");
    press_key(&mut s, "ctrl+u");
    assert_eq!(at(&s), pos(0, 10, Focus::Options));
}

#[test]
fn a_key_that_continues_no_sequence_clears_the_pending_keys_and_acts() {
    let mut s = vim();
    press(&mut s, "gj");
    assert_eq!(pending(&s), Value::Null);
    assert_eq!(at(&s), pos(SCOPE, 1, Focus::Options));
    // A digit acts too.
    press(&mut s, "g2");
    assert_eq!(at(&s), pos(LANGS, 0, Focus::Options));
    // A key of cancel only clears the pending keys: the flow stays open.
    for keys in ["g<Esc>", "gq"] {
        let mut s = vim();
        press(&mut s, "j");
        press(&mut s, keys);
        assert_eq!(s.status(), askd::session::Status::Open, "{keys}");
        assert_eq!(pending(&s), Value::Null, "{keys}");
        assert_eq!(at(&s), pos(SCOPE, 1, Focus::Options), "{keys}");
    }
    // Then `q` alone cancels, as `escape` does.
    let mut s = vim();
    press(&mut s, "q");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
    // Ctrl+C dismisses whatever waits.
    let mut s = vim();
    press(&mut s, "g<C-c>");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::Dismissed))
    );
}

#[test]
fn on_the_review_tab_the_same_keys_move_among_the_actions() {
    let mut s = vim();
    press(&mut s, "h");
    assert_eq!(at(&s), review(0));
    press(&mut s, "j");
    assert_eq!(at(&s), review(1));
    press(&mut s, "G");
    assert_eq!(at(&s), review(2));
    press(&mut s, "gg");
    assert_eq!(at(&s), review(0));
    press_key(&mut s, "ctrl+d");
    assert_eq!(at(&s), review(2));
    press_key(&mut s, "ctrl+u");
    assert_eq!(at(&s), review(0));
    press(&mut s, "k");
    assert_eq!(at(&s), review(0));
    press(&mut s, "l");
    assert_eq!(at(&s), pos(SCOPE, 0, Focus::Options));
    press(&mut s, "h");
    assert_eq!(at(&s).tab, REVIEW);
    press(&mut s, "q");
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::User))
    );
}

#[test]
fn editors_are_unchanged() {
    let mut s = vim();
    press(&mut s, "3jkhlgGq");
    assert_eq!(editor(&s), ed(EditorTarget::Custom, "jkhlgGq", 7));
    press_key(&mut s, "ctrl+u");
    assert_eq!(editor(&s), ed(EditorTarget::Custom, "", 0));
    assert_eq!(pending(&s), Value::Null);
    // In a note editor too; and an empty editor still moves rows with its own keys only.
    let mut s = vim();
    press(&mut s, "nj");
    assert_eq!(
        editor(&s),
        ed(EditorTarget::OptionNote { option: 0 }, "j", 1)
    );
}

#[test]
fn the_view_and_the_screen_show_the_pending_keys() {
    let mut s = vim();
    press(&mut s, "g");
    let view = view::build_with_width("s", &s, Some(60));
    assert_eq!(view.pending_keys.as_deref(), Some("g"));
    let text = plain(view.lines.as_deref().expect("lines"));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[lines.len() - 2], " 0/3 answered · pending: g");
    let hints = serde_json::to_value(&view.hints).expect("serialises");
    let down = hints
        .as_array()
        .expect("hints")
        .iter()
        .find(|h| h["action"] == json!("main.down"))
        .expect("a down hint")
        .clone();
    assert_eq!(down["keys"], json!(["down", "j"]));
    press(&mut s, "g");
    let view = view::build_with_width("s", &s, Some(60));
    assert_eq!(view.pending_keys, None);
    assert!(!plain(view.lines.as_deref().expect("lines")).contains("pending"));
}

#[test]
fn the_long_list_footer_names_gg_as_it_is_typed() {
    let s = vim_with(&long(25), &json!({}));
    let view = view::build_with_width("s", &s, Some(100));
    let text = plain(view.lines.as_deref().expect("lines"));
    assert!(text.contains(" home/gg first · end/G last ·\n"), "{text}");
    assert!(
        text.contains(" pgdn/ctrl+d page down · pgup/ctrl+u page up · "),
        "{text}"
    );
}

#[test]
fn a_snapshot_keeps_the_pending_keys() {
    let mut s = vim();
    press(&mut s, "jg");
    let state = save(&s, &payload());
    assert_eq!(state["flow"]["pendingKeys"], json!(["g"]));
    assert_eq!(
        state["flow"]["keymap"]["main.first"],
        json!(["home", ["g", "g"]])
    );
    let mut back = restore(&state).expect("restores");
    assert_eq!(back, s);
    press(&mut back, "g");
    assert_eq!(at(&back), pos(SCOPE, 0, Focus::Options));
    let mut bad = state.clone();
    bad["flow"]["pendingKeys"] = json!(["x"]);
    assert_eq!(
        restore(&bad).expect_err("refused").to_string(),
        "the pending keys begin no key sequence"
    );
}

#[test]
fn overrides_bind_sequences_of_their_own() {
    let mut s = vim_with(
        &payload(),
        &json!({ "main.last": ["end", "G", ["g", "e"]], "main.first": [["z", "z"]] }),
    );
    press(&mut s, "ge");
    assert_eq!(at(&s), pos(SCOPE, 2, Focus::Options));
    press(&mut s, "zz");
    assert_eq!(at(&s), pos(SCOPE, 0, Focus::Options));
    // `gg` is no longer bound in main: `g` then `g` waits, then acts as nothing.
    press(&mut s, "gg");
    assert_eq!(at(&s), pos(SCOPE, 0, Focus::Options));
    assert_eq!(pending(&s), json!("g"));
}

#[test]
fn a_direct_operation_ends_the_sequence_begun_and_a_refused_one_changes_nothing() {
    let mut s = vim();
    press(&mut s, "g");
    let before = s.clone();
    assert!(
        s.flow_mut()
            .expect("a flow")
            .set_note("scope", Some("nope"), "x")
            .is_err()
    );
    assert_eq!(s, before);
    s.flow_mut()
        .expect("a flow")
        .save_custom("scope", "mine", true)
        .expect("saves");
    assert_eq!(pending(&s), Value::Null);
    assert_eq!(at(&s), pos(LANGS, 0, Focus::Options));
    flow(&s).check_invariants().expect("invariants hold");
    press(&mut s, "g");
    s.flow_mut()
        .expect("a flow")
        .set_note("langs", None, "why")
        .expect("sets the note");
    assert_eq!(pending(&s), Value::Null);
}

// Through the protocol ------------------------------------------------------------------------------

#[test]
fn keymap_preset_on_open_and_initialize_comes_before_the_overrides() {
    let mut s = Server::start(&[]);
    let step = s.ok(
        "open",
        json!({ "session": "a", "payload": payload(), "keymapPreset": "vim",
                "keymap": { "main.down": ["ctrl+n"] } }),
    );
    // The override replaces the keys of main.down, the preset's `j` included.
    let down = step["view"]["hints"]
        .as_array()
        .expect("hints")
        .iter()
        .find(|h| h["action"] == json!("main.down"))
        .expect("a down hint")
        .clone();
    assert_eq!(down["keys"], json!(["ctrl+n"]));
    let step = s.ok("keys", json!({ "session": "a", "keys": "kl" }));
    assert_eq!(step["view"]["activeTab"], json!(1));

    // For the connection; a session may opt out with `default`.
    s.ok(
        "initialize",
        json!({ "capabilities": { "keymapPreset": "vim" } }),
    );
    s.open("b", payload());
    let step = s.ok("keys", json!({ "session": "b", "keys": "jg" }));
    assert_eq!(step["view"]["question"]["activeOption"], json!(1));
    assert_eq!(step["view"]["pendingKeys"], json!("g"));
    let step = s.ok("key", json!({ "session": "b", "key": "g" }));
    assert_eq!(step["view"]["question"]["activeOption"], json!(0));
    assert_eq!(step["view"]["pendingKeys"], Value::Null);
    s.ok(
        "open",
        json!({ "session": "c", "payload": payload(), "keymapPreset": "default" }),
    );
    let step = s.ok("key", json!({ "session": "c", "key": "j" }));
    assert_eq!(step["view"]["question"]["activeOption"], json!(0));

    // A connection override that a session's preset conflicts with is refused, naming it.
    s.ok(
        "initialize",
        json!({ "capabilities": { "keymapPreset": "default", "keymap": { "main.toggle": ["g"] } } }),
    );
    let error = s.err(
        "open",
        json!({ "session": "d", "payload": payload(), "keymapPreset": "vim" }),
    );
    assert_eq!(
        error,
        json!({ "code": -32602, "message":
            "invalid params: keymap: keymap action \"main.toggle\": \"g\" starts the sequence \"g g\" of \"main.first\"" })
    );
    let error = s.err(
        "open",
        json!({ "session": "d", "payload": payload(), "keymapPreset": "emacs" }),
    );
    assert_eq!(
        error,
        json!({ "code": -32602, "message":
            "invalid params: keymapPreset: expected \"default\" or \"vim\", got the string \"emacs\"" })
    );
}
