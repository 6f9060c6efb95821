//! Versioned JSON snapshots of a session, and their checked restoration.
//!
//! A snapshot is opaque to clients but plain JSON:
//! `{ format: "askd.session", version: 2, dialect, request, options?, flow? }`. `request` is
//! the request the session was opened on, exactly as it came; `options` the `open` param named
//! after its dialect, when one was given; `flow` is the state of its flow (absent for a request
//! that failed validation). Restoring opens the request again in its dialect with those
//! options, with the dialect's own validation and the payload limits, and rebuilds the flow
//! from its parts
//! with every invariant checked, so a snapshot restores exactly when it describes a state that
//! a real flow can reach; anything else is refused whole with a reason.
//!
//! Version 1 snapshots held the spec the request had been mapped onto instead of the request;
//! a spec cannot be validated again, so this build refuses them.

use std::io::Write;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::core::{
    Action, Answer, Behaviour, CancelReason, EditorTarget, Flow, FlowSpec, Key, Keymap, Limits,
    MAX_KEYS_PER_ACTION, MAX_SEQUENCE, OpenEditor, Outcome, Prompts, Question, QuestionType,
    TextEditor, quoted,
};
use crate::dialect::{DialectId, Rejection};
use crate::session::{OpenOptions, Session};

/// The `format` tag of every snapshot.
pub const FORMAT: &str = "askd.session";
/// The snapshot version this build writes and reads.
pub const VERSION: u32 = 2;

/// A snapshot as it is written, borrowing the session and its request.
#[derive(Serialize)]
struct SnapshotOut<'a> {
    format: &'static str,
    version: u32,
    dialect: DialectId,
    request: &'a RawValue,
    #[serde(skip_serializing_if = "Value::is_null")]
    options: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    flow: Option<FlowOut<'a>>,
}

/// The state of a flow as it is written: what stays as the session opened, and what changes.
#[derive(Serialize)]
struct FlowOut<'a> {
    #[serde(flatten)]
    constant: ConstantOut,
    #[serde(flatten)]
    changing: ChangingOut<'a>,
}

/// What a flow keeps as it was opened.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConstantOut {
    keymap: Value,
    non_interactive: bool,
    #[serde(skip_serializing_if = "is_default")]
    behaviour: Behaviour,
    /// When the flow times out, in milliseconds since the Unix epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    deadline: Option<u64>,
}

/// What changes as a flow is driven.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ChangingOut<'a> {
    tab: usize,
    row: usize,
    review_action: usize,
    editor: Option<EditorOut<'a>>,
    answers: &'a [Answer],
    outcome: Option<OutcomeState>,
    /// Why a cancelled flow ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    cancel_reason: Option<CancelReason>,
    /// The filter of the active question's rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    filter: Option<FilterOut<'a>>,
    /// The keys of a key sequence pressed so far, by canonical name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pending_keys: Vec<String>,
    #[serde(skip_serializing_if = "is_default")]
    prompts: Prompts,
    #[serde(skip_serializing_if = "Presented::is_empty")]
    presented: Presented<'a>,
}

/// The questions presented as another kind than the one asked, written as
/// `[[index, kind presented], …]`.
struct Presented<'a>(&'a [Question]);

impl Presented<'_> {
    fn is_empty(&self) -> bool {
        self.0.iter().all(|q| q.asked.is_none())
    }
}

impl Serialize for Presented<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.0
                .iter()
                .enumerate()
                .filter(|(_, q)| q.asked.is_some())
                .map(|(i, q)| (i, q.kind)),
        )
    }
}

/// Whether `value` is its type's default (left out of snapshots).
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

#[derive(Serialize)]
struct EditorOut<'a> {
    question: usize,
    target: EditorTarget,
    text: &'a str,
    cursor: usize,
    initial: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    refusal: Option<&'a str>,
}

#[derive(Serialize)]
struct FilterOut<'a> {
    question: usize,
    text: &'a str,
    cursor: usize,
    editing: bool,
}

/// How a flow ended, as snapshots write it: a cancel's reason goes beside it (`aborted` alone
/// is read as a cancel the asker withdrew).
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
/// flow can end with. A cancel without a reason (written before reasons existed) is the
/// user's, or, opened without UI, for want of one.
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

