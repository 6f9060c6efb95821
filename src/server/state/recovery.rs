//! The state directory and recovery made explicit: the flows of ended processes are read back
//! only when a client asks for them, and kept apart as **offers**, never mixed into new flows.
//!
//! - Opening the table opens the state directory and takes nothing over. The directories of
//!   ended processes are adopted (`Store::adopt`) when a connection asks for recovered flows:
//!   `sessions`, `recover`, `discard`, and `open`/`ask` with `resume: true`. A connection that
//!   said it is a test (`initialize` with `capabilities.test`) adopts nothing and is offered
//!   nothing: a scripted run starts clean, and its flows are not kept on disk either.
//! - A flow read back becomes an [`Offer`]: listed by `sessions` with status `recovered`, what
//!   it asked, who asked, when it was last saved, how far it got, whether something was typed.
//!   An `open` of its id opens a new flow beside it (the offer stays) unless it says
//!   `resume: true` and its request opens to the same flow; `recover` resumes it (under
//!   another id with `as`); `discard` drops it and its files.
//! - An offer whose request's deadline has passed is dropped (it timed out while no process
//!   held it); one last saved more than [`MAX_AGE`] ago is set aside (`.expired`). Both are
//!   checked whenever the offers are looked at.
//! - At most `--max-sessions` offers are held; more stay on disk for a later process.

use std::path::Path;

use jsonrpsee::types::ErrorObjectOwned;
use serde_json::{Value, json};

use super::commit::Undo;
use super::errors::parse;
use super::{Client, Entry, State, now_ms};
use crate::core::{Flow, quoted};
use crate::server::files;
use crate::server::params::{RecoverParams, SessionParams};
use crate::server::protocol::{Step, code, error};
use crate::server::store::{MAX_AGE, Store};
use crate::session::Status;
use crate::view::ViewOptions;

/// A flow read back from the state directory, offered until a client resumes or discards it.
pub(crate) struct Offer {
    /// The session id it had.
    pub(super) id: String,
    /// The session, with who asked it and when it opened.
    pub(super) entry: Entry,
    /// When it was last saved, in milliseconds since the Unix epoch.
    pub(super) saved_at: u64,
    /// When it was last saved (nanoseconds) and its place among its process's flows: of two
    /// offers of one id, the later stays.
    pub(super) written: (u64, u64),
}

/// A recovered flow offered, as a client in this process sees it before it decides what to
/// do with it (`askd ask`, which offers a person the flow of the same request it left).
pub struct Offered<'a> {
    /// The session id it had.
    pub id: &'a str,
    /// The session as read back.
    pub session: &'a crate::session::Session,
    /// When it was last saved, in milliseconds since the Unix epoch.
    pub saved_at: u64,
    /// Whether it holds the flow the given session opens (the same dialect and questions):
    /// what `open` with `resume: true` would resume.
    pub same_flow: bool,
}

impl State {
    /// Opens the state directory; nothing of ended processes is read back yet.
    pub(super) fn open_store(&mut self, dir: &Path) {
        match Store::open(dir) {
            Ok(store) => self.store = Some(store),
            Err(e) => tracing::warn!(
                "the state directory {} cannot be used ({e}); open flows will not survive a crash",
                dir.display()
            ),
        }
    }

    /// Before a connection looks at the offers: unless it is a test, the flows of processes
    /// that ended since are adopted, and offers that timed out or expired go.
    pub(super) fn refresh_offers(&mut self, client: &Client) {
        if client.test {
            return;
        }
        let now = now_ms();
        self.adopt(now);
        self.drop_stale_offers(now);
    }

