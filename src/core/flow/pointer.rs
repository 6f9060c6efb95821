//! Pointer actions (`protocol/behaviour.md` §11): what a click or a tap on a target of the
//! screen does ([`Flow::activate`]), which targets the screen offers ([`Flow::activatable`]),
//! and an editor's whole text set at once, as a client's own text area holds it
//! ([`Flow::set_draft`]).
//!
//! A target does what the keys that reach it do: a row what its digit does (a single-choice
//! row is chosen and the flow moves on as `Enter` does, a multi-choice row toggles, the custom
//! row opens its editor), a review action what `Enter` on it does, a tab what arriving there by
//! `Tab` does. A target the screen does not offer is refused, and the flow is unchanged.

use serde::{Deserialize, Serialize};
use unicode_segmentation::GraphemeCursor;

use crate::core::editor::TextEditor;
use crate::core::filter::FILTER_MIN_OPTIONS;
use crate::core::text::quoted;

use super::{EditorTarget, Flow, FlowError, Focus};

/// An editor a pointer may open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum EditorKind {
    /// The question's custom answer (the custom row's editor).
    Custom,
    /// The question's note.
    QuestionNote,
    /// The note of one option.
    OptionNote,
}

impl EditorKind {
    /// The kind's name, as the protocol spells it.
    pub fn name(self) -> &'static str {
        match self {
            EditorKind::Custom => "custom",
            EditorKind::QuestionNote => "questionNote",
            EditorKind::OptionNote => "optionNote",
        }
    }
}

/// What a click or a tap acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A tab, by its 0-based index among the tabs (the review tab last).
    Tab(usize),
    /// A row of the active question, by its 1-based number (the view's row `index`, the digit
    /// that selects it): among the rows a filter keeps while one is applied.
    Row(usize),
    /// A review action, by its 0-based index.
    Action(usize),
    /// An item of the open completion list, by its 0-based index.
    Completion(usize),
    /// The filter of a long list: `true` opens its editor, `false` clears it.
    Filter(bool),
    /// The help overlay: `true` opens it, `false` closes it.
    Help(bool),
    /// An editor of the active question to open; an option note names its option's value.
    Editor(EditorKind, Option<String>),
}

/// What the screen lets a pointer activate, kind by kind. A flow that has ended offers nothing
/// ([`Flow::activatable`] is `None`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Activatable {
    /// The tabs (`{ tab }`).
    pub tabs: bool,
    /// The rows of the active question (`{ row }`).
    pub rows: bool,
    /// The review's actions (`{ action }`).
    pub actions: bool,
    /// The items of the open completion list (`{ completion }`).
    pub completion: bool,
    /// The filter: opening it where the question is long enough to have one, clearing the one
    /// open or applied (`{ filter }`).
    pub filter: bool,
    /// The help overlay: opening it where the flow has one, closing it while it is open
    /// (`{ help }`).
    pub help: bool,
    /// The editors that may be opened (`{ editor }`); an option note on any option among the
    /// rows.
    pub editors: Vec<EditorKind>,
}

/// The most targets of one kind a view can offer: every target of the kind is refused.
const NOTHING: Activatable = Activatable {
    tabs: false,
    rows: false,
    actions: false,
    completion: false,
    filter: false,
    help: false,
    editors: Vec::new(),
};

impl Flow {
    /// What the screen lets a pointer activate now; `None` once the flow has ended.
    pub fn activatable(&self) -> Option<Activatable> {
        self.outcome.is_none().then(|| self.marks())
    }

    fn marks(&self) -> Activatable {
        if self.prompts.help {
            return Activatable {
                help: true,
                ..NOTHING
            };
        }
        let help_offered = self.spec.behaviour.help_overlay;
        match self.focus() {
            Focus::Review => Activatable {
                tabs: true,
                actions: true,
                help: help_offered,
                ..NOTHING
            },
            Focus::Options | Focus::Filter => {
                let Some(question) = self.current_question() else {
                    return NOTHING;
                };
                let mut editors = Vec::with_capacity(3);
                if self.spec.has_custom_row(question) {
                    editors.push(EditorKind::Custom);
                }
                if self.spec.rules.notes {
                    editors.push(EditorKind::QuestionNote);
                    if self.spec.rules.option_notes && !question.options.is_empty() {
                        editors.push(EditorKind::OptionNote);
                    }
                }
                let filter_text = self.filter.as_ref().is_some_and(|f| !f.text.is_empty());
                Activatable {
                    tabs: true,
                    rows: !self.rows().is_empty(),
                    actions: false,
                    completion: false,
                    filter: self.filter.is_some() || question.options.len() >= FILTER_MIN_OPTIONS,
                    help: help_offered && !(self.focus() == Focus::Filter && filter_text),
                    editors,
                }
            }
            Focus::Input | Focus::Note => {
                // An empty editor lets tabs and rows be reached, as its keys do.
                let empty = self.editor.as_ref().is_none_or(|e| e.text.is_empty());
                Activatable {
                    tabs: empty,
                    rows: empty && !self.rows().is_empty(),
                    completion: self.completion.is_open(),
                    help: help_offered && empty,
                    ..NOTHING
                }
            }
        }
    }

