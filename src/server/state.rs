//! The server's state: connection defaults, the session table with its limits and its state
//! directory, and pending `ask` requests. Each method here parses its params, drives the pure
//! engine, and shapes the answer; nothing about the flow itself is decided here.
//!
//! A request that changes the table takes effect in two steps. The method makes the change and
//! keeps what undoes it; the shell then writes the reply within its budget
//! (`--max-reply-bytes`) and either *commits* the change (resolving a pending `ask`, writing the
//! session's state to disk, evicting a session the table had no room for) or, when the reply
//! would be over the budget, *rolls it back*, so a refused request changes nothing. The state on
//! disk always describes what the client was last answered.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::time::{SystemTime, UNIX_EPOCH};

use jsonrpsee::types::ErrorObjectOwned;
use rustc_hash::FxBuildHasher;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::{Notify, oneshot};

use crate::core::{
    CancelReason, FileIndex, Flow, FlowError, Key, Keymap, Limits, Outcome, Preset, parse_sequence,
    quoted,
};
use crate::server::files;
use crate::server::notify::Outbox;
use crate::server::params::{
    CancelCause, CancelParams, GetViewParams, InitializeParams, InsertParams, KeyList, KeyParams,
    KeysParams, OpenParams, Params, RestoreParams, SaveCustomParams, SessionParams, SetNoteParams,
    SubmitAnswersParams, SubmitMode, SubscribeParams,
};
use crate::server::protocol::{Bounded, METHODS, Step, StepError, ask_error, code, error};
use crate::server::store::{Store, Stored};
use crate::session::snapshot::{self, RestoreError};
use crate::session::{BehaviourOptions, OpenOptions, Session, Status};
use crate::view::{self, ScreenCache, ViewOptions};

/// The connection number of no connection: the changes the timer makes are no connection's own.
const NOBODY: u64 = 0;

/// Most keys in one `keys` script with `trace: true` (each answers a whole Step).
pub const MAX_TRACED_KEYS: usize = 1000;

/// The latest deadline a flow takes, in milliseconds since the Unix epoch: 2^53 − 1, so that
/// JavaScript clients read every deadline exactly. Later ones are brought down to it.
pub const MAX_DEADLINE: u64 = (1 << 53) - 1;

/// The time now, in milliseconds since the Unix epoch (0 before it): the clock behind every
/// deadline.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Server-wide settings, from the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Largest accepted message, in bytes (a `restore` may be larger: see
    /// [`Config::max_restore_message_bytes`]).
    pub max_message_bytes: usize,
    /// Most sessions held at once (completed ones, then recovered flows nobody asked for again,
    /// are evicted oldest-first beyond it).
    pub max_sessions: usize,
    /// Largest reply, in bytes: a request whose reply would be larger fails and changes
    /// nothing. A batch's replies share it.
    pub max_reply_bytes: usize,
    /// Most bytes of replies waiting for the client to read them; past it, input is not read.
    pub max_pending_bytes: usize,
    /// Per-flow bounds.
    pub limits: Limits,
    /// Where open sessions are written (`None`: nowhere).
    pub state_dir: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_message_bytes: 1024 * 1024,
            max_sessions: 1024,
            max_reply_bytes: 16 * 1024 * 1024,
            max_pending_bytes: 4 * 1024 * 1024,
            limits: Limits::default(),
            state_dir: None,
        }
    }
}

impl Config {
    /// The largest `restore` message: a message of the usual size plus the largest snapshot
    /// a session can have under the limits, so that every snapshot restores.
    pub fn max_restore_message_bytes(&self) -> usize {
        self.max_message_bytes
            .saturating_add(snapshot::max_bytes(&self.limits, self.max_message_bytes))
    }
}

/// What a pending `ask` is sent when its flow completes.
pub type AskReply = Result<Value, ErrorObjectOwned>;

/// One session of the table.
pub(crate) struct Entry {
    session: Session,
    /// The request it was opened on, as it came (its snapshot holds it).
    request: Box<RawValue>,
    /// The options of its dialect it was opened with (`null`: none; its snapshot holds them).
    options: Value,
    /// How many changes it has had: 1 when opened, one more with every change (taken back
    /// when the change is rolled back).
    version: u64,
    /// Order of creation, for eviction; also tells a session from a later one of the same id.
    serial: u64,
    /// The file index being listed for `@` completion, until the flow has it.
    files: Option<oneshot::Receiver<Arc<FileIndex>>>,
    /// Read back from the state directory and not yet resumed by an `open` of its id.
    recovered: bool,
    /// Where its state is on disk, once written.
    stored: Option<Stored>,
}

impl Entry {
    /// Hands the flow its file index once the walk has finished (a no-op before that).
    fn install_files(&mut self) {
        let Some(rx) = self.files.as_mut() else {
            return;
        };
        match rx.try_recv() {
            Ok(index) => {
                if let Ok(flow) = self.session.flow_mut() {
                    flow.set_file_index(index);
                }
                self.files = None;
            }
            Err(oneshot::error::TryRecvError::Empty) => {}
            Err(oneshot::error::TryRecvError::Closed) => self.files = None,
        }
    }
}

/// What undoes the change a method made, until the shell commits it or rolls it back.
enum Undo {
    /// A session changed; its state before.
    Changed { id: String, before: Box<Session> },
    /// A session was added, in place of a recovered one given up (`replaced`); the table had
    /// room once `evict` (a completed session) goes.
    Added {
        id: String,
        replaced: Option<Box<Entry>>,
        evict: Option<String>,
    },
    /// A recovered session was resumed; what the connection's views of it carried before.
    Resumed {
        id: String,
        view: Option<(u64, ViewOptions)>,
    },
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
    },
}

