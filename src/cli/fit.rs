//! The part of a screen that a terminal too short for it shows: the header (the lines before
//! the first blank one: the rule, the title, the tabs) and the footer (the lines after the last
//! blank one: the key hints and the progress) stay where they are, and the body between them
//! scrolls just enough to keep the focus in sight — the line of the editor's cursor with the
//! rest of its editor box, else the active row or review action (the `❯` pointer). When the
//! focus does not fit with both, the header goes first, then the footer; a focus taller than
//! the terminal shows the part around the cursor's line.
//!
//! The same rule as the Neovim client's float (its `layout.fit`), so that a flow scrolls alike
//! wherever it is answered.

use crate::view::{Line, Style};

/// The pointer the renderer draws before the active row or review action.
const POINTER: &str = "❯";

/// What a screen `height` rows tall shows of `lines`, scrolled from `top` (the first body line
/// shown last time, 0 at first): the lines to draw, and the `top` to pass next time.
pub fn fit(lines: &[Line], height: usize, top: usize) -> (Vec<&Line>, usize) {
    let count = lines.len();
    let height = height.max(1);
    if count <= height {
        return (lines.iter().collect(), 0);
    }
    let blank = |line: &Line| line.text().trim().is_empty();
    let header = lines.iter().position(blank).unwrap_or(0);
    let footer = lines.iter().rposition(blank).map_or(count, |i| i + 1);
    let (header, footer) = if header < footer {
        (header, footer)
    } else {
        (0, count)
    };
    let focus = focus_lines(lines);
    let needed = focus.as_ref().map_or(1, |range| range.len());
    // What stays pinned: the header and the footer while the focus fits beside them.
    let footer_rows = count - footer;
    let (show_header, show_footer) = if needed + header + footer_rows <= height {
        (true, true)
    } else if needed + footer_rows <= height {
        (false, true)
    } else {
        (false, false)
    };
    let (start, end) = (
        if show_header { header } else { 0 },
        if show_footer { footer } else { count },
    );
    let room =
        height - if show_header { header } else { 0 } - if show_footer { footer_rows } else { 0 };
    // The body scrolls in lines start..end; `top` is kept in body coordinates.
    let body_len = end - start;
    let mut top = top.min(body_len.saturating_sub(room));
    if let Some(range) = focus {
        let first = range.start.saturating_sub(start);
        let last = (range.end - 1).saturating_sub(start).min(body_len - 1);
        // A focus taller than the room shows from its cursor line.
        let (first, last) = if last - first + 1 > room {
            let cursor = cursor_line(lines).map_or(first, |c| c.saturating_sub(start));
            (cursor, (cursor + room - 1).min(last))
        } else {
            (first, last)
        };
        if last < room {
            top = 0;
        } else if first < top {
            top = first;
        } else if last >= top + room {
            top = last + 1 - room;
        }
    }
    let top = top.min(body_len.saturating_sub(room));
    let mut shown: Vec<&Line> = Vec::with_capacity(height);
    if show_header {
        shown.extend(&lines[..header]);
    }
    shown.extend(&lines[start + top..start + (top + room).min(body_len)]);
    if show_footer {
        shown.extend(&lines[footer..]);
    }
    (shown, top)
}

/// The line holding the editor's cursor.
fn cursor_line(lines: &[Line]) -> Option<usize> {
    lines
        .iter()
        .position(|line| line.spans().any(|span| span.style == Style::Cursor))
}

