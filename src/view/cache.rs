//! What the views served so far lend the next one. Between two keys most of a view stays as it
//! was, so a [`ScreenCache`] keeps the JSON of the parts it wrote lately (rendered lines, tab
//! bars, hint lists, questions, reviews, editors) beside the parts themselves, and writes that
//! JSON again for an equal part; a new line's JSON is put together from the JSON of spans
//! written before; and the renderer reuses the layouts of equal tab bars, hint lists and rows
//! at the same width. Parts are matched by their whole content, so a view of any session or
//! width can follow any other; what is kept is bounded (four of each part, the lines of four
//! screens and at most 1,024 span texts, whatever the number of sessions).
//!
//! The view itself stays plain data: the cache consults what it keeps while it writes a view
//! ([`ScreenCache::json`]), and what it writes is byte for byte what serde_json writes for the
//! view.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use rustc_hash::FxBuildHasher;
use serde::Serialize;
use serde::ser::SerializeStruct;
use serde_json::value::RawValue;

use crate::session::Session;
use crate::view::build::build_view;
use crate::view::line::{Line, Span, Style};
use crate::view::model::{EditorView, Hint, QuestionView, ReviewView, TabView, View, ViewOptions};
use crate::view::recent::Recent;
use crate::view::render::{Layouts, render_with};

/// How many screens, tab bars, hint lists, questions, reviews and editors a [`ScreenCache`]
/// keeps. A view mostly comes back to one of the last few (the row or tab left a few keys ago,
/// the editor text before the last character typed), and finding that one out costs little:
/// each comparison stops at the first field that differs. Keeping more mostly pays off for a
/// key script that cycles through more views than that (BENCHMARKS.md).
const REMEMBERED: usize = 4;

/// How many span texts a [`SpanJson`] keeps at most; it forgets them all when it has more.
const REMEMBERED_SPANS: usize = 1024;

/// Parts written lately with their JSON, most recently used first.
type Memo<T> = Recent<(T, Arc<RawValue>), REMEMBERED>;

/// A line written lately with its JSON (none once it has been taken for the next screen).
#[derive(Debug, Default)]
struct KeptLine {
    line: Line,
    json: Option<Arc<RawValue>>,
}

/// The parts of the last views written, with their JSON, and the renderer's layouts. The
/// server keeps one per connection.
#[derive(Debug, Default)]
pub struct ScreenCache {
    /// Rendered lines of the last screens, most recent first.
    screens: VecDeque<Vec<KeptLine>>,
    tabs: Memo<Vec<TabView>>,
    hints: Memo<Vec<Hint>>,
    questions: Memo<QuestionView>,
    reviews: Memo<ReviewView>,
    editors: Memo<EditorView>,
    spans: SpanJson,
    layouts: Layouts,
}

impl ScreenCache {
    /// The view of `session` as `options` ask, as [`build_with`](crate::view::build_with)
    /// builds it, its lines laid out with the layouts kept here.
    pub fn build(&mut self, id: &str, session: &Session, options: ViewOptions) -> View {
        let mut view = build_view(id, session, options.all_rows);
        if let Some(width) = options.width {
            let (lines, targets) = render_with(&view, width, &mut self.layouts);
            view.lines = Some(lines);
            view.line_targets = Some(targets);
        }
        view
    }

    /// `view`, to be written as JSON: it serialises as serde_json serialises `view`, taking the
    /// JSON of every part equal to one written lately from here, and keeping the JSON of the
    /// parts it writes afresh. (With serializers other than serde_json's, kept JSON is seen as
    /// serde_json's raw-value wrapper.)
    pub fn json<'a>(&'a mut self, view: &'a View) -> CachedView<'a> {
        CachedView {
            view,
            cache: RefCell::new(self),
        }
    }