/// What every connection of the process shares: the settings, the session table, pending
/// `ask`s, the state directory, and the outboxes of the connections to notify of changes.
/// Every method takes the [`Client`] of the connection that calls it besides: what that
/// connection keeps for itself.
pub struct State {
    config: Config,
    sessions: HashMap<String, Entry>,
    serial: u64,
    next_id: u64,
    /// Pending `ask`s: session id → the session's serial and where its reply goes.
    waiters: HashMap<String, (u64, oneshot::Sender<AskReply>)>,
    /// The state directory, unless it is off.
    store: Option<Store>,
    /// The outbox of every connection, by the connection's number; an ended connection's
    /// outbox is dropped with it, and forgotten here at the next change.
    outboxes: Vec<(u64, Weak<Outbox>)>,
    /// The number of the latest connection.
    clients: u64,
    /// The deadlines of open flows, earliest first, with their sessions.
    deadlines: BTreeSet<(u64, String)>,
    /// Wakes the timer (`server::expire_on_time`) when a deadline is added.
    timer: Arc<Notify>,
}

/// What one connection keeps for itself beside the shared [`State`]: its defaults for the
/// sessions it opens (from `initialize`), its view options for each session (a connection's
/// Steps and notifications are rendered with its own), its screen cache, the reply being
/// written and what undoes the change of its request being answered, and its outbox.
pub struct Client {
    /// The connection's number, which tells its own changes from others' to its outbox.
    number: u64,
    /// The connection's keymap: the defaults, its preset, its overrides.
    keymap: Arc<Keymap>,
    /// The connection's preset and overrides, from `initialize`, which a session's own
    /// preset or overrides are combined with.
    preset: Option<Preset>,
    overrides: Option<Value>,
    /// The behaviour options of later sessions, from `initialize`.
    behaviour: BehaviourOptions,
    /// What views carry of sessions the connection gave no options for, from `initialize`
    /// or `subscribe` to every session.
    view: ViewOptions,
    has_ui: Option<bool>,
    /// What views of a session carry, as the connection asked at `open`, `restore` or
    /// `subscribe`: session id → the session's serial and the options (looked up on every
    /// Step; as many as the table holds at most, so a fast hash is safe).
    views: HashMap<String, (u64, ViewOptions), FxBuildHasher>,
    /// What views of a session carry that was not held when the connection subscribed to it
    /// with options: session id → the options, for the sessions of that id opened later (as
    /// many as the connection may subscribe to by id).
    waiting_views: HashMap<String, ViewOptions, FxBuildHasher>,
    /// What the last views lend the next one.
    screens: ScreenCache,
    last_ask: Option<(String, u64)>,
    /// The success reply of the synchronous method being called, begun by the shell and
    /// continued by the method (see `server::methods::register`).
    reply: ReplySlot,
    /// Most bytes the reply being written may hold, its envelope included.
    reply_limit: usize,
    /// Whether the reply being written is part of a batch's.
    in_batch: bool,
    /// What undoes the change of the request being answered.
    undo: Option<Undo>,
    /// The notifications the connection is owed.
    outbox: Arc<Outbox>,
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
    fn view_of(&self, id: &str, serial: u64) -> ViewOptions {
        match self.views.get(id) {
            Some((of, view)) if *of == serial => *view,
            _ => self.waiting_views.get(id).copied().unwrap_or(self.view),
        }
    }

    /// Sets what views of session `id` carry for this connection, forgetting the options of
    /// sessions no longer held once there are more than `sessions` holds.
    fn set_view(
        &mut self,
        id: &str,
        serial: u64,
        view: ViewOptions,
        sessions: &HashMap<String, Entry>,
    ) {
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

fn parse<T: Params>(params: Option<&str>) -> Result<T, ErrorObjectOwned> {
    T::parse(params).map_err(|m| error(code::INVALID_PARAMS, m))
}

/// A flow's refusal as the error of a request, naming the param it concerns (`questionId`,
/// `optionValue`) when there is one.
fn flow_error(e: FlowError) -> ErrorObjectOwned {
    match e {
        FlowError::Completed => error(code::COMPLETED, e.to_string()),
        FlowError::NoEditor => error(code::NO_EDITOR, e.to_string()),
        FlowError::TextLimit { .. } | FlowError::StoredLimit { .. } => {
            error(code::LIMIT, e.to_string())
        }
        FlowError::UnknownQuestion(_) | FlowError::NoCustomAnswer(_) => error(
            code::INVALID_PARAMS,
            format!("invalid params: questionId: {e}"),
        ),
        FlowError::UnknownOption { .. } => error(
            code::INVALID_PARAMS,
            format!("invalid params: optionValue: {e}"),
        ),
        FlowError::NoNotes(_) => error(
            code::INVALID_PARAMS,
            format!("invalid params: questionId: {e}"),
        ),
        FlowError::NoOptionNotes(_) => error(
            code::INVALID_PARAMS,
            format!("invalid params: optionValue: {e}"),
        ),
        FlowError::NoDecline(_) => {
            error(code::INVALID_PARAMS, format!("invalid params: reason: {e}"))
        }
        FlowError::Refused(_) => error(code::INVALID_PARAMS, format!("invalid params: text: {e}")),
        FlowError::InvalidAnswers(_) => error(code::INVALID_PARAMS, format!("invalid params: {e}")),
    }
}

fn keymap_error(e: impl std::fmt::Display) -> ErrorObjectOwned {
    error(code::INVALID_PARAMS, format!("invalid params: keymap: {e}"))
}

/// The default keymap with `preset` added, then each of `overrides` applied in turn.
fn keymap_of<'a>(
    preset: Option<Preset>,
    overrides: impl IntoIterator<Item = Option<&'a Value>>,
) -> Result<Keymap, ErrorObjectOwned> {
    let mut keymap = match preset {
        Some(preset) => Keymap::default().with_preset(preset),
        None => Keymap::default(),
    };
    for overrides in overrides.into_iter().flatten() {
        keymap = keymap.with_overrides(overrides).map_err(keymap_error)?;
    }
    Ok(keymap)
}

impl State {
    /// Fresh state with the given settings. With a state directory, the sessions that ended
    /// processes left there are read back (as `recovered` sessions); a directory that cannot
    /// be used is reported and the server goes on without one.
    pub fn new(config: Config) -> State {
        let mut state = State {
            config,
            sessions: HashMap::new(),
            serial: 0,
            next_id: 0,
            waiters: HashMap::new(),
            deadlines: BTreeSet::new(),
            timer: Arc::new(Notify::new()),
            store: None,
            outboxes: Vec::new(),
            clients: 0,
        };
        if let Some(dir) = state.config.state_dir.clone() {
            state.open_store(&dir);
        }
        state
    }

