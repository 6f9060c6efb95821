//! The pi dialect's results: the `ask_user` tool output and the transcript lines of a flow.
//!
//! Everything here is a pure function of the spec, the answers and how the flow ended.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::core::{
    Answer, CancelReason, FlowSpec, Issue, OptionItem, Outcome, Question, QuestionType, quoted,
};
use crate::dialect::shape::call_line;

/// Transcript result text of an invalid payload.
pub const INVALID_TRANSCRIPT: &str = "Invalid input";

/// The instruction handed to the agent with an elaboration.
pub const ELABORATE_INSTRUCTION: &str = "First answer the user's noted clarification directly and concisely using the provided question and option context. Do not treat these notes as final answers. Then re-ask only the affected questions if a choice is still needed afterward. Do not jump straight to a follow-up question unless the note is already resolved.";

/// The line a summary ends with when an answered question was presented as multi-select though
/// asked as another kind.
pub const PRESENTATION_NOTE: &str =
    "Note: Some questions were presented as multi-select by user preference.";

/// The `ask_user` tool output: `{ content: [{ type: "text", text }], details }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolResult {
    /// The summary handed to the agent (always exactly one text item).
    pub content: Vec<TextContent>,
    /// The structured result.
    pub details: Details,
}

/// One text item of a tool output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TextContent {
    /// Always `text`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "text"))]
    pub kind: String,
    /// The text itself.
    pub text: String,
}

/// The structured part of a tool output, field for field as the contract's `details`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Details {
    /// The flow title, when the payload had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Dismissed, cancelled, aborted, timed out, closed, without UI, or invalid.
    pub cancelled: bool,
    /// The engine's addition: why the flow ended without an answer; present exactly when
    /// `cancelled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel_reason: Option<CancelReason>,
    /// Present only for an invalid payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<InputError>,
    /// How the user completed the flow (`submit` also when cancelled).
    pub mode: Mode,
    /// The normalised questions.
    pub questions: Vec<QuestionSummary>,
    /// Answers keyed by question id, in question order.
    pub answers: OrderedMap<SerializedAnswer>,
    /// Present only in `elaborate` mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation: Option<Continuation>,
    /// Present only in `elaborate` mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elaboration: Option<Elaboration>,
}

/// How a flow was completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Normal completion, and every cancelled or invalid result.
    Submit,
    /// The user asked the agent to clarify notes first.
    Elaborate,
}

/// The `error` of an invalid payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InputError {
    /// Always `invalid_input`.
    pub kind: ErrorKind,
    /// Every validation problem, in validation order.
    pub issues: Vec<Issue>,
}

/// The kind of a result error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The payload failed validation.
    InvalidInput,
}

/// A question as `details.questions` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionSummary {
    /// The question id.
    pub id: String,
    /// The tab label.
    pub label: String,
    /// The question text.
    pub prompt: String,
    /// The question kind, as asked.
    #[serde(rename = "type")]
    pub kind: QuestionType,
    /// The kind the question was presented as, when it differs from the one asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presented_type: Option<QuestionType>,
}

/// A question with its options, as elaboration items carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionContext {
    /// The question id.
    pub id: String,
    /// The tab label.
    pub label: String,
    /// The question text.
    pub prompt: String,
    /// The question kind, as asked.
    #[serde(rename = "type")]
    pub kind: QuestionType,
    /// The kind the question was presented as, when it differs from the one asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presented_type: Option<QuestionType>,
    /// The declared options in order.
    pub options: Vec<OptionItem>,
}

/// One answer as results report it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SerializedAnswer {
    /// Selected option values in selection order, then the custom text.
    pub values: Vec<String>,
    /// Selected option labels in selection order, then the custom text.
    pub labels: Vec<String>,
    /// 1-based row numbers of the selected options, in selection order.
    pub indices: Vec<usize>,
    /// The free-form answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_text: Option<String>,
    /// The question note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Notes of selected options, keyed by option value; absent when there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option_notes: Option<OrderedMap<String>>,
}

/// What the agent should do next after an elaboration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Continuation {
    /// Always `refine_only`.
    pub strategy: Strategy,
    /// Ids of the questions that carry notes, in question order.
    pub affected_question_ids: Vec<String>,
    /// Answered questions without notes, keyed by question id.
    pub preserved_answers: OrderedMap<SerializedAnswer>,
    /// The state of every question, keyed by question id.
    pub question_states: OrderedMap<QuestionState>,
}

/// The continuation strategy of an elaboration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Refine the current flow rather than restart it.
    RefineOnly,
}

/// One entry of `continuation.questionStates`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QuestionState {
    /// Where the question stands.
    pub status: QuestionStatus,
}

/// Where a question stands after an elaboration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QuestionStatus {
    /// It has a selection or custom text and no notes.
    Answered,
    /// It has a question note or an option note.
    NeedsClarification,
    /// Neither answered nor noted.
    Unanswered,
}

/// The notes the user asked the agent to address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Elaboration {
    /// Always [`ELABORATE_INSTRUCTION`].
    pub instruction: String,
    /// Always `clarify_then_reask`.
    pub next_action: NextAction,
    /// One item per note.
    pub items: Vec<ElaborationItem>,
}

/// The next action of an elaboration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NextAction {
    /// Answer the notes, then re-ask what is still open.
    ClarifyThenReask,
}

/// One note to elaborate on, with its full question context.
///
/// `option` and `selected` are present exactly when the target is an option.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ElaborationItem {
    /// What the note is about.
    pub target: Target,
    /// The question, with all its options.
    pub question: QuestionContext,
    /// The noted option.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option: Option<OptionItem>,
    /// Whether the noted option is selected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<bool>,
    /// Whether the question has a selection or custom text.
    pub answered: bool,
    /// The serialised answer, only when answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<SerializedAnswer>,
    /// The note itself.
    pub note: String,
}

/// The target of an elaboration item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Target {
    /// The question note.
    Question,
    /// The note of one option.
    Option {
        /// The noted option's value.
        #[serde(rename = "optionValue")]
        option_value: String,
    },
}

/// A JSON object whose keys keep the order they were inserted in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderedMap<V>(pub Vec<(String, V)>);

