//! The mcp dialect (MCP `elicitation/create`, form mode): the form's mapping, defaults, the
//! checks of values before they are saved and of answers before Accept, the refusal of
//! requests it cannot ask, the result of every ending, answer sets, transcripts and snapshots.

use crate::common::*;
use askd::core::{Answer, CancelReason, FlowError, Focus, Outcome, QuestionType};
use askd::dialect::mcp::{is_date, is_date_time, is_email, is_uri};
use askd::session::{OpenOptions, Session, Status};
use askd::view;
use serde_json::{Value, json};

/// The `params` of the request of the mcp example of `protocol/dialects.md`.
fn form() -> Value {
    json!({
        "mode": "form",
        "message": "Set up the deployment",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name":     { "type": "string", "title": "App name", "minLength": 3, "maxLength": 30, "default": "demo" },
                "email":    { "type": "string", "title": "Contact", "format": "email" },
                "replicas": { "type": "integer", "title": "Replicas", "minimum": 1, "maximum": 5, "default": 2 },
                "public":   { "type": "boolean", "title": "Public URL", "default": false },
                "region":   { "type": "string", "title": "Region",
                              "oneOf": [ { "const": "eu-west-1", "title": "Ireland" }, { "const": "us-east-1", "title": "Virginia" } ] },
                "size":     { "type": "string", "enum": ["s", "m", "l"], "enumNames": ["Small", "Medium", "Large"] },
                "features": { "type": "array", "title": "Features", "minItems": 1, "maxItems": 2,
                              "items": { "anyOf": [ { "const": "logs", "title": "Logs" }, { "const": "metrics", "title": "Metrics" }, { "const": "traces", "title": "Traces" } ] },
                              "default": ["logs"] }
            },
            "required": ["name", "region", "features"]
        }
    })
}

/// Opens `params` as the deploy server's request.
/// The options the forms of these tests are opened with.
fn requester() -> Value {
    json!({ "requester": { "name": "deploy-server" } })
}

fn open_form(params: &Value) -> Session {
    try_open_in("mcp", params, requester()).unwrap_or_else(|e| panic!("{}", e.message))
}

/// A form of one property.
fn field(schema: Value) -> Value {
    json!({ "message": "One field", "requestedSchema": { "type": "object", "properties": { "f": schema } } })
}

/// The error `open` fails with.
fn refused(params: &Value, options: Value) -> (i32, String, Option<Value>) {
    match try_open_in("mcp", params, options) {
        Ok(_) => panic!("{params} must be refused"),
        Err(e) => (e.code, e.message, e.data),
    }
}

#[test]
fn the_documented_example_accepts_with_typed_content() {
    let mut s = open_form(&form());
    // name: "shop"; email left out; replicas 3; public Yes; Ireland; Medium; Logs and Metrics.
    press(&mut s, "<C-u>shop<CR><Tab><C-u>3<CR>1122<Tab>");
    assert_eq!(flow(&s).focus(), Focus::Review);
    press(&mut s, "1");
    assert_eq!(
        s.result().unwrap(),
        json!({ "action": "accept", "content": {
            "name": "shop", "replicas": 3, "public": true, "region": "eu-west-1", "size": "m", "features": ["logs", "metrics"] } })
    );
    let transcript = s.transcript().unwrap();
    assert_eq!(
        transcript.call,
        "elicitation/create from deploy-server: 7 fields (App name, Contact, Replicas, Public URL, Region...)"
    );
    assert_eq!(
        transcript.result,
        "✓ App name: shop\n- Contact: (skipped)\n✓ Replicas: 3\n✓ Public URL: Yes\n✓ Region: Ireland\n✓ size: Medium\n✓ Features: Logs, Metrics"
    );
}

#[test]
fn decline_and_cancel_carry_no_content() {
    let mut s = open_form(&form());
    press(&mut s, "<Esc><S-Tab>2");
    assert_eq!(s.result().unwrap(), json!({ "action": "decline" }));
    assert_eq!(s.transcript().unwrap().result, "Declined");
    let mut s = open_form(&form());
    press(&mut s, "<Esc><S-Tab>3");
    assert_eq!(s.result().unwrap(), json!({ "action": "cancel" }));
    assert_eq!(s.transcript().unwrap().result, "Cancelled");
    let mut s = open_form(&form());
    press(&mut s, "<Esc><Esc>");
    assert_eq!(s.result().unwrap(), json!({ "action": "cancel" }));
    let mut s = open_form(&form());
    s.flow_mut().unwrap().cancel(CancelReason::Aborted).unwrap();
    assert_eq!(s.result().unwrap(), json!({ "action": "cancel" }));
    assert_eq!(
        s.transcript().unwrap().result,
        "Cancelled (withdrawn by the asker)"
    );
    let mut s = open_form(&form());
    s.flow_mut().unwrap().decline().unwrap();
    assert_eq!(s.result().unwrap(), json!({ "action": "decline" }));
    let options = OpenOptions {
        dialect: askd::dialect::DialectId::named("mcp"),
        has_ui: false,
        ..OpenOptions::default()
    };
    let s = Session::open(&form(), &options).unwrap();
    assert_eq!(s.result().unwrap(), json!({ "action": "cancel" }));
    assert_eq!(s.transcript().unwrap().result, "Not asked: no UI");
}

