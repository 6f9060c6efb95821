//! What one connection keeps for itself beside the shared table: its defaults, its view
//! options per session, its screen cache, the reply being written and the undo of its request.

use std::collections::HashMap;
use std::sync::Arc;

use jsonrpsee::types::ErrorObjectOwned;
use rustc_hash::FxBuildHasher;
use serde_json::Value;

use super::commit::Undo;
use super::{Config, State, Table};
use crate::core::{Keymap, Preset};
use crate::server::outbox::Outbox;
use crate::server::protocol::{code, error};
use crate::session::BehaviourOptions;
use crate::view::{ScreenCache, ViewOptions};

/// What one connection keeps for itself beside the shared [`State`]: its defaults for the
/// sessions it opens (from `initialize`), its view options for each session (a connection's
/// Steps and notifications are rendered with its own), its screen cache, the reply being
/// written and what undoes the change of its request being answered, and its outbox.
pub struct Client {
    /// The connection's number, which tells its own changes from others' to its outbox.
    pub(super) number: u64,
    /// The connection's keymap: the defaults, its preset, its overrides.
    pub(super) keymap: Arc<Keymap>,
    /// The connection's preset and overrides, from `initialize`, which a session's own
    /// preset or overrides are combined with.
    pub(super) preset: Option<Preset>,
    pub(super) overrides: Option<Value>,
    /// The behaviour options of later sessions, from `initialize`.
    pub(super) behaviour: BehaviourOptions,
    /// What views carry of sessions the connection gave no options for, from `initialize`
    /// or `subscribe` to every session.
    pub(super) view: ViewOptions,
    pub(super) has_ui: Option<bool>,
    /// The connection's name, `initialize`'s `clientInfo.name`: who asks the flows it opens
    /// unless they say.
    pub(super) name: Option<String>,
    /// Whether the connection said it is a test (`initialize`'s `capabilities.test`): it is
    /// offered no recovered flow, and the flows it opens are not kept in the state directory.
    pub(super) test: bool,
    /// What views of a session carry, as the connection asked at `open`, `restore` or
    /// `subscribe`: session id → the session's serial and the options (looked up on every
    /// Step; as many as the table holds at most, so a fast hash is safe).
    pub(super) views: HashMap<String, (u64, ViewOptions), FxBuildHasher>,
    /// What views of a session carry that was not held when the connection subscribed to it
    /// with options: session id → the options, for the sessions of that id opened later (as
    /// many as the connection may subscribe to by id).
    pub(super) waiting_views: HashMap<String, ViewOptions, FxBuildHasher>,
    /// What the last views lend the next one.
    pub(super) screens: ScreenCache,
    pub(super) last_ask: Option<(String, u64)>,
    /// The success reply of the synchronous method being called, begun by the shell and
    /// continued by the method (see `server::methods::register`).
    reply: ReplySlot,
    /// Most bytes the reply being written may hold, its envelope included.
    pub(super) reply_limit: usize,
    /// Whether the reply being written is part of a batch's.
    pub(super) in_batch: bool,
    /// What undoes the change of the request being answered.
    pub(super) undo: Option<Undo>,
    /// The notifications the connection is owed.
    pub(super) outbox: Arc<Outbox>,
}

impl Client {
    /// What the last views lend the next one, for writing a reply.
    pub fn screens(&mut self) -> &mut ScreenCache {
        &mut self.screens
    }

    /// The notifications the connection is owed.
    pub fn outbox(&self) -> &Arc<Outbox> {
        &self.outbox
    }

    /// What views of session `id` (of serial `serial`) carry for this connection.
    pub(super) fn view_of(&self, id: &str, serial: u64) -> ViewOptions {
        match self.views.get(id) {
            Some((of, view)) if *of == serial => *view,
            _ => self.waiting_views.get(id).copied().unwrap_or(self.view),
        }
    }

