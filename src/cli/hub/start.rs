//! Starting a hub when none runs: `askd hub --idle-exit SECS --log FILE`, detached (a session
//! of its own, so that the terminal's hang-up does not reach it; standard streams on
//! `/dev/null`; its log in the state directory), then waiting for its discovery file.
//!
//! Two clients that find no hub at once both start one: exactly one takes the lock, the other
//! exits (status 3), and both clients find the winner's file.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::client::{HubError, HubOptions};
use super::command::EXIT_RUNNING;
use crate::server::discovery::{self, Found, HubFile};

/// How often the discovery file is looked at while a hub starts.
const POLL: Duration = Duration::from_millis(20);

/// Where a started hub logs: the options' file, else `hub.log` in the state directory, else in
/// the discovery directory.
fn log_path(options: &HubOptions, dir: &Path) -> PathBuf {
    options.log.clone().unwrap_or_else(|| {
        crate::cli::default_state_dir()
            .unwrap_or_else(|| dir.to_owned())
            .join("hub.log")
    })
}

/// Starts a hub for the discovery directory `dir` and waits for its file (or for the file of
/// a hub started by another at the same time).
pub async fn start(options: &HubOptions, dir: &Path) -> Result<HubFile, HubError> {
    let askd = match &options.askd {
        Some(askd) => askd.clone(),
        None => std::env::current_exe()
            .map_err(|e| HubError::Start(format!("cannot find this executable: {e}")))?,
    };
    let log = log_path(options, dir);
    let mut command = Command::new(&askd);
    command
        .arg("hub")
        .arg("--idle-exit")
        .arg(options.idle_exit.as_secs().max(1).to_string())
        .arg("--log")
        .arg(&log)
        .args(&options.hub_args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if options.dir.is_some()
        && let Some(runtime) = dir.parent()
    {
        command.env("XDG_RUNTIME_DIR", runtime);
    }
    for (name, value) in &options.hub_env {
        command.env(name, value);
    }
    // SAFETY: setsid is async-signal-safe, as a function run between fork and exec must be.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command
        .spawn()
        .map_err(|e| HubError::Start(format!("{}: {e}", askd.display())))?;
    tracing::info!(pid = child.id(), log = %log.display(), "started a hub");
    let deadline = tokio::time::Instant::now() + options.start_wait;
    let mut exited = None;
    let found = loop {
        match discovery::find(dir)? {
            Found::Hub(file) => break Ok(file),
            Found::Nothing | Found::Stale(_) => {}
        }
        if exited.is_none()
            && let Ok(Some(status)) = child.try_wait()
        {
            // Another hub won the lock: its file comes.
            if status.code() != Some(i32::from(EXIT_RUNNING)) {
                break Err(HubError::Start(format!(
                    "askd hub ended ({status}); its log is {}",
                    log.display()
                )));
            }
            exited = Some(status);
        }
        if tokio::time::Instant::now() >= deadline {
            break Err(HubError::Start(format!(
                "no hub wrote {} within {} s; its log is {}",
                dir.join(discovery::FILE).display(),
                options.start_wait.as_secs(),
                log.display()
            )));
        }
        tokio::time::sleep(POLL).await;
    };
    if exited.is_none() {
        // The hub is this process's child until it ends: it is waited for, so that it leaves
        // no zombie.
        std::thread::spawn(move || child.wait());
    }
    found
}