impl<V> OrderedMap<V> {
    /// The value under `key`, if any.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        OrderedMap(Vec::new())
    }
}

impl<V> FromIterator<(String, V)> for OrderedMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        OrderedMap(iter.into_iter().collect())
    }
}

impl<V: schemars::JsonSchema> schemars::JsonSchema for OrderedMap<V> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        let name = V::schema_name();
        let mut chars = name.chars();
        let capitalised: String = chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default();
        format!("MapOf{capitalised}").into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "additionalProperties": generator.subschema_for::<V>(),
        })
    }
}

impl<V: Serialize> Serialize for OrderedMap<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<V>(PhantomData<V>);

        impl<'de, V: Deserialize<'de>> Visitor<'de> for MapVisitor<V> {
            type Value = OrderedMap<V>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = access.next_entry()? {
                    entries.push(entry);
                }
                Ok(OrderedMap(entries))
            }
        }

        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

/// The result of a finished flow; `answers[i]` belongs to `spec.questions[i]` (a missing answer
/// counts as empty). A cancelled flow keeps what was entered, and says why it ended in
/// `cancelReason` and in its text (`cancelled_text`); `Outcome::Declined`, which pi flows never
/// end with, is reported as the user's cancel.
pub fn flow_result(spec: &FlowSpec, answers: &[Answer], outcome: Outcome) -> ToolResult {
    // Elaborate keeps only committed answers; every other outcome keeps every answer whose
    // serialised form holds anything.
    let keep: fn(&SerializedAnswer) -> bool = match outcome {
        Outcome::Elaborate => SerializedAnswer::is_committed,
        Outcome::Submit | Outcome::Cancelled(_) | Outcome::Declined => |a| !a.is_empty(),
    };
    let mut details = bare_details(spec.title.clone(), None, summaries(spec));
    details.answers = serialized_answers(spec, answers, keep).collect();
    let text = match outcome {
        Outcome::Submit => or_default(submit_lines(spec, answers), "User submitted the ask flow"),
        Outcome::Cancelled(_) | Outcome::Declined => {
            let reason = outcome.cancel_reason().unwrap_or(CancelReason::User);
            details.cancelled = true;
            details.cancel_reason = Some(reason);
            cancelled_text(reason).to_owned()
        }
        Outcome::Elaborate => {
            let items = elaboration_items(spec, answers);
            let text = elaborate_text(spec, answers, &items);
            details.mode = Mode::Elaborate;
            details.continuation = Some(continuation(spec, answers));
            details.elaboration = Some(Elaboration {
                instruction: ELABORATE_INSTRUCTION.to_owned(),
                next_action: NextAction::ClarifyThenReask,
                items,
            });
            text
        }
    };
    tool_result(text, details)
}

/// The result of a payload that failed validation: `issues` in validation order.
pub fn invalid_input_result(title: Option<&str>, issues: &[Issue]) -> ToolResult {
    let text = std::iter::once("Invalid ask_user payload:".to_owned())
        .chain(
            issues
                .iter()
                .map(|i| format!("- {}: {}", i.path, i.message)),
        )
        .collect::<Vec<_>>()
        .join("\n");
    let details = Details {
        error: Some(InputError {
            kind: ErrorKind::InvalidInput,
            issues: issues.to_vec(),
        }),
        ..bare_details(
            title.map(str::to_owned),
            Some(CancelReason::InvalidInput),
            Vec::new(),
        )
    };
    tool_result(text, details)
}

/// The result when there is no UI to ask in: the pending questions spelled out for the agent.
pub fn non_interactive_result(spec: &FlowSpec) -> ToolResult {
    let mut lines = vec![
        "Needs user input: ask_user requires interactive UI.".to_owned(),
        "Run same tool call in interactive session, or ask user these questions manually:"
            .to_owned(),
    ];
    for (n, q) in spec.questions.iter().enumerate() {
        lines.push(format!("{}. {}: {}", n + 1, q.label, q.prompt));
        lines.extend(
            q.options
                .iter()
                .map(|o| format!("   - {} [{}]", o.label, o.value)),
        );
        if spec.has_custom_row(q) {
            lines.push("   - Type your own [custom]".to_owned());
        }
    }
    lines.push(
        "details.questions contains normalized pending questions. details.answers stays empty until user responds."
            .to_owned(),
    );
    let details = bare_details(
        spec.title.clone(),
        Some(CancelReason::NoUi),
        summaries(spec),
    );
    tool_result(lines.join("\n"), details)
}

/// The transcript call line: `ask_user <n> question(s) (<labels>)`, `question(s)` literally
/// whatever `n` is. The labels are joined with `, `; wider than 50 terminal columns, they are cut
/// to their longest run of whole leading graphemes at most 47 columns wide, followed by `...`.
/// Without labels the parenthesised part is left out.
pub fn transcript_call(labels: &[&str]) -> String {
    call_line("ask_user", ("question(s)", "question(s)"), labels)
}

/// The transcript result text of a finished flow (same arguments as [`flow_result`]).
///
/// An engine addition: a submitted answer that holds only notes is headed `✓ Label: (no answer)`, so its
/// note lines still appear under the question they belong to.
pub fn transcript_result(spec: &FlowSpec, answers: &[Answer], outcome: Outcome) -> String {
    match outcome {
        Outcome::Cancelled(reason) => reason.words().to_owned(),
        Outcome::Declined => CancelReason::User.words().to_owned(),
        Outcome::Elaborate => elaborate_text(spec, answers, &elaboration_items(spec, answers)),
        Outcome::Submit => {
            let mut lines = Vec::new();
            for (q, a) in entries(spec, answers) {
                let serialized = serialize_answer(q, a);
                if serialized.is_empty() {
                    continue;
                }
                let shown = if serialized.labels.is_empty() {
                    "(no answer)".to_owned()
                } else if serialized.indices.is_empty() && serialized.custom_text.is_some() {
                    format!("(wrote) {}", serialized.labels.join(", "))
                } else {
                    serialized.labels.join(", ")
                };
                lines.push(format!("✓ {}: {shown}", q.label));
                if let Some(note) = &a.note {
                    lines.push(format!("  note: {note}"));
                }
                for (option, note) in selected_option_notes(q, a) {
                    lines.push(format!("  {} note: {note}", option.label));
                }
            }
            if presented_as_multi(spec, answers) {
                lines.push(format!("  {PRESENTATION_NOTE}"));
            }
            or_default(lines, "Submitted")
        }
    }
}

