//! `askd ask --attach`: the terminal as a person's client of the hub. It attaches to the hub
//! (`subscribe { attach: true }`, starting a hub when none runs, as the agents' glue does) and
//! answers the flows waiting there, oldest first, one after another, then those that arrive:
//! each drawn from the hub's rendered `lines` at the terminal's width, the keys sent as `key`
//! and pastes as `insert`, so the flow is the hub's and every other client of it (a browser, an
//! editor) sees the same flow and may answer it first. The result goes to the agent that asked,
//! not to stdout.
//!
//! Between flows the screen says that it waits, how many flows were answered here, and the
//! hub's address; `Esc`, `q` or `Ctrl+C` there stops (status 0). While a flow is shown, keys
//! are the flow's (`Ctrl+C` is its `global.dismiss`), a line above it says how many more wait
//! and who asked, and its deadline is counted down as `askd ask` does. A hub that goes away is
//! waited for: the client attaches again to the next hub that writes the discovery file.
//! A terminal that goes away ends the process with status 129 and leaves the flows waiting in
//! the hub for another client.

use std::collections::VecDeque;
use std::io;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{self, Event, KeyCode as TermCode, KeyModifiers};
use crossterm::terminal;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::cli::hub::{HubClient, HubError, HubOptions};
use crate::cli::payload::Failure;
use crate::cli::term::{
    HangUp, Restore, SUSPEND, Terminal, clip, hook_panics, key_of, line, pasted, suspend, terminal,
    terminal_failure, until_tick, watch_hangup, watch_signals, with_countdown,
};
use crate::server::state::now_ms;
use crate::view::{Line, Style};

/// Exit status when the terminal went away: the flows stay in the hub.
const EXIT_HANGUP: u8 = 129;

/// How long to wait between tries to attach again to a hub that went away.
const REATTACH_EVERY: Duration = Duration::from_secs(1);

/// The longest title drawn in the queue's line, in characters.
const TITLE_CHARS: usize = 60;

/// Runs `askd ask --attach` until the person stops it: its exit status.
pub fn run(fullscreen: bool) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("askd: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(attach(fullscreen)) {
        Ok(answered) => {
            eprintln!(
                "askd: {answered} flow{} answered here",
                if answered == 1 { "" } else { "s" }
            );
            ExitCode::SUCCESS
        }
        Err(failure) => {
            eprintln!("askd: {}", failure.message);
            ExitCode::from(failure.status)
        }
    }
}

/// A flow waiting in the hub, as `sessions` and `session/opened` describe it.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiting {
    /// Its session id.
    pub session: String,
    /// Its title, when it has one.
    pub title: Option<String>,
    /// Who asked: the asker's `name` and `folder` as the hub lists them.
    pub asker: Option<String>,
    /// When it was opened, in milliseconds since the Unix epoch.
    pub opened_at: u64,
}

impl Waiting {
    /// The flow an entry of `sessions` (or a `session/opened`) describes, when it is open.
    pub fn from_listing(entry: &Value) -> Option<Waiting> {
        if entry["status"] != "open" {
            return None;
        }
        let asker = &entry["asker"];
        let who: Vec<&str> = ["name", "folder"]
            .iter()
            .filter_map(|key| asker[*key].as_str())
            .filter(|s| !s.is_empty())
            .collect();
        Some(Waiting {
            session: entry["session"].as_str()?.to_owned(),
            title: entry["title"].as_str().map(str::to_owned),
            asker: (!who.is_empty()).then(|| who.join(" · ")),
            opened_at: entry["openedAt"].as_u64().unwrap_or(0),
        })
    }

    /// How the flow is named in the line above the one shown: its title (cut short) and who
    /// asked.
    fn name(&self) -> String {
        let title = self.title.as_deref().unwrap_or(&self.session);
        let mut name: String = title.chars().take(TITLE_CHARS).collect();
        if title.chars().count() > TITLE_CHARS {
            name.push('…');
        }
        if let Some(asker) = &self.asker {
            name.push_str(" (");
            name.push_str(asker);
            name.push(')');
        }
        name
    }
}

