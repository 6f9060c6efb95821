//! The checks of an elicitation form's values against its `requestedSchema`, which the flow
//! runs through the [`Checker`](crate::core::Checker) of the mcp rules: a typed value before it
//! is saved (string length, format and pattern, number syntax, integers, bounds), and every answer
//! before Accept (required properties, the number of choices). They read the properties as
//! [`Fields`] kept them when the flow opened, and parse or compile nothing.

use std::sync::LazyLock;

use serde_json::{Number, Value};

use crate::core::{Answer, FlowSpec};
use crate::dialect::mcp::form::{Fields, Format, Kind, is_integral};

/// Why a required property without a value blocks Accept.
pub const REQUIRED: &str = "A value is required";

/// The checker's check of a typed value, against the property read when the flow opened.
pub fn check_text(spec: &FlowSpec, index: usize, text: &str) -> Result<(), String> {
    match Fields::of(spec, index).and_then(|kind| text_problem(kind, text.trim())) {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}

/// The checker's check of an answer before Accept, against the property read when the flow
/// opened.
pub fn check_answer(spec: &FlowSpec, index: usize, answer: &Answer) -> Result<(), String> {
    let Some(q) = spec.questions.get(index) else {
        return Ok(());
    };
    let kind = Fields::of(spec, index);
    if let Some(Kind::Blocked { reason, whole_form }) = kind
        && (*whole_form || q.required)
    {
        return Err(blocked_problem(reason));
    }
    if !answer.is_answered() {
        return if q.required {
            Err(REQUIRED.to_owned())
        } else {
            Ok(())
        };
    }
    let Some(kind) = kind else {
        return Ok(());
    };
    if let Some(text) = answer.chosen_custom()
        && let Some(problem) = text_problem(kind, text.trim())
    {
        return Err(problem);
    }
    if let Kind::Many { min, max, .. } = *kind {
        let n = answer.selected.len() as u64;
        if let Some(min) = min.filter(|&min| n < min) {
            return Err(format!("Choose at least {}", options(min)));
        }
        if let Some(max) = max.filter(|&max| n > max) {
            return Err(format!("Choose at most {}", options(max)));
        }
    }
    Ok(())
}

/// What the review says of a field that takes no value and keeps the form from being
/// accepted.
fn blocked_problem(reason: &str) -> String {
    format!("The form cannot be accepted: this field cannot be answered ({reason})")
}

/// `1 option`, `<n> options`.
fn options(n: u64) -> String {
    if n == 1 {
        "1 option".to_owned()
    } else {
        format!("{n} options")
    }
}

/// `1 character`, `<n> characters`.
fn characters(n: u64) -> String {
    if n == 1 {
        "1 character".to_owned()
    } else {
        format!("{n} characters")
    }
}

/// A JSON number typed by the user (`-1.5e3`, not `+1` or `.5`).
pub fn parse_number(text: &str) -> Option<Number> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Number(n)) => Some(n),
        _ => None,
    }
}

/// What is wrong with `text` (trimmed, not blank) as a value of a property of `kind`.
pub fn text_problem(kind: &Kind, text: &str) -> Option<String> {
    match kind {
        Kind::Text {
            min,
            max,
            format,
            pattern,
            ..
        } => {
            let length = text.chars().count() as u64;
            if let Some(min) = min.filter(|&min| length < min) {
                return Some(format!("Enter at least {}", characters(min)));
            }
            if let Some(max) = max.filter(|&max| length > max) {
                return Some(format!("Enter at most {}", characters(max)));
            }
            match format {
                Some(Format::Email) if !is_email(text) => {
                    Some("Enter an email address, such as name@example.com".to_owned())
                }
                Some(Format::Uri) if !is_uri(text) => {
                    Some("Enter a URI with its scheme, such as https://example.com".to_owned())
                }
                Some(Format::Date) if !is_date(text) => {
                    Some("Enter a date as YYYY-MM-DD".to_owned())
                }
                Some(Format::DateTime) if !is_date_time(text) => Some(
                    "Enter a date and time as YYYY-MM-DDThh:mm:ssZ (or with an offset, such as +02:00)"
                        .to_owned(),
                ),
                _ => pattern
                    .as_ref()
                    .filter(|p| !p.matches(text))
                    .map(|p| format!("Enter a value that matches the pattern {}", p.source)),
            }
        }
        Kind::Number {
            integer, min, max, ..
        } => {
            let what = if *integer {
                "a whole number"
            } else {
                "a number"
            };
            let Some(n) = parse_number(text).filter(|n| !*integer || is_integral(n)) else {
                return Some(format!("Enter {what}"));
            };
            let value = n.as_f64().unwrap_or(f64::NAN);
            let below = min
                .as_ref()
                .and_then(Number::as_f64)
                .is_some_and(|m| value < m);
            let above = max
                .as_ref()
                .and_then(Number::as_f64)
                .is_some_and(|m| value > m);
            (below || above).then(|| format!("Enter {what} {}", range(min, max)))
        }
        Kind::Boolean { .. } | Kind::One { .. } | Kind::Many { .. } => {
            Some("Choose one of the options".to_owned())
        }
        Kind::Blocked { reason, .. } => Some(format!("This field cannot be answered: {reason}")),
    }
}

