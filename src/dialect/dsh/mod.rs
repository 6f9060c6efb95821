//! The dsh user-questions dialect (`protocol/behaviour.md` §7): an `AskUserQuestionRequest` validated into a
//! [`FlowSpec`], the `AskUserQuestionAnswer` a finished flow yields, answer batches collected
//! elsewhere and checked the way hosts check them, the `UserQuestionError` codes, and the
//! transcript lines. Everything here is pure: values in, values out.
//!
//! Mapping of a request item onto a [`Question`]:
//! - `id` is kept exactly as given (it is echoed in the answer); it must be non-blank, and no
//!   two ids may be equal after trimming.
//! - `header` (trimmed) is the tab label; absent or blank gives `Q1`, `Q2`, … by position.
//! - `question` (trimmed) is the prompt; it must be non-blank.
//! - `detail` and option `description`s are trimmed; blank counts as absent.
//! - every option's `value` and `label` are its `label` exactly as given, recommended marker
//!   included (the view strips the marker for display), because hosts accept only the offered
//!   labels back. Labels must be non-blank and unique within a question after trimming.
//! - `multiSelect: true` makes a multi question, `false` or absent a single one; absent or
//!   empty `options` make a free-text question with no options (only the custom row, whose
//!   editor the flow opens on arrival).
//! - `intent` is kept (`kind` and `approve` exactly as given). A `plan-review` intent moves its
//!   approve option to the front, so `Enter` on arrival approves; the other options keep
//!   their order. Intents of other kinds change nothing.
//!
//! Validation stops at the first problem and checks, in this order: the request is an object;
//! `questions` present and non-empty (`EMPTY_QUESTIONS`); every question's shape, question by
//! question (`INVALID_REQUEST`); then every question's intent (`BAD_INTENT`). JSON `null`
//! counts as absent; unknown fields are ignored. A `plan-review` intent without `approve` is a
//! `BAD_INTENT` (it names none of the options).
//!
//! Answers: one item per question, in the order asked. On a single question that holds both a
//! selection and custom text, the custom text wins (`selected: []`), as the seam says custom
//! overrides the selection; on a multi question both are sent. Custom text is sent trimmed,
//! and only when non-blank; an unanswered question is sent as `selected: []` (skipped).
//! `approve` is matched against labels exactly, as hosts do.

pub mod schema;

use serde_json::{Map, Value, json};
use unicode_width::UnicodeWidthChar;

use crate::core::{
    Answer, Behaviour, CancelReason, CustomRow, FlowSpec, Intent, OptionItem, Outcome, PLAN_REVIEW,
    Question, QuestionType, ReviewAction, Rules, quoted,
};
use crate::dialect::{
    AskError, Dialect, Ending, Rejection, SchemaFile, Schemas, Shape, Transcript,
};

/// What dsh flows offer: no notes, Submit and Cancel on the review tab, free-text questions,
/// and a single question's custom answer in place of its selection.
pub const RULES: Rules = Rules {
    dialect: "dsh",
    notes: false,
    review: &[ReviewAction::Submit, ReviewAction::Cancel],
    exclusive_custom: true,
    free_text: true,
    option_notes: false,
    review_labels: &[],
    checker: None,
    empty: false,
    cursor_on_answer: true,
};

/// The JSON-RPC error code of a dsh `UserQuestionError`.
pub const USER_QUESTION_CODE: i32 = -32010;

/// Transcript result of a dsh ask opened without UI.
pub const NO_PROVIDER_TRANSCRIPT: &str = "No provider";

/// The provider-neutral `AskUserQuestion` vocabulary.
#[derive(Debug, Clone, Copy)]
pub struct Dsh;

