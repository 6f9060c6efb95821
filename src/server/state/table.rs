//! The session table: session id → its entry, and what the sessions of one request share.
//!
//! Every session keeps the request it was opened on as it came (its snapshot and the state
//! directory hold it) beside the spec its dialect read from it. Sessions opened on the same
//! text keep one copy of it between them, and one spec when their specs are equal (the same
//! dialect, options and behaviour): the table knows, per request text it holds, how many of its
//! entries were opened on it and where that text and its latest spec are.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Weak};

use serde_json::value::RawValue;

use super::Entry;
use crate::core::FlowSpec;

/// The session table. Each entry is boxed: a hash table keeps room to spare (up to half of its
/// slots empty after it grows), and a spare slot then costs a pointer, not a whole entry.
#[derive(Default)]
pub(crate) struct Table {
    entries: HashMap<String, Box<Entry>>,
    /// The request texts of the entries: how many entries hold each, and the spec the latest of
    /// them opened to (gone once no flow holds it).
    requests: HashMap<Text, Shared>,
}

/// What the entries opened on one request text share.
struct Shared {
    /// How many entries of the table hold the text.
    entries: usize,
    /// The spec of the latest of them that opened to a flow.
    spec: Weak<FlowSpec>,
}

/// A request text kept for the table, hashed and compared by its text.
struct Text(Arc<RawValue>);

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.get().hash(state);
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Eq for Text {}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.0.get()
    }
}

impl Table {
    /// Adds `entry` under `id`, answering the entry it replaces. The entry keeps the copy of
    /// its request text that the table holds already, if any, and the spec of that request's
    /// latest flow when its own is equal to it.
    pub(crate) fn insert(&mut self, id: String, mut entry: Entry) -> Option<Entry> {
        self.share(&mut entry);
        let replaced = self.entries.insert(id, Box::new(entry)).map(|entry| *entry);
        if let Some(replaced) = &replaced {
            self.release(replaced);
        }
        replaced
    }

    /// Takes the entry `id` out of the table.
    pub(crate) fn remove(&mut self, id: &str) -> Option<Entry> {
        let removed = self.entries.remove(id).map(|entry| *entry)?;
        self.release(&removed);
        Some(removed)
    }

    pub(crate) fn get(&self, id: &str) -> Option<&Entry> {
        self.entries.get(id).map(|entry| &**entry)
    }

    pub(crate) fn get_mut(&mut self, id: &str) -> Option<&mut Entry> {
        self.entries.get_mut(id).map(|entry| &mut **entry)
    }

    pub(crate) fn contains_key(&self, id: &str) -> bool {
        self.entries.contains_key(id)
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &Entry)> {
        self.entries.iter().map(|(id, entry)| (id, &**entry))
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values().map(|entry| &**entry)
    }

    /// How many request texts the table keeps (one per text, whatever the number of entries
    /// holding it).
    #[cfg(test)]
    fn texts(&self) -> usize {
        self.requests.len()
    }

    /// Lets `entry` share its request text and spec with the entries opened on the same text,
    /// and counts it among them.
    fn share(&mut self, entry: &mut Entry) {
        let flow = entry.session.flow_mut().ok();
        let kept = self
            .requests
            .get_key_value(entry.request.get())
            .map(|(text, _)| Arc::clone(&text.0));
        match kept {
            Some(text) => {
                entry.request = text;
                let shared = self
                    .requests
                    .get_mut(entry.request.get())
                    .expect("the text was found");
                shared.entries += 1;
                if let Some(flow) = flow
                    && !shared
                        .spec
                        .upgrade()
                        .is_some_and(|spec| flow.share_spec(&spec))
                {
                    shared.spec = Arc::downgrade(flow.spec_arc());
                }
            }
            None => {
                let spec = flow.map_or_else(Weak::new, |flow| Arc::downgrade(flow.spec_arc()));
                self.requests.insert(
                    Text(Arc::clone(&entry.request)),
                    Shared { entries: 1, spec },
                );
            }
        }
    }

