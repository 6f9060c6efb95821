//! Where a question tab opens (`protocol/behaviour.md` §2, *Opening row*): on the row of the
//! answer it holds in every dialect but pi, so that `Enter` keeps what is chosen (a default, or
//! the answer of a question gone back to); on its first row in pi, in both profiles, as the
//! reference does; and as the behaviour option `cursorOnAnswer` says, when it is given.

use crate::common::*;
use askd::core::{EditorTarget, Focus};
use askd::dialect::DialectId;
use askd::session::{BehaviourOptions, OpenOptions, Session, Status};
use serde_json::{Value, json};

/// Opens `payload` in dialect `name` with the behaviour options `behaviour`.
fn open_as(name: &str, payload: &Value, behaviour: Value) -> Session {
    let options: BehaviourOptions = serde_json::from_value(behaviour).expect("valid options");
    let options = OpenOptions {
        dialect: DialectId::named(name),
        behaviour: options.behaviour(),
        ..OpenOptions::default()
    };
    Session::open(payload, &options).unwrap_or_else(|e| panic!("{}", e.message))
}

/// An elicitation form of one field `f`.
fn field(schema: Value) -> Value {
    json!({ "message": "One field", "requestedSchema": { "type": "object", "properties": { "f": schema } } })
}

/// Presses `keys` and answers the flow's result, which must have ended.
fn result_after(s: &mut Session, keys: &str) -> Value {
    press(s, keys);
    assert_eq!(s.status(), Status::Done, "after {keys}");
    s.result().unwrap()
}

#[test]
fn an_mcp_boolean_default_opens_on_its_row_and_enter_keeps_it() {
    for (default, row) in [(false, 1), (true, 0)] {
        let params = field(json!({ "type": "boolean", "default": default }));
        let mut s = open_in("mcp", &params);
        assert_eq!((flow(&s).row(), flow(&s).focus()), (row, Focus::Options));
        // Enter keeps the default; the review's first action accepts.
        assert_eq!(
            result_after(&mut s, "<CR>1"),
            json!({ "action": "accept", "content": { "f": default } })
        );
    }
    // Without a default the first row, Yes.
    let mut s = open_in("mcp", &field(json!({ "type": "boolean" })));
    assert_eq!(flow(&s).row(), 0);
    assert_eq!(
        result_after(&mut s, "<CR>1"),
        json!({ "action": "accept", "content": { "f": true } })
    );
}

#[test]
fn an_mcp_enumeration_with_a_default_submits_the_default_not_the_first_option() {
    let forms = [
        json!({ "type": "string", "enum": ["s", "m", "l"], "default": "l" }),
        json!({ "type": "string", "oneOf": [
            { "const": "s", "title": "Small" }, { "const": "m", "title": "Medium" }, { "const": "l", "title": "Large" } ],
            "default": "l" }),
        json!({ "type": "string", "enum": ["s", "m", "l"], "enumNames": ["Small", "Medium", "Large"], "default": "l" }),
    ];
    for schema in forms {
        let mut s = open_in("mcp", &field(schema.clone()));
        assert_eq!(flow(&s).row(), 2, "{schema}");
        assert_eq!(
            result_after(&mut s, "<CR>1"),
            json!({ "action": "accept", "content": { "f": "l" } }),
            "{schema}"
        );
    }
    // A multi-select default: the first chosen option from the top; Enter changes nothing (the
    // content lists the choices in the order of the values).
    let schema = json!({ "type": "array", "items": { "type": "string", "enum": ["a", "b", "c"] }, "default": ["c", "b"] });
    let mut s = open_in("mcp", &field(schema));
    assert_eq!(flow(&s).row(), 1);
    assert_eq!(
        result_after(&mut s, "<CR>1"),
        json!({ "action": "accept", "content": { "f": ["b", "c"] } })
    );
}

#[test]
fn an_mcp_text_default_opens_its_editor_and_enter_saves_it_again() {
    let mut s = open_in(
        "mcp",
        &field(json!({ "type": "string", "default": "demo" })),
    );
    assert_eq!(
        editor(&s),
        Some((EditorTarget::Custom, "demo".to_owned(), 4))
    );
    assert_eq!(
        result_after(&mut s, "<CR>1"),
        json!({ "action": "accept", "content": { "f": "demo" } })
    );
}

