//! The view model: everything a renderer needs to draw a session, decided here so that no
//! client re-implements a decision of the flow.

use serde::Serialize;

use crate::flow::{EditorTarget, Flow, Focus, OpenEditor, ReviewAction};
use crate::key::Key;
use crate::keymap::{Action, Context, KeyNames};
use crate::model::{Answer, Dialect, Outcome, Question, QuestionType};
use crate::render::{self, Line};
use crate::reuse::{self, Dressed, Dressing, Reused, ScreenCache};
use crate::session::{Session, Status};

/// Value of the synthetic custom row.
pub const CUSTOM_VALUE: &str = "__other__";
/// Label of the synthetic custom row.
pub const CUSTOM_LABEL: &str = "Type your own";
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
    /// `pi` or `dsh`.
    pub dialect: Dialect,
    /// The flow title (`null` when none).
    pub title: Option<String>,
    /// Where keys go.
    pub focus: Focus,
    /// Question tabs, then the review tab.
    #[schemars(with = "Vec<TabView>")]
    pub tabs: Reused<Vec<TabView>>,
    /// 0-based active tab.
    pub active_tab: usize,
    /// The active question (`null` on the review tab and when done).
    #[serde(serialize_with = "reuse::serialize_dressed")]
    pub question: Option<QuestionView>,
    /// The review screen (`null` elsewhere).
    #[serde(serialize_with = "reuse::serialize_dressed")]
    pub review: Option<ReviewView>,
    /// The open editor (`null` when closed).
    #[serde(serialize_with = "reuse::serialize_dressed")]
    pub editor: Option<EditorView>,
    /// Key hints for the current focus, from the active keymap.
    #[schemars(with = "Vec<Hint>")]
    pub hints: Reused<Vec<Hint>>,
    /// How the flow ended (`null` while it is open).
    pub outcome: Option<OutcomeView>,
    /// The screen rendered at the known width (omitted when no width is known).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<Vec<render::Span<'static>>>>")]
    pub lines: Option<Vec<Reused<Line>>>,
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
    /// The payload failed validation.
    Invalid,
}

impl From<Outcome> for OutcomeView {
    fn from(outcome: Outcome) -> Self {
        match outcome {
            Outcome::Submit => OutcomeView::Submit,
            Outcome::Elaborate => OutcomeView::Elaborate,
            Outcome::Cancelled => OutcomeView::Cancelled,
            Outcome::Aborted => OutcomeView::Aborted,
        }
    }
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
    #[schemars(with = "Vec<RowView>")]
    pub rows: Vec<Reused<RowView>>,
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
    /// Its JSON, once a [`ScreenCache`] gave it some.
    #[serde(skip)]
    #[schemars(skip)]
    dressing: Dressing,
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
    /// The synthetic `Type your own` row.
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
    /// Its JSON, once a [`ScreenCache`] gave it some.
    #[serde(skip)]
    #[schemars(skip)]
    dressing: Dressing,
}

/// One review action.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewActionView {
    /// The digit that runs it.
    pub key: String,
    /// `Submit`, `Elaborate` or `Cancel`.
    pub label: String,
    /// The active action.
    pub active: bool,
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
    /// Its JSON, once a [`ScreenCache`] gave it some.
    #[serde(skip)]
    #[schemars(skip)]
    dressing: Dressing,
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

// Comparisons look first at the fields that change most often from one view to the next,
// and skip the dressing (the same part with or without JSON is the same part).

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
            dressing: _,
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
            dressing: _,
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
            dressing: _,
        } = self;
        *cursor == other.cursor
            && *text == other.text
            && *completion == other.completion
            && *target == other.target
            && *placeholder == other.placeholder
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

impl Dressed for QuestionView {
    fn dressing(&self) -> &Dressing {
        &self.dressing
    }

    fn dressing_mut(&mut self) -> &mut Dressing {
        &mut self.dressing
    }
}

impl Dressed for ReviewView {
    fn dressing(&self) -> &Dressing {
        &self.dressing
    }

    fn dressing_mut(&mut self) -> &mut Dressing {
        &mut self.dressing
    }
}

impl Dressed for EditorView {
    fn dressing(&self) -> &Dressing {
        &self.dressing
    }

    fn dressing_mut(&mut self) -> &mut Dressing {
        &mut self.dressing
    }
}

/// A label without its recommended marker, and whether it had one.
pub fn strip_recommended(label: &str) -> (&str, bool) {
    let trimmed = label.trim_end();
    for marker in ["(Recommended)", "(recommended)", "（推荐）", "(推荐)"] {
        if let Some(rest) = trimmed.strip_suffix(marker) {
            return (rest.trim_end(), true);
        }
    }
    (label, false)
}

/// Most rows a view carries unless asked for all: the window the rendered screen shows.
pub const ROW_WINDOW: usize = 10;

