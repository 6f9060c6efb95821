//! The integration tests, one binary: the engine through its library API and the real `askd`
//! binary through its pipes.

// Shared helpers.
/// Fixtures and drivers of the engine-core suites.
mod common;
/// A JSON-RPC client of the real binary.
mod support;

// The engine core, through the library.
/// The behaviour options and the pi-0.9 profile (behaviour §9).
mod behaviour;
/// `protocol/behaviour.md` against the engine: its tables, examples and quoted strings.
mod behaviour_doc;
/// The claude dialect (`protocol/dialects.md`).
mod claude_core;
/// The codex dialect (`protocol/dialects.md`).
mod codex_core;
/// What dialects hand the core as data: checkers, review labels, custom rows, secrets.
mod core_rules;
/// Timeouts and the reasons a flow ends unanswered (behaviour §10), through the core, the
/// session table and the binary.
mod deadlines;
/// Why a flow of the claude, codex, opencode and mcp dialects ended unanswered (behaviour §10).
mod dialect_endings;
/// `protocol/dialects.md` against the engine: its examples and quoted strings.
mod dialects_doc;
/// The dsh dialect (behaviour §7).
mod dsh_core;
/// Editors: editing keys, the cursor, `@` completion.
mod editors;
/// The flow, rule by rule (behaviour §2–§5), and snapshots.
mod flow_rules;
/// The folder layout: which layer may import which.
mod layout;
/// Long lists: page keys, first and last, the `/` filter, progress (behaviour §10).
mod long_lists;
/// The mcp dialect (`protocol/dialects.md`).
mod mcp_core;
/// The opencode dialect (`protocol/dialects.md`).
mod opencode_core;
/// Where a question tab opens: on the answer it holds, or its first row (behaviour §2).
mod opening_row;
/// Pointer actions (behaviour §11): what the view offers, keys against activations.
mod pointer;
/// Random payloads and keys: invariants, contract, snapshots.
mod properties;
/// Results through the flow (behaviour §6).
mod results_e2e_core;
/// Rendered screens (insta snapshots) and scripted flows.
mod screens;
/// Six rules of the seed profile the reference pins down (behaviour §1, §3, §5, §6).
mod seed_rules;
/// The vim keymap preset and key sequences with their pending keys (behaviour §10).
mod vim_keys;

// The hub's clients, through the library.
/// `askd bridge opencode`'s watcher against a fake opencode server and a fake hub.
mod bridge_opencode;
/// `askd hook claude`'s decisions against a scripted hub.
mod hook_claude;

// The real binary.
/// `askd ask` in a real terminal (tmux): a flow left unfinished offered, resumed, discarded or
/// kept on the person's word.
mod ask_recovery;
/// `askd ask --attach` in a real terminal (tmux): the hub's flows answered one after another.
mod attach;
/// The language-neutral scenarios of `protocol/scenarios/`.
mod conformance;
/// SIGKILL at random moments while a client types: every acknowledged draft comes back.
mod crash_loop;
/// The claude, codex, opencode and mcp dialects through the binary.
mod dialects_e2e;
/// Shell completions and man pages.
mod docs;
/// `askd serve` end to end.
mod e2e_server;
/// The hub: `askd hub`, the discovery file, the hub client, the browser rule.
mod hub;
/// `askd hook claude` and `askd bridge opencode` as binaries: nothing to reach, nothing to do.
mod hub_clients;
/// Hostile peers of the WebSocket listener.
mod listener_faults;
/// `askd mcp` as an MCP host runs it, with a person answering through the hub.
mod mcp_server;
/// Crash safety: the state directory, recovered and resumed flows, files set aside.
mod persistence;
/// The generated protocol documents against the code and the binary.
mod pi09_reference;
/// Hostile requests: reply and queue bounds, framing, cancels, errors in words, restores.
mod robustness;
mod schema;
/// Hostile WebSocket peers: idle sockets, ping floods, protocol violations.
mod socket_faults;
/// The state directory's faults: FIFOs, torn lines, failed writes, long names.
mod state_faults;
/// `askd ask` in a real terminal (tmux): screens, results, the terminal restored.
mod terminal;
/// A tmux server of a test's own, for the terminal tests.
mod tmux;
/// The WebSocket listener and `askd web` over real WebSocket connections.
mod websocket;
/// The browser client's table of wide characters against the engine's widths.
mod wide_table;