#[test]
fn the_form_maps_onto_tabs_with_defaults_filled_in() {
    let s = open_form(&form());
    let spec = flow(&s).spec();
    let tabs: Vec<(&str, &str, QuestionType, bool)> = spec
        .questions
        .iter()
        .map(|q| (q.label.as_str(), q.prompt.as_str(), q.kind, q.required))
        .collect();
    assert_eq!(
        tabs,
        [
            ("App name", "App name", QuestionType::Single, true),
            ("Contact", "Contact", QuestionType::Single, false),
            ("Replicas", "Replicas", QuestionType::Single, false),
            ("Public URL", "Public URL", QuestionType::Single, false),
            ("Region", "Region", QuestionType::Single, true),
            ("size", "size", QuestionType::Single, false),
            ("Features", "Features", QuestionType::Multi, true),
        ]
    );
    let answers = flow(&s).answers();
    assert_eq!(answers[0].custom_text.as_deref(), Some("demo"));
    assert_eq!(answers[2].custom_text.as_deref(), Some("2"));
    assert_eq!(answers[3].selected, [1]);
    assert_eq!(answers[6].selected, [0]);
    assert!(answers[1].is_empty() && answers[4].is_empty() && answers[5].is_empty());
    let v = view::build("s", &s);
    assert_eq!(v.title.as_deref(), Some("Set up the deployment"));
    assert_eq!(v.requester.as_deref(), Some("deploy-server"));
    assert_eq!(v.tabs.last().unwrap().label, "Accept");
    assert_eq!(v.focus, Focus::Input);
    assert_eq!(v.editor.unwrap().text, "demo");
    let row = &v.question.unwrap().rows[0];
    assert_eq!(
        (row.label.as_str(), row.description.as_deref()),
        ("Enter a value", Some("3 to 30 characters"))
    );
    assert_eq!(
        screen(&s, 70),
        "──────────────────────────────────────────────────────────────────────\n Set up the deployment\n Requested by deploy-server\n [■ App name]  □ Contact   ■ Replicas   ■ Public URL   □ Region\n  □ size   ■ Features   ✓ Accept\n\n App name\n\n ❯ 1. ● Enter a value\n        3 to 30 characters\n   ╭─ Your answer ──────────────────────────────────────────────────╮\n   │ demo                                                           │\n   ╰────────────────────────────────────────────────────────────────╯\n\n enter save · shift+enter/alt+enter new line · esc close ·\n ctrl+c dismiss\n 4/7 answered\n──────────────────────────────────────────────────────────────────────\n"
    );
}

#[test]
fn titles_and_descriptions_make_prompts_and_details() {
    let params = json!({ "message": "", "requestedSchema": { "type": "object", "properties": {
        "a": { "type": "boolean", "title": "Title A", "description": "About A" },
        "b": { "type": "boolean", "description": "About B" },
        "c": { "type": "boolean" }
    } } });
    let s = open_form(&params);
    let spec = flow(&s).spec();
    let got: Vec<(&str, &str, Option<&str>)> = spec
        .questions
        .iter()
        .map(|q| (q.label.as_str(), q.prompt.as_str(), q.detail.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("Title A", "Title A", Some("About A")),
            ("b", "About B", None),
            ("c", "c", None)
        ]
    );
    assert_eq!(spec.title, None);
    let options: Vec<(&str, &str)> = spec.questions[0]
        .options
        .iter()
        .map(|o| (o.value.as_str(), o.label.as_str()))
        .collect();
    assert_eq!(options, [("true", "Yes"), ("false", "No")]);
    assert!(!spec.has_custom_row(&spec.questions[0]));
}

#[test]
fn a_value_that_fails_its_check_is_refused_in_the_editor() {
    let mut s = open_form(&form());
    press(&mut s, "<C-u>sh<CR>");
    let v = view::build("s", &s);
    assert_eq!(v.focus, Focus::Input);
    assert_eq!(
        v.editor.as_ref().unwrap().error.as_deref(),
        Some("Enter at least 3 characters")
    );
    assert!(screen(&s, 70).contains("     ✗ Enter at least 3 characters\n"));
    // Nothing was saved: the default stays until a value passes.
    assert_eq!(flow(&s).answers()[0].custom_text.as_deref(), Some("demo"));
    // Esc is refused alike; typing clears the reason.
    press(&mut s, "<Esc>");
    assert_eq!(flow(&s).focus(), Focus::Input);
    press(&mut s, "o");
    assert_eq!(view::build("s", &s).editor.unwrap().error, None);
    press(&mut s, "p<CR>");
    assert_eq!(flow(&s).answers()[0].custom_text.as_deref(), Some("shop"));
    assert_eq!(flow(&s).tab(), 1);
    // saveCustom is refused with the same reason.
    let err = s
        .flow_mut()
        .unwrap()
        .save_custom("email", "not an address", false)
        .unwrap_err();
    assert_eq!(
        err,
        FlowError::Refused("Enter an email address, such as name@example.com".to_owned())
    );
    // A blank value is no value, and always saves.
    press(&mut s, "x<C-u><CR>");
    assert_eq!(flow(&s).answers()[1].custom_text, None);
}

