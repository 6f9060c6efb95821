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

use std::sync::LazyLock;

use serde_json::{Map, Value};

use crate::core::key::{Key, KeyCode};
use crate::core::text::quoted;

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Context {
    /// Every focus (`global`).
    Global,
    /// A question tab, `options` focus (`main`).
    Main,
    /// The review tab (`review`).
    Review,
    /// The custom-answer editor, `input` focus (`editor`).
    Editor,
    /// A note editor, `note` focus (`noteEditor`).
    NoteEditor,
    /// The filter editor of a long list, `filter` focus (`filter`).
    Filter,
}

impl Context {
    /// Every context, in declaration order.
    pub const ALL: &'static [Context] = &[
        Context::Global,
        Context::Main,
        Context::Review,
        Context::Editor,
        Context::NoteEditor,
        Context::Filter,
    ];

    /// The wire name: `global`, `main`, `review`, `editor` or `noteEditor`.
    pub fn name(self) -> &'static str {
        match self {
            Context::Global => "global",
            Context::Main => "main",
            Context::Review => "review",
            Context::Editor => "editor",
            Context::NoteEditor => "noteEditor",
            Context::Filter => "filter",
        }
    }

    /// Whether actions of the context may be bound to key sequences (`main` and `review`: no
    /// text is typed there).
    pub fn takes_sequences(self) -> bool {
        matches!(self, Context::Main | Context::Review)
    }
}

/// Declares [`Action`] and its tables from one list:
/// `Variant = Context, "wire.name", "description", ["default", "keys"]`.
macro_rules! actions {
    ($($variant:ident = $context:ident, $name:literal, $description:literal, [$($key:literal),*];)*) => {
        /// A named action a key can be bound to.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Action {
            $(
                #[doc = concat!("`", $name, "`: ", $description, ".")]
                $variant,
            )*
        }

        impl Action {
            /// Every action, in the documented order (lookups return actions in this order).
            pub const ALL: &'static [Action] = &[$(Action::$variant),*];

            /// The wire name, `<context>.<action>` (e.g. `main.nextTab`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Action::$variant => $name,)*
                }
            }

            /// The context the action belongs to.
            pub const fn context(self) -> Context {
                match self {
                    $(Action::$variant => Context::$context,)*
                }
            }

            /// Short hint text for the action (e.g. `next tab`, `toggle`, `save`).
            pub fn description(self) -> &'static str {
                match self {
                    $(Action::$variant => $description,)*
                }
            }

            /// The canonical names of the keys bound to the action by default.
            pub fn default_keys(self) -> &'static [&'static str] {
                match self {
                    $(Action::$variant => &[$($key),*],)*
                }
            }
        }
    };
}

actions! {
    GlobalDismiss = Global, "global.dismiss", "dismiss", ["ctrl+c"];
    GlobalHelp = Global, "global.help", "help", ["?"];

    MainNextTab = Main, "main.nextTab", "next tab", ["tab", "right"];
    MainPrevTab = Main, "main.prevTab", "previous tab", ["shift+tab", "left"];
    MainDown = Main, "main.down", "down", ["down"];
    MainUp = Main, "main.up", "up", ["up"];
    MainPageDown = Main, "main.pageDown", "page down", ["pagedown"];
    MainPageUp = Main, "main.pageUp", "page up", ["pageup"];
    MainFirst = Main, "main.first", "first", ["home"];
    MainLast = Main, "main.last", "last", ["end"];
    MainFilter = Main, "main.filter", "filter", ["/"];
    MainConfirm = Main, "main.confirm", "confirm", ["enter"];
    MainToggle = Main, "main.toggle", "toggle", ["space"];
    MainOptionNote = Main, "main.optionNote", "option note", ["n"];
    MainQuestionNote = Main, "main.questionNote", "question note", ["N"];
    MainChangeQuestionType = Main, "main.changeQuestionType", "question type", ["t"];
    MainCancel = Main, "main.cancel", "cancel", ["escape"];

    ReviewNextTab = Review, "review.nextTab", "next tab", ["tab", "right"];
    ReviewPrevTab = Review, "review.prevTab", "previous tab", ["shift+tab", "left"];
    ReviewDown = Review, "review.down", "down", ["down"];
    ReviewUp = Review, "review.up", "up", ["up"];
    ReviewFirst = Review, "review.first", "first", ["home", "pageup"];
    ReviewLast = Review, "review.last", "last", ["end", "pagedown"];
    ReviewConfirm = Review, "review.confirm", "confirm", ["enter"];
    ReviewCancel = Review, "review.cancel", "cancel", ["escape"];

    EditorSubmit = Editor, "editor.submit", "save", ["enter"];
    EditorClose = Editor, "editor.close", "close", ["escape"];
    EditorUp = Editor, "editor.up", "up", ["up"];
    EditorDown = Editor, "editor.down", "down", ["down"];
    EditorPageDown = Editor, "editor.pageDown", "page down", ["pagedown"];
    EditorPageUp = Editor, "editor.pageUp", "page up", ["pageup"];
    EditorNextTab = Editor, "editor.nextTab", "next tab", ["tab", "right"];
    EditorPrevTab = Editor, "editor.prevTab", "previous tab", ["shift+tab", "left"];
    EditorCursorLeft = Editor, "editor.cursorLeft", "cursor left", ["left"];
    EditorCursorRight = Editor, "editor.cursorRight", "cursor right", ["right"];
    EditorLineStart = Editor, "editor.lineStart", "line start", ["home", "ctrl+a"];
    EditorLineEnd = Editor, "editor.lineEnd", "line end", ["end", "ctrl+e"];
    EditorWordLeft = Editor, "editor.wordLeft", "word left", ["alt+b", "ctrl+left"];
    EditorWordRight = Editor, "editor.wordRight", "word right", ["alt+f", "ctrl+right"];
    EditorDeleteBack = Editor, "editor.deleteBack", "delete back", ["backspace"];
    EditorDeleteForward = Editor, "editor.deleteForward", "delete forward", ["delete"];
    EditorDeleteWordBack = Editor, "editor.deleteWordBack", "delete word", ["ctrl+w", "alt+backspace"];
    EditorDeleteToLineStart = Editor, "editor.deleteToLineStart", "delete to line start", ["ctrl+u"];
    EditorDeleteToLineEnd = Editor, "editor.deleteToLineEnd", "delete to line end", ["ctrl+k"];
    EditorNewline = Editor, "editor.newline", "new line", ["shift+enter", "alt+enter"];

    NoteEditorSubmit = NoteEditor, "noteEditor.submit", "save", ["enter"];
    NoteEditorClose = NoteEditor, "noteEditor.close", "close", ["escape"];
    NoteEditorUp = NoteEditor, "noteEditor.up", "up", ["up"];
    NoteEditorDown = NoteEditor, "noteEditor.down", "down", ["down"];
    NoteEditorPageDown = NoteEditor, "noteEditor.pageDown", "page down", ["pagedown"];
    NoteEditorPageUp = NoteEditor, "noteEditor.pageUp", "page up", ["pageup"];
    NoteEditorNextTab = NoteEditor, "noteEditor.nextTab", "next tab", ["tab", "right"];
    NoteEditorPrevTab = NoteEditor, "noteEditor.prevTab", "previous tab", ["shift+tab", "left"];

    FilterAccept = Filter, "filter.accept", "done", ["enter"];
    FilterClear = Filter, "filter.clear", "clear filter", ["escape"];
    FilterUp = Filter, "filter.up", "up", ["up"];
    FilterDown = Filter, "filter.down", "down", ["down"];
    FilterNextTab = Filter, "filter.nextTab", "next tab", ["tab"];
    FilterPrevTab = Filter, "filter.prevTab", "previous tab", ["shift+tab"];
}

