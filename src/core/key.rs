//! Keys: one normalised key type, its names and its parsers.
//!
//! A key is written as a name (`tab`, `shift+tab`, `ctrl+c`, `n`, `한`) or in Vim notation
//! (`<Tab>`, `<S-Tab>`, `<C-c>`, `<lt>`). Parsing always yields the normal form, so that two
//! spellings of the same key compare equal: `shift` is never set on a character key
//! (`shift+n` is `N`, `shift+1` is `1`), and a character under `ctrl` or `alt` is stored in
//! lowercase (`ctrl+C` is `ctrl+c`). Named keys keep `shift` (`shift+tab`, `shift+enter`).

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::core::text::quoted;

/// One key press: a key code and the modifiers held with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    /// The key itself.
    pub code: KeyCode,
    /// The modifiers held with it.
    pub mods: Mods,
}

/// What was pressed, without modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyCode {
    /// A character key; space is `Char(' ')`.
    Char(char),
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Arrow left.
    Left,
    /// Arrow right.
    Right,
    /// Tab.
    Tab,
    /// Enter (Return).
    Enter,
    /// Escape.
    Escape,
    /// Backspace.
    Backspace,
    /// Delete (forward delete).
    Delete,
    /// Home.
    Home,
    /// End.
    End,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
}

/// Modifiers held with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Mods {
    /// Control.
    pub ctrl: bool,
    /// Alt (Meta).
    pub alt: bool,
    /// Shift; never set on a character key in normal form.
    pub shift: bool,
}

/// A key name that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The name (as given) is not a key.
    #[error("unknown key {}", quoted(.0))]
    Unknown(String),
}

/// Key names and aliases (matched case-insensitively).
const NAMED: &[(&str, KeyCode)] = &[
    ("up", KeyCode::Up),
    ("down", KeyCode::Down),
    ("left", KeyCode::Left),
    ("right", KeyCode::Right),
    ("tab", KeyCode::Tab),
    ("enter", KeyCode::Enter),
    ("escape", KeyCode::Escape),
    ("space", KeyCode::Char(' ')),
    ("backspace", KeyCode::Backspace),
    ("delete", KeyCode::Delete),
    ("home", KeyCode::Home),
    ("end", KeyCode::End),
    ("pageup", KeyCode::PageUp),
    ("pagedown", KeyCode::PageDown),
    ("esc", KeyCode::Escape),
    ("return", KeyCode::Enter),
    ("cr", KeyCode::Enter),
    ("bs", KeyCode::Backspace),
    ("del", KeyCode::Delete),
];

impl Key {
    /// A key without modifiers.
    pub const fn plain(code: KeyCode) -> Key {
        Key {
            code,
            mods: Mods {
                ctrl: false,
                alt: false,
                shift: false,
            },
        }
    }

    /// Parses one key name (`tab`, `shift+tab`, `ctrl+c`, `n`, `<C-x>`, `<lt>`, …) into its
    /// normal form. Names and modifiers are case-insensitive; a single character keeps its case.
    /// Control characters (tab, newline, escape, …) are not character keys: use their names.
    pub fn parse(name: &str) -> Result<Key, KeyError> {
        let vim = name
            .strip_prefix('<')
            .and_then(|rest| rest.strip_suffix('>'))
            .filter(|inner| !inner.is_empty());
        let (mods, code) = match (single_char(name), vim) {
            (Some(c), _) => (Mods::default(), char_code(c)),
            (None, Some(inner)) => {
                let (mods, base) = split_vim_mods(inner);
                let code = if base.eq_ignore_ascii_case("lt") {
                    Some(KeyCode::Char('<'))
                } else {
                    base_code(base)
                };
                (mods, code)
            }
            (None, None) => {
                let (mods, base) = split_plus_mods(name);
                (mods, base_code(base))
            }
        };
        code.map(|code| normalized(code, mods))
            .ok_or_else(|| KeyError::Unknown(name.to_owned()))
    }
}

