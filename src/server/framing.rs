//! Message framing on a byte stream: newline-delimited JSON, or LSP-style
//! `Content-Length` headers, detected from the first bytes of the input.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

/// How messages are delimited on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// One message per line (`\r\n` tolerated).
    Lines,
    /// `Content-Length: N\r\n\r\n` followed by N bytes.
    ContentLength,
}

/// A frame that could not be delivered as a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// The message was longer than the limit; it was skipped.
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// A `Content-Length` header block was malformed; the reader resynchronises on the next header.
    BadHeader(String),
}

/// Reads frames from a buffered byte stream, never holding more than the limit in memory.
pub struct FrameReader<R> {
    reader: R,
    framing: Option<Framing>,
    max_len: usize,
    /// Bytes put back in front of the input (see [`FrameReader::put_back`]).
    back: Vec<u8>,
    /// How many of `back` were read.
    back_at: usize,
    /// Whether the next frame is looked for past a refused header block.
    resync: bool,
}

impl<R: AsyncBufRead + Unpin> FrameReader<R> {
    /// A reader that detects its framing from the first bytes.
    pub fn new(reader: R, max_len: usize) -> Self {
        FrameReader {
            reader,
            framing: None,
            max_len,
            back: Vec::new(),
            back_at: 0,
            resync: false,
        }
    }

    /// The framing in use (known once the first frame has been read).
    pub fn framing(&self) -> Framing {
        self.framing.unwrap_or(Framing::Lines)
    }

    /// The next frame, `None` at end of input.
    pub async fn next(&mut self) -> Option<Result<Vec<u8>, FrameError>> {
        let framing = match self.framing {
            Some(f) => f,
            None => {
                let detected = self.detect().await?;
                self.framing = Some(detected);
                detected
            }
        };
        match framing {
            Framing::Lines => self.next_line().await,
            Framing::ContentLength => self.next_content().await,
        }
    }

    async fn detect(&mut self) -> Option<Framing> {
        loop {
            let buf = self.reader.fill_buf().await.ok()?;
            let first = buf.iter().position(|b| !b.is_ascii_whitespace());
            match first {
                None if buf.is_empty() => return None,
                None => {
                    let n = buf.len();
                    self.reader.consume(n);
                }
                Some(at) => {
                    let content = buf[at..]
                        .first()
                        .is_some_and(|b| b.eq_ignore_ascii_case(&b'c'));
                    self.reader.consume(at);
                    return Some(if content {
                        Framing::ContentLength
                    } else {
                        Framing::Lines
                    });
                }
            }
        }
    }

