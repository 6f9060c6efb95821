//! The `/` filter of a long list: its text, and which options it keeps.
//!
//! An option matches when its label or its description contains the filter text, compared
//! without case: both are folded (ASCII letters, then every other character by its Unicode
//! lowercase mapping) and the text must be found where the folded label or description has
//! grapheme boundaries at both ends, so that `e` finds neither half of a decomposed `é`. The
//! empty text matches every option. Matching walks the options once per change of the text;
//! moving among the rows that match never walks them again.

use unicode_segmentation::GraphemeCursor;

use crate::core::editor::TextEditor;
use crate::core::model::Question;

/// The least number of options a question needs to take a filter: more than the nine that the
/// digits address.
pub const FILTER_MIN_OPTIONS: usize = 10;

/// A filter on the rows of one question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowFilter {
    /// 0-based index of the question filtered (always the active tab).
    pub question: usize,
    /// The filter text and its cursor.
    pub text: TextEditor,
    /// The filter editor is open: keys type into it (focus `filter`).
    pub editing: bool,
    /// 0-based indices of the options that match, ascending.
    matches: Vec<usize>,
}

impl RowFilter {
    /// A filter of `question` (0-based index `index`) with `text`, the cursor at `cursor`,
    /// its matches found.
    pub fn new(index: usize, question: &Question, text: TextEditor, editing: bool) -> RowFilter {
        let mut filter = RowFilter {
            question: index,
            text,
            editing,
            matches: Vec::new(),
        };
        filter.refresh(question);
        filter
    }

    /// The options that match, ascending (0-based indices into the question's options).
    pub fn matches(&self) -> &[usize] {
        &self.matches
    }

    /// Finds the matches again after the text changed: one pass over the options.
    pub fn refresh(&mut self, question: &Question) {
        let mut needle = String::new();
        fold_into(self.text.text(), &mut needle);
        let mut folded = String::new();
        self.matches.clear();
        for (i, option) in question.options.iter().enumerate() {
            let hit = std::iter::once(option.label.as_str())
                .chain(option.description.as_deref())
                .any(|text| {
                    fold_into(text, &mut folded);
                    contains_graphemes(&folded, &needle)
                });
            if hit {
                self.matches.push(i);
            }
        }
    }
}

/// `text` folded for comparison without case into `out` (replacing what it held): ASCII
/// letters lowercased, every other character by its Unicode lowercase mapping.
pub fn fold_into(text: &str, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
    } else {
        out.extend(text.chars().flat_map(char::to_lowercase));
    }
}

/// Whether `needle` occurs in `haystack` starting and ending at grapheme boundaries of
/// `haystack` (the empty needle always does).
pub fn contains_graphemes(haystack: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    let boundary = |at: usize| {
        at == haystack.len()
            || GraphemeCursor::new(at, haystack.len(), true)
                .is_boundary(haystack, 0)
                .unwrap_or(false)
    };
    let ascii = haystack.is_ascii();
    haystack
        .match_indices(needle)
        .any(|(at, _)| ascii || (boundary(at) && boundary(at + needle.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_lowercases_ascii_and_unicode() {
        let mut out = String::from("left over");
        fold_into("Straße ÉCOLE ΣΑΣ", &mut out);
        assert_eq!(out, "straße école σασ");
        fold_into("MiXeD 42", &mut out);
        assert_eq!(out, "mixed 42");
    }

    #[test]
    fn matches_start_and_end_on_grapheme_boundaries() {
        assert!(contains_graphemes("option 12", "n 1"));
        assert!(contains_graphemes("anything", ""));
        assert!(!contains_graphemes("option", "options"));
        // `e` + combining acute is one grapheme: `e` alone does not match inside it.
        assert!(!contains_graphemes("cafe\u{301}", "cafe"));
        assert!(contains_graphemes("cafe\u{301}", "cafe\u{301}"));
        assert!(contains_graphemes("cafe\u{301} noir", "noir"));
        // Hangul and CJK match by grapheme too.
        assert!(contains_graphemes("데이터베이스 선택", "베이"));
        assert!(contains_graphemes("日本語の設定", "設定"));
        // A flag is one grapheme of two regional indicators; half of it does not match.
        assert!(!contains_graphemes("🇯🇵", "\u{1F1EF}"));
    }
}