impl Dialect for Dsh {
    fn name(&self) -> &'static str {
        "dsh"
    }

    fn rules(&self) -> Rules {
        RULES
    }

    fn description(&self) -> &'static str {
        "The provider-neutral `AskUserQuestion` vocabulary."
    }

    /// A request whose first question carries `question` and `id` and no `prompt` (items
    /// without an `id`, as other agents send them, are not taken for dsh).
    fn recognises(&self, payload: &Value) -> bool {
        let first = payload
            .get("questions")
            .and_then(Value::as_array)
            .and_then(|q| q.first());
        first.is_some_and(|q| {
            q.get("question").is_some() && q.get("id").is_some() && q.get("prompt").is_none()
        })
    }

    fn open(&self, payload: &Value, _options: &Value) -> Result<FlowSpec, Rejection> {
        validate(payload).map_err(|e| Rejection::Refused(e.to_ask_error()))
    }

    fn result(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Value {
        match ending_reply(spec, answers, ending) {
            Ok(answer) => json!({ "answer": answer }),
            Err(error) => json!({ "error": error.to_json() }),
        }
    }

    fn ask_reply(
        &self,
        spec: &FlowSpec,
        answers: &[Answer],
        ending: Ending,
    ) -> Result<Value, AskError> {
        ending_reply(spec, answers, ending).map_err(|e| e.to_ask_error())
    }

    fn transcript(&self, spec: &FlowSpec, answers: &[Answer], ending: Ending) -> Transcript {
        Transcript {
            call: transcript_call(spec),
            result: match ending {
                Ending::NoUi => NO_PROVIDER_TRANSCRIPT.to_owned(),
                Ending::Outcome(outcome) => transcript_result(spec, answers, outcome),
            },
        }
    }

    /// The dsh shape `{ answers: [{ id, selected, custom? }] }`, or the pi shape keyed by
    /// question id.
    fn parse_answers(&self, spec: &FlowSpec, answers: &Value) -> Result<Vec<Answer>, String> {
        if answers.get("answers").is_some_and(Value::is_array) {
            parse_answers(spec, answers)
        } else {
            crate::dialect::pi::parse_answers(spec, answers)
        }
    }

    fn schemas(&self) -> &'static Schemas {
        &SCHEMAS
    }
}

/// The dsh dialect's shapes: the request, the answer (what `ask` resolves with, and an answer
/// set of `submitAnswers`), the result, and the data of its -32010 error.
static SCHEMAS: Schemas = Schemas {
    files: &[
        SchemaFile {
            name: "dsh-request.json",
            exact: false,
            shape: Shape::of::<schema::AskUserQuestionRequest>(),
        },
        SchemaFile {
            name: "dsh-answer.json",
            exact: true,
            shape: Shape::of::<schema::AskUserQuestionAnswer>(),
        },
        SchemaFile {
            name: "dsh-result.json",
            exact: true,
            shape: Shape::of::<schema::DshResult>(),
        },
    ],
    request: Shape::of::<schema::AskUserQuestionRequest>(),
    result: Shape::of::<schema::DshResult>(),
    ask: Shape::of::<schema::AskUserQuestionAnswer>(),
    answers: Shape::of::<schema::AskUserQuestionAnswer>(),
    options: None,
    components: &[Shape::of::<schema::UserQuestionErrorData>()],
};

/// Columns the labels of the transcript call line are cut to.
const CALL_LABELS_WIDTH: usize = 50;

/// The code of a dsh `UserQuestionError`, as on the wire (`EMPTY_QUESTIONS`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The request holds no questions.
    EmptyQuestions,
    /// An intent that names no option of its question, or sits on a question without `detail`.
    BadIntent,
    /// A request whose shape its types forbid.
    InvalidRequest,
    /// The user cancelled.
    AskCancelled,
    /// The asker withdrew the request.
    AskAborted,
    /// The engine's own code: the flow's deadline (`timeoutMs`) passed before the user answered.
    AskTimeout,
    /// No UI can ask the user.
    NoProvider,
}

impl ErrorCode {
    /// The code as sent on the wire, e.g. `EMPTY_QUESTIONS`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::EmptyQuestions => "EMPTY_QUESTIONS",
            ErrorCode::BadIntent => "BAD_INTENT",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::AskCancelled => "ASK_CANCELLED",
            ErrorCode::AskAborted => "ASK_ABORTED",
            ErrorCode::AskTimeout => "ASK_TIMEOUT",
            ErrorCode::NoProvider => "NO_PROVIDER",
        }
    }
}

/// A dsh `UserQuestionError`: a code and a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct UserQuestionError {
    /// What kind of failure.
    pub code: ErrorCode,
    /// What went wrong, naming the question or field concerned.
    pub message: String,
}

