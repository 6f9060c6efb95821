//! The actions: every named thing a key can do, its context, wire name, description and
//! default keys ([`Action`], declared from one list), and [`ActionSet`], the actions a key is
//! bound to.

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
    pub(super) fn insert(&mut self, action: Action) {
        self.0 |= 1 << action as u32;
    }
}
