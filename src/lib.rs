//! askd: a headless engine for structured "ask the user" flows.
//!
//! The pure core (no I/O, no async) takes an `ask_user` payload through validation
//! (`payload`), into a flow (`flow`) driven by keys (`key`, `keymap`, `editor`), and out as a
//! view (`view`) and a result (`result`). `session` ties these together for one ask;
//! `server` is the thin JSON-RPC shell around it.

pub mod answer_set;
pub mod completion;
pub mod conformance;
pub mod dsh;
pub mod editor;
pub mod flow;
pub mod key;
pub mod keymap;
pub mod limits;
pub mod model;
pub mod payload;
pub mod play;
mod recent;
pub mod render;
pub mod result;
pub mod reuse;
pub mod schema;
pub mod server;
pub mod session;
pub mod snapshot;
pub mod view;