/// The 0-based rows `start..end` of the window shown out of `count` rows, `active` active:
/// all of them when they fit, otherwise [`ROW_WINDOW`] rows with the active one fifth
/// from the top where it can be.
pub fn row_window(count: usize, active: usize) -> (usize, usize) {
    if count <= ROW_WINDOW {
        (0, count)
    } else {
        let start = active
            .saturating_sub(ROW_WINDOW / 2 - 1)
            .min(count - ROW_WINDOW);
        (start, start + ROW_WINDOW)
    }
}

/// What a view carries beyond the state of the flow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ViewOptions {
    /// Terminal columns: the view carries the screen rendered at this width as `lines`.
    pub width: Option<usize>,
    /// Carry every row of the question, not only the window the screen shows.
    pub all_rows: bool,
}

/// Builds the view of a session, without rendered lines.
pub fn build(id: &str, session: &Session) -> View {
    build_with(id, session, ViewOptions::default())
}

/// Builds the view of a session; with a width (terminal columns) it carries the rendered
/// `lines` of [`render::render`].
pub fn build_with_width(id: &str, session: &Session, width: Option<usize>) -> View {
    build_with(
        id,
        session,
        ViewOptions {
            width,
            all_rows: false,
        },
    )
}

/// Builds the view of a session as `options` ask.
pub fn build_with(id: &str, session: &Session, options: ViewOptions) -> View {
    let mut view = build_view(id, session, options.all_rows);
    view.lines = options.width.map(|width| {
        render::render(&view, width)
            .into_iter()
            .map(Reused::new)
            .collect()
    });
    view
}

/// Builds the view of a session as `options` ask, its rendered lines carrying their JSON
/// through `cache`: the way to build view after view for clients.
pub fn build_cached(
    id: &str,
    session: &Session,
    options: ViewOptions,
    cache: &mut ScreenCache,
) -> View {
    let mut view = build_view(id, session, options.all_rows);
    cache.dress(&mut view);
    view.lines = options.width.map(|width| cache.render(&view, width));
    view
}

fn build_view(id: &str, session: &Session, all_rows: bool) -> View {
    let status = session.status();
    let outcome = match session.flow() {
        Some(flow) => flow.outcome().map(OutcomeView::from),
        None => Some(OutcomeView::Invalid),
    };
    let title = session.title().map(str::to_owned);
    let dialect = session.dialect();
    let Some(flow) = session.flow().filter(|_| status == Status::Open) else {
        return View {
            session: id.to_owned(),
            status,
            dialect,
            title,
            focus: Focus::Review,
            tabs: Reused::new(session.flow().map(tabs).unwrap_or_default()),
            active_tab: session.flow().map_or(0, Flow::tab),
            question: None,
            review: None,
            editor: None,
            hints: Reused::default(),
            outcome,
            lines: None,
        };
    };
    View {
        session: id.to_owned(),
        status,
        dialect,
        title,
        focus: flow.focus(),
        tabs: Reused::new(tabs(flow)),
        active_tab: flow.tab(),
        question: flow
            .current_question()
            .map(|q| question_view(flow, q, &flow.answers()[flow.tab()], all_rows)),
        review: (flow.focus() == Focus::Review).then(|| review_view(flow)),
        editor: flow.editor().map(|e| editor_view(flow, e)),
        hints: Reused::new(hints(flow)),
        outcome,
        lines: None,
    }
}

fn tabs(flow: &Flow) -> Vec<TabView> {
    let questions = &flow.spec().questions;
    let mut tabs = Vec::with_capacity(questions.len() + 1);
    tabs.extend(
        questions
            .iter()
            .zip(flow.answers())
            .enumerate()
            .map(|(i, (q, a))| TabView {
                label: q.label.clone(),
                kind: TabKind::Question,
                answered: a.is_answered(),
                has_notes: a.has_notes(),
                active: i == flow.tab(),
            }),
    );
    tabs.push(TabView {
        label: ReviewAction::Submit.label().to_owned(),
        kind: TabKind::Review,
        answered: false,
        has_notes: false,
        active: flow.tab() == flow.spec().questions.len(),
    });
    tabs
}