/// The summary text of a flow cancelled for `reason`: the contract's
/// `User cancelled the ask flow`, except (the engine's own text) for a timeout, so that the
/// agent never reads the lack of an answer in time as the user's decision.
pub fn cancelled_text(reason: CancelReason) -> &'static str {
    match reason {
        CancelReason::User
        | CancelReason::Dismissed
        | CancelReason::Aborted
        | CancelReason::Closed => "User cancelled the ask flow",
        CancelReason::Timeout => "The ask flow timed out before the user answered",
        CancelReason::NoUi => "Needs user input: ask_user requires interactive UI.",
        CancelReason::InvalidInput => "Invalid ask_user payload",
    }
}

/// Whether an answered question was presented as multi-select though asked as another kind (the
/// presentation note of summaries).
fn presented_as_multi(spec: &FlowSpec, answers: &[Answer]) -> bool {
    entries(spec, answers)
        .any(|(q, a)| q.presented_kind() == Some(QuestionType::Multi) && a.is_answered())
}

/// Every question's id with its serialised answer, in question order, for those `keep` accepts.
fn serialized_answers<'a>(
    spec: &'a FlowSpec,
    answers: &'a [Answer],
    keep: fn(&SerializedAnswer) -> bool,
) -> impl Iterator<Item = (String, SerializedAnswer)> + 'a {
    entries(spec, answers)
        .map(|(q, a)| (q, serialize_answer(q, a)))
        .filter(move |(_, a)| keep(a))
        .map(|(q, a)| (q.id.clone(), a))
}

impl SerializedAnswer {
    /// Nothing selected, no custom text, no note, no option notes: results leave it out.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
            && self.labels.is_empty()
            && self.indices.is_empty()
            && self.custom_text.is_none()
            && self.note.is_none()
            && self.option_notes.is_none()
    }

    /// A selection or custom text: what elaborations keep as answers.
    pub fn is_committed(&self) -> bool {
        !self.values.is_empty()
            || !self.labels.is_empty()
            || !self.indices.is_empty()
            || self.custom_text.is_some()
    }
}

/// `submit`-mode details with no answers, error, continuation or elaboration; cancelled for
/// `cancel` when one is given.
fn bare_details(
    title: Option<String>,
    cancel: Option<CancelReason>,
    questions: Vec<QuestionSummary>,
) -> Details {
    Details {
        title,
        cancelled: cancel.is_some(),
        cancel_reason: cancel,
        error: None,
        mode: Mode::Submit,
        questions,
        answers: OrderedMap::default(),
        continuation: None,
        elaboration: None,
    }
}

fn tool_result(text: String, details: Details) -> ToolResult {
    ToolResult {
        content: vec![TextContent {
            kind: "text".to_owned(),
            text,
        }],
        details,
    }
}

/// `lines` joined with newlines, or `fallback` when there are none.
fn or_default(lines: Vec<String>, fallback: &str) -> String {
    if lines.is_empty() {
        fallback.to_owned()
    } else {
        lines.join("\n")
    }
}

/// Stands in for answers missing from the slice.
static NO_ANSWER: Answer = Answer {
    selected: Vec::new(),
    custom_text: None,
    custom_off: false,
    note: None,
    option_notes: Vec::new(),
};

/// Every question with its answer, in question order.
fn entries<'a>(
    spec: &'a FlowSpec,
    answers: &'a [Answer],
) -> impl Iterator<Item = (&'a Question, &'a Answer)> {
    spec.questions
        .iter()
        .enumerate()
        .map(move |(i, q)| (q, answers.get(i).unwrap_or(&NO_ANSWER)))
}

fn summaries(spec: &FlowSpec) -> Vec<QuestionSummary> {
    spec.questions
        .iter()
        .map(|q| QuestionSummary {
            id: q.id.clone(),
            label: q.label.clone(),
            prompt: q.prompt.clone(),
            kind: q.asked_kind(),
            presented_type: q.presented_kind(),
        })
        .collect()
}

/// The selected options as (index, option), in selection order.
fn selected_options<'a>(
    q: &'a Question,
    a: &'a Answer,
) -> impl Iterator<Item = (usize, &'a OptionItem)> {
    a.selected
        .iter()
        .filter_map(|&i| q.options.get(i).map(|o| (i, o)))
}

/// The notes of selected options as (option, note), in selection order.
fn selected_option_notes<'a>(
    q: &'a Question,
    a: &'a Answer,
) -> impl Iterator<Item = (&'a OptionItem, &'a str)> {
    selected_options(q, a).filter_map(|(i, o)| a.option_note(i).map(|n| (o, n)))
}

/// Selected labels in selection order, then the chosen custom text.
fn answer_labels(q: &Question, a: &Answer) -> Vec<String> {
    selected_options(q, a)
        .map(|(_, o)| o.label.clone())
        .chain(a.chosen_custom().map(str::to_owned))
        .collect()
}

fn serialize_answer(q: &Question, a: &Answer) -> SerializedAnswer {
    let option_notes: OrderedMap<String> = a
        .option_notes
        .iter()
        .filter(|(i, _)| a.selected.contains(i))
        .filter_map(|(i, note)| q.options.get(*i).map(|o| (o.value.clone(), note.clone())))
        .collect();
    SerializedAnswer {
        values: selected_options(q, a)
            .map(|(_, o)| o.value.clone())
            .chain(a.chosen_custom().map(str::to_owned))
            .collect(),
        labels: answer_labels(q, a),
        indices: selected_options(q, a).map(|(i, _)| i + 1).collect(),
        custom_text: a.chosen_custom().map(str::to_owned),
        note: a.note.clone(),
        option_notes: (!option_notes.0.is_empty()).then_some(option_notes),
    }
}

