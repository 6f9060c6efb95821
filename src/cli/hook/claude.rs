//! `askd hook claude`: Claude Code's `PreToolUse` hook for `AskUserQuestion`, answered in the
//! hub.
//!
//! Claude Code runs the hook with the tool call on stdin (`{ session_id, transcript_path, cwd,
//! permission_mode?, hook_event_name: "PreToolUse", tool_name: "AskUserQuestion", tool_input,
//! tool_use_id, … }`) and reads its decision from stdout. The hook opens the questions in the
//! hub in the claude dialect (session id: the tool use id; asker: Claude Code and `cwd`), and
//! prints, once the person has answered:
//!
//! - `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
//!   "updatedInput": {questions, answers, annotations?}}}`, which answers the tool call;
//! - `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
//!   "permissionDecisionReason": "<the claude dialect's cancel message>"}}` when the person
//!   cancelled or dismissed the questions: the model reads that reason as the tool's error.
//!
//! Whenever no person answered (no hub could start or be reached, the hook's time ran out, the
//! flow was withdrawn or closed by a client, or askd cannot ask this input), it prints nothing
//! and exits 0: Claude Code then asks with its own dialog, as if there were no hook. A hook
//! never blocks the agent by surprise: every exit status is 0, except 1 for an input that is
//! not a hook's (a non-blocking error Claude Code shows and goes past).
//!
//! A hub that goes away mid-question is asked once more, in the hub found or started then, under
//! the same session: that hub recovered the flow from the state directory, so the question goes
//! on where the person left it. When no hub can be reached then either, the hook passes the call
//! on, naming both reasons.
//!
//! Time: Claude Code stops a command hook after its `timeout` setting (in seconds; 600 when
//! unset). The hook does not learn that setting, so `--timeout` tells it (the same number);
//! the hook gives up [`margin`] before it, withdraws its flow and prints nothing, so that
//! Claude Code's own dialog asks in time. The flow carries the same deadline (`timeoutMs`), so
//! the person sees how long is left.

use std::future::Future;
use std::time::Duration;

use serde_json::{Value, json};

use crate::cli::bridge::host::{FlowHost, HostError};
use crate::dialect::claude::{PreviewFormat, validate};

/// Claude Code's own time limit of a command hook without a `timeout` setting, in seconds.
pub const CLAUDE_DEFAULT_TIMEOUT_SECS: u64 = 600;
/// The tool this hook answers.
pub const TOOL: &str = "AskUserQuestion";
/// The hook event this hook answers.
pub const EVENT: &str = "PreToolUse";
/// The asker's name in the hub.
pub const ASKER: &str = "Claude Code";
/// Largest hook input read from stdin.
pub const MAX_INPUT_BYTES: usize = 8 * 1024 * 1024;

/// How long before Claude Code's limit the hook gives up: 5 seconds, or a quarter of a limit
/// shorter than 20 seconds.
pub fn margin(limit: Duration) -> Duration {
    (limit / 4).min(Duration::from_secs(5))
}

/// The hook input, as far as the hook reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct HookInput {
    /// `tool_use_id`: the flow's session id in the hub.
    pub tool_use_id: Option<String>,
    /// `cwd`: the project folder (the asker's folder, and the root of `@` completion).
    pub cwd: Option<String>,
    /// `tool_input`: the `AskUserQuestion` input.
    pub tool_input: Value,
}

/// What the hook makes of its stdin.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// An `AskUserQuestion` call to answer.
    Ask(HookInput),
    /// A hook input of another event or tool (a matcher that is too wide): left alone.
    NotOurs(String),
}

/// Reads the hook input. An `Err` is input that is not a hook's at all.
pub fn read_input(bytes: &[u8]) -> Result<Input, String> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(format!(
            "the hook input is longer than {MAX_INPUT_BYTES} bytes"
        ));
    }
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("the hook input is not JSON: {e}"))?;
    let Value::Object(input) = value else {
        return Err("the hook input is not a JSON object".to_owned());
    };
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    let event = text("hook_event_name");
    let tool = text("tool_name");
    if event != Some(EVENT) || tool != Some(TOOL) {
        return Ok(Input::NotOurs(format!(
            "it answers {EVENT} for {TOOL} only, and was run for {} of {}; register it with \"matcher\": \"{TOOL}\"",
            event.unwrap_or("an unnamed event"),
            tool.unwrap_or("no tool"),
        )));
    }
    Ok(Input::Ask(HookInput {
        tool_use_id: text("tool_use_id")
            .filter(|id| !id.is_empty())
            .map(str::to_owned),
        cwd: text("cwd").filter(|c| !c.is_empty()).map(str::to_owned),
        tool_input: input.get("tool_input").cloned().unwrap_or(Value::Null),
    }))
}

/// The `ask` params of the call: the claude dialect, the tool use id as the session, the tool
/// input as the payload, who asked (Claude Code, in `cwd`), and the deadline.
pub fn ask_params(input: &HookInput, time_left: Duration) -> Value {
    let mut params = json!({
        "dialect": "claude",
        "payload": input.tool_input,
        "timeoutMs": u64::try_from(time_left.as_millis()).unwrap_or(u64::MAX),
    });
    let mut asker = json!({ "name": ASKER });
    if let Some(id) = &input.tool_use_id {
        // The tool call's own id: a flow of it that a killed hub left is this very question,
        // so asking again goes on with it.
        params["session"] = json!(id);
        params["resume"] = json!(true);
    }
    if let Some(cwd) = &input.cwd {
        asker["folder"] = json!(cwd);
        params["cwd"] = json!(cwd);
    }
    params["asker"] = asker;
    params
}