fn question_view(flow: &Flow, q: &Question, answer: &Answer, all_rows: bool) -> QuestionView {
    let row_count = q.options.len() + usize::from(q.has_custom_row());
    let (shown_start, shown_end) = row_window(row_count, flow.row());
    let (start, end) = if all_rows {
        (0, row_count)
    } else {
        (shown_start, shown_end)
    };
    let options_end = end.min(q.options.len());
    let mut rows: Vec<Reused<RowView>> = Vec::with_capacity(end - start);
    rows.extend(
        q.options[start.min(options_end)..options_end]
            .iter()
            .zip(start..)
            .map(|(o, i)| {
                let (label, recommended) = strip_recommended(&o.label);
                Reused::new(RowView {
                    index: i + 1,
                    value: o.value.clone(),
                    label: label.to_owned(),
                    description: o.description.clone(),
                    preview: o.preview.clone(),
                    selected: answer.selected.contains(&i),
                    active: flow.row() == i,
                    custom: false,
                    note: answer.option_note(i).map(str::to_owned),
                    recommended,
                })
            }),
    );
    if q.has_custom_row() && end == row_count {
        let i = q.options.len();
        rows.push(Reused::new(RowView {
            index: i + 1,
            value: CUSTOM_VALUE.to_owned(),
            label: CUSTOM_LABEL.to_owned(),
            description: None,
            preview: None,
            selected: answer.custom_text.is_some(),
            active: flow.row() == i,
            custom: true,
            note: None,
            recommended: false,
        }));
    }
    QuestionView {
        id: q.id.clone(),
        label: q.label.clone(),
        prompt: q.prompt.clone(),
        kind: q.kind,
        required: q.required,
        detail: q.detail.clone(),
        note: answer.note.clone(),
        custom_text: answer.custom_text.clone(),
        active_option: flow.row(),
        row_count,
        rows_above: shown_start,
        rows_below: row_count - shown_end,
        preview: q.options.get(flow.row()).and_then(|o| o.preview.clone()),
        has_previews: flow.has_previews(flow.tab()),
        plan_review: q
            .intent
            .as_ref()
            .filter(|intent| intent.kind == crate::dsh::PLAN_REVIEW)
            .map(|intent| PlanReviewView {
                plan: q.detail.clone().unwrap_or_default(),
                approve_label: intent.approve.clone(),
            }),
        rows,
        dressing: Dressing::default(),
    }
}

fn review_view(flow: &Flow) -> ReviewView {
    let actions = flow.review_actions();
    let active = actions[flow.review_action()];
    let show_all_notes = active == ReviewAction::Elaborate;
    let questions = flow
        .spec()
        .questions
        .iter()
        .zip(flow.answers())
        .map(|(q, a)| {
            let answered = a.is_answered();
            let show_notes = show_all_notes || answered;
            let mut answers: Vec<ReviewAnswer> = a
                .selected
                .iter()
                .map(|&i| ReviewAnswer {
                    label: strip_recommended(&q.options[i].label).0.to_owned(),
                    custom: false,
                    note: a.option_note(i).filter(|_| show_notes).map(str::to_owned),
                })
                .collect();
            if let Some(text) = &a.custom_text {
                answers.push(ReviewAnswer {
                    label: text.clone(),
                    custom: true,
                    note: None,
                });
            }
            let other_notes = if show_all_notes {
                a.option_notes
                    .iter()
                    .filter(|(i, _)| !a.selected.contains(i))
                    .map(|(i, note)| ReviewOptionNote {
                        value: q.options[*i].value.clone(),
                        label: strip_recommended(&q.options[*i].label).0.to_owned(),
                        note: note.clone(),
                    })
                    .collect()
            } else {
                Vec::new()
            };
            ReviewQuestion {
                id: q.id.clone(),
                label: q.label.clone(),
                answered,
                answers,
                note: a.note.clone().filter(|_| show_notes),
                other_notes,
            }
        })
        .collect();
    ReviewView {
        actions: actions
            .iter()
            .enumerate()
            .map(|(i, a)| ReviewActionView {
                key: (i + 1).to_string(),
                label: a.label().to_owned(),
                active: i == flow.review_action(),
            })
            .collect(),
        active_action: flow.review_action(),
        questions,
        dressing: Dressing::default(),
    }
}

fn editor_view(flow: &Flow, editor: &OpenEditor) -> EditorView {
    let question = &flow.spec().questions[editor.question];
    let (kind, option_value, placeholder) = match editor.target {
        EditorTarget::Custom => ("custom", None, INPUT_PLACEHOLDER),
        EditorTarget::QuestionNote => ("questionNote", None, NOTE_PLACEHOLDER),
        EditorTarget::OptionNote { option } => (
            "optionNote",
            Some(question.options[option].value.clone()),
            NOTE_PLACEHOLDER,
        ),
    };
    let text = editor.text.text();
    let position = editor.text.position();
    let byte = editor.text.cursor();
    EditorView {
        target: EditorTargetView {
            kind,
            question_id: question.id.clone(),
            option_value,
        },
        text: text.to_owned(),
        cursor: CursorView {
            offset: position.offset,
            byte,
            utf16: text[..byte].encode_utf16().count(),
            line: position.line,
            grapheme: position.grapheme,
            column: position.column,
        },
        placeholder,
        completion: flow.completion().map(|list| CompletionView {
            items: list
                .items
                .iter()
                .map(|item| CompletionItemView {
                    path: item.path.clone(),
                    is_dir: item.is_dir,
                })
                .collect(),
            selected: list.selected,
            query: list.query.to_owned(),
        }),
        dressing: Dressing::default(),
    }
}

