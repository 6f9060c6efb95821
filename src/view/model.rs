//! The view model: everything a renderer needs to draw a session, decided by the engine so
//! that no client re-implements a decision of the flow. Plain data: what the protocol sends as
//! a view, field for field.

use serde::Serialize;

use crate::core::{Activatable, CancelReason, EditorKind, Focus, KeyNames, Outcome, QuestionType};
use crate::dialect::DialectId;
use crate::session::Status;
use crate::view::line::Line;

/// Value of the synthetic custom row.
pub const CUSTOM_VALUE: &str = "__other__";
/// Label of the standard custom row.
pub const CUSTOM_LABEL: &str = crate::core::CUSTOM_LABEL;
/// Placeholder of an empty custom-answer editor.
pub const INPUT_PLACEHOLDER: &str = "Type answer...";
/// Placeholder of an empty note editor.
pub const NOTE_PLACEHOLDER: &str = "Add a note...";

/// The view of one session.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct View {
    /// The session id.
    pub session: String,
    /// `open` or `done`.
    pub status: Status,
    /// The dialect the flow was asked in (`pi`, `dsh`, `claude`, `codex`, `opencode`, `mcp`).
    pub dialect: DialectId,
    /// The flow title (`null` when none).
    pub title: Option<String>,
    /// Who asks, when the request names its sender (omitted otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requester: Option<String>,
    /// Where keys go.
    pub focus: Focus,
    /// Question tabs, then the review tab.
    pub tabs: Vec<TabView>,
    /// 0-based active tab.
    pub active_tab: usize,
    /// The active question (`null` on the review tab and when done).
    pub question: Option<QuestionView>,
    /// The review screen (`null` elsewhere).
    pub review: Option<ReviewView>,
    /// The open editor (`null` when closed).
    pub editor: Option<EditorView>,
    /// Key hints for the current focus, from the active keymap.
    pub hints: Vec<Hint>,
    /// Notices of the behaviour options, in order (empty when none).
    pub notices: Vec<NoticeView>,
    /// The help overlay while it is open (`null` otherwise).
    pub help: Option<HelpView>,
    /// How the flow ended (`null` while it is open).
    pub outcome: Option<OutcomeView>,
    /// Why the flow ended without an answer (`null` while open and after a submit or an
    /// elaborate).
    pub cancel_reason: Option<CancelReason>,
    /// When the open flow times out, in milliseconds since the Unix epoch (`null` without a
    /// timeout, and once done).
    pub deadline: Option<u64>,
    /// How many questions are answered, of how many.
    pub progress: ProgressView,
    /// The filter of the active question's rows, while one is open or applied (`null`
    /// otherwise).
    pub filter: Option<FilterView>,
    /// The keys of a key sequence pressed so far, waiting for the next (`g` of `g g`), by
    /// canonical name separated by spaces; `null` when none wait.
    pub pending_keys: Option<String>,
    /// What a click or a tap may act on now (`activate`): tabs, rows, review actions,
    /// completion items, the filter, the help overlay, and the editors that may be opened;
    /// `null` once done.
    pub activatable: Option<Activatable>,
    /// The screen rendered at the known width (omitted when no width is known).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<Vec<crate::view::line::Span<'static>>>>")]
    pub lines: Option<Vec<Line>>,
    /// Where a click on `lines` acts: the parts of lines that a pointer activates, each with
    /// the `activate` target it sends, in the order of the lines (omitted with `lines`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_targets: Option<Vec<LineTarget>>,
}

/// A part of a rendered line that a click or a tap activates: the columns `start..end` of the
/// line `line` of `lines` (display columns, 0-based, `end` excluded), and the target a client
/// sends `activate` for a click there. A target is listed only where the screen offers it
/// ([`View::activatable`]); one target may cover several lines (a row and its wrapped
/// description, a tab broken across lines).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LineTarget {
    /// The 0-based index of the line in `lines`.
    pub line: usize,
    /// The first display column of the part.
    pub start: usize,
    /// The display column just past the part.
    pub end: usize,
    /// What `activate` is sent: its `target` param as it is.
    pub target: TargetView,
}

/// An `activate` target as its param is written: exactly one of `tab`, `row`, `action`,
/// `completion`, `filter`, `help` and `editor` (with `option` beside an option note's).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TargetView {
    /// A tab, 0-based into `tabs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tab: Option<usize>,
    /// A row of the active question, by its `index`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<usize>,
    /// A review action, 0-based into `review.actions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<usize>,
    /// An item of the open completion list, 0-based into `editor.completion.items`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion: Option<usize>,
    /// The filter: `true` opens its editor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<bool>,
    /// The help overlay: `false` closes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<bool>,
    /// An editor to open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub editor: Option<EditorKind>,
    /// The option of an option note's editor, by its value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub option: Option<String>,
}

