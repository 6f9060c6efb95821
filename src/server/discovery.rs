//! How clients find the hub: the discovery file in the user's runtime directory.
//!
//! ```text
//! <runtime>/askd/          mode 0700, the user's own
//!   hub.lock               held (flock, exclusive) by the registered hub for its whole life
//!   hub.json               mode 0600: { pid, url, page, token, version, protocolVersion,
//!                          startedAt }, written to a temporary file and renamed into place
//! ```
//!
//! `<runtime>` is `$XDG_RUNTIME_DIR` (when it is an absolute path), else
//! `${TMPDIR:-/tmp}/askd-<uid>` (created with mode 0700). `url` is the WebSocket endpoint
//! (`ws://127.0.0.1:P/rpc`) and `page` the browser client's page (`http://127.0.0.1:P/`), both
//! without the token; a client presents `token` as `Authorization: Bearer` or `?token=`.
//!
//! **Registering.** A process becomes the hub by taking the lock without waiting
//! ([`Registration::take`]): of two starting at once exactly one gets it; the other is told
//! that a hub is registered. The hub then writes the file ([`Registration::publish`]) and
//! removes it when it ends ([`Registration::end`], or when the registration is dropped); the
//! lock goes with the process, whatever ends it.
//!
//! **Reading.** A reader ([`find`]) never trusts the file. It refuses a directory that is not
//! the user's own or that others may read (an error: nothing there can be used), and a file
//! that is not a regular file of the user's own, readable by the user alone (stale: a hub that
//! starts replaces it); each refusal is logged with the path and the reason. A file whose
//! process is gone, or whose lock is not held, is stale too (a hub killed with `SIGKILL` leaves
//! its file behind; a new hub replaces it).

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::server::access::Token;

/// The discovery file's name.
pub const FILE: &str = "hub.json";
/// The lock's name.
pub const LOCK: &str = "hub.lock";
/// Largest discovery file read.
const MAX_FILE_BYTES: u64 = 64 * 1024;
/// How long a process trying to register retries a lock that is held: a reader checks the
/// lock by taking it shared for a moment, which must not make a starting hub give up.
const LOCK_RETRY: Duration = Duration::from_millis(400);

/// What the discovery file holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HubFile {
    /// The hub's process id.
    pub pid: u32,
    /// Its WebSocket endpoint, without the token: `ws://127.0.0.1:P/rpc`.
    pub url: String,
    /// Its browser client's page, without the token: `http://127.0.0.1:P/`.
    pub page: String,
    /// The token every connection presents.
    pub token: String,
    /// askd's version.
    pub version: String,
    /// The protocol version.
    pub protocol_version: u32,
    /// When the hub started, in milliseconds since the Unix epoch.
    pub started_at: u64,
}

impl HubFile {
    /// The page's address with the token (and a session to show).
    pub fn page_url(&self, session: Option<&str>) -> String {
        let mut url = format!("{}?token={}", self.page, self.token);
        if let Some(session) = session {
            url.push_str("&session=");
            url.push_str(&crate::server::browser::percent_encoded(session));
        }
        url
    }
}

/// Why the discovery directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    /// A directory on the way is not the user's own, or others may use it.
    #[error("{path} is not used: {reason}")]
    Refused {
        /// The directory.
        path: PathBuf,
        /// Why, in words.
        reason: String,
    },
    /// The file system failed.
    #[error("{path}: {error}")]
    Io {
        /// What was being read or written.
        path: PathBuf,
        /// What went wrong.
        error: io::Error,
    },
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> DiscoveryError + '_ {
    move |error| DiscoveryError::Io {
        path: path.to_owned(),
        error,
    }
}

/// What a reader found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// A hub runs: its file.
    Hub(HubFile),
    /// No discovery file.
    Nothing,
    /// A file that is not to be trusted, and why.
    Stale(String),
}

/// The user's effective id.
pub fn uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// `<runtime>/askd` for this environment (see the module's documentation); nothing is
/// created.
pub fn default_dir() -> PathBuf {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    match runtime {
        Some(runtime) => runtime.join("askd"),
        None => {
            let tmp = std::env::var_os("TMPDIR")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or_else(|| PathBuf::from("/tmp"));
            tmp.join(format!("askd-{}", uid())).join("askd")
        }
    }
}

