//! The notices and confirmations of the behaviour options (`protocol/behaviour.md` §9): the
//! dirty-dismiss guard, armed review digits, the question-type toggle and the help overlay.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::core::keymap::{Action, ActionSet};
use crate::core::model::{CancelReason, Outcome, QuestionType};

use super::Flow;

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

impl Flow {
    /// A key while the help overlay is open: the keys of `global.help`, `global.dismiss` and of
    /// every cancel or close action close it; every other key is ignored.
    pub(super) fn press_help(&mut self, bound: ActionSet) {
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
    pub(super) fn cancel_guarded(&mut self, reason: CancelReason) {
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
    pub(super) fn drop_type_confirmation(&mut self) {
        if matches!(self.prompts.type_change, Some(TypeChange::Confirm { .. })) {
            self.prompts.type_change = None;
        }
    }

    /// `main.changeQuestionType`: presents the active question as the other kind — single and
    /// multi, or preview and multi for a question asked as preview. A switch from multi that
    /// would leave more than one answer on a single-choice kind waits for a second press, then
    /// clears the selections (a chosen custom text stays chosen).
    pub(super) fn change_question_type(&mut self) {
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
}
