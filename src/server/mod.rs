//! The protocol shell: JSON-RPC 2.0 over a byte stream, in either framing, with the method
//! registry of `methods.rs`, the session table of `state/` and its state directory
//! (`store.rs`).
//!
//! Architecture invariant: the shell moves bytes and keeps sessions; it decides nothing about a
//! flow (every rule lives in `core` and `dialect`). It is the only layer with async code.
//! **API boundary**: the wire protocol (`protocol/README.md`).
//!
//! Requests take effect in the order received: each is run until it completes or, for a
//! pending `ask`, until it waits for its flow; only then is the next frame read.
//!
//! Every reply is written within `--max-reply-bytes` (a batch's replies share it), and the
//! replies waiting for the client to read them are bounded by `--max-pending-bytes`: while
//! they are at the bound, no input is read, so a client that does not read its replies cannot
//! make the server hold more.
//!
//! A request of the common shape is read once, without a `Value` tree, and handed straight to
//! its method in the registry; everything else (batches, notifications, `ask`, errors) goes
//! through the general path, which checks each rule in turn and words every error.

pub mod access;
pub mod admission;
mod answer;
pub mod assets;
pub mod browser;
pub mod discovery;
pub mod files;
pub mod framing;
pub mod hub;
pub mod listener;
pub mod methods;
mod notify;
pub mod outbox;
mod outgoing;
pub mod params;
mod protocol;
pub mod state;
pub mod store;
mod ws;

use std::borrow::Cow;
use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use jsonrpsee::types::{Id, Params};
use jsonrpsee::{Extensions, MethodCallback, RpcModule};
use serde::Serialize;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncWrite};
use tokio::task::{AbortHandle, JoinSet};

pub use answer::Answer;
pub use protocol::{Bounded, METHODS, Step, StepResult, code, error};

use crate::core::quoted;
use crate::server::framing::{FrameError, FrameReader, write_frame};
use crate::server::methods::{Link, Shared, lock};
use crate::server::outgoing::Outgoing;
use crate::server::state::{Config, State, now_ms};

/// Most messages in one batch (each may answer a whole Step).
pub const MAX_BATCH: usize = 100;

/// An error response with the given id.
fn error_response(id: &Value, code: i32, message: &str) -> Vec<u8> {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
        .to_string()
        .into_bytes()
}

/// Bytes a success reply starts with room for: a view at 80 columns fits without growing.
const REPLY_BYTES: usize = 8 * 1024;

/// The start of the success reply to request `id`, `{"jsonrpc":"2.0","id":<id>,"result":`, for
/// its method to write its result after (see `methods::register`); [`end_reply`] ends it. The
/// reply is byte for byte what jsonrpsee writes, only without parsing the finished reply again
/// to validate it. `id` is jsonrpsee's `Id` or the `Value` it was read from, which serde_json
/// writes alike.
fn reply_head(id: &impl Serialize) -> Vec<u8> {
    let mut head = Vec::with_capacity(REPLY_BYTES);
    head.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut head, id).expect("an id serialises");
    head.extend_from_slice(br#","result":"#);
    head
}

/// Ends a success reply begun by [`reply_head`] whose result was written after the head.
fn end_reply(mut reply: Vec<u8>) -> Vec<u8> {
    reply.push(b'}');
    reply
}

/// A response jsonrpsee wrote for a call made with a stand-in id, with the request's own id.
fn with_id(response: &str, id: &Value) -> Vec<u8> {
    match serde_json::from_str::<Value>(response) {
        Ok(Value::Object(mut members)) => {
            if let Some(slot) = members.get_mut("id") {
                *slot = id.clone();
            }
            serde_json::to_vec(&members).expect("a response serialises")
        }
        _ => response.as_bytes().to_vec(),
    }
}

/// The answer to a request whose method panicked, whose change (if it made one) is undone;
/// the connection goes on.
fn panicked(link: &Link, method: &str, id: &Value) -> Vec<u8> {
    tracing::error!(method, "a request panicked; the connection goes on");
    let (mut client, mut state) = link.lock();
    state.rollback(&mut client);
    error_response(
        id,
        code::INTERNAL_ERROR,
        "internal error: the request failed; see the server log",
    )
}

/// What handling one message led to.
enum Handled {
    /// A response to send (or to put in a batch's array).
    Reply(Vec<u8>),
    /// Nothing to send now (a notification, or an `ask` that stays pending).
    Quiet,
    /// `exit`: end the process.
    Exit,
}

/// A pending `ask`: the session it opened (its id and serial: a later session of the same id
/// is another) and the task that answers it.
struct PendingAsk {
    session: String,
    serial: u64,
    task: AbortHandle,
}

/// Pending `ask` requests by JSON-encoded request id.
type Pending = Arc<Mutex<HashMap<String, PendingAsk>>>;

struct Connection {
    module: Arc<RpcModule<Link>>,
    link: Link,
    pending: Pending,
    out: Outgoing,
    asks: JoinSet<()>,
    max_reply_bytes: usize,
    max_message_bytes: usize,
    /// The largest message, a `restore` (see [`Config::max_restore_message_bytes`]).
    max_frame_bytes: usize,
    /// The task that sends the notifications the connection is owed.
    notifier: Option<AbortHandle>,
}

