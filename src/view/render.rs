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

use std::borrow::Cow;

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::core::{CancelReason, QuestionType, TAB_WIDTH, display_width, is_hangul, visual_lines};
use crate::session::Status;
use crate::view::line::{Line, Style};
use crate::view::model::{
    CompletionView, EditorView, FilterView, HelpView, Hint, NoticeKind, NoticeView, OutcomeView,
    ProgressView, QuestionView, ROW_WINDOW, ReviewView, RowView, TabKind, TabView, View,
};
use crate::view::recent::Recent;

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
    screen(view, width, None).map(Laid::into_line).collect()
}

/// Renders `view` as [`render`] does, reusing and keeping layouts in `layouts`.
pub(crate) fn render_with(
    view: &View,
    width: usize,
    layouts: &mut Layouts,
) -> impl ExactSizeIterator<Item = Line> {
    screen(view, width, Some(layouts)).map(Laid::into_line)
}

/// Renders `view`, reusing the tab bar and hint lines of `layouts` when they are of the same
/// tabs or hints at the same width, and leaving this screen's there.
fn screen(
    view: &View,
    width: usize,
    mut layouts: Option<&mut Layouts>,
) -> std::vec::IntoIter<Laid> {
    let width = width.clamp(MIN_WIDTH, MAX_WIDTH);
    let mut out: Vec<Laid> = Vec::with_capacity(40);
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
    remembered_part(&mut out, tab_memo, &view.tabs, width, |out| {
        tab_bar(out, &view.tabs, width)
    });
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
        );
    } else if let Some(review) = &view.review {
        review_screen(&mut out, review, width);
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
    out.into_iter()
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

/// A line being built: its text in one buffer, the style of each span with where the span
/// ends in it, and its width.
#[derive(Debug, Clone, Default)]
struct Laid {
    text: String,
    spans: Vec<(Style, usize)>,
    width: usize,
}

impl Laid {
    /// Appends `text` of `width` columns, merging it into the last span when the style matches.
    fn push(&mut self, text: &str, style: Style, width: usize) {
        if text.is_empty() {
            return;
        }
        self.reserve(text.len());
        self.text.push_str(text);
        self.close(style);
        self.width += width;
    }

    /// Makes room for `bytes` more bytes, allocating room for a whole line at the first text.
    fn reserve(&mut self, bytes: usize) {
        if self.text.capacity() == 0 {
            self.text = String::with_capacity(bytes.max(LINE_BYTES));
            self.spans = Vec::with_capacity(LINE_SPANS);
        } else {
            self.text.reserve(bytes);
        }
    }

    /// Ends the last span at the end of the text, or starts a span of `style` there.
    fn close(&mut self, style: Style) {
        let end = self.text.len();
        match self.spans.last_mut() {
            Some((last, at)) if *last == style => *at = end,
            _ => self.spans.push((style, end)),
        }
    }

    /// Appends text whose width is measured here (counted when it is plain).
    fn text(&mut self, text: &str, style: Style) {
        let width = plain_columns(text).unwrap_or_else(|| text.width());
        self.push(text, style, width);
    }

    /// Appends `n` spaces.
    fn spaces(&mut self, n: usize) {
        self.repeat(" ", n, Style::Text);
    }

    /// Appends `piece` (one column wide, a space or `─`) `n` times.
    fn repeat(&mut self, piece: &str, n: usize, style: Style) {
        if n == 0 {
            return;
        }
        // Whole runs of the piece are copied at once.
        let run = if piece == " " { SPACES } else { RULE };
        debug_assert!(run.starts_with(piece));
        let mut left = n * piece.len();
        self.reserve(left);
        while left > 0 {
            let take = left.min(run.len());
            self.text.push_str(&run[..take]);
            left -= take;
        }
        self.close(style);
        self.width += n;
    }

    /// Appends another line.
    fn append(&mut self, other: Laid) {
        let base = self.text.len();
        self.reserve(other.text.len());
        self.text.push_str(&other.text);
        for (style, end) in other.spans {
            match self.spans.last_mut() {
                Some((last, at)) if *last == style => *at = base + end,
                _ => self.spans.push((style, base + end)),
            }
        }
        self.width += other.width;
    }

    /// Whether a span of the line has `style`.
    fn has(&self, style: Style) -> bool {
        self.spans.iter().any(|&(s, _)| s == style)
    }

    /// The finished line.
    fn into_line(self) -> Line {
        Line::from_parts(self.text, self.spans)
    }
}

/// A line holding `n` spaces.
fn indent(n: usize) -> Laid {
    let mut line = Laid::default();
    line.spaces(n);
    line
}

/// A line holding the left margin.
fn margin() -> Laid {
    indent(MARGIN)
}

/// A piece of text to wrap.
#[derive(Debug, Clone, Copy)]
struct Seg<'a> {
    text: &'a str,
    style: Style,
    /// Its spaces do not break (a key hint, a tab).
    glue: bool,
}

fn seg(text: &str, style: Style) -> Seg<'_> {
    Seg {
        text,
        style,
        glue: false,
    }
}

fn glued(text: &str, style: Style) -> Seg<'_> {
    Seg {
        text,
        style,
        glue: true,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Part of a word.
    Word,
    /// A breakable space.
    Space,
    /// A line break in the text.
    Break,
}

/// One grapheme ready for layout, or a run of printable ASCII graphemes laid out together.
#[derive(Debug, Clone, Copy)]
struct Grapheme<'a> {
    text: &'a str,
    style: Style,
    width: usize,
    kind: Kind,
    /// A line may break before and after it (a wide character of a script written without
    /// spaces between words).
    loose: bool,
    /// A glued space: it breaks only when its word is longer than a line.
    soft: bool,
    /// A run of one-column graphemes (printable ASCII other than space) inside one word,
    /// placed whole when it fits and one grapheme at a time when it does not.
    run: bool,
}