    /// Adopts the flows of ended processes as offers.
    fn adopt(&mut self, now: u64) {
        let Some(store) = self.store.as_mut() else {
            return;
        };
        let mut recovered = store.adopt(&self.config.limits, self.config.max_message_bytes, now);
        // The most recently written first, so that of two flows with one id the later stays.
        recovered.sort_by_key(|r| std::cmp::Reverse(r.written));
        let mut offered = 0;
        for r in recovered {
            let offer = Offer {
                entry: offer_entry(
                    self.limited(r.restored.session),
                    r.restored.request,
                    r.restored.options,
                    r.asker,
                    r.opened_at,
                    r.stored,
                ),
                id: r.id,
                saved_at: r.saved_at,
                written: r.written,
            };
            if let Some(at) = self.offer_of(&offer.id) {
                tracing::warn!(
                    "two recovered flows have the id {}; the older one is set aside",
                    quoted(&offer.id)
                );
                let older = if offer.written > self.offers[at].written {
                    std::mem::replace(&mut self.offers[at], offer)
                } else {
                    offer
                };
                if let (Some(store), Some(stored)) = (self.store.as_ref(), &older.entry.stored) {
                    store.set_aside_superseded(stored);
                }
                continue;
            }
            if self.offers.len() >= self.config.max_sessions {
                // Beyond the room for offers a flow stays on disk for a later process.
                continue;
            }
            self.offers.push(offer);
            offered += 1;
        }
        match offered {
            0 => {}
            1 => tracing::info!("1 unfinished flow of an ended process is offered for recovery"),
            _ => tracing::info!(
                "{offered} unfinished flows of ended processes are offered for recovery"
            ),
        }
    }

    /// Drops the offers whose deadline has passed (their files leave the directory) and sets
    /// aside those last saved more than [`MAX_AGE`] before `now`.
    fn drop_stale_offers(&mut self, now: u64) {
        let max_age = MAX_AGE.as_millis() as u64;
        let mut at = 0;
        while at < self.offers.len() {
            let offer = &mut self.offers[at];
            let timed_out =
                offer.entry.session.expire(now) || offer.entry.session.status() == Status::Done;
            let expired = now.saturating_sub(offer.saved_at) > max_age;
            if !timed_out && !expired {
                at += 1;
                continue;
            }
            let offer = self.offers.remove(at);
            if let (Some(store), Some(stored)) = (self.store.as_mut(), &offer.entry.stored) {
                if timed_out {
                    tracing::info!(
                        "the recovered flow {} timed out while no process held it; it is dropped",
                        quoted(&offer.id)
                    );
                    store.remove(stored);
                } else {
                    store.set_aside_expired(stored);
                }
            }
        }
    }

    /// The offer of id `id`, taken out of the list.
    fn take_offer(&mut self, id: &str) -> Option<Offer> {
        let at = self.offers.iter().position(|o| o.id == id)?;
        Some(self.offers.remove(at))
    }

    /// Puts an offer taken out back, where it was in the order of saves.
    pub(super) fn put_back_offer(&mut self, offer: Offer) {
        let at = self.offers.partition_point(|o| o.written <= offer.written);
        self.offers.insert(at, offer);
    }

    /// Resumes the flow of `offer` as the live session `id` (to be committed or rolled back),
    /// with views as `view` says and `@` completion under `cwd`; `evict` goes to make room.
    pub(super) fn resume_offer(
        &mut self,
        client: &mut Client,
        mut offer: Offer,
        id: String,
        view: ViewOptions,
        cwd: Option<&str>,
        evict: Option<String>,
    ) {
        self.serial += 1;
        let entry = &mut offer.entry;
        entry.serial = self.serial;
        entry.files = cwd
            .filter(|cwd| !cwd.is_empty() && entry.session.status() == Status::Open)
            .map(|cwd| files::spawn_walk(Path::new(cwd)));
        let serial = entry.serial;
        let deadline = entry.session.deadline();
        client.undo = Some(Undo::Resumed {
            id: id.clone(),
            from: offer.id,
            saved_at: offer.saved_at,
            written: offer.written,
            view: client.views.get(&id).copied(),
            evict,
        });
        self.sessions.insert(id.clone(), offer.entry);
        if let Some(at) = deadline {
            self.deadlines.insert((at, id.clone()));
            self.timer.notify_one();
        }
        client.set_view(&id, serial, view, &self.sessions);
    }