/// The flows a person answers one after another: the one shown and those waiting, oldest
/// first. Plain data, so that the order is tested without a hub.
#[derive(Debug, Default)]
pub struct Queue {
    /// The flow shown, and its latest view (with `lines`).
    pub shown: Option<(Waiting, Value)>,
    /// The flows waiting, oldest first.
    pub waiting: VecDeque<Waiting>,
    /// How many flows were finished by this client's keys.
    pub answered: usize,
}

impl Queue {
    /// Adds a flow that opened (or was listed), keeping the oldest first; one known already is
    /// left as it is.
    pub fn add(&mut self, flow: Waiting) {
        let known = self
            .shown
            .as_ref()
            .is_some_and(|(s, _)| s.session == flow.session)
            || self.waiting.iter().any(|w| w.session == flow.session);
        if known {
            return;
        }
        let at = self
            .waiting
            .iter()
            .position(|w| w.opened_at > flow.opened_at)
            .unwrap_or(self.waiting.len());
        self.waiting.insert(at, flow);
    }

    /// Forgets a flow that closed or finished elsewhere; `true` when it was the one shown.
    pub fn remove(&mut self, session: &str) -> bool {
        self.waiting.retain(|w| w.session != session);
        if self
            .shown
            .as_ref()
            .is_some_and(|(s, _)| s.session == session)
        {
            self.shown = None;
            return true;
        }
        false
    }

    /// Shows `flow` with `view` (as `getView` answers it).
    pub fn show(&mut self, flow: Waiting, view: Value) {
        let status = view["status"].clone();
        self.shown = Some((
            flow,
            json!({ "version": 0, "status": status, "view": view }),
        ));
    }

    /// Draws the shown flow anew with `view` (as `getView` answers it, after a resize).
    pub fn redraw(&mut self, view: Value) {
        if let Some((_, held)) = &mut self.shown
            && view["status"] == "open"
        {
            held["view"] = view;
        }
    }

    /// The session shown.
    pub fn session(&self) -> Option<&str> {
        self.shown.as_ref().map(|(w, _)| w.session.as_str())
    }

    /// Takes a Step of the shown flow: kept when it is newer than the one held (a reply and a
    /// notification may come in either order); once it is done, the flow is no longer shown,
    /// and counts as answered here when the Step answers this client's own request (`mine`).
    /// `true` when the screen changes.
    pub fn update(&mut self, step: &Value, mine: bool) -> bool {
        let Some((_, held)) = &mut self.shown else {
            return false;
        };
        let version = |v: &Value| v["version"].as_u64().unwrap_or(0);
        if version(step) < version(held) {
            return false;
        }
        *held = step.clone();
        if step["status"] == "done" {
            self.shown = None;
            self.answered += usize::from(mine);
        }
        true
    }

    /// The screen: the shown flow's lines below a line naming it and what waits, or the
    /// waiting screen.
    pub fn screen(&self, width: usize, hub: &str, now: u64) -> Vec<Line> {
        let Some((flow, step)) = &self.shown else {
            return waiting_screen(width, hub, self.answered);
        };
        let view = &step["view"];
        let mut lines = lines_of(&view["lines"]);
        if let Some(deadline) = view["deadline"].as_u64() {
            lines = with_countdown(lines, width, deadline, now);
        }
        let mut about = format!("askd · {}", flow.name());
        match self.waiting.len() {
            0 => {}
            1 => about.push_str(" · 1 more waiting"),
            n => about.push_str(&format!(" · {n} more waiting")),
        }
        lines.insert(0, line(&[(&clip(&about, width), Style::Muted)]));
        lines
    }
}

/// The screen between flows.
fn waiting_screen(width: usize, hub: &str, answered: usize) -> Vec<Line> {
    let rule = "─".repeat(width.max(20));
    let done = match answered {
        0 => String::new(),
        1 => " · 1 answered".to_owned(),
        n => format!(" · {n} answered"),
    };
    vec![
        line(&[(&rule, Style::Border)]),
        line(&[
            (" Waiting for your agents' questions", Style::Title),
            (&done, Style::Success),
        ]),
        line(&[(&clip(&format!(" hub {hub}"), width), Style::Muted)]),
        Line::default(),
        line(&[(" esc", Style::Accent), (" stop", Style::Muted)]),
        line(&[(&rule, Style::Border)]),
    ]
}

