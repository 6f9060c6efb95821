//! The offer `askd ask` makes before it asks: a flow of the same request that an earlier
//! `askd ask` left unfinished in the state directory (it was killed, or its terminal went
//! away), shown with what it asked, when it was last saved, how far it got and how much was
//! typed, to be resumed, discarded or kept on the person's word.
//!
//! The flows come from the server's state directory as every client meets them
//! ([`State::offered`]): read back with the checks of `restore`, those of other requests never
//! offered here and never touched. The person's word is a key: `r` or Enter resumes the flow
//! where it was (`recover`), `s` starts over (`discard`, then a fresh flow), `k` keeps it for
//! later (a fresh flow beside it; it stays in the state directory). Esc and Ctrl+C keep it too,
//! and go on to the fresh flow, where they do what they do there (cancel, dismiss).
//!
//! [`State::offered`]: crate::server::state::State::offered

use crate::cli::term::{clip, line};
use crate::core::{Key, KeyCode};
use crate::server::state::Offered;
use crate::session::Session;
use crate::view::{Line, Style};

/// What the person said of the flow offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Go on with it where it was.
    Resume,
    /// Discard it and ask afresh.
    StartOver,
    /// Leave it in the state directory and ask afresh; the key that said so, when the fresh
    /// flow is to have it too (Esc, Ctrl+C).
    Keep(Option<Key>),
}

/// What a key on the offer screen decides, if anything.
pub fn decision_of(key: Key) -> Option<Decision> {
    let plain = !key.mods.ctrl && !key.mods.alt;
    match key.code {
        KeyCode::Char('r' | 'R') | KeyCode::Enter if plain => Some(Decision::Resume),
        KeyCode::Char('s' | 'S') if plain => Some(Decision::StartOver),
        KeyCode::Char('k' | 'K') if plain => Some(Decision::Keep(None)),
        KeyCode::Escape if plain => Some(Decision::Keep(Some(key))),
        KeyCode::Char('c') if key.mods.ctrl && !key.mods.alt => Some(Decision::Keep(Some(key))),
        _ => None,
    }
}

/// What the offer screen says of a flow left unfinished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Its id in the state directory.
    pub id: String,
    /// Its title, if it has one.
    pub title: Option<String>,
    /// Its first question.
    pub first: Option<String>,
    /// When it was last saved, in milliseconds since the Unix epoch.
    pub saved_at: u64,
    /// Its questions answered.
    pub answered: usize,
    /// Its questions.
    pub total: usize,
    /// Characters typed: custom answers, notes and the open editor's draft.
    pub typed: usize,
}

impl Summary {
    /// What the offer screen says of `offered`.
    pub fn of(offered: &Offered<'_>) -> Summary {
        let flow = offered.session.flow();
        let answers = flow.map_or(&[][..], |f| f.answers());
        Summary {
            id: offered.id.to_owned(),
            title: offered.session.title().map(str::to_owned),
            first: flow
                .and_then(|f| f.spec().questions.first())
                .map(|q| q.prompt.clone()),
            saved_at: offered.saved_at,
            answered: answers.iter().filter(|a| a.is_answered()).count(),
            total: answers.len(),
            typed: typed(offered.session),
        }
    }
}

/// The characters of what was typed in a flow: its custom answers and notes as saved, with
/// the open editor's draft in place of the text it was opened on.
pub fn typed(session: &Session) -> usize {
    let Some(flow) = session.flow() else {
        return 0;
    };
    let chars = |text: &str| text.chars().count();
    let saved: usize = flow
        .answers()
        .iter()
        .map(|a| {
            a.custom_text.as_deref().map_or(0, chars)
                + a.note.as_deref().map_or(0, chars)
                + a.option_notes.iter().map(|(_, n)| chars(n)).sum::<usize>()
        })
        .sum();
    match flow.editor() {
        Some(editor) => (saved + chars(editor.text.text())).saturating_sub(chars(&editor.initial)),
        None => saved,
    }
}

/// How long ago something was, in words: `less than a minute ago`, `5 minutes ago`,
/// `2 hours ago`, `3 days ago`.
pub fn age(ms: u64) -> String {
    const MINUTE: u64 = 60_000;
    const HOUR: u64 = 60 * MINUTE;
    const DAY: u64 = 24 * HOUR;
    let (n, unit) = match ms {
        ms if ms < MINUTE => return "less than a minute ago".to_owned(),
        ms if ms < HOUR => (ms / MINUTE, "minute"),
        ms if ms < DAY => (ms / HOUR, "hour"),
        ms => (ms / DAY, "day"),
    };
    format!("{n} {unit}{} ago", if n == 1 { "" } else { "s" })
}

