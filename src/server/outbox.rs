//! What a subscribed connection is owed: the `session/opened`, `session/changed` and
//! `session/closed` notifications of changes other connections made, kept coalesced until the
//! connection can take them.
//!
//! An [`Outbox`] holds no message. It holds which sessions are *dirty* (in the order they first
//! became so), whether each changed, and which sessions the subscriber knows of (with the
//! serial of the session it knows, to tell a session from a later one of the same id). The
//! connection's writer takes a dirty session only when its peer can take a message, and writes
//! the notifications that bring the subscriber up to date at that moment, with the session as
//! it is then: a subscriber that reads slowly gets fewer `session/changed` notifications, each
//! with the latest view, never a backlog. What an outbox holds is bounded by the sessions the
//! table holds and the subscriber knows.
//!
//! The writer's side (`server::notify`): it takes a dirty session only once everything queued for
//! the connection before has been written, so what waits for a peer that does not read is at
//! most one session's notifications, besides the replies it asked for.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

/// Which sessions a connection is notified of.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum Filter {
    /// None: not subscribed.
    #[default]
    Nothing,
    /// Every session, those opened later too.
    All,
    /// These sessions (opened or not yet).
    Only(HashSet<String>),
}

impl Filter {
    fn covers(&self, id: &str) -> bool {
        match self {
            Filter::Nothing => false,
            Filter::All => true,
            Filter::Only(ids) => ids.contains(id),
        }
    }
}

/// What the subscriber is to learn of one session, found when its writer takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// `session/opened`: a session the subscriber did not know of.
    Opened,
    /// `session/changed`: a session it knows changed.
    Changed,
    /// `session/closed`: a session it knew is gone.
    Closed,
}

#[derive(Debug, Default)]
struct Pending {
    filter: Filter,
    /// Dirty sessions, in the order they became dirty.
    order: VecDeque<String>,
    /// Dirty sessions → whether they changed (besides being opened or closed).
    dirty: HashMap<String, bool>,
    /// Sessions the subscriber knows of → the serial of the one it knows.
    known: HashMap<String, u64>,
    /// The sessions of [`Filter::Only`], oldest subscription first.
    by_id: VecDeque<String>,
    /// Whether the connection is a person's client that shows arriving flows
    /// (`subscribe { attach: true }`, which covers every session).
    attached: bool,
    /// Messages for this connection alone, already written (the hub's `hub/unattended`), oldest
    /// first; at most [`MAX_NOTICES`].
    notices: VecDeque<Vec<u8>>,
}

/// Most notices an outbox keeps for a connection that does not read them: past it, the oldest
/// goes.
pub const MAX_NOTICES: usize = 64;

impl Pending {
    fn mark(&mut self, id: &str, changed: bool) {
        match self.dirty.get_mut(id) {
            Some(flag) => *flag |= changed,
            None => {
                self.dirty.insert(id.to_owned(), changed);
                self.order.push_back(id.to_owned());
            }
        }
    }
}

/// The notifications one connection is owed (see the module's documentation).
#[derive(Debug, Default)]
pub struct Outbox {
    pending: Mutex<Pending>,
    /// Woken when a session becomes dirty.
    wake: Notify,
}