#[test]
fn every_check_of_a_typed_value() {
    let cases: &[(Value, &str, Option<&str>)] = &[
        (
            json!({ "type": "string", "minLength": 2 }),
            "é",
            Some("Enter at least 2 characters"),
        ),
        (json!({ "type": "string", "minLength": 2 }), "😀😀", None),
        (
            json!({ "type": "string", "maxLength": 1 }),
            "ab",
            Some("Enter at most 1 character"),
        ),
        (
            json!({ "type": "string", "format": "uri" }),
            "example.com",
            Some("Enter a URI with its scheme, such as https://example.com"),
        ),
        (
            json!({ "type": "string", "format": "uri" }),
            "https://example.com/a?b=%20",
            None,
        ),
        (
            json!({ "type": "string", "format": "date" }),
            "2025-02-29",
            Some("Enter a date as YYYY-MM-DD"),
        ),
        (
            json!({ "type": "string", "format": "date" }),
            "2024-02-29",
            None,
        ),
        // As the SDK's validator reads a date-time: a space may stand for the `T`.
        (
            json!({ "type": "string", "format": "date-time" }),
            "2025-06-01 10:00:00Z",
            None,
        ),
        (
            json!({ "type": "string", "format": "date-time" }),
            "2025-06-01T10:00:00",
            Some(
                "Enter a date and time as YYYY-MM-DDThh:mm:ssZ (or with an offset, such as +02:00)",
            ),
        ),
        // The SDK's email: ASCII, and a domain of two labels at least.
        (
            json!({ "type": "string", "format": "email" }),
            "a@b",
            Some("Enter an email address, such as name@example.com"),
        ),
        (
            json!({ "type": "string", "format": "email" }),
            "jörg@example.com",
            Some("Enter an email address, such as name@example.com"),
        ),
        (
            json!({ "type": "string", "format": "email" }),
            "jorg@example.com",
            None,
        ),
        // ECMA-262 as the SDK's validator compiles it: `\d` and `\w` are ASCII.
        (
            json!({ "type": "string", "pattern": "^\\d+$" }),
            "١٢٣",
            Some("Enter a value that matches the pattern ^\\d+$"),
        ),
        (
            json!({ "type": "string", "pattern": "^\\d+$" }),
            "123",
            None,
        ),
        (
            json!({ "type": "string", "pattern": "^\\w+$" }),
            "café",
            Some("Enter a value that matches the pattern ^\\w+$"),
        ),
        (
            json!({ "type": "string", "pattern": "^\\w+$" }),
            "cafe",
            None,
        ),
        (
            json!({ "type": "string", "format": "date-time" }),
            "2025-06-01T10:00:00.5+02:00",
            None,
        ),
        (json!({ "type": "number" }), "1,5", Some("Enter a number")),
        (
            json!({ "type": "number", "minimum": 0.5 }),
            "0.25",
            Some("Enter a number of at least 0.5"),
        ),
        (json!({ "type": "number", "maximum": 10 }), "-1.5e1", None),
        (
            json!({ "type": "integer" }),
            "2.5",
            Some("Enter a whole number"),
        ),
        (
            json!({ "type": "integer", "minimum": 1, "maximum": 5 }),
            "9",
            Some("Enter a whole number from 1 to 5"),
        ),
        (
            json!({ "type": "integer", "maximum": 5 }),
            "6",
            Some("Enter a whole number of at most 5"),
        ),
        (
            json!({ "type": "string", "pattern": "^[A-Za-z]+$" }),
            "abc1",
            Some("Enter a value that matches the pattern ^[A-Za-z]+$"),
        ),
        (
            json!({ "type": "string", "pattern": "^[A-Za-z]+$" }),
            "Shop",
            None,
        ),
        // An expression that backtracks exponentially on a sentence ending in punctuation is
        // matched in linear time: the refusal comes at once.
        (
            json!({ "type": "string", "pattern": "^(\\w+\\s?)*$" }),
            "the quick brown fox jumps over the lazy dog and runs far away into the woods!",
            Some("Enter a value that matches the pattern ^(\\w+\\s?)*$"),
        ),
        // Not anchored: the expression may match any part of the value.
        (
            json!({ "type": "string", "pattern": "[0-9]" }),
            "abc",
            Some("Enter a value that matches the pattern [0-9]"),
        ),
        (
            json!({ "type": "string", "pattern": "[0-9]" }),
            "abc1def",
            None,
        ),
        // Unicode mode: property escapes, and a character beyond the BMP is one `.`.
        (
            json!({ "type": "string", "pattern": "^\\p{L}+$" }),
            "Ünïcödé",
            None,
        ),
        (
            json!({ "type": "string", "pattern": "^\\p{L}+$" }),
            "Ünï-cödé",
            Some("Enter a value that matches the pattern ^\\p{L}+$"),
        ),
        (json!({ "type": "string", "pattern": "^.$" }), "😀", None),
        // The value is trimmed before it is checked, as before it is sent.
        (
            json!({ "type": "string", "pattern": "^[a-z]+$" }),
            "  shop ",
            None,
        ),
        // Length, then format, then pattern.
        (
            json!({ "type": "string", "minLength": 3, "pattern": "^[a-z]+$" }),
            "A",
            Some("Enter at least 3 characters"),
        ),
        (
            json!({ "type": "string", "format": "email", "pattern": "@example\\.com$" }),
            "not an address",
            Some("Enter an email address, such as name@example.com"),
        ),
        (
            json!({ "type": "string", "format": "email", "pattern": "@example\\.com$" }),
            "a@example.org",
            Some("Enter a value that matches the pattern @example\\.com$"),
        ),
        (
            json!({ "type": "string", "format": "email", "pattern": "@example\\.com$" }),
            "a@example.com",
            None,
        ),
    ];
    for (schema, text, expected) in cases {
        let mut s = open_form(&field(schema.clone()));
        let got = s.flow_mut().unwrap().save_custom("f", text, false).err();
        assert_eq!(
            got,
            expected.map(|m| FlowError::Refused(m.to_owned())),
            "{schema} with {text:?}"
        );
    }
}

#[test]
fn a_pattern_describes_its_row_refuses_in_the_editor_and_checks_defaults_and_answer_sets() {
    let params = json!({ "message": "Name the branch", "requestedSchema": { "type": "object", "properties": {
        "branch": { "type": "string", "title": "Branch", "maxLength": 20, "pattern": "^[a-z][a-z0-9-]*$", "default": "Main" },
        "tag": { "type": "string", "title": "Tag", "pattern": "^v[0-9]+$", "default": "v2" }
    }, "required": ["branch"] } });
    let mut s = open_form(&params);
    // A default that does not match is left out; one that matches is filled in.
    assert_eq!(flow(&s).answers()[0].custom_text, None);
    assert_eq!(flow(&s).answers()[1].custom_text.as_deref(), Some("v2"));
    let v = view::build("s", &s);
    let row = &v.question.unwrap().rows[0];
    assert_eq!(
        (row.label.as_str(), row.description.as_deref()),
        (
            "Enter a value",
            Some("At most 20 characters, matching the pattern ^[a-z][a-z0-9-]*$")
        )
    );
    press(&mut s, "Feature/x<CR>");
    let v = view::build("s", &s);
    assert_eq!(v.focus, Focus::Input);
    assert_eq!(
        v.editor.unwrap().error.as_deref(),
        Some("Enter a value that matches the pattern ^[a-z][a-z0-9-]*$")
    );
    assert_eq!(flow(&s).answers()[0].custom_text, None);
    press(&mut s, "<C-u>feature-x<CR><CR>");
    assert_eq!(flow(&s).focus(), Focus::Review);
    press(&mut s, "1");
    assert_eq!(
        s.result().unwrap(),
        json!({ "action": "accept", "content": { "branch": "feature-x", "tag": "v2" } })
    );
    // The row of a pattern alone, and the answer sets, check alike.
    let s = open_form(&field(json!({ "type": "string", "pattern": "^v[0-9]+$" })));
    assert_eq!(
        view::build("s", &s).question.unwrap().rows[0]
            .description
            .as_deref(),
        Some("Matching the pattern ^v[0-9]+$")
    );
    let mut s = open_form(&params);
    let before = s.clone();
    let err = s
        .submit_answer_set(
            &json!({ "action": "accept", "content": { "branch": "Main" } }),
            Outcome::Submit,
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the custom answer of \"branch\" is refused: Enter a value that matches the pattern ^[a-z][a-z0-9-]*$"
    );
    assert_eq!(s, before);
}

/// The problems the review shows for each field, in order.
fn problems(s: &Session) -> Vec<(String, Option<String>)> {
    view::build("s", s)
        .review
        .unwrap()
        .questions
        .iter()
        .map(|q| (q.id.clone(), q.problem.clone()))
        .collect()
}

/// Moves to tab `tab` (0-based; the review after the fields) with Tab, closing an editor first.
fn go_to(s: &mut Session, tab: usize) {
    while flow(s).tab() != tab {
        if flow(s).editor().is_some() {
            press(s, "<C-u><Esc>");
        } else {
            press(s, "<Tab>");
        }
    }
    if flow(s).editor().is_some() {
        press(s, "<C-u><Esc>");
    }
}

