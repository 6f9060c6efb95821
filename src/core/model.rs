//! Plain data of a flow: the normalised questions it asks and the answers it holds.
//!
//! Nothing here decides anything about the flow; see `flow/` for that.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// The kind of a question, as the payload's `type` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QuestionType {
    /// One option at most; selecting advances.
    Single,
    /// Any number of options, toggled.
    Multi,
    /// Like `Single`, every option carries preview text (the custom row only where the flow's
    /// [`Behaviour::custom_row_on_preview`] gives it one).
    Preview,
}

impl QuestionType {
    /// The name used in payloads and results.
    pub fn as_str(self) -> &'static str {
        match self {
            QuestionType::Single => "single",
            QuestionType::Multi => "multi",
            QuestionType::Preview => "preview",
        }
    }
}

/// One declared option of a question, normalised (trimmed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OptionItem {
    /// The value handed back in results.
    pub value: String,
    /// The label shown to the user (unchanged, recommended marker included).
    pub label: String,
    /// Optional help text shown under the label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Optional preview text (required on preview questions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
}

/// The intent kind of a plan submitted for review: the question's `detail` is the plan.
pub const PLAN_REVIEW: &str = "plan-review";

/// A presentation intent of a question (the dsh `intent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Intent {
    /// The intent's `kind`, e.g. `plan-review`; unknown kinds are kept and shown generically.
    pub kind: String,
    /// The option label that approves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approve: Option<String>,
}

/// The label of the standard custom row.
pub const CUSTOM_LABEL: &str = "Type your own";

/// The synthetic row after a question's options where the user types an answer of their own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum CustomRow {
    /// `Type your own` after the options of a single or multi question; a preview question
    /// has none.
    #[default]
    Standard,
    /// No custom row: the answer must be one of the options.
    Absent,
    /// A custom row with its own label and description.
    Labelled {
        /// The row's label.
        label: String,
        /// Help text shown under the label.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// A stand-in row that takes no answer: it says why the question cannot be answered (a
    /// request its agent accepts but no answer can satisfy). It opens no editor, and no key
    /// selects it; the question can only be left unanswered (the flow declined or cancelled).
    Inert {
        /// The row's label.
        label: String,
        /// Why the question cannot be answered, shown under the label.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
}

impl CustomRow {
    /// Whether this is the standard row (left out of snapshots).
    pub fn is_standard(&self) -> bool {
        *self == CustomRow::Standard
    }
}

/// One question, normalised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Question {
    /// Stable id given by the asker.
    pub id: String,
    /// Tab label (`Q1`, `Q2`, … when none was given).
    pub label: String,
    /// The question text.
    pub prompt: String,
    /// The kind the flow presents the question as (the payload's, unless changed by
    /// [`Behaviour::present_single_as_multi`] or the question-type toggle).
    #[serde(rename = "type")]
    pub kind: QuestionType,
    /// The kind the payload asked for, when the flow presents the question as another `kind`;
    /// `None` when the two agree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked: Option<QuestionType>,
    /// Metadata only: never blocks anything.
    pub required: bool,
    /// Declared options in order (the custom row is not among them).
    pub options: Vec<OptionItem>,
    /// Supporting text shown under the prompt (dsh `detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Presentation intent (dsh).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intent: Option<Intent>,
    /// The custom row after the options.
    #[serde(default, skip_serializing_if = "CustomRow::is_standard")]
    pub custom_row: CustomRow,
    /// The answer's text is secret: editors mask it, and views and transcripts show
    /// [`HIDDEN`] in its place.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
    /// What the answer holds when the flow opens (pre-filled defaults).
    #[serde(default, skip_serializing_if = "Answer::is_empty")]
    pub initial: Answer,
}

/// What views and transcripts show in place of a secret question's text.
pub const HIDDEN: &str = "[hidden]";

impl Question {
    /// The custom row's label and description (`Type your own` and none for the standard row).
    pub fn custom_label(&self) -> (&str, Option<&str>) {
        match &self.custom_row {
            CustomRow::Labelled { label, description }
            | CustomRow::Inert { label, description } => (label, description.as_deref()),
            CustomRow::Standard | CustomRow::Absent => (CUSTOM_LABEL, None),
        }
    }

    /// The kind the payload asked for (what results report as `type`).
    pub fn asked_kind(&self) -> QuestionType {
        self.asked.unwrap_or(self.kind)
    }

