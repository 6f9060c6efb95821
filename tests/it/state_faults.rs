//! Faults of the state directory, and how the flows read back from it are listed, through the
//! real binary: files that are not what askd wrote
//! (a FIFO, a link, a name too long to set aside), a last line torn inside a character, and a
//! write that fails half-way (a full disk, here a file-size limit set on the running process).
//! Each ends with what the person typed still there, or set aside with a log line; nothing
//! hangs, nothing is deleted.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::{Server, untimed};

/// A flow with a custom row: `3` opens its editor.
fn payload() -> Value {
    json!({
        "title": "Deploy",
        "questions": [
            { "id": "env", "label": "Env", "prompt": "Where to?",
              "options": [{ "value": "prod", "label": "Prod" }, { "value": "dev", "label": "Dev" }] }
        ]
    })
}

/// A state directory of its own.
struct Dir(TempDir);

impl Dir {
    fn new() -> Dir {
        Dir(tempfile::tempdir().expect("a temporary directory"))
    }

    fn path(&self) -> PathBuf {
        self.0.path().join("state")
    }

    fn start(&self) -> Server {
        Server::start(&["--state-dir", self.path().to_str().expect("UTF-8")])
    }

    /// The directory of the (killed) process that wrote the state, and its flow log.
    fn written(&self) -> (PathBuf, PathBuf) {
        let dir = fs::read_dir(self.path())
            .expect("the state directory")
            .flatten()
            .map(|e| e.path())
            .find(|p| p.is_dir())
            .expect("a process's directory");
        let log = dir.join("s1.flow.log");
        assert!(log.is_file(), "{}", log.display());
        (dir, log)
    }

    /// The names in the state directory.
    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.path())
            .expect("the state directory")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

/// Opens the flow `call`, types `text` into its editor and answers its view.
fn typed(server: &mut Server, text: &str) -> Value {
    server.ok(
        "open",
        json!({ "session": "call", "payload": payload(), "width": 60 }),
    );
    server.ok("keys", json!({ "session": "call", "keys": "3" }));
    server.ok("insert", json!({ "session": "call", "text": text }));
    server.view("call")
}

/// A new server on the directory resumes `call` (asked for again with `resume`) exactly as
/// `view` shows it.
fn resumes(dir: &Dir, view: &Value) -> Server {
    let mut next = dir.start();
    let step = next.ok(
        "open",
        json!({ "session": "call", "payload": payload(), "width": 60, "resume": true }),
    );
    assert_eq!(&step["view"], view);
    next
}

#[test]
fn a_fifo_in_the_state_directory_is_set_aside_not_waited_on() {
    let dir = Dir::new();
    let mut first = dir.start();
    typed(&mut first, "kept");
    first.kill();
    let (process, log) = dir.written();
    // Another flow's files: its request a FIFO, which a blocking open would wait on forever.
    let fifo = process.join("s2.request.json");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    fs::copy(&log, process.join("s2.flow.log")).expect("copy");
    // A link to a flow log of this one, which is not followed either.
    std::os::unix::fs::symlink(&log, process.join("s3.flow.log")).expect("symlink");
    fs::copy(
        process.join("s1.request.json"),
        process.join("s3.request.json"),
    )
    .expect("copy");

    let mut second = dir.start();
    // It answers at once: nothing waits on the FIFO.
    assert_eq!(
        untimed(second.ok("sessions", json!({}))),
        json!([{ "session": "call", "title": "Deploy", "status": "recovered",
                 "progress": { "answered": 0, "total": 1 }, "typed": true }])
    );
    second.kill();
    let log = second.stderr_text();
    for (file, reason) in [
        (
            "s2.request.json",
            "its request file: it is not a regular file",
        ),
        ("s2.flow.log", "its request file: it is not a regular file"),
        ("s3.flow.log", "its flow log: it is a symbolic link"),
    ] {
        assert!(
            log.contains(&format!(
                "{file} does not hold a flow that can be restored ({reason}); it is set aside as "
            )),
            "{file}: {log}"
        );
    }
    let aside: Vec<String> = dir
        .names()
        .into_iter()
        .filter(|n| n.ends_with(".corrupt"))
        .collect();
    assert_eq!(aside.len(), 4, "{aside:?}");
    // The FIFO is still a FIFO, set aside: askd moved it, never opened it for long.
    let moved = aside
        .iter()
        .find(|n| n.ends_with(".s2.request.json.corrupt"))
        .expect("the FIFO set aside");
    let kind = fs::symlink_metadata(dir.path().join(moved)).expect("there");
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&kind.file_type()));
}