    /// What wakes the timer when a deadline is added.
    pub fn timer(&self) -> Arc<Notify> {
        self.timer.clone()
    }

    /// The earliest deadline of an open flow, in milliseconds since the Unix epoch.
    pub fn next_deadline(&self) -> Option<u64> {
        self.deadlines.first().map(|&(at, _)| at)
    }

    /// Hands `now` (milliseconds since the Unix epoch) to every flow whose deadline has come,
    /// which then completes as timed out (the rule is the flow's, [`Flow::expire`]); their
    /// pending `ask`s are resolved and their state leaves the state directory.
    pub fn expire_due(&mut self, now: u64) {
        while let Some((at, _)) = self.deadlines.first()
            && *at <= now
        {
            let Some((_, id)) = self.deadlines.pop_first() else {
                break;
            };
            if let Some(entry) = self.sessions.get_mut(&id)
                && entry.session.expire(now)
            {
                // No connection made this change: every subscriber is told of it.
                entry.version += 1;
                self.changed(&id, NOBODY);
            }
        }
    }

    /// [`State::expire_due`] at the time now, before a request acts: no request sees a flow
    /// whose deadline has passed as open, whether or not the timer has run yet. Reads the
    /// clock only while some flow has a deadline.
    pub fn expire_due_now(&mut self) {
        if !self.deadlines.is_empty() {
            self.expire_due(now_ms());
        }
    }

    /// Opens the state directory and takes in what it recovers.
    fn open_store(&mut self, dir: &Path) {
        let (store, recovered) = match Store::open(
            dir,
            &self.config.limits,
            self.config.max_message_bytes,
        ) {
            Ok(opened) => opened,
            Err(e) => {
                tracing::warn!(
                    "the state directory {} cannot be used ({e}); open flows will not survive a crash",
                    dir.display()
                );
                return;
            }
        };
        // The most recently written first, so that of two flows with one id the later stays.
        let mut recovered = recovered;
        recovered.sort_by_key(|r| std::cmp::Reverse(r.written));
        let mut kept = Vec::new();
        for r in recovered {
            if self.sessions.contains_key(&r.id) || self.sessions.len() >= self.config.max_sessions
            {
                if self.sessions.contains_key(&r.id) {
                    tracing::warn!(
                        "two recovered flows have the id {}; the older one is set aside",
                        quoted(&r.id)
                    );
                    store.set_aside_superseded(&r.stored);
                }
                // Beyond the table's room a flow stays on disk for a later process.
                continue;
            }
            kept.push(r.id.clone());
            let session = self.limited(r.restored.session);
            if let Some(at) = session.deadline() {
                self.deadlines.insert((at, r.id.clone()));
            }
            self.serial += 1;
            self.sessions.insert(
                r.id,
                Entry {
                    session,
                    request: r.restored.request,
                    options: r.restored.options,
                    version: 1,
                    serial: self.serial,
                    files: None,
                    recovered: true,
                    stored: Some(r.stored),
                },
            );
        }
        // Listed in the order they were written, oldest first.
        for (serial, id) in kept.iter().rev().enumerate() {
            if let Some(entry) = self.sessions.get_mut(id) {
                entry.serial = serial as u64 + 1;
            }
        }
        if !kept.is_empty() {
            tracing::info!("recovered {} open flows", kept.len());
        }
        self.store = Some(store);
        // A recovered flow whose deadline passed while no process ran times out at once.
        self.expire_due_now();
    }

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

    /// Tells every outbox of a change to session `id`, made by the connection `by`.
    fn tell(&mut self, by: u64, event: impl Fn(&Outbox, bool)) {
        self.outboxes
            .retain(|(number, outbox)| match outbox.upgrade() {
                Some(outbox) => {
                    event(&outbox, *number == by);
                    true
                }
                None => false,
            });
    }

    /// A session held, by id.
    pub fn session(&self, id: &str) -> Option<&Session> {
        self.sessions.get(id).map(|entry| &entry.session)
    }

    /// The serial of the session `id` held, if one is.
    pub fn serial_of(&self, id: &str) -> Option<u64> {
        self.sessions.get(id).map(|e| e.serial)
    }

    /// The sessions held (id and serial).
    pub fn held(&self) -> impl Iterator<Item = (&str, u64)> {
        self.sessions.iter().map(|(id, e)| (id.as_str(), e.serial))
    }

    /// The settings in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    fn entry(&self, id: &str) -> Result<&Entry, ErrorObjectOwned> {
        self.sessions.get(id).ok_or_else(|| unknown_session(id))
    }

    /// A session for changing or viewing, with its file index installed once it is ready.
    fn entry_mut(&mut self, id: &str) -> Result<&mut Entry, ErrorObjectOwned> {
        entry_in(&mut self.sessions, id)
    }