/// The description of the row of field `tab` (0-based).
fn row_description(s: &mut Session, tab: usize) -> Option<String> {
    go_to(s, tab);
    view::build("s", s).question.unwrap().rows[0]
        .description
        .clone()
}

/// A pattern the SDK's validator cannot compile (not a valid ECMA-262 expression, or not a
/// string) fails every accept of the form: the form opens, the field says why and takes no
/// value, and Accept waits forever while Decline and Cancel answer. A valid pattern askd cannot
/// match in linear time (a backreference, a lookaround) makes a field that takes no value: the
/// form can be accepted without it unless it is required.
#[test]
fn a_pattern_that_cannot_be_checked_opens_with_the_reason() {
    let params = json!({ "message": "m", "requestedSchema": { "type": "object", "properties": {
        "a": { "type": "string", "pattern": "(" },
        "d": { "type": "string", "pattern": "^ok$" },
        "e": { "type": "string", "pattern": "^(a)\\1$" },
        "f": { "type": "string", "pattern": "^(?=.*\\d).{8,}$" }
    }, "required": ["f"] } });
    let mut s = open_form(&params);
    assert_eq!(s.status(), Status::Open);
    assert_eq!(
        row_description(&mut s, 0).as_deref(),
        Some(
            "Its pattern \"(\" is not a valid regular expression (Unbalanced parenthesis), so the server cannot check any answer to this form"
        )
    );
    assert_eq!(
        row_description(&mut s, 2).as_deref(),
        Some("askd cannot check its pattern \"^(a)\\\\1$\": it uses a backreference")
    );
    // The row is inert: no editor opens, no key answers it.
    press(&mut s, "x<Space>3");
    assert_eq!((flow(&s).tab(), flow(&s).editor()), (2, None));
    assert_eq!(answer(&s, 2), Answer::default());
    go_to(&mut s, 4);
    assert_eq!(
        problems(&s),
        [
            ("a".to_owned(), Some("The form cannot be accepted: this field cannot be answered (its pattern \"(\" is not a valid regular expression (Unbalanced parenthesis), so the server cannot check any answer to this form)".to_owned())),
            ("d".to_owned(), None),
            ("e".to_owned(), None),
            ("f".to_owned(), Some("The form cannot be accepted: this field cannot be answered (askd cannot check its pattern \"^(?=.*\\\\d).{8,}$\": it uses a lookaround)".to_owned())),
        ]
    );
    press(&mut s, "1");
    assert_eq!(s.status(), Status::Open);
    press(&mut s, "2");
    assert_eq!(s.result().unwrap(), json!({ "action": "decline" }));
    let mut s = open_form(&field(json!({ "type": "string", "pattern": 5 })));
    press(&mut s, "<Tab>");
    assert_eq!(
        problems(&s)[0].1.as_deref(),
        Some(
            "The form cannot be accepted: this field cannot be answered (its pattern is not a string, so the server cannot check any answer to this form)"
        )
    );
    press(&mut s, "3");
    assert_eq!(s.result().unwrap(), json!({ "action": "cancel" }));
    // A backreference pattern on an optional field: the form is accepted without it.
    let mut s = open_form(&field(json!({ "type": "string", "pattern": "^(a)\\1$" })));
    press(&mut s, "<Tab>1");
    assert_eq!(
        s.result().unwrap(),
        json!({ "action": "accept", "content": {} })
    );
}

/// The forms the MCP SDK accepts though no answer (or no answer with that field) can satisfy
/// them open, each such field saying why, with Decline and Cancel available; a required one
/// keeps Accept waiting. Fields the SDK reads as given keep their answerable part: duplicate
/// values are offered once, names missing from `enumNames` show the value, `enum` with `oneOf`
/// offers the values both allow.
#[test]
fn forms_no_answer_can_satisfy_open_with_the_reason_shown() {
    let params = json!({ "message": "m", "requestedSchema": { "type": "object", "properties": {
        "empty": { "type": "string", "enum": [] },
        "short": { "type": "string", "minLength": 4, "maxLength": 2 },
        "range": { "type": "integer", "minimum": 5, "maximum": 1 },
        "twice": { "type": "string", "enum": ["x", "x", "y"] },
        "names": { "type": "string", "enum": ["x", "y"], "enumNames": ["X"] },
        "both": { "type": "string", "enum": ["a", "b", "c"], "oneOf": [
            { "const": "b", "title": "Bee" }, { "const": "c", "title": "Sea" }, { "const": "c", "title": "See" }, { "const": "d", "title": "Dee" } ] },
        "none": { "type": "string", "enum": ["a"], "oneOf": [{ "const": "b", "title": "B" }] },
        "many": { "type": "array", "minItems": 3, "items": { "anyOf": [{ "const": "x", "title": "X" }, { "const": "y", "title": "Y" }] } },
        "fits": { "type": "string", "enum": ["a", "bb"], "minLength": 2 }
    }, "required": ["short", "gone", "gone"] } });
    let mut s = open_form(&params);
    assert_eq!(s.status(), Status::Open);
    let spec = flow(&s).spec().clone();
    let ids: Vec<&str> = spec.questions.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "empty", "short", "range", "twice", "names", "both", "none", "many", "fits", "gone"
        ]
    );
    let labels = |i: usize| -> Vec<(String, String)> {
        spec.questions[i]
            .options
            .iter()
            .map(|o| (o.value.clone(), o.label.clone()))
            .collect()
    };
    let pair = |v: &str, l: &str| (v.to_owned(), l.to_owned());
    assert_eq!(labels(3), [pair("x", "x"), pair("y", "y")]);
    assert_eq!(labels(4), [pair("x", "X"), pair("y", "y")]);
    assert_eq!(labels(5), [pair("b", "Bee")]);
    assert_eq!(labels(8), [pair("bb", "bb")]);
    for (tab, reason) in [
        (0, "Its list of values is empty"),
        (1, "It asks for at least 4 and at most 2 characters"),
        (2, "It asks for a whole number of at least 5 and at most 1"),
        (6, "No value is in both its enum and its oneOf"),
        (7, "It asks for at least 3 choices of 2 values"),
        (9, "The form requires it but does not describe it"),
    ] {
        let row = {
            go_to(&mut s, tab);
            view::build("s", &s).question.unwrap().rows[0].clone()
        };
        assert_eq!(
            (row.label.as_str(), row.description.as_deref()),
            ("Cannot be answered", Some(reason)),
            "{tab}"
        );
    }
    go_to(&mut s, 10);
    let blocked: Vec<(String, Option<String>)> = problems(&s)
        .into_iter()
        .filter(|(_, p)| p.is_some())
        .collect();
    assert_eq!(
        blocked,
        [
            ("short".to_owned(), Some("The form cannot be accepted: this field cannot be answered (it asks for at least 4 and at most 2 characters)".to_owned())),
            ("gone".to_owned(), Some("The form cannot be accepted: this field cannot be answered (the form requires it but does not describe it)".to_owned())),
        ]
    );
    press(&mut s, "1");
    assert_eq!(s.status(), Status::Open);
    press(&mut s, "2");
    assert_eq!(s.result().unwrap(), json!({ "action": "decline" }));
    // Without the required ones, the answerable fields are accepted.
    let mut optional = params.clone();
    optional["requestedSchema"]["required"] = json!([]);
    let mut s = open_form(&optional);
    go_to(&mut s, 3);
    press(&mut s, "2");
    go_to(&mut s, 5);
    press(&mut s, "1");
    go_to(&mut s, 9);
    press(&mut s, "1");
    assert_eq!(
        s.result().unwrap(),
        json!({ "action": "accept", "content": { "twice": "y", "both": "b" } })
    );
}