    /// The kind the flow presents, when it differs from the one asked (results' `presentedType`).
    pub fn presented_kind(&self) -> Option<QuestionType> {
        self.asked.map(|_| self.kind)
    }

    /// Presents the question as `kind`, remembering the kind asked.
    pub fn present_as(&mut self, kind: QuestionType) {
        let asked = self.asked_kind();
        self.kind = kind;
        self.asked = (asked != kind).then_some(asked);
    }
}

/// A validated, normalised payload: what a flow asks, what its dialect offers, and the
/// behaviour options it runs with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowSpec {
    /// Optional flow title.
    pub title: Option<String>,
    /// The questions in order (at least one, unless the rules allow an empty flow).
    pub questions: Vec<Question>,
    /// What the dialect the payload came in offers.
    pub rules: Rules,
    /// Who asks, shown with the title (the name of the program that sent the request).
    pub requester: Option<String>,
    /// What the dialect keeps of the request for its results and checks (the questions it
    /// echoes, the rules it checks values against, read once when the request is opened);
    /// opaque to the flow.
    pub source: Option<Source>,
    /// The behaviour options of the flow (a dialect builds its specs with the default).
    pub behaviour: Behaviour,
}

impl FlowSpec {
    /// What the dialect keeps of the request ([`FlowSpec::source`]), when it is a `T`.
    pub fn kept<T: Any>(&self) -> Option<&T> {
        self.source.as_ref()?.get()
    }

    /// This spec under `behaviour`: with [`Behaviour::present_single_as_multi`], every
    /// question asked as `single` is presented as `multi`.
    pub fn with_behaviour(mut self, behaviour: Behaviour) -> FlowSpec {
        self.behaviour = behaviour;
        if behaviour.present_single_as_multi {
            for q in &mut self.questions {
                if q.kind == QuestionType::Single {
                    q.present_as(QuestionType::Multi);
                }
            }
        }
        self
    }

    /// Whether `q` has the synthetic custom row after its options, where custom text is typed:
    /// as its [`CustomRow`] says; the standard row on single and multi questions always, on
    /// preview questions under [`Behaviour::custom_row_on_preview`].
    pub fn has_custom_row(&self, q: &Question) -> bool {
        match q.custom_row {
            CustomRow::Standard => {
                q.kind != QuestionType::Preview || self.behaviour.custom_row_on_preview
            }
            CustomRow::Absent | CustomRow::Inert { .. } => false,
            CustomRow::Labelled { .. } => true,
        }
    }

    /// Whether `q` has a row after its options: its custom row, or an inert stand-in row
    /// ([`CustomRow::Inert`]).
    pub fn has_last_row(&self, q: &Question) -> bool {
        matches!(q.custom_row, CustomRow::Inert { .. }) || self.has_custom_row(q)
    }

    /// Number of rows of `q`: its options plus the row after them when it has one.
    pub fn row_count(&self, q: &Question) -> usize {
        q.options.len() + usize::from(self.has_last_row(q))
    }

    /// Whether `row` (0-based) of `q` is its custom row.
    pub fn is_custom_row(&self, q: &Question, row: usize) -> bool {
        self.has_custom_row(q) && row == q.options.len()
    }

    /// Whether `row` (0-based) of `q` is an inert stand-in row ([`CustomRow::Inert`]).
    pub fn is_inert_row(&self, q: &Question, row: usize) -> bool {
        matches!(q.custom_row, CustomRow::Inert { .. }) && row == q.options.len()
    }
}

/// What a dialect keeps of a request, for its results and checks: a value of the dialect's own
/// type (its request's JSON, a form read and compiled once), shared by every clone of the spec.
/// The flow never looks inside; two sources are equal when they hold equal values of the same
/// type, so the specs a dialect makes of one request compare equal.
#[derive(Clone)]
pub struct Source(Arc<dyn Kept>);

/// A value a [`Source`] can hold: comparable, printable for debugging, shareable across threads.
trait Kept: Any + fmt::Debug + Send + Sync {
    /// Whether `other` is a value of the same type, equal to this one.
    fn same(&self, other: &dyn Any) -> bool;
}

impl<T: Any + Eq + fmt::Debug + Send + Sync> Kept for T {
    fn same(&self, other: &dyn Any) -> bool {
        other.downcast_ref::<T>() == Some(self)
    }
}