/// Splits segments into graphemes, mapping tabs and control characters to what is drawn.
fn graphemes<'a>(segs: &[Seg<'a>]) -> Vec<Grapheme<'a>> {
    let mut out = Vec::with_capacity(segs.iter().map(|s| s.text.len()).sum());
    for s in segs {
        if s.text.chars().all(|c| c.is_ascii() || plain_char(c)) {
            // Every character here is a grapheme of its own, except `\r\n`; runs of plain
            // characters are one piece of a word.
            let mut rest = s.text;
            while let Some(c) = rest.chars().next() {
                let (mut run_bytes, mut run_chars) = (0, 0);
                for c in rest.chars().take_while(|&c| plain_char(c)) {
                    run_bytes += c.len_utf8();
                    run_chars += 1;
                }
                let n = if run_chars > 1 {
                    out.push(Grapheme {
                        text: &rest[..run_bytes],
                        style: s.style,
                        width: run_chars,
                        kind: Kind::Word,
                        loose: false,
                        soft: false,
                        run: true,
                    });
                    run_bytes
                } else {
                    let n = if rest.starts_with("\r\n") {
                        2
                    } else {
                        c.len_utf8()
                    };
                    push_grapheme(&mut out, s, &rest[..n]);
                    n
                };
                rest = &rest[n..];
            }
        } else {
            for g in s.text.graphemes(true) {
                push_grapheme(&mut out, s, g);
            }
        }
    }
    out
}

/// A character that is one column wide and a grapheme of its own beside any other such
/// character or any ASCII character: printable ASCII other than space, and the Latin-1 letters
/// and the punctuation, arrows, box drawing, shapes and dingbats that screens use most.
fn plain_char(c: char) -> bool {
    match c {
        '!'..='~' => true,
        '\u{A1}'..='\u{FF}'
        | '\u{2010}'..='\u{2027}'
        | '\u{2190}'..='\u{21FF}'
        | '\u{2500}'..='\u{25FF}'
        | '\u{2700}'..='\u{27BF}' => c != '\u{AD}' && c.width() == Some(1),
        _ => false,
    }
}

/// Classifies one grapheme of `s` for layout.
fn push_grapheme<'a>(out: &mut Vec<Grapheme<'a>>, s: &Seg<'a>, g: &'a str) {
    let keep = s.glue || s.style == Style::Cursor;
    let (text, width, kind) = match g {
        "\n" | "\r\n" | "\r" if !keep => ("", 0, Kind::Break),
        " " => (" ", 1, Kind::Space),
        "\t" => ("    ", 4, Kind::Space),
        _ if g.chars().any(char::is_control) => ("\u{FFFD}", 1, Kind::Word),
        _ => (g, g.width(), Kind::Word),
    };
    let soft = s.glue && kind == Kind::Space;
    let kind = if keep && kind == Kind::Space {
        Kind::Word
    } else {
        kind
    };
    out.push(Grapheme {
        text,
        style: s.style,
        width,
        kind,
        loose: width >= 2 && !keep && !is_hangul(g),
        soft,
        run: false,
    });
}

/// Greedy line filling of one paragraph.
struct Wrapper<'o> {
    out: &'o mut Vec<Laid>,
    width: usize,
    indent: usize,
    line: Laid,
    /// The line holds text beyond its prefix or indent.
    content: bool,
    /// The line starts a line of the text (its leading spaces are kept).
    hard_start: bool,
}

impl Wrapper<'_> {
    fn newline(&mut self, hard: bool) {
        let line = std::mem::replace(&mut self.line, indent(self.indent));
        self.out.push(line);
        self.content = false;
        self.hard_start = hard;
    }

    fn emit(&mut self, g: &Grapheme) {
        if g.run && self.line.width + g.width <= self.width {
            self.line.push(g.text, g.style, g.width);
            self.content = true;
            return;
        }
        if g.run {
            // A run that does not fit goes one grapheme at a time, as any text.
            for (i, c) in g.text.char_indices() {
                self.emit(&Grapheme {
                    text: &g.text[i..i + c.len_utf8()],
                    width: 1,
                    run: false,
                    ..*g
                });
            }
            return;
        }
        if g.width > self.width - self.indent {
            // Wider than any line can hold (a grapheme of several wide parts).
            if self.line.width + 1 > self.width {
                self.newline(false);
            }
            self.line.push("\u{FFFD}", g.style, 1);
        } else {
            if self.line.width + g.width > self.width {
                self.newline(false);
            }
            self.line.push(g.text, g.style, g.width);
        }
        self.content = true;
    }

    /// Places a word and the spaces before it. A glued word longer than a line is placed
    /// piece by piece, breaking at its glued spaces.
    fn place(&mut self, spaces: &[Grapheme], word: &[Grapheme]) {
        let word_width: usize = word.iter().map(|g| g.width).sum();
        if word_width <= self.width - self.indent || !word.iter().any(|g| g.soft) {
            self.place_word(spaces, word, word_width);
            return;
        }
        let mut spaces = spaces;
        let mut rest = word;
        while !rest.is_empty() {
            let lead = rest.iter().take_while(|g| g.soft).count();
            if lead > 0 {
                (spaces, rest) = rest.split_at(lead);
                continue;
            }
            let end = rest.iter().position(|g| g.soft).unwrap_or(rest.len());
            let (piece, tail) = rest.split_at(end);
            self.place_word(spaces, piece, piece.iter().map(|g| g.width).sum());
            spaces = &[];
            rest = tail;
        }
    }

    fn place_word(&mut self, spaces: &[Grapheme], word: &[Grapheme], word_width: usize) {
        let keep_spaces = self.content || self.hard_start;
        let space_width: usize = if keep_spaces {
            spaces.iter().map(|g| g.width).sum()
        } else {
            0
        };
        if self.line.width + space_width + word_width <= self.width {
            if keep_spaces {
                spaces.iter().for_each(|g| self.emit(g));
            }
        } else if self.content {
            // The word starts a new line; if it is longer than a line it breaks there.
            self.newline(false);
        } else if keep_spaces && self.line.width + space_width < self.width {
            spaces.iter().for_each(|g| self.emit(g));
        }
        word.iter().for_each(|g| self.emit(g));
        self.hard_start = false;
    }
}

/// One wrapped item: `marker` at column `at`, then `text`, continued under column `hanging`.
fn marked(
    out: &mut Vec<Laid>,
    at: usize,
    marker: (&str, Style),
    text: (&str, Style),
    hanging: usize,
    width: usize,
) {
    let mut first = indent(at);
    first.text(marker.0, marker.1);
    wrap(out, first, hanging, &[seg(text.0, text.1)], width);
}

