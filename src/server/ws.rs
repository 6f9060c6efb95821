//! One WebSocket connection: every text frame is one JSON-RPC message (or batch), handed to the
//! same dispatch as a frame of stdin ([`Connection::handle`]), so that every limit and every
//! error of stdin applies, with the same replies; each reply, and each notification, is one
//! text frame.
//!
//! Two tasks share the connection. The socket's own loop sends what is queued for the peer
//! and reads frames, one at a time, handing each to the dispatch task; the dispatch task
//! handles it and queues its reply. The queue is the one stdin has, bounded by
//! `--max-pending-bytes`: a client that stops reading stops being read once its queue is full
//! (what it sends then waits in its own socket), and its notifications wait coalesced in its
//! outbox (`server/outbox.rs`), so the server holds a bounded amount for it whatever it keeps
//! sending and whatever the other connections change.
//!
//! Frames: a binary frame is read as a text frame is (its bytes must be UTF-8 JSON); pings are
//! answered by the WebSocket layer. A message longer than the limit is answered as on stdin
//! (-32004, `id: null`), and the connection is then closed with status 1009 (message too big):
//! the rest of such a message cannot be skipped. `exit` closes the connection (status 1000)
//! and ends nothing else.

use axum::extract::ws::{CloseFrame, Message, WebSocket, close_code};
use tokio::sync::{mpsc, watch};

use crate::server::framing::FrameError;
use crate::server::methods::{Shared, lock};
use crate::server::outgoing::Outgoing;
use crate::server::{Connection, Handled};

/// The reason of the close frame that answers `exit`.
const EXIT_REASON: &str = "exit";

/// The reason of the close frame after a message longer than the limit.
const TOO_LARGE_REASON: &str = "message too large";

/// A frame read, for the dispatch task.
type Frame = Result<Vec<u8>, FrameError>;

/// Serves one WebSocket connection on `state` until the peer closes it, `exit`, an error of
/// the connection, or the listener stops (`stopped` then holds the reason).
pub async fn run(
    mut socket: WebSocket,
    state: Shared,
    mut stopped: watch::Receiver<Option<&'static str>>,
) {
    let config = lock(&state).config().clone();
    let (out, mut queued) = Outgoing::new(config.max_pending_bytes);
    // One frame at a time: the next is read once the dispatch task has taken this one.
    let (frames, inbox) = mpsc::channel::<Frame>(1);
    let connection = Connection::new(state, out);
    let mut dispatch = tokio::spawn(dispatch(connection, inbox));
    let mut dispatching = true;
    let close = loop {
        tokio::select! {
            biased;
            Some((message, written)) = queued.recv() => {
                if send(&mut socket, message).await.is_err() {
                    break None;
                }
                drop(written);
            }
            _ = stopped.changed() => {
                let reason = stopped.borrow().unwrap_or("askd stopped");
                break Some((close_code::AWAY, reason));
            }
            _ = &mut dispatch, if dispatching => {
                // The dispatch task ends early only on `exit`.
                dispatching = false;
                break Some((close_code::NORMAL, EXIT_REASON));
            }
            // Waits for the dispatch task to take the frame before.
            _ = frames.reserve(), if frames.capacity() == 0 => {}
            frame = socket.recv(), if frames.capacity() > 0 => {
                let frame = match frame {
                    None => break None,
                    Some(Ok(Message::Text(text))) => Ok(Vec::from(text.as_str())),
                    Some(Ok(Message::Binary(bytes))) => Ok(Vec::from(bytes)),
                    // The peer's close is answered by the next read, which then ends the stream.
                    Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Close(_))) => continue,
                    Some(Err(e)) => {
                        if !is_too_large(e) {
                            break None;
                        }
                        let _ = frames
                            .send(Err(FrameError::TooLarge { limit: config.max_message_bytes }))
                            .await;
                        break Some((close_code::SIZE, TOO_LARGE_REASON));
                    }
                };
                let _ = frames.try_send(frame);
            }
        }
    };
    // The dispatch task ends the connection (what finished before the end still answers);
    // everything queued goes out, then the close frame.
    drop(frames);
    let mut ended = !dispatching;
    loop {
        tokio::select! {
            biased;
            message = queued.recv() => match message {
                Some((message, written)) => {
                    if send(&mut socket, message).await.is_err() {
                        return;
                    }
                    drop(written);
                }
                None => break,
            },
            _ = &mut dispatch, if !ended => ended = true,
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

/// Handles the frames of one connection in order until they end or `exit`, then ends the
/// connection.
async fn dispatch(mut connection: Connection, mut inbox: mpsc::Receiver<Frame>) {
    while let Some(frame) = inbox.recv().await {
        // Frames may come from the WebSocket layer's buffer without a read of the socket,
        // which is where the runtime would take its turn: a client flooding the server with
        // messages that are not answered must not keep the others waiting.
        tokio::task::consume_budget().await;
        match connection.handle(frame).await {
            Handled::Reply(reply) => connection.out.send(reply).await,
            Handled::Quiet => {}
            Handled::Exit => break,
        }
    }
    connection.finish().await;
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