/// A plain character key (no modifiers).
pub const fn char_key(c: char) -> Key {
    Key::plain(KeyCode::Char(c))
}

/// Parses a key sequence in Vim notation: every plain character is one key and `<...>` names
/// a special key (`"2<Tab><Space>n"`, `"<C-c>"`, `"a<lt>b"`).
pub fn parse_sequence(s: &str) -> Result<Vec<Key>, KeyError> {
    let mut keys = Vec::new();
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        let len = if c == '<' {
            rest.find('>')
                .map(|end| end + 1)
                .ok_or_else(|| KeyError::Unknown(rest.to_owned()))?
        } else {
            c.len_utf8()
        };
        keys.push(Key::parse(&rest[..len])?);
        rest = &rest[len..];
    }
    Ok(keys)
}

/// The only character of `s`, if it has exactly one.
fn single_char(s: &str) -> Option<char> {
    let mut chars = s.chars();
    chars.next().filter(|_| chars.next().is_none())
}

/// A character as a key code; control characters are not keys.
fn char_code(c: char) -> Option<KeyCode> {
    (!c.is_control()).then_some(KeyCode::Char(c))
}

/// The key code a base name (without modifiers) denotes: a key name or a single character.
fn base_code(base: &str) -> Option<KeyCode> {
    match single_char(base) {
        Some(c) => char_code(c),
        None => NAMED
            .iter()
            .find(|(name, _)| base.eq_ignore_ascii_case(name))
            .map(|&(_, code)| code),
    }
}

/// Sets the modifier `name` (`ctrl`, `alt`, `meta`, `shift`, any case) in `mods`; false when
/// `name` is not a modifier.
fn set_modifier(mods: &mut Mods, name: &str) -> bool {
    let flag = if name.eq_ignore_ascii_case("ctrl") {
        &mut mods.ctrl
    } else if name.eq_ignore_ascii_case("alt") || name.eq_ignore_ascii_case("meta") {
        &mut mods.alt
    } else if name.eq_ignore_ascii_case("shift") {
        &mut mods.shift
    } else {
        return false;
    };
    *flag = true;
    true
}

/// Splits `ctrl+alt+x` into its modifiers and the base name `x`. A trailing `+` is a base
/// name (`ctrl++`), so splitting stops before an empty remainder.
fn split_plus_mods(name: &str) -> (Mods, &str) {
    let mut mods = Mods::default();
    let mut rest = name;
    while let Some((head, tail)) = rest.split_once('+') {
        if tail.is_empty() || !set_modifier(&mut mods, head) {
            break;
        }
        rest = tail;
    }
    (mods, rest)
}

/// Splits the inside of a Vim form (`C-S-Tab`) into its modifiers and the base name (`Tab`).
fn split_vim_mods(inner: &str) -> (Mods, &str) {
    let mut mods = Mods::default();
    let mut rest = inner;
    while let [prefix, b'-', _, ..] = rest.as_bytes() {
        let name = match prefix.to_ascii_lowercase() {
            b'c' => "ctrl",
            b'm' | b'a' => "alt",
            b's' => "shift",
            _ => break,
        };
        set_modifier(&mut mods, name);
        rest = &rest[2..];
    }
    (mods, rest)
}

/// Brings a key into normal form (see the module documentation).
fn normalized(code: KeyCode, mut mods: Mods) -> Key {
    let code = match code {
        KeyCode::Char(c) => {
            let folded = if mods.ctrl || mods.alt {
                single(c.to_lowercase())
            } else if mods.shift {
                single(c.to_uppercase())
            } else {
                None
            };
            mods.shift = false;
            KeyCode::Char(folded.unwrap_or(c))
        }
        named => named,
    };
    Key { code, mods }
}

/// The only item of a case mapping, if it maps to exactly one character.
fn single(mut mapped: impl Iterator<Item = char>) -> Option<char> {
    mapped.next().filter(|_| mapped.next().is_none())
}

