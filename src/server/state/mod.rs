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
//!
//! The table is one [`State`] shared by every connection, and a [`Client`] per connection; the
//! methods are grouped by what they do, one file each:
//!
//! - `config`: the server-wide settings and the clock behind deadlines;
//! - `table`: the session table, where the sessions opened on one request keep its text, and
//!   their spec when equal, once between them;
//! - `client`: what one connection keeps for itself, and the reply being written;
//! - `errors`: how params and flow refusals become JSON-RPC errors;
//! - `open`: `initialize`, `open`, `ask`, `restore`, and the table's room;
//! - `edit`: the methods that change a flow (`key`, `keys`, `insert`, `cancel`, `close`, …);
//! - `read`: what the table answers without changing (`getView`, `getResult`, `snapshot`,
//!   `sessions`);
//! - `commit`: the two steps of a change: commit or roll back, and what follows a change;
//! - `subscribe`: the outboxes of the connections and `subscribe` / `unsubscribe`;
//! - `deadlines`: the flows' deadlines and the timer's side of them;
//! - `recovery`: the state directory, and the flows read back from it, offered apart from the
//!   table (`recover`, `discard`, `open` with `resume`).

mod client;
mod commit;
mod config;
mod deadlines;
mod edit;
mod errors;
mod hub;
mod open;
mod read;
mod recovery;
mod subscribe;
mod table;

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Weak};

use jsonrpsee::types::ErrorObjectOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::{Notify, oneshot};

use crate::core::{FileIndex, quoted};
use crate::server::outbox::Outbox;
use crate::server::params::Asker;
use crate::server::protocol::{Step, StepError, code, error};
use crate::server::store::{Store, Stored};
use crate::session::Session;
use crate::view::{self, ScreenCache, ViewOptions};

pub use client::Client;
pub use config::{Config, MAX_DEADLINE, now_ms};
pub use edit::{MAX_TRACED_KEYS, Traced};
pub use hub::{HubInfo, HubStatus};
pub use read::{ListedStatus, SnapshotOf};
pub use recovery::Offered;
pub(crate) use table::Table;

/// The connection number of no connection: the changes the timer makes are no connection's own.
const NOBODY: u64 = 0;

/// What a pending `ask` is sent when its flow completes.
pub type AskReply = Result<Value, ErrorObjectOwned>;

/// One session of the table.
pub(crate) struct Entry {
    session: Session,
    /// The request it was opened on, as it came (its snapshot holds it); one copy for every
    /// session of the table opened on the same text ([`Table`]).
    request: Arc<RawValue>,
    /// The options of its dialect it was opened with (`null`: none; its snapshot holds them).
    options: Value,
    /// How many changes it has had: 1 when opened, one more with every change (taken back
    /// when the change is rolled back).
    version: u64,
    /// Order of creation, for eviction; also tells a session from a later one of the same id.
    serial: u64,
    /// The file index being listed for `@` completion, until the flow has it.
    files: Option<oneshot::Receiver<Arc<FileIndex>>>,
    /// Whether its state is kept in the state directory (not for the flows of a connection
    /// that said it is a test).
    keep: bool,
    /// Who asked (empty when unknown).
    asker: Asker,
    /// When it was opened, in milliseconds since the Unix epoch (a recovered flow: when its
    /// process last wrote it).
    opened_at: u64,
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

/// What every connection of the process shares: the settings, the session table, pending
/// `ask`s, the state directory, and the outboxes of the connections to notify of changes.
/// Every method takes the [`Client`] of the connection that calls it besides: what that
/// connection keeps for itself.
pub struct State {
    config: Config,
    sessions: Table,
    serial: u64,
    next_id: u64,
    /// Pending `ask`s: session id → the session's serial and where its reply goes.
    waiters: HashMap<String, (u64, oneshot::Sender<AskReply>)>,
    /// The state directory, unless it is off.
    store: Option<Store>,
    /// The flows read back from the state directory, offered until a client resumes or
    /// discards them (never in `sessions`' table of live flows).
    offers: Vec<recovery::Offer>,
    /// The outbox of every connection, by the connection's number; an ended connection's
    /// outbox is dropped with it, and forgotten here at the next change.
    outboxes: Vec<(u64, Weak<Outbox>)>,
    /// The number of the latest connection.
    clients: u64,
    /// The deadlines of open flows, earliest first, with their sessions.
    deadlines: BTreeSet<(u64, String)>,
    /// Wakes the timer (`server::expire_on_time`) when a deadline is added.
    timer: Arc<Notify>,
    /// When the table was made, in milliseconds since the Unix epoch.
    started_at: u64,
    /// What the process is as the hub, once it is registered as one.
    hub: Option<hub::Hub>,
}

impl State {
    /// Fresh state with the given settings. With a state directory, this process's directory
    /// is made in it (the flows ended processes left there are read back later, when a client
    /// asks for them); a directory that cannot be used is reported and the server goes on
    /// without one.
    pub fn new(config: Config) -> State {
        let mut state = State {
            config,
            sessions: Table::default(),
            serial: 0,
            next_id: 0,
            waiters: HashMap::new(),
            deadlines: BTreeSet::new(),
            timer: Arc::new(Notify::new()),
            store: None,
            offers: Vec::new(),
            outboxes: Vec::new(),
            clients: 0,
            started_at: now_ms(),
            hub: None,
        };
        if let Some(dir) = state.config.state_dir.clone() {
            state.open_store(&dir);
        }
        state
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
}

/// A session of `sessions` for changing or viewing, with its file index installed once it is
/// ready.
fn entry_in<'a>(sessions: &'a mut Table, id: &str) -> Result<&'a mut Entry, ErrorObjectOwned> {
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
