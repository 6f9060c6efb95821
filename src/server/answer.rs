//! A method's result, written straight after its reply's envelope: the [`Answer`] of each
//! result type, which takes what it can from the state (the screen cache, the session table)
//! instead of building a value to serialise.

use serde::Serialize;
use serde::ser::SerializeStruct;
use serde_json::Value;

use crate::server::protocol::{Bounded, Step};
use crate::server::state::{Client, SnapshotOf, State, Traced};
use crate::view::View;

/// A method's result, written right after its reply's envelope.
pub trait Answer {
    /// Writes the result as serde_json writes it, taking what it can from the state (the
    /// screen cache, the session table).
    fn write(
        &self,
        out: &mut Bounded,
        state: &mut State,
        client: &mut Client,
    ) -> serde_json::Result<()>;
}

impl Answer for Value {
    fn write(&self, out: &mut Bounded, _: &mut State, _: &mut Client) -> serde_json::Result<()> {
        serde_json::to_writer(out, self)
    }
}

impl Answer for View {
    fn write(
        &self,
        out: &mut Bounded,
        _: &mut State,
        client: &mut Client,
    ) -> serde_json::Result<()> {
        serde_json::to_writer(out, &client.screens().json(self))
    }
}

impl Answer for Step {
    /// The Step's own view goes through the cache.
    fn write(
        &self,
        out: &mut Bounded,
        _: &mut State,
        client: &mut Client,
    ) -> serde_json::Result<()> {
        serde_json::to_writer(
            out,
            &CachedStep {
                step: self,
                view: client.screens().json(&self.view),
            },
        )
    }
}

impl Answer for Traced {
    /// The Step, then the Steps of the trace (written plainly, as the script ran) as its last
    /// member.
    fn write(
        &self,
        out: &mut Bounded,
        state: &mut State,
        client: &mut Client,
    ) -> serde_json::Result<()> {
        self.step.write(out, state, client)?;
        if let Some(steps) = &self.steps {
            use std::io::Write;
            // The Step's closing brace makes way for `steps`.
            out.bytes().pop();
            out.write_all(br#","steps":"#)
                .and_then(|()| out.write_all(steps))
                .and_then(|()| out.write_all(b"}"))
                .map_err(serde_json::Error::io)?;
        }
        Ok(())
    }
}

impl Answer for SnapshotOf {
    fn write(
        &self,
        out: &mut Bounded,
        state: &mut State,
        _: &mut Client,
    ) -> serde_json::Result<()> {
        state.write_snapshot(&self.0, out)
    }
}

/// The result of `sessions`: the table, written from the state.
pub struct Listing;

impl Answer for Listing {
    fn write(
        &self,
        out: &mut Bounded,
        state: &mut State,
        client: &mut Client,
    ) -> serde_json::Result<()> {
        state.write_list(client, out)
    }
}

/// A Step whose view is written through a [`crate::view::ScreenCache`].
struct CachedStep<'a> {
    step: &'a Step,
    view: crate::view::CachedView<'a>,
}

impl Serialize for CachedStep<'_> {
    /// The fields of [`Step`] in its order and under its names, as its derived implementation
    /// writes them (a test compares the two byte for byte).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let step = self.step;
        let mut s = serializer.serialize_struct("Step", 8)?;
        s.serialize_field("session", &step.session)?;
        s.serialize_field("status", &step.status)?;
        s.serialize_field("version", &step.version)?;
        s.serialize_field("view", &self.view)?;
        match &step.result {
            Some(result) => s.serialize_field("result", result)?,
            None => s.skip_field("result")?,
        }
        match &step.transcript {
            Some(transcript) => s.serialize_field("transcript", transcript)?,
            None => s.skip_field("transcript")?,
        }
        match &step.error {
            Some(error) => s.serialize_field("error", error)?,
            None => s.skip_field("error")?,
        }
        match &step.steps {
            Some(steps) => s.serialize_field("steps", steps)?,
            None => s.skip_field("steps")?,
        }
        s.end()
    }
}
