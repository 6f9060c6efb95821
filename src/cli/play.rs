//! Scripted flows: a payload driven through a key script, screen by screen, for docs, bug
//! reports and snapshot tests (`askd play`), and the built-in example flow (`askd demo`).
//!
//! A run opens the payload, then presses the keys one at a time. It records a frame when the
//! flow opens and after each key, except that characters typed into an open editor make one
//! frame together (`typed "..."`), taken after the last of them. Each frame holds the screen
//! and the Step a client would have received: `{ session, status, view, result?, transcript? }`.

use serde_json::{Value, json};

use crate::core::{Focus, Key, KeyCode, KeyError, parse_sequence};
use crate::dialect::pi::EXAMPLE;
use crate::session::{OpenOptions, Session};
use crate::view;

/// The session id of a scripted run.
pub const SESSION_ID: &str = "play";

/// The width screens render at unless another is given.
pub const DEFAULT_WIDTH: usize = 80;

/// The key script of the built-in example flow: a note on an option, a selection, two
/// toggles, a custom answer typed in the editor, a preview choice, and submit.
pub const DEMO_KEYS: &str =
    "<Down>nOnly if the docs are ready<CR><CR><Space>34Fuzz the key parser<CR><Down><CR><CR>";

/// How a run is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Each screen as plain text under a `── label ──` line, then the result as pretty JSON.
    #[default]
    Text,
    /// Each frame's Step as one line of JSON (the last one carries the result once done).
    Json,
}

/// Why a run could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// The payload file could not be read.
    #[error("cannot read {path}: {message}")]
    Read {
        /// The path given (`-` for stdin).
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The payload is not JSON.
    #[error("the payload is not valid JSON: {0}")]
    Json(String),
    /// The key script names an unknown key.
    #[error("bad key script: {0}")]
    Key(#[from] KeyError),
    /// The payload could not be opened (a dsh request rejected with its code).
    #[error("cannot open the payload: {0}")]
    Open(String),
    /// A key comes after the flow has completed.
    #[error("key {index} ({key}) comes after the flow has completed")]
    Completed {
        /// 1-based position of the key in the script.
        index: usize,
        /// The key's canonical name.
        key: String,
    },
}

/// One recorded screen.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// What led to it: `open`, `after <key>` or `typed "<text>"`.
    pub label: String,
    /// The screen as plain text, one line per rendered line.
    pub screen: String,
    /// The Step a client would have received.
    pub step: Value,
}

/// A finished run: its frames and the final result (`None` while the flow is still open).
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The frames, in order.
    pub frames: Vec<Frame>,
    /// The result, once the flow is done.
    pub result: Option<Value>,
}

/// Reads a payload file, or stdin for `-`.
pub fn read_payload(path: &str) -> Result<String, PlayError> {
    let read = if path == "-" {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(path)
    };
    read.map_err(|e| PlayError::Read {
        path: path.to_owned(),
        message: e.to_string(),
    })
}

/// Runs `payload` (JSON text) through `keys` (Vim notation) at `width` columns.
pub fn run(payload: &str, keys: &str, width: usize) -> Result<Run, PlayError> {
    let payload: Value =
        serde_json::from_str(payload).map_err(|e| PlayError::Json(e.to_string()))?;
    let keys = parse_sequence(keys)?;
    let mut session = Session::open(&payload, &OpenOptions::default()).map_err(|e| {
        // The dialect's own code when it names one (`EMPTY_QUESTIONS`), else the JSON-RPC code.
        let code = e
            .data
            .as_ref()
            .and_then(|data| data.get("code"))
            .and_then(Value::as_str)
            .map_or_else(|| e.code.to_string(), str::to_owned);
        PlayError::Open(format!("{code}: {}", e.message))
    })?;
    let mut frames = vec![frame("open".to_owned(), &session, width)];
    let mut typed = String::new();
    for (i, &key) in keys.iter().enumerate() {
        let typing = typed_char(&session, key);
        // A key press fails only once the flow has completed.
        let columns = view::editor_columns(&session, Some(width));
        session
            .press_wrapped(key, columns)
            .map_err(|_| PlayError::Completed {
                index: i + 1,
                key: key.to_string(),
            })?;
        match typing {
            Some(c) => {
                typed.push(c);
                let next_typed = keys.get(i + 1).and_then(|&k| typed_char(&session, k));
                if next_typed.is_none() {
                    let label = format!("typed {}", serde_json::Value::from(typed.as_str()));
                    frames.push(frame(label, &session, width));
                    typed.clear();
                }
            }
            None => frames.push(frame(format!("after {key}"), &session, width)),
        }
    }
    Ok(Run {
        frames,
        result: session.result(),
    })
}

/// The character `key` types, if it is a plain character pressed while an editor is open.
fn typed_char(session: &Session, key: Key) -> Option<char> {
    let editing = session
        .flow()
        .filter(|f| f.outcome().is_none())
        .is_some_and(|f| matches!(f.focus(), Focus::Input | Focus::Note));
    match key.code {
        KeyCode::Char(c) if editing && !key.mods.ctrl && !key.mods.alt => Some(c),
        _ => None,
    }
}

/// Records the current screen and Step.
fn frame(label: String, session: &Session, width: usize) -> Frame {
    let view = view::build_with_width(SESSION_ID, session, Some(width));
    let screen = view::plain(view.lines.iter().flatten());
    let mut step = json!({
        "session": SESSION_ID,
        "status": session.status(),
        "view": view,
    });
    if let Some(result) = session.result() {
        step["result"] = result;
    }
    if let Some(transcript) = session.transcript() {
        step["transcript"] = serde_json::to_value(transcript).unwrap_or(Value::Null);
    }
    Frame {
        label,
        screen,
        step,
    }
}

/// Prints a run in `format`.
pub fn format_run(run: &Run, format: Format) -> String {
    let mut out = String::new();
    match format {
        Format::Text => {
            for frame in &run.frames {
                out.push_str(&format!("── {} ──\n", frame.label));
                out.push_str(&frame.screen);
            }
            out.push_str("── result ──\n");
            let result = run.result.as_ref().unwrap_or(&Value::Null);
            out.push_str(&serde_json::to_string_pretty(result).unwrap_or_default());
            out.push('\n');
        }
        Format::Json => {
            for frame in &run.frames {
                out.push_str(&frame.step.to_string());
                out.push('\n');
            }
        }
    }
    out
}

/// Runs and prints a payload (JSON text) through a key script.
pub fn play(payload: &str, keys: &str, width: usize, format: Format) -> Result<String, PlayError> {
    run(payload, keys, width).map(|run| format_run(&run, format))
}

/// Runs and prints the built-in example flow.
pub fn demo(width: usize, format: Format) -> Result<String, PlayError> {
    play(EXAMPLE, DEMO_KEYS, width, format)
}