/// Whether a message is a single `restore` request (the only message that may be larger than
/// `--max-message-bytes`).
fn is_restore(bytes: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct MethodOnly<'a> {
        #[serde(borrow)]
        method: Option<Cow<'a, str>>,
    }
    bytes.trim_ascii_start().first() == Some(&b'{')
        && serde_json::from_slice::<MethodOnly>(bytes)
            .ok()
            .and_then(|m| m.method)
            .is_some_and(|m| m == "restore")
}

/// Serves one connection until end of input or `exit`, on state of its own.
pub async fn serve<R, W>(reader: R, writer: W, config: Config) -> std::io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_shared(reader, writer, Arc::new(Mutex::new(State::new(config)))).await
}

/// Serves one byte-stream connection (stdin and stdout) until end of input or `exit`, on
/// `state`, which other connections (the WebSocket listener's) may share.
pub async fn serve_shared<R, W>(reader: R, writer: W, state: Shared) -> std::io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let config = lock(&state).config().clone();
    let (out, outgoing) = Outgoing::new(config.max_pending_bytes);
    let mut frames = FrameReader::new(reader, config.max_restore_message_bytes());
    let mut connection = Connection::new(state.clone(), out);
    // The timer of the session table: one per process, beside standard input's connection.
    let timer = tokio::spawn(expire_on_time(state.clone()));
    let mut outgoing = Some(outgoing);
    // The framing is known once the first frame has been read; the writer starts then.
    let mut writer_task = None;
    let mut writer = Some(writer);
    while let Some(frame) = frames.next().await {
        if writer_task.is_none() {
            let framing = frames.framing();
            let mut w = writer.take().expect("the writer starts once");
            let mut rx = outgoing.take().expect("the writer starts once");
            writer_task = Some(tokio::spawn(async move {
                while let Some((message, permit)) = rx.recv().await {
                    if write_frame(&mut w, framing, message).await.is_err() {
                        break;
                    }
                    drop(permit);
                }
            }));
        }
        match connection.handle(frame).await {
            Handled::Reply(message) => connection.out.send(message).await,
            Handled::Quiet => {}
            Handled::Exit => break,
        }
    }
    timer.abort();
    connection.finish().await;
    lock(&state).close_store();
    // The writer stops once everything queued is written.
    drop(connection);
    if let Some(task) = writer_task {
        let _ = task.await;
    }
    Ok(())
}

/// Longest the timer sleeps at once; it then looks at the deadlines again (a wall clock that
/// moved is caught up with at the latest then).
const MAX_TIMER_SLEEP: Duration = Duration::from_secs(3600);

/// The timer of a session table: sleeps until the earliest deadline of its flows (or until a
/// deadline is added) and hands the time to the state, which completes every flow whose
/// deadline has come, resolves its pending `ask` and tells the subscribers. The shell only
/// tells the time: the rule is the flow's (`Flow::expire`). Runs until aborted.
pub async fn expire_on_time(state: Shared) {
    let wake = lock(&state).timer();
    loop {
        let next = lock(&state).next_deadline();
        match next {
            None => wake.notified().await,
            Some(at) => {
                let wait = Duration::from_millis(at.saturating_sub(now_ms())).min(MAX_TIMER_SLEEP);
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = wake.notified() => {}
                }
            }
        }
        lock(&state).expire_due(now_ms());
    }
}

/// Polls a future once, catching a panic inside it.
async fn poll_once<F: Future + Unpin>(f: &mut F) -> Result<Poll<F::Output>, ()> {
    std::future::poll_fn(|cx| {
        Poll::Ready(std::panic::catch_unwind(AssertUnwindSafe(|| {
            Pin::new(&mut *f).poll(cx)
        })))
    })
    .await
    .map_err(|_| ())
}

impl Connection {
    /// A new connection on `state`, sending what it answers outside [`Handled::Reply`] (a
    /// batch's reply, a finished `ask`) and the notifications it is owed to `out` (from a task
    /// of the runtime it is made on).
    fn new(state: Shared, out: Outgoing) -> Connection {
        let mut connection = Connection::quiet(Link::new(state), out);
        let notifier = tokio::spawn(notify::deliver(
            connection.link.clone(),
            connection.out.clone(),
        ));
        connection.notifier = Some(notifier.abort_handle());
        connection
    }

    /// A connection of `link` that sends no notifications.
    fn quiet(link: Link, out: Outgoing) -> Connection {
        let config = lock(&link.state).config().clone();
        Connection {
            module: Arc::new(methods::module(link.clone())),
            link,
            pending: Arc::default(),
            out,
            asks: JoinSet::new(),
            max_reply_bytes: config.max_reply_bytes,
            max_message_bytes: config.max_message_bytes,
            max_frame_bytes: config.max_restore_message_bytes(),
            notifier: None,
        }
    }

    /// The answer to a message longer than the limit (`id: null`).
    fn too_large(&self) -> Handled {
        Handled::Reply(error_response(
            &Value::Null,
            code::LIMIT,
            &format!(
                "message too large: the limit is {} bytes ({} for a restore)",
                self.max_message_bytes, self.max_frame_bytes
            ),
        ))
    }

