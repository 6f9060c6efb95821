//! What the views served so far lend the next one. Between two keys most of a view stays as it
//! was, so the parts that cost most to serialise (rendered lines, tab bars, hint lists, rows)
//! carry ready-made JSON when an equal part was served lately, a new line's JSON is put
//! together from the JSON of spans served before, and the tab bar and hint lines laid out are
//! reused for equal tabs and hints at the same width. Parts are matched by their whole
//! content, so a view of any session or width can follow any other; what is kept is bounded
//! (a few views and at most 1,024 span texts, whatever the number of sessions).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use rustc_hash::FxBuildHasher;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::render::{self, Layouts, Line, Span, Style};
use crate::view::{Hint, RowView, TabView, View};

/// A part of a view that a [`ScreenCache`] can give ready-made JSON: it serialises as its
/// value, or as that JSON once it has it (which serde_json writes as it is; other
/// serializers see serde_json's raw-value wrapper). It reads as its value.
#[derive(Debug, Clone, Default)]
pub struct Reused<T> {
    inner: T,
    json: Option<Arc<RawValue>>,
}

impl<T> Reused<T> {
    /// A part without JSON yet.
    pub fn new(value: T) -> Reused<T> {
        Reused {
            inner: value,
            json: None,
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
        self.inner == other.inner
    }
}

impl<T: Serialize> Serialize for Reused<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.json {
            Some(json) => json.serialize(serializer),
            None => self.inner.serialize(serializer),
        }
    }
}

impl<T: Serialize + PartialEq + Clone> Reused<T> {
    /// Serialises the value into its JSON.
    fn serialise(&mut self) {
        self.json = serialised(&self.inner);
    }

    /// Takes the JSON of an equal value in `memo` (most recent first), moving it to the
    /// front; otherwise serialises this value and puts a copy of it, with its JSON, there,
    /// keeping at most [`REMEMBERED`].
    fn reuse(&mut self, memo: &mut Vec<Reused<T>>) {
        match memo.iter().position(|old| old.inner == self.inner) {
            Some(i) => {
                self.json = memo[i].json.clone();
                let old = memo.remove(i);
                memo.insert(0, old);
            }
            None => {
                self.serialise();
                memo.insert(0, self.clone());
                memo.truncate(REMEMBERED);
            }
        }
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
        let reusable = |old: &Reused<T>| old.json.is_some() && old.inner == part.inner;
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
                part.json = json(&part.inner);
                next.push(part.clone());
                // Most often the part replaces the one expected here.
                expected.1 += 1;
            }
        }
    }
    kept.push_front(next);
    kept.truncate(REMEMBERED);
}

/// How many screens, tab bars, hint lists and row lists a [`ScreenCache`] keeps.
const REMEMBERED: usize = 4;

/// The parts of the last views served: their JSON, and their hint layouts. The server keeps
/// one per connection.
#[derive(Debug, Default)]
pub struct ScreenCache {
    /// Rendered lines of the last screens, most recent first.
    screens: VecDeque<Vec<Reused<Line>>>,
    /// Rows of the last views, most recent first.
    rows: VecDeque<Vec<Reused<RowView>>>,
    tabs: Vec<Reused<Vec<TabView>>>,
    hints: Vec<Reused<Vec<Hint>>>,
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
    /// Gives the tabs, hints and rows of `view` their JSON, reused from the last views where
    /// they are equal to its, serialised otherwise.
    pub fn dress(&mut self, view: &mut View) {
        view.tabs.reuse(&mut self.tabs);
        view.hints.reuse(&mut self.hints);
        if let Some(question) = view.question.as_mut() {
            reuse_each(&mut question.rows, &mut self.rows, serialised);
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
        let keys =
            parse_sequence("<Down><Down><Up>n\"\\x<Esc><Down><Down><Down>Own \"answer\\<BS><Tab>")
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
}
