//! The fields of an elicitation form: each property of `requestedSchema` read into a
//! [`Property`], with every problem found in it; and the request's own checks (`mode`,
//! `message`, `requestedSchema`, `required`).

use serde_json::{Map, Number, Value};

use crate::core::{FlowSpec, Issue, quoted};
use crate::dialect::shape::issue;

/// The protocol revision without multi-select schemas.
pub const VERSION_WITHOUT_ARRAYS: &str = "2025-06-18";

/// A string format the engine checks values against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// An email address.
    Email,
    /// An absolute URI.
    Uri,
    /// An RFC 3339 full-date.
    Date,
    /// An RFC 3339 date-time.
    DateTime,
}

impl Format {
    /// The format named `name` in a schema.
    fn named(name: &str) -> Option<Format> {
        match name {
            "email" => Some(Format::Email),
            "uri" => Some(Format::Uri),
            "date" => Some(Format::Date),
            "date-time" => Some(Format::DateTime),
            _ => None,
        }
    }
}

/// A string `pattern`: an ECMA-262 regular expression, compiled with the `u` flag as JSON
/// Schema asks, and not anchored (a value matches when the expression matches some part of it).
///
/// The expression is checked as ECMA-262 (`regress`) but matched by a linear-time engine
/// (`regex`): a backtracking match of an expression a server sent could take exponential time
/// on what the user typed and stall every session. Backreferences and lookaround, which no
/// linear-time engine has, are refused; `\d`, `\w` and `\b` follow Unicode.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// The expression as the schema gave it.
    pub source: String,
    /// The compiled expression.
    regex: regex::Regex,
}

impl Pattern {
    /// Compiles `source`; the error, which follows the quoted expression in a sentence, says
    /// why it cannot be checked.
    pub fn new(source: &str) -> Result<Pattern, String> {
        count_compiled();
        regress::Regex::with_flags(source, "u")
            .map_err(|e| format!("is not a valid ECMA-262 regular expression: {e}"))?;
        let regex = regex::Regex::new(source).map_err(|_| {
            "uses what askd does not check (a backreference, lookaround, or syntax beyond \
             what a linear-time match supports)"
                .to_owned()
        })?;
        Ok(Pattern {
            source: source.to_owned(),
            regex,
        })
    }

    /// Whether the expression matches some part of `text`, in time linear in its length.
    pub fn matches(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }
}

/// Two patterns are equal when they were compiled from the same expression.
impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.source == other.source
    }
}

impl Eq for Pattern {}

/// One choice of an enumeration: the value answered and the label shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The value sent in `content`.
    pub value: String,
    /// The label shown.
    pub label: String,
}

/// What a property asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A string typed by the user.
    Text {
        /// Fewest characters (Unicode code points).
        min: Option<u64>,
        /// Most characters.
        max: Option<u64>,
        /// The format the text must have.
        format: Option<Format>,
        /// The expression the text must match.
        pattern: Option<Pattern>,
        /// The default, when it is a string.
        default: Option<String>,
    },
    /// A number typed by the user.
    Number {
        /// Only integral values.
        integer: bool,
        /// The smallest value allowed.
        min: Option<Number>,
        /// The largest value allowed.
        max: Option<Number>,
        /// The default, when it is a number (integral for an integer).
        default: Option<Number>,
    },
    /// Yes or no.
    Boolean {
        /// The default, when it is a boolean.
        default: Option<bool>,
    },
    /// One of a list of strings.
    One {
        /// The choices, in order.
        choices: Vec<Choice>,
        /// The default, when it is one of the values.
        default: Option<String>,
    },
    /// Any of a list of strings.
    Many {
        /// The choices, in order.
        choices: Vec<Choice>,
        /// Fewest choices.
        min: Option<u64>,
        /// Most choices.
        max: Option<u64>,
        /// The default, when it is a list of the values.
        default: Option<Vec<String>>,
    },
}

/// One property of a form.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    /// The property's `title`.
    pub title: Option<String>,
    /// The property's `description`.
    pub description: Option<String>,
    /// What it asks for.
    pub kind: Kind,
}

/// What an mcp flow keeps of its request, as its
/// [`FlowSpec::source`](crate::core::FlowSpec::source): what each question's property asks for,
/// in the order of the questions, read (its pattern compiled) once when the request is opened.
/// The checks and the results read it; two are equal when they were read from equal properties.
#[derive(Debug, PartialEq, Eq)]
pub struct Fields(pub Vec<Kind>);