    /// Reads up to and including `\n`; stores at most `max_len + 2` bytes (room for `\r\n`).
    /// Returns the bytes (without the newline), whether the line overflowed, and whether any
    /// byte was read at all.
    async fn read_line(&mut self) -> (Vec<u8>, bool, bool) {
        let mut line = Vec::new();
        let mut overflow = false;
        let mut any = false;
        loop {
            let Ok(buf) = self.reader.fill_buf().await else {
                return (line, overflow, any);
            };
            if buf.is_empty() {
                return (line, overflow, any);
            }
            any = true;
            let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(at) => (&buf[..at], Some(at + 1)),
                None => (buf, None),
            };
            if !overflow {
                if line.len() + chunk.len() > self.max_len + 1 {
                    overflow = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(chunk);
                }
            }
            let used = done.unwrap_or(buf.len());
            self.reader.consume(used);
            if done.is_some() {
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return (line, overflow, any);
            }
        }
    }

    async fn next_line(&mut self) -> Option<Result<Vec<u8>, FrameError>> {
        loop {
            let (line, overflow, any) = self.read_line().await;
            if !any {
                return None;
            }
            if overflow || line.len() > self.max_len {
                return Some(Err(FrameError::TooLarge {
                    limit: self.max_len,
                }));
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Some(Ok(line));
        }
    }

    async fn next_content(&mut self) -> Option<Result<Vec<u8>, FrameError>> {
        if self.resync {
            self.skip_to_header().await?;
            self.resync = false;
        }
        let length = match self.read_header_block().await? {
            Ok(length) => length,
            Err(error) => {
                self.resync = true;
                return Some(Err(error));
            }
        };
        if length > self.max_len {
            // Refused at once, whatever the length claims: the body is not waited for but
            // looked through for the next header, like the input after a malformed block.
            self.resync = true;
            return Some(Err(FrameError::TooLarge {
                limit: self.max_len,
            }));
        }
        let mut body = vec![0u8; length];
        let mut filled = 0;
        while filled < length {
            let buf = self.fill().await.ok()?;
            if buf.is_empty() {
                return None;
            }
            let n = buf.len().min(length - filled);
            body[filled..filled + n].copy_from_slice(&buf[..n]);
            self.consume(n);
            filled += n;
        }
        Some(Ok(body))
    }

    /// Reads one header block through its blank line: the body length it announces, or why
    /// the block is malformed (found as soon as it is; the rest is left to the resync).
    /// `None` at end of input.
    async fn read_header_block(&mut self) -> Option<Result<usize, FrameError>> {
        let bad = |m: String| Some(Err(FrameError::BadHeader(m)));
        let mut length: Option<usize> = None;
        let mut budget = MAX_HEADER_BLOCK;
        let mut started = false;
        loop {
            let Some(line) = self.read_header_line(&mut budget).await? else {
                return bad(format!(
                    "a header block longer than {MAX_HEADER_BLOCK} bytes"
                ));
            };
            if line.is_empty() {
                if !started {
                    // Blank lines between frames are tolerated.
                    budget = MAX_HEADER_BLOCK;
                    continue;
                }
                return match length {
                    Some(n) => Some(Ok(n)),
                    None => bad("missing Content-Length header".into()),
                };
            }
            started = true;
            let Some((name, value)) = header(&line) else {
                // The rest of the line may hold the next header block (a body without a line
                // end runs into the header that follows it): it is looked through first, with
                // its line end.
                let mut rest = line[1..].to_vec();
                rest.push(b'\n');
                self.put_back(&rest);
                return bad(format!(
                    "malformed header line {:?}",
                    truncate(&String::from_utf8_lossy(&line))
                ));
            };
            if !name.eq_ignore_ascii_case(b"content-length") {
                continue;
            }
            let Some(n) = decimal(value) else {
                return bad(format!(
                    "bad Content-Length value {:?}",
                    truncate(&String::from_utf8_lossy(value))
                ));
            };
            match length {
                Some(earlier) if earlier != n => {
                    return bad(format!(
                        "conflicting Content-Length headers: {earlier} and {n}"
                    ));
                }
                _ => length = Some(n),
            }
        }
    }

    /// One header line without its line end, within `budget` bytes (which it uses up):
    /// `Some(None)` when the line would pass the budget, `None` at end of input.
    async fn read_header_line(&mut self, budget: &mut usize) -> Option<Option<Vec<u8>>> {
        let mut line = Vec::new();
        loop {
            let buf = self.fill().await.ok()?;
            if buf.is_empty() {
                return None;
            }
            let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(at) => (&buf[..at], true),
                None => (buf, false),
            };
            if chunk.len() + usize::from(done) > *budget {
                return Some(None);
            }
            line.extend_from_slice(chunk);
            let used = chunk.len() + usize::from(done);
            *budget -= used;
            self.consume(used);
            if done {
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Some(Some(line));
            }
        }
    }

    /// Skips input up to the next `Content-Length:` (in any case), wherever it stands, and
    /// leaves it to be read as the start of a header block. `None` at end of input.
    async fn skip_to_header(&mut self) -> Option<()> {
        let mut matched = 0;
        loop {
            let buf = self.fill().await.ok()?;
            if buf.is_empty() {
                return None;
            }
            let mut used = buf.len();
            for (at, &b) in buf.iter().enumerate() {
                matched = if b.eq_ignore_ascii_case(&RESYNC[matched]) {
                    matched + 1
                } else {
                    // No proper prefix of the name recurs inside it: a mismatch restarts the
                    // match, at this byte when it is the name's first.
                    usize::from(b.eq_ignore_ascii_case(&RESYNC[0]))
                };
                if matched == RESYNC.len() {
                    used = at + 1;
                    break;
                }
            }
            self.consume(used);
            if matched == RESYNC.len() {
                self.put_back(RESYNC);
                return Some(());
            }
        }
    }

    /// The bytes to read next: those put back first, then the input's.
    async fn fill(&mut self) -> std::io::Result<&[u8]> {
        if self.back_at < self.back.len() {
            return Ok(&self.back[self.back_at..]);
        }
        self.reader.fill_buf().await
    }

    /// Marks `n` bytes of the last [`Self::fill`] as read.
    fn consume(&mut self, n: usize) {
        if self.back_at < self.back.len() {
            self.back_at += n;
            if self.back_at == self.back.len() {
                self.back.clear();
                self.back_at = 0;
            }
        } else {
            self.reader.consume(n);
        }
    }

    /// Puts `bytes` in front of what is left to read.
    fn put_back(&mut self, bytes: &[u8]) {
        let mut back = bytes.to_vec();
        back.extend_from_slice(&self.back[self.back_at..]);
        self.back = back;
        self.back_at = 0;
    }
}

