//! `askd ask --attach` in a real terminal (tmux): the terminal as a person's client of the
//! hub. Agents ask through the Rust hub client, as `askd mcp` and `askd hook` do; the person
//! answers in the pane; the agents get the answers. Each test has a runtime directory and a
//! state directory of its own, and the hub it starts opens no browser.

use std::time::Duration;

use askd::cli::hub::{Event, HubClient, HubOptions, Question};
use askd::server::discovery::{self, HubFile};
use serde_json::{Value, json};

use crate::support::{ASKD, GUARD};
use crate::tmux::{PAUSE, POLLS, Pane};

/// The runtime and state directories of a test, and the hub started there, killed at the end.
struct Place {
    runtime: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        Place {
            runtime: tempfile::tempdir().unwrap(),
            state: tempfile::tempdir().unwrap(),
        }
    }

    /// The command line that runs `askd ask --attach` here.
    fn attach_command(&self) -> String {
        format!(
            "XDG_RUNTIME_DIR='{}' XDG_STATE_HOME='{}' ASKD_NO_BROWSER=1 \"$ASKD\" ask --attach",
            self.runtime.path().display(),
            self.state.path().display()
        )
    }

    /// The hub's discovery file, once there is one.
    fn hub(&self) -> HubFile {
        let path = self.runtime.path().join("askd").join(discovery::FILE);
        for _ in 0..1500 {
            if let Ok(text) = std::fs::read_to_string(&path)
                && let Ok(file) = serde_json::from_str(&text)
            {
                return file;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("no hub wrote {}", path.display());
    }

    /// Options of an agent named `name` that never starts a hub of its own.
    fn options(&self, name: &str) -> HubOptions {
        HubOptions {
            dir: Some(self.runtime.path().join("askd")),
            client_name: Some(name.to_owned()),
            askd: Some(ASKD.into()),
            start_wait: GUARD,
            ..HubOptions::default()
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let path = self.runtime.path().join("askd").join(discovery::FILE);
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(file) = serde_json::from_str::<HubFile>(&text)
        {
            // SAFETY: kill() only sends a signal.
            unsafe {
                libc::kill(file.pid as libc::pid_t, libc::SIGKILL);
            }
        }
    }
}

/// Waits until the pane shows a line that is `line` (both trimmed), letting the runtime's tasks
/// run meanwhile (the agents' connections); fails with the last capture if it never does.
async fn shows(pane: &Pane, what: &str, line: &str) {
    let mut screen = String::new();
    for _ in 0..POLLS {
        screen = pane.capture(false);
        if screen.lines().any(|l| l.trim() == line.trim()) {
            return;
        }
        tokio::time::sleep(PAUSE).await;
    }
    panic!("the screen {what} never showed {line:?}:\n{screen}");
}

/// A question of an agent: `title`, one single-choice question `env` with Prod and Dev.
fn question(session: &str, title: &str) -> Question {
    let mut question = Question::new(json!({
        "title": title,
        "questions": [{
            "id": "env",
            "label": "Env",
            "prompt": "Where to?",
            "options": [
                { "value": "prod", "label": "Prod" },
                { "value": "dev", "label": "Dev" }
            ]
        }]
    }));
    question.session = Some(session.to_owned());
    question.asker.folder = Some("/work/shop".to_owned());
    question
}

/// The answer of the pi dialect for `values` chosen on question `env`.
fn answered(result: &Value) -> Vec<String> {
    result["details"]["answers"]["env"]["values"]
        .as_array()
        .map(|values| {
            values
                .iter()
                .map(|v| v.as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_terminal_answers_the_waiting_flows_oldest_first_then_waits_for_more() {
    let place = Place::new();
    let pane = Pane::start("attach", "{}", &place.attach_command(), 80, 30);
    // No hub ran: the attached terminal started one, and waits.
    pane.expect_screen_loosely("waits", "Waiting for your agents' questions");
    let hub = place.hub();
    pane.expect_screen_loosely("names the hub", &format!("hub {}", hub.url));

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let agent = HubClient::connect(&place.options("claude")).await.unwrap();
        let mut first = agent.ask(question("first", "Deploy")).unwrap();
        let mut second = agent.ask(question("second", "Rollback")).unwrap();
        // The older one is shown, named with who asked, and the other counted.
        shows(
            &pane,
            "shows the oldest flow",
            "askd · Deploy (claude · /work/shop) · 1 more waiting",
        )
        .await;
        shows(&pane, "shows its question", " Where to?").await;
        // Dev, then the review's Submit.
        pane.keys(&["Down", "Enter"]);
        shows(&pane, "reviews the answer", " Env → Dev").await;
        pane.keys(&["Enter"]);
        let result = loop {
            match tokio::time::timeout(GUARD, first.next())
                .await
                .unwrap()
                .unwrap()
            {
                Event::Answered(Ok(result)) => break result,
                Event::Answered(Err(e)) => panic!("refused: {e}"),
                _ => {}
            }
        };
        assert_eq!(answered(&result), ["dev"], "{result}");

        // The next one follows by itself, with nothing else waiting.
        shows(
            &pane,
            "shows the next flow",
            "askd · Rollback (claude · /work/shop)",
        )
        .await;
        pane.keys(&["Enter"]);
        shows(&pane, "reviews the answer", " Env → Prod").await;
        pane.keys(&["Enter"]);
        let result = loop {
            match tokio::time::timeout(GUARD, second.next())
                .await
                .unwrap()
                .unwrap()
            {
                Event::Answered(Ok(result)) => break result,
                Event::Answered(Err(e)) => panic!("refused: {e}"),
                _ => {}
            }
        };
        assert_eq!(answered(&result), ["prod"], "{result}");
        shows(
            &pane,
            "waits again, counting what it answered",
            "Waiting for your agents' questions · 2 answered",
        )
        .await;

        // A flow answered elsewhere while shown leaves the screen, uncounted.
        let third = agent.ask(question("third", "Scale")).unwrap();
        shows(
            &pane,
            "shows a new flow",
            "askd · Scale (claude · /work/shop)",
        )
        .await;
        let person = HubClient::connect(&place.options("browser")).await.unwrap();
        let step = person
            .request(
                "submitAnswers",
                json!({ "session": "third", "answers": { "env": { "values": ["dev"] } } }),
            )
            .await
            .unwrap();
        assert_eq!(step["status"], "done");
        assert_eq!(answered(&third.answer().await.unwrap()), ["dev"]);
        shows(
            &pane,
            "waits again",
            "Waiting for your agents' questions · 2 answered",
        )
        .await;
    });

    // Esc between flows stops, with status 0 and the terminal as it was.
    pane.keys(&["Escape"]);
    assert_eq!(pane.wait_exit(), 0);
    pane.assert_terminal_restored();
}
