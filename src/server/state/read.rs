//! What the table answers without changing anything: views, results, snapshots, the list of
//! sessions.

use jsonrpsee::types::ErrorObjectOwned;
use serde_json::{Value, json};

use super::errors::parse;
use super::{Client, Entry, State, entry_in};
use crate::server::params::{GetViewParams, SessionParams};
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

    /// How `sessions` (and `session/opened`) lists session `id`: `{ session, title?, status }`.
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
    /// The flow, still open, was read back from the state directory after the process that
    /// held it ended; an `open` of its id on the same request resumes it.
    Recovered,
}

/// How `sessions` lists a session.
pub(super) fn listed<'a>(id: &'a str, e: &'a Entry) -> Listed<'a> {
    Listed {
        id,
        title: e.session.title(),
        // A recovered flow that has ended since (it timed out, say) is listed as it is.
        status: match e.session.status() {
            Status::Open if e.recovered => ListedStatus::Recovered,
            Status::Open => ListedStatus::Open,
            Status::Done => ListedStatus::Done,
        },
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
}

/// The result of `snapshot`: the session whose snapshot the reply holds.
pub struct SnapshotOf(pub String);
