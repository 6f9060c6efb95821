//! The rules above and below a screen and the tab bar.

use super::MARGIN;
use super::laid::{Laid, margin};
use super::wrap::{glued, seg, wrap};
use crate::view::line::Style;
use crate::view::model::{TabKind, TabView};

pub(super) fn rule(out: &mut Vec<Laid>, width: usize) {
    let mut line = Laid::default();
    line.repeat("─", width, Style::Border);
    out.push(line);
}

pub(super) fn tab_bar(out: &mut Vec<Laid>, tabs: &[TabView], width: usize) {
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
