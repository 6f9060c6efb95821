//! Rendered screens: the lines a terminal UI draws for a [`View`], at a given width.
//!
//! A screen is a list of lines; a line is a list of [`Span`]s, each a piece of text and one
//! [`Style`] name that a client maps to its own highlight group. The set of styles is fixed:
//!
//! | style | used for |
//! |---|---|
//! | `text` | ordinary text: labels, answers, indentation and padding |
//! | `title` | the flow title, the question prompt, the review heading, box titles, the help overlay's title and headings |
//! | `accent` | the active row's pointer and label, the active tab, the active review action, the focused editor's border, key names in the footer and the help overlay |
//! | `success` | answered markers, selection marks, answers on the review screen, badges such as `(recommended)` |
//! | `muted` | unanswered markers, unselected marks, placeholders, hint descriptions and those of the help overlay, `unanswered` |
//! | `dim` | option descriptions, "more" markers, separators, the review-shortcut notice |
//! | `warning` | notes (question and option notes), the end of a cancelled flow, the other notices |
//! | `selected` | the label of a selected row, the saved custom text, the highlighted entry of a completion list |
//! | `cursor` | the editor's cursor: the grapheme under it, or a space at the end of a line |
//! | `border` | rules and the borders of boxes that do not have focus |
//!
//! Widths are terminal columns (`unicode-width`: East Asian wide characters count two);
//! text is laid out by extended grapheme clusters, which are never split. No line is wider than
//! the width; widths below [`MIN_WIDTH`] render as [`MIN_WIDTH`] and widths above
//! [`MAX_WIDTH`] as [`MAX_WIDTH`]. Text wraps at spaces and around wide characters, with
//! hanging indents; a word longer than a line breaks between graphemes; line breaks in the
//! text are kept. Tabs show as four spaces and other control characters as `�`.
//!
//! A screen is: a rule, the title, the tab bar (`■` answered, `□` unanswered, `✎` has notes,
//! the active tab in brackets), then the question (prompt, detail or plan, rows with a `❯`
//! pointer on the active row, `[x]`/`[ ]` boxes on multi questions and `●`/`○` marks on the
//! others, descriptions, notes, the saved custom text, the open editor as a box with its cursor
//! (long lines wrapped, at most [`MAX_EDITOR_LINES`] shown) and its `@` completion list under
//! it while one is open, the preview of the active row beside the rows from
//! [`SIDE_BY_SIDE_WIDTH`] columns and below them otherwise), or the review screen, or the help
//! overlay in their place (the bindings by context, keys in a column), or the end of the flow;
//! then the notices of the behaviour options, the key hints, the status line of an open flow
//! (the progress when it has more than one question, the keys of a key sequence waiting) and a
//! closing rule. While a `/` filter is open or applied, the line under the prompt shows its
//! text and how many options match. At most [`ROW_WINDOW`] rows show
//! at once, as a window around the active row with `↑ N more` / `↓ N more` markers.

mod editor;
mod footer;
mod header;
mod help;
mod laid;
mod question;
mod review;
mod targets;
mod wrap;

use crate::session::Status;
use crate::view::line::{Line, Style};
use crate::view::model::{Hint, LineTarget, ProgressView, ROW_WINDOW, TabView, View};
use crate::view::recent::Recent;
pub use editor::editor_columns;
use footer::{hints, notices, status_line};
use header::{rule, tab_bar};
use help::help_screen;
use laid::{Laid, margin};
use question::{RowKey, question_screen};
use review::{ending, review_screen};
use targets::Marks;
use wrap::{seg, wrap};

/// Parts of screens as laid out, kept to be reused for equal parts at the same width: the last
/// tab bars, hint lists and status lines (a flow moves between a few tabs and focuses, each with
/// its own hints), and the last rows (a key changes one or two rows of a screen, if any).
#[derive(Debug, Default)]
pub(crate) struct Layouts {
    tabs: PartLayouts<TabView>,
    hints: PartLayouts<Hint>,
    /// The last status lines, by progress, keys waiting and width.
    status: Recent<KeptLines<StatusKey>, REMEMBERED_LAYOUTS>,
    rows: Recent<KeptLines<RowKey>, REMEMBERED_ROWS>,
}

