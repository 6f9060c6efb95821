//! `protocol/dialects.md` against the engine: each dialect's request and complete example, the
//! keys the page describes, and the strings its tables quote.

use crate::common::*;
use askd::dialect::{claude, codex, mcp, opencode};
use serde_json::{Value, json};

fn page() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/protocol/dialects.md");
    std::fs::read_to_string(path).expect("dialects.md is readable")
}

/// The text of the section headed `## <name>`, up to the next `## ` heading.
fn section(text: &str, name: &str) -> String {
    let heading = format!("\n## {name}\n");
    let start = text
        .find(&heading)
        .unwrap_or_else(|| panic!("no section {name}"))
        + 1;
    let rest = &text[start + heading.len() - 1..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end].to_owned()
}

/// The `json` code blocks of `text`, parsed, in order.
fn json_blocks(text: &str) -> Vec<Value> {
    text.split("```json\n")
        .skip(1)
        .map(|block| {
            let body = &block[..block.find("```").expect("closed block")];
            serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
        })
        .collect()
}

/// The request (the first block) and the complete example's result (the last block) of a
/// dialect's section.
fn request_and_result(name: &str) -> (Value, Value) {
    let blocks = json_blocks(&section(&page(), name));
    (blocks[0].clone(), blocks[blocks.len() - 1].clone())
}

#[test]
fn the_claude_example_answers_as_the_page_says() {
    let (input, mut expected) = request_and_result("claude");
    let mut s = open_in("claude", &input);
    press(
        &mut s,
        "NUse the existing cluster<CR><Space><Tab>12<Down><Down><Down>Audit trail<CR>1",
    );
    // The page abbreviates the echoed questions.
    expected["updatedInput"]["questions"] = input["questions"].clone();
    assert_eq!(s.result().unwrap(), expected);
}

#[test]
fn the_codex_example_answers_as_the_page_says() {
    let (request, expected) = request_and_result("codex");
    let mut s = open_in("codex", &request);
    press(
        &mut s,
        "Nreuse the staging cluster<CR>1<Down><Down>our own Kubernetes<CR>1",
    );
    assert_eq!(s.result().unwrap(), expected);
}

#[test]
fn the_opencode_example_answers_as_the_page_says() {
    let (request, expected) = request_and_result("opencode");
    let mut s = open_in("opencode", &request);
    press(&mut s, "11<Down><Down>Audit trail<CR>1");
    assert_eq!(s.result().unwrap(), expected);
}

#[test]
fn the_mcp_example_answers_as_the_page_says() {
    let (params, expected) = request_and_result("mcp");
    assert_eq!(params["dialect"], json!("mcp"));
    let mut s = try_open_in("mcp", &params["payload"], params["mcp"].clone()).unwrap();
    press(&mut s, "<C-u>shop<CR><Tab><C-u>3<CR>1122<Tab>1");
    assert_eq!(s.result().unwrap(), expected);
}

#[test]
fn the_tables_quote_the_engines_strings() {
    let text = page();
    for quoted in [
        claude::CANCEL_MESSAGE,
        claude::ABORT_MESSAGE,
        claude::TIMEOUT_MESSAGE,
        claude::CLOSED_MESSAGE,
        claude::NO_UI_HEADING,
        claude::INVALID_HEADING,
        claude::NOTES_ONLY,
        codex::OTHER_LABEL,
        codex::OTHER_DESCRIPTION,
        opencode::CUSTOM_LABEL,
        mcp::VALUE_LABEL,
        mcp::REQUIRED,
        "Enter an email address, such as name@example.com",
        "Enter a URI with its scheme, such as https://example.com",
        "Enter a date and time as YYYY-MM-DDThh:mm:ssZ (or with an offset, such as +02:00)",
        claude::RESERVED_LABEL,
        opencode::NO_ANSWER_LABEL,
        opencode::NO_ANSWER_DESCRIPTION,
        mcp::BLOCKED_LABEL,
        "Enter a value that matches the pattern ^[a-z][a-z0-9-]*$",
        "At most 20 characters, matching the pattern ^[a-z][a-z0-9-]*$",
        "It asks for at least 4 and at most 2 characters",
        "The form requires it but does not describe it",
        "askd cannot check its pattern \"^(a)\\1$\": it uses a backreference",
        "question: Asked 0 questions",
        "elicitation/create from deploy-server: 0 fields",
    ] {
        assert!(
            text.contains(quoted),
            "dialects.md does not quote {quoted:?}"
        );
    }
}