impl UserQuestionError {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        UserQuestionError {
            code,
            message: message.into(),
        }
    }

    /// The error as JSON: `{ name: "UserQuestionError", code, message }`.
    pub fn to_json(&self) -> Value {
        json!({
            "name": "UserQuestionError",
            "code": self.code.as_str(),
            "message": self.message,
        })
    }

    /// The error as a JSON-RPC error: -32010 with `data: { name: "UserQuestionError", code }`.
    pub fn to_ask_error(&self) -> AskError {
        AskError {
            code: USER_QUESTION_CODE,
            message: self.message.clone(),
            data: Some(json!({ "name": "UserQuestionError", "code": self.code.as_str() })),
        }
    }
}

/// `NO_PROVIDER`: the ask was opened without a UI.
pub fn no_provider() -> UserQuestionError {
    UserQuestionError::new(
        ErrorCode::NoProvider,
        "No user-question provider is available: there is no UI to ask the user",
    )
}

/// `ASK_CANCELLED`: the user closed the questions without answering.
pub fn ask_cancelled() -> UserQuestionError {
    UserQuestionError::new(ErrorCode::AskCancelled, "The user cancelled the questions")
}

/// `ASK_ABORTED`: the asker withdrew the request before the user answered.
pub fn ask_aborted() -> UserQuestionError {
    UserQuestionError::new(
        ErrorCode::AskAborted,
        "The request was withdrawn before the user answered",
    )
}

/// `ASK_TIMEOUT`: the deadline passed before the user answered.
pub fn ask_timeout() -> UserQuestionError {
    UserQuestionError::new(
        ErrorCode::AskTimeout,
        "The questions timed out before the user answered",
    )
}

/// `ASK_CANCELLED` for a flow the client closed: its window went away before the user answered.
pub fn ask_closed() -> UserQuestionError {
    UserQuestionError::new(
        ErrorCode::AskCancelled,
        "The questions were closed before the user answered",
    )
}

/// The error a flow cancelled for `reason` fails with: `ASK_CANCELLED` when the user or the
/// client ended it, `ASK_ABORTED` when the asker withdrew, `ASK_TIMEOUT` when its deadline
/// passed, `NO_PROVIDER` without UI.
pub fn cancelled_error(reason: CancelReason) -> UserQuestionError {
    match reason {
        CancelReason::User | CancelReason::Dismissed | CancelReason::InvalidInput => {
            ask_cancelled()
        }
        CancelReason::Aborted => ask_aborted(),
        CancelReason::Timeout => ask_timeout(),
        CancelReason::Closed => ask_closed(),
        CancelReason::NoUi => no_provider(),
    }
}

/// Validates an `AskUserQuestionRequest` given as arbitrary JSON and maps it onto a flow spec.
pub fn validate(request: &Value) -> Result<FlowSpec, UserQuestionError> {
    let Some(root) = request.as_object() else {
        return Err(invalid(format!(
            "request must be an object (got {})",
            kind_of(request)
        )));
    };
    let items = match root.get("questions") {
        Some(Value::Array(items)) if !items.is_empty() => items,
        None | Some(Value::Null) | Some(Value::Array(_)) => {
            return Err(UserQuestionError::new(
                ErrorCode::EmptyQuestions,
                "questions must hold at least one question",
            ));
        }
        Some(other) => {
            return Err(invalid(format!(
                "questions must be an array (got {})",
                kind_of(other)
            )));
        }
    };
    let mut questions = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let question = check_question(index, item, &questions)?;
        questions.push(question);
    }
    for (index, question) in questions.iter_mut().enumerate() {
        apply_intent(index, question)?;
    }
    Ok(FlowSpec {
        title: None,
        questions,
        rules: RULES,
        requester: None,
        source: None,
        behaviour: Behaviour::default(),
    })
}

/// The `AskUserQuestionAnswer` of a flow: `{ answers: [{ id, selected, custom? }] }`, one item
/// per question in the order asked (answers missing from the slice count as skipped).
pub fn answer(spec: &FlowSpec, answers: &[Answer]) -> Value {
    let items: Vec<Value> = spec
        .questions
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let (selected, custom) = reply(q, answers.get(i));
            let mut item = Map::new();
            item.insert("id".to_owned(), Value::from(q.id.as_str()));
            item.insert("selected".to_owned(), Value::from(selected));
            if let Some(custom) = custom {
                item.insert("custom".to_owned(), Value::from(custom));
            }
            Value::Object(item)
        })
        .collect();
    json!({ "answers": items })
}

