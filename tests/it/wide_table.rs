//! The browser client's table of wide characters (`editors/web/askd-wide.js`) is the engine's:
//! the code points `unicode-width`, which lays out every rendered line, counts two columns. A
//! client that drew a character one cell wide where the engine counts two would push the rest
//! of its line, box borders included, out of their columns.
//!
//! `ASKD_WRITE_WIDE_TABLE=1 cargo test --test it wide_table` writes the file afresh (after an
//! update of `unicode-width`); the test fails until the committed file matches.

use std::fmt::Write as _;
use std::path::Path;

use unicode_width::UnicodeWidthChar;

/// The committed table.
fn table_path() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/editors/web/askd-wide.js"
    ))
}

/// The code points two columns wide, as inclusive ranges in order.
fn wide_ranges() -> Vec<(u32, u32)> {
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
        if c.width() != Some(2) {
            continue;
        }
        let code = u32::from(c);
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == code => *end = code,
            _ => ranges.push((code, code)),
        }
    }
    ranges
}

/// The table's JavaScript module, as the engine's widths give it.
fn generated() -> String {
    let (major, minor, patch) = unicode_width::UNICODE_VERSION;
    let mut out = format!(
        "// Generated from the character widths of the askd engine (Unicode {major}.{minor}.{patch})\n\
         // by tests/it/wide_table.rs: do not edit by hand.\n\n"
    );
    out.push_str(
        "/**\n * The code points drawn two terminal columns wide, as sorted inclusive ranges\n \
         * flattened into one array: start, end, start, end, …\n */\n",
    );
    out.push_str("export const WIDE_RANGES = Object.freeze([\n");
    let mut line = String::from(" ");
    for (start, end) in wide_ranges() {
        let item = format!(" {start:#x}, {end:#x},");
        if line.len() + item.len() > 98 {
            writeln!(out, "{line}").expect("a String takes any text");
            line = String::from(" ");
        }
        line.push_str(&item);
    }
    writeln!(out, "{line}\n]);").expect("a String takes any text");
    out
}

#[test]
fn the_browser_clients_wide_characters_are_the_engines() {
    let expected = generated();
    if std::env::var_os("ASKD_WRITE_WIDE_TABLE").is_some() {
        std::fs::write(table_path(), &expected).expect("the table is writable");
    }
    let committed = std::fs::read_to_string(table_path()).expect("the table is readable");
    assert!(
        committed == expected,
        "editors/web/askd-wide.js differs from the engine's widths; write it afresh with \
         ASKD_WRITE_WIDE_TABLE=1 cargo test --test it wide_table"
    );
}

#[test]
fn the_table_holds_what_the_renderer_counts_two_columns() {
    // CJK ideographs, Hangul syllables, fullwidth forms and emoji, assigned or not in the
    // ideograph blocks; not Latin, combining marks or the halfwidth forms.
    let ranges = wide_ranges();
    let wide = |c: u32| ranges.iter().any(|&(start, end)| start <= c && c <= end);
    for c in [0x4E2D, 0xAC00, 0xFF21, 0x1F600, 0x3_0000, 0x9FFF, 0x1F9CB] {
        assert!(wide(c), "{c:#x} is wide");
    }
    for c in [0x41, 0xE9, 0x301, 0xFF61, 0x200D, 0x2028] {
        assert!(!wide(c), "{c:#x} is not wide");
    }
}
