//! The deadlines of open flows: the earliest one for the timer, and the flows whose deadline
//! has come handed the time (the rule is the flow's, `Flow::expire`).

use std::sync::Arc;

use tokio::sync::Notify;

use super::{NOBODY, State, now_ms};

impl State {
    /// What wakes the timer when a deadline is added.
    pub fn timer(&self) -> Arc<Notify> {
        self.timer.clone()
    }

    /// The earliest deadline of an open flow, in milliseconds since the Unix epoch.
    pub fn next_deadline(&self) -> Option<u64> {
        self.deadlines.first().map(|&(at, _)| at)
    }

    /// Hands `now` (milliseconds since the Unix epoch) to every flow whose deadline has come,
    /// which then completes as timed out (the rule is the flow's,
    /// [`crate::core::Flow::expire`]); their pending `ask`s are resolved and their state leaves
    /// the state directory.
    pub fn expire_due(&mut self, now: u64) {
        while let Some((at, _)) = self.deadlines.first()
            && *at <= now
        {
            let Some((_, id)) = self.deadlines.pop_first() else {
                break;
            };
            if let Some(entry) = self.sessions.get_mut(&id)
                && entry.session.expire(now)
            {
                // No connection made this change: every subscriber is told of it.
                entry.version += 1;
                self.changed(&id, NOBODY);
            }
        }
    }

    /// [`State::expire_due`] at the time now, before a request acts: no request sees a flow
    /// whose deadline has passed as open, whether or not the timer has run yet. Reads the
    /// clock only while some flow has a deadline.
    pub fn expire_due_now(&mut self) {
        if !self.deadlines.is_empty() {
            self.expire_due(now_ms());
        }
    }
}