/// What the hook does about a call.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Print this output: the person answered, or declined.
    Print(Value),
    /// Print nothing (Claude Code asks with its own dialog), for this reason.
    PassOn(String),
}

/// The hook output that answers a claude dialect result: `allow` with the answers, or `deny`
/// with the message when the person declined; `None` for any other result.
pub fn output(result: &Value, person_declined: bool) -> Option<Value> {
    match result.get("behavior").and_then(Value::as_str) {
        Some("allow") => Some(json!({
            "hookSpecificOutput": {
                "hookEventName": EVENT,
                "permissionDecision": "allow",
                "updatedInput": result.get("updatedInput")?,
            }
        })),
        Some("deny") if person_declined => Some(json!({
            "hookSpecificOutput": {
                "hookEventName": EVENT,
                "permissionDecision": "deny",
                "permissionDecisionReason": result.get("message").and_then(Value::as_str)?,
            }
        })),
        _ => None,
    }
}

/// Asks the call in `host` within `budget` (the time Claude Code gives the hook, less the
/// margin), unless `stop` resolves first; decides what to print.
pub async fn decide<H: FlowHost>(
    input: &HookInput,
    host: &H,
    budget: Duration,
    stop: impl Future<Output = ()>,
) -> Decision {
    if let Err(issues) = validate(&input.tool_input, PreviewFormat::Markdown) {
        let issues: Vec<String> = issues
            .iter()
            .map(|i| format!("{}: {}", i.path, i.message))
            .collect();
        return Decision::PassOn(format!(
            "askd cannot ask this input ({})",
            issues.join("; ")
        ));
    }
    let started = tokio::time::Instant::now();
    let asked = async {
        match host.ask(ask_params(input, budget)).await {
            // The hub went away mid-question (or could not be reached): once more, in the hub
            // found or started now, under the same session, which resumes the flow that hub
            // recovered from the state directory.
            Err(HostError::Unreachable(lost)) if input.tool_use_id.is_some() => {
                let left = budget.saturating_sub(started.elapsed());
                match host.ask(ask_params(input, left)).await {
                    Err(HostError::Unreachable(again)) if again != lost => Err(
                        HostError::Unreachable(format!("{lost}; asked again: {again}")),
                    ),
                    other => other,
                }
            }
            other => other,
        }
    };
    let deadline = tokio::time::sleep(budget);
    let outcome = tokio::select! {
        ended = asked => Some(ended),
        () = deadline => None,
        () = stop => {
            withdraw(input, host).await;
            return Decision::PassOn("the hook was stopped".to_owned());
        }
    };
    match outcome {
        None => {
            withdraw(input, host).await;
            Decision::PassOn(format!("nobody answered within {}", seconds(budget)))
        }
        Some(Err(error)) => Decision::PassOn(error.to_string()),
        Some(Ok(ended)) => {
            let decision = match output(&ended.result, ended.person_declined()) {
                Some(output) => Decision::Print(output),
                None => Decision::PassOn(format!(
                    "the questions ended unanswered ({})",
                    ended.cancel_reason.as_deref().unwrap_or("no reason given")
                )),
            };
            if let Some(id) = &input.tool_use_id {
                host.close(id.clone()).await;
            }
            decision
        }
    }
}

/// A whole number of seconds in words: `1 second`, `55 seconds`.
fn seconds(duration: Duration) -> String {
    match (duration.as_millis() + 500) / 1000 {
        1 => "1 second".to_owned(),
        n => format!("{n} seconds"),
    }
}

/// Withdraws the call's flow from the hub (nobody is to answer it there any more).
async fn withdraw<H: FlowHost>(input: &HookInput, host: &H) {
    if let Some(id) = &input.tool_use_id {
        // The hub may be gone too: never wait on it for long.
        let _ = tokio::time::timeout(Duration::from_secs(2), host.close(id.clone())).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_margin_is_five_seconds_or_a_quarter() {
        assert_eq!(margin(Duration::from_secs(600)), Duration::from_secs(5));
        assert_eq!(margin(Duration::from_secs(20)), Duration::from_secs(5));
        assert_eq!(margin(Duration::from_secs(8)), Duration::from_secs(2));
    }

    #[test]
    fn inputs_of_other_events_and_tools_are_not_ours() {
        assert_eq!(
            read_input(br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}"#),
            Ok(Input::NotOurs(
                "it answers PreToolUse for AskUserQuestion only, and was run for PreToolUse of \
                 Bash; register it with \"matcher\": \"AskUserQuestion\""
                    .to_owned()
            ))
        );
        assert_eq!(
            read_input(b"[1]"),
            Err("the hook input is not a JSON object".to_owned())
        );
        assert!(
            read_input(b"{")
                .unwrap_err()
                .starts_with("the hook input is not JSON: ")
        );
    }
}
