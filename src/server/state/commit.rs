//! The two steps of a change: a method makes it and keeps what undoes it ([`Undo`]); the
//! shell then commits it (a pending `ask` resolved, the state written to disk, a session
//! evicted, the subscribers told) or rolls it back.

use std::sync::Arc;

use serde_json::Value;

use super::recovery::Offer;
use super::{AskReply, Client, Entry, State};
use crate::core::{CancelReason, Flow, Keymap, Preset};
use crate::server::protocol::{ask_error, code, error};
use crate::session::{BehaviourOptions, Session, Status};
use crate::view::ViewOptions;

/// What undoes the change a method made, until the shell commits it or rolls it back.
pub(super) enum Undo {
    /// A session changed; its state before.
    Changed { id: String, before: Box<Session> },
    /// A session was added; the table had room once `evict` (a completed session) goes.
    Added { id: String, evict: Option<String> },
    /// The recovered flow offered as `from` (last saved at `saved_at`, `written`) was resumed
    /// as the session `id`; what the connection's views of `id` carried before. The table had
    /// room once `evict` goes.
    Resumed {
        id: String,
        from: String,
        saved_at: u64,
        written: (u64, u64),
        view: Option<(u64, ViewOptions)>,
        evict: Option<String>,
    },
    /// A recovered flow offered was discarded.
    Discarded { offer: Box<Offer> },
    /// A session was closed.
    Removed { id: String, entry: Box<Entry> },
    /// `initialize` changed the connection's defaults; the earlier ones.
    Defaults {
        keymap: Arc<Keymap>,
        preset: Option<Preset>,
        overrides: Option<Value>,
        view: ViewOptions,
        has_ui: Option<bool>,
        behaviour: BehaviourOptions,
        test: bool,
        name: Option<String>,
    },
}

impl State {
    /// Whether the `ask` on session `id` of serial `serial` still waits for its flow.
    pub fn is_waiting(&self, id: &str, serial: u64) -> bool {
        self.waiters.get(id).is_some_and(|(s, _)| *s == serial)
    }

    /// Makes the change of the request being answered final: a pending `ask` whose flow
    /// completed is resolved, the session's state is written to disk, and a session evicted to
    /// make room goes.
    pub fn commit(&mut self, client: &mut Client) {
        let by = client.number;
        match client.undo.take() {
            None | Some(Undo::Defaults { .. }) => {}
            Some(Undo::Changed { id, .. }) => self.changed(&id, by),
            Some(Undo::Added { id, evict }) => {
                self.evict(evict, by);
                let serial = self.serial_of(&id).unwrap_or(0);
                self.tell(by, |outbox, own| outbox.opened(&id, serial, own));
                self.committed(&id);
                self.announce(&id, by);
            }
            Some(Undo::Resumed {
                id, from, evict, ..
            }) => {
                self.evict(evict, by);
                if id != from
                    && let Some(entry) = self.sessions.get_mut(&id)
                    && let (Some(store), Some(stored)) = (self.store.as_mut(), entry.stored.take())
                {
                    // Its files name the id it had: they are written again under the new one.
                    store.remove(&stored);
                }
                let serial = self.serial_of(&id).unwrap_or(0);
                self.tell(by, |outbox, own| outbox.opened(&id, serial, own));
                self.committed(&id);
            }
            Some(Undo::Discarded { offer }) => {
                if let (Some(store), Some(stored)) = (self.store.as_mut(), &offer.entry.stored) {
                    store.remove(stored);
                }
            }
            Some(Undo::Removed { id, mut entry }) => {
                if let Some((serial, tx)) = self.waiters.remove(&id) {
                    if serial == entry.serial {
                        if let Ok(flow) = entry.session.flow_mut() {
                            let _ = flow.cancel(CancelReason::Aborted);
                        }
                        let _ = tx.send(ask_reply(&entry.session));
                    } else {
                        self.waiters.insert(id.clone(), (serial, tx));
                    }
                }
                if let (Some(store), Some(stored)) = (self.store.as_mut(), &entry.stored) {
                    store.remove(stored);
                }
                self.tell(by, |outbox, own| outbox.closed(&id, own));
            }
        }
    }

