//! What the views served so far lend the next one. Between two keys most of a view stays as it
//! was, so the parts that cost most to serialise (rendered lines, tab bars, hint lists, the
//! question, its rows, the review, the editor) carry ready-made JSON when an equal part was
//! served lately, a new line's JSON is put together from the JSON of spans served before, and
//! the tab bar and hint lines laid out are reused for equal tabs and hints at the same width.
//! Parts are matched by their whole content, so a view of any session or width can follow any
//! other; what is kept is bounded (four of each part and at most 1,024 span texts, whatever
//! the number of sessions).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use rustc_hash::FxBuildHasher;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::recent::Recent;
use crate::render::{self, Layouts, Line, Span, Style};
use crate::view::{EditorView, Hint, QuestionView, ReviewView, RowView, TabView, View};

/// A part of a view that a [`ScreenCache`] can give ready-made JSON: it serialises as its
/// value, or as that JSON once it has it (which serde_json writes as it is; other
/// serializers see serde_json's raw-value wrapper). It reads as its value.
#[derive(Debug, Clone, Default)]
pub struct Reused<T> {
    inner: T,
    json: Dressing,
}

impl<T> Reused<T> {
    /// A part without JSON yet.
    pub fn new(value: T) -> Reused<T> {
        Reused {
            inner: value,
            json: Dressing::default(),
        }
    }

    /// The value.
    pub fn into_inner(self) -> T {
        self.inner
    }
}

impl<T> std::ops::Deref for Reused<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: PartialEq> PartialEq for Reused<T> {
    fn eq(&self, other: &Reused<T>) -> bool {
        self.json.same(&other.json) || self.inner == other.inner
    }
}

impl<T: Serialize> Serialize for Reused<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.json.0 {
            Some(json) => json.serialize(serializer),
            None => self.inner.serialize(serializer),
        }
    }
}

impl<T> Dressed for Reused<T> {
    fn dressing(&self) -> &Dressing {
        &self.json
    }

    fn dressing_mut(&mut self) -> &mut Dressing {
        &mut self.json
    }
}

/// The ready-made JSON a [`ScreenCache`] gives a part of a view, once it has some. Parts share
/// the same JSON only when they are equal.
#[derive(Debug, Clone, Default)]
pub struct Dressing(Option<Arc<RawValue>>);

impl Dressing {
    /// Both hold the very same JSON, so their parts are equal.
    fn same(&self, other: &Dressing) -> bool {
        matches!((&self.0, &other.0), (Some(a), Some(b)) if Arc::ptr_eq(a, b))
    }
}

/// A part of a view that carries a [`Dressing`]: a [`Reused`] part, or a view part held as
/// a plain value (the question, the review, the editor) that keeps one in a field which
/// serde skips and comparisons ignore. Such a field of the view serialises through
/// [`serialize_dressed`].
pub trait Dressed {
    /// The part's JSON, if it has some.
    fn dressing(&self) -> &Dressing;
    /// Where the part's JSON goes.
    fn dressing_mut(&mut self) -> &mut Dressing;
}

/// Serialises an optional part as its ready-made JSON when it has some, as its value
/// otherwise (for `#[serde(serialize_with)]`).
pub fn serialize_dressed<T: Serialize + Dressed, S: serde::Serializer>(
    part: &Option<T>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match part {
        Some(part) => match &part.dressing().0 {
            Some(json) => serializer.serialize_some(&**json),
            None => serializer.serialize_some(part),
        },
        None => serializer.serialize_none(),
    }
}

/// Parts kept with their JSON, most recently used first, at most [`REMEMBERED`].
type Memo<T> = Recent<T, REMEMBERED>;

/// Gives `part` the JSON of an equal part in `memo` and moves that one to the front; false
/// when `memo` holds no equal part.
fn take_kept<T: PartialEq + Dressed>(part: &mut T, memo: &mut Memo<T>) -> bool {
    let Some(kept) = memo.find(|old| *old == *part) else {
        return false;
    };
    *part.dressing_mut() = kept.dressing().clone();
    true
}

/// Serialises `part` into its JSON and puts a copy of it, with that JSON, at the front of
/// `memo`.
fn keep_new<T: Serialize + Clone + Dressed>(part: &mut T, memo: &mut Memo<T>) {
    *part.dressing_mut() = Dressing(serialised(part));
    memo.keep(part.clone());
}

