//! A question screen: the prompt, its detail or plan, the filter line, the window of rows with
//! what goes under each, the preview, and the question note.

use super::editor::{editor_box, frame};
use super::laid::{Laid, indent, margin};
use super::targets::Marks;
use super::wrap::{block, glued, marked, seg, wrap};
use super::{
    BOX_INDENT, KeptLines, MARGIN, NUMBER, NUMBERS, POINTER, REMEMBERED_ROWS, SIDE_BY_SIDE_WIDTH,
    remembered,
};
use crate::core::{EditorKind, QuestionType};
use crate::view::line::Style;
use crate::view::model::{EditorView, FilterView, QuestionView, RowView, TargetView};
use crate::view::recent::Recent;
use unicode_segmentation::UnicodeSegmentation;

pub(super) fn question_screen(
    out: &mut Vec<Laid>,
    q: &QuestionView,
    editor: Option<&EditorView>,
    filter: Option<&FilterView>,
    width: usize,
    row_memo: Option<&mut Recent<KeptLines<RowKey>, REMEMBERED_ROWS>>,
    marks: &mut Marks,
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
        let start = out.len();
        filter_line(out, filter, width);
        if marks.offer.filter {
            marks.lines(start..out.len(), 0..width, TargetView::filter(true));
        }
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
        // The rows are laid out apart, then each line beside the preview's.
        marks.offset = out.len();
        rows(&mut left, q, editor, approve, left_width, row_memo, marks);
        marks.offset = 0;
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
        rows(out, q, editor, approve, width, row_memo, marks);
        if previews {
            out.push(Laid::default());
            preview_box(out, q, MARGIN, width - 2 * MARGIN);
        }
    }
    match editor {
        Some(e) if e.target.kind == "questionNote" => {
            out.push(Laid::default());
            let list = editor_box(out, e, "Question note", MARGIN, note_box_width(width));
            completion_targets(marks, e, list, width);
        }
        _ => {
            if let Some(note) = &q.note {
                out.push(Laid::default());
                let mut first = margin();
                first.text("✎ Note: ", Style::Warning);
                let start = out.len();
                wrap(out, first, MARGIN + 2, &[seg(note, Style::Warning)], width);
                if marks.offer.question_note {
                    let target = TargetView::editor(EditorKind::QuestionNote);
                    marks.lines(start..out.len(), 0..width, target);
                }
            }
        }
    }
}

/// The filter of a long list: `/ text` (with the cursor while its editor is open), then how
/// many options match (`12 of 1000 match`), or that none does.
pub(super) fn filter_line(out: &mut Vec<Laid>, filter: &FilterView, width: usize) {
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

/// The rows of a question (a window of them when there are many), each with what goes under it.
pub(super) fn rows(
    out: &mut Vec<Laid>,
    q: &QuestionView,
    editor: Option<&EditorView>,
    approve: Option<&str>,
    width: usize,
    mut memo: Option<&mut Recent<KeptLines<RowKey>, REMEMBERED_ROWS>>,
    marks: &mut Marks,
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
        let start = out.len();
        let own = match (edited, memo.as_deref_mut()) {
            (None, Some(memo)) => {
                remembered_row(out, memo, row, shape);
                out.len()
            }
            _ => {
                let own = row_lines(out, row, shape, edited);
                if let Some(e) = edited {
                    completion_targets(marks, e, own.1, width);
                }
                own.0
            }
        };
        // A row is its label, its description, its custom text and its note: not the box of
        // an editor under it.
        if marks.offer.rows {
            marks.lines(start..own, 0..width, TargetView::row(row.index));
        }
    }
    if q.rows_below > 0 {
        more(out, "↓", q.rows_below, width);
    }
}

/// What a row's lines depend on besides the row itself.
#[derive(Debug, Clone, Copy)]
pub(super) struct RowShape<'a> {
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
pub(super) struct RowKey {
    row: RowView,
    multi: bool,
    approves: bool,
    custom_text: Option<String>,
    width: usize,
}

/// Appends the lines of `row` (which no editor edits), kept in `memo` for an equal row of the
/// same shape or laid out here (see [`remembered`]).
pub(super) fn remembered_row(
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
        |out| {
            row_lines(out, row, shape, None);
        },
    );
}

/// Appends the lines of one row: its label, its description, and the box of `editor` (which
/// edits the row) or else its custom answer and note. Gives where the box starts in `out` and
/// where its completion list starts (both the end of `out` without an editor).
pub(super) fn row_lines(
    out: &mut Vec<Laid>,
    row: &RowView,
    shape: RowShape,
    editor: Option<&EditorView>,
) -> (usize, usize) {
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
            let own = out.len();
            let list = editor_box(out, e, &title, BOX_INDENT, row_box_width(width));
            (own, list)
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
            (out.len(), out.len())
        }
    }
}

/// The items of the completion list of editor `e`, from line `list` of the screen.
fn completion_targets(marks: &mut Marks, e: &EditorView, list: usize, width: usize) {
    if let (true, Some(completion)) = (marks.offer.completion, &e.completion) {
        for i in 0..completion.items.len() {
            marks.lines(list + i..list + i + 1, 0..width, TargetView::completion(i));
        }
    }
}

/// Whether the open editor edits `row` (its custom answer or its option note).
pub(super) fn edits_row(editor: &EditorView, row: &RowView) -> bool {
    match editor.target.kind {
        "custom" => row.custom,
        "optionNote" => !row.custom && editor.target.option_value.as_deref() == Some(&row.value),
        _ => false,
    }
}

/// A `↑ N more` / `↓ N more` marker.
pub(super) fn more(out: &mut Vec<Laid>, arrow: &str, n: usize, width: usize) {
    let text = format!("{arrow} {n} more");
    wrap(
        out,
        indent(MARGIN + POINTER),
        MARGIN + POINTER,
        &[seg(&text, Style::Dim)],
        width,
    );
}

pub(super) fn preview_box(out: &mut Vec<Laid>, q: &QuestionView, at: usize, box_width: usize) {
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
pub(super) fn rows_width(width: usize, previews: bool) -> usize {
    if previews && width >= SIDE_BY_SIDE_WIDTH {
        width * 2 / 5
    } else {
        width
    }
}

/// The width of the box of an editor under a row, in rows `rows_width` wide.
pub(super) fn row_box_width(rows_width: usize) -> usize {
    rows_width - BOX_INDENT - MARGIN
}

/// The width of the box of a question note's editor on a screen `width` wide.
pub(super) fn note_box_width(width: usize) -> usize {
    width - 2 * MARGIN
}
