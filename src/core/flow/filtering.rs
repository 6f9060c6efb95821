//! The `/` filter of a long list (`protocol/behaviour.md` §10): opening it, its editor's keys,
//! and the rows it keeps, found once per change of its text.

use crate::core::editor::{Edit, TextEditor};
use crate::core::filter::RowFilter;
use crate::core::key::{Key, KeyCode};
use crate::core::keymap::{Action, ActionSet, Context};

use super::editing::EditorCommand;
use super::{Flow, FlowError};

impl Flow {
    /// Opens the filter editor of the active question: a new filter, or the one applied,
    /// with the cursor at the end of its text.
    pub(super) fn open_filter(&mut self) {
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
    pub(super) fn press_filter(&mut self, key: Key, bound: ActionSet) -> Result<(), FlowError> {
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
    pub(super) fn type_filter(&mut self, text: &str) -> Result<(), FlowError> {
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
            None if spec.has_last_row(question) => question.options.len(),
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
}