#[test]
fn a_last_line_torn_inside_a_character_is_passed_over() {
    let dir = Dir::new();
    let mut first = dir.start();
    let view = typed(&mut first, "café ✓");
    first.kill();
    let (_, log) = dir.written();
    // A crash of the machine cut the next state inside `é` (0xc3 0xa9).
    let mut torn = fs::read(&log).expect("the log");
    let last = torn[..torn.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = torn[last..].to_vec();
    let cut = line
        .iter()
        .position(|&b| b == 0xc3)
        .expect("an é in the state")
        + 1;
    torn.extend_from_slice(&line[..cut]);
    fs::write(&log, &torn).expect("torn");
    let mut second = resumes(&dir, &view);
    second.kill();
    assert!(
        !second.stderr_text().contains("set aside"),
        "{}",
        second.stderr_text()
    );
}

/// The length of a file.
fn length(path: &Path) -> u64 {
    fs::metadata(path).expect("the file").len()
}

/// Sets the file-size limit of the process `pid` (`prlimit`, util-linux): `soft` bytes, the
/// hard limit unlimited, so that it can be raised again.
fn limit_file_size(pid: u32, soft: Option<u64>) {
    let value = soft.map_or("unlimited:unlimited".to_owned(), |s| {
        format!("{s}:unlimited")
    });
    let set = Command::new("prlimit")
        .args(["--pid", &pid.to_string(), &format!("--fsize={value}")])
        .status()
        .expect("prlimit runs");
    assert!(set.success());
}

#[test]
fn a_write_that_fails_half_way_is_undone_and_what_follows_is_kept() {
    let dir = Dir::new();
    let mut server = dir.start();
    typed(&mut server, "first");
    let process = fs::read_dir(dir.path())
        .expect("the state directory")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_dir())
        .expect("this process's directory");
    let log = process.join("s1.flow.log");
    let whole = length(&log);
    // The disk fills: the next state is cut 20 bytes in.
    limit_file_size(server.pid(), Some(whole + 20));
    server.ok("insert", json!({ "session": "call", "text": " second" }));
    assert_eq!(length(&log), whole, "the part written is undone");
    // Room again: the next state is a whole line of its own, and it is what comes back.
    limit_file_size(server.pid(), None);
    server.ok("insert", json!({ "session": "call", "text": " third" }));
    let view = server.view("call");
    assert_eq!(view["editor"]["text"], json!("first second third"));
    server.kill();
    let warned = server.stderr_text();
    assert!(
        warned.contains("cannot write to the state directory") && warned.contains("File too large"),
        "{warned}"
    );
    let mut next = resumes(&dir, &view);
    next.kill();
}