/// A snapshot as it is read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SnapshotIn {
    #[serde(rename = "format")]
    _format: String,
    #[serde(rename = "version")]
    _version: u32,
    dialect: DialectId,
    request: Box<RawValue>,
    #[serde(default)]
    options: Value,
    #[serde(default)]
    flow: Option<FlowIn>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FlowIn {
    keymap: Value,
    non_interactive: bool,
    tab: usize,
    row: usize,
    review_action: usize,
    editor: Option<EditorIn>,
    answers: Vec<Answer>,
    outcome: Option<OutcomeState>,
    #[serde(default)]
    cancel_reason: Option<CancelReason>,
    #[serde(default)]
    deadline: Option<u64>,
    #[serde(default)]
    filter: Option<FilterIn>,
    #[serde(default)]
    pending_keys: Vec<String>,
    #[serde(default)]
    behaviour: Behaviour,
    #[serde(default)]
    prompts: Prompts,
    #[serde(default)]
    presented: Vec<(usize, QuestionType)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FilterIn {
    question: usize,
    text: String,
    cursor: usize,
    editing: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditorIn {
    question: usize,
    target: EditorTarget,
    text: String,
    cursor: usize,
    initial: String,
    #[serde(default)]
    refusal: Option<String>,
}

/// Why a snapshot was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestoreError {
    /// It is not a snapshot of a state a flow can reach.
    #[error("{0}")]
    Invalid(String),
    /// It holds more than the limits let a session hold.
    #[error("{0}")]
    Limit(String),
}

/// A restored session and the request it was opened on.
#[derive(Debug)]
pub struct Restored {
    /// The session, in exactly the state of the snapshot.
    pub session: Session,
    /// The request, as the snapshot held it.
    pub request: Box<RawValue>,
    /// The options of its dialect it was opened with (`null`: none).
    pub options: Value,
}

/// What a session's flow keeps as it was opened; `None` for a request that failed validation.
fn constant_out(session: &Session) -> Option<ConstantOut> {
    let Session::Flow {
        flow,
        non_interactive,
        ..
    } = session
    else {
        return None;
    };
    Some(ConstantOut {
        keymap: flow.keymap().overrides(),
        non_interactive: *non_interactive,
        behaviour: flow.spec().behaviour,
        deadline: flow.deadline(),
    })
}

/// What changes in a session's flow; `None` for a request that failed validation.
fn changing_out(session: &Session) -> Option<ChangingOut<'_>> {
    let flow = session.flow()?;
    Some(ChangingOut {
        tab: flow.tab(),
        row: flow.row(),
        review_action: flow.review_action(),
        editor: flow.editor().map(|e| EditorOut {
            question: e.question,
            target: e.target,
            text: e.text.text(),
            cursor: e.text.cursor(),
            initial: &e.initial,
            refusal: e.refusal.as_deref(),
        }),
        answers: flow.answers(),
        outcome: flow.outcome().map(|o| outcome_state(o).0),
        cancel_reason: flow.outcome().and_then(|o| outcome_state(o).1),
        filter: flow.filter().map(|f| FilterOut {
            question: f.question,
            text: f.text.text(),
            cursor: f.text.cursor(),
            editing: f.editing,
        }),
        pending_keys: flow
            .pending_keys()
            .iter()
            .map(ToString::to_string)
            .collect(),
        prompts: *flow.prompts(),
        presented: Presented(&flow.spec().questions),
    })
}

/// The state of a session's flow, as written into its snapshot; `None` for a request that
/// failed validation.
fn flow_out(session: &Session) -> Option<FlowOut<'_>> {
    Some(FlowOut {
        constant: constant_out(session)?,
        changing: changing_out(session)?,
    })
}

/// Writes the snapshot of `session`, opened on `request` with the options of its dialect
/// `options` (`null`: none), as compact JSON.
pub fn write(
    session: &Session,
    request: &RawValue,
    options: &Value,
    out: impl Write,
) -> serde_json::Result<()> {
    serde_json::to_writer(
        out,
        &SnapshotOut {
            format: FORMAT,
            version: VERSION,
            dialect: session.dialect(),
            request,
            options,
            flow: flow_out(session),
        },
    )
}

/// Writes the members of the `flow` of `session`'s snapshot that stay as the session opened
/// (`null` for a request that failed validation).
pub fn write_constant(session: &Session, out: impl Write) -> serde_json::Result<()> {
    serde_json::to_writer(out, &constant_out(session))
}

