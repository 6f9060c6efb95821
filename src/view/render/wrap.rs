//! Wrapping text into lines: segments split into graphemes, greedy line filling with hanging
//! indents, the fast path of plain text, blocks of multi-line text, and text cut to a width.

use super::MIN_ROOM;
use super::laid::{Laid, indent};
use crate::core::is_hangul;
use crate::view::line::Style;
use std::borrow::Cow;
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// A piece of text to wrap.
#[derive(Debug, Clone, Copy)]
pub(super) struct Seg<'a> {
    text: &'a str,
    style: Style,
    /// Its spaces do not break (a key hint, a tab).
    glue: bool,
}

pub(super) fn seg(text: &str, style: Style) -> Seg<'_> {
    Seg {
        text,
        style,
        glue: false,
    }
}

pub(super) fn glued(text: &str, style: Style) -> Seg<'_> {
    Seg {
        text,
        style,
        glue: true,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Part of a word.
    Word,
    /// A breakable space.
    Space,
    /// A line break in the text.
    Break,
}

/// One grapheme ready for layout, or a run of printable ASCII graphemes laid out together.
#[derive(Debug, Clone, Copy)]
pub(super) struct Grapheme<'a> {
    pub(super) text: &'a str,
    pub(super) style: Style,
    pub(super) width: usize,
    pub(super) kind: Kind,
    /// A line may break before and after it (a wide character of a script written without
    /// spaces between words).
    pub(super) loose: bool,
    /// A glued space: it breaks only when its word is longer than a line.
    pub(super) soft: bool,
    /// A run of one-column graphemes (printable ASCII other than space) inside one word,
    /// placed whole when it fits and one grapheme at a time when it does not.
    pub(super) run: bool,
}

/// Splits segments into graphemes, mapping tabs and control characters to what is drawn.
pub(super) fn graphemes<'a>(segs: &[Seg<'a>]) -> Vec<Grapheme<'a>> {
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
pub(super) fn plain_char(c: char) -> bool {
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
pub(super) fn push_grapheme<'a>(out: &mut Vec<Grapheme<'a>>, s: &Seg<'a>, g: &'a str) {
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
pub(super) struct Wrapper<'o> {
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
pub(super) fn marked(
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
pub(super) fn wrap(out: &mut Vec<Laid>, first: Laid, hanging: usize, segs: &[Seg], width: usize) {
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
pub(super) fn lay_out(
    out: &mut Vec<Laid>,
    first: Laid,
    hanging: usize,
    gs: &[Grapheme],
    width: usize,
) {
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
pub(super) fn fit_plain(
    mut first: Laid,
    hanging: usize,
    segs: &[Seg],
    width: usize,
) -> Result<Laid, Laid> {
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
pub(super) fn block(out: &mut Vec<Laid>, at: usize, text: &str, style: Style, width: usize) {
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
pub(super) fn plain_columns(text: &str) -> Option<usize> {
    // Printable ASCII is one byte a character, so the prefix ends at a character boundary.
    let ascii = printable_ascii_prefix(text.as_bytes());
    text[ascii..]
        .chars()
        .try_fold(ascii, |n, c| (c == ' ' || plain_char(c)).then_some(n + 1))
}

/// How many bytes at the start of `bytes` are printable ASCII (space to `~`), looked at eight
/// at a time.
pub(super) fn printable_ascii_prefix(bytes: &[u8]) -> usize {
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
pub(super) fn fit(text: &str, max: usize) -> (Cow<'_, str>, usize) {
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
pub(super) fn fit_end(text: &str, max: usize) -> (String, usize) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::line::Line;

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
