//! A pure text editor model for single- or multi-line answers and notes.
//!
//! The editor owns a normalised string and a cursor. The cursor is a byte
//! offset that always sits on an extended grapheme-cluster boundary, so a
//! precomposed or decomposed accented letter, an emoji sequence joined with
//! zero-width joiners or skin-tone modifiers, a flag and a Hangul syllable
//! each move and delete as one unit.
//!
//! Normalised text contains no control characters other than `'\n'` and
//! `'\t'`; in particular it never contains `'\r'`. Lines are split on `'\n'`.
//! Because a line feed is always a grapheme of its own, segmentation never
//! spans two lines.

use std::ops::Range;

use unicode_segmentation::{GraphemeCursor, UnicodeSegmentation};
use unicode_width::UnicodeWidthStr;

/// Display columns of a tab (rendered screens show a tab as four spaces).
pub const TAB_WIDTH: usize = 4;

/// Editable text with a cursor kept on a grapheme-cluster boundary.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TextEditor {
    text: String,
    cursor: usize,
}

/// One editing or cursor-movement command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// Move one grapheme to the left; a line break counts as one grapheme.
    Left,
    /// Move one grapheme to the right; a line break counts as one grapheme.
    Right,
    /// Move to the start of the current line.
    Home,
    /// Move to the end of the current line.
    End,
    /// Skip non-word graphemes backwards, then the word before them.
    WordLeft,
    /// Skip non-word graphemes forwards, then move to the end of the next word.
    WordRight,
    /// Move to the previous visual line (see [`visual_lines`]), keeping the display column
    /// where possible; on the first, to the text's start.
    Up,
    /// Move to the next visual line, keeping the display column where possible; on the last,
    /// to the text's end.
    Down,
    /// Delete the grapheme before the cursor.
    Backspace,
    /// Delete the grapheme after the cursor.
    Delete,
    /// Delete back to where [`Edit::WordLeft`] would move.
    DeleteWordBack,
    /// Delete from the start of the current line up to the cursor.
    DeleteToLineStart,
    /// Delete from the cursor to the end of the current line.
    DeleteToLineEnd,
    /// Insert a line break at the cursor.
    Newline,
}

/// Where the cursor is, in lines, graphemes and display columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CursorPosition {
    /// Zero-based line index.
    pub line: usize,
    /// Graphemes before the cursor on its line.
    pub grapheme: usize,
    /// Display columns before the cursor on its line (wide characters count 2, a tab
    /// [`TAB_WIDTH`]).
    pub column: usize,
    /// Graphemes before the cursor in the whole text.
    pub offset: usize,
}

impl TextEditor {
    /// Creates an empty editor.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Creates an editor holding `text`, normalised as by [`TextEditor::insert`],
    /// with the cursor at the end.
    #[must_use]
    pub fn with_text(text: &str) -> Self {
        Self::with_text_in(String::new(), text)
    }

    /// Like [`TextEditor::with_text`], in the allocation of `buffer` (whose text is dropped).
    #[must_use]
    pub fn with_text_in(mut buffer: String, text: &str) -> Self {
        buffer.clear();
        let mut editor = Self {
            text: buffer,
            cursor: 0,
        };
        editor.insert(text);
        editor
    }

    /// Ends the editor, handing back its text's allocation (emptied) for reuse.
    #[must_use]
    pub fn into_buffer(self) -> String {
        let mut buffer = self.text;
        buffer.clear();
        buffer
    }

    /// Restores an editor from a snapshot.
    ///
    /// Returns `None` unless `text` is already normalised and `cursor` is at
    /// most `text.len()` and on a grapheme-cluster boundary.
    #[must_use]
    pub fn from_parts(text: &str, cursor: usize) -> Option<Self> {
        if needs_normalising(text) || !is_grapheme_boundary(text, cursor) {
            return None;
        }
        Some(Self {
            text: text.to_owned(),
            cursor,
        })
    }

    /// The current text.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor as a byte offset into [`TextEditor::text`].
    #[must_use]
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Whether the text is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Whether the text contains a line break.
    #[must_use]
    pub fn is_multiline(&self) -> bool {
        self.text.contains('\n')
    }

    /// Inserts `text` at the cursor and leaves the cursor after it.
    ///
    /// `"\r\n"` and a lone `'\r'` become `'\n'`, and every other control
    /// character except `'\n'` and `'\t'` is dropped. A `"\r\n"` split across
    /// two calls becomes two line breaks. If the inserted text joins with the
    /// grapheme after it, the cursor moves to the end of the joined grapheme.
    pub fn insert(&mut self, text: &str) {
        let at = self.cursor;
        let end = if needs_normalising(text) {
            let clean = normalise(text);
            self.text.insert_str(at, &clean);
            at + clean.len()
        } else if at == self.text.len() {
            // Typing at the end: nothing to move aside.
            self.text.push_str(text);
            at + text.len()
        } else {
            self.text.insert_str(at, text);
            at + text.len()
        };
        self.cursor = if is_grapheme_boundary(&self.text, end) {
            end
        } else {
            next_boundary(&self.text, end)
        };
    }

    /// Replaces the bytes `range` of the text with `text` (normalised as by
    /// [`TextEditor::insert`]) and leaves the cursor after it.
    ///
    /// Returns `false` and changes nothing unless both ends of `range` are grapheme
    /// boundaries within the text and `range.start <= range.end`.
    pub fn replace(&mut self, range: Range<usize>, text: &str) -> bool {
        if range.start > range.end
            || !is_grapheme_boundary(&self.text, range.start)
            || !is_grapheme_boundary(&self.text, range.end)
        {
            return false;
        }
        self.text.replace_range(range.clone(), "");
        self.cursor = range.start;
        self.insert(text);
        true
    }

    /// Applies one edit and returns whether the text or the cursor changed. `Up` and `Down`
    /// move by the text's own lines, as in a box too wide to wrap any.
    pub fn apply(&mut self, edit: Edit) -> bool {
        self.apply_wrapped(edit, usize::MAX)
    }

