//! `protocol/behaviour.md` against the engine: the §1 table is what the pi validator reports
//! (and names every message it can produce), the key tables of §3–§5 name the default keys of
//! their actions, the §7 table is what the dsh validator answers, and every example and quoted
//! string of the page is what flows driven through the library produce.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::common::{flow, open, press};
use askd::core::{Action, Behaviour, CancelReason, Context, Outcome, QuestionType};
use askd::dialect::pi;
use askd::session::{BehaviourOptions, OpenOptions, Session};
use askd::view::{self, View};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Reading the page
// ---------------------------------------------------------------------------------------------

/// The package root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file of the repository, by its path from the root.
fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The page.
fn page() -> String {
    read("protocol/behaviour.md")
}

/// The body of section `number` (`## <number>. …`), up to the next `## ` heading.
fn section(text: &str, number: usize) -> String {
    let heading = format!("## {number}. ");
    let start = text
        .lines()
        .position(|l| l.starts_with(&heading))
        .unwrap_or_else(|| panic!("the page has no section {number}"));
    text.lines()
        .skip(start + 1)
        .take_while(|l| !l.starts_with("## "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The fenced code blocks of `text`, in order, as (language, body); each body line ends in `\n`.
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        match (line.strip_prefix("```"), open.take()) {
            (Some(_), Some(block)) => found.push(block),
            (Some(lang), None) => open = Some((lang.to_owned(), String::new())),
            (None, Some((lang, mut body))) => {
                body.push_str(line);
                body.push('\n');
                open = Some((lang, body));
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "an unclosed code block");
    found
}

/// The code blocks of `text` in language `lang`.
fn blocks_in(text: &str, lang: &str) -> Vec<String> {
    blocks(text)
        .into_iter()
        .filter(|(l, _)| l == lang)
        .map(|(_, body)| body)
        .collect()
}

/// The JSON code blocks of `text`, parsed.
fn json_blocks(text: &str) -> Vec<Value> {
    blocks_in(text, "json")
        .iter()
        .map(|b| serde_json::from_str(b).unwrap_or_else(|e| panic!("bad JSON block: {e}\n{b}")))
        .collect()
}

/// The rows of the table whose header line is exactly `header`, as trimmed cells.
fn table(text: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = text.lines().skip_while(|l| *l != header);
    assert_eq!(lines.next(), Some(header), "no table {header:?}");
    lines
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect()
}

/// The backticked pieces of a table cell or sentence.
fn ticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// `cell` without its surrounding backticks.
fn unticked(cell: &str) -> String {
    cell.trim_matches('`').to_owned()
}

/// Asserts that the page quotes `text` between backticks.
fn assert_quoted(page: &str, text: &str) {
    assert!(
        page.contains(&format!("`{text}`")),
        "the page does not quote `{text}`"
    );
}

// ---------------------------------------------------------------------------------------------
// Driving the engine
// ---------------------------------------------------------------------------------------------

/// The example payload of §2, which the rest of the page uses.
fn example_payload() -> Value {
    json_blocks(&section(&page(), 2))[0].clone()
}

/// Opens the example payload and presses `keys` (Vim notation).
fn example_after(keys: &str) -> Session {
    let mut session = open(&example_payload());
    press(&mut session, keys);
    session
}

/// Opens the example payload and presses the key script of an example of `text`, given in the
/// pieces the page quotes, after checking that it quotes every piece.
fn page_example(text: &str, keys: &[&str]) -> Session {
    for piece in keys {
        assert_quoted(text, piece);
    }
    example_after(&keys.concat())
}

/// The rendered screen of `session` at `width` columns, as plain text.
fn screen(session: &Session, width: usize) -> String {
    let view = view::build_with_width("doc", session, Some(width));
    view::plain(view.lines.as_ref().expect("a width gives lines"))
}

/// The view of `session`, as JSON.
fn view_json(session: &Session) -> Value {
    let view: View = view::build("doc", session);
    serde_json::to_value(view).expect("a view serialises")
}

/// The result of a finished session.
fn result(session: &Session) -> Value {
    session.result().expect("the session is done")
}

/// The summary text of a finished pi session.
fn summary(session: &Session) -> String {
    result(session)["content"][0]["text"]
        .as_str()
        .expect("a text item")
        .to_owned()
}

/// The transcript of a finished session, as (call, result).
fn transcript(session: &Session) -> (String, String) {
    let t = session.transcript().expect("the session is done");
    (t.call, t.result)
}

/// JSON as text, keys in order: two values are equal only with the same member order.
fn ordered(value: &Value) -> String {
    serde_json::to_string(value).expect("JSON serialises")
}

// ---------------------------------------------------------------------------------------------
// §1 validation
// ---------------------------------------------------------------------------------------------

/// `text` with the number that follows each `marker` replaced by `name`.
fn name_numbers(text: &str, marker: &str, name: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(marker) {
        let after = &rest[at + marker.len()..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        out.push_str(&rest[..at + marker.len()]);
        out.push_str(if digits > 0 { name } else { "" });
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// A path with its first index named `i` and its second `j`, as the §1 table writes it.
fn abstract_path(path: &str) -> String {
    let mut out = String::new();
    let mut names = ["i", "j"].into_iter();
    let mut rest = path;
    while let Some(at) = rest.find('[') {
        let after = &rest[at + 1..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        out.push_str(&rest[..=at]);
        if digits > 0 && after[digits..].starts_with(']') {
            out.push_str(names.next().expect("two indices at most"));
            rest = &after[digits..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// A message with its question number named `N` and its option number `M`.
fn abstract_message(message: &str) -> String {
    name_numbers(&name_numbers(message, "Question ", "N"), ", option ", "M")
}

/// A payload of one question made of `question`, which gets a valid option list unless it
/// has an `options` field.
fn one(mut question: Value) -> Value {
    question
        .as_object_mut()
        .expect("a question object")
        .entry("options")
        .or_insert_with(|| json!([{ "value": "a", "label": "A" }]));
    json!({ "questions": [question] })
}

/// A payload of one question (`preview` when `preview`) holding `options`.
fn with_options(preview: bool, options: Value) -> Value {
    let kind = if preview { "preview" } else { "single" };
    json!({ "questions": [{ "id": "q", "prompt": "P?", "type": kind, "options": options }] })
}

/// One payload per row of the §1 table, in its order; each has exactly that one issue.
fn one_issue_payloads() -> Vec<Value> {
    let valid =
        json!({ "id": "scope", "prompt": "P?", "options": [{ "value": "a", "label": "A" }] });
    vec![
        json!(["not an object"]),
        json!({ "title": 7, "questions": [valid.clone()] }),
        json!({ "questions": [] }),
        json!({ "questions": "scope" }),
        json!({ "questions": [valid.clone(), 3] }),
        one(json!({ "id": "q", "prompt": "P?", "type": "grid" })),
        one(json!({ "id": " ", "prompt": "P?" })),
        one(json!({ "id": 5, "prompt": "P?" })),
        json!({ "questions": [valid, { "id": " scope", "prompt": "P?", "options": [{ "value": "a", "label": "A" }] }] }),
        one(json!({ "id": "q", "label": "", "prompt": "P?" })),
        one(json!({ "id": "q", "label": false, "prompt": "P?" })),
        one(json!({ "id": "q", "prompt": "\t" })),
        one(json!({ "id": "q", "prompt": ["P?"] })),
        one(json!({ "id": "q", "prompt": "P?", "required": "yes" })),
        one(json!({ "id": "q", "prompt": "P?", "options": null })),
        one(json!({ "id": "q", "prompt": "P?", "options": { "a": "A" } })),
        with_options(false, json!([{ "value": "a", "label": "A" }, "b"])),
        with_options(false, json!([{ "label": "A" }])),
        with_options(false, json!([{ "value": 1, "label": "A" }])),
        with_options(
            false,
            json!([{ "value": "small", "label": "Small" }, { "value": "small ", "label": "Also small" }]),
        ),
        with_options(false, json!([{ "value": "a", "label": " " }])),
        with_options(false, json!([{ "value": "a", "label": 1 }])),
        with_options(
            false,
            json!([{ "value": "a", "label": "A", "description": "" }]),
        ),
        with_options(
            false,
            json!([{ "value": "a", "label": "A", "description": [] }]),
        ),
        with_options(
            false,
            json!([{ "value": "a", "label": "A", "preview": "\n" }]),
        ),
        with_options(true, json!([{ "value": "a", "label": "A", "preview": 3 }])),
        with_options(
            true,
            json!([{ "value": "a", "label": "A", "description": "not a preview" }]),
        ),
    ]
}

/// The §1 table as (path, message).
fn validation_table() -> Vec<(String, String)> {
    table(&section(&page(), 1), "| path | message | when |")
        .iter()
        .map(|row| (unticked(&row[0]), unticked(&row[1])))
        .collect()
}

#[test]
fn every_row_of_the_validation_table_is_what_the_validator_reports() {
    let produced: Vec<(String, String)> = one_issue_payloads()
        .iter()
        .map(|payload| {
            let issues = pi::validate(payload).expect_err("the payload is invalid");
            assert_eq!(issues.len(), 1, "one issue for {payload}: {issues:?}");
            (
                abstract_path(&issues[0].path),
                abstract_message(&issues[0].message),
            )
        })
        .collect();
    assert_eq!(validation_table(), produced);
}

/// The string literals of `source` outside `//` comment lines, unescaped.
fn string_literals(source: &str) -> Vec<String> {
    let code: String = source
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut literals = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut literal = String::new();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' => match chars.next() {
                    Some('\n') => while chars.next_if(|c| c.is_whitespace()).is_some() {},
                    Some('n') => literal.push('\n'),
                    Some(other) => literal.push(other),
                    None => {}
                },
                other => literal.push(other),
            }
        }
        literals.push(literal);
    }
    literals
}

/// The first string literal after each `call` in `source`: the field names it is applied to.
fn first_arguments(source: &str, call: &str) -> BTreeSet<String> {
    source
        .match_indices(call)
        .map(|(at, _)| {
            let rest = &source[at + call.len()..];
            rest.split('"')
                .nth(1)
                .expect("a string argument")
                .to_owned()
        })
        .collect()
}

#[test]
fn the_validation_table_names_every_message_the_validator_can_produce() {
    let source = read("src/dialect/pi/validate.rs");
    let code = source.split("#[cfg(test)]").next().expect("the code part");
    // Message prefixes and paths are not messages of their own.
    let formats = [
        "{}: {what}",
        "Question {number}",
        "Question {number}, option {}",
    ];
    let required = first_arguments(code, ".required(object, ");
    let optional = first_arguments(code, ".optional(object, ");
    assert_eq!(
        required,
        BTreeSet::from(["id", "label", "prompt", "value"].map(String::from))
    );
    assert_eq!(
        optional,
        BTreeSet::from(["description", "label", "preview"].map(String::from))
    );
    let mut kinds = BTreeSet::new();
    for literal in string_literals(code) {
        if !literal.contains(' ') || formats.contains(&literal.as_str()) {
            continue;
        }
        let template = literal.strip_prefix("{}: ").unwrap_or(&literal).to_owned();
        let keys = match template.as_str() {
            "{key} is required" => required.clone(),
            "{key} must not be empty" => optional.clone(),
            "{key} must be a string" => required.union(&optional).cloned().collect(),
            _ if template.contains('{') && !template.contains("{}") => {
                panic!("a message template the page does not know: {template:?}")
            }
            _ => BTreeSet::from([String::new()]),
        };
        for key in keys {
            kinds.insert(template.replace("{key}", &key));
        }
    }
    let tails: Vec<String> = validation_table()
        .into_iter()
        .map(|(_, message)| match message.strip_prefix("Question ") {
            Some(rest) => rest
                .split_once(": ")
                .expect("a prefixed message")
                .1
                .to_owned(),
            None => message,
        })
        .collect();
    for kind in &kinds {
        let parts: Vec<&str> = kind.split("{}").collect();
        let listed = tails.iter().any(|tail| {
            tail.starts_with(parts[0])
                && tail.ends_with(parts[parts.len() - 1])
                && parts.iter().all(|p| tail.contains(p))
        });
        assert!(listed, "the §1 table does not list the message {kind:?}");
    }
    // One kind per distinct message of the table (some appear at two levels).
    let distinct: BTreeSet<&String> = tails.iter().collect();
    assert_eq!(kinds.len(), distinct.len(), "{kinds:#?}\n{distinct:#?}");
}

#[test]
fn the_invalid_payload_example_gives_the_result_shown() {
    let text = section(&page(), 1);
    let examples = json_blocks(&text);
    let session = open(&examples[0]);
    assert_eq!(ordered(&result(&session)), ordered(&examples[1]));
    let (call, outcome) = transcript(&session);
    assert_eq!(call, "ask_user 2 question(s) (Q1, Q2)");
    assert_eq!(outcome, "Invalid input");
    assert_quoted(&text, &call);
    assert_quoted(&text, &outcome);
    assert_quoted(&text, "Invalid ask_user payload:");
    assert_quoted(&text, "- <path>: <message>");
}

#[test]
fn a_valid_payload_is_normalised_as_described() {
    let payload = json!({
        "title": "  Release ",
        "questions": [{
            "id": " scope ",
            "prompt": " How big? ",
            "options": [{ "value": " patch ", "label": " Patch ", "description": " Small " }]
        }]
    });
    let spec = pi::validate(&payload).expect("valid");
    assert_eq!(spec.title.as_deref(), Some("  Release "));
    let q = &spec.questions[0];
    assert_eq!(
        (q.id.as_str(), q.label.as_str(), q.prompt.as_str()),
        ("scope", "Q1", "How big?")
    );
    assert_eq!((q.kind, q.required), (QuestionType::Single, false));
    let o = &q.options[0];
    assert_eq!(
        (o.value.as_str(), o.label.as_str(), o.description.as_deref()),
        ("patch", "Patch", Some("Small"))
    );
}

// ---------------------------------------------------------------------------------------------
// §2 flow state
// ---------------------------------------------------------------------------------------------

#[test]
fn the_example_payload_has_the_tabs_and_rows_of_section_2() {
    let text = section(&page(), 2);
    let mut session = open(&example_payload());
    let tabs: Vec<String> = view_json(&session)["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["label"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(tabs, ["Scope", "Checks", "Layout", "Submit"]);
    assert!(text.contains("Scope, Checks, Layout, Submit"));
    let mut listed = Vec::new();
    let mut last_values = Vec::new();
    for _ in 0..3 {
        let view = view_json(&session);
        let rows: Vec<(u64, String, String)> = view["question"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["index"].as_u64().unwrap(),
                    r["value"].as_str().unwrap().to_owned(),
                    r["label"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let names: Vec<String> = rows.iter().map(|(i, _, l)| format!("{i} {l}")).collect();
        listed.push(format!(
            "{} has the rows {}",
            view["question"]["label"].as_str().unwrap(),
            names.join(", ")
        ));
        last_values.push(rows.last().map(|(_, v, _)| v.clone()).unwrap_or_default());
        press(&mut session, "<Tab>");
    }
    assert_eq!(
        listed,
        [
            "Scope has the rows 1 Patch, 2 Minor, 3 Type your own",
            "Checks has the rows 1 Unit tests, 2 Lint, 3 Type your own",
            "Layout has the rows 1 List, 2 Table",
        ]
    );
    assert_eq!(last_values, ["__other__", "__other__", "table"]);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains(
        "Here Scope has the rows 1 Patch, 2 Minor, 3 Type your own; Checks 1 Unit tests, 2 Lint, 3 Type your own; Layout 1 List, 2 Table."
    ));
    for quoted in ["Submit", "Type your own", "__other__"] {
        assert_quoted(&text, quoted);
    }
    let focus: Vec<String> = table(&text, "| focus | where |")
        .iter()
        .map(|r| unticked(&r[0]))
        .collect();
    assert_eq!(focus, ["options", "review", "input", "note"]);
}

#[test]
fn choosing_an_option_of_a_single_question_drops_its_custom_text() {
    let session = example_after("3mine<Esc>1<Tab><Tab>1");
    assert_eq!(
        ordered(&result(&session)["details"]["answers"]),
        ordered(&json!({
            "scope": { "values": ["patch"], "labels": ["Patch (Recommended)"], "indices": [1] }
        }))
    );
}

#[test]
fn a_blank_preview_on_a_preview_question_is_two_issues() {
    let issues = pi::validate(&with_options(
        true,
        json!([{ "value": "a", "label": "A", "preview": " " }]),
    ))
    .expect_err("invalid");
    let found: Vec<(String, String)> = issues
        .iter()
        .map(|i| (abstract_path(&i.path), abstract_message(&i.message)))
        .collect();
    let table = validation_table();
    let row = |message: &str| {
        table
            .iter()
            .find(|(_, m)| m.contains(message))
            .cloned()
            .unwrap_or_else(|| panic!("no row {message:?}"))
    };
    assert_eq!(
        found,
        [
            row("preview must not be empty"),
            row("preview questions require preview text")
        ]
    );
}

#[test]
fn notes_do_not_answer_a_question() {
    let mut session = example_after("");
    press(&mut session, "Nwhy<CR>");
    let tab = &view_json(&session)["tabs"][0];
    assert_eq!(
        (&tab["answered"], &tab["hasNotes"]),
        (&json!(false), &json!(true))
    );
    press(&mut session, "1");
    let tab = &view_json(&session)["tabs"][0];
    assert_eq!(
        (&tab["answered"], &tab["hasNotes"]),
        (&json!(true), &json!(true))
    );
}

// ---------------------------------------------------------------------------------------------
// §3–§5 key tables
// ---------------------------------------------------------------------------------------------

/// The rows of the key tables of section `number` that name actions, as (keys, actions).
fn key_rows(number: usize) -> Vec<(Vec<String>, Vec<Action>)> {
    let text = section(&page(), number);
    let mut rows = Vec::new();
    let mut rest = text.as_str();
    let header = "| keys | action | effect |";
    while let Some(at) = rest.find(header) {
        rest = &rest[at..];
        for row in table(rest, header) {
            let actions: Vec<Action> = ticked(&row[1])
                .iter()
                .map(|name| Action::from_name(name).unwrap_or_else(|| panic!("no action {name:?}")))
                .collect();
            if !actions.is_empty() {
                rows.push((ticked(&row[0]), actions));
            }
        }
        rest = &rest[header.len()..];
    }
    rows
}

/// The default keys of `actions`, in order, each once.
fn default_keys(actions: &[Action]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for key in actions.iter().flat_map(|a| a.default_keys()) {
        if !keys.iter().any(|k| k == key) {
            keys.push((*key).to_owned());
        }
    }
    keys
}

/// Checks the key tables of section `number`: each row names the default keys of its actions,
/// and the rows cover exactly the actions of `contexts` and `global.dismiss`, each once.
fn check_key_tables(number: usize, contexts: &[Context]) {
    let rows = key_rows(number);
    let mut covered = Vec::new();
    for (keys, actions) in &rows {
        assert_eq!(keys, &default_keys(actions), "§{number}: {actions:?}");
        covered.extend(actions.iter().copied());
    }
    let mut expected: Vec<Action> = Action::ALL
        .iter()
        .copied()
        .filter(|a| a.context() == Context::Global || contexts.contains(&a.context()))
        .collect();
    expected.sort();
    covered.sort();
    assert_eq!(covered, expected, "§{number} covers these actions");
}

#[test]
fn the_key_tables_name_the_default_keys_of_their_actions() {
    check_key_tables(3, &[Context::Main]);
    check_key_tables(4, &[Context::Review]);
    check_key_tables(5, &[Context::Editor, Context::NoteEditor]);
    check_key_tables(10, &[Context::Filter]);
    let text = page();
    for number in [3, 4] {
        let rows = table(&section(&text, number), "| keys | action | effect |");
        assert!(
            rows.iter().any(|r| r[0] == "`1`..`9`" && r[1] == "digits"),
            "§{number} has the digits row"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// §3 moves
// ---------------------------------------------------------------------------------------------

#[test]
fn down_on_the_closed_custom_row_opens_its_editor_again() {
    let mut session = example_after("");
    press(&mut session, "<Down><Down><Esc>");
    assert_eq!(view_json(&session)["focus"], "options");
    press(&mut session, "x");
    assert_eq!(view_json(&session)["focus"], "options");
    press(&mut session, "<Down>");
    assert_eq!(view_json(&session)["focus"], "input");
}

#[test]
fn ctrl_c_and_escape_end_the_flow_the_same_way() {
    use CancelReason::{Dismissed, User};
    for (keys, reason) in [
        ("<Esc>", User),
        ("<C-c>", Dismissed),
        ("<Down>n<C-c>", Dismissed),
        ("<S-Tab><Esc>", User),
        ("<S-Tab>3", User),
    ] {
        let mut session = example_after("");
        press(&mut session, keys);
        assert_eq!(
            flow(&session).outcome(),
            Some(Outcome::Cancelled(reason)),
            "{keys}"
        );
        assert_eq!(summary(&session), "User cancelled the ask flow", "{keys}");
    }
}

// ---------------------------------------------------------------------------------------------
// §4 review
// ---------------------------------------------------------------------------------------------

/// The key script of the review example of §4, in the pieces the page quotes.
const REVIEW_KEYS: [&str; 4] = [
    "NIs a patch enough?<CR>",
    "<Tab><Down>nWhich linter?<CR>",
    "<Up><Space>",
    "<Tab>1",
];

#[test]
fn the_review_screens_are_those_shown() {
    let text = section(&page(), 4);
    let screens = blocks_in(&text, "text");
    let mut session = page_example(&text, &REVIEW_KEYS);
    assert_eq!(screen(&session, 60), screens[0]);
    press(&mut session, "<Down>");
    assert_quoted(&text, "<Down>");
    assert_eq!(screen(&session, 60), screens[1]);
    for quoted in [
        "Review your answers",
        "Label → unanswered",
        "note: <note>",
        "<option label> note: <note>",
        "Submit",
        "Elaborate",
        "Cancel",
    ] {
        assert_quoted(&text, quoted);
    }
    let review = &view_json(&session)["review"];
    assert_eq!(
        review["questions"][1]["otherNotes"],
        json!([{ "value": "lint", "label": "Lint", "note": "Which linter?" }])
    );
}

#[test]
fn the_review_actions_are_those_listed() {
    let text = section(&page(), 4);
    let actions: Vec<String> = table(&text, "| action | outcome |")
        .iter()
        .map(|r| unticked(&r[0]))
        .collect();
    assert_eq!(actions, ["Submit", "Elaborate", "Cancel"]);
    let session = example_after("<S-Tab>");
    let listed: Vec<Value> = view_json(&session)["review"]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| json!([a["key"], a["label"]]))
        .collect();
    assert_eq!(
        listed,
        [
            json!(["1", "Submit"]),
            json!(["2", "Elaborate"]),
            json!(["3", "Cancel"])
        ]
    );
    for (digit, mode, cancelled) in [
        ("1", "submit", false),
        ("2", "elaborate", false),
        ("3", "submit", true),
    ] {
        let mut session = example_after("<S-Tab>");
        for ignored in ["n", "N", "<Space>", "4", "x"] {
            press(&mut session, ignored);
        }
        assert_eq!(view_json(&session)["focus"], "review");
        press(&mut session, digit);
        let details = &result(&session)["details"];
        assert_eq!(
            (&details["mode"], &details["cancelled"]),
            (&json!(mode), &json!(cancelled))
        );
    }
}

#[test]
fn the_end_of_a_flow_shows_the_lines_listed() {
    let text = section(&page(), 4);
    let listed: Vec<(String, String)> = table(&text, "| outcome | line |")
        .iter()
        .map(|r| (unticked(&r[0]), unticked(&r[1])))
        .collect();
    let submitted = example_after("<S-Tab>1");
    let elaborated = example_after("<S-Tab>2");
    let cancelled = example_after("<Esc>");
    let mut aborted = example_after("");
    aborted
        .flow_mut()
        .and_then(|f| f.cancel(CancelReason::Aborted))
        .expect("an open flow can be aborted");
    let invalid = open(&json!({ "questions": [] }));
    let mut shown = Vec::new();
    for session in [&submitted, &elaborated, &cancelled, &aborted, &invalid] {
        let view = view_json(session);
        let lines: Vec<String> = screen(session, 60).lines().map(str::to_owned).collect();
        // The line after the tab bar (or, without tabs, after the rule).
        let line = lines
            .iter()
            .find(|l| l.starts_with(" ✓ ") || l.starts_with(" ✗ "))
            .expect("an ending line")
            .trim()
            .to_owned();
        shown.push((view["outcome"].as_str().unwrap().to_owned(), line));
    }
    assert_eq!(listed, shown);
}

// ---------------------------------------------------------------------------------------------
// §10 unanswered endings and Vim keys
// ---------------------------------------------------------------------------------------------

/// A pi session and a dsh session ended for `reason`, as the §10 table says it is set.
fn ended_for(reason: &str) -> (Session, Session) {
    let dsh_request =
        json!({ "questions": [{ "id": "q", "question": "Go?", "options": [{ "label": "Yes" }] }] });
    let pi_payload = example_payload();
    let end = |payload: &Value| -> Session {
        let mut session = open(payload);
        match reason {
            "user" => press(&mut session, "<Esc>"),
            "dismissed" => press(&mut session, "<C-c>"),
            "timeout" => {
                let flow = session.flow_mut().expect("a flow");
                flow.set_deadline(Some(1));
                assert!(session.expire(1));
            }
            "aborted" | "closed" => {
                let reason = if reason == "aborted" {
                    CancelReason::Aborted
                } else {
                    CancelReason::Closed
                };
                session
                    .flow_mut()
                    .and_then(|f| f.cancel(reason))
                    .expect("an open flow can be ended");
            }
            "no_ui" => {
                let options = OpenOptions {
                    has_ui: false,
                    ..OpenOptions::default()
                };
                session = Session::open(payload, &options).expect("opens");
            }
            other => panic!("no way to end a flow as {other}"),
        }
        session
    };
    (end(&pi_payload), end(&dsh_request))
}

#[test]
fn every_unanswered_ending_is_reported_as_the_table_says() {
    let text = section(&page(), 10);
    let rows = table(&text, "| reason | set by | pi summary | dsh code | words |");
    let names: Vec<String> = rows.iter().map(|r| unticked(&r[0])).collect();
    let expected: Vec<&str> = [
        CancelReason::User,
        CancelReason::Dismissed,
        CancelReason::Aborted,
        CancelReason::Timeout,
        CancelReason::Closed,
        CancelReason::NoUi,
        CancelReason::InvalidInput,
    ]
    .iter()
    .map(|r| r.name())
    .collect();
    assert_eq!(names, expected);
    for row in rows.iter().filter(|r| r[0] != "`invalid_input`") {
        let reason = unticked(&row[0]);
        let (pi_session, dsh_session) = ended_for(&reason);
        let details = &result(&pi_session)["details"];
        assert_eq!(details["cancelled"], json!(true), "{reason}");
        assert_eq!(details["cancelReason"], json!(reason), "{reason}");
        assert_eq!(view_json(&pi_session)["cancelReason"], json!(reason));
        if reason != "no_ui" {
            assert_eq!(summary(&pi_session), unticked(&row[2]), "{reason}");
        }
        assert_eq!(transcript(&pi_session).1, unticked(&row[4]), "{reason}");
        let ending = screen(&pi_session, 60);
        assert!(
            ending.contains(&format!(" ✗ {}\n", unticked(&row[4]))),
            "{reason}: {ending}"
        );
        assert_eq!(
            result(&dsh_session)["error"]["code"],
            json!(unticked(&row[3])),
            "{reason}"
        );
    }
    let invalid = open(&json!({ "questions": [] }));
    assert_eq!(result(&invalid)["details"]["cancelReason"], "invalid_input");
    assert_eq!(transcript(&invalid).1, "Invalid input");
    let (_, closed) = ended_for("closed");
    assert_quoted(
        &text,
        result(&closed)["error"]["message"]
            .as_str()
            .expect("a message"),
    );
}

#[test]
fn the_vim_table_is_what_the_preset_adds() {
    use askd::core::{Keymap, Preset};
    let text = section(&page(), 10);
    let mut listed: Vec<(String, String)> = Vec::new();
    for row in table(&text, "| action | adds |") {
        for action in ticked(&row[0]) {
            for key in ticked(&row[1]) {
                listed.push((action.clone(), key));
            }
        }
    }
    let defaults = Keymap::default();
    let vim = defaults.with_preset(Preset::Vim);
    let mut added: Vec<(String, String)> = Vec::new();
    for &action in Action::ALL {
        let before = defaults.key_names(action);
        for name in vim.key_names(action).iter() {
            if !before.contains(name) {
                added.push((action.name().to_owned(), name.clone()));
            }
        }
    }
    listed.sort();
    added.sort();
    assert_eq!(listed, added);
}

// ---------------------------------------------------------------------------------------------
// §5 editing
// ---------------------------------------------------------------------------------------------

#[test]
fn the_editors_have_the_titles_and_placeholders_listed() {
    let text = section(&page(), 5);
    let rows = table(
        &text,
        "| editor | opened by | focus | box title | placeholder |",
    );
    let listed: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| (unticked(&r[2]), unticked(&r[3]), unticked(&r[4])))
        .collect();
    let mut shown = Vec::new();
    for (keys, title) in [
        ("<Down><Down>", "Your answer"),
        ("n", "Note on Patch"),
        ("N", "Question note"),
    ] {
        let session = example_after(keys);
        let view = view_json(&session);
        assert!(
            screen(&session, 60).contains(&format!("╭─ {title} ─")),
            "{title}"
        );
        let title = title.replace("Patch", "<option label>");
        shown.push((
            view["focus"].as_str().unwrap().to_owned(),
            title,
            view["editor"]["placeholder"].as_str().unwrap().to_owned(),
        ));
    }
    assert_eq!(listed, shown);
}

#[test]
fn enter_saves_trimmed_escape_as_typed_and_an_unchanged_editor_stores_nothing() {
    // Enter stores the draft trimmed, then advances: the question is answered.
    let mut session = example_after("");
    press(&mut session, "3  padded  <CR>");
    assert_eq!(flow(&session).tab(), 1);
    assert_eq!(
        flow(&session).answers()[0].custom_text.as_deref(),
        Some("padded")
    );
    // Escape stores it as typed.
    press(&mut session, "<S-Tab>3<C-u>  spaced  <Esc>");
    assert_eq!(
        flow(&session).answers()[0].custom_text.as_deref(),
        Some("  spaced  ")
    );
    // Spaces around the saved text: unchanged, nothing stored.
    press(&mut session, "3<Space><CR>");
    assert_eq!(
        flow(&session).answers()[0].custom_text.as_deref(),
        Some("  spaced  ")
    );
    // A selection survives passing over the custom row.
    let mut session = example_after("");
    press(&mut session, "<Space><Down><Down><Up>");
    assert_eq!(flow(&session).answers()[0].selected, [0]);
    // Enter on an unanswered question's custom row just closes the editor.
    let mut session = example_after("");
    press(&mut session, "3<CR>");
    assert_eq!(
        (flow(&session).tab(), view_json(&session)["focus"].clone()),
        (0, json!("options"))
    );
    // Notes: Enter saves (trimmed) and closes without advancing; the note is kept when
    // deselected.
    let mut session = example_after("");
    press(&mut session, "<Space>n kept <CR><Space>");
    assert_eq!(flow(&session).tab(), 0);
    assert_eq!(flow(&session).answers()[0].selected, Vec::<usize>::new());
    assert_eq!(flow(&session).answers()[0].option_note(0), Some("kept"));
}

#[test]
fn saving_custom_text_clears_a_single_selection_and_keeps_a_multi_one() {
    let mut session = example_after("");
    press(&mut session, "1<S-Tab>3mine<Esc><Tab>13more<Esc>");
    let answers = flow(&session).answers();
    assert_eq!(answers[0].selected, Vec::<usize>::new());
    assert_eq!(answers[1].selected, [0]);
    assert_eq!(answers[1].custom_text.as_deref(), Some("more"));
}

#[test]
fn keys_in_an_editor_with_text_stay_in_the_editor() {
    let mut session = example_after("");
    press(&mut session, "Nab<Up><Down><Tab><S-Tab>");
    assert_eq!(view_json(&session)["focus"], "note");
    assert_eq!(view_json(&session)["editor"]["text"], "ab");
    press(&mut session, "<Left>1 n<Right>");
    assert_eq!(view_json(&session)["editor"]["text"], "a1 nb");
    press(&mut session, "<Left><C-u><Tab>");
    assert_eq!(view_json(&session)["editor"]["text"], "b");
    assert_eq!(
        (flow(&session).tab(), view_json(&session)["focus"].clone()),
        (0, json!("note"))
    );
    // Once the editor is empty, Tab saves and moves.
    press(&mut session, "<Del><Tab>");
    assert_eq!(
        (flow(&session).tab(), view_json(&session)["focus"].clone()),
        (1, json!("options"))
    );
}

// ---------------------------------------------------------------------------------------------
// §6 results
// ---------------------------------------------------------------------------------------------

/// The key script of the submit example of §6, in the pieces the page quotes.
const SUBMIT_KEYS: [&str; 6] = [
    "<Down>nOnly if the docs are ready<CR>",
    "2",
    "<Space>",
    "3Fuzzing<CR>",
    "1",
    "1",
];

#[test]
fn the_submit_example_gives_the_summary_transcript_and_details_shown() {
    let text = section(&page(), 6);
    let texts = blocks_in(&text, "text");
    let jsons = json_blocks(&text);
    let session = page_example(&text, &SUBMIT_KEYS);
    assert_eq!(format!("{}\n", summary(&session)), texts[0]);
    let (call, outcome) = transcript(&session);
    assert_eq!(call, "ask_user 3 question(s) (Scope, Checks, Layout)");
    assert_quoted(&text, &call);
    assert_eq!(format!("{outcome}\n"), texts[1]);
    assert_eq!(ordered(&result(&session)["details"]), ordered(&jsons[0]));
}

#[test]
fn the_elaborate_example_gives_the_summary_and_details_shown() {
    let text = section(&page(), 6);
    let texts = blocks_in(&text, "text");
    let jsons = json_blocks(&text);
    let mut keys = REVIEW_KEYS.to_vec();
    keys.push("2");
    let session = page_example(&section(&page(), 4), &keys);
    assert_eq!(format!("{}\n", summary(&session)), texts[2]);
    let mut details = result(&session)["details"].clone();
    assert_eq!(
        details["elaboration"]["instruction"],
        pi::ELABORATE_INSTRUCTION
    );
    details["elaboration"]["instruction"] = json!("…");
    assert_eq!(ordered(&details), ordered(&jsons[1]));
    assert_quoted(&text, pi::ELABORATE_INSTRUCTION);
    let (_, outcome) = transcript(&session);
    assert_eq!(format!("{outcome}\n"), texts[2]);
}

#[test]
fn the_summary_texts_quoted_are_the_engine_s() {
    let text = section(&page(), 6);
    let cancelled = example_after("<Esc>");
    assert_eq!(summary(&cancelled), "User cancelled the ask flow");
    let details = &result(&cancelled)["details"];
    assert_eq!(
        (&details["cancelled"], &details["mode"], &details["answers"]),
        (&json!(true), &json!("submit"), &json!({}))
    );
    assert_eq!(transcript(&cancelled).1, "Cancelled");
    let submitted = example_after("<S-Tab>1");
    assert_eq!(summary(&submitted), "User submitted the ask flow");
    assert_eq!(transcript(&submitted).1, "Submitted");
    let elaborated = example_after("<S-Tab>2");
    assert_eq!(
        summary(&elaborated),
        "User asked for elaboration based on notes"
    );
    for quoted in [
        "User cancelled the ask flow",
        "User submitted the ask flow",
        "User asked for elaboration based on notes",
        "Cancelled",
        "Submitted",
        "Invalid input",
        "<label>: <labels>",
        "<label> note: <note>",
        "<label> / <option label> note: <note>",
        "User asked to elaborate on question \"<prompt>\" with note \"<note>\"",
        "User asked to elaborate on question \"<prompt>\" option \"<option label>\" with note \"<note>\"",
    ] {
        assert_quoted(&text, quoted);
    }
}

#[test]
fn quoted_strings_of_elaborate_lines_are_json_encoded() {
    let mut session = example_after("");
    press(&mut session, "Nsay \"hi\"<S-CR>now<CR><S-Tab>2");
    assert_eq!(
        summary(&session),
        "User asked to elaborate on question \"How big is the release?\" with note \"say \\\"hi\\\"\\nnow\""
    );
}

#[test]
fn the_transcript_words_quoted_are_the_engine_s() {
    let text = section(&page(), 6);
    // Custom text only, then a question with only a note, then a noted selection.
    let session = example_after("3mine<CR>NWhy?<CR><Tab><Down>nhm<CR>21");
    assert_eq!(
        summary(&session),
        "Scope: mine\nChecks note: Why?\nLayout: Table\nLayout / Table note: hm"
    );
    assert_eq!(
        transcript(&session).1,
        "✓ Scope: (wrote) mine\n✓ Checks: (no answer)\n  note: Why?\n✓ Layout: Table\n  Table note: hm"
    );
    for quoted in [
        "✓ <label>: <shown>",
        "(wrote) <custom text>",
        "(no answer)",
        "  note: <note>",
        "  <option label> note: <note>",
        "ask_user <n> question(s) (<labels>)",
        "question(s)",
        "...",
        "ask_user 0 question(s)",
    ] {
        assert_quoted(&text, quoted);
    }
}

#[test]
fn only_notes_on_unselected_options_leave_the_answer_out() {
    for (keys, cancelled) in [("nhm<CR><S-Tab>1", false), ("nhm<CR><Esc>", true)] {
        let session = example_after(keys);
        assert_eq!(result(&session)["details"]["answers"], json!({}), "{keys}");
        assert_eq!(
            result(&session)["details"]["cancelled"],
            json!(cancelled),
            "{keys}"
        );
    }
    let session = example_after("nhm<CR><S-Tab>1");
    assert_eq!(summary(&session), "User submitted the ask flow");
    assert_eq!(transcript(&session).1, "Submitted");
}

#[test]
fn the_call_line_reads_question_s_and_cuts_labels_to_47_columns_and_an_ellipsis() {
    let question = |id: &str, label: Option<&str>| {
        let mut q = json!({ "id": id, "prompt": "?", "options": [{ "value": "a", "label": "A" }] });
        if let Some(label) = label {
            q["label"] = json!(label);
        }
        q
    };
    let mut single = open(&json!({ "questions": [question("a", None)] }));
    press(&mut single, "<Esc>");
    assert_eq!(transcript(&single).0, "ask_user 1 question(s) (Q1)");
    let x = "x".repeat(30);
    let xy = format!("{x}y");
    let mut narrow =
        open(&json!({ "questions": [question("a", Some(&x)), question("b", Some(&xy))] }));
    press(&mut narrow, "<Esc>");
    assert_eq!(
        transcript(&narrow).0,
        format!("ask_user 2 question(s) ({x}, {}...)", "x".repeat(15))
    );
    // 50 columns exactly are kept whole.
    let twenty = "x".repeat(20);
    let mut fifty = open(&json!({ "questions": [
        question("a", Some(&twenty)),
        question("b", Some(&twenty)),
        question("c", Some("xxxxxx")),
    ] }));
    press(&mut fifty, "<Esc>");
    assert_eq!(
        transcript(&fifty).0,
        format!("ask_user 3 question(s) ({twenty}, {twenty}, xxxxxx)")
    );
    let wide = "一二三四五六七八九十";
    let mut wide_labels = open(&json!({ "questions": [
        question("a", Some(wide)),
        question("b", Some(wide)),
        question("c", Some(wide)),
    ] }));
    press(&mut wide_labels, "<Esc>");
    // 20 + 2 + 20 + 2 columns, then one wide character makes 46: the next would straddle 47.
    assert_eq!(
        transcript(&wide_labels).0,
        format!("ask_user 3 question(s) ({wide}, {wide}, 一...)")
    );
}

#[test]
fn without_ui_the_flow_completes_with_the_text_shown() {
    let text = section(&page(), 6);
    let options = OpenOptions {
        has_ui: false,
        ..OpenOptions::default()
    };
    let session = Session::open(&example_payload(), &options).expect("opens");
    let texts = blocks_in(&text, "text");
    assert_eq!(format!("{}\n", summary(&session)), texts[3]);
    let details = &result(&session)["details"];
    assert_eq!(
        (&details["cancelled"], &details["mode"], &details["answers"]),
        (&json!(true), &json!("submit"), &json!({}))
    );
    assert_eq!(details["questions"].as_array().map(Vec::len), Some(3));
    assert_eq!(transcript(&session).1, "Cancelled");
    assert_quoted(&text, "   - Type your own [custom]");
}

// ---------------------------------------------------------------------------------------------
// §7 dsh
// ---------------------------------------------------------------------------------------------

/// A dsh request of one question made of `question` (`id` `a`, question `A?` unless given).
fn dsh_one(question: Value) -> Value {
    let mut q = json!({ "id": "a", "question": "A?" });
    for (k, v) in question.as_object().expect("an object") {
        q[k] = v.clone();
    }
    json!({ "questions": [q] })
}

/// One request per row of the §7 validation table, in its order.
fn dsh_requests() -> Vec<Value> {
    vec![
        json!([]),
        json!({ "questions": [] }),
        json!({ "questions": "a" }),
        json!({ "questions": [1] }),
        json!({ "questions": [{ "question": "A?" }] }),
        json!({ "questions": [{ "id": "a", "question": "A?" }, { "id": "a", "question": "B?" }] }),
        json!({ "questions": [{ "id": "a" }] }),
        dsh_one(json!({ "header": 1 })),
        dsh_one(json!({ "options": {} })),
        dsh_one(json!({ "options": [{ "label": "X" }, "Y"] })),
        dsh_one(json!({ "options": [{ "label": " " }] })),
        dsh_one(json!({ "options": [{ "label": "X" }, { "label": "X" }] })),
        dsh_one(json!({ "multiSelect": "yes" })),
        dsh_one(json!({ "intent": "plan-review" })),
        dsh_one(
            json!({ "detail": "plan", "options": [{ "label": "Ship" }], "intent": { "kind": "plan-review" } }),
        ),
        dsh_one(
            json!({ "detail": "plan", "options": [{ "label": "Go" }], "intent": { "kind": "plan-review", "approve": "Ship" } }),
        ),
        dsh_one(
            json!({ "options": [{ "label": "Ship" }], "intent": { "kind": "plan-review", "approve": "Ship" } }),
        ),
    ]
}

#[test]
fn every_row_of_the_dsh_validation_table_is_what_the_engine_answers() {
    let listed: Vec<(String, String)> =
        table(&section(&page(), 7), "| code | message (examples) | when |")
            .iter()
            .map(|r| (unticked(&r[0]), unticked(&r[1])))
            .collect();
    let produced: Vec<(String, String)> = dsh_requests()
        .iter()
        .map(|request| {
            let options = OpenOptions {
                dialect: Some(askd::dialect::DialectId::DSH),
                ..OpenOptions::default()
            };
            let error = Session::open(request, &options).expect_err("refused");
            assert_eq!(error.code, -32010);
            let data = error.data.expect("data");
            assert_eq!(data["name"], "UserQuestionError");
            (data["code"].as_str().unwrap().to_owned(), error.message)
        })
        .collect();
    assert_eq!(listed, produced);
}

/// The key script of the dsh example of §7, in the pieces the page quotes.
const DSH_KEYS: [&str; 4] = ["<CR>", "<Tab>", "  Keep the old column <CR>", "1"];

#[test]
fn the_dsh_example_gives_the_answer_and_transcript_shown() {
    let text = section(&page(), 7);
    let jsons = json_blocks(&text);
    for piece in DSH_KEYS {
        assert_quoted(&text, piece);
    }
    let mut session = open(&jsons[0]);
    let view = view_json(&session);
    assert_eq!(
        view["question"]["planReview"],
        json!({ "plan": "1. Add the table\n2. Migrate", "approveLabel": "Approve" })
    );
    let labels: Vec<&str> = view["question"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Approve", "Revise", "Type your own"]);
    let shown = screen(&session, 60);
    assert!(shown.contains("╭─ Plan ─"));
    assert!(shown.contains("1. ○ Approve (approves the plan)"));
    assert_quoted(&text, "(approves the plan)");
    // No notes in this dialect.
    press(&mut session, "nN");
    assert_eq!(view_json(&session)["focus"], "options");
    press(&mut session, &DSH_KEYS.concat());
    assert_eq!(ordered(&result(&session)), ordered(&jsons[1]));
    let (call, outcome) = transcript(&session);
    assert_eq!(call, "ask_user_question 3 questions (Plan, Q2, Q3)");
    assert_quoted(&text, &call);
    assert_eq!(format!("{outcome}\n"), blocks_in(&text, "text")[0]);
}

#[test]
fn dsh_flows_that_do_not_submit_end_with_the_codes_listed() {
    let text = section(&page(), 7);
    let listed: Vec<(String, String)> = table(&text, "| code | when | message |")
        .iter()
        .map(|r| (unticked(&r[0]), unticked(&r[2])))
        .collect();
    let request = json_blocks(&text)[0].clone();
    let mut cancelled = open(&request);
    press(&mut cancelled, "<S-Tab>2");
    let ended = |reason: CancelReason| {
        let mut session = open(&request);
        session
            .flow_mut()
            .and_then(|f| f.cancel(reason))
            .expect("an open flow can be ended");
        session
    };
    let closed = ended(CancelReason::Closed);
    let aborted = ended(CancelReason::Aborted);
    let timed_out = ended(CancelReason::Timeout);
    let options = OpenOptions {
        has_ui: false,
        ..OpenOptions::default()
    };
    let no_ui = Session::open(&request, &options).expect("opens");
    let mut shown = Vec::new();
    let mut transcripts = Vec::new();
    for session in [&cancelled, &closed, &aborted, &timed_out, &no_ui] {
        let error = &result(session)["error"];
        assert_eq!(error["name"], "UserQuestionError");
        shown.push((
            error["code"].as_str().unwrap().to_owned(),
            error["message"].as_str().unwrap().to_owned(),
        ));
        transcripts.push(transcript(session).1);
    }
    assert_eq!(listed, shown);
    assert_eq!(
        transcripts,
        [
            "Cancelled",
            "Cancelled (closed)",
            "Cancelled (withdrawn by the asker)",
            "Cancelled (timed out)",
            "No provider"
        ]
    );
    for quoted in [
        "Cancelled",
        "Cancelled (closed)",
        "Cancelled (withdrawn by the asker)",
        "Cancelled (timed out)",
        "No provider",
        "- <label>: (skipped)",
    ] {
        assert_quoted(&text, quoted);
    }
}

#[test]
fn a_dsh_single_question_holds_a_selection_or_custom_text() {
    let request =
        json!({ "questions": [{ "id": "a", "question": "A?", "options": [{ "label": "X" }] }] });
    let mut session = open(&request);
    press(&mut session, "2mine<Esc>1");
    assert_eq!(flow(&session).answers()[0].custom_text, None);
    press(&mut session, "<S-Tab>2again<Esc><Tab>");
    // The review offers Submit and Cancel: 3 does nothing.
    press(&mut session, "31");
    assert_eq!(
        ordered(&result(&session)),
        ordered(
            &json!({ "answer": { "answers": [{ "id": "a", "selected": [], "custom": "again" }] } })
        )
    );
}

// ---------------------------------------------------------------------------------------------
// §8 every dialect
// ---------------------------------------------------------------------------------------------

#[test]
fn recommended_markers_are_shown_without_the_marker_and_handed_back_unchanged() {
    let text = section(&page(), 8);
    for marker in ["(Recommended)", "(recommended)", "（推荐）", "(推荐)"] {
        assert_quoted(&text, marker);
    }
    let labels = [
        "A （推荐）",
        "B(推荐)",
        "C (recommended)  ",
        "D (RECOMMENDED)",
        "E (Recommended)",
    ];
    let options: Vec<Value> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| json!({ "value": i.to_string(), "label": l }))
        .collect();
    let mut session = open(
        &json!({ "questions": [{ "id": "q", "prompt": "?", "type": "multi", "options": options }] }),
    );
    let rows = view_json(&session)["question"]["rows"].clone();
    let shown: Vec<(String, bool)> = rows
        .as_array()
        .unwrap()
        .iter()
        .take(labels.len())
        .map(|r| {
            (
                r["label"].as_str().unwrap().to_owned(),
                r["recommended"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("A".to_owned(), true),
            ("B".to_owned(), true),
            ("C".to_owned(), true),
            ("D (RECOMMENDED)".to_owned(), false),
            ("E".to_owned(), true),
        ]
    );
    assert!(screen(&session, 60).contains("E (recommended)"));
    press(&mut session, "5<CR>");
    assert_eq!(
        view_json(&session)["review"]["questions"][0]["answers"][0]["label"],
        "E"
    );
    press(&mut session, "1");
    assert_eq!(
        result(&session)["details"]["answers"]["q"]["labels"],
        json!(["E (Recommended)"])
    );
    assert_eq!(summary(&session), "Q1: E (Recommended)");
    // The example of the page.
    let session = example_after("");
    assert_eq!(view_json(&session)["question"]["rows"][0]["label"], "Patch");
    assert!(text.contains("`Patch (Recommended)` is shown as `Patch`"));
}

#[test]
fn editor_columns_count_wide_characters_twice() {
    let mut session = example_after("");
    press(&mut session, "N한글a");
    assert_eq!(view_json(&session)["editor"]["cursor"]["column"], 5);
}

// ---------------------------------------------------------------------------------------------
// §9 behaviour options
// ---------------------------------------------------------------------------------------------

/// The example payload of §2 opened with the behaviour options `behaviour`, after `keys`.
fn example_as(behaviour: Value, keys: &str) -> Session {
    let options: BehaviourOptions = serde_json::from_value(behaviour).expect("valid options");
    let options = OpenOptions {
        behaviour: options.behaviour(),
        ..OpenOptions::default()
    };
    let mut session = Session::open(&example_payload(), &options).expect("opens");
    press(&mut session, keys);
    session
}

/// The view's notices as (kind, text).
fn notices(session: &Session) -> Vec<(String, String)> {
    view_json(session)["notices"]
        .as_array()
        .expect("notices")
        .iter()
        .map(|n| {
            (
                n["kind"].as_str().unwrap().to_owned(),
                n["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn the_flag_table_names_the_four_flags_each_setting_its_option() {
    let text = section(&page(), 9);
    let flags: Vec<String> = table(&text, "| flag | effect |")
        .iter()
        .map(|row| unticked(&row[0]))
        .collect();
    assert_eq!(
        flags,
        [
            "confirmDismissWhenDirty",
            "doublePressReviewShortcuts",
            "autoSubmitWhenAnsweredWithoutNotes",
            "presentSingleAsMulti"
        ]
    );
    let mut seen = Vec::new();
    for flag in &flags {
        let options: BehaviourOptions =
            serde_json::from_value(json!({ flag.as_str(): true })).expect("a known flag");
        let behaviour = options.behaviour();
        assert_ne!(behaviour, Behaviour::default(), "{flag}");
        assert!(!seen.contains(&behaviour), "{flag}");
        seen.push(behaviour);
    }
    // Off by default, in either profile.
    for profile in ["seed", "pi-0.9"] {
        assert_quoted(&text, profile);
        let behaviour = serde_json::from_value::<BehaviourOptions>(json!({ "profile": profile }))
            .expect("valid")
            .behaviour();
        assert_eq!(
            [
                behaviour.confirm_dismiss_when_dirty,
                behaviour.double_press_review_shortcuts,
                behaviour.auto_submit_when_answered_without_notes,
                behaviour.present_single_as_multi
            ],
            [false; 4],
            "{profile}"
        );
    }
}

#[test]
fn the_notices_table_is_what_the_engine_shows() {
    let text = section(&page(), 9);
    let rows = table(&text, "| kind | text | shown |");
    let listed: Vec<(String, Vec<String>)> = rows
        .iter()
        .map(|row| (unticked(&row[0]), ticked(&row[1])))
        .collect();
    let pi09 = json!({ "profile": "pi-0.9" });
    let mut guard = pi09.clone();
    guard["confirmDismissWhenDirty"] = json!(true);
    let mut double = pi09.clone();
    double["doublePressReviewShortcuts"] = json!(true);
    let dismiss = notices(&example_as(guard, "<Space><Esc>"));
    let confirm = notices(&example_as(pi09.clone(), "<Tab><Space><Down><Space>t"));
    let changed = notices(&example_as(pi09, "t"));
    let review = notices(&example_as(double.clone(), "<S-Tab>"));
    let armed = notices(&example_as(double, "<S-Tab>2"));
    let fill = |template: &str, pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .fold(template.to_owned(), |t, (from, to)| t.replace(from, to))
    };
    assert_eq!(
        listed[0],
        (dismiss[0].0.clone(), vec![dismiss[0].1.clone()])
    );
    assert_eq!(
        listed[1],
        (confirm[0].0.clone(), vec![confirm[0].1.clone()])
    );
    assert_eq!(listed[2].0, changed[0].0);
    assert_eq!(
        fill(&listed[2].1[0], &[("<from>", "single"), ("<to>", "multi")]),
        changed[0].1
    );
    assert_eq!(listed[3].0, review[0].0);
    assert_eq!(listed[3].1[0], review[0].1);
    assert_eq!(
        fill(&listed[3].1[1], &[("<d>", "2"), ("<Action>", "Elaborate")]),
        armed[0].1
    );
    assert_eq!(listed.len(), 4);
}

#[test]
fn the_strings_section_9_quotes_are_the_engine_s() {
    let text = section(&page(), 9);
    // The presentation note.
    let session = example_as(
        json!({ "presentSingleAsMulti": true }),
        "<Space><CR><Space><Tab>11",
    );
    let note = summary(&session).lines().last().unwrap().to_owned();
    assert_eq!(
        note,
        "Note: Some questions were presented as multi-select by user preference."
    );
    assert_quoted(&text, &note);
    assert_eq!(
        transcript(&session).1.lines().last().unwrap(),
        format!("  {note}")
    );
    // The elaborate lines of the profile.
    let pi09 = json!({ "profile": "pi-0.9" });
    let session = example_as(
        pi09.clone(),
        "Nwhy?<CR>2<Down>nwhich?<CR><Up><Space><Tab><Tab>2",
    );
    assert_eq!(
        summary(&session),
        "User asked to elaborate on question \"How big is the release?\" after current answer \"Minor\" with note \"why?\"\n\
         User asked to elaborate on question \"Which checks must pass?\" option \"Lint\" after current answer \"Unit tests\" with note \"which?\""
    );
    let session = example_as(pi09.clone(), "2<Space><Tab><Tab>2");
    assert_eq!(
        summary(&session),
        "User asked to elaborate on question \"How big is the release?\" after current answer \"Minor\"\n\
         User asked to elaborate on question \"Which checks must pass?\" after current answer \"Unit tests\""
    );
    for quoted in [
        "User asked to elaborate on question \"<prompt>\" after current answer \"<labels>\" with note \"<note>\"",
        "User asked to elaborate on question \"<prompt>\" option \"<option label>\" after current answer \"<labels>\" with note \"<note>\"",
        "User asked to elaborate on question \"<prompt>\" after current answer \"<labels>\"",
        "User asked for elaboration based on notes",
        "   - Type your own [custom]",
    ] {
        assert_quoted(&text, quoted);
    }
    // The help overlay's title and section headings.
    let session = example_as(pi09, "?");
    let help = &view_json(&session)["help"];
    assert_quoted(&text, help["title"].as_str().unwrap());
    for section in help["sections"].as_array().unwrap() {
        assert!(
            text.contains(&format!(
                "`{}` (`{}`)",
                section["context"].as_str().unwrap(),
                section["label"].as_str().unwrap()
            )),
            "§9 names {section}"
        );
    }
    // The dsh review hint.
    let mut dsh = Session::open(
        &json!({ "questions": [{ "id": "a", "question": "A?", "options": [{ "label": "X" }] }] }),
        &OpenOptions {
            dialect: Some(askd::dialect::DialectId::DSH),
            behaviour: Behaviour {
                double_press_review_shortcuts: true,
                ..Behaviour::default()
            },
            ..OpenOptions::default()
        },
    )
    .expect("a valid dsh request");
    press(&mut dsh, "<S-Tab>");
    assert_quoted(&text, &notices(&dsh)[0].1);
}

#[test]
fn the_profile_changes_listed_are_the_engine_s() {
    let pi09 = json!({ "profile": "pi-0.9" });
    // Preview questions get the custom row.
    let session = example_as(pi09.clone(), "<Tab><Tab>");
    assert_eq!(
        view_json(&session)["question"]["rows"][2]["label"],
        "Type your own"
    );
    assert_eq!(
        view_json(&example_after("<Tab><Tab>"))["question"]["rowCount"],
        2
    );
    // Multi custom text set aside leaves the result; Enter there stays on the tab.
    let mut session = example_as(pi09.clone(), "<Tab>3Fuzzing<CR>");
    assert_eq!(flow(&session).tab(), 1);
    press(&mut session, "<Space><Tab><Tab>1");
    assert_eq!(result(&session)["details"]["answers"], json!({}));
    // Auto-open only without saved text.
    let session = example_as(pi09, "<Down><Down>mine<Esc><Up><Down>");
    assert_eq!(view_json(&session)["focus"], "options");
}

// ---------------------------------------------------------------------------------------------
// Links
// ---------------------------------------------------------------------------------------------

/// The anchor a heading gets: lowercase, spaces as `-`, other punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of the headings of `text`.
fn anchors(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| l.starts_with('#'))
        .map(anchor)
        .collect()
}

/// The anchors that links of `text` to `file#anchor` name.
fn links_to(text: &str, file: &str) -> Vec<String> {
    let target = format!("]({file}#");
    text.match_indices(&target)
        .map(|(at, _)| {
            let rest = &text[at + target.len()..];
            rest[..rest.find(')').expect("a closed link")].to_owned()
        })
        .collect()
}

#[test]
fn links_between_the_page_and_the_readme_resolve() {
    let text = page();
    let readme = read("protocol/README.md");
    let page_links = links_to(&readme, "behaviour.md");
    assert!(page_links.len() >= 5, "{page_links:?}");
    let here = anchors(&text);
    for link in page_links {
        assert!(
            here.contains(&link),
            "README links to a missing behaviour.md#{link}"
        );
    }
    assert!(readme.contains("| `behaviour.md` |"));
    let there = anchors(&readme);
    for link in links_to(&text, "README.md") {
        assert!(
            there.contains(&link),
            "behaviour.md links to a missing README.md#{link}"
        );
    }
}

#[test]
fn the_client_documents_point_inside_the_repository() {
    for path in [
        "protocol/behaviour.md",
        "protocol/README.md",
        "protocol/dialects.md",
        "editors/nvim/README.md",
    ] {
        let text = read(path);
        for outside in ["../shared", "BEHAVIOR.md", "PROTOCOL.md", "DIALECTS.md"] {
            assert!(!text.contains(outside), "{path} names {outside}");
        }
    }
}