impl Fields {
    /// What the property behind question `index` of `spec` asks for.
    pub fn of(spec: &FlowSpec, index: usize) -> Option<&Kind> {
        spec.kept::<Fields>()?.0.get(index)
    }
}

/// Reads the property schema `schema`, appending a message per problem to `problems`; `None`
/// when it has one.
pub fn property(schema: &Value, arrays: bool, problems: &mut Vec<String>) -> Option<Property> {
    let Some(object) = schema.as_object() else {
        problems.push("must be a schema object".to_owned());
        return None;
    };
    let before = problems.len();
    let title = text_field(object, "title", problems);
    let description = text_field(object, "description", problems);
    let kind = match object.get("type") {
        None | Some(Value::Null) => {
            problems.push(
                "type is required (\"string\", \"number\", \"integer\", \"boolean\" or \"array\")"
                    .to_owned(),
            );
            None
        }
        Some(Value::String(t)) => match t.as_str() {
            "string" => string_kind(object, problems),
            "number" | "integer" => number_kind(object, t == "integer", problems),
            "boolean" => Some(Kind::Boolean {
                default: object.get("default").and_then(Value::as_bool),
            }),
            "array" if !arrays => {
                problems.push(format!(
                    "multi-select (array) schemas are not part of protocol version {VERSION_WITHOUT_ARRAYS}"
                ));
                None
            }
            "array" => array_kind(object, problems),
            other => {
                problems.push(format!(
                    "unsupported type {}; expected \"string\", \"number\", \"integer\", \"boolean\" or \"array\"",
                    quoted(other)
                ));
                None
            }
        },
        Some(_) => {
            problems.push("type must be a string".to_owned());
            None
        }
    };
    if problems.len() != before {
        return None;
    }
    Some(Property {
        title: title.flatten(),
        description: description.flatten(),
        kind: kind?,
    })
}

/// An optional string field; `None` after recording a problem.
fn text_field(
    object: &Map<String, Value>,
    key: &str,
    problems: &mut Vec<String>,
) -> Option<Option<String>> {
    match object.get(key) {
        None | Some(Value::Null) => Some(None),
        Some(Value::String(text)) => Some(Some(text.clone())),
        Some(_) => {
            problems.push(format!("{key} must be a string"));
            None
        }
    }
}

/// A non-negative integer field (`minLength`, `maxItems`, …).
fn count(object: &Map<String, Value>, key: &str, problems: &mut Vec<String>) -> Option<u64> {
    match object.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
        Some(_) => {
            problems.push(format!("{key} must be a non-negative integer"));
            None
        }
    }
}

/// A number field (`minimum`, `maximum`).
fn number(object: &Map<String, Value>, key: &str, problems: &mut Vec<String>) -> Option<Number> {
    match object.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => Some(n.clone()),
        Some(_) => {
            problems.push(format!("{key} must be a number"));
            None
        }
    }
}

/// Checks that a lower bound is not above an upper one.
fn ordered(
    low: Option<f64>,
    high: Option<f64>,
    names: (&str, &str),
    shown: (String, String),
    problems: &mut Vec<String>,
) {
    if let (Some(low), Some(high)) = (low, high)
        && low > high
    {
        problems.push(format!(
            "{} ({}) is greater than {} ({})",
            names.0, shown.0, names.1, shown.1
        ));
    }
}

