//! Small helpers on text shared by every layer: quoting user input in messages, naming a
//! JSON value in one.

use serde_json::Value;

/// `s` as a JSON string literal, for messages that quote user input (`"scope"`).
pub fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A JSON value as an error message names it: its type, and its value when short.
pub fn described(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() > 40 => {
            let head: String = s.chars().take(40).collect();
            format!("the string {}…", quoted(&head))
        }
        Value::String(s) => format!("the string {}", quoted(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Quotes, backslashes and control characters are escaped as JSON escapes them.
    #[test]
    fn quotes_as_json() {
        assert_eq!(quoted("scope"), r#""scope""#);
        assert_eq!(quoted("a\"b\\c\n"), r#""a\"b\\c\n""#);
        assert_eq!(quoted("é"), "\"é\"");
    }
}