/// Gives `part` the JSON of an equal part in `memo`, or its own ([`take_kept`], [`keep_new`]).
fn reuse<T: Serialize + PartialEq + Clone + Dressed>(part: &mut T, memo: &mut Memo<T>) {
    if !take_kept(part, memo) {
        keep_new(part, memo);
    }
}

/// The JSON of `value` as serde_json writes it.
fn serialised<T: Serialize + ?Sized>(value: &T) -> Option<Arc<RawValue>> {
    serde_json::value::to_raw_value(value).ok().map(Arc::from)
}

/// Gives every part of `parts` the JSON of an equal part of the lists in `kept`, or its own
/// from `json`; `parts` then becomes the most recent list, and at most [`REMEMBERED`] lists
/// are kept. A part is first looked for right after where the part before it was found (at
/// the same place in the most recent list for the first), so that parts moved together by
/// a part added or removed above them are found at once.
fn reuse_each<T: Serialize + PartialEq + Clone + Default>(
    parts: &mut [Reused<T>],
    kept: &mut VecDeque<Vec<Reused<T>>>,
    mut json: impl FnMut(&T) -> Option<Arc<RawValue>>,
) {
    let mut next = Vec::with_capacity(parts.len());
    let mut expected = (0, 0);
    for part in parts.iter_mut() {
        let reusable = |old: &Reused<T>| old.json.0.is_some() && old.inner == part.inner;
        let (k, j) = expected;
        let at_expected = kept
            .get(k)
            .and_then(|list| list.get(j))
            .is_some_and(reusable);
        let found = if at_expected {
            Some(expected)
        } else {
            kept.iter()
                .enumerate()
                .find_map(|(k, list)| list.iter().position(reusable).map(|j| (k, j)))
        };
        match found {
            Some((k, j)) => {
                part.json = kept[k][j].json.clone();
                // Taken out: an empty part without JSON is never reused.
                next.push(std::mem::take(&mut kept[k][j]));
                expected = (k, j + 1);
            }
            None => {
                part.json = Dressing(json(&part.inner));
                next.push(part.clone());
                // Most often the part replaces the one expected here.
                expected.1 += 1;
            }
        }
    }
    kept.push_front(next);
    kept.truncate(REMEMBERED);
}

/// How many screens, row lists, tab bars, hint lists, questions, reviews and editors a
/// [`ScreenCache`] keeps. A view mostly comes back to one of the last few (the row or tab left
/// a few keys ago, the editor text before the last character typed), and finding that one out
/// costs little: each comparison stops at the first field that differs. Keeping more mostly
/// pays off for a key script that cycles through more views than that (BENCHMARKS.md).
const REMEMBERED: usize = 4;

/// The parts of the last views served: their JSON, and their hint layouts. The server keeps
/// one per connection.
#[derive(Debug, Default)]
pub struct ScreenCache {
    /// Rendered lines of the last screens, most recent first.
    screens: VecDeque<Vec<Reused<Line>>>,
    /// Rows of the last views, most recent first.
    rows: VecDeque<Vec<Reused<RowView>>>,
    tabs: Memo<Reused<Vec<TabView>>>,
    hints: Memo<Reused<Vec<Hint>>>,
    questions: Memo<QuestionView>,
    reviews: Memo<ReviewView>,
    editors: Memo<EditorView>,
    spans: SpanJson,
    layouts: Layouts,
}

/// How many span texts a [`SpanJson`] keeps at most; it forgets them all when it has more.
const REMEMBERED_SPANS: usize = 1024;

/// The JSON of the spans of lines served so far, by text and style. A line that is new in a
/// screen mostly holds spans served before (pointers, marks, borders, labels in another
/// style), and a span's JSON costs several times what copying it does.
#[derive(Debug, Default)]
struct SpanJson {
    // The compiler's own fast hash: what is kept is bounded, so texts made to collide cost
    // at most a scan of that.
    by_text: HashMap<Box<str>, InStyles, FxBuildHasher>,
}

/// The JSON of spans of one text, by style.
type InStyles = Vec<(Style, Arc<RawValue>)>;