    /// Applies one edit in a box that wraps the text at `columns` ([`visual_lines`]), and returns
    /// whether the text or the cursor changed. Only `Up` and `Down` depend on `columns`.
    pub fn apply_wrapped(&mut self, edit: Edit, columns: usize) -> bool {
        let cursor = self.cursor;
        match edit {
            Edit::Left => self.move_to(prev_boundary(&self.text, cursor)),
            Edit::Right => self.move_to(next_boundary(&self.text, cursor)),
            Edit::Home => self.move_to(line_start(&self.text, cursor)),
            Edit::End => self.move_to(line_end(&self.text, cursor)),
            Edit::WordLeft => self.move_to(word_left(&self.text, cursor)),
            Edit::WordRight => self.move_to(word_right(&self.text, cursor)),
            Edit::Up => self.vertical(true, columns),
            Edit::Down => self.vertical(false, columns),
            Edit::Backspace => self.delete_range(prev_boundary(&self.text, cursor), cursor),
            Edit::Delete => self.delete_range(cursor, next_boundary(&self.text, cursor)),
            Edit::DeleteWordBack => self.delete_range(word_left(&self.text, cursor), cursor),
            Edit::DeleteToLineStart => self.delete_range(line_start(&self.text, cursor), cursor),
            Edit::DeleteToLineEnd => self.delete_range(cursor, line_end(&self.text, cursor)),
            Edit::Newline => {
                self.insert("\n");
                true
            }
        }
    }

    /// The cursor's line, grapheme and column on that line, and its grapheme
    /// offset in the whole text.
    #[must_use]
    pub fn position(&self) -> CursorPosition {
        let before = &self.text[..self.cursor];
        let start = line_start(&self.text, self.cursor);
        let on_line = &self.text[start..self.cursor];
        CursorPosition {
            line: before.bytes().filter(|&b| b == b'\n').count(),
            grapheme: on_line.graphemes(true).count(),
            column: display_width(on_line),
            offset: before.graphemes(true).count(),
        }
    }

    /// Moves the cursor to `target` (a grapheme boundary); reports a change.
    fn move_to(&mut self, target: usize) -> bool {
        let changed = target != self.cursor;
        self.cursor = target;
        changed
    }

    /// Removes `start..end` (both grapheme boundaries, `start <= end`) and
    /// leaves the cursor at `start`, or at the start of the grapheme that the
    /// removal joined across `start`.
    fn delete_range(&mut self, start: usize, end: usize) -> bool {
        if start >= end {
            return false;
        }
        if end == self.text.len() {
            // Deleting at the end: nothing to move back.
            self.text.truncate(start);
        } else {
            self.text.drain(start..end);
        }
        self.cursor = if is_grapheme_boundary(&self.text, start) {
            start
        } else {
            prev_boundary(&self.text, start)
        };
        true
    }

    /// Moves to the previous (`up`) or next visual line at `columns`, to the same display
    /// column or the last grapheme boundary before it; from the first visual line up to the
    /// text's start, from the last down to its end.
    fn vertical(&mut self, up: bool, columns: usize) -> bool {
        let text = &self.text;
        let cursor = self.cursor;
        let mut previous = None;
        let mut lines = VisualLines::starting_at(text, line_start(text, cursor), columns);
        let current = loop {
            let line = lines
                .next()
                .expect("the cursor stands on one of its line's visual lines");
            if line.holds(cursor) {
                break line;
            }
            previous = Some(line);
        };
        let target = if up {
            match previous {
                Some(line) => line,
                None if current.range.start == 0 => return self.move_to(0),
                None => {
                    let above = line_start(text, current.range.start - 1);
                    VisualLines::starting_at(text, above, columns)
                        .find(|line| line.ends_text_line)
                        .expect("a text line ends")
                }
            }
        } else if !current.ends_text_line {
            lines
                .next()
                .expect("a soft-wrapped line is followed by another")
        } else if current.range.end == text.len() {
            return self.move_to(text.len());
        } else {
            VisualLines::starting_at(text, current.range.end + 1, columns)
                .next()
                .expect("a text line follows a line break")
        };
        let column = display_width(&text[current.range.start..cursor]);
        let mut offset = target.range.start;
        let mut width = 0;
        for grapheme in text[target.range.clone()].graphemes(true) {
            width += grapheme_width(grapheme);
            let next = offset + grapheme.len();
            // The end of a soft-wrapped line is the start of the next: stop before it.
            if width > column || (next == target.range.end && !target.ends_text_line) {
                break;
            }
            offset = next;
        }
        self.move_to(offset)
    }
}

/// One line of an editor's text as a box shows it: the bytes `range` of the text, without
/// the line break that may end it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisualLine {
    /// The bytes of the text on this line.
    pub range: Range<usize>,
    /// The line ends a line of the text (at a line break or the text's end), so a cursor at
    /// its end stands on it; the end of a line wrapped softly is the next line's start.
    pub ends_text_line: bool,
}

impl VisualLine {
    /// Whether a cursor at byte `at` stands on this line.
    #[must_use]
    pub fn holds(&self, at: usize) -> bool {
        self.range.start <= at
            && (at < self.range.end || (at == self.range.end && self.ends_text_line))
    }
}

/// The visual lines of `text` (normalised, as an editor holds it) in a box that lays text out
/// in `columns` columns: the one rule by which the renderer draws an editor and `Up` and `Down`
/// move in it.
///
/// Each line of the text wraps greedily at `columns`: a line breaks after the spaces before a
/// word, or beside a wide character (CJK text has no spaces), or, for a word longer than a
/// line, inside it. One space may hang in the column after the last, which the box keeps for
/// the cursor at a line's end; a second starts the next line. An empty text has one empty
/// line.
#[must_use]
pub fn visual_lines(text: &str, columns: usize) -> VisualLines<'_> {
    VisualLines::starting_at(text, 0, columns)
}

/// The visual lines of a text, in order ([`visual_lines`]).
#[derive(Debug, Clone)]
pub struct VisualLines<'a> {
    text: &'a str,
    columns: usize,
    /// Where the next line starts, or `None` after the last.
    next: Option<usize>,
}

impl<'a> VisualLines<'a> {
    /// The visual lines from byte `start`, the start of a line of the text.
    fn starting_at(text: &'a str, start: usize, columns: usize) -> Self {
        Self {
            text,
            columns: columns.max(1),
            next: Some(start),
        }
    }
}

impl Iterator for VisualLines<'_> {
    type Item = VisualLine;

    fn next(&mut self) -> Option<VisualLine> {
        let start = self.next?;
        let text_line_end = line_end(self.text, start);
        let end = start + wrap_end(&self.text[start..text_line_end], self.columns);
        let ends_text_line = end == text_line_end;
        self.next = if !ends_text_line {
            Some(end)
        } else if end < self.text.len() {
            Some(end + 1)
        } else {
            None
        };
        Some(VisualLine {
            range: start..end,
            ends_text_line,
        })
    }
}

