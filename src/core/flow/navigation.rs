//! Moving about a flow: the rows keys move among ([`Rows`]), tab and row moves, the page
//! keys and first/last, advancing, and what arriving somewhere does (the custom row's editor
//! opens by itself; the review tab may submit).

use crate::core::filter::RowFilter;

use super::{EditorTarget, Flow};

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
    /// The row after the options (the custom row, or an inert stand-in row), when the
    /// question has one.
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

impl Flow {
    /// The rows keys move among on the active question tab (none on the review tab).
    pub fn rows(&self) -> Rows<'_> {
        match self.current_question() {
            Some(q) => Rows {
                count: self.spec.row_count(q),
                matches: self.filter.as_ref().map(RowFilter::matches),
                custom: self.spec.has_last_row(q).then_some(q.options.len()),
            },
            None => Rows {
                count: 0,
                matches: None,
                custom: None,
            },
        }
    }

    /// Tab keys: next or previous tab, wrapping; row and review action reset.
    pub(super) fn move_tab(&mut self, forward: bool) {
        let count = self.spec.questions.len() + 1;
        let tab = if forward {
            (self.tab + 1) % count
        } else {
            (self.tab + count - 1) % count
        };
        self.enter_tab(tab);
    }

    /// Up/Down on a question tab, clamped; landing on the custom row opens its editor.
    pub(super) fn move_row(&mut self, down: bool) {
        let to = |at: usize, _| if down { at + 1 } else { at.saturating_sub(1) };
        if self.move_among(to) {
            self.after_move();
        }
    }

    /// The page keys and first/last: a jump to position `to(position, count)`, clamped. A jump
    /// does not open the custom row's editor by itself (so that `end` then `home` comes back
    /// up): `enter` or `space` there does.
    pub(super) fn jump(&mut self, to: impl FnOnce(usize, usize) -> usize) {
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
    pub(super) fn advance(&mut self) {
        self.enter_tab((self.tab + 1).min(self.spec.questions.len()));
    }

    /// Makes `tab` active on its opening row ([`Flow::opening_row`]) and first review action;
    /// the notices and the filter of the tab left go with it.
    pub(super) fn enter_tab(&mut self, tab: usize) {
        self.filter = None;
        self.tab = tab;
        self.row = self.opening_row(tab);
        self.review_action = 0;
        self.prompts.dismiss = false;
        self.prompts.type_change = None;
        self.prompts.armed = None;
        self.after_arrival();
    }

    /// After arriving on the active tab: [`Flow::after_move`], unless the tab opened on the
    /// custom row of chosen custom text after its options. That arrival is a jump: the editor
    /// opens with `Enter` (pre-filled, so a second `Enter` keeps the text), and the tab keys
    /// pass through the question as through any other.
    pub(super) fn after_arrival(&mut self) {
        let options = self.current_question().map(|q| q.options.len());
        if options.is_some_and(|n| n > 0 && self.row == n) {
            return;
        }
        self.after_move();
    }

    /// The row tab `tab` opens on: its first, or under [`crate::core::Rules::cursor_on_answer`]
    /// (unless the behaviour overrides it) the row of the answer it holds: the first selected
    /// option from the top, else the custom row of chosen custom text. `Enter` there keeps the
    /// answer: it selects the option again, or opens the custom text to save it again (the
    /// editor of a question with options does not open on arrival: that landing is a jump).
    pub fn opening_row(&self, tab: usize) -> usize {
        let spec = &*self.spec;
        let (Some(q), Some(answer)) = (spec.questions.get(tab), self.answers.get(tab)) else {
            return 0;
        };
        if !spec.rules.opens_on_answer(&spec.behaviour) {
            return 0;
        }
        match answer.selected.iter().min() {
            Some(&row) => row,
            None if answer.chosen_custom().is_some() && spec.has_custom_row(q) => q.options.len(),
            None => 0,
        }
    }

    /// After a move: landing on a custom row opens that question's input editor (auto-open;
    /// under [`crate::core::Behaviour::auto_open_only_without_text`] only while it has no saved
    /// custom text); arriving on the review tab with every question answered and no note
    /// submits under [`crate::core::Behaviour::auto_submit_when_answered_without_notes`].
    pub(super) fn after_move(&mut self) {
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

    /// Under [`crate::core::Behaviour::auto_open_only_without_text`] (the pi-0.9 profile):
    /// while the cursor rests on a custom row without saved text and no editor is open, that
    /// row's editor is open. pi-ask 0.9.0 restores it after every key that changes its state
    /// (a digit, a move, Enter in the editor) but the one that closed the editor, so a row left
    /// with `Esc` stays closed until the next key.
    pub(super) fn keep_custom_editor_open(&mut self) {
        if !self.spec.behaviour.auto_open_only_without_text
            || self.outcome.is_some()
            || self.editor.is_some()
            || self.filter.is_some()
            || !self.pending.is_empty()
        {
            return;
        }
        let spec = &*self.spec;
        if let Some(q) = spec.questions.get(self.tab)
            && self.row == q.options.len()
            && spec.has_custom_row(q)
            && self.answers[self.tab].custom_text.is_none()
        {
            self.open_editor(EditorTarget::Custom);
        }
    }
}
