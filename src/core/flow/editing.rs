//! Editors (`protocol/behaviour.md` §5): opening one pre-filled with its target's saved text,
//! the keys and text that go to it, its `@` completion list, saving and closing it, and the
//! limits on what an editor and a flow hold.
//!
//! Editors offer `@` file completion (see [`crate::core::FileIndex`]) once the shell has handed the
//! flow a file index with [`Flow::set_file_index`]. While an editor's completion list is open,
//! the keys of the submit and next-tab actions accept the highlighted entry, the keys of up
//! and down move the highlight (wrapping), and the keys of close close the list (a second
//! press closes the editor); a key that is also bound to an editing action keeps editing.

use crate::core::completion::Completion;
use crate::core::editor::{Edit, TextEditor};
use crate::core::key::{Key, KeyCode};
use crate::core::keymap::{Action, ActionSet, Context};
use crate::core::model::Answer;
use crate::core::model::QuestionType;

use super::{EditorTarget, Flow, FlowError, Focus, OpenEditor, ROW_WINDOW};

/// What an editor key means once the keymap has resolved it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EditorCommand {
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
    pub(super) fn of(action: Action) -> Option<EditorCommand> {
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

impl Flow {
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

    /// Accepts the highlighted entry of the open completion list, as its accept keys do.
    pub(super) fn accept_completion(&mut self) -> Result<(), FlowError> {
        self.press_list(ListCommand::Accept)
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
    pub(super) fn press_editor(
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
                if saved {
                    self.keep_custom_editor_open();
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
    pub(super) fn open_editor(&mut self, target: EditorTarget) {
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
    pub(super) fn close_editor(&mut self) {
        self.completion = Completion::default();
        if let Some(editor) = self.editor.take() {
            self.spare_text = editor.text.into_buffer();
        }
    }

    /// Recomputes the completion list after the open editor's text or cursor changed.
    pub(super) fn refresh_completion(&mut self) {
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
    pub(super) fn save_editor(&mut self, trim: bool) -> Result<bool, FlowError> {
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
    pub(super) fn check_text(&self, question: usize, text: &str) -> Result<(), String> {
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
    pub(super) fn check_stored(&self, removed: usize, added: usize) -> Result<(), FlowError> {
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
    pub(super) fn store_custom(&mut self, question: usize, text: &str) {
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
}
