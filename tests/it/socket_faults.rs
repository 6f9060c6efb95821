//! Hostile WebSocket peers against the real binary: sockets that never authenticate under a
//! low limit of descriptors, a client that floods pings and never reads, and frames that break
//! RFC 6455, each closed with its status.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::stream::MaybeTlsStream;

use crate::support::{GUARD, Server, untimed};
use crate::websocket::{Client, Listening, eventually, payload, printed_endpoint, resident_kib};

// ---------------------------------------------------------------------------------------------
// Descriptors: idle sockets that never authenticate
// ---------------------------------------------------------------------------------------------

/// The soft and hard limits of open descriptors of a process, from `/proc/PID/limits`.
fn descriptor_limits(pid: u32) -> (u64, u64) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).expect("the limits");
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .expect("a line of open files");
    let numbers: Vec<u64> = line
        .split_whitespace()
        .filter_map(|word| word.parse().ok())
        .collect();
    (numbers[0], numbers[1])
}

/// Raises this test process's own soft limit of descriptors to its hard one (for the sockets
/// it opens).
fn raise_own_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the struct given.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        limit.rlim_cur = limit.rlim_max;
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &limit), 0);
    }
}

#[test]
fn a_listener_raises_its_soft_limit_of_descriptors_to_the_hard_one() {
    let server = Server::start_with_descriptors(
        &["serve", "--listen", "127.0.0.1:0", "--no-hub"],
        256,
        2048,
    );
    eventually("the listener's address", || {
        printed_endpoint(&server.stderr_text())
    });
    assert_eq!(descriptor_limits(server.pid()), (2048, 2048));
    // Without a listener, the limits are left as they were.
    let plain = Server::start_with_descriptors(&["serve"], 256, 2048);
    let mut plain = plain;
    untimed(plain.ok("sessions", json!({})));
    assert_eq!(descriptor_limits(plain.pid()), (256, 2048));
}

/// A connection that sends half a request line and then nothing; `None` when it cannot
/// connect (a listener that no longer accepts leaves connections waiting in its backlog: the
/// bound only turns that hang into a failure).
fn idle_socket(address: &str) -> Option<TcpStream> {
    let address = address.parse().expect("an address");
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(10)).ok()?;
    // The listener may have closed it already: what it sends then is lost, which is the point.
    let _ = stream.write_all(b"GET /rpc?tok");
    Some(stream)
}

/// Sends one JSON-RPC request on a raw WebSocket and answers its reply.
fn call(
    socket: &mut tungstenite::WebSocket<MaybeTlsStream<TcpStream>>,
    method: &str,
    params: Value,
) -> Value {
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    socket
        .send(tungstenite::Message::text(request.to_string()))
        .expect("sent");
    loop {
        match socket.read().expect("a reply") {
            tungstenite::Message::Text(text) => {
                let reply: Value = serde_json::from_str(text.as_str()).expect("JSON");
                if reply.get("id") == Some(&json!(1)) {
                    return reply;
                }
            }
            _ => continue,
        }
    }
}

#[test]
fn idle_sockets_that_never_authenticate_leave_room_for_a_real_client_and_its_flow() {
    raise_own_limit();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let state = dir.path().join("state");
    let state = state.to_str().expect("UTF-8");
    // A limit far below the sockets opened, that askd cannot raise.
    let mut server = Server::start_with_descriptors(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--no-hub",
            "--state-dir",
            state,
        ],
        256,
        256,
    );
    let (address, token) = eventually("the listener's address", || {
        printed_endpoint(&server.stderr_text())
    });
    let idle: Vec<TcpStream> = (0..1_100).filter_map(|_| idle_socket(&address)).collect();
    assert_eq!(idle.len(), 1_100);
    // A real client gets in (once the idle ones that took the places waiting for
    // authentication have timed out), and opens a flow.
    let url = format!("ws://{address}/rpc?token={token}");
    let mut socket = eventually("a real client's connection", || {
        tungstenite::connect(url.as_str())
            .ok()
            .map(|(socket, _)| socket)
    });
    if let MaybeTlsStream::Plain(stream) = socket.get_ref() {
        stream.set_read_timeout(Some(GUARD)).unwrap();
    }
    let opened = call(
        &mut socket,
        "open",
        json!({ "session": "kept", "payload": payload() }),
    );
    assert_eq!(opened["result"]["status"], json!("open"), "{opened}");
    let step = call(
        &mut socket,
        "keys",
        json!({ "session": "kept", "keys": "2" }),
    );
    assert_eq!(step["result"]["status"], json!("open"), "{step}");
    // Every idle socket is closed: at once, or once its time to upgrade is over.
    for mut stream in idle {
        stream.set_read_timeout(Some(GUARD)).unwrap();
        let mut rest = Vec::new();
        match stream.read_to_end(&mut rest) {
            Ok(_) => assert_eq!(rest, b""),
            Err(e) => assert_eq!(e.kind(), ErrorKind::ConnectionReset, "{e}"),
        }
    }
    // The state directory was written all along: the flow survives a kill.
    server.kill();
    let stderr = server.stderr_text();
    assert!(
        !stderr.contains("Too many open files"),
        "askd ran out of descriptors:\n{stderr}"
    );
    let mut next = Server::start(&["serve", "--state-dir", state]);
    let listed = untimed(next.ok("sessions", json!({})));
    let kept = &listed[0];
    assert_eq!(
        (
            listed.as_array().map(Vec::len),
            &kept["session"],
            &kept["title"],
            &kept["status"]
        ),
        (
            Some(1),
            &json!("kept"),
            &json!("Setup"),
            &json!("recovered")
        ),
        "{listed}"
    );
}

