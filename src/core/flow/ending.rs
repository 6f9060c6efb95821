//! How a flow ends: submitted on arrival at the review tab, cancelled, declined, or timed out at
//! its deadline (`protocol/behaviour.md` §10). The flow reads no clock: [`Flow::expire`] is
//! handed the time, and every cancel carries its [`CancelReason`].

use crate::core::model::{Answer, CancelReason, Outcome};

use super::{Flow, FlowError, Prompts};

impl Flow {
    /// On the review tab, under [`crate::core::Behaviour::auto_submit_when_answered_without_notes`]:
    /// submits when every question is answered and none holds a note.
    pub(super) fn auto_submit(&mut self) {
        if self.spec.behaviour.auto_submit_when_answered_without_notes
            && self.answers.iter().all(Answer::is_answered)
            && !self.answers.iter().any(Answer::has_notes)
        {
            self.finish(Outcome::Submit);
        }
    }

    /// Ends the flow, closing any editor without saving it and clearing every notice.
    pub(super) fn finish(&mut self, outcome: Outcome) {
        self.close_editor();
        self.prompts = Prompts::default();
        self.filter = None;
        self.pending.clear();
        self.outcome = Some(outcome);
    }

    /// Ends the flow as cancelled for `reason` (the user, the asker withdrawing, the client
    /// closing it, …). The draft of an open editor is not saved.
    pub fn cancel(&mut self, reason: CancelReason) -> Result<(), FlowError> {
        self.ensure_open()?;
        self.finish(Outcome::Cancelled(reason));
        Ok(())
    }

    /// Ends the flow as declined by the user, where the dialect offers Decline. The draft of
    /// an open editor is not saved.
    pub fn decline(&mut self) -> Result<(), FlowError> {
        self.ensure_open()?;
        if !self.spec.rules.declines() {
            return Err(FlowError::NoDecline(self.spec.rules.dialect));
        }
        self.finish(Outcome::Declined);
        Ok(())
    }

    /// When the flow times out, in milliseconds since the Unix epoch; `None` without a timeout.
    pub fn deadline(&self) -> Option<u64> {
        self.deadline
    }

    /// Sets (or, with `None`, removes) the flow's deadline, in milliseconds since the Unix
    /// epoch. The flow does not read a clock: the shell calls [`Flow::expire`] with the time.
    pub fn set_deadline(&mut self, deadline: Option<u64>) {
        self.deadline = deadline;
    }

    /// The timeout rule: at `now` (milliseconds since the Unix epoch), a flow still open whose
    /// deadline is `now` or earlier completes as cancelled with reason `timeout`; the draft of
    /// an open editor is not saved, and nothing is answered for the user. Answers whether this
    /// call ended the flow.
    pub fn expire(&mut self, now: u64) -> bool {
        let due = self.is_due(now);
        if due {
            self.finish(Outcome::Cancelled(CancelReason::Timeout));
        }
        due
    }

    /// The deadline rule of a flow that does not wait for its answer: at `now`, a flow still
    /// open whose deadline is `now` or earlier is submitted with the answers the user committed
    /// (the draft of an open editor is not saved, and nothing is answered for the user); when
    /// the dialect's checks keep those answers from being submitted, it times out as with
    /// [`Flow::expire`]. Answers whether this call ended the flow.
    pub fn expire_submitting(&mut self, now: u64) -> bool {
        let due = self.is_due(now);
        if due {
            let outcome = if self.submit_blocked() {
                Outcome::Cancelled(CancelReason::Timeout)
            } else {
                Outcome::Submit
            };
            self.finish(outcome);
        }
        due
    }

    /// Whether the flow is open and its deadline is `now` or earlier.
    fn is_due(&self, now: u64) -> bool {
        self.outcome.is_none() && self.deadline.is_some_and(|at| at <= now)
    }
}
