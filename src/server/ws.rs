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
//! Frames: a binary frame is read as a text frame is (its bytes must be UTF-8 JSON). Pings are
//! answered by the WebSocket layer, and each pong holds room in the same queue until it is
//! written: a client that sends pings and does not read its pongs fills the queue, and the
//! connection is then closed with status 1008 (policy violation) rather than read on. A message
//! longer than the limit is answered as on stdin (-32004, `id: null`), and the connection is then
//! closed with status 1009 (message too big): the rest of such a message cannot be skipped. Every
//! other violation of RFC 6455 closes the connection with a close frame and its status: 1007
//! (a text frame that is not UTF-8) or 1002 (any other), with the reason. `exit` closes the
//! connection (status 1000) and ends nothing else. A closing connection waits at most
//! [`CLOSE_WAIT`] for its peer to take what is left and the close frame, and to answer it.

use std::time::Duration;

use axum::extract::ws::{CloseCode, CloseFrame, Message, WebSocket, close_code};
use futures_util::{FutureExt, SinkExt};
use tokio::sync::{OwnedSemaphorePermit, mpsc, watch};
use tungstenite::error::ProtocolError;

use crate::server::framing::FrameError;
use crate::server::methods::{Shared, lock};
use crate::server::outgoing::Outgoing;
use crate::server::{Connection, Handled};

/// The reason of the close frame that answers `exit`.
const EXIT_REASON: &str = "exit";

/// The reason of the close frame after a message longer than the limit.
const TOO_LARGE_REASON: &str = "message too large";

/// The reason of the close frame of a client that does not read the pongs of its pings.
const NOT_READING_REASON: &str = "pongs past --max-pending-bytes: the client does not read";

/// The reason of the close frame after a text frame (or close reason) that is not UTF-8.
const NOT_UTF8_REASON: &str = "text that is not UTF-8";

/// How long a closing connection waits for its peer to take what is left and the close frame.
pub const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// How often pongs the socket could not take at once are tried again.
const PONG_RETRY: Duration = Duration::from_millis(50);

/// The bytes of a pong frame beside its payload (askd's frames are not masked).
const PONG_HEADER: usize = 2;

/// Why the connection closes: the status and reason of its close frame, and whether what is
/// queued for the peer is sent first.
struct Closing {
    code: CloseCode,
    reason: &'static str,
    drain: bool,
}

