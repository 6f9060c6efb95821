//! What waits to be written to one connection's peer: its replies and notifications, in a
//! queue bounded in bytes (`--max-pending-bytes`), whose sender waits while it is full.

use std::sync::Arc;

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc};

/// A message waiting for the writer holds its room in the queue until the writer drops this,
/// once the message is written.
pub struct Queued {
    _room: OwnedSemaphorePermit,
    written: Arc<Notify>,
}

impl Drop for Queued {
    fn drop(&mut self) {
        self.written.notify_waiters();
    }
}

/// The receiving end of an [`Outgoing`] queue: each message with its room, which the writer
/// drops once the message is written.
pub type Queue = mpsc::UnboundedReceiver<(Vec<u8>, Queued)>;

/// The replies (and notifications) waiting for the writer, bounded in bytes: a message holds
/// permits for its bytes (all of them, for one larger than the bound) until it is written.
#[derive(Clone)]
pub struct Outgoing {
    queue: mpsc::UnboundedSender<(Vec<u8>, Queued)>,
    room: Arc<Semaphore>,
    bound: usize,
    /// Told whenever a message has been written.
    written: Arc<Notify>,
}

impl Outgoing {
    /// A queue of at most `bound` bytes, and its receiving end.
    pub fn new(bound: usize) -> (Outgoing, Queue) {
        let bound = bound.clamp(1, u32::MAX as usize);
        let (queue, rx) = mpsc::unbounded_channel();
        let outgoing = Outgoing {
            queue,
            room: Arc::new(Semaphore::new(bound)),
            bound,
            written: Arc::default(),
        };
        (outgoing, rx)
    }

    /// Waits until everything queued has been written.
    pub async fn idle(&self) {
        loop {
            let written = self.written.notified();
            if self.room.available_permits() >= self.bound {
                return;
            }
            written.await;
        }
    }

    /// Takes room for `bytes` that are written to the peer beside the queue (the pongs the
    /// WebSocket layer answers pings with), if there is room now; `None` when the queue is at
    /// its bound. The room is given back with [`Outgoing::give_back`] once they are written.
    pub fn try_reserve(&self, bytes: usize) -> Option<OwnedSemaphorePermit> {
        let permits = bytes.clamp(1, self.bound) as u32;
        self.room.clone().try_acquire_many_owned(permits).ok()
    }

    /// Gives back the room [`Outgoing::try_reserve`] took, its bytes written.
    pub fn give_back(&self, room: OwnedSemaphorePermit) {
        drop(room);
        self.written.notify_waiters();
    }

    /// Queues a reply once there is room for it: until then the caller (and so the reading of
    /// input) waits.
    pub async fn send(&self, message: Vec<u8>) {
        let permits = message.len().clamp(1, self.bound) as u32;
        let permit = match self.room.clone().try_acquire_many_owned(permits) {
            Ok(permit) => permit,
            Err(_) => {
                tracing::debug!(
                    waiting = self.bound - self.room.available_permits(),
                    "input paused: the replies waiting for the client to read them are at --max-pending-bytes"
                );
                match self.room.clone().acquire_many_owned(permits).await {
                    Ok(permit) => permit,
                    Err(_) => return,
                }
            }
        };
        let queued = Queued {
            _room: permit,
            written: self.written.clone(),
        };
        let _ = self.queue.send((message, queued));
    }
}