impl fmt::Display for Key {
    /// Canonical name: modifier prefixes (`ctrl+`, `alt+`, `shift+`, in that order), then the
    /// key name (`tab`, `space`, `pageup`) or the character itself.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (held, prefix) in [
            (self.mods.ctrl, "ctrl+"),
            (self.mods.alt, "alt+"),
            (self.mods.shift, "shift+"),
        ] {
            if held {
                f.write_str(prefix)?;
            }
        }
        let name = match self.code {
            KeyCode::Char(' ') => "space",
            KeyCode::Char(c) => return write!(f, "{c}"),
            KeyCode::Up => "up",
            KeyCode::Down => "down",
            KeyCode::Left => "left",
            KeyCode::Right => "right",
            KeyCode::Tab => "tab",
            KeyCode::Enter => "enter",
            KeyCode::Escape => "escape",
            KeyCode::Backspace => "backspace",
            KeyCode::Delete => "delete",
            KeyCode::Home => "home",
            KeyCode::End => "end",
            KeyCode::PageUp => "pageup",
            KeyCode::PageDown => "pagedown",
        };
        f.write_str(name)
    }
}

impl Serialize for Key {
    /// Serialises as the canonical name.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Key {
    /// Deserialises from any name [`Key::parse`] accepts.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Key, D::Error> {
        struct KeyName;
        impl Visitor<'_> for KeyName {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Key, E> {
                Key::parse(name).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(KeyName)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: Mods = Mods {
        ctrl: false,
        alt: false,
        shift: false,
    };
    const CTRL: Mods = Mods { ctrl: true, ..NONE };
    const ALT: Mods = Mods { alt: true, ..NONE };
    const SHIFT: Mods = Mods {
        shift: true,
        ..NONE
    };

    fn key(code: KeyCode, mods: Mods) -> Key {
        Key { code, mods }
    }

    fn p(name: &str) -> Key {
        Key::parse(name).unwrap_or_else(|e| panic!("{name:?}: {e}"))
    }

    fn err(name: &str) -> String {
        Key::parse(name).unwrap_err().to_string()
    }

    #[test]
    fn named_keys_and_aliases() {
        use KeyCode::*;
        let cases = [
            ("up", Up),
            ("down", Down),
            ("left", Left),
            ("right", Right),
            ("tab", Tab),
            ("enter", Enter),
            ("escape", Escape),
            ("space", Char(' ')),
            ("backspace", Backspace),
            ("delete", Delete),
            ("home", Home),
            ("end", End),
            ("pageup", PageUp),
            ("pagedown", PageDown),
            ("esc", Escape),
            ("return", Enter),
            ("cr", Enter),
            ("bs", Backspace),
            ("del", Delete),
        ];
        for (name, code) in cases {
            assert_eq!(p(name), Key::plain(code), "{name}");
            assert_eq!(p(&name.to_uppercase()), Key::plain(code), "{name}");
        }
    }

    #[test]
    fn modifiers_on_named_keys() {
        use KeyCode::*;
        assert_eq!(p("shift+tab"), key(Tab, SHIFT));
        assert_eq!(p("Shift+Tab"), key(Tab, SHIFT));
        assert_eq!(p("SHIFT+TAB"), key(Tab, SHIFT));
        assert_eq!(p("shift+enter"), key(Enter, SHIFT));
        assert_eq!(p("alt+enter"), key(Enter, ALT));
        assert_eq!(p("meta+enter"), key(Enter, ALT));
        assert_eq!(p("alt+backspace"), key(Backspace, ALT));
        assert_eq!(p("ctrl+left"), key(Left, CTRL));
        assert_eq!(p("Ctrl+Right"), key(Right, CTRL));
        assert_eq!(p("ctrl+space"), key(Char(' '), CTRL));
        assert_eq!(
            p("ctrl+alt+shift+pagedown"),
            key(
                PageDown,
                Mods {
                    ctrl: true,
                    alt: true,
                    shift: true
                }
            )
        );
        assert_eq!(p("shift+ctrl+tab"), p("ctrl+shift+tab"));
        assert_eq!(p("shift+esc"), key(Escape, SHIFT));
    }