/// The `Cannot be answered` row of a field no answer can satisfy is inert: no editor opens on
/// it, no key or answer set gives the field a value, and `Enter` only moves on; the form is
/// accepted without the field, unless it is required, and declined or cancelled as always.
#[test]
fn a_field_no_answer_can_satisfy_has_an_inert_row() {
    for required in [false, true] {
        let mut params = field(json!({ "type": "string", "enum": [] }));
        if required {
            params["requestedSchema"]["required"] = json!(["f"]);
        }
        let mut s = open_form(&params);
        assert_eq!((flow(&s).row(), flow(&s).focus()), (0, Focus::Options));
        assert!(flow(&s).editor().is_none());
        press(&mut s, "1<Space>x<Down><Up>");
        assert_eq!((flow(&s).tab(), flow(&s).row()), (0, 0));
        assert!(flow(&s).editor().is_none());
        assert_eq!(answer(&s, 0), Answer::default());
        assert!(matches!(
            s.flow_mut().unwrap().save_custom("f", "x", false),
            Err(FlowError::NoCustomAnswer(_))
        ));
        let before = s.clone();
        let refused = s.submit_answer_set(
            &json!({ "action": "accept", "content": { "f": "x" } }),
            Outcome::Submit,
        );
        assert!(refused.is_err());
        assert_eq!(s, before);
        press(&mut s, "<CR>");
        assert_eq!(flow(&s).focus(), Focus::Review);
        press(&mut s, "1");
        if required {
            // Accept waits; Decline answers.
            assert_eq!(s.status(), Status::Open);
            press(&mut s, "2");
            assert_eq!(s.result().unwrap(), json!({ "action": "decline" }));
        } else {
            assert_eq!(
                s.result().unwrap(),
                json!({ "action": "accept", "content": {} })
            );
        }
    }
}

/// What the MCP SDK's request schema refuses is refused, naming the field; `task` and `_meta`
/// of the shapes it reads are taken and never echoed.
#[test]
fn task_and_meta_are_not_read_and_not_echoed() {
    let mut with = form();
    with["task"] = json!({ "ttl": 60000 });
    with["_meta"] = json!({ "progressToken": "p1", "io.modelcontextprotocol/related-task": { "taskId": "t1" } });
    let keys = "<C-u>shop<CR><Tab><C-u>3<CR>1122<Tab>";
    let expected = json!({ "action": "accept", "content": {
        "name": "shop", "replicas": 3, "public": true, "region": "eu-west-1", "size": "m", "features": ["logs", "metrics"] } });
    let mut plain = open_form(&form());
    let mut s = open_form(&with);
    assert_eq!(screen(&s, 70), screen(&plain, 70));
    press(&mut s, keys);
    press(&mut s, "1");
    assert_eq!(s.result().unwrap(), expected);
    press(&mut plain, keys);
    press(&mut plain, "1");
    assert_eq!(plain.result().unwrap(), expected);
    // A `_meta` of null, as Codex forwards an elicitation without one
    // (`mcpServer/elicitation/request`, Codex's own members left out), is taken as absent.
    let mut codex = form();
    codex["_meta"] = Value::Null;
    let mut s = open_form(&codex);
    assert_eq!(screen(&s, 70), screen(&open_form(&form()), 70));
    press(&mut s, keys);
    press(&mut s, "1");
    assert_eq!(s.result().unwrap(), expected);
    let mut odd = form();
    odd["task"] = json!({ "ttl": "soon" });
    odd["_meta"] = json!(7);
    assert_eq!(
        refused(&odd, Value::Null).1,
        "Invalid params: _meta: must be an object; task.ttl: must be a number"
    );
}

#[test]
fn without_a_requester_the_view_names_none_and_the_call_line_no_server() {
    let mut s = open_in("mcp", &form());
    let v = view::build("s", &s);
    assert_eq!(v.requester, None);
    assert_eq!(
        screen(&s, 70),
        "──────────────────────────────────────────────────────────────────────\n Set up the deployment\n [■ App name]  □ Contact   ■ Replicas   ■ Public URL   □ Region\n  □ size   ■ Features   ✓ Accept\n\n App name\n\n ❯ 1. ● Enter a value\n        3 to 30 characters\n   ╭─ Your answer ──────────────────────────────────────────────────╮\n   │ demo                                                           │\n   ╰────────────────────────────────────────────────────────────────╯\n\n enter save · shift+enter/alt+enter new line · esc close ·\n ctrl+c dismiss\n 4/7 answered\n──────────────────────────────────────────────────────────────────────\n"
    );
    press(&mut s, "<Esc><S-Tab>3");
    assert_eq!(
        s.transcript().unwrap().call,
        "elicitation/create 7 fields (App name, Contact, Replicas, Public URL, Region...)"
    );
}