    /// Handles one frame, or answers why it could not be read.
    async fn handle(&mut self, frame: Result<Vec<u8>, FrameError>) -> Handled {
        match frame {
            Err(FrameError::TooLarge { .. }) => self.too_large(),
            Err(FrameError::BadHeader(message)) => Handled::Reply(error_response(
                &Value::Null,
                code::PARSE_ERROR,
                &format!("parse error: {message}"),
            )),
            Ok(bytes) if bytes.len() > self.max_message_bytes && !is_restore(&bytes) => {
                self.too_large()
            }
            Ok(bytes) => self.handle_frame(bytes).await,
        }
    }

    /// At the end of input: every `ask` whose flow completed is answered; those still waiting
    /// for their flow end unanswered, and no more notifications are sent.
    async fn finish(&mut self) {
        if let Some(notifier) = &self.notifier {
            notifier.abort();
        }
        let waiting: Vec<AbortHandle> = {
            let pending = lock(&self.pending);
            let state = lock(&self.link.state);
            pending
                .values()
                .filter(|ask| state.is_waiting(&ask.session, ask.serial))
                .map(|ask| ask.task.clone())
                .collect()
        };
        for task in waiting {
            task.abort();
        }
        while self.asks.join_next().await.is_some() {}
    }

    async fn handle_frame(&mut self, bytes: Vec<u8>) -> Handled {
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                return Handled::Reply(error_response(
                    &Value::Null,
                    code::PARSE_ERROR,
                    &format!(
                        "parse error: invalid UTF-8 at byte {}",
                        e.utf8_error().valid_up_to()
                    ),
                ));
            }
        };
        match self.call_directly(&text) {
            Some(handled) => handled,
            None => self.handle_text(text).await,
        }
    }

    /// The general path: any message, checked rule by rule.
    async fn handle_text(&mut self, text: String) -> Handled {
        let value: Value = match serde_json::from_str(&text) {
            Ok(value) => value,
            Err(e) => {
                return Handled::Reply(error_response(
                    &Value::Null,
                    code::PARSE_ERROR,
                    &format!("parse error: {e}"),
                ));
            }
        };
        match value {
            Value::Array(items) if items.is_empty() => Handled::Reply(error_response(
                &Value::Null,
                code::INVALID_REQUEST,
                "invalid request: empty batch",
            )),
            Value::Array(items) if items.len() > MAX_BATCH => Handled::Reply(error_response(
                &Value::Null,
                code::LIMIT,
                &format!(
                    "batch too large: {} messages; the limit is {MAX_BATCH}",
                    items.len()
                ),
            )),
            Value::Array(items) => {
                let mut batch = vec![b'['];
                let mut exit = false;
                for item in items {
                    // The batch's replies share the budget: `[`, `]` and the commas included.
                    let budget = self.max_reply_bytes.saturating_sub(batch.len() + 2);
                    match self.handle_message(item, None, Some(budget)).await {
                        Handled::Reply(r) => {
                            if batch.len() > 1 {
                                batch.push(b',');
                            }
                            batch.extend(r);
                        }
                        Handled::Quiet => {}
                        Handled::Exit => exit = true,
                    }
                }
                if batch.len() > 1 {
                    batch.push(b']');
                    self.out.send(batch).await;
                }
                if exit { Handled::Exit } else { Handled::Quiet }
            }
            single => self.handle_message(single, Some(text), None).await,
        }
    }

    /// One message: a request, a notification, or something else; `batch_budget` is what a
    /// batch has left of the reply budget when the message is part of one.
    async fn handle_message(
        &mut self,
        message: Value,
        text: Option<String>,
        batch_budget: Option<usize>,
    ) -> Handled {
        let Value::Object(object) = &message else {
            return Handled::Reply(error_response(
                &Value::Null,
                code::INVALID_REQUEST,
                "invalid request: expected a request object",
            ));
        };
        let id = object.get("id").cloned();
        let reply_id = match &id {
            Some(v @ (Value::String(_) | Value::Null)) => v.clone(),
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Value::Number(n.clone()),
            Some(_) => {
                return Handled::Reply(error_response(
                    &Value::Null,
                    code::INVALID_REQUEST,
                    "invalid request: \"id\" must be a string, an integer or null",
                ));
            }
            None => Value::Null,
        };
        let invalid = |m: &str| Handled::Reply(error_response(&reply_id, code::INVALID_REQUEST, m));
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return invalid("invalid request: \"jsonrpc\" must be \"2.0\"");
        }
        let Some(method) = object.get("method").and_then(Value::as_str) else {
            return invalid("invalid request: \"method\" must be a string");
        };
        // A well-formed message without an id is a notification: it is never answered, not
        // even with an error.
        let is_notification = id.is_none();
        let answer = |reply: Vec<u8>| {
            if is_notification {
                Handled::Quiet
            } else {
                Handled::Reply(reply)
            }
        };
        let params = object.get("params");
        if params.is_some_and(|p| !p.is_object() && !p.is_null()) {
            return answer(error_response(
                &reply_id,
                code::INVALID_PARAMS,
                "invalid params: \"params\" must be an object",
            ));
        }
        match method {
            "exit" => return Handled::Exit,
            "$/cancelRequest" => {
                self.cancel_request(params);
                return answer(
                    json!({ "jsonrpc": "2.0", "id": reply_id, "result": null })
                        .to_string()
                        .into_bytes(),
                );
            }
            m if !METHODS.contains(&m) => {
                if is_notification {
                    tracing::debug!(method = m, "ignoring an unknown notification");
                }
                return answer(error_response(
                    &reply_id,
                    code::METHOD_NOT_FOUND,
                    &format!("method not found: {}", quoted(m)),
                ));
            }
            "ask" if batch_budget.is_some() => {
                return answer(error_response(
                    &reply_id,
                    code::INVALID_REQUEST,
                    "invalid request: \"ask\" cannot be part of a batch; it stays pending until its flow completes",
                ));
            }
            _ => {}
        }
        // A negative id is called with a stand-in (jsonrpsee takes none), and the reply gets
        // the request's own. Notifications run the same way and their response is dropped; an
        // `ask` notification opens its flow without waiting for it.
        let method_called = if is_notification && method == "ask" {
            "open"
        } else {
            method
        };
        let stand_in = is_notification || reply_id.as_i64().is_some_and(|n| n < 0);
        let call_id = if stand_in { json!(0) } else { reply_id.clone() };
        let request = match text {
            Some(text) if !stand_in => text,
            _ => json!({ "jsonrpc": "2.0", "id": call_id, "method": method_called, "params": params })
                .to_string(),
        };
        let own_id = move |response: &str, id: &Value| {
            if stand_in {
                with_id(response, id)
            } else {
                response.as_bytes().to_vec()
            }
        };
        let module = self.module.clone();
        let mut call = Box::pin(async move { module.raw_json_request(&request, 1).await });
        let budget = batch_budget.unwrap_or(self.max_reply_bytes);
        self.begin_reply(&reply_id, budget, batch_budget.is_some());
        let polled = poll_once(&mut call).await;
        let finished = self.take_finished();
        let reply = match polled {
            Err(()) => Some(panicked(&self.link, method, &reply_id)),
            Ok(Poll::Ready(Ok(_))) if let Some(reply) = finished => Some(end_reply(reply)),
            Ok(Poll::Ready(Ok((response, _)))) => Some(own_id(response.get(), &reply_id)),
            Ok(Poll::Ready(Err(e))) => Some(error_response(
                &reply_id,
                code::INVALID_REQUEST,
                &format!("invalid request: {e}"),
            )),
            Ok(Poll::Pending) => {
                let session = lock(&self.link.client).take_last_ask();
                let key = reply_id.to_string();
                let out = self.out.clone();
                let pending = self.pending.clone();
                let removed = key.clone();
                let max_reply = self.max_reply_bytes;
                let id = reply_id.clone();
                let task = self.asks.spawn(async move {
                    if let Ok((response, _)) = call.await {
                        let mut reply = own_id(response.get(), &id);
                        if reply.len() > max_reply {
                            reply = error_response(
                                &id,
                                code::LIMIT,
                                &format!(
                                    "reply too large: the reply would pass the limit of {max_reply} bytes (--max-reply-bytes)"
                                ),
                            );
                        }
                        out.send(reply).await;
                    }
                    lock(&pending).remove(&removed);
                });
                if let Some((session, serial)) = session {
                    lock(&self.pending).insert(
                        key,
                        PendingAsk {
                            session,
                            serial,
                            task,
                        },
                    );
                }
                None
            }
        };
        match reply {
            Some(reply) => answer(reply),
            None => Handled::Quiet,
        }
    }

    /// Answers a request of the common shape (see [`Call`]) from its synchronous method in
    /// the registry; `None` leaves the message to the general path.
    fn call_directly(&self, text: &str) -> Option<Handled> {
        let call = Call::parse(text)?;
        let Some(MethodCallback::Sync(method)) = self.module.method(call.method) else {
            return None;
        };
        let params = Params::new(call.params);
        self.begin_reply(&call.id, self.max_reply_bytes, false);
        let response = std::panic::catch_unwind(AssertUnwindSafe(|| {
            method(call.id.clone(), params, usize::MAX, Extensions::new())
        }));
        let finished = self.take_finished();
        Some(Handled::Reply(match response {
            Ok(_) if let Some(reply) = finished => end_reply(reply),
            Ok(response) => String::from(Box::<str>::from(response.into_json())).into_bytes(),
            Err(_) => {
                let id = match call.id {
                    Id::Number(n) => Value::from(n),
                    Id::Str(s) => Value::from(s.as_ref()),
                    Id::Null => Value::Null,
                };
                panicked(&self.link, call.method, &id)
            }
        }))
    }

    /// Begins the success reply to request `id` in the state, forgetting any earlier reply,
    /// with `budget` bytes for the whole reply; every call of the registry is preceded by this.
    fn begin_reply(&self, id: &impl Serialize, budget: usize, in_batch: bool) {
        let (mut client, mut state) = self.link.lock();
        client.begin_reply(&mut state, reply_head(id), budget, in_batch);
    }

    /// The reply a synchronous method that succeeded left (see `methods::register`), taken.
    /// Every call of the registry is followed by this, whether it succeeded, failed or
    /// panicked, so no result answers a later request.
    fn take_finished(&self) -> Option<Vec<u8>> {
        lock(&self.link.client).take_finished()
    }

    /// `$/cancelRequest { id }`: aborts the flow of the pending `ask` with that request id,
    /// and of nothing else: not of a later session that reuses its session id.
    fn cancel_request(&self, params: Option<&Value>) {
        let Some(id) = params.and_then(|p| p.get("id")) else {
            return;
        };
        let ask = lock(&self.pending)
            .get(&id.to_string())
            .map(|ask| (ask.session.clone(), ask.serial));
        if let Some((session, serial)) = ask {
            let (client, mut state) = self.link.lock();
            state.abort_ask(&client, &session, serial);
        }
    }
}

