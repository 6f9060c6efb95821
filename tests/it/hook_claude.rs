//! `askd hook claude`'s decisions against a hub of the test's own: what it asks, what it
//! prints for each ending, and when it prints nothing so that Claude Code's own dialog asks.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use askd::cli::bridge::host::{Ended, FlowHost, HostError};
use askd::cli::hook::claude::{Decision, HookInput, Input, ask_params, decide, output, read_input};
use askd::dialect::claude::{ABORT_MESSAGE, CANCEL_MESSAGE, CLOSED_MESSAGE, TIMEOUT_MESSAGE};
use serde_json::{Value, json};

/// A hub that ends every flow as the test says (or never), and records what it was asked. The
/// first asks may end otherwise (`first`, in order): a hub that went away, then one that came
/// back.
#[derive(Clone)]
struct ScriptedHub {
    first: Arc<Mutex<Vec<Result<Ended, HostError>>>>,
    ending: Option<Result<Ended, HostError>>,
    asked: Arc<Mutex<Vec<Value>>>,
    closed: Arc<Mutex<Vec<String>>>,
}

impl ScriptedHub {
    fn ending(ending: Option<Result<Ended, HostError>>) -> ScriptedHub {
        ScriptedHub::first_then(Vec::new(), ending)
    }

    fn first_then(
        first: Vec<Result<Ended, HostError>>,
        ending: Option<Result<Ended, HostError>>,
    ) -> ScriptedHub {
        ScriptedHub {
            first: Arc::new(Mutex::new(first)),
            ending,
            asked: Arc::default(),
            closed: Arc::default(),
        }
    }
}

impl FlowHost for ScriptedHub {
    async fn ask(&self, params: Value) -> Result<Ended, HostError> {
        self.asked.lock().unwrap().push(params);
        let first = {
            let mut first = self.first.lock().unwrap();
            (!first.is_empty()).then(|| first.remove(0))
        };
        if let Some(ending) = first {
            return ending;
        }
        match &self.ending {
            Some(ending) => ending.clone(),
            None => std::future::pending().await,
        }
    }

    async fn close(&self, session: String) {
        self.closed.lock().unwrap().push(session);
    }
}

/// Claude Code's `AskUserQuestion` input of the examples.
fn tool_input() -> Value {
    json!({ "questions": [{
        "question": "Which database should we use?", "header": "Database", "multiSelect": false,
        "options": [
            { "label": "Postgres", "description": "Full SQL, runs as a server" },
            { "label": "SQLite", "description": "A single file, no server" } ] }] })
}

/// The hook input Claude Code 2.1.332 writes for the call (its `PreToolUse` input).
fn hook_input() -> Value {
    json!({
        "session_id": "7b0c1d2e-0000-4000-8000-000000000001",
        "transcript_path": "/home/u/.claude/projects/app/7b0c1d2e.jsonl",
        "cwd": "/work/app",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "AskUserQuestion",
        "tool_input": tool_input(),
        "tool_use_id": "toolu_01ABC",
    })
}

fn input() -> HookInput {
    match read_input(hook_input().to_string().as_bytes()) {
        Ok(Input::Ask(input)) => input,
        other => panic!("not an ask: {other:?}"),
    }
}

fn allowed() -> Value {
    json!({ "behavior": "allow", "updatedInput": {
        "questions": tool_input()["questions"],
        "answers": { "Which database should we use?": "SQLite" } } })
}

fn denied(message: &str) -> Value {
    json!({ "behavior": "deny", "message": message, "interrupt": true })
}

async fn decision(
    ending: Option<Result<Ended, HostError>>,
    budget: Duration,
) -> (Decision, ScriptedHub) {
    let hub = ScriptedHub::ending(ending);
    let decision = decide(&input(), &hub, budget, std::future::pending()).await;
    (decision, hub)
}

#[test]
fn the_hook_input_is_read() {
    assert_eq!(
        input(),
        HookInput {
            tool_use_id: Some("toolu_01ABC".to_owned()),
            cwd: Some("/work/app".to_owned()),
            tool_input: tool_input(),
        }
    );
    assert_eq!(
        ask_params(&input(), Duration::from_millis(595_000)),
        json!({ "dialect": "claude", "session": "toolu_01ABC", "resume": true, "payload": tool_input(),
                "timeoutMs": 595000, "cwd": "/work/app",
                "asker": { "name": "Claude Code", "folder": "/work/app" } })
    );
}

#[tokio::test]
async fn an_answer_allows_the_call_with_the_answers() {
    let (decision, hub) = decision(
        Some(Ok(Ended {
            result: allowed(),
            cancel_reason: None,
        })),
        Duration::from_secs(595),
    )
    .await;
    assert_eq!(
        decision,
        Decision::Print(json!({ "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": allowed()["updatedInput"] } }))
    );
    assert_eq!(
        *hub.asked.lock().unwrap(),
        [ask_params(&input(), Duration::from_secs(595))]
    );
    assert_eq!(
        *hub.closed.lock().unwrap(),
        ["toolu_01ABC"],
        "the hub forgets the done flow"
    );
}