#[test]
fn the_call_line_cuts_labels_to_47_columns_and_an_ellipsis() {
    let call = |titles: &[&str]| {
        let properties: serde_json::Map<String, Value> = titles
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("p{i}"), json!({ "type": "boolean", "title": t })))
            .collect();
        let params = json!({ "message": "m", "requestedSchema": { "type": "object", "properties": properties } });
        let mut s = open_form(&params);
        s.flow_mut().unwrap().cancel(CancelReason::User).unwrap();
        s.transcript().unwrap().call
    };
    let (ten, twenty) = ("x".repeat(10), "y".repeat(20));
    // 20 + 2 + 20 + 2 + 6 = 50 columns: shown whole.
    assert_eq!(
        call(&[&twenty, &twenty, "一二三"]),
        format!("elicitation/create from deploy-server: 3 fields ({twenty}, {twenty}, 一二三)")
    );
    // 52 columns: cut to 47, where 二 would straddle column 47 and is left out whole.
    assert_eq!(
        call(&[&twenty, &twenty, "一二三四"]),
        format!("elicitation/create from deploy-server: 3 fields ({twenty}, {twenty}, 一...)")
    );
    assert_eq!(
        call(&[&ten, &ten, &ten, &ten, &ten]),
        format!("elicitation/create from deploy-server: 5 fields ({ten}, {ten}, {ten}, {ten},...)")
    );
    assert_eq!(
        call(&["Only"]),
        "elicitation/create from deploy-server: 1 field (Only)"
    );
    // A form without fields has no parenthesised part.
    assert_eq!(call(&[]), "elicitation/create from deploy-server: 0 fields");
}

/// The formats as the MCP SDK's validator (ajv-formats, full mode) checks them.
#[test]
fn the_formats() {
    for good in [
        "a@b.co",
        "first.last+tag@sub.example.org",
        "x{y}@a-b.c9",
        "UPPER@EXAMPLE.COM",
    ] {
        assert!(is_email(good), "{good}");
    }
    for bad in [
        "",
        "a",
        "@b.c",
        "a@",
        "a b@c.d",
        "a@-b.c",
        "a@b..c",
        "a@b",
        "u@localhost",
        "x@[127.0.0.1]",
        "ü@b.c",
        "a@ü.de",
        ".a@b.c",
        "a..b@c.d",
        "a@b.c.",
        "\"a\"@b.c",
    ] {
        assert!(!is_email(bad), "{bad}");
    }
    for good in [
        "https://example.com",
        "mailto:a@b.c",
        "urn:isbn:0451450523",
        "file:///tmp/x",
        "http://[::1]:8080/a?b#c",
        "http:/example.com",
        "HTTP://EXAMPLE.COM/%7E",
    ] {
        assert!(is_uri(good), "{good}");
    }
    for bad in [
        "example.com",
        "1http://x",
        "http:",
        "http://a b",
        "http://x/%zz",
        "https://é.fr",
        "http://[::g]/",
    ] {
        assert!(!is_uri(bad), "{bad}");
    }
    for good in ["2000-02-29", "1999-12-31"] {
        assert!(is_date(good), "{good}");
    }
    for bad in [
        "1900-02-29",
        "2025-13-01",
        "2025-04-31",
        "25-01-01",
        "2025-1-01",
        "2025/01/01",
        "٢٠٢٥-01-01",
    ] {
        assert!(!is_date(bad), "{bad}");
    }
    for good in [
        "2025-06-01T23:59:60Z",
        "2025-06-01t00:00:00z",
        "2025-06-01T10:00:00.123-05:30",
        "2025-06-01 10:00:00Z",
        "2025-06-01T10:00:00+0530",
        "2025-06-01T10:00:00+05",
        "2025-06-01T01:59:60+02:00",
    ] {
        assert!(is_date_time(good), "{good}");
    }
    for bad in [
        "2025-06-01T24:00:00Z",
        "2025-06-01T10:00Z",
        "2025-06-01T10:00:00",
        "2025-06-01T10:00:00.Z",
        "2025-06-01T10:00:00+5:00",
        "2025-06-01T10:00:60Z",
        "2025-06-01  10:00:00Z",
        "2025-06-01T10:00:00Z ",
    ] {
        assert!(!is_date_time(bad), "{bad}");
    }
}

#[test]
fn accept_waits_for_required_values_and_the_number_of_choices() {
    let mut s = open_form(&form());
    // Clear the name, leave the region, untoggle the default feature.
    press(&mut s, "<C-u><Esc><S-Tab><S-Tab><Space><Tab>");
    assert_eq!(flow(&s).focus(), Focus::Review);
    let review = view::build("s", &s).review.unwrap();
    let problems: Vec<(&str, Option<&str>)> = review
        .questions
        .iter()
        .map(|q| (q.id.as_str(), q.problem.as_deref()))
        .collect();
    assert_eq!(
        problems,
        [
            ("name", Some("A value is required")),
            ("email", None),
            ("replicas", None),
            ("public", None),
            ("region", Some("A value is required")),
            ("size", None),
            ("features", Some("A value is required")),
        ]
    );
    let actions: Vec<(&str, bool)> = review
        .actions
        .iter()
        .map(|a| (a.label.as_str(), a.disabled))
        .collect();
    assert_eq!(
        actions,
        [("Accept", true), ("Decline", false), ("Cancel", false)]
    );
    let before = s.clone();
    press(&mut s, "1");
    assert_eq!(s, before);
    press(&mut s, "<CR>");
    assert_eq!(s, before);
    assert!(screen(&s, 70).contains(" ❯ 1. Accept — answer the marked questions first\n"));
    // Three features are more than maxItems.
    press(&mut s, "<S-Tab>123");
    press(&mut s, "<Tab>");
    assert_eq!(
        view::build("s", &s).review.unwrap().questions[6]
            .problem
            .as_deref(),
        Some("Choose at most 2 options")
    );
    // submitAnswers runs the same checks.
    let err = s
        .submit_answer_set(
            &json!({ "action": "accept", "content": { "name": "shop", "region": "eu-west-1", "features": [] } }),
            Outcome::Submit,
        )
        .unwrap_err();
    assert_eq!(err.to_string(), "answers.features: A value is required");
}

#[test]
fn min_items_counts_only_when_something_is_chosen_or_required() {
    let params = field(
        json!({ "type": "array", "minItems": 2, "items": { "type": "string", "enum": ["a", "b", "c"] } }),
    );
    let mut s = open_form(&params);
    press(&mut s, "<Tab>1");
    assert_eq!(
        s.result().unwrap(),
        json!({ "action": "accept", "content": {} })
    );
    let mut s = open_form(&params);
    press(&mut s, "1<Tab>");
    assert_eq!(
        view::build("s", &s).review.unwrap().questions[0]
            .problem
            .as_deref(),
        Some("Choose at least 2 options")
    );
    press(&mut s, "<S-Tab>3<Tab>1");
    assert_eq!(
        s.result().unwrap(),
        json!({ "action": "accept", "content": { "f": ["a", "c"] } })
    );
}

