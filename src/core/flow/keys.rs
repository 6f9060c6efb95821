//! Keys on a question tab and on the review tab (`protocol/behaviour.md` §3, §4): one press
//! looked up once in the keymap and handed to the focus it is for, key sequences, digits, and
//! the actions of `main` and `review`.

use crate::core::filter::FILTER_MIN_OPTIONS;
use crate::core::key::{Key, KeyCode};
use crate::core::keymap::{Action, ActionSet, Context, SequenceMatch};
use crate::core::model::{CancelReason, Outcome, QuestionType, ReviewAction};

use super::{EditorTarget, Flow, FlowError, Focus, ROW_WINDOW};

impl Flow {
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
        self.keep_custom_editor_open();
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

    /// The context whose key sequences apply in the current focus.
    pub(super) fn sequence_context(&self) -> Context {
        if self.focus() == Focus::Review {
            Context::Review
        } else {
            Context::Main
        }
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
    pub(super) fn press_digit(&mut self, d: usize) {
        let rows = self.rows();
        if d > rows.len() {
            return;
        }
        self.row = rows.row(d - 1);
        let Some(question) = self.current_question() else {
            return;
        };
        if self.spec.is_inert_row(question, self.row) {
            // A stand-in row takes no answer: its digit only moves the cursor onto it.
        } else if self.spec.is_custom_row(question, self.row) {
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
        let on_inert = self.spec.is_inert_row(question, self.row);
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
            // A stand-in row takes no answer and opens no editor: Enter only moves on.
            Action::MainConfirm if on_inert => self.advance(),
            Action::MainToggle | Action::MainOptionNote if on_inert => {}
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

    /// Runs a review action; Submit does nothing while an answer blocks it.
    pub(super) fn run_review_action(&mut self, action: ReviewAction) {
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
}