/// Two single questions and a multi one, in each agent's dialect other than mcp.
fn requests() -> Vec<(&'static str, Value)> {
    let claude_q = |q: &str, multi: bool| {
        json!({ "question": q, "header": q, "multiSelect": multi, "options": [
            { "label": "A", "description": "" }, { "label": "B", "description": "" }, { "label": "C", "description": "" } ] })
    };
    let codex_q = |id: &str| {
        json!({ "id": id, "header": id, "question": id, "isOther": false, "isSecret": false, "options": [
            { "label": "A", "description": "" }, { "label": "B", "description": "" }, { "label": "C", "description": "" } ] })
    };
    let opencode_q = |q: &str, multiple: bool| {
        json!({ "question": q, "header": q, "multiple": multiple, "options": [
            { "label": "A", "description": "" }, { "label": "B", "description": "" }, { "label": "C", "description": "" } ] })
    };
    let dsh_q = |id: &str, multi: bool| {
        json!({ "id": id, "question": id, "multiSelect": multi, "options": [
            { "label": "A" }, { "label": "B" }, { "label": "C" } ] })
    };
    vec![
        (
            "claude",
            json!({ "questions": [claude_q("One?", false), claude_q("Two?", false), claude_q("Three?", true)] }),
        ),
        (
            "codex",
            json!({ "threadId": "t", "turnId": "u", "itemId": "i", "isBlocking": true,
                "questions": [codex_q("one"), codex_q("two"), codex_q("three")] }),
        ),
        (
            "opencode",
            json!({ "id": "que_1", "sessionID": "ses_1",
                "questions": [opencode_q("One?", false), opencode_q("Two?", false), opencode_q("Three?", true)] }),
        ),
        (
            "dsh",
            json!({ "questions": [dsh_q("one", false), dsh_q("two", false), dsh_q("three", true)] }),
        ),
    ]
}

#[test]
fn going_back_to_an_answered_question_lands_on_its_answer_and_enter_keeps_it() {
    for (dialect, request) in requests() {
        let mut s = open_in(dialect, &request);
        // One: B; two: C; three: A and C chosen (from the bottom up), or A where codex asks
        // every question as single-select.
        press(&mut s, "23<Down><Down><Space><Up><Up><Space>");
        let third = if dialect == "codex" {
            vec![0]
        } else {
            vec![2, 0]
        };
        let answers = [vec![1], vec![2], third];
        assert_eq!(
            [
                answer(&s, 0).selected,
                answer(&s, 1).selected,
                answer(&s, 2).selected
            ],
            answers,
            "{dialect}"
        );
        press(&mut s, "<S-Tab>");
        assert_eq!((flow(&s).tab(), flow(&s).row()), (1, 2), "{dialect}");
        press(&mut s, "<S-Tab>");
        assert_eq!((flow(&s).tab(), flow(&s).row()), (0, 1), "{dialect}");
        // Enter keeps B and advances to two, which opens on C; Enter keeps C.
        press(&mut s, "<CR>");
        assert_eq!((flow(&s).tab(), flow(&s).row()), (1, 2), "{dialect}");
        press(&mut s, "<CR>");
        // Three opens on its first chosen option from the top.
        assert_eq!((flow(&s).tab(), flow(&s).row()), (2, 0), "{dialect}");
        press(&mut s, "<CR>");
        assert_eq!(flow(&s).focus(), Focus::Review, "{dialect}");
        assert_eq!(
            [
                answer(&s, 0).selected,
                answer(&s, 1).selected,
                answer(&s, 2).selected
            ],
            answers,
            "{dialect}"
        );
        // Wrapping round from the review tab lands on the answer too.
        press(&mut s, "<Tab>");
        assert_eq!((flow(&s).tab(), flow(&s).row()), (0, 1), "{dialect}");
    }
}

