//! The mcp dialect's wire shapes that have no Rust type of their own (the engine validates raw
//! JSON and builds its results as JSON), declared only to be described in the protocol's JSON
//! Schemas. They follow the MCP schema of 2025-11-25 (and 2025-06-18, a subset).

use std::collections::BTreeMap;

use schemars::JsonSchema;

/// An `ElicitRequestFormParams` (mcp dialect): the `params` of an `elicitation/create` request
/// in form mode, as the MCP client receives them.
///
/// As the MCP SDK (1.32.2) reads it: `null` is the value of no field, `task` and `_meta` are
/// not read, and a property fits one of the primitive schemas (its unknown fields ignored). A
/// request the SDK refuses fails `open` and `ask` with the JSON-RPC error -32602 the client
/// returns to the server; a form no answer can satisfy (an empty enumeration, `minLength`
/// above `maxLength`, a `required` name without a property, a pattern that does not compile)
/// opens, each such field saying why. With `mode: "url"` the request is an
/// `ElicitRequestURLParams` (`message`, `elicitationId`, `url`), asked as a confirmation.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// `form` or absent (with `url`, the request is a URL elicitation).
    #[schemars(extend("const" = "form"))]
    pub mode: Option<String>,
    /// What is asked and why: the flow's title.
    pub message: String,
    /// The form: one tab per property, in order.
    pub requested_schema: RequestedSchema,
}

/// The `params` of an `elicitation/create` request: a form, or (2025-11-25) a URL to open.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum ElicitRequestParams {
    /// Form mode.
    Form(ElicitRequestFormParams),
    /// URL mode.
    Url(ElicitRequestUrlParams),
}

/// An `ElicitRequestURLParams`: the person is asked to agree to open `url` (its host shown);
/// Accept answers `{ action: "accept" }` without content, and the host opens it.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestUrlParams {
    /// Always `url`.
    #[schemars(extend("const" = "url"))]
    pub mode: String,
    /// Why the interaction is needed: shown with the URL.
    pub message: String,
    /// The elicitation's id (opaque).
    pub elicitation_id: String,
    /// The URL to open: one a WHATWG URL parser reads, once trimmed.
    pub url: String,
}

/// The form of an elicitation.
#[derive(JsonSchema)]
pub struct RequestedSchema {
    /// Always `object`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "object"))]
    pub kind: String,
    /// The fields, in order.
    pub properties: BTreeMap<String, PrimitiveSchemaDefinition>,
    /// The fields that must have a value before Accept.
    pub required: Option<Vec<String>>,
}

/// The schema of one field.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum PrimitiveSchemaDefinition {
    /// Free text.
    String(StringSchema),
    /// A typed number.
    Number(NumberSchema),
    /// Yes or no.
    Boolean(BooleanSchema),
    /// One of a list of strings.
    SingleSelect(SingleSelectEnumSchema),
    /// Any of a list of strings.
    MultiSelect(MultiSelectEnumSchema),
}

/// A free-text field.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// Always `string`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "string"))]
    pub kind: String,
    /// The tab label and prompt.
    pub title: Option<String>,
    /// The prompt, or the detail under the title.
    pub description: Option<String>,
    /// Fewest characters (Unicode code points).
    pub min_length: Option<u64>,
    /// Most characters.
    pub max_length: Option<u64>,
    /// The form of the text, checked before it is saved.
    pub format: Option<StringFormat>,
    /// An ECMA-262 regular expression the text must match somewhere (not anchored), checked
    /// before it is saved.
    pub pattern: Option<String>,
    /// Filled in when the flow opens.
    pub default: Option<String>,
}

/// The format of a free-text field.
#[derive(JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum StringFormat {
    /// An email address.
    Email,
    /// An absolute URI.
    Uri,
    /// An RFC 3339 full-date (`YYYY-MM-DD`).
    Date,
    /// An RFC 3339 date-time.
    DateTime,
}

/// A number field.
#[derive(JsonSchema)]
pub struct NumberSchema {
    /// `number`, or `integer` for whole numbers.
    #[serde(rename = "type")]
    #[schemars(extend("enum" = ["number", "integer"]))]
    pub kind: String,
    /// The tab label and prompt.
    pub title: Option<String>,
    /// The prompt, or the detail under the title.
    pub description: Option<String>,
    /// The smallest value (inclusive).
    pub minimum: Option<f64>,
    /// The largest value (inclusive).
    pub maximum: Option<f64>,
    /// Filled in when the flow opens.
    pub default: Option<f64>,
}

