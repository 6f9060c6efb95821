//! The task that writes a subscribed connection's `session/opened`, `session/changed` and
//! `session/closed` notifications: it takes what the connection's outbox (`server::outbox`)
//! says it is owed, one dirty session at a time, once everything queued for the connection
//! before has been written, and writes each with the connection's view options.

use serde_json::{Value, json};

use crate::server::answer::Answer;
use crate::server::methods::{Link, lock};
use crate::server::outbox::{Due, Outbox};
use crate::server::outgoing::Outgoing;
use crate::server::protocol::Bounded;

/// Sends the notifications the connection of `link` is owed to `out`, one dirty session at a
/// time, each once everything queued before has been written; runs until the connection ends
/// it.
pub(super) async fn deliver(link: Link, out: Outgoing) {
    let outbox = lock(&link.client).outbox().clone();
    loop {
        outbox.ready().await;
        out.idle().await;
        if let Some(notice) = outbox.take_notice() {
            out.send(notice).await;
            continue;
        }
        for message in due(&link, &outbox) {
            out.send(message).await;
        }
    }
}

/// The notifications of the next dirty session, written with the connection's view options.
fn due(link: &Link, outbox: &Outbox) -> Vec<Vec<u8>> {
    let (mut client, mut state) = link.lock();
    let Some((id, due)) = outbox.take(|id| state.serial_of(id)) else {
        return Vec::new();
    };
    let mut messages = Vec::with_capacity(due.len());
    for due in due {
        match due {
            Due::Opened => {
                if let Some(listed) = state.listed(&id) {
                    messages.push(notification("session/opened", &listed));
                }
            }
            Due::Closed => {
                messages.push(notification("session/closed", &json!({ "session": id })));
            }
            Due::Changed => {
                let Ok(step) = state.step(&mut client, &id) else {
                    continue;
                };
                let limit = state.config().max_reply_bytes;
                let mut message =
                    br#"{"jsonrpc":"2.0","method":"session/changed","params":"#.to_vec();
                let mut out = Bounded::new(&mut message, limit.saturating_sub(1));
                match step.write(&mut out, &mut state, &mut client) {
                    Ok(()) => {
                        message.push(b'}');
                        messages.push(message);
                    }
                    Err(e) => tracing::warn!(
                        session = id,
                        "a session/changed notification is not sent: {e} (--max-reply-bytes)"
                    ),
                }
            }
        }
    }
    messages
}

/// A notification of `method` with `params`.
fn notification(method: &str, params: &Value) -> Vec<u8> {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
        .to_string()
        .into_bytes()
}
