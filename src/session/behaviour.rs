//! The behaviour profiles a session may run with: what each makes of the core's
//! [`Behaviour`] options (`protocol/behaviour.md` §9).

use serde::{Deserialize, Serialize};

use crate::core::Behaviour;

/// Which version of the reference a flow follows.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum Profile {
    /// The seed contract, the reference at version 0.4.0 (`protocol/behaviour.md` §1–§8).
    #[default]
    #[serde(rename = "seed")]
    Seed,
    /// What the reference changed by version 0.9.0: the custom row on preview questions, the
    /// selected state of multi custom text, auto-open only without saved text, the elaborate
    /// wording with the current answer, the question-type toggle and the help overlay.
    #[serde(rename = "pi-0.9")]
    Pi09,
}

impl Profile {
    /// The behaviour of the profile, with the four flags off.
    pub fn behaviour(self) -> Behaviour {
        match self {
            Profile::Seed => Behaviour::default(),
            Profile::Pi09 => Behaviour {
                custom_row_on_preview: true,
                custom_text_toggles: true,
                auto_open_only_without_text: true,
                question_type_toggle: true,
                help_overlay: true,
                elaborate_with_current_answer: true,
                ..Behaviour::default()
            },
        }
    }
}

/// A profile and the four flags, each optional: what `open` and `initialize` take as
/// `behaviour`.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BehaviourOptions {
    /// `seed` (default) or `pi-0.9`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// A cancel or dismiss of a flow holding answers, notes or a draft first only shows a
    /// notice; the next one ends it (default `false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirm_dismiss_when_dirty: Option<bool>,
    /// On the review tab a digit first moves to its action and arms it; the same digit again
    /// runs it (default `false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub double_press_review_shortcuts: Option<bool>,
    /// Arriving on the review tab with every question answered and no note anywhere submits
    /// (default `false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_submit_when_answered_without_notes: Option<bool>,
    /// `single` questions are presented as `multi`; results keep the type asked and add
    /// `presentedType` (default `false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub present_single_as_multi: Option<bool>,
    /// A question holding an answer (a default, or the answer of a question gone back to)
    /// opens with its cursor on that answer's row, so that `Enter` keeps it (default: on in
    /// every dialect but `pi`, whose profiles open every tab on its first row as the reference
    /// does).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor_on_answer: Option<bool>,
}

impl BehaviourOptions {
    /// These options over `base`: each field given replaces `base`'s, each left out keeps it.
    pub fn over(self, base: BehaviourOptions) -> BehaviourOptions {
        BehaviourOptions {
            profile: self.profile.or(base.profile),
            confirm_dismiss_when_dirty: self
                .confirm_dismiss_when_dirty
                .or(base.confirm_dismiss_when_dirty),
            double_press_review_shortcuts: self
                .double_press_review_shortcuts
                .or(base.double_press_review_shortcuts),
            auto_submit_when_answered_without_notes: self
                .auto_submit_when_answered_without_notes
                .or(base.auto_submit_when_answered_without_notes),
            present_single_as_multi: self
                .present_single_as_multi
                .or(base.present_single_as_multi),
            cursor_on_answer: self.cursor_on_answer.or(base.cursor_on_answer),
        }
    }

    /// The core behaviour these options make: the profile's (default `seed`), with the flags
    /// given (default `false`) and the cursor rule given (default: the dialect's).
    pub fn behaviour(self) -> Behaviour {
        Behaviour {
            confirm_dismiss_when_dirty: self.confirm_dismiss_when_dirty.unwrap_or(false),
            double_press_review_shortcuts: self.double_press_review_shortcuts.unwrap_or(false),
            auto_submit_when_answered_without_notes: self
                .auto_submit_when_answered_without_notes
                .unwrap_or(false),
            present_single_as_multi: self.present_single_as_multi.unwrap_or(false),
            cursor_on_answer: self.cursor_on_answer,
            ..self.profile.unwrap_or_default().behaviour()
        }
    }
}