/// The lines to keep in sight: the editor's cursor line through the bottom edge (`╰`) of its
/// box, else the active row or action's line; `None` when there is neither.
fn focus_lines(lines: &[Line]) -> Option<std::ops::Range<usize>> {
    if let Some(cursor) = cursor_line(lines) {
        let end = lines[cursor + 1..]
            .iter()
            .take_while(|line| !line.text().trim().is_empty())
            .position(|line| line.text().contains('╰'))
            .map_or(cursor, |i| cursor + 1 + i);
        return Some(cursor..end + 1);
    }
    lines
        .iter()
        .position(|line| {
            line.spans()
                .any(|span| span.style == Style::Accent && span.text.contains(POINTER))
        })
        .map(|i| i..i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line of one span.
    fn line(text: &str, style: Style) -> Line {
        if text.is_empty() {
            return Line::default();
        }
        Line::from_parts(text.to_owned(), vec![(style, text.len())])
    }

    /// A line of several spans.
    fn spans(parts: &[(&str, Style)]) -> Line {
        let mut text = String::new();
        let mut ends = Vec::new();
        for &(part, style) in parts {
            text.push_str(part);
            ends.push((style, text.len()));
        }
        Line::from_parts(text, ends)
    }

    /// A screen: a header of 3, a blank, `rows` rows (the `active` one with the pointer), a
    /// blank and a footer of 2.
    fn screen(rows: usize, active: usize) -> Vec<Line> {
        let mut lines = vec![
            line("────", Style::Border),
            line(" Title", Style::Title),
            line(" [Tab]", Style::Accent),
            line("", Style::Text),
        ];
        for i in 0..rows {
            if i == active {
                lines.push(line(&format!(" ❯ {}", i + 1), Style::Accent));
            } else {
                lines.push(line(&format!("   {}", i + 1), Style::Text));
            }
        }
        lines.push(line("", Style::Text));
        lines.push(line(" hints", Style::Muted));
        lines.push(line(" 0/1 answered", Style::Muted));
        lines
    }

    fn texts(shown: &[&Line]) -> Vec<String> {
        shown.iter().map(|l| l.text().to_owned()).collect()
    }

    #[test]
    fn a_screen_that_fits_is_shown_whole() {
        let lines = screen(3, 0);
        let (shown, top) = fit(&lines, 20, 5);
        assert_eq!(shown.len(), lines.len());
        assert_eq!(top, 0);
    }

    #[test]
    fn the_header_and_hints_stay_while_the_body_scrolls_to_the_active_row() {
        let lines = screen(50, 40);
        let (shown, top) = fit(&lines, 10, 0);
        assert_eq!(
            texts(&shown),
            [
                "────",
                " Title",
                " [Tab]",
                "   37",
                "   38",
                "   39",
                "   40",
                " ❯ 41",
                " hints",
                " 0/1 answered"
            ]
        );
        // The body starts with the blank line after the header: row 41 is its line 41.
        assert_eq!(top, 37);
        // Moving up within the shown rows keeps the view; above it, the view follows.
        let lines = screen(50, 38);
        let (shown, again) = fit(&lines, 10, top);
        assert_eq!(again, 37);
        assert_eq!(
            texts(&shown)[3..8],
            ["   37", "   38", " ❯ 39", "   40", "   41"]
        );
        let lines = screen(50, 20);
        let (shown, up) = fit(&lines, 10, top);
        assert_eq!(up, 21);
        assert_eq!(texts(&shown)[3], " ❯ 21");
    }

    #[test]
    fn the_top_shows_whenever_the_focus_fits_with_it() {
        let lines = screen(50, 2);
        let (shown, top) = fit(&lines, 10, 30);
        assert_eq!(top, 0);
        assert_eq!(texts(&shown)[3..8], ["", "   1", "   2", " ❯ 3", "   4"]);
    }

    #[test]
    fn an_open_editor_box_is_kept_whole_in_sight() {
        let mut lines = screen(5, 9);
        let at = lines.len() - 3;
        let editor = [
            line(" ╭─ Type ─╮", Style::Border),
            spans(&[
                (" │ draft", Style::Text),
                ("▌", Style::Cursor),
                (" │", Style::Text),
            ]),
            line(" │        │", Style::Border),
            line(" ╰────────╯", Style::Border),
        ];
        lines.splice(at..at, editor);
        let (shown, _) = fit(&lines, 9, 0);
        assert_eq!(
            texts(&shown),
            [
                "────",
                " Title",
                " [Tab]",
                " ╭─ Type ─╮",
                " │ draft▌ │",
                " │        │",
                " ╰────────╯",
                " hints",
                " 0/1 answered"
            ]
        );
        // Too short for the box, the header and the footer: the header goes first, then the
        // footer, and the cursor's line always shows.
        let (shown, _) = fit(&lines, 5, 0);
        assert_eq!(
            texts(&shown),
            [
                " │ draft▌ │",
                " │        │",
                " ╰────────╯",
                " hints",
                " 0/1 answered"
            ]
        );
        let (shown, _) = fit(&lines, 2, 0);
        assert_eq!(texts(&shown), [" │ draft▌ │", " │        │"]);
    }
}