    /// Counts `entry`, taken out of the table, no longer among the entries of its request
    /// text; the table forgets the text with the last of them.
    fn release(&mut self, entry: &Entry) {
        let text = entry.request.get();
        if let Some(shared) = self.requests.get_mut(text) {
            shared.entries -= 1;
            if shared.entries == 0 {
                self.requests.remove(text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::core::Behaviour;
    use crate::server::params::Asker;
    use crate::session::{OpenOptions, Session};

    /// A one-question request other than the example.
    const OTHER: &str = r#"{"questions":[{"id":"q","prompt":"Which?","options":[{"value":"a","label":"A"},{"value":"b","label":"B"}]}]}"#;

    /// An entry of the table opened on `text` (a pi request) with `options`.
    fn entry(text: &str, options: &OpenOptions) -> Entry {
        let payload: Value = serde_json::from_str(text).expect("JSON");
        let request: Box<RawValue> = serde_json::from_str(text).expect("JSON");
        Entry {
            session: Session::open(&payload, options).expect("opens"),
            request: Arc::from(request),
            options: Value::Null,
            version: 1,
            serial: 0,
            files: None,
            keep: false,
            asker: Asker::default(),
            opened_at: 0,
            stored: None,
        }
    }

    fn request<'a>(table: &'a Table, id: &str) -> &'a Arc<RawValue> {
        &table.get(id).expect("held").request
    }

    fn spec<'a>(table: &'a Table, id: &str) -> &'a Arc<FlowSpec> {
        table
            .get(id)
            .and_then(|entry| entry.session.flow())
            .expect("a flow")
            .spec_arc()
    }

    #[test]
    fn entries_of_one_request_text_keep_one_copy_of_it_and_of_equal_specs() {
        let text = crate::dialect::pi::EXAMPLE;
        let plain = OpenOptions::default();
        let multi = OpenOptions {
            behaviour: Behaviour {
                present_single_as_multi: true,
                ..Behaviour::default()
            },
            ..OpenOptions::default()
        };
        let mut table = Table::default();
        table.insert("a".into(), entry(text, &plain));
        table.insert("b".into(), entry(text, &plain));
        table.insert("c".into(), entry(text, &multi));
        table.insert("d".into(), entry(OTHER, &plain));
        assert_eq!(table.texts(), 2);
        // One copy of the text for a, b and c, the table's key among its holders.
        assert!(Arc::ptr_eq(request(&table, "a"), request(&table, "b")));
        assert!(Arc::ptr_eq(request(&table, "a"), request(&table, "c")));
        assert_eq!(Arc::strong_count(request(&table, "a")), 4);
        assert_eq!(Arc::strong_count(request(&table, "d")), 2);
        // a and b opened to equal specs and keep one; c's behaviour makes another.
        assert!(Arc::ptr_eq(spec(&table, "a"), spec(&table, "b")));
        assert_eq!(Arc::strong_count(spec(&table, "a")), 2);
        assert!(!Arc::ptr_eq(spec(&table, "a"), spec(&table, "c")));
        assert_ne!(
            spec(&table, "c").questions[0].kind,
            spec(&table, "a").questions[0].kind
        );
        // An entry taken out keeps its copy; the table forgets a text with the last entry
        // holding it.
        let a = table.remove("a").expect("held");
        assert_eq!(Arc::strong_count(&a.request), 4);
        drop(a);
        table.remove("b");
        assert_eq!(table.texts(), 2);
        table.remove("c");
        assert_eq!(table.texts(), 1);
        // An entry replaced under its id gives its text back too.
        let replaced = table.insert("d".into(), entry(text, &plain));
        assert_eq!(replaced.map(|e| e.request.get().len()), Some(OTHER.len()));
        assert_eq!(table.texts(), 1);
        assert_eq!(Arc::strong_count(request(&table, "d")), 2);
        table.remove("d");
        assert_eq!(table.texts(), 0);
    }
}