#[test]
fn custom_text_gone_back_to_lands_on_its_row_and_enter_enter_saves_it_again() {
    let request = json!({ "threadId": "t", "turnId": "u", "itemId": "i", "isBlocking": true, "questions": [
        { "id": "db", "header": "DB", "question": "Which?", "isOther": true, "isSecret": false,
          "options": [ { "label": "A", "description": "" }, { "label": "B", "description": "" } ] },
        { "id": "go", "header": "Go", "question": "Go?", "isOther": false, "isSecret": false,
          "options": [ { "label": "Yes", "description": "" } ] } ] });
    let mut s = open_in("codex", &request);
    press(&mut s, "3our own<CR>");
    assert_eq!(flow(&s).tab(), 1);
    // Back on the custom row, its editor closed: the tab keys pass through.
    press(&mut s, "<S-Tab>");
    assert_eq!((flow(&s).row(), editor(&s)), (2, None));
    press(&mut s, "<S-Tab><Tab>");
    assert_eq!((flow(&s).tab(), flow(&s).row(), editor(&s)), (0, 2, None));
    // Enter opens it pre-filled; Enter saves the same text and advances; Yes; Submit.
    press(&mut s, "<CR>");
    assert_eq!(
        editor(&s),
        Some((EditorTarget::Custom, "our own".to_owned(), 7))
    );
    press(&mut s, "<CR>11");
    assert_eq!(
        s.result().unwrap(),
        json!({ "answers": {
            "db": { "answers": ["None of the above", "user_note: our own"] },
            "go": { "answers": ["Yes"] } } })
    );
}

#[test]
fn pi_opens_every_tab_on_its_first_row_in_both_profiles_unless_the_option_says_otherwise() {
    let payload = json!({ "questions": [
        { "id": "one", "prompt": "One?", "type": "single", "options": [
            { "value": "a", "label": "A" }, { "value": "b", "label": "B" }, { "value": "c", "label": "C" } ] },
        { "id": "two", "prompt": "Two?", "type": "single", "options": [
            { "value": "a", "label": "A" }, { "value": "b", "label": "B" } ] } ] });
    for profile in ["seed", "pi-0.9"] {
        for (option, row, kept) in [
            (json!({}), 0, "a"),
            (json!({ "cursorOnAnswer": false }), 0, "a"),
            (json!({ "cursorOnAnswer": true }), 2, "c"),
        ] {
            let mut behaviour = json!({ "profile": profile });
            behaviour
                .as_object_mut()
                .unwrap()
                .extend(option.as_object().unwrap().clone());
            let mut s = open_as("pi", &payload, behaviour);
            press(&mut s, "3<S-Tab>");
            assert_eq!(
                (flow(&s).tab(), flow(&s).row()),
                (0, row),
                "{profile} {option}"
            );
            press(&mut s, "<CR><Tab>1");
            assert_eq!(
                s.result().unwrap()["details"]["answers"]["one"]["values"],
                json!([kept]),
                "{profile} {option}"
            );
        }
    }
}

#[test]
fn the_option_turns_the_rule_off_in_the_other_dialects() {
    let params = field(json!({ "type": "boolean", "default": false }));
    let mut s = open_as("mcp", &params, json!({ "cursorOnAnswer": false }));
    assert_eq!(flow(&s).row(), 0);
    assert_eq!(
        result_after(&mut s, "<CR>1"),
        json!({ "action": "accept", "content": { "f": true } })
    );
    let s = open_as("mcp", &params, json!({ "cursorOnAnswer": true }));
    assert_eq!(flow(&s).row(), 1);
}

#[test]
fn a_snapshot_keeps_the_option_and_a_restored_flow_follows_it() {
    let payload = json!({ "questions": [
        { "id": "one", "prompt": "One?", "type": "single", "options": [
            { "value": "a", "label": "A" }, { "value": "b", "label": "B" } ] },
        { "id": "two", "prompt": "Two?", "type": "single", "options": [
            { "value": "a", "label": "A" } ] } ] });
    let mut s = open_as("pi", &payload, json!({ "cursorOnAnswer": true }));
    press(&mut s, "2");
    let mut restored = round_trip(&s, &payload, &Value::Null);
    press(&mut restored, "<S-Tab>");
    assert_eq!(flow(&restored).row(), 1);
}