/// The actions a focus shows hints for, in display order.
fn hint_actions(flow: &Flow) -> &'static [Action] {
    match flow.focus() {
        Focus::Options => &[
            Action::MainUp,
            Action::MainDown,
            Action::MainNextTab,
            Action::MainPrevTab,
            Action::MainConfirm,
            Action::MainToggle,
            Action::MainOptionNote,
            Action::MainQuestionNote,
            Action::MainCancel,
            Action::GlobalDismiss,
        ],
        Focus::Review => &[
            Action::ReviewUp,
            Action::ReviewDown,
            Action::ReviewConfirm,
            Action::ReviewNextTab,
            Action::ReviewPrevTab,
            Action::ReviewCancel,
            Action::GlobalDismiss,
        ],
        Focus::Input => &[
            Action::EditorSubmit,
            Action::EditorNewline,
            Action::EditorClose,
            Action::GlobalDismiss,
        ],
        Focus::Note => &[
            Action::NoteEditorSubmit,
            Action::EditorNewline,
            Action::NoteEditorClose,
            Action::GlobalDismiss,
        ],
    }
}

/// Whether `key` is bound to an editing action (cursor movement, deletion, new line), which
/// keeps editing while a completion list is open.
fn edits(flow: &Flow, key: &Key) -> bool {
    flow.keymap().actions(Context::Editor, *key).any(|a| {
        !matches!(
            a,
            Action::EditorSubmit
                | Action::EditorClose
                | Action::EditorUp
                | Action::EditorDown
                | Action::EditorNextTab
                | Action::EditorPrevTab
        )
    })
}

/// The hints while a completion list is open: what accepts, moves and closes it.
fn completion_hints(flow: &Flow) -> Vec<Hint> {
    let table = if flow.focus() == Focus::Note {
        [
            (Action::NoteEditorSubmit, "accept"),
            (Action::NoteEditorNextTab, "accept"),
            (Action::NoteEditorUp, "previous"),
            (Action::NoteEditorDown, "next"),
            (Action::NoteEditorClose, "close list"),
            (Action::GlobalDismiss, Action::GlobalDismiss.description()),
        ]
    } else {
        [
            (Action::EditorSubmit, "accept"),
            (Action::EditorNextTab, "accept"),
            (Action::EditorUp, "previous"),
            (Action::EditorDown, "next"),
            (Action::EditorClose, "close list"),
            (Action::GlobalDismiss, Action::GlobalDismiss.description()),
        ]
    };
    table
        .into_iter()
        .filter_map(|(action, label)| {
            let keys: Vec<String> = flow
                .keymap()
                .keys(action)
                .iter()
                .filter(|key| action == Action::GlobalDismiss || !edits(flow, key))
                .map(ToString::to_string)
                .collect();
            (!keys.is_empty()).then(|| Hint {
                action: action.name(),
                keys: keys.into(),
                label,
            })
        })
        .collect()
}

fn hints(flow: &Flow) -> Vec<Hint> {
    if flow.completion().is_some() {
        return completion_hints(flow);
    }
    let keymap = flow.keymap();
    let dsh = flow.spec().dialect == Dialect::Dsh;
    let actions = hint_actions(flow);
    // Room for the digits too.
    let mut hints = Vec::with_capacity(actions.len() + 1);
    hints.extend(
        actions
            .iter()
            .filter(|a| !(dsh && matches!(a, Action::MainOptionNote | Action::MainQuestionNote)))
            .filter(|a| !keymap.keys(**a).is_empty())
            .map(|&action| Hint {
                action: action.name(),
                keys: keymap.key_names(action),
                label: action.description(),
            }),
    );
    let digits = match flow.focus() {
        Focus::Options => flow.current_question().map(|q| q.row_count().min(9)),
        Focus::Review => Some(flow.review_actions().len()),
        _ => None,
    };
    if let Some(n) = digits.filter(|&n| n > 0) {
        // The digits go just before the ways out (cancel, dismiss), whatever is bound.
        let ways_out = [
            Action::MainCancel.name(),
            Action::ReviewCancel.name(),
            Action::GlobalDismiss.name(),
        ];
        let at = hints
            .iter()
            .position(|h| ways_out.contains(&h.action))
            .unwrap_or(hints.len());
        hints.insert(
            at,
            Hint {
                action: "digits",
                keys: KeyNames::digits(n),
                label: if flow.focus() == Focus::Review {
                    "run action"
                } else {
                    "quick select"
                },
            },
        );
    }
    hints
}
