//! Why a flow of the claude, codex, opencode and mcp dialects ended unanswered (behaviour §10
//! for every dialect): each ending (the deadline passing, the user's cancel and dismiss, the
//! asker withdrawing, the client closing it, no UI) as the dialect's own result, its transcript
//! in words, and the reason the view carries.

use askd::core::{CancelReason, Flow};
use askd::dialect::DialectId;
use askd::dialect::claude::CANCEL_MESSAGE;
use askd::session::{OpenOptions, Session, Status};
use askd::view;
use serde_json::{Value, json};

use crate::common::{key, press, restore, save};

/// A request of one question in the dialect called `name`.
fn request(name: &str) -> Value {
    match name {
        "claude" => json!({ "questions": [{
            "question": "Which database?", "header": "Database", "multiSelect": false,
            "options": [
                { "label": "Postgres", "description": "A server" },
                { "label": "SQLite", "description": "A file" }
            ] }] }),
        "codex" => json!({ "questions": [{
            "id": "db", "header": "Database", "question": "Which database?",
            "options": [
                { "label": "Postgres", "description": "A server" },
                { "label": "SQLite", "description": "A file" }
            ] }] }),
        "opencode" => json!({ "questions": [{
            "question": "Which database?", "header": "Database",
            "options": [
                { "label": "Postgres", "description": "A server" },
                { "label": "SQLite", "description": "A file" }
            ] }] }),
        "mcp" => json!({
            "message": "Which database?",
            "requestedSchema": { "type": "object", "properties": {
                "db": { "type": "string", "enum": ["postgres", "sqlite"] }
            } } }),
        other => panic!("no request for {other}"),
    }
}

/// The request of `name` opened with a deadline at 10,000 ms, its first option selected.
fn opened(name: &str) -> Session {
    let options = OpenOptions {
        dialect: DialectId::named(name),
        deadline: Some(10_000),
        ..OpenOptions::default()
    };
    let mut s = Session::open(&request(name), &options).expect("the request opens");
    press(&mut s, "<Down><Up>");
    s
}

/// How a test ends a flow.
#[derive(Clone, Copy)]
enum End {
    /// The deadline passes: `Session::expire` at the deadline.
    Timeout,
    /// `Ctrl+C`.
    Dismiss,
    /// `cancel` with reason `user`.
    User,
    /// `cancel` with reason `abort`.
    Abort,
    /// `cancel` with reason `closed`.
    Closed,
}

/// Ends `s` the way `end` says.
fn end(s: &mut Session, end: End) {
    let flow: &mut Flow = s.flow_mut().expect("a flow");
    match end {
        End::Timeout => {
            assert!(!flow.expire(9_999), "expired before its deadline");
            assert!(flow.expire(10_000), "did not expire at its deadline");
        }
        End::Dismiss => flow.press(key("ctrl+c")).unwrap(),
        End::User => flow.cancel(CancelReason::User).unwrap(),
        End::Abort => flow.cancel(CancelReason::Aborted).unwrap(),
        End::Closed => flow.cancel(CancelReason::Closed).unwrap(),
    }
}

/// The result, the transcript's result line and the view's outcome and reason after `end`.
fn ending(name: &str, how: End) -> (Value, String, Value) {
    let mut s = opened(name);
    end(&mut s, how);
    assert_eq!(s.status(), Status::Done);
    let v = view::build("s", &s);
    // The ending survives a snapshot.
    let restored = restore(&save(&s, &request(name))).expect("the snapshot restores");
    assert_eq!(restored.result(), s.result());
    (
        s.result().expect("a result"),
        s.transcript().expect("a transcript").result,
        json!({ "outcome": v.outcome, "cancelReason": v.cancel_reason, "deadline": v.deadline }),
    )
}

/// What the view says of a flow cancelled for `reason`.
fn cancelled(reason: &str) -> Value {
    json!({ "outcome": "cancelled", "cancelReason": reason, "deadline": null })
}

/// Claude Code replaces the message of a deny with `interrupt: true` by its own rejection
/// text: only the user's cancel and dismiss, which that text describes, stop the turn; a
/// timeout, a withdrawn request and a closed client deny without it, so the model reads why.
#[test]
fn claude_denies_with_a_message_that_says_why() {
    let timeout = "The user did not answer before the question timed out, and nothing was chosen on their behalf. Do not assume an answer: STOP what you are doing and wait for the user to tell you how to proceed.";
    let closed = "The question was closed before the user answered. STOP what you are doing and wait for the user to tell you how to proceed.";
    let deny = |message: &str| json!({ "behavior": "deny", "message": message, "interrupt": true });
    let told = |message: &str| json!({ "behavior": "deny", "message": message });
    assert_eq!(
        ending("claude", End::Timeout),
        (
            told(timeout),
            "Cancelled (timed out)".to_owned(),
            cancelled("timeout")
        )
    );
    assert_eq!(
        ending("claude", End::Dismiss),
        (
            deny(CANCEL_MESSAGE),
            "Cancelled".to_owned(),
            cancelled("dismissed")
        )
    );
    assert_eq!(
        ending("claude", End::User),
        (
            deny(CANCEL_MESSAGE),
            "Cancelled".to_owned(),
            cancelled("user")
        )
    );
    assert_eq!(
        ending("claude", End::Abort),
        (
            told("The request was withdrawn before the user answered"),
            "Cancelled (withdrawn by the asker)".to_owned(),
            json!({ "outcome": "aborted", "cancelReason": "aborted", "deadline": null })
        )
    );
    assert_eq!(
        ending("claude", End::Closed),
        (
            told(closed),
            "Cancelled (closed)".to_owned(),
            cancelled("closed")
        )
    );
}