    /// Evicts the session `evict` (a completed one) that went to make room, telling the
    /// subscribers.
    fn evict(&mut self, evict: Option<String>, by: u64) {
        let Some(evict) = evict else {
            return;
        };
        if let Some(evicted) = self.sessions.remove(&evict)
            && let (Some(store), Some(stored)) = (self.store.as_mut(), &evicted.stored)
        {
            store.remove(stored);
        }
        self.tell(by, |outbox, _| outbox.closed(&evict, false));
    }

    /// Undoes the change of the request being answered.
    pub fn rollback(&mut self, client: &mut Client) {
        match client.undo.take() {
            None => {}
            Some(Undo::Changed { id, before }) => {
                if let Some(entry) = self.sessions.get_mut(&id) {
                    entry.session = *before;
                    entry.version -= 1;
                }
            }
            Some(Undo::Added { id, .. }) => {
                self.sessions.remove(&id);
            }
            Some(Undo::Resumed {
                id,
                from,
                saved_at,
                written,
                view,
                ..
            }) => {
                if let Some(mut entry) = self.sessions.remove(&id) {
                    if let Some(at) = entry.session.deadline() {
                        self.deadlines.remove(&(at, id.clone()));
                    }
                    entry.files = None;
                    self.put_back_offer(Offer {
                        id: from,
                        entry,
                        saved_at,
                        written,
                    });
                }
                match view {
                    Some(view) => client.views.insert(id, view),
                    None => client.views.remove(&id),
                };
            }
            Some(Undo::Discarded { offer }) => self.put_back_offer(*offer),
            Some(Undo::Removed { id, entry }) => {
                self.sessions.insert(id, *entry);
            }
            Some(Undo::Defaults {
                keymap,
                preset,
                overrides,
                view,
                has_ui,
                behaviour,
                test,
                name,
            }) => {
                client.keymap = keymap;
                client.preset = preset;
                client.overrides = overrides;
                client.view = view;
                client.has_ui = has_ui;
                client.behaviour = behaviour;
                client.test = test;
                client.name = name;
            }
        }
    }

    /// What follows a change of session `id` by the connection `by` once it is final: the
    /// outboxes are told, then as [`State::committed`].
    pub(super) fn changed(&mut self, id: &str, by: u64) {
        self.tell(by, |outbox, own| outbox.changed(id, own));
        self.committed(id);
    }

    /// What follows a change of session `id` once it is final: its pending `ask` is resolved
    /// once the flow is done, and its state is written to the state directory (or removed from
    /// there once the flow is done).
    pub(super) fn committed(&mut self, id: &str) {
        let Some(entry) = self.sessions.get_mut(id) else {
            return;
        };
        if entry.session.status() != Status::Done {
            if let Some(store) = self.store.as_mut()
                && entry.keep
            {
                match &mut entry.stored {
                    Some(stored) => store.write(stored, &entry.session),
                    None => {
                        entry.stored = store.create(
                            id,
                            &entry.session,
                            &entry.request,
                            &entry.options,
                            &entry.asker,
                            entry.opened_at,
                        );
                    }
                }
            }
            return;
        }
        if let (Some(store), Some(stored)) = (self.store.as_mut(), entry.stored.take()) {
            store.remove(&stored);
        }
        self.settle(id);
    }

    /// Resolves the pending `ask` of a session once it is done, and forgets its deadline.
    pub(super) fn settle(&mut self, id: &str) {
        let Some(entry) = self.sessions.get(id) else {
            return;
        };
        if entry.session.status() != Status::Done {
            return;
        }
        if let Some(at) = entry.session.flow().and_then(Flow::deadline) {
            self.deadlines.remove(&(at, id.to_owned()));
        }
        if self
            .waiters
            .get(id)
            .is_some_and(|(serial, _)| *serial == entry.serial)
            && let Some((_, tx)) = self.waiters.remove(id)
        {
            let _ = tx.send(ask_reply(&entry.session));
        }
    }
}

/// What a pending `ask` on a done session resolves with.
pub(super) fn ask_reply(session: &Session) -> AskReply {
    match session.ask_reply() {
        Some(Ok(result)) => Ok(result),
        Some(Err(e)) => Err(ask_error(e)),
        None => Err(error(
            code::COMPLETED,
            "the session completed without a result",
        )),
    }
}
