//! A rendered screen line: text cut into spans of one style each. Plain data that the
//! renderer fills and the protocol sends as `lines`; the style names are the fixed set the
//! renderer's documentation lists.

use serde::Serialize;
use unicode_width::UnicodeWidthStr;

/// The style of a span; see the module documentation for what each is used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// Ordinary text.
    Text,
    /// Titles and prompts.
    Title,
    /// What is active or focused.
    Accent,
    /// Answers and selections.
    Success,
    /// Secondary text and what is empty.
    Muted,
    /// Descriptions, markers and separators.
    Dim,
    /// Notes.
    Warning,
    /// Labels of selected rows.
    Selected,
    /// The editor's cursor.
    Cursor,
    /// Rules and unfocused borders.
    Border,
}

/// A piece of a line in one style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Span<'a> {
    /// The text (never containing a line break or a control character).
    pub text: &'a str,
    /// Its style.
    pub style: Style,
}

/// One screen line: its text, cut into spans of one style each. It serialises as the list
/// of its spans.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Line {
    text: String,
    /// Each span's style and the byte offset in `text` where the span ends.
    ends: Vec<(Style, usize)>,
}

impl Line {
    /// A line of `text` whose spans end at the byte offsets of `ends`, in order, each with its
    /// style (the renderer's way to hand over what it laid out).
    pub(crate) fn from_parts(text: String, ends: Vec<(Style, usize)>) -> Line {
        debug_assert!(ends.windows(2).all(|w| w[0].1 < w[1].1));
        debug_assert!(ends.last().is_none_or(|&(_, end)| end == text.len()));
        Line { text, ends }
    }

    /// The spans, in order; none is empty.
    pub fn spans(&self) -> impl ExactSizeIterator<Item = Span<'_>> + Clone {
        let mut start = 0;
        self.ends.iter().map(move |&(style, end)| {
            let text = &self.text[start..end];
            start = end;
            Span { text, style }
        })
    }

    /// The text of the whole line.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The width of the line in terminal columns.
    pub fn width(&self) -> usize {
        self.spans().map(|span| span.text.width()).sum()
    }
}

impl Serialize for Line {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.spans())
    }
}
