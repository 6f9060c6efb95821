//! The model a client draws: the view of a session ([`View`], plain data, field for field what
//! the protocol sends), built from a session ([`build`]), drawn as styled terminal lines at a
//! width ([`render`]), and written as JSON view after view through a [`ScreenCache`] that lends
//! each view the JSON of the parts it shares with the last ones.
//!
//! The arrows run one way: the renderer reads the view model, the cache reads both; the view
//! model imports neither.
//!
//! Architecture invariant: `view` imports only `core`, `dialect` and `session`; it decides
//! nothing about the flow, only how the flow is shown. **API boundary**: [`View`] and
//! [`Line`] are the protocol's view.

mod build;
mod cache;
mod line;
mod model;
mod recent;
mod render;

use crate::core::EditorTarget;
use crate::session::Session;

pub use build::build_view;
pub use cache::{CachedView, ScreenCache};
pub use line::{Line, Span, Style};
pub use model::{
    CUSTOM_LABEL, CUSTOM_VALUE, CompletionItemView, CompletionView, CursorView, EditorTargetView,
    EditorView, FilterView, HelpSection, HelpView, Hint, INPUT_PLACEHOLDER, LineTarget,
    NOTE_PLACEHOLDER, NoticeKind, NoticeView, OutcomeView, PlanReviewView, ProgressView,
    QuestionView, ROW_WINDOW, ReviewActionView, ReviewAnswer, ReviewOptionNote, ReviewQuestion,
    ReviewView, RowView, TabKind, TabView, TargetView, View, ViewOptions,
};
pub use render::{
    MAX_EDITOR_LINES, MAX_WIDTH, MIN_WIDTH, SIDE_BY_SIDE_WIDTH, plain, render, render_targeted,
};

/// The columns the open editor of `session` lays its text out in when its screen is `width`
/// columns wide ([`Session::press_wrapped`] takes them): `usize::MAX`, the text's own lines,
/// when no width is known or no editor is open.
pub fn editor_columns(session: &Session, width: Option<usize>) -> usize {
    let (Some(width), Some(flow)) = (width, session.flow()) else {
        return usize::MAX;
    };
    let Some(editor) = flow.editor() else {
        return usize::MAX;
    };
    render::editor_columns(
        width,
        editor.target == EditorTarget::QuestionNote,
        flow.has_previews(editor.question),
    )
}

/// The view of a session, without rendered lines.
pub fn build(id: &str, session: &Session) -> View {
    build_with(id, session, ViewOptions::default())
}

/// The view of a session; with a width (terminal columns) it carries the rendered `lines`.
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

/// The view of a session as `options` ask, built afresh (a [`ScreenCache`] builds the same
/// view reusing what it keeps).
pub fn build_with(id: &str, session: &Session, options: ViewOptions) -> View {
    let mut view = build_view(id, session, options.all_rows);
    if let Some(width) = options.width {
        let (lines, targets) = render_targeted(&view, width);
        view.lines = Some(lines);
        view.line_targets = Some(targets);
    }
    view
}