/// How an `ask` ends: the answer on submit, or the error of its cancel ([`cancelled_error`]).
///
/// `Elaborate` does not exist in this dialect (the flow never ends with it); it is treated as
/// a submit.
pub fn ask_outcome(
    spec: &FlowSpec,
    answers: &[Answer],
    outcome: Outcome,
) -> Result<Value, UserQuestionError> {
    match outcome {
        Outcome::Submit | Outcome::Elaborate => Ok(answer(spec, answers)),
        Outcome::Cancelled(reason) => Err(cancelled_error(reason)),
        // dsh flows never end declined; a decline would be the user's cancel.
        Outcome::Declined => Err(ask_cancelled()),
    }
}

/// What an ask that ended this way answers: the answer, or the error it fails with.
fn ending_reply(
    spec: &FlowSpec,
    answers: &[Answer],
    ending: Ending,
) -> Result<Value, UserQuestionError> {
    match ending {
        Ending::NoUi => Err(no_provider()),
        Ending::Outcome(outcome) => ask_outcome(spec, answers, outcome),
    }
}

/// The result of a finished dsh flow: `{ answer: <answer> }` on submit, or
/// `{ error: { name, code, message } }` when it ended without an answer.
pub fn result(spec: &FlowSpec, answers: &[Answer], outcome: Outcome) -> Value {
    match ask_outcome(spec, answers, outcome) {
        Ok(answer) => json!({ "answer": answer }),
        Err(error) => json!({ "error": error.to_json() }),
    }
}

/// Parses an answer batch in the dsh shape, `{ answers: [{ id, selected, custom? }] }`, into
/// one [`Answer`] per question, checking it the way hosts do: exactly one entry per question,
/// in the order asked; `selected` only offered labels, without duplicates, at most one on a
/// single question; `custom` a non-blank string, never beside a selection on a single question.
///
/// The error names the path of the first problem, e.g.
/// `answers[1].selected[0]: "Huge" is not an option of question "size"`.
pub fn parse_answers(spec: &FlowSpec, value: &Value) -> Result<Vec<Answer>, String> {
    let Some(object) = value.as_object() else {
        return Err(format!(
            "expected an object {{ answers: [...] }} (got {})",
            kind_of(value)
        ));
    };
    let items = match object.get("answers") {
        Some(Value::Array(items)) => items,
        None | Some(Value::Null) => {
            return Err("answers is required: an array with one entry per question".to_owned());
        }
        Some(other) => {
            return Err(format!("answers must be an array (got {})", kind_of(other)));
        }
    };
    let count = spec.questions.len();
    let mut answers = Vec::with_capacity(count);
    for (i, question) in spec.questions.iter().enumerate() {
        let Some(item) = items.get(i) else {
            return Err(format!(
                "answers[{i}]: missing; expected an entry for question {} ({})",
                quoted(&question.id),
                in_order(count)
            ));
        };
        let takes_custom = spec.has_custom_row(question);
        answers.push(parse_item(i, question, takes_custom, item, count)?);
    }
    if items.len() > count {
        return Err(format!(
            "answers[{count}]: unexpected entry; the request has {count} {}",
            noun(count)
        ));
    }
    Ok(answers)
}

/// The transcript call line: `ask_user_question <n> question(s) (<labels>)`, `1 question` or
/// `<n> questions`, the tab labels joined with `, ` and cut to 50 terminal columns.
pub fn transcript_call(spec: &FlowSpec) -> String {
    let labels: Vec<&str> = spec.questions.iter().map(|q| q.label.as_str()).collect();
    let n = labels.len();
    format!(
        "ask_user_question {n} {} ({})",
        noun(n),
        cut_to_width(&labels.join(", "), CALL_LABELS_WIDTH)
    )
}

