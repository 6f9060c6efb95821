//! Direct operations: what a client sets without keys (a custom answer, a note, every answer
//! at once). Each validates first and changes nothing when it refuses.

use crate::core::model::{Answer, Outcome, QuestionType};
use crate::core::text::quoted;

use super::{EditorTarget, Flow, FlowError};

impl Flow {
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
}