/// Submit summary lines (notes-only answers still report their note lines), the presentation
/// note last.
fn submit_lines(spec: &FlowSpec, answers: &[Answer]) -> Vec<String> {
    let mut lines = Vec::new();
    for (q, a) in entries(spec, answers) {
        let labels = answer_labels(q, a);
        if !labels.is_empty() {
            lines.push(format!("{}: {}", q.label, labels.join(", ")));
        }
        if let Some(note) = &a.note {
            lines.push(format!("{} note: {note}", q.label));
        }
        for (option, note) in selected_option_notes(q, a) {
            lines.push(format!("{} / {} note: {note}", q.label, option.label));
        }
    }
    if presented_as_multi(spec, answers) {
        lines.push(PRESENTATION_NOTE.to_owned());
    }
    lines
}

fn continuation(spec: &FlowSpec, answers: &[Answer]) -> Continuation {
    let mut result = Continuation {
        strategy: Strategy::RefineOnly,
        affected_question_ids: Vec::new(),
        preserved_answers: OrderedMap::default(),
        question_states: OrderedMap::default(),
    };
    for (q, a) in entries(spec, answers) {
        let status = if a.has_notes() {
            result.affected_question_ids.push(q.id.clone());
            QuestionStatus::NeedsClarification
        } else if a.is_answered() {
            result
                .preserved_answers
                .0
                .push((q.id.clone(), serialize_answer(q, a)));
            QuestionStatus::Answered
        } else {
            QuestionStatus::Unanswered
        };
        result
            .question_states
            .0
            .push((q.id.clone(), QuestionState { status }));
    }
    result
}

/// Per question in order: the question-note item, then one item per option note in the order the
/// notes were first written (selected or not).
fn elaboration_items(spec: &FlowSpec, answers: &[Answer]) -> Vec<ElaborationItem> {
    let mut items = Vec::new();
    for (q, a) in entries(spec, answers).filter(|(_, a)| a.has_notes()) {
        let context = QuestionContext {
            id: q.id.clone(),
            label: q.label.clone(),
            prompt: q.prompt.clone(),
            kind: q.asked_kind(),
            presented_type: q.presented_kind(),
            options: q.options.clone(),
        };
        let answered = a.is_answered();
        let answer = answered.then(|| serialize_answer(q, a));
        let item = |target, option, selected, note: &str| ElaborationItem {
            target,
            question: context.clone(),
            option,
            selected,
            answered,
            answer: answer.clone(),
            note: note.to_owned(),
        };
        if let Some(note) = &a.note {
            items.push(item(Target::Question, None, None, note));
        }
        for (i, note) in &a.option_notes {
            if let Some(option) = q.options.get(*i) {
                let target = Target::Option {
                    option_value: option.value.clone(),
                };
                let selected = a.selected.contains(i);
                items.push(item(target, Some(option.clone()), Some(selected), note));
            }
        }
    }
    items
}