/// The header name the reader resynchronises on.
const RESYNC: &[u8] = b"content-length:";

/// Most bytes of one header block, line ends included; a longer block is malformed.
pub const MAX_HEADER_BLOCK: usize = 4096;

/// A header line's name and value (without surrounding spaces and tabs), when the line is
/// `name: value` with a name of token characters (RFC 9110).
fn header(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = line.iter().position(|&b| b == b':')?;
    let (name, value) = (&line[..colon], &line[colon + 1..]);
    let token = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    if name.is_empty() || !name.iter().all(token) {
        return None;
    }
    Some((name, value.trim_ascii()))
}

/// A non-empty run of ASCII digits as a number, `None` for anything else or an overflow.
fn decimal(text: &[u8]) -> Option<usize> {
    if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    text.iter().try_fold(0usize, |n, &d| {
        n.checked_mul(10)?.checked_add(usize::from(d - b'0'))
    })
}

fn truncate(text: &str) -> String {
    text.chars().take(40).collect()
}

/// Writes one message in the connection's framing and flushes it.
pub async fn write_frame<W: AsyncWrite + Unpin>(
    writer: &mut W,
    framing: Framing,
    message: Vec<u8>,
) -> std::io::Result<()> {
    match framing {
        Framing::Lines => {
            // One write of the message and its line end; a message built with room for the
            // line end (as success replies are) is not copied.
            let mut out = message;
            out.push(b'\n');
            writer.write_all(&out).await?;
        }
        Framing::ContentLength => {
            let header = format!("Content-Length: {}\r\n\r\n", message.len());
            let mut out = Vec::with_capacity(header.len() + message.len());
            out.extend_from_slice(header.as_bytes());
            out.extend_from_slice(&message);
            writer.write_all(&out).await?;
        }
    }
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &[u8] = br#"{"jsonrpc":"2.0","id":2,"method":"sessions"}"#;

    /// A well-formed frame around `body`.
    fn frame(body: &[u8]) -> Vec<u8> {
        let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        bytes.extend_from_slice(body);
        bytes
    }

    /// Frames read, as text.
    type Frames = Vec<Result<String, FrameError>>;

    /// Every frame of `input`, read through buffers of `chunk` bytes, as text.
    fn frames(input: &[u8], max_len: usize, chunk: usize) -> Frames {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let reader = tokio::io::BufReader::with_capacity(chunk, input);
            let mut frames = FrameReader::new(reader, max_len);
            let mut out = Vec::new();
            while let Some(frame) = frames.next().await {
                out.push(frame.map(|b| String::from_utf8(b).unwrap()));
            }
            out
        })
    }

    fn bad(message: &str) -> Result<String, FrameError> {
        Err(FrameError::BadHeader(message.into()))
    }

    fn good() -> Result<String, FrameError> {
        Ok(String::from_utf8(GOOD.to_vec()).unwrap())
    }

    /// After any malformed header block the reader finds the next well-formed frame: the
    /// block is answered once, and the frame after it is read as if nothing had happened,
    /// through buffers of any size.
    #[test]
    fn every_malformed_header_block_is_followed_by_the_next_frame() {
        let body = br#"{"jsonrpc":"2.0","id":1,"method":"sessions"}"#;
        let with_body = |header: &str| {
            let mut bytes = header.as_bytes().to_vec();
            bytes.extend_from_slice(body);
            bytes
        };
        let next_header = format!("Content-Length: {}", GOOD.len());
        let long_line = format!("X-Pad: {}\r\n", "p".repeat(2 * 1024 * 1024));
        let cases: Vec<(Vec<u8>, Frames)> = vec![
            (
                with_body("Content-Length: abc\r\n\r\n"),
                vec![bad(r#"bad Content-Length value "abc""#), good()],
            ),
            (
                with_body("Content-Length: -44\r\n\r\n"),
                vec![bad(r#"bad Content-Length value "-44""#), good()],
            ),
            (
                with_body("Content-Length: 0x2c\r\n\r\n"),
                vec![bad(r#"bad Content-Length value "0x2c""#), good()],
            ),
            (
                with_body("Content-Length: 1e3\r\n\r\n"),
                vec![bad(r#"bad Content-Length value "1e3""#), good()],
            ),
            (
                with_body("Content-Length: +44\r\n\r\n"),
                vec![bad(r#"bad Content-Length value "+44""#), good()],
            ),
            (
                with_body("Content-Length: 18446744073709551616\r\n\r\n"),
                vec![
                    bad(r#"bad Content-Length value "18446744073709551616""#),
                    good(),
                ],
            ),
            (
                with_body("Content-Length:\r\n\r\n"),
                vec![bad(r#"bad Content-Length value """#), good()],
            ),
            // Too small: the rest of the body runs into the next header line.
            (
                with_body("Content-Length: 30\r\n\r\n"),
                vec![
                    Ok(r#"{"jsonrpc":"2.0","id":1,"metho"#.into()),
                    bad(&format!(
                        "malformed header line {:?}",
                        format!(r#"d":"sessions"}}{next_header}"#)
                            .chars()
                            .take(40)
                            .collect::<String>()
                    )),
                    good(),
                ],
            ),
            (
                with_body("Content-Length 44\r\n\r\n"),
                vec![bad(r#"malformed header line "Content-Length 44""#), good()],
            ),
            (
                with_body("Content Length: 44\r\n\r\n"),
                vec![bad(r#"malformed header line "Content Length: 44""#), good()],
            ),
            // A bare body, without any header.
            (
                body.to_vec(),
                vec![
                    bad(&format!(
                        "malformed header line {:?}",
                        format!("{}{next_header}", String::from_utf8_lossy(body))
                            .chars()
                            .take(40)
                            .collect::<String>()
                    )),
                    good(),
                ],
            ),
            (
                with_body("Content-Type: application/json\r\n\r\n"),
                vec![bad("missing Content-Length header"), good()],
            ),
            (
                with_body("Content-Length: 44\r\ncontent-length: 45\r\n\r\n"),
                vec![bad("conflicting Content-Length headers: 44 and 45"), good()],
            ),
            // A line that passes the header block's bound, alone in its block.
            (
                with_body(&format!("{long_line}\r\n")),
                vec![bad("a header block longer than 4096 bytes"), good()],
            ),
            // Far over the message limit: refused, and the body looked through.
            (
                with_body("Content-Length: 1000000000000\r\n\r\n"),
                vec![Err(FrameError::TooLarge { limit: 1000 }), good()],
            ),
        ];
        for (bytes, expected) in cases {
            // A first frame fixes the framing.
            let mut input = frame(GOOD);
            input.extend(&bytes);
            input.extend(frame(GOOD));
            let expected: Vec<_> = std::iter::once(good()).chain(expected).collect();
            for chunk in [1, 7, 64 * 1024] {
                assert_eq!(
                    frames(&input, 1000, chunk),
                    expected,
                    "{:?} in buffers of {chunk}",
                    String::from_utf8_lossy(&bytes[..bytes.len().min(80)])
                );
            }
        }
    }

    /// Well-formed blocks: any case, spaces around the value, other headers, the same length
    /// twice, blank lines between frames, bare `\n` line ends.
    #[test]
    fn well_formed_header_blocks() {
        let mut input = Vec::new();
        input.extend(format!("content-LENGTH:\t {} \r\n\r\n", GOOD.len()).as_bytes());
        input.extend(GOOD);
        input.extend(b"\r\n\r\n");
        input.extend(
            format!(
                "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: {0}\r\nContent-Length: {0}\r\n\r\n",
                GOOD.len()
            )
            .as_bytes(),
        );
        input.extend(GOOD);
        input.extend(format!("Content-Length: {}\n\n", GOOD.len()).as_bytes());
        input.extend(GOOD);
        input.extend(b"Content-Length: 0\r\n\r\n");
        for chunk in [1, 5, 64 * 1024] {
            assert_eq!(
                frames(&input, 1000, chunk),
                vec![good(), good(), good(), Ok(String::new())]
            );
        }
    }

    /// A length over the limit is answered before any of its body arrives.
    #[test]
    fn a_huge_length_is_refused_at_once() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (mut client, server) = tokio::io::duplex(4096);
            client
                .write_all(b"Content-Length: 1000000000000\r\n\r\n{")
                .await
                .unwrap();
            let mut frames = FrameReader::new(tokio::io::BufReader::new(server), 1000);
            assert_eq!(
                frames.next().await,
                Some(Err(FrameError::TooLarge { limit: 1000 }))
            );
            client.write_all(&frame(GOOD)).await.unwrap();
            drop(client);
            assert_eq!(frames.next().await, Some(Ok(GOOD.to_vec())));
            assert_eq!(frames.next().await, None);
        });
    }
}
