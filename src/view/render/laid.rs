//! `Laid`, a line being built, and the indents lines start with.

use super::wrap::plain_columns;
use super::{LINE_BYTES, LINE_SPANS, MARGIN, RULE, SPACES};
use crate::view::line::{Line, Style};
use unicode_width::UnicodeWidthStr;

/// A line being built: its text in one buffer, the style of each span with where the span
/// ends in it, and its width.
#[derive(Debug, Clone, Default)]
pub(super) struct Laid {
    pub(super) text: String,
    pub(super) spans: Vec<(Style, usize)>,
    pub(super) width: usize,
}

impl Laid {
    /// Appends `text` of `width` columns, merging it into the last span when the style matches.
    pub(super) fn push(&mut self, text: &str, style: Style, width: usize) {
        if text.is_empty() {
            return;
        }
        self.reserve(text.len());
        self.text.push_str(text);
        self.close(style);
        self.width += width;
    }

    /// Makes room for `bytes` more bytes, allocating room for a whole line at the first text.
    pub(super) fn reserve(&mut self, bytes: usize) {
        if self.text.capacity() == 0 {
            self.text = String::with_capacity(bytes.max(LINE_BYTES));
            self.spans = Vec::with_capacity(LINE_SPANS);
        } else {
            self.text.reserve(bytes);
        }
    }

    /// Ends the last span at the end of the text, or starts a span of `style` there.
    pub(super) fn close(&mut self, style: Style) {
        let end = self.text.len();
        match self.spans.last_mut() {
            Some((last, at)) if *last == style => *at = end,
            _ => self.spans.push((style, end)),
        }
    }

    /// Appends text whose width is measured here (counted when it is plain).
    pub(super) fn text(&mut self, text: &str, style: Style) {
        let width = plain_columns(text).unwrap_or_else(|| text.width());
        self.push(text, style, width);
    }

    /// Appends `n` spaces.
    pub(super) fn spaces(&mut self, n: usize) {
        self.repeat(" ", n, Style::Text);
    }

    /// Appends `piece` (one column wide, a space or `─`) `n` times.
    pub(super) fn repeat(&mut self, piece: &str, n: usize, style: Style) {
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
    pub(super) fn append(&mut self, other: Laid) {
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
    pub(super) fn has(&self, style: Style) -> bool {
        self.spans.iter().any(|&(s, _)| s == style)
    }

    /// The finished line.
    pub(super) fn into_line(self) -> Line {
        Line::from_parts(self.text, self.spans)
    }
}

/// A line holding `n` spaces.
pub(super) fn indent(n: usize) -> Laid {
    let mut line = Laid::default();
    line.spaces(n);
    line
}

/// A line holding the left margin.
pub(super) fn margin() -> Laid {
    indent(MARGIN)
}
