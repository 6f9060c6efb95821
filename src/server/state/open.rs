//! The methods that add a session to the table (`open`, `ask`, `restore`), the room they make
//! for it, and `initialize`, which sets a connection's defaults for them.

use std::path::Path;
use std::sync::Arc;

use jsonrpsee::types::ErrorObjectOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::commit::Undo;
use super::errors::{keymap_error, keymap_of, parse};
use super::{AskReply, Client, Entry, MAX_DEADLINE, State, now_ms};
use crate::core::{FileIndex, quoted};
use crate::server::files;
use crate::server::params::{Asker, InitializeParams, OpenParams, RestoreParams};
use crate::server::protocol::{METHODS, Step, ask_error, code, error};
use crate::session::snapshot::{self, RestoreError};
use crate::session::{OpenOptions, Session, Status};
use crate::view::ViewOptions;

impl State {
    /// `initialize`: connection defaults for later `open`s.
    pub fn initialize(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Value, ErrorObjectOwned> {
        let p: InitializeParams = parse(params)?;
        let name = p
            .client_info
            .as_ref()
            .and_then(|info| info.get("name"))
            .and_then(Value::as_str)
            .map(|name| {
                self.config
                    .limits
                    .check_text(name, "clientInfo.name")
                    .map_err(|m| error(code::LIMIT, m))
                    .map(|()| name.to_owned())
            })
            .transpose()?;
        let capabilities = p.capabilities;
        let (preset, overrides) = match &capabilities {
            Some(c) => (
                c.keymap_preset.or(client.preset),
                c.keymap.clone().or_else(|| client.overrides.clone()),
            ),
            None => (client.preset, client.overrides.clone()),
        };
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
            test: client.test,
            name: match name {
                Some(name) => client.name.replace(name),
                None => client.name.clone(),
            },
        });
        if let Some(c) = capabilities {
            client.behaviour = c.behaviour.unwrap_or(client.behaviour);
            client.view.width = c.width.or(client.view.width);
            client.view.all_rows = c.all_rows.unwrap_or(client.view.all_rows);
            client.has_ui = c.has_ui.or(client.has_ui);
            client.test = c.test.unwrap_or(client.test);
        }
        Ok(json!({
            "serverInfo": { "name": "askd", "version": env!("CARGO_PKG_VERSION") },
            "protocolVersion": 1,
            "methods": METHODS,
        }))
    }

    /// Whether the table has room for one more session: `Ok(None)` when it has, `Ok(Some)`
    /// naming the session that goes to make room: the oldest completed one. (Recovered flows
    /// are offered apart from the table and never keep new flows out.)
    pub(super) fn room(&self) -> Result<Option<String>, ErrorObjectOwned> {
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
        match oldest(&done) {
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

    pub(super) fn new_id(&mut self, requested: Option<String>) -> Result<String, ErrorObjectOwned> {
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
    pub(super) fn limited(&self, mut session: Session) -> Session {
        if let Ok(flow) = session.flow_mut() {
            flow.set_text_limit(self.config.limits.max_text_bytes);
            flow.set_stored_limit(self.config.limits.max_flow_text_bytes);
        }
        session
    }

    /// A new entry of the table for `session`, opened by `client` (whose flows are kept in
    /// the state directory unless it is a test).
    pub(super) fn entry_for(
        &mut self,
        client: &Client,
        session: Session,
        request: Box<RawValue>,
        options: Value,
        files: Option<oneshot::Receiver<Arc<FileIndex>>>,
        asker: Asker,
    ) -> Entry {
        self.serial += 1;
        Entry {
            session: self.limited(session),
            request: Arc::from(request),
            options,
            version: 1,
            serial: self.serial,
            files,
            keep: !client.test,
            asker,
            opened_at: now_ms(),
            stored: None,
        }
    }

    /// Who asks a flow a connection opens: `given` (the `asker` param), each member left out
    /// taken from the connection's name (`initialize`'s `clientInfo.name`) and from `cwd`.
    /// Every text is within the text limit.
    pub(super) fn asker_of(
        &self,
        client: &Client,
        given: Option<Asker>,
        cwd: Option<&str>,
    ) -> Result<Asker, ErrorObjectOwned> {
        let given = given.unwrap_or_default();
        let asker = Asker {
            name: given.name.or_else(|| client.name.clone()),
            folder: given.folder.or_else(|| cwd.map(str::to_owned)),
        };
        let limits = &self.config.limits;
        for (text, what) in [(&asker.name, "asker.name"), (&asker.folder, "asker.folder")] {
            if let Some(text) = text {
                limits
                    .check_text(text, what)
                    .map_err(|m| error(code::LIMIT, m))?;
            }
        }
        Ok(asker)
    }

    /// Adds a session to the table (to be committed or rolled back).
    pub(super) fn add(
        &mut self,
        client: &mut Client,
        id: String,
        entry: Entry,
        evict: Option<String>,
    ) {
        let deadline = entry.session.deadline();
        self.sessions.insert(id.clone(), entry);
        if let Some(at) = deadline {
            self.deadlines.insert((at, id.clone()));
            self.timer.notify_one();
        }
        client.undo = Some(Undo::Added { id, evict });
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

    /// Opens the session of `open` and `ask`, or, with `resume: true`, resumes the recovered
    /// flow offered under that id when the request opens to the same flow; answers its id.
    /// Without `resume` (or for another request) a recovered flow of that id stays offered,
    /// apart from the new one.
    pub(super) fn open_session(
        &mut self,
        client: &mut Client,
        p: OpenParams,
    ) -> Result<String, ErrorObjectOwned> {
        let payload: Value = serde_json::from_str(p.payload.get()).expect("a raw value is JSON");
        self.config
            .limits
            .check_payload(&payload)
            .map_err(|m| error(code::LIMIT, m))?;
        let asker = self.asker_of(client, p.asker.clone(), p.cwd.as_deref())?;
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
        // A test client is offered nothing, also what other connections had adopted.
        let resume = p.resume == Some(true) && !client.test;
        if resume {
            self.refresh_offers(client);
        }
        if resume
            && let Some(id) = &p.session
            && !self.sessions.contains_key(id)
            && let Some(at) = self.offer_of(id)
        {
            if Self::offers_same_flow(&self.offers[at], &session) {
                // The client asks again what it asked before its process ended, and says to
                // go on with it: the flow goes on from its draft.
                let evict = self.room()?;
                let offer = self.offer_at(at);
                self.resume_offer(client, offer, id.clone(), view, p.cwd.as_deref(), evict);
                return Ok(id.clone());
            }
            tracing::info!(
                "the recovered flow {} is not resumed: the session is opened on another request, and the recovered one stays offered",
                quoted(id)
            );
        }
        let evict = self.room()?;
        let id = self.new_id(p.session)?;
        let files = walk(&session);
        let dialect_options = p
            .dialect_options
            .get(session.dialect().name())
            .cloned()
            .unwrap_or(Value::Null);
        let entry = self.entry_for(client, session, p.payload, dialect_options, files, asker);
        let serial = entry.serial;
        self.add(client, id.clone(), entry, evict);
        client.set_view(&id, serial, view, &self.sessions);
        Ok(id)
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
        let asker = self.asker_of(client, None, None)?;
        let entry = self.entry_for(
            client,
            restored.session,
            restored.request,
            restored.options,
            None,
            asker,
        );
        self.add(client, id.clone(), entry, evict);
        self.step(client, &id)
    }
}