impl Closing {
    /// A close once everything queued is sent.
    fn after_queued(code: CloseCode, reason: &'static str) -> Closing {
        Closing {
            code,
            reason,
            drain: true,
        }
    }
}

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
    let connection = Connection::new(state, out.clone());
    // The room of the pongs answered since the socket was last seen flushed.
    let mut pongs: Option<OwnedSemaphorePermit> = None;
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
                // Sent means flushed: the pongs before it are written too.
                if let Some(room) = pongs.take() {
                    out.give_back(room);
                }
            }
            _ = stopped.changed() => {
                let reason = stopped.borrow().unwrap_or("askd stopped");
                break Some(Closing::after_queued(close_code::AWAY, reason));
            }
            _ = &mut dispatch, if dispatching => {
                // The dispatch task ends early only on `exit`.
                dispatching = false;
                break Some(Closing::after_queued(close_code::NORMAL, EXIT_REASON));
            }
            // Pongs the socket could not take at once: tried again, so that their room comes
            // back (and the notifications waiting for it go out) without another frame.
            _ = tokio::time::sleep(PONG_RETRY), if pongs.is_some() => {
                if socket.flush().now_or_never().is_some_and(|r| r.is_ok()) {
                    out.give_back(pongs.take().expect("held"));
                }
            }
            // Waits for the dispatch task to take the frame before.
            _ = frames.reserve(), if frames.capacity() == 0 => {}
            frame = socket.recv(), if frames.capacity() > 0 => {
                if let Some(Ok(Message::Ping(payload))) = &frame {
                    // The WebSocket layer has queued its pong: it holds room until written.
                    let Some(room) = out.try_reserve(payload.len() + PONG_HEADER) else {
                        break Some(Closing {
                            code: close_code::POLICY,
                            reason: NOT_READING_REASON,
                            drain: false,
                        });
                    };
                    match &mut pongs {
                        Some(held) => held.merge(room),
                        None => pongs = Some(room),
                    }
                }
                if pongs.is_some() && socket.flush().now_or_never().is_some_and(|r| r.is_ok()) {
                    out.give_back(pongs.take().expect("held"));
                }
                let frame = match frame {
                    None => break None,
                    Some(Ok(Message::Text(text))) => Ok(Vec::from(text.as_str())),
                    Some(Ok(Message::Binary(bytes))) => Ok(Vec::from(bytes)),
                    // The peer's close is answered by the next read, which then ends the stream.
                    Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Close(_))) => continue,
                    Some(Err(e)) => match violation(e) {
                        None => break None,
                        Some(Violation::TooLarge) => {
                            let _ = frames
                                .send(Err(FrameError::TooLarge { limit: config.max_message_bytes }))
                                .await;
                            break Some(Closing::after_queued(close_code::SIZE, TOO_LARGE_REASON));
                        }
                        Some(Violation::Close(code, reason)) => {
                            break Some(Closing::after_queued(code, reason));
                        }
                    },
                };
                let _ = frames.try_send(frame);
            }
        }
    };
    // The dispatch task ends the connection (what finished before the end still answers);
    // everything queued goes out, then the close frame, unless the peer does not read.
    drop(frames);
    // The queue ends once the dispatch task has dropped its end.
    drop(out);
    if let Some(closing) = &close
        && closing.code != close_code::NORMAL
        && closing.code != close_code::AWAY
    {
        tracing::warn!(
            code = closing.code,
            reason = closing.reason,
            "closed a WebSocket connection"
        );
    }
    let drain = close.as_ref().is_none_or(|closing| closing.drain);
    let ended = tokio::time::timeout(CLOSE_WAIT, async {
        let mut ended = !dispatching;
        if drain {
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
        }
        if let Some(closing) = close {
            let frame = CloseFrame {
                code: closing.code,
                reason: closing.reason.into(),
            };
            if socket.send(Message::Close(Some(frame))).await.is_ok() {
                // The closing handshake: what the peer sent meanwhile is read and dropped until
                // its close, so that closing the socket with it unread does not reset the
                // connection before the peer has read the close frame.
                while let Some(Ok(message)) = socket.recv().await {
                    if matches!(message, Message::Close(_)) {
                        break;
                    }
                }
            }
        }
    })
    .await;
    if ended.is_err() {
        tracing::debug!("a closing WebSocket connection's peer did not take what was left");
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

/// A violation of the WebSocket protocol, and how the connection closes on it.
enum Violation {
    /// A message (or frame) longer than the limit: answered with -32004, then closed with 1009.
    TooLarge,
    /// Closed with this status and reason.
    Close(CloseCode, &'static str),
}

/// The violation a read failed on; `None` when the peer is gone (nothing can be said to it).
fn violation(error: axum::Error) -> Option<Violation> {
    let error = error.into_inner().downcast::<tungstenite::Error>().ok()?;
    let reason = match *error {
        tungstenite::Error::Capacity(_) => return Some(Violation::TooLarge),
        tungstenite::Error::Utf8(_) => {
            return Some(Violation::Close(close_code::INVALID, NOT_UTF8_REASON));
        }
        tungstenite::Error::Protocol(violation) => match violation {
            ProtocolError::ResetWithoutClosingHandshake => return None,
            ProtocolError::NonZeroReservedBits => "a frame has reserved bits set",
            ProtocolError::UnmaskedFrameFromClient => "a frame from the client is not masked",
            ProtocolError::FragmentedControlFrame => "a control frame is fragmented",
            ProtocolError::ControlFrameTooBig => "a control frame is longer than 125 bytes",
            ProtocolError::UnknownControlFrameType(_)
            | ProtocolError::UnknownDataFrameType(_)
            | ProtocolError::InvalidOpcode(_) => "a frame has an unknown opcode",
            ProtocolError::UnexpectedContinueFrame => "a continuation frame continues nothing",
            ProtocolError::ExpectedFragment(_) => "a message began before the last one ended",
            ProtocolError::InvalidCloseSequence => "a close frame is malformed",
            ProtocolError::ReceivedAfterClosing => "a frame came after the close",
            _ => "a WebSocket protocol violation",
        },
        _ => return None,
    };
    Some(Violation::Close(close_code::PROTOCOL, reason))
}
