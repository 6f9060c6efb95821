//! Building the view of a session: every decision a renderer would otherwise have to take
//! (which rows are in the window, what the review lists, which hints apply) is taken here.

use unicode_segmentation::UnicodeSegmentation;

use crate::core::{
    Action, Answer, CUSTOM_LABEL, Context, CursorPosition, CustomRow, EditorTarget,
    FILTER_MIN_OPTIONS, Flow, Focus, HIDDEN, Key, KeyNames, OpenEditor, OptionItem, PLAN_REVIEW,
    Question, ReviewAction, TextEditor, TypeChange, sequence_name,
};
use crate::session::{Session, Status};
use crate::view::model::{
    CUSTOM_VALUE, CompletionItemView, CompletionView, CursorView, EditorTargetView, EditorView,
    FilterView, HelpSection, HelpView, Hint, INPUT_PLACEHOLDER, NOTE_PLACEHOLDER, NoticeKind,
    NoticeView, OutcomeView, PlanReviewView, ProgressView, QuestionView, ROW_WINDOW,
    ReviewActionView, ReviewAnswer, ReviewOptionNote, ReviewQuestion, ReviewView, RowView, TabKind,
    TabView, View,
};

/// The digits that run the first review actions.
const DIGITS: [&str; 9] = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];

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

/// The view of `session` under id `id`, without rendered lines; `all_rows` carries every row
/// of the question instead of the window the screen shows.
pub fn build_view(id: &str, session: &Session, all_rows: bool) -> View {
    let status = session.status();
    let outcome = match session.flow() {
        Some(flow) => flow.outcome().map(OutcomeView::from),
        None => Some(OutcomeView::Invalid),
    };
    let title = session.title().map(str::to_owned);
    let requester = session.requester().map(str::to_owned);
    let dialect = session.dialect();
    let cancel_reason = session.cancel_reason();
    let Some(flow) = session.flow().filter(|_| status == Status::Open) else {
        let tabs = session.flow().map(tabs).unwrap_or_default();
        return View {
            session: id.to_owned(),
            status,
            dialect,
            title,
            requester,
            focus: Focus::Review,
            progress: progress(&tabs),
            tabs,
            active_tab: session.flow().map_or(0, Flow::tab),
            question: None,
            review: None,
            editor: None,
            hints: Vec::new(),
            notices: Vec::new(),
            help: None,
            outcome,
            cancel_reason,
            deadline: None,
            filter: None,
            pending_keys: None,
            activatable: None,
            lines: None,
            line_targets: None,
        };
    };
    let tabs = tabs(flow);
    View {
        session: id.to_owned(),
        status,
        dialect,
        title,
        requester,
        focus: flow.focus(),
        progress: progress(&tabs),
        tabs,
        active_tab: flow.tab(),
        question: flow
            .current_question()
            .map(|q| question_view(flow, q, &flow.answers()[flow.tab()], all_rows)),
        review: (flow.focus() == Focus::Review).then(|| review_view(flow)),
        editor: flow.editor().map(|e| editor_view(flow, e)),
        hints: hints(flow),
        notices: notices(flow),
        help: flow.prompts().help.then(|| help_view(flow)),
        outcome,
        cancel_reason,
        deadline: flow.deadline(),
        filter: flow.filter().map(|f| FilterView {
            text: f.text.text().to_owned(),
            cursor: cursor_view(&f.text),
            editing: f.editing,
            matches: f.matches().len(),
            total: flow.spec().questions[f.question].options.len(),
        }),
        pending_keys: (!flow.pending_keys().is_empty()).then(|| sequence_name(flow.pending_keys())),
        activatable: flow.activatable(),
        lines: None,
        line_targets: None,
    }
}

/// Questions answered, of all, as the tab bar shows them.
fn progress(tabs: &[TabView]) -> ProgressView {
    let questions = tabs.iter().filter(|t| t.kind == TabKind::Question);
    ProgressView {
        answered: questions.clone().filter(|t| t.answered).count(),
        total: questions.count(),
    }
}

/// The text of the dirty-dismiss notice.
pub const DISMISS_NOTICE: &str =
    "Unsaved ask answers or drafts. Press cancel/dismiss again to discard.";