/// The transcript result text of a finished dsh flow: the words of its cancel reason
/// (`Cancelled`, `Cancelled (timed out)`, …, see [`CancelReason::words`]), or one line per
/// question in the order asked, as sent in the answer: `✓ Label: l1, l2` for selected labels,
/// `(wrote) <text>` for custom text (after the labels on a multi question), and
/// `- Label: (skipped)` for a question left unanswered.
pub fn transcript_result(spec: &FlowSpec, answers: &[Answer], outcome: Outcome) -> String {
    match outcome {
        Outcome::Cancelled(reason) => reason.words().to_owned(),
        Outcome::Declined => CancelReason::User.words().to_owned(),
        Outcome::Submit | Outcome::Elaborate => spec
            .questions
            .iter()
            .enumerate()
            .map(|(i, q)| {
                let (selected, custom) = reply(q, answers.get(i));
                let mut parts: Vec<String> = selected.into_iter().map(str::to_owned).collect();
                parts.extend(custom.map(|text| format!("(wrote) {text}")));
                if parts.is_empty() {
                    format!("- {}: (skipped)", q.label)
                } else {
                    format!("✓ {}: {}", q.label, parts.join(", "))
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// What one question's answer sends: the selected labels in selection order, and the custom
/// text trimmed when non-blank. Custom text empties the selection of a non-multi question.
fn reply<'a>(q: &'a Question, answer: Option<&'a Answer>) -> (Vec<&'a str>, Option<&'a str>) {
    let Some(answer) = answer else {
        return (Vec::new(), None);
    };
    let custom = answer
        .chosen_custom()
        .map(str::trim)
        .filter(|text| !text.is_empty());
    let selected = if custom.is_some() && q.kind != QuestionType::Multi {
        Vec::new()
    } else {
        answer
            .selected
            .iter()
            .filter_map(|&i| q.options.get(i).map(|o| o.label.as_str()))
            .collect()
    };
    (selected, custom)
}

/// An `INVALID_REQUEST` error.
fn invalid(message: impl Into<String>) -> UserQuestionError {
    UserQuestionError::new(ErrorCode::InvalidRequest, message)
}

/// A `BAD_INTENT` error.
fn bad_intent(message: impl Into<String>) -> UserQuestionError {
    UserQuestionError::new(ErrorCode::BadIntent, message)
}

/// What kind of JSON value `value` is, for messages: `a number`, `an array`, ….
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `question` or `questions`.
fn noun(count: usize) -> &'static str {
    if count == 1 { "question" } else { "questions" }
}

/// `one entry per question, 2 questions in the order asked`.
fn in_order(count: usize) -> String {
    format!(
        "one entry per question, {count} {} in the order asked",
        noun(count)
    )
}

/// A field of a JSON object, classified by what validation needs to know about it.
enum Field<'a> {
    /// Missing or JSON null.
    Absent,
    /// A string, as given.
    Text(&'a str),
    /// Any other JSON value.
    Other(&'a Value),
}

/// Classifies `object[key]`.
fn field<'a>(object: &'a Map<String, Value>, key: &str) -> Field<'a> {
    match object.get(key) {
        None | Some(Value::Null) => Field::Absent,
        Some(Value::String(text)) => Field::Text(text),
        Some(other) => Field::Other(other),
    }
}

/// A required non-blank string field, as given; `at` prefixes the messages and `name` is the
/// field's path below it.
fn required_text<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    at: &str,
    name: &str,
) -> Result<&'a str, UserQuestionError> {
    match field(object, key) {
        Field::Text(text) if !text.trim().is_empty() => Ok(text),
        Field::Absent => Err(invalid(format!("{at}: {name} is required"))),
        Field::Text(_) => Err(invalid(format!("{at}: {name} must not be blank"))),
        Field::Other(other) => Err(invalid(format!(
            "{at}: {name} must be a string (got {})",
            kind_of(other)
        ))),
    }
}

/// An optional string field, trimmed; absent or blank is `None`.
fn optional_text(
    object: &Map<String, Value>,
    key: &str,
    at: &str,
    name: &str,
) -> Result<Option<String>, UserQuestionError> {
    match field(object, key) {
        Field::Absent => Ok(None),
        Field::Text(text) => Ok(Some(text.trim())
            .filter(|t| !t.is_empty())
            .map(str::to_owned)),
        Field::Other(other) => Err(invalid(format!(
            "{at}: {name} must be a string (got {})",
            kind_of(other)
        ))),
    }
}

