//! Timeouts (`timeoutMs`) and the reasons a flow ends without an answer (behaviour §10): the
//! rule in the core (`Flow::expire`, time handed in as a value), the shell's part through the
//! session table with the time given, and the real binary's timer. No test measures time: the
//! core and the table are handed the time, and the binary's timer is only waited for within a
//! bound that turns a hang into a failure.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use askd::core::{CancelReason, EditorTarget, Focus, Outcome};
use askd::server::Bounded;
use askd::server::state::{Client, Config, MAX_DEADLINE, State};
use askd::session::{OpenOptions, Session, Status};
use serde_json::{Value, json};

use crate::common::{
    At, LANGS, SCOPE, answer, at, ed, editor, flow, open_main, payload, pos, press, restore, save,
    selected,
};
use crate::support::{GUARD, Server};

/// The main fixture with a deadline at `at`.
fn with_deadline(at: u64) -> Session {
    let options = OpenOptions {
        deadline: Some(at),
        ..OpenOptions::default()
    };
    Session::open(&payload(), &options).expect("a pi payload opens")
}

/// The time now in milliseconds since the Unix epoch, read by the test (to bound a deadline).
fn now() -> u64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is past 1970");
    u64::try_from(since.as_millis()).expect("milliseconds fit")
}

// The rule, in the core ------------------------------------------------------------------------

#[test]
fn a_flow_expires_at_its_deadline_and_not_before() {
    let mut s = with_deadline(10_000);
    press(&mut s, "<Space>");
    assert_eq!(flow(&s).deadline(), Some(10_000));
    assert_eq!(s.deadline(), Some(10_000));
    assert!(!s.expire(9_999));
    assert_eq!(s.status(), Status::Open);
    assert!(s.expire(10_000));
    assert_eq!(
        flow(&s).outcome(),
        Some(Outcome::Cancelled(CancelReason::Timeout))
    );
    assert_eq!(s.cancel_reason(), Some(CancelReason::Timeout));
    // What was entered stays; nothing is answered for the user.
    assert_eq!(answer(&s, SCOPE), selected(&[0]));
    // Done: a later time changes nothing, and the session no longer reports a deadline.
    let done = s.clone();
    assert!(!s.expire(20_000));
    assert_eq!(s, done);
    assert_eq!(s.deadline(), None);
    assert_eq!(flow(&s).deadline(), Some(10_000));
}

#[test]
fn a_late_time_expires_at_once_and_no_deadline_never_expires() {
    let mut s = with_deadline(10_000);
    assert!(s.expire(u64::MAX));
    assert_eq!(s.cancel_reason(), Some(CancelReason::Timeout));

    let mut s = open_main();
    assert_eq!(s.deadline(), None);
    let before = s.clone();
    assert!(!s.expire(u64::MAX));
    assert_eq!(s, before);
}

#[test]
fn expiring_drops_the_draft_of_an_open_editor() {
    let mut s = with_deadline(10_000);
    press(&mut s, "<Tab>4Go");
    assert_eq!(editor(&s), ed(EditorTarget::Custom, "Go", 2));
    assert!(s.expire(10_000));
    assert_eq!(editor(&s), None);
    assert_eq!(answer(&s, LANGS), askd::core::Answer::default());
}

#[test]
fn a_flow_that_ended_first_is_not_expired() {
    for keys in ["<Esc>", "<C-c>", "<Tab><Tab><Tab>1"] {
        let mut s = with_deadline(10_000);
        press(&mut s, keys);
        let done = s.clone();
        assert!(!s.expire(10_000), "{keys}");
        assert_eq!(s, done, "{keys}");
    }
}

#[test]
fn without_ui_or_invalid_there_is_no_deadline() {
    let options = OpenOptions {
        has_ui: false,
        deadline: Some(10_000),
        ..OpenOptions::default()
    };
    let mut s = Session::open(&payload(), &options).expect("opens");
    assert_eq!(s.cancel_reason(), Some(CancelReason::NoUi));
    assert_eq!(flow(&s).deadline(), None);
    assert!(!s.expire(u64::MAX));
    assert_eq!(s.cancel_reason(), Some(CancelReason::NoUi));

    let mut invalid =
        Session::open(&json!({ "questions": [] }), &OpenOptions::default()).expect("opens");
    assert_eq!(invalid.cancel_reason(), Some(CancelReason::InvalidInput));
    assert!(!invalid.expire(u64::MAX));
}

