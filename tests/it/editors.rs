//! Editors worth typing in: every editing key, multi-line text, paste normalisation, the
//! cursor in the view, wrapped editor boxes, and `@` file completion (matching and ordering
//! on a real directory tree, the keys of the list, its view and its rendering, and the whole
//! path through the binary).

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};
use tempfile::TempDir;
use unicode_width::UnicodeWidthStr;

use crate::common::{flow, open, paste, press, press_key, restore, save, type_text};
use askd::core::Focus;
use askd::core::{FileIndex, IndexEntry, MAX_ITEMS};
use askd::server::files::{WalkLimits, walk};
use askd::session::Session;
use askd::view;
use askd::view::{Line, Style};

// ---------------------------------------------------------------------------------------------
// Fixtures

/// Two questions; the first has two options, so its custom row is row 3.
fn payload() -> Value {
    json!({
        "title": "Files",
        "questions": [
            {
                "id": "scope",
                "label": "Scope",
                "prompt": "Which files matter?",
                "options": [
                    { "value": "all", "label": "All of them" },
                    { "value": "some", "label": "Some" }
                ]
            },
            {
                "id": "why",
                "label": "Why",
                "prompt": "Why?",
                "options": [{ "value": "a", "label": "Because" }]
            }
        ]
    })
}

/// The custom-answer editor of the first question, empty.
fn custom_editor() -> Session {
    let mut s = open(&payload());
    press(&mut s, "3");
    assert_eq!(flow(&s).focus(), Focus::Input);
    s
}

/// The open editor's text and cursor (a byte offset).
fn text_cursor(s: &Session) -> (String, usize) {
    let editor = flow(s).editor().expect("an editor is open");
    (editor.text.text().to_owned(), editor.text.cursor())
}

fn tc(text: &str, cursor: usize) -> (String, usize) {
    (text.to_owned(), cursor)
}

/// The view's editor as JSON.
fn editor_json(s: &Session) -> Value {
    serde_json::to_value(view::build("s", s).editor).expect("serialisable")
}

/// The view's completion list as JSON (`null` when none is open).
fn completion(s: &Session) -> Value {
    editor_json(s)["completion"].clone()
}

fn item(path: &str, is_dir: bool) -> Value {
    json!({ "path": path, "isDir": is_dir })
}

fn list(items: &[(&str, bool)], selected: usize, query: &str) -> Value {
    json!({
        "items": items.iter().map(|&(p, d)| item(p, d)).collect::<Vec<_>>(),
        "selected": selected,
        "query": query,
    })
}

fn entry(path: &str, is_dir: bool) -> IndexEntry {
    IndexEntry {
        path: path.to_owned(),
        is_dir,
    }
}

/// A directory tree for completion, with a directory outside it that a symlink points to.
///
/// ```text
/// root/
///   .gitignore        target/ and *.log
///   .env  .hidden/inside.txt  src/.secret      hidden
///   Cargo.toml  README.md  sr-notes.md
///   debug.log  target/out.txt                  ignored
///   docs/guide.md                              docs/ is chmod 000
///   scripts/build.sh
///   src/lib.rs  src/main.rs  src/server/files.rs  src/server/mod.rs
///   link -> outside/   link.txt -> outside/outside.txt
/// outside/
///   outside.txt  escape/deep.txt
/// ```
struct Tree {
    root: TempDir,
    _outside: TempDir,
    /// Whether this process can still list `docs/` after `chmod 000` (it can as root).
    docs_readable: bool,
}

impl Tree {
    fn new() -> Tree {
        let root = tempfile::tempdir().expect("a temporary directory");
        let outside = tempfile::tempdir().expect("a temporary directory");
        let write = |base: &Path, path: &str| {
            let path = base.join(path);
            fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            fs::write(&path, "x").expect("write");
        };
        write(outside.path(), "outside.txt");
        write(outside.path(), "escape/deep.txt");
        let r = root.path();
        fs::write(r.join(".gitignore"), "target/\n*.log\n").expect("write");
        for path in [
            ".env",
            ".hidden/inside.txt",
            "src/.secret",
            "Cargo.toml",
            "README.md",
            "sr-notes.md",
            "debug.log",
            "target/out.txt",
            "docs/guide.md",
            "scripts/build.sh",
            "src/lib.rs",
            "src/main.rs",
            "src/server/files.rs",
            "src/server/mod.rs",
        ] {
            write(r, path);
        }
        symlink(outside.path(), r.join("link")).expect("symlink");
        symlink(outside.path().join("outside.txt"), r.join("link.txt")).expect("symlink");
        let docs = r.join("docs");
        fs::set_permissions(&docs, fs::Permissions::from_mode(0o000)).expect("chmod");
        let docs_readable = fs::read_dir(&docs).is_ok();
        Tree {
            root,
            _outside: outside,
            docs_readable,
        }
    }

    fn path(&self) -> &Path {
        self.root.path()
    }

    fn index(&self) -> FileIndex {
        walk(self.path(), &WalkLimits::default())
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        // Let the temporary directory be removed.
        let _ = fs::set_permissions(
            self.root.path().join("docs"),
            fs::Permissions::from_mode(0o755),
        );
    }
}