/// Checks the shape of question `index` (0-based) and maps it; `earlier` are the questions
/// before it, for the duplicate-id check.
fn check_question(
    index: usize,
    item: &Value,
    earlier: &[Question],
) -> Result<Question, UserQuestionError> {
    let at = format!("questions[{index}]");
    let Some(object) = item.as_object() else {
        return Err(invalid(format!(
            "{at} must be an object (got {})",
            kind_of(item)
        )));
    };
    let id = required_text(object, "id", &at, "id")?;
    let at = format!("{at} ({})", quoted(id));
    if let Some(first) = earlier.iter().position(|q| q.id.trim() == id.trim()) {
        return Err(invalid(format!(
            "{at}: duplicate question id {} (first used by questions[{first}])",
            quoted(id)
        )));
    }
    let prompt = required_text(object, "question", &at, "question")?.trim();
    let header = optional_text(object, "header", &at, "header")?;
    let detail = optional_text(object, "detail", &at, "detail")?;
    let options = match object.get("options") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => check_options(items, &at)?,
        Some(other) => {
            return Err(invalid(format!(
                "{at}: options must be an array (got {})",
                kind_of(other)
            )));
        }
    };
    let kind = match object.get("multiSelect") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => QuestionType::Single,
        Some(Value::Bool(true)) => QuestionType::Multi,
        Some(other) => {
            return Err(invalid(format!(
                "{at}: multiSelect must be a boolean (got {})",
                kind_of(other)
            )));
        }
    };
    let intent = match object.get("intent") {
        None | Some(Value::Null) => None,
        Some(Value::Object(intent)) => Some(check_intent_shape(intent, &at)?),
        Some(other) => {
            return Err(invalid(format!(
                "{at}: intent must be an object (got {})",
                kind_of(other)
            )));
        }
    };
    Ok(Question {
        id: id.to_owned(),
        label: header.unwrap_or_else(|| format!("Q{}", index + 1)),
        prompt: prompt.to_owned(),
        kind,
        asked: None,
        required: false,
        options,
        detail,
        intent,
        custom_row: CustomRow::Standard,
        secret: false,
        initial: Answer::default(),
    })
}

/// Checks and maps the options of the question at `at`.
fn check_options(items: &[Value], at: &str) -> Result<Vec<OptionItem>, UserQuestionError> {
    let mut options: Vec<OptionItem> = Vec::with_capacity(items.len());
    for (j, item) in items.iter().enumerate() {
        let Some(object) = item.as_object() else {
            return Err(invalid(format!(
                "{at}: options[{j}] must be an object (got {})",
                kind_of(item)
            )));
        };
        let label = required_text(object, "label", at, &format!("options[{j}].label"))?;
        if let Some(first) = options.iter().position(|o| o.label.trim() == label.trim()) {
            return Err(invalid(format!(
                "{at}: duplicate option label {} (options[{first}] and options[{j}])",
                quoted(label)
            )));
        }
        let description = optional_text(
            object,
            "description",
            at,
            &format!("options[{j}].description"),
        )?;
        options.push(OptionItem {
            value: label.to_owned(),
            label: label.to_owned(),
            description,
            preview: None,
        });
    }
    Ok(options)
}

/// Checks the shape of an intent: `kind` a string, `approve` a string when given.
fn check_intent_shape(intent: &Map<String, Value>, at: &str) -> Result<Intent, UserQuestionError> {
    let kind = match field(intent, "kind") {
        Field::Text(kind) => kind.to_owned(),
        Field::Absent => return Err(invalid(format!("{at}: intent.kind is required"))),
        Field::Other(other) => {
            return Err(invalid(format!(
                "{at}: intent.kind must be a string (got {})",
                kind_of(other)
            )));
        }
    };
    let approve = match field(intent, "approve") {
        Field::Absent => None,
        Field::Text(approve) => Some(approve.to_owned()),
        Field::Other(other) => {
            return Err(invalid(format!(
                "{at}: intent.approve must be a string (got {})",
                kind_of(other)
            )));
        }
    };
    Ok(Intent { kind, approve })
}