/// A yes-or-no field.
#[derive(JsonSchema)]
pub struct BooleanSchema {
    /// Always `boolean`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "boolean"))]
    pub kind: String,
    /// The tab label and prompt.
    pub title: Option<String>,
    /// The prompt, or the detail under the title.
    pub description: Option<String>,
    /// Selected when the flow opens.
    pub default: Option<bool>,
}

/// A choice of one string: `enum` (labelled by the values, or by `enumNames`) or `oneOf`
/// (`{ const, title }`).
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SingleSelectEnumSchema {
    /// Always `string`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "string"))]
    pub kind: String,
    /// The tab label and prompt.
    pub title: Option<String>,
    /// The prompt, or the detail under the title.
    pub description: Option<String>,
    /// The values, shown as they are (unique).
    #[serde(rename = "enum")]
    pub values: Option<Vec<String>>,
    /// Legacy: one label per value of `enum`.
    pub enum_names: Option<Vec<String>>,
    /// The values with their labels.
    pub one_of: Option<Vec<TitledValue>>,
    /// Selected when the flow opens, when it is one of the values.
    pub default: Option<String>,
}

/// A value with its label.
#[derive(JsonSchema)]
pub struct TitledValue {
    /// The value sent.
    #[serde(rename = "const")]
    pub value: String,
    /// The label shown.
    pub title: String,
}

/// A choice of any number of strings.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MultiSelectEnumSchema {
    /// Always `array` (not part of protocol version 2025-06-18).
    #[serde(rename = "type")]
    #[schemars(extend("const" = "array"))]
    pub kind: String,
    /// The tab label and prompt.
    pub title: Option<String>,
    /// The prompt, or the detail under the title.
    pub description: Option<String>,
    /// Fewest choices, checked before Accept.
    pub min_items: Option<u64>,
    /// Most choices, checked before Accept.
    pub max_items: Option<u64>,
    /// The choices.
    pub items: MultiSelectItems,
    /// Selected when the flow opens, when every entry is one of the values.
    pub default: Option<Vec<String>>,
}

/// The choices of a multiple choice: `enum` or `anyOf`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MultiSelectItems {
    /// `string` when given.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "string"))]
    pub kind: Option<String>,
    /// The values, shown as they are (unique).
    #[serde(rename = "enum")]
    pub values: Option<Vec<String>>,
    /// The values with their labels.
    pub any_of: Option<Vec<TitledValue>>,
}

/// The `mcp` param of `open`: what the host knows of the session.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpOptions {
    /// The server that sent the request, named in the view.
    pub requester: RequesterInfo,
    /// The revision the session negotiated: `2025-06-18` refuses multi-select (array) fields.
    #[schemars(extend("enum" = ["2025-06-18", "2025-11-25"]))]
    pub protocol_version: Option<String>,
}

/// A server, as the client names it.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequesterInfo {
    /// The server's name (non-blank).
    #[schemars(pattern(r"\S"))]
    pub name: String,
}

/// An `ElicitResult`: the `result` of a finished mcp flow, the JSON-RPC result the client
/// returns to the server; in `submitAnswers`, the answers of the form (`action: "accept"`).
#[derive(JsonSchema)]
pub struct ElicitResult {
    /// `accept` (the user accepted the form), `decline` (the user declined) or `cancel`
    /// (dismissed: Cancel, Esc, withdrawn, no UI).
    pub action: ElicitAction,
    /// On accept, every answered field, typed as its schema says; every required field is
    /// there, and every value passed the schema's checks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, ContentValue>>,
}

/// The value of one field.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum ContentValue {
    /// A free-text or single-choice field.
    Text(String),
    /// A number field.
    Number(f64),
    /// A yes-or-no field.
    Flag(bool),
    /// A multiple-choice field: the chosen values in the order offered.
    Choices(Vec<String>),
}

/// What the user did with an elicitation.
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Accepted, with content.
    Accept,
    /// Declined explicitly.
    Decline,
    /// Dismissed.
    Cancel,
}