/// `from <min> to <max>`, `of at least <min>`, `of at most <max>`, or nothing.
fn range(min: &Option<Number>, max: &Option<Number>) -> String {
    match (min, max) {
        (Some(min), Some(max)) => format!("from {min} to {max}"),
        (Some(min), None) => format!("of at least {min}"),
        (None, Some(max)) => format!("of at most {max}"),
        (None, None) => String::new(),
    }
}

/// What a free-text property takes, for the description of its row (`3 to 30 characters`,
/// `An email address`, `A whole number from 1 to 5`).
pub fn hint(kind: &Kind) -> Option<String> {
    let text = match kind {
        Kind::Text {
            min,
            max,
            format,
            pattern,
            ..
        } => {
            let length = match (min, max) {
                (Some(min), Some(max)) if min == max => Some(characters(*min)),
                (Some(min), Some(max)) => Some(format!("{min} to {}", characters(*max))),
                (Some(min), None) => Some(format!("at least {}", characters(*min))),
                (None, Some(max)) => Some(format!("at most {}", characters(*max))),
                (None, None) => None,
            };
            let format = format.map(|f| match f {
                Format::Email => "an email address",
                Format::Uri => "a URI",
                Format::Date => "a date (YYYY-MM-DD)",
                Format::DateTime => "a date and time (YYYY-MM-DDThh:mm:ssZ)",
            });
            let pattern = pattern
                .as_ref()
                .map(|p| format!("matching the pattern {}", p.source));
            let parts: Vec<String> = [format.map(str::to_owned), length, pattern]
                .into_iter()
                .flatten()
                .collect();
            if parts.is_empty() {
                return None;
            }
            parts.join(", ")
        }
        Kind::Number {
            integer, min, max, ..
        } => {
            let what = if *integer {
                "a whole number"
            } else {
                "a number"
            };
            let range = range(min, max);
            if range.is_empty() {
                what.to_owned()
            } else {
                format!("{what} {range}")
            }
        }
        Kind::Boolean { .. } | Kind::One { .. } | Kind::Many { .. } | Kind::Blocked { .. } => {
            return None;
        }
    };
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
}

/// The characters of an email address's local part besides ASCII letters and digits.
const LOCAL_EXTRA: &str = "!#$%&'*+/=?^_`{|}~-";

/// An email address as the SDK's validator checks one: a local part of ASCII letters, digits
/// and `!#$%&'*+/=?^_`{|}~-` in dot-separated runs, `@`, and a domain of at least two
/// dot-separated labels of ASCII letters, digits and inner hyphens.
pub fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.split_once('@') else {
        return false;
    };
    let local_ok = local.split('.').all(|run| {
        !run.is_empty()
            && run
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || LOCAL_EXTRA.contains(c))
    });
    let labels: Vec<&str> = domain.split('.').collect();
    local_ok
        && labels.len() >= 2
        && labels.iter().all(|label| {
            label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && label
                    .bytes()
                    .next()
                    .is_some_and(|b| b.is_ascii_alphanumeric())
                && label
                    .bytes()
                    .last()
                    .is_some_and(|b| b.is_ascii_alphanumeric())
        })
}