#[test]
fn keys_move_the_flow_as_usual_before_the_deadline() {
    let mut s = with_deadline(10_000);
    press(&mut s, "<Down>");
    assert_eq!(at(&s), pos(SCOPE, 1, Focus::Options));
    assert!(!s.expire(1));
    press(&mut s, "<CR>");
    assert_eq!(
        at(&s),
        At {
            tab: LANGS,
            row: 0,
            focus: Focus::Options,
            action: 0
        }
    );
}

// Snapshots keep the deadline ------------------------------------------------------------------

#[test]
fn a_snapshot_keeps_the_deadline_and_the_reason() {
    let mut s = with_deadline(123_456);
    press(&mut s, "<Down>");
    let state = save(&s, &payload());
    assert_eq!(state["flow"]["deadline"], json!(123_456));
    let back = restore(&state).expect("restores");
    assert_eq!(back, s);

    assert!(s.expire(123_456));
    let state = save(&s, &payload());
    assert_eq!(state["flow"]["outcome"], json!("cancelled"));
    assert_eq!(state["flow"]["cancelReason"], json!("timeout"));
    assert_eq!(restore(&state).expect("restores"), s);

    // Without a deadline the field is left out.
    let state = save(&open_main(), &payload());
    assert_eq!(state["flow"].get("deadline"), None);
    assert_eq!(state["flow"].get("cancelReason"), None);
}

#[test]
fn snapshots_of_every_reason_round_trip_and_bad_reasons_are_refused() {
    for reason in [
        CancelReason::User,
        CancelReason::Dismissed,
        CancelReason::Aborted,
        CancelReason::Timeout,
        CancelReason::Closed,
    ] {
        let mut s = open_main();
        s.flow_mut().expect("a flow").cancel(reason).expect("open");
        let state = save(&s, &payload());
        assert_eq!(state["flow"]["cancelReason"], json!(reason.name()));
        assert_eq!(restore(&state).expect("restores"), s, "{reason:?}");
    }
    // Snapshots written before reasons existed: `cancelled` is the user's, `aborted` the asker's.
    let mut s = open_main();
    s.flow_mut()
        .expect("a flow")
        .cancel(CancelReason::User)
        .expect("open");
    let mut old = save(&s, &payload());
    old["flow"]
        .as_object_mut()
        .expect("an object")
        .remove("cancelReason");
    assert_eq!(restore(&old).expect("restores"), s);
    old["flow"]["outcome"] = json!("aborted");
    let back = restore(&old).expect("restores");
    assert_eq!(back.cancel_reason(), Some(CancelReason::Aborted));

    let refused = |state: &Value| restore(state).expect_err("refused").to_string();
    let mut bad = save(&s, &payload());
    bad["flow"]["cancelReason"] = json!("invalid_input");
    assert_eq!(refused(&bad), "a flow cannot end as invalid_input");
    bad["flow"]["outcome"] = json!("submit");
    bad["flow"]["cancelReason"] = json!("user");
    assert_eq!(
        refused(&bad),
        "a cancelReason (user) belongs to a cancelled flow only"
    );
    let mut open = save(&open_main(), &payload());
    open["flow"]["cancelReason"] = json!("timeout");
    assert_eq!(refused(&open), "an open flow has no cancelReason");
    bad["flow"]["cancelReason"] = json!("later");
    assert_eq!(
        refused(&bad),
        "expected a snapshot as `snapshot` writes it (its members do not have their shape)"
    );
}

// The shell's part: the session table, handed the time ------------------------------------------

/// A session table and a Step of it as JSON.
fn json_of(step: askd::server::Step) -> Value {
    serde_json::to_value(step).expect("a Step serialises")
}

fn open_params(session: &str, timeout_ms: u64) -> String {
    json!({ "session": session, "payload": payload(), "timeoutMs": timeout_ms }).to_string()
}

