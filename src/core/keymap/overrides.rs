//! What changes a keymap: a [`Preset`] (`vim`) adds bindings to the defaults, and an override
//! object replaces the keys and key sequences of the actions it names ([`Keymap::with_overrides`];
//! [`Keymap::overrides`] writes one back).

use serde_json::{Map, Value};

use crate::core::key::Key;
use crate::core::text::quoted;

use super::{Action, DEFAULT, Keymap, MAX_SEQUENCE, parsed, sequence_name};

/// Why a keymap override was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeymapError {
    /// The override is not a JSON object.
    #[error("keymap must be an object mapping action names to lists of key names")]
    NotAnObject,
    /// The override names an action that does not exist.
    #[error("unknown keymap action {}", quoted(.0))]
    UnknownAction(String),
    /// The override binds an action to a key name that does not parse.
    #[error("keymap action {}: unknown key {}", quoted(.action.name()), quoted(.key))]
    BadKey {
        /// The action being bound.
        action: Action,
        /// The key name as given.
        key: String,
    },
    /// The value for an action is neither a key name nor a list of key names.
    #[error("keymap action {}: expected a list of key names", quoted(.0.name()))]
    BadValue(Action),
    /// The override binds an action to more than [`MAX_KEYS_PER_ACTION`] keys.
    #[error(
        "keymap action {}: {count} keys given; an action takes at most {MAX_KEYS_PER_ACTION}",
        quoted(.action.name())
    )]
    TooManyKeys {
        /// The action being bound.
        action: Action,
        /// How many keys were given.
        count: usize,
    },
    /// A key sequence with fewer than two or more than [`MAX_SEQUENCE`] keys.
    #[error(
        "keymap action {}: a key sequence holds 2 to {MAX_SEQUENCE} keys",
        quoted(.0.name())
    )]
    SequenceLength(Action),
    /// A key sequence bound to an action of a context where keys are typed.
    #[error(
        "keymap action {}: key sequences bind only main and review actions",
        quoted(.0.name())
    )]
    SequenceContext(Action),
    /// A key or sequence that would make another unreachable: a key that starts a sequence
    /// of the same context, or a sequence that starts another.
    #[error(
        "keymap action {}: {} starts the sequence {} of {}",
        quoted(.action.name()),
        quoted(.keys),
        quoted(.sequence),
        quoted(.other.name())
    )]
    SequenceConflict {
        /// The action whose key or sequence starts the other's sequence.
        action: Action,
        /// That key or sequence, named as hints name it.
        keys: String,
        /// The longer sequence, named as hints name it.
        sequence: String,
        /// The action bound to the longer sequence.
        other: Action,
    },
}

/// A set of bindings added to the defaults before any override (`keymapPreset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// The documented defaults, nothing added.
    Default,
    /// Vim habits in `options` and `review` focus: `j`/`k` rows, `h`/`l` tabs, `gg`/`G` first
    /// and last, `ctrl+d`/`ctrl+u` a page down and up, `q` cancel. Editors are unchanged.
    Vim,
}

/// One action's keys and key sequences in a preset, by canonical name.
type PresetBinding = (
    Action,
    &'static [&'static str],
    &'static [&'static [&'static str]],
);

/// What the `vim` preset adds: per action, keys and key sequences.
const VIM: &[PresetBinding] = &[
    (Action::MainDown, &["j"], &[]),
    (Action::MainUp, &["k"], &[]),
    (Action::MainPrevTab, &["h"], &[]),
    (Action::MainNextTab, &["l"], &[]),
    (Action::MainFirst, &[], &[&["g", "g"]]),
    (Action::MainLast, &["G"], &[]),
    (Action::MainPageDown, &["ctrl+d"], &[]),
    (Action::MainPageUp, &["ctrl+u"], &[]),
    (Action::MainCancel, &["q"], &[]),
    (Action::ReviewDown, &["j"], &[]),
    (Action::ReviewUp, &["k"], &[]),
    (Action::ReviewPrevTab, &["h"], &[]),
    (Action::ReviewNextTab, &["l"], &[]),
    (Action::ReviewFirst, &["ctrl+u"], &[&["g", "g"]]),
    (Action::ReviewLast, &["G", "ctrl+d"], &[]),
    (Action::ReviewCancel, &["q"], &[]),
];

/// Most keys one keymap override may bind an action to.
pub const MAX_KEYS_PER_ACTION: usize = 16;

impl Keymap {
    /// This keymap with `preset`'s bindings added after each action's own keys (keys it
    /// already has are not repeated).
    pub fn with_preset(&self, preset: Preset) -> Keymap {
        let table = match preset {
            Preset::Default => return self.clone(),
            Preset::Vim => VIM,
        };
        let mut bindings = self.bindings.clone();
        let mut sequences = self.sequences.clone();
        for &(action, keys, added) in table {
            let own = &mut bindings[action as usize];
            for key in parsed(keys) {
                if !own.contains(&key) {
                    own.push(key);
                }
            }
            let own = &mut sequences[action as usize];
            for added in added {
                let keys: Box<[Key]> = parsed(added).into();
                if !own.contains(&keys) {
                    own.push(keys);
                }
            }
        }
        Keymap::from_bindings(bindings, sequences)
    }