impl Outbox {
    /// What is owed, locked; a panic elsewhere does not poison it.
    fn pending(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Subscribes to one session, or to all (`None`), adding to what the connection is
    /// subscribed to. `current` lists the sessions held now (id and serial): the subscriber is
    /// taken to know those it is now subscribed to (it reads them with `sessions`).
    pub fn subscribe<'a>(
        &self,
        session: Option<String>,
        current: impl IntoIterator<Item = (&'a str, u64)>,
    ) {
        let mut pending = self.pending();
        let Pending { filter, by_id, .. } = &mut *pending;
        match session {
            None => {
                *filter = Filter::All;
                by_id.clear();
            }
            Some(id) => match filter {
                Filter::All => {}
                Filter::Only(ids) => {
                    if ids.insert(id.clone()) {
                        by_id.push_back(id);
                    }
                }
                Filter::Nothing => {
                    *filter = Filter::Only(HashSet::from([id.clone()]));
                    by_id.push_back(id);
                }
            },
        }
        for (id, serial) in current {
            if pending.filter.covers(id) && !pending.known.contains_key(id) {
                pending.known.insert(id.to_owned(), serial);
            }
        }
    }

    /// Makes room for a subscription to the session `id` among the at most `most` sessions
    /// the connection is subscribed to by id: when it would be one more, the oldest of them
    /// that is not `held` and owes no notification is dropped, and answered. `Err(count)`
    /// when there is none to drop.
    pub fn make_room(
        &self,
        id: &str,
        most: usize,
        held: impl Fn(&str) -> bool,
    ) -> Result<Option<String>, usize> {
        let mut pending = self.pending();
        let Pending {
            filter,
            by_id,
            dirty,
            ..
        } = &mut *pending;
        let Filter::Only(ids) = filter else {
            return Ok(None);
        };
        if ids.contains(id) || ids.len() < most {
            return Ok(None);
        }
        let Some(at) = by_id
            .iter()
            .position(|old| !held(old) && !dirty.contains_key(old))
        else {
            return Err(ids.len());
        };
        let dropped = by_id.remove(at).expect("a position in the queue");
        ids.remove(&dropped);
        Ok(Some(dropped))
    }

    /// Stops every notification, forgetting what is owed.
    pub fn unsubscribe(&self) {
        let mut pending = self.pending();
        let notices = std::mem::take(&mut pending.notices);
        *pending = Pending::default();
        pending.notices = notices;
    }

    /// Marks the connection as a person's client that shows arriving flows (`true`, once it
    /// is subscribed to every session, see [`Outbox::subscribe`]) or not (`false`).
    /// `unsubscribe` ends it too.
    pub fn attach(&self, attach: bool) {
        let mut pending = self.pending();
        pending.attached = attach && pending.filter == Filter::All;
    }

    /// Whether the connection is attached (see [`Outbox::attach`]).
    pub fn is_attached(&self) -> bool {
        self.pending().attached
    }

    /// Queues a message for this connection alone, whatever it is subscribed to; past
    /// [`MAX_NOTICES`] waiting, the oldest goes.
    pub fn notice(&self, message: Vec<u8>) {
        let mut pending = self.pending();
        if pending.notices.len() >= MAX_NOTICES {
            pending.notices.pop_front();
        }
        pending.notices.push_back(message);
        drop(pending);
        self.wake.notify_one();
    }

    /// The oldest message queued by [`Outbox::notice`], taken.
    pub fn take_notice(&self) -> Option<Vec<u8>> {
        self.pending().notices.pop_front()
    }

    /// A session was opened (or restored), with `serial`; `own` when this connection opened
    /// it, which its reply says.
    pub fn opened(&self, id: &str, serial: u64, own: bool) {
        let mut pending = self.pending();
        if !pending.filter.covers(id) {
            return;
        }
        if own {
            pending.known.insert(id.to_owned(), serial);
            return;
        }
        pending.mark(id, false);
        drop(pending);
        self.wake.notify_one();
    }

    /// A session changed; `own` when this connection's request changed it, which its reply
    /// says.
    pub fn changed(&self, id: &str, own: bool) {
        let mut pending = self.pending();
        if own || !pending.filter.covers(id) {
            return;
        }
        // A session the subscriber is yet to hear of is owed its change only when it is due
        // to be told of the session itself.
        if !pending.known.contains_key(id) && !pending.dirty.contains_key(id) {
            return;
        }
        pending.mark(id, true);
        drop(pending);
        self.wake.notify_one();
    }

    /// A session was closed or evicted; `own` when this connection closed it, which its reply
    /// says.
    pub fn closed(&self, id: &str, own: bool) {
        let mut pending = self.pending();
        if own {
            pending.known.remove(id);
            return;
        }
        if pending.known.contains_key(id) {
            pending.mark(id, false);
        } else if pending.dirty.remove(id).is_some() {
            // Opened and gone before the subscriber heard of it: it need not hear of it.
            pending.order.retain(|dirty| dirty != id);
            return;
        } else {
            return;
        }
        drop(pending);
        self.wake.notify_one();
    }

    /// Takes the next dirty session and what the subscriber is due about it, given the serial
    /// of the session of that id held now (`None`: none): up to three notifications, in order
    /// (`Closed` then `Opened` when a session was replaced by another of the same id, then
    /// `Changed` when the session it is told of has changed since it was opened). The
    /// subscriber is then taken to know the session as it is.
    pub fn take(&self, held: impl Fn(&str) -> Option<u64>) -> Option<(String, Vec<Due>)> {
        let mut pending = self.pending();
        while let Some(id) = pending.order.pop_front() {
            let changed = pending.dirty.remove(&id).unwrap_or(false);
            let due = match (pending.known.get(&id).copied(), held(&id)) {
                (Some(known), Some(now)) if known == now => {
                    if changed {
                        vec![Due::Changed]
                    } else {
                        Vec::new()
                    }
                }
                (Some(_), Some(now)) => {
                    pending.known.insert(id.clone(), now);
                    if changed {
                        vec![Due::Closed, Due::Opened, Due::Changed]
                    } else {
                        vec![Due::Closed, Due::Opened]
                    }
                }
                (Some(_), None) => {
                    pending.known.remove(&id);
                    vec![Due::Closed]
                }
                (None, Some(now)) => {
                    pending.known.insert(id.clone(), now);
                    if changed {
                        vec![Due::Opened, Due::Changed]
                    } else {
                        vec![Due::Opened]
                    }
                }
                (None, None) => Vec::new(),
            };
            if !due.is_empty() {
                return Some((id, due));
            }
        }
        None
    }

    /// Waits until a session is dirty or a notice waits (at once when one does).
    pub async fn ready(&self) {
        loop {
            let woken = self.wake.notified();
            let due = {
                let pending = self.pending();
                !pending.order.is_empty() || !pending.notices.is_empty()
            };
            if due {
                return;
            }
            woken.await;
        }
    }

    /// How many sessions are dirty, and how many the subscriber knows of.
    #[cfg(test)]
    fn sizes(&self) -> (usize, usize) {
        let pending = self.pending();
        (pending.order.len(), pending.known.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything the outbox is due, with sessions held as `held` says.
    fn drain(outbox: &Outbox, held: &[(&str, u64)]) -> Vec<(String, Vec<Due>)> {
        let held: HashMap<&str, u64> = held.iter().copied().collect();
        std::iter::from_fn(|| outbox.take(|id| held.get(id).copied())).collect()
    }

    fn due(id: &str, due: &[Due]) -> (String, Vec<Due>) {
        (id.to_owned(), due.to_vec())
    }

    #[test]
    fn nothing_is_owed_before_subscribing() {
        let outbox = Outbox::default();
        outbox.opened("a", 1, false);
        outbox.changed("a", false);
        outbox.closed("a", false);
        assert_eq!(drain(&outbox, &[("a", 1)]), vec![]);
    }

    #[test]
    fn changes_coalesce_and_come_in_the_order_they_began() {
        let outbox = Outbox::default();
        outbox.subscribe(None, [("a", 1), ("b", 2)]);
        for _ in 0..1000 {
            outbox.changed("b", false);
            outbox.changed("a", false);
        }
        outbox.opened("c", 3, false);
        outbox.changed("c", false);
        outbox.changed("d", false);
        assert_eq!(
            drain(&outbox, &[("a", 1), ("b", 2), ("c", 3), ("d", 4)]),
            vec![
                due("b", &[Due::Changed]),
                due("a", &[Due::Changed]),
                due("c", &[Due::Opened, Due::Changed])
            ]
        );
        assert_eq!(outbox.sizes(), (0, 3));
    }

    #[test]
    fn own_changes_are_not_owed_but_own_sessions_are_known() {
        let outbox = Outbox::default();
        outbox.subscribe(None, []);
        outbox.opened("a", 1, true);
        outbox.changed("a", true);
        assert_eq!(drain(&outbox, &[("a", 1)]), vec![]);
        outbox.changed("a", false);
        assert_eq!(drain(&outbox, &[("a", 1)]), vec![due("a", &[Due::Changed])]);
        outbox.closed("a", true);
        assert_eq!(drain(&outbox, &[]), vec![]);
        assert_eq!(outbox.sizes(), (0, 0));
    }

    #[test]
    fn a_session_opened_and_closed_unseen_is_never_owed() {
        let outbox = Outbox::default();
        outbox.subscribe(None, []);
        for serial in 0..1000 {
            outbox.opened(&format!("s{serial}"), serial, false);
            outbox.closed(&format!("s{serial}"), false);
        }
        assert_eq!(outbox.sizes(), (0, 0));
        assert_eq!(drain(&outbox, &[]), vec![]);
    }

    #[test]
    fn a_known_session_closed_then_replaced_is_closed_then_opened() {
        let outbox = Outbox::default();
        outbox.subscribe(None, [("a", 1), ("b", 2)]);
        outbox.closed("a", false);
        outbox.opened("a", 5, false);
        outbox.closed("b", false);
        assert_eq!(
            drain(&outbox, &[("a", 5)]),
            vec![
                due("a", &[Due::Closed, Due::Opened]),
                due("b", &[Due::Closed])
            ]
        );
        assert_eq!(outbox.sizes(), (0, 1));
    }

    #[test]
    fn one_session_only_or_all_and_unsubscribe_stops_everything() {
        let outbox = Outbox::default();
        outbox.subscribe(Some("b".into()), [("a", 1)]);
        outbox.opened("a", 1, false);
        outbox.opened("b", 2, false);
        assert_eq!(
            drain(&outbox, &[("a", 1), ("b", 2)]),
            vec![due("b", &[Due::Opened])]
        );
        outbox.subscribe(None, [("a", 1), ("b", 2)]);
        outbox.changed("a", false);
        assert_eq!(
            drain(&outbox, &[("a", 1), ("b", 2)]),
            vec![due("a", &[Due::Changed])]
        );
        outbox.unsubscribe();
        outbox.changed("a", false);
        outbox.opened("c", 3, false);
        assert_eq!(drain(&outbox, &[("a", 1), ("c", 3)]), vec![]);
        assert_eq!(outbox.sizes(), (0, 0));
    }

    #[test]
    fn ready_waits_for_a_dirty_session() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let outbox = std::sync::Arc::new(Outbox::default());
        outbox.subscribe(None, [("a", 1)]);
        let waiting = outbox.clone();
        runtime.block_on(async move {
            let ready = tokio::spawn(async move { waiting.ready().await });
            tokio::task::yield_now().await;
            assert!(!ready.is_finished());
            outbox.changed("a", false);
            ready.await.unwrap();
        });
    }

    #[test]
    fn attach_needs_every_session_and_unsubscribe_ends_it() {
        let outbox = Outbox::default();
        outbox.attach(true);
        assert!(!outbox.is_attached(), "not subscribed: not attached");
        outbox.subscribe(Some("a".into()), []);
        outbox.attach(true);
        assert!(!outbox.is_attached(), "one session only: not attached");
        outbox.subscribe(None, []);
        outbox.attach(true);
        assert!(outbox.is_attached());
        outbox.attach(false);
        assert!(!outbox.is_attached());
        outbox.attach(true);
        outbox.unsubscribe();
        assert!(!outbox.is_attached());
    }

    #[test]
    fn notices_wait_whatever_the_subscription_and_the_oldest_go_past_the_bound() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let outbox = Outbox::default();
        for n in 0..MAX_NOTICES + 3 {
            outbox.notice(n.to_string().into_bytes());
        }
        // Ready at once: a notice waits though the connection subscribed to nothing.
        runtime.block_on(outbox.ready());
        outbox.unsubscribe();
        let taken: Vec<String> = std::iter::from_fn(|| outbox.take_notice())
            .map(|m| String::from_utf8(m).unwrap())
            .collect();
        let expected: Vec<String> = (3..MAX_NOTICES + 3).map(|n| n.to_string()).collect();
        assert_eq!(taken, expected);
        assert_eq!(drain(&outbox, &[]), vec![]);
    }
}