/// Checks the intent of question `index` against its question (`BAD_INTENT`), then applies it:
/// a plan review offers its approve option first.
fn apply_intent(index: usize, question: &mut Question) -> Result<(), UserQuestionError> {
    let Some(intent) = &question.intent else {
        return Ok(());
    };
    let at = format!("questions[{index}] ({})", quoted(&question.id));
    let approve_at = if intent.kind == PLAN_REVIEW {
        let Some(approve) = intent.approve.as_deref() else {
            return Err(bad_intent(format!(
                "{at}: a \"plan-review\" intent needs approve, the label of the option that approves"
            )));
        };
        let Some(position) = question.options.iter().position(|o| o.label == approve) else {
            return Err(bad_intent(format!(
                "{at}: intent approve {} names none of the question's option labels",
                quoted(approve)
            )));
        };
        Some(position)
    } else {
        None
    };
    if question.detail.is_none() {
        return Err(bad_intent(format!(
            "{at}: intent {} needs detail on its question",
            quoted(&intent.kind)
        )));
    }
    if let Some(position) = approve_at {
        let approve = question.options.remove(position);
        question.options.insert(0, approve);
    }
    Ok(())
}

/// Parses entry `i` of an answer batch against `question` (which `takes_custom` text or not);
/// `count` is the number of questions.
fn parse_item(
    i: usize,
    question: &Question,
    takes_custom: bool,
    item: &Value,
    count: usize,
) -> Result<Answer, String> {
    let at = format!("answers[{i}]");
    let id = quoted(&question.id);
    let Some(object) = item.as_object() else {
        return Err(format!("{at} must be an object (got {})", kind_of(item)));
    };
    match field(object, "id") {
        Field::Text(given) if given == question.id => {}
        Field::Text(given) => {
            return Err(format!(
                "{at}.id: expected {id} ({}), got {}",
                in_order(count),
                quoted(given)
            ));
        }
        Field::Absent => return Err(format!("{at}.id is required (expected {id})")),
        Field::Other(other) => {
            return Err(format!("{at}.id must be a string (got {})", kind_of(other)));
        }
    }
    let labels = match object.get("selected") {
        Some(Value::Array(labels)) => labels,
        None | Some(Value::Null) => {
            return Err(format!(
                "{at}.selected is required (an array of option labels, empty when none)"
            ));
        }
        Some(other) => {
            return Err(format!(
                "{at}.selected must be an array (got {})",
                kind_of(other)
            ));
        }
    };
    let mut selected: Vec<usize> = Vec::with_capacity(labels.len());
    for (j, label) in labels.iter().enumerate() {
        let Value::String(label) = label else {
            return Err(format!(
                "{at}.selected[{j}] must be a string (got {})",
                kind_of(label)
            ));
        };
        let Some(option) = question.options.iter().position(|o| o.label == *label) else {
            return Err(format!(
                "{at}.selected[{j}]: {} is not an option of question {id}",
                quoted(label)
            ));
        };
        if selected.contains(&option) {
            return Err(format!(
                "{at}.selected[{j}]: {} is selected twice",
                quoted(label)
            ));
        }
        selected.push(option);
    }
    let multi = question.kind == QuestionType::Multi;
    if !multi && selected.len() > 1 {
        return Err(format!(
            "{at}.selected: question {id} is single-select; select one label at most"
        ));
    }
    let custom = match field(object, "custom") {
        Field::Absent => None,
        Field::Text(text) if text.trim().is_empty() => {
            return Err(format!("{at}.custom must not be blank; omit it"));
        }
        Field::Text(text) => Some(text.to_owned()),
        Field::Other(other) => {
            return Err(format!(
                "{at}.custom must be a string (got {})",
                kind_of(other)
            ));
        }
    };
    if custom.is_some() && !takes_custom {
        return Err(format!("{at}.custom: question {id} takes no custom answer"));
    }
    if custom.is_some() && !multi && !selected.is_empty() {
        return Err(format!(
            "{at}: question {id} is single-select; send selected or custom, not both"
        ));
    }
    Ok(Answer {
        selected,
        custom_text: custom,
        ..Answer::default()
    })
}

/// The longest prefix of `text` at most `max` terminal columns wide (the sum of its characters'
/// widths), cut between characters.
fn cut_to_width(text: &str, max: usize) -> &str {
    let mut width = 0;
    for (at, c) in text.char_indices() {
        width += c.width().unwrap_or(0);
        if width > max {
            return &text[..at];
        }
    }
    text
}