    /// The Step of a session for the connection of `client`, its view rendered with that
    /// connection's options: `{ session, status, version, view, result?, transcript? }`.
    pub fn step(&self, client: &mut Client, id: &str) -> Result<Step, ErrorObjectOwned> {
        let entry = self.sessions.get(id).ok_or_else(|| unknown_session(id))?;
        let view = client.view_of(id, entry.serial);
        Ok(step_of(id, entry, view, Some(&mut client.screens)))
    }

    /// How `sessions` (and `session/opened`) lists session `id`: `{ session, title?, status }`.
    pub fn listed(&self, id: &str) -> Option<Value> {
        self.sessions.get(id).map(|e| json!(listed(id, e)))
    }

    /// `initialize`: connection defaults for later `open`s.
    pub fn initialize(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Value, ErrorObjectOwned> {
        let p: InitializeParams = parse(params)?;
        if let Some(c) = p.capabilities {
            let (preset, overrides) = (
                c.keymap_preset.or(client.preset),
                c.keymap.or_else(|| client.overrides.clone()),
            );
            let keymap = if preset == client.preset && overrides == client.overrides {
                client.keymap.clone()
            } else {
                Arc::new(keymap_of(preset, [overrides.as_ref()])?)
            };
            client.undo = Some(Undo::Defaults {
                keymap: std::mem::replace(&mut client.keymap, keymap),
                preset: std::mem::replace(&mut client.preset, preset),
                overrides: std::mem::replace(&mut client.overrides, overrides),
                view: client.view,
                has_ui: client.has_ui,
                behaviour: client.behaviour,
            });
            client.behaviour = c.behaviour.unwrap_or(client.behaviour);
            client.view.width = c.width.or(client.view.width);
            client.view.all_rows = c.all_rows.unwrap_or(client.view.all_rows);
            client.has_ui = c.has_ui.or(client.has_ui);
        }
        Ok(json!({
            "serverInfo": { "name": "askd", "version": env!("CARGO_PKG_VERSION") },
            "protocolVersion": 1,
            "methods": METHODS,
        }))
    }

    /// Whether the table has room for one more session: `Ok(None)` when it has, `Ok(Some)`
    /// naming the session that goes to make room: the oldest completed one, else the oldest
    /// recovered flow no client has asked for again (given up, so that flows of ended
    /// processes never keep new ones out).
    fn room(&self) -> Result<Option<String>, ErrorObjectOwned> {
        if self.sessions.len() < self.config.max_sessions {
            return Ok(None);
        }
        let oldest = |evictable: &dyn Fn(&String, &Entry) -> bool| {
            self.sessions
                .iter()
                .filter(|(id, e)| evictable(id, e))
                .min_by_key(|(_, e)| e.serial)
                .map(|(id, _)| id.clone())
        };
        let done = |id: &String, e: &Entry| {
            e.session.status() == Status::Done && !self.waiters.contains_key(id)
        };
        match oldest(&done).or_else(|| oldest(&|_, e| e.recovered)) {
            Some(id) => Ok(Some(id)),
            None => Err(error(
                code::LIMIT,
                format!(
                    "too many open sessions: the limit is {}; close one first",
                    self.config.max_sessions
                ),
            )),
        }
    }

    fn new_id(&mut self, requested: Option<String>) -> Result<String, ErrorObjectOwned> {
        match requested {
            Some(id) if self.sessions.contains_key(&id) => Err(error(
                code::INVALID_PARAMS,
                format!("invalid params: session: {} is already in use", quoted(&id)),
            )),
            Some(id) if id.is_empty() => Err(error(
                code::INVALID_PARAMS,
                "invalid params: session: expected a non-empty string, got the string \"\"",
            )),
            Some(id) => Ok(id),
            None => loop {
                self.next_id += 1;
                let id = format!("s{}", self.next_id);
                if !self.sessions.contains_key(&id) {
                    return Ok(id);
                }
            },
        }
    }

    /// `session` with the flow limits of this server.
    fn limited(&self, mut session: Session) -> Session {
        if let Ok(flow) = session.flow_mut() {
            flow.set_text_limit(self.config.limits.max_text_bytes);
            flow.set_stored_limit(self.config.limits.max_flow_text_bytes);
        }
        session
    }

    /// A new entry of the table for `session`.
    fn entry_for(
        &mut self,
        session: Session,
        request: Box<RawValue>,
        options: Value,
        files: Option<oneshot::Receiver<Arc<FileIndex>>>,
    ) -> Entry {
        self.serial += 1;
        Entry {
            session: self.limited(session),
            request,
            options,
            version: 1,
            serial: self.serial,
            files,
            recovered: false,
            stored: None,
        }
    }

    /// Adds a session to the table (to be committed or rolled back).
    fn add(
        &mut self,
        client: &mut Client,
        id: String,
        entry: Entry,
        replaced: Option<Box<Entry>>,
        evict: Option<String>,
    ) {
        let deadline = entry.session.deadline();
        self.sessions.insert(id.clone(), entry);
        if let Some(at) = deadline {
            self.deadlines.insert((at, id.clone()));
            self.timer.notify_one();
        }
        client.undo = Some(Undo::Added {
            id,
            replaced,
            evict,
        });
        if deadline.is_some() {
            // A deadline already past (`timeoutMs: 0`, a restored snapshot) ends the flow now.
            self.expire_due_now();
        }
    }

    /// `open`: validates the payload and creates a session.
    pub fn open(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: OpenParams = parse(params)?;
        let id = self.open_session(client, p)?;
        self.step(client, &id)
    }

    /// Opens the session of `open` and `ask`, or resumes the recovered session of that id
    /// when the request opens to the same flow; answers its id.
    fn open_session(
        &mut self,
        client: &mut Client,
        p: OpenParams,
    ) -> Result<String, ErrorObjectOwned> {
        let payload: Value = serde_json::from_str(p.payload.get()).expect("a raw value is JSON");
        self.config
            .limits
            .check_payload(&payload)
            .map_err(|m| error(code::LIMIT, m))?;
        let keymap = match (&p.keymap, p.keymap_preset) {
            (None, None) => client.keymap.clone(),
            (Some(overrides), None) => Arc::new(
                client
                    .keymap
                    .with_overrides(overrides)
                    .map_err(keymap_error)?,
            ),
            (overrides, Some(preset)) => Arc::new(keymap_of(
                Some(preset),
                [client.overrides.as_ref(), overrides.as_ref()],
            )?),
        };
        let options = OpenOptions {
            dialect: p.dialect,
            has_ui: p.has_ui.or(client.has_ui).unwrap_or(true),
            keymap,
            deadline: p
                .timeout_ms
                .map(|ms| now_ms().saturating_add(ms).min(MAX_DEADLINE)),
            dialect_options: p.dialect_options.clone(),
            behaviour: p
                .behaviour
                .unwrap_or_default()
                .over(client.behaviour)
                .behaviour(),
        };
        let mut session = Session::open(&payload, &options).map_err(ask_error)?;
        if options.deadline.is_none()
            && let Some(ms) = session.time_limit()
        {
            session.set_deadline(now_ms().saturating_add(ms).min(MAX_DEADLINE));
        }
        let view = ViewOptions {
            width: p.width.or(client.view.width),
            all_rows: p.all_rows.unwrap_or(client.view.all_rows),
        };
        // `@` completion lists the root once, off the keystroke path; only open flows need it.
        let walk = |session: &Session| {
            p.cwd
                .as_deref()
                .filter(|cwd| !cwd.is_empty() && session.status() == Status::Open)
                .map(|cwd| files::spawn_walk(Path::new(cwd)))
        };
        let mut replaced = None;
        if let Some(id) = &p.session
            && let Some(entry) = self.sessions.get_mut(id)
            && entry.recovered
        {
            let same_flow = session.status() == Status::Open
                && entry.session.dialect() == session.dialect()
                && entry.session.flow().map(Flow::spec) == session.flow().map(Flow::spec);
            if same_flow {
                // The client asks again what it asked before the crash: the flow goes on.
                entry.recovered = false;
                entry.files = walk(&entry.session);
                let serial = entry.serial;
                client.undo = Some(Undo::Resumed {
                    id: id.clone(),
                    view: client.views.get(id).copied(),
                });
                client.set_view(id, serial, view, &self.sessions);
                return Ok(id.clone());
            }
            tracing::info!(
                "the recovered flow {} is given up: the session is opened on another request",
                quoted(id)
            );
            replaced = self.sessions.remove(id).map(Box::new);
        }
        let requested = p.session.clone().unwrap_or_default();
        let evict = match self.room() {
            Ok(evict) => evict,
            Err(e) => {
                self.put_back(&requested, replaced);
                return Err(e);
            }
        };
        let id = match self.new_id(p.session) {
            Ok(id) => id,
            Err(e) => {
                self.put_back(&requested, replaced);
                return Err(e);
            }
        };
        let files = walk(&session);
        let dialect_options = p
            .dialect_options
            .get(session.dialect().name())
            .cloned()
            .unwrap_or(Value::Null);
        let entry = self.entry_for(session, p.payload, dialect_options, files);
        let serial = entry.serial;
        self.add(client, id.clone(), entry, replaced, evict);
        client.set_view(&id, serial, view, &self.sessions);
        Ok(id)
    }

    /// Puts the recovered session `entry` of id `id`, taken out of the table, back.
    fn put_back(&mut self, id: &str, entry: Option<Box<Entry>>) {
        if let Some(entry) = entry {
            self.sessions.insert(id.to_owned(), *entry);
        }
    }

    /// `ask`, first half: opens the session and registers a waiter for its result.
    pub fn ask(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<oneshot::Receiver<AskReply>, ErrorObjectOwned> {
        self.expire_due_now();
        let p: OpenParams = parse(params)?;
        let id = self.open_session(client, p)?;
        // No Step is sent for an `ask`: the change takes effect at once.
        self.commit(client);
        let serial = self.sessions.get(&id).map_or(0, |e| e.serial);
        let (tx, rx) = oneshot::channel();
        self.waiters.insert(id.clone(), (serial, tx));
        client.last_ask = Some((id.clone(), serial));
        self.settle(&id);
        Ok(rx)
    }

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
            None | Some(Undo::Resumed { .. } | Undo::Defaults { .. }) => {}
            Some(Undo::Changed { id, .. }) => self.changed(&id, by),
            Some(Undo::Added {
                id,
                replaced,
                evict,
            }) => {
                if let (Some(old), Some(store)) = (replaced, self.store.as_mut())
                    && let Some(stored) = &old.stored
                {
                    store.remove(stored);
                }
                if let Some(evict) = evict {
                    if let Some(evicted) = self.sessions.remove(&evict)
                        && evicted.recovered
                        && let (Some(store), Some(stored)) = (self.store.as_mut(), &evicted.stored)
                    {
                        store.remove(stored);
                    }
                    self.tell(by, |outbox, _| outbox.closed(&evict, false));
                }
                let serial = self.serial_of(&id).unwrap_or(0);
                self.tell(by, |outbox, own| outbox.opened(&id, serial, own));
                self.committed(&id);
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
            Some(Undo::Added { id, replaced, .. }) => {
                self.sessions.remove(&id);
                self.put_back(&id, replaced);
            }
            Some(Undo::Resumed { id, view }) => {
                if let Some(entry) = self.sessions.get_mut(&id) {
                    entry.recovered = true;
                    entry.files = None;
                }
                match view {
                    Some(view) => client.views.insert(id, view),
                    None => client.views.remove(&id),
                };
            }
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
            }) => {
                client.keymap = keymap;
                client.preset = preset;
                client.overrides = overrides;
                client.view = view;
                client.has_ui = has_ui;
                client.behaviour = behaviour;
            }
        }
    }

    /// What follows a change of session `id` by the connection `by` once it is final: the
    /// outboxes are told, then as [`State::committed`].
    fn changed(&mut self, id: &str, by: u64) {
        self.tell(by, |outbox, own| outbox.changed(id, own));
        self.committed(id);
    }

    /// What follows a change of session `id` once it is final: its pending `ask` is resolved
    /// once the flow is done, and its state is written to the state directory (or removed from
    /// there once the flow is done).
    fn committed(&mut self, id: &str) {
        let Some(entry) = self.sessions.get_mut(id) else {
            return;
        };
        if entry.session.status() != Status::Done {
            if let Some(store) = self.store.as_mut() {
                match &mut entry.stored {
                    Some(stored) => store.write(stored, &entry.session),
                    None => {
                        entry.stored =
                            store.create(id, &entry.session, &entry.request, &entry.options);
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
    fn settle(&mut self, id: &str) {
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

    /// Runs a change on a session's engine state, then answers its Step.
    fn change(
        &mut self,
        client: &mut Client,
        id: &str,
        f: impl FnOnce(&mut Session, &Limits) -> Result<(), ErrorObjectOwned>,
    ) -> Result<Step, ErrorObjectOwned> {
        let limits = self.config.limits;
        let entry = self.entry_mut(id)?;
        let before = Box::new(entry.session.clone());
        f(&mut entry.session, &limits)?;
        entry.version += 1;
        client.undo = Some(Undo::Changed {
            id: id.to_owned(),
            before,
        });
        self.step(client, id)
    }

    /// `key`: one key.
    pub fn key(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: KeyParams = parse(params)?;
        let key = Key::parse(&p.key)
            .map_err(|e| error(code::INVALID_PARAMS, format!("invalid params: key: {e}")))?;
        // Up and Down in an editor follow the lines of the screen this connection is shown.
        let width = self
            .sessions
            .get(&p.session)
            .and_then(|entry| client.view_of(&p.session, entry.serial).width);
        self.change(client, &p.session, |s, _| {
            s.press_wrapped(key, view::editor_columns(s, width))
                .map_err(flow_error)
        })
    }

    /// `keys`: a list of keys, or a Vim-notation string; all parsed before any is applied.
    /// Keys after the flow completes are not applied. A traced script writes the Step after
    /// each key as it goes, within the reply's budget.
    pub fn keys(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Traced, ErrorObjectOwned> {
        let p: KeysParams = parse(params)?;
        let keys: Vec<Key> = match &p.keys {
            KeyList::List(names) => names
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    Key::parse(n).map_err(|e| {
                        error(
                            code::INVALID_PARAMS,
                            format!("invalid params: keys[{i}]: {e}"),
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
            KeyList::Notation(s) => parse_sequence(s.as_str())
                .map_err(|e| error(code::INVALID_PARAMS, format!("invalid params: keys: {e}")))?,
        };
        let trace = p.trace.unwrap_or(false);
        if trace && keys.len() > MAX_TRACED_KEYS {
            return Err(error(
                code::LIMIT,
                format!(
                    "a traced key script has {} keys; the limit is {MAX_TRACED_KEYS}",
                    keys.len()
                ),
            ));
        }
        let budget = client.reply_limit;
        let too_large = client.reply_too_large(&self.config);
        let entry = entry_in(&mut self.sessions, &p.session)?;
        let view = client.view_of(&p.session, entry.serial);
        if entry.session.status() == Status::Done {
            return Err(flow_error(FlowError::Completed));
        }
        // A key refused midway (a limit), or a trace past the budget, undoes the whole script.
        let before = Box::new(entry.session.clone());
        // The script is one change: every Step of its trace has its version.
        entry.version += 1;
        let mut steps = trace.then(|| vec![b'[']);
        for key in keys {
            if entry.session.status() == Status::Done {
                break;
            }
            let columns = view::editor_columns(&entry.session, view.width);
            if let Err(e) = entry.session.press_wrapped(key, columns) {
                entry.session = *before;
                entry.version -= 1;
                return Err(flow_error(e));
            }
            if let Some(steps) = steps.as_mut() {
                if steps.len() > 1 {
                    steps.push(b',');
                }
                let step = step_of(&p.session, entry, view, None);
                let mut out = Bounded::new(steps, budget);
                if serde_json::to_writer(&mut out, &step).is_err() {
                    entry.session = *before;
                    entry.version -= 1;
                    return Err(too_large);
                }
            }
        }
        if let Some(steps) = steps.as_mut() {
            steps.push(b']');
        }
        client.undo = Some(Undo::Changed {
            id: p.session.clone(),
            before,
        });
        Ok(Traced {
            step: self.step(client, &p.session)?,
            steps,
        })
    }

    /// `insert`: text into the open editor.
    pub fn insert(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: InsertParams = parse(params)?;
        self.change(client, &p.session, |s, _| {
            s.flow_mut()
                .and_then(|f| f.insert(&p.text))
                .map_err(flow_error)
        })
    }

    /// `saveCustom`: a custom answer set directly.
    pub fn save_custom(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: SaveCustomParams = parse(params)?;
        self.change(client, &p.session, |s, limits| {
            limits
                .check_text(&p.text, "text")
                .map_err(|m| error(code::LIMIT, m))?;
            s.flow_mut()
                .and_then(|f| f.save_custom(&p.question_id, &p.text, p.submit.unwrap_or(false)))
                .map_err(flow_error)
        })
    }

    /// `setNote`: a question or option note set directly.
    pub fn set_note(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: SetNoteParams = parse(params)?;
        self.change(client, &p.session, |s, limits| {
            limits
                .check_text(&p.text, "text")
                .map_err(|m| error(code::LIMIT, m))?;
            s.flow_mut()
                .and_then(|f| f.set_note(&p.question_id, p.option_value.as_deref(), &p.text))
                .map_err(flow_error)
        })
    }

    /// `submitAnswers`: completes the flow from a whole answer set.
    pub fn submit_answers(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: SubmitAnswersParams = parse(params)?;
        let outcome = match p.mode {
            Some(SubmitMode::Elaborate) => Outcome::Elaborate,
            _ => Outcome::Submit,
        };
        self.change(client, &p.session, |s, limits| {
            limits
                .check_texts(&p.answers, "answers")
                .map_err(|m| error(code::LIMIT, m))?;
            s.submit_answer_set(&p.answers, outcome).map_err(flow_error)
        })
    }

    /// `getView`: the view, rendered at `width` when one is known.
    pub fn get_view(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<crate::view::View, ErrorObjectOwned> {
        let p: GetViewParams = parse(params)?;
        let entry = entry_in(&mut self.sessions, &p.session)?;
        let view = client.view_of(&p.session, entry.serial);
        let options = ViewOptions {
            width: p.width.or(view.width),
            all_rows: p.all_rows.unwrap_or(view.all_rows),
        };
        Ok(client.screens.build(&p.session, &entry.session, options))
    }

    /// `getResult`: the result, or `null` while open.
    pub fn get_result(&self, params: Option<&str>) -> Result<Value, ErrorObjectOwned> {
        let p: SessionParams = parse(params)?;
        Ok(self
            .entry(&p.session)?
            .session
            .result()
            .unwrap_or(Value::Null))
    }

    /// `cancel`: the user cancels, the asker aborts, or the client closes the flow.
    pub fn cancel(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: CancelParams = parse(params)?;
        let reason = match p.reason {
            Some(CancelCause::Abort) => Some(CancelReason::Aborted),
            Some(CancelCause::Closed) => Some(CancelReason::Closed),
            Some(CancelCause::Decline) => None,
            Some(CancelCause::User) | None => Some(CancelReason::User),
        };
        self.change(client, &p.session, |s, _| {
            s.flow_mut()
                .and_then(|f| match reason {
                    Some(reason) => f.cancel(reason),
                    None => f.decline(),
                })
                .map_err(flow_error)
        })
    }

    /// Aborts the flow of a pending `ask` on behalf of its asker (`$/cancelRequest`): only the
    /// session of id `id` and serial `serial`, and only while its `ask` waits.
    pub fn abort_ask(&mut self, client: &Client, id: &str, serial: u64) {
        if !self.is_waiting(id, serial) {
            return;
        }
        if let Some(entry) = self.sessions.get_mut(id)
            && let Ok(flow) = entry.session.flow_mut()
        {
            let _ = flow.cancel(CancelReason::Aborted);
            entry.version += 1;
        }
        self.changed(id, client.number);
    }

    /// `close`: forgets a session (aborting a pending `ask` on it first).
    pub fn close(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Value, ErrorObjectOwned> {
        let p: SessionParams = parse(params)?;
        let closed = match self.sessions.remove(&p.session) {
            Some(entry) => {
                client.undo = Some(Undo::Removed {
                    id: p.session,
                    entry: Box::new(entry),
                });
                true
            }
            None => false,
        };
        Ok(json!({ "closed": closed }))
    }

    /// `snapshot`: the session's state as versioned JSON, written straight into the reply.
    pub fn snapshot(&self, params: Option<&str>) -> Result<SnapshotOf, ErrorObjectOwned> {
        let p: SessionParams = parse(params)?;
        self.entry(&p.session)?;
        Ok(SnapshotOf(p.session))
    }

    /// Writes `{ state }` for session `id`.
    pub fn write_snapshot(&self, id: &str, out: &mut Bounded) -> serde_json::Result<()> {
        use std::io::Write;
        let Some(entry) = self.sessions.get(id) else {
            return serde_json::to_writer(out, &Value::Null);
        };
        out.write_all(br#"{"state":"#)
            .map_err(serde_json::Error::io)?;
        snapshot::write(&entry.session, &entry.request, &entry.options, &mut *out)?;
        out.write_all(b"}").map_err(serde_json::Error::io)
    }

    /// `restore`: a new session from a snapshot.
    pub fn restore(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: RestoreParams = parse(params)?;
        let restored = snapshot::restore(
            p.state.get(),
            &self.config.limits,
            self.config.max_message_bytes,
        )
        .map_err(|e| match e {
            RestoreError::Invalid(m) => {
                error(code::INVALID_PARAMS, format!("invalid params: state: {m}"))
            }
            RestoreError::Limit(m) => error(code::LIMIT, m),
        })?;
        let id = self.new_id(p.session)?;
        let evict = self.room()?;
        let entry = self.entry_for(restored.session, restored.request, restored.options, None);
        self.add(client, id.clone(), entry, None, evict);
        self.step(client, &id)
    }

    /// `sessions`: every session held, oldest first, written straight into the reply.
    pub fn write_list(&self, out: &mut Bounded) -> serde_json::Result<()> {
        use serde::ser::{SerializeSeq, Serializer};
        let mut entries: Vec<(&String, &Entry)> = self.sessions.iter().collect();
        entries.sort_by_key(|(_, e)| e.serial);
        let mut serializer = serde_json::Serializer::new(out);
        let mut list = serializer.serialize_seq(Some(entries.len()))?;
        for (id, e) in entries {
            list.serialize_element(&listed(id, e))?;
        }
        list.end()
    }

    /// `subscribe`: the connection is notified of changes by others to one session, or to
    /// every session, from now on; the sessions it is to know of are answered, listed as
    /// `sessions` lists them. View options given are the connection's for that session (or
    /// for every session it gave none for).
    pub fn subscribe(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Value, ErrorObjectOwned> {
        let p: SubscribeParams = parse(params)?;
        let held = |id: &str| self.sessions.get(id).map(|e| e.serial);
        match &p.session {
            Some(id) => {
                let sessions = &self.sessions;
                let room = client
                    .outbox
                    .make_room(id, self.config.max_sessions, |old| {
                        sessions.contains_key(old)
                    });
                match room {
                    Ok(Some(dropped)) => {
                        client.waiting_views.remove(&dropped);
                    }
                    Ok(None) => {}
                    Err(by_id) => {
                        return Err(error(
                            code::LIMIT,
                            format!(
                                "this connection is subscribed by id to {by_id} open sessions, \
                                 the most it may be; `subscribe {{}}` without a session covers \
                                 every one"
                            ),
                        ));
                    }
                }
                match held(id) {
                    Some(serial) => {
                        let before = client.view_of(id, serial);
                        let view = ViewOptions {
                            width: p.width.or(before.width),
                            all_rows: p.all_rows.unwrap_or(before.all_rows),
                        };
                        client.set_view(id, serial, view, &self.sessions);
                    }
                    // Not opened yet: the options wait for the session of that id.
                    None if p.width.is_some() || p.all_rows.is_some() => {
                        let before = client.waiting_views.get(id).copied().unwrap_or(client.view);
                        let view = ViewOptions {
                            width: p.width.or(before.width),
                            all_rows: p.all_rows.unwrap_or(before.all_rows),
                        };
                        client.waiting_views.insert(id.clone(), view);
                    }
                    None => {}
                }
            }
            None => {
                client.view.width = p.width.or(client.view.width);
                client.view.all_rows = p.all_rows.unwrap_or(client.view.all_rows);
            }
        }
        client.outbox.subscribe(p.session.clone(), self.held());
        let mut entries: Vec<(&String, &Entry)> = self
            .sessions
            .iter()
            .filter(|(id, _)| p.session.as_ref().is_none_or(|only| only == *id))
            .collect();
        entries.sort_by_key(|(_, e)| e.serial);
        Ok(Value::Array(
            entries
                .into_iter()
                .map(|(id, e)| json!(listed(id, e)))
                .collect(),
        ))
    }

    /// `unsubscribe`: no more notifications for the connection.
    pub fn unsubscribe(client: &mut Client) -> Value {
        client.outbox.unsubscribe();
        client.waiting_views.clear();
        Value::Null
    }

    /// Ends the server's use of the state directory: what was written is made durable.
    pub fn close_store(&mut self) {
        if let Some(store) = self.store.as_mut() {
            store.close();
        }
    }
}

/// What a pending `ask` on a done session resolves with.
fn ask_reply(session: &Session) -> AskReply {
    match session.ask_reply() {
        Some(Ok(result)) => Ok(result),
        Some(Err(e)) => Err(ask_error(e)),
        None => Err(error(
            code::COMPLETED,
            "the session completed without a result",
        )),
    }
}

/// How `sessions` lists a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ListedStatus {
    /// The flow takes input.
    Open,
    /// The flow has completed.
    Done,
    /// The flow was read back from the state directory after the process that held it ended;
    /// an `open` of its id on the same request resumes it.
    Recovered,
}

/// How `sessions` lists a session.
fn listed<'a>(id: &'a str, e: &'a Entry) -> Listed<'a> {
    Listed {
        id,
        title: e.session.title(),
        status: if e.recovered {
            ListedStatus::Recovered
        } else {
            match e.session.status() {
                Status::Open => ListedStatus::Open,
                Status::Done => ListedStatus::Done,
            }
        },
    }
}

/// One entry of `sessions`.
#[derive(serde::Serialize)]
struct Listed<'a> {
    #[serde(rename = "session")]
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    status: ListedStatus,
}

/// The result of a traced or untraced `keys`: its Step, and the Steps after each key (a JSON
/// array already written) when traced.
pub struct Traced {
    /// The Step after the script.
    pub step: Step,
    /// `[Step, …]`, when the script was traced.
    pub steps: Option<Vec<u8>>,
}

/// The result of `snapshot`: the session whose snapshot the reply holds.
pub struct SnapshotOf(pub String);

/// A session of `sessions` for changing or viewing, with its file index installed once it is
/// ready.
fn entry_in<'a>(
    sessions: &'a mut HashMap<String, Entry>,
    id: &str,
) -> Result<&'a mut Entry, ErrorObjectOwned> {
    let entry = sessions.get_mut(id).ok_or_else(|| unknown_session(id))?;
    entry.install_files();
    Ok(entry)
}

fn unknown_session(id: &str) -> ErrorObjectOwned {
    error(
        code::UNKNOWN_SESSION,
        format!("unknown session {}", quoted(id)),
    )
}

/// The Step of a session with views as `options` says; its view is laid out with the layouts
/// of `cache` when one is given.
fn step_of(id: &str, entry: &Entry, options: ViewOptions, cache: Option<&mut ScreenCache>) -> Step {
    let view = match cache {
        Some(cache) => cache.build(id, &entry.session, options),
        None => view::build_with(id, &entry.session, options),
    };
    Step {
        session: id.to_owned(),
        status: entry.session.status(),
        version: entry.version,
        view,
        result: entry.session.result(),
        transcript: entry.session.transcript(),
        error: entry.session.issues().map(StepError::invalid_input),
        steps: None,
    }
}
