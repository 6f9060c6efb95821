//! `askd hub --pipe`: the hub over standard input and output, for clients that cannot open a
//! WebSocket (Neovim's plugin): it finds the hub, or starts one as the agents' glue does, and
//! relays every message both ways unchanged. Its input is read as `askd serve` reads it (one
//! message per line, or `Content-Length` frames, told from the first bytes); its output uses
//! the same framing.
//!
//! Exit statuses: 0 at the end of input; 1 when the hub cannot be reached or goes away (the
//! reason on stderr: `askd: the hub at ws://… went away (…)`).

use std::path::PathBuf;
use std::time::Duration;

use tokio::io::AsyncWriteExt;

use super::client::{HubClient, HubOptions};
use crate::server::framing::{FrameError, FrameReader, Framing, write_frame};

/// Largest message read from stdin: a `restore` at the default limits fits.
const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// Relays between stdin/stdout and the hub of discovery directory `dir`; the exit status.
pub async fn run(dir: PathBuf) -> u8 {
    let options = HubOptions {
        dir: Some(dir),
        ..HubOptions::default()
    };
    let client = match HubClient::connect_or_start(&options).await {
        Ok(client) => client,
        Err(e) => {
            eprintln!("askd: {e}");
            return 1;
        }
    };
    let url = client.hub().url.clone();
    let (pipe, mut from_hub) = client.into_pipe();
    let mut input = FrameReader::new(
        tokio::io::BufReader::new(tokio::io::stdin()),
        MAX_MESSAGE_BYTES,
    );
    let mut output = tokio::io::stdout();
    let mut framing = None;
    loop {
        tokio::select! {
            frame = input.next() => match frame {
                None => {
                    let _ = output.flush().await;
                    return 0;
                }
                Some(Err(FrameError::TooLarge { limit })) => {
                    eprintln!("askd: a message of the input passes {limit} bytes");
                    return 1;
                }
                Some(Err(FrameError::BadHeader(why))) => {
                    eprintln!("askd: cannot read the input: {why}");
                    return 1;
                }
                Some(Ok(bytes)) => {
                    framing = Some(input.framing());
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    if let Err(e) = pipe.send(text) {
                        eprintln!("askd: {e}");
                        return 1;
                    }
                }
            },
            message = from_hub.recv() => match message {
                Some(text) => {
                    let framing = framing.unwrap_or(Framing::Lines);
                    if write_frame(&mut output, framing, text.into_bytes()).await.is_err() {
                        return 0;
                    }
                }
                None => {
                    // The connection ended: give its task a moment to say how.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    let reason = pipe.lost().unwrap_or_else(|| "the connection was closed".into());
                    eprintln!("askd: the hub at {url} went away ({reason})");
                    return 1;
                }
            },
        }
    }
}