impl TargetView {
    /// `{ tab }`.
    pub fn tab(tab: usize) -> Self {
        TargetView {
            tab: Some(tab),
            ..TargetView::default()
        }
    }

    /// `{ row }`.
    pub fn row(row: usize) -> Self {
        TargetView {
            row: Some(row),
            ..TargetView::default()
        }
    }

    /// `{ action }`.
    pub fn action(action: usize) -> Self {
        TargetView {
            action: Some(action),
            ..TargetView::default()
        }
    }

    /// `{ completion }`.
    pub fn completion(completion: usize) -> Self {
        TargetView {
            completion: Some(completion),
            ..TargetView::default()
        }
    }

    /// `{ filter }`.
    pub fn filter(open: bool) -> Self {
        TargetView {
            filter: Some(open),
            ..TargetView::default()
        }
    }

    /// `{ editor }`, for an editor that names no option.
    pub fn editor(kind: EditorKind) -> Self {
        TargetView {
            editor: Some(kind),
            ..TargetView::default()
        }
    }
}

/// How a flow ended, as the view reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum OutcomeView {
    /// Submitted.
    Submit,
    /// Sent back for elaboration.
    Elaborate,
    /// Cancelled by the user (or opened without UI).
    Cancelled,
    /// Withdrawn by the asker.
    Aborted,
    /// Declined by the user.
    Declined,
    /// The payload failed validation.
    Invalid,
}

impl From<Outcome> for OutcomeView {
    fn from(outcome: Outcome) -> Self {
        match outcome {
            Outcome::Submit => OutcomeView::Submit,
            Outcome::Elaborate => OutcomeView::Elaborate,
            Outcome::Cancelled(CancelReason::Aborted) => OutcomeView::Aborted,
            Outcome::Cancelled(_) => OutcomeView::Cancelled,
            Outcome::Declined => OutcomeView::Declined,
        }
    }
}

/// How far the user has come: questions answered (a selection or non-blank custom text), of
/// all the questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProgressView {
    /// Questions answered.
    pub answered: usize,
    /// Questions in all (0 for a request that failed validation).
    pub total: usize,
}

/// The `/` filter of a long list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FilterView {
    /// The filter text.
    pub text: String,
    /// Where the cursor is in it.
    pub cursor: CursorView,
    /// The filter editor is open: keys type into it (focus `filter`); otherwise the filter is
    /// applied and the rows are those that match.
    pub editing: bool,
    /// Options whose label or description contains the text (0: nothing matches).
    pub matches: usize,
    /// Options of the question in all.
    pub total: usize,
}

/// One tab of the tab bar.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TabView {
    /// Tab label (the question's label, or `Submit`).
    pub label: String,
    /// `question` or `review`.
    pub kind: TabKind,
    /// The question has a selection or non-blank custom text (always false for review).
    pub answered: bool,
    /// The question carries a question note or any option note.
    pub has_notes: bool,
    /// This is the active tab.
    pub active: bool,
}

/// The kind of a tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum TabKind {
    /// A question tab.
    Question,
    /// The final review tab.
    Review,
}

/// The active question.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionView {
    /// Question id.
    pub id: String,
    /// Tab label.
    pub label: String,
    /// The question text.
    pub prompt: String,
    /// `single`, `multi` or `preview`.
    #[serde(rename = "type")]
    pub kind: QuestionType,
    /// Metadata from the payload; never blocks anything.
    pub required: bool,
    /// Supporting text shown under the prompt (`null` when none).
    pub detail: Option<String>,
    /// The question note (`null` when none).
    pub note: Option<String>,
    /// The saved custom answer (`null` when none).
    pub custom_text: Option<String>,
    /// 0-based active row.
    pub active_option: usize,
    /// How many rows the question has: its options, then the custom row when it has one.
    pub row_count: usize,
    /// The rows the view carries: all of them when the view was asked for all rows, otherwise
    /// the window of at most [`ROW_WINDOW`] rows around the active row that the screen shows.
    /// Each row's `index` says where it stands among all rows.
    pub rows: Vec<RowView>,
    /// Rows before the window that the screen shows (`↑ N more`).
    pub rows_above: usize,
    /// Rows after the window that the screen shows (`↓ N more`).
    pub rows_below: usize,
    /// The preview text of the active row (preview questions), `null` otherwise.
    pub preview: Option<String>,
    /// Some option has a preview: the screen shows a preview box.
    pub has_previews: bool,
    /// The plan under review (dsh `plan-review` intent), `null` otherwise.
    pub plan_review: Option<PlanReviewView>,
}

