//! `@` file completion in editors: matching paths of a file index against the word at the
//! cursor, and the state of the completion list. Pure: the index is built elsewhere (the
//! protocol shell walks the session's root directory) and handed in whole.
//!
//! While the word at the cursor (the text since the last whitespace before it) starts with
//! `@`, what follows the `@` is the query. The part of the query before its last `/` names a
//! directory exactly (none: the root); the part after it matches that directory's direct
//! children, case-insensitively, by prefix (best) or else as a subsequence. Directories come
//! first, then files; within each, prefix matches before subsequence matches, fewer skipped
//! characters first, then by name. At most [`MAX_ITEMS`] entries are offered. A query that
//! starts with `/` or contains `..` offers nothing.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

/// Most entries a completion list offers.
pub const MAX_ITEMS: usize = 8;

/// Bytes after `@` from which a word is no longer completed (no path is that long).
pub const MAX_QUERY_BYTES: usize = 1024;

/// One path of a file index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    /// The path relative to the root, components separated by `/`, no trailing `/`.
    pub path: String,
    /// The path is a directory.
    pub is_dir: bool,
}

/// A direct child of a directory of the index.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Child {
    name: String,
    is_dir: bool,
}

/// An immutable set of paths under a root, grouped by directory for fast lookups.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct FileIndex {
    /// Directory path (`""` for the root) → its children.
    children: HashMap<String, Vec<Child>>,
    len: usize,
}

impl fmt::Debug for FileIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileIndex").field("len", &self.len).finish()
    }
}

/// Whether `path` is a relative `/`-separated path without empty, `.` or `..` components.
fn is_clean_relative(path: &str) -> bool {
    !path.is_empty()
        && path
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

impl FileIndex {
    /// Builds an index from entries; entries that are not clean relative paths (empty, absolute,
    /// with `.` or `..` components or a trailing `/`) and repeated paths are left out.
    pub fn new(entries: impl IntoIterator<Item = IndexEntry>) -> FileIndex {
        let mut children: HashMap<String, Vec<Child>> = HashMap::new();
        let mut len = 0;
        for entry in entries {
            if !is_clean_relative(&entry.path) {
                continue;
            }
            let (dir, name) = entry.path.rsplit_once('/').unwrap_or(("", &entry.path));
            let siblings = children.entry(dir.to_owned()).or_default();
            if siblings.iter().any(|c| c.name == name) {
                continue;
            }
            siblings.push(Child {
                name: name.to_owned(),
                is_dir: entry.is_dir,
            });
            len += 1;
        }
        FileIndex { children, len }
    }

    /// How many paths the index holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the index holds no path.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every path of the index, sorted by path.
    pub fn entries(&self) -> Vec<IndexEntry> {
        let mut all: Vec<IndexEntry> = self
            .children
            .iter()
            .flat_map(|(dir, children)| {
                children.iter().map(move |child| IndexEntry {
                    path: join(dir, &child.name),
                    is_dir: child.is_dir,
                })
            })
            .collect();
        all.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        all
    }

    /// The entries offered for `query` (the text after `@`), best first, at most `limit`.
    pub fn lookup(&self, query: &str, limit: usize) -> Vec<IndexEntry> {
        if query.starts_with('/') || query.contains("..") {
            return Vec::new();
        }
        let (dir, pattern) = query.rsplit_once('/').unwrap_or(("", query));
        let Some(children) = self.children.get(dir) else {
            return Vec::new();
        };
        let pattern: Vec<char> = pattern.chars().flat_map(char::to_lowercase).collect();
        let mut ranked: Vec<(Rank, &Child)> = children
            .iter()
            .filter_map(|child| {
                let lower: String = child.name.chars().flat_map(char::to_lowercase).collect();
                let (tier, skipped) = rank(&lower, &pattern)?;
                Some(((!child.is_dir, tier, skipped, lower), child))
            })
            .collect();
        ranked.sort_unstable_by(|(a, ca), (b, cb)| a.cmp(b).then_with(|| ca.name.cmp(&cb.name)));
        ranked
            .into_iter()
            .take(limit)
            .map(|(_, child)| IndexEntry {
                path: join(dir, &child.name),
                is_dir: child.is_dir,
            })
            .collect()
    }
}

/// The path of `name` inside directory `dir` (`""`: the root).
fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// The sort key of a matching child: files after directories, the match tier, the characters
/// skipped, and the lower-cased name.
type Rank = (bool, u8, usize, String);

/// How well a lower-cased name matches a lower-cased pattern: `(0, 0)` for a prefix match,
/// `(1, skipped)` for a subsequence match that skips `skipped` characters (matching each
/// pattern character at its first occurrence), `None` otherwise.
fn rank(name: &str, pattern: &[char]) -> Option<(u8, usize)> {
    let mut name_chars = name.chars();
    if pattern.iter().all(|&p| name_chars.next() == Some(p)) {
        return Some((0, 0));
    }
    let mut skipped = 0;
    let mut rest = name.chars();
    for &p in pattern {
        loop {
            let c = rest.next()?;
            if c == p {
                break;
            }
            skipped += 1;
        }
    }
    Some((1, skipped))
}

/// The `@` word ending at `cursor` (a char boundary of `text`): its start and the query after
/// the `@`.
pub fn at_word(text: &str, cursor: usize) -> Option<(usize, &str)> {
    let before = &text[..cursor];
    // Only the last `MAX_QUERY_BYTES` bytes are looked at, so a huge word costs nothing.
    let mut window = cursor.saturating_sub(MAX_QUERY_BYTES + 1);
    while !before.is_char_boundary(window) {
        window += 1;
    }
    let start = match before[window..].rfind(char::is_whitespace) {
        Some(i) => {
            let at = window + i;
            at + before[at..].chars().next().map_or(1, char::len_utf8)
        }
        None if window == 0 => 0,
        None => return None,
    };
    before[start..]
        .strip_prefix('@')
        .map(|query| (start, query))
}

/// The completion list of an editor: the entries offered for the `@` word at the cursor, the
/// highlighted one, and whether the user closed the list for that word.
///
/// The list follows the word: it is recomputed by [`Completion::update`] after every change of
/// the text, the cursor or the index. While the word stays the same the highlight and a
/// closed list are kept; a new word starts with the first entry highlighted and the list
/// open. Moving the highlight wraps around at both ends.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Completion {
    /// Start and text of the `@` word the state belongs to (`None`: no `@` word).
    word: Option<(usize, String)>,
    /// The entries offered, best first.
    items: Vec<IndexEntry>,
    /// Index into `items` of the highlighted entry.
    selected: usize,
    /// Closed by the user for this word.
    dismissed: bool,
}