    /// The JSON of each line of `lines`: an equal line's of the last screens, or put together
    /// from span JSON; `lines` then become the most recent screen. A line is first looked for
    /// right after where the line before it was found (at the same place in the most recent
    /// screen for the first), so that lines moved together by a line added or removed above
    /// them are found at once.
    fn lines_json(&mut self, lines: &[Line]) -> Option<Vec<Arc<RawValue>>> {
        let mut next = Vec::with_capacity(lines.len());
        let mut jsons = Vec::with_capacity(lines.len());
        let mut expected = (0, 0);
        for line in lines {
            let reusable = |old: &KeptLine| old.json.is_some() && old.line == *line;
            let (k, j) = expected;
            let at_expected = self
                .screens
                .get(k)
                .and_then(|screen| screen.get(j))
                .is_some_and(reusable);
            let found = if at_expected {
                Some(expected)
            } else {
                self.screens
                    .iter()
                    .enumerate()
                    .find_map(|(k, screen)| screen.iter().position(reusable).map(|j| (k, j)))
            };
            match found {
                Some((k, j)) => {
                    // Taken out: a line without JSON is never reused.
                    let kept = std::mem::take(&mut self.screens[k][j]);
                    jsons.push(kept.json.clone()?);
                    next.push(kept);
                    expected = (k, j + 1);
                }
                None => {
                    let json = self.spans.line_json(line)?;
                    jsons.push(json.clone());
                    next.push(KeptLine {
                        line: line.clone(),
                        json: Some(json),
                    });
                    // Most often the line replaces the one expected here.
                    expected.1 += 1;
                }
            }
        }
        self.screens.push_front(next);
        self.screens.truncate(REMEMBERED);
        Some(jsons)
    }
}

/// The JSON of `part`: that of an equal part in `memo`, moved to the front, or its own,
/// kept at the front.
fn part_json<T: Serialize + PartialEq + Clone>(
    part: &T,
    memo: &mut Memo<T>,
) -> Option<Arc<RawValue>> {
    if let Some((_, json)) = memo.find(|(kept, _)| kept == part) {
        return Some(json.clone());
    }
    let json = serialised(part)?;
    memo.keep((part.clone(), json.clone()));
    Some(json)
}

/// The JSON of `value` as serde_json writes it.
fn serialised<T: Serialize + ?Sized>(value: &T) -> Option<Arc<RawValue>> {
    serde_json::value::to_raw_value(value).ok().map(Arc::from)
}

/// A part written as its kept JSON when there is some, as its value otherwise.
struct Part<'a, T>(Option<Arc<RawValue>>, &'a T);

impl<T: Serialize> Serialize for Part<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Some(json) => json.serialize(serializer),
            None => self.1.serialize(serializer),
        }
    }
}

/// An optional part written as its kept JSON when there is some ([`Part`]).
fn optional<'a, T: Serialize + PartialEq + Clone>(
    part: &'a Option<T>,
    memo: &mut Memo<T>,
) -> Option<Part<'a, T>> {
    part.as_ref().map(|p| Part(part_json(p, memo), p))
}

/// A list of ready-made JSON values, serialised as a list of them.
struct JsonList<'a>(&'a [Arc<RawValue>]);

impl Serialize for JsonList<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|json| &**json))
    }
}

/// A view being written through a [`ScreenCache`] ([`ScreenCache::json`]).
pub struct CachedView<'a> {
    view: &'a View,
    cache: RefCell<&'a mut ScreenCache>,
}

impl Serialize for CachedView<'_> {
    /// Writes the fields of [`View`] in its order and under its names, as its derived
    /// implementation does (a test compares the two byte for byte).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let view = self.view;
        let mut cache = self.cache.borrow_mut();
        let cache = &mut **cache;
        let fields = 21
            + usize::from(view.lines.is_some())
            + usize::from(view.line_targets.is_some())
            + usize::from(view.requester.is_some());
        let mut s = serializer.serialize_struct("View", fields)?;
        s.serialize_field("session", &view.session)?;
        s.serialize_field("status", &view.status)?;
        s.serialize_field("dialect", &view.dialect)?;
        s.serialize_field("title", &view.title)?;
        match &view.requester {
            Some(requester) => s.serialize_field("requester", requester)?,
            None => s.skip_field("requester")?,
        }
        s.serialize_field("focus", &view.focus)?;
        let tabs = part_json(&view.tabs, &mut cache.tabs);
        s.serialize_field("tabs", &Part(tabs, &view.tabs))?;
        s.serialize_field("activeTab", &view.active_tab)?;
        s.serialize_field("question", &optional(&view.question, &mut cache.questions))?;
        s.serialize_field("review", &optional(&view.review, &mut cache.reviews))?;
        s.serialize_field("editor", &optional(&view.editor, &mut cache.editors))?;
        let hints = part_json(&view.hints, &mut cache.hints);
        s.serialize_field("hints", &Part(hints, &view.hints))?;
        s.serialize_field("notices", &view.notices)?;
        s.serialize_field("help", &view.help)?;
        s.serialize_field("outcome", &view.outcome)?;
        s.serialize_field("cancelReason", &view.cancel_reason)?;
        s.serialize_field("deadline", &view.deadline)?;
        s.serialize_field("progress", &view.progress)?;
        s.serialize_field("filter", &view.filter)?;
        s.serialize_field("pendingKeys", &view.pending_keys)?;
        s.serialize_field("activatable", &view.activatable)?;
        match &view.lines {
            Some(lines) => match cache.lines_json(lines) {
                Some(jsons) => s.serialize_field("lines", &JsonList(&jsons))?,
                None => s.serialize_field("lines", lines)?,
            },
            None => s.skip_field("lines")?,
        }
        match &view.line_targets {
            Some(targets) => s.serialize_field("lineTargets", targets)?,
            None => s.skip_field("lineTargets")?,
        }
        s.end()
    }
}