/// Wraps `segs` into lines of at most `width` columns: the first line starts with `first`,
/// the others with `hanging` spaces.
fn wrap(out: &mut Vec<Laid>, first: Laid, hanging: usize, segs: &[Seg], width: usize) {
    let first = match fit_plain(first, hanging, segs, width) {
        Ok(line) => {
            out.push(line);
            return;
        }
        Err(first) => first,
    };
    lay_out(out, first, hanging, &graphemes(segs), width);
}

/// The general path of [`wrap`], over the graphemes of the text.
fn lay_out(out: &mut Vec<Laid>, first: Laid, hanging: usize, gs: &[Grapheme], width: usize) {
    let hanging = hanging.min(width.saturating_sub(MIN_ROOM));
    let mut w = Wrapper {
        out,
        width,
        indent: hanging,
        line: first,
        content: false,
        hard_start: true,
    };
    let mut i = 0;
    let mut spaces = 0..0;
    while i < gs.len() {
        match gs[i].kind {
            Kind::Break => {
                w.newline(true);
                spaces = i + 1..i + 1;
                i += 1;
            }
            Kind::Space => {
                if spaces.is_empty() {
                    spaces = i..i;
                }
                spaces.end = i + 1;
                i += 1;
            }
            Kind::Word => {
                let mut end = i + 1;
                if !gs[i].loose {
                    while end < gs.len() && gs[end].kind == Kind::Word && !gs[end].loose {
                        end += 1;
                    }
                }
                w.place(&gs[spaces.clone()], &gs[i..end]);
                spaces = end..end;
                i = end;
            }
        }
    }
    let line = std::mem::take(&mut w.line);
    w.out.push(line);
}

/// The common case of [`wrap`]: spaces and plain characters (one column a character, nothing
/// to map or break at) that fit after `first` once their trailing breakable spaces are
/// dropped, as wrapping would drop them. Gives `first` back when the text needs the general
/// path, including glued text wider than a continuation line (which wrapping places piece
/// by piece).
fn fit_plain(mut first: Laid, hanging: usize, segs: &[Seg], width: usize) -> Result<Laid, Laid> {
    let mut columns = 0;
    for s in segs {
        match plain_columns(s.text) {
            Some(n) => columns += n,
            None => return Err(first),
        }
    }
    let total: usize = segs.iter().map(|s| s.text.len()).sum();
    let mut trailing = 0;
    for s in segs.iter().rev().filter(|s| !s.text.is_empty()) {
        if s.glue || s.style == Style::Cursor {
            break;
        }
        let kept = s.text.trim_end_matches(' ').len();
        trailing += s.text.len() - kept;
        if kept > 0 {
            break;
        }
    }
    // Trailing spaces are one byte each, so the text kept ends `trailing` bytes early.
    let mut left = total - trailing;
    let columns = columns - trailing;
    let room = width - hanging.min(width.saturating_sub(MIN_ROOM));
    if first.width + columns > width || (columns > room && segs.iter().any(|s| s.glue)) {
        return Err(first);
    }
    for s in segs {
        let take = s.text.len().min(left);
        let text = &s.text[..take];
        // One column a character, and printable ASCII is one byte a character.
        let columns = if text.is_ascii() {
            text.len()
        } else {
            text.chars().count()
        };
        first.push(text, s.style, columns);
        left -= take;
    }
    Ok(first)
}

/// Wraps multi-line text (markdown or code) line by line at column `at`: a wrapped line
/// continues under its own text, past its leading spaces and any list marker (`- `, `* `,
/// `+ `, `1. `).
fn block(out: &mut Vec<Laid>, at: usize, text: &str, style: Style, width: usize) {
    for line in text.lines() {
        let body = line.trim_start_matches([' ', '\t']);
        let lead = &line[..line.len() - body.len()];
        let lead_width = lead
            .chars()
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum::<usize>();
        let digits = body.bytes().take_while(u8::is_ascii_digit).count();
        let marker = if ["- ", "* ", "+ "].iter().any(|m| body.starts_with(m)) {
            2
        } else if digits > 0 && body[digits..].starts_with(". ") {
            digits + 2
        } else {
            0
        };
        wrap(
            out,
            indent(at),
            at + lead_width + marker,
            &[seg(line, style)],
            width,
        );
    }
}

/// The columns of `text` when every character is a space or plain (one column each).
fn plain_columns(text: &str) -> Option<usize> {
    // Printable ASCII is one byte a character, so the prefix ends at a character boundary.
    let ascii = printable_ascii_prefix(text.as_bytes());
    text[ascii..]
        .chars()
        .try_fold(ascii, |n, c| (c == ' ' || plain_char(c)).then_some(n + 1))
}

/// How many bytes at the start of `bytes` are printable ASCII (space to `~`), looked at eight
/// at a time.
fn printable_ascii_prefix(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGH_BITS: u64 = u64::from_le_bytes([0x80; 8]);
    let mut n = 0;
    for word in bytes.chunks_exact(8) {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        // The high bit of a byte is set here when some byte is below a space, or above `~`.
        let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH_BITS;
        let above_tilde = (word.wrapping_add(ONES) | word) & HIGH_BITS;
        if below_space | above_tilde != 0 {
            break;
        }
        n += 8;
    }
    n + bytes[n..]
        .iter()
        .take_while(|&&b| matches!(b, b' '..=b'~'))
        .count()
}

/// `text` cut to at most `max` columns, with `…` when cut.
fn fit(text: &str, max: usize) -> (Cow<'_, str>, usize) {
    if let Some(columns) = plain_columns(text)
        && columns <= max
    {
        return (Cow::Borrowed(text), columns);
    }
    fn shown(g: &str) -> (&str, usize) {
        // Control characters (tabs and line breaks included) show as one space.
        if g.chars().any(char::is_control) {
            (" ", 1)
        } else {
            (g, g.width())
        }
    }
    let full: usize = text.graphemes(true).map(|g| shown(g).1).sum();
    let room = if full <= max {
        max
    } else {
        max.saturating_sub(1)
    };
    let mut cut = String::with_capacity(text.len());
    let mut width = 0;
    for g in text.graphemes(true) {
        let (g, w) = shown(g);
        if width + w > room {
            break;
        }
        cut.push_str(g);
        width += w;
    }
    if full > max && max > 0 {
        cut.push('…');
        width += 1;
    }
    (Cow::Owned(cut), width)
}