#[test]
fn a_foreign_file_with_a_long_name_is_set_aside_under_a_shorter_one_never_deleted() {
    let dir = Dir::new();
    let mut first = dir.start();
    typed(&mut first, "kept");
    first.kill();
    let (process, _) = dir.written();
    let long = format!("{}.txt", "n".repeat(240));
    fs::write(process.join(&long), "someone else's").expect("a foreign file");
    let mut second = dir.start();
    second.ok("sessions", json!({}));
    second.kill();
    let aside: Vec<String> = dir
        .names()
        .into_iter()
        .filter(|n| n.ends_with(".corrupt"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(aside[0].len(), 255);
    assert_eq!(
        fs::read_to_string(dir.path().join(&aside[0])).expect("kept whole"),
        "someone else's"
    );
    assert!(
        second.stderr_text().contains(&format!(
            "{long} does not hold a flow that can be restored (it is not a file askd writes); it \
             is set aside as "
        )),
        "{}",
        second.stderr_text()
    );
}

#[test]
fn a_state_directory_others_may_use_is_refused_and_left_as_it_is() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let open = scratch.path().join("shared");
    fs::create_dir(&open).expect("mkdir");
    fs::set_permissions(&open, fs::Permissions::from_mode(0o755)).expect("chmod");
    let link = scratch.path().join("link");
    std::os::unix::fs::symlink(&open, &link).expect("symlink");
    for dir in [&open, &link] {
        let mut server = Server::start(&["--state-dir", dir.to_str().expect("UTF-8")]);
        // It serves all the same, keeping nothing.
        server.ok("open", json!({ "session": "s", "payload": payload() }));
        server.kill();
        assert!(
            server.stderr_text().contains(&format!(
                "the state directory {} cannot be used (other users may use it (mode 0755); make \
                 it 0700 (chmod 700) or name another); open flows will not survive a crash",
                dir.display()
            )),
            "{}",
            server.stderr_text()
        );
        let mode = fs::metadata(&open).expect("there").permissions().mode() & 0o777;
        assert_eq!(mode, 0o755, "left as it was");
        assert_eq!(
            fs::read_dir(&open).expect("readable").count(),
            0,
            "nothing written"
        );
    }
}

#[test]
fn a_process_directory_that_is_a_link_is_left_alone_with_a_log_line() {
    let dir = Dir::new();
    let mut first = dir.start();
    typed(&mut first, "kept");
    first.kill();
    // Another user's (or anyone's) directory, linked in under the name of an ended process.
    let elsewhere = tempfile::tempdir().expect("a temporary directory");
    fs::write(elsewhere.path().join("s1.request.json"), "{}").expect("write");
    let name = "1-2-ab";
    std::os::unix::fs::symlink(elsewhere.path(), dir.path().join(name)).expect("symlink");
    let mut second = dir.start();
    second.ok("sessions", json!({}));
    second.kill();
    assert!(
        second.stderr_text().contains(&format!(
            "{} is named as the directory of an askd process but is a symbolic link; it is left \
             alone",
            dir.path().join(name).display()
        )),
        "{}",
        second.stderr_text()
    );
    assert!(dir.path().join(name).is_symlink());
    assert_eq!(
        fs::read_to_string(elsewhere.path().join("s1.request.json")).expect("untouched"),
        "{}"
    );
}

/// A recovered flow whose deadline passes while it is offered is dropped (it timed out):
/// neither listed as waiting nor as done, and its files leave the directory.
#[test]
fn a_recovered_flow_that_timed_out_is_dropped() {
    let dir = Dir::new();
    let mut first = dir.start();
    let open = |session: &str, timeout: u64| json!({ "session": session, "payload": payload(), "timeoutMs": timeout });
    first.ok("open", open("later", 3_600_000));
    first.ok("open", open("soon", 1_500));
    first.kill();
    let mut second = dir.start();
    let status = |server: &mut Server| -> Vec<(String, String)> {
        let listed = server.ok("sessions", json!({}));
        let mut out: Vec<(String, String)> = listed
            .as_array()
            .expect("a list")
            .iter()
            .map(|e| {
                (
                    e["session"].as_str().expect("an id").to_owned(),
                    e["status"].as_str().expect("a status").to_owned(),
                )
            })
            .collect();
        out.sort();
        out
    };
    // Both are offered once read back (`soon` has a second and a half left at most).
    let first_look = status(&mut second);
    assert!(
        first_look.contains(&("later".to_owned(), "recovered".to_owned())),
        "{first_look:?}"
    );
    // `soon` times out while nobody resumes it: it is no longer offered.
    let left = crate::websocket::eventually("the recovered flow to time out", || {
        let listed = status(&mut second);
        (!listed.iter().any(|(id, _)| id == "soon")).then_some(listed)
    });
    assert_eq!(left, [("later".to_owned(), "recovered".to_owned())]);
    let requests: Vec<String> = dir
        .names()
        .into_iter()
        .filter(|n| n.contains("request.json"))
        .collect();
    assert_eq!(requests, Vec::<String>::new(), "set aside nothing");
    assert_eq!(
        second.err("recover", json!({ "session": "soon" }))["code"],
        json!(-32001)
    );
    second.kill();
}
