//! Small helpers on text shared by every layer: quoting user input in messages.

/// `s` as a JSON string literal, for messages that quote user input (`"scope"`).
pub fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
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