/// `text` cut to at most `max` columns keeping its end, with `…` in front when cut.
fn fit_end(text: &str, max: usize) -> (String, usize) {
    let shown = |g: &str| {
        if g.chars().any(char::is_control) {
            ("\u{FFFD}".to_owned(), 1)
        } else {
            (g.to_owned(), g.width())
        }
    };
    let full: usize = text.graphemes(true).map(|g| shown(g).1).sum();
    if full <= max {
        let kept: String = text.graphemes(true).map(|g| shown(g).0).collect();
        return (kept, full);
    }
    let room = max.saturating_sub(1);
    let mut tail = Vec::new();
    let mut width = 0;
    for g in text.graphemes(true).rev() {
        let (g, w) = shown(g);
        if width + w > room {
            break;
        }
        tail.push(g);
        width += w;
    }
    let mut cut = String::from("…");
    cut.extend(tail.into_iter().rev());
    (cut, width + 1)
}

fn rule(out: &mut Vec<Laid>, width: usize) {
    let mut line = Laid::default();
    line.repeat("─", width, Style::Border);
    out.push(line);
}

fn tab_bar(out: &mut Vec<Laid>, tabs: &[TabView], width: usize) {
    if tabs.is_empty() {
        return;
    }
    let all_answered = tabs
        .iter()
        .filter(|t| t.kind == TabKind::Question)
        .all(|t| t.answered);
    let mut segs = Vec::with_capacity(tabs.len() * 6);
    for (i, tab) in tabs.iter().enumerate() {
        if i > 0 {
            segs.push(seg(" ", Style::Text));
        }
        let (open, close, label) = if tab.active {
            ("[", "]", Style::Accent)
        } else {
            (" ", " ", Style::Text)
        };
        let marker = match tab.kind {
            TabKind::Question if tab.answered => glued("■", Style::Success),
            TabKind::Question => glued("□", Style::Muted),
            TabKind::Review if all_answered => glued("✓", Style::Success),
            TabKind::Review => glued("✓", Style::Muted),
        };
        segs.push(glued(open, label));
        segs.push(marker);
        segs.push(glued(" ", Style::Text));
        segs.push(glued(&tab.label, label));
        if tab.has_notes {
            segs.push(glued("✎", Style::Warning));
        }
        segs.push(glued(close, label));
    }
    wrap(out, margin(), MARGIN, &segs, width);
}

fn question_screen(
    out: &mut Vec<Laid>,
    q: &QuestionView,
    editor: Option<&EditorView>,
    filter: Option<&FilterView>,
    width: usize,
    row_memo: Option<&mut Recent<KeptLines<RowKey>, REMEMBERED_ROWS>>,
) {
    wrap(
        out,
        margin(),
        MARGIN,
        &[seg(&q.prompt, Style::Title)],
        width,
    );
    if let Some(plan) = &q.plan_review {
        let mut content = Vec::new();
        block(
            &mut content,
            0,
            &plan.plan,
            Style::Text,
            width - 2 * MARGIN - 4,
        );
        frame(
            out,
            MARGIN,
            width - 2 * MARGIN,
            "Plan",
            Style::Border,
            content,
            None,
        );
    } else if let Some(detail) = &q.detail {
        block(out, MARGIN, detail, Style::Text, width);
    }
    if let Some(filter) = filter {
        filter_line(out, filter, width);
    }
    out.push(Laid::default());
    let approve = q
        .plan_review
        .as_ref()
        .and_then(|p| p.approve_label.as_deref());
    let previews = q.has_previews;
    let left_width = rows_width(width, previews);
    if left_width < width {
        let mut left = Vec::new();
        rows(&mut left, q, editor, approve, left_width, row_memo);
        let mut right = Vec::new();
        preview_box(&mut right, q, 0, width - left_width - 1 - MARGIN);
        let height = left.len().max(right.len());
        let mut left = left.into_iter();
        let mut right = right.into_iter();
        for _ in 0..height {
            let mut line = left.next().unwrap_or_default();
            if let Some(r) = right.next() {
                line.spaces(left_width + 1 - line.width);
                line.append(r);
            }
            out.push(line);
        }
    } else {
        rows(out, q, editor, approve, width, row_memo);
        if previews {
            out.push(Laid::default());
            preview_box(out, q, MARGIN, width - 2 * MARGIN);
        }
    }
    match editor {
        Some(e) if e.target.kind == "questionNote" => {
            out.push(Laid::default());
            editor_box(out, e, "Question note", MARGIN, note_box_width(width));
        }
        _ => {
            if let Some(note) = &q.note {
                out.push(Laid::default());
                let mut first = margin();
                first.text("✎ Note: ", Style::Warning);
                wrap(out, first, MARGIN + 2, &[seg(note, Style::Warning)], width);
            }
        }
    }
}

/// The filter of a long list: `/ text` (with the cursor while its editor is open), then how
/// many options match (`12 of 1000 match`), or that none does.
fn filter_line(out: &mut Vec<Laid>, filter: &FilterView, width: usize) {
    let text = filter.text.as_str();
    let byte = filter.cursor.byte.min(text.len());
    let (before, after) = text.split_at(byte);
    let mut segs = Vec::with_capacity(6);
    let slash = if filter.editing {
        Style::Accent
    } else {
        Style::Dim
    };
    segs.push(seg("/ ", slash));
    if filter.editing {
        segs.push(seg(before, Style::Text));
        let under = after.graphemes(true).next().unwrap_or(" ");
        segs.push(seg(under, Style::Cursor));
        segs.push(seg(&after[under.len().min(after.len())..], Style::Text));
    } else {
        segs.push(seg(text, Style::Text));
    }
    let count = if filter.matches == 0 {
        "no option matches".to_owned()
    } else {
        format!("{} of {} match", filter.matches, filter.total)
    };
    segs.push(seg("   ", Style::Text));
    let style = if filter.matches == 0 {
        Style::Warning
    } else {
        Style::Dim
    };
    segs.push(glued(&count, style));
    wrap(out, margin(), MARGIN + 2, &segs, width);
}

