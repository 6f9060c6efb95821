//! The bounds that keep one flow's memory small, and the check of a payload against them.

use serde_json::Value;

/// Per-flow bounds. Exceeding one is refused before anything changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most questions in one payload.
    pub max_questions: usize,
    /// Most options in one question.
    pub max_options: usize,
    /// Most bytes in any one string of a payload, and in any editor, custom answer or note.
    pub max_text_bytes: usize,
    /// Most bytes of custom answers and notes one flow holds in all.
    pub max_flow_text_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_questions: 64,
            max_options: 1000,
            max_text_bytes: 64 * 1024,
            max_flow_text_bytes: 1024 * 1024,
        }
    }
}

impl Limits {
    /// Checks a raw payload's sizes; the error says which limit and where.
    pub fn check_payload(&self, payload: &Value) -> Result<(), String> {
        self.check_counts(payload, "payload")?;
        self.check_texts(payload, "payload")
    }

    /// Checks the number of questions of `value` and of options of each; errors name `root`.
    pub fn check_counts(&self, value: &Value, root: &str) -> Result<(), String> {
        let Some(questions) = value.get("questions").and_then(Value::as_array) else {
            return Ok(());
        };
        if questions.len() > self.max_questions {
            return Err(format!(
                "{root} has {} questions; the limit is {}",
                questions.len(),
                self.max_questions
            ));
        }
        for (i, q) in questions.iter().enumerate() {
            if let Some(options) = q.get("options").and_then(Value::as_array)
                && options.len() > self.max_options
            {
                return Err(format!(
                    "{root}.questions[{i}] has {} options; the limit is {}",
                    options.len(),
                    self.max_options
                ));
            }
        }
        Ok(())
    }

    /// Checks every string inside `value` against `max_text_bytes`; errors name the string's
    /// path below `root`.
    pub fn check_texts(&self, value: &Value, root: &str) -> Result<(), String> {
        self.check_strings(value, &mut String::from(root))
    }

    fn check_strings(&self, value: &Value, path: &mut String) -> Result<(), String> {
        match value {
            Value::String(s) => self.check_text(s, path),
            Value::Array(items) => items.iter().enumerate().try_for_each(|(i, v)| {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                let r = self.check_strings(v, path);
                path.truncate(len);
                r
            }),
            Value::Object(map) => map.iter().try_for_each(|(k, v)| {
                let len = path.len();
                path.push('.');
                path.push_str(k);
                let r = self.check_strings(v, path);
                path.truncate(len);
                r
            }),
            _ => Ok(()),
        }
    }

    /// Checks one text against `max_text_bytes`.
    pub fn check_text(&self, text: &str, what: &str) -> Result<(), String> {
        if text.len() > self.max_text_bytes {
            return Err(format!(
                "{what} is {} bytes; the limit is {}",
                text.len(),
                self.max_text_bytes
            ));
        }
        Ok(())
    }
}