/// Writes the members of the `flow` of `session`'s snapshot that change as the flow is driven
/// (`null` for a request that failed validation); with those of [`write_constant`] they are
/// the whole `flow`.
pub fn write_changing(session: &Session, out: impl Write) -> serde_json::Result<()> {
    serde_json::to_writer(out, &changing_out(session))
}

/// The snapshot of `session`, opened on `request` with the options of its dialect `options`
/// (`null`: none), as a JSON value.
pub fn save(session: &Session, request: &RawValue, options: &Value) -> Value {
    let mut text = Vec::new();
    write(session, request, options, &mut text).expect("a snapshot serialises");
    serde_json::from_slice(&text).expect("a snapshot is JSON")
}

/// Most bytes a key's canonical name takes in JSON (`ctrl+alt+shift+backspace`; a character
/// key with every modifier takes at most 21, escaped).
const KEY_NAME_BYTES: usize = 24;

/// Most bytes an action's name takes in a keymap override, with its quotes, colon and
/// brackets, and the brackets of its key sequences (two keys each at least, so at most half
/// of [`MAX_KEYS_PER_ACTION`] of them).
const ACTION_BYTES: usize = 64;

/// Most bytes one action's keys take in a snapshot's keymap: its name, and every key it may
/// be bound to (the brackets of its key sequences fit in what its name is given).
pub const KEYMAP_ACTION_BYTES: usize = ACTION_BYTES + MAX_KEYS_PER_ACTION * (KEY_NAME_BYTES + 3);

/// The most bytes [`write()`] writes for a session that `limits` let exist, whose request (kept
/// as it came) is at most `max_request_bytes` long.
///
/// Every string is counted six times over (the longest JSON escape, `\u0001`, takes six
/// bytes for one), with its quotes: the custom answers and notes (`max_flow_text_bytes` in
/// all), an editor's text and the text it opened with (`max_text_bytes` each), the key names
/// of the keymap (every action at its bound), the filter's text (`max_text_bytes`), the keys
/// of a key sequence begun, and the numbers of the answers (every option of every question
/// selected, and noted).
pub fn max_bytes(limits: &Limits, max_request_bytes: usize) -> usize {
    const ENVELOPE: usize = 1024;
    const PER_ANSWER: usize = 160;
    const PER_NOTE: usize = 8;
    let digits = limits.max_options.max(1).to_string().len();
    let keymap = Action::ALL.len() * KEYMAP_ACTION_BYTES;
    let answers =
        limits.max_questions * (PER_ANSWER + limits.max_options * (2 * (digits + 1) + PER_NOTE));
    ENVELOPE
        .saturating_add(max_request_bytes)
        .saturating_add(keymap)
        .saturating_add(answers)
        .saturating_add(limits.max_flow_text_bytes.saturating_mul(6))
        .saturating_add(limits.max_text_bytes.saturating_mul(18))
        .saturating_add(MAX_SEQUENCE * (KEY_NAME_BYTES + 3))
}

