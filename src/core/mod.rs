//! The pure flow: what a flow asks, its state, and every key and direct operation applied to
//! it (`protocol/behaviour.md` §2–§5 and §10), with the text editor, the keymap, `@` completion
//! matching, the filter of long lists and the per-flow limits.
//!
//! Values in, values out: nothing here reads a file, a clock or a socket (a deadline is
//! checked against the time the shell hands [`Flow::expire`]), nothing is async,
//! and nothing knows which dialect a flow came in or how it is shown. A dialect hands the core
//! a [`FlowSpec`] with its [`Rules`]; the view layer reads a [`Flow`] to draw it.
//!
//! Architecture invariant: `core` imports nothing of `dialect`, `session`, `view`, `server`
//! or `cli`, no async runtime and no file or process I/O (`tests/it/layout.rs` checks it).
//!
//! Where to start: [`Flow::press`] and its `press_*` functions are `protocol/behaviour.md` §3–§5.

mod completion;
mod editor;
mod filter;
mod flow;
mod key;
mod keymap;
mod limits;
mod model;
mod text;

pub use completion::{
    Completion, CompletionList, FileIndex, IndexEntry, MAX_ITEMS, MAX_QUERY_BYTES, at_word,
};
pub use editor::{
    CursorPosition, Edit, TAB_WIDTH, TextEditor, VisualLine, VisualLines, display_width, is_hangul,
    visual_lines,
};
pub use filter::{FILTER_MIN_OPTIONS, RowFilter, contains_graphemes, fold_into};
pub use flow::{
    Activatable, EditorKind, EditorTarget, Flow, FlowError, Focus, OpenEditor, Prompts, ROW_WINDOW,
    Rows, Target, TypeChange,
};
pub use key::{Key, KeyCode, KeyError, Mods, char_key, parse_sequence};
pub use keymap::{
    Action, ActionSet, Context, KeyNames, Keymap, KeymapError, MAX_KEYS_PER_ACTION, MAX_SEQUENCE,
    Preset, SequenceMatch, sequence_name,
};
pub use limits::Limits;
pub use model::{
    Answer, Behaviour, CUSTOM_LABEL, CancelReason, Checker, CustomRow, FlowSpec, HIDDEN, Intent,
    Issue, OptionItem, Outcome, PLAN_REVIEW, Question, QuestionType, ReviewAction, Rules, Source,
};
pub use text::{described, quoted};
