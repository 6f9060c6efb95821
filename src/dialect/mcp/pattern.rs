//! A string `pattern` of an elicitation form, with the semantics the MCP SDK's validator gives
//! it: an ECMA-262 regular expression compiled with the `u` flag (`new RegExp(pattern, "u")`)
//! and not anchored. `\d`, `\w` and `\b` are ASCII there, `\s` is ECMA-262's white space, and
//! `.` any code point but a line terminator.
//!
//! The expression is parsed as ECMA-262 (`regress`), then written in the syntax of the
//! linear-time `regex` engine with ECMA-262's meaning spelled out (`\d` as `[0-9]`, `.` as the
//! class of everything but the four line terminators, groups as non-capturing groups), and
//! matched there: a backtracking match of an expression a server sent could take exponential
//! time on what the user typed and stall every session. A backreference or a lookaround,
//! which no linear-time engine has, cannot be checked: the form says so and takes no value for
//! that field.

use std::fmt::Write;

/// ECMA-262's white space and line terminators (`\s`), as a class body.
const SPACE: &str = r"\t\n\x{B}\x{C}\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
/// ECMA-262's word characters without the `i` flag (`\w`), as a class body.
const WORD: &str = "0-9A-Za-z_";
/// ECMA-262's digits (`\d`), as a class body.
const DIGIT: &str = "0-9";
/// The line terminators `.` does not match, as a class body.
const LINE_TERMINATORS: &str = r"\n\r\x{2028}\x{2029}";

/// Why a pattern cannot be checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unchecked {
    /// It is not a valid ECMA-262 expression (with the `u` flag): the SDK's validator fails to
    /// compile the schema, so no answer passes.
    Invalid(String),
    /// It is valid, but uses what a linear-time match lacks (a backreference, a lookaround) or
    /// exceeds its size limit.
    Unsupported(&'static str),
}

/// A pattern, compiled.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// The expression as the schema gave it.
    pub source: String,
    /// The expression in the `regex` engine's syntax, with ECMA-262's meaning.
    regex: regex::Regex,
}

impl Pattern {
    /// Compiles `source`, or says why it cannot be checked.
    pub fn new(source: &str) -> Result<Pattern, Unchecked> {
        count_compiled();
        regress::Regex::with_flags(source, "u").map_err(|e| Unchecked::Invalid(e.to_string()))?;
        let translated = translate(source)?;
        let regex = regex::RegexBuilder::new(&translated)
            .size_limit(1 << 20)
            .build()
            .map_err(|_| Unchecked::Unsupported("it is too large to check in linear time"))?;
        Ok(Pattern {
            source: source.to_owned(),
            regex,
        })
    }

    /// Whether the expression matches some part of `text`, in time linear in its length.
    pub fn matches(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }
}

/// Two patterns are equal when they were compiled from the same expression.
impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.source == other.source
    }
}

impl Eq for Pattern {}

/// A code point written so that the `regex` engine reads it literally, in or out of a class.
fn literal(out: &mut String, c: u32) {
    let _ = write!(out, "\\x{{{c:X}}}");
}

/// The ECMA-262 expression `source` (valid with the `u` flag) in the `regex` engine's syntax.
fn translate(source: &str) -> Result<String, Unchecked> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len() * 2);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '\\' => i = escape(&chars, i, false, &mut out)?,
            '.' => {
                let _ = write!(out, "[^{LINE_TERMINATORS}]");
            }
            '(' if chars.get(i) == Some(&'?') => match (chars.get(i + 1), chars.get(i + 2)) {
                (Some(':'), _) => {
                    out.push_str("(?:");
                    i += 2;
                }
                (Some('=' | '!'), _) | (Some('<'), Some('=' | '!')) => {
                    return Err(Unchecked::Unsupported("it uses a lookaround"));
                }
                (Some('<'), _) => {
                    // A named group: its name matters only to backreferences.
                    while i < chars.len() && chars[i] != '>' {
                        i += 1;
                    }
                    i += 1;
                    out.push_str("(?:");
                }
                _ => return Err(Unchecked::Unsupported("it uses group modifiers")),
            },
            '(' => out.push_str("(?:"),
            ')' | '|' | '*' | '+' | '?' | '^' | '$' => out.push(c),
            '{' => {
                // A quantifier (a lone brace is an error with the `u` flag).
                out.push('{');
                while i < chars.len() && chars[i] != '}' {
                    out.push(chars[i]);
                    i += 1;
                }
                i += 1;
                out.push('}');
            }
            '[' => i = class(&chars, i, &mut out)?,
            other => literal(&mut out, other as u32),
        }
    }
    Ok(out)
}

