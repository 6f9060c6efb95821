//! Opening a page in the person's browser, for the hub's rule (`state::hub`): when a flow opens
//! and no client is attached, its page goes to the browser.
//!
//! The commands tried, in order: those of `$BROWSER` (a list separated by `:`; each command is
//! split at white space, and its `%s` is replaced by the address, or the address is appended
//! when it has none), then `xdg-open`. A command that is not found on `PATH` is skipped when the
//! hub starts; one that starts and ends with a failure (or cannot start) gives way to the next.
//! No shell is involved: the address is one argument, whatever it holds.
//!
//! `ASKD_NO_BROWSER` (set and not `0`) or `askd hub --no-browser` turns the rule off: tests and
//! headless machines set it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a started command is watched: one that ends with a failure within it gives way
/// to the next; one still running then (a browser itself) has opened the page.
const WATCH: Duration = Duration::from_secs(3);

/// How the hub opens pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Browser {
    /// It opens none (`--no-browser`, `ASKD_NO_BROWSER`).
    Off,
    /// It tries these commands in turn (each a program and its arguments, `%s` the address);
    /// none when no command is found.
    Commands(Vec<Vec<String>>),
}

/// What came of opening a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// A command took the page (it ended successfully, or still runs).
    Opened,
    /// No command could: why, in words.
    Unavailable(String),
}

impl Browser {
    /// The browser of this environment: off when `no_browser` or `ASKD_NO_BROWSER` says so,
    /// else the commands of `$BROWSER` then `xdg-open` that are found on `PATH`.
    pub fn from_env(no_browser: bool) -> Browser {
        let off = std::env::var_os("ASKD_NO_BROWSER").is_some_and(|v| !v.is_empty() && v != "0");
        if no_browser || off {
            return Browser::Off;
        }
        let listed = std::env::var("BROWSER").unwrap_or_default();
        let path = std::env::var_os("PATH").unwrap_or_default();
        Browser::Commands(commands(&listed, &path))
    }

    /// Opens `url`, trying each command in turn; blocks up to a few seconds per command (run
    /// it off the request path). `report` is told the outcome as soon as it is known; a
    /// command still running then is waited for afterwards, so that it leaves no zombie.
    pub fn open(&self, url: &str, report: impl FnOnce(Opened)) {
        let commands = match self {
            Browser::Off => return report(Opened::Unavailable("the hub opens no browser".into())),
            Browser::Commands(commands) => commands,
        };
        let mut why = Vec::new();
        for command in commands {
            match start(command, url) {
                Err(e) => why.push(format!("{}: {e}", command[0])),
                Ok(mut child) => match watch(&mut child) {
                    Some(true) => return report(Opened::Opened),
                    Some(false) => why.push(format!("{} failed", command[0])),
                    None => {
                        report(Opened::Opened);
                        let _ = child.wait();
                        return;
                    }
                },
            }
        }
        if why.is_empty() {
            why.push("neither $BROWSER nor xdg-open is there".into());
        }
        report(Opened::Unavailable(why.join("; ")))
    }
}

/// The commands of `$BROWSER` (`listed`) then `xdg-open`, those found on `path` (a command
/// named by a path must exist).
fn commands(listed: &str, path: &OsStr) -> Vec<Vec<String>> {
    let mut commands: Vec<Vec<String>> = listed
        .split(':')
        .map(|command| command.split_whitespace().map(str::to_owned).collect())
        .filter(|words: &Vec<String>| !words.is_empty())
        .collect();
    commands.push(vec!["xdg-open".to_owned()]);
    commands.retain(|command| found(&command[0], path).is_some());
    commands
}

/// Where `program` is: itself when it names a path, else the first executable file of that
/// name in a folder of `path`.
fn found(program: &str, path: &OsStr) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let p = PathBuf::from(program);
        return executable(&p).then_some(p);
    }
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
}

/// Starts `command` on `url`, its standard streams closed.
fn start(command: &[String], url: &str) -> std::io::Result<Child> {
    let mut args: Vec<String> = command[1..].iter().map(|a| a.replace("%s", url)).collect();
    if !command[1..].iter().any(|a| a.contains("%s")) {
        args.push(url.to_owned());
    }
    Command::new(&command[0])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
}

/// Whether `child` ended successfully within [`WATCH`]; `None` when it still runs.
fn watch(child: &mut Child) -> Option<bool> {
    let until = Instant::now() + WATCH;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status.success()),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => return None,
            Err(_) => return Some(false),
        }
    }
}

/// `text` for a URL's query: every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`) as
/// `%XX`.
pub fn percent_encoded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browser_lists_split_at_colons_and_skip_what_is_not_there() {
        let dir = tempfile::tempdir().unwrap();
        let script = |name: &str| {
            use std::os::unix::fs::PermissionsExt;
            let path = dir.path().join(name);
            std::fs::write(&path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            path
        };
        script("firefox");
        script("xdg-open");
        let plain = dir.path().join("notes");
        std::fs::write(&plain, "").unwrap();
        let path = dir.path().as_os_str();
        assert_eq!(
            commands("nowhere-browser:firefox --new-tab %s: :notes", path),
            vec![
                vec!["firefox".to_owned(), "--new-tab".into(), "%s".into()],
                vec!["xdg-open".to_owned()],
            ]
        );
        let named = script("by-path").display().to_string();
        assert_eq!(
            commands(&named, OsStr::new("")),
            vec![vec![named.clone()]],
            "a command named by its path needs no PATH; xdg-open is not on an empty one"
        );
    }

    #[test]
    fn the_address_is_one_argument_in_place_of_its_marker_or_last() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("args");
        let record = |command: &[&str]| {
            let mut command: Vec<String> = command.iter().map(|s| (*s).to_owned()).collect();
            command.insert(0, "sh".into());
            command.insert(1, "-c".into());
            command.insert(
                2,
                format!("for a; do echo \"$a|\"; done > {}", out.display()),
            );
            command.insert(3, "sh".into());
            let mut child = start(&command, "http://h/?a=1&b=2 3").unwrap();
            assert_eq!(watch(&mut child), Some(true));
            std::fs::read_to_string(&out).unwrap().replace('\n', "")
        };
        assert_eq!(record(&["new-tab"]), "new-tab|http://h/?a=1&b=2 3|");
        assert_eq!(record(&["url=%s", "then"]), "url=http://h/?a=1&b=2 3|then|");
    }

    #[test]
    fn a_failing_command_gives_way_and_the_last_failure_is_told() {
        let browser = Browser::Commands(vec![vec!["false".into()], vec!["true".into()]]);
        let mut told = None;
        browser.open("http://h/", |opened| told = Some(opened));
        assert_eq!(told, Some(Opened::Opened));
        let browser = Browser::Commands(vec![vec!["false".into()]]);
        browser.open("http://h/", |opened| told = Some(opened));
        assert_eq!(told, Some(Opened::Unavailable("false failed".into())));
        Browser::Commands(vec![]).open("http://h/", |opened| told = Some(opened));
        assert_eq!(
            told,
            Some(Opened::Unavailable(
                "neither $BROWSER nor xdg-open is there".into()
            ))
        );
        Browser::Off.open("http://h/", |opened| told = Some(opened));
        assert_eq!(
            told,
            Some(Opened::Unavailable("the hub opens no browser".into()))
        );
    }

    #[test]
    fn session_ids_are_percent_encoded_in_addresses() {
        assert_eq!(percent_encoded("call-1_a.b~"), "call-1_a.b~");
        assert_eq!(percent_encoded("a b&c=é"), "a%20b%26c%3D%C3%A9");
    }
}
