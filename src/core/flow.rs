//! The flow state machine: tabs, rows, focus, editors and answers, and every key of
//! `protocol/behaviour.md` §3–§5, §9 and §10 and every direct operation applied to them.
//!
//! §10 in short: a flow may have a deadline, and [`Flow::expire`] ends it as timed out when it
//! is handed a time at or past it (the flow never reads a clock); every cancel carries a
//! [`CancelReason`]; the page keys and first/last move among the [`Rows`] keys move among,
//! which a `/` filter narrows to the options that match (found once per change of its text);
//! and the first keys of a key sequence wait in the flow until the next key.
//!
//! Editors offer `@` file completion (see [`crate::core::FileIndex`]) once the shell has handed the
//! flow a file index with [`Flow::set_file_index`]. While an editor's completion list is open,
//! the keys of the submit and next-tab actions accept the highlighted entry, the keys of up
//! and down move the highlight (wrapping), and the keys of close close the list (a second
//! press closes the editor); a key that is also bound to an editing action keeps editing.
//!
//! The behaviour options of the flow's spec ([`crate::core::Behaviour`]) add the notices and
//! confirmations of `protocol/behaviour.md` §9 ([`Prompts`]): the dirty-dismiss guard, armed
//! review digits, the question-type toggle and the help overlay.
//!
//! A `Flow` owns its state and is changed in place; a key press never clones it (the
//! question-type toggle, which changes a question's kind, copies the spec when it is shared).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::core::completion::{Completion, CompletionList, FileIndex};
use crate::core::editor::{Edit, TextEditor};
use crate::core::filter::{FILTER_MIN_OPTIONS, RowFilter};
use crate::core::key::{Key, KeyCode};
use crate::core::keymap::{Action, ActionSet, Context, Keymap, MAX_SEQUENCE, SequenceMatch};
use crate::core::model::{
    Answer, CancelReason, FlowSpec, Outcome, Question, QuestionType, ReviewAction,
};

/// The notices and pending confirmations of the behaviour options (`protocol/behaviour.md` §9),
/// and whether the help overlay is open. All of it is empty under the default behaviour.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Prompts {
    /// The dirty-dismiss notice shows: the next cancel or dismiss ends the flow. Cleared when
    /// the tab changes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dismiss: bool,
    /// What the last question-type toggle left to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_change: Option<TypeChange>,
    /// The review action (0-based) whose digit was pressed once and runs on a second press.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub armed: Option<usize>,
    /// The help overlay is open: keys close it and do nothing else.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub help: bool,
}

/// The notice of the question-type toggle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum TypeChange {
    /// Switching question `question` (0-based) would clear its selections: a second press of the
    /// toggle confirms. Cleared by any other key of the question tab that does something.
    Confirm {
        /// The question waiting for the confirmation.
        question: usize,
    },
    /// The active question was switched; shown until the tab changes.
    Changed {
        /// The kind it had.
        from: QuestionType,
        /// The kind it has now.
        to: QuestionType,
    },
}
use crate::core::text::quoted;

/// Where keys go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Focus {
    /// The rows of a question tab.
    Options,
    /// The review tab.
    Review,
    /// The custom-answer editor of a question.
    Input,
    /// The note editor of a question or of one option.
    Note,
    /// The filter editor of a long list (`/`).
    Filter,
}

/// Most rows a screen shows at once, and how far the page keys move the active row.
pub const ROW_WINDOW: usize = 10;

/// The rows keys move among on the active question tab, in order: every row, or while a
/// filter is applied the options that match and then the custom row. Positions are 0-based
/// places in that order; rows are 0-based among all the question's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rows<'a> {
    /// Rows of the question in all.
    count: usize,
    /// The options that match, while a filter is applied.
    matches: Option<&'a [usize]>,
    /// The custom row, when the question has one.
    custom: Option<usize>,
}

impl Rows<'_> {
    /// How many rows keys move among.
    pub fn len(&self) -> usize {
        match self.matches {
            None => self.count,
            Some(matches) => matches.len() + usize::from(self.custom.is_some()),
        }
    }

    /// Whether there is no row to move among (a filter that matches nothing on a question
    /// without a custom row, or the review tab).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether a filter is applied.
    pub fn is_filtered(&self) -> bool {
        self.matches.is_some()
    }

    /// The row at position `at` (below [`Rows::len`]).
    pub fn row(&self, at: usize) -> usize {
        match self.matches {
            None => at,
            Some(matches) => matches.get(at).copied().or(self.custom).unwrap_or(at),
        }
    }

    /// The position of `row`, when keys move among it.
    pub fn position(&self, row: usize) -> Option<usize> {
        match self.matches {
            None => (row < self.count).then_some(row),
            Some(matches) if self.custom == Some(row) => Some(matches.len()),
            Some(matches) => matches.binary_search(&row).ok(),
        }
    }
}

/// What an open editor edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum EditorTarget {
    /// The question's custom (free-form) answer.
    Custom,
    /// The question's note.
    QuestionNote,
    /// The note of one option (0-based option index).
    OptionNote {
        /// 0-based index into the question's options.
        option: usize,
    },
}

/// An open editor: its target, its text, and the text it opened with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenEditor {
    /// 0-based index of the question the editor belongs to.
    pub question: usize,
    /// What the editor edits.
    pub target: EditorTarget,
    /// The draft and its cursor.
    pub text: TextEditor,
    /// The saved text the editor was pre-filled with.
    pub initial: String,
    /// Why the flow's dialect refused to save the draft, until the draft changes.
    pub refusal: Option<String>,
}

