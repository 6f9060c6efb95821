//! Who may use the WebSocket listener: the token every connection presents, and the origins a
//! browser page may connect from.
//!
//! The token is random per start ([`Token::generate`]) unless a token file names one
//! ([`Token::from_file`], which creates the file with a fresh token, readable by its owner only,
//! when it is missing). A connection presents it as `?token=` in its URL or as
//! `Authorization: Bearer <token>`, and it is compared in constant time.
//!
//! A browser names the page a connection comes from in its `Origin` header; a connection from
//! a page of another origin than the listener's own, or than those allowed with
//! `--allow-origin`, is refused. Clients that are not browsers send no `Origin` and need only
//! the token.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::net::SocketAddr;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Bytes of randomness in a generated token (written as twice as many hex digits).
const TOKEN_BYTES: usize = 32;

/// Fewest characters of a token read from a file.
pub const MIN_TOKEN_CHARS: usize = 16;

/// Most characters of a token read from a file.
pub const MAX_TOKEN_CHARS: usize = 1024;

/// The secret a connection must present.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    /// Never prints the secret itself.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(…)")
    }
}

/// Why a token could not be had.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// The system's random source failed.
    #[error("cannot make a random token: {0}")]
    Random(String),
    /// The token file could not be read or created.
    #[error("token file {path}: {error}")]
    File {
        /// The file given.
        path: String,
        /// What went wrong.
        error: io::Error,
    },
    /// The token file holds something that is not a usable token.
    #[error(
        "token file {path}: {reason}; a token is one line of {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} characters from A-Z a-z 0-9 - . _ ~"
    )]
    Malformed {
        /// The file given.
        path: String,
        /// What is wrong with its contents.
        reason: &'static str,
    },
}

impl Token {
    /// A fresh random token: 32 bytes from the operating system's random source, in hex.
    pub fn generate() -> Result<Token, TokenError> {
        let mut bytes = [0u8; TOKEN_BYTES];
        getrandom::fill(&mut bytes).map_err(|e| TokenError::Random(e.to_string()))?;
        Ok(Token(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// The token of a token file: read when the file exists, otherwise generated and written
    /// to a new file that only its owner may read or write (mode 0600). A file that others may
    /// read is used, with a warning in the log.
    pub fn from_file(path: &Path) -> Result<Token, TokenError> {
        let file_error = |error| TokenError::File {
            path: path.display().to_string(),
            error,
        };
        match fs::read_to_string(path) {
            Ok(text) => {
                if let Ok(metadata) = fs::metadata(path)
                    && metadata.permissions().mode() & 0o077 != 0
                {
                    tracing::warn!(
                        path = %path.display(),
                        "the token file may be read by other users; make it mode 0600"
                    );
                }
                Token::parse(&text).map_err(|reason| TokenError::Malformed {
                    path: path.display().to_string(),
                    reason,
                })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let token = Token::generate()?;
                let mut file = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(path)
                    .map_err(file_error)?;
                writeln!(file, "{}", token.0).map_err(file_error)?;
                Ok(token)
            }
            Err(e) => Err(file_error(e)),
        }
    }

    /// A token as a file holds it: one line (surrounding white space ignored) of URL-safe
    /// characters, so that it goes into an address unchanged.
    pub fn parse(text: &str) -> Result<Token, &'static str> {
        let token = text.trim();
        if token.is_empty() {
            return Err("it is empty");
        }
        if !token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'))
        {
            return Err("it holds a character that is not allowed");
        }
        let chars = token.chars().count();
        if chars < MIN_TOKEN_CHARS {
            return Err("it is too short");
        }
        if chars > MAX_TOKEN_CHARS {
            return Err("it is too long");
        }
        Ok(Token(token.to_owned()))
    }

    /// The token itself, for the address the listener prints.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `presented` is the token, in a time that does not depend on where they differ.
    pub fn matches(&self, presented: &str) -> bool {
        let (expected, presented) = (self.0.as_bytes(), presented.as_bytes());
        if expected.len() != presented.len() {
            return false;
        }
        let difference = expected
            .iter()
            .zip(presented)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        std::hint::black_box(difference) == 0
    }
}

/// The token a request presents: `Authorization: Bearer <token>` if it has one, else the
/// `token` of its query.
pub fn presented_token<'a>(
    authorization: Option<&'a str>,
    query_token: Option<&'a str>,
) -> Option<&'a str> {
    authorization
        .and_then(|value| {
            let (scheme, token) = value.trim().split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("bearer")
                .then_some(token.trim())
        })
        .or(query_token)
}

