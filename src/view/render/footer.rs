//! What closes a screen: the notices of the behaviour options, the key hints and the status
//! line.

use super::MARGIN;
use super::laid::{Laid, margin};
use super::wrap::{glued, seg, wrap};
use crate::view::line::Style;
use crate::view::model::{Hint, NoticeKind, NoticeView, ProgressView};

/// The status line under the hints of an open flow: the progress (`1/3 answered`) when the flow
/// has more than one question, then the keys of a key sequence waiting for the next
/// (`pending: g`, as Vim's `showcmd`); no line when there is neither.
pub(super) fn status_line(
    out: &mut Vec<Laid>,
    progress: ProgressView,
    pending: Option<&str>,
    width: usize,
) {
    let answered =
        (progress.total > 1).then(|| format!("{}/{} answered", progress.answered, progress.total));
    let shown: Option<String> = pending.map(|keys| keys.split(' ').map(key_label).collect());
    let mut segs = Vec::with_capacity(4);
    if let Some(answered) = &answered {
        segs.push(glued(answered, Style::Dim));
    }
    if let Some(keys) = &shown {
        if answered.is_some() {
            segs.push(seg(" · ", Style::Dim));
        }
        segs.push(glued("pending: ", Style::Muted));
        segs.push(glued(keys, Style::Accent));
    }
    if !segs.is_empty() {
        wrap(out, margin(), MARGIN, &segs, width);
    }
}

/// How a key name shows in the footer.
pub(super) fn key_label(key: &str) -> &str {
    match key {
        "up" => "↑",
        "down" => "↓",
        "left" => "←",
        "right" => "→",
        "escape" => "esc",
        "pagedown" => "pgdn",
        "pageup" => "pgup",
        other => other,
    }
}

/// The keys of a hint as the footer shows them: `↑`, `tab/→`, `1-3`.
pub(super) fn hint_keys(hint: &Hint) -> String {
    match (hint.action, hint.keys.first(), hint.keys.last()) {
        ("digits", Some(first), Some(last)) if hint.keys.len() > 1 => format!("{first}-{last}"),
        _ => {
            let mut text = String::new();
            for (i, key) in hint.keys.iter().enumerate() {
                if i > 0 {
                    text.push('/');
                }
                // A key sequence (`g g`) shows as its keys one after the other (`gg`).
                for part in key.split(' ') {
                    text.push_str(key_label(part));
                }
            }
            text
        }
    }
}

/// The notices of the behaviour options after a blank line, one after another: warnings in
/// `warning`, the review-shortcut hint in `dim`.
pub(super) fn notices(out: &mut Vec<Laid>, notices: &[NoticeView], width: usize) {
    out.push(Laid::default());
    for notice in notices {
        let style = match notice.kind {
            NoticeKind::ReviewShortcut => Style::Dim,
            NoticeKind::DismissConfirm | NoticeKind::TypeConfirm | NoticeKind::TypeChanged => {
                Style::Warning
            }
        };
        wrap(out, margin(), MARGIN, &[seg(&notice.text, style)], width);
    }
}

pub(super) fn hints(out: &mut Vec<Laid>, hints: &[Hint], width: usize) {
    let keys: Vec<String> = hints.iter().map(hint_keys).collect();
    let mut segs = Vec::with_capacity(hints.len() * 5);
    for (i, (hint, keys)) in hints.iter().zip(&keys).enumerate() {
        segs.push(glued(keys, Style::Accent));
        segs.push(glued(" ", Style::Muted));
        segs.push(glued(hint.label, Style::Muted));
        if i + 1 < hints.len() {
            segs.push(glued(" ·", Style::Dim));
            segs.push(seg(" ", Style::Dim));
        }
    }
    wrap(out, margin(), MARGIN, &segs, width);
}