/// The custom editor with the tree's index handed to the flow.
fn completing(tree: &Tree) -> Session {
    let mut s = custom_editor();
    s.flow_mut()
        .expect("a flow")
        .set_file_index(Arc::new(tree.index()));
    s
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

// ---------------------------------------------------------------------------------------------
// Editing keys

/// Two lines: "one two" at bytes 0..7, the line break at 7, "three four" at 8..18.
const TEXT: &str = "one two\nthree four";

/// Pastes [`TEXT`] into a custom editor (cursor at its end), presses `moves`, then `key`.
fn after(moves: &[&str], key: &str) -> (String, usize) {
    let mut s = custom_editor();
    paste(&mut s, TEXT);
    for m in moves {
        press_key(&mut s, m);
    }
    press_key(&mut s, key);
    assert_eq!(flow(&s).focus(), Focus::Input, "{moves:?} then {key}");
    text_cursor(&s)
}

#[test]
fn every_editing_key_edits_the_text() {
    // Cursor movement.
    assert_eq!(after(&[], "left"), tc(TEXT, 17));
    assert_eq!(after(&[], "right"), tc(TEXT, 18));
    assert_eq!(after(&["home"], "right"), tc(TEXT, 9));
    assert_eq!(after(&[], "home"), tc(TEXT, 8));
    assert_eq!(after(&[], "ctrl+a"), tc(TEXT, 8));
    assert_eq!(after(&["home"], "end"), tc(TEXT, 18));
    assert_eq!(after(&["home"], "ctrl+e"), tc(TEXT, 18));
    assert_eq!(after(&[], "alt+b"), tc(TEXT, 14));
    assert_eq!(after(&[], "ctrl+left"), tc(TEXT, 14));
    assert_eq!(after(&["home"], "alt+f"), tc(TEXT, 13));
    assert_eq!(after(&["home"], "ctrl+right"), tc(TEXT, 13));
    assert_eq!(after(&["home"], "left"), tc(TEXT, 7));
    assert_eq!(after(&["up", "end"], "right"), tc(TEXT, 8));
    // Deletion.
    assert_eq!(after(&[], "backspace"), tc("one two\nthree fou", 17));
    assert_eq!(after(&["left"], "delete"), tc("one two\nthree fou", 17));
    assert_eq!(after(&[], "ctrl+w"), tc("one two\nthree ", 14));
    assert_eq!(after(&[], "alt+backspace"), tc("one two\nthree ", 14));
    assert_eq!(after(&["alt+b"], "ctrl+u"), tc("one two\nfour", 8));
    assert_eq!(after(&["alt+b"], "ctrl+k"), tc("one two\nthree ", 14));
    assert_eq!(after(&["home"], "backspace"), tc("one twothree four", 7));
    assert_eq!(after(&["up", "end"], "delete"), tc("one twothree four", 7));
    // New lines.
    assert_eq!(
        after(&["alt+b"], "shift+enter"),
        tc("one two\nthree \nfour", 15)
    );
    assert_eq!(
        after(&["alt+b"], "alt+enter"),
        tc("one two\nthree \nfour", 15)
    );
    // Typing, at the cursor.
    assert_eq!(after(&["home"], "x"), tc("one two\nxthree four", 9));
    assert_eq!(after(&["home"], "space"), tc("one two\n three four", 9));
    assert_eq!(after(&["home"], "한"), tc("one two\n한three four", 11));
    // Tab keys stay in an editor that holds text and do nothing there.
    assert_eq!(after(&[], "tab"), tc(TEXT, 18));
    assert_eq!(after(&[], "shift+tab"), tc(TEXT, 18));
}

#[test]
fn up_and_down_move_between_lines_keeping_the_column() {
    // "abcdef" 0..6, "中文字z" 7..17, "xy" 18..20.
    let mut s = custom_editor();
    paste(&mut s, "abcdef\n中文字z\nxy");
    assert_eq!(text_cursor(&s).1, 20);
    press(&mut s, "<Up>");
    assert_eq!(text_cursor(&s).1, 10);
    press(&mut s, "<Up>");
    assert_eq!(text_cursor(&s).1, 2);
    // On the first line Up stays in the editor and goes to the start of the line.
    press(&mut s, "<Up>");
    assert_eq!(text_cursor(&s).1, 0);
    press(&mut s, "<Up>");
    assert_eq!(text_cursor(&s).1, 0);
    press(&mut s, "<Right><Right><Right><Right><Down>");
    assert_eq!(text_cursor(&s).1, 13);
    assert_eq!(
        editor_json(&s)["cursor"],
        json!({ "offset": 9, "byte": 13, "utf16": 9, "line": 1, "grapheme": 2, "column": 4 })
    );
    // Column 3 falls inside 文: the cursor goes to the boundary before it.
    press(&mut s, "<Up><Left><Down>");
    assert_eq!(text_cursor(&s).1, 10);
    press(&mut s, "<End><Down>");
    assert_eq!(text_cursor(&s).1, 20);
    // On the last line Down stays in the editor and goes to the end of the line.
    press(&mut s, "<Left><Left>");
    assert_eq!(text_cursor(&s).1, 18);
    press(&mut s, "<Down>");
    assert_eq!(text_cursor(&s).1, 20);
    press(&mut s, "<Down>");
    assert_eq!(text_cursor(&s).1, 20);
    assert_eq!(flow(&s).focus(), Focus::Input);
    assert_eq!(flow(&s).row(), 2);
}

#[test]
fn empty_editor_navigation_is_unchanged() {
    // An empty input editor: Up saves (nothing) and moves the row.
    let mut s = custom_editor();
    press(&mut s, "<Up>");
    assert_eq!((flow(&s).focus(), flow(&s).row()), (Focus::Options, 1));
    // An empty note editor: Down saves (nothing) and moves the row.
    let mut s = open(&payload());
    press(&mut s, "n<Down>");
    assert_eq!((flow(&s).focus(), flow(&s).row()), (Focus::Options, 1));
    assert_eq!(flow(&s).answers()[0].option_note(0), None);
    // One line of text: Up and Down stay in the editor and do nothing.
    let mut s = custom_editor();
    type_text(&mut s, "abc");
    press(&mut s, "<Up><Down>");
    assert_eq!(flow(&s).focus(), Focus::Input);
    assert_eq!(text_cursor(&s), tc("abc", 3));
}

#[test]
fn shift_enter_and_alt_enter_insert_newlines_while_enter_saves() {
    let mut s = custom_editor();
    type_text(&mut s, "a");
    press(&mut s, "<S-CR>");
    type_text(&mut s, "b");
    press(&mut s, "<M-CR>");
    type_text(&mut s, "c");
    assert_eq!(text_cursor(&s), tc("a\nb\nc", 5));
    press(&mut s, "<CR>");
    assert_eq!(
        flow(&s).answers()[0].custom_text.as_deref(),
        Some("a\nb\nc")
    );
    assert_eq!((flow(&s).tab(), flow(&s).focus()), (1, Focus::Options));

    // In a note editor too; Enter saves and closes without advancing.
    let mut s = open(&payload());
    press(&mut s, "nx<S-CR>y<CR>");
    assert_eq!(flow(&s).answers()[0].option_note(0), Some("x\ny"));
    assert_eq!((flow(&s).tab(), flow(&s).focus()), (0, Focus::Options));
}

#[test]
fn home_and_end_act_on_the_current_line() {
    let mut s = custom_editor();
    paste(&mut s, "first\nsecond\nthird");
    press(&mut s, "<Up><Left><Left><Home>");
    assert_eq!(text_cursor(&s).1, 6);
    press(&mut s, "<End>");
    assert_eq!(text_cursor(&s).1, 12);
}

#[test]
fn paste_keeps_newlines_normalises_crlf_and_drops_control_characters() {
    let mut s = custom_editor();
    paste(
        &mut s,
        "first\r\nsecond\rthird\u{1b}[1m\u{7}\tend\u{0}\u{7f}\u{85}",
    );
    assert_eq!(text_cursor(&s), tc("first\nsecond\nthird[1m\tend", 25));
    // The tab counts four columns, as the screen shows it.
    assert_eq!(
        editor_json(&s)["cursor"],
        json!({ "offset": 25, "byte": 25, "utf16": 25, "line": 2, "grapheme": 12, "column": 15 })
    );
    // A paste in the middle keeps the cursor after it.
    press(&mut s, "<Home>");
    paste(&mut s, "a\r\nb");
    assert_eq!(text_cursor(&s), tc("first\nsecond\na\nbthird[1m\tend", 16));
    // Saved as typed, newlines and the tab included.
    press(&mut s, "<CR>");
    assert_eq!(
        flow(&s).answers()[0].custom_text.as_deref(),
        Some("first\nsecond\na\nbthird[1m\tend")
    );
}

#[test]
fn the_view_reports_the_cursor_line_and_columns() {
    let mut s = custom_editor();
    paste(&mut s, "ab\n中文e\u{301}👍🏽x");
    press(&mut s, "<Left>");
    assert_eq!(
        editor_json(&s),
        json!({
            "target": { "kind": "custom", "questionId": "scope" },
            "text": "ab\n中文e\u{301}👍🏽x",
            "cursor": { "offset": 7, "byte": 20, "utf16": 11, "line": 1, "grapheme": 4, "column": 7 },
            "placeholder": "Type answer...",
            "completion": null
        })
    );
}

// ---------------------------------------------------------------------------------------------
// Rendered editors

fn lines(s: &Session, width: usize) -> Vec<Line> {
    view::build_with_width("s", s, Some(width))
        .lines
        .expect("a width gives lines")
}

/// The lines of the screen between the editor box's top and bottom borders, inclusive.
fn box_lines(s: &Session, width: usize) -> Vec<String> {
    let text = view::plain(&lines(s, width));
    let all: Vec<&str> = text.lines().collect();
    let top = all.iter().position(|l| l.contains('╭')).expect("a box");
    let bottom = all.iter().position(|l| l.contains('╰')).expect("a box");
    all[top..=bottom].iter().map(|l| (*l).to_owned()).collect()
}

#[test]
fn the_rendered_editor_wraps_long_lines() {
    let mut s = custom_editor();
    paste(
        &mut s,
        "a long answer that goes on well past the edge of the box\nsupercalifragilisticexpialidocious-and-more",
    );
    assert_eq!(
        box_lines(&s, 40),
        [
            "   ╭─ Your answer ────────────────────╮",
            "   │ a long answer that goes on well  │",
            "   │ past the edge of the box         │",
            "   │ supercalifragilisticexpialidoci  │",
            "   │ ous-and-more                     │",
            "   ╰──────────────────────────────────╯",
        ]
    );
    for width in 20..=100 {
        for line in lines(&s, width) {
            assert!(line.width() <= width.max(view::MIN_WIDTH));
        }
    }
}

/// Where the open editor's cursor is drawn at `width`: its visual line (counting the lines
/// scrolled above the box), its column inside the box, and how many visual lines the text has.
fn drawn_cursor(s: &Session, width: usize) -> (usize, usize, usize) {
    let lines = lines(s, width);
    let at = lines
        .iter()
        .position(|l| l.spans().any(|span| span.style == Style::Cursor))
        .expect("the cursor is drawn");
    let mut column = 0;
    let mut inside = None;
    for span in lines[at].spans() {
        if span.style == Style::Cursor {
            break;
        }
        if inside.is_none()
            && let Some(i) = span.text.find('│')
        {
            inside = Some(column + span.text[..i].width() + 2);
        }
        column += span.text.width();
    }
    let inside = inside.expect("the cursor is inside a box");
    let column = column - inside;
    // The box's corners are in its border's column (a preview box may stand beside it).
    let corner = |i: usize, c: char| from_column(lines[i].text(), inside - 2).starts_with(c);
    let top = (0..at)
        .rev()
        .find(|&i| corner(i, '╭'))
        .expect("the box's top");
    let bottom = (at..lines.len())
        .find(|&i| corner(i, '╰'))
        .expect("the box's bottom");
    let counts: Vec<usize> = from_column(lines[bottom].text(), inside - 2)
        .split('╯')
        .next()
        .expect("a border")
        .split(['↑', '↓'])
        .skip(1)
        .map(|part| {
            let digits: String = part
                .trim_start()
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().expect("a count")
        })
        .collect();
    let (above, below) = match counts[..] {
        [above, below, ..] => (above, below),
        _ => (0, 0),
    };
    let shown = bottom - top - 1;
    (above + at - top - 1, column, above + shown + below)
}

/// The rest of `line` from display column `column`.
fn from_column(line: &str, column: usize) -> &str {
    let mut at = 0;
    for (i, c) in line.char_indices() {
        if at >= column {
            return &line[i..];
        }
        at += c.to_string().width();
    }
    ""
}

#[test]
fn the_drawn_cursor_of_a_wrapped_line() {
    let mut s = custom_editor();
    // At 40 columns the box lays its text out in 31: "one two … nine " is the first line.
    paste(
        &mut s,
        "one two three four five six seven eight nine ten eleven",
    );
    assert_eq!(view::editor_columns(&s, Some(40)), 31);
    assert_eq!(drawn_cursor(&s, 40), (1, 27, 2));
    press_key(&mut s, "home");
    assert_eq!(drawn_cursor(&s, 40), (0, 0, 2));
    // Without a width, Up and Down follow the text's lines.
    assert_eq!(view::editor_columns(&s, None), usize::MAX);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]

    /// Up and Down move the drawn cursor one drawn line up or down, never to a column right of
    /// where it was; on the first drawn line Up goes to the text's start, on the last Down to
    /// its end. The custom answer's box, a question note's and an option note's beside a
    /// preview, at widths around the side-by-side threshold.
    #[test]
    fn up_and_down_follow_the_drawn_lines(
        text in "[a-z ]{0,6}[a-z 中\t\n]{1,70}",
        width in proptest::prop_oneof![20usize..40, 86usize..96, 96usize..140],
        place in 0usize..3,
        lefts in 0usize..40,
        moves in proptest::collection::vec(proptest::bool::ANY, 1..12),
    ) {
        let mut s = crate::common::open_main();
        match place {
            0 => press(&mut s, "3"),
            1 => press(&mut s, "N"),
            _ => press(&mut s, "<Tab><Tab>n"),
        }
        paste(&mut s, &text);
        for _ in 0..lefts {
            press_key(&mut s, "left");
        }
        for up in moves {
            let (line, column, count) = drawn_cursor(&s, width);
            let columns = view::editor_columns(&s, Some(width));
            let name = if up { "up" } else { "down" };
            s.press_wrapped(crate::common::key(name), columns).expect("the flow is open");
            let (text, cursor) = text_cursor(&s);
            let (moved_line, moved_column, moved_count) = drawn_cursor(&s, width);
            proptest::prop_assert_eq!(moved_count, count);
            match (up, line) {
                (true, 0) => proptest::prop_assert_eq!(cursor, 0),
                (false, _) if line + 1 == count => proptest::prop_assert_eq!(cursor, text.len()),
                _ => {
                    let target = if up { line - 1 } else { line + 1 };
                    proptest::prop_assert_eq!(moved_line, target, "{:?} at {}", text, width);
                    proptest::prop_assert!(moved_column <= column, "{:?} at {}", text, width);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The walk: what the index holds

#[test]
fn the_walk_honours_gitignore_hidden_files_and_symlinks() {
    let tree = Tree::new();
    let mut expected = vec!["Cargo.toml", "README.md", "docs/"];
    if tree.docs_readable {
        // As root `chmod 000` does not stop reading: the walk lists it like any directory.
        expected.push("docs/guide.md");
    }
    expected.extend([
        "scripts/",
        "scripts/build.sh",
        "sr-notes.md",
        "src/",
        "src/lib.rs",
        "src/main.rs",
        "src/server/",
        "src/server/files.rs",
        "src/server/mod.rs",
    ]);
    assert_eq!(paths(&tree.index().entries()), expected);
}

#[test]
fn nothing_outside_the_root_is_listed() {
    let tree = Tree::new();
    let index = tree.index();
    for e in index.entries() {
        assert!(!e.path.contains("outside"), "{e:?}");
        assert!(!e.path.contains("escape"), "{e:?}");
        assert!(!e.path.starts_with("link"), "{e:?}");
        assert!(tree.path().join(&e.path).exists(), "{e:?}");
    }
    assert!(index.lookup("link", MAX_ITEMS).is_empty());
    assert!(index.lookup("link/", MAX_ITEMS).is_empty());
    assert!(index.lookup("../", MAX_ITEMS).is_empty());
    assert!(index.lookup("src/../", MAX_ITEMS).is_empty());
    assert!(index.lookup("/", MAX_ITEMS).is_empty());
    assert!(index.lookup("/tmp", MAX_ITEMS).is_empty());
    assert!(index.lookup("target/", MAX_ITEMS).is_empty());
    assert!(index.lookup(".hidden/", MAX_ITEMS).is_empty());
}

#[test]
fn an_unreadable_directory_is_skipped_not_an_error() {
    let tree = Tree::new();
    let index = tree.index();
    // The directory itself is listed from its parent; its children only when readable.
    assert_eq!(paths(&index.lookup("do", MAX_ITEMS)), ["docs/"]);
    let inside = paths(&index.lookup("docs/", MAX_ITEMS));
    if tree.docs_readable {
        assert_eq!(inside, ["docs/guide.md"]);
    } else {
        assert!(inside.is_empty());
    }
    // Everything else is still there.
    assert_eq!(
        paths(&index.lookup("src/server/", MAX_ITEMS)),
        ["src/server/files.rs", "src/server/mod.rs"]
    );
}

#[test]
fn the_walk_is_capped_by_entries_and_depth() {
    let tree = Tree::new();
    let shallow = walk(
        tree.path(),
        &WalkLimits {
            max_depth: 1,
            ..WalkLimits::default()
        },
    );
    assert_eq!(
        paths(&shallow.entries()),
        [
            "Cargo.toml",
            "README.md",
            "docs/",
            "scripts/",
            "sr-notes.md",
            "src/"
        ]
    );
    // The root counts as the first entry scanned; names are visited in sorted order.
    let few = walk(
        tree.path(),
        &WalkLimits {
            max_entries: 4,
            ..WalkLimits::default()
        },
    );
    assert_eq!(paths(&few.entries()), ["Cargo.toml", "README.md", "docs/"]);
}

#[test]
fn a_missing_root_gives_an_empty_index() {
    let tree = Tree::new();
    let missing: PathBuf = tree.path().join("no-such-directory");
    assert!(walk(&missing, &WalkLimits::default()).is_empty());
    // A file as the root lists nothing under it.
    assert!(walk(&tree.path().join("Cargo.toml"), &WalkLimits::default()).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Matching and ordering

#[test]
fn matching_orders_directories_then_prefix_then_subsequence() {
    let index = Tree::new().index();
    let lookup = |q: &str| paths(&index.lookup(q, MAX_ITEMS));
    assert_eq!(
        lookup(""),
        [
            "docs/",
            "scripts/",
            "src/",
            "Cargo.toml",
            "README.md",
            "sr-notes.md"
        ]
    );
    assert_eq!(lookup("sr"), ["src/", "scripts/", "sr-notes.md"]);
    // Directories first even when a file matches better; case-insensitive.
    assert_eq!(lookup("S"), ["scripts/", "src/", "docs/", "sr-notes.md"]);
    assert_eq!(lookup("readme"), ["README.md"]);
    // Subsequence matches: fewer skipped characters first.
    assert_eq!(lookup("md"), ["README.md", "sr-notes.md"]);
    assert_eq!(lookup("src/"), ["src/server/", "src/lib.rs", "src/main.rs"]);
    assert_eq!(lookup("src/ma"), ["src/main.rs"]);
    assert_eq!(lookup("src/server/f"), ["src/server/files.rs"]);
    assert_eq!(lookup("src/SERVER/"), Vec::<String>::new());
    assert_eq!(lookup("zzz"), Vec::<String>::new());
}

#[test]
fn at_most_eight_entries_are_offered() {
    let index = FileIndex::new((1..=12).map(|i| entry(&format!("file{i:02}.txt"), false)));
    let mut s = custom_editor();
    s.flow_mut()
        .expect("a flow")
        .set_file_index(Arc::new(index));
    type_text(&mut s, "@f");
    let items = completion(&s)["items"].clone();
    assert_eq!(items.as_array().map(Vec::len), Some(MAX_ITEMS));
    assert_eq!(items[0], item("file01.txt", false));
    assert_eq!(items[7], item("file08.txt", false));
}

// ---------------------------------------------------------------------------------------------
// The list in an editor

#[test]
fn typing_an_at_word_opens_the_list() {
    let tree = Tree::new();
    let mut s = completing(&tree);
    type_text(&mut s, "see @");
    assert_eq!(
        completion(&s),
        list(
            &[
                ("docs", true),
                ("scripts", true),
                ("src", true),
                ("Cargo.toml", false),
                ("README.md", false),
                ("sr-notes.md", false)
            ],
            0,
            ""
        )
    );
    type_text(&mut s, "sr");
    assert_eq!(
        completion(&s),
        list(
            &[("src", true), ("scripts", true), ("sr-notes.md", false)],
            0,
            "sr"
        )
    );
    // A word that does not start with `@` offers nothing.
    type_text(&mut s, " mail@host");
    assert_eq!(completion(&s), Value::Null);
    // Neither does a query outside the root, nor one that matches nothing.
    for word in [" @../", " @/", " @src/../", " @zzz"] {
        type_text(&mut s, word);
        assert_eq!(completion(&s), Value::Null, "{word}");
    }
}

#[test]
fn up_and_down_move_in_the_list_wrapping_around() {
    let tree = Tree::new();
    let mut s = completing(&tree);
    type_text(&mut s, "@sr");
    let selected = |s: &Session| completion(s)["selected"].clone();
    press(&mut s, "<Down>");
    assert_eq!(selected(&s), json!(1));
    press(&mut s, "<Down>");
    assert_eq!(selected(&s), json!(2));
    press(&mut s, "<Down>");
    assert_eq!(selected(&s), json!(0));
    press(&mut s, "<Up>");
    assert_eq!(selected(&s), json!(2));
    // The text, the cursor and the focus are untouched.
    assert_eq!(text_cursor(&s), tc("@sr", 3));
    assert_eq!(flow(&s).focus(), Focus::Input);
    // In multi-line text too, the list takes Up and Down.
    let mut s = completing(&tree);
    paste(&mut s, "line one\n@sr");
    press(&mut s, "<Up>");
    assert_eq!(selected(&s), json!(2));
    assert_eq!(text_cursor(&s).1, 12);
}

#[test]
fn tab_accepts_a_directory_and_the_list_stays_open_inside_it() {
    let tree = Tree::new();
    let mut s = completing(&tree);
    type_text(&mut s, "@sr");
    press(&mut s, "<Tab>");
    assert_eq!(text_cursor(&s), tc("@src/", 5));
    assert_eq!(
        completion(&s),
        list(
            &[
                ("src/server", true),
                ("src/lib.rs", false),
                ("src/main.rs", false)
            ],
            0,
            "src/"
        )
    );
    press(&mut s, "<Tab>");
    assert_eq!(text_cursor(&s), tc("@src/server/", 12));
    assert_eq!(
        completion(&s),
        list(
            &[("src/server/files.rs", false), ("src/server/mod.rs", false)],
            0,
            "src/server/"
        )
    );
    // Nothing is saved while accepting.
    assert_eq!(flow(&s).focus(), Focus::Input);
    assert_eq!(flow(&s).answers()[0].custom_text, None);
}

#[test]
fn enter_accepts_a_file_rather_than_saving() {
    let tree = Tree::new();
    let mut s = completing(&tree);
    type_text(&mut s, "@src/");
    press(&mut s, "<Down><Down><CR>");
    assert_eq!(text_cursor(&s), tc("@src/main.rs ", 13));
    // A file ends the completion with a space; the editor stays open.
    assert_eq!(completion(&s), Value::Null);
    assert_eq!(flow(&s).focus(), Focus::Input);
    assert_eq!(flow(&s).answers()[0].custom_text, None);
    // Now Enter saves (trimmed) and advances.
    press(&mut s, "<CR>");
    assert_eq!(
        flow(&s).answers()[0].custom_text.as_deref(),
        Some("@src/main.rs")
    );
    assert_eq!((flow(&s).tab(), flow(&s).focus()), (1, Focus::Options));
}

#[test]
fn accepting_replaces_only_the_word_before_the_cursor() {
    let tree = Tree::new();
    let mut s = completing(&tree);
    paste(&mut s, "look at @sr now");
    press(&mut s, "<Left><Left><Left><Left>");
    assert_eq!(completion(&s)["query"], json!("sr"));
    press(&mut s, "<Tab>");
    assert_eq!(text_cursor(&s), tc("look at @src/ now", 13));
    press(&mut s, "<Down><Down><Tab>");
    assert_eq!(text_cursor(&s), tc("look at @src/main.rs  now", 21));
    assert_eq!(completion(&s), Value::Null);
}

#[test]
fn keys_bound_to_editing_keep_editing_while_the_list_is_open() {
    let tree = Tree::new();
    let mut s = completing(&tree);
    type_text(&mut s, "@sr");
    // Left and Right are also tab keys of an empty editor: here they move the cursor.
    press(&mut s, "<Left>");
    assert_eq!(text_cursor(&s), tc("@sr", 2));
    assert_eq!(completion(&s)["query"], json!("s"));
    press(&mut s, "<Right>");
    assert_eq!(text_cursor(&s), tc("@sr", 3));
    assert_eq!(completion(&s)["query"], json!("sr"));
    press(&mut s, "<BS>");
    assert_eq!(completion(&s)["query"], json!("s"));
    // Shift+Tab means nothing to the list or to an editor holding text.
    press(&mut s, "<S-Tab>");
    assert_eq!(text_cursor(&s), tc("@s", 2));
    assert_eq!(flow(&s).focus(), Focus::Input);
}

#[test]
fn esc_closes_the_list_first_and_the_editor_second() {
    let tree = Tree::new();
    let mut s = completing(&tree);
    type_text(&mut s, "see @s");
    press(&mut s, "<Esc>");
    assert_eq!(completion(&s), Value::Null);
    assert_eq!(flow(&s).focus(), Focus::Input);
    assert_eq!(text_cursor(&s), tc("see @s", 6));
    // Closed until the word at the cursor changes.
    press(&mut s, "<S-Tab>");
    assert_eq!(completion(&s), Value::Null);
    type_text(&mut s, "r");
    assert_eq!(completion(&s)["query"], json!("sr"));
    press(&mut s, "<Esc>");
    assert_eq!(completion(&s), Value::Null);
    press(&mut s, "<BS>");
    assert_eq!(completion(&s)["query"], json!("s"));
    // With the list closed, Tab does nothing and Enter saves as usual; here Esc saves and
    // closes.
    press(&mut s, "<Esc><Tab>");
    assert_eq!(text_cursor(&s), tc("see @s", 6));
    press(&mut s, "<Esc>");
    assert_eq!(flow(&s).editor(), None);
    assert_eq!(flow(&s).focus(), Focus::Options);
    assert_eq!(flow(&s).answers()[0].custom_text.as_deref(), Some("see @s"));
}

#[test]
fn an_editor_reopened_on_an_at_word_offers_the_list_again() {
    let tree = Tree::new();
    let mut s = completing(&tree);
    type_text(&mut s, "@sr");
    press(&mut s, "<Esc><Esc>");
    assert_eq!(flow(&s).focus(), Focus::Options);
    assert_eq!(flow(&s).answers()[0].custom_text.as_deref(), Some("@sr"));
    // The list follows the word at the cursor, whatever put it there.
    press(&mut s, "<CR>");
    assert_eq!(text_cursor(&s), tc("@sr", 3));
    assert_eq!(completion(&s)["query"], json!("sr"));
    press(&mut s, "<Esc><CR>");
    assert_eq!(flow(&s).tab(), 1);
    // Moving onto the custom row opens its editor by itself, with the list.
    press(&mut s, "<S-Tab><Down><Down>");
    assert_eq!(flow(&s).focus(), Focus::Input);
    assert_eq!(completion(&s)["query"], json!("sr"));
}

#[test]
fn a_restored_snapshot_equals_the_flow_it_was_taken_from() {
    let mut s = custom_editor();
    type_text(&mut s, "see @sr");
    press(&mut s, "<Left>");
    let restored = restore(&save(&s, &payload())).expect("restores");
    assert_eq!(restored, s);
}

#[test]
fn note_editors_complete_too() {
    let tree = Tree::new();
    let mut s = open(&payload());
    s.flow_mut()
        .expect("a flow")
        .set_file_index(Arc::new(tree.index()));
    press(&mut s, "n");
    type_text(&mut s, "@sc");
    assert_eq!(
        completion(&s),
        list(&[("scripts", true), ("src", true)], 0, "sc")
    );
    press(&mut s, "<CR>");
    assert_eq!(
        completion(&s),
        list(&[("scripts/build.sh", false)], 0, "scripts/")
    );
    press(&mut s, "<CR>");
    assert_eq!(text_cursor(&s), tc("@scripts/build.sh ", 18));
    press(&mut s, "<CR>");
    assert_eq!(flow(&s).focus(), Focus::Options);
    assert_eq!(
        flow(&s).answers()[0].option_note(0),
        Some("@scripts/build.sh")
    );
    // The question note editor as well.
    press(&mut s, "N");
    type_text(&mut s, "@REA");
    assert_eq!(completion(&s), list(&[("README.md", false)], 0, "REA"));
}

#[test]
fn without_an_index_there_is_no_completion() {
    let mut s = custom_editor();
    type_text(&mut s, "@sr");
    assert_eq!(completion(&s), Value::Null);
    press(&mut s, "<Tab>");
    assert_eq!(text_cursor(&s), tc("@sr", 3));
    press(&mut s, "<CR>");
    assert_eq!(flow(&s).answers()[0].custom_text.as_deref(), Some("@sr"));
}

#[test]
fn an_index_arriving_later_opens_the_list_for_the_word_already_typed() {
    let tree = Tree::new();
    let mut s = custom_editor();
    type_text(&mut s, "@sr");
    s.flow_mut()
        .expect("a flow")
        .set_file_index(Arc::new(tree.index()));
    assert_eq!(completion(&s)["items"][0], item("src", true));
}

#[test]
fn ctrl_c_with_the_list_open_dismisses_the_flow() {
    let tree = Tree::new();
    let mut s = completing(&tree);
    type_text(&mut s, "@sr");
    press(&mut s, "<C-c>");
    assert_eq!(flow(&s).editor(), None);
    assert_eq!(flow(&s).completion(), None);
    assert_eq!(flow(&s).answers()[0].custom_text, None);
}

#[test]
fn hints_tell_what_the_keys_do_while_the_list_is_open() {
    let tree = Tree::new();
    let mut s = completing(&tree);
    type_text(&mut s, "@sr");
    let hints = |s: &Session| serde_json::to_value(view::build("s", s).hints).expect("json");
    assert_eq!(
        hints(&s),
        json!([
            { "action": "editor.submit", "keys": ["enter"], "label": "accept" },
            { "action": "editor.nextTab", "keys": ["tab"], "label": "accept" },
            { "action": "editor.up", "keys": ["up"], "label": "previous" },
            { "action": "editor.down", "keys": ["down"], "label": "next" },
            { "action": "editor.close", "keys": ["escape"], "label": "close list" },
            { "action": "global.dismiss", "keys": ["ctrl+c"], "label": "dismiss" }
        ])
    );
    press(&mut s, "<Esc>");
    assert_eq!(hints(&s)[0]["label"], json!("save"));
}

#[test]
fn the_list_follows_keymap_overrides() {
    let tree = Tree::new();
    let mut s = crate::common::open_with_keymap(
        &payload(),
        &json!({ "editor.nextTab": ["tab", "ctrl+y"], "editor.down": ["ctrl+n"] }),
    );
    s.flow_mut()
        .expect("a flow")
        .set_file_index(Arc::new(tree.index()));
    press(&mut s, "3");
    type_text(&mut s, "@sr");
    press(&mut s, "<C-n>");
    assert_eq!(completion(&s)["selected"], json!(1));
    // Down is no longer bound to editor.down: it does nothing to the list.
    press(&mut s, "<Down>");
    assert_eq!(completion(&s)["selected"], json!(1));
    press(&mut s, "<C-y>");
    assert_eq!(text_cursor(&s), tc("@scripts/", 9));
}

// ---------------------------------------------------------------------------------------------
// The rendered list

/// A custom editor completing inside a directory of long names, the second entry highlighted.
fn deep_list() -> Session {
    let index = FileIndex::new([
        entry("docs", true),
        entry("docs/adr", true),
        entry("docs/adr/drafts", true),
        entry("docs/adr/0001-record-architecture-decisions.md", false),
        entry("docs/adr/0002-use-json-rpc-over-stdio.md", false),
        entry("docs/adr/0003-render-screens-in-the-engine.md", false),
    ]);
    let mut s = custom_editor();
    s.flow_mut()
        .expect("a flow")
        .set_file_index(Arc::new(index));
    type_text(&mut s, "See @docs/adr/");
    press(&mut s, "<Down>");
    s
}

fn snap(name: &str, s: &Session, width: usize) {
    let screen = view::plain(&lines(s, width));
    insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("{name}_{width}"), screen);
    });
}

#[test]
fn completion_list_screens() {
    let s = deep_list();
    snap("completion_list", &s, 40);
    snap("completion_list", &s, 80);
}

#[test]
fn the_highlighted_entry_is_styled_selected() {
    let s = deep_list();
    let screen = lines(&s, 80);
    let listed: Vec<&Line> = screen
        .iter()
        .filter(|l| {
            l.spans()
                .any(|span| span.text.contains("docs/adr/") && !span.text.contains('@'))
        })
        .collect();
    assert_eq!(listed.len(), 4);
    let styles = |l: &Line| l.spans().map(|span| span.style).collect::<Vec<Style>>();
    assert_eq!(styles(listed[0]), [Style::Text]);
    assert_eq!(styles(listed[1]), [Style::Text, Style::Selected]);
    assert_eq!(
        listed[1].spans().nth(1).map(|span| span.text),
        Some("❯ docs/adr/0001-record-architecture-decisions.md")
    );
    assert_eq!(styles(listed[2]), [Style::Text]);
}

#[test]
fn the_rendered_list_fits_every_width() {
    let s = deep_list();
    for width in 20..=120 {
        let screen = lines(&s, width);
        for line in &screen {
            assert!(
                line.width() <= width.max(view::MIN_WIDTH),
                "{width}: {line:?}"
            );
        }
        let selected = screen
            .iter()
            .filter(|l| l.spans().any(|span| span.style == Style::Selected))
            .count();
        assert_eq!(selected, 1, "{width}");
    }
}

// ---------------------------------------------------------------------------------------------
// Through the binary

/// Polls `getView` until the session's editor shows a completion list (the walk runs off
/// the keystroke path); fails after many tries.
fn wait_for_completion(server: &mut crate::support::Server, session: &str) -> Value {
    for _ in 0..1000 {
        let view = server.view(session);
        if !view["editor"]["completion"].is_null() {
            return view;
        }
        thread::sleep(Duration::from_millis(10));
    }
    panic!("no completion list appeared");
}

#[test]
fn end_to_end_open_with_cwd_type_and_accept() {
    let tree = Tree::new();
    let mut server = crate::support::Server::start(&[]);
    let root = tree.path().to_str().expect("a UTF-8 path");
    let step = server.ok(
        "open",
        json!({ "session": "c", "payload": payload(), "cwd": root }),
    );
    assert_eq!(step["status"], json!("open"));
    server.ok("keys", json!({ "session": "c", "keys": "3@sr" }));
    let view = wait_for_completion(&mut server, "c");
    assert_eq!(view["editor"]["text"], json!("@sr"));
    assert_eq!(
        view["editor"]["completion"],
        list(
            &[("src", true), ("scripts", true), ("sr-notes.md", false)],
            0,
            "sr"
        )
    );
    let step = server.ok("key", json!({ "session": "c", "key": "tab" }));
    assert_eq!(step["view"]["editor"]["text"], json!("@src/"));
    assert_eq!(
        step["view"]["editor"]["completion"],
        list(
            &[
                ("src/server", true),
                ("src/lib.rs", false),
                ("src/main.rs", false)
            ],
            0,
            "src/"
        )
    );
    let step = server.ok("keys", json!({ "session": "c", "keys": "<Down><CR>" }));
    assert_eq!(step["view"]["editor"]["text"], json!("@src/lib.rs "));
    assert_eq!(step["view"]["editor"]["completion"], Value::Null);
    // The rendered screen shows the list under the editor.
    server.ok("keys", json!({ "session": "c", "keys": "@src/m" }));
    let view = server.ok("getView", json!({ "session": "c", "width": 60 }));
    let screen: Vec<String> = view["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|line| {
            line.as_array()
                .expect("spans")
                .iter()
                .map(|span| span["text"].as_str().unwrap_or_default())
                .collect::<String>()
        })
        .collect();
    let bottom = screen
        .iter()
        .position(|l| l.contains('╰'))
        .expect("an editor box");
    assert_eq!(screen[bottom + 1].trim_end(), "     ❯ src/main.rs");
    server.finish();
}

#[test]
fn end_to_end_accepting_never_grows_an_editor_past_the_text_limit() {
    let tree = Tree::new();
    let mut server = crate::support::Server::start(&["--max-text-bytes", "20"]);
    let root = tree.path().to_str().expect("a UTF-8 path");
    server.ok(
        "open",
        json!({ "session": "l", "payload": payload(), "cwd": root }),
    );
    server.ok("keys", json!({ "session": "l", "keys": "3" }));
    server.ok("insert", json!({ "session": "l", "text": "@src/server/" }));
    let view = wait_for_completion(&mut server, "l");
    assert_eq!(
        view["editor"]["completion"]["items"][0],
        item("src/server/files.rs", false)
    );
    // "@src/server/files.rs " would be 21 bytes.
    assert_eq!(
        server.err("key", json!({ "session": "l", "key": "tab" })),
        json!({ "code": -32004, "message": "the editor would hold 21 bytes; the limit is 20" })
    );
    let view = server.view("l");
    assert_eq!(view["editor"]["text"], json!("@src/server/"));
    assert_eq!(view["editor"]["completion"]["selected"], json!(0));
    // "@src/server/mod.rs " is 19 bytes.
    let step = server.ok("keys", json!({ "session": "l", "keys": "<Down><Tab>" }));
    assert_eq!(step["view"]["editor"]["text"], json!("@src/server/mod.rs "));
    server.finish();
}

#[test]
fn end_to_end_without_cwd_there_is_no_completion() {
    let tree = Tree::new();
    let mut server = crate::support::Server::start(&[]);
    server.open("plain", payload());
    let step = server.ok("keys", json!({ "session": "plain", "keys": "3@sr" }));
    assert_eq!(step["view"]["editor"]["text"], json!("@sr"));
    assert_eq!(step["view"]["editor"]["completion"], Value::Null);
    // A root that does not exist opens the flow all the same, without completion.
    let missing = tree.path().join("missing");
    let step = server.ok(
        "open",
        json!({ "session": "m", "payload": payload(), "cwd": missing.to_str() }),
    );
    assert_eq!(step["status"], json!("open"));
    server.finish();
}