/// A character class whose `[` is just before `start`; returns where it ends.
fn class(chars: &[char], start: usize, out: &mut String) -> Result<usize, Unchecked> {
    let mut i = start;
    let negated = chars.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        // `[]` matches nothing, `[^]` any code point.
        out.push_str(if negated {
            r"[\x{0}-\x{10FFFF}]"
        } else {
            r"[^\x{0}-\x{10FFFF}]"
        });
        return Ok(i + 1);
    }
    out.push_str(if negated { "[^" } else { "[" });
    while i < chars.len() && chars[i] != ']' {
        let (atom, next) = class_atom(chars, i)?;
        i = next;
        let range = chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|&c| c != ']');
        match (atom, range) {
            (Atom::Char(low), true) => {
                let (high, next) = class_atom(chars, i + 1)?;
                i = next;
                let Atom::Char(high) = high else {
                    return Err(Unchecked::Invalid(
                        "a class range needs two characters".into(),
                    ));
                };
                literal(out, low);
                out.push('-');
                literal(out, high);
            }
            (Atom::Char(c), false) => literal(out, c),
            (Atom::Set(set), _) => out.push_str(&set),
        }
    }
    out.push(']');
    Ok(i + 1)
}

/// One element of a character class.
enum Atom {
    /// One code point.
    Char(u32),
    /// A class escape (`\d`, `\p{L}`), written as a nested class.
    Set(String),
}

/// The class atom at `i`; returns it and where it ends.
fn class_atom(chars: &[char], i: usize) -> Result<(Atom, usize), Unchecked> {
    if chars[i] != '\\' {
        return Ok((Atom::Char(chars[i] as u32), i + 1));
    }
    let mut set = String::new();
    let next = escape(chars, i + 1, true, &mut set)?;
    // A single code point is written `\x{…}`: read it back as one.
    let code = set
        .strip_prefix("\\x{")
        .and_then(|rest| rest.strip_suffix('}'))
        .and_then(|hex| u32::from_str_radix(hex, 16).ok());
    Ok(match code {
        Some(code) => (Atom::Char(code), next),
        None => (Atom::Set(set), next),
    })
}