impl Source {
    /// A source holding `kept`.
    pub fn new<T: Any + Eq + fmt::Debug + Send + Sync>(kept: T) -> Source {
        Source(Arc::new(kept))
    }

    /// The value held, when it is a `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        let kept: &dyn Any = &*self.0;
        kept.downcast_ref()
    }
}

impl PartialEq for Source {
    fn eq(&self, other: &Source) -> bool {
        let other: &dyn Any = &*other.0;
        self.0.same(other)
    }
}

impl Eq for Source {}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// What a flow does beyond the defaults: the behaviour options a client chooses (the four
/// flags) and what a profile of the reference changes. Plain data: the flow consults the
/// fields, and the default is every flag `false` and the cursor rule of the flow's dialect
/// (`protocol/behaviour.md` §1–§8 exactly in the pi dialect).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Behaviour {
    /// The first cancel or dismiss of a flow holding answers, notes or a draft only shows a
    /// notice; the next one ends it.
    #[serde(default)]
    pub confirm_dismiss_when_dirty: bool,
    /// On the review tab a digit first moves to its action and arms it; the same digit again
    /// runs it.
    #[serde(default)]
    pub double_press_review_shortcuts: bool,
    /// Arriving on the review tab with every question answered and no note anywhere submits.
    #[serde(default)]
    pub auto_submit_when_answered_without_notes: bool,
    /// Questions asked as `single` are presented as `multi` (see [`FlowSpec::with_behaviour`]).
    #[serde(default)]
    pub present_single_as_multi: bool,
    /// Preview questions have the `Type your own` row too; saving custom text on one clears
    /// its selection, as on a single question.
    #[serde(default)]
    pub custom_row_on_preview: bool,
    /// On multi questions the custom text has a selected state of its own: toggling the custom
    /// row (Space, its digit) deselects or reselects saved text, and `Enter` in the
    /// custom-answer editor of a multi question stays on its tab.
    #[serde(default)]
    pub custom_text_toggles: bool,
    /// A move onto a custom row opens its editor only while the question has no saved custom
    /// text.
    #[serde(default)]
    pub auto_open_only_without_text: bool,
    /// `main.changeQuestionType` switches the active question between single and multi (preview
    /// and multi for a question asked as preview). A question holding custom text is not
    /// switched to a kind without a custom row.
    #[serde(default)]
    pub question_type_toggle: bool,
    /// `global.help` opens the help overlay listing every binding of the keymap.
    #[serde(default)]
    pub help_overlay: bool,
    /// Elaborate summaries name the current answer of answered questions, and an elaboration
    /// without notes has a line per answered question.
    #[serde(default)]
    pub elaborate_with_current_answer: bool,
    /// Whether a question holding an answer opens with its cursor on that answer's row (see
    /// [`Rules::cursor_on_answer`]); `None` keeps what the flow's dialect does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor_on_answer: Option<bool>,
}

/// An action of the review tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ReviewAction {
    /// Complete with `mode: "submit"`.
    Submit,
    /// Complete with `mode: "elaborate"`.
    Elaborate,
    /// Cancel the flow.
    Cancel,
    /// Decline the request explicitly (complete as declined).
    Decline,
}

impl ReviewAction {
    /// The standard label shown on the review tab.
    pub fn label(self) -> &'static str {
        match self {
            ReviewAction::Submit => "Submit",
            ReviewAction::Elaborate => "Elaborate",
            ReviewAction::Cancel => "Cancel",
            ReviewAction::Decline => "Decline",
        }
    }
}

/// A dialect's checks of the values its flows hold. The flow calls them and keeps what they
/// decide; what a value must be is the dialect's business. The flow calls them on every view of
/// its review, so a dialect reads what it compiled of the request when it opened it (its
/// [`FlowSpec::source`]) rather than the request itself.
#[derive(Clone, Copy)]
pub struct Checker {
    /// Text about to be saved as the custom answer of question `index` of the spec (not
    /// blank): `Err(reason)` refuses the save, and the editor shows the reason.
    pub text: fn(spec: &FlowSpec, index: usize, text: &str) -> Result<(), String>,
    /// The answer of question `index` before the flow is submitted: `Err(reason)` blocks the
    /// submit, and the review shows the reason.
    pub answer: fn(spec: &FlowSpec, index: usize, answer: &Answer) -> Result<(), String>,
}