/// The view's `lines` (`[[{ text, style }]]`) as lines to draw; control characters never
/// reach the terminal (a line holds none; a hub that sent one gets it as `�`).
pub fn lines_of(value: &Value) -> Vec<Line> {
    let Some(rows) = value.as_array() else {
        return Vec::new();
    };
    rows.iter()
        .map(|row| {
            let mut text = String::new();
            let mut ends = Vec::new();
            for span in row.as_array().into_iter().flatten() {
                let piece: String = span["text"]
                    .as_str()
                    .unwrap_or("")
                    .chars()
                    .map(|c| if c.is_control() { '\u{fffd}' } else { c })
                    .collect();
                if piece.is_empty() {
                    continue;
                }
                text.push_str(&piece);
                ends.push((
                    style_named(span["style"].as_str().unwrap_or("")),
                    text.len(),
                ));
            }
            Line::from_parts(text, ends)
        })
        .collect()
}

/// A style by its name in `lines` (an unknown one is drawn as text).
fn style_named(name: &str) -> Style {
    match name {
        "title" => Style::Title,
        "accent" => Style::Accent,
        "success" => Style::Success,
        "muted" => Style::Muted,
        "dim" => Style::Dim,
        "warning" => Style::Warning,
        "selected" => Style::Selected,
        "cursor" => Style::Cursor,
        "border" => Style::Border,
        _ => Style::Text,
    }
}

/// What the loop waits for.
enum Input {
    /// A terminal event (from the thread that reads them).
    Term(Event),
    /// A notification of the hub, or `None` when the connection ended.
    Hub(Option<crate::cli::hub::Notification>),
    /// The countdown's next second, or a try to attach again.
    Tick,
}

/// The connection and what it is subscribed to.
struct Attachment {
    hub: HubClient,
    notes: mpsc::UnboundedReceiver<crate::cli::hub::Notification>,
}

/// Connects to the hub (starting one when `start`), subscribes as a person's client at
/// `width` and queues what waits.
async fn attach_to(start: bool, width: u16, queue: &mut Queue) -> Result<Attachment, HubError> {
    let options = HubOptions {
        client_name: Some("askd ask --attach".into()),
        ..HubOptions::default()
    };
    let hub = if start {
        HubClient::connect_or_start(&options).await?
    } else {
        HubClient::connect(&options).await?
    };
    let notes = hub.notifications();
    let listed = hub
        .request("subscribe", json!({ "attach": true, "width": width }))
        .await?;
    for entry in listed.as_array().into_iter().flatten() {
        if let Some(flow) = Waiting::from_listing(entry) {
            queue.add(flow);
        }
    }
    Ok(Attachment { hub, notes })
}