/// An origin given with `--allow-origin`, checked and normalised: `scheme://host[:port]`,
/// lower case, without a trailing `/`.
pub fn parse_origin(text: &str) -> Result<String, String> {
    let origin = text.trim().trim_end_matches('/').to_ascii_lowercase();
    let Some((scheme, host)) = origin.split_once("://") else {
        return Err(format!(
            "{text:?} is not an origin: give scheme://host[:port], e.g. http://localhost:8080"
        ));
    };
    if !matches!(scheme, "http" | "https") {
        return Err(format!(
            "{text:?} is not an origin: the scheme must be http or https"
        ));
    }
    if host.is_empty() || host.contains(['/', '?', '#', '@', ' ']) {
        return Err(format!(
            "{text:?} is not an origin: give scheme://host[:port], without a path"
        ));
    }
    Ok(origin)
}

/// Which origins may open connections: the listener's own, and those allowed besides.
#[derive(Debug, Clone)]
pub struct Origins {
    /// The address the listener is bound to (its port is the real one).
    local: SocketAddr,
    /// Origins allowed besides the listener's own, normalised by [`parse_origin`].
    allowed: Vec<String>,
}

impl Origins {
    /// The origins of a listener bound to `local`, with `allowed` ones besides.
    pub fn new(local: SocketAddr, allowed: Vec<String>) -> Origins {
        Origins { local, allowed }
    }

    /// Whether a request with this `Origin` header, sent to this `Host`, may connect. No
    /// `Origin` (a client that is not a browser) may; `null` (a sandboxed or local page) may
    /// not.
    ///
    /// The listener's own origin is `http://` with a name of its address: its IP address
    /// (IPv6 in brackets) and its port, and `localhost` with its port when the address is a
    /// loopback one. A listener bound to every address (`0.0.0.0`, `::`) takes the host the
    /// request was sent to (its `Host` header) with its port.
    pub fn allows(&self, origin: Option<&str>, host: Option<&str>) -> bool {
        let Some(origin) = origin else {
            return true;
        };
        let origin = origin.trim().to_ascii_lowercase();
        if self.allowed.contains(&origin) {
            return true;
        }
        let Some(authority) = origin.strip_prefix("http://") else {
            return false;
        };
        self.own_authorities(host)
            .iter()
            .any(|own| *own == authority)
    }

