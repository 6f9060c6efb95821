//! The help overlay: the bindings by context, keys in a column.

use super::footer::hint_keys;
use super::laid::{Laid, indent, margin};
use super::wrap::{fit, seg, wrap};
use super::{MARGIN, POINTER};
use crate::view::line::Style;
use crate::view::model::HelpView;
use unicode_width::UnicodeWidthStr;

/// The help overlay in place of the question or review: its title, then per context a heading
/// and one line per binding, the keys in a column of their own (at most half the width) and
/// what they do beside them.
pub(super) fn help_screen(out: &mut Vec<Laid>, help: &HelpView, width: usize) {
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