/// The choices of `enum` (values as labels, or `enumNames`) or of `oneOf`/`anyOf`
/// (`{ const, title }`), under `at` for messages.
fn choices(
    object: &Map<String, Value>,
    titled_key: &str,
    at: &str,
    problems: &mut Vec<String>,
) -> Option<Vec<Choice>> {
    let list = match (object.get("enum"), object.get(titled_key)) {
        (Some(_), Some(_)) => {
            problems.push(format!(
                "{at}enum and {at}{titled_key} cannot both be given"
            ));
            return None;
        }
        (Some(values), None) => {
            let Some(values) = values
                .as_array()
                .filter(|v| !v.is_empty() && v.iter().all(Value::is_string))
            else {
                problems.push(format!("{at}enum must be a non-empty array of strings"));
                return None;
            };
            let values: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
            let labels: Vec<String> = match object.get("enumNames") {
                None | Some(Value::Null) => values.iter().map(|v| (*v).to_owned()).collect(),
                Some(Value::Array(names))
                    if names.iter().all(Value::is_string) && names.len() == values.len() =>
                {
                    names
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                }
                Some(Value::Array(names)) if names.iter().all(Value::is_string) => {
                    problems.push(format!(
                        "enumNames must hold one name per enum value ({} values, {} names)",
                        values.len(),
                        names.len()
                    ));
                    return None;
                }
                Some(_) => {
                    problems.push("enumNames must be an array of strings".to_owned());
                    return None;
                }
            };
            values
                .iter()
                .zip(labels)
                .map(|(value, label)| Choice {
                    value: (*value).to_owned(),
                    label,
                })
                .collect::<Vec<_>>()
        }
        (None, Some(options)) => {
            let Some(options) = options.as_array().filter(|o| !o.is_empty()) else {
                problems.push(format!("{at}{titled_key} must be a non-empty array"));
                return None;
            };
            let mut list = Vec::with_capacity(options.len());
            for (i, option) in options.iter().enumerate() {
                match (
                    option.get("const").and_then(Value::as_str),
                    option.get("title").and_then(Value::as_str),
                ) {
                    (Some(value), Some(label)) => list.push(Choice {
                        value: value.to_owned(),
                        label: label.to_owned(),
                    }),
                    _ => {
                        problems.push(format!(
                            "{at}{titled_key}[{i}] must be an object with string const and title"
                        ));
                        return None;
                    }
                }
            }
            list
        }
        (None, None) => return Some(Vec::new()),
    };
    for (i, choice) in list.iter().enumerate() {
        if list[..i].iter().any(|c| c.value == choice.value) {
            problems.push(format!(
                "{at}value {} is listed twice",
                quoted(&choice.value)
            ));
            return None;
        }
        if choice.label.trim().is_empty() {
            problems.push(format!(
                "{at}the label of value {} must not be blank",
                quoted(&choice.value)
            ));
            return None;
        }
    }
    Some(list)
}

/// A `string` property: free text with its checks, or one of an enumeration.
fn string_kind(object: &Map<String, Value>, problems: &mut Vec<String>) -> Option<Kind> {
    let before = problems.len();
    if object.get("enumNames").is_some() && object.get("enum").is_none() {
        problems.push("enumNames needs enum".to_owned());
    }
    let choices = choices(object, "oneOf", "", problems);
    let default = object.get("default").and_then(Value::as_str);
    match choices {
        Some(choices) if !choices.is_empty() => {
            let default = default
                .filter(|d| choices.iter().any(|c| c.value == *d))
                .map(str::to_owned);
            (problems.len() == before).then_some(Kind::One { choices, default })
        }
        Some(_) => {
            let min = count(object, "minLength", problems);
            let max = count(object, "maxLength", problems);
            ordered(
                min.map(|n| n as f64),
                max.map(|n| n as f64),
                ("minLength", "maxLength"),
                (min.unwrap_or(0).to_string(), max.unwrap_or(0).to_string()),
                problems,
            );
            let format = match object.get("format") {
                None | Some(Value::Null) => None,
                Some(Value::String(name)) => {
                    let format = Format::named(name);
                    if format.is_none() {
                        problems.push(format!(
                            "unsupported format {}; expected \"email\", \"uri\", \"date\" or \"date-time\"",
                            quoted(name)
                        ));
                    }
                    format
                }
                Some(_) => {
                    problems.push("format must be a string".to_owned());
                    None
                }
            };
            let pattern = match object.get("pattern") {
                None | Some(Value::Null) => None,
                Some(Value::String(source)) => match Pattern::new(source) {
                    Ok(pattern) => Some(pattern),
                    Err(why) => {
                        problems.push(format!("pattern {} {why}", quoted(source)));
                        None
                    }
                },
                Some(_) => {
                    problems.push("pattern must be a string".to_owned());
                    None
                }
            };
            (problems.len() == before).then(|| Kind::Text {
                min,
                max,
                format,
                pattern,
                default: default.map(str::to_owned),
            })
        }
        None => None,
    }
}

/// A `number` or `integer` property.
fn number_kind(
    object: &Map<String, Value>,
    integer: bool,
    problems: &mut Vec<String>,
) -> Option<Kind> {
    let before = problems.len();
    let min = number(object, "minimum", problems);
    let max = number(object, "maximum", problems);
    ordered(
        min.as_ref().and_then(Number::as_f64),
        max.as_ref().and_then(Number::as_f64),
        ("minimum", "maximum"),
        (
            min.as_ref().map(Number::to_string).unwrap_or_default(),
            max.as_ref().map(Number::to_string).unwrap_or_default(),
        ),
        problems,
    );
    let default = match object.get("default") {
        Some(Value::Number(n)) if !integer || is_integral(n) => Some(n.clone()),
        _ => None,
    };
    (problems.len() == before).then_some(Kind::Number {
        integer,
        min,
        max,
        default,
    })
}