/// The status line under the hints of an open flow: the progress (`1/3 answered`) when the flow
/// has more than one question, then the keys of a key sequence waiting for the next
/// (`pending: g`, as Vim's `showcmd`); no line when there is neither.
fn status_line(out: &mut Vec<Laid>, progress: ProgressView, pending: Option<&str>, width: usize) {
    let answered =
        (progress.total > 1).then(|| format!("{}/{} answered", progress.answered, progress.total));
    let shown: Option<String> = pending.map(|keys| keys.split(' ').map(key_label).collect());
    let mut segs = Vec::with_capacity(4);
    if let Some(answered) = &answered {
        segs.push(glued(answered, Style::Dim));
    }
    if let Some(keys) = &shown {
        if answered.is_some() {
            segs.push(seg(" · ", Style::Dim));
        }
        segs.push(glued("pending: ", Style::Muted));
        segs.push(glued(keys, Style::Accent));
    }
    if !segs.is_empty() {
        wrap(out, margin(), MARGIN, &segs, width);
    }
}

/// The rows of a question (a window of them when there are many), each with what goes under it.
fn rows(
    out: &mut Vec<Laid>,
    q: &QuestionView,
    editor: Option<&EditorView>,
    approve: Option<&str>,
    width: usize,
    mut memo: Option<&mut Recent<KeptLines<RowKey>, REMEMBERED_ROWS>>,
) {
    // The view carries the window shown, or all rows; either way the window is drawn.
    let first = q.rows.first().map_or(0, |row| row.index - 1);
    let start = q.rows_above;
    let end = q.row_count - q.rows_below;
    let shown = &q.rows[start - first..end - first];
    if q.rows_above > 0 {
        more(out, "↑", q.rows_above, width);
    }
    let multi = q.kind == QuestionType::Multi;
    for row in shown {
        let edited = editor.filter(|e| edits_row(e, row));
        let shape = RowShape {
            multi,
            approves: !row.custom && approve == Some(row.value.as_str()),
            custom_text: q.custom_text.as_deref().filter(|_| row.custom),
            width,
        };
        match (edited, memo.as_deref_mut()) {
            (None, Some(memo)) => remembered_row(out, memo, row, shape),
            _ => row_lines(out, row, shape, edited),
        }
    }
    if q.rows_below > 0 {
        more(out, "↓", q.rows_below, width);
    }
}

/// What a row's lines depend on besides the row itself.
#[derive(Debug, Clone, Copy)]
struct RowShape<'a> {
    /// The question takes several answers (check boxes instead of radio buttons).
    multi: bool,
    /// The row approves the plan under review.
    approves: bool,
    /// The custom answer shown under the custom row.
    custom_text: Option<&'a str>,
    width: usize,
}

/// What a row was laid out from (without an editor box).
#[derive(Debug)]
struct RowKey {
    row: RowView,
    multi: bool,
    approves: bool,
    custom_text: Option<String>,
    width: usize,
}

/// Appends the lines of `row` (which no editor edits), kept in `memo` for an equal row of the
/// same shape or laid out here (see [`remembered`]).
fn remembered_row(
    out: &mut Vec<Laid>,
    memo: &mut Recent<KeptLines<RowKey>, REMEMBERED_ROWS>,
    row: &RowView,
    shape: RowShape,
) {
    remembered(
        out,
        Some(memo),
        |kept| {
            kept.row.index == row.index
                && kept.width == shape.width
                && kept.multi == shape.multi
                && kept.approves == shape.approves
                && kept.row == *row
                && kept.custom_text.as_deref() == shape.custom_text
        },
        || RowKey {
            row: row.clone(),
            multi: shape.multi,
            approves: shape.approves,
            custom_text: shape.custom_text.map(str::to_owned),
            width: shape.width,
        },
        |out| row_lines(out, row, shape, None),
    );
}

/// Appends the lines of one row: its label, its description, and the box of `editor` (which
/// edits the row) or else its custom answer and note.
fn row_lines(out: &mut Vec<Laid>, row: &RowView, shape: RowShape, editor: Option<&EditorView>) {
    let RowShape {
        multi,
        approves,
        custom_text,
        width,
    } = shape;
    let label_col = MARGIN + POINTER + NUMBER + if multi { 4 } else { 2 };
    let mut first = margin();
    if row.active {
        first.text("❯ ", Style::Accent);
    } else {
        first.spaces(POINTER);
    }
    match NUMBERS.get(row.index.wrapping_sub(1)) {
        Some(number) => first.text(
            number,
            if row.active {
                Style::Accent
            } else {
                Style::Dim
            },
        ),
        None => first.spaces(NUMBER),
    }
    match (multi, row.selected) {
        (true, true) => first.text("[x] ", Style::Success),
        (true, false) => first.text("[ ] ", Style::Muted),
        (false, true) => first.text("● ", Style::Success),
        (false, false) => first.text("○ ", Style::Muted),
    }
    let label_style = if row.active {
        Style::Accent
    } else if row.selected {
        Style::Selected
    } else {
        Style::Text
    };
    let mut segs = vec![seg(&row.label, label_style)];
    if row.recommended {
        segs.push(seg(" (recommended)", Style::Success));
    }
    if approves {
        segs.push(seg(" (approves the plan)", Style::Success));
    }
    wrap(out, first, label_col, &segs, width);
    if let Some(description) = &row.description {
        wrap(
            out,
            indent(label_col),
            label_col,
            &[seg(description, Style::Dim)],
            width,
        );
    }
    match editor {
        Some(e) => {
            let title = if row.custom {
                "Your answer".to_owned()
            } else {
                format!("Note on {}", row.label)
            };
            editor_box(out, e, &title, BOX_INDENT, row_box_width(width));
        }
        None => {
            if let Some(text) = custom_text {
                // Custom text set aside (the row is not selected) is shown muted.
                let (marker, style) = if row.selected {
                    (Style::Success, Style::Selected)
                } else {
                    (Style::Muted, Style::Muted)
                };
                marked(
                    out,
                    label_col,
                    ("→ ", marker),
                    (text, style),
                    label_col + 2,
                    width,
                );
            }
            if let Some(note) = &row.note {
                marked(
                    out,
                    label_col,
                    ("✎ ", Style::Warning),
                    (note, Style::Warning),
                    label_col + 2,
                    width,
                );
            }
        }
    }
}