impl PartialEq for Checker {
    fn eq(&self, other: &Checker) -> bool {
        std::ptr::fn_addr_eq(self.text, other.text)
            && std::ptr::fn_addr_eq(self.answer, other.answer)
    }
}

impl Eq for Checker {}

impl fmt::Debug for Checker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Checker")
    }
}

/// The parts of a flow that differ from one ask vocabulary to another. A dialect gives its
/// flows one of these; the flow consults it and never asks which dialect it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// The dialect's name, for messages (`pi`, `dsh`).
    pub dialect: &'static str,
    /// Questions and options take notes.
    pub notes: bool,
    /// The actions of the review tab, in order: the digit of each is its position.
    pub review: &'static [ReviewAction],
    /// A single-select question never holds a selection and chosen custom text together, not
    /// even through a whole answer set (keys never make both: choosing an option drops the
    /// custom text and saving custom text drops the selection, in every dialect).
    pub exclusive_custom: bool,
    /// A question may have no options: a free-text question, only its custom row.
    pub free_text: bool,
    /// Options take notes of their own (besides the question note, when `notes`).
    pub option_notes: bool,
    /// Labels of review actions that differ from their standard [`ReviewAction::label`].
    pub review_labels: &'static [(ReviewAction, &'static str)],
    /// The dialect's checks of values before they are saved or submitted.
    pub checker: Option<Checker>,
    /// A flow may ask no question at all: it is only its review tab.
    pub empty: bool,
    /// A question tab that holds an answer opens with its cursor on that answer's row (the
    /// first selected option from the top, else the custom row of chosen custom text), so that
    /// `Enter` keeps what is chosen: a default, or the answer of a question gone back to.
    /// Without it every tab opens on its first row. [`Behaviour::cursor_on_answer`] overrides it.
    pub cursor_on_answer: bool,
}

impl Rules {
    /// Whether a question holding an answer opens with its cursor on it, under `behaviour`.
    pub fn opens_on_answer(&self, behaviour: &Behaviour) -> bool {
        behaviour.cursor_on_answer.unwrap_or(self.cursor_on_answer)
    }

    /// Whether the review tab offers Elaborate.
    pub fn elaborates(&self) -> bool {
        self.review.contains(&ReviewAction::Elaborate)
    }

    /// Whether the review tab offers Decline.
    pub fn declines(&self) -> bool {
        self.review.contains(&ReviewAction::Decline)
    }

    /// The label of `action` on the review tab.
    #[inline]
    pub fn review_label(&self, action: ReviewAction) -> &'static str {
        if self.review_labels.is_empty() {
            return action.label();
        }
        self.review_labels
            .iter()
            .find(|(a, _)| *a == action)
            .map_or_else(|| action.label(), |(_, label)| label)
    }
}

/// One validation problem of a payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Issue {
    /// Where, e.g. `questions[0].options[1].value`.
    pub path: String,
    /// What is wrong, e.g. `Question 1, option 2: value is required`.
    pub message: String,
}

/// What the user has entered for one question.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Answer {
    /// Selected option indices (0-based into `Question::options`), in the order selected.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selected: Vec<usize>,
    /// Free-form answer, as saved (never blank).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_text: Option<String>,
    /// The custom text is kept but not chosen: it leaves results and does not answer the
    /// question ([`Behaviour::custom_text_toggles`]). Only ever set with `custom_text`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub custom_off: bool,
    /// Question note, as typed (never blank).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Option notes as (option index, note), in the order first written (never blank).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub option_notes: Vec<(usize, String)>,
}

impl Answer {
    /// Whether the answer holds nothing at all (such answers are dropped from results).
    pub fn is_empty(&self) -> bool {
        self.selected.is_empty()
            && self.custom_text.is_none()
            && self.note.is_none()
            && self.option_notes.is_empty()
    }

    /// A selection or chosen non-blank custom text.
    pub fn is_answered(&self) -> bool {
        !self.selected.is_empty() || self.chosen_custom().is_some_and(|t| !t.trim().is_empty())
    }

    /// The custom text, unless it is kept but not chosen ([`Answer::custom_off`]): what
    /// results report.
    pub fn chosen_custom(&self) -> Option<&str> {
        self.custom_text.as_deref().filter(|_| !self.custom_off)
    }