/// Checks that `path` is a directory of the user's own that no one else may use.
fn check_dir(path: &Path) -> Result<(), DiscoveryError> {
    let metadata = fs::symlink_metadata(path).map_err(io_error(path))?;
    let refused = |reason: String| {
        tracing::warn!(
            "the hub's directory {} is not used: {reason}",
            path.display()
        );
        Err(DiscoveryError::Refused {
            path: path.to_owned(),
            reason,
        })
    };
    if !metadata.is_dir() {
        return refused("it is not a directory".into());
    }
    if metadata.uid() != uid() {
        return refused(format!(
            "it belongs to user {}, not to this user ({})",
            metadata.uid(),
            uid()
        ));
    }
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return refused(format!(
            "others may use it (mode {mode:04o}); it must be 0700"
        ));
    }
    Ok(())
}

/// Makes `path` a directory of mode 0700 when it is missing, then checks it.
fn ensure_dir(path: &Path) -> Result<(), DiscoveryError> {
    match DirBuilder::new().mode(0o700).create(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io_error(path)(e)),
    }
    check_dir(path)
}

/// Makes the discovery directory `dir` (and, when it is the fallback under the temporary
/// directory, its parent `askd-<uid>`) where missing, and checks them.
pub fn prepare(dir: &Path) -> Result<(), DiscoveryError> {
    if let Some(parent) = dir.parent() {
        let fallback = parent
            .file_name()
            .is_some_and(|name| name.to_string_lossy() == format!("askd-{}", uid()));
        if fallback {
            ensure_dir(parent)?;
        } else if !parent.exists() {
            DirBuilder::new()
                .mode(0o700)
                .recursive(true)
                .create(parent)
                .map_err(io_error(parent))?;
        }
    }
    ensure_dir(dir)
}

/// Whether process `pid` is alive (and this user's: a process the user may not signal is not
/// their hub).
pub fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    pid > 0 && unsafe { libc::kill(pid, 0) } == 0
}

/// `flock` on `file`; `Ok(false)` when another holds a conflicting lock.
fn flock(file: &File, operation: libc::c_int) -> io::Result<bool> {
    // SAFETY: the descriptor is open for the call's duration.
    if unsafe { libc::flock(file.as_raw_fd(), operation | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let error = io::Error::last_os_error();
    if error.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(error)
    }
}

/// Whether some process holds the hub's lock in `dir`.
pub fn lock_held(dir: &Path) -> bool {
    let Ok(file) = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(dir.join(LOCK))
    else {
        return false;
    };
    match flock(&file, libc::LOCK_SH) {
        // Taken: nobody held it. Closing the file lets it go.
        Ok(true) => false,
        Ok(false) => true,
        Err(_) => false,
    }
}

/// Reads the discovery file of `dir`, trusting nothing (see the module's documentation).
pub fn find(dir: &Path) -> Result<Found, DiscoveryError> {
    match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Found::Nothing),
        _ => check_dir(dir)?,
    }
    let path = dir.join(FILE);
    let mut file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Found::Nothing),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Ok(refused_file(&path, "it is a symbolic link".into()));
        }
        Err(e) => return Err(io_error(&path)(e)),
    };
    let metadata = file.metadata().map_err(io_error(&path))?;
    if !metadata.is_file() {
        return Ok(refused_file(&path, "it is not a regular file".into()));
    }
    if metadata.uid() != uid() {
        return Ok(refused_file(
            &path,
            format!(
                "it belongs to user {}, not to this user ({})",
                metadata.uid(),
                uid()
            ),
        ));
    }
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Ok(refused_file(
            &path,
            format!("others may read it (mode {mode:04o}); it must be 0600"),
        ));
    }
    let mut text = String::new();
    if let Err(e) = (&mut file).take(MAX_FILE_BYTES).read_to_string(&mut text) {
        return Ok(stale(&path, format!("it cannot be read ({e})")));
    }
    let hub: HubFile = match serde_json::from_str(&text) {
        Ok(hub) => hub,
        Err(e) => return Ok(stale(&path, format!("it is not a discovery file ({e})"))),
    };
    if let Err(reason) = Token::parse(&hub.token) {
        return Ok(stale(&path, format!("its token is not one: {reason}")));
    }
    if !hub.url.starts_with("ws://") || !hub.page.starts_with("http://") {
        return Ok(stale(&path, "its addresses are not askd's".into()));
    }
    if !alive(hub.pid) {
        return Ok(stale(&path, format!("its process {} is gone", hub.pid)));
    }
    if !lock_held(dir) {
        return Ok(stale(
            &path,
            format!(
                "no hub holds {} (process {} is not a hub)",
                dir.join(LOCK).display(),
                hub.pid
            ),
        ));
    }
    Ok(Found::Hub(hub))
}