/// `n` of `what`, singular or plural (`1 character`, `3 characters`).
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The offer screen at `width` columns and time `now`: the flow offered, and the flows kept
/// beside it (`older` of the same request, `others` of other requests).
pub fn screen(offer: &Summary, older: usize, others: usize, width: usize, now: u64) -> Vec<Line> {
    let rule = "─".repeat(width.max(20));
    let mut lines = vec![
        line(&[(&rule, Style::Border)]),
        line(&[(
            &clip(" This request was left unfinished", width),
            Style::Title,
        )]),
    ];
    for (text, style) in [(&offer.title, Style::Text), (&offer.first, Style::Muted)] {
        if let Some(text) = text {
            lines.push(line(&[(&clip(&format!(" {text}"), width), style)]));
        }
    }
    let typed = match offer.typed {
        0 => "nothing typed".to_owned(),
        n => format!("{} typed", count(n, "character", "characters")),
    };
    let about = format!(
        " saved {} · {} of {} answered · {typed}",
        age(now.saturating_sub(offer.saved_at)),
        offer.answered,
        offer.total
    );
    lines.push(line(&[(&clip(&about, width), Style::Muted)]));
    if older > 0 {
        let text = match older {
            1 => " 1 older unfinished flow of this request is kept too".to_owned(),
            n => format!(" {n} older unfinished flows of this request are kept too"),
        };
        lines.push(line(&[(&clip(&text, width), Style::Muted)]));
    }
    if others > 0 {
        let text = match others {
            1 => " 1 unfinished flow of another request is kept apart".to_owned(),
            n => format!(" {n} unfinished flows of other requests are kept apart"),
        };
        lines.push(line(&[(&clip(&text, width), Style::Muted)]));
    }
    lines.push(Line::default());
    lines.push(line(&[
        (" r", Style::Accent),
        (" resume", Style::Muted),
        ("  s", Style::Accent),
        (" start over (discards it)", Style::Muted),
        ("  k", Style::Accent),
        (" keep it for later", Style::Muted),
    ]));
    lines.push(line(&[(&rule, Style::Border)]));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Mods, char_key};

    #[test]
    fn ages_are_said_in_the_largest_whole_unit() {
        assert_eq!(age(0), "less than a minute ago");
        assert_eq!(age(59_999), "less than a minute ago");
        assert_eq!(age(60_000), "1 minute ago");
        assert_eq!(age(5 * 60_000 + 59_000), "5 minutes ago");
        assert_eq!(age(3_600_000), "1 hour ago");
        assert_eq!(age(23 * 3_600_000), "23 hours ago");
        assert_eq!(age(86_400_000), "1 day ago");
        assert_eq!(age(6 * 86_400_000), "6 days ago");
    }

    #[test]
    fn each_word_is_a_key_and_other_keys_say_nothing() {
        let ctrl = |c| Key {
            code: KeyCode::Char(c),
            mods: Mods {
                ctrl: true,
                ..Mods::default()
            },
        };
        let esc = Key::plain(KeyCode::Escape);
        assert_eq!(decision_of(char_key('r')), Some(Decision::Resume));
        assert_eq!(
            decision_of(Key::plain(KeyCode::Enter)),
            Some(Decision::Resume)
        );
        assert_eq!(decision_of(char_key('s')), Some(Decision::StartOver));
        assert_eq!(decision_of(char_key('k')), Some(Decision::Keep(None)));
        assert_eq!(decision_of(esc), Some(Decision::Keep(Some(esc))));
        assert_eq!(
            decision_of(ctrl('c')),
            Some(Decision::Keep(Some(ctrl('c'))))
        );
        for key in [
            char_key('x'),
            char_key(' '),
            ctrl('s'),
            Key::plain(KeyCode::Down),
        ] {
            assert_eq!(decision_of(key), None, "{key}");
        }
    }

    #[test]
    fn the_screen_says_what_was_asked_when_how_far_and_what_else_is_kept() {
        let offer = Summary {
            id: "ask-1".into(),
            title: Some("Release plan".into()),
            first: Some("Which release?".into()),
            saved_at: 1_000,
            answered: 1,
            total: 3,
            typed: 12,
        };
        let text = |lines: Vec<Line>| {
            lines
                .iter()
                .map(|l| format!("{}\n", l.text()))
                .collect::<String>()
        };
        let rule = "─".repeat(70);
        assert_eq!(
            text(screen(&offer, 1, 2, 70, 1_000 + 120_000)),
            format!(
                "{rule}\n\
                 \x20This request was left unfinished\n\
                 \x20Release plan\n\
                 \x20Which release?\n\
                 \x20saved 2 minutes ago · 1 of 3 answered · 12 characters typed\n\
                 \x201 older unfinished flow of this request is kept too\n\
                 \x202 unfinished flows of other requests are kept apart\n\
                 \n\
                 \x20r resume  s start over (discards it)  k keep it for later\n\
                 {rule}\n"
            )
        );
        let bare = Summary {
            title: None,
            typed: 1,
            ..offer
        };
        assert_eq!(
            text(screen(&bare, 0, 1, 40, 1_000))
                .lines()
                .collect::<Vec<_>>()[1..5],
            [
                " This request was left unfinished",
                " Which release?",
                " saved less than a minute ago · 1 of 3 …",
                " 1 unfinished flow of another request i…",
            ]
        );
    }
}
