//! The method registry: every protocol method name bound to its handler in `State`.

use std::sync::{Arc, Mutex, MutexGuard};

use jsonrpsee::RpcModule;
use jsonrpsee::types::{ErrorCode, ErrorObjectOwned, Params};
use serde_json::Value;

use crate::server::answer::{Answer, Listing};
use crate::server::protocol::{Bounded, Step, code, error};
use crate::server::state::{Client, SnapshotOf, State, Traced};
use crate::view::View;

/// The session table and everything else every connection of the process shares.
pub type Shared = Arc<Mutex<State>>;

/// What one connection's requests act on: the state every connection shares, and what the
/// connection keeps for itself. Both are locked for a request, the connection's first.
#[derive(Clone)]
pub struct Link {
    /// What every connection shares.
    pub state: Shared,
    /// What this connection keeps for itself.
    pub client: Arc<Mutex<Client>>,
}

impl Link {
    /// A new connection on `state`.
    pub fn new(state: Shared) -> Link {
        let client = lock(&state).client();
        Link {
            state,
            client: Arc::new(Mutex::new(client)),
        }
    }

    /// Both locked, in the one order every lock of both follows: the connection's, then the
    /// shared state.
    pub fn lock(&self) -> (MutexGuard<'_, Client>, MutexGuard<'_, State>) {
        let client = lock(&self.client);
        (client, lock(&self.state))
    }
}

/// A method answered from the state; its result type is serialised straight into the reply.
type Handler<R> = fn(&mut State, &mut Client, Option<&str>) -> Result<R, ErrorObjectOwned>;

/// Locks shared state; a panic in an earlier request does not poison later ones.
pub fn lock<T>(shared: &Mutex<T>) -> MutexGuard<'_, T> {
    shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Registers synchronous methods that answer with `R`.
///
/// The result is serialised here, once, right after the reply's envelope that the shell began
/// in the connection's state ([`Client::begin_reply`]), and the reply is kept there
/// ([`Client::set_finished`]); jsonrpsee is handed only `()` as a placeholder, and the shell
/// ends and sends the kept reply itself (`server::reply_head`). Why: jsonrpsee validates every
/// reply it builds by parsing it again, which for a view of a few KB is about a quarter of the
/// work of a `key` request, and a result that serde_json wrote from a typed value is valid JSON
/// by construction. Errors take jsonrpsee's path as before, and a reply is kept only when the
/// method succeeds. The shell begins a reply before every call (forgetting any earlier one) and
/// takes it right after, whatever the call did, so a result never outlives its request.
///
/// The result is written within the reply's budget (`--max-reply-bytes`, or what a batch has
/// left of it): writing stops at the budget, the method's change is rolled back and the
/// request fails with -32004. Otherwise the change is committed before the reply is sent.
/// Both locks are held from the change to its commit, so no other connection sees a change
/// that is then undone.
fn register<R: Answer + 'static>(
    module: &mut RpcModule<Link>,
    methods: &[(&'static str, Handler<R>)],
) {
    for &(name, handler) in methods {
        module
            .register_method(name, move |params: Params, ctx: &Link, _| {
                let (mut client, mut state) = ctx.lock();
                let (client, state) = (&mut *client, &mut *state);
                let (mut reply, limit) = client.take_begun_reply(state.config());
                state.expire_due_now();
                let result = match handler(state, client, params.as_str()) {
                    Ok(result) => result,
                    Err(e) => {
                        state.rollback(client);
                        return Err(e);
                    }
                };
                let mut out = Bounded::new(&mut reply, limit);
                if let Err(e) = result.write(&mut out, state, client) {
                    state.rollback(client);
                    if out.overflowed() {
                        return Err(client.reply_too_large(state.config()));
                    }
                    // As jsonrpsee answers a result it cannot serialise.
                    tracing::error!("cannot serialise a result: {e}");
                    return Err(ErrorObjectOwned::from(ErrorCode::InternalError));
                }
                state.commit(client);
                client.set_finished(reply);
                Ok::<(), ErrorObjectOwned>(())
            })
            .expect("method names are unique");
    }
}

/// Builds the registry for one connection.
pub fn module(link: Link) -> RpcModule<Link> {
    let mut module = RpcModule::new(link);
    register::<Step>(
        &mut module,
        &[
            ("open", State::open),
            ("key", State::key),
            ("insert", State::insert),
            ("activate", State::activate),
            ("setDraft", State::set_draft),
            ("saveCustom", State::save_custom),
            ("setNote", State::set_note),
            ("submitAnswers", State::submit_answers),
            ("cancel", State::cancel),
            ("restore", State::restore),
            ("recover", State::recover),
        ],
    );
    register::<Traced>(&mut module, &[("keys", State::keys)]);
    register::<View>(&mut module, &[("getView", State::get_view)]);
    register::<SnapshotOf>(&mut module, &[("snapshot", |s, _, p| s.snapshot(p))]);
    register::<Listing>(
        &mut module,
        &[("sessions", |s, c, _| {
            s.sessions(c);
            Ok(Listing)
        })],
    );
    register::<Value>(
        &mut module,
        &[
            ("initialize", State::initialize),
            ("getResult", |s, _, p| s.get_result(p)),
            ("close", State::close),
            ("discard", State::discard),
            ("subscribe", State::subscribe),
            ("unsubscribe", |_, c, _| Ok(State::unsubscribe(c))),
            ("hub/status", State::hub_status),
            ("shutdown", |_, _, _| Ok(Value::Null)),
        ],
    );
    module
        .register_async_method(
            "ask",
            |params: Params<'static>, ctx: Arc<Link>, _| async move {
                let waiter = {
                    let (mut client, mut state) = ctx.lock();
                    state.ask(&mut client, params.as_str())
                };
                match waiter {
                    Ok(rx) => rx.await.unwrap_or_else(|_| {
                        Err(error(
                            code::COMPLETED,
                            "the session was closed before it completed",
                        ))
                    }),
                    Err(e) => Err(e),
                }
            },
        )
        .expect("method names are unique");
    module
}