#[test]
fn codex_answers_empty_and_the_view_and_transcript_say_why() {
    let empty = json!({ "answers": {} });
    for (how, words, reason) in [
        (End::Timeout, "Cancelled (timed out)", "timeout"),
        (End::Dismiss, "Cancelled", "dismissed"),
        (End::User, "Cancelled", "user"),
        (End::Closed, "Cancelled (closed)", "closed"),
    ] {
        assert_eq!(
            ending("codex", how),
            (empty.clone(), words.to_owned(), cancelled(reason))
        );
    }
    assert_eq!(
        ending("codex", End::Abort),
        (
            empty,
            "Cancelled (withdrawn by the asker)".to_owned(),
            json!({ "outcome": "aborted", "cancelReason": "aborted", "deadline": null })
        )
    );
}

#[test]
fn opencode_rejects_and_the_view_and_transcript_say_why() {
    let rejected = json!({ "rejected": true });
    for (how, words, reason) in [
        (End::Timeout, "Cancelled (timed out)", "timeout"),
        (End::Dismiss, "Dismissed", "dismissed"),
        (End::User, "Dismissed", "user"),
        (End::Closed, "Cancelled (closed)", "closed"),
    ] {
        assert_eq!(
            ending("opencode", how),
            (rejected.clone(), words.to_owned(), cancelled(reason))
        );
    }
    assert_eq!(
        ending("opencode", End::Abort),
        (
            rejected,
            "Cancelled (withdrawn by the asker)".to_owned(),
            json!({ "outcome": "aborted", "cancelReason": "aborted", "deadline": null })
        )
    );
}

#[test]
fn mcp_cancels_every_ending_but_decline_and_says_why() {
    let cancel = json!({ "action": "cancel" });
    for (how, words, reason) in [
        (End::Timeout, "Cancelled (timed out)", "timeout"),
        (End::Dismiss, "Cancelled", "dismissed"),
        (End::User, "Cancelled", "user"),
        (End::Closed, "Cancelled (closed)", "closed"),
    ] {
        assert_eq!(
            ending("mcp", how),
            (cancel.clone(), words.to_owned(), cancelled(reason))
        );
    }
    assert_eq!(
        ending("mcp", End::Abort),
        (
            cancel,
            "Cancelled (withdrawn by the asker)".to_owned(),
            json!({ "outcome": "aborted", "cancelReason": "aborted", "deadline": null })
        )
    );
    // A decline is the user's explicit choice, not a cancel: no reason.
    let mut s = opened("mcp");
    s.flow_mut().unwrap().decline().unwrap();
    let v = view::build("s", &s);
    assert_eq!(
        (
            s.result().unwrap(),
            s.transcript().unwrap().result,
            json!({ "outcome": v.outcome, "cancelReason": v.cancel_reason })
        ),
        (
            json!({ "action": "decline" }),
            "Declined".to_owned(),
            json!({ "outcome": "declined", "cancelReason": null })
        )
    );
}

#[test]
fn an_open_flow_of_every_dialect_carries_its_deadline_until_it_ends() {
    for name in ["claude", "codex", "opencode", "mcp"] {
        let s = opened(name);
        assert_eq!(view::build("s", &s).deadline, Some(10_000), "{name}");
        let restored = restore(&save(&s, &request(name))).expect("the snapshot restores");
        assert_eq!(restored.deadline(), Some(10_000), "{name}");
    }
}

#[test]
fn without_ui_every_dialect_reports_no_ui() {
    for (name, result) in [
        ("codex", json!({ "answers": {} })),
        ("opencode", json!({ "rejected": true })),
        ("mcp", json!({ "action": "cancel" })),
    ] {
        let options = OpenOptions {
            dialect: DialectId::named(name),
            has_ui: false,
            ..OpenOptions::default()
        };
        let s = Session::open(&request(name), &options).expect("the request opens");
        assert_eq!(
            (
                s.result().unwrap(),
                s.transcript().unwrap().result,
                view::build("s", &s).cancel_reason
            ),
            (
                result,
                "Not asked: no UI".to_owned(),
                Some(CancelReason::NoUi)
            ),
            "{name}"
        );
    }
}