#[tokio::test]
async fn a_person_who_cancels_denies_the_call_with_words_the_model_reads() {
    for reason in ["user", "dismissed"] {
        let (decision, _) = decision(
            Some(Ok(Ended {
                result: denied(CANCEL_MESSAGE),
                cancel_reason: Some(reason.to_owned()),
            })),
            Duration::from_secs(595),
        )
        .await;
        assert_eq!(
            decision,
            Decision::Print(json!({ "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": CANCEL_MESSAGE } }))
        );
    }
}

#[tokio::test]
async fn endings_without_the_person_pass_the_call_on_to_claude_code() {
    for (message, reason) in [
        (TIMEOUT_MESSAGE, "timeout"),
        (ABORT_MESSAGE, "aborted"),
        (CLOSED_MESSAGE, "closed"),
    ] {
        let (decision, hub) = decision(
            Some(Ok(Ended {
                result: denied(message),
                cancel_reason: Some(reason.to_owned()),
            })),
            Duration::from_secs(595),
        )
        .await;
        assert_eq!(
            decision,
            Decision::PassOn(format!("the questions ended unanswered ({reason})"))
        );
        assert_eq!(*hub.closed.lock().unwrap(), ["toolu_01ABC"]);
    }
    // Asked once more (a hub may start now), then passed on with the same words.
    let (decision, hub) = decision(
        Some(Err(HostError::Unreachable("no hub could start".to_owned()))),
        Duration::from_secs(595),
    )
    .await;
    assert_eq!(
        decision,
        Decision::PassOn("no hub can be reached: no hub could start".to_owned())
    );
    assert_eq!(hub.asked.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_hub_gone_mid_question_is_asked_again_under_the_same_session() {
    let gone = || HostError::Unreachable("the hub at ws://127.0.0.1:9/rpc went away".to_owned());
    // The next hub recovered the flow: asking again resumes it, and its answer is printed.
    let hub = ScriptedHub::first_then(
        vec![Err(gone())],
        Some(Ok(Ended {
            result: allowed(),
            cancel_reason: None,
        })),
    );
    let decision = decide(
        &input(),
        &hub,
        Duration::from_secs(595),
        std::future::pending(),
    )
    .await;
    assert_eq!(
        decision,
        Decision::Print(json!({ "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": allowed()["updatedInput"] } }))
    );
    let asked = hub.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[1]["session"], "toolu_01ABC");
    let left = |params: &Value| params["timeoutMs"].as_u64().unwrap();
    assert!(left(&asked[1]) <= left(&asked[0]), "{asked:?}");
    assert_eq!(asked[1]["payload"], asked[0]["payload"]);
    // No hub comes back: both reasons are said, and Claude Code's dialog asks.
    let hub = ScriptedHub::ending(None);
    *hub.first.lock().unwrap() = vec![
        Err(gone()),
        Err(HostError::Unreachable("no hub could start".to_owned())),
    ];
    let decision = decide(
        &input(),
        &hub,
        Duration::from_secs(595),
        std::future::pending(),
    )
    .await;
    assert_eq!(
        decision,
        Decision::PassOn(
            "no hub can be reached: the hub at ws://127.0.0.1:9/rpc went away; asked again: \
             no hub could start"
                .to_owned()
        )
    );
    // Without a tool use id, asking again would open a second flow: passed on at once.
    let hub = ScriptedHub::first_then(vec![Err(gone())], None);
    let mut input = input();
    input.tool_use_id = None;
    let decision = decide(
        &input,
        &hub,
        Duration::from_secs(595),
        std::future::pending(),
    )
    .await;
    assert_eq!(
        decision,
        Decision::PassOn(
            "no hub can be reached: the hub at ws://127.0.0.1:9/rpc went away".to_owned()
        )
    );
    assert_eq!(hub.asked.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn the_hook_gives_up_at_its_budget_and_withdraws_the_flow() {
    let (decision, hub) = decision(None, Duration::from_secs(1)).await;
    assert_eq!(
        decision,
        Decision::PassOn("nobody answered within 1 second".to_owned())
    );
    assert_eq!(*hub.closed.lock().unwrap(), ["toolu_01ABC"]);
}

#[tokio::test]
async fn a_stopped_hook_withdraws_the_flow() {
    let hub = ScriptedHub::ending(None);
    let decision = decide(&input(), &hub, Duration::from_secs(595), async {}).await;
    assert_eq!(
        decision,
        Decision::PassOn("the hook was stopped".to_owned())
    );
    assert_eq!(*hub.closed.lock().unwrap(), ["toolu_01ABC"]);
}

#[tokio::test]
async fn an_input_askd_cannot_ask_is_passed_on_unasked() {
    let hub = ScriptedHub::ending(None);
    let mut input = input();
    input.tool_input = json!({ "questions": "which?" });
    let decision = decide(
        &input,
        &hub,
        Duration::from_secs(595),
        std::future::pending(),
    )
    .await;
    assert_eq!(
        decision,
        Decision::PassOn(
            "askd cannot ask this input (questions: questions must be an array)".to_owned()
        )
    );
    assert!(hub.asked.lock().unwrap().is_empty());
}

#[test]
fn only_an_answer_or_a_refusal_is_printed() {
    assert_eq!(output(&denied(TIMEOUT_MESSAGE), false), None);
    assert_eq!(output(&json!({ "behavior": "allow" }), false), None);
    assert_eq!(output(&json!({ "rejected": true }), true), None);
}