/// Where the first visual line of `line` (a text line's rest, from the start of a visual
/// line) ends, in bytes: [`visual_lines`]'s rule.
fn wrap_end(line: &str, columns: usize) -> usize {
    let mut width = 0;
    // The last place a break may go, and the columns before it.
    let mut opening: Option<(usize, usize)> = None;
    let mut after_space = false;
    let mut after_wide = false;
    let mut next = 0;
    while next < line.len() {
        let at = next;
        next = next_boundary(line, at);
        let grapheme = &line[at..next];
        let w = grapheme_width(grapheme);
        let space = grapheme == " " || grapheme == "\t";
        let wide = !space && w >= 2 && !is_hangul(grapheme);
        if at > 0 && !space && (after_space || after_wide || wide) {
            opening = Some((at, width));
        }
        // A space may hang in the column kept for the cursor.
        let limit = if space {
            columns.saturating_add(1)
        } else {
            columns
        };
        if at > 0 && width + w > limit {
            return match opening {
                Some((opening, before)) if !space && width - before + w <= columns => opening,
                _ => at,
            };
        }
        width += w;
        after_space = space;
        after_wide = wide;
    }
    line.len()
}

/// Whether a grapheme is Hangul: Korean separates words with spaces, so its lines break at
/// spaces like Latin text rather than beside any character as other wide scripts do.
#[must_use]
pub fn is_hangul(grapheme: &str) -> bool {
    grapheme.chars().next().is_some_and(|c| {
        matches!(c, '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}' | '\u{A960}'..='\u{A97F}'
            | '\u{AC00}'..='\u{D7AF}' | '\u{D7B0}'..='\u{D7FF}')
    })
}

/// Whether `text` holds a character that [`normalise`] would change.
fn needs_normalising(text: &str) -> bool {
    text.chars().any(is_dropped_or_rewritten)
}

/// Control characters other than line feed and tab (this includes `'\r'`).
fn is_dropped_or_rewritten(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// Turns `"\r\n"` and lone `'\r'` into `'\n'` and drops other controls
/// except `'\t'`.
fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            chars.next_if_eq(&'\n');
            out.push('\n');
        } else if !is_dropped_or_rewritten(c) {
            out.push(c);
        }
    }
    out
}

/// Whether `before` and `after` are two ASCII characters with a grapheme boundary between
/// them. Two ASCII characters always have one except inside `"\r\n"` (rules GB3–GB5): every
/// other rule that joins characters needs a non-ASCII character on one side. `false` answers
/// nothing: the general segmentation decides.
fn ascii_boundary(before: u8, after: u8) -> bool {
    before.is_ascii() && after.is_ascii() && !(before == b'\r' && after == b'\n')
}

/// Whether `at` is within `text` and on an extended grapheme boundary.
fn is_grapheme_boundary(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    if at == 0 || at == bytes.len() {
        return true;
    }
    if at < bytes.len() && ascii_boundary(bytes[at - 1], bytes[at]) {
        return true;
    }
    text.is_char_boundary(at)
        && GraphemeCursor::new(at, text.len(), true)
            .is_boundary(text, 0)
            .unwrap_or(false)
}

/// The grapheme boundary before `at` (a char boundary), or 0.
fn prev_boundary(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    // An ASCII character just before `at` is a grapheme of its own when a boundary precedes it.
    if let Some(last) = at.checked_sub(1)
        && bytes.get(last).is_some_and(u8::is_ascii)
        && (last == 0 || ascii_boundary(bytes[last - 1], bytes[last]))
    {
        return last;
    }
    GraphemeCursor::new(at, text.len(), true)
        .prev_boundary(text, 0)
        .ok()
        .flatten()
        .unwrap_or(0)
}

/// The grapheme boundary after `at` (a char boundary), or the text length.
fn next_boundary(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    // An ASCII character just after `at` is a grapheme of its own when a boundary follows it.
    let next = at + 1;
    if bytes.get(at).is_some_and(u8::is_ascii)
        && (next == bytes.len() || ascii_boundary(bytes[at], bytes[next]))
    {
        return next;
    }
    GraphemeCursor::new(at, text.len(), true)
        .next_boundary(text, 0)
        .ok()
        .flatten()
        .unwrap_or(text.len())
}

/// Byte offset of the start of the line containing `at`.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// Byte offset of the end (the `'\n'` or the text end) of the line containing `at`.
fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}

