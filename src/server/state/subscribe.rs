//! Who is told of changes: every connection's outbox, and `subscribe` / `unsubscribe`.

use jsonrpsee::types::ErrorObjectOwned;
use serde_json::{Value, json};

use super::errors::parse;
use super::read::listed;
use super::{Client, Entry, State};
use crate::server::outbox::Outbox;
use crate::server::params::SubscribeParams;
use crate::server::protocol::{code, error};
use crate::view::ViewOptions;

impl State {
    /// Tells every outbox of a change to session `id`, made by the connection `by`.
    pub(super) fn tell(&mut self, by: u64, event: impl Fn(&Outbox, bool)) {
        self.outboxes
            .retain(|(number, outbox)| match outbox.upgrade() {
                Some(outbox) => {
                    event(&outbox, *number == by);
                    true
                }
                None => false,
            });
    }

    /// `subscribe`: the connection is notified of changes by others to one session, or to
    /// every session, from now on; the sessions it is to know of are answered, listed as
    /// `sessions` lists them. View options given are the connection's for that session (or
    /// for every session it gave none for). `attach: true` makes the connection a person's
    /// client that shows arriving flows (see `state::hub`); `attach: false` ends that.
    pub fn subscribe(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Value, ErrorObjectOwned> {
        let p: SubscribeParams = parse(params)?;
        if p.attach == Some(true) && p.session.is_some() {
            return Err(error(
                code::INVALID_PARAMS,
                "invalid params: attach: an attached client is told of every session; give no \
                 session with it",
            ));
        }
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
        if let Some(attach) = p.attach {
            client.outbox.attach(attach);
            if attach {
                self.attached();
            }
        }
        let mut entries: Vec<(&String, &Entry)> = self
            .sessions
            .iter()
            .filter(|(id, _)| p.session.as_ref().is_none_or(|only| only == *id))
            .collect();
        entries.sort_by_key(|(_, e)| (e.opened_at, e.serial));
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
}
