//! The integration tests, one binary: the engine through its library API and the real `askd`
//! binary through its pipes.

// Shared helpers.
/// Fixtures and drivers of the engine-core suites.
mod common;
/// A JSON-RPC client of the real binary.
mod support;

// The engine core, through the library.
/// The claude dialect (DIALECTS §1).
mod claude_core;
/// The codex dialect (DIALECTS §2).
mod codex_core;
/// What dialects hand the core as data: checkers, review labels, custom rows, secrets.
mod core_rules;
/// The dsh dialect (BEHAVIOR §7).
mod dsh_core;
/// Editors: editing keys, the cursor, `@` completion.
mod editors;
/// The flow, rule by rule (BEHAVIOR §2–§5), and snapshots.
mod flow_rules;
/// The folder layout: which layer may import which.
mod layout;
/// The mcp dialect (DIALECTS §4).
mod mcp_core;
/// The opencode dialect (DIALECTS §3).
mod opencode_core;
/// Random payloads and keys: invariants, contract, snapshots.
mod properties;
/// Results through the flow (BEHAVIOR §6).
mod results_e2e_core;
/// Rendered screens (insta snapshots) and scripted flows.
mod screens;

// The real binary.
/// The language-neutral scenarios of `protocol/scenarios/`.
mod conformance;
/// The claude, codex, opencode and mcp dialects through the binary.
mod dialects_e2e;
/// `askd serve` end to end.
mod e2e_server;
/// The generated protocol documents against the code and the binary.
mod schema;
