//! The fields of an elicitation form: each property of `requestedSchema` read into a
//! [`Property`], as the MCP SDK (1.32.2) reads it and as its validator then checks an answer;
//! and the request's own checks (`mode`, `message`, `requestedSchema`, `required`).
//!
//! A property is refused only when the SDK's request schema refuses it: it must fit one of the
//! primitive schemas (a string, a number or an integer, a boolean, an enumeration of strings
//! titled or not, a multiple choice of them), whose fields have their types (`null` is the
//! value of none). A property that fits but that no value can satisfy (an empty enumeration,
//! `minLength` above `maxLength`, a pattern that is not valid, …) is asked all the same, as a
//! field that takes no value and says why ([`Kind::Blocked`]).

use serde_json::{Map, Number, Value};

use crate::core::{FlowSpec, Issue, quoted};
use crate::dialect::mcp::check::text_problem;
use crate::dialect::shape::issue;

pub use crate::dialect::mcp::pattern::{Pattern, Unchecked};

/// The protocol revision without multi-select schemas.
pub const VERSION_WITHOUT_ARRAYS: &str = "2025-06-18";

/// A string format the engine checks values against, as the SDK's validator checks it.
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
    /// A field no value can satisfy, or whose value askd cannot check: it takes none.
    Blocked {
        /// Why, in words for the person.
        reason: String,
        /// No accept can pass the server's check at all (its validator cannot compile the
        /// schema), whether the field is answered or not.
        whole_form: bool,
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

/// Reads the property schema `schema` as the SDK reads it, appending a message per problem to
/// `problems` when it fits none of the primitive schemas (`None` then); otherwise what it asks
/// for, as the SDK's validator will check its value (a field no value can satisfy included).
pub fn property(schema: &Value, arrays: bool, problems: &mut Vec<String>) -> Option<Property> {
    let Some(object) = schema.as_object() else {
        problems.push("must be a schema object".to_owned());
        return None;
    };
    let before = problems.len();
    let title = text_field(object, "title", problems);
    let description = text_field(object, "description", problems);
    let kind = match object.get("type") {
        None => {
            problems.push(
                "type is required (\"string\", \"number\", \"integer\", \"boolean\" or \"array\")"
                    .to_owned(),
            );
            None
        }
        Some(Value::String(t)) => match t.as_str() {
            "string" => string_kind(object, problems),
            "number" | "integer" => number_kind(object, t == "integer", problems),
            "boolean" => boolean_kind(object, problems),
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
        None => Some(None),
        Some(Value::String(text)) => Some(Some(text.clone())),
        Some(_) => {
            problems.push(format!("{key} must be a string"));
            None
        }
    }
}

/// Records that the optional field `key` of `object` is not what `fits` takes.
fn optional(
    object: &Map<String, Value>,
    key: &str,
    what: &str,
    fits: impl Fn(&Value) -> bool,
    problems: &mut Vec<String>,
) {
    if object.get(key).is_some_and(|v| !fits(v)) {
        problems.push(format!("{key} must be {what}"));
    }
}

/// Whether `value` is an array of strings.
fn strings(value: &Value) -> bool {
    value
        .as_array()
        .is_some_and(|v| v.iter().all(Value::is_string))
}

/// Whether `value` is an array of `{ const, title }` objects with string members.
fn titled_list(value: &Value) -> bool {
    value.as_array().is_some_and(|v| {
        v.iter().all(|o| {
            o.get("const").is_some_and(Value::is_string)
                && o.get("title").is_some_and(Value::is_string)
        })
    })
}

/// The problems that keep `object` from fitting one of the SDK's string schemas, those of the
/// one it means (`enum` with `enumNames`, `oneOf`, or free text); empty when one fits.
fn string_misfits(object: &Map<String, Value>) -> Vec<String> {
    let default = |problems: &mut Vec<String>| {
        optional(object, "default", "a string", Value::is_string, problems);
    };
    let mut legacy = Vec::new();
    if !object.get("enum").is_some_and(strings) {
        legacy.push("enum must be an array of strings".to_owned());
    }
    optional(
        object,
        "enumNames",
        "an array of strings",
        strings,
        &mut legacy,
    );
    default(&mut legacy);
    let mut titled = Vec::new();
    if !object.get("oneOf").is_some_and(titled_list) {
        titled.push("oneOf must be an array of objects with string const and title".to_owned());
    }
    default(&mut titled);
    let mut plain = Vec::new();
    optional(
        object,
        "minLength",
        "a number",
        Value::is_number,
        &mut plain,
    );
    optional(
        object,
        "maxLength",
        "a number",
        Value::is_number,
        &mut plain,
    );
    if let Some(format) = object.get("format")
        && format.as_str().is_none_or(|f| Format::named(f).is_none())
    {
        plain.push(match format.as_str() {
            Some(name) => format!(
                "unsupported format {}; expected \"email\", \"uri\", \"date\" or \"date-time\"",
                quoted(name)
            ),
            None => "format must be a string".to_owned(),
        });
    }
    default(&mut plain);
    if legacy.is_empty() || titled.is_empty() || plain.is_empty() {
        Vec::new()
    } else if object.contains_key("enum") {
        legacy
    } else if object.contains_key("oneOf") {
        titled
    } else {
        plain
    }
}

/// A count bound (`minLength`, `minItems`) as the validator applies it to a whole count: the
/// least count that passes; `None` when every count does.
fn least(object: &Map<String, Value>, key: &str) -> Option<u64> {
    let n = object.get(key)?.as_f64()?;
    (n > 0.0).then(|| n.ceil() as u64)
}

/// A count bound (`maxLength`, `maxItems`): the greatest count that passes, `Err` when none
/// does (a negative bound).
fn most(object: &Map<String, Value>, key: &str) -> Result<Option<u64>, ()> {
    match object.get(key).and_then(Value::as_f64) {
        None => Ok(None),
        Some(n) if n < 0.0 => Err(()),
        Some(n) => Ok(Some(n.floor() as u64)),
    }
}

/// A field that takes no value, for `reason`.
fn blocked(reason: impl Into<String>) -> Kind {
    Kind::Blocked {
        reason: reason.into(),
        whole_form: false,
    }
}

/// A field whose schema the server's validator cannot compile, so that no accept passes.
fn breaks_form(reason: impl Into<String>) -> Kind {
    Kind::Blocked {
        reason: reason.into(),
        whole_form: true,
    }
}

/// The choices of `list` (`{ const, title }` objects), each with its title (its value when the
/// title is blank); with `once`, only the values listed exactly once (what `oneOf` matches).
fn titled_choices(list: &[Value], once: bool) -> Vec<Choice> {
    let values: Vec<&str> = list
        .iter()
        .filter_map(|o| o.get("const").and_then(Value::as_str))
        .collect();
    let mut choices: Vec<Choice> = Vec::new();
    for o in list {
        let Some(value) = o.get("const").and_then(Value::as_str) else {
            continue;
        };
        if (once && values.iter().filter(|v| **v == value).count() != 1)
            || choices.iter().any(|c| c.value == value)
        {
            continue;
        }
        let title = o.get("title").and_then(Value::as_str).unwrap_or("");
        choices.push(Choice {
            value: value.to_owned(),
            label: if title.trim().is_empty() {
                value
            } else {
                title
            }
            .to_owned(),
        });
    }
    choices
}

/// The choices of an `enum` (its strings, each once), labelled by `enumNames` where it names
/// them (by position, when not blank), else by the value.
fn enum_choices(values: &[Value], names: Option<&Value>) -> Vec<Choice> {
    let names = names.and_then(Value::as_array);
    let mut choices: Vec<Choice> = Vec::new();
    for (i, value) in values.iter().enumerate() {
        let Some(value) = value.as_str() else {
            continue;
        };
        if choices.iter().any(|c| c.value == value) {
            continue;
        }
        let name = names
            .and_then(|n| n.get(i))
            .and_then(Value::as_str)
            .filter(|n| !n.trim().is_empty());
        choices.push(Choice {
            value: value.to_owned(),
            label: name.unwrap_or(value).to_owned(),
        });
    }
    choices
}

/// A `string` property: free text with its checks, or one of an enumeration; the checks the
/// validator applies (length, format, pattern) hold for the values of an enumeration too.
fn string_kind(object: &Map<String, Value>, problems: &mut Vec<String>) -> Option<Kind> {
    let misfits = string_misfits(object);
    if !misfits.is_empty() {
        problems.extend(misfits);
        return None;
    }
    let pattern = match object.get("pattern") {
        None => None,
        Some(Value::String(source)) => match Pattern::new(source) {
            Ok(pattern) => Some(pattern),
            Err(Unchecked::Invalid(why)) => {
                return Some(breaks_form(format!(
                    "its pattern {} is not a valid regular expression ({why}), so the server cannot check any answer to this form",
                    quoted(source)
                )));
            }
            Err(Unchecked::Unsupported(why)) => {
                return Some(blocked(format!(
                    "askd cannot check its pattern {}: {why}",
                    quoted(source)
                )));
            }
        },
        Some(_) => {
            return Some(breaks_form(
                "its pattern is not a string, so the server cannot check any answer to this form",
            ));
        }
    };
    let min = least(object, "minLength");
    let Ok(max) = most(object, "maxLength") else {
        return Some(blocked("it asks for a text of a negative length"));
    };
    if let (Some(min), Some(max)) = (min, max)
        && min > max
    {
        return Some(blocked(format!(
            "it asks for at least {min} and at most {max} characters"
        )));
    }
    let format = object
        .get("format")
        .and_then(Value::as_str)
        .and_then(Format::named);
    let text = Kind::Text {
        min,
        max,
        format,
        pattern,
        default: object
            .get("default")
            .and_then(Value::as_str)
            .map(str::to_owned),
    };
    let listed = match (object.get("enum"), object.get("oneOf")) {
        (None, None) => return Some(text),
        (Some(Value::Array(values)), None) => {
            let choices = enum_choices(values, object.get("enumNames"));
            if choices.is_empty() {
                return Some(blocked("its list of values is empty"));
            }
            choices
        }
        (None, Some(Value::Array(list))) => {
            let choices = titled_choices(list, true);
            if choices.is_empty() {
                return Some(blocked(if list.is_empty() {
                    "its list of values is empty"
                } else {
                    "every value of its oneOf is listed twice, and a value must match exactly one"
                }));
            }
            choices
        }
        (Some(Value::Array(values)), Some(Value::Array(list))) => {
            let titled = titled_choices(list, true);
            let choices: Vec<Choice> = enum_choices(values, None)
                .into_iter()
                .filter_map(|c| titled.iter().find(|t| t.value == c.value).cloned())
                .collect();
            if choices.is_empty() {
                return Some(blocked("no value is in both its enum and its oneOf"));
            }
            choices
        }
        _ => {
            return Some(breaks_form(
                "its enum or oneOf is not a list, so the server cannot check any answer to this form",
            ));
        }
    };
    let passing: Vec<Choice> = listed
        .into_iter()
        .filter(|c| text_problem(&text, &c.value).is_none())
        .collect();
    if passing.is_empty() {
        return Some(blocked(
            "none of its values passes its own checks (length, format or pattern)",
        ));
    }
    let default = object
        .get("default")
        .and_then(Value::as_str)
        .filter(|d| passing.iter().any(|c| c.value == *d))
        .map(str::to_owned);
    Some(Kind::One {
        choices: passing,
        default,
    })
}

/// A `number` or `integer` property.
fn number_kind(
    object: &Map<String, Value>,
    integer: bool,
    problems: &mut Vec<String>,
) -> Option<Kind> {
    let before = problems.len();
    for key in ["minimum", "maximum", "default"] {
        optional(object, key, "a number", Value::is_number, problems);
    }
    if problems.len() != before {
        return None;
    }
    let bound = |key: &str| match object.get(key) {
        Some(Value::Number(n)) => Some(n.clone()),
        _ => None,
    };
    let (min, max) = (bound("minimum"), bound("maximum"));
    if let (Some(low), Some(high)) = (
        min.as_ref().and_then(Number::as_f64),
        max.as_ref().and_then(Number::as_f64),
    ) {
        let what = if integer {
            "a whole number"
        } else {
            "a number"
        };
        if low > high {
            return Some(blocked(format!(
                "it asks for {what} of at least {} and at most {}",
                min.as_ref().map(Number::to_string).unwrap_or_default(),
                max.as_ref().map(Number::to_string).unwrap_or_default()
            )));
        }
        if integer && low.ceil() > high.floor() {
            return Some(blocked(format!(
                "no whole number lies from {} to {}",
                min.as_ref().map(Number::to_string).unwrap_or_default(),
                max.as_ref().map(Number::to_string).unwrap_or_default()
            )));
        }
    }
    let default = match object.get("default") {
        Some(Value::Number(n)) if !integer || is_integral(n) => Some(n.clone()),
        _ => None,
    };
    Some(Kind::Number {
        integer,
        min,
        max,
        default,
    })
}

/// A `boolean` property.
fn boolean_kind(object: &Map<String, Value>, problems: &mut Vec<String>) -> Option<Kind> {
    let before = problems.len();
    optional(object, "default", "a boolean", Value::is_boolean, problems);
    (problems.len() == before).then(|| Kind::Boolean {
        default: object.get("default").and_then(Value::as_bool),
    })
}

/// Whether `n` has no fractional part.
pub fn is_integral(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// An `array` property: any of an enumeration (`items.enum` or `items.anyOf`).
fn array_kind(object: &Map<String, Value>, problems: &mut Vec<String>) -> Option<Kind> {
    let before = problems.len();
    optional(object, "minItems", "a number", Value::is_number, problems);
    optional(object, "maxItems", "a number", Value::is_number, problems);
    optional(object, "default", "an array of strings", strings, problems);
    let items = object.get("items").and_then(Value::as_object);
    let untitled = items.is_some_and(|i| {
        i.get("type").and_then(Value::as_str) == Some("string")
            && i.get("enum").is_some_and(strings)
    });
    let titled = items.is_some_and(|i| i.get("anyOf").is_some_and(titled_list));
    if !untitled && !titled {
        problems.push(match items {
            None => "items must be an object with enum or anyOf".to_owned(),
            Some(i) if i.contains_key("anyOf") => {
                "items.anyOf must be an array of objects with string const and title".to_owned()
            }
            Some(i) if i.get("type").and_then(Value::as_str) != Some("string") => {
                "items.type must be \"string\"".to_owned()
            }
            Some(_) => "items.enum must be an array of strings".to_owned(),
        });
    }
    if problems.len() != before {
        return None;
    }
    let items = items?;
    let choices: Vec<Choice> = match (items.get("enum"), items.get("anyOf")) {
        (Some(Value::Array(values)), None) => enum_choices(values, None),
        (None, Some(Value::Array(list))) => titled_choices(list, false),
        (Some(Value::Array(values)), Some(Value::Array(list))) => {
            let titled = titled_choices(list, false);
            enum_choices(values, None)
                .into_iter()
                .filter_map(|c| titled.iter().find(|t| t.value == c.value).cloned())
                .collect()
        }
        _ => {
            return Some(breaks_form(
                "its items' enum or anyOf is not a list, so the server cannot check any answer to this form",
            ));
        }
    };
    let min = least(object, "minItems");
    let Ok(max) = most(object, "maxItems") else {
        return Some(blocked("it asks for a negative number of choices"));
    };
    if let (Some(min), Some(max)) = (min, max)
        && min > max
    {
        return Some(blocked(format!(
            "it asks for at least {min} and at most {max} choices"
        )));
    }
    if choices.is_empty() {
        return Some(blocked("its list of values is empty"));
    }
    if let Some(min) = min.filter(|&min| min > choices.len() as u64) {
        return Some(blocked(format!(
            "it asks for at least {min} choices of {} values",
            choices.len()
        )));
    }
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
    Some(Kind::Many {
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
    /// The names of the required properties (those named but not described included).
    pub required: Vec<&'a str>,
    /// The required names that are not properties, each once, in order.
    pub missing: Vec<&'a str>,
}

/// The path of property `key` in messages.
pub fn property_path(key: &str) -> String {
    format!("requestedSchema.properties.{key}")
}

/// The request's `message`, or the issue that it is missing or not a string.
pub fn message<'a>(root: &'a Map<String, Value>, issues: &mut Vec<Issue>) -> Option<&'a str> {
    match root.get("message") {
        Some(Value::String(text)) => Some(text.as_str()),
        None => {
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
    let mut missing = Vec::new();
    match schema.get("required") {
        None => {}
        Some(Value::Array(names)) => {
            for (i, name) in names.iter().enumerate() {
                let at = format!("requestedSchema.required[{i}]");
                match name.as_str() {
                    Some(name) => {
                        required.push(name);
                        if !properties.contains_key(name) && !missing.contains(&name) {
                            missing.push(name);
                        }
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
        missing,
    })
}