/// An open completion list, as the view shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompletionList<'a> {
    /// The entries offered, best first.
    pub items: &'a [IndexEntry],
    /// Index into `items` of the highlighted entry.
    pub selected: usize,
    /// What follows the `@`.
    pub query: &'a str,
}

impl Completion {
    /// Recomputes the list for the word at `cursor` in `text`.
    pub fn update(&mut self, index: Option<&FileIndex>, text: &str, cursor: usize) {
        let word = at_word(text, cursor);
        let same = match (&self.word, word) {
            (Some((start, old)), Some((at, query))) => {
                *start == at && old.len() == query.len() + 1 && old[1..] == *query
            }
            (None, None) => true,
            _ => false,
        };
        if !same {
            self.word = word.map(|(at, query)| (at, format!("@{query}")));
            self.selected = 0;
            self.dismissed = false;
        }
        self.items = match (word, index) {
            (Some((_, query)), Some(index)) => index.lookup(query, MAX_ITEMS),
            _ => Vec::new(),
        };
        self.selected = self.selected.min(self.items.len().saturating_sub(1));
    }

    /// Whether the list is shown: there is something to offer and the user has not closed it.
    pub fn is_open(&self) -> bool {
        !self.dismissed && !self.items.is_empty()
    }

    /// The open list, if it is open.
    pub fn list(&self) -> Option<CompletionList<'_>> {
        let (_, word) = self.word.as_ref().filter(|_| self.is_open())?;
        Some(CompletionList {
            items: &self.items,
            selected: self.selected,
            query: &word[1..],
        })
    }

    /// Moves the highlight one entry down (or up), wrapping around.
    pub fn move_selection(&mut self, down: bool) {
        let n = self.items.len();
        if n == 0 {
            return;
        }
        self.selected = if down {
            (self.selected + 1) % n
        } else {
            (self.selected + n - 1) % n
        };
    }

    /// Highlights entry `index` (0-based), when there is one.
    pub fn select(&mut self, index: usize) {
        if index < self.items.len() {
            self.selected = index;
        }
    }

    /// Closes the list until the word at the cursor changes.
    pub fn dismiss(&mut self) {
        self.dismissed = true;
    }

    /// The edit that accepts the highlighted entry, while the list is open: the byte range of
    /// the `@` word and its replacement, `@path/` for a directory (the list then lists that
    /// directory) and `@path ` for a file (the trailing space ends the completion).
    pub fn accepted(&self) -> Option<(Range<usize>, String)> {
        let (start, word) = self.word.as_ref().filter(|_| self.is_open())?;
        let entry = self.items.get(self.selected)?;
        let end = if entry.is_dir { '/' } else { ' ' };
        Some((*start..start + word.len(), format!("@{}{end}", entry.path)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, is_dir: bool) -> IndexEntry {
        IndexEntry {
            path: path.to_owned(),
            is_dir,
        }
    }

    fn index() -> FileIndex {
        FileIndex::new([
            entry("src", true),
            entry("src/main.rs", false),
            entry("src/server", true),
            entry("src/server/mod.rs", false),
            entry("Cargo.toml", false),
            entry("scripts", true),
            entry("README.md", false),
            entry("snapshots", true),
            entry("sr.txt", false),
        ])
    }

    fn paths(entries: &[IndexEntry]) -> Vec<String> {
        entries
            .iter()
            .map(|e| {
                if e.is_dir {
                    format!("{}/", e.path)
                } else {
                    e.path.clone()
                }
            })
            .collect()
    }

    #[test]
    fn new_drops_unclean_and_repeated_paths() {
        let index = FileIndex::new([
            entry("a", false),
            entry("a", true),
            entry("", false),
            entry("/abs", false),
            entry("x/../y", false),
            entry("./b", false),
            entry("c/", true),
            entry("d//e", false),
            entry("d/e", false),
        ]);
        assert_eq!(index.len(), 2);
        assert!(!index.is_empty());
        assert!(FileIndex::default().is_empty());
        assert_eq!(paths(&index.lookup("", 10)), ["a"]);
        assert_eq!(paths(&index.lookup("d/", 10)), ["d/e"]);
        assert_eq!(paths(&index.entries()), ["a", "d/e"]);
        assert_eq!(format!("{index:?}"), "FileIndex { len: 2 }");
    }

    #[test]
    fn lookup_orders_directories_then_prefix_then_subsequence() {
        let index = index();
        assert_eq!(
            paths(&index.lookup("", MAX_ITEMS)),
            [
                "scripts/",
                "snapshots/",
                "src/",
                "Cargo.toml",
                "README.md",
                "sr.txt"
            ]
        );
        // Prefix matches before subsequence matches, directories before files.
        assert_eq!(
            paths(&index.lookup("sr", MAX_ITEMS)),
            ["src/", "scripts/", "sr.txt"]
        );
        // Case-insensitive; fewer skipped characters first.
        assert_eq!(
            paths(&index.lookup("RM", MAX_ITEMS)),
            ["README.md", "Cargo.toml"]
        );
        assert_eq!(paths(&index.lookup("s", 2)), ["scripts/", "snapshots/"]);
        assert_eq!(
            paths(&index.lookup("src/", MAX_ITEMS)),
            ["src/server/", "src/main.rs"]
        );
        assert_eq!(paths(&index.lookup("src/m", MAX_ITEMS)), ["src/main.rs"]);
        assert_eq!(
            paths(&index.lookup("src/server/", MAX_ITEMS)),
            ["src/server/mod.rs"]
        );
        assert!(index.lookup("src/zz", MAX_ITEMS).is_empty());
        assert!(index.lookup("nowhere/", MAX_ITEMS).is_empty());
        assert!(index.lookup("sr/", MAX_ITEMS).is_empty());
        assert!(index.lookup("/src", MAX_ITEMS).is_empty());
        assert!(index.lookup("src/../", MAX_ITEMS).is_empty());
        assert!(index.lookup("..", MAX_ITEMS).is_empty());
    }

    #[test]
    fn rank_tiers() {
        let p = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(rank("main.rs", &p("")), Some((0, 0)));
        assert_eq!(rank("main.rs", &p("ma")), Some((0, 0)));
        assert_eq!(rank("main.rs", &p("mrs")), Some((1, 4)));
        assert_eq!(rank("main.rs", &p("ars")), Some((1, 4)));
        assert_eq!(rank("main.rs", &p("sr")), None);
        assert_eq!(rank("ab", &p("abc")), None);
    }

    #[test]
    fn a_word_longer_than_the_query_limit_offers_nothing() {
        let long = format!("see @{}", "a".repeat(MAX_QUERY_BYTES));
        assert_eq!(at_word(&long, long.len()), None);
        let fits = format!("see @{}", "a".repeat(MAX_QUERY_BYTES - 1));
        assert_eq!(at_word(&fits, fits.len()), Some((4, &fits[5..])));
        let wide = format!("@{}", "한".repeat(MAX_QUERY_BYTES));
        assert_eq!(at_word(&wide, wide.len()), None);
    }

    #[test]
    fn at_word_finds_the_word_before_the_cursor() {
        assert_eq!(at_word("@src", 4), Some((0, "src")));
        assert_eq!(at_word("see @src", 8), Some((4, "src")));
        assert_eq!(at_word("see @src", 6), Some((4, "s")));
        assert_eq!(at_word("a\n@x", 4), Some((2, "x")));
        assert_eq!(at_word("a\t@", 3), Some((2, "")));
        assert_eq!(at_word("mail@host", 9), None);
        assert_eq!(at_word("@src ", 5), None);
        assert_eq!(at_word("", 0), None);
        assert_eq!(at_word("é @ü", 6), Some((3, "ü")));
    }

    #[test]
    fn completion_state_follows_the_word() {
        let index = index();
        let mut c = Completion::default();
        c.update(Some(&index), "see @s", 6);
        let list = c.list().expect("open");
        assert_eq!(list.query, "s");
        assert_eq!(list.selected, 0);
        assert_eq!(
            paths(list.items),
            ["scripts/", "snapshots/", "src/", "sr.txt"]
        );

        c.move_selection(false);
        assert_eq!(c.list().map(|l| l.selected), Some(3));
        c.move_selection(true);
        assert_eq!(c.list().map(|l| l.selected), Some(0));
        c.move_selection(true);
        c.move_selection(true);
        assert_eq!(c.accepted(), Some((4..6, "@src/".to_owned())));

        // The same word keeps the highlight; a new word resets it.
        c.update(Some(&index), "see @s", 6);
        assert_eq!(c.list().map(|l| l.selected), Some(2));
        c.update(Some(&index), "see @sr", 7);
        assert_eq!(c.list().map(|l| l.selected), Some(0));
        assert_eq!(c.accepted(), Some((4..7, "@src/".to_owned())));
        c.move_selection(true);
        c.move_selection(true);
        assert_eq!(c.accepted(), Some((4..7, "@sr.txt ".to_owned())));

        // Closed until the word changes.
        c.dismiss();
        assert!(!c.is_open());
        assert_eq!(c.list(), None);
        assert_eq!(c.accepted(), None);
        c.update(Some(&index), "see @sr", 7);
        assert!(!c.is_open());
        c.update(Some(&index), "see @s", 6);
        assert!(c.is_open());

        // No index, no match, no `@` word: nothing to show.
        c.update(None, "see @s", 6);
        assert!(!c.is_open());
        c.update(Some(&index), "see @qq", 7);
        assert!(!c.is_open());
        c.update(Some(&index), "see s", 5);
        assert_eq!(c, Completion::default());
        c.move_selection(true);
        assert_eq!(c, Completion::default());
    }

    #[test]
    fn the_highlight_is_clamped_when_the_list_shrinks() {
        let mut c = Completion::default();
        c.update(Some(&index()), "@s", 2);
        c.move_selection(false);
        assert_eq!(c.list().map(|l| l.selected), Some(3));
        let smaller = FileIndex::new([entry("src", true)]);
        c.update(Some(&smaller), "@s", 2);
        assert_eq!(c.list().map(|l| l.selected), Some(0));
    }
}
