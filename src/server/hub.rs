//! The hub's process: the WebSocket listener with no stdin connection, the deadline timer, and
//! what ends it: a signal (`SIGINT`, `SIGTERM`, `SIGHUP`), or, with `--idle-exit`, a stretch
//! of the given length with no flow waiting and no connection. The table's side of being the
//! hub (the browser rule, `hub/status`) is `state::hub`; registering and the discovery file are
//! `server::discovery`.

use std::time::Duration;

use tokio::signal::unix::{SignalKind, signal};

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

/// Waits for `SIGINT`, `SIGTERM` or `SIGHUP` and answers its name; never answers when the
/// handlers cannot be installed.
pub async fn stop_signal() -> &'static str {
    let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        tracing::warn!("cannot handle signals; the hub's file stays behind when one ends it");
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => "SIGINT",
        _ = term.recv() => "SIGTERM",
        _ = hup.recv() => "SIGHUP",
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
pub async fn run(listener: Listener, state: Shared, idle_exit: Option<Duration>) -> Stopped {
    let timer = tokio::spawn(crate::server::expire_on_time(state.clone()));
    let serving = listener.serve(state.clone());
    let stopped = tokio::select! {
        name = stop_signal() => Stopped::Signal(name),
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
