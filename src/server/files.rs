//! The file index of a session: the paths under its root directory, listed once off the
//! keystroke path and handed to the flow whole for `@` completion.
//!
//! The walk honours `.gitignore` files (also outside a git repository, and those of the root's
//! parent directories), `.ignore` files and the global git excludes; it skips hidden files and
//! directories, never follows a symbolic link and lists none (so nothing outside the root is
//! ever listed), skips what it cannot read, and stops at a number of entries, a depth and a
//! time budget.

use std::path::{Component, Path};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ignore::WalkBuilder;
use tokio::sync::oneshot;

use crate::core::{FileIndex, IndexEntry};

/// Bounds of one walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkLimits {
    /// Most entries looked at (listed or not).
    pub max_entries: usize,
    /// Deepest level listed (1: the root's children).
    pub max_depth: usize,
    /// Longest time the walk may take; what was found by then is kept.
    pub budget: Duration,
}

impl Default for WalkLimits {
    fn default() -> Self {
        WalkLimits {
            max_entries: 20_000,
            max_depth: 16,
            budget: Duration::from_secs(1),
        }
    }
}

/// Lists the files and directories under `root` within `limits`. A root that cannot be read
/// gives an empty index.
pub fn walk(root: &Path, limits: &WalkLimits) -> FileIndex {
    let started = Instant::now();
    let walker = WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .follow_links(false)
        .max_depth(Some(limits.max_depth))
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    let mut entries = Vec::new();
    for (scanned, result) in walker.enumerate() {
        if scanned >= limits.max_entries || started.elapsed() > limits.budget {
            break;
        }
        // An unreadable directory or ignore file is skipped, not an error.
        let Ok(entry) = result else {
            continue;
        };
        if entry.depth() == 0 || entry.path_is_symlink() {
            continue;
        }
        let Some(file_type) = entry.file_type() else {
            continue;
        };
        if !file_type.is_dir() && !file_type.is_file() {
            continue;
        }
        let Some(path) = entry.path().strip_prefix(root).ok().and_then(slash_path) else {
            continue;
        };
        entries.push(IndexEntry {
            path,
            is_dir: file_type.is_dir(),
        });
    }
    FileIndex::new(entries)
}

/// A relative path as `/`-separated UTF-8 text; `None` for anything else, and for names
/// holding control characters (an editor would drop them).
fn slash_path(path: &Path) -> Option<String> {
    let mut out = String::new();
    for component in path.components() {
        let Component::Normal(name) = component else {
            return None;
        };
        let name = name.to_str()?;
        if name.chars().any(char::is_control) {
            return None;
        }
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(name);
    }
    (!out.is_empty()).then_some(out)
}

/// Starts listing `root` on a blocking thread; the receiver yields the index once it is ready.
pub fn spawn_walk(root: &Path) -> oneshot::Receiver<Arc<FileIndex>> {
    let (tx, rx) = oneshot::channel();
    let root = root.to_owned();
    let job = move || {
        let _ = tx.send(Arc::new(walk(&root, &WalkLimits::default())));
    };
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            runtime.spawn_blocking(job);
        }
        Err(_) => {
            std::thread::spawn(job);
        }
    }
    rx
}
