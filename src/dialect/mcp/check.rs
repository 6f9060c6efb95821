//! The checks of an elicitation form's values against its `requestedSchema`, which the flow
//! runs through the [`Checker`](crate::core::Checker) of the mcp rules: a typed value before it
//! is saved (string length, format and pattern, number syntax, integers, bounds), and every answer
//! before Accept (required properties, the number of choices). They read the properties as
//! [`Fields`] kept them when the flow opened, and parse or compile nothing.

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
    if !answer.is_answered() {
        return if q.required {
            Err(REQUIRED.to_owned())
        } else {
            Ok(())
        };
    }
    let Some(kind) = Fields::of(spec, index) else {
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
        Kind::Boolean { .. } | Kind::One { .. } | Kind::Many { .. } => return None,
    };
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
}

/// An email address: a local part and a domain of letters, digits and hyphens (or an address
/// in brackets) around one `@`, without spaces or control characters.
pub fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.rsplit_once('@') else {
        return false;
    };
    let plain = |s: &str| !s.is_empty() && !s.chars().any(|c| c.is_whitespace() || c.is_control());
    if !plain(local) || local.contains('@') && !local.starts_with('"') {
        return false;
    }
    if domain.starts_with('[') && domain.ends_with(']') {
        return domain.len() > 2;
    }
    !domain.is_empty()
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
}

/// An absolute URI (RFC 3986): a scheme, `:`, and ASCII characters a URI may hold, `%`
/// followed by two hexadecimal digits.
pub fn is_uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let mut scheme_chars = scheme.chars();
    let scheme_ok = scheme_chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme_chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_ok || rest.is_empty() {
        return false;
    }
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            if !(bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
            continue;
        }
        let allowed = b.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&b);
        if !allowed {
            return false;
        }
        i += 1;
    }
    true
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

/// `hh:mm` with hours up to 23 and minutes up to 59.
fn is_hours_minutes(text: &str) -> bool {
    match text.split_once(':') {
        Some((h, m)) if h.len() == 2 && m.len() == 2 => {
            number_of(h).is_some_and(|h| h <= 23) && number_of(m).is_some_and(|m| m <= 59)
        }
        _ => false,
    }
}

/// An RFC 3339 date-time: a full-date, `T`, `hh:mm:ss` with an optional fraction, and `Z` or
/// an offset `+hh:mm` / `-hh:mm`.
pub fn is_date_time(text: &str) -> bool {
    let Some((date, time)) = text.split_once(['T', 't']) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let (clock, offset) = if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        (clock, None)
    } else {
        match time.rfind(['+', '-']) {
            Some(at) => (&time[..at], Some(&time[at + 1..])),
            None => return false,
        }
    };
    if offset.is_some_and(|o| !is_hours_minutes(o)) {
        return false;
    }
    let (clock, fraction) = match clock.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (clock, None),
    };
    if fraction.is_some_and(|f| f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    match clock.rsplit_once(':') {
        Some((hours_minutes, seconds)) if seconds.len() == 2 => {
            is_hours_minutes(hours_minutes) && number_of(seconds).is_some_and(|s| s <= 60)
        }
        _ => false,
    }
}