#[test]
fn defaults_of_the_wrong_kind_are_left_out() {
    let params = json!({ "message": "m", "requestedSchema": { "type": "object", "properties": {
        "a": { "type": "string", "minLength": 5, "default": "abc" },
        "b": { "type": "integer", "default": 2.5 },
        "c": { "type": "string", "enum": ["x"], "default": "y" },
        "d": { "type": "array", "items": { "type": "string", "enum": ["x", "y"] }, "default": ["x", "z"] },
        "e": { "type": "array", "maxItems": 1, "items": { "type": "string", "enum": ["x", "y"] }, "default": ["x", "y"] },
        "f": { "type": "boolean" },
        "g": { "type": "number", "maximum": 1, "default": 3 },
        "h": { "type": "number", "default": 1.5 }
    } } });
    let s = open_form(&params);
    let answers = flow(&s).answers();
    assert!(answers[..7].iter().all(|a| a.is_empty()), "{answers:?}");
    assert_eq!(answers[7].custom_text.as_deref(), Some("1.5"));
}

#[test]
fn a_form_without_fields_is_its_review() {
    let params = json!({ "message": "Proceed with the deletion?", "requestedSchema": { "type": "object", "properties": {} } });
    let mut s = open_form(&params);
    assert_eq!(flow(&s).focus(), Focus::Review);
    assert_eq!(view::build("s", &s).tabs.len(), 1);
    assert_eq!(round_trip(&s, &params, &requester()), s);
    press(&mut s, "1");
    assert_eq!(
        s.result().unwrap(),
        json!({ "action": "accept", "content": {} })
    );
    assert_eq!(s.transcript().unwrap().result, "Accepted");
}

/// A URL elicitation (2025-11-25) is asked: its message, the URL to open and its host,
/// Accept, Decline and Cancel; accepting answers no content (the host then opens the URL).
#[test]
fn a_url_elicitation_shows_its_message_and_address() {
    let params = json!({ "mode": "url", "message": "Sign in to continue", "elicitationId": "e1",
        "url": "https://auth.example.com/login?state=x" });
    let mut s = open_form(&params);
    assert_eq!(s.status(), Status::Open);
    let v = view::build("s", &s);
    assert_eq!(
        v.title.as_deref(),
        Some(
            "Sign in to continue — Accept to open https://auth.example.com/login?state=x (on auth.example.com)"
        )
    );
    let review = v.review.unwrap();
    let actions: Vec<&str> = review.actions.iter().map(|a| a.label.as_str()).collect();
    assert_eq!(actions, ["Accept", "Decline", "Cancel"]);
    assert_eq!(round_trip(&s, &params, &requester()), s);
    press(&mut s, "1");
    assert_eq!(s.result().unwrap(), json!({ "action": "accept" }));
    assert_eq!(
        s.transcript().unwrap().call,
        "elicitation/create from deploy-server: open https://auth.example.com/login?state=x"
    );
    let mut s = open_form(&params);
    press(&mut s, "2");
    assert_eq!(s.result().unwrap(), json!({ "action": "decline" }));
    let mut s = open_form(&params);
    press(&mut s, "<Esc>");
    assert_eq!(s.result().unwrap(), json!({ "action": "cancel" }));
    // What the SDK refuses: a missing id, a URL that does not parse.
    assert_eq!(
        refused(
            &json!({ "mode": "url", "message": "m", "url": "not a url" }),
            Value::Null
        )
        .1,
        "Invalid params: elicitationId: is required; url: is not a URL: relative URL without a base"
    );
}