/// RFC 3986's URI grammar in the `regex` engine's syntax, ASCII only and case-insensitive, with
/// the two liberties the SDK's validator takes: an authority may follow a single `/`, and the
/// path after the scheme may not be empty.
static URI: LazyLock<regex::Regex> = LazyLock::new(|| {
    let pct = "%[0-9a-f]{2}";
    let sub = r"!$&'()*+,;=";
    let unreserved = r"a-z0-9\-._~";
    let h16 = "[0-9a-f]{1,4}";
    let octet = r"(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)";
    let ipv4 = format!(r"(?:{octet}\.){{3}}{octet}");
    let ls32 = format!("(?:{h16}:{h16}|{ipv4})");
    let before = |n: usize| format!("(?:(?:{h16}:){{0,{n}}}{h16})?");
    let ipv6 = [
        format!("(?:{h16}:){{6}}{ls32}"),
        format!("::(?:{h16}:){{5}}{ls32}"),
        format!("(?:{h16})?::(?:{h16}:){{4}}{ls32}"),
        format!("{}::(?:{h16}:){{3}}{ls32}", before(1)),
        format!("{}::(?:{h16}:){{2}}{ls32}", before(2)),
        format!("{}::{h16}:{ls32}", before(3)),
        format!("{}::{ls32}", before(4)),
        format!("{}::{h16}", before(5)),
        format!("{}::", before(6)),
    ]
    .join("|");
    let future = format!(r"v[0-9a-f]+\.[{unreserved}{sub}:]+");
    let pchar = format!("(?:[{unreserved}{sub}:@]|{pct})");
    let authority = format!(
        r"/?/(?:(?:[{unreserved}{sub}:]|{pct})*@)?(?:\[(?:{ipv6}|{future})\]|{ipv4}|(?:[{unreserved}{sub}]|{pct})*)(?::[0-9]*)?(?:/{pchar}*)*"
    );
    let absolute = format!("/(?:{pchar}+(?:/{pchar}*)*)?");
    let rootless = format!("{pchar}+(?:/{pchar}*)*");
    let tail = format!("(?:{pchar}|[/?])*");
    let uri = format!(
        r"(?i-u)^[a-z][a-z0-9+\-.]*:(?:{authority}|{absolute}|{rootless})(?:\?{tail})?(?:#{tail})?$"
    );
    regex::Regex::new(&uri).expect("the URI grammar compiles")
});

/// An absolute URI as the SDK's validator checks one: RFC 3986's grammar (ASCII only), a
/// scheme and a path that is not empty.
pub fn is_uri(text: &str) -> bool {
    URI.is_match(text)
}

/// The value of `digits` (ASCII digits only), or `None`.
fn number_of(digits: &str) -> Option<u32> {
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// An RFC 3339 full-date: `YYYY-MM-DD`, a day that exists.
pub fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let [year, month, day] = parts.as_slice() else {
        return false;
    };
    if year.len() != 4 || month.len() != 2 || day.len() != 2 {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (number_of(year), number_of(month), number_of(day))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// A time of an RFC 3339 date-time as the SDK's validator reads one: `hh:mm:ss`, an optional
/// fraction, then `Z` or an offset of hours with optional minutes (`+02`, `+0200`, `+02:00`).
static TIME: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(
        r"(?i-u)^([0-9]{2}):([0-9]{2}):([0-9]{2}(?:\.[0-9]+)?)(?:z|([+-])([0-9]{2})(?::?([0-9]{2}))?)$",
    )
    .expect("the time grammar compiles")
});

/// The time part of a date-time: hours to 23, minutes to 59, seconds below 60, or a leap
/// second (60) at 23:59 UTC once the offset is applied.
fn is_time(text: &str) -> bool {
    let Some(parts) = TIME.captures(text) else {
        return false;
    };
    let number = |i: usize| {
        parts
            .get(i)
            .map_or(0.0, |m| m.as_str().parse().unwrap_or(0.0))
    };
    let (hours, minutes, seconds) = (number(1), number(2), number(3));
    let sign = if parts.get(4).is_some_and(|m| m.as_str() == "-") {
        -1.0
    } else {
        1.0
    };
    let (offset_hours, offset_minutes) = (number(5), number(6));
    if offset_hours > 23.0 || offset_minutes > 59.0 {
        return false;
    }
    if hours <= 23.0 && minutes <= 59.0 && seconds < 60.0 {
        return true;
    }
    let utc_minutes = minutes - offset_minutes * sign;
    let utc_hours = hours - offset_hours * sign - if utc_minutes < 0.0 { 1.0 } else { 0.0 };
    (utc_hours == 23.0 || utc_hours == -1.0)
        && (utc_minutes == 59.0 || utc_minutes == -1.0)
        && seconds < 61.0
}

/// An RFC 3339 date-time as the SDK's validator checks one: a full-date and a time with `Z` or
/// an offset, separated by one `T` or one white space character (either case), and by nothing
/// else that splits them.
pub fn is_date_time(text: &str) -> bool {
    let parts: Vec<&str> = text
        .split(|c: char| c == 't' || c == 'T' || crate::dialect::shape::is_js_space(c))
        .collect();
    matches!(parts.as_slice(), [date, time] if is_date(date) && is_time(time))
}