// ---------------------------------------------------------------------------------------------
// A ping flood from a client that never reads
// ---------------------------------------------------------------------------------------------

/// A masked ping frame (mask key 0) with a payload of 125 bytes.
fn ping_frame() -> Vec<u8> {
    let mut frame = vec![0x89, 0x80 | 125, 0, 0, 0, 0];
    frame.extend_from_slice(&[b'p'; 125]);
    frame
}

#[test]
fn a_client_that_floods_pings_and_never_reads_is_closed_within_its_output_budget() {
    let listening = Listening::start(&[]);
    let pid = listening.server.pid();
    let mut client = listening.connect();
    let before = resident_kib(pid);
    let MaybeTlsStream::Plain(stream) = client.socket.get_mut() else {
        panic!("a plain socket");
    };
    let mut raw = stream.try_clone().expect("the socket");
    raw.set_write_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let batch: Vec<u8> = std::iter::repeat_n(ping_frame(), 256).flatten().collect();
    // At most 96 MiB of pings: far more than the queue's 4 MiB and the sockets' buffers.
    let mut sent = 0usize;
    let closed = "closed a WebSocket connection";
    let mut at = 0;
    while sent < 96 * 1024 * 1024 {
        match raw.write(&batch[at..]) {
            Ok(n) => {
                sent += n;
                at = (at + n) % batch.len();
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                if listening.server.stderr_text().contains(closed) {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    let grown = resident_kib(pid).saturating_sub(before);
    assert!(
        grown < 24 * 1024,
        "askd grew by {grown} KiB for {sent} bytes of pings never read"
    );
    // Read at last: the pongs, then the close frame with its reason.
    let mut pongs = 0usize;
    let close = loop {
        match client.socket.read() {
            Ok(tungstenite::Message::Pong(_)) => pongs += 1,
            Ok(tungstenite::Message::Close(frame)) => break frame.expect("a close frame"),
            Ok(other) => panic!("expected pongs and a close frame, got {other:?}"),
            Err(e) => panic!(
                "the connection ended without a close frame after {pongs} pongs: {e}; askd said:\n{}",
                listening.server.stderr_text()
            ),
        }
    };
    assert_eq!(
        (close.code, close.reason.as_str()),
        (
            CloseCode::Policy,
            "pongs past --max-pending-bytes: the client does not read"
        )
    );
    assert!(listening.server.stderr_text().contains(closed));
    // Everyone else is still served.
    let mut other = listening.connect();
    assert_eq!(untimed(other.ok("sessions", json!({}))), json!([]));
}

#[test]
fn pings_of_a_client_that_reads_are_answered_without_end() {
    let listening = Listening::start(&["--max-pending-bytes", "4096"]);
    let mut client = listening.connect();
    // Far more pong bytes than the queue holds, each read before the next ping.
    for n in 0..200u32 {
        let payload = format!("{n:0>100}");
        client
            .socket
            .send(tungstenite::Message::Ping(
                payload.clone().into_bytes().into(),
            ))
            .unwrap();
        match client.socket.read().expect("a pong") {
            tungstenite::Message::Pong(data) => assert_eq!(data.as_ref(), payload.as_bytes()),
            other => panic!("expected a pong, got {other:?}"),
        }
    }
    assert_eq!(untimed(client.ok("sessions", json!({}))), json!([]));
}

// ---------------------------------------------------------------------------------------------
// Protocol violations
// ---------------------------------------------------------------------------------------------

/// A masked frame (mask key 0, so the payload is as written): `first` is the FIN and RSV bits
/// with the opcode.
fn frame(first: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = vec![first];
    match payload.len() {
        n if n < 126 => frame.push(0x80 | n as u8),
        n => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(n as u16).to_be_bytes());
        }
    }
    frame.extend_from_slice(&[0, 0, 0, 0]);
    frame.extend_from_slice(payload);
    frame
}

/// Sends `bytes` raw on a new connection and answers the close frame askd ends it with.
fn closed_after(listening: &Listening, bytes: &[u8]) -> (Vec<Value>, u16, String) {
    let mut client: Client = listening.connect();
    let MaybeTlsStream::Plain(stream) = client.socket.get_mut() else {
        panic!("a plain socket");
    };
    stream.write_all(bytes).expect("sent");
    let (messages, close) = client.recv_close();
    let close = close.expect("a close frame");
    (
        messages,
        close.code.into(),
        close.reason.as_str().to_owned(),
    )
}

#[test]
fn every_protocol_violation_closes_with_a_close_frame_and_its_status() {
    let listening = Listening::start(&[]);
    let text = |payload: &[u8]| frame(0x81, payload);
    let cases: Vec<(&str, Vec<u8>, u16, &str)> = vec![
        (
            "a text frame that is not UTF-8",
            text(b"\"\xff\""),
            1007,
            "text that is not UTF-8",
        ),
        (
            "a fragmented text message that is not UTF-8",
            [frame(0x01, b"\"\xe2"), frame(0x80, b"\x28\"")].concat(),
            1007,
            "text that is not UTF-8",
        ),
        (
            "a close reason that is not UTF-8",
            frame(0x88, b"\x03\xe8\xff\xfe"),
            1007,
            "text that is not UTF-8",
        ),
        (
            "an unmasked frame",
            vec![0x81, 2, b'{', b'}'],
            1002,
            "a frame from the client is not masked",
        ),
        (
            "reserved bits",
            frame(0xC1, b"{}"),
            1002,
            "a frame has reserved bits set",
        ),
        (
            "an unknown data opcode",
            frame(0x83, b""),
            1002,
            "a frame has an unknown opcode",
        ),
        (
            "an unknown control opcode",
            frame(0x8B, b""),
            1002,
            "a frame has an unknown opcode",
        ),
        (
            "a fragmented ping",
            frame(0x09, b""),
            1002,
            "a control frame is fragmented",
        ),
        (
            "a ping of 126 bytes",
            frame(0x89, &[b'p'; 126]),
            1002,
            "a control frame is longer than 125 bytes",
        ),
        (
            "a continuation of nothing",
            frame(0x80, b"{}"),
            1002,
            "a continuation frame continues nothing",
        ),
        (
            "a message inside another",
            [frame(0x01, b"{"), frame(0x81, b"}")].concat(),
            1002,
            "a message began before the last one ended",
        ),
        (
            "a close code no endpoint may send",
            frame(0x88, b"\x03\xe7"),
            1002,
            "Protocol violation",
        ),
        (
            "a close frame of one byte",
            frame(0x88, b"\x03"),
            1002,
            "a close frame is malformed",
        ),
    ];
    for (what, bytes, code, reason) in cases {
        assert_eq!(
            closed_after(&listening, &bytes),
            (Vec::new(), code, reason.to_owned()),
            "{what}"
        );
    }
    // The same bytes as a binary frame are a parse error, and the connection goes on.
    let mut client = listening.connect();
    client
        .socket
        .send(tungstenite::Message::binary(b"\"\xff\"".to_vec()))
        .unwrap();
    assert_eq!(
        client.recv(),
        json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32700, "message": "parse error: invalid UTF-8 at byte 1" } })
    );
    assert_eq!(untimed(client.ok("sessions", json!({}))), json!([]));
    // Every violation is said in the log.
    let log = listening.server.stderr_text();
    assert_eq!(
        log.matches("closed a WebSocket connection").count(),
        12,
        "{log}"
    );
}