#[test]
fn the_table_expires_due_flows_at_the_time_it_is_given_and_resolves_their_asks() {
    let mut state = State::new(Config::default());
    let mut client = state.client();
    let before = now();
    let step = json_of(
        state
            .open(&mut client, Some(&open_params("a", 3_600_000)))
            .expect("opens"),
    );
    let deadline = step["view"]["deadline"].as_u64().expect("a deadline");
    assert!(
        (before + 3_600_000..=now() + 3_600_000).contains(&deadline),
        "{deadline}"
    );
    let mut waiter = state
        .ask(&mut client, Some(&open_params("b", 7_200_000)))
        .expect("asks");
    let before_c = now();
    state
        .open(&mut client, Some(&open_params("c", 60_000)))
        .expect("opens");
    let earliest = state.next_deadline().expect("deadlines");
    assert!(
        (before_c + 60_000..=now() + 60_000).contains(&earliest),
        "{earliest}"
    );

    // Before any deadline nothing ends.
    state.expire_due(earliest - 1);
    assert!(waiter.try_recv().is_err());
    let statuses = |state: &State, client: &Client| {
        let mut out = Vec::new();
        state
            .write_list(client, &mut Bounded::new(&mut out, usize::MAX))
            .expect("the list is written");
        let list: Value = serde_json::from_slice(&out).expect("a list");
        list.as_array()
            .expect("a list")
            .iter()
            .map(|s| s["status"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(statuses(&state, &client), vec![json!("open"); 3]);

    // Past the first two deadlines, those flows end; the ask waits for its own.
    state.expire_due(deadline);
    assert_eq!(
        statuses(&state, &client),
        [json!("done"), json!("open"), json!("done")]
    );
    assert!(waiter.try_recv().is_err());
    let view = serde_json::to_value(
        state
            .get_view(&mut client, Some(&json!({ "session": "a" }).to_string()))
            .expect("a view"),
    )
    .expect("serialises");
    assert_eq!(view["outcome"], json!("cancelled"));
    assert_eq!(view["cancelReason"], json!("timeout"));
    assert_eq!(view["deadline"], Value::Null);

    state.expire_due(u64::MAX);
    let reply = waiter
        .try_recv()
        .expect("the ask resolved")
        .expect("a result");
    assert_eq!(reply["details"]["cancelReason"], json!("timeout"));
    assert_eq!(
        reply["content"],
        json!([{ "type": "text", "text": "The ask flow timed out before the user answered" }])
    );
    assert_eq!(state.next_deadline(), None);
}

#[test]
fn a_flow_done_before_its_deadline_leaves_no_deadline_behind() {
    let mut state = State::new(Config::default());
    let mut client = state.client();
    state
        .open(&mut client, Some(&open_params("a", 60_000)))
        .expect("opens");
    assert!(state.next_deadline().is_some());
    state
        .key(
            &mut client,
            Some(&json!({ "session": "a", "key": "escape" }).to_string()),
        )
        .expect("cancels");
    // The shell commits a change once its reply is written.
    state.commit(&mut client);
    assert_eq!(state.next_deadline(), None);
    let result = state
        .get_result(Some(&json!({ "session": "a" }).to_string()))
        .expect("a result");
    assert_eq!(result["details"]["cancelReason"], json!("user"));
}

#[test]
fn timeout_zero_completes_at_once_and_a_past_snapshot_deadline_on_restore() {
    let mut state = State::new(Config::default());
    let mut client = state.client();
    let step = json_of(
        state
            .open(&mut client, Some(&open_params("now", 0)))
            .expect("opens"),
    );
    assert_eq!(step["status"], json!("done"));
    assert_eq!(step["result"]["details"]["cancelReason"], json!("timeout"));
    assert_eq!(step["transcript"]["result"], json!("Cancelled (timed out)"));

    let mut s = open_main();
    s.flow_mut().expect("a flow").set_deadline(Some(1));
    let restored = json_of(
        state
            .restore(
                &mut client,
                Some(&json!({ "state": save(&s, &payload()), "session": "old" }).to_string()),
            )
            .expect("restores"),
    );
    assert_eq!(restored["status"], json!("done"));
    assert_eq!(restored["view"]["cancelReason"], json!("timeout"));

    let mut waiter = state
        .ask(&mut client, Some(&open_params("ask", 0)))
        .expect("asks");
    let reply = waiter
        .try_recv()
        .expect("resolved at once")
        .expect("a result");
    assert_eq!(reply["details"]["cancelReason"], json!("timeout"));
}

#[test]
fn deadlines_are_capped_for_javascript() {
    let mut state = State::new(Config::default());
    let mut client = state.client();
    let step = json_of(
        state
            .open(&mut client, Some(&open_params("far", u64::MAX)))
            .expect("opens"),
    );
    assert_eq!(step["view"]["deadline"], json!(MAX_DEADLINE));
    assert_eq!(MAX_DEADLINE, 9_007_199_254_740_991);
    let bad = state
        .open(
            &mut client,
            Some(&json!({ "session": "neg", "payload": payload(), "timeoutMs": -1 }).to_string()),
        )
        .expect_err("refused");
    assert_eq!(bad.code(), -32602);
}

/// Without the timer, the table still never lets a request see a flow past its deadline as
/// open: the request expires it first. Waits within a bound for a one-millisecond deadline
/// to pass.
#[test]
fn a_request_after_the_deadline_finds_the_flow_timed_out() {
    let mut state = State::new(Config::default());
    let mut client = state.client();
    state
        .open(&mut client, Some(&open_params("a", 1)))
        .expect("opens");
    let limit = Instant::now() + GUARD;
    loop {
        assert!(Instant::now() < limit, "the deadline never passed");
        state.expire_due_now();
        let result = state
            .get_result(Some(&json!({ "session": "a" }).to_string()))
            .expect("a result or null");
        if !result.is_null() {
            assert_eq!(result["details"]["cancelReason"], json!("timeout"));
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

// The real binary ---------------------------------------------------------------------------------

#[test]
fn the_timer_resolves_a_pending_ask_at_its_deadline() {
    let mut s = Server::start(&[]);
    let id = json!("timed");
    s.send(&json!({
        "jsonrpc": "2.0", "id": id, "method": "ask",
        // Long enough for the view below to come first on a loaded machine.
        "params": { "session": "t", "payload": payload(), "timeoutMs": 2_000 }
    }));
    let view = s.view("t");
    assert_eq!(view["status"], json!("open"));
    assert!(view["deadline"].as_u64().is_some());
    // Nothing else is sent: the timer ends the flow (waited for within the guard).
    let reply = s.reply_to(&id);
    assert_eq!(reply["result"]["details"]["cancelReason"], json!("timeout"));
    assert_eq!(reply["result"]["details"]["cancelled"], json!(true));
    let view = s.view("t");
    assert_eq!(view["status"], json!("done"));
    assert_eq!(view["cancelReason"], json!("timeout"));
    assert_eq!(
        s.err("key", json!({ "session": "t", "key": "enter" }))["code"],
        json!(-32002)
    );
    let (status, rest) = s.finish();
    assert!(status.success());
    assert_eq!(rest, Vec::<Value>::new());
}

#[test]
fn a_dsh_ask_times_out_with_ask_timeout() {
    let mut s = Server::start(&[]);
    let id = json!(9);
    s.send(&json!({
        "jsonrpc": "2.0", "id": id, "method": "ask",
        "params": {
            "session": "d", "dialect": "dsh", "timeoutMs": 20,
            "payload": { "questions": [{ "id": "q", "question": "Go?", "options": [{ "label": "Yes" }] }] }
        }
    }));
    let reply = s.reply_to(&id);
    assert_eq!(
        reply["error"],
        json!({
            "code": -32010,
            "message": "The questions timed out before the user answered",
            "data": { "name": "UserQuestionError", "code": "ASK_TIMEOUT" }
        })
    );
    let step = s.ok("getResult", json!({ "session": "d" }));
    assert_eq!(
        step,
        json!({ "error": {
            "name": "UserQuestionError",
            "code": "ASK_TIMEOUT",
            "message": "The questions timed out before the user answered"
        } })
    );
}

#[test]
fn an_answer_before_the_deadline_wins_and_the_timer_then_changes_nothing() {
    let mut s = Server::start(&[]);
    let id = json!(1);
    s.send(&json!({
        "jsonrpc": "2.0", "id": id, "method": "ask",
        "params": { "session": "t", "payload": payload(), "timeoutMs": 3_600_000 }
    }));
    s.ok("keys", json!({ "session": "t", "keys": "1<Tab><Tab>1" }));
    let reply = s.reply_to(&id);
    assert_eq!(reply["result"]["details"]["cancelled"], json!(false));
    assert_eq!(reply["result"]["details"].get("cancelReason"), None);
    assert_eq!(s.view("t")["deadline"], Value::Null);
}

#[test]
fn close_ends_a_pending_ask_as_aborted() {
    let mut state = State::new(Config::default());
    let mut client = state.client();
    let mut waiter = state
        .ask(
            &mut client,
            Some(&json!({ "session": "a", "payload": payload() }).to_string()),
        )
        .expect("asks");
    state
        .close(&mut client, Some(&json!({ "session": "a" }).to_string()))
        .expect("closes");
    state.commit(&mut client);
    let reply = waiter.try_recv().expect("resolved").expect("a result");
    assert_eq!(reply["details"]["cancelReason"], json!("aborted"));
}
