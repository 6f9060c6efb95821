//! The table as the hub: the process every agent's questions go to (`askd hub`, or the first
//! `askd serve --listen`), registered in the discovery file (`server::discovery`).
//!
//! **The browser rule.** When a flow opens in the hub (`open`, `ask`, `restore`) and is left
//! open, and no connection is attached (`subscribe { attach: true }`: a person's client that
//! shows arriving flows), the hub opens the flow's page in the person's browser
//! (`server::browser`), and tells the connection that opened the flow, alone, with a
//! `hub/unattended` notification: `{ session, page, browser }`, `browser` being
//! - `opened`: a browser took the page;
//! - `recent`: a browser was sent a page less than [`BROWSER_GRACE`] ago and no client has
//!   attached since (it is on its way; one page shows every waiting flow), so no other window
//!   is opened;
//! - `unavailable`: no browser could take it (no `$BROWSER`, no `xdg-open`, or both failed);
//! - `off`: the hub opens no browser (`--no-browser`, `ASKD_NO_BROWSER`).
//!
//! The opener prints `page` (an address with the token) where a person looks, so that the
//! question is never silently lost. A process that is not the hub never opens a browser.

use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use jsonrpsee::types::ErrorObjectOwned;
use serde::Serialize;
use serde_json::{Value, json};

use super::{Client, State};
use crate::server::browser::{Browser, Opened, percent_encoded};
use crate::server::outbox::Outbox;
use crate::session::Status;

/// How long after sending a page to the browser the hub waits for a client to attach before it
/// sends another.
pub const BROWSER_GRACE: Duration = Duration::from_secs(30);

/// What the process is as the hub: its addresses and how it opens pages.
#[derive(Debug, Clone)]
pub struct HubInfo {
    /// The WebSocket endpoint, without the token (`ws://127.0.0.1:P/rpc`).
    pub url: String,
    /// The browser client's page, without the token (`http://127.0.0.1:P/`).
    pub page: String,
    /// The token every connection presents.
    pub token: String,
    /// How pages are opened.
    pub browser: Browser,
}

/// The hub's own state.
pub(super) struct Hub {
    info: HubInfo,
    /// When a page was last sent to the browser, unless it failed since (the launching
    /// thread clears it) or a client attached since.
    launched: Arc<Mutex<Option<Instant>>>,
}

/// The `hub/status` result.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HubStatus {
    /// Whether this process is the registered hub.
    pub hub: bool,
    /// Its process id.
    pub pid: u32,
    /// askd's version.
    pub version: &'static str,
    /// The protocol version, 1.
    pub protocol_version: u32,
    /// When it started, in milliseconds since the Unix epoch.
    pub started_at: u64,
    /// The WebSocket endpoint, without the token (the hub only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The browser client's page, without the token (the hub only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<String>,
    /// How many flows wait for an answer (open ones; recovered flows offered are not).
    pub waiting: usize,
    /// How many other connections it has.
    pub clients: usize,
    /// How many of them are attached (a person's clients that show arriving flows).
    pub attached: usize,
}

impl State {
    /// Makes the table the hub's: from now on the browser rule applies to flows that open.
    pub fn set_hub(&mut self, info: HubInfo) {
        self.hub = Some(Hub {
            info,
            launched: Arc::default(),
        });
    }

    /// Whether the table is the hub's.
    pub fn is_hub(&self) -> bool {
        self.hub.is_some()
    }

    /// How many flows wait for an answer: the open ones of the table (recovered flows are
    /// offered apart from it).
    pub fn waiting(&self) -> usize {
        self.sessions
            .values()
            .filter(|e| e.session.status() == Status::Open)
            .count()
    }

    /// The outboxes of the connections alive, with their numbers.
    fn live(&self) -> impl Iterator<Item = (u64, Arc<Outbox>)> + '_ {
        self.outboxes
            .iter()
            .filter_map(|(number, outbox)| outbox.upgrade().map(|o| (*number, o)))
    }

    /// How many connections are alive.
    pub fn connections(&self) -> usize {
        self.live().count()
    }

    /// Whether no flow waits and no connection is there: what `--idle-exit` waits for.
    pub fn is_idle(&self) -> bool {
        self.waiting() == 0 && self.connections() == 0
    }

    /// A connection attached: pages sent to the browser before are forgotten.
    pub(super) fn attached(&mut self) {
        if let Some(hub) = &self.hub {
            *lock(&hub.launched) = None;
        }
    }

    /// The browser rule (see the module's documentation) for session `id`, just opened by
    /// the connection `by`.
    pub(super) fn announce(&mut self, id: &str, by: u64) {
        let Some(hub) = &self.hub else {
            return;
        };
        let open = self
            .sessions
            .get(id)
            .is_some_and(|e| e.session.status() == Status::Open);
        if !open || self.live().any(|(_, outbox)| outbox.is_attached()) {
            return;
        }
        let Some(opener) = self
            .outboxes
            .iter()
            .find(|(number, _)| *number == by)
            .map(|(_, outbox)| outbox.clone())
        else {
            return;
        };
        let page = format!(
            "{}?token={}&session={}",
            hub.info.page,
            hub.info.token,
            percent_encoded(id)
        );
        let tell = move |opener: &Weak<Outbox>, browser: &str, page: &str, id: &str| {
            if let Some(opener) = opener.upgrade() {
                opener.notice(unattended(id, page, browser));
            }
        };
        if hub.info.browser == Browser::Off {
            return tell(&opener, "off", &page, id);
        }
        {
            let mut launched = lock(&hub.launched);
            if launched.is_some_and(|at| at.elapsed() < BROWSER_GRACE) {
                drop(launched);
                return tell(&opener, "recent", &page, id);
            }
            *launched = Some(Instant::now());
        }
        let (browser, launched, id) = (
            hub.info.browser.clone(),
            hub.launched.clone(),
            id.to_owned(),
        );
        let spawned = std::thread::Builder::new()
            .name("askd-browser".into())
            .spawn(move || {
                browser.open(&page, |opened| match opened {
                    Opened::Opened => tell(&opener, "opened", &page, &id),
                    Opened::Unavailable(why) => {
                        tracing::warn!("the page of {id} was not opened in a browser: {why}");
                        *lock(&launched) = None;
                        tell(&opener, "unavailable", &page, &id);
                    }
                });
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot open a browser: {e}");
        }
    }

    /// `hub/status`: what the process is and holds; `clients` and `attached` count the other
    /// connections.
    pub fn hub_status(
        &mut self,
        client: &mut Client,
        _params: Option<&str>,
    ) -> Result<Value, ErrorObjectOwned> {
        let others: Vec<Arc<Outbox>> = self
            .live()
            .filter(|(number, _)| *number != client.number)
            .map(|(_, outbox)| outbox)
            .collect();
        let status = HubStatus {
            hub: self.hub.is_some(),
            pid: std::process::id(),
            version: env!("CARGO_PKG_VERSION"),
            protocol_version: 1,
            started_at: self.started_at,
            url: self.hub.as_ref().map(|h| h.info.url.clone()),
            page: self.hub.as_ref().map(|h| h.info.page.clone()),
            waiting: self.waiting(),
            clients: others.len(),
            attached: others.iter().filter(|o| o.is_attached()).count(),
        };
        Ok(json!(status))
    }
}

/// The `hub/unattended` notification.
fn unattended(session: &str, page: &str, browser: &str) -> Vec<u8> {
    json!({
        "jsonrpc": "2.0",
        "method": "hub/unattended",
        "params": { "session": session, "page": page, "browser": browser },
    })
    .to_string()
    .into_bytes()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
