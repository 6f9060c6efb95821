//! What the table answers without changing anything: views, results, snapshots, the list of
//! sessions.

use jsonrpsee::types::ErrorObjectOwned;
use serde_json::{Value, json};

use super::errors::parse;
use super::recovery::Offer;
use super::{Client, Entry, State, entry_in, now_ms};
use crate::server::params::{Asker, GetViewParams, SessionParams};
use crate::server::protocol::Bounded;
use crate::session::{Status, snapshot};
use crate::view::ViewOptions;

impl State {
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

    /// `sessions`, first half: the flows of processes that ended since are adopted as offers
    /// (unless the connection is a test), offers that timed out or expired go. This is not
    /// undone when the list is then over the reply's budget: the offers are the same whoever
    /// lists them next.
    pub fn sessions(&mut self, client: &mut Client) {
        self.refresh_offers(client);
    }

    /// `sessions`: every session held, then (unless `client` is a test) every recovered flow
    /// offered, the earliest opened first, written straight into the reply.
    pub fn write_list(&self, client: &Client, out: &mut Bounded) -> serde_json::Result<()> {
        use serde::ser::{SerializeSeq, Serializer};
        let now = now_ms();
        let mut entries: Vec<(u64, u64, Listed)> = self
            .sessions
            .iter()
            .map(|(id, e)| (e.opened_at, e.serial, listed(id, e)))
            .collect();
        if !client.test {
            entries.extend(
                self.offers
                    .iter()
                    .map(|o| (o.entry.opened_at, 0, offered(o, now))),
            );
        }
        entries.sort_by_key(|(at, serial, listed)| (*at, *serial, listed.id));
        let mut serializer = serde_json::Serializer::new(out);
        let mut list = serializer.serialize_seq(Some(entries.len()))?;
        for (_, _, listed) in entries {
            list.serialize_element(&listed)?;
        }
        list.end()
    }

    /// How `sessions` (and `session/opened`) lists session `id`: `{ session, title?, status,
    /// asker?, openedAt }`.
    pub fn listed(&self, id: &str) -> Option<Value> {
        self.sessions.get(id).map(|e| json!(listed(id, e)))
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
    /// A flow left unfinished by a process that ended, read back from the state directory
    /// and offered: `recover` resumes it, `discard` drops it, `open` with `resume: true` on
    /// the same request resumes it; any other `open` of its id opens a new flow beside it.
    Recovered,
}

/// How `sessions` lists a session.
pub(super) fn listed<'a>(id: &'a str, e: &'a Entry) -> Listed<'a> {
    Listed {
        id,
        title: e.session.title(),
        status: match e.session.status() {
            Status::Open => ListedStatus::Open,
            Status::Done => ListedStatus::Done,
        },
        asker: (!e.asker.is_empty()).then_some(&e.asker),
        opened_at: e.opened_at,
        recovered: None,
    }
}

/// How `sessions` lists a recovered flow offered, at `now`.
fn offered(o: &Offer, now: u64) -> Listed<'_> {
    let e = &o.entry;
    let flow = e.session.flow();
    let answers = flow.map_or(&[][..], |f| f.answers());
    Listed {
        recovered: Some(Progress {
            saved_at: o.saved_at,
            age_ms: now.saturating_sub(o.saved_at),
            progress: Answered {
                answered: answers.iter().filter(|a| a.is_answered()).count(),
                total: answers.len(),
            },
            typed: flow.is_some_and(|f| {
                f.editor().is_some_and(|e| !e.text.is_empty())
                    || answers
                        .iter()
                        .any(|a| a.custom_text.is_some() || a.has_notes())
            }),
        }),
        status: ListedStatus::Recovered,
        ..listed(&o.id, e)
    }
}

/// One entry of `sessions`.
#[derive(serde::Serialize)]
pub(super) struct Listed<'a> {
    #[serde(rename = "session")]
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    status: ListedStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    asker: Option<&'a Asker>,
    #[serde(rename = "openedAt")]
    opened_at: u64,
    /// What a recovered flow offered says of itself.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    recovered: Option<Progress>,
}

/// What `sessions` says of a recovered flow beside what it says of every flow.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Progress {
    saved_at: u64,
    age_ms: u64,
    progress: Answered,
    typed: bool,
}

/// How far a recovered flow got: its questions answered, of all.
#[derive(serde::Serialize)]
pub(super) struct Answered {
    answered: usize,
    total: usize,
}

/// The result of `snapshot`: the session whose snapshot the reply holds.
pub struct SnapshotOf(pub String);