/// What the MCP SDK's request schema refuses is refused with -32602, every issue named: a form
/// that fits none of its primitive schemas, fields of the wrong type (`null` included), an
/// unknown mode.
#[test]
fn malformed_forms_are_refused_with_invalid_params() {
    let (code, message, data) = refused(
        &json!({ "mode": 1, "requestedSchema": { "type": "array", "properties": {
            "a": { "type": "object" },
            "b": { "type": "string", "minLength": 4, "format": "phone" },
            "e": { "type": "integer", "minimum": "5" },
            "f": { "type": "array", "items": { "anyOf": [{ "const": "x" }] }, "minItems": -1 },
            "g": 3,
            "h": { "title": 1 },
            "i": { "type": "string", "title": null },
            "j": { "type": "boolean", "default": null },
            "k": { "type": "array", "items": { "enum": ["x"] } }
        }, "required": ["a", "zz", 4] } }),
        Value::Null,
    );
    assert_eq!(code, -32602);
    let issues: Vec<(String, String)> = data.unwrap()["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["path"].as_str().unwrap().to_owned(),
                i["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let p = |path: &str, message: &str| (path.to_owned(), message.to_owned());
    assert_eq!(
        issues,
        [
            p("mode", "must be a string"),
            p("message", "is required"),
            p("requestedSchema.type", "must be \"object\""),
            p("requestedSchema.required[2]", "must be a string"),
            p(
                "requestedSchema.properties.a",
                "unsupported type \"object\"; expected \"string\", \"number\", \"integer\", \"boolean\" or \"array\""
            ),
            p(
                "requestedSchema.properties.b",
                "unsupported format \"phone\"; expected \"email\", \"uri\", \"date\" or \"date-time\""
            ),
            p("requestedSchema.properties.e", "minimum must be a number"),
            p(
                "requestedSchema.properties.f",
                "items.anyOf must be an array of objects with string const and title"
            ),
            p("requestedSchema.properties.g", "must be a schema object"),
            p("requestedSchema.properties.h", "title must be a string"),
            p(
                "requestedSchema.properties.h",
                "type is required (\"string\", \"number\", \"integer\", \"boolean\" or \"array\")"
            ),
            p("requestedSchema.properties.i", "title must be a string"),
            p("requestedSchema.properties.j", "default must be a boolean"),
            p(
                "requestedSchema.properties.k",
                "items.type must be \"string\""
            ),
        ]
    );
    assert!(message.starts_with(
        "Invalid params: mode: must be a string; message: is required; requestedSchema.type: must be \"object\"; "
    ));
    // The SDK tries its schemas in turn and drops the fields a schema does not know: an
    // `enum` with a number fits as free text, `enumNames` of numbers as an untitled `enum`.
    let s = open_form(
        &json!({ "message": "m", "requestedSchema": { "type": "object", "properties": {
        "c": { "type": "string", "enum": ["x", 1] },
        "d": { "type": "string", "enum": ["x", "y"], "enumNames": [1] } } } }),
    );
    let labels: Vec<Vec<&str>> = flow(&s)
        .spec()
        .questions
        .iter()
        .map(|q| q.options.iter().map(|o| o.label.as_str()).collect())
        .collect();
    assert_eq!(labels, [vec!["x"], vec!["x", "y"]]);
    assert_eq!(
        refused(&json!({ "mode": "dialog", "message": "m", "requestedSchema": { "type": "object", "properties": {} } }), Value::Null).1,
        "Invalid params: mode: unknown elicitation mode \"dialog\"; expected \"form\" or \"url\""
    );
    assert_eq!(
        refused(
            &json!({ "message": null, "requestedSchema": { "type": "object", "properties": {} } }),
            Value::Null
        )
        .1,
        "Invalid params: message: must be a string"
    );
    assert_eq!(
        refused(&json!({ "message": "m" }), Value::Null).1,
        "Invalid params: requestedSchema: must be an object"
    );
    assert_eq!(
        refused(&json!("x"), Value::Null).1,
        "Invalid params: params: must be an object"
    );
}

#[test]
fn a_2025_06_18_session_has_no_multi_select() {
    let params = field(json!({ "type": "array", "items": { "type": "string", "enum": ["a"] } }));
    assert_eq!(
        refused(
            &params,
            json!({ "requester": { "name": "s" }, "protocolVersion": "2025-06-18" })
        )
        .1,
        "Invalid params: requestedSchema.properties.f: multi-select (array) schemas are not part of protocol version 2025-06-18"
    );
    let s = try_open_in(
        "mcp",
        &params,
        json!({ "requester": { "name": "s" }, "protocolVersion": "2025-11-25" }),
    )
    .unwrap();
    assert_eq!(s.status(), Status::Open);
}

#[test]
fn options_that_are_not_valid_are_refused() {
    for (options, message) in [
        (
            json!({}),
            "invalid params: mcp.requester: missing; expected an object",
        ),
        (
            json!({ "requester": { "name": " " } }),
            "invalid params: mcp.requester.name: must not be blank",
        ),
        (
            json!({ "requester": { "name": 5 } }),
            "invalid params: mcp.requester.name: expected a string, got the number 5",
        ),
        (
            json!({ "requester": { "name": "s", "id": 1 } }),
            "invalid params: mcp.requester.id: unknown; expected \"name\"",
        ),
        (
            json!({ "requester": { "name": "s" }, "other": 1 }),
            "invalid params: mcp.other: unknown; expected \"requester\" or \"protocolVersion\"",
        ),
        (
            json!({ "requester": { "name": "s" }, "protocolVersion": "2024-11-05" }),
            "invalid params: mcp.protocolVersion: expected \"2025-06-18\" or \"2025-11-25\", got the string \"2024-11-05\"",
        ),
        (
            json!("s"),
            "invalid params: mcp: expected an object, got the string \"s\"",
        ),
    ] {
        assert_eq!(refused(&form(), options).1, message);
    }
    // Without the param the form opens, naming no requester.
    let s = open_in("mcp", &form());
    assert_eq!(view::build("s", &s).requester, None);
}

#[test]
fn elicit_results_and_keyed_sets_are_answer_sets() {
    let mut s = open_form(&form());
    s.submit_answer_set(
        &json!({ "action": "accept", "content": {
            "name": "shop", "replicas": 3, "public": true, "region": "eu-west-1", "size": "m", "features": ["metrics", "logs"] } }),
        Outcome::Submit,
    )
    .unwrap();
    assert_eq!(
        s.result().unwrap(),
        json!({ "action": "accept", "content": {
            "name": "shop", "replicas": 3, "public": true, "region": "eu-west-1", "size": "m", "features": ["logs", "metrics"] } })
    );
    let mut s = open_form(&form());
    s.submit_answer_set(
        &json!({ "name": { "customText": "shop" }, "region": { "values": ["us-east-1"] }, "public": { "values": ["true"] }, "features": { "values": ["traces"] } }),
        Outcome::Submit,
    )
    .unwrap();
    // A whole answer set replaces the defaults: what it leaves out is unanswered.
    assert_eq!(
        s.result().unwrap(),
        json!({ "action": "accept", "content": { "name": "shop", "public": true, "region": "us-east-1", "features": ["traces"] } })
    );
    for (set, message) in [
        (
            json!({ "action": "decline" }),
            "answers.action: \"decline\" carries no answers; use cancel with reason \"decline\" or \"user\"",
        ),
        (
            json!({ "action": "accept", "content": { "nope": 1 } }),
            "answers.content.nope: \"nope\" is not a property of the form",
        ),
        (
            json!({ "action": "accept", "content": { "replicas": "3" } }),
            "answers.content.replicas: expected a number",
        ),
        (
            json!({ "action": "accept", "content": { "region": "mars" } }),
            "answers.content.region: \"mars\" is not one of the values offered",
        ),
        (
            json!({ "action": "accept", "content": { "name": "" } }),
            "answers.content.name: must not be blank (leave the property out)",
        ),
        (
            json!({ "action": "accept", "content": { "name": "ab", "region": "eu-west-1" } }),
            "the custom answer of \"name\" is refused: Enter at least 3 characters",
        ),
        (
            json!({ "size": { "customText": "huge" } }),
            "answers.size.customText: question \"size\" has no custom row and takes no custom text",
        ),
        (
            json!({ "action": "accept", "extra": 1 }),
            "answers: unknown field \"extra\"",
        ),
    ] {
        let mut s = open_form(&form());
        let before = s.clone();
        let err = s.submit_answer_set(&set, Outcome::Submit).unwrap_err();
        assert_eq!(err.to_string(), message, "{set}");
        assert_eq!(s, before);
    }
}

#[test]
fn elicitation_params_are_recognised() {
    let s = Session::open(&form(), &OpenOptions::default()).unwrap();
    assert_eq!(s.dialect().name(), "mcp");
}

#[test]
fn snapshots_keep_the_form_the_requester_and_a_refusal() {
    let mut s = open_form(&form());
    press(&mut s, "<C-u>ab<CR>");
    let restored = round_trip(&s, &form(), &requester());
    assert_eq!(restored, s);
    let v = view::build("s", &restored);
    assert_eq!(v.requester.as_deref(), Some("deploy-server"));
    assert_eq!(
        v.editor.unwrap().error.as_deref(),
        Some("Enter at least 3 characters")
    );
}