    #[test]
    fn modifiers_on_characters() {
        use KeyCode::Char;
        assert_eq!(p("ctrl+c"), key(Char('c'), CTRL));
        assert_eq!(p("ctrl+C"), key(Char('c'), CTRL));
        assert_eq!(p("CTRL+c"), key(Char('c'), CTRL));
        assert_eq!(p("alt+b"), key(Char('b'), ALT));
        assert_eq!(p("alt+B"), key(Char('b'), ALT));
        assert_eq!(p("meta+f"), key(Char('f'), ALT));
        assert_eq!(p("ctrl+shift+c"), key(Char('c'), CTRL));
        assert_eq!(p("shift+n"), char_key('N'));
        assert_eq!(p("SHIFT+n"), char_key('N'));
        assert_eq!(p("shift+N"), char_key('N'));
        assert_eq!(p("shift+1"), char_key('1'));
        assert_eq!(p("shift+é"), char_key('É'));
        assert_eq!(p("shift+space"), char_key(' '));
        assert_eq!(p("shift+ß"), char_key('ß'));
        assert_eq!(p("ctrl+1"), key(Char('1'), CTRL));
        assert_eq!(p("ctrl++"), key(Char('+'), CTRL));
        assert_eq!(p("ctrl+<"), key(Char('<'), CTRL));
        assert_eq!(p("ctrl+Ä"), key(Char('ä'), CTRL));
    }

    #[test]
    fn single_characters_keep_their_case() {
        for c in [
            'n', 'N', '1', '?', 'é', '한', '<', '>', '+', '-', ' ', 'ß', '😀',
        ] {
            assert_eq!(p(&c.to_string()), char_key(c), "{c:?}");
        }
        assert_ne!(p("n"), p("N"));
    }

    #[test]
    fn vim_forms() {
        use KeyCode::*;
        let cases = [
            ("<Tab>", key(Tab, NONE)),
            ("<S-Tab>", key(Tab, SHIFT)),
            ("<CR>", key(Enter, NONE)),
            ("<Esc>", key(Escape, NONE)),
            ("<Space>", key(Char(' '), NONE)),
            ("<BS>", key(Backspace, NONE)),
            ("<Del>", key(Delete, NONE)),
            ("<Up>", key(Up, NONE)),
            ("<Down>", key(Down, NONE)),
            ("<Left>", key(Left, NONE)),
            ("<Right>", key(Right, NONE)),
            ("<Home>", key(Home, NONE)),
            ("<End>", key(End, NONE)),
            ("<PageUp>", key(PageUp, NONE)),
            ("<PageDown>", key(PageDown, NONE)),
            ("<Enter>", key(Enter, NONE)),
            ("<Return>", key(Enter, NONE)),
            ("<C-x>", key(Char('x'), CTRL)),
            ("<C-X>", key(Char('x'), CTRL)),
            ("<c-x>", key(Char('x'), CTRL)),
            ("<M-x>", key(Char('x'), ALT)),
            ("<A-x>", key(Char('x'), ALT)),
            ("<S-x>", key(Char('X'), NONE)),
            ("<S-1>", key(Char('1'), NONE)),
            ("<lt>", key(Char('<'), NONE)),
            ("<LT>", key(Char('<'), NONE)),
            (
                "<C-S-Tab>",
                key(
                    Tab,
                    Mods {
                        ctrl: true,
                        shift: true,
                        alt: false,
                    },
                ),
            ),
            ("<M-CR>", key(Enter, ALT)),
            ("<C-Left>", key(Left, CTRL)),
            ("<s-tab>", key(Tab, SHIFT)),
            ("<tab>", key(Tab, NONE)),
            ("<C-->", key(Char('-'), CTRL)),
            ("<C-한>", key(Char('한'), CTRL)),
        ];
        for (name, expected) in cases {
            assert_eq!(p(name), expected, "{name}");
        }
    }