/// Whether `n` has no fractional part.
pub fn is_integral(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// An `array` property: any of an enumeration (`items.enum` or `items.anyOf`).
fn array_kind(object: &Map<String, Value>, problems: &mut Vec<String>) -> Option<Kind> {
    let before = problems.len();
    let Some(items) = object.get("items").and_then(Value::as_object) else {
        problems.push("items must be an object with enum or anyOf".to_owned());
        return None;
    };
    if !matches!(items.get("type"), None | Some(Value::Null))
        && items.get("type").and_then(Value::as_str) != Some("string")
    {
        problems.push("items.type must be \"string\"".to_owned());
    }
    let choices = choices(items, "anyOf", "items.", problems);
    if choices.as_ref().is_some_and(Vec::is_empty) {
        problems.push("items must have enum or anyOf".to_owned());
    }
    let min = count(object, "minItems", problems);
    let max = count(object, "maxItems", problems);
    ordered(
        min.map(|n| n as f64),
        max.map(|n| n as f64),
        ("minItems", "maxItems"),
        (min.unwrap_or(0).to_string(), max.unwrap_or(0).to_string()),
        problems,
    );
    let choices = choices?;
    let default = object
        .get("default")
        .and_then(Value::as_array)
        .and_then(|d| {
            d.iter()
                .map(|v| {
                    v.as_str()
                        .filter(|v| choices.iter().any(|c| c.value == *v))
                        .map(str::to_owned)
                })
                .collect::<Option<Vec<String>>>()
        });
    (problems.len() == before).then_some(Kind::Many {
        choices,
        min,
        max,
        default,
    })
}

/// The `properties` and `required` of a valid form, as the request gave them.
pub struct Form<'a> {
    /// Every property in the order received.
    pub properties: &'a Map<String, Value>,
    /// The names of the required properties.
    pub required: Vec<&'a str>,
}

/// The path of property `key` in messages.
pub fn property_path(key: &str) -> String {
    format!("requestedSchema.properties.{key}")
}

/// The request's `message`, or the issue that it is missing or not a string.
pub fn message<'a>(root: &'a Map<String, Value>, issues: &mut Vec<Issue>) -> Option<&'a str> {
    match root.get("message") {
        Some(Value::String(text)) => Some(text.as_str()),
        None | Some(Value::Null) => {
            issues.push(issue("message", "is required"));
            None
        }
        Some(_) => {
            issues.push(issue("message", "must be a string"));
            None
        }
    }
}

/// Checks `requestedSchema` around its properties: an object of `type: "object"` with
/// `properties` an object and `required` a list of its names. Returns the form, or `None`
/// after recording the issues that leave no properties to read.
pub fn form<'a>(root: &'a Map<String, Value>, issues: &mut Vec<Issue>) -> Option<Form<'a>> {
    let Some(schema) = root.get("requestedSchema").and_then(Value::as_object) else {
        issues.push(issue("requestedSchema", "must be an object"));
        return None;
    };
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        issues.push(issue("requestedSchema.type", "must be \"object\""));
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        issues.push(issue("requestedSchema.properties", "must be an object"));
        return None;
    };
    let mut required = Vec::new();
    match schema.get("required") {
        None | Some(Value::Null) => {}
        Some(Value::Array(names)) => {
            for (i, name) in names.iter().enumerate() {
                let at = format!("requestedSchema.required[{i}]");
                match name.as_str() {
                    Some(name) if properties.contains_key(name) => required.push(name),
                    Some(name) => {
                        issues.push(issue(&at, format!("{} is not a property", quoted(name))))
                    }
                    None => issues.push(issue(&at, "must be a string")),
                }
            }
        }
        Some(_) => issues.push(issue(
            "requestedSchema.required",
            "must be an array of property names",
        )),
    }
    Some(Form {
        properties,
        required,
    })
}

/// Counts a compiled pattern, in the crate's own tests only.
#[cfg(not(test))]
fn count_compiled() {}

#[cfg(test)]
thread_local! {
    /// The patterns compiled on this thread.
    pub static COMPILED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts a compiled pattern in [`COMPILED`].
#[cfg(test)]
fn count_compiled() {
    COMPILED.with(|n| n.set(n.get() + 1));
}
