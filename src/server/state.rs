//! The server's state: connection defaults, the session table with its limits, and pending
//! `ask` requests. Each method here parses its params, drives the pure engine, and shapes
//! the answer; nothing about the flow itself is decided here.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use jsonrpsee::types::ErrorObjectOwned;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{Notify, oneshot};

use crate::core::{
    CancelReason, FileIndex, Flow, FlowError, Key, Keymap, Limits, Outcome, Preset, parse_sequence,
    quoted,
};
use crate::server::files;
use crate::server::params::{
    CancelCause, CancelParams, GetViewParams, InitializeParams, InsertParams, KeyList, KeyParams,
    KeysParams, OpenParams, RestoreParams, SaveCustomParams, SessionParams, SetNoteParams,
    SubmitAnswersParams, SubmitMode,
};
use crate::server::protocol::{METHODS, Step, StepError, ask_error, code, error};
use crate::session::{BehaviourOptions, OpenOptions, Session, Status, snapshot};
use crate::view::{self, ScreenCache, View, ViewOptions};

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Largest accepted message, in bytes.
    pub max_message_bytes: usize,
    /// Most sessions held at once (completed ones are evicted oldest-first beyond it).
    pub max_sessions: usize,
    /// Per-flow bounds.
    pub limits: Limits,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_message_bytes: 1024 * 1024,
            max_sessions: 1024,
            limits: Limits::default(),
        }
    }
}

/// What a pending `ask` is sent when its flow completes.
pub type AskReply = Result<Value, ErrorObjectOwned>;

