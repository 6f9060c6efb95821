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
}

impl<R: AsyncBufRead + Unpin> FrameReader<R> {
    /// A reader that detects its framing from the first bytes.
    pub fn new(reader: R, max_len: usize) -> Self {
        FrameReader {
            reader,
            framing: None,
            max_len,
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
        let mut length: Option<usize> = None;
        let mut bad: Option<String> = None;
        let mut headers = 0;
        loop {
            let (line, overflow, any) = self.read_line().await;
            if !any {
                return None;
            }
            if line.is_empty() && !overflow {
                if headers == 0 {
                    continue;
                }
                break;
            }
            headers += 1;
            let text = String::from_utf8_lossy(&line);
            match text.split_once(':') {
                Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                    match value.trim().parse::<usize>() {
                        Ok(n) => length = Some(n),
                        Err(_) => {
                            bad = Some(format!("bad Content-Length value {:?}", value.trim()))
                        }
                    }
                }
                Some(_) => {}
                None => bad = Some(format!("malformed header line {:?}", truncate(&text))),
            }
        }
        if let Some(message) = bad {
            return Some(Err(FrameError::BadHeader(message)));
        }
        let Some(length) = length else {
            return Some(Err(FrameError::BadHeader(
                "missing Content-Length header".into(),
            )));
        };
        if length > self.max_len {
            self.skip(length).await?;
            return Some(Err(FrameError::TooLarge {
                limit: self.max_len,
            }));
        }
        let mut body = vec![0u8; length];
        let mut filled = 0;
        while filled < length {
            let buf = self.reader.fill_buf().await.ok()?;
            if buf.is_empty() {
                return None;
            }
            let n = buf.len().min(length - filled);
            body[filled..filled + n].copy_from_slice(&buf[..n]);
            self.reader.consume(n);
            filled += n;
        }
        Some(Ok(body))
    }

    async fn skip(&mut self, mut remaining: usize) -> Option<()> {
        while remaining > 0 {
            let buf = self.reader.fill_buf().await.ok()?;
            if buf.is_empty() {
                return None;
            }
            let n = buf.len().min(remaining);
            self.reader.consume(n);
            remaining -= n;
        }
        Some(())
    }
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
