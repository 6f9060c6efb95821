//! Hostile peers of the WebSocket listener, through the real binary and raw sockets: requests
//! that say two things at once are refused before the upgrade.

use std::io::{Read, Write};

use std::net::TcpStream;

use crate::support::Server;
use crate::websocket::{eventually, printed_endpoint};

/// `askd serve --listen 127.0.0.1:0`: the server, its `host:port` and token.
fn listening() -> (Server, String, String) {
    let server = Server::start(&["serve", "--listen", "127.0.0.1:0"]);
    let (address, token) = eventually("the listener's address", || {
        printed_endpoint(&server.stderr_text())
    });
    (server, address, token)
}

/// Sends `request` (an HTTP/1.1 request head) and answers the status line and the body (as
/// long as its `Content-Length`; none after a `101`).
fn exchange(address: &str, request: &str) -> (String, String) {
    use std::io::BufRead;
    let stream = TcpStream::connect(address).expect("connects");
    (&stream).write_all(request.as_bytes()).expect("sends");
    let mut reader = std::io::BufReader::new(&stream);
    let mut status = String::new();
    reader.read_line(&mut status).expect("a status line");
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("a header");
        if line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().expect("a length");
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).expect("the body");
    (
        status.trim_end().to_owned(),
        String::from_utf8(body).expect("UTF-8"),
    )
}

/// An upgrade request to `/rpc` with the token and `headers` (each `Name: value\r\n`).
fn upgrade(address: &str, token: &str, headers: &str) -> String {
    format!(
        "GET /rpc?token={token} HTTP/1.1\r\nHost: {address}\r\nConnection: Upgrade\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{headers}\r\n"
    )
}

#[test]
fn a_request_with_two_origins_is_refused_even_with_the_listeners_own_first() {
    let (_server, address, token) = listening();
    let own = format!("http://{address}");
    let (status, body) = exchange(
        &address,
        &upgrade(
            &address,
            &token,
            &format!("Origin: {own}\r\nOrigin: http://evil.example\r\n"),
        ),
    );
    assert_eq!(status, "HTTP/1.1 400 Bad Request");
    assert_eq!(
        body,
        "askd: the request has more than one Origin header; send one\n"
    );
    // One Origin, its own, is let in.
    let (status, _) = exchange(
        &address,
        &upgrade(&address, &token, &format!("Origin: {own}\r\n")),
    );
    assert_eq!(status, "HTTP/1.1 101 Switching Protocols");
}
