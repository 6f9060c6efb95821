//! The keymap: keys bound to named actions, per context, as data.
//!
//! Every action has a wire name `<context>.<action>` (`main.nextTab`, `editor.submit`) and
//! default keys. A client replaces the keys of any action with an override object
//! `{ "<context>.<action>": ["<key>", ...] }`. Several actions of one context may share a key
//! (`editor.nextTab` and `editor.cursorRight` both default to `right`): a lookup returns all
//! of them and the engine picks by state. Digits `1`..`9` are not actions.
//!
//! A key press is looked up once: [`Keymap::bound`] answers every action bound to the key, in
//! every context, as an [`ActionSet`] that the engine then narrows to the contexts it needs.
//!
//! An action of the `main` and `review` contexts may also be bound to a key sequence of two to
//! four keys (`["g", "g"]` in an override; `g g` in hints), which [`Keymap::sequence`] matches
//! against the keys pressed so far. A key that starts a sequence of a context is bound to no
//! action of that context by itself, and no sequence starts another (an override that would
//! break either is refused). A [`Preset`] adds a set of bindings (`vim`) before any override.
//!
//! This file holds the [`Keymap`] and its lookups; `action.rs` the actions and their sets,
//! `overrides.rs` what changes a keymap (presets, overrides and their errors).

mod action;
mod overrides;
#[cfg(test)]
mod tests;

pub use action::{Action, ActionSet, Context};
pub use overrides::{KeymapError, MAX_KEYS_PER_ACTION, Preset};

use std::sync::LazyLock;

use crate::core::key::{Key, KeyCode};

/// Most keys in a key sequence.
pub const MAX_SEQUENCE: usize = 4;

/// How the keys pressed so far stand against the key sequences of a context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SequenceMatch {
    /// They are a whole sequence of this action.
    Complete(Action),
    /// They begin a sequence: wait for the next key.
    Prefix,
    /// No sequence begins with them.
    None,
}

/// Keys bound to actions, with an index from each bound key to its actions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keymap {
    /// Keys of each action, indexed by `Action as usize`, in binding order, without repeats.
    bindings: Vec<Vec<Key>>,
    /// Key sequences of each action, indexed by `Action as usize`, in binding order.
    sequences: Vec<Vec<Box<[Key]>>>,
    /// Every key sequence with its action, for lookups (empty for most keymaps).
    sequence_index: Vec<(Action, Box<[Key]>)>,
    /// The canonical names of those keys, then of those sequences, for hints.
    names: Vec<KeyNames>,
    /// The actions bound to each key that has a [`slot`], indexed by slot.
    direct: Box<[ActionSet; SLOTS]>,
    /// The actions bound to each other key, as (packed key, actions), sorted by packed key.
    others: Vec<(u32, ActionSet)>,
}

/// Canonical key names (`up`, `ctrl+c`, `n`, `g g`), shared: a hint lists them without copying.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyNames(std::sync::Arc<[String]>);

impl KeyNames {
    /// The names of the digit keys `1` to `n` (`n` from 1 to 9).
    pub fn digits(n: usize) -> KeyNames {
        static DIGITS: std::sync::OnceLock<Vec<KeyNames>> = std::sync::OnceLock::new();
        let all = DIGITS.get_or_init(|| {
            (1..=9)
                .map(|n| KeyNames((1..=n).map(|d| d.to_string()).collect()))
                .collect()
        });
        all[n.clamp(1, 9) - 1].clone()
    }
}

impl From<Vec<String>> for KeyNames {
    fn from(names: Vec<String>) -> KeyNames {
        KeyNames(names.into())
    }
}

impl std::ops::Deref for KeyNames {
    type Target = [String];

    fn deref(&self) -> &[String] {
        &self.0
    }
}

impl serde::Serialize for KeyNames {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter())
    }
}