/// Rebuilds a session from the text of a snapshot, or says why it cannot: the request opens
/// again in its dialect within `limits` (at most `max_request_bytes` long), and the flow is
/// rebuilt from its parts with every invariant checked.
pub fn restore(
    state: &str,
    limits: &Limits,
    max_request_bytes: usize,
) -> Result<Restored, RestoreError> {
    let invalid = |m: String| RestoreError::Invalid(m);
    let envelope: Value =
        serde_json::from_str(state).map_err(|_| invalid("expected a snapshot (JSON)".into()))?;
    let object = envelope
        .as_object()
        .ok_or_else(|| invalid("expected a snapshot (an object)".into()))?;
    match object.get("format").and_then(Value::as_str) {
        Some(FORMAT) => {}
        Some(other) => {
            return Err(invalid(format!(
                "unknown format {}; expected {}",
                quoted(other),
                quoted(FORMAT)
            )));
        }
        None => return Err(invalid(format!("missing \"format\": {}", quoted(FORMAT)))),
    }
    match object.get("version").and_then(Value::as_u64) {
        Some(v) if v == u64::from(VERSION) => {}
        Some(v) => {
            return Err(invalid(format!(
                "version {v} is not supported (this build reads version {VERSION})"
            )));
        }
        None => return Err(invalid("missing \"version\"".into())),
    }
    let snapshot: SnapshotIn = serde_json::from_str(state).map_err(|e| {
        tracing::debug!("a snapshot of another shape: {e}");
        invalid(
            "expected a snapshot as `snapshot` writes it (its members do not have their shape)"
                .into(),
        )
    })?;
    let request_text = snapshot.request.get();
    if request_text.len() > max_request_bytes {
        return Err(RestoreError::Limit(format!(
            "state.request is {} bytes; a message holds at most {max_request_bytes}",
            request_text.len()
        )));
    }
    let request: Value = serde_json::from_str(request_text).expect("a raw value is JSON");
    limits
        .check_counts(&request, "state.request")
        .and_then(|()| limits.check_texts(&request, "state.request"))
        .map_err(RestoreError::Limit)?;
    limits
        .check_texts(&snapshot.options, "state.options")
        .map_err(RestoreError::Limit)?;
    let dialect = snapshot.dialect;
    let session = match (dialect.open(&request, &snapshot.options), snapshot.flow) {
        (Ok(spec), Some(flow)) => restore_flow(dialect, spec, flow, limits)?,
        (Err(Rejection::Invalid(invalid)), None) => Session::Invalid { dialect, invalid },
        (Ok(_), None) => {
            return Err(invalid(
                "the request is valid, so the snapshot needs the state of its flow".into(),
            ));
        }
        (Err(Rejection::Invalid(_)), Some(_)) => {
            return Err(invalid(
                "the request fails validation, so its session has no flow".into(),
            ));
        }
        (Err(Rejection::Refused(e)), _) => {
            return Err(invalid(format!(
                "the request is refused in the {} dialect: {}",
                dialect.name(),
                e.message
            )));
        }
    };
    Ok(Restored {
        session,
        request: snapshot.request,
        options: snapshot.options,
    })
}

/// `spec` under the behaviour of a snapshot, each question presented as the snapshot says:
/// as its dialect and the behaviour make it, or as the question-type toggle (when the behaviour
/// has it) turns it.
fn presented(
    spec: FlowSpec,
    behaviour: Behaviour,
    presented: &[(usize, QuestionType)],
) -> Result<FlowSpec, String> {
    let mut spec = spec.with_behaviour(behaviour);
    let mut seen = vec![false; spec.questions.len()];
    for &(i, kind) in presented {
        let question = spec
            .questions
            .get_mut(i)
            .ok_or_else(|| format!("question {} is not in the request", i + 1))?;
        if std::mem::replace(&mut seen[i], true) {
            return Err(format!("question {} is presented twice", i + 1));
        }
        if question.asked.is_none() && kind == question.kind {
            return Err(format!("question {} is presented as the kind asked", i + 1));
        }
        let reachable = match question.asked_kind() {
            QuestionType::Preview => [QuestionType::Preview, QuestionType::Multi],
            _ => [QuestionType::Single, QuestionType::Multi],
        };
        if !reachable.contains(&kind) || !(behaviour.question_type_toggle || kind == question.kind)
        {
            return Err(format!(
                "question {} cannot be presented as {}",
                i + 1,
                serde_json::to_string(&kind).unwrap_or_default()
            ));
        }
        question.present_as(kind);
    }
    // A question presented as another kind is listed.
    for (i, question) in spec.questions.iter_mut().enumerate() {
        if !seen[i] && question.asked.is_some() {
            if !behaviour.question_type_toggle {
                return Err(format!("question {} is presented as the kind asked", i + 1));
            }
            question.present_as(question.asked_kind());
        }
    }
    Ok(spec)
}