/// Whether the open editor edits `row` (its custom answer or its option note).
fn edits_row(editor: &EditorView, row: &RowView) -> bool {
    match editor.target.kind {
        "custom" => row.custom,
        "optionNote" => !row.custom && editor.target.option_value.as_deref() == Some(&row.value),
        _ => false,
    }
}

/// A `↑ N more` / `↓ N more` marker.
fn more(out: &mut Vec<Laid>, arrow: &str, n: usize, width: usize) {
    let text = format!("{arrow} {n} more");
    wrap(
        out,
        indent(MARGIN + POINTER),
        MARGIN + POINTER,
        &[seg(&text, Style::Dim)],
        width,
    );
}

fn preview_box(out: &mut Vec<Laid>, q: &QuestionView, at: usize, box_width: usize) {
    let mut content = Vec::new();
    match &q.preview {
        Some(preview) => block(&mut content, 0, preview, Style::Text, box_width - 4),
        None => wrap(
            &mut content,
            Laid::default(),
            0,
            &[seg("No preview", Style::Muted)],
            box_width - 4,
        ),
    }
    frame(out, at, box_width, "Preview", Style::Border, content, None);
}

/// The columns of a question screen `width` wide that its rows take: two fifths beside the
/// preview of a question with previews from [`SIDE_BY_SIDE_WIDTH`] columns, all of them
/// otherwise.
fn rows_width(width: usize, previews: bool) -> usize {
    if previews && width >= SIDE_BY_SIDE_WIDTH {
        width * 2 / 5
    } else {
        width
    }
}

/// The width of the box of an editor under a row, in rows `rows_width` wide.
fn row_box_width(rows_width: usize) -> usize {
    rows_width - BOX_INDENT - MARGIN
}

/// The width of the box of a question note's editor on a screen `width` wide.
fn note_box_width(width: usize) -> usize {
    width - 2 * MARGIN
}

/// The columns an editor box `box_width` wide lays its text out in: its inside less the column
/// kept for the cursor at the end of a line.
fn editor_text_columns(box_width: usize) -> usize {
    box_width - 5
}

/// The columns the open editor of a question screen `width` wide lays its text out in
/// ([`crate::core::visual_lines`]), by where its box stands: under the question (a question
/// note) or under its row, in a question with previews or not. `Up` and `Down` move by the
/// lines this gives, so they follow the lines the screen shows.
#[must_use]
pub fn editor_columns(width: usize, question_note: bool, previews: bool) -> usize {
    let width = width.clamp(MIN_WIDTH, MAX_WIDTH);
    let box_width = if question_note {
        note_box_width(width)
    } else {
        row_box_width(rows_width(width, previews))
    };
    editor_text_columns(box_width)
}

/// The open editor as a box: its text as [`crate::core::visual_lines`] lays it out, with the
/// cursor, or the placeholder while empty.
fn editor_box(out: &mut Vec<Laid>, e: &EditorView, title: &str, at: usize, box_width: usize) {
    let text = e.text.as_str();
    let mut content = Vec::new();
    if text.is_empty() {
        let first = e.placeholder.graphemes(true).next().unwrap_or(" ");
        let segs = [
            seg(first, Style::Cursor),
            seg(&e.placeholder[first.len()..], Style::Muted),
        ];
        wrap(&mut content, Laid::default(), 0, &segs, box_width - 4);
    } else {
        let cursor = e.cursor.byte.min(text.len());
        let columns = editor_text_columns(box_width);
        for line in visual_lines(text, columns) {
            let mut laid = Laid::default();
            let range = line.range.clone();
            if display_width(&text[range.clone()]) > columns + 1 {
                // A single grapheme wider than the box (the only line that can be) shows as `�`.
                let on = cursor == range.start;
                laid.push("\u{FFFD}", if on { Style::Cursor } else { Style::Text }, 1);
                if cursor == range.end && line.ends_text_line {
                    laid.push(" ", Style::Cursor, 1);
                }
            } else if line.holds(cursor) {
                editor_run(&mut laid, &text[range.start..cursor], Style::Text);
                match text[cursor..range.end].graphemes(true).next() {
                    Some(g) => {
                        editor_run(&mut laid, g, Style::Cursor);
                        editor_run(&mut laid, &text[cursor + g.len()..range.end], Style::Text);
                    }
                    None => laid.push(" ", Style::Cursor, 1),
                }
            } else {
                editor_run(&mut laid, &text[range], Style::Text);
            }
            content.push(laid);
        }
    }
    let mut footer = None;
    if content.len() > MAX_EDITOR_LINES {
        let at_cursor = content
            .iter()
            .position(|l| l.has(Style::Cursor))
            .unwrap_or(0);
        let start = at_cursor
            .saturating_sub(MAX_EDITOR_LINES / 2)
            .min(content.len() - MAX_EDITOR_LINES);
        let below = content.len() - start - MAX_EDITOR_LINES;
        footer = Some(format!("↑ {start} · ↓ {below}"));
        content.truncate(start + MAX_EDITOR_LINES);
        content.drain(..start);
    }
    frame(
        out,
        at,
        box_width,
        title,
        Style::Accent,
        content,
        footer.as_deref(),
    );
    if let Some(error) = &e.error {
        let mut first = indent(at + 2);
        first.text("✗ ", Style::Warning);
        wrap(
            out,
            first,
            at + 4,
            &[seg(error, Style::Warning)],
            at + box_width,
        );
    }
    if let Some(completion) = &e.completion {
        completion_list(out, completion, at + 2, box_width - 2);
    }
}

/// Appends a piece of an editor's text (normalised: no control characters but tabs) in
/// `style`, a tab as four spaces.
fn editor_run(line: &mut Laid, text: &str, style: Style) {
    for (i, piece) in text.split('\t').enumerate() {
        if i > 0 {
            line.repeat(" ", TAB_WIDTH, style);
        }
        line.push(piece, style, display_width(piece));
    }
}

/// The `@` completion list under an editor box: one path per line (directories ending in
/// `/`), the highlighted one with a pointer; a path too long for the room keeps its end.
fn completion_list(out: &mut Vec<Laid>, completion: &CompletionView, at: usize, room: usize) {
    for (i, item) in completion.items.iter().enumerate() {
        let mut line = indent(at);
        let path = if item.is_dir {
            format!("{}/", item.path)
        } else {
            item.path.clone()
        };
        let (path, path_width) = fit_end(&path, room - POINTER);
        if i == completion.selected {
            line.text("❯ ", Style::Selected);
            line.push(&path, Style::Selected, path_width);
        } else {
            line.spaces(POINTER);
            line.push(&path, Style::Text, path_width);
        }
        out.push(line);
    }
}