struct Entry {
    session: Session,
    /// What its views carry: rendered lines at a width, every row or the window.
    view: ViewOptions,
    /// Order of creation, for eviction.
    serial: u64,
    /// The file index being listed for `@` completion, until the flow has it.
    files: Option<oneshot::Receiver<Arc<FileIndex>>>,
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

/// Everything one connection's requests act on.
pub struct State {
    config: Config,
    sessions: HashMap<String, Entry>,
    serial: u64,
    next_id: u64,
    /// The connection's keymap: the defaults, its preset, its overrides.
    keymap: Arc<Keymap>,
    /// The connection's preset and overrides, from `initialize`, which a session's own
    /// preset or overrides are combined with.
    preset: Option<Preset>,
    overrides: Option<Value>,
    /// The behaviour options of later sessions, from `initialize`.
    behaviour: BehaviourOptions,
    /// What views of later sessions carry, from `initialize`.
    view: ViewOptions,
    has_ui: Option<bool>,
    /// What the last views lend the next one.
    screens: ScreenCache,
    waiters: HashMap<String, oneshot::Sender<AskReply>>,
    last_ask: Option<String>,
    /// The success reply of the synchronous method being called, begun by the shell and
    /// continued by the method (see `server::methods::register`).
    reply: ReplySlot,
    /// The deadlines of open flows, earliest first, with their sessions.
    deadlines: BTreeSet<(u64, String)>,
    /// Wakes the timer (`server::expire_on_time`) when a deadline is added.
    timer: Arc<Notify>,
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

fn parse<T: for<'de> Deserialize<'de>>(params: Option<&str>) -> Result<T, ErrorObjectOwned> {
    serde_json::from_str(params.unwrap_or("{}"))
        .map_err(|e| error(code::INVALID_PARAMS, format!("invalid params: {e}")))
}

fn flow_error(e: FlowError) -> ErrorObjectOwned {
    match e {
        FlowError::Completed => error(code::COMPLETED, e.to_string()),
        FlowError::NoEditor => error(code::NO_EDITOR, e.to_string()),
        FlowError::TextLimit { .. } | FlowError::StoredLimit { .. } => {
            error(code::LIMIT, e.to_string())
        }
        _ => error(code::INVALID_PARAMS, format!("invalid params: {e}")),
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
    /// Fresh state with the given settings.
    pub fn new(config: Config) -> State {
        State {
            config,
            sessions: HashMap::new(),
            serial: 0,
            next_id: 0,
            keymap: Arc::new(Keymap::default()),
            preset: None,
            overrides: None,
            behaviour: BehaviourOptions::default(),
            view: ViewOptions::default(),
            has_ui: None,
            screens: ScreenCache::default(),
            waiters: HashMap::new(),
            last_ask: None,
            reply: ReplySlot::Empty,
            deadlines: BTreeSet::new(),
            timer: Arc::new(Notify::new()),
        }
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
    /// which then completes as timed out (the rule is the flow's, [`Flow::expire`]), and
    /// resolves their pending `ask`s.
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
                self.settle(&id);
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

    /// What the last views lend the next one, for writing a reply.
    pub fn screens(&mut self) -> &mut ScreenCache {
        &mut self.screens
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

    /// The Step of a session: `{ session, status, view, result?, transcript? }`.
    fn step(&mut self, id: &str) -> Result<Step, ErrorObjectOwned> {
        let entry = self.sessions.get(id).ok_or_else(|| unknown_session(id))?;
        Ok(step_of(id, entry, Some(&mut self.screens)))
    }

    /// `initialize`: connection defaults for later `open`s.
    pub fn initialize(&mut self, params: Option<&str>) -> Result<Value, ErrorObjectOwned> {
        let p: InitializeParams = parse(params)?;
        if let Some(c) = p.capabilities {
            if c.keymap.is_some() || c.keymap_preset.is_some() {
                let preset = c.keymap_preset.or(self.preset);
                let overrides = c.keymap.or_else(|| self.overrides.clone());
                self.keymap = Arc::new(keymap_of(preset, [overrides.as_ref()])?);
                self.preset = preset;
                self.overrides = overrides;
            }
            self.behaviour = c.behaviour.unwrap_or(self.behaviour);
            self.view.width = c.width.or(self.view.width);
            self.view.all_rows = c.all_rows.unwrap_or(self.view.all_rows);
            self.has_ui = c.has_ui.or(self.has_ui);
        }
        Ok(json!({
            "serverInfo": { "name": "askd", "version": env!("CARGO_PKG_VERSION") },
            "protocolVersion": 1,
            "methods": METHODS,
        }))
    }

    /// Makes room for one more session: evicts the oldest completed one at the limit.
    fn make_room(&mut self) -> Result<(), ErrorObjectOwned> {
        if self.sessions.len() < self.config.max_sessions {
            return Ok(());
        }
        let oldest_done = self
            .sessions
            .iter()
            .filter(|(id, e)| e.session.status() == Status::Done && !self.waiters.contains_key(*id))
            .min_by_key(|(_, e)| e.serial)
            .map(|(id, _)| id.clone());
        match oldest_done {
            Some(id) => {
                self.sessions.remove(&id);
                Ok(())
            }
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
                format!("invalid params: session {} is already in use", quoted(&id)),
            )),
            Some(id) if id.is_empty() => Err(error(
                code::INVALID_PARAMS,
                "invalid params: session must not be empty",
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

    fn insert_session(
        &mut self,
        id: String,
        mut session: Session,
        view: ViewOptions,
        files: Option<oneshot::Receiver<Arc<FileIndex>>>,
    ) {
        if let Ok(flow) = session.flow_mut() {
            flow.set_text_limit(self.config.limits.max_text_bytes);
            flow.set_stored_limit(self.config.limits.max_flow_text_bytes);
        }
        let deadline = session.deadline();
        self.serial += 1;
        self.sessions.insert(
            id.clone(),
            Entry {
                session,
                view,
                serial: self.serial,
                files,
            },
        );
        if let Some(at) = deadline {
            self.deadlines.insert((at, id));
            self.timer.notify_one();
            // A deadline already past (`timeoutMs: 0`, a restored snapshot) ends the flow now.
            self.expire_due_now();
        }
    }

    /// `open`: validates the payload and creates a session.
    pub fn open(&mut self, params: Option<&str>) -> Result<Step, ErrorObjectOwned> {
        let p: OpenParams = parse(params)?;
        self.config
            .limits
            .check_payload(&p.payload)
            .map_err(|m| error(code::LIMIT, m))?;
        let keymap = match (&p.keymap, p.keymap_preset) {
            (None, None) => self.keymap.clone(),
            (Some(overrides), None) => Arc::new(
                self.keymap
                    .with_overrides(overrides)
                    .map_err(keymap_error)?,
            ),
            (overrides, Some(preset)) => Arc::new(keymap_of(
                Some(preset),
                [self.overrides.as_ref(), overrides.as_ref()],
            )?),
        };
        let options = OpenOptions {
            dialect: p.dialect,
            has_ui: p.has_ui.or(self.has_ui).unwrap_or(true),
            keymap,
            deadline: p
                .timeout_ms
                .map(|ms| now_ms().saturating_add(ms).min(MAX_DEADLINE)),
            dialect_options: p.dialect_options,
            behaviour: p
                .behaviour
                .unwrap_or_default()
                .over(self.behaviour)
                .behaviour(),
        };
        let session = Session::open(&p.payload, &options).map_err(ask_error)?;
        let id = self.new_id(p.session)?;
        self.make_room()?;
        // `@` completion lists the root once, off the keystroke path; only open flows need it.
        let files = p
            .cwd
            .as_deref()
            .filter(|cwd| !cwd.is_empty() && session.status() == Status::Open)
            .map(|cwd| files::spawn_walk(Path::new(cwd)));
        let view = ViewOptions {
            width: p.width.or(self.view.width),
            all_rows: p.all_rows.unwrap_or(self.view.all_rows),
        };
        self.insert_session(id.clone(), session, view, files);
        self.step(&id)
    }

    /// `ask`, first half: opens the session and registers a waiter for its result.
    pub fn ask(
        &mut self,
        params: Option<&str>,
    ) -> Result<oneshot::Receiver<AskReply>, ErrorObjectOwned> {
        self.expire_due_now();
        let step = self.open(params)?;
        let id = step.session;
        let (tx, rx) = oneshot::channel();
        self.waiters.insert(id.clone(), tx);
        self.last_ask = Some(id.clone());
        self.settle(&id);
        Ok(rx)
    }

    /// The session opened by the latest `ask`, taken (the shell maps request ids to it).
    pub fn take_last_ask(&mut self) -> Option<String> {
        self.last_ask.take()
    }

    /// Begins the success reply of the next call with `head`, forgetting any earlier reply.
    pub fn begin_reply(&mut self, head: Vec<u8>) {
        self.reply = ReplySlot::Begun(head);
    }

    /// The reply begun by [`State::begin_reply`], taken for a method to write its result
    /// after; an empty buffer when none was begun.
    pub fn take_begun_reply(&mut self) -> Vec<u8> {
        match std::mem::take(&mut self.reply) {
            ReplySlot::Begun(reply) => reply,
            _ => Vec::new(),
        }
    }

    /// Keeps the reply of a synchronous method that succeeded, its result written, for the
    /// shell to end and send.
    pub fn set_finished(&mut self, reply: Vec<u8>) {
        self.reply = ReplySlot::Finished(reply);
    }

    /// The reply kept by [`State::set_finished`], taken; `None` when the call did not succeed.
    /// The slot is empty afterwards either way.
    pub fn take_finished(&mut self) -> Option<Vec<u8>> {
        match std::mem::take(&mut self.reply) {
            ReplySlot::Finished(reply) => Some(reply),
            _ => None,
        }
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
        if let Some(tx) = self.waiters.remove(id) {
            let reply = match entry.session.ask_reply() {
                Some(Ok(result)) => Ok(result),
                Some(Err(e)) => Err(ask_error(e)),
                None => Err(error(
                    code::COMPLETED,
                    "the session completed without a result",
                )),
            };
            let _ = tx.send(reply);
        }
    }

    /// Runs a change on a session's engine state, then answers its Step.
    fn change(
        &mut self,
        id: &str,
        f: impl FnOnce(&mut Session, &Limits) -> Result<(), ErrorObjectOwned>,
    ) -> Result<Step, ErrorObjectOwned> {
        let limits = self.config.limits;
        let entry = self.entry_mut(id)?;
        f(&mut entry.session, &limits)?;
        if entry.session.status() == Status::Done {
            self.settle(id);
        }
        self.step(id)
    }

    /// `key`: one key.
    pub fn key(&mut self, params: Option<&str>) -> Result<Step, ErrorObjectOwned> {
        let p: KeyParams = parse(params)?;
        let key = Key::parse(&p.key)
            .map_err(|e| error(code::INVALID_PARAMS, format!("invalid params: key: {e}")))?;
        self.change(&p.session, |s, _| s.press(key).map_err(flow_error))
    }

    /// `keys`: a list of keys, or a Vim-notation string; all parsed before any is applied.
    /// Keys after the flow completes are not applied.
    pub fn keys(&mut self, params: Option<&str>) -> Result<Step, ErrorObjectOwned> {
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
        if p.trace && keys.len() > MAX_TRACED_KEYS {
            return Err(error(
                code::LIMIT,
                format!(
                    "a traced key script has {} keys; the limit is {MAX_TRACED_KEYS}",
                    keys.len()
                ),
            ));
        }
        let entry = self.entry_mut(&p.session)?;
        if entry.session.status() == Status::Done {
            return Err(flow_error(FlowError::Completed));
        }
        // A key refused midway (a limit) undoes the whole script.
        let before = entry.session.clone();
        let mut trace = Vec::new();
        for key in keys {
            if entry.session.status() == Status::Done {
                break;
            }
            if let Err(e) = entry.session.press(key) {
                entry.session = before;
                return Err(flow_error(e));
            }
            if p.trace {
                trace.push(step_of(&p.session, entry, None));
            }
        }
        self.settle(&p.session);
        let mut step = self.step(&p.session)?;
        if p.trace {
            step.steps = Some(trace);
        }
        Ok(step)
    }

    /// `insert`: text into the open editor.
    pub fn insert(&mut self, params: Option<&str>) -> Result<Step, ErrorObjectOwned> {
        let p: InsertParams = parse(params)?;
        self.change(&p.session, |s, _| {
            s.flow_mut()
                .and_then(|f| f.insert(&p.text))
                .map_err(flow_error)
        })
    }

    /// `saveCustom`: a custom answer set directly.
    pub fn save_custom(&mut self, params: Option<&str>) -> Result<Step, ErrorObjectOwned> {
        let p: SaveCustomParams = parse(params)?;
        self.change(&p.session, |s, limits| {
            limits
                .check_text(&p.text, "text")
                .map_err(|m| error(code::LIMIT, m))?;
            s.flow_mut()
                .and_then(|f| f.save_custom(&p.question_id, &p.text, p.submit))
                .map_err(flow_error)
        })
    }

    /// `setNote`: a question or option note set directly.
    pub fn set_note(&mut self, params: Option<&str>) -> Result<Step, ErrorObjectOwned> {
        let p: SetNoteParams = parse(params)?;
        self.change(&p.session, |s, limits| {
            limits
                .check_text(&p.text, "text")
                .map_err(|m| error(code::LIMIT, m))?;
            s.flow_mut()
                .and_then(|f| f.set_note(&p.question_id, p.option_value.as_deref(), &p.text))
                .map_err(flow_error)
        })
    }

    /// `submitAnswers`: completes the flow from a whole answer set.
    pub fn submit_answers(&mut self, params: Option<&str>) -> Result<Step, ErrorObjectOwned> {
        let p: SubmitAnswersParams = parse(params)?;
        let outcome = match p.mode {
            Some(SubmitMode::Elaborate) => Outcome::Elaborate,
            _ => Outcome::Submit,
        };
        self.change(&p.session, |s, limits| {
            limits
                .check_texts(&p.answers, "answers")
                .map_err(|m| error(code::LIMIT, m))?;
            s.submit_answer_set(&p.answers, outcome).map_err(flow_error)
        })
    }

    /// `getView`: the view, rendered at `width` when one is known.
    pub fn get_view(&mut self, params: Option<&str>) -> Result<View, ErrorObjectOwned> {
        let p: GetViewParams = parse(params)?;
        let entry = entry_in(&mut self.sessions, &p.session)?;
        let options = ViewOptions {
            width: p.width.or(entry.view.width),
            all_rows: p.all_rows.unwrap_or(entry.view.all_rows),
        };
        Ok(self.screens.build(&p.session, &entry.session, options))
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
    pub fn cancel(&mut self, params: Option<&str>) -> Result<Step, ErrorObjectOwned> {
        let p: CancelParams = parse(params)?;
        let reason = match p.reason {
            Some(CancelCause::Abort) => Some(CancelReason::Aborted),
            Some(CancelCause::Closed) => Some(CancelReason::Closed),
            Some(CancelCause::Decline) => None,
            Some(CancelCause::User) | None => Some(CancelReason::User),
        };
        self.change(&p.session, |s, _| {
            s.flow_mut()
                .and_then(|f| match reason {
                    Some(reason) => f.cancel(reason),
                    None => f.decline(),
                })
                .map_err(flow_error)
        })
    }

    /// Ends a session's open flow for `reason` and resolves its pending `ask`; a no-op on a
    /// done or unknown session.
    fn end(&mut self, id: &str, reason: CancelReason) {
        if let Some(entry) = self.sessions.get_mut(id)
            && let Ok(flow) = entry.session.flow_mut()
        {
            let _ = flow.cancel(reason);
        }
        self.settle(id);
    }

    /// Aborts a session's flow on behalf of the asker (a `$/cancelRequest` on its `ask`).
    pub fn abort(&mut self, id: &str) {
        self.end(id, CancelReason::Aborted);
    }

    /// `close`: forgets a session. Its open flow ends first: as aborted when an `ask` waits on
    /// it (the asker withdrew), as closed otherwise (the client closed it unanswered).
    pub fn close(&mut self, params: Option<&str>) -> Result<Value, ErrorObjectOwned> {
        let p: SessionParams = parse(params)?;
        let reason = if self.waiters.contains_key(&p.session) {
            CancelReason::Aborted
        } else {
            CancelReason::Closed
        };
        self.end(&p.session, reason);
        let closed = self.sessions.remove(&p.session).is_some();
        Ok(json!({ "closed": closed }))
    }

    /// `snapshot`: the session's state as versioned JSON.
    pub fn snapshot(&self, params: Option<&str>) -> Result<Value, ErrorObjectOwned> {
        let p: SessionParams = parse(params)?;
        let entry = self.entry(&p.session)?;
        Ok(json!({ "state": snapshot::save(&entry.session) }))
    }

    /// `restore`: a new session from a snapshot.
    pub fn restore(&mut self, params: Option<&str>) -> Result<Step, ErrorObjectOwned> {
        let p: RestoreParams = parse(params)?;
        let limits = self.config.limits;
        limits
            .check_texts(&p.state, "state")
            .and_then(|()| limits.check_counts(&p.state["spec"], "state.spec"))
            .map_err(|m| error(code::LIMIT, m))?;
        let session = snapshot::restore(&p.state)
            .map_err(|e| error(code::INVALID_PARAMS, format!("invalid params: {e}")))?;
        let stored = session.flow().map_or(0, Flow::stored_bytes);
        if stored > limits.max_flow_text_bytes {
            return Err(error(
                code::LIMIT,
                format!(
                    "the snapshot holds {stored} bytes of answers and notes; the limit is {}",
                    limits.max_flow_text_bytes
                ),
            ));
        }
        let id = self.new_id(p.session)?;
        self.make_room()?;
        self.insert_session(id.clone(), session, self.view, None);
        self.step(&id)
    }

    /// `sessions`: every session held, oldest first.
    pub fn list(&self) -> Value {
        let mut entries: Vec<(&String, &Entry)> = self.sessions.iter().collect();
        entries.sort_by_key(|(_, e)| e.serial);
        Value::Array(
            entries
                .into_iter()
                .map(|(id, e)| {
                    let mut item = json!({ "session": id });
                    if let Some(title) = e.session.title() {
                        item["title"] = json!(title);
                    }
                    item["status"] = json!(e.session.status());
                    item
                })
                .collect(),
        )
    }
}

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

/// The Step of a session; its view is laid out with the layouts of `cache` when one is given.
fn step_of(id: &str, entry: &Entry, cache: Option<&mut ScreenCache>) -> Step {
    let view = match cache {
        Some(cache) => cache.build(id, &entry.session, entry.view),
        None => view::build_with(id, &entry.session, entry.view),
    };
    Step {
        session: id.to_owned(),
        status: entry.session.status(),
        view,
        result: entry.session.result(),
        transcript: entry.session.transcript(),
        error: entry.session.issues().map(StepError::invalid_input),
        steps: None,
    }
}