fn restore_flow(
    dialect: DialectId,
    spec: FlowSpec,
    s: FlowIn,
    limits: &Limits,
) -> Result<Session, RestoreError> {
    let invalid = RestoreError::Invalid;
    let spec = Arc::new(presented(spec, s.behaviour, &s.presented).map_err(invalid)?);
    let keymap = Keymap::default()
        .with_overrides(&s.keymap)
        .map_err(|e| invalid(format!("keymap: {e}")))?;
    let keymap = Arc::new(keymap);
    for (i, answer) in s.answers.iter().enumerate() {
        let texts = answer
            .custom_text
            .iter()
            .chain(&answer.note)
            .chain(answer.option_notes.iter().map(|(_, t)| t));
        for text in texts {
            limits
                .check_text(text, &format!("a text of answer {}", i + 1))
                .map_err(RestoreError::Limit)?;
        }
    }
    let editor = match s.editor {
        None => None,
        Some(e) => {
            limits
                .check_text(&e.text, "the editor's text")
                .map_err(RestoreError::Limit)?;
            let saved = s
                .answers
                .get(e.question)
                .and_then(|a| match e.target {
                    EditorTarget::Custom => a.custom_text.as_deref(),
                    EditorTarget::QuestionNote => a.note.as_deref(),
                    EditorTarget::OptionNote { option } => a.option_note(option),
                })
                .unwrap_or("");
            if e.initial != saved {
                return Err(invalid(
                    "the open editor did not open with the text its answer holds".into(),
                ));
            }
            Some(OpenEditor {
                question: e.question,
                target: e.target,
                text: TextEditor::from_parts(&e.text, e.cursor).ok_or_else(|| {
                    invalid("the editor's cursor is not on a character boundary".into())
                })?,
                initial: e.initial,
                refusal: e.refusal,
            })
        }
    };
    let filter = match s.filter {
        None => None,
        Some(f) => {
            limits
                .check_text(&f.text, "the filter's text")
                .map_err(RestoreError::Limit)?;
            Some((
                f.question,
                TextEditor::from_parts(&f.text, f.cursor).ok_or_else(|| {
                    invalid("the filter's cursor is not on a character boundary".into())
                })?,
                f.editing,
            ))
        }
    };
    let pending = s
        .pending_keys
        .iter()
        .map(|name| Key::parse(name).map_err(|e| invalid(format!("pendingKeys: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let outcome = match s.outcome {
        Some(state) => {
            Some(outcome_of(state, s.cancel_reason, s.non_interactive).map_err(invalid)?)
        }
        None if s.cancel_reason.is_some() => {
            return Err(invalid("an open flow has no cancelReason".into()));
        }
        None => None,
    };
    let flow = Flow::from_parts(
        spec.clone(),
        keymap.clone(),
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
    )
    .map_err(invalid)?;
    let stored = flow.stored_bytes();
    if stored > limits.max_flow_text_bytes {
        return Err(RestoreError::Limit(format!(
            "the snapshot holds {stored} bytes of answers and notes; the limit is {}",
            limits.max_flow_text_bytes
        )));
    }
    let session = Session::Flow {
        dialect,
        flow,
        non_interactive: s.non_interactive,
    };
    if s.non_interactive {
        // Opened without UI, a flow completes at once and never changes again.
        let options = OpenOptions {
            dialect: Some(dialect),
            has_ui: false,
            keymap,
            deadline: None,
            dialect_options: serde_json::Map::new(),
            behaviour: s.behaviour,
        };
        if session != Session::from_spec(dialect, spec, &options) {
            return Err(invalid(
                "a session opened without UI is cancelled at once and never changes".into(),
            ));
        }
    }
    Ok(session)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Key, KeyCode, Mods};

    /// The bounds [`max_bytes`] counts with hold for every key and every action.
    #[test]
    fn key_and_action_names_fit_their_bounds() {
        let mods = Mods {
            ctrl: true,
            alt: true,
            shift: true,
        };
        for code in [
            KeyCode::Up,
            KeyCode::Down,
            KeyCode::Left,
            KeyCode::Right,
            KeyCode::Tab,
            KeyCode::Enter,
            KeyCode::Escape,
            KeyCode::Backspace,
            KeyCode::Delete,
            KeyCode::Home,
            KeyCode::End,
            KeyCode::PageUp,
            KeyCode::PageDown,
            KeyCode::Char('\u{1}'),
            KeyCode::Char('\u{10ffff}'),
            KeyCode::Char(' '),
        ] {
            let name = serde_json::to_string(&Key { code, mods }).unwrap();
            assert!(name.len() - 2 <= KEY_NAME_BYTES, "{name}");
        }
        for action in Action::ALL {
            assert!(
                action.name().len() + 6 + MAX_KEYS_PER_ACTION <= ACTION_BYTES,
                "{}",
                action.name()
            );
        }
    }
}
