//! The bridge's HTTP client of an opencode server: plain HTTP/1.1 (hyper), basic auth when the
//! server has a password, JSON requests with a time limit, and the server-sent events of its
//! event stream (decoded by `sse-stream`).

use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use sse_stream::{Sse, SseStream};

/// How long a request other than the event stream may take, answer included.
pub const REQUEST_TIME_LIMIT: Duration = Duration::from_secs(30);

/// How long the event stream may take to start (a server still starting may take the
/// connection and answer nothing).
pub const STREAM_START_LIMIT: Duration = Duration::from_secs(10);

/// Largest answer body read from the server (a list of pending questions, an error).
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Why a request to the server failed.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The server could not be reached, or the connection broke.
    #[error("cannot reach {url}: {reason}")]
    Unreachable {
        /// The address asked.
        url: String,
        /// What failed.
        reason: String,
    },
    /// The server asks for a password (401), or refused the one given.
    #[error("{url} refused the request (401): {hint}")]
    Unauthorized {
        /// The address asked.
        url: String,
        /// What to do about it.
        hint: &'static str,
    },
    /// The server has no such thing (404).
    #[error("{url}: not found (404): {body}")]
    NotFound {
        /// The address asked.
        url: String,
        /// The server's words.
        body: String,
    },
    /// Any other status than success.
    #[error("{url} answered {status}: {body}")]
    Status {
        /// The address asked.
        url: String,
        /// The status.
        status: StatusCode,
        /// The server's words.
        body: String,
    },
    /// The answer was not what the server documents.
    #[error("{url} answered something unexpected: {reason}")]
    Unexpected {
        /// The address asked.
        url: String,
        /// What was wrong.
        reason: String,
    },
}

impl HttpError {
    /// Whether trying again later may succeed (the server is down or restarting).
    pub fn is_transient(&self) -> bool {
        match self {
            HttpError::Unreachable { .. } => true,
            HttpError::Status { status, .. } => status.is_server_error(),
            _ => false,
        }
    }
}

/// The hint of a 401 without credentials.
const NEEDS_PASSWORD: &str = "the server has a password: set OPENCODE_SERVER_PASSWORD (and \
     OPENCODE_SERVER_USERNAME when the user name is not `opencode`) as for the server";
/// The hint of a 401 with credentials.
const WRONG_PASSWORD: &str = "the user name or password is wrong: set OPENCODE_SERVER_PASSWORD \
     and OPENCODE_SERVER_USERNAME as for the server";

/// The user name of opencode's basic auth when `OPENCODE_SERVER_USERNAME` is not set.
pub const DEFAULT_USERNAME: &str = "opencode";

/// Basic-auth credentials.
#[derive(Clone)]
pub struct Credentials {
    /// The user name.
    pub username: String,
    /// The password.
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.username)
            .field("password", &"…")
            .finish()
    }
}

impl Credentials {
    /// What opencode's own clients read: `OPENCODE_SERVER_PASSWORD` (none when unset or empty)
    /// and `OPENCODE_SERVER_USERNAME` (default `opencode`).
    pub fn from_env() -> Option<Credentials> {
        let password = std::env::var("OPENCODE_SERVER_PASSWORD")
            .ok()
            .filter(|p| !p.is_empty())?;
        let username = std::env::var("OPENCODE_SERVER_USERNAME")
            .ok()
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| DEFAULT_USERNAME.to_owned());
        Some(Credentials { username, password })
    }

    /// The `Authorization` header's value.
    fn header(&self) -> Option<HeaderValue> {
        let token = base64::engine::general_purpose::STANDARD
            .encode(format!("{}:{}", self.username, self.password));
        let mut value = HeaderValue::from_str(&format!("Basic {token}")).ok()?;
        value.set_sensitive(true);
        Some(value)
    }
}

/// The server's base address, checked: `http://HOST[:PORT][/PREFIX]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrl {
    /// `http://host:port`, without a trailing slash.
    origin: String,
    /// The path prefix, without a trailing slash (empty for none).
    prefix: String,
}

