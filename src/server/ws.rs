//! One WebSocket connection: every text frame is one JSON-RPC message (or batch), handed to the
//! same dispatch as a frame of stdin ([`Connection::handle`]), so that every limit and every
//! error of stdin applies, with the same replies; each reply is one text frame.
//!
//! Backpressure: the connection sends each reply before it reads the next frame, and a send
//! waits while the peer does not read. A client that stops reading therefore stops being read:
//! what it sends waits in its own socket, and the server holds at most one reply for it (and
//! the answers of its finished `ask`s), whatever it keeps sending.
//!
//! Frames: a binary frame is read as a text frame is (its bytes must be UTF-8 JSON); pings are
//! answered by the WebSocket layer. A message longer than the limit is answered as on stdin
//! (-32004, `id: null`), and the connection is then closed with status 1009 (message too big):
//! the rest of such a message cannot be skipped. `exit` closes the connection (status 1000)
//! and ends nothing else.

use axum::extract::ws::{CloseFrame, Message, WebSocket, close_code};
use tokio::sync::{mpsc, watch};

use crate::server::methods::Shared;
use crate::server::{Connection, Handled, too_large};

/// The reason of the close frame that answers `exit`.
const EXIT_REASON: &str = "exit";

/// The reason of the close frame after a message longer than the limit.
const TOO_LARGE_REASON: &str = "message too large";

/// Serves one WebSocket connection on `state` until the peer closes it, `exit`, an error of
/// the connection, or the listener stops (`stopped` then holds the reason).
pub async fn run(
    mut socket: WebSocket,
    state: Shared,
    limit: usize,
    mut stopped: watch::Receiver<Option<&'static str>>,
) {
    let (out, mut queued) = mpsc::unbounded_channel::<Vec<u8>>();
    let mut connection = Connection::new(state, out);
    let close = loop {
        let frame = tokio::select! {
            biased;
            Some(message) = queued.recv() => {
                if send(&mut socket, message).await.is_err() {
                    break None;
                }
                continue;
            }
            _ = stopped.changed() => {
                let reason = stopped.borrow().unwrap_or("askd stopped");
                break Some((close_code::AWAY, reason));
            }
            frame = socket.recv() => frame,
        };
        let bytes = match frame {
            None => break None,
            Some(Ok(Message::Text(text))) => Vec::from(text.as_str()),
            Some(Ok(Message::Binary(bytes))) => Vec::from(bytes),
            // The peer's close is answered by the next read, which then ends the stream.
            Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Close(_))) => continue,
            Some(Err(e)) => {
                if !is_too_large(e) {
                    break None;
                }
                let _ = send(&mut socket, too_large(limit)).await;
                break Some((close_code::SIZE, TOO_LARGE_REASON));
            }
        };
        // Frames may come from the WebSocket layer's buffer without a read of the socket, which
        // is where the runtime would take its turn: a client flooding the server with messages
        // that are not answered must not keep the others waiting.
        tokio::task::consume_budget().await;
        match connection.handle(Ok(bytes)).await {
            Handled::Reply(reply) => {
                if send(&mut socket, reply).await.is_err() {
                    break None;
                }
            }
            Handled::Quiet => {}
            Handled::Exit => break Some((close_code::NORMAL, EXIT_REASON)),
        }
    };
    // What finished before the end still goes out, then the close frame.
    connection.finish().await;
    while let Ok(message) = queued.try_recv() {
        if send(&mut socket, message).await.is_err() {
            return;
        }
    }
    if let Some((code, reason)) = close {
        let frame = CloseFrame {
            code,
            reason: reason.into(),
        };
        let _ = socket.send(Message::Close(Some(frame))).await;
    }
}

/// Sends one message as a text frame, waiting while the peer does not read.
async fn send(socket: &mut WebSocket, message: Vec<u8>) -> Result<(), axum::Error> {
    let text = String::from_utf8(message).map_err(axum::Error::new)?;
    socket.send(Message::Text(text.into())).await
}

/// Whether a read failed on a message (or frame) longer than the limit.
fn is_too_large(error: axum::Error) -> bool {
    matches!(
        error
            .into_inner()
            .downcast::<tungstenite::Error>()
            .as_deref(),
        Ok(tungstenite::Error::Capacity(
            tungstenite::error::CapacityError::MessageTooLong { .. }
        ))
    )
}
