//! Who gets a descriptor: the listener's accept loop, bounded so that peers who never finish
//! an upgrade cannot take the descriptors the state directory and the real clients need.
//!
//! - At start the soft limit of open descriptors (`RLIMIT_NOFILE`) is raised to the hard one
//!   ([`raise_descriptor_limit`]); every listener and the hub do it.
//! - The listener's sockets share what is left of that limit once the descriptors open at start
//!   and [`RESERVED_DESCRIPTORS`] (the state directory's files, the log, the runtime) are set
//!   aside: past it, a new connection is closed at once.
//! - At most [`MAX_UNAUTHENTICATED`] connections at once may be waiting to be authenticated
//!   (every connection is, from its accept until its WebSocket upgrade is accepted): past it, a
//!   new connection is closed at once, without a byte read.
//! - A connection that has not finished its upgrade within [`UPGRADE_TIMEOUT`] of its accept
//!   is closed (a page's files are served within that time too: a browser connects again).
//!
//! A connection is let through by [`Ticket::admit`], which the upgrade calls once the token
//! and the connection limit have passed.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::serve::IncomingStream;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;

/// How long a connection has, from its accept, to finish its WebSocket upgrade; one that has
/// not by then (half a request, a page's connection kept alive, a refused upgrade) is closed.
pub const UPGRADE_TIMEOUT: Duration = Duration::from_secs(5);

/// Most connections not yet authenticated at once; past it, new ones are closed at once.
pub const MAX_UNAUTHENTICATED: usize = 64;

/// Descriptors the listener leaves free for the state directory, the log and the runtime.
pub const RESERVED_DESCRIPTORS: u64 = 64;

/// How long the accept loop pauses after an accept that failed for want of descriptors.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// Raises the soft limit of open descriptors to the hard one (every agent and client is a
/// connection), and answers the soft limit then in force (`None` when it cannot be read).
pub fn raise_descriptor_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the struct given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return None;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    Some(limit.rlim_cur)
}

/// The descriptors this process has open (those of `/proc/self/fd`, less the one reading it);
/// `None` where that folder cannot be read.
fn open_descriptors() -> Option<u64> {
    let entries = std::fs::read_dir("/proc/self/fd").ok()?;
    Some((entries.count() as u64).saturating_sub(1))
}

/// How many sockets the listener may hold: the soft limit (raised first) less the descriptors
/// open now and [`RESERVED_DESCRIPTORS`]; at least one.
pub fn socket_budget() -> usize {
    let Some(limit) = raise_descriptor_limit() else {
        return Semaphore::MAX_PERMITS;
    };
    let open = open_descriptors().unwrap_or(0);
    let budget = limit.saturating_sub(open + RESERVED_DESCRIPTORS).max(1);
    usize::try_from(budget)
        .unwrap_or(usize::MAX)
        .min(Semaphore::MAX_PERMITS)
}

/// The listener's accept loop as axum serves it: each connection accepted holds a socket of
/// the budget for its life, and a place among those not yet authenticated until it is.
pub struct Gate {
    tcp: TcpListener,
    sockets: Arc<Semaphore>,
    unauthenticated: Arc<Semaphore>,
    /// Whether the last connection was closed at once (said once per run of them).
    refusing: bool,
    /// Whether the last accept failed (said once per run of them).
    failing: bool,
}

impl Gate {
    /// The gate of `tcp`, with [`socket_budget`] sockets.
    pub fn new(tcp: TcpListener) -> Gate {
        let sockets = socket_budget();
        let unauthenticated = MAX_UNAUTHENTICATED.min(sockets);
        tracing::debug!(sockets, unauthenticated, "the listener's descriptors");
        Gate {
            tcp,
            sockets: Arc::new(Semaphore::new(sockets)),
            unauthenticated: Arc::new(Semaphore::new(unauthenticated)),
            refusing: false,
            failing: false,
        }
    }

    /// The permits of a new connection, or `None` when it is to be closed at once.
    fn places(&self) -> Option<(OwnedSemaphorePermit, OwnedSemaphorePermit)> {
        let socket = self.sockets.clone().try_acquire_owned().ok()?;
        let waiting = self.unauthenticated.clone().try_acquire_owned().ok()?;
        Some((socket, waiting))
    }
}