/// A request of the common shape: one object with `"jsonrpc": "2.0"`, an id that is an
/// integer, a string without escapes or `null`, a method name without escapes and params that
/// are an object or absent. Such a request is read without building a `Value` tree and answered
/// exactly as the general path would answer it; every other message (notifications, batches,
/// unusual ids, anything in error) takes the general path, which words every error.
struct Call<'a> {
    id: Id<'a>,
    method: &'a str,
    params: Option<&'a str>,
}

impl<'a> Call<'a> {
    /// Reads `text` in one pass when it is a request of the common shape.
    fn parse(text: &'a str) -> Option<Call<'a>> {
        let call: Call = serde_json::from_str(text).ok()?;
        // Params were only skipped over; the general path would reject a number out of range
        // or a lone surrogate in them.
        if let Some(params) = call.params {
            serde_json::from_str::<WellFormed>(params).ok()?;
        }
        Some(call)
    }
}

/// The members of a request that the direct path reads; any other member is only checked to be
/// well formed. Names are compared decoded, as a `Value` would hold them.
#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Member {
    Jsonrpc,
    Id,
    Method,
    Params,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for Call<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(CallVisitor)
    }
}

/// Reads the members of a [`Call`], failing on anything of another shape: a member given
/// twice, a `jsonrpc` other than `"2.0"`, a name or id with escapes, params that are not an
/// object.
struct CallVisitor;

