//! The hub: `askd hub` ([`command`], and [`pipe`], the hub over stdin/stdout for clients
//! without WebSocket), and the Rust client every hub user builds on (`askd mcp`, `askd hook
//! claude`, `askd bridge opencode`, `askd ask --attach`).
//!
//! # The hub
//!
//! One long-lived askd where every agent's questions wait for the person's clients: `askd hub`
//! (or the first `askd serve --listen`, unless `--no-hub`). It writes its address and token to
//! the discovery file, `<runtime>/askd/hub.json` (see [`crate::server::discovery`]: mode 0600,
//! removed when the hub stops; a stale or untrusted file is never used). When a flow opens and
//! no person's client is attached, the hub opens the flow's page in the browser and tells the
//! asker, who prints the address where a person looks when no browser took it
//! ([`Event::Unattended`]; `protocol/README.md`, "The hub").
//!
//! # Using the client
//!
//! ```no_run
//! # async fn example() -> Result<(), askd::cli::hub::HubError> {
//! use askd::cli::hub::{Event, HubClient, HubOptions, Question};
//! use serde_json::json;
//!
//! // Finds the hub, or starts one (`askd hub --idle-exit 600`, detached), and connects with
//! // its token. `client_name` names the asker of every question that does not.
//! let options = HubOptions {
//!     client_name: Some("my-agent".into()),
//!     ..HubOptions::default()
//! };
//! let hub = HubClient::connect_or_start(&options).await?;
//!
//! // A question in a dialect, from an asker, with options of `ask`.
//! let mut question = Question::new(json!({ "questions": [{ "question": "Ship it?",
//!     "header": "Ship", "multiSelect": false,
//!     "options": [{ "label": "Yes", "description": "" }, { "label": "No", "description": "" }] }] }));
//! question.dialect = Some("claude".into());
//! question.asker.folder = Some("/home/me/project".into());
//! question.timeout_ms = Some(600_000);
//! let mut asking = hub.ask(question)?;
//! loop {
//!     match asking.next().await? {
//!         // Nobody's client was attached: say where the question is.
//!         Event::Unattended { page, browser } if browser != "opened" => {
//!             eprintln!("askd: answer the question at {page}");
//!         }
//!         Event::Answered(Ok(result)) => {
//!             println!("{result}");
//!             break;
//!         }
//!         // The dialect's error (dsh) or a refused request (a malformed payload's params).
//!         Event::Answered(Err(refused)) => {
//!             eprintln!("{refused}");
//!             break;
//!         }
//!         _ => {}
//!     }
//! }
//! # Ok(())
//! # }
//! ```
//!
//! - [`HubClient::connect_or_start`] / [`HubClient::connect`] (never starts one; [`HubError::NoHub`]
//!   when none runs). [`HubOptions`] names the discovery directory, the binary to start, the
//!   started hub's `--idle-exit`, log, arguments and environment (tests give the hub a
//!   temporary `XDG_RUNTIME_DIR`, state directory and `ASKD_NO_BROWSER=1`).
//! - [`HubClient::request`]: any method of `protocol/README.md`, its result or
//!   [`HubError::Rpc`] with the hub's code and message.
//! - [`HubClient::notifications`]: the `session/*` notifications once the connection has
//!   subscribed (`subscribe { attach: true }` for a person's client), in order.
//! - [`HubClient::ask`]: a [`Question`] asked with `ask`; the [`Asking`] handle yields
//!   [`Event`]s ([`Asking::next`]), or just the result ([`Asking::answer`]). Abort it with
//!   [`Asking::abort`] (or [`Asking::abort_now`] and keep reading): the flow ends with its
//!   dialect's aborted result. **Dropping the handle before the answer aborts the flow**, so
//!   a caller whose own request is cancelled (an MCP `notifications/cancelled`, a hook's
//!   timeout) only drops its future.
//! - **The hub going away mid-question** (stopped, killed): the question ends with
//!   [`HubError::Lost`], whose text says so ("the hub at ws://… went away (…) before it
//!   answered"); turn it into the result your agent reads (a hook prints nothing so that the
//!   agent's own prompt asks). The flow is kept in the hub's state directory and offered as
//!   `recovered` by the next hub; a question asked again under the same session id with
//!   `resume: true` in its params goes on with it.
//!
//! Everything is async (tokio); the connection is one task of the caller's runtime.

pub mod ask;
pub mod client;
pub mod command;
pub mod pipe;
pub mod start;

pub use crate::server::params::Asker;
pub use ask::{Asking, Event, Question};
pub use client::{HubClient, HubError, HubOptions, Notification, RpcError};
