//! The WebSocket listener: one TCP port that serves the embedded browser client over HTTP/1.1
//! and takes JSON-RPC connections over WebSocket (RFC 6455) at `/rpc`, beside stdin/stdout.
//!
//! HTTP and the WebSocket protocol are axum's (hyper and tungstenite underneath); this module
//! only routes, checks who may connect, and hands each connection to the shell's WebSocket
//! loop (`server/ws.rs`).
//!
//! Who may connect, checked in this order before the upgrade, each refusal an HTTP status with
//! its reason as plain text:
//!
//! 1. the `Origin` of a browser page must be the listener's own or one given with
//!    `--allow-origin` (403, see [`Origins`]);
//! 2. the token must be presented, as `?token=` or `Authorization: Bearer` (401);
//! 3. at most `--max-connections` WebSocket connections are open at once (503);
//! 4. the request must be a WebSocket upgrade (426 without an `Upgrade` header, 400 or 405
//!    when the upgrade is malformed).
//!
//! Before any of these, the accept loop bounds the connections not yet authenticated and
//! closes those that do not finish their upgrade in time (`server/admission.rs`).
//!
//! The listener binds loopback addresses only, unless remote ones are allowed
//! ([`ListenOptions::allow_remote`]).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{ConnectInfo, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

use crate::server::access::{Origins, Token, presented_token};
use crate::server::admission::{Arrival, Gate, raise_descriptor_limit};
use crate::server::assets::asset;
use crate::server::browser::percent_encoded;
use crate::server::methods::{Shared, lock};
use crate::server::ws;

/// Most WebSocket connections open at once unless `--max-connections` says otherwise.
pub const DEFAULT_MAX_CONNECTIONS: usize = 16;

/// How long a stopping listener waits for its connections to send what they still hold and
/// close.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// The path of the WebSocket endpoint.
pub const RPC_PATH: &str = "/rpc";

/// What the pages of the listener may do: load their own files and connect to their own
/// origin, and nothing else (no inline script, no framing by another page, no referrer).
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// How to listen.
#[derive(Debug, Clone)]
pub struct ListenOptions {
    /// The address to bind (port 0: any free port).
    pub addr: SocketAddr,
    /// The token every connection must present.
    pub token: Token,
    /// Origins allowed besides the listener's own, normalised by
    /// [`crate::server::access::parse_origin`].
    pub allowed_origins: Vec<String>,
    /// Whether an address that is not a loopback one may be bound.
    pub allow_remote: bool,
    /// Most WebSocket connections open at once.
    pub max_connections: usize,
}

/// Why the listener could not start.
#[derive(Debug, thiserror::Error)]
pub enum ListenError {
    /// The address is not a loopback one and remote connections were not allowed.
    #[error(
        "{0} is not a loopback address: askd listens on other addresses only with --allow-remote"
    )]
    Remote(SocketAddr),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {error}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// What went wrong.
        error: std::io::Error,
    },
}

/// A bound listener, not serving yet.
pub struct Listener {
    tcp: tokio::net::TcpListener,
    local: SocketAddr,
    options: ListenOptions,
}

impl Listener {
    /// Binds the address of `options`, refusing a non-loopback one unless allowed.
    pub async fn bind(options: ListenOptions) -> Result<Listener, ListenError> {
        if !options.addr.ip().is_loopback() && !options.allow_remote {
            return Err(ListenError::Remote(options.addr));
        }
        // Every client is a descriptor: the limit is raised before anyone can connect.
        raise_descriptor_limit();
        let bind_error = |error| ListenError::Bind {
            addr: options.addr,
            error,
        };
        let tcp = tokio::net::TcpListener::bind(options.addr)
            .await
            .map_err(bind_error)?;
        let local = tcp.local_addr().map_err(bind_error)?;
        Ok(Listener {
            tcp,
            local,
            options,
        })
    }

    /// The address bound (with the real port when port 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The address of the browser client, with the token and, when given, the session to
    /// show. A listener bound to every address is named by its loopback address.
    pub fn page_url(&self, session: Option<&str>) -> String {
        let mut url = format!(
            "http://{}/?token={}",
            reachable(self.local),
            self.options.token.as_str()
        );
        if let Some(session) = session {
            url.push_str("&session=");
            url.push_str(&percent_encoded(session));
        }
        url
    }

    /// The browser client's page, without the token: `http://HOST:PORT/`.
    pub fn page_base(&self) -> String {
        format!("http://{}/", reachable(self.local))
    }

    /// The WebSocket endpoint, without the token: `ws://HOST:PORT/rpc`.
    pub fn socket_base(&self) -> String {
        format!("ws://{}{RPC_PATH}", reachable(self.local))
    }

    /// The token every connection presents.
    pub fn token(&self) -> &Token {
        &self.options.token
    }

    /// The address of the WebSocket endpoint, with the token.
    pub fn socket_url(&self) -> String {
        format!(
            "ws://{}{RPC_PATH}?token={}",
            reachable(self.local),
            self.options.token.as_str()
        )
    }

    /// Starts serving on the runtime, every connection on `state`.
    pub fn serve(self, state: Shared) -> Serving {
        let (stop, stopped) = watch::channel(None);
        let permits = self
            .options
            .max_connections
            .clamp(1, Semaphore::MAX_PERMITS);
        let app = Arc::new(App {
            state,
            token: self.options.token,
            origins: Origins::new(self.local, self.options.allowed_origins),
            connections: Arc::new(Semaphore::new(permits)),
            max_connections: permits,
            stopped,
        });
        let router = Router::new()
            .route(RPC_PATH, get(upgrade))
            .fallback(get(file))
            .with_state(app.clone());
        let mut quit = stop.subscribe();
        let gate = Gate::new(self.tcp);
        let service = router.into_make_service_with_connect_info::<Arrival>();
        let task = tokio::spawn(async move {
            let serving = axum::serve(gate, service).with_graceful_shutdown(async move {
                let _ = quit.changed().await;
            });
            if let Err(e) = serving.await {
                tracing::error!("the listener stopped: {e}");
            }
        });
        Serving { app, stop, task }
    }
}