/// A file refused, logged.
fn refused_file(path: &Path, reason: String) -> Found {
    tracing::warn!(
        "the hub's discovery file {} is not used: {reason}",
        path.display()
    );
    Found::Stale(format!("{} is not used: {reason}", path.display()))
}

/// A stale file, logged.
fn stale(path: &Path, reason: String) -> Found {
    tracing::info!(
        "the hub's discovery file {} is stale: {reason}",
        path.display()
    );
    Found::Stale(format!("{} is stale: {reason}", path.display()))
}

/// The registration of the process as the hub: the lock, held until it is dropped, and the
/// discovery file once published (removed when the registration ends or is dropped).
#[derive(Debug)]
pub struct Registration {
    dir: PathBuf,
    /// Holds the lock.
    _lock: File,
    published: bool,
}

impl Registration {
    /// Takes the hub's lock in `dir` (made where missing), without waiting: `Ok(None)` when
    /// another process holds it (a hub is registered, or is starting).
    pub fn take(dir: &Path) -> Result<Option<Registration>, DiscoveryError> {
        prepare(dir)?;
        let path = dir.join(LOCK);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(io_error(&path))?;
        let metadata = file.metadata().map_err(io_error(&path))?;
        if !metadata.is_file() || metadata.uid() != uid() {
            let reason = format!(
                "it is not a file of this user's own (user {})",
                metadata.uid()
            );
            tracing::warn!("the hub's lock {} is not used: {reason}", path.display());
            return Err(DiscoveryError::Refused { path, reason });
        }
        let until = std::time::Instant::now() + LOCK_RETRY;
        loop {
            if flock(&file, libc::LOCK_EX).map_err(io_error(&path))? {
                return Ok(Some(Registration {
                    dir: dir.to_owned(),
                    _lock: file,
                    published: false,
                }));
            }
            if std::time::Instant::now() >= until {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The discovery directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes the discovery file (mode 0600, a temporary file renamed into place), replacing
    /// a stale one.
    pub fn publish(&mut self, hub: &HubFile) -> Result<(), DiscoveryError> {
        let path = self.dir.join(FILE);
        if let Ok(Found::Stale(reason)) | Err(DiscoveryError::Refused { reason, .. }) =
            find(&self.dir)
        {
            tracing::info!("replacing the discovery file: {reason}");
        }
        let temporary = self.dir.join(format!(".{FILE}.{}.tmp", std::process::id()));
        let _ = fs::remove_file(&temporary);
        let written = (|| {
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&temporary)?;
            let mut text = serde_json::to_vec_pretty(hub).map_err(io::Error::other)?;
            text.push(b'\n');
            file.write_all(&text)?;
            file.sync_all()?;
            fs::rename(&temporary, &path)
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&temporary);
            return Err(io_error(&path)(e));
        }
        self.published = true;
        Ok(())
    }

    /// Removes the discovery file (when it is still this process's) and lets the lock go.
    pub fn end(mut self) {
        self.unpublish();
    }

    fn unpublish(&mut self) {
        if !std::mem::take(&mut self.published) {
            return;
        }
        let path = self.dir.join(FILE);
        let ours = fs::read(&path)
            .ok()
            .and_then(|text| serde_json::from_slice::<HubFile>(&text).ok())
            .is_some_and(|hub| hub.pid == std::process::id());
        if ours && let Err(e) = fs::remove_file(&path) {
            tracing::warn!("cannot remove {}: {e}", path.display());
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.unpublish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hub_file(pid: u32) -> HubFile {
        HubFile {
            pid,
            url: "ws://127.0.0.1:1/rpc".into(),
            page: "http://127.0.0.1:1/".into(),
            token: "0123456789abcdef0123".into(),
            version: "0".into(),
            protocol_version: 1,
            started_at: 0,
        }
    }

    #[test]
    fn a_registered_hub_is_found_and_gone_once_it_ends() {
        let runtime = tempfile::tempdir().unwrap();
        let dir = runtime.path().join("askd");
        assert_eq!(find(&dir).unwrap(), Found::Nothing);
        let mut registration = Registration::take(&dir).unwrap().expect("the lock is free");
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        let file = hub_file(std::process::id());
        registration.publish(&file).unwrap();
        assert_eq!(mode(&dir.join(FILE)), 0o600);
        assert_eq!(find(&dir).unwrap(), Found::Hub(file.clone()));
        // A second registration in the same process is refused too: flock locks are per open
        // file, so this stands for another process.
        assert!(Registration::take(&dir).unwrap().is_none());
        registration.end();
        assert!(!dir.join(FILE).exists());
        assert!(!lock_held(&dir));
        assert_eq!(find(&dir).unwrap(), Found::Nothing);
    }

    #[test]
    fn files_of_gone_processes_or_without_the_lock_are_stale() {
        let runtime = tempfile::tempdir().unwrap();
        let dir = runtime.path().join("askd");
        prepare(&dir).unwrap();
        let write = |hub: &HubFile| {
            let path = dir.join(FILE);
            let _ = fs::remove_file(&path);
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .unwrap();
            file.write_all(&serde_json::to_vec(hub).unwrap()).unwrap();
        };
        // A live process (this one) that holds no lock.
        write(&hub_file(std::process::id()));
        let Found::Stale(reason) = find(&dir).unwrap() else {
            panic!("stale without the lock");
        };
        assert!(reason.ends_with(&format!(
            "is stale: no hub holds {} (process {} is not a hub)",
            dir.join(LOCK).display(),
            std::process::id()
        )));
        // A process that is gone (pid 2^22 + 1 is above Linux's largest).
        write(&hub_file((1 << 22) + 1));
        assert_eq!(
            find(&dir).unwrap(),
            Found::Stale(format!(
                "{} is stale: its process 4194305 is gone",
                dir.join(FILE).display()
            ))
        );
        // Not a discovery file.
        fs::write(dir.join(FILE), "{}").unwrap();
        let Found::Stale(reason) = find(&dir).unwrap() else {
            panic!("stale when malformed");
        };
        assert!(
            reason.contains("is stale: it is not a discovery file (missing field"),
            "{reason}"
        );
    }

    #[test]
    fn loose_modes_and_links_are_refused() {
        let runtime = tempfile::tempdir().unwrap();
        let dir = runtime.path().join("askd");
        let mut registration = Registration::take(&dir).unwrap().unwrap();
        registration.publish(&hub_file(std::process::id())).unwrap();
        let file = dir.join(FILE);
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(
            find(&dir).unwrap(),
            Found::Stale(format!(
                "{} is not used: others may read it (mode 0644); it must be 0600",
                file.display()
            ))
        );
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        let Err(DiscoveryError::Refused { path, reason }) = find(&dir) else {
            panic!("a directory others may read is refused");
        };
        assert_eq!(
            (path, reason.as_str()),
            (
                dir.clone(),
                "others may use it (mode 0755); it must be 0700"
            )
        );
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
        let elsewhere = runtime.path().join("elsewhere.json");
        fs::rename(&file, &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &file).unwrap();
        assert_eq!(
            find(&dir).unwrap(),
            Found::Stale(format!(
                "{} is not used: it is a symbolic link",
                file.display()
            ))
        );
    }
}