/// Word graphemes start with an alphanumeric character or `'_'`.
fn is_word(grapheme: &str) -> bool {
    grapheme
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Where a backward word move from `at` lands.
fn word_left(text: &str, at: usize) -> usize {
    let mut target = at;
    let mut in_word = false;
    for (i, grapheme) in text[..at].grapheme_indices(true).rev() {
        if is_word(grapheme) {
            in_word = true;
        } else if in_word {
            break;
        }
        target = i;
    }
    target
}

/// Where a forward word move from `at` lands.
fn word_right(text: &str, at: usize) -> usize {
    let mut target = at;
    let mut in_word = false;
    for (i, grapheme) in text[at..].grapheme_indices(true) {
        if is_word(grapheme) {
            in_word = true;
        } else if in_word {
            break;
        }
        target = at + i + grapheme.len();
    }
    target
}

/// Display columns of one grapheme: a tab counts [`TAB_WIDTH`], as rendered screens show it.
fn grapheme_width(grapheme: &str) -> usize {
    if grapheme == "\t" {
        TAB_WIDTH
    } else {
        grapheme.width()
    }
}

/// Display columns of `line`, summed grapheme by grapheme as an editor box lays it out (a tab
/// counts [`TAB_WIDTH`]).
#[must_use]
pub fn display_width(line: &str) -> usize {
    if line.is_ascii() {
        // Normalised text holds no control character but line feeds and tabs: every other
        // ASCII character is a grapheme one column wide.
        let tabs = line.bytes().filter(|&b| b == b'\t').count();
        return line.len() + tabs * (TAB_WIDTH - 1);
    }
    line.graphemes(true).map(grapheme_width).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, cursor: usize) -> TextEditor {
        TextEditor::from_parts(text, cursor).expect("valid snapshot")
    }

    /// Applies `edit` to `text` with the cursor at `cursor`.
    fn run(text: &str, cursor: usize, edit: Edit) -> (bool, String, usize) {
        let mut editor = at(text, cursor);
        let changed = editor.apply(edit);
        (changed, editor.text().to_owned(), editor.cursor())
    }

    fn same(text: &str, cursor: usize) -> (bool, String, usize) {
        (false, text.to_owned(), cursor)
    }

    fn changed(text: &str, cursor: usize) -> (bool, String, usize) {
        (true, text.to_owned(), cursor)
    }

    fn pos(line: usize, grapheme: usize, column: usize, offset: usize) -> CursorPosition {
        CursorPosition {
            line,
            grapheme,
            column,
            offset,
        }
    }

    const ALL_EDITS: [Edit; 14] = [
        Edit::Left,
        Edit::Right,
        Edit::Home,
        Edit::End,
        Edit::WordLeft,
        Edit::WordRight,
        Edit::Up,
        Edit::Down,
        Edit::Backspace,
        Edit::Delete,
        Edit::DeleteWordBack,
        Edit::DeleteToLineStart,
        Edit::DeleteToLineEnd,
        Edit::Newline,
    ];

    #[test]
    fn constructors_and_accessors() {
        let empty = TextEditor::new();
        assert_eq!(empty, TextEditor::default());
        assert_eq!(empty.text(), "");
        assert_eq!(empty.cursor(), 0);
        assert!(empty.is_empty());
        assert!(!empty.is_multiline());
        assert_eq!(empty.position(), pos(0, 0, 0, 0));

        let editor = TextEditor::with_text("ab\ncd");
        assert_eq!(editor.text(), "ab\ncd");
        assert_eq!(editor.cursor(), 5);
        assert!(!editor.is_empty());
        assert!(editor.is_multiline());
        assert_eq!(editor.position(), pos(1, 2, 2, 5));
        assert!(!TextEditor::with_text("abc").is_multiline());
    }

    #[test]
    fn a_reused_buffer_lends_only_its_allocation() {
        let buffer = TextEditor::with_text("old text").into_buffer();
        assert!(buffer.is_empty());
        assert!(buffer.capacity() >= "old text".len());
        assert_eq!(
            TextEditor::with_text_in(buffer, "a\r\nb"),
            TextEditor::with_text("a\r\nb")
        );
        assert_eq!(
            TextEditor::with_text_in("leftover".to_owned(), ""),
            TextEditor::new()
        );
    }

    #[test]
    fn ascii_movement() {
        let t = "hello world";
        assert_eq!(run(t, 5, Edit::Left), changed(t, 4));
        assert_eq!(run(t, 0, Edit::Left), same(t, 0));
        assert_eq!(run(t, 5, Edit::Right), changed(t, 6));
        assert_eq!(run(t, 11, Edit::Right), same(t, 11));
        assert_eq!(run(t, 5, Edit::Home), changed(t, 0));
        assert_eq!(run(t, 0, Edit::Home), same(t, 0));
        assert_eq!(run(t, 5, Edit::End), changed(t, 11));
        assert_eq!(run(t, 11, Edit::End), same(t, 11));
        // One line: Up goes to its start, Down to its end.
        assert_eq!(run(t, 5, Edit::Up), changed(t, 0));
        assert_eq!(run(t, 0, Edit::Up), same(t, 0));
        assert_eq!(run(t, 5, Edit::Down), changed(t, 11));
        assert_eq!(run(t, 11, Edit::Down), same(t, 11));
    }

    #[test]
    fn ascii_word_movement() {
        let t = "hello world";
        assert_eq!(run(t, 11, Edit::WordLeft), changed(t, 6));
        assert_eq!(run(t, 6, Edit::WordLeft), changed(t, 0));
        assert_eq!(run(t, 5, Edit::WordLeft), changed(t, 0));
        assert_eq!(run(t, 0, Edit::WordLeft), same(t, 0));
        assert_eq!(run(t, 0, Edit::WordRight), changed(t, 5));
        assert_eq!(run(t, 5, Edit::WordRight), changed(t, 11));
        assert_eq!(run(t, 11, Edit::WordRight), same(t, 11));

        let t = "foo.bar  baz";
        assert_eq!(run(t, 12, Edit::WordLeft), changed(t, 9));
        assert_eq!(run(t, 9, Edit::WordLeft), changed(t, 4));
        assert_eq!(run(t, 4, Edit::WordLeft), changed(t, 0));
        assert_eq!(run(t, 0, Edit::WordRight), changed(t, 3));
        assert_eq!(run(t, 3, Edit::WordRight), changed(t, 7));
        assert_eq!(run(t, 7, Edit::WordRight), changed(t, 12));

        let t = "snake_case x1";
        assert_eq!(run(t, 0, Edit::WordRight), changed(t, 10));
        assert_eq!(run(t, 13, Edit::WordLeft), changed(t, 11));
        assert_eq!(run(t, 11, Edit::WordLeft), changed(t, 0));

        // Trailing punctuation only: moves over it to the text edge.
        assert_eq!(run("ab ..", 2, Edit::WordRight), changed("ab ..", 5));
        assert_eq!(run(".. ab", 3, Edit::WordLeft), changed(".. ab", 0));
    }

    #[test]
    fn ascii_deletion() {
        let t = "hello world";
        assert_eq!(run(t, 5, Edit::Backspace), changed("hell world", 4));
        assert_eq!(run(t, 0, Edit::Backspace), same(t, 0));
        assert_eq!(run(t, 5, Edit::Delete), changed("helloworld", 5));
        assert_eq!(run(t, 11, Edit::Delete), same(t, 11));
        assert_eq!(run(t, 11, Edit::DeleteWordBack), changed("hello ", 6));
        assert_eq!(run(t, 6, Edit::DeleteWordBack), changed("world", 0));
        assert_eq!(run(t, 0, Edit::DeleteWordBack), same(t, 0));
        assert_eq!(run("foo.bar", 7, Edit::DeleteWordBack), changed("foo.", 4));
        assert_eq!(run(t, 5, Edit::DeleteToLineStart), changed(" world", 0));
        assert_eq!(run(t, 0, Edit::DeleteToLineStart), same(t, 0));
        assert_eq!(run(t, 5, Edit::DeleteToLineEnd), changed("hello", 5));
        assert_eq!(run(t, 11, Edit::DeleteToLineEnd), same(t, 11));
        assert_eq!(run("ab", 1, Edit::Newline), changed("a\nb", 2));

        let mut empty = TextEditor::new();
        for edit in ALL_EDITS {
            if edit != Edit::Newline {
                assert!(!empty.apply(edit), "{edit:?} changed an empty editor");
                assert_eq!(empty, TextEditor::new());
            }
        }
        assert!(empty.apply(Edit::Newline));
        assert_eq!((empty.text(), empty.cursor()), ("\n", 1));
    }

    #[test]
    fn multiline_line_edges() {
        let t = "ab\ncd";
        assert_eq!(run(t, 3, Edit::Left), changed(t, 2));
        assert_eq!(run(t, 2, Edit::Right), changed(t, 3));
        assert_eq!(run(t, 4, Edit::Home), changed(t, 3));
        assert_eq!(run(t, 1, Edit::End), changed(t, 2));
        assert_eq!(run(t, 3, Edit::Home), same(t, 3));
        assert_eq!(run(t, 2, Edit::End), same(t, 2));
        assert_eq!(run(t, 3, Edit::WordLeft), changed(t, 0));
        assert_eq!(run(t, 2, Edit::WordRight), changed(t, 5));
        assert_eq!(run(t, 3, Edit::Backspace), changed("abcd", 2));
        assert_eq!(run(t, 2, Edit::Delete), changed("abcd", 2));
        assert_eq!(run(t, 3, Edit::DeleteWordBack), changed("cd", 0));
        assert_eq!(run(t, 3, Edit::DeleteToLineStart), same(t, 3));
        assert_eq!(run(t, 2, Edit::DeleteToLineEnd), same(t, 2));
        assert_eq!(run(t, 5, Edit::DeleteToLineStart), changed("ab\n", 3));
        assert_eq!(run(t, 3, Edit::DeleteToLineEnd), changed("ab\n", 3));
        assert_eq!(run(t, 1, Edit::DeleteToLineEnd), changed("a\ncd", 1));
        assert_eq!(run(t, 4, Edit::DeleteToLineStart), changed("ab\nd", 3));
    }

    #[test]
    fn precomposed_accent() {
        let t = "café";
        assert_eq!(t.len(), 5);
        assert_eq!(TextEditor::with_text(t).cursor(), 5);
        assert_eq!(run(t, 5, Edit::Left), changed(t, 3));
        assert_eq!(run(t, 3, Edit::Right), changed(t, 5));
        assert_eq!(run(t, 5, Edit::Backspace), changed("caf", 3));
        assert_eq!(run(t, 3, Edit::Delete), changed("caf", 3));
        assert_eq!(run(t, 5, Edit::WordLeft), changed(t, 0));
        assert_eq!(run(t, 0, Edit::WordRight), changed(t, 5));
        assert_eq!(run(t, 5, Edit::DeleteWordBack), changed("", 0));
        assert_eq!(at(t, 5).position(), pos(0, 4, 4, 4));
        assert_eq!(TextEditor::from_parts(t, 4), None);
    }

    #[test]
    fn decomposed_accent() {
        let t = "cafe\u{301}";
        assert_eq!(t.len(), 6);
        assert_eq!(run(t, 6, Edit::Left), changed(t, 3));
        assert_eq!(run(t, 3, Edit::Right), changed(t, 6));
        assert_eq!(run(t, 6, Edit::Backspace), changed("caf", 3));
        assert_eq!(run(t, 3, Edit::Delete), changed("caf", 3));
        assert_eq!(run(t, 6, Edit::Home), changed(t, 0));
        assert_eq!(run(t, 0, Edit::End), changed(t, 6));
        assert_eq!(at(t, 6).position(), pos(0, 4, 4, 4));
        assert_eq!(TextEditor::from_parts(t, 4), None);

        let t = "cafe\u{301}! e\u{301}t";
        assert_eq!(run(t, 0, Edit::WordRight), changed(t, 6));
        assert_eq!(run(t, 6, Edit::WordRight), changed(t, 12));
        assert_eq!(run(t, 12, Edit::WordLeft), changed(t, 8));
        assert_eq!(
            run(t, 12, Edit::DeleteWordBack),
            changed("cafe\u{301}! ", 8)
        );
    }

    #[test]
    fn emoji_zwj_sequence() {
        let t = "a👩\u{200d}💻b";
        assert_eq!(t.len(), 13);
        assert_eq!(run(t, 1, Edit::Right), changed(t, 12));
        assert_eq!(run(t, 12, Edit::Left), changed(t, 1));
        assert_eq!(run(t, 12, Edit::Backspace), changed("ab", 1));
        assert_eq!(run(t, 1, Edit::Delete), changed("ab", 1));
        assert_eq!(run(t, 0, Edit::WordRight), changed(t, 1));
        assert_eq!(run(t, 1, Edit::WordRight), changed(t, 13));
        assert_eq!(run(t, 13, Edit::WordLeft), changed(t, 12));
        assert_eq!(run(t, 12, Edit::WordLeft), changed(t, 0));
        assert_eq!(run(t, 12, Edit::DeleteWordBack), changed("b", 0));
        assert_eq!(at(t, 12).position(), pos(0, 2, 3, 2));
        assert_eq!(at(t, 13).position(), pos(0, 3, 4, 3));
        assert_eq!(TextEditor::from_parts(t, 5), None);
        assert_eq!(TextEditor::from_parts(t, 8), None);

        let t = "👍🏽x";
        assert_eq!(t.len(), 9);
        assert_eq!(run(t, 0, Edit::Right), changed(t, 8));
        assert_eq!(run(t, 8, Edit::Backspace), changed("x", 0));
        assert_eq!(run(t, 0, Edit::Delete), changed("x", 0));
        assert_eq!(at(t, 8).position(), pos(0, 1, 2, 1));
        assert_eq!(TextEditor::from_parts(t, 4), None);
    }

    #[test]
    fn flags() {
        let t = "🇺🇸🇫🇷";
        assert_eq!(t.len(), 16);
        assert_eq!(run(t, 16, Edit::Left), changed(t, 8));
        assert_eq!(run(t, 8, Edit::Left), changed(t, 0));
        assert_eq!(run(t, 0, Edit::Right), changed(t, 8));
        assert_eq!(run(t, 16, Edit::Backspace), changed("🇺🇸", 8));
        assert_eq!(run(t, 0, Edit::Delete), changed("🇫🇷", 0));
        assert_eq!(run(t, 8, Edit::Delete), changed("🇺🇸", 8));
        assert_eq!(at(t, 8).position(), pos(0, 1, 2, 1));
        assert_eq!(at(t, 16).position(), pos(0, 2, 4, 2));
        assert_eq!(TextEditor::from_parts(t, 4), None);
        assert_eq!(TextEditor::from_parts(t, 12), None);
    }

    #[test]
    fn hangul() {
        let t = "한국어";
        assert_eq!(t.len(), 9);
        assert_eq!(run(t, 9, Edit::Left), changed(t, 6));
        assert_eq!(run(t, 3, Edit::Right), changed(t, 6));
        assert_eq!(run(t, 9, Edit::Backspace), changed("한국", 6));
        assert_eq!(run(t, 0, Edit::Delete), changed("국어", 0));
        assert_eq!(run(t, 9, Edit::WordLeft), changed(t, 0));
        assert_eq!(run(t, 0, Edit::WordRight), changed(t, 9));
        assert_eq!(at(t, 9).position(), pos(0, 3, 6, 3));
        assert_eq!(TextEditor::from_parts(t, 1), None);

        let t = "한국어 단어";
        assert_eq!(t.len(), 16);
        assert_eq!(run(t, 16, Edit::WordLeft), changed(t, 10));
        assert_eq!(run(t, 16, Edit::DeleteWordBack), changed("한국어 ", 10));
        assert_eq!(run(t, 0, Edit::WordRight), changed(t, 9));

        // A syllable spelled as conjoining jamo is one grapheme of width 2.
        let t = "\u{1112}\u{1161}\u{11ab}";
        assert_eq!(t.len(), 9);
        assert_eq!(run(t, 9, Edit::Left), changed(t, 0));
        assert_eq!(run(t, 0, Edit::Delete), changed("", 0));
        assert_eq!(at(t, 9).position(), pos(0, 1, 2, 1));
        assert_eq!(TextEditor::from_parts(t, 3), None);
        assert_eq!(TextEditor::from_parts(t, 6), None);
    }

    #[test]
    fn wide_columns() {
        let t = "中文ab";
        assert_eq!(at(t, 3).position(), pos(0, 1, 2, 1));
        assert_eq!(at(t, 6).position(), pos(0, 2, 4, 2));
        assert_eq!(at(t, 8).position(), pos(0, 4, 6, 4));
        assert_eq!(at("a中b", 4).position(), pos(0, 2, 3, 2));
        assert_eq!(at("ab\n中x", 7).position(), pos(1, 2, 3, 5));
        assert_eq!(at("ab\n中x", 3).position(), pos(1, 0, 0, 3));
        assert_eq!(at("x\ty", 2).position(), pos(0, 2, 5, 2));
        assert_eq!(at("x\ty", 3).position(), pos(0, 3, 6, 3));
    }

    #[test]
    fn up_down_keep_column() {
        // Lines: "abcdef" 0..6, "中文字" 7..16, "xy" 17..19.
        let t = "abcdef\n中文字\nxy";
        assert_eq!(run(t, 3, Edit::Down), changed(t, 10));
        assert_eq!(at(t, 10).position(), pos(1, 1, 2, 8));
        assert_eq!(run(t, 4, Edit::Down), changed(t, 13));
        assert_eq!(run(t, 6, Edit::Down), changed(t, 16));
        assert_eq!(run(t, 10, Edit::Down), changed(t, 19));
        assert_eq!(run(t, 16, Edit::Down), changed(t, 19));
        assert_eq!(run(t, 19, Edit::Up), changed(t, 10));
        assert_eq!(run(t, 18, Edit::Up), changed(t, 7));
        assert_eq!(run(t, 13, Edit::Up), changed(t, 4));
        assert_eq!(run(t, 16, Edit::Up), changed(t, 6));
        assert_eq!(run(t, 0, Edit::Down), changed(t, 7));
        // Up on the first line goes to its start, Down on the last line to its end.
        assert_eq!(run(t, 3, Edit::Up), changed(t, 0));
        assert_eq!(run(t, 0, Edit::Up), same(t, 0));
        assert_eq!(run(t, 18, Edit::Down), changed(t, 19));
        assert_eq!(run(t, 19, Edit::Down), same(t, 19));

        // A tab counts four columns.
        let t = "\tab\nabcdefgh";
        assert_eq!(run(t, 9, Edit::Up), changed(t, 2));
        assert_eq!(run(t, 1, Edit::Down), changed(t, 8));

        let t = "ab\n\ncd";
        assert_eq!(run(t, 1, Edit::Down), changed(t, 3));
        assert_eq!(run(t, 3, Edit::Down), changed(t, 4));
        assert_eq!(run(t, 6, Edit::Up), changed(t, 3));

        // Never lands inside a decomposed letter or an emoji sequence.
        let t = "e\u{301}xy\nabc";
        assert_eq!(run(t, 7, Edit::Up), changed(t, 3));
        assert_eq!(run(t, 6, Edit::Up), changed(t, 0));
        let t = "a👩\u{200d}💻b\nabcd";
        assert_eq!(run(t, 16, Edit::Up), changed(t, 1));
        assert_eq!(run(t, 17, Edit::Up), changed(t, 12));
        assert_eq!(run(t, 12, Edit::Down), changed(t, 17));
    }

    /// The visual lines of `text` at `columns`, as their texts, a soft-wrapped one ending `⏎`
    /// when it ends a text line.
    fn laid(text: &str, columns: usize) -> Vec<String> {
        visual_lines(text, columns)
            .map(|line| {
                let mark = if line.ends_text_line { "⏎" } else { "" };
                format!("{}{mark}", &text[line.range])
            })
            .collect()
    }

    /// Applies `Up` (or `Down`) to `text` with the cursor at `cursor` in a box of `columns`.
    fn vertical(text: &str, cursor: usize, up: bool, columns: usize) -> usize {
        let mut editor = at(text, cursor);
        editor.apply_wrapped(if up { Edit::Up } else { Edit::Down }, columns);
        editor.cursor()
    }

    #[test]
    fn visual_lines_break_after_spaces_and_keep_one_hanging() {
        assert_eq!(laid("", 10), ["⏎"]);
        assert_eq!(laid("a\n\nb", 10), ["a⏎", "⏎", "b⏎"]);
        // A line that fits is one visual line, ending exactly at the box's columns.
        assert_eq!(laid("hello", 5), ["hello⏎"]);
        // The space after a full line hangs in the column kept for the cursor.
        assert_eq!(laid("hello world", 5), ["hello ", "world⏎"]);
        assert_eq!(laid("hello ", 5), ["hello ⏎"]);
        // A second space cannot hang: it starts the next line.
        assert_eq!(laid("hello  world", 5), ["hello ", " ", "world⏎"]);
        assert_eq!(
            laid("one two three four", 9),
            ["one two ", "three ", "four⏎"]
        );
        // A word longer than a line breaks inside it.
        assert_eq!(laid("abcdefghij", 4), ["abcd", "efgh", "ij⏎"]);
        assert_eq!(laid("ab abcdefghij", 4), ["ab ", "abcd", "efgh", "ij⏎"]);
        // A tab is four columns and breaks as a space does.
        assert_eq!(laid("abc\tdef", 6), ["abc\t", "def⏎"]);
        assert_eq!(laid("abcd\tef", 6), ["abcd", "\tef⏎"]);
        assert_eq!(laid("a\tbcdefg", 6), ["a\t", "bcdefg⏎"]);
        // Wide characters break beside each other; Hangul only at spaces.
        assert_eq!(laid("中文字符号", 5), ["中文", "字符", "号⏎"]);
        assert_eq!(laid("ab中文字", 5), ["ab中", "文字⏎"]);
        assert_eq!(laid("한국어 문장입니다", 8), ["한국어 ", "문장입니", "다⏎"]);
        // Graphemes are never split.
        assert_eq!(
            laid("e\u{301}e\u{301}e\u{301}", 2),
            ["e\u{301}e\u{301}", "e\u{301}⏎"]
        );
        assert_eq!(
            laid("👩\u{200d}💻👩\u{200d}💻", 3),
            ["👩\u{200d}💻", "👩\u{200d}💻⏎"]
        );
    }

    #[test]
    fn up_and_down_move_by_visual_lines() {
        // "hello " 0..6, "world " 6..12, "again" 12..17; then "xy" 18..20.
        let t = "hello world again\nxy";
        assert_eq!(laid(t, 6), ["hello ", "world ", "again⏎", "xy⏎"]);
        assert_eq!(vertical(t, 8, false, 6), 14);
        assert_eq!(vertical(t, 14, true, 6), 8);
        assert_eq!(vertical(t, 8, true, 6), 2);
        // On the first visual line, Up goes to the text's start; on the last, Down to its end.
        assert_eq!(vertical(t, 2, true, 6), 0);
        assert_eq!(vertical(t, 19, false, 6), 20);
        // From a text line's last visual line to the next text line, and back to its last.
        assert_eq!(vertical(t, 13, false, 6), 19);
        assert_eq!(vertical(t, 19, true, 6), 13);
        assert_eq!(vertical(t, 20, true, 6), 14);
        // A soft-wrapped line's end is the next line's start: the cursor stops before it.
        assert_eq!(vertical(t, 17, true, 6), 11);
        assert_eq!(vertical(t, 5, false, 6), 11);
        // The start of a soft-wrapped line stands on it, not on the line before.
        assert_eq!(vertical(t, 6, true, 6), 0);
        assert_eq!(vertical(t, 12, true, 6), 6);
        assert_eq!(vertical(t, 12, false, 6), 18);
        // Wide enough, the same text moves by its own lines.
        assert_eq!(vertical(t, 8, false, 80), 20);
        assert_eq!(vertical(t, 8, true, 80), 0);
        assert_eq!(vertical(t, 19, true, 80), 1);
        // Columns, not bytes or graphemes, are kept across wide characters.
        let t = "中文字符号";
        assert_eq!(laid(t, 5), ["中文", "字符", "号⏎"]);
        assert_eq!(vertical(t, 3, false, 5), 9);
        assert_eq!(vertical(t, 9, false, 5), 15);
        assert_eq!(vertical(t, 15, true, 5), 9);
        assert_eq!(vertical(t, 12, true, 5), 6);
    }

    #[test]
    fn insert_normalises() {
        let editor = TextEditor::with_text("a\r\nb\rc\n\rd");
        assert_eq!(editor.text(), "a\nb\nc\n\nd");
        assert_eq!(editor.cursor(), 8);

        let mut editor = at("xy", 1);
        editor.insert("1\r\n2");
        assert_eq!((editor.text(), editor.cursor()), ("x1\n2y", 4));

        let mut editor = TextEditor::new();
        editor.insert("a\u{0}b\u{7}\tc\u{1b}[0m\u{7f}\u{85}d");
        assert_eq!((editor.text(), editor.cursor()), ("ab\tc[0md", 8));

        editor.insert("\u{1b}\u{8}");
        assert_eq!((editor.text(), editor.cursor()), ("ab\tc[0md", 8));

        let mut editor = at("ab", 1);
        editor.insert("👩\u{200d}💻");
        assert_eq!((editor.text(), editor.cursor()), ("a👩\u{200d}💻b", 12));

        // A "\r\n" split over two inserts gives two line breaks.
        let mut editor = TextEditor::new();
        editor.insert("a\r");
        editor.insert("\nb");
        assert_eq!((editor.text(), editor.cursor()), ("a\n\nb", 4));
    }

    #[test]
    fn replace_swaps_a_range_and_moves_the_cursor_after_it() {
        let mut editor = at("see @sr now", 7);
        assert!(editor.replace(4..7, "@src/"));
        assert_eq!((editor.text(), editor.cursor()), ("see @src/ now", 9));

        let mut editor = at("ab", 2);
        assert!(editor.replace(1..1, "x\r\ny\u{7}"));
        assert_eq!((editor.text(), editor.cursor()), ("ax\nyb", 4));

        let mut editor = at("ab", 2);
        assert!(editor.replace(0..2, ""));
        assert_eq!((editor.text(), editor.cursor()), ("", 0));

        let mut editor = at("e\u{301}x", 0);
        let before = editor.clone();
        assert!(!editor.replace(1..3, "y"));
        assert!(!editor.replace(Range { start: 2, end: 1 }, "y"));
        assert!(!editor.replace(0..5, "y"));
        assert_eq!(editor, before);
    }

    #[test]
    fn cursor_stays_on_boundary_when_graphemes_join() {
        let mut editor = at("\u{301}x", 0);
        editor.insert("e");
        assert_eq!((editor.text(), editor.cursor()), ("e\u{301}x", 3));

        let mut editor = at("🇸🇫", 0);
        editor.insert("🇺");
        assert_eq!((editor.text(), editor.cursor()), ("🇺🇸🇫", 8));

        assert_eq!(run("e\n\u{301}", 1, Edit::Delete), changed("e\u{301}", 0));
        assert_eq!(
            run("e\n\u{301}", 2, Edit::Backspace),
            changed("e\u{301}", 0)
        );
    }

    #[test]
    fn from_parts_validates() {
        assert_eq!(TextEditor::from_parts("", 0), Some(TextEditor::new()));
        assert_eq!(TextEditor::from_parts("", 1), None);
        assert_eq!(TextEditor::from_parts("ab", 3), None);
        assert_eq!(TextEditor::from_parts("é", 1), None);
        assert_eq!(TextEditor::from_parts("e\u{301}", 1), None);
        assert_eq!(TextEditor::from_parts("a\rb", 0), None);
        assert_eq!(TextEditor::from_parts("a\u{1b}", 0), None);
        let editor = TextEditor::from_parts("a\tb\nc", 4).expect("valid");
        assert_eq!((editor.text(), editor.cursor()), ("a\tb\nc", 4));
        assert_eq!(editor.position(), pos(1, 0, 0, 4));
        assert_eq!(
            TextEditor::from_parts("e\u{301}", 3),
            Some(TextEditor::with_text("e\u{301}"))
        );
    }

    #[test]
    fn every_edit_from_every_position_keeps_invariants() {
        let text = "aé e\u{301}👩\u{200d}💻 🇰🇷\n한국어 中x\tb\n\n👍🏽!";
        let boundaries: Vec<usize> = (0..=text.len())
            .filter(|&i| TextEditor::from_parts(text, i).is_some())
            .collect();
        let expected: Vec<usize> = text
            .grapheme_indices(true)
            .map(|(i, _)| i)
            .chain([text.len()])
            .collect();
        assert_eq!(boundaries, expected);
        assert_eq!(boundaries.len(), 21);

        let mut changes = [0usize; ALL_EDITS.len()];
        for &cursor in &boundaries {
            for (index, edit) in ALL_EDITS.into_iter().enumerate() {
                let before = at(text, cursor);
                let mut after = before.clone();
                let did_change = after.apply(edit);
                assert_eq!(did_change, after != before, "{edit:?} at {cursor}");
                assert!(after.cursor() <= after.text().len());
                assert!(after.text().is_char_boundary(after.cursor()));
                assert_eq!(
                    TextEditor::from_parts(after.text(), after.cursor()).as_ref(),
                    Some(&after),
                    "{edit:?} at {cursor} left {after:?}"
                );
                let old = before.position().offset;
                let new = after.position().offset;
                match edit {
                    Edit::Left if did_change => {
                        assert_eq!(after.text(), text);
                        assert_eq!(new + 1, old);
                    }
                    Edit::Right if did_change => {
                        assert_eq!(after.text(), text);
                        assert_eq!(new, old + 1);
                    }
                    Edit::Backspace if did_change => {
                        assert_eq!(after.text().graphemes(true).count(), 19);
                        assert_eq!(new + 1, old);
                    }
                    Edit::Delete if did_change => {
                        assert_eq!(after.text().graphemes(true).count(), 19);
                        assert_eq!(new, old);
                    }
                    _ => {}
                }
                changes[index] += usize::from(did_change);
            }
        }
        // 21 positions on 4 lines holding 8, 9, 1 and 3 positions: one-step
        // and word edits fail only at a text edge, line edits at the 4 line
        // starts or ends, Up at the very start and Down at the very end.
        assert_eq!(
            changes,
            [20, 20, 17, 17, 20, 20, 20, 20, 20, 20, 20, 17, 17, 21]
        );
    }

    /// Characters whose grapheme rules differ: ASCII (with `\r\n`), controls, precomposed and
    /// combining accents, emoji with skin tones and joiners, flags, Hangul jamo, a prepended
    /// mark, a spacing mark and an Indic conjunct.
    const TRICKY: &[&str] = &[
        "a",
        "Z",
        " ",
        "_",
        "\n",
        "\t",
        "\r",
        "\u{0}",
        "\u{7f}",
        "é",
        "\u{301}",
        "\u{200d}",
        "👍",
        "\u{1f3fb}",
        "🇫",
        "🇷",
        "\u{1100}",
        "\u{1161}",
        "\u{11a8}",
        "\u{600}",
        "\u{903}",
        "क",
        "\u{94d}",
        "한",
    ];

    /// Checks the boundary functions, ASCII fast paths included, against the general
    /// segmentation at every offset of `text`.
    fn check_boundaries(text: &str) -> Result<(), String> {
        let len = text.len();
        for at in 0..=len + 1 {
            let general = text.is_char_boundary(at)
                && GraphemeCursor::new(at, len, true)
                    .is_boundary(text, 0)
                    .unwrap_or(false);
            if is_grapheme_boundary(text, at) != general {
                return Err(format!("{text:?}: is a boundary at {at}"));
            }
            if !text.is_char_boundary(at) {
                continue;
            }
            let cursor = || GraphemeCursor::new(at, len, true);
            let prev = cursor().prev_boundary(text, 0).ok().flatten().unwrap_or(0);
            if prev_boundary(text, at) != prev {
                return Err(format!("{text:?}: boundary before {at}"));
            }
            let next = cursor()
                .next_boundary(text, 0)
                .ok()
                .flatten()
                .unwrap_or(len);
            if next_boundary(text, at) != next {
                return Err(format!("{text:?}: boundary after {at}"));
            }
        }
        Ok(())
    }

    #[test]
    fn boundaries_next_to_ascii() {
        for text in [
            "",
            "a",
            "ab c",
            "a\r\nb",
            "\r\n",
            "e\u{301}x",
            "x\u{600}a",
            "a\u{903}",
            "👍\u{1f3fb}a\u{200d}👍",
            "🇫🇷a",
            "a한\u{11a8}b",
        ] {
            check_boundaries(text).unwrap();
        }
    }

    proptest::proptest! {
        /// The boundary functions answer what the general segmentation answers, in any text.
        #[test]
        fn boundaries_match_the_segmenter(
            parts in proptest::collection::vec(proptest::sample::select(TRICKY), 0..12)
        ) {
            check_boundaries(&parts.concat()).map_err(proptest::test_runner::TestCaseError::fail)?;
        }

        /// Visual lines cover the text in order, line breaks aside, start and end on grapheme
        /// boundaries, are never wider than their columns and one hanging space (but for a
        /// grapheme wider than that, alone on its line), and hold
        /// every cursor position exactly once; Up and Down land on a boundary.
        #[test]
        fn visual_lines_hold_every_cursor_once(
            parts in proptest::collection::vec(proptest::sample::select(TRICKY), 0..16),
            columns in 4usize..12,
        ) {
            let text = TextEditor::with_text(&parts.concat()).text().to_owned();
            let lines: Vec<VisualLine> = visual_lines(&text, columns).collect();
            let mut next = 0;
            for line in &lines {
                proptest::prop_assert_eq!(line.range.start, next);
                proptest::prop_assert!(is_grapheme_boundary(&text, line.range.end));
                proptest::prop_assert!(line.range.start < line.range.end || line.ends_text_line);
                let shown = &text[line.range.clone()];
                // Only a single grapheme wider than a line can overflow it.
                let fits = display_width(shown) <= columns + 1 || shown.graphemes(true).count() == 1;
                proptest::prop_assert!(fits, "{:?} at {}", text, columns);
                next = line.range.end + usize::from(line.ends_text_line);
            }
            proptest::prop_assert_eq!(next, text.len() + 1);
            for at in (0..=text.len()).filter(|&at| is_grapheme_boundary(&text, at)) {
                proptest::prop_assert_eq!(lines.iter().filter(|l| l.holds(at)).count(), 1);
                for edit in [Edit::Up, Edit::Down] {
                    let mut editor = TextEditor::from_parts(&text, at).expect("a boundary");
                    editor.apply_wrapped(edit, columns);
                    proptest::prop_assert!(is_grapheme_boundary(&text, editor.cursor()));
                }
            }
        }
    }
}