    /// This keymap with `overrides` applied: a JSON object
    /// `{ "<context>.<action>": ["<key>", ["<key>", "<key>"], ...] }` whose lists replace the
    /// keys of the named actions (an empty list unbinds; a single string is a one-key list; an
    /// inner list is a key sequence). On any error nothing is applied. An action takes at most
    /// [`MAX_KEYS_PER_ACTION`] keys, those of its key sequences included, which keeps the work
    /// bounded: a list of more is refused before any key is parsed.
    pub fn with_overrides(&self, overrides: &Value) -> Result<Keymap, KeymapError> {
        let entries = overrides.as_object().ok_or(KeymapError::NotAnObject)?;
        let mut bindings = self.bindings.clone();
        let mut sequences = self.sequences.clone();
        for (name, value) in entries {
            let action =
                Action::from_name(name).ok_or_else(|| KeymapError::UnknownAction(name.clone()))?;
            // Every key counts, those of key sequences too; a sequence's own length is checked
            // once its keys are parsed.
            if let Some(entries) = value.as_array() {
                let count = entries
                    .iter()
                    .map(|entry| entry.as_array().map_or(1, Vec::len))
                    .fold(0usize, usize::saturating_add);
                if count > MAX_KEYS_PER_ACTION {
                    return Err(KeymapError::TooManyKeys { action, count });
                }
            }
            let (keys, seqs) = parse_binding(action, value)?;
            bindings[action as usize] = keys;
            sequences[action as usize] = seqs;
        }
        let keymap = Keymap::from_bindings(bindings, sequences);
        keymap.check_sequences()?;
        Ok(keymap)
    }

    /// Refuses a keymap where a key or sequence would never be reached: a key that starts a
    /// sequence of its own context, or a sequence that starts a longer one.
    fn check_sequences(&self) -> Result<(), KeymapError> {
        for (other, sequence) in &self.sequence_index {
            let context = other.context();
            let conflict = |action: Action, keys: String| KeymapError::SequenceConflict {
                action,
                keys,
                sequence: sequence_name(sequence),
                other: *other,
            };
            if let Some(action) = self.actions(context, sequence[0]).next() {
                return Err(conflict(action, sequence[0].to_string()));
            }
            for (action, shorter) in &self.sequence_index {
                if action.context() == context
                    && shorter.len() < sequence.len()
                    && sequence.starts_with(shorter)
                {
                    return Err(conflict(*action, sequence_name(shorter)));
                }
            }
        }
        Ok(())
    }

    /// The bindings that differ from the defaults, as an override object (in `Action::ALL`
    /// order, keys by canonical name, sequences as lists of them), so that
    /// `Keymap::default().with_overrides(&k.overrides())` rebuilds `k`.
    pub fn overrides(&self) -> Value {
        let changed = Action::ALL
            .iter()
            .filter(|&&action| {
                self.keys(action) != DEFAULT.keys(action)
                    || self.sequences(action) != DEFAULT.sequences(action)
            })
            .map(|&action| {
                let keys = self.keys(action).iter().map(|k| Value::from(k.to_string()));
                let sequences = self
                    .sequences(action)
                    .iter()
                    .map(|s| Value::Array(s.iter().map(|k| Value::from(k.to_string())).collect()));
                (
                    action.name().to_owned(),
                    Value::Array(keys.chain(sequences).collect()),
                )
            });
        Value::Object(changed.collect::<Map<_, _>>())
    }
}

/// The keys and the key sequences of one action.
type Binding = (Vec<Key>, Vec<Box<[Key]>>);

/// The keys and key sequences an override value binds `action` to, each in order, without
/// repeats.
fn parse_binding(action: Action, value: &Value) -> Result<Binding, KeymapError> {
    let items: Vec<&Value> = match value {
        Value::String(_) => vec![value],
        Value::Array(items) => items.iter().collect(),
        _ => return Err(KeymapError::BadValue(action)),
    };
    let key = |item: &Value| {
        let name = item.as_str().ok_or(KeymapError::BadValue(action))?;
        Key::parse(name).map_err(|_| KeymapError::BadKey {
            action,
            key: name.to_owned(),
        })
    };
    let mut keys = Vec::with_capacity(items.len());
    let mut sequences: Vec<Box<[Key]>> = Vec::new();
    for item in items {
        match item {
            Value::Array(parts) => {
                let sequence = parts.iter().map(key).collect::<Result<Vec<_>, _>>()?;
                if !(2..=MAX_SEQUENCE).contains(&sequence.len()) {
                    return Err(KeymapError::SequenceLength(action));
                }
                if !action.context().takes_sequences() {
                    return Err(KeymapError::SequenceContext(action));
                }
                let sequence: Box<[Key]> = sequence.into();
                if !sequences.contains(&sequence) {
                    sequences.push(sequence);
                }
            }
            _ => {
                let key = key(item)?;
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
        }
    }
    Ok((keys, sequences))
}
