//! What always holds of a flow: [`Flow::check_invariants`], checked after every operation
//! by the property tests and whole before a restored flow exists.

use crate::core::filter::{FILTER_MIN_OPTIONS, RowFilter};
use crate::core::keymap::{MAX_SEQUENCE, SequenceMatch};
use crate::core::model::{Outcome, QuestionType};
use crate::core::text::quoted;

use super::{EditorTarget, Flow, FlowError, Focus, TypeChange};

impl Flow {
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
}
