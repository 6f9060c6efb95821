//! askd: a headless engine for structured "ask the user" flows.
//!
//! The layers, lowest first; each imports only the ones before it:
//!
//! - [`core`]: the pure flow (model, keys, keymap, text editor, completion matching, limits);
//! - [`dialect`]: the ask vocabularies (`pi`, `dsh`), each mapping its requests onto flows and
//!   finished flows onto its results;
//! - [`session`]: one ask, a flow in its dialect, and its snapshots;
//! - [`view`]: the view model a client draws, its renderer and the screen cache;
//! - [`server`]: the JSON-RPC shell (framing, dispatch, the session table, the file walk);
//! - [`cli`]: the `askd` command and its tools (play, demo, conformance, schema).
//!
//! `ARCHITECTURE.md` is the map.
#![warn(missing_docs)]

pub mod cli;
pub mod core;
pub mod dialect;
pub mod server;
pub mod session;
pub mod view;