/// How many tab bars and hint lists [`Layouts`] keeps.
const REMEMBERED_LAYOUTS: usize = 4;
/// How many rows [`Layouts`] keeps: the rows of two screens.
const REMEMBERED_ROWS: usize = 2 * ROW_WINDOW;

/// What a status line is laid out from: the progress, the keys waiting and the width.
type StatusKey = (ProgressView, Option<String>, usize);

/// The last layouts of a part of the screen (a tab bar, a hint list), by the part and width.
type PartLayouts<T> = Recent<KeptLines<(Vec<T>, usize)>, REMEMBERED_LAYOUTS>;

/// Lines as laid out, with what they were laid out from.
#[derive(Debug)]
struct KeptLines<K> {
    key: K,
    lines: Vec<Laid>,
}

/// Appends the lines kept in `memo` for a key that `same` accepts, moving them to the front;
/// otherwise the lines `lay_out` appends, then kept at the front of `memo` under `key()`.
/// Without a memo, only lays out.
fn remembered<K, const MAX: usize>(
    out: &mut Vec<Laid>,
    memo: Option<&mut Recent<KeptLines<K>, MAX>>,
    same: impl Fn(&K) -> bool,
    key: impl FnOnce() -> K,
    lay_out: impl FnOnce(&mut Vec<Laid>),
) {
    let Some(memo) = memo else {
        lay_out(out);
        return;
    };
    match memo.find(|kept| same(&kept.key)) {
        Some(kept) => out.extend(kept.lines.iter().cloned()),
        None => {
            let start = out.len();
            lay_out(out);
            let lines = out[start..].to_vec();
            memo.keep(KeptLines { key: key(), lines });
        }
    }
}

/// Appends the lines of `part` at `width` (a tab bar, a hint list), kept in `memo` for an
/// equal part at the same width or laid out by `lay_out` (see [`remembered`]).
fn remembered_part<T: PartialEq + Clone>(
    out: &mut Vec<Laid>,
    memo: Option<&mut PartLayouts<T>>,
    part: &[T],
    width: usize,
    lay_out: impl FnOnce(&mut Vec<Laid>),
) {
    remembered(
        out,
        memo,
        |(kept, at)| *at == width && kept == part,
        || (part.to_vec(), width),
        lay_out,
    );
}

/// The narrowest width rendered; narrower widths render at this one.
pub const MIN_WIDTH: usize = 20;
/// The widest width rendered; wider widths render at this one.
pub const MAX_WIDTH: usize = 1000;
/// From this width on, a preview shows beside the rows instead of below them.
pub const SIDE_BY_SIDE_WIDTH: usize = 90;
/// Most text lines an editor box shows at once.
pub const MAX_EDITOR_LINES: usize = 8;

/// Bytes and spans a line buffer starts with: a line of box-drawing characters at 80
/// columns fits without growing.
const LINE_BYTES: usize = 256;
const LINE_SPANS: usize = 8;

/// Runs of the pieces [`Laid::repeat`] repeats.
const SPACES: &str = "                                ";
const RULE: &str = "────────────────────────────────";

/// Columns before the content of every line.
const MARGIN: usize = 1;
/// Columns of the pointer (`❯ `) and of the row number (`1. `).
const POINTER: usize = 2;
const NUMBER: usize = 3;
/// Indent of a box under a row.
const BOX_INDENT: usize = MARGIN + POINTER;
/// The narrowest room wrapped text is given after its hanging indent.
const MIN_ROOM: usize = 6;

const NUMBERS: [&str; 9] = [
    "1. ", "2. ", "3. ", "4. ", "5. ", "6. ", "7. ", "8. ", "9. ",
];

/// Renders `view` at `width` terminal columns.
pub fn render(view: &View, width: usize) -> Vec<Line> {
    screen(view, width, None).0.map(Laid::into_line).collect()
}