impl Action {
    /// The action with wire name `s` (exact, case-sensitive), if any.
    pub fn from_name(s: &str) -> Option<Action> {
        Action::ALL.iter().copied().find(|a| a.name() == s)
    }
}

/// A set of actions, one bit per action (bit `Action as usize`); it iterates in
/// `Action::ALL` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ActionSet(u64);

// Every action needs its own bit.
const _: () = assert!(Action::ALL.len() <= u64::BITS as usize);

/// The actions of each context, indexed by `Context as usize`.
const CONTEXT_ACTIONS: [ActionSet; Context::ALL.len()] = {
    let mut sets = [ActionSet::EMPTY; Context::ALL.len()];
    let mut i = 0;
    while i < Action::ALL.len() {
        let action = Action::ALL[i];
        sets[action.context() as usize].0 |= 1 << action as u32;
        i += 1;
    }
    sets
};

impl ActionSet {
    /// No action.
    pub const EMPTY: ActionSet = ActionSet(0);

    /// Whether `action` is in the set.
    pub fn contains(self, action: Action) -> bool {
        self.0 & 1 << action as u32 != 0
    }

    /// The actions of the set that belong to `context`.
    pub fn in_context(self, context: Context) -> ActionSet {
        ActionSet(self.0 & CONTEXT_ACTIONS[context as usize].0)
    }

    /// The first action of the set in `Action::ALL` order.
    pub fn first(self) -> Option<Action> {
        self.iter().next()
    }

    /// The actions of the set, in `Action::ALL` order.
    pub fn iter(self) -> impl Iterator<Item = Action> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let at = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(Action::ALL[at])
        })
    }

    /// Adds `action` to the set.
    fn insert(&mut self, action: Action) {
        self.0 |= 1 << action as u32;
    }
}

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

/// Most keys in a key sequence.
pub const MAX_SEQUENCE: usize = 4;

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