/// The JSON of the spans of lines written so far, by text and style. A line that is new in a
/// screen mostly holds spans written before (pointers, marks, borders, labels in another
/// style), and a span's JSON costs several times what copying it does.
#[derive(Debug, Default)]
struct SpanJson {
    // The compiler's own fast hash: what is kept is bounded, so texts made to collide cost
    // at most a scan of that.
    by_text: HashMap<Box<str>, InStyles, FxBuildHasher>,
}

/// The JSON of spans of one text, by style.
type InStyles = Vec<(Style, Arc<RawValue>)>;

impl SpanJson {
    /// The JSON of `line`, exactly as serde_json serialises it: the list of its spans' JSON.
    fn line_json(&mut self, line: &Line) -> Option<Arc<RawValue>> {
        let spans = line
            .spans()
            .map(|span| self.span_json(span))
            .collect::<Option<Vec<_>>>()?;
        serialised(&JsonList(&spans))
    }

    /// The JSON of `span`, kept from an equal span or serialised and kept.
    fn span_json(&mut self, span: Span) -> Option<Arc<RawValue>> {
        let kept = self.by_text.get(span.text).and_then(|styles| {
            styles
                .iter()
                .find(|(style, _)| *style == span.style)
                .map(|(_, json)| json.clone())
        });
        if kept.is_some() {
            return kept;
        }
        let json = serialised(&span)?;
        if self.by_text.len() >= REMEMBERED_SPANS {
            self.by_text.clear();
        }
        self.by_text
            .entry(span.text.into())
            .or_default()
            .push((span.style, json.clone()));
        Some(json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::parse_sequence;
    use crate::session::OpenOptions;
    use crate::view::{self, build_with_width};

    /// A flow whose screens hold quotes, backslashes, control characters, wide and combining
    /// characters, and equal texts in several styles.
    fn tricky_session() -> Session {
        tricky_session_with(&OpenOptions::default())
    }

    /// The flow of [`tricky_session`], opened with `options`.
    fn tricky_session_with(options: &OpenOptions) -> Session {
        let payload = serde_json::json!({
            "title": "Re\"lease \\ plan\u{7}",
            "questions": [{
                "id": "scope",
                "label": "Sc\"ope",
                "prompt": "How \"much\" \\ should 日本語 cover?\tNow",
                "options": [
                    {"value": "a", "label": "Pa\"tch \\\" é\u{301} 😀 (Recommended)", "description": "\\"},
                    {"value": "b", "label": "\"", "description": "Minor – ─── \u{ad}"},
                    {"value": "c", "label": "Minor", "description": "Minor"}
                ]
            }]
        });
        Session::open(&payload, options).expect("payload opens")
    }

    /// A line's JSON put together from kept span JSON is exactly serde_json's, whether its
    /// spans are new or kept.
    #[test]
    fn line_json_is_serde_jsons() {
        let session = tricky_session();
        let view = build_with_width("s", &session, Some(40));
        let mut spans = SpanJson::default();
        for _ in 0..2 {
            for line in view.lines.iter().flatten() {
                let json = spans.line_json(line).expect("a line serialises");
                let expected = serde_json::to_string(line).expect("a line serialises");
                assert_eq!(json.get(), expected);
            }
        }
        assert_eq!(
            spans.line_json(&Line::default()).expect("serialises").get(),
            "[]"
        );
    }

    /// The tricky flow under the `pi-0.9` profile with the dismiss guard and double-press
    /// review digits: views with notices and the help overlay.
    fn tricky_session_with_notices() -> Session {
        tricky_session_with(&OpenOptions {
            behaviour: crate::core::Behaviour {
                confirm_dismiss_when_dirty: true,
                double_press_review_shortcuts: true,
                ..crate::session::Profile::Pi09.behaviour()
            },
            ..OpenOptions::default()
        })
    }

    /// Views written through a cache serialise exactly as views built and serialised afresh,
    /// key after key.
    #[test]
    fn cached_views_serialise_as_fresh_ones() {
        // Rows, tabs, the editor and the review left and come back to.
        let keys = parse_sequence(
            "<Down><Down><Up>n\"\\x<Esc><Down><Down><Down>Own \"answer\\<BS><Tab><Down><Up><S-Tab><Tab>",
        )
        .expect("valid keys");
        check_cached_views(tricky_session(), &keys);
        // Notices, the question-type toggle and the help overlay.
        let keys =
            parse_sequence("nhm<CR><Space>t<Esc>?<Down>?<Tab>2?<Esc>1<S-Tab>").expect("valid keys");
        check_cached_views(tricky_session_with_notices(), &keys);
    }

    /// Presses `keys`, comparing each view written through one cache with a fresh one.
    fn check_cached_views(mut session: Session, keys: &[crate::core::Key]) {
        let mut cache = ScreenCache::default();
        for width in [40, 120] {
            for &key in keys {
                session.press(key).expect("the flow stays open");
                for all_rows in [false, true] {
                    let options = ViewOptions {
                        width: Some(width),
                        all_rows,
                    };
                    let cached = cache.build("s", &session, options);
                    let fresh = view::build_with("s", &session, options);
                    assert_eq!(cached, fresh);
                    assert_eq!(
                        serde_json::to_string(&cache.json(&cached)).expect("a view serialises"),
                        serde_json::to_string(&fresh).expect("a view serialises")
                    );
                }
            }
        }
        let done = view::build("s", &session);
        assert_eq!(
            serde_json::to_string(&cache.json(&done)).expect("a view serialises"),
            serde_json::to_string(&done).expect("a view serialises")
        );
    }

    /// The comparisons that decide what JSON a part takes agree with the JSON itself: two parts
    /// of the views along a key script are equal exactly when they serialise alike.
    #[test]
    fn parts_are_equal_exactly_when_their_json_is() {
        fn check<T: PartialEq + Serialize>(parts: &[T]) {
            let json: Vec<String> = parts
                .iter()
                .map(|part| serde_json::to_string(part).expect("a part serialises"))
                .collect();
            for (a, a_json) in parts.iter().zip(&json) {
                for (b, b_json) in parts.iter().zip(&json) {
                    assert_eq!(a == b, a_json == b_json, "{a_json} against {b_json}");
                }
            }
        }
        let mut session = tricky_session();
        let keys = parse_sequence("<Down><Up>n\"<Esc><Down><Down><Down>ab<BS><Tab><Down><S-Tab>")
            .expect("valid keys");
        let mut views = Vec::new();
        for &key in &keys {
            session.press(key).expect("the flow stays open");
            views.push(build_with_width("s", &session, Some(60)));
        }
        check(&views.iter().map(|v| v.tabs.clone()).collect::<Vec<_>>());
        check(&views.iter().map(|v| v.hints.clone()).collect::<Vec<_>>());
        check(&views.iter().map(|v| v.question.clone()).collect::<Vec<_>>());
        check(&views.iter().map(|v| v.review.clone()).collect::<Vec<_>>());
        check(&views.iter().map(|v| v.editor.clone()).collect::<Vec<_>>());
        check(
            &views
                .iter()
                .flat_map(|v| v.lines.clone().unwrap_or_default())
                .collect::<Vec<_>>(),
        );
        let rows: Vec<_> = views
            .iter()
            .flat_map(|v| v.question.iter().flat_map(|q| q.rows.iter()))
            .cloned()
            .collect();
        check(&rows);
    }
}