/// Renders `view` at `width` terminal columns, with where a click on the lines acts (the
/// view's `lineTargets`).
pub fn render_targeted(view: &View, width: usize) -> (Vec<Line>, Vec<LineTarget>) {
    let (lines, targets) = screen(view, width, None);
    (lines.map(Laid::into_line).collect(), targets)
}

/// Renders `view` as [`render_targeted`] does, reusing and keeping layouts in `layouts`.
pub(crate) fn render_with(
    view: &View,
    width: usize,
    layouts: &mut Layouts,
) -> (Vec<Line>, Vec<LineTarget>) {
    let (lines, targets) = screen(view, width, Some(layouts));
    (lines.map(Laid::into_line).collect(), targets)
}

/// Renders `view`, reusing the tab bar and hint lines of `layouts` when they are of the same
/// tabs or hints at the same width, and leaving this screen's there; with the targets of its
/// lines.
fn screen(
    view: &View,
    width: usize,
    mut layouts: Option<&mut Layouts>,
) -> (std::vec::IntoIter<Laid>, Vec<LineTarget>) {
    let width = width.clamp(MIN_WIDTH, MAX_WIDTH);
    let mut out: Vec<Laid> = Vec::with_capacity(40);
    let mut marks = Marks::new(view.activatable.as_ref());
    rule(&mut out, width);
    if let Some(title) = &view.title {
        wrap(
            &mut out,
            margin(),
            MARGIN,
            &[seg(title, Style::Title)],
            width,
        );
    }
    if let Some(requester) = &view.requester {
        wrap(
            &mut out,
            margin(),
            MARGIN,
            &[
                seg("Requested by ", Style::Muted),
                seg(requester, Style::Accent),
            ],
            width,
        );
    }
    let tab_memo = layouts.as_deref_mut().map(|layouts| &mut layouts.tabs);
    let tabs_start = out.len();
    remembered_part(&mut out, tab_memo, &view.tabs, width, |out| {
        tab_bar(out, &view.tabs, width)
    });
    if marks.offer.tabs {
        marks.tabs(&out[tabs_start..], tabs_start, &view.tabs, width);
    }
    out.push(Laid::default());
    if view.status == Status::Done {
        ending(&mut out, view.outcome, view.cancel_reason, width);
    } else if let Some(help) = &view.help {
        help_screen(&mut out, help, width);
    } else if let Some(question) = &view.question {
        let row_memo = layouts.as_deref_mut().map(|layouts| &mut layouts.rows);
        question_screen(
            &mut out,
            question,
            view.editor.as_ref(),
            view.filter.as_ref(),
            width,
            row_memo,
            &mut marks,
        );
    } else if let Some(review) = &view.review {
        review_screen(&mut out, review, width, &mut marks);
    }
    if !view.notices.is_empty() {
        notices(&mut out, &view.notices, width);
    }
    if !view.hints.is_empty() {
        out.push(Laid::default());
        let hint_memo = layouts.as_deref_mut().map(|layouts| &mut layouts.hints);
        remembered_part(&mut out, hint_memo, &view.hints, width, |out| {
            hints(out, &view.hints, width)
        });
    }
    if view.status == Status::Open {
        let pending = view.pending_keys.as_deref();
        remembered(
            &mut out,
            layouts.map(|layouts| &mut layouts.status),
            |(progress, keys, at)| {
                *at == width && *progress == view.progress && keys.as_deref() == pending
            },
            || (view.progress, view.pending_keys.clone(), width),
            |out| status_line(out, view.progress, pending, width),
        );
    }
    rule(&mut out, width);
    (out.into_iter(), marks.list)
}

/// The text of `lines`, one line each (trailing spaces removed), every line ending in `\n`.
pub fn plain<'a>(lines: impl IntoIterator<Item = &'a Line>) -> String {
    let mut text = String::new();
    for line in lines {
        let start = text.len();
        text.push_str(line.text());
        let end = start + text[start..].trim_end().len();
        text.truncate(end);
        text.push('\n');
    }
    text
}
