//! The crash loop: a client types a draft into a flow while the real binary is killed with
//! SIGKILL at random moments, again and again on one state directory; each new server takes
//! the flow up with exactly the draft acknowledged before the kill (or, when the kill came
//! between changes kept and their replies, with those changes too), never less, never anything
//! else.
//!
//! The moments are drawn from a seed printed on failure; a run is a fixed number of rounds of
//! a handful of short requests, well under a minute.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::support::Server;

/// Rounds of start, type, kill.
const ROUNDS: usize = 20;

/// Requests sent in one round, before the kill.
const INSERTS: usize = 12;

/// The flow of the draft: `3` opens the first question's custom row, whose text is the draft.
fn payload() -> Value {
    json!({
        "title": "Draft",
        "questions": [
            { "id": "why", "label": "Why", "prompt": "Why now?",
              "options": [{ "value": "fix", "label": "A fix" }, { "value": "feat", "label": "A feature" }] }
        ]
    })
}

/// The session of the draft.
const SESSION: &str = "draft";

/// Takes up the flow a killed server left in the state directory and answers its Step: `open`
/// of the same id and request with `resume` (the one place that says how a recovered flow is
/// resumed).
fn resume(server: &mut Server) -> Value {
    server.ok(
        "open",
        json!({ "session": SESSION, "payload": payload(), "width": 40, "resume": true }),
    )
}

/// A small generator of moments and texts (xorshift), from a seed.
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A short text of ASCII, accented letters, CJK, an emoji and line breaks.
    fn text(&mut self) -> String {
        const PIECES: [&str; 8] = ["a", "b", "é", "漢", "🙂", "\n", " ", "z9"];
        (0..1 + self.below(4))
            .map(|_| PIECES[self.below(PIECES.len() as u64) as usize])
            .collect()
    }
}

#[test]
fn every_acknowledged_draft_survives_kills_at_random_moments() {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("a clock after 1970")
        .as_nanos() as u64
        | 1;
    let mut draws = Draws(seed);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let state = dir.path().join("state");
    let state = state.to_str().expect("UTF-8");
    let mut draft = String::new();
    for round in 0..ROUNDS {
        let mut server = Server::start(&["serve", "--state-dir", state]);
        let step = if round == 0 {
            server.ok(
                "open",
                json!({ "session": SESSION, "payload": payload(), "width": 40 }),
            );
            server.ok("keys", json!({ "session": SESSION, "keys": "3" }))
        } else {
            resume(&mut server)
        };
        assert_eq!(
            step["view"]["editor"]["text"],
            json!(draft),
            "round {round}, seed {seed}: the draft taken up"
        );
        // Inserts sent at once, then a kill after a random wait: some are answered, one may
        // be cut in the middle.
        let mut drafts = vec![draft.clone()];
        for n in 0..INSERTS {
            let text = draws.text();
            let mut next = drafts.last().expect("one").clone();
            next.push_str(&text);
            drafts.push(next);
            server.send(&json!({
                "jsonrpc": "2.0", "id": n, "method": "insert",
                "params": { "session": SESSION, "text": text }
            }));
        }
        std::thread::sleep(Duration::from_micros(draws.below(4_000)));
        server.kill();
        let replies = server.whole_messages_left();
        for (n, reply) in replies.iter().enumerate() {
            assert_eq!(reply["id"], json!(n), "round {round}, seed {seed}: {reply}");
            assert_eq!(
                reply["result"]["view"]["editor"]["text"],
                json!(drafts[n + 1]),
                "round {round}, seed {seed}: {reply}"
            );
        }
        let acknowledged = replies.len();
        // The next server has what was acknowledged, or a later state of the ones sent: the
        // changes kept whose replies the kill cut (still in askd's queue, or cut in the pipe).
        let mut next = Server::start(&["serve", "--state-dir", state]);
        let step = resume(&mut next);
        let taken = step["view"]["editor"]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("round {round}, seed {seed}: no editor in {step}"))
            .to_owned();
        let kept = drafts[acknowledged..]
            .iter()
            .position(|d| *d == taken)
            .unwrap_or_else(|| {
                panic!(
                    "round {round}, seed {seed}: {acknowledged} inserts acknowledged, {:?} taken up, {:?} expected",
                    taken, drafts[acknowledged]
                )
            });
        draft = drafts[acknowledged + kept].clone();
        next.kill();
    }
}
