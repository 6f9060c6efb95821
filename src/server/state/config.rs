//! The server-wide settings, and the clock behind every deadline.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::core::Limits;
use crate::session::snapshot;

/// The latest deadline a flow takes, in milliseconds since the Unix epoch: 2^53 − 1, so that
/// JavaScript clients read every deadline exactly. Later ones are brought down to it.
pub const MAX_DEADLINE: u64 = (1 << 53) - 1;

/// The time now, in milliseconds since the Unix epoch (0 before it): the clock behind every
/// deadline.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Server-wide settings, from the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Largest accepted message, in bytes (a `restore` may be larger: see
    /// [`Config::max_restore_message_bytes`]).
    pub max_message_bytes: usize,
    /// Most sessions held at once (completed ones are evicted oldest-first beyond it), and most
    /// recovered flows offered at once.
    pub max_sessions: usize,
    /// Largest reply, in bytes: a request whose reply would be larger fails and changes
    /// nothing. A batch's replies share it.
    pub max_reply_bytes: usize,
    /// Most bytes of replies waiting for the client to read them; past it, input is not read.
    pub max_pending_bytes: usize,
    /// Per-flow bounds.
    pub limits: Limits,
    /// Where open sessions are written (`None`: nowhere).
    pub state_dir: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_message_bytes: 1024 * 1024,
            max_sessions: 1024,
            max_reply_bytes: 16 * 1024 * 1024,
            max_pending_bytes: 4 * 1024 * 1024,
            limits: Limits::default(),
            state_dir: None,
        }
    }
}

impl Config {
    /// The largest `restore` message: a message of the usual size plus the largest snapshot
    /// a session can have under the limits, so that every snapshot restores.
    pub fn max_restore_message_bytes(&self) -> usize {
        self.max_message_bytes
            .saturating_add(snapshot::max_bytes(&self.limits, self.max_message_bytes))
    }
}