/// One line per item, its quoted strings JSON-encoded. Under
/// [`Behaviour::elaborate_with_current_answer`](crate::core::Behaviour) the lines of answered
/// questions name the current answer, and without any item every answered question has a line
/// of its own.
fn elaborate_text(spec: &FlowSpec, answers: &[Answer], items: &[ElaborationItem]) -> String {
    let with_answer = spec.behaviour.elaborate_with_current_answer;
    let current = |answer: Option<&SerializedAnswer>| match answer {
        Some(a) if with_answer && !a.labels.is_empty() => {
            format!(" after current answer {}", quoted(&a.labels.join(", ")))
        }
        _ => String::new(),
    };
    let mut lines: Vec<String> = items
        .iter()
        .map(|item| {
            let prompt = quoted(&item.question.prompt);
            let note = quoted(&item.note);
            let after = current(item.answer.as_ref());
            match &item.option {
                None => format!("User asked to elaborate on question {prompt}{after} with note {note}"),
                Some(option) => format!(
                    "User asked to elaborate on question {prompt} option {}{after} with note {note}",
                    quoted(&option.label)
                ),
            }
        })
        .collect();
    if lines.is_empty() && with_answer {
        lines = serialized_answers(spec, answers, SerializedAnswer::is_committed)
            .filter_map(|(id, answer)| {
                let q = spec.questions.iter().find(|q| q.id == id)?;
                Some(format!(
                    "User asked to elaborate on question {}{}",
                    quoted(&q.prompt),
                    current(Some(&answer))
                ))
            })
            .collect();
    }
    or_default(lines, "User asked for elaboration based on notes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::CustomRow;
    use crate::dialect::pi::RULES;
    use serde_json::{Value, json};
    use unicode_width::UnicodeWidthStr;

    fn option(value: &str, label: &str) -> OptionItem {
        OptionItem {
            value: value.to_owned(),
            label: label.to_owned(),
            description: None,
            preview: None,
        }
    }

    fn question(
        id: &str,
        label: &str,
        prompt: &str,
        kind: QuestionType,
        options: &[(&str, &str)],
    ) -> Question {
        Question {
            asked: None,
            id: id.to_owned(),
            label: label.to_owned(),
            prompt: prompt.to_owned(),
            kind,
            required: false,
            options: options.iter().map(|(v, l)| option(v, l)).collect(),
            detail: None,
            intent: None,
            custom_row: CustomRow::Standard,
            secret: false,
            initial: Answer::default(),
        }
    }

    fn flow(questions: Vec<Question>) -> FlowSpec {
        FlowSpec {
            rules: RULES,
            requester: None,
            source: None,
            behaviour: Default::default(),
            title: None,
            questions,
        }
    }

    fn selected(indices: &[usize]) -> Answer {
        Answer {
            selected: indices.to_vec(),
            ..Answer::default()
        }
    }

    fn notes(pairs: &[(usize, &str)]) -> Vec<(usize, String)> {
        pairs.iter().map(|(i, n)| (*i, (*n).to_owned())).collect()
    }

    fn assert_no_null(value: &Value, path: &str) {
        match value {
            Value::Null => panic!("null at {path}"),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    assert_no_null(item, &format!("{path}[{i}]"));
                }
            }
            Value::Object(map) => {
                for (key, item) in map {
                    assert_no_null(item, &format!("{path}.{key}"));
                }
            }
            _ => {}
        }
    }

    /// The serialised result, after checking it holds no `null` and reads back unchanged.
    fn json_of(result: &ToolResult) -> String {
        let text = serde_json::to_string(result).unwrap();
        assert_no_null(&serde_json::from_str(&text).unwrap(), "$");
        let back: ToolResult = serde_json::from_str(&text).unwrap();
        assert_eq!(&back, result);
        text
    }

    /// Compares the serialised result with `expected` as strings, so key order counts.
    fn assert_json(result: &ToolResult, expected: Value) {
        let actual = json_of(result);
        assert_eq!(
            actual,
            expected.to_string(),
            "\nactual:   {actual}\nexpected: {expected}"
        );
    }

    fn text_of(result: &ToolResult) -> &str {
        assert_eq!(result.content.len(), 1);
        assert_eq!(result.content[0].kind, "text");
        &result.content[0].text
    }

    fn scope_spec() -> FlowSpec {
        FlowSpec {
            title: Some("Setup".to_owned()),
            ..flow(vec![question(
                "scope",
                "Scope",
                "How big?",
                QuestionType::Single,
                &[("small", "Small"), ("large", "Large (Recommended)")],
            )])
        }
    }

    fn abc_question(kind: QuestionType) -> Question {
        question(
            "feat",
            "Features",
            "Which?",
            kind,
            &[("a", "A"), ("b", "B"), ("c", "C")],
        )
    }

    #[test]
    fn submit_single() {
        let spec = scope_spec();
        let answers = [selected(&[1])];
        let result = flow_result(&spec, &answers, Outcome::Submit);
        assert_eq!(
            json_of(&result),
            r#"{"content":[{"type":"text","text":"Scope: Large (Recommended)"}],"details":{"title":"Setup","cancelled":false,"mode":"submit","questions":[{"id":"scope","label":"Scope","prompt":"How big?","type":"single"}],"answers":{"scope":{"values":["large"],"labels":["Large (Recommended)"],"indices":[2]}}}}"#
        );
        assert_eq!(
            transcript_result(&spec, &answers, Outcome::Submit),
            "✓ Scope: Large (Recommended)"
        );
    }

    #[test]
    fn submit_multi_with_custom_text() {
        let spec = flow(vec![
            abc_question(QuestionType::Multi),
            question(
                "other",
                "Other",
                "Else?",
                QuestionType::Single,
                &[("x", "X")],
            ),
        ]);
        let answers = [
            Answer {
                custom_text: Some("Docs too".to_owned()),
                ..selected(&[2, 0])
            },
            Answer::default(),
        ];
        let result = flow_result(&spec, &answers, Outcome::Submit);
        assert_json(
            &result,
            json!({
                "content": [{ "type": "text", "text": "Features: C, A, Docs too" }],
                "details": {
                    "cancelled": false,
                    "mode": "submit",
                    "questions": [
                        { "id": "feat", "label": "Features", "prompt": "Which?", "type": "multi" },
                        { "id": "other", "label": "Other", "prompt": "Else?", "type": "single" }
                    ],
                    "answers": {
                        "feat": {
                            "values": ["c", "a", "Docs too"],
                            "labels": ["C", "A", "Docs too"],
                            "indices": [3, 1],
                            "customText": "Docs too"
                        }
                    }
                }
            }),
        );
        assert_eq!(
            transcript_result(&spec, &answers, Outcome::Submit),
            "✓ Features: C, A, Docs too"
        );
    }

    #[test]
    fn submit_custom_text_only() {
        let spec = flow(vec![question(
            "name",
            "Name",
            "Project name?",
            QuestionType::Single,
            &[("x", "X")],
        )]);
        let answers = [Answer {
            custom_text: Some("  my app".to_owned()),
            ..Answer::default()
        }];
        let result = flow_result(&spec, &answers, Outcome::Submit);
        assert_eq!(
            json_of(&result),
            r#"{"content":[{"type":"text","text":"Name:   my app"}],"details":{"cancelled":false,"mode":"submit","questions":[{"id":"name","label":"Name","prompt":"Project name?","type":"single"}],"answers":{"name":{"values":["  my app"],"labels":["  my app"],"indices":[],"customText":"  my app"}}}}"#
        );
        assert_eq!(
            transcript_result(&spec, &answers, Outcome::Submit),
            "✓ Name: (wrote)   my app"
        );
    }

    #[test]
    fn submit_notes_only_answer_keeps_its_note_lines() {
        let spec = scope_spec();
        let answers = [Answer {
            note: Some("unsure".to_owned()),
            ..Answer::default()
        }];
        let result = flow_result(&spec, &answers, Outcome::Submit);
        assert_eq!(text_of(&result), "Scope note: unsure");
        assert_eq!(
            json_of(&result),
            r#"{"content":[{"type":"text","text":"Scope note: unsure"}],"details":{"title":"Setup","cancelled":false,"mode":"submit","questions":[{"id":"scope","label":"Scope","prompt":"How big?","type":"single"}],"answers":{"scope":{"values":[],"labels":[],"indices":[],"note":"unsure"}}}}"#
        );
        assert_eq!(
            transcript_result(&spec, &answers, Outcome::Submit),
            "✓ Scope: (no answer)\n  note: unsure"
        );
    }

    #[test]
    fn submit_and_cancel_omit_an_answer_holding_only_notes_on_unselected_options() {
        let spec = scope_spec();
        let answers = [Answer {
            option_notes: notes(&[(0, "hm")]),
            ..Answer::default()
        }];
        let result = flow_result(&spec, &answers, Outcome::Submit);
        assert_eq!(text_of(&result), "User submitted the ask flow");
        assert_json(
            &result,
            json!({
                "content": [{ "type": "text", "text": "User submitted the ask flow" }],
                "details": {
                    "title": "Setup",
                    "cancelled": false,
                    "mode": "submit",
                    "questions": [
                        { "id": "scope", "label": "Scope", "prompt": "How big?", "type": "single" }
                    ],
                    "answers": {}
                }
            }),
        );
        assert_eq!(
            transcript_result(&spec, &answers, Outcome::Submit),
            "Submitted"
        );
        let cancelled = flow_result(&spec, &answers, Outcome::Cancelled(CancelReason::User));
        assert_eq!(cancelled.details.answers, OrderedMap::default());
        assert!(cancelled.details.cancelled);
    }

    #[test]
    fn submit_question_note_and_option_notes() {
        let spec = flow(vec![abc_question(QuestionType::Multi)]);
        let answers = [Answer {
            note: Some("overall".to_owned()),
            option_notes: notes(&[(1, "unselected"), (0, "why A"), (2, "why C")]),
            ..selected(&[2, 0])
        }];
        let result = flow_result(&spec, &answers, Outcome::Submit);
        assert_eq!(
            text_of(&result),
            "Features: C, A\nFeatures note: overall\nFeatures / C note: why C\nFeatures / A note: why A"
        );
        assert_eq!(
            serde_json::to_string(&result.details.answers).unwrap(),
            r#"{"feat":{"values":["c","a"],"labels":["C","A"],"indices":[3,1],"note":"overall","optionNotes":{"a":"why A","c":"why C"}}}"#
        );
        json_of(&result);
        assert_eq!(
            transcript_result(&spec, &answers, Outcome::Submit),
            "✓ Features: C, A\n  note: overall\n  C note: why C\n  A note: why A"
        );
    }

    #[test]
    fn submit_with_nothing_answered() {
        let spec = flow(vec![
            abc_question(QuestionType::Multi),
            question("x", "X", "X?", QuestionType::Single, &[("x", "X")]),
        ]);
        // A missing answer counts as empty, like an empty one.
        let answers = [Answer::default()];
        let result = flow_result(&spec, &answers, Outcome::Submit);
        assert_eq!(
            json_of(&result),
            r#"{"content":[{"type":"text","text":"User submitted the ask flow"}],"details":{"cancelled":false,"mode":"submit","questions":[{"id":"feat","label":"Features","prompt":"Which?","type":"multi"},{"id":"x","label":"X","prompt":"X?","type":"single"}],"answers":{}}}"#
        );
        assert_eq!(
            transcript_result(&spec, &answers, Outcome::Submit),
            "Submitted"
        );
    }

    fn cancel_case() -> (FlowSpec, Vec<Answer>) {
        let spec = flow(vec![
            abc_question(QuestionType::Multi),
            question("x", "X", "X?", QuestionType::Single, &[("x", "X")]),
        ]);
        let answers = vec![
            Answer {
                option_notes: notes(&[(1, "b?")]),
                ..selected(&[1])
            },
            Answer {
                note: Some("later".to_owned()),
                ..Answer::default()
            },
        ];
        (spec, answers)
    }

    #[test]
    fn cancelled_keeps_answers() {
        let (spec, answers) = cancel_case();
        let result = flow_result(&spec, &answers, Outcome::Cancelled(CancelReason::User));
        assert_json(
            &result,
            json!({
                "content": [{ "type": "text", "text": "User cancelled the ask flow" }],
                "details": {
                    "cancelled": true,
                    "cancelReason": "user",
                    "mode": "submit",
                    "questions": [
                        { "id": "feat", "label": "Features", "prompt": "Which?", "type": "multi" },
                        { "id": "x", "label": "X", "prompt": "X?", "type": "single" }
                    ],
                    "answers": {
                        "feat": {
                            "values": ["b"],
                            "labels": ["B"],
                            "indices": [2],
                            "optionNotes": { "b": "b?" }
                        },
                        "x": { "values": [], "labels": [], "indices": [], "note": "later" }
                    }
                }
            }),
        );
        assert_eq!(
            transcript_result(&spec, &answers, Outcome::Cancelled(CancelReason::User)),
            "Cancelled"
        );
    }

    /// Every reason keeps the same answers; the reason, the summary text and the transcript's
    /// words say why the flow ended.
    #[test]
    fn every_cancel_reason_is_reported() {
        let (spec, answers) = cancel_case();
        let user = flow_result(&spec, &answers, Outcome::Cancelled(CancelReason::User));
        let cases = [
            (
                CancelReason::Dismissed,
                "dismissed",
                "User cancelled the ask flow",
                "Cancelled",
            ),
            (
                CancelReason::Aborted,
                "aborted",
                "User cancelled the ask flow",
                "Cancelled (withdrawn by the asker)",
            ),
            (
                CancelReason::Timeout,
                "timeout",
                "The ask flow timed out before the user answered",
                "Cancelled (timed out)",
            ),
            (
                CancelReason::Closed,
                "closed",
                "User cancelled the ask flow",
                "Cancelled (closed)",
            ),
        ];
        for (reason, name, text, words) in cases {
            let outcome = Outcome::Cancelled(reason);
            let mut expected = user.clone();
            expected.content[0].text = text.to_owned();
            expected.details.cancel_reason = Some(reason);
            assert_eq!(flow_result(&spec, &answers, outcome), expected, "{name}");
            assert_eq!(
                serde_json::to_value(reason).expect("a reason serialises"),
                json!(name)
            );
            assert_eq!(reason.name(), name);
            assert_eq!(transcript_result(&spec, &answers, outcome), words);
        }
    }

    #[test]
    fn elaborate_with_notes() {
        let mut db = question(
            "db",
            "Database",
            "Which database?",
            QuestionType::Single,
            &[("pg", "Postgres"), ("sqlite", "SQLite")],
        );
        db.options[0].description = Some("Relational".to_owned());
        let spec = flow(vec![
            db,
            question(
                "cache",
                "Cache",
                "Cache?",
                QuestionType::Single,
                &[("yes", "Yes"), ("no", "No")],
            ),
            question("name", "Name", "Name?", QuestionType::Single, &[("x", "X")]),
            question(
                "lang",
                "Lang",
                "Language?",
                QuestionType::Multi,
                &[("rs", "Rust"), ("go", "Go")],
            ),
        ]);
        let answers = [
            Answer {
                note: Some("is pg overkill?".to_owned()),
                option_notes: notes(&[(1, "what about sqlite?"), (0, "why pg")]),
                ..selected(&[0])
            },
            selected(&[1]),
            Answer::default(),
            Answer {
                option_notes: notes(&[(1, "go?")]),
                ..Answer::default()
            },
        ];
        let db_context = json!({
            "id": "db",
            "label": "Database",
            "prompt": "Which database?",
            "type": "single",
            "options": [
                { "value": "pg", "label": "Postgres", "description": "Relational" },
                { "value": "sqlite", "label": "SQLite" }
            ]
        });
        let db_answer = json!({
            "values": ["pg"],
            "labels": ["Postgres"],
            "indices": [1],
            "note": "is pg overkill?",
            "optionNotes": { "pg": "why pg" }
        });
        let cache_answer = json!({ "values": ["no"], "labels": ["No"], "indices": [2] });
        let text = [
            r#"User asked to elaborate on question "Which database?" with note "is pg overkill?""#,
            r#"User asked to elaborate on question "Which database?" option "SQLite" with note "what about sqlite?""#,
            r#"User asked to elaborate on question "Which database?" option "Postgres" with note "why pg""#,
            r#"User asked to elaborate on question "Language?" option "Go" with note "go?""#,
        ]
        .join("\n");
        let result = flow_result(&spec, &answers, Outcome::Elaborate);
        assert_json(
            &result,
            json!({
                "content": [{ "type": "text", "text": text }],
                "details": {
                    "cancelled": false,
                    "mode": "elaborate",
                    "questions": [
                        { "id": "db", "label": "Database", "prompt": "Which database?", "type": "single" },
                        { "id": "cache", "label": "Cache", "prompt": "Cache?", "type": "single" },
                        { "id": "name", "label": "Name", "prompt": "Name?", "type": "single" },
                        { "id": "lang", "label": "Lang", "prompt": "Language?", "type": "multi" }
                    ],
                    "answers": { "db": db_answer, "cache": cache_answer },
                    "continuation": {
                        "strategy": "refine_only",
                        "affectedQuestionIds": ["db", "lang"],
                        "preservedAnswers": { "cache": cache_answer },
                        "questionStates": {
                            "db": { "status": "needs_clarification" },
                            "cache": { "status": "answered" },
                            "name": { "status": "unanswered" },
                            "lang": { "status": "needs_clarification" }
                        }
                    },
                    "elaboration": {
                        "instruction": ELABORATE_INSTRUCTION,
                        "nextAction": "clarify_then_reask",
                        "items": [
                            {
                                "target": { "kind": "question" },
                                "question": db_context,
                                "answered": true,
                                "answer": db_answer,
                                "note": "is pg overkill?"
                            },
                            {
                                "target": { "kind": "option", "optionValue": "sqlite" },
                                "question": db_context,
                                "option": { "value": "sqlite", "label": "SQLite" },
                                "selected": false,
                                "answered": true,
                                "answer": db_answer,
                                "note": "what about sqlite?"
                            },
                            {
                                "target": { "kind": "option", "optionValue": "pg" },
                                "question": db_context,
                                "option": { "value": "pg", "label": "Postgres", "description": "Relational" },
                                "selected": true,
                                "answered": true,
                                "answer": db_answer,
                                "note": "why pg"
                            },
                            {
                                "target": { "kind": "option", "optionValue": "go" },
                                "question": {
                                    "id": "lang",
                                    "label": "Lang",
                                    "prompt": "Language?",
                                    "type": "multi",
                                    "options": [
                                        { "value": "rs", "label": "Rust" },
                                        { "value": "go", "label": "Go" }
                                    ]
                                },
                                "option": { "value": "go", "label": "Go" },
                                "selected": false,
                                "answered": false,
                                "note": "go?"
                            }
                        ]
                    }
                }
            }),
        );
        assert_eq!(transcript_result(&spec, &answers, Outcome::Elaborate), text);
    }

    #[test]
    fn elaborate_without_notes() {
        let spec = flow(vec![
            scope_spec().questions.remove(0),
            question("x", "X", "X?", QuestionType::Single, &[("x", "X")]),
        ]);
        let answers = [selected(&[0]), Answer::default()];
        let result = flow_result(&spec, &answers, Outcome::Elaborate);
        assert_eq!(
            json_of(&result),
            format!(
                "{}{}{}",
                r#"{"content":[{"type":"text","text":"User asked for elaboration based on notes"}],"details":{"cancelled":false,"mode":"elaborate","questions":[{"id":"scope","label":"Scope","prompt":"How big?","type":"single"},{"id":"x","label":"X","prompt":"X?","type":"single"}],"answers":{"scope":{"values":["small"],"labels":["Small"],"indices":[1]}},"continuation":{"strategy":"refine_only","affectedQuestionIds":[],"preservedAnswers":{"scope":{"values":["small"],"labels":["Small"],"indices":[1]}},"questionStates":{"scope":{"status":"answered"},"x":{"status":"unanswered"}}},"elaboration":{"instruction":""#,
                ELABORATE_INSTRUCTION,
                r#"","nextAction":"clarify_then_reask","items":[]}}}"#
            )
        );
        assert_eq!(
            transcript_result(&spec, &answers, Outcome::Elaborate),
            "User asked for elaboration based on notes"
        );
    }

    #[test]
    fn elaborate_text_json_encodes_quotes_and_newlines() {
        let spec = flow(vec![question(
            "mode",
            "Mode",
            "Use \"fast\" mode?",
            QuestionType::Single,
            &[("a", "A \"quoted\" one"), ("b", "B")],
        )]);
        let answers = [Answer {
            note: Some("line1\nline2".to_owned()),
            option_notes: notes(&[(0, "tab\there \\ slash")]),
            ..Answer::default()
        }];
        let expected = [
            r#"User asked to elaborate on question "Use \"fast\" mode?" with note "line1\nline2""#,
            r#"User asked to elaborate on question "Use \"fast\" mode?" option "A \"quoted\" one" with note "tab\there \\ slash""#,
        ]
        .join("\n");
        let result = flow_result(&spec, &answers, Outcome::Elaborate);
        assert_eq!(text_of(&result), expected);
        json_of(&result);
        assert_eq!(
            transcript_result(&spec, &answers, Outcome::Elaborate),
            expected
        );
    }

    fn issues() -> Vec<Issue> {
        vec![
            Issue {
                path: "questions[0].id".to_owned(),
                message: "Question 1: id is required".to_owned(),
            },
            Issue {
                path: "questions[0].options".to_owned(),
                message: "Question 1: at least one option is required".to_owned(),
            },
        ]
    }

    #[test]
    fn invalid_input_without_title() {
        let result = invalid_input_result(None, &issues());
        assert_eq!(
            json_of(&result),
            r#"{"content":[{"type":"text","text":"Invalid ask_user payload:\n- questions[0].id: Question 1: id is required\n- questions[0].options: Question 1: at least one option is required"}],"details":{"cancelled":true,"cancelReason":"invalid_input","error":{"kind":"invalid_input","issues":[{"path":"questions[0].id","message":"Question 1: id is required"},{"path":"questions[0].options","message":"Question 1: at least one option is required"}]},"mode":"submit","questions":[],"answers":{}}}"#
        );
    }

    #[test]
    fn invalid_input_with_title() {
        let result = invalid_input_result(Some("Plan"), &issues()[..1]);
        assert_eq!(
            json_of(&result),
            r#"{"content":[{"type":"text","text":"Invalid ask_user payload:\n- questions[0].id: Question 1: id is required"}],"details":{"title":"Plan","cancelled":true,"cancelReason":"invalid_input","error":{"kind":"invalid_input","issues":[{"path":"questions[0].id","message":"Question 1: id is required"}]},"mode":"submit","questions":[],"answers":{}}}"#
        );
    }

    #[test]
    fn non_interactive_lists_pending_questions() {
        let mut layout = question(
            "layout",
            "Layout",
            "Pick a layout",
            QuestionType::Preview,
            &[("grid", "Grid"), ("list", "List (Recommended)")],
        );
        for o in &mut layout.options {
            o.preview = Some(format!("[{}]", o.value));
        }
        let spec = FlowSpec {
            title: Some("Plan".to_owned()),
            ..flow(vec![
                scope_spec().questions.remove(0),
                question(
                    "feat",
                    "Features",
                    "Which?",
                    QuestionType::Multi,
                    &[("a", "A")],
                ),
                layout,
            ])
        };
        let result = non_interactive_result(&spec);
        assert_eq!(
            text_of(&result),
            "Needs user input: ask_user requires interactive UI.\n\
             Run same tool call in interactive session, or ask user these questions manually:\n\
             1. Scope: How big?\n   - Small [small]\n   - Large (Recommended) [large]\n   - Type your own [custom]\n\
             2. Features: Which?\n   - A [a]\n   - Type your own [custom]\n\
             3. Layout: Pick a layout\n   - Grid [grid]\n   - List (Recommended) [list]\n\
             details.questions contains normalized pending questions. details.answers stays empty until user responds."
        );
        assert_json(
            &result,
            json!({
                "content": [{ "type": "text", "text": text_of(&result) }],
                "details": {
                    "title": "Plan",
                    "cancelled": true,
                    "cancelReason": "no_ui",
                    "mode": "submit",
                    "questions": [
                        { "id": "scope", "label": "Scope", "prompt": "How big?", "type": "single" },
                        { "id": "feat", "label": "Features", "prompt": "Which?", "type": "multi" },
                        { "id": "layout", "label": "Layout", "prompt": "Pick a layout", "type": "preview" }
                    ],
                    "answers": {}
                }
            }),
        );
    }

    #[test]
    fn transcript_call_reads_question_s_literally() {
        assert_eq!(
            transcript_call(&["Goal", "Tone"]),
            "ask_user 2 question(s) (Goal, Tone)"
        );
        assert_eq!(
            transcript_call(&["Scope"]),
            "ask_user 1 question(s) (Scope)"
        );
        assert_eq!(
            transcript_call(&["A", "B", "C"]),
            "ask_user 3 question(s) (A, B, C)"
        );
        assert_eq!(transcript_call(&[]), "ask_user 0 question(s)");
    }

    #[test]
    fn transcript_call_cuts_labels_wider_than_fifty_columns_to_47_and_an_ellipsis() {
        let long = "x".repeat(30);
        assert_eq!(
            transcript_call(&[&long, &long]),
            format!("ask_user 2 question(s) ({long}, {}...)", "x".repeat(15))
        );
        // 50 columns exactly stay whole.
        let twenty = "x".repeat(20);
        let fifty = format!("{twenty}, {twenty}, {}", "y".repeat(6));
        assert_eq!(fifty.width(), 50);
        assert_eq!(
            transcript_call(&[&twenty, &twenty, "yyyyyy"]),
            format!("ask_user 3 question(s) ({fifty})")
        );
        let ten = "一二三四五六七八九十";
        assert_eq!(
            transcript_call(&[ten, ten, "ab一二"]),
            format!("ask_user 3 question(s) ({ten}, {ten}, ab一二)")
        );
        // 20 + 2 + 20 + 2 + 1 = 45 columns, then a wide character reaches 47: 50 in all.
        assert_eq!(
            transcript_call(&[ten, ten, "a一二三"]),
            format!("ask_user 3 question(s) ({ten}, {ten}, a一...)")
        );
        // 46 columns, and the next wide character would straddle column 47: 49 in all.
        assert_eq!(
            transcript_call(&[ten, ten, "ab一二三"]),
            format!("ask_user 3 question(s) ({ten}, {ten}, ab...)")
        );
        // Graphemes are never split: an accent stays with its letter.
        let accented = format!("{}e\u{301}zzzz", "x".repeat(46));
        assert_eq!(
            transcript_call(&[&accented]),
            format!("ask_user 1 question(s) ({}e\u{301}...)", "x".repeat(46))
        );
        for pad in 0..60 {
            let label = format!("{}{}", "a".repeat(pad), ten.repeat(4));
            let call = transcript_call(&[&label]);
            let inner = &call["ask_user 1 question(s) (".len()..call.len() - 1];
            let kept = inner
                .strip_suffix("...")
                .expect("cut labels end in an ellipsis");
            assert!(label.starts_with(kept));
            let width = inner.width();
            assert!(width <= 50, "{width} columns in {inner:?}");
            assert!(width >= 49, "{width} columns in {inner:?}");
        }
    }
}