    /// The `host:port` forms of the listener's own origin.
    fn own_authorities(&self, host: Option<&str>) -> Vec<String> {
        let port = self.local.port();
        let ip = self.local.ip();
        let mut names = Vec::new();
        if ip.is_unspecified() {
            if let Some(host) = host {
                let host = host.trim().to_ascii_lowercase();
                if host.ends_with(&format!(":{port}")) {
                    names.push(host);
                }
            }
            return names;
        }
        names.push(SocketAddr::new(ip, port).to_string());
        if ip.is_loopback() {
            names.push(format!("localhost:{port}"));
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tokens_are_64_hex_digits_and_differ() {
        let (a, b) = (Token::generate().unwrap(), Token::generate().unwrap());
        assert_eq!(a.as_str().len(), 64);
        assert!(a.as_str().chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_eq!(format!("{a:?}"), "Token(…)");
    }

    #[test]
    fn tokens_match_only_themselves() {
        let token = Token::parse("abcdefghijklmnop").unwrap();
        assert!(token.matches("abcdefghijklmnop"));
        assert!(!token.matches("abcdefghijklmnoq"));
        assert!(!token.matches("abcdefghijklmno"));
        assert!(!token.matches("abcdefghijklmnopq"));
        assert!(!token.matches(""));
    }

    #[test]
    fn token_files_hold_one_url_safe_line() {
        assert_eq!(
            Token::parse("  A-b.c_d~0123456789\n").unwrap().as_str(),
            "A-b.c_d~0123456789"
        );
        assert_eq!(Token::parse(" \n"), Err("it is empty"));
        assert_eq!(Token::parse("short"), Err("it is too short"));
        assert_eq!(
            Token::parse("abcdefghijklmnop&x"),
            Err("it holds a character that is not allowed")
        );
        assert_eq!(
            Token::parse("abcdefgh ijklmnop"),
            Err("it holds a character that is not allowed")
        );
        assert_eq!(Token::parse(&"a".repeat(1025)), Err("it is too long"));
    }

    #[test]
    fn a_missing_token_file_is_created_for_its_owner_only_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        let made = Token::from_file(&path).unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            format!("{}\n", made.as_str())
        );
        assert_eq!(Token::from_file(&path).unwrap(), made);
        fs::write(&path, "x\n").unwrap();
        assert_eq!(
            Token::from_file(&path).unwrap_err().to_string(),
            format!(
                "token file {}: it is too short; a token is one line of 16 to 1024 characters from A-Z a-z 0-9 - . _ ~",
                path.display()
            )
        );
    }

    #[test]
    fn the_bearer_header_comes_before_the_query() {
        assert_eq!(presented_token(Some("Bearer abc"), Some("q")), Some("abc"));
        assert_eq!(presented_token(Some("bearer  abc "), None), Some("abc"));
        assert_eq!(presented_token(Some("Basic abc"), Some("q")), Some("q"));
        assert_eq!(presented_token(None, Some("q")), Some("q"));
        assert_eq!(presented_token(None, None), None);
    }

    #[test]
    fn origins_are_checked_and_normalised() {
        assert_eq!(
            parse_origin("HTTP://Example.COM:8080/"),
            Ok("http://example.com:8080".into())
        );
        assert_eq!(parse_origin("https://a.test"), Ok("https://a.test".into()));
        assert_eq!(
            parse_origin("a.test"),
            Err(
                "\"a.test\" is not an origin: give scheme://host[:port], e.g. http://localhost:8080"
                    .into()
            )
        );
        assert_eq!(
            parse_origin("ftp://a.test"),
            Err("\"ftp://a.test\" is not an origin: the scheme must be http or https".into())
        );
        assert_eq!(
            parse_origin("http://a.test/page"),
            Err("\"http://a.test/page\" is not an origin: give scheme://host[:port], without a path".into())
        );
    }

    #[test]
    fn a_loopback_listener_owns_its_address_and_localhost() {
        let origins = Origins::new(
            "127.0.0.1:4000".parse().unwrap(),
            vec!["https://editor.test".into()],
        );
        for allowed in [
            None,
            Some("http://127.0.0.1:4000"),
            Some("http://LOCALHOST:4000"),
            Some("https://editor.test"),
        ] {
            assert!(
                origins.allows(allowed, Some("127.0.0.1:4000")),
                "{allowed:?}"
            );
        }
        for refused in [
            "http://127.0.0.1:4001",
            "https://127.0.0.1:4000",
            "http://evil.test",
            "http://evil.test:4000",
            "null",
            "",
        ] {
            assert!(
                !origins.allows(Some(refused), Some("evil.test:4000")),
                "{refused}"
            );
        }
        let v6 = Origins::new("[::1]:4000".parse().unwrap(), vec![]);
        assert!(v6.allows(Some("http://[::1]:4000"), None));
        assert!(v6.allows(Some("http://localhost:4000"), None));
        assert!(!v6.allows(Some("http://127.0.0.1:4000"), None));
    }

    #[test]
    fn a_listener_on_every_address_owns_the_host_it_was_reached_at() {
        let origins = Origins::new("0.0.0.0:4000".parse().unwrap(), vec![]);
        assert!(origins.allows(Some("http://box.lan:4000"), Some("box.lan:4000")));
        assert!(!origins.allows(Some("http://evil.test:4000"), Some("box.lan:4000")));
        assert!(!origins.allows(Some("http://box.lan:80"), Some("box.lan:80")));
        assert!(!origins.allows(Some("http://box.lan:4000"), None));
    }
}