/// The text of the question-type confirmation.
pub const TYPE_CONFIRM_NOTICE: &str = "Switching to single-select will clear selected options for this question. Press the type key again to confirm.";

/// The notices of the behaviour options, in order: the dirty-dismiss notice, the question-type
/// notice, the review-shortcut hint (on the review tab under `doublePressReviewShortcuts`).
fn notices(flow: &Flow) -> Vec<NoticeView> {
    let prompts = flow.prompts();
    let review_hint =
        flow.spec().behaviour.double_press_review_shortcuts && flow.focus() == Focus::Review;
    if !prompts.dismiss && prompts.type_change.is_none() && !review_hint {
        return Vec::new();
    }
    let mut notices = Vec::with_capacity(3);
    if prompts.dismiss {
        notices.push(NoticeView {
            kind: NoticeKind::DismissConfirm,
            text: DISMISS_NOTICE.to_owned(),
        });
    }
    match prompts.type_change {
        Some(TypeChange::Confirm { .. }) => notices.push(NoticeView {
            kind: NoticeKind::TypeConfirm,
            text: TYPE_CONFIRM_NOTICE.to_owned(),
        }),
        Some(TypeChange::Changed { from, to }) => notices.push(NoticeView {
            kind: NoticeKind::TypeChanged,
            text: format!(
                "Question type changed from {} to {}.",
                from.as_str(),
                to.as_str()
            ),
        }),
        None => {}
    }
    if review_hint {
        let actions = flow.review_actions();
        let text = match prompts.armed.and_then(|i| actions.get(i).map(|a| (i, a))) {
            Some((i, action)) => format!("Press {} again to {}.", i + 1, action.label()),
            None => format!(
                "Press {} twice to confirm a review action.",
                digit_list(actions.len())
            ),
        };
        notices.push(NoticeView {
            kind: NoticeKind::ReviewShortcut,
            text,
        });
    }
    notices
}

/// The digits `1` to `n` as a list in words: `1`, `1 or 2`, `1, 2, or 3`.
fn digit_list(n: usize) -> String {
    match n {
        0 | 1 => "1".to_owned(),
        2 => "1 or 2".to_owned(),
        _ => {
            let mut text: String = (1..n).map(|d| format!("{d}, ")).collect();
            text.push_str(&format!("or {n}"));
            text
        }
    }
}

/// The heading of a keymap context in the help overlay.
fn context_label(context: Context) -> &'static str {
    match context {
        Context::Global => "Everywhere",
        Context::Main => "Question tab",
        Context::Review => "Review tab",
        Context::Editor => "Answer editor",
        Context::NoteEditor => "Note editor",
        Context::Filter => "Filter editor",
    }
}

/// The help overlay: per context, every action the flow offers that has keys, with the digits
/// after the actions of the question and review tabs.
fn help_view(flow: &Flow) -> HelpView {
    let keymap = flow.keymap();
    let sections = Context::ALL
        .iter()
        .map(|&context| {
            let mut bindings: Vec<Hint> = Action::ALL
                .iter()
                .filter(|a| a.context() == context && offered(flow, **a))
                .filter(|a| !keymap.key_names(**a).is_empty())
                .map(|&action| Hint {
                    action: action.name(),
                    keys: keymap.key_names(action),
                    label: action.description(),
                })
                .collect();
            let digits = match context {
                Context::Main => Some((9, "quick select")),
                Context::Review => Some((flow.review_actions().len(), "run action")),
                _ => None,
            };
            if let Some((n, label)) = digits {
                bindings.push(Hint {
                    action: "digits",
                    keys: KeyNames::digits(n),
                    label,
                });
            }
            HelpSection {
                context: context.name(),
                label: context_label(context),
                bindings,
            }
        })
        .collect();
    HelpView {
        title: "Key bindings",
        sections,
    }
}

