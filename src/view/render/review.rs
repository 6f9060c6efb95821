//! The review screen and the end of a flow.

use super::laid::{Laid, indent, margin};
use super::targets::Marks;
use super::wrap::{marked, seg, wrap};
use super::{MARGIN, NUMBER, POINTER};
use crate::core::CancelReason;
use crate::view::line::Style;
use crate::view::model::{OutcomeView, ReviewView, TargetView};

pub(super) fn review_screen(
    out: &mut Vec<Laid>,
    review: &ReviewView,
    width: usize,
    marks: &mut Marks,
) {
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
    for (tab, q) in review.questions.iter().enumerate() {
        let start = out.len();
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
        // A question's lines lead to its tab.
        if marks.offer.tabs {
            marks.lines(start..out.len(), 0..width, TargetView::tab(tab));
        }
    }
    out.push(Laid::default());
    for (index, action) in review.actions.iter().enumerate() {
        let start = out.len();
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
        if marks.offer.actions {
            marks.lines(start..out.len(), 0..width, TargetView::action(index));
        }
    }
}

/// The end of a flow: submitted, sent back, declined, or the words of why it was cancelled.
pub(super) fn ending(
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