impl axum::serve::Listener for Gate {
    type Io = Admitted;
    type Addr = Arrival;

    async fn accept(&mut self) -> (Admitted, Arrival) {
        loop {
            let (stream, addr) = match self.tcp.accept().await {
                Ok(accepted) => {
                    self.failing = false;
                    accepted
                }
                Err(e) => {
                    if !self.failing {
                        tracing::warn!("the listener cannot accept a connection: {e}");
                    }
                    self.failing = true;
                    if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
                        || e.kind() == io::ErrorKind::OutOfMemory
                    {
                        tokio::time::sleep(ACCEPT_PAUSE).await;
                    }
                    continue;
                }
            };
            let Some((socket, waiting)) = self.places() else {
                if !self.refusing {
                    tracing::warn!(
                        "closing new connections at once: {MAX_UNAUTHENTICATED} are waiting to be authenticated (the limit), or the listener's descriptors are used up"
                    );
                }
                self.refusing = true;
                drop(stream);
                continue;
            };
            self.refusing = false;
            let ticket = Ticket::new(waiting);
            let io = Admitted {
                stream,
                ticket: ticket.clone(),
                deadline: Some(Box::pin(tokio::time::sleep(UPGRADE_TIMEOUT))),
                _socket: socket,
            };
            return (io, Arrival { addr, ticket });
        }
    }

    fn local_addr(&self) -> io::Result<Arrival> {
        Ok(Arrival {
            addr: self.tcp.local_addr()?,
            ticket: Ticket::default(),
        })
    }
}

/// Where a connection comes from, and its ticket: what a request's handler knows of its
/// connection (axum's `ConnectInfo`).
#[derive(Debug, Clone)]
pub struct Arrival {
    /// The peer's address.
    pub addr: SocketAddr,
    /// The connection's place among those not yet authenticated.
    pub ticket: Ticket,
}

impl Connected<IncomingStream<'_, Gate>> for Arrival {
    fn connect_info(stream: IncomingStream<'_, Gate>) -> Arrival {
        stream.remote_addr().clone()
    }
}

/// A connection's place among those not yet authenticated, given up by [`Ticket::admit`].
#[derive(Debug, Clone, Default)]
pub struct Ticket(Arc<TicketState>);

#[derive(Debug, Default)]
struct TicketState {
    admitted: AtomicBool,
    waiting: Mutex<Option<OwnedSemaphorePermit>>,
}

impl Ticket {
    fn new(waiting: OwnedSemaphorePermit) -> Ticket {
        Ticket(Arc::new(TicketState {
            admitted: AtomicBool::new(false),
            waiting: Mutex::new(Some(waiting)),
        }))
    }

    /// The connection is authenticated: it no longer counts among those waiting, and no
    /// longer has a time limit.
    pub fn admit(&self) {
        self.0.admitted.store(true, Ordering::Release);
        let waiting = self
            .0
            .waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        drop(waiting);
    }

    fn admitted(&self) -> bool {
        self.0.admitted.load(Ordering::Acquire)
    }
}

/// An accepted connection: its socket, which fails with `TimedOut` once [`UPGRADE_TIMEOUT`]
/// has passed without its ticket admitted.
pub struct Admitted {
    stream: TcpStream,
    ticket: Ticket,
    deadline: Option<Pin<Box<Sleep>>>,
    _socket: OwnedSemaphorePermit,
}

impl Admitted {
    /// Whether the connection's time to finish its upgrade is over (the timer woken with `cx`
    /// otherwise).
    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(deadline) = self.deadline.as_mut() else {
            return false;
        };
        if self.ticket.admitted() {
            self.deadline = None;
            return false;
        }
        if deadline.as_mut().poll(cx).is_ready() {
            tracing::debug!("closed a connection that did not finish its upgrade in time");
            return true;
        }
        false
    }
}

/// The error of a connection whose time is over.
fn timed_out() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "the connection did not finish its WebSocket upgrade in time",
    )
}

impl AsyncRead for Admitted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.expired(cx) {
            return Poll::Ready(Err(timed_out()));
        }
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Admitted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.expired(cx) {
            return Poll::Ready(Err(timed_out()));
        }
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.expired(cx) {
            return Poll::Ready(Err(timed_out()));
        }
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
