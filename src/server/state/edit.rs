//! The methods that change a flow: keys, text, direct answers, cancelling and closing.

use jsonrpsee::types::ErrorObjectOwned;
use serde_json::{Value, json};

use super::commit::Undo;
use super::errors::{flow_error, parse};
use super::{Client, State, entry_in, step_of};
use crate::core::{CancelReason, FlowError, Key, Limits, Outcome, parse_sequence};
use crate::server::params::{
    ActivateParams, CancelCause, CancelParams, InsertParams, KeyList, KeyParams, KeysParams,
    SaveCustomParams, SessionParams, SetDraftParams, SetNoteParams, SubmitAnswersParams,
    SubmitMode,
};
use crate::server::protocol::{Bounded, Step, code, error};
use crate::session::{Session, Status};
use crate::view;

/// Most keys in one `keys` script with `trace: true` (each answers a whole Step).
pub const MAX_TRACED_KEYS: usize = 1000;

impl State {
    /// Runs a change on a session's engine state, then answers its Step.
    pub(super) fn change(
        &mut self,
        client: &mut Client,
        id: &str,
        f: impl FnOnce(&mut Session, &Limits) -> Result<(), ErrorObjectOwned>,
    ) -> Result<Step, ErrorObjectOwned> {
        let limits = self.config.limits;
        let entry = self.entry_mut(id)?;
        let before = Box::new(entry.session.clone());
        f(&mut entry.session, &limits)?;
        entry.version += 1;
        client.undo = Some(Undo::Changed {
            id: id.to_owned(),
            before,
        });
        self.step(client, id)
    }

    /// A change made by a client in this process (`askd ask`, which presses keys with the
    /// columns of its own terminal): `f` runs on the session as a method's change does, and
    /// the caller commits or rolls it back. A refused change changes nothing.
    pub fn change_here(
        &mut self,
        client: &mut Client,
        id: &str,
        f: impl FnOnce(&mut Session) -> Result<(), FlowError>,
    ) -> Result<(), ErrorObjectOwned> {
        let entry = self.entry_mut(id)?;
        let before = Box::new(entry.session.clone());
        f(&mut entry.session).map_err(flow_error)?;
        entry.version += 1;
        client.undo = Some(Undo::Changed {
            id: id.to_owned(),
            before,
        });
        Ok(())
    }

    /// `key`: one key.
    pub fn key(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: KeyParams = parse(params)?;
        let key = Key::parse(&p.key)
            .map_err(|e| error(code::INVALID_PARAMS, format!("invalid params: key: {e}")))?;
        // Up and Down in an editor follow the lines of the screen this connection is shown.
        let width = self
            .sessions
            .get(&p.session)
            .and_then(|entry| client.view_of(&p.session, entry.serial).width);
        self.change(client, &p.session, |s, _| {
            s.press_wrapped(key, view::editor_columns(s, width))
                .map_err(flow_error)
        })
    }

