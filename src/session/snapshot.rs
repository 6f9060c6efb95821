//! Versioned JSON snapshots of a session, and their checked restoration.
//!
//! A snapshot is opaque to clients but plain JSON: `{ format: "askd.session", version: 1, … }`.
//! Restoring checks the format, the version and every invariant of the flow before anything
//! is built, so a malformed or foreign snapshot is rejected whole with a reason.

use std::collections::HashSet;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::{
    Answer, Behaviour, CancelReason, EditorTarget, Flow, FlowSpec, Issue, Key, Keymap, OpenEditor,
    Outcome, Prompts, Question, TextEditor,
};
use crate::dialect::DialectId;
use crate::session::Session;

/// The `format` tag of every snapshot.
pub const FORMAT: &str = "askd.session";
/// The snapshot version this build writes and reads.
pub const VERSION: u32 = 1;

/// The envelope. (`deny_unknown_fields` cannot be combined with `flatten`; the bodies deny them.)
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Snapshot {
    format: String,
    version: u32,
    #[serde(flatten)]
    body: Body,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Body {
    Flow(Box<FlowState>),
    Invalid(InvalidState),
}

/// What a flow asks, with the dialect it was asked in (whose rules the flow follows).
#[derive(Serialize, Deserialize)]
struct SpecState {
    dialect: DialectId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    questions: Vec<Question>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    requester: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source: Option<Value>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FlowState {
    spec: SpecState,
    keymap: Value,
    non_interactive: bool,
    tab: usize,
    row: usize,
    review_action: usize,
    editor: Option<EditorState>,
    answers: Vec<Answer>,
    outcome: Option<OutcomeState>,
    /// Why a cancelled flow ended (absent in snapshots written before reasons existed: a
    /// cancelled flow then ended by the user, or without UI when it was non-interactive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cancel_reason: Option<CancelReason>,
    /// When the flow times out, in milliseconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deadline: Option<u64>,
    /// The filter of the active question's rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    filter: Option<FilterState>,
    /// The keys of a key sequence pressed so far, by canonical name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pending_keys: Vec<String>,
    /// The behaviour options (absent: the defaults).
    #[serde(default, skip_serializing_if = "is_default")]
    behaviour: Behaviour,
    /// Notices, armed confirmations and the help overlay (absent: none).
    #[serde(default, skip_serializing_if = "is_default")]
    prompts: Prompts,
}

/// Whether `value` is its type's default (left out of snapshots).
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FilterState {
    question: usize,
    text: String,
    cursor: usize,
    editing: bool,
}

/// How a flow ended, as snapshots write it (`aborted` is read from older snapshots).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum OutcomeState {
    Submit,
    Elaborate,
    Cancelled,
    Aborted,
    Declined,
}

/// An outcome as a snapshot writes it: its name, and the reason of a cancel.
fn outcome_state(outcome: Outcome) -> (OutcomeState, Option<CancelReason>) {
    match outcome {
        Outcome::Submit => (OutcomeState::Submit, None),
        Outcome::Elaborate => (OutcomeState::Elaborate, None),
        Outcome::Cancelled(reason) => (OutcomeState::Cancelled, Some(reason)),
        Outcome::Declined => (OutcomeState::Declined, None),
    }
}

/// The outcome a snapshot describes, checked: a reason only with a cancel, and one that a
/// flow can end with.
fn outcome_of(
    state: OutcomeState,
    reason: Option<CancelReason>,
    non_interactive: bool,
) -> Result<Outcome, String> {
    let outcome = match (state, reason) {
        (OutcomeState::Submit, None) => Outcome::Submit,
        (OutcomeState::Elaborate, None) => Outcome::Elaborate,
        (OutcomeState::Cancelled, Some(CancelReason::InvalidInput)) => {
            return Err("a flow cannot end as invalid_input".into());
        }
        (OutcomeState::Cancelled, Some(reason)) => Outcome::Cancelled(reason),
        (OutcomeState::Cancelled, None) if non_interactive => {
            Outcome::Cancelled(CancelReason::NoUi)
        }
        (OutcomeState::Cancelled, None) => Outcome::Cancelled(CancelReason::User),
        (OutcomeState::Aborted, None) => Outcome::Cancelled(CancelReason::Aborted),
        (OutcomeState::Declined, None) => Outcome::Declined,
        (_, Some(reason)) => {
            return Err(format!(
                "a cancelReason ({}) belongs to a cancelled flow only",
                reason.name()
            ));
        }
    };
    Ok(outcome)
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct EditorState {
    question: usize,
    target: EditorTarget,
    text: String,
    cursor: usize,
    initial: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refusal: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct InvalidState {
    /// Absent for pi, whose requests opened invalid before other dialects did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dialect: Option<DialectId>,
    title: Option<String>,
    issues: Vec<Issue>,
    labels: Vec<String>,
}

/// Why a snapshot was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid snapshot: {0}")]
pub struct SnapshotError(pub String);

/// Serialises a session to a snapshot.
pub fn save(session: &Session) -> Value {
    let body = match session {
        Session::Flow {
            dialect,
            flow,
            non_interactive,
        } => Body::Flow(Box::new(FlowState {
            spec: SpecState {
                dialect: *dialect,
                title: flow.spec().title.clone(),
                questions: flow.spec().questions.clone(),
                requester: flow.spec().requester.clone(),
                source: flow.spec().source.as_deref().cloned(),
            },
            keymap: flow.keymap().overrides(),
            non_interactive: *non_interactive,
            tab: flow.tab(),
            row: flow.row(),
            review_action: flow.review_action(),
            editor: flow.editor().map(|e| EditorState {
                question: e.question,
                target: e.target,
                text: e.text.text().to_owned(),
                cursor: e.text.cursor(),
                initial: e.initial.clone(),
                refusal: e.refusal.clone(),
            }),
            answers: flow.answers().to_vec(),
            outcome: flow.outcome().map(|o| outcome_state(o).0),
            cancel_reason: flow.outcome().and_then(|o| outcome_state(o).1),
            deadline: flow.deadline(),
            filter: flow.filter().map(|f| FilterState {
                question: f.question,
                text: f.text.text().to_owned(),
                cursor: f.text.cursor(),
                editing: f.editing,
            }),
            pending_keys: flow
                .pending_keys()
                .iter()
                .map(ToString::to_string)
                .collect(),
            behaviour: flow.spec().behaviour,
            prompts: *flow.prompts(),
        })),
        Session::Invalid { dialect, invalid } => Body::Invalid(InvalidState {
            dialect: (*dialect != DialectId::PI).then_some(*dialect),
            title: invalid.title.clone(),
            issues: invalid.issues.clone(),
            labels: invalid.labels.clone(),
        }),
    };
    serde_json::to_value(Snapshot {
        format: FORMAT.to_owned(),
        version: VERSION,
        body,
    })
    .unwrap_or(Value::Null)
}

/// Rebuilds a session from a snapshot, or says why it cannot.
pub fn restore(state: &Value) -> Result<Session, SnapshotError> {
    let fail = |m: String| SnapshotError(m);
    let object = state
        .as_object()
        .ok_or_else(|| fail("expected an object".into()))?;
    match object.get("format").and_then(Value::as_str) {
        Some(FORMAT) => {}
        Some(other) => return Err(fail(format!("unknown format {other:?}"))),
        None => return Err(fail(format!("missing \"format\": {FORMAT:?}"))),
    }
    match object.get("version").and_then(Value::as_u64) {
        Some(v) if v == u64::from(VERSION) => {}
        Some(v) => {
            return Err(fail(format!(
                "version {v} is not supported (this build reads version {VERSION})"
            )));
        }
        None => return Err(fail("missing \"version\"".into())),
    }
    let snapshot: Snapshot =
        serde_json::from_value(state.clone()).map_err(|e| fail(e.to_string()))?;
    match snapshot.body {
        Body::Invalid(s) => {
            let dialect = s.dialect.unwrap_or(DialectId::PI);
            let invalid = dialect
                .reopen_invalid(s.title, s.issues, s.labels)
                .ok_or_else(|| {
                    fail(format!(
                        "the {} dialect refuses invalid requests; none opens",
                        dialect.name()
                    ))
                })?;
            Ok(Session::Invalid {
                dialect,
                invalid: Box::new(invalid),
            })
        }
        Body::Flow(s) => restore_flow(*s).map_err(fail),
    }
}

fn restore_flow(s: FlowState) -> Result<Session, String> {
    let dialect = s.spec.dialect;
    let spec = FlowSpec {
        title: s.spec.title,
        questions: s.spec.questions,
        rules: dialect.rules(),
        requester: s.spec.requester,
        source: s.spec.source.map(Arc::new),
        behaviour: s.behaviour,
    };
    check_spec(&spec)?;
    let keymap = Keymap::default()
        .with_overrides(&s.keymap)
        .map_err(|e| e.to_string())?;
    let editor = match s.editor {
        None => None,
        Some(e) => Some(OpenEditor {
            question: e.question,
            target: e.target,
            text: TextEditor::from_parts(&e.text, e.cursor)
                .ok_or("the editor's cursor is not on a character boundary")?,
            initial: e.initial,
            refusal: e.refusal,
        }),
    };
    let filter = match s.filter {
        None => None,
        Some(f) => Some((
            f.question,
            TextEditor::from_parts(&f.text, f.cursor)
                .ok_or("the filter's cursor is not on a character boundary")?,
            f.editing,
        )),
    };
    let pending = s
        .pending_keys
        .iter()
        .map(|name| Key::parse(name).map_err(|e| format!("pendingKeys: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let outcome = match s.outcome {
        Some(state) => Some(outcome_of(state, s.cancel_reason, s.non_interactive)?),
        None if s.cancel_reason.is_some() => {
            return Err("an open flow has no cancelReason".into());
        }
        None => None,
    };
    if s.non_interactive && outcome != Some(Outcome::Cancelled(CancelReason::NoUi)) {
        return Err("a non-interactive session must be cancelled".into());
    }
    let flow = Flow::from_parts(
        Arc::new(spec),
        Arc::new(keymap),
        s.tab,
        s.row,
        s.review_action,
        editor,
        s.answers,
        outcome,
        s.prompts,
        s.deadline,
        filter,
        pending,
    )?;
    Ok(Session::Flow {
        dialect,
        flow,
        non_interactive: s.non_interactive,
    })
}

/// The spec invariants validation guarantees: questions, unique ids, options with unique values.
fn check_spec(spec: &FlowSpec) -> Result<(), String> {
    if spec.questions.is_empty() && !spec.rules.empty {
        return Err("the spec has no questions".into());
    }
    let mut ids = HashSet::new();
    for q in &spec.questions {
        if q.id.trim().is_empty() || !ids.insert(q.id.as_str()) {
            return Err(format!("question id {:?} is blank or repeated", q.id));
        }
        if q.options.is_empty() && !spec.rules.free_text {
            return Err(format!("question {:?} has no options", q.id));
        }
        if q.options.is_empty() && !spec.has_custom_row(q) {
            return Err(format!("question {:?} has no rows", q.id));
        }
        let mut values = HashSet::new();
        if q.options.iter().any(|o| !values.insert(o.value.as_str())) {
            return Err(format!("question {:?} repeats an option value", q.id));
        }
    }
    Ok(())
}