/// The escape whose letter is at `i` (just after `\`), written to `out`; returns where it
/// ends. `in_class` selects the meaning of `\b` (backspace in a class).
fn escape(chars: &[char], i: usize, in_class: bool, out: &mut String) -> Result<usize, Unchecked> {
    let Some(&c) = chars.get(i) else {
        return Err(Unchecked::Invalid("a pattern cannot end with \\".into()));
    };
    let mut next = i + 1;
    let hex = |from: usize, to: usize| -> Option<u32> {
        let digits: String = chars.get(from..to)?.iter().collect();
        u32::from_str_radix(&digits, 16).ok()
    };
    match c {
        'd' => {
            let _ = write!(out, "[{DIGIT}]");
        }
        'D' => {
            let _ = write!(out, "[^{DIGIT}]");
        }
        'w' => {
            let _ = write!(out, "[{WORD}]");
        }
        'W' => {
            let _ = write!(out, "[^{WORD}]");
        }
        's' => {
            let _ = write!(out, "[{SPACE}]");
        }
        'S' => {
            let _ = write!(out, "[^{SPACE}]");
        }
        'b' if in_class => literal(out, 8),
        'b' => out.push_str(r"(?-u:\b)"),
        'B' => out.push_str(r"(?-u:\B)"),
        'p' | 'P' => {
            let end = chars[i..].iter().position(|&c| c == '}').map(|p| i + p);
            let Some(end) = end else {
                return Err(Unchecked::Invalid("a property escape needs {…}".into()));
            };
            out.extend(['\\', c]);
            out.extend(&chars[i + 1..=end]);
            next = end + 1;
        }
        't' => literal(out, 9),
        'n' => literal(out, 10),
        'v' => literal(out, 11),
        'f' => literal(out, 12),
        'r' => literal(out, 13),
        '0' => literal(out, 0),
        'c' => {
            let letter = chars.get(i + 1).copied().unwrap_or('@');
            literal(out, letter as u32 % 32);
            next = i + 2;
        }
        'x' => {
            literal(out, hex(i + 1, i + 3).unwrap_or(0));
            next = i + 3;
        }
        'u' if chars.get(i + 1) == Some(&'{') => {
            let end = chars[i..]
                .iter()
                .position(|&c| c == '}')
                .map_or(i, |p| i + p);
            literal(out, hex(i + 2, end).unwrap_or(0));
            next = end + 1;
        }
        'u' => {
            let unit = hex(i + 1, i + 5).unwrap_or(0);
            next = i + 5;
            if (0xD800..0xDC00).contains(&unit)
                && chars.get(next) == Some(&'\\')
                && chars.get(next + 1) == Some(&'u')
                && let Some(low) = hex(next + 2, next + 6).filter(|l| (0xDC00..0xE000).contains(l))
            {
                literal(out, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
                next += 6;
            } else if (0xD800..0xE000).contains(&unit) {
                return Err(Unchecked::Unsupported(
                    "it names a lone surrogate, which no text holds",
                ));
            } else {
                literal(out, unit);
            }
        }
        '1'..='9' | 'k' => return Err(Unchecked::Unsupported("it uses a backreference")),
        other => literal(out, other as u32),
    }
    Ok(next)
}

/// Counts a compiled pattern, in the crate's own tests only.
#[cfg(not(test))]
fn count_compiled() {}

#[cfg(test)]
thread_local! {
    /// The patterns compiled on this thread.
    pub static COMPILED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts a compiled pattern in [`COMPILED`].
#[cfg(test)]
fn count_compiled() {
    COMPILED.with(|n| n.set(n.get() + 1));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        Pattern::new(pattern).unwrap().matches(text)
    }

    #[test]
    fn classes_are_ascii_and_dot_stops_at_line_terminators() {
        assert!(matches(r"^\d+$", "123"));
        assert!(!matches(r"^\d+$", "١٢٣"));
        assert!(!matches(r"^\w+$", "café"));
        assert!(matches(r"^\w+$", "cafe_1"));
        assert!(matches(r"\bcat\b", "a cat!"));
        assert!(matches(r"^\s$", "\u{feff}"));
        assert!(!matches(r"^\s$", "\u{85}"));
        assert!(matches(r"^.$", "😀"));
        assert!(!matches(r"^.$", "\u{2028}"));
        assert!(matches(r"^[\d-]+$", "1-2"));
        assert!(matches(r"^[^]$", "\n"));
        assert!(!matches(r"^[]?x$", "y"));
        assert!(matches(r"^\u{1F600}\uD83D\uDE00$", "😀😀"));
        assert!(matches(r"^[+--]$", ","));
        assert!(matches(r"^(?<year>\d{4})-\d{2}$", "2024-05"));
        assert!(matches(r"^\p{L}+$", "café"));
        assert!(matches(r"a{2,3}", "baab"));
        assert!(matches(r"^[a&&b]$", "&"));
        assert!(matches(r"^#~$", "#~"));
    }

    #[test]
    fn what_cannot_be_checked_says_why() {
        assert!(matches!(Pattern::new("[a-"), Err(Unchecked::Invalid(_))));
        assert!(matches!(Pattern::new(r"\d{"), Err(Unchecked::Invalid(_))));
        assert_eq!(
            Pattern::new(r"^(a)\1$").unwrap_err(),
            Unchecked::Unsupported("it uses a backreference")
        );
        assert_eq!(
            Pattern::new(r"^(?=.*\d).{8,}$").unwrap_err(),
            Unchecked::Unsupported("it uses a lookaround")
        );
    }
}
