//! Editor boxes: where a box stands and how wide it is, its text and cursor, the `@` completion
//! list under it, and the rounded frame boxes are drawn in.

use super::laid::{Laid, indent};
use super::question::{note_box_width, row_box_width, rows_width};
use super::wrap::{fit, fit_end, seg, wrap};
use super::{MAX_EDITOR_LINES, MAX_WIDTH, MIN_WIDTH, POINTER};
use crate::core::{TAB_WIDTH, display_width, visual_lines};
use crate::view::line::Style;
use crate::view::model::{CompletionView, EditorView};
use unicode_segmentation::UnicodeSegmentation;

/// The columns an editor box `box_width` wide lays its text out in: its inside less the column
/// kept for the cursor at the end of a line.
pub(super) fn editor_text_columns(box_width: usize) -> usize {
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
/// cursor, or the placeholder while empty; then its completion list, whose first line in
/// `out` it gives (the end of `out` when no list is open).
pub(super) fn editor_box(
    out: &mut Vec<Laid>,
    e: &EditorView,
    title: &str,
    at: usize,
    box_width: usize,
) -> usize {
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
    let list = out.len();
    if let Some(completion) = &e.completion {
        completion_list(out, completion, at + 2, box_width - 2);
    }
    list
}

/// Appends a piece of an editor's text (normalised: no control characters but tabs) in
/// `style`, a tab as four spaces.
pub(super) fn editor_run(line: &mut Laid, text: &str, style: Style) {
    for (i, piece) in text.split('\t').enumerate() {
        if i > 0 {
            line.repeat(" ", TAB_WIDTH, style);
        }
        line.push(piece, style, display_width(piece));
    }
}

/// The `@` completion list under an editor box: one path per line (directories ending in
/// `/`), the highlighted one with a pointer; a path too long for the room keeps its end.
pub(super) fn completion_list(
    out: &mut Vec<Laid>,
    completion: &CompletionView,
    at: usize,
    room: usize,
) {
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
pub(super) fn frame(
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
pub(super) fn border_line(
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