    #[test]
    fn unknown_names() {
        assert_eq!(err(""), r#"unknown key """#);
        assert_eq!(err("foo"), r#"unknown key "foo""#);
        assert_eq!(err("ctrl+foo"), r#"unknown key "ctrl+foo""#);
        assert_eq!(err("hyper+x"), r#"unknown key "hyper+x""#);
        assert_eq!(err("ctrl+"), r#"unknown key "ctrl+""#);
        assert_eq!(err("++"), r#"unknown key "++""#);
        assert_eq!(err("shift"), r#"unknown key "shift""#);
        assert_eq!(err("<>"), r#"unknown key "<>""#);
        assert_eq!(err("<Foo>"), r#"unknown key "<Foo>""#);
        assert_eq!(err("<X-Tab>"), r#"unknown key "<X-Tab>""#);
        assert_eq!(err("<C->"), r#"unknown key "<C->""#);
        assert_eq!(err("lt"), r#"unknown key "lt""#);
        assert_eq!(err("C-x"), r#"unknown key "C-x""#);
        assert_eq!(err("ab"), r#"unknown key "ab""#);
        assert_eq!(err("\t"), r#"unknown key "\t""#);
        assert_eq!(err("say \"hi\""), r#"unknown key "say \"hi\"""#);
        assert_eq!(
            Key::parse("nope"),
            Err(KeyError::Unknown("nope".to_owned()))
        );
    }

    #[test]
    fn sequences() {
        use KeyCode::*;
        assert_eq!(
            parse_sequence("2<Tab><Space>n"),
            Ok(vec![
                char_key('2'),
                Key::plain(Tab),
                char_key(' '),
                char_key('n')
            ])
        );
        assert_eq!(parse_sequence("<C-c>"), Ok(vec![key(Char('c'), CTRL)]));
        assert_eq!(
            parse_sequence("a<lt>b"),
            Ok(vec![char_key('a'), char_key('<'), char_key('b')])
        );
        assert_eq!(
            parse_sequence("한é"),
            Ok(vec![char_key('한'), char_key('é')])
        );
        assert_eq!(
            parse_sequence("a>b N"),
            Ok(vec![
                char_key('a'),
                char_key('>'),
                char_key('b'),
                char_key(' '),
                char_key('N')
            ])
        );
        assert_eq!(
            parse_sequence("<S-Tab><M-CR><C-S-Tab>"),
            Ok(vec![
                key(Tab, SHIFT),
                key(Enter, ALT),
                key(
                    Tab,
                    Mods {
                        ctrl: true,
                        shift: true,
                        alt: false
                    }
                )
            ])
        );
        assert_eq!(parse_sequence(""), Ok(vec![]));
    }

    #[test]
    fn sequence_errors() {
        let err = |s: &str| parse_sequence(s).unwrap_err().to_string();
        assert_eq!(err("x<abc"), r#"unknown key "<abc""#);
        assert_eq!(err("<"), r#"unknown key "<""#);
        assert_eq!(err("ab<Foo>cd"), r#"unknown key "<Foo>""#);
        assert_eq!(err("<>"), r#"unknown key "<>""#);
        assert_eq!(err("a\nb"), r#"unknown key "\n""#);
    }

    #[test]
    fn display_names() {
        use KeyCode::*;
        let cases = [
            (key(Tab, NONE), "tab"),
            (key(Tab, SHIFT), "shift+tab"),
            (key(Enter, NONE), "enter"),
            (key(Enter, SHIFT), "shift+enter"),
            (key(Enter, ALT), "alt+enter"),
            (key(Escape, NONE), "escape"),
            (key(Char(' '), NONE), "space"),
            (key(Char(' '), CTRL), "ctrl+space"),
            (key(Backspace, NONE), "backspace"),
            (key(Backspace, ALT), "alt+backspace"),
            (key(Delete, NONE), "delete"),
            (key(Up, NONE), "up"),
            (key(Down, NONE), "down"),
            (key(Left, NONE), "left"),
            (key(Right, NONE), "right"),
            (key(Home, NONE), "home"),
            (key(End, NONE), "end"),
            (key(PageUp, NONE), "pageup"),
            (key(PageDown, NONE), "pagedown"),
            (key(Char('c'), CTRL), "ctrl+c"),
            (key(Char('b'), ALT), "alt+b"),
            (key(Left, CTRL), "ctrl+left"),
            (
                key(
                    Tab,
                    Mods {
                        ctrl: true,
                        alt: true,
                        shift: true,
                    },
                ),
                "ctrl+alt+shift+tab",
            ),
            (key(Char('n'), NONE), "n"),
            (key(Char('N'), NONE), "N"),
            (key(Char('한'), NONE), "한"),
            (key(Char('+'), NONE), "+"),
            (key(Char('+'), CTRL), "ctrl++"),
            (key(Char('<'), NONE), "<"),
        ];
        for (k, name) in cases {
            assert_eq!(k.to_string(), name);
        }
    }

    #[test]
    fn display_round_trip() {
        use KeyCode::*;
        let codes = [
            Up, Down, Left, Right, Tab, Enter, Escape, Backspace, Delete, Home, End, PageUp,
            PageDown,
        ];
        let chars = [
            'a', 'z', 'A', 'Z', 'n', 'N', '0', '1', '9', ' ', '+', '-', '<', '>', '?', '/', '[',
            ']', '\\', '"', '\'', 'é', 'É', 'ß', '한', '😀', '\u{a0}',
        ];
        let mut keys = Vec::new();
        for bits in 0..8u8 {
            let mods = Mods {
                ctrl: bits & 1 != 0,
                alt: bits & 2 != 0,
                shift: bits & 4 != 0,
            };
            keys.extend(codes.iter().map(|&code| key(code, mods)));
            keys.extend(chars.iter().map(|&c| normalized(Char(c), mods)));
        }
        for k in keys {
            let name = k.to_string();
            assert_eq!(Key::parse(&name), Ok(k), "{name}");
        }
    }

    #[test]
    fn parsed_keys_are_in_normal_form() {
        for name in [
            "ctrl+C",
            "alt+Q",
            "shift+q",
            "<S-q>",
            "<M-Q>",
            "shift+1",
            "ctrl+shift+x",
        ] {
            let k = p(name);
            assert!(!k.mods.shift, "{name}");
            assert_eq!(normalized(k.code, k.mods), k, "{name}");
            assert_eq!(p(&k.to_string()), k, "{name}");
        }
    }

    #[test]
    fn serde_uses_names() {
        let keys = vec![p("shift+tab"), p("ctrl+c"), p("N"), p("space")];
        let json = serde_json::to_value(&keys).unwrap();
        assert_eq!(
            json,
            serde_json::json!(["shift+tab", "ctrl+c", "N", "space"])
        );
        let back: Vec<Key> = serde_json::from_value(json).unwrap();
        assert_eq!(back, keys);
        let aliases: Vec<Key> =
            serde_json::from_str(r#"["<S-Tab>", "CTRL+C", "shift+n", "<Space>"]"#).unwrap();
        assert_eq!(aliases, keys);
        let bad = serde_json::from_str::<Key>(r#""ctrl+nope""#).unwrap_err();
        assert!(
            bad.to_string().starts_with(r#"unknown key "ctrl+nope""#),
            "{bad}"
        );
        assert!(serde_json::from_str::<Key>("3").is_err());
    }

    #[test]
    fn constructors() {
        assert_eq!(char_key('x'), key(KeyCode::Char('x'), NONE));
        assert_eq!(Key::plain(KeyCode::Tab), key(KeyCode::Tab, NONE));
        assert_eq!(Mods::default(), NONE);
    }
}
