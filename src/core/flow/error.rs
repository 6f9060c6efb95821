//! Why an operation on a flow is refused.

/// Why an operation on a flow was refused. The flow is unchanged whenever one is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlowError {
    /// The flow has already completed.
    #[error("the flow has already completed")]
    Completed,
    /// `insert` needs an open editor.
    #[error("no editor is open")]
    NoEditor,
    /// No question has that id.
    #[error("unknown question id {0}")]
    UnknownQuestion(String),
    /// The question has no option with that value.
    #[error("question {question} has no option with value {value}")]
    UnknownOption {
        /// The question id (JSON-encoded).
        question: String,
        /// The option value (JSON-encoded).
        value: String,
    },
    /// Preview questions have no custom answer.
    #[error("question {0} has no custom answer (preview questions only take an option)")]
    NoCustomAnswer(String),
    /// The flow's dialect has no notes.
    #[error("notes are not part of the {0} dialect")]
    NoNotes(&'static str),
    /// The flow's dialect has notes on questions only.
    #[error("option notes are not part of the {0} dialect")]
    NoOptionNotes(&'static str),
    /// The flow's dialect has no decline.
    #[error("decline is not part of the {0} dialect")]
    NoDecline(&'static str),
    /// The flow's dialect refused a value.
    #[error("{0}")]
    Refused(String),
    /// An edit would grow the open editor past the flow's text limit.
    #[error("the editor would hold {would_hold} bytes; the limit is {limit}")]
    TextLimit {
        /// Bytes the editor would hold after the edit.
        would_hold: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// A save would leave the flow holding more custom text and notes than its budget.
    #[error("the flow would hold {would_hold} bytes of answers and notes; the limit is {limit}")]
    StoredLimit {
        /// Bytes of custom text and notes the flow would hold.
        would_hold: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// A pointer target that the screen does not offer (`activate`).
    #[error("{0}")]
    NotOnScreen(String),
    /// A caret past the end of the text given (`setDraft`).
    #[error("caret {caret} is past the end of the text ({length} UTF-16 code units)")]
    Caret {
        /// The caret given, in UTF-16 code units.
        caret: usize,
        /// The text's length in UTF-16 code units.
        length: usize,
    },
    /// A whole answer set given to `submit_answers` is invalid.
    #[error("{0}")]
    InvalidAnswers(String),
}