    /// How many answers the question holds: its selections, and its chosen custom text.
    pub fn committed(&self) -> usize {
        self.selected.len() + usize::from(self.chosen_custom().is_some())
    }

    /// Bytes of text the answer stores: custom text, question note and option notes.
    pub fn text_bytes(&self) -> usize {
        self.custom_text.as_deref().map_or(0, str::len)
            + self.note.as_deref().map_or(0, str::len)
            + self
                .option_notes
                .iter()
                .map(|(_, n)| n.len())
                .sum::<usize>()
    }

    /// Whether the answer carries a question note or any option note.
    pub fn has_notes(&self) -> bool {
        self.note.is_some() || !self.option_notes.is_empty()
    }

    /// The note on option `option` (0-based), if any.
    pub fn option_note(&self, option: usize) -> Option<&str> {
        self.option_notes
            .iter()
            .find(|(i, _)| *i == option)
            .map(|(_, n)| n.as_str())
    }

    /// Sets (non-blank) or removes (blank) the note on option `option`.
    pub fn set_option_note(&mut self, option: usize, text: &str) {
        let blank = text.trim().is_empty();
        match self.option_notes.iter().position(|(i, _)| *i == option) {
            Some(at) if blank => {
                self.option_notes.remove(at);
            }
            Some(at) => self.option_notes[at].1 = text.to_owned(),
            None if blank => {}
            None => self.option_notes.push((option, text.to_owned())),
        }
    }

    /// Sets (non-blank) or removes (blank) the question note.
    pub fn set_note(&mut self, text: &str) {
        self.note = (!text.trim().is_empty()).then(|| text.to_owned());
    }
}

/// How a flow ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The user chose Submit.
    Submit,
    /// The user chose Elaborate.
    Elaborate,
    /// The flow ended without an answer, for the reason given.
    Cancelled(CancelReason),
    /// The user declined the request explicitly (the Decline action, or `cancel` with reason
    /// `decline`).
    Declined,
}

impl Outcome {
    /// The reason the flow was cancelled, when it was.
    pub fn cancel_reason(self) -> Option<CancelReason> {
        match self {
            Outcome::Cancelled(reason) => Some(reason),
            Outcome::Submit | Outcome::Elaborate | Outcome::Declined => None,
        }
    }
}

/// Why an ask ended without an answer: set by the key or operation that ended the flow (the
/// first five), by opening without a UI, or by validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CancelReason {
    /// The user cancelled: the Cancel action, or the keys of `main.cancel` / `review.cancel`
    /// (`Esc`), or `cancel` with reason `user`.
    User,
    /// The user dismissed the flow with the keys of `global.dismiss` (`Ctrl+C`).
    Dismissed,
    /// The asker withdrew the request: `cancel` with reason `abort`, `$/cancelRequest`, or
    /// `close` of a session with a pending `ask`.
    Aborted,
    /// The flow's deadline passed while it was still open.
    Timeout,
    /// The client closed the flow without an answer: `cancel` with reason `closed` (its window
    /// went away).
    Closed,
    /// There is no UI to ask in: the flow was opened with `hasUI: false`.
    NoUi,
    /// The request failed validation; no flow ran.
    InvalidInput,
}

impl CancelReason {
    /// The wire name (`user`, `dismissed`, `aborted`, `timeout`, `closed`, `no_ui`,
    /// `invalid_input`).
    pub fn name(self) -> &'static str {
        match self {
            CancelReason::User => "user",
            CancelReason::Dismissed => "dismissed",
            CancelReason::Aborted => "aborted",
            CancelReason::Timeout => "timeout",
            CancelReason::Closed => "closed",
            CancelReason::NoUi => "no_ui",
            CancelReason::InvalidInput => "invalid_input",
        }
    }

    /// What transcripts and the rendered end of a flow say, in words: `Cancelled`,
    /// `Cancelled (timed out)`, …
    pub fn words(self) -> &'static str {
        match self {
            CancelReason::User => "Cancelled",
            CancelReason::Dismissed => "Cancelled",
            CancelReason::Aborted => "Cancelled (withdrawn by the asker)",
            CancelReason::Timeout => "Cancelled (timed out)",
            CancelReason::Closed => "Cancelled (closed)",
            CancelReason::NoUi => "Cancelled",
            CancelReason::InvalidInput => "Invalid input",
        }
    }
}
