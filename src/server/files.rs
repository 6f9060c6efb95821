//! The file index of a session: the paths under its root directory, listed once off the
//! keystroke path and handed to the flow whole for `@` completion.
//!
//! The walk honours `.gitignore` files (also outside a git repository, and those of the root's
//! parent directories), `.ignore` files, `.git/info/exclude` and the global git excludes (the
//! innermost matching rule of each kind decides, `.ignore` before `.gitignore` before the
//! excludes); it skips hidden files and directories, never follows a symbolic link and lists
//! none (so nothing outside the root is ever listed), skips what it cannot read, and stops at a
//! number of entries, a depth and a time budget.
//!
//! It opens nothing but directories and regular files: an ignore file is read only once it is
//! known to be a regular file (a FIFO, a device or a socket of that name is passed over), so no
//! open can block the walk. The walk runs on a thread of its own that nothing waits for, so
//! even a file system that hangs cannot hold up the end of the process.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use tokio::sync::oneshot;

use crate::core::{FileIndex, IndexEntry};

/// Bounds of one walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkLimits {
    /// Most entries looked at (listed or not; the root counts as one).
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

/// Longest ignore file read; the rest of a longer one is not.
const MAX_IGNORE_FILE_BYTES: u64 = 1024 * 1024;

/// The ignore rules one directory brings: its `.ignore`, its `.gitignore`, and the excludes
/// of the repository it is the root of.
struct Rules {
    ignore: Gitignore,
    git_ignore: Gitignore,
    exclude: Gitignore,
}

impl Rules {
    /// The rules of directory `dir`, read from its regular files only.
    fn of(dir: &Path) -> Rules {
        let exclude = match fs::symlink_metadata(dir.join(".git")) {
            Ok(meta) if meta.is_dir() => matcher(dir, &[dir.join(".git/info/exclude")]),
            Ok(meta) if meta.is_file() => {
                matcher(dir, &worktree_exclude(dir).into_iter().collect::<Vec<_>>())
            }
            _ => Gitignore::empty(),
        };
        Rules {
            ignore: matcher(dir, &[dir.join(".ignore")]),
            git_ignore: matcher(dir, &[dir.join(".gitignore")]),
            exclude,
        }
    }
}

/// The excludes file of the repository a worktree's `.git` file points to.
fn worktree_exclude(dir: &Path) -> Option<PathBuf> {
    let text = read_regular(&dir.join(".git"))?;
    let git_dir = dir.join(text.lines().next()?.strip_prefix("gitdir:")?.trim());
    let common = match read_regular(&git_dir.join("commondir")) {
        Some(common) => git_dir.join(common.trim()),
        None => git_dir,
    };
    Some(common.join("info/exclude"))
}

/// The text of `path` when it is a regular file (after symbolic links), at most
/// [`MAX_IGNORE_FILE_BYTES`] of it; `None` for anything else.
fn read_regular(path: &Path) -> Option<String> {
    // Checked before opening, so that opening never waits (as it does on a FIFO), and again
    // on what was opened.
    if !fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let file = File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_IGNORE_FILE_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The rules of the ignore files `paths` (those that are regular files), relative to `dir`.
fn matcher(dir: &Path, paths: &[PathBuf]) -> Gitignore {
    let mut builder = GitignoreBuilder::new(dir);
    for path in paths {
        let Some(text) = read_regular(path) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            let line = if i == 0 {
                line.strip_prefix('\u{feff}').unwrap_or(line)
            } else {
                line
            };
            // A line that is not a valid glob is skipped, as git skips it.
            let _ = builder.add_line(Some(path.clone()), line);
        }
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// One walk under way.
struct Walk<'a> {
    limits: &'a WalkLimits,
    started: Instant,
    /// Entries looked at so far (the root included).
    scanned: usize,
    /// The rules of the root's parents and of every directory from the root down to the one
    /// being listed, outermost first.
    levels: Vec<Rules>,
    global: Gitignore,
    root: PathBuf,
    entries: Vec<IndexEntry>,
}

impl Walk<'_> {
    /// Whether the walk must stop: the entry or time budget is spent.
    fn spent(&self) -> bool {
        self.scanned >= self.limits.max_entries || self.started.elapsed() > self.limits.budget
    }

    /// Whether `path` is ignored: the innermost matching rule of each kind decides, `.ignore`
    /// before `.gitignore` before the excludes, then the global excludes; a hidden name that
    /// no rule lets in is ignored too.
    fn ignored(&self, path: &Path, name: &OsString, is_dir: bool) -> bool {
        let innermost = |kind: fn(&Rules) -> &Gitignore| {
            self.levels
                .iter()
                .rev()
                .map(|rules| kind(rules).matched(path, is_dir))
                .find(|m| !m.is_none())
                .unwrap_or(Match::None)
        };
        let found = [
            innermost(|r| &r.ignore),
            innermost(|r| &r.git_ignore),
            innermost(|r| &r.exclude),
            self.global.matched(path, is_dir),
        ]
        .into_iter()
        .find(|m| !m.is_none())
        .unwrap_or(Match::None);
        match found {
            Match::Ignore(_) => true,
            Match::Whitelist(_) => false,
            Match::None => name.as_encoded_bytes().first() == Some(&b'.'),
        }
    }

    /// Lists directory `dir` (at `depth`, 0 for the root) and what is below it, in name order.
    fn visit(&mut self, dir: &Path, depth: usize) {
        let Ok(read) = fs::read_dir(dir) else {
            return;
        };
        let mut children = Vec::new();
        for entry in read.flatten() {
            // Names are sorted, so a directory is read whole, within the time budget.
            if self.started.elapsed() > self.limits.budget {
                return;
            }
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            children.push((entry.file_name(), file_type));
        }
        children.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, file_type) in children {
            if self.spent() {
                return;
            }
            let path = dir.join(&name);
            // The type comes from the directory listing: nothing is opened to learn it, and a
            // symbolic link is never followed.
            let is_dir = file_type.is_dir();
            if self.ignored(&path, &name, is_dir) {
                continue;
            }
            self.scanned += 1;
            if !is_dir && !file_type.is_file() {
                continue;
            }
            let Some(relative) = path.strip_prefix(&self.root).ok().and_then(slash_path) else {
                continue;
            };
            self.entries.push(IndexEntry {
                path: relative,
                is_dir,
            });
            if is_dir && depth + 1 < self.limits.max_depth {
                self.levels.push(Rules::of(&path));
                self.visit(&path, depth + 1);
                self.levels.pop();
            }
        }
    }
}