/// Whether the flow offers `action` at all: notes only where the dialect has them, the
/// question-type toggle and the help overlay only where the behaviour options give them.
fn offered(flow: &Flow, action: Action) -> bool {
    let behaviour = &flow.spec().behaviour;
    match action {
        Action::MainQuestionNote => flow.spec().rules.notes,
        Action::MainOptionNote => flow.spec().rules.notes && flow.spec().rules.option_notes,
        Action::MainChangeQuestionType => behaviour.question_type_toggle,
        Action::GlobalHelp => behaviour.help_overlay,
        _ => true,
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
    let rules = &flow.spec().rules;
    tabs.push(TabView {
        label: if rules.review_labels.is_empty() {
            ReviewAction::Submit.label().to_owned()
        } else {
            rules.review_label(ReviewAction::Submit).to_owned()
        },
        kind: TabKind::Review,
        answered: false,
        has_notes: false,
        active: flow.tab() == flow.spec().questions.len(),
    });
    tabs
}

fn question_view(flow: &Flow, q: &Question, answer: &Answer, all_rows: bool) -> QuestionView {
    // The rows keys move among: all of them, or those a filter keeps.
    let shown = flow.rows();
    let row_count = shown.len();
    let (shown_start, shown_end) = row_window(row_count, shown.position(flow.row()).unwrap_or(0));
    let (start, end) = if all_rows {
        (0, row_count)
    } else {
        (shown_start, shown_end)
    };
    let mut rows: Vec<RowView> = Vec::with_capacity(end - start);
    if shown.is_filtered() {
        // Position `at` among the rows kept is row `shown.row(at)` among all of them.
        rows.extend((start..end).map(|at| {
            let i = shown.row(at);
            match q.options.get(i) {
                Some(o) => option_row(flow, answer, o, i, at + 1),
                None => custom_row(flow, q, answer, i, at + 1),
            }
        }));
    } else {
        let options_end = end.min(q.options.len());
        rows.extend(
            q.options[start.min(options_end)..options_end]
                .iter()
                .zip(start..)
                .map(|(o, i)| option_row(flow, answer, o, i, i + 1)),
        );
        if flow.spec().has_last_row(q) && end == row_count {
            let i = q.options.len();
            rows.push(custom_row(flow, q, answer, i, i + 1));
        }
    }
    QuestionView {
        id: q.id.clone(),
        label: q.label.clone(),
        prompt: q.prompt.clone(),
        kind: q.kind,
        required: q.required,
        detail: q.detail.clone(),
        note: if q.secret {
            hidden(&answer.note)
        } else {
            answer.note.clone()
        },
        custom_text: if q.secret {
            hidden(&answer.custom_text)
        } else {
            answer.custom_text.clone()
        },
        active_option: flow.row(),
        row_count,
        rows_above: shown_start,
        rows_below: row_count - shown_end,
        preview: q.options.get(flow.row()).and_then(|o| o.preview.clone()),
        has_previews: flow.has_previews(flow.tab()),
        plan_review: q
            .intent
            .as_ref()
            .filter(|intent| intent.kind == PLAN_REVIEW)
            .map(|intent| PlanReviewView {
                plan: q.detail.clone().unwrap_or_default(),
                approve_label: intent.approve.clone(),
            }),
        rows,
    }
}

/// The row of option `o` (row `i` among all rows), numbered `index`.
// Inlined: a call per row would copy each row out, where the window builds them in place.
#[inline(always)]
fn option_row(flow: &Flow, answer: &Answer, o: &OptionItem, i: usize, index: usize) -> RowView {
    let (label, recommended) = strip_recommended(&o.label);
    RowView {
        index,
        value: o.value.clone(),
        label: label.to_owned(),
        description: o.description.clone(),
        preview: o.preview.clone(),
        selected: answer.selected.contains(&i),
        active: flow.row() == i,
        custom: false,
        note: answer.option_note(i).map(str::to_owned),
        recommended,
    }
}

/// The custom row (row `i` among all rows), numbered `index`.
// Inlined: a call per row would copy each row out, where the window builds them in place.
#[inline(always)]
fn custom_row(flow: &Flow, q: &Question, answer: &Answer, i: usize, index: usize) -> RowView {
    let (label, description) = match &q.custom_row {
        CustomRow::Labelled { label, description } | CustomRow::Inert { label, description } => {
            (label.clone(), description.clone())
        }
        CustomRow::Standard | CustomRow::Absent => (CUSTOM_LABEL.to_owned(), None),
    };
    RowView {
        index,
        value: CUSTOM_VALUE.to_owned(),
        label,
        description,
        preview: None,
        selected: answer.chosen_custom().is_some(),
        active: flow.row() == i,
        custom: true,
        note: None,
        recommended: false,
    }
}

/// What views show in place of a secret question's text: [`HIDDEN`], when there is one. (Cold,
/// as `masked`: kept out of the view builders that every key runs.)
#[cold]
#[inline(never)]
fn hidden(text: &Option<String>) -> Option<String> {
    text.as_ref().map(|_| HIDDEN.to_owned())
}

fn review_view(flow: &Flow) -> ReviewView {
    let actions = flow.review_actions();
    let rules = &flow.spec().rules;
    let active = actions[flow.review_action()];
    let show_all_notes = active == ReviewAction::Elaborate;
    let blocked = flow.submit_blocked();
    let questions = flow
        .spec()
        .questions
        .iter()
        .zip(flow.answers())
        .enumerate()
        .map(|(index, (q, a))| {
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
            if let Some(text) = a.chosen_custom() {
                answers.push(ReviewAnswer {
                    label: if q.secret {
                        HIDDEN.to_owned()
                    } else {
                        text.to_owned()
                    },
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
                note: if q.secret {
                    hidden(&a.note)
                } else {
                    a.note.clone()
                }
                .filter(|_| show_notes),
                other_notes,
                problem: if blocked { flow.problem(index) } else { None },
            }
        })
        .collect();
    ReviewView {
        actions: actions
            .iter()
            .enumerate()
            .map(|(i, &a)| ReviewActionView {
                key: DIGITS
                    .get(i)
                    .map_or_else(|| (i + 1).to_string(), |d| (*d).to_owned()),
                label: rules.review_label(a).to_owned(),
                active: i == flow.review_action(),
                disabled: blocked && a == ReviewAction::Submit,
            })
            .collect(),
        active_action: flow.review_action(),
        questions,
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
    let (text, cursor) = if question.secret {
        masked(
            editor.text.text(),
            editor.text.cursor(),
            editor.text.position(),
        )
    } else {
        (editor.text.text().to_owned(), cursor_view(&editor.text))
    };
    EditorView {
        target: EditorTargetView {
            kind,
            question_id: question.id.clone(),
            option_value,
        },
        text,
        cursor,
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
        secret: question.secret,
        error: editor.refusal.clone(),
    }
}

/// Where the cursor of `text` is, in every unit a client may need.
fn cursor_view(text: &TextEditor) -> CursorView {
    let position = text.position();
    let byte = text.cursor();
    CursorView {
        offset: position.offset,
        byte,
        utf16: text.text()[..byte].encode_utf16().count(),
        line: position.line,
        grapheme: position.grapheme,
        column: position.column,
    }
}

/// A secret editor's `text` as the view shows it, a `•` per grapheme with line breaks kept, and
/// the cursor at `byte` (at `position` in the text) counted in it.
#[cold]
#[inline(never)]
fn masked(text: &str, byte: usize, position: CursorPosition) -> (String, CursorView) {
    let mask_of = |part: &str| -> String {
        part.graphemes(true)
            .map(|g| if g.contains('\n') { "\n" } else { "•" })
            .collect()
    };
    let before = mask_of(&text[..byte]);
    let cursor = CursorView {
        offset: position.offset,
        byte: before.len(),
        utf16: before.encode_utf16().count(),
        line: position.line,
        grapheme: position.grapheme,
        column: position.grapheme,
    };
    let mut masked = before;
    masked.push_str(&mask_of(&text[byte..]));
    (masked, cursor)
}

/// The actions a focus shows hints for, in display order: on a question tab the page and
/// first/last keys only while more rows than a screen shows are to move among, and the filter
/// key only on a question that takes a filter.
fn hint_actions(flow: &Flow) -> &'static [Action] {
    const OPTIONS: &[Action] = &[
        Action::MainUp,
        Action::MainDown,
        Action::MainNextTab,
        Action::MainPrevTab,
        Action::MainConfirm,
        Action::MainToggle,
        Action::MainOptionNote,
        Action::MainQuestionNote,
        Action::MainChangeQuestionType,
        Action::MainCancel,
        Action::GlobalDismiss,
        Action::GlobalHelp,
    ];
    const FILTERABLE: &[Action] = &[
        Action::MainUp,
        Action::MainDown,
        Action::MainFilter,
        Action::MainNextTab,
        Action::MainPrevTab,
        Action::MainConfirm,
        Action::MainToggle,
        Action::MainOptionNote,
        Action::MainQuestionNote,
        Action::MainChangeQuestionType,
        Action::MainCancel,
        Action::GlobalDismiss,
        Action::GlobalHelp,
    ];
    const LONG: &[Action] = &[
        Action::MainUp,
        Action::MainDown,
        Action::MainPageDown,
        Action::MainPageUp,
        Action::MainFirst,
        Action::MainLast,
        Action::MainFilter,
        Action::MainNextTab,
        Action::MainPrevTab,
        Action::MainConfirm,
        Action::MainToggle,
        Action::MainOptionNote,
        Action::MainQuestionNote,
        Action::MainChangeQuestionType,
        Action::MainCancel,
        Action::GlobalDismiss,
        Action::GlobalHelp,
    ];
    match flow.focus() {
        Focus::Options if flow.rows().len() > ROW_WINDOW => LONG,
        Focus::Options
            if flow
                .current_question()
                .is_some_and(|q| q.options.len() >= FILTER_MIN_OPTIONS) =>
        {
            FILTERABLE
        }
        Focus::Options => OPTIONS,
        Focus::Review => &[
            Action::ReviewUp,
            Action::ReviewDown,
            Action::ReviewConfirm,
            Action::ReviewNextTab,
            Action::ReviewPrevTab,
            Action::ReviewCancel,
            Action::GlobalDismiss,
            Action::GlobalHelp,
        ],
        Focus::Filter => &[
            Action::FilterUp,
            Action::FilterDown,
            Action::FilterAccept,
            Action::FilterClear,
            Action::GlobalDismiss,
            Action::GlobalHelp,
        ],
        Focus::Input => &[
            Action::EditorSubmit,
            Action::EditorNewline,
            Action::EditorClose,
            Action::GlobalDismiss,
            Action::GlobalHelp,
        ],
        Focus::Note => &[
            Action::NoteEditorSubmit,
            Action::EditorNewline,
            Action::NoteEditorClose,
            Action::GlobalDismiss,
            Action::GlobalHelp,
        ],
    }
}

/// The hints while the help overlay is open: what closes it.
fn help_hints(flow: &Flow) -> Vec<Hint> {
    let close = match flow.focus() {
        Focus::Options => Action::MainCancel,
        Focus::Review => Action::ReviewCancel,
        Focus::Input => Action::EditorClose,
        Focus::Note => Action::NoteEditorClose,
        Focus::Filter => Action::FilterClear,
    };
    [Action::GlobalHelp, close]
        .into_iter()
        .filter(|a| !flow.keymap().key_names(*a).is_empty())
        .map(|action| Hint {
            action: action.name(),
            keys: flow.keymap().key_names(action),
            label: "close help",
        })
        .collect()
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
                | Action::EditorPageDown
                | Action::EditorPageUp
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
    if flow.prompts().help {
        return help_hints(flow);
    }
    if flow.completion().is_some() {
        return completion_hints(flow);
    }
    let keymap = flow.keymap();
    let actions = hint_actions(flow);
    // `?` opens the help from an editor only while it is empty.
    let editor_has_text = flow.editor().is_some_and(|e| !e.text.is_empty())
        || (flow.focus() == Focus::Filter && flow.filter().is_some_and(|f| !f.text.is_empty()));
    // Room for the digits too.
    let mut hints = Vec::with_capacity(actions.len() + 1);
    hints.extend(
        actions
            .iter()
            .filter(|a| offered(flow, **a))
            .filter(|a| !(editor_has_text && **a == Action::GlobalHelp))
            .filter(|a| !keymap.key_names(**a).is_empty())
            .map(|&action| Hint {
                action: action.name(),
                keys: keymap.key_names(action),
                label: match action {
                    // While a filter is applied, cancel clears it first.
                    Action::MainCancel if flow.filter().is_some() => "clear filter",
                    _ => action.description(),
                },
            }),
    );
    let digits = match flow.focus() {
        Focus::Options => Some(flow.rows().len().min(9)),
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