    /// `keys`: a list of keys, or a Vim-notation string; all parsed before any is applied.
    /// Keys after the flow completes are not applied. A traced script writes the Step after
    /// each key as it goes, within the reply's budget.
    pub fn keys(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Traced, ErrorObjectOwned> {
        let p: KeysParams = parse(params)?;
        let keys: Vec<Key> = match &p.keys {
            KeyList::List(names) => names
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    Key::parse(n).map_err(|e| {
                        error(
                            code::INVALID_PARAMS,
                            format!("invalid params: keys[{i}]: {e}"),
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
            KeyList::Notation(s) => parse_sequence(s.as_str())
                .map_err(|e| error(code::INVALID_PARAMS, format!("invalid params: keys: {e}")))?,
        };
        let trace = p.trace.unwrap_or(false);
        if trace && keys.len() > MAX_TRACED_KEYS {
            return Err(error(
                code::LIMIT,
                format!(
                    "a traced key script has {} keys; the limit is {MAX_TRACED_KEYS}",
                    keys.len()
                ),
            ));
        }
        let budget = client.reply_limit;
        let too_large = client.reply_too_large(&self.config);
        let entry = entry_in(&mut self.sessions, &p.session)?;
        let view = client.view_of(&p.session, entry.serial);
        if entry.session.status() == Status::Done {
            return Err(flow_error(FlowError::Completed));
        }
        // A key refused midway (a limit), or a trace past the budget, undoes the whole script.
        let before = Box::new(entry.session.clone());
        // The script is one change: every Step of its trace has its version.
        entry.version += 1;
        let mut steps = trace.then(|| vec![b'[']);
        for key in keys {
            if entry.session.status() == Status::Done {
                break;
            }
            let columns = view::editor_columns(&entry.session, view.width);
            if let Err(e) = entry.session.press_wrapped(key, columns) {
                entry.session = *before;
                entry.version -= 1;
                return Err(flow_error(e));
            }
            if let Some(steps) = steps.as_mut() {
                if steps.len() > 1 {
                    steps.push(b',');
                }
                let step = step_of(&p.session, entry, view, None);
                let mut out = Bounded::new(steps, budget);
                if serde_json::to_writer(&mut out, &step).is_err() {
                    entry.session = *before;
                    entry.version -= 1;
                    return Err(too_large);
                }
            }
        }
        if let Some(steps) = steps.as_mut() {
            steps.push(b']');
        }
        client.undo = Some(Undo::Changed {
            id: p.session.clone(),
            before,
        });
        Ok(Traced {
            step: self.step(client, &p.session)?,
            steps,
        })
    }

    /// `insert`: text into the open editor.
    pub fn insert(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: InsertParams = parse(params)?;
        self.change(client, &p.session, |s, _| {
            s.flow_mut()
                .and_then(|f| f.insert(&p.text))
                .map_err(flow_error)
        })
    }

    /// `activate`: a click or a tap on a target of the screen; the core decides what it means.
    pub fn activate(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: ActivateParams = parse(params)?;
        let target = p
            .target
            .target()
            .map_err(|m| error(code::INVALID_PARAMS, m))?;
        self.change(client, &p.session, |s, _| {
            s.flow_mut()
                .and_then(|f| f.activate(&target))
                .map_err(flow_error)
        })
    }

    /// `setDraft`: the open editor's whole text, as a client's own text area holds it.
    pub fn set_draft(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: SetDraftParams = parse(params)?;
        self.change(client, &p.session, |s, limits| {
            limits
                .check_text(&p.text, "text")
                .map_err(|m| error(code::LIMIT, m))?;
            s.flow_mut()
                .and_then(|f| f.set_draft(&p.text, p.caret))
                .map_err(flow_error)
        })
    }

    /// `saveCustom`: a custom answer set directly.
    pub fn save_custom(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: SaveCustomParams = parse(params)?;
        self.change(client, &p.session, |s, limits| {
            limits
                .check_text(&p.text, "text")
                .map_err(|m| error(code::LIMIT, m))?;
            s.flow_mut()
                .and_then(|f| f.save_custom(&p.question_id, &p.text, p.submit.unwrap_or(false)))
                .map_err(flow_error)
        })
    }

    /// `setNote`: a question or option note set directly.
    pub fn set_note(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: SetNoteParams = parse(params)?;
        self.change(client, &p.session, |s, limits| {
            limits
                .check_text(&p.text, "text")
                .map_err(|m| error(code::LIMIT, m))?;
            s.flow_mut()
                .and_then(|f| f.set_note(&p.question_id, p.option_value.as_deref(), &p.text))
                .map_err(flow_error)
        })
    }

    /// `submitAnswers`: completes the flow from a whole answer set.
    pub fn submit_answers(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: SubmitAnswersParams = parse(params)?;
        let outcome = match p.mode {
            Some(SubmitMode::Elaborate) => Outcome::Elaborate,
            _ => Outcome::Submit,
        };
        self.change(client, &p.session, |s, limits| {
            limits
                .check_texts(&p.answers, "answers")
                .map_err(|m| error(code::LIMIT, m))?;
            s.submit_answer_set(&p.answers, outcome).map_err(flow_error)
        })
    }

    /// `cancel`: the user cancels, the asker aborts, or the client closes the flow.
    pub fn cancel(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Step, ErrorObjectOwned> {
        let p: CancelParams = parse(params)?;
        let reason = match p.reason {
            Some(CancelCause::Abort) => Some(CancelReason::Aborted),
            Some(CancelCause::Closed) => Some(CancelReason::Closed),
            Some(CancelCause::Decline) => None,
            Some(CancelCause::User) | None => Some(CancelReason::User),
        };
        self.change(client, &p.session, |s, _| {
            s.flow_mut()
                .and_then(|f| match reason {
                    Some(reason) => f.cancel(reason),
                    None => f.decline(),
                })
                .map_err(flow_error)
        })
    }

    /// Aborts the flow of a pending `ask` on behalf of its asker (`$/cancelRequest`): only the
    /// session of id `id` and serial `serial`, and only while its `ask` waits.
    pub fn abort_ask(&mut self, client: &Client, id: &str, serial: u64) {
        if !self.is_waiting(id, serial) {
            return;
        }
        if let Some(entry) = self.sessions.get_mut(id)
            && let Ok(flow) = entry.session.flow_mut()
        {
            let _ = flow.cancel(CancelReason::Aborted);
            entry.version += 1;
        }
        self.changed(id, client.number);
    }

    /// `close`: forgets a session (aborting a pending `ask` on it first).
    pub fn close(
        &mut self,
        client: &mut Client,
        params: Option<&str>,
    ) -> Result<Value, ErrorObjectOwned> {
        let p: SessionParams = parse(params)?;
        let closed = match self.sessions.remove(&p.session) {
            Some(entry) => {
                client.undo = Some(Undo::Removed {
                    id: p.session,
                    entry: Box::new(entry),
                });
                true
            }
            None => false,
        };
        Ok(json!({ "closed": closed }))
    }
}

/// The result of a traced or untraced `keys`: its Step, and the Steps after each key (a JSON
/// array already written) when traced.
pub struct Traced {
    /// The Step after the script.
    pub step: Step,
    /// `[Step, …]`, when the script was traced.
    pub steps: Option<Vec<u8>>,
}