/// The name of a key sequence: its keys' canonical names, separated by spaces (`g g`).
pub fn sequence_name(keys: &[Key]) -> String {
    keys.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Named keys (`Up` … `PageDown`), numbered by [`named_number`].
const NAMED_KEYS: usize = 13;

/// Keys looked up without a search: ASCII characters and named keys, unmodified or with Shift.
const SLOTS: usize = 2 * (128 + NAMED_KEYS);

/// The direct-lookup slot of `key`, when it has one.
fn slot(key: Key) -> Option<usize> {
    if key.mods.ctrl || key.mods.alt {
        return None;
    }
    let base = match key.code {
        KeyCode::Char(c) if c.is_ascii() => c as usize,
        KeyCode::Char(_) => return None,
        named => 128 + named_number(named) as usize,
    };
    Some(base + usize::from(key.mods.shift) * (SLOTS / 2))
}

/// Parses the canonical key names of a built-in table (they are valid by construction).
fn parsed(names: &[&str]) -> Vec<Key> {
    names
        .iter()
        .map(|name| Key::parse(name).expect("built-in key names are valid"))
        .collect()
}

/// The default keymap, parsed once.
static DEFAULT: LazyLock<Keymap> = LazyLock::new(|| {
    Keymap::from_bindings(
        Action::ALL
            .iter()
            .map(|action| parsed(action.default_keys()))
            .collect(),
        vec![Vec::new(); Action::ALL.len()],
    )
});

impl Default for Keymap {
    /// The documented default bindings.
    fn default() -> Keymap {
        DEFAULT.clone()
    }
}

impl Keymap {
    /// Builds the lookup index for `bindings` and `sequences` (one list per action, in
    /// `Action::ALL` order).
    fn from_bindings(bindings: Vec<Vec<Key>>, sequences: Vec<Vec<Box<[Key]>>>) -> Keymap {
        let mut direct = Box::new([ActionSet::EMPTY; SLOTS]);
        let mut others: Vec<(u32, ActionSet)> = Vec::new();
        for (&action, keys) in Action::ALL.iter().zip(&bindings) {
            for &key in keys {
                let set = match slot(key) {
                    Some(s) => &mut direct[s],
                    None => {
                        let key = packed(key);
                        let at = others
                            .binary_search_by_key(&key, |&(bound, _)| bound)
                            .unwrap_or_else(|at| {
                                others.insert(at, (key, ActionSet::EMPTY));
                                at
                            });
                        &mut others[at].1
                    }
                };
                set.insert(action);
            }
        }
        let names = bindings
            .iter()
            .zip(&sequences)
            .map(|(keys, sequences)| {
                let keys = keys.iter().map(ToString::to_string);
                let sequences = sequences.iter().map(|s| sequence_name(s));
                KeyNames(keys.chain(sequences).collect())
            })
            .collect();
        let sequence_index = Action::ALL
            .iter()
            .zip(&sequences)
            .flat_map(|(&action, list)| list.iter().map(move |s| (action, s.clone())))
            .collect();
        Keymap {
            bindings,
            sequences,
            sequence_index,
            names,
            direct,
            others,
        }
    }

    /// The canonical names of the keys bound to `action`, then of its key sequences, in order.
    pub fn key_names(&self, action: Action) -> KeyNames {
        self.names[action as usize].clone()
    }

    /// The keys bound to `action`, in the order they were given.
    pub fn keys(&self, action: Action) -> &[Key] {
        &self.bindings[action as usize]
    }

    /// The key sequences bound to `action`, in the order they were given.
    pub fn sequences(&self, action: Action) -> &[Box<[Key]>] {
        &self.sequences[action as usize]
    }

    /// Whether any action is bound to a key sequence.
    pub fn has_sequences(&self) -> bool {
        !self.sequence_index.is_empty()
    }

    /// How the keys `pressed` so far (one or more) stand against the sequences of `context`:
    /// a whole sequence (its first action in `Action::ALL` order), the start of one, or neither.
    pub fn sequence(&self, context: Context, pressed: &[Key]) -> SequenceMatch {
        let mut found = SequenceMatch::None;
        for (action, keys) in &self.sequence_index {
            if action.context() != context || !keys.starts_with(pressed) {
                continue;
            }
            if keys.len() == pressed.len() {
                return SequenceMatch::Complete(*action);
            }
            found = SequenceMatch::Prefix;
        }
        found
    }

    /// Every action bound to `key`, in every context.
    pub fn bound(&self, key: Key) -> ActionSet {
        match slot(key) {
            Some(s) => self.direct[s],
            None => self
                .others
                .binary_search_by_key(&packed(key), |&(bound, _)| bound)
                .map_or(ActionSet::EMPTY, |at| self.others[at].1),
        }
    }

    /// Every action of `context` bound to `key`, in `Action::ALL` order. Only actions of that
    /// very context are returned (look up [`Context::Global`] separately).
    pub fn actions(&self, context: Context, key: Key) -> impl Iterator<Item = Action> {
        self.bound(key).in_context(context).iter()
    }
}

/// `key` as one integer, equal for equal keys, so that lookups compare integers: the
/// character (below `0x11_0000`) or a number above it for a named key, with the modifiers in
/// the high bits.
fn packed(key: Key) -> u32 {
    const NAMED: u32 = 0x11_0000;
    let code = match key.code {
        KeyCode::Char(c) => u32::from(c),
        named => NAMED + named_number(named),
    };
    let mods = key.mods;
    code | u32::from(mods.ctrl) << 24 | u32::from(mods.alt) << 25 | u32::from(mods.shift) << 26
}

/// The number of a named key, from 0 (`Up`) to 12 (`PageDown`). A character key has none and
/// counts as 0: callers take characters apart first. (Numbered in declaration order, the match
/// compiles to a subtraction rather than a jump table.)
fn named_number(code: KeyCode) -> u32 {
    match code {
        KeyCode::Up | KeyCode::Char(_) => 0,
        KeyCode::Down => 1,
        KeyCode::Left => 2,
        KeyCode::Right => 3,
        KeyCode::Tab => 4,
        KeyCode::Enter => 5,
        KeyCode::Escape => 6,
        KeyCode::Backspace => 7,
        KeyCode::Delete => 8,
        KeyCode::Home => 9,
        KeyCode::End => 10,
        KeyCode::PageUp => 11,
        KeyCode::PageDown => 12,
    }
}