/// Why an operation on a flow was refused. The flow is unchanged whenever one is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlowError {
    /// The flow has already completed.
    #[error("the flow has already completed")]
    Completed,
    /// `insert` needs an open editor.
    #[error("no editor is open")]
    NoEditor,
    /// No question has that id.
    #[error("unknown question id {0}")]
    UnknownQuestion(String),
    /// The question has no option with that value.
    #[error("question {question} has no option with value {value}")]
    UnknownOption {
        /// The question id (JSON-encoded).
        question: String,
        /// The option value (JSON-encoded).
        value: String,
    },
    /// Preview questions have no custom answer.
    #[error("question {0} has no custom answer (preview questions only take an option)")]
    NoCustomAnswer(String),
    /// The flow's dialect has no notes.
    #[error("notes are not part of the {0} dialect")]
    NoNotes(&'static str),
    /// The flow's dialect has notes on questions only.
    #[error("option notes are not part of the {0} dialect")]
    NoOptionNotes(&'static str),
    /// The flow's dialect has no decline.
    #[error("decline is not part of the {0} dialect")]
    NoDecline(&'static str),
    /// The flow's dialect refused a value.
    #[error("{0}")]
    Refused(String),
    /// An edit would grow the open editor past the flow's text limit.
    #[error("the editor would hold {would_hold} bytes; the limit is {limit}")]
    TextLimit {
        /// Bytes the editor would hold after the edit.
        would_hold: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// A save would leave the flow holding more custom text and notes than its budget.
    #[error("the flow would hold {would_hold} bytes of answers and notes; the limit is {limit}")]
    StoredLimit {
        /// Bytes of custom text and notes the flow would hold.
        would_hold: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// A whole answer set given to `submit_answers` is invalid.
    #[error("{0}")]
    InvalidAnswers(String),
}

/// What an editor key means once the keymap has resolved it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EditorCommand {
    Submit,
    Close,
    Up,
    Down,
    PageDown,
    PageUp,
    NextTab,
    PrevTab,
    Edit(Edit),
}

impl EditorCommand {
    /// The command of an `editor.*` or `noteEditor.*` action.
    fn of(action: Action) -> Option<EditorCommand> {
        use EditorCommand as C;
        Some(match action {
            Action::EditorSubmit | Action::NoteEditorSubmit => C::Submit,
            Action::EditorClose | Action::NoteEditorClose => C::Close,
            Action::EditorUp | Action::NoteEditorUp => C::Up,
            Action::EditorDown | Action::NoteEditorDown => C::Down,
            Action::EditorPageDown | Action::NoteEditorPageDown => C::PageDown,
            Action::EditorPageUp | Action::NoteEditorPageUp => C::PageUp,
            Action::EditorNextTab | Action::NoteEditorNextTab => C::NextTab,
            Action::EditorPrevTab | Action::NoteEditorPrevTab => C::PrevTab,
            Action::EditorCursorLeft => C::Edit(Edit::Left),
            Action::EditorCursorRight => C::Edit(Edit::Right),
            Action::EditorLineStart => C::Edit(Edit::Home),
            Action::EditorLineEnd => C::Edit(Edit::End),
            Action::EditorWordLeft => C::Edit(Edit::WordLeft),
            Action::EditorWordRight => C::Edit(Edit::WordRight),
            Action::EditorDeleteBack => C::Edit(Edit::Backspace),
            Action::EditorDeleteForward => C::Edit(Edit::Delete),
            Action::EditorDeleteWordBack => C::Edit(Edit::DeleteWordBack),
            Action::EditorDeleteToLineStart => C::Edit(Edit::DeleteToLineStart),
            Action::EditorDeleteToLineEnd => C::Edit(Edit::DeleteToLineEnd),
            Action::EditorNewline => C::Edit(Edit::Newline),
            _ => return None,
        })
    }
}

/// What a key does while the completion list is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListCommand {
    Accept,
    Move { down: bool },
    Close,
}

/// The state of one ask flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flow {
    spec: Arc<FlowSpec>,
    keymap: Arc<Keymap>,
    tab: usize,
    row: usize,
    review_action: usize,
    editor: Option<OpenEditor>,
    answers: Vec<Answer>,
    outcome: Option<Outcome>,
    /// Paths under the session's root for `@` completion, once the shell has listed them.
    files: Option<Arc<FileIndex>>,
    /// The completion list of the open editor.
    completion: Completion,
    /// Most bytes an editor may hold; an edit past it is refused.
    text_limit: usize,
    /// Most bytes of custom text and notes the whole flow may hold; a save past it is refused.
    stored_limit: usize,
    /// The emptied text buffer of the last editor closed, which the next editor opened types
    /// into without allocating again. Always empty, so it never tells two flows apart.
    spare_text: String,
    /// Per question, whether any of its options has a preview (found once, not per view).
    previews: Vec<bool>,
    /// Notices, armed confirmations and the help overlay.
    prompts: Prompts,
    /// When the flow times out, in milliseconds since the Unix epoch (see [`Flow::expire`]).
    deadline: Option<u64>,
    /// The filter of the active question's rows, while one is open or applied.
    filter: Option<RowFilter>,
    /// The keys of a key sequence pressed so far (`g` of `g g`), while it waits for the next.
    pending: Vec<Key>,
}

/// Per question of `spec`, whether any of its options has a preview.
fn previews_of(spec: &FlowSpec) -> Vec<bool> {
    spec.questions
        .iter()
        .map(|q| q.options.iter().any(|o| o.preview.is_some()))
        .collect()
}

impl Flow {
    /// A new flow on its first tab, first row (opening the editor of a free-text-only first question).
    pub fn new(spec: Arc<FlowSpec>, keymap: Arc<Keymap>) -> Flow {
        let answers = spec.questions.iter().map(|q| q.initial.clone()).collect();
        let previews = previews_of(&spec);
        let mut flow = Flow {
            spec,
            keymap,
            tab: 0,
            row: 0,
            review_action: 0,
            editor: None,
            answers,
            outcome: None,
            files: None,
            completion: Completion::default(),
            text_limit: usize::MAX,
            stored_limit: usize::MAX,
            spare_text: String::new(),
            previews,
            prompts: Prompts::default(),
            deadline: None,
            filter: None,
            pending: Vec::new(),
        };
        flow.after_move();
        flow
    }

    /// Rebuilds a flow from its parts, checking every invariant; `None` names nothing, the
    /// snapshot module reports the reason.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_parts(
        spec: Arc<FlowSpec>,
        keymap: Arc<Keymap>,
        tab: usize,
        row: usize,
        review_action: usize,
        editor: Option<OpenEditor>,
        answers: Vec<Answer>,
        outcome: Option<Outcome>,
        prompts: Prompts,
        deadline: Option<u64>,
        filter: Option<(usize, TextEditor, bool)>,
        pending: Vec<Key>,
    ) -> Result<Flow, String> {
        let previews = previews_of(&spec);
        let filter = match filter {
            None => None,
            Some((question, text, editing)) => {
                let q = spec
                    .questions
                    .get(question)
                    .ok_or("the filter belongs to no question")?;
                Some(RowFilter::new(question, q, text, editing))
            }
        };
        let mut flow = Flow {
            spec,
            keymap,
            tab,
            row,
            review_action,
            editor,
            answers,
            outcome,
            files: None,
            completion: Completion::default(),
            text_limit: usize::MAX,
            stored_limit: usize::MAX,
            spare_text: String::new(),
            previews,
            prompts,
            deadline,
            filter,
            pending,
        };
        flow.check_invariants()?;
        flow.refresh_completion();
        Ok(flow)
    }

    /// Checks that every index is in range and every answer fits its question.
    pub fn check_invariants(&self) -> Result<(), String> {
        let questions = &self.spec.questions;
        let rules = &self.spec.rules;
        if questions.is_empty() && !rules.empty {
            return Err("a flow needs at least one question".into());
        }
        if self.tab > questions.len() {
            return Err(format!("tab {} is out of range", self.tab));
        }
        let spec = &*self.spec;
        match self.current_question() {
            Some(q) if self.row >= spec.row_count(q) => {
                return Err(format!("row {} is out of range", self.row));
            }
            None if self.row != 0 => return Err("the review tab has no rows".into()),
            _ => {}
        }
        if self.review_action >= self.review_actions().len() {
            return Err(format!(
                "review action {} is out of range",
                self.review_action
            ));
        }
        if self.answers.len() != questions.len() {
            return Err("there must be one answer per question".into());
        }
        for (q, a) in questions.iter().zip(&self.answers) {
            if q.asked == Some(q.kind) {
                return Err(format!(
                    "{} is presented as the kind it was asked as",
                    quoted(&q.id)
                ));
            }
            let n = q.options.len();
            if a.selected.iter().any(|&i| i >= n) {
                return Err(format!(
                    "an answer to {} selects a missing option",
                    quoted(&q.id)
                ));
            }
            let mut seen = a.selected.clone();
            seen.sort_unstable();
            seen.dedup();
            if seen.len() != a.selected.len() {
                return Err(format!(
                    "an answer to {} selects an option twice",
                    quoted(&q.id)
                ));
            }
            if q.kind != QuestionType::Multi && a.selected.len() > 1 {
                return Err(format!("{} takes one option at most", quoted(&q.id)));
            }
            if a.custom_text.is_some() && !spec.has_custom_row(q) {
                return Err(format!("{} takes no custom answer", quoted(&q.id)));
            }
            if a.custom_off && a.custom_text.is_none() {
                return Err(format!(
                    "an answer to {} sets aside custom text it does not hold",
                    quoted(&q.id)
                ));
            }
            let blank = |t: &Option<String>| t.as_deref().is_some_and(|t| t.trim().is_empty());
            if blank(&a.custom_text) || blank(&a.note) {
                return Err(format!("an answer to {} holds blank text", quoted(&q.id)));
            }
            let mut noted: Vec<usize> = a.option_notes.iter().map(|(i, _)| *i).collect();
            noted.sort_unstable();
            noted.dedup();
            if noted.len() != a.option_notes.len()
                || noted.iter().any(|&i| i >= n)
                || a.option_notes.iter().any(|(_, t)| t.trim().is_empty())
            {
                return Err(format!(
                    "the option notes of {} are malformed",
                    quoted(&q.id)
                ));
            }
            if !rules.notes && a.has_notes() {
                return Err(FlowError::NoNotes(rules.dialect).to_string());
            }
            if !rules.option_notes && !a.option_notes.is_empty() {
                return Err(FlowError::NoOptionNotes(rules.dialect).to_string());
            }
            if rules.exclusive_custom
                && q.kind != QuestionType::Multi
                && !a.selected.is_empty()
                && a.chosen_custom().is_some()
            {
                return Err(format!(
                    "{} is single-select: a selection or custom text, not both",
                    quoted(&q.id)
                ));
            }
        }
        if !rules.elaborates() && self.outcome == Some(Outcome::Elaborate) {
            return Err(format!(
                "the {} dialect has no elaborate outcome",
                rules.dialect
            ));
        }
        if let Some(filter) = &self.filter {
            let q = questions
                .get(filter.question)
                .ok_or("the filter belongs to no question")?;
            if filter.question != self.tab {
                return Err("the filter belongs to another tab".into());
            }
            if q.options.len() < FILTER_MIN_OPTIONS {
                return Err(format!(
                    "{} has too few options to be filtered",
                    quoted(&q.id)
                ));
            }
            if filter.editing && self.editor.is_some() {
                return Err("the filter editor and another editor are open at once".into());
            }
            if filter.text.text().contains('\n') {
                return Err("the filter text holds a line break".into());
            }
            if *filter != RowFilter::new(filter.question, q, filter.text.clone(), filter.editing) {
                return Err("the filter's matches are not its text's".into());
            }
        }
        let rows = self.rows();
        if self.current_question().is_some()
            && !rows.is_empty()
            && rows.position(self.row).is_none()
        {
            return Err(format!("row {} is filtered out", self.row));
        }
        if self.outcome.is_some() && (self.filter.is_some() || !self.pending.is_empty()) {
            return Err("a finished flow keeps no filter and no pending keys".into());
        }
        if !self.pending.is_empty()
            && (self.pending.len() >= MAX_SEQUENCE
                || !matches!(self.focus(), Focus::Options | Focus::Review)
                || self.keymap.sequence(self.sequence_context(), &self.pending)
                    != SequenceMatch::Prefix)
        {
            return Err("the pending keys begin no key sequence".into());
        }
        if !rules.declines() && self.outcome == Some(Outcome::Declined) {
            return Err(FlowError::NoDecline(rules.dialect).to_string());
        }
        if let Some(checker) = rules.checker {
            for (index, (q, a)) in questions.iter().zip(&self.answers).enumerate() {
                if let Some(text) = &a.custom_text {
                    (checker.text)(&self.spec, index, text).map_err(|reason| {
                        format!(
                            "the custom answer of {} is refused: {reason}",
                            quoted(&q.id)
                        )
                    })?;
                }
            }
        }
        if let Some(editor) = &self.editor {
            if editor.question != self.tab {
                return Err("the open editor belongs to another tab".into());
            }
            let q = questions
                .get(editor.question)
                .ok_or("the open editor belongs to no question")?;
            match editor.target {
                EditorTarget::Custom if !spec.has_custom_row(q) => {
                    return Err("a preview question has no custom editor".into());
                }
                EditorTarget::OptionNote { option } if option >= q.options.len() => {
                    return Err("the note editor names a missing option".into());
                }
                EditorTarget::QuestionNote | EditorTarget::OptionNote { .. } if !rules.notes => {
                    return Err(FlowError::NoNotes(rules.dialect).to_string());
                }
                EditorTarget::OptionNote { .. } if !rules.option_notes => {
                    return Err(FlowError::NoOptionNotes(rules.dialect).to_string());
                }
                _ => {}
            }
            if let Some(refusal) = &editor.refusal {
                let refused = match editor.target {
                    EditorTarget::Custom => self.check_text(editor.question, editor.text.text()),
                    _ => Ok(()),
                };
                if refused.as_ref().err() != Some(refusal) {
                    return Err(
                        "the open editor's refusal is not what the dialect says of its draft"
                            .into(),
                    );
                }
            }
        }
        self.check_prompts()
    }

    /// Checks that every notice and confirmation is one the behaviour options allow, where it
    /// can be.
    fn check_prompts(&self) -> Result<(), String> {
        let behaviour = &self.spec.behaviour;
        let prompts = &self.prompts;
        if prompts.dismiss && !behaviour.confirm_dismiss_when_dirty {
            return Err("a dismiss notice needs confirmDismissWhenDirty".into());
        }
        if prompts.help && !behaviour.help_overlay {
            return Err("the help overlay is not offered".into());
        }
        if let Some(action) = prompts.armed
            && (!behaviour.double_press_review_shortcuts
                || self.current_question().is_some()
                || action >= self.review_actions().len())
        {
            return Err(
                "an armed review digit needs the review tab and doublePressReviewShortcuts".into(),
            );
        }
        match prompts.type_change {
            Some(_) if !behaviour.question_type_toggle => {
                Err("a question-type notice needs the question-type toggle".into())
            }
            Some(TypeChange::Confirm { question })
                if question != self.tab || self.current_question().is_none() =>
            {
                Err("a question-type confirmation belongs to the active question".into())
            }
            _ => Ok(()),
        }
    }

    /// What the flow asks.
    pub fn spec(&self) -> &FlowSpec {
        &self.spec
    }

    /// Whether any option of question `question` has a preview.
    pub fn has_previews(&self, question: usize) -> bool {
        self.previews[question]
    }

    /// The shared spec, for building related flows.
    pub fn spec_arc(&self) -> &Arc<FlowSpec> {
        &self.spec
    }

    /// The keymap in force.
    pub fn keymap(&self) -> &Keymap {
        &self.keymap
    }

    /// 0-based active tab; `questions.len()` is the review tab.
    pub fn tab(&self) -> usize {
        self.tab
    }

    /// 0-based active row of the active question tab (0 on the review tab).
    pub fn row(&self) -> usize {
        self.row
    }

    /// 0-based active review action.
    pub fn review_action(&self) -> usize {
        self.review_action
    }

    /// The open editor, if any.
    pub fn editor(&self) -> Option<&OpenEditor> {
        self.editor.as_ref()
    }

    /// The open editor's `@` completion list, while it is open.
    pub fn completion(&self) -> Option<CompletionList<'_>> {
        self.editor.as_ref().and(self.completion.list())
    }

    /// Sets the most bytes an editor may hold; typing, pasting or completing past it is refused.
    pub fn set_text_limit(&mut self, limit: usize) {
        self.text_limit = limit;
    }

    /// Sets the most bytes of custom text and notes the flow may hold in all.
    pub fn set_stored_limit(&mut self, limit: usize) {
        self.stored_limit = limit;
    }

    /// Refuses an edit that would leave the open editor holding more than the text limit.
    fn check_growth(&self, removed: usize, added: usize) -> Result<(), FlowError> {
        let held = self.editor.as_ref().map_or(0, |e| e.text.text().len());
        let would_hold = held.saturating_sub(removed).saturating_add(added);
        if added > removed && would_hold > self.text_limit {
            return Err(FlowError::TextLimit {
                would_hold,
                limit: self.text_limit,
            });
        }
        Ok(())
    }

    /// Hands the flow the paths under its root directory, for `@` completion in editors.
    /// Until this is called no completion is offered; an open editor's list follows at once.
    pub fn set_file_index(&mut self, index: Arc<FileIndex>) {
        self.files = Some(index);
        self.refresh_completion();
    }

    /// One answer per question, in question order.
    pub fn answers(&self) -> &[Answer] {
        &self.answers
    }

    /// How the flow ended, once it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Where keys go.
    pub fn focus(&self) -> Focus {
        match &self.editor {
            Some(OpenEditor {
                target: EditorTarget::Custom,
                ..
            }) => Focus::Input,
            Some(_) => Focus::Note,
            None if self.tab == self.spec.questions.len() => Focus::Review,
            None if self.filter.as_ref().is_some_and(|f| f.editing) => Focus::Filter,
            None => Focus::Options,
        }
    }

    /// The filter of the active question's rows, while one is open or applied.
    pub fn filter(&self) -> Option<&RowFilter> {
        self.filter.as_ref()
    }

    /// The keys of a key sequence pressed so far, while it waits for its next key.
    pub fn pending_keys(&self) -> &[Key] {
        &self.pending
    }

    /// The rows keys move among on the active question tab (none on the review tab).
    pub fn rows(&self) -> Rows<'_> {
        match self.current_question() {
            Some(q) => Rows {
                count: self.spec.row_count(q),
                matches: self.filter.as_ref().map(RowFilter::matches),
                custom: self.spec.has_custom_row(q).then_some(q.options.len()),
            },
            None => Rows {
                count: 0,
                matches: None,
                custom: None,
            },
        }
    }

    /// The context whose key sequences apply in the current focus.
    fn sequence_context(&self) -> Context {
        if self.focus() == Focus::Review {
            Context::Review
        } else {
            Context::Main
        }
    }

    /// The question of the active tab (`None` on the review tab).
    pub fn current_question(&self) -> Option<&Question> {
        self.spec.questions.get(self.tab)
    }

    /// The review actions of this flow's dialect.
    pub fn review_actions(&self) -> &'static [ReviewAction] {
        self.spec.rules.review
    }

    /// Why the answer of question `index` keeps the flow from being submitted, as the dialect's
    /// checker says; `None` when it may be submitted (always, without a checker).
    pub fn problem(&self, index: usize) -> Option<String> {
        let checker = self.spec.rules.checker?;
        (checker.answer)(&self.spec, index, self.answers.get(index)?).err()
    }

    /// Whether some answer keeps the flow from being submitted ([`Flow::problem`]).
    pub fn submit_blocked(&self) -> bool {
        self.spec.rules.checker.is_some()
            && (0..self.answers.len()).any(|index| self.problem(index).is_some())
    }

    /// The notices and pending confirmations of the behaviour options, and the help overlay.
    pub fn prompts(&self) -> &Prompts {
        &self.prompts
    }

    /// Whether the flow holds anything a dismiss would lose: a stored answer or note, or an
    /// open editor with text.
    pub fn is_dirty(&self) -> bool {
        self.editor.as_ref().is_some_and(|e| !e.text.is_empty())
            || self.answers.iter().any(|a| !a.is_empty())
    }

    fn ensure_open(&self) -> Result<(), FlowError> {
        match self.outcome {
            Some(_) => Err(FlowError::Completed),
            None => Ok(()),
        }
    }

    /// Applies one key press. Keys that mean nothing in the current focus are ignored. `Up`
    /// and `Down` in an editor move by the text's own lines, as in a box too wide to wrap any
    /// ([`Flow::press_wrapped`] moves by the lines a box shows).
    pub fn press(&mut self, key: Key) -> Result<(), FlowError> {
        self.press_wrapped(key, usize::MAX)
    }

    /// Applies one key press, as [`Flow::press`], with the open editor's text laid out in
    /// `editor_columns` columns: `Up` and `Down` in it move by those visual lines
    /// ([`crate::core::visual_lines`]).
    pub fn press_wrapped(&mut self, key: Key, editor_columns: usize) -> Result<(), FlowError> {
        self.ensure_open()?;
        // Looked up once, in every context; each focus narrows it to its own.
        let bound = self.keymap.bound(key);
        if self.prompts.help {
            self.press_help(bound);
            return Ok(());
        }
        if bound.contains(Action::GlobalDismiss) {
            self.drop_type_confirmation();
            self.prompts.armed = None;
            self.pending.clear();
            // Ctrl+C: the draft of an open editor is not saved.
            self.cancel_guarded(CancelReason::Dismissed);
            return Ok(());
        }
        if bound.contains(Action::GlobalHelp)
            && self.spec.behaviour.help_overlay
            && self.editor.as_ref().is_none_or(|e| e.text.is_empty())
            && !(self.focus() == Focus::Filter
                && self.filter.as_ref().is_some_and(|f| !f.text.is_empty()))
        {
            self.pending.clear();
            self.prompts.help = true;
            return Ok(());
        }
        match self.focus() {
            Focus::Options | Focus::Review
                if self.keymap.has_sequences() && self.press_sequence(key, bound) => {}
            Focus::Options => self.press_main(key, bound),
            Focus::Review => self.press_review(key, bound),
            Focus::Filter => return self.press_filter(key, bound),
            Focus::Input | Focus::Note => return self.press_editor(key, bound, editor_columns),
        }
        Ok(())
    }

    /// A key of a key sequence (`options` and `review` focus): answers whether the sequence
    /// took it. A key that continues a sequence waits with the keys before it; one that
    /// completes it runs its action. A key that continues none clears the keys waiting, and is
    /// then taken only when it is a key of the cancel action (as `Esc` clears Vim's pending
    /// keys, doing nothing else); any other key goes on to act as it would have alone,
    /// beginning a sequence of its own if it starts one.
    fn press_sequence(&mut self, key: Key, bound: ActionSet) -> bool {
        let context = self.sequence_context();
        self.pending.push(key);
        match self.keymap.sequence(context, &self.pending) {
            SequenceMatch::Complete(action) => {
                self.pending.clear();
                match context {
                    Context::Review => self.run_review(action),
                    _ => self.run_main(action),
                }
                true
            }
            SequenceMatch::Prefix => true,
            SequenceMatch::None => {
                let interrupted = self.pending.len() > 1;
                self.pending.clear();
                let cancel = match context {
                    Context::Review => Action::ReviewCancel,
                    _ => Action::MainCancel,
                };
                if interrupted && bound.contains(cancel) {
                    return true;
                }
                if interrupted {
                    self.pending.push(key);
                    if self.keymap.sequence(context, &self.pending) == SequenceMatch::Prefix {
                        return true;
                    }
                    self.pending.clear();
                }
                false
            }
        }
    }

    /// A key while the help overlay is open: the keys of `global.help`, `global.dismiss` and of
    /// every cancel or close action close it; every other key is ignored.
    fn press_help(&mut self, bound: ActionSet) {
        const CLOSING: [Action; 7] = [
            Action::GlobalHelp,
            Action::GlobalDismiss,
            Action::MainCancel,
            Action::ReviewCancel,
            Action::EditorClose,
            Action::NoteEditorClose,
            Action::FilterClear,
        ];
        if CLOSING.iter().any(|&action| bound.contains(action)) {
            self.prompts.help = false;
        }
    }

    /// Cancel and dismiss (`Esc`, `Ctrl+C`, the Cancel action): ends the flow as cancelled,
    /// without saving an open editor's draft, unless the dirty-dismiss guard holds it
    /// (`confirmDismissWhenDirty`, a dirty flow, no notice shown yet): then only the notice shows.
    fn cancel_guarded(&mut self, reason: CancelReason) {
        if self.spec.behaviour.confirm_dismiss_when_dirty
            && !self.prompts.dismiss
            && self.is_dirty()
        {
            self.prompts.dismiss = true;
            return;
        }
        self.finish(Outcome::Cancelled(reason));
    }

    /// Forgets a question-type switch waiting for its confirmation, and its notice.
    #[inline]
    fn drop_type_confirmation(&mut self) {
        if matches!(self.prompts.type_change, Some(TypeChange::Confirm { .. })) {
            self.prompts.type_change = None;
        }
    }

    /// Inserts text (typing or a paste) into the open editor, or into the open filter editor
    /// (line breaks there become spaces).
    pub fn insert(&mut self, text: &str) -> Result<(), FlowError> {
        self.ensure_open()?;
        if self.focus() == Focus::Filter {
            let one_line = text.replace("\r\n", " ").replace(['\n', '\r'], " ");
            return self.type_filter(&one_line);
        }
        if self.editor.is_none() {
            return Err(FlowError::NoEditor);
        }
        self.check_growth(0, text.len())?;
        if let Some(editor) = self.editor.as_mut() {
            editor.text.insert(text);
            editor.refusal = None;
        }
        self.refresh_completion();
        Ok(())
    }

    /// A plain digit `1`..`9`, which no keymap rebinds.
    fn digit(key: Key) -> Option<usize> {
        match key.code {
            KeyCode::Char(c @ '1'..='9') if !key.mods.ctrl && !key.mods.alt => {
                Some(c as usize - '0' as usize)
            }
            _ => None,
        }
    }

    /// A key on a question tab; `bound` holds the key's actions.
    fn press_main(&mut self, key: Key, bound: ActionSet) {
        if let Some(d) = Self::digit(key) {
            self.drop_type_confirmation();
            self.press_digit(d);
            return;
        }
        if let Some(action) = bound.in_context(Context::Main).first() {
            self.run_main(action);
        }
    }

    /// Digit `d` on a question tab: the `d`-th row keys move among (with a filter, the
    /// `d`-th row that matches).
    fn press_digit(&mut self, d: usize) {
        let rows = self.rows();
        if d > rows.len() {
            return;
        }
        self.row = rows.row(d - 1);
        let Some(question) = self.current_question() else {
            return;
        };
        if self.spec.is_custom_row(question, self.row) {
            self.toggle_or_open_custom();
        } else if question.kind == QuestionType::Multi {
            self.toggle(self.row);
        } else {
            self.select_only(self.row);
            self.advance();
        }
    }

    /// Runs an action of `main` on the active question tab.
    fn run_main(&mut self, action: Action) {
        if self.current_question().is_none() {
            return;
        }
        if action != Action::MainChangeQuestionType {
            self.drop_type_confirmation();
        }
        let Some(question) = self.current_question() else {
            return;
        };
        let kind = question.kind;
        let on_custom = self.spec.is_custom_row(question, self.row);
        let filterable = question.options.len() >= FILTER_MIN_OPTIONS;
        // A filter that matches nothing leaves no active row to act on.
        let shown = self.rows().position(self.row).is_some();
        match action {
            Action::MainNextTab => self.move_tab(true),
            Action::MainPrevTab => self.move_tab(false),
            Action::MainDown => self.move_row(true),
            Action::MainUp => self.move_row(false),
            Action::MainPageDown => self.jump(|at, _| at + ROW_WINDOW),
            Action::MainPageUp => self.jump(|at, _| at.saturating_sub(ROW_WINDOW)),
            Action::MainFirst => self.jump(|_, _| 0),
            Action::MainLast => self.jump(|_, count| count - 1),
            Action::MainFilter if filterable => self.open_filter(),
            // While a filter is applied, the keys of cancel clear it first.
            Action::MainCancel if self.filter.is_some() => self.filter = None,
            Action::MainCancel => self.cancel_guarded(CancelReason::User),
            Action::MainQuestionNote if self.spec.rules.notes => {
                self.open_editor(EditorTarget::QuestionNote)
            }
            Action::MainChangeQuestionType if self.spec.behaviour.question_type_toggle => {
                self.change_question_type();
            }
            _ if !shown => {}
            Action::MainConfirm if on_custom => self.open_editor(EditorTarget::Custom),
            Action::MainConfirm => {
                if kind != QuestionType::Multi {
                    self.select_only(self.row);
                }
                self.advance();
            }
            Action::MainToggle if on_custom => self.toggle_or_open_custom(),
            Action::MainToggle if kind == QuestionType::Multi => self.toggle(self.row),
            Action::MainToggle => {
                let answer = &mut self.answers[self.tab];
                if answer.selected == [self.row] {
                    answer.selected.clear();
                } else {
                    self.select_only(self.row);
                }
            }
            Action::MainOptionNote if on_custom || !self.spec.rules.option_notes => {}
            Action::MainOptionNote => {
                self.open_editor(EditorTarget::OptionNote { option: self.row })
            }
            _ => {}
        }
    }

    /// Space or the digit on the custom row: on a multi question whose saved custom text may
    /// be set aside ([`crate::core::Behaviour::custom_text_toggles`]), sets it aside or chooses it
    /// again; otherwise opens the input editor.
    fn toggle_or_open_custom(&mut self) {
        let multi = self.spec.questions[self.tab].kind == QuestionType::Multi;
        let answer = &mut self.answers[self.tab];
        if multi && self.spec.behaviour.custom_text_toggles && answer.custom_text.is_some() {
            answer.custom_off = !answer.custom_off;
        } else {
            self.open_editor(EditorTarget::Custom);
        }
    }

    /// `main.changeQuestionType`: presents the active question as the other kind — single and
    /// multi, or preview and multi for a question asked as preview. A switch from multi that
    /// would leave more than one answer on a single-choice kind waits for a second press, then
    /// clears the selections (a chosen custom text stays chosen).
    fn change_question_type(&mut self) {
        let tab = self.tab;
        let question = &self.spec.questions[tab];
        let from = question.kind;
        let to = match (question.asked_kind(), from) {
            (QuestionType::Preview, QuestionType::Preview) => QuestionType::Multi,
            (QuestionType::Preview, _) => QuestionType::Preview,
            (_, QuestionType::Multi) => QuestionType::Single,
            _ => QuestionType::Multi,
        };
        let answer = &self.answers[tab];
        if to == QuestionType::Preview
            && !self.spec.behaviour.custom_row_on_preview
            && answer.custom_text.is_some()
        {
            return;
        }
        let clears = to != QuestionType::Multi && answer.committed() > 1;
        let confirm = TypeChange::Confirm { question: tab };
        if clears && self.prompts.type_change != Some(confirm) {
            self.prompts.type_change = Some(confirm);
            return;
        }
        Arc::make_mut(&mut self.spec).questions[tab].present_as(to);
        if clears {
            let answer = &mut self.answers[tab];
            answer.selected.clear();
            answer.custom_off = false;
        }
        let rows = self.spec.row_count(&self.spec.questions[tab]);
        self.row = self.row.min(rows - 1);
        // The custom row may have gone: with a filter applied, stay on a row it keeps.
        let shown = self.rows();
        if !shown.is_empty() && shown.position(self.row).is_none() {
            self.row = shown.row(0);
        }
        self.prompts.type_change = Some(TypeChange::Changed { from, to });
    }

    /// A key on the review tab; `bound` holds the key's actions.
    fn press_review(&mut self, key: Key, bound: ActionSet) {
        let actions = self.review_actions();
        if let Some(d) = Self::digit(key) {
            let double = self.spec.behaviour.double_press_review_shortcuts;
            match actions.get(d - 1) {
                Some(_) if double && self.prompts.armed != Some(d - 1) => {
                    self.prompts.armed = Some(d - 1);
                    self.review_action = d - 1;
                }
                Some(&action) => {
                    self.prompts.armed = None;
                    self.run_review_action(action);
                    if double && self.outcome.is_none() {
                        // The guard held a Cancel: the same digit again discards.
                        self.prompts.armed = Some(d - 1);
                    }
                }
                None => self.prompts.armed = None,
            }
            return;
        }
        let action = bound.in_context(Context::Review).first();
        if action.is_some()
            || bound.contains(Action::MainToggle)
            || bound.contains(Action::MainChangeQuestionType)
        {
            self.prompts.armed = None;
        }
        if let Some(action) = action {
            self.run_review(action);
        }
    }

    /// Runs an action of `review` on the review tab.
    fn run_review(&mut self, action: Action) {
        self.prompts.armed = None;
        let actions = self.review_actions();
        let last = actions.len() - 1;
        match action {
            Action::ReviewNextTab => self.move_tab(true),
            Action::ReviewPrevTab => self.move_tab(false),
            Action::ReviewDown => self.review_action = (self.review_action + 1).min(last),
            Action::ReviewUp => self.review_action = self.review_action.saturating_sub(1),
            Action::ReviewFirst => self.review_action = 0,
            Action::ReviewLast => self.review_action = last,
            Action::ReviewConfirm => self.run_review_action(actions[self.review_action]),
            Action::ReviewCancel => self.cancel_guarded(CancelReason::User),
            _ => {}
        }
    }

    /// Opens the filter editor of the active question: a new filter, or the one applied,
    /// with the cursor at the end of its text.
    fn open_filter(&mut self) {
        let Some(question) = self.spec.questions.get(self.tab) else {
            return;
        };
        match &mut self.filter {
            Some(filter) => {
                filter.editing = true;
                filter.text.apply(Edit::End);
            }
            None => self.filter = Some(RowFilter::new(self.tab, question, TextEditor::new(), true)),
        }
    }

    /// A key in the filter editor; `bound` holds the key's actions. Its own actions accept,
    /// clear, move among the options that match and move tabs; the editing keys of `editor`
    /// (but a new line) edit its text; a character is typed.
    fn press_filter(&mut self, key: Key, bound: ActionSet) -> Result<(), FlowError> {
        match bound.in_context(Context::Filter).first() {
            Some(Action::FilterAccept) => {
                if let Some(filter) = self.filter.as_mut() {
                    filter.editing = false;
                    if filter.text.is_empty() {
                        self.filter = None;
                    }
                }
            }
            Some(Action::FilterClear) => self.filter = None,
            Some(Action::FilterUp) => self.move_in_matches(false),
            Some(Action::FilterDown) => self.move_in_matches(true),
            Some(Action::FilterNextTab) => self.move_tab(true),
            Some(Action::FilterPrevTab) => self.move_tab(false),
            Some(_) => {}
            None => {
                let edit = bound.in_context(Context::Editor).iter().find_map(|action| {
                    match EditorCommand::of(action) {
                        Some(EditorCommand::Edit(edit)) if edit != Edit::Newline => Some(edit),
                        _ => None,
                    }
                });
                match (edit, key.code) {
                    (Some(edit), _) => self.edit_filter(edit),
                    (None, KeyCode::Char(c)) if !key.mods.ctrl && !key.mods.alt => {
                        let mut buf = [0u8; 4];
                        return self.type_filter(c.encode_utf8(&mut buf));
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// Applies a cursor movement or deletion to the filter text.
    fn edit_filter(&mut self, edit: Edit) {
        let Some(filter) = self.filter.as_mut() else {
            return;
        };
        let before = filter.text.text().len();
        filter.text.apply(edit);
        // Moves keep the text's length; deletions shorten it.
        if filter.text.text().len() != before {
            self.refilter();
        }
    }

    /// Types `text` into the filter text, refused past the flow's text limit.
    fn type_filter(&mut self, text: &str) -> Result<(), FlowError> {
        let Some(filter) = self.filter.as_mut() else {
            return Ok(());
        };
        let would_hold = filter.text.text().len().saturating_add(text.len());
        if would_hold > self.text_limit {
            return Err(FlowError::TextLimit {
                would_hold,
                limit: self.text_limit,
            });
        }
        filter.text.insert(text);
        self.refilter();
        Ok(())
    }

    /// Finds the options that match after the filter text changed (one pass over them), and
    /// makes the first that matches active: the custom row when none does, the row unchanged
    /// on a question without one.
    fn refilter(&mut self) {
        let spec = &*self.spec;
        let (Some(filter), Some(question)) = (self.filter.as_mut(), spec.questions.get(self.tab))
        else {
            return;
        };
        filter.refresh(question);
        self.row = match filter.matches().first() {
            Some(&first) => first,
            None if spec.has_custom_row(question) => question.options.len(),
            None => self.row,
        };
    }

    /// Up/Down in the filter editor: among the options that match, clamped (never onto the
    /// custom row, whose editor would open).
    fn move_in_matches(&mut self, down: bool) {
        let Some(matches) = self.filter.as_ref().map(RowFilter::matches) else {
            return;
        };
        if matches.is_empty() {
            return;
        }
        let at = matches
            .binary_search(&self.row)
            .unwrap_or_else(|at| at.min(matches.len() - 1));
        let at = if down {
            (at + 1).min(matches.len() - 1)
        } else {
            at.saturating_sub(1)
        };
        self.row = matches[at];
    }

    /// Runs a review action; Submit does nothing while an answer blocks it.
    fn run_review_action(&mut self, action: ReviewAction) {
        if action == ReviewAction::Submit && self.submit_blocked() {
            return;
        }
        match action {
            ReviewAction::Submit => self.finish(Outcome::Submit),
            ReviewAction::Elaborate => self.finish(Outcome::Elaborate),
            ReviewAction::Cancel => self.cancel_guarded(CancelReason::User),
            ReviewAction::Decline => self.finish(Outcome::Declined),
        }
    }

    /// The editor commands a key with the actions `bound` may mean in an editor of `target`, in
    /// keymap order: the editor's own actions, then (note editors) the editing actions of
    /// `editor`.
    fn editor_commands(
        bound: ActionSet,
        target: EditorTarget,
    ) -> impl Iterator<Item = EditorCommand> {
        let (own, shared) = match target {
            EditorTarget::Custom => (bound.in_context(Context::Editor), ActionSet::EMPTY),
            _ => (
                bound.in_context(Context::NoteEditor),
                bound.in_context(Context::Editor),
            ),
        };
        let own_commands = own.iter().filter_map(EditorCommand::of);
        let shared_commands = shared
            .iter()
            .filter_map(EditorCommand::of)
            .filter(|c| matches!(c, EditorCommand::Edit(_)));
        own_commands.chain(shared_commands)
    }

    /// The command a key with the actions `bound` means in the current editor.
    fn editor_command(bound: ActionSet, editor: &OpenEditor) -> Option<EditorCommand> {
        let empty = editor.text.is_empty();
        let usable = |command: &EditorCommand| match command {
            EditorCommand::NextTab | EditorCommand::PrevTab => empty,
            EditorCommand::PageDown | EditorCommand::PageUp => empty,
            _ => true,
        };
        Self::editor_commands(bound, editor.target).find(usable)
    }

    /// What a key does while the completion list is open: keys of the submit and next-tab
    /// actions accept, keys of up and down move the highlight, keys of close close the list.
    /// A key also bound to an editing action (`right` moves the cursor) keeps editing.
    fn list_command(bound: ActionSet, editor: &OpenEditor) -> Option<ListCommand> {
        let mut list = None;
        for command in Self::editor_commands(bound, editor.target) {
            let this = match command {
                EditorCommand::Edit(_) => return None,
                EditorCommand::Submit | EditorCommand::NextTab => Some(ListCommand::Accept),
                EditorCommand::Up => Some(ListCommand::Move { down: false }),
                EditorCommand::Down => Some(ListCommand::Move { down: true }),
                EditorCommand::Close => Some(ListCommand::Close),
                EditorCommand::PrevTab | EditorCommand::PageDown | EditorCommand::PageUp => None,
            };
            list = list.or(this);
        }
        list
    }

    /// Runs a key of the open completion list.
    fn press_list(&mut self, command: ListCommand) -> Result<(), FlowError> {
        match command {
            ListCommand::Accept => {
                if let Some((range, text)) = self.completion.accepted() {
                    self.check_growth(range.len(), text.len())?;
                    if let Some(editor) = self.editor.as_mut() {
                        editor.text.replace(range, &text);
                    }
                }
                self.refresh_completion();
            }
            ListCommand::Move { down } => self.completion.move_selection(down),
            ListCommand::Close => self.completion.dismiss(),
        }
        Ok(())
    }

    /// A key in an editor laid out in `columns`; `bound` holds the key's actions.
    fn press_editor(
        &mut self,
        key: Key,
        bound: ActionSet,
        columns: usize,
    ) -> Result<(), FlowError> {
        let Some(editor) = self.editor.as_ref() else {
            return Ok(());
        };
        if self.completion.is_open()
            && let Some(command) = Self::list_command(bound, editor)
        {
            return self.press_list(command);
        }
        self.press_editor_key(key, bound, columns)?;
        self.refresh_completion();
        Ok(())
    }

    /// A key in an editor laid out in `columns`, without an open completion list
    /// (`protocol/behaviour.md` §5).
    fn press_editor_key(
        &mut self,
        key: Key,
        bound: ActionSet,
        columns: usize,
    ) -> Result<(), FlowError> {
        let Some(editor) = self.editor.as_ref() else {
            return Ok(());
        };
        let empty = editor.text.is_empty();
        let Some(command) = Self::editor_command(bound, editor) else {
            if let KeyCode::Char(c) = key.code
                && !key.mods.ctrl
                && !key.mods.alt
            {
                self.check_growth(0, c.len_utf8())?;
                if let Some(editor) = self.editor.as_mut() {
                    let mut buf = [0u8; 4];
                    editor.text.insert(c.encode_utf8(&mut buf));
                    editor.refusal = None;
                }
            }
            return Ok(());
        };
        match command {
            EditorCommand::Submit => {
                let target = editor.target;
                let saved = self.save_editor(true)?;
                let stays = self.spec.behaviour.custom_text_toggles
                    && self.spec.questions[self.tab].kind == QuestionType::Multi;
                if saved
                    && target == EditorTarget::Custom
                    && !stays
                    && self.answers[self.tab].is_answered()
                {
                    self.advance();
                }
            }
            EditorCommand::Close => {
                self.save_editor(false)?;
            }
            EditorCommand::Up | EditorCommand::Down if !empty => {
                let edit = if command == EditorCommand::Up {
                    Edit::Up
                } else {
                    Edit::Down
                };
                if let Some(editor) = self.editor.as_mut() {
                    editor.text.apply_wrapped(edit, columns);
                }
            }
            EditorCommand::Up => {
                if self.save_editor(false)? {
                    self.move_row(false);
                }
            }
            EditorCommand::Down => {
                if self.save_editor(false)? {
                    self.move_row(true);
                }
            }
            EditorCommand::PageDown => {
                self.save_editor(false)?;
                self.jump(|at, _| at + ROW_WINDOW);
            }
            EditorCommand::PageUp => {
                self.save_editor(false)?;
                self.jump(|at, _| at.saturating_sub(ROW_WINDOW));
            }
            EditorCommand::NextTab => {
                if self.save_editor(false)? {
                    self.move_tab(true);
                }
            }
            EditorCommand::PrevTab => {
                if self.save_editor(false)? {
                    self.move_tab(false);
                }
            }
            EditorCommand::Edit(edit) => {
                if edit == Edit::Newline {
                    self.check_growth(0, 1)?;
                }
                if let Some(editor) = self.editor.as_mut() {
                    editor.text.apply(edit);
                    editor.refusal = None;
                }
            }
        }
        Ok(())
    }

    /// Opens an editor on the active question, pre-filled with its target's saved text.
    fn open_editor(&mut self, target: EditorTarget) {
        let answer = &self.answers[self.tab];
        let saved = match target {
            EditorTarget::Custom => answer.custom_text.as_deref(),
            EditorTarget::QuestionNote => answer.note.as_deref(),
            EditorTarget::OptionNote { option } => answer.option_note(option),
        }
        .unwrap_or("");
        self.editor = Some(OpenEditor {
            question: self.tab,
            target,
            text: TextEditor::with_text_in(std::mem::take(&mut self.spare_text), saved),
            initial: saved.to_owned(),
            refusal: None,
        });
        self.completion = Completion::default();
        self.refresh_completion();
    }

    /// Closes the open editor without saving it, and its completion list with it.
    fn close_editor(&mut self) {
        self.completion = Completion::default();
        if let Some(editor) = self.editor.take() {
            self.spare_text = editor.text.into_buffer();
        }
    }

    /// Recomputes the completion list after the open editor's text or cursor changed.
    fn refresh_completion(&mut self) {
        match (&self.editor, self.files.as_deref()) {
            (Some(editor), Some(files)) => {
                self.completion
                    .update(Some(files), editor.text.text(), editor.text.cursor())
            }
            // Without an index nothing is offered, so the list is already empty: no work on
            // the keystroke path.
            (_, None) => debug_assert_eq!(self.completion, Completion::default()),
            (None, Some(_)) => self.completion = Completion::default(),
        }
    }

    /// Saves the open editor's draft and closes it: trimmed of surrounding whitespace with
    /// `trim` (`Enter`), as typed otherwise (`Esc`, the empty-editor moves). `false` when the
    /// dialect's checker refused the draft, which stays open with the reason.
    ///
    /// An engine rule: a draft whose trimmed text equals the trimmed text the editor opened with
    /// changes nothing, except that saved custom text set aside is chosen again (as any save of
    /// custom text chooses it).
    fn save_editor(&mut self, trim: bool) -> Result<bool, FlowError> {
        let Some(editor) = self.editor.as_ref() else {
            return Ok(true);
        };
        let draft = editor.text.text();
        if draft.trim() == editor.initial.trim() {
            // Custom text set aside is the text the editor opened with, never blank.
            if editor.target == EditorTarget::Custom {
                self.answers[editor.question].custom_off = false;
            }
            self.close_editor();
            return Ok(true);
        }
        if editor.target == EditorTarget::Custom
            && let Err(reason) = self.check_text(editor.question, draft)
        {
            if let Some(editor) = self.editor.as_mut() {
                editor.refusal = Some(reason);
            }
            return Ok(false);
        }
        let draft = if trim { draft.trim() } else { draft };
        let replaced = {
            let answer = &self.answers[editor.question];
            match editor.target {
                EditorTarget::Custom => answer.custom_text.as_deref(),
                EditorTarget::QuestionNote => answer.note.as_deref(),
                EditorTarget::OptionNote { option } => answer.option_note(option),
            }
            .map_or(0, str::len)
        };
        self.check_stored(replaced, draft.len())?;
        self.completion = Completion::default();
        let Some(editor) = self.editor.take() else {
            return Ok(true);
        };
        let draft = editor.text.text();
        let draft = if trim { draft.trim() } else { draft };
        let question = editor.question;
        match editor.target {
            EditorTarget::Custom => self.store_custom(question, draft),
            EditorTarget::QuestionNote => self.answers[question].set_note(draft),
            EditorTarget::OptionNote { option } => {
                self.answers[question].set_option_note(option, draft)
            }
        }
        self.spare_text = editor.text.into_buffer();
        Ok(true)
    }

    /// The dialect's check of `text` as the custom answer of question `question`; blank text
    /// (no answer) always passes.
    fn check_text(&self, question: usize, text: &str) -> Result<(), String> {
        match self.spec.rules.checker {
            Some(checker) if !text.trim().is_empty() => (checker.text)(&self.spec, question, text),
            _ => Ok(()),
        }
    }

    /// Bytes of custom text and notes the flow holds.
    pub fn stored_bytes(&self) -> usize {
        self.answers.iter().map(Answer::text_bytes).sum()
    }

    /// Refuses a save that would leave the flow holding more text than its budget.
    fn check_stored(&self, removed: usize, added: usize) -> Result<(), FlowError> {
        let would_hold = self
            .stored_bytes()
            .saturating_sub(removed)
            .saturating_add(added);
        if added > removed && would_hold > self.stored_limit {
            return Err(FlowError::StoredLimit {
                would_hold,
                limit: self.stored_limit,
            });
        }
        Ok(())
    }

    /// Stores custom text as given (blank removes it), chosen; on single-select and preview
    /// questions non-blank text clears the selection.
    fn store_custom(&mut self, question: usize, text: &str) {
        let kind = self.spec.questions[question].kind;
        let answer = &mut self.answers[question];
        answer.custom_off = false;
        if text.trim().is_empty() {
            answer.custom_text = None;
        } else {
            answer.custom_text = Some(text.to_owned());
            if kind != QuestionType::Multi {
                answer.selected.clear();
            }
        }
    }

    /// Makes `row` the only selection of a single-select or preview question, dropping its
    /// custom text (notes are kept).
    fn select_only(&mut self, row: usize) {
        let answer = &mut self.answers[self.tab];
        answer.selected.clear();
        answer.selected.push(row);
        answer.custom_text = None;
        answer.custom_off = false;
    }

    fn toggle(&mut self, row: usize) {
        let selected = &mut self.answers[self.tab].selected;
        match selected.iter().position(|&r| r == row) {
            Some(at) => {
                selected.remove(at);
            }
            None => selected.push(row),
        }
    }

    /// Tab keys: next or previous tab, wrapping; row and review action reset.
    fn move_tab(&mut self, forward: bool) {
        let count = self.spec.questions.len() + 1;
        let tab = if forward {
            (self.tab + 1) % count
        } else {
            (self.tab + count - 1) % count
        };
        self.enter_tab(tab);
    }

    /// Up/Down on a question tab, clamped; landing on the custom row opens its editor.
    fn move_row(&mut self, down: bool) {
        let to = |at: usize, _| if down { at + 1 } else { at.saturating_sub(1) };
        if self.move_among(to) {
            self.after_move();
        }
    }

    /// The page keys and first/last: a jump to position `to(position, count)`, clamped. A jump
    /// does not open the custom row's editor by itself (so that `end` then `home` comes back
    /// up): `enter` or `space` there does.
    fn jump(&mut self, to: impl FnOnce(usize, usize) -> usize) {
        self.move_among(to);
    }

    /// Moves the active row to position `to(position, count)` among the rows keys move among
    /// (clamped to the last). Nothing moves where there is no row (the review tab, a filter
    /// that matches nothing); answers whether there was one.
    fn move_among(&mut self, to: impl FnOnce(usize, usize) -> usize) -> bool {
        let rows = self.rows();
        let count = rows.len();
        if count == 0 {
            return false;
        }
        let at = rows.position(self.row).unwrap_or(0);
        self.row = rows.row(to(at, count).min(count - 1));
        true
    }

    /// Next tab without wrapping (the last question advances to review), row 0.
    fn advance(&mut self) {
        self.enter_tab((self.tab + 1).min(self.spec.questions.len()));
    }

    /// Makes `tab` active on its first row and first review action; the notices and the filter
    /// of the tab left go with it.
    fn enter_tab(&mut self, tab: usize) {
        self.filter = None;
        self.tab = tab;
        self.row = 0;
        self.review_action = 0;
        self.prompts.dismiss = false;
        self.prompts.type_change = None;
        self.prompts.armed = None;
        self.after_move();
    }

    /// After a move: landing on a custom row opens that question's input editor (auto-open;
    /// under [`crate::core::Behaviour::auto_open_only_without_text`] only while it has no saved
    /// custom text); arriving on the review tab with every question answered and no note
    /// submits under [`crate::core::Behaviour::auto_submit_when_answered_without_notes`].
    fn after_move(&mut self) {
        let spec = &*self.spec;
        match spec.questions.get(self.tab) {
            // The row test first: most moves land elsewhere.
            Some(q) if self.row == q.options.len() && spec.has_custom_row(q) => {
                if !(spec.behaviour.auto_open_only_without_text
                    && self.answers[self.tab].custom_text.is_some())
                {
                    self.open_editor(EditorTarget::Custom);
                }
            }
            Some(_) => {}
            None => self.auto_submit(),
        }
    }

    /// On the review tab, under [`crate::core::Behaviour::auto_submit_when_answered_without_notes`]:
    /// submits when every question is answered and none holds a note.
    fn auto_submit(&mut self) {
        if self.spec.behaviour.auto_submit_when_answered_without_notes
            && self.answers.iter().all(Answer::is_answered)
            && !self.answers.iter().any(Answer::has_notes)
        {
            self.finish(Outcome::Submit);
        }
    }

    /// Ends the flow, closing any editor without saving it and clearing every notice.
    fn finish(&mut self, outcome: Outcome) {
        self.close_editor();
        self.prompts = Prompts::default();
        self.filter = None;
        self.pending.clear();
        self.outcome = Some(outcome);
    }

    fn question_index(&self, id: &str) -> Result<usize, FlowError> {
        self.spec
            .questions
            .iter()
            .position(|q| q.id == id)
            .ok_or_else(|| FlowError::UnknownQuestion(quoted(id)))
    }

    /// Closes the editor if it edits `target` of question `question`, without saving its draft.
    fn close_editor_on(&mut self, question: usize, target: EditorTarget) {
        if self
            .editor
            .as_ref()
            .is_some_and(|e| e.question == question && e.target == target)
        {
            self.close_editor();
        }
    }

    /// Sets a question's custom answer directly (blank clears); with `submit`, advances from
    /// that question like Enter in its input editor.
    pub fn save_custom(
        &mut self,
        question_id: &str,
        text: &str,
        submit: bool,
    ) -> Result<(), FlowError> {
        self.ensure_open()?;
        let question = self.question_index(question_id)?;
        if !self.spec.has_custom_row(&self.spec.questions[question]) {
            return Err(FlowError::NoCustomAnswer(quoted(question_id)));
        }
        self.check_text(question, text)
            .map_err(FlowError::Refused)?;
        let replaced = self.answers[question]
            .custom_text
            .as_deref()
            .map_or(0, str::len);
        self.check_stored(replaced, text.len())?;
        // A direct operation ends any key sequence begun.
        self.pending.clear();
        self.close_editor_on(question, EditorTarget::Custom);
        self.store_custom(question, text);
        let stays = self.spec.behaviour.custom_text_toggles
            && self.spec.questions[question].kind == QuestionType::Multi;
        if submit && !stays && self.answers[question].is_answered() {
            self.close_editor();
            self.tab = question;
            self.advance();
        }
        Ok(())
    }

    /// Sets a question note, or the note of one option, directly (blank clears).
    pub fn set_note(
        &mut self,
        question_id: &str,
        option_value: Option<&str>,
        text: &str,
    ) -> Result<(), FlowError> {
        self.ensure_open()?;
        if !self.spec.rules.notes {
            return Err(FlowError::NoNotes(self.spec.rules.dialect));
        }
        let question = self.question_index(question_id)?;
        match option_value {
            None => {
                let replaced = self.answers[question].note.as_deref().map_or(0, str::len);
                self.check_stored(replaced, text.len())?;
                self.pending.clear();
                self.close_editor_on(question, EditorTarget::QuestionNote);
                self.answers[question].set_note(text);
            }
            Some(_) if !self.spec.rules.option_notes => {
                return Err(FlowError::NoOptionNotes(self.spec.rules.dialect));
            }
            Some(value) => {
                let option = self.spec.questions[question]
                    .options
                    .iter()
                    .position(|o| o.value == value)
                    .ok_or_else(|| FlowError::UnknownOption {
                        question: quoted(question_id),
                        value: quoted(value),
                    })?;
                let replaced = self.answers[question]
                    .option_note(option)
                    .map_or(0, str::len);
                self.check_stored(replaced, text.len())?;
                self.pending.clear();
                self.close_editor_on(question, EditorTarget::OptionNote { option });
                self.answers[question].set_option_note(option, text);
            }
        }
        Ok(())
    }

    /// Replaces every answer at once and completes the flow with `outcome`
    /// (`Submit` or `Elaborate`). Validated first; on error nothing changes.
    pub fn submit_answers(
        &mut self,
        answers: Vec<Answer>,
        outcome: Outcome,
    ) -> Result<(), FlowError> {
        self.ensure_open()?;
        let candidate = Flow {
            answers,
            editor: None,
            ..self.clone()
        };
        candidate
            .check_invariants()
            .map_err(FlowError::InvalidAnswers)?;
        let would_hold = candidate.stored_bytes();
        if would_hold > self.stored_limit {
            return Err(FlowError::StoredLimit {
                would_hold,
                limit: self.stored_limit,
            });
        }
        if outcome == Outcome::Elaborate && !self.spec.rules.elaborates() {
            return Err(FlowError::InvalidAnswers(format!(
                "mode \"elaborate\" is not part of the {} dialect",
                self.spec.rules.dialect
            )));
        }
        if outcome == Outcome::Submit
            && let Some(index) =
                (0..candidate.answers.len()).find(|&i| candidate.problem(i).is_some())
        {
            let reason = candidate.problem(index).unwrap_or_default();
            return Err(FlowError::InvalidAnswers(format!(
                "answers.{}: {reason}",
                self.spec.questions[index].id
            )));
        }
        self.answers = candidate.answers;
        self.finish(outcome);
        Ok(())
    }

    /// Ends the flow as cancelled for `reason` (the user, the asker withdrawing, the client
    /// closing it, …). The draft of an open editor is not saved.
    pub fn cancel(&mut self, reason: CancelReason) -> Result<(), FlowError> {
        self.ensure_open()?;
        self.finish(Outcome::Cancelled(reason));
        Ok(())
    }

    /// Ends the flow as declined by the user, where the dialect offers Decline. The draft of
    /// an open editor is not saved.
    pub fn decline(&mut self) -> Result<(), FlowError> {
        self.ensure_open()?;
        if !self.spec.rules.declines() {
            return Err(FlowError::NoDecline(self.spec.rules.dialect));
        }
        self.finish(Outcome::Declined);
        Ok(())
    }

    /// When the flow times out, in milliseconds since the Unix epoch; `None` without a timeout.
    pub fn deadline(&self) -> Option<u64> {
        self.deadline
    }

    /// Sets (or, with `None`, removes) the flow's deadline, in milliseconds since the Unix
    /// epoch. The flow does not read a clock: the shell calls [`Flow::expire`] with the time.
    pub fn set_deadline(&mut self, deadline: Option<u64>) {
        self.deadline = deadline;
    }

    /// The timeout rule: at `now` (milliseconds since the Unix epoch), a flow still open whose
    /// deadline is `now` or earlier completes as cancelled with reason `timeout`; the draft of
    /// an open editor is not saved, and nothing is answered for the user. Answers whether this
    /// call ended the flow.
    pub fn expire(&mut self, now: u64) -> bool {
        let due = self.is_due(now);
        if due {
            self.finish(Outcome::Cancelled(CancelReason::Timeout));
        }
        due
    }

    /// The deadline rule of a flow that does not wait for its answer: at `now`, a flow still
    /// open whose deadline is `now` or earlier is submitted with the answers the user committed
    /// (the draft of an open editor is not saved, and nothing is answered for the user); when
    /// the dialect's checks keep those answers from being submitted, it times out as with
    /// [`Flow::expire`]. Answers whether this call ended the flow.
    pub fn expire_submitting(&mut self, now: u64) -> bool {
        let due = self.is_due(now);
        if due {
            let outcome = if self.submit_blocked() {
                Outcome::Cancelled(CancelReason::Timeout)
            } else {
                Outcome::Submit
            };
            self.finish(outcome);
        }
        due
    }

    /// Whether the flow is open and its deadline is `now` or earlier.
    fn is_due(&self, now: u64) -> bool {
        self.outcome.is_none() && self.deadline.is_some_and(|at| at <= now)
    }
}