/// Most keys one keymap override may bind an action to.
pub const MAX_KEYS_PER_ACTION: usize = 16;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::key::{KeyCode, Mods, char_key};
    use Action::*;
    use serde_json::json;

    fn k(name: &str) -> Key {
        Key::parse(name).unwrap()
    }

    fn lookup(map: &Keymap, context: Context, key: &str) -> Vec<Action> {
        lookup_key(map, context, k(key))
    }

    fn lookup_key(map: &Keymap, context: Context, key: Key) -> Vec<Action> {
        map.actions(context, key).collect()
    }

    /// Every action with its expected wire name, context, description and default keys.
    const EXPECTED: &[(Action, &str, Context, &str, &[&str])] = &[
        (
            GlobalDismiss,
            "global.dismiss",
            Context::Global,
            "dismiss",
            &["ctrl+c"],
        ),
        (GlobalHelp, "global.help", Context::Global, "help", &["?"]),
        (
            MainNextTab,
            "main.nextTab",
            Context::Main,
            "next tab",
            &["tab", "right"],
        ),
        (
            MainPrevTab,
            "main.prevTab",
            Context::Main,
            "previous tab",
            &["shift+tab", "left"],
        ),
        (MainDown, "main.down", Context::Main, "down", &["down"]),
        (MainUp, "main.up", Context::Main, "up", &["up"]),
        (
            MainPageDown,
            "main.pageDown",
            Context::Main,
            "page down",
            &["pagedown"],
        ),
        (
            MainPageUp,
            "main.pageUp",
            Context::Main,
            "page up",
            &["pageup"],
        ),
        (MainFirst, "main.first", Context::Main, "first", &["home"]),
        (MainLast, "main.last", Context::Main, "last", &["end"]),
        (MainFilter, "main.filter", Context::Main, "filter", &["/"]),
        (
            MainConfirm,
            "main.confirm",
            Context::Main,
            "confirm",
            &["enter"],
        ),
        (
            MainToggle,
            "main.toggle",
            Context::Main,
            "toggle",
            &["space"],
        ),
        (
            MainOptionNote,
            "main.optionNote",
            Context::Main,
            "option note",
            &["n"],
        ),
        (
            MainQuestionNote,
            "main.questionNote",
            Context::Main,
            "question note",
            &["N"],
        ),
        (
            MainChangeQuestionType,
            "main.changeQuestionType",
            Context::Main,
            "question type",
            &["t"],
        ),
        (
            MainCancel,
            "main.cancel",
            Context::Main,
            "cancel",
            &["escape"],
        ),
        (
            ReviewNextTab,
            "review.nextTab",
            Context::Review,
            "next tab",
            &["tab", "right"],
        ),
        (
            ReviewPrevTab,
            "review.prevTab",
            Context::Review,
            "previous tab",
            &["shift+tab", "left"],
        ),
        (
            ReviewDown,
            "review.down",
            Context::Review,
            "down",
            &["down"],
        ),
        (ReviewUp, "review.up", Context::Review, "up", &["up"]),
        (
            ReviewFirst,
            "review.first",
            Context::Review,
            "first",
            &["home", "pageup"],
        ),
        (
            ReviewLast,
            "review.last",
            Context::Review,
            "last",
            &["end", "pagedown"],
        ),
        (
            ReviewConfirm,
            "review.confirm",
            Context::Review,
            "confirm",
            &["enter"],
        ),
        (
            ReviewCancel,
            "review.cancel",
            Context::Review,
            "cancel",
            &["escape"],
        ),
        (
            EditorSubmit,
            "editor.submit",
            Context::Editor,
            "save",
            &["enter"],
        ),
        (
            EditorClose,
            "editor.close",
            Context::Editor,
            "close",
            &["escape"],
        ),
        (EditorUp, "editor.up", Context::Editor, "up", &["up"]),
        (
            EditorDown,
            "editor.down",
            Context::Editor,
            "down",
            &["down"],
        ),
        (
            EditorPageDown,
            "editor.pageDown",
            Context::Editor,
            "page down",
            &["pagedown"],
        ),
        (
            EditorPageUp,
            "editor.pageUp",
            Context::Editor,
            "page up",
            &["pageup"],
        ),
        (
            EditorNextTab,
            "editor.nextTab",
            Context::Editor,
            "next tab",
            &["tab", "right"],
        ),
        (
            EditorPrevTab,
            "editor.prevTab",
            Context::Editor,
            "previous tab",
            &["shift+tab", "left"],
        ),
        (
            EditorCursorLeft,
            "editor.cursorLeft",
            Context::Editor,
            "cursor left",
            &["left"],
        ),
        (
            EditorCursorRight,
            "editor.cursorRight",
            Context::Editor,
            "cursor right",
            &["right"],
        ),
        (
            EditorLineStart,
            "editor.lineStart",
            Context::Editor,
            "line start",
            &["home", "ctrl+a"],
        ),
        (
            EditorLineEnd,
            "editor.lineEnd",
            Context::Editor,
            "line end",
            &["end", "ctrl+e"],
        ),
        (
            EditorWordLeft,
            "editor.wordLeft",
            Context::Editor,
            "word left",
            &["alt+b", "ctrl+left"],
        ),
        (
            EditorWordRight,
            "editor.wordRight",
            Context::Editor,
            "word right",
            &["alt+f", "ctrl+right"],
        ),
        (
            EditorDeleteBack,
            "editor.deleteBack",
            Context::Editor,
            "delete back",
            &["backspace"],
        ),
        (
            EditorDeleteForward,
            "editor.deleteForward",
            Context::Editor,
            "delete forward",
            &["delete"],
        ),
        (
            EditorDeleteWordBack,
            "editor.deleteWordBack",
            Context::Editor,
            "delete word",
            &["ctrl+w", "alt+backspace"],
        ),
        (
            EditorDeleteToLineStart,
            "editor.deleteToLineStart",
            Context::Editor,
            "delete to line start",
            &["ctrl+u"],
        ),
        (
            EditorDeleteToLineEnd,
            "editor.deleteToLineEnd",
            Context::Editor,
            "delete to line end",
            &["ctrl+k"],
        ),
        (
            EditorNewline,
            "editor.newline",
            Context::Editor,
            "new line",
            &["shift+enter", "alt+enter"],
        ),
        (
            NoteEditorSubmit,
            "noteEditor.submit",
            Context::NoteEditor,
            "save",
            &["enter"],
        ),
        (
            NoteEditorClose,
            "noteEditor.close",
            Context::NoteEditor,
            "close",
            &["escape"],
        ),
        (
            NoteEditorUp,
            "noteEditor.up",
            Context::NoteEditor,
            "up",
            &["up"],
        ),
        (
            NoteEditorDown,
            "noteEditor.down",
            Context::NoteEditor,
            "down",
            &["down"],
        ),
        (
            NoteEditorPageDown,
            "noteEditor.pageDown",
            Context::NoteEditor,
            "page down",
            &["pagedown"],
        ),
        (
            NoteEditorPageUp,
            "noteEditor.pageUp",
            Context::NoteEditor,
            "page up",
            &["pageup"],
        ),
        (
            NoteEditorNextTab,
            "noteEditor.nextTab",
            Context::NoteEditor,
            "next tab",
            &["tab", "right"],
        ),
        (
            NoteEditorPrevTab,
            "noteEditor.prevTab",
            Context::NoteEditor,
            "previous tab",
            &["shift+tab", "left"],
        ),
        (
            FilterAccept,
            "filter.accept",
            Context::Filter,
            "done",
            &["enter"],
        ),
        (
            FilterClear,
            "filter.clear",
            Context::Filter,
            "clear filter",
            &["escape"],
        ),
        (FilterUp, "filter.up", Context::Filter, "up", &["up"]),
        (
            FilterDown,
            "filter.down",
            Context::Filter,
            "down",
            &["down"],
        ),
        (
            FilterNextTab,
            "filter.nextTab",
            Context::Filter,
            "next tab",
            &["tab"],
        ),
        (
            FilterPrevTab,
            "filter.prevTab",
            Context::Filter,
            "previous tab",
            &["shift+tab"],
        ),
    ];

    #[test]
    fn action_table() {
        assert_eq!(Action::ALL.len(), EXPECTED.len());
        for (i, &(action, name, context, description, keys)) in EXPECTED.iter().enumerate() {
            assert_eq!(Action::ALL[i], action);
            assert_eq!(action as usize, i);
            assert_eq!(action.name(), name);
            assert_eq!(action.context(), context);
            assert_eq!(action.description(), description);
            assert_eq!(action.default_keys(), keys);
            assert_eq!(Action::from_name(name), Some(action));
            assert!(name.starts_with(&format!("{}.", context.name())), "{name}");
        }
        let mut sorted = Action::ALL.to_vec();
        sorted.sort();
        assert_eq!(sorted, Action::ALL);
    }

    #[test]
    fn from_name_rejects_unknown_names() {
        for name in [
            "",
            "main",
            "main.foo",
            "Main.nextTab",
            "main.nexttab",
            "nextTab",
            "global.dismiss ",
        ] {
            assert_eq!(Action::from_name(name), None, "{name:?}");
        }
    }

    #[test]
    fn context_names() {
        let names: Vec<_> = Context::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(
            names,
            ["global", "main", "review", "editor", "noteEditor", "filter"]
        );
        for (i, &context) in Context::ALL.iter().enumerate() {
            assert_eq!(context as usize, i);
        }
    }

    /// Every key code of interest (ASCII and other characters, every named key) under every
    /// combination of modifiers.
    fn sample_keys() -> Vec<Key> {
        use KeyCode::*;
        let codes = [
            Char('a'),
            Char('A'),
            Char(' '),
            Char('\u{0}'),
            Char('\u{7f}'),
            Char('\u{80}'),
            Char('c'),
            Char('n'),
            Char('N'),
            Char('x'),
            Char('é'),
            Char('한'),
            Char('\u{10ffff}'),
            Up,
            Down,
            Left,
            Right,
            Tab,
            Enter,
            Escape,
            Backspace,
            Delete,
            Home,
            End,
            PageUp,
            PageDown,
        ];
        let mut keys = Vec::new();
        for bits in 0..8u8 {
            let mods = Mods {
                ctrl: bits & 1 != 0,
                alt: bits & 2 != 0,
                shift: bits & 4 != 0,
            };
            keys.extend(codes.iter().map(|&code| Key { code, mods }));
        }
        keys
    }

    #[test]
    fn packed_keys_and_slots_are_distinct() {
        let keys = sample_keys();
        let mut packed_keys: Vec<u32> = keys.iter().map(|&key| packed(key)).collect();
        packed_keys.sort_unstable();
        packed_keys.dedup();
        assert_eq!(packed_keys.len(), keys.len());
        let mut slots: Vec<usize> = keys.iter().filter_map(|&key| slot(key)).collect();
        assert!(slots.iter().all(|&s| s < SLOTS));
        let with_slot = slots.len();
        slots.sort_unstable();
        slots.dedup();
        assert_eq!(slots.len(), with_slot);
        // Every named key and the 9 ASCII characters, plain or with Shift.
        assert_eq!(with_slot, 2 * (NAMED_KEYS + 9));
    }

    #[test]
    fn lookups_find_exactly_the_actions_bound() {
        let overridden = Keymap::default()
            .with_overrides(&json!({
                "main.toggle": ["x", "ctrl+x", "é", "shift+up", "<C-Del>"],
                "main.confirm": ["x", "enter"],
                "review.up": ["é", "ctrl+x"],
                "editor.newline": ["ctrl+j", "alt+enter", "shift+up"],
            }))
            .unwrap();
        for map in [Keymap::default(), overridden] {
            for key in sample_keys() {
                let bound = map.bound(key);
                let expected: Vec<Action> = Action::ALL
                    .iter()
                    .copied()
                    .filter(|&action| map.keys(action).contains(&key))
                    .collect();
                assert_eq!(bound.iter().collect::<Vec<_>>(), expected, "{key}");
                for &action in Action::ALL {
                    assert_eq!(bound.contains(action), expected.contains(&action));
                }
                for &context in Context::ALL {
                    let in_context: Vec<Action> = expected
                        .iter()
                        .copied()
                        .filter(|a| a.context() == context)
                        .collect();
                    assert_eq!(lookup_key(&map, context, key), in_context, "{key}");
                    assert_eq!(
                        bound.in_context(context).first(),
                        in_context.first().copied()
                    );
                }
            }
        }
    }

    #[test]
    fn default_key_names_are_canonical() {
        for &action in Action::ALL {
            for name in action.default_keys() {
                assert_eq!(k(name).to_string(), *name, "{}", action.name());
            }
        }
    }

    #[test]
    fn default_keys_of_every_action() {
        let map = Keymap::default();
        for &(action, _, _, _, keys) in EXPECTED {
            let expected: Vec<Key> = keys.iter().map(|name| k(name)).collect();
            assert_eq!(map.keys(action), expected, "{}", action.name());
        }
        assert_eq!(
            map.keys(EditorWordLeft),
            [
                Key {
                    code: KeyCode::Char('b'),
                    mods: Mods {
                        alt: true,
                        ..Mods::default()
                    }
                },
                Key {
                    code: KeyCode::Left,
                    mods: Mods {
                        ctrl: true,
                        ..Mods::default()
                    }
                },
            ]
        );
        assert_eq!(map.keys(MainQuestionNote), [char_key('N')]);
        assert_eq!(map.keys(MainToggle), [char_key(' ')]);
    }

    #[test]
    fn default_lookups() {
        use Context::*;
        let map = Keymap::default();
        let cases: &[(Context, &str, &[Action])] = &[
            (Global, "ctrl+c", &[GlobalDismiss]),
            (Global, "escape", &[]),
            (Main, "tab", &[MainNextTab]),
            (Main, "right", &[MainNextTab]),
            (Main, "shift+tab", &[MainPrevTab]),
            (Main, "left", &[MainPrevTab]),
            (Main, "down", &[MainDown]),
            (Main, "up", &[MainUp]),
            (Main, "enter", &[MainConfirm]),
            (Main, "space", &[MainToggle]),
            (Main, "n", &[MainOptionNote]),
            (Main, "N", &[MainQuestionNote]),
            (Main, "shift+n", &[MainQuestionNote]),
            (Main, "escape", &[MainCancel]),
            (Main, "ctrl+c", &[]),
            (Main, "1", &[]),
            (Main, "x", &[]),
            (Main, "ctrl+n", &[]),
            (Main, "pagedown", &[MainPageDown]),
            (Main, "pageup", &[MainPageUp]),
            (Main, "home", &[MainFirst]),
            (Main, "end", &[MainLast]),
            (Main, "/", &[MainFilter]),
            (Main, "j", &[]),
            (Main, "g", &[]),
            (Review, "tab", &[ReviewNextTab]),
            (Review, "right", &[ReviewNextTab]),
            (Review, "shift+tab", &[ReviewPrevTab]),
            (Review, "left", &[ReviewPrevTab]),
            (Review, "down", &[ReviewDown]),
            (Review, "up", &[ReviewUp]),
            (Review, "enter", &[ReviewConfirm]),
            (Review, "escape", &[ReviewCancel]),
            (Review, "n", &[]),
            (Review, "N", &[]),
            (Review, "space", &[]),
            (Review, "home", &[ReviewFirst]),
            (Review, "pageup", &[ReviewFirst]),
            (Review, "end", &[ReviewLast]),
            (Review, "pagedown", &[ReviewLast]),
            (Editor, "enter", &[EditorSubmit]),
            (Editor, "escape", &[EditorClose]),
            (Editor, "up", &[EditorUp]),
            (Editor, "down", &[EditorDown]),
            (Editor, "tab", &[EditorNextTab]),
            (Editor, "right", &[EditorNextTab, EditorCursorRight]),
            (Editor, "shift+tab", &[EditorPrevTab]),
            (Editor, "left", &[EditorPrevTab, EditorCursorLeft]),
            (Editor, "home", &[EditorLineStart]),
            (Editor, "ctrl+a", &[EditorLineStart]),
            (Editor, "end", &[EditorLineEnd]),
            (Editor, "ctrl+e", &[EditorLineEnd]),
            (Editor, "alt+b", &[EditorWordLeft]),
            (Editor, "ctrl+left", &[EditorWordLeft]),
            (Editor, "alt+f", &[EditorWordRight]),
            (Editor, "ctrl+right", &[EditorWordRight]),
            (Editor, "backspace", &[EditorDeleteBack]),
            (Editor, "delete", &[EditorDeleteForward]),
            (Editor, "ctrl+w", &[EditorDeleteWordBack]),
            (Editor, "alt+backspace", &[EditorDeleteWordBack]),
            (Editor, "ctrl+u", &[EditorDeleteToLineStart]),
            (Editor, "ctrl+k", &[EditorDeleteToLineEnd]),
            (Editor, "shift+enter", &[EditorNewline]),
            (Editor, "alt+enter", &[EditorNewline]),
            (Editor, "n", &[]),
            (Editor, "space", &[]),
            (NoteEditor, "enter", &[NoteEditorSubmit]),
            (NoteEditor, "escape", &[NoteEditorClose]),
            (NoteEditor, "up", &[NoteEditorUp]),
            (NoteEditor, "down", &[NoteEditorDown]),
            (NoteEditor, "tab", &[NoteEditorNextTab]),
            (NoteEditor, "right", &[NoteEditorNextTab]),
            (NoteEditor, "shift+tab", &[NoteEditorPrevTab]),
            (NoteEditor, "left", &[NoteEditorPrevTab]),
            (NoteEditor, "ctrl+a", &[]),
            (Filter, "enter", &[FilterAccept]),
            (Filter, "escape", &[FilterClear]),
            (Filter, "up", &[FilterUp]),
            (Filter, "down", &[FilterDown]),
            (Filter, "tab", &[FilterNextTab]),
            (Filter, "shift+tab", &[FilterPrevTab]),
            (Filter, "right", &[]),
            (Filter, "home", &[]),
            (NoteEditor, "shift+enter", &[]),
        ];
        for &(context, key, expected) in cases {
            assert_eq!(
                lookup(&map, context, key),
                expected,
                "{} {key}",
                context.name()
            );
        }
    }

    #[test]
    fn every_default_binding_is_found() {
        let map = Keymap::default();
        for &action in Action::ALL {
            for &key in map.keys(action) {
                assert!(
                    map.actions(action.context(), key).any(|a| a == action),
                    "{} {key}",
                    action.name()
                );
            }
        }
    }

    #[test]
    fn overrides_replace_keys() {
        let base = Keymap::default();
        let map = base
            .with_overrides(
                &json!({ "main.toggle": ["x", "ctrl+t"], "editor.cursorRight": ["ctrl+f"] }),
            )
            .unwrap();
        assert_eq!(map.keys(MainToggle), [k("x"), k("ctrl+t")]);
        assert_eq!(lookup(&map, Context::Main, "x"), [MainToggle]);
        assert_eq!(lookup(&map, Context::Main, "ctrl+t"), [MainToggle]);
        assert_eq!(lookup(&map, Context::Main, "space"), []);
        assert_eq!(lookup(&map, Context::Editor, "right"), [EditorNextTab]);
        assert_eq!(lookup(&map, Context::Editor, "ctrl+f"), [EditorCursorRight]);
        assert_eq!(map.keys(MainConfirm), base.keys(MainConfirm));
        assert_eq!(lookup(&map, Context::Main, "enter"), [MainConfirm]);
        // The base keymap is untouched.
        assert_eq!(base, Keymap::default());
    }

    #[test]
    fn overrides_accept_any_key_spelling_and_drop_repeats() {
        let map = Keymap::default()
            .with_overrides(&json!({ "main.nextTab": ["<Tab>", "TAB", "ctrl+L", "ctrl+l"] }))
            .unwrap();
        assert_eq!(map.keys(MainNextTab), [k("tab"), k("ctrl+l")]);
        assert_eq!(lookup(&map, Context::Main, "tab"), [MainNextTab]);
        assert_eq!(lookup(&map, Context::Main, "right"), []);
    }

    #[test]
    fn overrides_can_share_keys_within_a_context() {
        let map = Keymap::default()
            .with_overrides(&json!({ "main.confirm": ["space", "enter"] }))
            .unwrap();
        assert_eq!(
            lookup(&map, Context::Main, "space"),
            [MainConfirm, MainToggle]
        );
        assert_eq!(lookup(&map, Context::Main, "enter"), [MainConfirm]);
    }

    #[test]
    fn single_string_and_empty_list() {
        let map = Keymap::default()
            .with_overrides(&json!({ "global.dismiss": "ctrl+q", "main.optionNote": [] }))
            .unwrap();
        assert_eq!(map.keys(GlobalDismiss), [k("ctrl+q")]);
        assert_eq!(lookup(&map, Context::Global, "ctrl+q"), [GlobalDismiss]);
        assert_eq!(lookup(&map, Context::Global, "ctrl+c"), []);
        assert_eq!(map.keys(MainOptionNote), []);
        assert_eq!(lookup(&map, Context::Main, "n"), []);
        assert_eq!(lookup(&map, Context::Main, "N"), [MainQuestionNote]);
    }

    #[test]
    fn overrides_stack() {
        let first = Keymap::default()
            .with_overrides(&json!({ "main.toggle": ["x"], "main.up": ["k"] }))
            .unwrap();
        let second = first
            .with_overrides(&json!({ "main.toggle": ["y"] }))
            .unwrap();
        assert_eq!(second.keys(MainToggle), [k("y")]);
        assert_eq!(second.keys(MainUp), [k("k")]);
        assert_eq!(lookup(&second, Context::Main, "x"), []);
        assert_eq!(
            Keymap::default().with_overrides(&json!({})).unwrap(),
            Keymap::default()
        );
    }

    #[test]
    fn override_errors() {
        let base = Keymap::default()
            .with_overrides(&json!({ "main.up": ["k"] }))
            .unwrap();
        let before = base.clone();
        let cases = [
            (json!(["main.toggle"]), KeymapError::NotAnObject),
            (json!(null), KeymapError::NotAnObject),
            (json!("main.toggle"), KeymapError::NotAnObject),
            (
                json!({ "main.foo": ["x"] }),
                KeymapError::UnknownAction("main.foo".into()),
            ),
            (
                json!({ "main.toggle": ["x", "ctrl+nope"] }),
                KeymapError::BadKey {
                    action: MainToggle,
                    key: "ctrl+nope".into(),
                },
            ),
            (
                json!({ "main.toggle": "" }),
                KeymapError::BadKey {
                    action: MainToggle,
                    key: String::new(),
                },
            ),
            (
                json!({ "main.toggle": 3 }),
                KeymapError::BadValue(MainToggle),
            ),
            (
                json!({ "main.toggle": null }),
                KeymapError::BadValue(MainToggle),
            ),
            (
                json!({ "main.toggle": { "key": "x" } }),
                KeymapError::BadValue(MainToggle),
            ),
            (
                json!({ "main.toggle": ["x", 1] }),
                KeymapError::BadValue(MainToggle),
            ),
            // A valid entry before a bad one is not applied either.
            (
                json!({ "main.down": ["j"], "main.bogus": [] }),
                KeymapError::UnknownAction("main.bogus".into()),
            ),
        ];
        for (overrides, expected) in cases {
            assert_eq!(
                base.with_overrides(&overrides),
                Err(expected),
                "{overrides}"
            );
            assert_eq!(base, before);
        }
    }

    #[test]
    fn error_messages() {
        let message = |overrides: Value| {
            Keymap::default()
                .with_overrides(&overrides)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            message(json!([])),
            "keymap must be an object mapping action names to lists of key names"
        );
        assert_eq!(
            message(json!({ "main.foo": [] })),
            r#"unknown keymap action "main.foo""#
        );
        assert_eq!(
            message(json!({ "main.toggle": ["<name>"] })),
            r#"keymap action "main.toggle": unknown key "<name>""#
        );
        assert_eq!(
            message(json!({ "main.toggle": 1 })),
            r#"keymap action "main.toggle": expected a list of key names"#
        );
    }

    /// An action takes at most `MAX_KEYS_PER_ACTION` keys, so that applying overrides stays
    /// cheap however long a list a client sends; the count is of the keys given, before
    /// repeats are dropped.
    #[test]
    fn an_action_takes_a_bounded_number_of_keys() {
        let keys = |n: usize| -> Value {
            (0..n)
                .map(|i| Value::from(char::from_u32(0x1_0000 + i as u32).unwrap().to_string()))
                .collect()
        };
        let at_limit = Keymap::default()
            .with_overrides(&json!({ "main.down": keys(MAX_KEYS_PER_ACTION) }))
            .unwrap();
        assert_eq!(at_limit.keys(MainDown).len(), MAX_KEYS_PER_ACTION);
        for n in [MAX_KEYS_PER_ACTION + 1, 60_000] {
            let refused = Keymap::default().with_overrides(&json!({ "main.down": keys(n) }));
            assert_eq!(
                refused,
                Err(KeymapError::TooManyKeys {
                    action: MainDown,
                    count: n,
                })
            );
        }
        // The keys of key sequences count: eight sequences of two keys are the most.
        let pairs: Vec<Value> = "abcdefgh"
            .chars()
            .map(|c| json!(["z", c.to_string()]))
            .collect();
        let at_limit = Keymap::default()
            .with_overrides(&json!({ "main.first": pairs }))
            .unwrap();
        assert_eq!(at_limit.sequences(MainFirst).len(), MAX_KEYS_PER_ACTION / 2);
        let mut over = vec![json!("home")];
        over.extend(pairs);
        assert_eq!(
            Keymap::default()
                .with_overrides(&json!({ "main.first": over }))
                .unwrap_err()
                .to_string(),
            r#"keymap action "main.first": 17 keys given; an action takes at most 16"#
        );
        let repeated: Vec<&str> = vec!["j"; MAX_KEYS_PER_ACTION + 1];
        assert_eq!(
            Keymap::default()
                .with_overrides(&json!({ "main.down": repeated }))
                .unwrap_err()
                .to_string(),
            format!(
                r#"keymap action "main.down": 17 keys given; an action takes at most {MAX_KEYS_PER_ACTION}"#
            )
        );
    }

    #[test]
    fn overrides_round_trip() {
        assert_eq!(Keymap::default().overrides(), json!({}));
        let map = Keymap::default()
            .with_overrides(&json!({
                "editor.newline": ["ctrl+j"],
                "main.toggle": "<Space>",
                "main.optionNote": [],
                "main.nextTab": ["<C-n>", "tab"],
            }))
            .unwrap();
        // Unchanged bindings are left out; the rest come in `Action::ALL` order, canonically named.
        let saved = map.overrides();
        assert_eq!(
            saved,
            json!({
                "main.nextTab": ["ctrl+n", "tab"],
                "main.optionNote": [],
                "editor.newline": ["ctrl+j"],
            })
        );
        assert_eq!(
            serde_json::to_string(&saved).unwrap(),
            r#"{"main.nextTab":["ctrl+n","tab"],"main.optionNote":[],"editor.newline":["ctrl+j"]}"#
        );
        assert_eq!(Keymap::default().with_overrides(&saved), Ok(map));
    }

    fn seq(names: &[&str]) -> Box<[Key]> {
        names.iter().map(|n| k(n)).collect()
    }

    #[test]
    fn the_vim_preset_adds_its_keys_after_the_defaults() {
        let vim = Keymap::default().with_preset(Preset::Vim);
        assert_eq!(vim.keys(MainDown), [k("down"), k("j")]);
        assert_eq!(vim.keys(MainUp), [k("up"), k("k")]);
        assert_eq!(vim.keys(MainPrevTab), [k("shift+tab"), k("left"), k("h")]);
        assert_eq!(vim.keys(MainNextTab), [k("tab"), k("right"), k("l")]);
        assert_eq!(vim.keys(MainFirst), [k("home")]);
        assert_eq!(vim.sequences(MainFirst), [seq(&["g", "g"])]);
        assert_eq!(vim.keys(MainLast), [k("end"), k("G")]);
        assert_eq!(vim.keys(MainPageDown), [k("pagedown"), k("ctrl+d")]);
        assert_eq!(vim.keys(MainPageUp), [k("pageup"), k("ctrl+u")]);
        assert_eq!(vim.keys(MainCancel), [k("escape"), k("q")]);
        assert_eq!(vim.keys(ReviewFirst), [k("home"), k("pageup"), k("ctrl+u")]);
        assert_eq!(vim.sequences(ReviewFirst), [seq(&["g", "g"])]);
        assert_eq!(
            vim.keys(ReviewLast),
            [k("end"), k("pagedown"), k("G"), k("ctrl+d")]
        );
        assert_eq!(vim.keys(ReviewCancel), [k("escape"), k("q")]);
        // Editors are unchanged: `ctrl+u` still deletes to the line start there.
        for &action in Action::ALL {
            if !action.context().takes_sequences() {
                assert_eq!(
                    vim.keys(action),
                    Keymap::default().keys(action),
                    "{}",
                    action.name()
                );
            }
        }
        assert_eq!(
            lookup(&vim, Context::Editor, "ctrl+u"),
            [EditorDeleteToLineStart]
        );
        assert_eq!(lookup(&vim, Context::Main, "ctrl+u"), [MainPageUp]);
        assert_eq!(lookup(&vim, Context::Main, "g"), []);
        assert_eq!(&*vim.key_names(MainFirst), ["home", "g g"]);
        assert_eq!(
            Keymap::default().with_preset(Preset::Default),
            Keymap::default()
        );
        // Applied twice, nothing repeats.
        assert_eq!(vim.with_preset(Preset::Vim), vim);
        assert!(vim.has_sequences());
        assert!(!Keymap::default().has_sequences());
    }

    #[test]
    fn sequences_are_matched_key_by_key_in_their_context() {
        let vim = Keymap::default().with_preset(Preset::Vim);
        let g = k("g");
        assert_eq!(vim.sequence(Context::Main, &[g]), SequenceMatch::Prefix);
        assert_eq!(
            vim.sequence(Context::Main, &[g, g]),
            SequenceMatch::Complete(MainFirst)
        );
        assert_eq!(
            vim.sequence(Context::Review, &[g, g]),
            SequenceMatch::Complete(ReviewFirst)
        );
        assert_eq!(
            vim.sequence(Context::Main, &[g, k("j")]),
            SequenceMatch::None
        );
        assert_eq!(vim.sequence(Context::Main, &[k("j")]), SequenceMatch::None);
        assert_eq!(vim.sequence(Context::Main, &[g, g, g]), SequenceMatch::None);
        assert_eq!(vim.sequence(Context::Editor, &[g]), SequenceMatch::None);
    }

    #[test]
    fn overrides_bind_sequences_as_inner_lists_and_round_trip() {
        let map = Keymap::default()
            .with_overrides(&json!({
                "main.last": ["end", ["g", "e"], ["g", "e"]],
                "review.confirm": [["z", "<CR>"]],
                "main.first": [["ctrl+w", "g", "g"]],
            }))
            .unwrap();
        assert_eq!(map.keys(MainLast), [k("end")]);
        assert_eq!(map.sequences(MainLast), [seq(&["g", "e"])]);
        assert_eq!(map.keys(ReviewConfirm), []);
        assert_eq!(map.sequences(ReviewConfirm), [seq(&["z", "enter"])]);
        assert_eq!(&*map.key_names(MainFirst), ["ctrl+w g g"]);
        assert_eq!(
            map.sequence(Context::Main, &[k("ctrl+w"), k("g")]),
            SequenceMatch::Prefix
        );
        let saved = map.overrides();
        assert_eq!(
            saved,
            json!({
                "main.first": [["ctrl+w", "g", "g"]],
                "main.last": ["end", ["g", "e"]],
                "review.confirm": [["z", "enter"]],
            })
        );
        assert_eq!(Keymap::default().with_overrides(&saved), Ok(map));
        let vim = Keymap::default().with_preset(Preset::Vim);
        assert_eq!(Keymap::default().with_overrides(&vim.overrides()), Ok(vim));
    }

    #[test]
    fn sequence_errors() {
        let vim = Keymap::default().with_preset(Preset::Vim);
        let cases = [
            (
                json!({ "main.first": [["g"]] }),
                r#"keymap action "main.first": a key sequence holds 2 to 4 keys"#,
            ),
            (
                json!({ "main.first": [["a", "b", "c", "d", "e"]] }),
                r#"keymap action "main.first": a key sequence holds 2 to 4 keys"#,
            ),
            (
                json!({ "editor.submit": [["g", "g"]] }),
                r#"keymap action "editor.submit": key sequences bind only main and review actions"#,
            ),
            (
                json!({ "global.dismiss": [["g", "g"]] }),
                r#"keymap action "global.dismiss": key sequences bind only main and review actions"#,
            ),
            (
                json!({ "main.first": [["g", "nope"]] }),
                r#"keymap action "main.first": unknown key "nope""#,
            ),
            (
                json!({ "main.first": [["g", 1]] }),
                r#"keymap action "main.first": expected a list of key names"#,
            ),
            (
                json!({ "main.toggle": ["g"] }),
                r#"keymap action "main.toggle": "g" starts the sequence "g g" of "main.first""#,
            ),
            (
                json!({ "main.last": [["g", "g", "x"]] }),
                r#"keymap action "main.first": "g g" starts the sequence "g g x" of "main.last""#,
            ),
        ];
        for (overrides, message) in cases {
            assert_eq!(
                vim.with_overrides(&overrides).unwrap_err().to_string(),
                message,
                "{overrides}"
            );
        }
        // The same key alone in another context is no conflict.
        let ok = vim
            .with_overrides(&json!({ "noteEditor.submit": ["g"], "review.toggle": [] }))
            .map(|_| ());
        assert_eq!(ok, Err(KeymapError::UnknownAction("review.toggle".into())));
        assert!(
            vim.with_overrides(&json!({ "noteEditor.submit": ["g"] }))
                .is_ok()
        );
        // Unbinding the sequence frees its first key.
        let freed = vim
            .with_overrides(&json!({ "main.first": ["home"], "main.toggle": ["g"] }))
            .unwrap();
        assert_eq!(lookup(&freed, Context::Main, "g"), [MainToggle]);
        assert_eq!(
            freed.sequence(Context::Main, &[k("g")]),
            SequenceMatch::None
        );
    }
}