/// Lists the files and directories under `root` within `limits`. A root that cannot be read
/// gives an empty index.
pub fn walk(root: &Path, limits: &WalkLimits) -> FileIndex {
    let started = Instant::now();
    let Ok(root) = root.canonicalize() else {
        return FileIndex::new(Vec::new());
    };
    if !root.is_dir() {
        return FileIndex::new(Vec::new());
    }
    // The rules of the root's parents, outermost first, then the root's own.
    let mut levels: Vec<Rules> = root.ancestors().skip(1).map(Rules::of).collect();
    levels.reverse();
    levels.push(Rules::of(&root));
    let mut walk = Walk {
        limits,
        started,
        scanned: 1,
        levels,
        global: global_excludes(),
        root: root.clone(),
        entries: Vec::new(),
    };
    if limits.max_depth > 0 && !walk.spent() {
        walk.visit(&root, 0);
    }
    FileIndex::new(walk.entries)
}

/// The global git excludes: `core.excludesFile` of `~/.gitconfig`, else
/// `$XDG_CONFIG_HOME/git/ignore` (`~/.config/git/ignore`); read, like every ignore file, only
/// when it is a regular file.
fn global_excludes() -> Gitignore {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let configured = home
        .as_ref()
        .and_then(|home| read_regular(&home.join(".gitconfig")))
        .and_then(|config| excludes_file(&config))
        .map(|path| match (path.strip_prefix("~/"), &home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => PathBuf::from(path),
        });
    let default = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home.as_ref().map(|home| home.join(".config")))
        .map(|config| config.join("git/ignore"));
    match configured.or(default) {
        Some(path) => matcher(Path::new("/"), &[path]),
        None => Gitignore::empty(),
    }
}

/// The value of `core.excludesFile` in the text of a git config file.
fn excludes_file(config: &str) -> Option<String> {
    let mut in_core = false;
    let mut found = None;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_core = line
                .trim_start_matches('[')
                .trim_end_matches(']')
                .trim()
                .eq_ignore_ascii_case("core");
        } else if in_core
            && let Some((key, value)) = line.split_once('=')
            && key.trim().eq_ignore_ascii_case("excludesfile")
        {
            found = Some(value.trim().trim_matches('"').to_owned());
        }
    }
    found
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

/// Starts listing `root` on a thread of its own, which nothing waits for (the process may end
/// while it runs); the receiver yields the index once it is ready.
pub fn spawn_walk(root: &Path) -> oneshot::Receiver<Arc<FileIndex>> {
    let (tx, rx) = oneshot::channel();
    let shown = root.display().to_string();
    let root = root.to_owned();
    let job = move || {
        let _ = tx.send(Arc::new(walk(&root, &WalkLimits::default())));
    };
    if let Err(e) = std::thread::Builder::new()
        .name("askd-walk".into())
        .spawn(job)
    {
        tracing::warn!("cannot start listing {shown} ({e}); its editors offer no completion");
    }
    rx
}