    /// Acts on `target` as a click or a tap on it: what the keys that reach it do. A target the
    /// screen does not offer ([`Flow::activatable`]) is refused with the reason, and nothing
    /// changes.
    pub fn activate(&mut self, target: &Target) -> Result<(), FlowError> {
        self.ensure_open()?;
        let marks = self.marks();
        self.check_target(target, &marks)?;
        // As a key of the question or review tab does: a key sequence begun, a question-type
        // switch waiting for its confirmation and an armed review digit are forgotten.
        self.pending.clear();
        self.drop_type_confirmation();
        self.prompts.armed = None;
        match *target {
            Target::Tab(tab) => {
                if self.leave_empty_editor()? && tab != self.tab {
                    self.enter_tab(tab);
                }
            }
            Target::Row(number) => {
                if self.leave_empty_editor()? {
                    self.accept_filter();
                    self.press_digit(number);
                }
            }
            Target::Action(index) => {
                self.review_action = index;
                let action = self.review_actions()[index];
                self.run_review_action(action);
            }
            Target::Completion(index) => {
                self.completion.select(index);
                self.accept_completion()?;
            }
            Target::Filter(true) => self.open_filter(),
            Target::Filter(false) => self.filter = None,
            Target::Help(open) => self.prompts.help = open,
            Target::Editor(kind, ref option) => {
                self.accept_filter();
                let question = &self.spec.questions[self.tab];
                match kind {
                    EditorKind::Custom => {
                        self.row = question.options.len();
                        self.open_editor(EditorTarget::Custom);
                    }
                    EditorKind::QuestionNote => self.open_editor(EditorTarget::QuestionNote),
                    EditorKind::OptionNote => {
                        let value = option.as_deref().unwrap_or_default();
                        let option = question
                            .options
                            .iter()
                            .position(|o| o.value == value)
                            .unwrap_or_default();
                        self.row = option;
                        self.open_editor(EditorTarget::OptionNote { option });
                    }
                }
            }
        }
        self.keep_custom_editor_open();
        Ok(())
    }

    /// Refuses a target the screen does not offer, saying why.
    fn check_target(&self, target: &Target, marks: &Activatable) -> Result<(), FlowError> {
        let refuse = |why: String| Err(FlowError::NotOnScreen(why));
        if self.prompts.help && *target != Target::Help(false) {
            return refuse("the help overlay is open: only {\"help\": false} closes it".into());
        }
        let focus = match self.focus() {
            Focus::Options => "the question's rows",
            Focus::Filter => "the filter editor",
            Focus::Review => "the review tab",
            Focus::Input => "the answer editor",
            Focus::Note => "a note editor",
        };
        // Why rows and tabs are not offered: an editor holding text, or what the screen shows.
        let why = if self.editor.is_some() {
            format!("while {focus} holds text")
        } else {
            format!("on {focus}")
        };
        match target {
            Target::Tab(tab) => {
                let count = self.spec.questions.len() + 1;
                if *tab >= count {
                    return refuse(format!(
                        "tab {tab} is not on the screen: the flow has {count} tabs (0 to {})",
                        count - 1
                    ));
                }
                if !marks.tabs {
                    return refuse(format!("tabs cannot be reached {why}"));
                }
            }
            Target::Row(number) => {
                if !marks.rows {
                    return refuse(format!(
                        "row {number} is not on the screen: no row can be reached {why}"
                    ));
                }
                let count = self.rows().len();
                if *number == 0 || *number > count {
                    return refuse(format!(
                        "row {number} is not on the screen: the rows are numbered 1 to {count}"
                    ));
                }
            }
            Target::Action(index) => {
                if !marks.actions {
                    return refuse(format!(
                        "action {index} is not on the screen, which shows {focus} (actions are on the review tab)"
                    ));
                }
                let count = self.review_actions().len();
                if *index >= count {
                    return refuse(format!(
                        "action {index} is not on the screen: the review has {count} actions (0 to {})",
                        count - 1
                    ));
                }
            }
            Target::Completion(index) => {
                let count = self.completion().map_or(0, |list| list.items.len());
                if count == 0 {
                    return refuse(format!(
                        "completion item {index} is not on the screen: no completion list is open"
                    ));
                }
                if *index >= count {
                    return refuse(format!(
                        "completion item {index} is not on the screen: the list has {count} items (0 to {})",
                        count - 1
                    ));
                }
            }
            Target::Filter(open) => {
                let few = self
                    .current_question()
                    .is_some_and(|q| q.options.len() < FILTER_MIN_OPTIONS);
                if !marks.filter && few && matches!(self.focus(), Focus::Options) {
                    return refuse(format!(
                        "no filter is on the screen: this question has too few options to filter (a filter needs {FILTER_MIN_OPTIONS})"
                    ));
                }
                if !marks.filter {
                    return refuse(format!("no filter is on the screen, which shows {focus}"));
                }
                if !open && self.filter.is_none() {
                    return refuse("no filter is open or applied to clear".into());
                }
            }
            Target::Help(open) => {
                if *open == self.prompts.help {
                    return refuse(format!(
                        "the help overlay is already {}",
                        if *open { "open" } else { "closed" }
                    ));
                }
                if !marks.help {
                    return refuse(if self.spec.behaviour.help_overlay {
                        format!("the help overlay cannot open while {focus} holds text")
                    } else {
                        "this flow has no help overlay (its behaviour options leave it out)".into()
                    });
                }
            }
            Target::Editor(kind, option) => {
                let name = kind.name();
                if !marks.editors.contains(kind) {
                    return refuse(match self.focus() {
                        Focus::Options | Focus::Filter => {
                            format!("the {name} editor is not part of this question")
                        }
                        _ => format!(
                            "the {name} editor cannot open from the screen, which shows {focus}"
                        ),
                    });
                }
                match (kind, option) {
                    (EditorKind::OptionNote, None) => {
                        return refuse(
                            "an optionNote editor names its option's value (option)".into(),
                        );
                    }
                    (EditorKind::OptionNote, Some(value)) => {
                        let question = &self.spec.questions[self.tab];
                        let Some(at) = question.options.iter().position(|o| o.value == *value)
                        else {
                            return refuse(format!(
                                "question {} has no option with value {}",
                                quoted(&question.id),
                                quoted(value)
                            ));
                        };
                        if self.rows().position(at).is_none() {
                            return refuse(format!(
                                "option {} is not on the screen: the filter hides it",
                                quoted(value)
                            ));
                        }
                    }
                    (_, Some(_)) => {
                        return refuse(format!("the {name} editor names no option"));
                    }
                    (_, None) => {}
                }
            }
        }
        Ok(())
    }

