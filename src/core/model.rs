//! Plain data of a flow: the normalised questions it asks and the answers it holds.
//!
//! Nothing here decides anything about the flow; see `flow.rs` for that.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The kind of a question, as the payload's `type` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QuestionType {
    /// One option at most; selecting advances.
    Single,
    /// Any number of options, toggled.
    Multi,
    /// Like `Single`, every option carries preview text, and there is no custom row.
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
    /// The question kind.
    #[serde(rename = "type")]
    pub kind: QuestionType,
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
    /// Whether the question has the synthetic custom row after its options.
    #[inline]
    pub fn has_custom_row(&self) -> bool {
        match self.custom_row {
            CustomRow::Standard => self.kind != QuestionType::Preview,
            CustomRow::Absent => false,
            CustomRow::Labelled { .. } => true,
        }
    }

    /// The custom row's label and description (`Type your own` and none for the standard row).
    pub fn custom_label(&self) -> (&str, Option<&str>) {
        match &self.custom_row {
            CustomRow::Labelled { label, description } => (label, description.as_deref()),
            CustomRow::Standard | CustomRow::Absent => (CUSTOM_LABEL, None),
        }
    }

    /// Number of rows: the options plus the custom row when there is one.
    pub fn row_count(&self) -> usize {
        self.options.len() + usize::from(self.has_custom_row())
    }

    /// Whether `row` (0-based) is the custom row.
    pub fn is_custom_row(&self, row: usize) -> bool {
        self.has_custom_row() && row == self.options.len()
    }
}

/// A validated, normalised payload: what a flow asks, and what its dialect offers.
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
    /// echoes, the schema it checks values against); opaque to the flow.
    pub source: Option<Arc<Value>>,
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
/// decide; what a value must be is the dialect's business.
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
    /// A single-select question holds a selection or custom text, never both: choosing an
    /// option drops its custom text.
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
}

impl Rules {
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
    /// Free-form answer, as typed (never blank).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_text: Option<String>,
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

    /// A selection or non-blank custom text.
    pub fn is_answered(&self) -> bool {
        !self.selected.is_empty()
            || self
                .custom_text
                .as_deref()
                .is_some_and(|t| !t.trim().is_empty())
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    /// The user chose Submit.
    Submit,
    /// The user chose Elaborate.
    Elaborate,
    /// The user cancelled (Esc, Cancel action, Ctrl+C, or `cancel` with reason `user`).
    Cancelled,
    /// The asker withdrew the request (`cancel` with reason `abort`, or `$/cancelRequest`).
    Aborted,
    /// The user declined the request explicitly (the Decline action, or `cancel` with reason
    /// `decline`).
    Declined,
}