    /// Sets what views of session `id` carry for this connection, forgetting the options of
    /// sessions no longer held once there are more than `sessions` holds.
    pub(super) fn set_view(&mut self, id: &str, serial: u64, view: ViewOptions, sessions: &Table) {
        self.views.insert(id.to_owned(), (serial, view));
        if self.views.len() > sessions.len() {
            self.views
                .retain(|id, (serial, _)| sessions.get(id).is_some_and(|e| e.serial == *serial));
        }
    }

    /// Begins the success reply of the next call with `head`, forgetting any earlier reply;
    /// the reply may hold `limit` bytes in all (`in_batch`: the rest of a batch's budget). A
    /// change an earlier call left behind (it panicked) is undone first.
    pub fn begin_reply(&mut self, state: &mut State, head: Vec<u8>, limit: usize, in_batch: bool) {
        if self.undo.is_some() {
            tracing::warn!("a request ended without its change committed; it is undone");
            state.rollback(self);
        }
        self.reply = ReplySlot::Begun(head);
        self.reply_limit = limit;
        self.in_batch = in_batch;
    }

    /// The reply begun by [`Client::begin_reply`], taken for a method to write its result
    /// after, and how many bytes it may hold; an empty buffer when none was begun.
    pub fn take_begun_reply(&mut self, config: &Config) -> (Vec<u8>, usize) {
        match std::mem::take(&mut self.reply) {
            ReplySlot::Begun(reply) => (reply, self.reply_limit),
            _ => (Vec::new(), config.max_reply_bytes),
        }
    }

    /// Keeps the reply of a synchronous method that succeeded, its result written, for the
    /// shell to end and send.
    pub fn set_finished(&mut self, reply: Vec<u8>) {
        self.reply = ReplySlot::Finished(reply);
    }

    /// The reply kept by [`Client::set_finished`], taken; `None` when the call did not
    /// succeed. The slot is empty afterwards either way.
    pub fn take_finished(&mut self) -> Option<Vec<u8>> {
        match std::mem::take(&mut self.reply) {
            ReplySlot::Finished(reply) => Some(reply),
            _ => None,
        }
    }

    /// The session opened by the latest `ask` and its serial, taken (the shell maps request
    /// ids to it).
    pub fn take_last_ask(&mut self) -> Option<(String, u64)> {
        self.last_ask.take()
    }

    /// The error of a reply over its budget.
    pub fn reply_too_large(&self, config: &Config) -> ErrorObjectOwned {
        let what = if self.in_batch {
            "the replies of the batch would pass"
        } else {
            "the reply would pass"
        };
        error(
            code::LIMIT,
            format!(
                "reply too large: {what} the limit of {} bytes (--max-reply-bytes)",
                config.max_reply_bytes
            ),
        )
    }
}

/// Where a success reply is written: the shell begins it with its envelope, the method writes
/// its result after that, and the shell ends it.
#[derive(Debug, Default)]
enum ReplySlot {
    /// No call under way, or its reply was taken.
    #[default]
    Empty,
    /// Begun by the shell; the call has not succeeded (yet).
    Begun(Vec<u8>),
    /// The result written after the envelope: the call succeeded.
    Finished(Vec<u8>),
}

impl State {
    /// The state of a new connection, whose outbox is told of the table's changes from now
    /// on.
    pub fn client(&mut self) -> Client {
        self.clients += 1;
        let outbox = Arc::new(Outbox::default());
        self.outboxes
            .retain(|(_, outbox)| outbox.strong_count() > 0);
        self.outboxes.push((self.clients, Arc::downgrade(&outbox)));
        Client {
            number: self.clients,
            keymap: Arc::new(Keymap::default()),
            preset: None,
            overrides: None,
            behaviour: BehaviourOptions::default(),
            view: ViewOptions::default(),
            has_ui: None,
            name: None,
            test: false,
            views: HashMap::default(),
            waiting_views: HashMap::default(),
            screens: ScreenCache::default(),
            last_ask: None,
            reply: ReplySlot::Empty,
            reply_limit: self.config.max_reply_bytes,
            in_batch: false,
            undo: None,
            outbox,
        }
    }
}