    /// Before a tab or a row is reached from an empty editor: the editor is saved as the keys
    /// that move from an empty editor save it. `false` when the flow's dialect refused it.
    fn leave_empty_editor(&mut self) -> Result<bool, FlowError> {
        if self.editor.is_none() {
            return Ok(true);
        }
        self.save_editor(false)
    }

    /// A filter being typed stops being typed, as its accept key does (an empty one goes).
    fn accept_filter(&mut self) {
        if let Some(filter) = self.filter.as_mut().filter(|f| f.editing) {
            filter.editing = false;
            if filter.text.is_empty() {
                self.filter = None;
            }
        }
    }

    /// Replaces the open editor's whole text with `text`, normalised as typing normalises it,
    /// the cursor `caret` UTF-16 code units into `text` (as a browser's `selectionEnd` counts),
    /// put back to a grapheme's start; `None` puts it at the end. Refused, changing nothing,
    /// without an open editor, past the text limit (when the text grows) and for a caret past
    /// the text's end.
    pub fn set_draft(&mut self, text: &str, caret: Option<usize>) -> Result<(), FlowError> {
        self.ensure_open()?;
        let Some(editor) = self.editor.as_ref() else {
            return Err(FlowError::NoEditor);
        };
        let units = text.encode_utf16().count();
        if caret.is_some_and(|c| c > units) {
            return Err(FlowError::Caret {
                caret: caret.unwrap_or_default(),
                length: units,
            });
        }
        let normalised = TextEditor::with_text(text);
        let held = editor.text.text().len();
        let length = normalised.text().len();
        if length > held && length > self.text_limit {
            return Err(FlowError::TextLimit {
                would_hold: length,
                limit: self.text_limit,
            });
        }
        let cursor = match caret {
            None => length,
            Some(caret) => grapheme_start(
                normalised.text(),
                byte_at_utf16(text, caret, normalised.text()),
            ),
        };
        let replaced = TextEditor::from_parts(normalised.text(), cursor).unwrap_or(normalised);
        if let Some(editor) = self.editor.as_mut() {
            if editor.text != replaced {
                editor.refusal = None;
            }
            editor.text = replaced;
        }
        self.refresh_completion();
        Ok(())
    }
}

/// The byte offset in `normalised` of the place `caret` UTF-16 code units into `given`: the same
/// place when normalising changed nothing; otherwise as far into `normalised`, clamped.
fn byte_at_utf16(given: &str, caret: usize, normalised: &str) -> usize {
    let text = if given == normalised {
        given
    } else {
        normalised
    };
    let mut units = 0;
    for (at, c) in text.char_indices() {
        if units >= caret {
            return at;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// The start of the grapheme of `text` that byte `at` falls in (`at` when it is a start).
fn grapheme_start(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut cursor = GraphemeCursor::new(at, text.len(), true);
    match cursor.is_boundary(text, 0) {
        Ok(true) => at,
        _ => cursor.prev_boundary(text, 0).ok().flatten().unwrap_or(0),
    }
}