/// Draws `content` (laid out at `box_width - 4`) in a rounded box at column `at`.
fn frame(
    out: &mut Vec<Laid>,
    at: usize,
    box_width: usize,
    title: &str,
    border: Style,
    content: Vec<Laid>,
    footer: Option<&str>,
) {
    let inner = box_width - 4;
    out.push(border_line(
        at,
        box_width,
        ("╭", "╮"),
        title,
        Style::Title,
        border,
    ));
    for line in content {
        let mut framed = indent(at);
        framed.text("│ ", border);
        // An editor's cursor after a space in the column kept for it takes the padding.
        let right = if line.width > inner { "│" } else { " │" };
        let pad = inner.saturating_sub(line.width);
        framed.append(line);
        framed.spaces(pad);
        framed.text(right, border);
        out.push(framed);
    }
    out.push(border_line(
        at,
        box_width,
        ("╰", "╯"),
        footer.unwrap_or(""),
        Style::Dim,
        border,
    ));
}

/// A top or bottom border with an optional label: `╭─ Label ────╮`.
fn border_line(
    at: usize,
    box_width: usize,
    (left, right): (&str, &str),
    label: &str,
    label_style: Style,
    border: Style,
) -> Laid {
    let mut line = indent(at);
    line.text(left, border);
    let room = box_width - 2;
    if !label.is_empty() && room >= 6 {
        let (label, label_width) = fit(label, room - 4);
        line.text("─ ", border);
        line.push(&label, label_style, label_width);
        line.text(" ", border);
        line.repeat("─", room - 3 - label_width, border);
    } else {
        line.repeat("─", room, border);
    }
    line.text(right, border);
    line
}

fn review_screen(out: &mut Vec<Laid>, review: &ReviewView, width: usize) {
    wrap(
        out,
        margin(),
        MARGIN,
        &[seg("Review your answers", Style::Title)],
        width,
    );
    out.push(Laid::default());
    let answer_col = MARGIN + 2;
    let note_col = answer_col + 2;
    for q in &review.questions {
        let compact = !q.answered || (q.answers.len() == 1 && q.answers[0].note.is_none());
        if compact {
            let (answer, style) = match q.answers.first() {
                Some(a) if q.answered => (a.label.as_str(), Style::Success),
                _ => ("unanswered", Style::Muted),
            };
            let segs = [
                seg(&q.label, Style::Text),
                seg(" → ", Style::Dim),
                seg(answer, style),
            ];
            wrap(out, margin(), answer_col, &segs, width);
        } else {
            wrap(
                out,
                margin(),
                answer_col,
                &[seg(&q.label, Style::Text)],
                width,
            );
            for a in &q.answers {
                marked(
                    out,
                    answer_col,
                    ("→ ", Style::Dim),
                    (&a.label, Style::Success),
                    note_col,
                    width,
                );
                if let Some(note) = &a.note {
                    marked(
                        out,
                        note_col,
                        ("note: ", Style::Warning),
                        (note, Style::Warning),
                        note_col + 2,
                        width,
                    );
                }
            }
        }
        if let Some(note) = &q.note {
            marked(
                out,
                answer_col,
                ("note: ", Style::Warning),
                (note, Style::Warning),
                note_col,
                width,
            );
        }
        for other in &q.other_notes {
            let segs = [
                seg(&other.label, Style::Warning),
                seg(" note: ", Style::Warning),
                seg(&other.note, Style::Warning),
            ];
            wrap(out, indent(answer_col), note_col, &segs, width);
        }
        if let Some(problem) = &q.problem {
            marked(
                out,
                answer_col,
                ("✗ ", Style::Warning),
                (problem, Style::Warning),
                answer_col + 2,
                width,
            );
        }
    }
    out.push(Laid::default());
    for action in &review.actions {
        let mut first = margin();
        let style = if action.active {
            first.text("❯ ", Style::Accent);
            Style::Accent
        } else {
            first.spaces(POINTER);
            Style::Text
        };
        let style = if action.disabled { Style::Dim } else { style };
        first.text(&action.key, style);
        first.text(". ", style);
        let segs = [
            seg(&action.label, style),
            seg(" — answer the marked questions first", Style::Muted),
        ];
        let shown = if action.disabled {
            &segs[..]
        } else {
            &segs[..1]
        };
        wrap(out, first, MARGIN + POINTER + NUMBER, shown, width);
    }
}

/// The end of a flow: submitted, sent back, declined, or the words of why it was cancelled.
fn ending(
    out: &mut Vec<Laid>,
    outcome: Option<OutcomeView>,
    reason: Option<CancelReason>,
    width: usize,
) {
    let (text, style) = match (outcome, reason) {
        (Some(OutcomeView::Submit), _) => ("✓ Submitted", Style::Success),
        (Some(OutcomeView::Elaborate), _) => ("✓ Sent back for elaboration", Style::Success),
        (Some(OutcomeView::Declined), _) => ("Declined", Style::Warning),
        (_, Some(reason)) => (reason.words(), Style::Warning),
        (Some(OutcomeView::Aborted), None) => (CancelReason::Aborted.words(), Style::Warning),
        (Some(OutcomeView::Invalid), None) => (CancelReason::InvalidInput.words(), Style::Warning),
        (Some(OutcomeView::Cancelled), None) => (CancelReason::User.words(), Style::Warning),
        (None, None) => ("Done", Style::Text),
    };
    let mark = if style == Style::Warning { "✗ " } else { "" };
    let mut first = margin();
    first.text(mark, style);
    wrap(out, first, MARGIN + 2, &[seg(text, style)], width);
}

/// How a key name shows in the footer.
fn key_label(key: &str) -> &str {
    match key {
        "up" => "↑",
        "down" => "↓",
        "left" => "←",
        "right" => "→",
        "escape" => "esc",
        "pagedown" => "pgdn",
        "pageup" => "pgup",
        other => other,
    }
}