/// A dsh question asking to approve a plan.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanReviewView {
    /// The plan (the question's `detail`, markdown).
    pub plan: String,
    /// The option label that approves (`null` when the intent names none).
    pub approve_label: Option<String>,
}

/// One row of a question.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RowView {
    /// 1-based row number (the digit that selects it).
    pub index: usize,
    /// Option value (`__other__` for the custom row).
    pub value: String,
    /// Label to display (recommended marker stripped).
    pub label: String,
    /// Option description (`null` when none).
    pub description: Option<String>,
    /// Option preview text (`null` when none).
    pub preview: Option<String>,
    /// Selected (the custom row: the question has custom text).
    pub selected: bool,
    /// The active row.
    pub active: bool,
    /// The synthetic row after the options: `Type your own` (or the dialect's label for it),
    /// or an inert stand-in row that says why the question cannot be answered (it opens no
    /// editor).
    pub custom: bool,
    /// The option's note (`null` when none).
    pub note: Option<String>,
    /// The label carried a recommended marker.
    pub recommended: bool,
}

/// The review tab.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewView {
    /// The actions with their digit keys.
    pub actions: Vec<ReviewActionView>,
    /// 0-based active action.
    pub active_action: usize,
    /// Per question, what the review screen lists.
    pub questions: Vec<ReviewQuestion>,
}

/// One review action.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewActionView {
    /// The digit that runs it.
    pub key: String,
    /// `Submit`, `Elaborate` or `Cancel` (or the dialect's own label, such as `Accept`).
    pub label: String,
    /// The active action.
    pub active: bool,
    /// The action does nothing for now: an answer blocks it (omitted when false).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub disabled: bool,
}

/// One question as the review screen shows it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewQuestion {
    /// Question id.
    pub id: String,
    /// Question label.
    pub label: String,
    /// Has a selection or custom text.
    pub answered: bool,
    /// The answer lines: one per selected option, then the custom text; empty when unanswered.
    pub answers: Vec<ReviewAnswer>,
    /// The question note, when the active action shows it.
    pub note: Option<String>,
    /// Notes of unselected options, when the active action shows them (Elaborate).
    pub other_notes: Vec<ReviewOptionNote>,
    /// Why the answer keeps the flow from being submitted (omitted when it does not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// One answer line of the review screen.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewAnswer {
    /// The option label, or the custom text.
    pub label: String,
    /// The line is the custom text.
    pub custom: bool,
    /// The note of that option, when the active action shows it.
    pub note: Option<String>,
}

/// A note on an option that is not selected.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewOptionNote {
    /// Option value.
    pub value: String,
    /// Option label.
    pub label: String,
    /// The note.
    pub note: String,
}

/// The open editor.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditorView {
    /// What it edits.
    pub target: EditorTargetView,
    /// The draft.
    pub text: String,
    /// Where the cursor is.
    pub cursor: CursorView,
    /// Shown while the draft is empty.
    pub placeholder: &'static str,
    /// The `@` file completion list, while one is open (`null` otherwise).
    pub completion: Option<CompletionView>,
    /// The text is secret: `text` holds a `•` per character and the cursor counts in it
    /// (omitted when false).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
    /// Why the draft was refused when the editor tried to save it, until it changes (omitted
    /// otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// An open `@` file completion list.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompletionView {
    /// The paths offered, best first (directories first).
    pub items: Vec<CompletionItemView>,
    /// 0-based index of the highlighted item, which Tab or Enter accepts.
    pub selected: usize,
    /// What follows the `@` in the word at the cursor.
    pub query: String,
}

/// One path offered by a completion list.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompletionItemView {
    /// The path relative to the flow's root directory, `/`-separated, without a trailing `/`.
    pub path: String,
    /// The path is a directory.
    pub is_dir: bool,
}

/// What an editor edits, for clients.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditorTargetView {
    /// `custom`, `questionNote` or `optionNote`.
    #[schemars(extend("enum" = ["custom", "questionNote", "optionNote"]))]
    pub kind: &'static str,
    /// The question id.
    pub question_id: String,
    /// The option value (option notes only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub option_value: Option<String>,
}

/// The cursor in several units, so that every client finds its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CursorView {
    /// Graphemes before the cursor in the whole text.
    pub offset: usize,
    /// UTF-8 bytes before the cursor.
    pub byte: usize,
    /// UTF-16 code units before the cursor.
    pub utf16: usize,
    /// 0-based line.
    pub line: usize,
    /// Graphemes before the cursor on its line.
    pub grapheme: usize,
    /// Terminal columns before the cursor on its line.
    pub column: usize,
}

/// A notice of the behaviour options: what the user is asked or told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoticeView {
    /// What the notice is about.
    pub kind: NoticeKind,
    /// The text to show.
    pub text: String,
}

