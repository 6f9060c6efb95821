//! The hub's process: the WebSocket listener with no stdin connection, the deadline timer, and
//! what ends it: a signal (`SIGINT`, `SIGTERM`, `SIGHUP`), or, with `--idle-exit`, a stretch
//! of the given length with no flow waiting and no connection. The table's side of being the
//! hub (the browser rule, `hub/status`) is `state::hub`; registering and the discovery file are
//! `server::discovery`.

use std::time::Duration;

use tokio::signal::unix::{Signal, SignalKind, signal};

use crate::server::listener::Listener;
use crate::server::methods::{Shared, lock};

/// How often the hub looks whether it is idle.
const IDLE_TICK: Duration = Duration::from_millis(250);

/// Why the hub stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// A signal, by name.
    Signal(&'static str),
    /// No flow waited and no connection was there for the `--idle-exit` time.
    Idle,
}

/// The handlers of `SIGINT`, `SIGTERM` and `SIGHUP`, installed before the hub's discovery file
/// is written: a client that reads the file and signals at once finds them in place, and the
/// hub ends cleanly (its file removed) instead of being killed by the default action.
pub struct StopSignals(Option<(Signal, Signal, Signal)>);

impl StopSignals {
    /// Installs the handlers; without them (said in the log) [`StopSignals::recv`] never answers.
    pub fn install() -> StopSignals {
        match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) {
            (Ok(int), Ok(term), Ok(hup)) => StopSignals(Some((int, term, hup))),
            _ => {
                tracing::warn!(
                    "cannot handle signals; the hub's file stays behind when one ends it"
                );
                StopSignals(None)
            }
        }
    }

    /// Waits for one of the signals and answers its name.
    pub async fn recv(&mut self) -> &'static str {
        let Some((int, term, hup)) = &mut self.0 else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = int.recv() => "SIGINT",
            _ = term.recv() => "SIGTERM",
            _ = hup.recv() => "SIGHUP",
        }
    }
}

/// Waits until the table has been idle (no flow waiting, no connection) for `after`.
async fn idle(state: &Shared, after: Duration) {
    let mut since: Option<tokio::time::Instant> = None;
    let mut tick = tokio::time::interval(IDLE_TICK);
    loop {
        tick.tick().await;
        if !lock(state).is_idle() {
            since = None;
            continue;
        }
        let start = *since.get_or_insert_with(tokio::time::Instant::now);
        if start.elapsed() >= after {
            return;
        }
    }
}

/// Serves `listener` on `state` until a signal or, with `idle_exit`, until idle that long; then
/// closes the connections and makes the state directory durable.
pub async fn run(
    listener: Listener,
    state: Shared,
    idle_exit: Option<Duration>,
    mut signals: StopSignals,
) -> Stopped {
    let timer = tokio::spawn(crate::server::expire_on_time(state.clone()));
    let serving = listener.serve(state.clone());
    let stopped = tokio::select! {
        name = signals.recv() => Stopped::Signal(name),
        () = async {
            match idle_exit {
                Some(after) => idle(&state, after).await,
                None => std::future::pending().await,
            }
        } => Stopped::Idle,
    };
    serving.stop("the hub stopped").await;
    timer.abort();
    lock(&state).close_store();
    stopped
}