/// A list of ready-made JSON values, serialised as a list of them.
struct JsonList<'a>(&'a [Arc<RawValue>]);

impl Serialize for JsonList<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|json| &**json))
    }
}

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

impl ScreenCache {
    /// Gives the tabs, hints, question (or else its rows), review and editor of `view` their
    /// JSON, reused from the last views where they are equal to its, serialised otherwise.
    pub fn dress(&mut self, view: &mut View) {
        reuse(&mut view.tabs, &mut self.tabs);
        reuse(&mut view.hints, &mut self.hints);
        if let Some(question) = view.question.as_mut() {
            // A question kept whole needs no JSON of its rows.
            if !take_kept(question, &mut self.questions) {
                reuse_each(&mut question.rows, &mut self.rows, serialised);
                keep_new(question, &mut self.questions);
            }
        }
        if let Some(review) = view.review.as_mut() {
            reuse(review, &mut self.reviews);
        }
        if let Some(editor) = view.editor.as_mut() {
            reuse(editor, &mut self.editors);
        }
    }

    /// Renders `view` at `width` columns as [`render::render`] does, every line carrying its
    /// JSON.
    pub fn render(&mut self, view: &View, width: usize) -> Vec<Reused<Line>> {
        let mut lines: Vec<Reused<Line>> = render::render_with(view, width, &mut self.layouts)
            .map(Reused::new)
            .collect();
        reuse_each(&mut lines, &mut self.screens, |line| {
            self.spans.line_json(line)
        });
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::parse_sequence;
    use crate::session::{OpenOptions, Session};
    use crate::view::{self, ViewOptions};

    /// A flow whose screens hold quotes, backslashes, control characters, wide and combining
    /// characters, and equal texts in several styles.
    fn tricky_session() -> Session {
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
        Session::open(&payload, &OpenOptions::default()).expect("payload opens")
    }

    /// A line's JSON put together from kept span JSON is exactly serde_json's, whether its
    /// spans are new or kept.
    #[test]
    fn line_json_is_serde_jsons() {
        let session = tricky_session();
        let view = view::build_with_width("s", &session, Some(40));
        let mut spans = SpanJson::default();
        for _ in 0..2 {
            for line in view.lines.iter().flatten() {
                let json = spans.line_json(line).expect("a line serialises");
                let expected = serde_json::to_string(&**line).expect("a line serialises");
                assert_eq!(json.get(), expected);
            }
        }
        assert_eq!(
            spans.line_json(&Line::default()).expect("serialises").get(),
            "[]"
        );
    }

    /// Views built through a cache serialise exactly as views built afresh, key after key.
    #[test]
    fn cached_views_serialise_as_fresh_ones() {
        let mut session = tricky_session();
        let mut cache = ScreenCache::default();
        // Rows, tabs, the editor and the review left and come back to.
        let keys = parse_sequence(
            "<Down><Down><Up>n\"\\x<Esc><Down><Down><Down>Own \"answer\\<BS><Tab><Down><Up><S-Tab><Tab>",
        )
        .expect("valid keys");
        for width in [40, 120] {
            for &key in &keys {
                session.press(key).expect("the flow stays open");
                let options = ViewOptions {
                    width: Some(width),
                    all_rows: false,
                };
                let cached = view::build_cached("s", &session, options, &mut cache);
                let fresh = view::build_with_width("s", &session, Some(width));
                assert_eq!(
                    serde_json::to_string(&cached).expect("a view serialises"),
                    serde_json::to_string(&fresh).expect("a view serialises")
                );
            }
        }
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
            views.push(view::build("s", &session));
        }
        check(&views.iter().map(|v| v.tabs.to_vec()).collect::<Vec<_>>());
        check(&views.iter().map(|v| v.hints.to_vec()).collect::<Vec<_>>());
        check(&views.iter().map(|v| v.question.clone()).collect::<Vec<_>>());
        check(&views.iter().map(|v| v.review.clone()).collect::<Vec<_>>());
        check(&views.iter().map(|v| v.editor.clone()).collect::<Vec<_>>());
        let rows: Vec<RowView> = views
            .iter()
            .flat_map(|v| v.question.iter().flat_map(|q| q.rows.iter()))
            .map(|row| (**row).clone())
            .collect();
        check(&rows);
    }
}