/// The keys of a hint as the footer shows them: `↑`, `tab/→`, `1-3`.
fn hint_keys(hint: &Hint) -> String {
    match (hint.action, hint.keys.first(), hint.keys.last()) {
        ("digits", Some(first), Some(last)) if hint.keys.len() > 1 => format!("{first}-{last}"),
        _ => {
            let mut text = String::new();
            for (i, key) in hint.keys.iter().enumerate() {
                if i > 0 {
                    text.push('/');
                }
                // A key sequence (`g g`) shows as its keys one after the other (`gg`).
                for part in key.split(' ') {
                    text.push_str(key_label(part));
                }
            }
            text
        }
    }
}

/// The notices of the behaviour options after a blank line, one after another: warnings in
/// `warning`, the review-shortcut hint in `dim`.
fn notices(out: &mut Vec<Laid>, notices: &[NoticeView], width: usize) {
    out.push(Laid::default());
    for notice in notices {
        let style = match notice.kind {
            NoticeKind::ReviewShortcut => Style::Dim,
            NoticeKind::DismissConfirm | NoticeKind::TypeConfirm | NoticeKind::TypeChanged => {
                Style::Warning
            }
        };
        wrap(out, margin(), MARGIN, &[seg(&notice.text, style)], width);
    }
}

/// The help overlay in place of the question or review: its title, then per context a heading
/// and one line per binding, the keys in a column of their own (at most half the width) and
/// what they do beside them.
fn help_screen(out: &mut Vec<Laid>, help: &HelpView, width: usize) {
    wrap(
        out,
        margin(),
        MARGIN,
        &[seg(help.title, Style::Title)],
        width,
    );
    let keys: Vec<Vec<String>> = help
        .sections
        .iter()
        .map(|section| section.bindings.iter().map(hint_keys).collect())
        .collect();
    let widest = keys.iter().flatten().map(|k| k.width()).max().unwrap_or(0);
    let column = (widest + 2).min(width / 2);
    let label_col = MARGIN + POINTER + column;
    for (section, keys) in help.sections.iter().zip(&keys) {
        out.push(Laid::default());
        wrap(
            out,
            margin(),
            MARGIN,
            &[seg(section.label, Style::Title)],
            width,
        );
        for (binding, keys) in section.bindings.iter().zip(keys) {
            let (shown, shown_width) = fit(keys, column.saturating_sub(1));
            let mut first = indent(MARGIN + POINTER);
            first.push(&shown, Style::Accent, shown_width);
            first.spaces(column - shown_width);
            wrap(
                out,
                first,
                label_col,
                &[seg(binding.label, Style::Muted)],
                width,
            );
        }
    }
}

fn hints(out: &mut Vec<Laid>, hints: &[Hint], width: usize) {
    let keys: Vec<String> = hints.iter().map(hint_keys).collect();
    let mut segs = Vec::with_capacity(hints.len() * 5);
    for (i, (hint, keys)) in hints.iter().zip(&keys).enumerate() {
        segs.push(glued(keys, Style::Accent));
        segs.push(glued(" ", Style::Muted));
        segs.push(glued(hint.label, Style::Muted));
        if i + 1 < hints.len() {
            segs.push(glued(" ·", Style::Dim));
            segs.push(seg(" ", Style::Dim));
        }
    }
    wrap(out, margin(), MARGIN, &segs, width);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The graphemes of `segs` as the segmenter finds them, with no runs.
    fn segmented<'a>(segs: &[Seg<'a>]) -> Vec<Grapheme<'a>> {
        let mut out = Vec::new();
        for s in segs {
            for g in s.text.graphemes(true) {
                push_grapheme(&mut out, s, g);
            }
        }
        out
    }

    #[test]
    fn plain_characters_are_one_column_graphemes_of_their_own() {
        let plain: Vec<char> = ('\0'..='\u{FFFF}').filter(|&c| plain_char(c)).collect();
        assert_eq!(plain.len(), 755);
        let neighbours: Vec<char> = plain.iter().copied().step_by(5).chain([' ']).collect();
        for &c in &plain {
            assert_eq!(c.to_string().width(), 1, "{c:?}");
            for &d in &neighbours {
                let pair = format!("{c}{d}");
                assert_eq!(pair.graphemes(true).count(), 2, "{pair:?}");
                let pair = format!("{d}{c}");
                assert_eq!(pair.graphemes(true).count(), 2, "{pair:?}");
            }
        }
    }

    proptest::proptest! {
        /// Plain text is counted as it is character by character.
        #[test]
        fn plain_columns_count_plain_characters(text in "[\\x00-\\x7f\u{80}─é字]{0,40}") {
            let by_characters = text
                .chars()
                .try_fold(0, |n, c| (c == ' ' || plain_char(c)).then_some(n + 1));
            proptest::prop_assert_eq!(plain_columns(&text), by_characters);
            let ascii = text.bytes().take_while(|b| matches!(b, b' '..=b'~')).count();
            proptest::prop_assert_eq!(printable_ascii_prefix(text.as_bytes()), ascii);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]
        /// The fast paths (plain text that fits, runs of plain characters) lay out exactly
        /// as the segmenter's graphemes laid out one by one.
        #[test]
        fn fast_paths_lay_out_as_the_graphemes(
            texts in proptest::collection::vec(
                "[a-z!~ ]{0,30}|[a-z]{20,70}|[a-z \t\n□→…é]{0,20}|[a-z ─●é\u{301}字\u{1b}\r]{0,20}",
                1..5,
            ),
            glue in proptest::collection::vec(proptest::bool::ANY, 5),
            cursor in 0usize..6,
            first in 0usize..12,
            hanging in 0usize..16,
            width in 20usize..50,
        ) {
            let segs: Vec<Seg> = texts
                .iter()
                .zip(&glue)
                .enumerate()
                .map(|(i, (text, &glue))| match () {
                    _ if i == cursor => seg(text, Style::Cursor),
                    _ if glue => glued(text, Style::Accent),
                    _ => seg(text, Style::Text),
                })
                .collect();
            let mut fast = Vec::new();
            wrap(&mut fast, indent(first), hanging, &segs, width);
            let mut general = Vec::new();
            lay_out(&mut general, indent(first), hanging, &segmented(&segs), width);
            let lines = |out: Vec<Laid>| out.into_iter().map(Laid::into_line).collect::<Vec<Line>>();
            proptest::prop_assert_eq!(lines(fast), lines(general));
        }
    }
}