impl<'de> Visitor<'de> for CallVisitor {
    type Value = Call<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a request of the common shape")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<Call<'de>, A::Error> {
        use serde::de::Error;
        fn once<T, E: Error>(slot: &mut Option<T>, value: T) -> Result<(), E> {
            match slot.replace(value) {
                Some(_) => Err(E::custom("a member given twice")),
                None => Ok(()),
            }
        }
        let (mut jsonrpc, mut id, mut method, mut params) = (None, None, None, None);
        while let Some(member) = members.next_key::<Member>()? {
            match member {
                Member::Jsonrpc => once(&mut jsonrpc, members.next_value::<&str>()?)?,
                Member::Id => once(&mut id, members.next_value::<CallId>()?.0)?,
                Member::Method => once(&mut method, members.next_value::<&str>()?)?,
                Member::Params => {
                    let raw: &RawValue = members.next_value()?;
                    if !raw.get().starts_with('{') {
                        return Err(A::Error::custom("params that are not an object"));
                    }
                    once(&mut params, raw.get())?;
                }
                Member::Other => {
                    members.next_value::<WellFormed>()?;
                }
            }
        }
        match (jsonrpc, id, method) {
            (Some("2.0"), Some(id), Some(method)) => Ok(Call { id, method, params }),
            _ => Err(A::Error::custom("not a request of the common shape")),
        }
    }
}

/// A request id of the direct path: a non-negative integer, a string without escapes, or
/// `null`.
struct CallId<'a>(Id<'a>);

impl<'de> Deserialize<'de> for CallId<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CallIdVisitor)
    }
}

struct CallIdVisitor;

impl<'de> Visitor<'de> for CallIdVisitor {
    type Value = CallId<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a non-negative integer, a string without escapes, or null")
    }

    fn visit_u64<E>(self, n: u64) -> Result<CallId<'de>, E> {
        Ok(CallId(Id::Number(n)))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<CallId<'de>, E> {
        Ok(CallId(Id::Str(s.into())))
    }

    fn visit_unit<E>(self) -> Result<CallId<'de>, E> {
        Ok(CallId(Id::Null))
    }
}

/// Accepts exactly the JSON that parses into a `Value` (strings decoded, numbers in range),
/// without building one.
struct WellFormed;

impl<'de> Deserialize<'de> for WellFormed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(WellFormed)
    }
}

impl<'de> Visitor<'de> for WellFormed {
    type Value = WellFormed;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<WellFormed, E> {
        Ok(WellFormed)
    }

    fn visit_i64<E>(self, _: i64) -> Result<WellFormed, E> {
        Ok(WellFormed)
    }

    fn visit_u64<E>(self, _: u64) -> Result<WellFormed, E> {
        Ok(WellFormed)
    }

