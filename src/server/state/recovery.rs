//! The state directory: opened with the table, the flows of ended processes taken in as
//! recovered sessions, and made durable when the server ends.

use std::path::Path;

use super::{Entry, State};
use crate::core::quoted;
use crate::server::params::Asker;
use crate::server::store::Store;

impl State {
    /// Opens the state directory and takes in what it recovers.
    pub(super) fn open_store(&mut self, dir: &Path) {
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
                    asker: Asker::default(),
                    opened_at: r.written.0 / 1_000_000,
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

    /// Ends the server's use of the state directory: what was written is made durable.
    pub fn close_store(&mut self) {
        if let Some(store) = self.store.as_mut() {
            store.close();
        }
    }
}