/// A listener serving.
pub struct Serving {
    app: Arc<App>,
    stop: watch::Sender<Option<&'static str>>,
    task: tokio::task::JoinHandle<()>,
}

impl Serving {
    /// Stops taking connections, and closes the open ones with status 1001 (going away) and
    /// `reason`, once each has sent what it holds; waits a short while for them.
    pub async fn stop(self, reason: &'static str) {
        let _ = self.stop.send(Some(reason));
        let all = u32::try_from(self.app.max_connections).unwrap_or(u32::MAX);
        let _ = tokio::time::timeout(CLOSE_GRACE, async {
            let _ = self.app.connections.acquire_many(all).await;
            let _ = self.task.await;
        })
        .await;
    }
}

/// What the routes share.
struct App {
    state: Shared,
    token: Token,
    origins: Origins,
    /// A permit per open WebSocket connection.
    connections: Arc<Semaphore>,
    max_connections: usize,
    /// Set once the listener stops: the reason its connections are closed with.
    stopped: watch::Receiver<Option<&'static str>>,
}

/// The query of a connection's address.
#[derive(Deserialize)]
struct RpcQuery {
    token: Option<String>,
}

/// A refusal: an HTTP status and its reason in plain text.
fn refuse(status: StatusCode, reason: &str) -> Response {
    tracing::info!(%status, reason, "refused a connection");
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("askd: {reason}\n"),
    )
        .into_response()
}

/// `GET /rpc`: the checks, then the upgrade to a WebSocket connection.
async fn upgrade(
    State(app): State<Arc<App>>,
    ConnectInfo(arrival): ConnectInfo<Arrival>,
    headers: HeaderMap,
    query: Result<Query<RpcQuery>, axum::extract::rejection::QueryRejection>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    // A request naming two origins says nothing trustworthy about where it comes from.
    if headers.get_all(header::ORIGIN).iter().nth(1).is_some() {
        return refuse(
            StatusCode::BAD_REQUEST,
            "the request has more than one Origin header; send one",
        );
    }
    let origin = headers
        .get(header::ORIGIN)
        .map(|v| v.to_str().unwrap_or(""));
    if !app.origins.allows(origin, text(header::HOST)) {
        return refuse(
            StatusCode::FORBIDDEN,
            &format!(
                "the origin {} may not connect; allow it with --allow-origin",
                origin.unwrap_or("")
            ),
        );
    }
    let query_token = query.as_ref().ok().and_then(|q| q.token.as_deref());
    let authorized = presented_token(text(header::AUTHORIZATION), query_token)
        .is_some_and(|token| app.token.matches(token));
    if !authorized {
        let mut response = refuse(
            StatusCode::UNAUTHORIZED,
            "the token is missing or wrong: give the one askd printed, as ?token= or Authorization: Bearer",
        );
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return response;
    }
    let Ok(permit) = app.connections.clone().try_acquire_owned() else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            &format!(
                "too many connections: the limit is {}; close one first",
                app.max_connections
            ),
        );
    };
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        Err(_) if !headers.contains_key(header::UPGRADE) => {
            return refuse(
                StatusCode::UPGRADE_REQUIRED,
                "this address takes WebSocket connections only",
            );
        }
        Err(rejection) => {
            return refuse(
                rejection.status(),
                &format!("not a WebSocket upgrade: {}", rejection.body_text()),
            );
        }
    };
    // A `restore` may be larger than other messages; the connection checks the others.
    let limit = lock(&app.state).config().max_restore_message_bytes();
    let state = app.state.clone();
    let stopped = app.stopped.clone();
    arrival.ticket.admit();
    upgrade
        .max_message_size(limit)
        .max_frame_size(limit)
        .on_failed_upgrade(|e| tracing::debug!("a WebSocket upgrade failed: {e}"))
        .on_upgrade(move |socket| connection(socket, state, stopped, permit))
}

/// One WebSocket connection, holding its permit until it ends.
async fn connection(
    socket: axum::extract::ws::WebSocket,
    state: Shared,
    stopped: watch::Receiver<Option<&'static str>>,
    permit: OwnedSemaphorePermit,
) {
    ws::run(socket, state, stopped).await;
    drop(permit);
}

/// `GET` of anything else: a file of the browser client, or 404.
async fn file(uri: Uri) -> Response {
    let Some(asset) = asset(uri.path()) else {
        return refuse(StatusCode::NOT_FOUND, "no such file");
    };
    (
        [
            (header::CONTENT_TYPE, asset.content_type),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        ],
        asset.body,
    )
        .into_response()
}

/// The address to print for a bound one: a listener on every address is reached locally at
/// its loopback address.
fn reachable(local: SocketAddr) -> SocketAddr {
    match local.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), local.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), local.port())
        }
        _ => local,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_address_is_printed_as_its_loopback_one() {
        let named = |addr: &str| reachable(addr.parse().unwrap()).to_string();
        assert_eq!(named("0.0.0.0:80"), "127.0.0.1:80");
        assert_eq!(named("[::]:80"), "[::1]:80");
        assert_eq!(named("192.168.1.2:80"), "192.168.1.2:80");
    }
}