/// What a notice is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum NoticeKind {
    /// The flow holds answers, notes or a draft: the next cancel or dismiss discards them.
    DismissConfirm,
    /// Switching the question's type would clear its selections: the toggle again confirms.
    TypeConfirm,
    /// The question's type was switched.
    TypeChanged,
    /// Review digits run their action on a second press (the armed one, when there is one).
    ReviewShortcut,
}

/// The help overlay: every binding of the active keymap, by context.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HelpView {
    /// The overlay's title.
    pub title: &'static str,
    /// One section per context, in keymap order.
    pub sections: Vec<HelpSection>,
}

/// The bindings of one keymap context.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HelpSection {
    /// The context's name (`global`, `main`, `review`, `editor`, `noteEditor`).
    pub context: &'static str,
    /// The context as a heading (`Everywhere`, `Question tab`, …).
    pub label: &'static str,
    /// The context's actions that have keys, in keymap order (with the digits where they
    /// apply), each `{ action, keys, label }` as a hint.
    pub bindings: Vec<Hint>,
}

/// One key hint.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hint {
    /// The keymap action (`main.toggle`), or `digits` for the fixed digit keys.
    pub action: &'static str,
    /// The bound keys, canonical names.
    #[schemars(with = "Vec<String>")]
    pub keys: KeyNames,
    /// What it does.
    pub label: &'static str,
}

// Comparisons look first at the fields that change most often from one view to the next.

impl PartialEq for TabView {
    fn eq(&self, other: &TabView) -> bool {
        let TabView {
            label,
            kind,
            answered,
            has_notes,
            active,
        } = self;
        *active == other.active
            && *answered == other.answered
            && *has_notes == other.has_notes
            && *kind == other.kind
            && *label == other.label
    }
}

impl PartialEq for QuestionView {
    fn eq(&self, other: &QuestionView) -> bool {
        let QuestionView {
            id,
            label,
            prompt,
            kind,
            required,
            detail,
            note,
            custom_text,
            active_option,
            row_count,
            rows,
            rows_above,
            rows_below,
            preview,
            has_previews,
            plan_review,
        } = self;
        *active_option == other.active_option
            && *id == other.id
            && *custom_text == other.custom_text
            && *note == other.note
            && *rows_above == other.rows_above
            && *rows == other.rows
            && *label == other.label
            && *prompt == other.prompt
            && *kind == other.kind
            && *required == other.required
            && *detail == other.detail
            && *row_count == other.row_count
            && *rows_below == other.rows_below
            && *preview == other.preview
            && *has_previews == other.has_previews
            && *plan_review == other.plan_review
    }
}

impl PartialEq for RowView {
    fn eq(&self, other: &RowView) -> bool {
        let RowView {
            index,
            value,
            label,
            description,
            preview,
            selected,
            active,
            custom,
            note,
            recommended,
        } = self;
        *index == other.index
            && *active == other.active
            && *selected == other.selected
            && *custom == other.custom
            && *recommended == other.recommended
            && *value == other.value
            && *note == other.note
            && *label == other.label
            && *description == other.description
            && *preview == other.preview
    }
}

impl PartialEq for ReviewView {
    fn eq(&self, other: &ReviewView) -> bool {
        let ReviewView {
            actions,
            active_action,
            questions,
        } = self;
        *active_action == other.active_action
            && *questions == other.questions
            && *actions == other.actions
    }
}

impl PartialEq for EditorView {
    fn eq(&self, other: &EditorView) -> bool {
        let EditorView {
            target,
            text,
            cursor,
            placeholder,
            completion,
            secret,
            error,
        } = self;
        *cursor == other.cursor
            && *text == other.text
            && *completion == other.completion
            && *error == other.error
            && *target == other.target
            && *placeholder == other.placeholder
            && *secret == other.secret
    }
}

impl PartialEq for Hint {
    fn eq(&self, other: &Hint) -> bool {
        // Hints share their texts with the keymap, so pointers mostly settle it.
        let same_str = |a: &str, b: &str| std::ptr::eq(a, b) || a == b;
        let Hint {
            action,
            keys,
            label,
        } = self;
        same_str(action, other.action)
            && same_str(label, other.label)
            && (std::ptr::eq(&**keys, &*other.keys) || **keys == *other.keys)
    }
}

/// Most rows a view carries unless asked for all: the window the rendered screen shows, which
/// is also how far the page keys move.
pub use crate::core::ROW_WINDOW;

/// What a view carries beyond the state of the flow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ViewOptions {
    /// Terminal columns: the view carries the screen rendered at this width as `lines`.
    pub width: Option<usize>,
    /// Carry every row of the question, not only the window the screen shows.
    pub all_rows: bool,
}