    /// Whether `offer` holds the flow `session` opens: the same dialect and the same questions.
    pub(super) fn offers_same_flow(offer: &Offer, session: &crate::session::Session) -> bool {
        session.status() == Status::Open
            && offer.entry.session.dialect() == session.dialect()
            && offer.entry.session.flow().map(Flow::spec) == session.flow().map(Flow::spec)
    }

    /// The index of the offer of id `id`, if one is held.
    pub(super) fn offer_of(&self, id: &str) -> Option<usize> {
        self.offers.iter().position(|o| o.id == id)
    }

    /// Takes the offer at `at` out of the list.
    pub(super) fn offer_at(&mut self, at: usize) -> Offer {
        self.offers.remove(at)
    }

    /// The recovered flows offered to `client`, the latest saved first, each with whether it
    /// holds the flow `session` opens. As `sessions` does, the flows of processes that ended
    /// since are adopted first and the offers that timed out or expired go; a test client is
    /// offered nothing.
    pub fn offered(
        &mut self,
        client: &Client,
        session: &crate::session::Session,
    ) -> Vec<Offered<'_>> {
        self.refresh_offers(client);
        if client.test {
            return Vec::new();
        }
        let mut offered: Vec<Offered<'_>> = self
            .offers
            .iter()
            .map(|offer| Offered {
                id: &offer.id,
                session: &offer.entry.session,
                saved_at: offer.saved_at,
                same_flow: Self::offers_same_flow(offer, session),
            })
            .collect();
        offered.sort_by_key(|o| std::cmp::Reverse(o.saved_at));
        offered
    }

    /// `recover`: resumes a recovered flow as a live session (of its id, or of `as`) and
    /// answers its Step.
    pub fn recover(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: RecoverParams = parse(params)?;
        self.refresh_offers(client);
        if client.test || self.offer_of(&p.session).is_none() {
            return Err(error(
                code::UNKNOWN_SESSION,
                format!("no recovered flow has the id {}", quoted(&p.session)),
            ));
        }
        let id = p.as_id.unwrap_or_else(|| p.session.clone());
        if id.is_empty() {
            return Err(error(
                code::INVALID_PARAMS,
                "invalid params: as: expected a non-empty string, got the string \"\"",
            ));
        }
        if self.sessions.contains_key(&id) {
            return Err(error(
                code::INVALID_PARAMS,
                format!(
                    "invalid params: {}: {} is already in use by an open session; recover it `as` another id",
                    if id == p.session { "session" } else { "as" },
                    quoted(&id)
                ),
            ));
        }
        let evict = self.room()?;
        let offer = self
            .take_offer(&p.session)
            .expect("the offer was found above");
        let view = ViewOptions {
            width: p.width.or(client.view.width),
            all_rows: p.all_rows.unwrap_or(client.view.all_rows),
        };
        self.resume_offer(client, offer, id.clone(), view, p.cwd.as_deref(), evict);
        self.step(client, &id)
    }

    /// `discard`: drops a recovered flow and its files; answers whether there was one.
    pub fn discard(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Value, ErrorObjectOwned> {
        let p: SessionParams = parse(params)?;
        self.refresh_offers(client);
        let offer = if client.test {
            None
        } else {
            self.take_offer(&p.session)
        };
        let discarded = offer.is_some();
        if let Some(offer) = offer {
            client.undo = Some(Undo::Discarded {
                offer: Box::new(offer),
            });
        }
        Ok(json!({ "discarded": discarded }))
    }

    /// Ends the server's use of the state directory: what was written is made durable.
    pub fn close_store(&mut self) {
        if let Some(store) = self.store.as_mut() {
            store.close();
        }
    }
}

/// The entry an offer holds: its session, as read back, not yet in the table.
fn offer_entry(
    session: crate::session::Session,
    request: Box<serde_json::value::RawValue>,
    options: Value,
    asker: crate::server::params::Asker,
    opened_at: u64,
    stored: crate::server::store::Stored,
) -> Entry {
    Entry {
        session,
        request: std::sync::Arc::from(request),
        options,
        version: 1,
        serial: 0,
        files: None,
        keep: true,
        asker,
        opened_at,
        stored: Some(stored),
    }
}