impl BaseUrl {
    /// Parses `--url`.
    pub fn parse(text: &str) -> Result<BaseUrl, String> {
        let uri: Uri = text
            .parse()
            .map_err(|e| format!("{text:?} is not a URL: {e}"))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") => {
                return Err(format!(
                    "{text:?}: askd bridge speaks plain HTTP to a server on this machine \
                     (use http://, or a tunnel that ends on this machine)"
                ));
            }
            _ => return Err(format!("{text:?} is not an http:// URL")),
        }
        let authority = uri
            .authority()
            .ok_or_else(|| format!("{text:?} names no host"))?;
        if authority.as_str().contains('@') {
            return Err(format!(
                "{text:?}: give the password in OPENCODE_SERVER_PASSWORD, not in the URL"
            ));
        }
        if uri.query().is_some() {
            return Err(format!(
                "{text:?}: a query is not part of a server's address"
            ));
        }
        Ok(BaseUrl {
            origin: format!("http://{authority}"),
            prefix: uri.path().trim_end_matches('/').to_owned(),
        })
    }

    /// The address of `path` (which starts with `/`) with `query` pairs, percent-encoded.
    pub fn join(&self, path: &str, query: &[(&str, &str)]) -> String {
        let mut url = format!("{}{}{}", self.origin, self.prefix, path);
        for (i, (name, value)) in query.iter().enumerate() {
            url.push(if i == 0 { '?' } else { '&' });
            url.push_str(&encode(name));
            url.push('=');
            url.push_str(&encode(value));
        }
        url
    }
}

impl std::fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.origin, self.prefix)
    }
}

/// Percent-encodes a query component (RFC 3986 unreserved characters stay).
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// An HTTP client of one opencode server.
#[derive(Clone)]
pub struct Server {
    client: Client<HttpConnector, Full<Bytes>>,
    base: BaseUrl,
    auth: Option<HeaderValue>,
}

/// A stream of server-sent events, each decoded from its block.
pub type Events = futures_util::stream::BoxStream<'static, Result<Sse, sse_stream::Error>>;

impl Server {
    /// A client of the server at `base`, with `credentials` when it has a password.
    pub fn new(base: BaseUrl, credentials: Option<&Credentials>) -> Server {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        connector.set_connect_timeout(Some(Duration::from_secs(10)));
        Server {
            client: Client::builder(TokioExecutor::new()).build(connector),
            base,
            auth: credentials.and_then(Credentials::header),
        }
    }

    /// The server's base address.
    pub fn base(&self) -> &BaseUrl {
        &self.base
    }

    /// Sends a request and waits for the answer's head.
    async fn send(
        &self,
        method: Method,
        url: &str,
        body: Option<&Value>,
        accept: &'static str,
    ) -> Result<hyper::Response<Incoming>, HttpError> {
        let unreachable = |reason: String| HttpError::Unreachable {
            url: url.to_owned(),
            reason,
        };
        let mut request = Request::builder()
            .method(method)
            .uri(url)
            .header(ACCEPT, accept);
        if let Some(auth) = &self.auth {
            request = request.header(AUTHORIZATION, auth.clone());
        }
        let body = match body {
            Some(value) => {
                request = request.header(CONTENT_TYPE, "application/json");
                Full::new(Bytes::from(value.to_string()))
            }
            None => Full::new(Bytes::new()),
        };
        let request = request
            .body(body)
            .map_err(|e| unreachable(format!("cannot make the request: {e}")))?;
        let response = self
            .client
            .request(request)
            .await
            .map_err(|e| unreachable(describe(&e)))?;
        match response.status() {
            status if status.is_success() => Ok(response),
            StatusCode::UNAUTHORIZED => Err(HttpError::Unauthorized {
                url: url.to_owned(),
                hint: if self.auth.is_some() {
                    WRONG_PASSWORD
                } else {
                    NEEDS_PASSWORD
                },
            }),
            status => {
                let body = read_text(response.into_body()).await.unwrap_or_default();
                let body = shorten(&body);
                Err(if status == StatusCode::NOT_FOUND {
                    HttpError::NotFound {
                        url: url.to_owned(),
                        body,
                    }
                } else {
                    HttpError::Status {
                        url: url.to_owned(),
                        status,
                        body,
                    }
                })
            }
        }
    }

