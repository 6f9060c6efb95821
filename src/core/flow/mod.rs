//! The flow state machine: tabs, rows, focus, editors and answers, and every key of
//! `protocol/behaviour.md` §3–§5, §9 and §10 and every direct operation applied to them.
//!
//! This file holds the state ([`Flow`]) and what reads it; each concept that changes it has a
//! file of its own:
//!
//! | file | what it decides |
//! |---|---|
//! | `keys.rs` | a key press: its lookup, key sequences, digits, the actions of `main` and `review` (§3, §4) |
//! | `navigation.rs` | the rows keys move among ([`Rows`]), tab and row moves, what arriving somewhere opens |
//! | `editing.rs` | editors: opening, the keys and text that go to them, `@` completion, saving (§5), the limits |
//! | `filtering.rs` | the `/` filter of a long list (§10) |
//! | `prompts.rs` | the notices and confirmations of the behaviour options ([`Prompts`], §9) |
//! | `direct.rs` | operations without keys: a custom answer, a note, every answer at once |
//! | `pointer.rs` | pointer actions: what a click or a tap on a target does, which targets the screen offers, an editor's whole text set at once |
//! | `ending.rs` | submit on arrival, cancel, decline, the deadline ([`Flow::expire`]; the flow reads no clock) |
//! | `invariants.rs` | [`Flow::check_invariants`] |
//! | `error.rs` | [`FlowError`]: why an operation is refused (the flow is then unchanged) |
//!
//! A `Flow` owns its state and is changed in place; a key press never clones it (the
//! question-type toggle, which changes a question's kind, copies the spec when it is shared).

mod direct;
mod editing;
mod ending;
mod error;
mod filtering;
mod invariants;
mod keys;
mod navigation;
mod pointer;
mod prompts;

pub use error::FlowError;
pub use navigation::{ROW_WINDOW, Rows};
pub use pointer::{Activatable, EditorKind, Target};
pub use prompts::{Prompts, TypeChange};

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::core::completion::{Completion, CompletionList, FileIndex};
use crate::core::editor::TextEditor;
use crate::core::filter::RowFilter;
use crate::core::key::Key;
use crate::core::keymap::Keymap;
use crate::core::model::{Answer, FlowSpec, Outcome, Question, ReviewAction};

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
    /// A new flow on its first tab, on the row it opens on ([`Flow::opening_row`]; the editor of
    /// a custom row opens there).
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
        flow.row = flow.opening_row(0);
        flow.after_arrival();
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

    /// Takes `spec` in place of the flow's own when the two are equal, so that flows of the
    /// same request keep one spec between them; answers whether it did. Nothing the flow does
    /// changes: a change of the spec (the question-type toggle) copies it first when shared.
    pub fn share_spec(&mut self, spec: &Arc<FlowSpec>) -> bool {
        if Arc::ptr_eq(&self.spec, spec) {
            return true;
        }
        if **spec != *self.spec {
            return false;
        }
        self.spec = Arc::clone(spec);
        true
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
}
