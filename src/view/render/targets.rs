//! Where a click on the rendered lines acts: the targets the parts of the screen are laid out
//! for, gathered while the screen is laid out ([`Marks`]), and the columns of each tab in the
//! tab bar as it was wrapped.

use std::ops::Range;

use crate::core::{Activatable, EditorKind};
use crate::view::line::Style;
use crate::view::model::{LineTarget, TabKind, TabView, TargetView};

use super::MARGIN;
use super::laid::Laid;
use super::wrap::{Grapheme, glued, graphemes};

/// The kinds of targets the screen offers, as [`Activatable`] says.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Offer {
    pub(super) tabs: bool,
    pub(super) rows: bool,
    pub(super) actions: bool,
    pub(super) completion: bool,
    pub(super) filter: bool,
    pub(super) question_note: bool,
}

impl Offer {
    /// What `activatable` offers; nothing once the flow has ended (`None`).
    fn of(activatable: Option<&Activatable>) -> Self {
        activatable.map_or_else(Offer::default, |a| Offer {
            tabs: a.tabs,
            rows: a.rows,
            actions: a.actions,
            completion: a.completion,
            filter: a.filter,
            question_note: a.editors.contains(&EditorKind::QuestionNote),
        })
    }
}

/// The line targets of a screen being laid out, with the kinds of targets it offers.
#[derive(Debug, Default)]
pub(super) struct Marks {
    pub(super) offer: Offer,
    pub(super) list: Vec<LineTarget>,
    /// The screen's line of the first of the lines being laid out, when they are laid out
    /// apart (the rows beside a preview); 0 otherwise.
    pub(super) offset: usize,
}

impl Marks {
    /// No targets yet, on a screen that offers what `activatable` says.
    pub(super) fn new(activatable: Option<&Activatable>) -> Self {
        Marks {
            offer: Offer::of(activatable),
            list: Vec::with_capacity(16),
            offset: 0,
        }
    }

    /// `target` on the columns `columns` of each line of `lines` (counted from `offset`).
    pub(super) fn lines(&mut self, lines: Range<usize>, columns: Range<usize>, target: TargetView) {
        for line in lines {
            self.list.push(LineTarget {
                line: self.offset + line,
                start: columns.start,
                end: columns.end,
                target: target.clone(),
            });
        }
    }

    /// The tabs of the tab bar laid out as `lines` (the screen's lines from `first`), each on
    /// the columns its text takes; a tab broken across lines has a part on each.
    pub(super) fn tabs(&mut self, lines: &[Laid], first: usize, tabs: &[TabView], width: usize) {
        let mut walk = Walk {
            lines,
            line: 0,
            byte: 0,
            column: 0,
        };
        walk.start_line();
        for (i, tab) in tabs.iter().enumerate() {
            if i > 0 && !walk.at_end() && walk.rest().starts_with(' ') {
                // The space between two tabs; none is drawn where a line breaks.
                walk.byte += 1;
                walk.column += 1;
            }
            let mut part = (walk.line, walk.column);
            let gs = tab_graphemes(tab);
            // A tab wider than a line breaks at its spaces, which are not drawn where it breaks.
            let overlong = gs.iter().map(|g| g.width).sum::<usize>() > width - MARGIN;
            for g in &gs {
                let pieces: Vec<(&str, usize)> = if g.run {
                    g.text
                        .char_indices()
                        .map(|(at, c)| (&g.text[at..at + c.len_utf8()], 1))
                        .collect()
                } else {
                    vec![(g.text, g.width)]
                };
                for (text, width) in pieces {
                    if text.is_empty() {
                        continue;
                    }
                    if walk.at_end() {
                        if g.soft && overlong {
                            // A glued space where the tab breaks is not drawn.
                            continue;
                        }
                        self.tab_part(first, part, &walk, i);
                        walk.line += 1;
                        if walk.line >= lines.len() {
                            return;
                        }
                        walk.start_line();
                        part = (walk.line, walk.column);
                    }
                    if walk.rest().starts_with(text) {
                        walk.byte += text.len();
                        walk.column += width;
                    } else if g.soft && overlong {
                        continue;
                    } else {
                        // Drawn as one replacement character (a grapheme wider than a line).
                        let c = walk.rest().chars().next().map_or(1, char::len_utf8);
                        walk.byte += c;
                        walk.column += 1;
                    }
                }
            }
            self.tab_part(first, part, &walk, i);
        }
    }

    /// The part of tab `tab` from `start` (line, column) to where `walk` stands, when it holds
    /// anything.
    fn tab_part(&mut self, first: usize, start: (usize, usize), walk: &Walk, tab: usize) {
        if walk.line == start.0 && walk.column > start.1 {
            self.list.push(LineTarget {
                line: first + start.0,
                start: start.1,
                end: walk.column,
                target: TargetView::tab(tab),
            });
        }
    }
}

/// The graphemes of a tab as [`super::header::tab_bar`] lays them out (their styles aside).
fn tab_graphemes(tab: &TabView) -> Vec<Grapheme<'_>> {
    let open = if tab.active { "[" } else { " " };
    let close = if tab.active { "]" } else { " " };
    let marker = match (tab.kind, tab.answered) {
        (TabKind::Question, true) => "■",
        (TabKind::Question, false) => "□",
        (TabKind::Review, _) => "✓",
    };
    let mut segs = vec![
        glued(open, Style::Text),
        glued(marker, Style::Text),
        glued(" ", Style::Text),
        glued(&tab.label, Style::Text),
    ];
    if tab.has_notes {
        segs.push(glued("✎", Style::Text));
    }
    segs.push(glued(close, Style::Text));
    graphemes(&segs)
}

/// A place in the tab bar's lines: a line, a byte of its text and the column it starts.
struct Walk<'a> {
    lines: &'a [Laid],
    line: usize,
    byte: usize,
    column: usize,
}

impl Walk<'_> {
    /// The text of the line from here.
    fn rest(&self) -> &str {
        self.lines
            .get(self.line)
            .and_then(|l| l.text.get(self.byte..))
            .unwrap_or("")
    }

    fn at_end(&self) -> bool {
        self.rest().is_empty()
    }

    /// Stands past the indent the line starts with (the margin, or the hanging indent of a
    /// line the bar wraps to: both one space).
    fn start_line(&mut self) {
        self.byte = 0;
        self.column = 0;
        if self.rest().starts_with(' ') {
            self.byte = 1;
            self.column = 1;
        }
    }
}