    /// A JSON request, its answer parsed, within [`REQUEST_TIME_LIMIT`].
    pub async fn json(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, &str)],
        body: Option<&Value>,
    ) -> Result<Value, HttpError> {
        let url = self.base.join(path, query);
        let exchange = async {
            let response = self.send(method, &url, body, "application/json").await?;
            let text =
                read_text(response.into_body())
                    .await
                    .map_err(|reason| HttpError::Unreachable {
                        url: url.clone(),
                        reason,
                    })?;
            serde_json::from_str(&text).map_err(|e| HttpError::Unexpected {
                url: url.clone(),
                reason: format!("not JSON ({e}): {}", shorten(&text)),
            })
        };
        match tokio::time::timeout(REQUEST_TIME_LIMIT, exchange).await {
            Ok(answer) => answer,
            Err(_) => Err(HttpError::Unreachable {
                url,
                reason: format!("no answer within {} seconds", REQUEST_TIME_LIMIT.as_secs()),
            }),
        }
    }

    /// Opens the event stream at `path`: its events as they come, until the connection ends.
    pub async fn events(&self, path: &str) -> Result<Events, HttpError> {
        let url = self.base.join(path, &[]);
        let response = tokio::time::timeout(
            STREAM_START_LIMIT,
            self.send(Method::GET, &url, None, "text/event-stream"),
        )
        .await
        .map_err(|_| HttpError::Unreachable {
            url: url.clone(),
            reason: "the event stream did not start".to_owned(),
        })??;
        Ok(SseStream::new(response.into_body()).boxed())
    }
}

/// Reads a body as text, at most [`MAX_BODY_BYTES`].
async fn read_text(body: Incoming) -> Result<String, String> {
    let bytes = Limited::new(body, MAX_BODY_BYTES)
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    String::from_utf8(bytes.to_vec()).map_err(|_| "the answer is not UTF-8".to_owned())
}

/// An error and its causes, on one line.
fn describe(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let words = cause.to_string();
        if !text.contains(&words) {
            text.push_str(": ");
            text.push_str(&words);
        }
        source = cause.source();
    }
    text
}

/// A body cut to 300 characters for a message.
fn shorten(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_checked() {
        let base = BaseUrl::parse("http://127.0.0.1:4096/").expect("valid");
        assert_eq!(base.to_string(), "http://127.0.0.1:4096");
        assert_eq!(
            base.join("/question/que_1/reply", &[("directory", "/tmp/a b&c")]),
            "http://127.0.0.1:4096/question/que_1/reply?directory=/tmp/a%20b%26c"
        );
        let prefixed = BaseUrl::parse("http://localhost:8080/oc").expect("valid");
        assert_eq!(
            prefixed.join("/event", &[]),
            "http://localhost:8080/oc/event"
        );
        assert_eq!(
            BaseUrl::parse("https://127.0.0.1:4096").unwrap_err(),
            "\"https://127.0.0.1:4096\": askd bridge speaks plain HTTP to a server on this \
             machine (use http://, or a tunnel that ends on this machine)"
        );
        assert_eq!(
            BaseUrl::parse("127.0.0.1:4096").unwrap_err(),
            "\"127.0.0.1:4096\" is not an http:// URL"
        );
        assert_eq!(
            BaseUrl::parse("http://opencode:pw@127.0.0.1:4096").unwrap_err(),
            "\"http://opencode:pw@127.0.0.1:4096\": give the password in \
             OPENCODE_SERVER_PASSWORD, not in the URL"
        );
        assert_eq!(
            BaseUrl::parse("http://127.0.0.1:4096/?x=1").unwrap_err(),
            "\"http://127.0.0.1:4096/?x=1\": a query is not part of a server's address"
        );
    }

    #[test]
    fn basic_auth_is_user_colon_password_in_base64() {
        let credentials = Credentials {
            username: "opencode".to_owned(),
            password: "s3cret".to_owned(),
        };
        assert_eq!(
            credentials
                .header()
                .expect("a header")
                .to_str()
                .expect("ASCII"),
            "Basic b3BlbmNvZGU6czNjcmV0"
        );
        assert_eq!(
            format!("{credentials:?}"),
            "Credentials { username: \"opencode\", password: \"…\" }"
        );
    }
}