    fn visit_f64<E>(self, _: f64) -> Result<WellFormed, E> {
        Ok(WellFormed)
    }

    fn visit_str<E>(self, _: &str) -> Result<WellFormed, E> {
        Ok(WellFormed)
    }

    fn visit_unit<E>(self) -> Result<WellFormed, E> {
        Ok(WellFormed)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<WellFormed, A::Error> {
        while items.next_element::<WellFormed>()?.is_some() {}
        Ok(WellFormed)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<WellFormed, A::Error> {
        while members.next_entry::<WellFormed, WellFormed>()?.is_some() {}
        Ok(WellFormed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::outgoing::Queue;
    use jsonrpsee::types::ErrorObjectOwned;

    /// The receiving end of a connection's replies.
    type Output = Queue;

    fn connection() -> Connection {
        connection_with(|_| {}).0
    }

    /// A connection whose registry `adjust` may change, with the receiving end of its output.
    fn connection_with(adjust: impl FnOnce(&mut RpcModule<Link>)) -> (Connection, Output) {
        let link = Link::new(Arc::new(Mutex::new(State::new(Config::default()))));
        let mut module = methods::module(link.clone());
        adjust(&mut module);
        let (out, output) = Outgoing::new(usize::MAX);
        let mut connection = Connection::quiet(link, out);
        connection.module = Arc::new(module);
        (connection, output)
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    }

    /// What the connection answers to one frame: its reply, a batch's reply (which goes out by
    /// itself), or `(quiet)`.
    fn answer(
        runtime: &tokio::runtime::Runtime,
        (connection, output): &mut (Connection, Output),
        message: &str,
    ) -> String {
        match runtime.block_on(connection.handle_frame(message.as_bytes().to_vec())) {
            Handled::Quiet => output
                .try_recv()
                .map_or_else(|_| "(quiet)".into(), |(m, _)| text(m)),
            handled => reply(handled),
        }
    }

    /// A reply with the times sessions were opened at left out: two tables that open the same
    /// sessions a millisecond apart answer alike but for them.
    fn untimed(reply: &str) -> String {
        regex::Regex::new(r#""openedAt":\d+"#)
            .unwrap()
            .replace_all(reply, r#""openedAt":0"#)
            .into_owned()
    }

    /// Request ids of every form, as JSON: integers, strings with and without escapes, null.
    const IDS: &[&str] = &[
        "0",
        "7",
        "18446744073709551615",
        "null",
        r#""""#,
        r#""x""#,
        r#""1""#,
        r#""é😀""#,
        r#""a\"b""#,
        r#""\\""#,
        r#""\/""#,
        r#""\u00e9\ud83d\ude00""#,
        r#""\b\f\n\r\t\u0001\u001f\u007f\u2028""#,
    ];

    /// The reply the shell writes around a result is jsonrpsee's, byte for byte, for every id,
    /// whether the shell holds it as jsonrpsee's `Id` (direct path) or as a `Value` (general).
    #[test]
    fn success_replies_are_written_as_jsonrpsee_writes_them() {
        let result = r#"{"session":"s","view":{"lines":["a\"b",[1,2.5,null,true]]}}"#;
        let success_reply = |mut reply: Vec<u8>| {
            reply.extend_from_slice(result.as_bytes());
            text(end_reply(reply))
        };
        for raw in IDS {
            let id: Id = serde_json::from_str(raw).unwrap();
            let value: Value = serde_json::from_str(raw).unwrap();
            let payload =
                jsonrpsee::ResponsePayload::success(RawValue::from_string(result.into()).unwrap());
            let expected = jsonrpsee::MethodResponse::response(id.clone(), payload, usize::MAX);
            let expected = expected.as_json().get();
            assert_eq!(success_reply(reply_head(&id)), expected, "{raw}");
            assert_eq!(success_reply(reply_head(&value)), expected, "{raw}");
        }
    }

    /// A registry of some of the methods that hands jsonrpsee every result to write, as the
    /// registry did before the shell wrote success replies itself.
    fn jsonrpsee_module(link: Link) -> RpcModule<Link> {
        fn add<R: Serialize + 'static>(
            module: &mut RpcModule<Link>,
            name: &'static str,
            handler: fn(
                &mut State,
                &mut crate::server::state::Client,
                Option<&str>,
            ) -> Result<R, ErrorObjectOwned>,
        ) {
            module
                .register_method(name, move |params: Params, ctx: &Link, _| {
                    let (mut client, mut state) = ctx.lock();
                    let result = handler(&mut state, &mut client, params.as_str())?;
                    state.commit(&mut client);
                    Ok::<_, ErrorObjectOwned>(serde_json::value::to_raw_value(&result).unwrap())
                })
                .unwrap();
        }
        let mut module = RpcModule::new(link);
        add(&mut module, "open", State::open);
        add(&mut module, "key", State::key);
        add(&mut module, "getView", State::get_view);
        add(&mut module, "sessions", |s, c, _| {
            let mut list = Vec::new();
            s.sessions(c);
            s.write_list(c, &mut Bounded::new(&mut list, usize::MAX))
                .expect("the list is written");
            Ok(serde_json::from_slice::<Value>(&list).expect("the list is JSON"))
        });
        module
    }

    /// What jsonrpsee answers to `message` (a request, a notification, or a batch of them)
    /// through `module`, put together as the shell puts replies together.
    fn jsonrpsee_answer(
        runtime: &tokio::runtime::Runtime,
        module: &RpcModule<Link>,
        message: &str,
    ) -> String {
        let call = |request: &str| {
            let (reply, _) = runtime
                .block_on(module.raw_json_request(request, 1))
                .unwrap();
            reply.get().to_owned()
        };
        match serde_json::from_str(message).unwrap() {
            Value::Array(items) => {
                let mut replies = Vec::new();
                for mut item in items {
                    if item.get("id").is_some() {
                        replies.push(call(&item.to_string()));
                    } else {
                        item["id"] = Value::from(0);
                        call(&item.to_string());
                    }
                }
                format!("[{}]", replies.join(","))
            }
            single if single.get("id").is_some() => call(message),
            mut notification => {
                notification["id"] = Value::from(0);
                call(&notification.to_string());
                "(quiet)".into()
            }
        }
    }

    /// Every reply, on either path, alone or in a batch, is byte for byte what jsonrpsee
    /// answered when it wrote every reply itself, for request ids of every form.
    #[test]
    fn replies_are_jsonrpsee_replies_for_every_id() {
        let runtime = runtime();
        let mut connection = connection_with(|_| {});
        let reference = jsonrpsee_module(Link::new(Arc::new(Mutex::new(State::new(
            Config::default(),
        )))));
        let payload = crate::dialect::pi::EXAMPLE;
        let mut messages = vec![format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"open","params":{{"session":"s","width":80,"payload":{payload}}}}}"#
        )];
        for id in IDS {
            let key = |key: &str, session: &str| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"key","params":{{"session":"{session}","key":"{key}"}}}}"#
                )
            };
            // The direct path for integers, null and strings without escapes; the general
            // path for the other strings, and for every id when params are `null`.
            messages.push(key("down", "s"));
            messages.push(key("up", "none"));
            messages.push(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"sessions","params":null}}"#
            ));
            messages.push(format!(
                r#"[{{"jsonrpc":"2.0","id":{id},"method":"getView","params":{{"session":"s"}}}},{{"jsonrpc":"2.0","method":"key","params":{{"session":"s","key":"tab"}}}},{},{}]"#,
                key("down", "none"),
                key("down", "s"),
            ));
            messages.push(
                r#"{"jsonrpc":"2.0","method":"key","params":{"session":"s","key":"down"}}"#.into(),
            );
        }
        for message in &messages {
            let expected = jsonrpsee_answer(&runtime, &reference, message);
            assert_eq!(
                untimed(&answer(&runtime, &mut connection, message)),
                untimed(&expected),
                "{message}"
            );
        }
    }

    /// A result kept for its reply never answers another request: the shell takes it after a
    /// call that panics, fails or is a notification, and empties the slot before every call.
    #[test]
    fn no_result_outlives_its_request() {
        const STALE: &str = r#""stale""#;
        let runtime = runtime();
        let mut connection = connection_with(|module| {
            // The worst case: a method that panics after its result was kept.
            module.remove_method("shutdown");
            module
                .register_method(
                    "shutdown",
                    |_, ctx: &Link, _| -> Result<(), ErrorObjectOwned> {
                        lock(&ctx.client).set_finished(STALE.into());
                        panic!("a method panicking after its result was kept");
                    },
                )
                .unwrap();
        });
        let mut fresh = connection_with(|_| {});
        let payload = crate::dialect::pi::EXAMPLE;
        let spare = Link::new(Arc::new(Mutex::new(State::new(Config::default()))));
        let panicked_reply = |id: Value| text(panicked(&spare, "shutdown", &id));
        let leaders = [
            (
                r#"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#.to_string(),
                panicked_reply(Value::from(3)),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"\u0034","method":"shutdown"}"#.into(),
                panicked_reply(Value::from("4")),
            ),
            (
                r#"[{"jsonrpc":"2.0","id":5,"method":"shutdown"}]"#.into(),
                format!("[{}]", panicked_reply(Value::from(5))),
            ),
            (
                r#"{"jsonrpc":"2.0","method":"shutdown"}"#.into(),
                "(quiet)".into(),
            ),
            (
                format!(
                    r#"{{"jsonrpc":"2.0","method":"open","params":{{"session":"n","payload":{payload}}}}}"#
                ),
                "(quiet)".into(),
            ),
            (
                format!(
                    r#"{{"jsonrpc":"2.0","method":"ask","params":{{"session":"m","payload":{payload}}}}}"#
                ),
                "(quiet)".into(),
            ),
            (
                format!(
                    r#"{{"jsonrpc":"2.0","id":6,"method":"ask","params":{{"session":"p","payload":{payload}}}}}"#
                ),
                "(quiet)".into(),
            ),
        ];
        let failing = [
            r#"{"jsonrpc":"2.0","id":1,"method":"key","params":{"session":"none","key":"up"}}"#,
            r#"{"jsonrpc":"2.0","id":"\u0032","method":"key","params":{"session":"none","key":"up"}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"key","params":{"session":"none","key":"up"}}]"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"ask","params":{}}"#,
        ];
        for (leader, expected) in &leaders {
            assert_eq!(
                answer(&runtime, &mut connection, leader),
                *expected,
                "{leader}"
            );
            assert_eq!(
                lock(&connection.0.link.client).take_finished(),
                None,
                "after {leader}"
            );
            for message in failing {
                let expected = answer(&runtime, &mut fresh, message);
                assert_eq!(
                    answer(&runtime, &mut connection, message),
                    expected,
                    "{message}"
                );
            }
        }
        for message in failing {
            lock(&connection.0.link.client).set_finished(STALE.into());
            let expected = answer(&runtime, &mut fresh, message);
            assert_eq!(
                answer(&runtime, &mut connection, message),
                expected,
                "{message}"
            );
        }
    }

    /// A reply as text.
    fn text(reply: Vec<u8>) -> String {
        String::from_utf8(reply).expect("replies are UTF-8")
    }

    fn reply(handled: Handled) -> String {
        match handled {
            Handled::Reply(reply) => text(reply),
            Handled::Quiet => "(quiet)".into(),
            Handled::Exit => "(exit)".into(),
        }
    }

    /// Every message gets the same reply whether or not it takes the direct path.
    #[test]
    fn the_direct_path_answers_as_the_general_path() {
        let payload = crate::dialect::pi::EXAMPLE;
        let open = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"open","params":{{"session":"s","width":80,"payload":{payload}}}}}"#
        );
        let direct = [
            open.as_str(),
            r#"{"jsonrpc":"2.0","id":2,"method":"key","params":{"session":"s","key":"down"}}"#,
            r#" {"params":{"key":"up","session":"s"},"method":"key","id":"x","jsonrpc":"2.0"} "#,
            r#"{"jsonrpc":"2.0","id":null,"method":"getView","params":{"session":"s"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"sessions","other":[1,{"a":null}]}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"key","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"key","params":{ "session" : 5 }}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"key","params":{"session":"s","key":"\u0074ab"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"key","params":{"session":"s","key":"x","key":"y"}}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"snapshot","params":{"session":"s"}}"#,
            r#"{"\u006asonrpc":"2.0","i\u0064":24,"method":"sessions"}"#,
        ];
        let general = [
            r#"{"jsonrpc":"2.0","id":8,"method":"key","params":{"session":"s","key":"\ud800"}}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"key","params":{"session":"s","key":"tab","n":1e999}}"#,
            r#"{"jsonrpc":"2.0","id":10,"method":"key","params":{"session":"s"},"x":"\udc00"}"#,
            r#"{"jsonrpc":"2.0","id":11,"method":"key","params":null}"#,
            r#"{"jsonrpc":"2.0","id":12,"method":"key","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":-13,"method":"sessions"}"#,
            r#"{"jsonrpc":"2.0","id":14.5,"method":"sessions"}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"sessions"}"#,
            r#"{"jsonrpc":"2.0","id":"a\"b","method":"sessions"}"#,
            r#"{"jsonrpc":"2.0","id":15,"method":"sessions","id":16}"#,
            r#"{"jsonrpc":"2.0","id":17,"method":"s\u0065ssions"}"#,
            r#"{"jsonrpc":"2\u002e0","id":18,"method":"sessions"}"#,
            r#"{"jsonrpc":"2.0","id":19,"method":"nope"}"#,
            r#"{"jsonrpc":"2.0","id":20,"method":"exit"}"#,
            r#"{"jsonrpc":"2.0","method":"sessions"}"#,
            r#"["2.0",21,"sessions"]"#,
            r#"[{"jsonrpc":"2.0","id":22,"method":"sessions"}]"#,
            r#"{"jsonrpc":"2.0","id":23,"method":"sessions"} x"#,
            r#"{"jsonrpc":"2.0","id":25,"method":"getView","params":{"session":"s"},"params":{}}"#,
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":26,"method":"sessions"}"#,
            r#"{"jsonrpc":"2.0","id":27,"method":"key","params":{"session":"s","x":[{"n":-1e400}]}}"#,
            r#"{"jsonrpc":"2.0","id":28,"method":"sessions","params":{"\udc00":1}}"#,
            r#"{"jsonrpc":2.0,"id":29,"method":"sessions"}"#,
        ];
        let runtime = runtime();
        let (mut both, mut general_only) = (connection(), connection());
        for (message, takes_direct_path) in direct
            .iter()
            .map(|m| (m, true))
            .chain(general.iter().map(|m| (m, false)))
        {
            let direct = both.call_directly(message);
            assert_eq!(direct.is_some(), takes_direct_path, "{message}");
            let got = match direct {
                Some(handled) => reply(handled),
                None => reply(runtime.block_on(both.handle_text(message.to_string()))),
            };
            let expected = reply(runtime.block_on(general_only.handle_text(message.to_string())));
            assert_eq!(untimed(&got), untimed(&expected), "{message}");
        }
    }
}