/// Shows the next waiting flow when none is shown: its view at `width`. Flows that finished
/// meanwhile are passed over.
async fn show_next(hub: &HubClient, queue: &mut Queue, width: u16) -> Result<(), HubError> {
    while queue.shown.is_none() {
        let Some(flow) = queue.waiting.pop_front() else {
            return Ok(());
        };
        let params = json!({ "session": flow.session, "width": width });
        // Subscribing to the session at this width makes its Steps come at it.
        let _ = hub.request("subscribe", params.clone()).await;
        match hub.request("getView", params).await {
            Ok(view) if view["status"] == "open" => queue.show(flow, view),
            Ok(_) | Err(HubError::Rpc(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The attached client's loop: the number of flows answered when the person stops.
async fn attach(fullscreen: bool) -> Result<usize, Failure> {
    let hang_up: HangUp = Arc::new(|| {
        if let Some(term) = terminal().take() {
            term.restore();
        }
        std::process::exit(i32::from(EXIT_HANGUP));
    });
    watch_signals(hang_up.clone()).map_err(|e| terminal_failure(&e))?;
    hook_panics();
    let (mut columns, mut rows) = terminal::size().map_err(|e| terminal_failure(&e))?;
    let mut queue = Queue::default();
    let mut attachment = Some(
        attach_to(true, columns, &mut queue)
            .await
            .map_err(|e| Failure::new(1, e.to_string()))?,
    );
    let mut hub_url = attachment
        .as_ref()
        .map(|a| a.hub.hub().url.clone())
        .unwrap_or_default();
    let _restore = Restore;
    let tty = Terminal::open(fullscreen)?;
    watch_hangup(tty, hang_up);
    let (events_tx, mut events) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        while let Ok(event) = event::read() {
            if events_tx.send(event).is_err() {
                return;
            }
        }
    });
    loop {
        if let Some(a) = &attachment
            && let Err(e) = show_next(&a.hub, &mut queue, columns).await
        {
            tracing::info!("{e}");
        }
        let now = now_ms();
        let mut lines = queue.screen(usize::from(columns), &hub_url, now);
        if attachment.is_none() {
            lines.insert(
                0,
                line(&[(
                    " The hub went away; waiting for the next one…",
                    Style::Warning,
                )]),
            );
        }
        if let Some(term) = terminal().as_mut() {
            term.draw(&lines, rows).map_err(|e| terminal_failure(&e))?;
        }
        let deadline = queue
            .shown
            .as_ref()
            .and_then(|(_, step)| step["view"]["deadline"].as_u64());
        let wait = match (&attachment, deadline) {
            (None, _) => Some(REATTACH_EVERY),
            (Some(_), Some(deadline)) => Some(until_tick(deadline, now)),
            (Some(_), None) => None,
        };
        let input = {
            let tick = async {
                match wait {
                    Some(wait) => tokio::time::sleep(wait).await,
                    None => std::future::pending().await,
                }
            };
            let note = async {
                match &mut attachment {
                    Some(a) => a.notes.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                event = events.recv() => match event {
                    Some(event) => Input::Term(event),
                    None => return Err(terminal_failure(&io::Error::other("the terminal closed"))),
                },
                note = note => Input::Hub(note),
                () = tick => Input::Tick,
            }
        };
        match input {
            Input::Tick => {
                if attachment.is_none()
                    && let Ok(a) = attach_to(false, columns, &mut queue).await
                {
                    hub_url = a.hub.hub().url.clone();
                    attachment = Some(a);
                }
            }
            Input::Hub(None) => {
                attachment = None;
                if let Some((flow, _)) = queue.shown.take() {
                    queue.waiting.push_front(flow);
                }
            }
            Input::Hub(Some(note)) => hear(&mut queue, &note),
            Input::Term(Event::Resize(c, r)) => {
                (columns, rows) = (c, r);
                if let (Some(a), Some(session)) = (&attachment, queue.session()) {
                    let params = json!({ "session": session, "width": columns });
                    let _ = a.hub.request("subscribe", params.clone()).await;
                    if let Ok(view) = a.hub.request("getView", params).await {
                        queue.redraw(view);
                    }
                }
            }
            Input::Term(Event::Paste(text)) => {
                if let (Some(a), Some(session)) = (&attachment, queue.session()) {
                    let params = json!({ "session": session, "text": pasted(&text) });
                    if let Ok(step) = a.hub.request("insert", params).await {
                        queue.update(&step, true);
                    }
                }
            }
            Input::Term(Event::Key(key)) => {
                let Some(engine_key) = key_of(&key) else {
                    continue;
                };
                if engine_key == SUSPEND {
                    suspend();
                    continue;
                }
                match (&attachment, queue.session()) {
                    (Some(a), Some(session)) => {
                        let params = json!({ "session": session, "key": engine_key.to_string() });
                        match a.hub.request("key", params).await {
                            Ok(step) => {
                                queue.update(&step, true);
                            }
                            // Finished or closed elsewhere in between: the next one.
                            Err(HubError::Rpc(_)) => {
                                let session = session.to_owned();
                                queue.remove(&session);
                            }
                            Err(e) => tracing::info!("{e}"),
                        }
                    }
                    _ => {
                        let stop = matches!(key.code, TermCode::Esc | TermCode::Char('q'))
                            || (key.code == TermCode::Char('c')
                                && key.modifiers.contains(KeyModifiers::CONTROL));
                        if stop {
                            return Ok(queue.answered);
                        }
                    }
                }
            }
            Input::Term(_) => {}
        }
    }
}

/// Takes a notification of the hub into the queue.
fn hear(queue: &mut Queue, note: &crate::cli::hub::Notification) {
    let session = note.params["session"].as_str().unwrap_or_default();
    match note.method.as_str() {
        "session/opened" => {
            if let Some(flow) = Waiting::from_listing(&note.params) {
                queue.add(flow);
            }
        }
        "session/changed" => {
            if queue.session() == Some(session) {
                queue.update(&note.params, false);
            } else if note.params["status"] == "done" {
                queue.remove(session);
            }
        }
        "session/closed" => {
            queue.remove(session);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(session: &str, opened_at: u64) -> Value {
        json!({ "session": session, "status": "open", "title": format!("Q {session}"),
            "asker": { "name": "claude", "folder": "/p" }, "openedAt": opened_at })
    }

    #[test]
    fn the_oldest_waiting_flow_comes_first_and_none_twice() {
        let mut queue = Queue::default();
        for (s, at) in [("b", 20), ("a", 10), ("c", 30), ("a", 10)] {
            queue.add(Waiting::from_listing(&listed(s, at)).unwrap());
        }
        let order: Vec<&str> = queue.waiting.iter().map(|w| w.session.as_str()).collect();
        assert_eq!(order, ["a", "b", "c"]);
        assert_eq!(
            Waiting::from_listing(&json!({ "session": "d", "status": "done" })),
            None
        );
    }

    #[test]
    fn a_done_step_of_its_own_key_counts_as_answered_and_a_stale_one_is_ignored() {
        let mut queue = Queue::default();
        let flow = Waiting::from_listing(&listed("a", 1)).unwrap();
        queue.shown = Some((flow, json!({ "version": 3, "status": "open" })));
        assert!(!queue.update(&json!({ "version": 2, "status": "done" }), true));
        assert_eq!(queue.session(), Some("a"));
        assert!(queue.update(&json!({ "version": 4, "status": "done" }), true));
        assert_eq!((queue.session(), queue.answered), (None, 1));
        // Finished by another client while shown: gone, not counted.
        queue.show(
            Waiting::from_listing(&listed("b", 2)).unwrap(),
            json!({ "status": "open" }),
        );
        assert!(queue.update(&json!({ "version": 2, "status": "done" }), false));
        assert_eq!((queue.session(), queue.answered), (None, 1));
    }

    #[test]
    fn the_line_above_a_flow_names_it_and_counts_those_waiting() {
        let mut queue = Queue::default();
        let view = json!({ "status": "open",
            "lines": [[{ "text": "──", "style": "border" }], [{ "text": "a\u{1b}b", "style": "nope" }]] });
        queue.show(Waiting::from_listing(&listed("a", 1)).unwrap(), view);
        queue.add(Waiting::from_listing(&listed("b", 2)).unwrap());
        let texts: Vec<String> = queue
            .screen(80, "ws://h", 0)
            .iter()
            .map(|l| l.text().to_owned())
            .collect();
        assert_eq!(
            texts,
            [
                "askd · Q a (claude · /p) · 1 more waiting",
                "──",
                "a\u{fffd}b"
            ]
        );
    }

    #[test]
    fn the_waiting_screen_says_what_was_answered_and_where_the_hub_is() {
        let texts: Vec<String> = waiting_screen(24, "ws://127.0.0.1:1/rpc", 2)
            .iter()
            .map(|l| l.text().to_owned())
            .collect();
        assert_eq!(
            texts,
            [
                "─".repeat(24),
                " Waiting for your agents' questions · 2 answered".to_owned(),
                " hub ws://127.0.0.1:1/r…".to_owned(),
                String::new(),
                " esc stop".to_owned(),
                "─".repeat(24),
            ]
        );
    }
}
