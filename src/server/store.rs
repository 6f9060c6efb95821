//! The state directory: the state of every open session on disk, so that a killed askd loses
//! nothing and the next one finds the flows it held (as Vim finds a swap file).
//!
//! Layout (directories 0700, files 0600):
//!
//! ```text
//! <state dir>/
//!   <instance>/              one per running process: <pid>-<start time>-<boot id>
//!     s<n>.request.json      { format: "askd.state", version, session, dialect, request,
//!                              options?, flow }: `options` those of its dialect, `flow`
//!                              the members of the session's snapshot `flow` that stay as
//!                              it opened (keymap, behaviour, deadline)
//!     s<n>.flow.log          the other members of its `flow` after each change, one line
//!                            each (the time it was written, a space, the JSON), the last
//!                            whole line the current one
//!   <instance>.<k>/          the directory of an ended process, taken over by this one
//!   <name>.corrupt           a file that did not restore, set aside
//!   <name>.superseded        a recovered flow's file, set aside for a later flow of its id
//!   <name>.expired           a recovered flow's file, set aside once older than [`MAX_AGE`]
//! ```
//!
//! A session's request file is written once, when it opens, to a temporary file renamed into
//! place. After every change, before the reply is sent, what changed of its flow (positions,
//! editor, answers, outcome) is appended to its flow log in one write: a whole line, or (cut short by a crash of the machine) a last
//! line that is not read. Writing a temporary file and renaming it over the old one after
//! every key, as the request file is written, would cost a few milliseconds a key on ext4
//! (which flushes a file renamed over another at once); an append costs a few microseconds.
//! A log longer than 1 MiB (and than four states) is compacted: its last state is written to
//! a temporary file renamed over the log. A thread makes what was written durable (`fsync` of
//! the files and their directories) at most once a second, so losing power may lose the last
//! second; a killed process loses nothing. A session that completes or is closed leaves the
//! directory.
//!
//! The request file (version 2) also says who asked the flow (`asker`: the client's name and
//! its folder) and when it opened (`openedAt`), so that a recovered flow can be offered to a
//! person with what it is; files of version 1, which have neither, are still read.
//!
//! Each process writes only in directories named after itself, so processes sharing a state
//! directory never write the same file. A process whose directory's name no longer matches a
//! live process (its pid is gone, or is another process's since, or the machine restarted) has
//! ended. Opening the state directory ([`Store::open`]) takes nothing over: a process adopts
//! the directories of ended processes only when asked to ([`Store::adopt`], which the server
//! does when a client asks for recovered flows), with one atomic rename each (two processes
//! cannot both win), and reads their sessions back with the checks of `restore`. A flow last
//! saved more than [`MAX_AGE`] ago is not read back but set aside (`.expired`), never deleted.
//! Liveness is read from `/proc`; where there is none, no other process's directory is ever
//! taken over.

use std::collections::HashMap;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::core::Limits;
use crate::dialect::DialectId;
use crate::server::params::Asker;
use crate::session::Session;
use crate::session::snapshot::{self, Restored};

/// The `format` tag of a request file.
const FORMAT: &str = "askd.state";
/// The request file version this build writes; it reads this one and version 1 (without
/// `asker` and `openedAt`).
const VERSION: u32 = 2;
/// How long after its last save a flow left by an ended process is still offered: 7 days.
/// An older one is set aside (`.expired`) when a process adopts it, never read back.
pub const MAX_AGE: Duration = Duration::from_secs(7 * 24 * 60 * 60);
/// Ending of a request file.
const REQUEST: &str = ".request.json";
/// Ending of a flow log.
const FLOW: &str = ".flow.log";
/// Length past which a flow log is compacted (when it also holds more than four states).
const COMPACT_AT: usize = 1024 * 1024;
/// Most flow logs kept open at once.
const OPEN_LOGS: usize = 16;
/// Ending of a file being written.
const TEMPORARY: &str = ".tmp";
/// Ending of a file set aside.
const CORRUPT: &str = ".corrupt";
/// Ending of a recovered flow's file set aside for a later flow of the same id.
const SUPERSEDED: &str = ".superseded";
/// Ending of a recovered flow's file set aside because it is older than [`MAX_AGE`].
const EXPIRED: &str = ".expired";
/// Shortest time between two rounds of `fsync`.
const SYNC_INTERVAL: Duration = Duration::from_secs(1);

/// Where one session's state is on disk.
#[derive(Debug)]
pub struct Stored {
    dir: Arc<Path>,
    request: PathBuf,
    flow: Arc<Path>,
    temporary: PathBuf,
    /// The length of the flow log.
    logged: usize,
}

impl Stored {
    fn new(dir: &Arc<Path>, base: &str) -> Stored {
        Stored {
            dir: dir.clone(),
            request: dir.join(format!("{base}{REQUEST}")),
            flow: dir.join(format!("{base}{FLOW}")).into(),
            temporary: dir.join(format!("{base}{FLOW}{TEMPORARY}")),
            logged: 0,
        }
    }
}

/// A session read back from the directory of an ended process.
#[derive(Debug)]
pub struct Recovered {
    /// Its id.
    pub id: String,
    /// The session, restored with the checks of `restore`.
    pub restored: Restored,
    /// Where it is on disk (now in a directory of this process).
    pub stored: Stored,
    /// When its flow was last written (nanoseconds since 1970), and the number of its files
    /// (the order in which its process opened its sessions): what orders recovered flows, the
    /// latest last.
    pub written: (u64, u64),
    /// Who asked it, as its request file says (empty for a file of version 1).
    pub asker: Asker,
    /// When it was opened, in milliseconds since 1970 (for a file of version 1, which does
    /// not say: when it was last saved).
    pub opened_at: u64,
    /// When it was last saved, in milliseconds since 1970.
    pub saved_at: u64,
}

/// What a request file holds: the session's id, its request, and the members of its flow's
/// snapshot that stay as it opened.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestFile<'a> {
    format: &'a str,
    version: u32,
    session: &'a str,
    dialect: DialectId,
    #[serde(borrow)]
    request: &'a RawValue,
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    options: serde_json::Value,
    #[serde(borrow)]
    flow: &'a RawValue,
    /// Who asked (version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    asker: Option<Asker>,
    /// When the flow opened, in milliseconds since 1970 (version 2).
    #[serde(default, rename = "openedAt", skip_serializing_if = "Option::is_none")]
    opened_at: Option<u64>,
}

/// What a request file says beside the snapshot: the session's id, who asked and when it
/// opened.
struct Header {
    id: String,
    asker: Option<Asker>,
    opened_at: Option<u64>,
}

/// What waits to be made durable.
#[derive(Default)]
struct Unsynced {
    files: Vec<Arc<Path>>,
    dirs: Vec<Arc<Path>>,
}

/// The files and directories written since the last `fsync`, and the thread's wake-up.
#[derive(Default)]
struct Syncer {
    unsynced: Mutex<Unsynced>,
    written: Condvar,
}

impl Syncer {
    fn mark(&self, file: Option<&Arc<Path>>, dir: &Arc<Path>) {
        let mut unsynced = self.unsynced.lock().unwrap_or_else(|p| p.into_inner());
        let was_empty = unsynced.files.is_empty() && unsynced.dirs.is_empty();
        // Consecutive changes are mostly to one session: its file is listed once.
        if let Some(file) = file
            && !unsynced.files.iter().any(|f| Arc::ptr_eq(f, file))
        {
            unsynced.files.push(file.clone());
        }
        if !unsynced.dirs.iter().any(|d| Arc::ptr_eq(d, dir)) {
            unsynced.dirs.push(dir.clone());
        }
        if was_empty {
            self.written.notify_one();
        }
    }

    /// `fsync`s what was written since the last round.
    fn sync_now(&self) {
        let Unsynced { files, dirs } =
            std::mem::take(&mut *self.unsynced.lock().unwrap_or_else(|p| p.into_inner()));
        for file in files {
            // A file removed since (its session completed) needs nothing.
            if let Ok(f) = File::open(&file) {
                let _ = f.sync_data();
            }
        }
        for dir in dirs {
            if let Ok(d) = File::open(&dir) {
                let _ = d.sync_all();
            }
        }
    }

    /// The thread's loop: waits for something written, syncs it, then lets a second pass.
    fn run(&self) {
        loop {
            {
                let mut unsynced = self.unsynced.lock().unwrap_or_else(|p| p.into_inner());
                while unsynced.files.is_empty() && unsynced.dirs.is_empty() {
                    unsynced = self
                        .written
                        .wait(unsynced)
                        .unwrap_or_else(|p| p.into_inner());
                }
            }
            self.sync_now();
            std::thread::sleep(SYNC_INTERVAL);
        }
    }
}

/// The state directory of this process.
pub struct Store {
    root: PathBuf,
    /// What tells this process and this boot apart.
    life: Life,
    instance: String,
    dir: Arc<Path>,
    /// Directories of ended processes taken over.
    adopted: Vec<Arc<Path>>,
    /// The number of the next session file.
    next: u64,
    /// The bytes of the flow state being written, kept between writes.
    buffer: Vec<u8>,
    /// Flow logs open for appending, the most recently written first.
    logs: Vec<(Arc<Path>, File)>,
    syncer: Arc<Syncer>,
    /// Whether the last write failed (reported once until one succeeds again).
    failing: bool,
}

impl Store {
    /// Opens `root` (created 0700 when missing) and makes this process's directory in it.
    /// Nothing of other processes is taken over (see [`Store::adopt`]).
    pub fn open(root: &Path) -> io::Result<Store> {
        // A write past a file-size limit (RLIMIT_FSIZE) then fails like one on a full disk, and
        // is reported, instead of ending the process with SIGXFSZ.
        // SAFETY: setting a signal's disposition to "ignore" involves no handler code.
        unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        }
        prepare_root(root)?;
        let life = Life::read();
        let instance = life.instance();
        let dir: Arc<Path> = root.join(&instance).into();
        match DirBuilder::new().mode(0o700).create(&dir) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
        let syncer = Arc::new(Syncer::default());
        let thread = syncer.clone();
        std::thread::Builder::new()
            .name("askd-sync".into())
            .spawn(move || thread.run())?;
        Ok(Store {
            root: root.to_owned(),
            life,
            instance,
            dir,
            adopted: Vec::new(),
            next: 1,
            buffer: Vec::new(),
            logs: Vec::new(),
            syncer,
            failing: false,
        })
    }

    /// Takes over the directories of processes that have ended since the last call (or since
    /// the store opened), reading back their sessions: those that restore within `limits`
    /// (requests of at most `max_request_bytes`), in no particular order. A file that does
    /// not restore is set aside and reported; a flow last saved more than [`MAX_AGE`] before
    /// `now` (milliseconds since 1970) is set aside as expired.
    pub fn adopt(&mut self, limits: &Limits, max_request_bytes: usize, now: u64) -> Vec<Recovered> {
        let mut recovered = Vec::new();
        let entries = match fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) => {
                tracing::warn!(
                    "cannot read the state directory {} ({e}); no flow of an ended process is recovered",
                    self.root.display()
                );
                return recovered;
            }
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name == self.instance {
                continue;
            }
            let Some(owner) = Owner::parse(name) else {
                continue;
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if !kind.is_dir() {
                // Named as a process's directory, but a link or a file: askd made none such.
                tracing::warn!(
                    "{} is named as the directory of an askd process but is {}; it is left alone",
                    entry.path().display(),
                    if kind.is_symlink() {
                        "a symbolic link"
                    } else {
                        "not a directory"
                    }
                );
                continue;
            }
            if self.life.is_alive(&owner) {
                continue;
            }
            let taken: Arc<Path> = self
                .root
                .join(format!("{}.{}", self.instance, self.adopted.len() + 1))
                .into();
            // Only one process wins the rename of an ended process's directory.
            if fs::rename(entry.path(), &taken).is_err() {
                continue;
            }
            self.syncer.mark(None, &Arc::from(self.root.as_path()));
            self.adopted.push(taken.clone());
            let limit = snapshot::max_bytes(limits, max_request_bytes);
            recovered.extend(self.read_back(&taken, limits, max_request_bytes, limit, now));
            // A directory left with nothing goes (it fails, harmlessly, when it holds more).
            let _ = fs::remove_dir(&taken);
        }
        recovered
    }

    /// Reads back the sessions of a directory taken over; what does not restore is set aside.
    fn read_back(
        &mut self,
        dir: &Arc<Path>,
        limits: &Limits,
        max_request_bytes: usize,
        max_flow_bytes: usize,
        now: u64,
    ) -> Vec<Recovered> {
        let Ok(entries) = fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut bases: HashMap<String, (bool, bool)> = HashMap::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if let Some(base) = name.strip_suffix(REQUEST) {
                bases.entry(base.to_owned()).or_default().0 = true;
            } else if let Some(base) = name.strip_suffix(FLOW) {
                bases.entry(base.to_owned()).or_default().1 = true;
            } else if name.ends_with(TEMPORARY) {
                // A write the process did not finish: the file it was to replace is whole.
                let _ = fs::remove_file(&path);
            } else {
                self.set_aside_file(&path, "it is not a file askd writes");
            }
        }
        let mut recovered = Vec::new();
        for (base, files) in bases {
            let request = dir.join(format!("{base}{REQUEST}"));
            let flow = dir.join(format!("{base}{FLOW}"));
            match files {
                (true, true) => {}
                (false, _) => {
                    // The process ended while the session was being opened, before its reply:
                    // nothing the client saw is lost.
                    let _ = fs::remove_file(&flow);
                    continue;
                }
                (true, false) => {
                    self.set_aside_file(&request, "its flow file is missing");
                    continue;
                }
            }
            match read_session(&request, &flow, limits, max_request_bytes, max_flow_bytes) {
                Ok((_, _, written)) if is_expired(written / 1_000_000, now) => {
                    let why = format!(
                        "holds a flow last saved more than {} days ago",
                        MAX_AGE.as_secs() / 86_400
                    );
                    self.move_aside(&request, EXPIRED, &why);
                    self.move_aside(&flow, EXPIRED, &why);
                }
                Ok((header, restored, written)) => {
                    let mut stored = Stored::new(dir, &base);
                    // Its first write compacts the log: nothing after a line cut short.
                    stored.logged = usize::MAX;
                    let opened = base
                        .strip_prefix('s')
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0);
                    let saved_at = written / 1_000_000;
                    recovered.push(Recovered {
                        stored,
                        id: header.id,
                        restored,
                        written: (written, opened),
                        asker: header.asker.unwrap_or_default(),
                        opened_at: header.opened_at.unwrap_or(saved_at),
                        saved_at,
                    });
                }
                Err(reason) => {
                    self.set_aside_file(&request, &reason);
                    self.set_aside_file(&flow, &reason);
                }
            }
        }
        recovered
    }

    /// Moves `path`, which does not restore for `reason`, out of the way as
    /// `<dir>.<name>.corrupt` in the state directory, and says why in the log.
    fn set_aside_file(&self, path: &Path, reason: &str) {
        let why = format!("does not hold a flow that can be restored ({reason})");
        self.move_aside(path, CORRUPT, &why);
    }

    /// Sets the files of a recovered session aside as `<dir>.<name>.expired`: it was offered
    /// for longer than [`MAX_AGE`] and nobody took it.
    pub fn set_aside_expired(&mut self, stored: &Stored) {
        self.forget_log(stored);
        let why = format!(
            "holds a flow last saved more than {} days ago",
            MAX_AGE.as_secs() / 86_400
        );
        for path in [&*stored.request, &*stored.flow] {
            self.move_aside(path, EXPIRED, &why);
        }
    }

    /// Sets the files of a recovered session aside as `<dir>.<name>.superseded`: another
    /// flow of its id, written later, stays.
    pub fn set_aside_superseded(&self, stored: &Stored) {
        for path in [&*stored.request, &*stored.flow] {
            self.move_aside(path, SUPERSEDED, "holds a flow whose id a later flow has");
        }
    }

    /// Moves `path` to `<dir>.<name><ending>` in the state directory, saying in the log that it
    /// `why`. A name too long for the file system is shortened (its start, then a hash of the
    /// whole, so that two long names stay apart); a file that cannot be moved is left where it
    /// is, and the log says so: askd never deletes a file it set aside.
    fn move_aside(&self, path: &Path, ending: &str, why: &str) {
        let dir = path
            .parent()
            .and_then(Path::file_name)
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let aside = self.root.join(aside_name(&dir, &name, ending));
        match fs::rename(path, &aside) {
            Ok(()) => tracing::warn!(
                "{} {why}; it is set aside as {}",
                path.display(),
                aside.display()
            ),
            Err(e) => tracing::warn!(
                "{} {why}; it cannot be set aside as {} ({e}) and is left where it is",
                path.display(),
                aside.display()
            ),
        }
    }

    /// Writes a new session's files (its flow log, then its request, which makes it whole);
    /// `None` when they could not be written (reported).
    /// `options` are those of the session's dialect it was opened with (`null`: none);
    /// `asker` who asked it and `opened_at` when it opened (milliseconds since 1970).
    pub fn create(
        &mut self,
        id: &str,
        session: &Session,
        request: &RawValue,
        options: &serde_json::Value,
        asker: &Asker,
        opened_at: u64,
    ) -> Option<Stored> {
        let base = format!("s{}", self.next);
        self.next += 1;
        let mut stored = Stored::new(&self.dir, &base);
        let written = self.compact(&mut stored, session).and_then(|()| {
            let mut constant = Vec::new();
            snapshot::write_constant(session, &mut constant)?;
            let constant = String::from_utf8(constant).map_err(io::Error::other)?;
            let flow = RawValue::from_string(constant).map_err(io::Error::other)?;
            let mut text = Vec::new();
            serde_json::to_writer(
                &mut text,
                &RequestFile {
                    format: FORMAT,
                    version: VERSION,
                    session: id,
                    dialect: session.dialect(),
                    request,
                    options: options.clone(),
                    flow: &flow,
                    asker: (!asker.is_empty()).then(|| asker.clone()),
                    opened_at: Some(opened_at),
                },
            )?;
            let temporary = stored.request.with_extension("json.tmp");
            write_file(&temporary, &text)?;
            fs::rename(&temporary, &stored.request)?;
            self.syncer
                .mark(Some(&Arc::from(stored.request.as_path())), &stored.dir);
            Ok(())
        });
        self.report(written).then_some(stored)
    }

    /// Appends a session's flow state to its log after a change.
    pub fn write(&mut self, stored: &mut Stored, session: &Session) {
        let written = self.append(stored, session);
        self.report(written);
    }

    /// The state of `session`'s flow as one line, in the buffer.
    /// The line of the flow log for `session` now, in the buffer: when it was written (in
    /// nanoseconds since 1970, which orders the flows of several processes), a space, and what
    /// changes of the flow.
    fn state_line(&mut self, session: &Session) -> io::Result<()> {
        self.buffer.clear();
        let at = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        write!(self.buffer, "{at} ")?;
        snapshot::write_changing(session, &mut self.buffer)?;
        self.buffer.push(b'\n');
        Ok(())
    }

    fn append(&mut self, stored: &mut Stored, session: &Session) -> io::Result<()> {
        self.state_line(session)?;
        let line = self.buffer.len();
        if stored.logged.saturating_add(line) > COMPACT_AT.max(4 * line) {
            return self.compact(stored, session);
        }
        let at = match self
            .logs
            .iter()
            .position(|(path, _)| Arc::ptr_eq(path, &stored.flow))
        {
            Some(at) => at,
            None => {
                let file = OpenOptions::new()
                    .append(true)
                    .mode(0o600)
                    .open(&stored.flow)?;
                self.logs.truncate(OPEN_LOGS - 1);
                self.logs.insert(0, (stored.flow.clone(), file));
                0
            }
        };
        self.logs[..=at].rotate_right(1);
        if let Err(e) = self.logs[0].1.write_all(&self.buffer) {
            // Undo what was written of the line (a full disk writes part of it): the log ends
            // at its last whole line again, so that the next state is not appended onto a torn
            // one. A log that cannot be cut back is replaced whole by the next write.
            if self.logs[0].1.set_len(stored.logged as u64).is_err() {
                stored.logged = usize::MAX;
            }
            return Err(e);
        }
        stored.logged += line;
        self.syncer.mark(Some(&stored.flow), &stored.dir);
        Ok(())
    }

    /// Replaces a session's flow log with its current state alone.
    fn compact(&mut self, stored: &mut Stored, session: &Session) -> io::Result<()> {
        self.state_line(session)?;
        self.forget_log(stored);
        write_file(&stored.temporary, &self.buffer)?;
        fs::rename(&stored.temporary, &stored.flow)?;
        stored.logged = self.buffer.len();
        self.syncer.mark(Some(&stored.flow), &stored.dir);
        Ok(())
    }

    /// Closes the flow log of `stored` if it is open.
    fn forget_log(&mut self, stored: &Stored) {
        self.logs
            .retain(|(path, _)| !Arc::ptr_eq(path, &stored.flow));
    }

    /// Removes a session's files (its request first: a flow file alone is never read back),
    /// and the directory taken over that held them once it is empty.
    pub fn remove(&mut self, stored: &Stored) {
        self.forget_log(stored);
        let removed = fs::remove_file(&stored.request).and_then(|()| fs::remove_file(&stored.flow));
        self.syncer.mark(None, &stored.dir);
        if !Arc::ptr_eq(&stored.dir, &self.dir) && fs::remove_dir(&stored.dir).is_ok() {
            self.adopted.retain(|dir| !Arc::ptr_eq(dir, &stored.dir));
        }
        self.report(removed);
    }

    /// Whether `result` went well; a failure is logged once until a write succeeds again.
    fn report(&mut self, result: io::Result<()>) -> bool {
        match result {
            Ok(()) => {
                self.failing = false;
                true
            }
            Err(e) => {
                if !self.failing {
                    tracing::warn!(
                        "cannot write to the state directory {} ({e}); open flows may not survive a crash",
                        self.root.display()
                    );
                }
                self.failing = true;
                false
            }
        }
    }

    /// Makes everything written durable now, and removes this process's directories that
    /// are left empty.
    pub fn close(&mut self) {
        self.syncer.sync_now();
        for dir in self.adopted.iter().chain(std::iter::once(&self.dir)) {
            let _ = fs::remove_dir(dir);
        }
    }
}

/// Makes the state directory `root` (0700) when it is missing. One that exists is used as it
/// is, never changed: it must be a directory (a link to one is followed) of this user that no
/// one else may read or write; any other is refused with the reason.
fn prepare_root(root: &Path) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    match fs::metadata(root) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            DirBuilder::new().recursive(true).mode(0o700).create(root)
        }
        Err(e) => Err(e),
        Ok(meta) if !meta.is_dir() => Err(io::Error::other("it is not a directory")),
        Ok(meta) => {
            // SAFETY: getuid() cannot fail and touches no memory.
            let me = unsafe { libc::getuid() };
            if meta.uid() != me {
                return Err(io::Error::other(format!(
                    "it belongs to user {}, not to this one ({me})",
                    meta.uid()
                )));
            }
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                return Err(io::Error::other(format!(
                    "other users may use it (mode {mode:04o}); make it 0700 (chmod 700) or name another"
                )));
            }
            Ok(())
        }
    }
}

/// The longest file name askd makes (most file systems allow 255 bytes).
const MAX_NAME: usize = 255;

/// The name a file `name` of directory `dir` is set aside as: `<dir>.<name><ending>`, or, when
/// that is longer than a file name may be, the start of it, `~`, and a hash of the whole.
fn aside_name(dir: &str, name: &str, ending: &str) -> String {
    let whole = format!("{dir}.{name}");
    if whole.len() + ending.len() <= MAX_NAME {
        return format!("{whole}{ending}");
    }
    // FNV-1a: stable across builds, enough to keep two long names of one directory apart.
    let hash = whole.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let suffix = format!("~{hash:016x}{ending}");
    let mut keep = MAX_NAME - suffix.len();
    while !whole.is_char_boundary(keep) {
        keep -= 1;
    }
    format!("{}{suffix}", &whole[..keep])
}

/// Writes a whole file, readable and writable by its owner only.
fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)
}

/// Reads at most `limit` bytes of a regular file; a longer file is an error. The file is opened
/// without blocking and without following a link, and checked to be a regular file before it
/// is read: a FIFO, a device or a link in the state directory is refused, never waited on.
fn read_capped(path: &Path, limit: usize) -> Result<Vec<u8>, String> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => "it is a symbolic link".to_owned(),
            _ => format!("it cannot be read: {e}"),
        })?;
    let meta = file
        .metadata()
        .map_err(|e| format!("it cannot be read: {e}"))?;
    if !meta.is_file() {
        return Err("it is not a regular file".into());
    }
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("it cannot be read: {e}"))?;
    if bytes.len() > limit {
        return Err(format!("it is longer than {limit} bytes"));
    }
    Ok(bytes)
}

/// The last whole line of a flow log (when it was written, and what changes of the flow): a
/// line cut short by a crash of the machine or a full disk (no line end, not UTF-8, or not a
/// time and JSON) is passed over, whatever bytes it holds.
fn last_state(log: &[u8]) -> Option<(u64, Box<RawValue>)> {
    let end = log.iter().rposition(|&b| b == b'\n')?;
    log[..end].rsplit(|&b| b == b'\n').find_map(|line| {
        let line = std::str::from_utf8(line).ok()?;
        let (at, state) = line.split_once(' ')?;
        Some((at.parse().ok()?, serde_json::from_str(state).ok()?))
    })
}

/// Reads one session back: its request file and its flow log, put together as a snapshot and
/// restored with every check of `restore`.
fn read_session(
    request: &Path,
    flow: &Path,
    limits: &Limits,
    max_request_bytes: usize,
    max_flow_bytes: usize,
) -> Result<(Header, Restored, u64), String> {
    let request_bytes = read_capped(request, max_request_bytes.saturating_add(64 * 1024))
        .map_err(|e| format!("its request file: {e}"))?;
    let file: RequestFile = serde_json::from_slice(&request_bytes)
        .map_err(|_| "its request file is not one askd writes".to_owned())?;
    if file.format != FORMAT || !(1..=VERSION).contains(&file.version) {
        return Err(format!(
            "its request file is of format {:?} version {}",
            file.format, file.version
        ));
    }
    // A log holds at most four states past its compaction bound, and one line more.
    let log = read_capped(
        flow,
        COMPACT_AT.max(4 * max_flow_bytes) + 2 * max_flow_bytes,
    )
    .map_err(|e| format!("its flow log: {e}"))?;
    let (at, changing) =
        last_state(&log).ok_or_else(|| "its flow log holds no whole state".to_owned())?;
    // The flow of the snapshot: the members kept in the request file, then those of the log.
    let members = |raw: &RawValue, what: &str| match serde_json::from_str(raw.get()) {
        Ok(serde_json::Value::Object(members)) => Ok(members),
        _ => Err(format!("its {what} does not hold the state of a flow")),
    };
    let mut flow = members(file.flow, "request file")?;
    for (name, value) in members(&changing, "flow log")? {
        if flow.insert(name, value).is_some() {
            return Err("its flow log repeats what its request file holds".into());
        }
    }
    let state = format!(
        r#"{{"format":"{}","version":{},"dialect":{},"request":{},"options":{},"flow":{}}}"#,
        snapshot::FORMAT,
        snapshot::VERSION,
        serde_json::to_string(&file.dialect).map_err(|e| e.to_string())?,
        file.request.get(),
        file.options,
        serde_json::Value::Object(flow),
    );
    let restored =
        snapshot::restore(&state, limits, max_request_bytes).map_err(|e| e.to_string())?;
    let header = Header {
        id: file.session.to_owned(),
        asker: file.asker,
        opened_at: file.opened_at,
    };
    Ok((header, restored, at))
}

/// Whether a flow last saved at `saved_at` is older than [`MAX_AGE`] at `now` (both in
/// milliseconds since 1970).
fn is_expired(saved_at: u64, now: u64) -> bool {
    now.saturating_sub(saved_at) > MAX_AGE.as_millis() as u64
}

/// The process a directory is named after.
#[derive(Debug, PartialEq, Eq)]
struct Owner {
    pid: u32,
    start: u64,
    boot: String,
}

impl Owner {
    /// Reads `<pid>-<start>-<boot>` or `<pid>-<start>-<boot>.<k>`; `None` for a directory
    /// askd does not name.
    fn parse(name: &str) -> Option<Owner> {
        let instance = name.split_once('.').map_or(name, |(instance, k)| {
            if k.bytes().all(|b| b.is_ascii_digit()) && !k.is_empty() {
                instance
            } else {
                ""
            }
        });
        let mut parts = instance.splitn(3, '-');
        let pid = parts.next()?.parse().ok()?;
        let start = parts.next()?.parse().ok()?;
        let boot = parts.next()?;
        if boot.is_empty() || !boot.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        Some(Owner {
            pid,
            start,
            boot: boot.to_owned(),
        })
    }
}

/// What tells this process and this boot apart, from `/proc` (Linux).
struct Life {
    /// This process's start time, in clock ticks since boot; `None` without `/proc`.
    start: Option<u64>,
    /// The first 8 hex digits of the boot id.
    boot: String,
}

impl Life {
    fn read() -> Life {
        let boot: String = fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .map(|id| id.chars().filter(char::is_ascii_hexdigit).take(8).collect())
            .unwrap_or_default();
        // Without a boot id, names could not tell a restarted machine's pids apart.
        let start = start_time("self")
            .map(|(start, _)| start)
            .filter(|_| !boot.is_empty());
        Life { start, boot }
    }

    /// This process's directory name.
    fn instance(&self) -> String {
        let boot = if self.boot.is_empty() {
            "0"
        } else {
            &self.boot
        };
        format!("{}-{}-{boot}", std::process::id(), self.start.unwrap_or(0))
    }

    /// Whether the process `owner` names may still run. Without `/proc` every process may.
    fn is_alive(&self, owner: &Owner) -> bool {
        if self.start.is_none() {
            return true;
        }
        if owner.boot != self.boot {
            // The machine restarted since.
            return false;
        }
        match start_time(&owner.pid.to_string()) {
            Some((start, state)) => start == owner.start && !matches!(state, 'Z' | 'X'),
            None => !matches!(
                fs::metadata(format!("/proc/{}", owner.pid)),
                Err(e) if e.kind() == io::ErrorKind::NotFound
            ),
        }
    }
}

/// The start time (clock ticks since boot) and state of process `pid` (`self` for this one),
/// from `/proc/<pid>/stat`.
fn start_time(pid: &str) -> Option<(u64, char)> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold anything; the fields after its closing parenthesis do not.
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    // Field 22 of the line; the state is field 3.
    let start = fields.nth(18)?.parse().ok()?;
    Some((start, state))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The last whole JSON line of a log is its state; a line cut short is passed over.
    #[test]
    fn the_last_whole_line_is_the_state() {
        let state = |log: &str| last_state(log.as_bytes()).map(|(at, s)| (at, s.get().to_owned()));
        let two = Some((2, "{\"a\":2}".to_owned()));
        let one = Some((1, "{\"a\":1}".to_owned()));
        assert_eq!(state("1 {\"a\":1}\n2 {\"a\":2}\n"), two);
        assert_eq!(state("1 {\"a\":1}\n2 {\"a\":2}\n3 {\"a\":"), two);
        assert_eq!(state("1 {\"a\":1}\n2 {\"a\":2}"), one);
        assert_eq!(state("1 {\"a\":1}\n\0\0\0\n"), one);
        assert_eq!(state("1 {\"a\":1}\n{\"a\":2}\n"), one);
        assert_eq!(state("1 {\"a\":"), None);
        assert_eq!(state(""), None);
        // A last line torn inside a character is passed over like any other.
        let mut torn = b"1 {\"a\":1}\n2 {\"a\":\"\xc3".to_vec();
        assert_eq!(
            last_state(&torn).map(|(at, s)| (at, s.get().to_owned())),
            one
        );
        torn.extend_from_slice(b"\xa9\"}\n3 {\"a\":\"\xe2\x82");
        assert_eq!(
            last_state(&torn).map(|(at, s)| (at, s.get().to_owned())),
            Some((2, "{\"a\":\"é\"}".to_owned()))
        );
    }

    #[test]
    fn set_aside_names_fit_a_file_name() {
        assert_eq!(aside_name("d", "notes.txt", CORRUPT), "d.notes.txt.corrupt");
        let long = "x".repeat(300);
        let one = aside_name("1-2-ab.1", &long, CORRUPT);
        let other = aside_name("1-2-ab.1", &format!("{long}y"), CORRUPT);
        assert_eq!(one.len(), MAX_NAME);
        assert!(one.starts_with("1-2-ab.1.xxx"), "{one}");
        assert!(one.ends_with(CORRUPT), "{one}");
        assert_ne!(one, other);
        let wide = "é".repeat(200);
        assert!(aside_name("d", &wide, SUPERSEDED).len() <= MAX_NAME);
    }

    /// However many changes a flow takes, its log stays bounded and ends with its state.
    #[test]
    fn a_log_is_compacted() {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().join("state");
        let mut store = Store::open(&root).unwrap();
        assert!(
            store
                .adopt(&Limits::default(), 1 << 20, crate::server::state::now_ms())
                .is_empty()
        );
        let payload = crate::dialect::pi::EXAMPLE;
        let request: Box<RawValue> = serde_json::from_str(payload).unwrap();
        let value: serde_json::Value = serde_json::from_str(payload).unwrap();
        let mut session = Session::open(&value, &crate::session::OpenOptions::default()).unwrap();
        let mut stored = store
            .create(
                "s",
                &session,
                &request,
                &serde_json::Value::Null,
                &Asker::default(),
                0,
            )
            .unwrap();
        let keys = crate::core::parse_sequence("<Down><Up>").unwrap();
        let mut line = Vec::new();
        for i in 0..40_000 {
            session.press(keys[i % 2]).unwrap();
            store.write(&mut stored, &session);
        }
        snapshot::write_changing(&session, &mut line).unwrap();
        let log = fs::read_to_string(&stored.flow).unwrap();
        assert!(log.len() <= COMPACT_AT, "{}", log.len());
        assert!(40_000 * line.len() > 2 * COMPACT_AT, "{}", line.len());
        assert_eq!(log.len(), stored.logged);
        assert_eq!(
            last_state(log.as_bytes()).unwrap().1.get().as_bytes(),
            line.as_slice()
        );
    }

    /// A flow is offered for seven days after its last save, not a millisecond more.
    #[test]
    fn flows_expire_seven_days_after_their_last_save() {
        let week = 7 * 24 * 60 * 60 * 1000;
        assert_eq!(MAX_AGE.as_millis(), week as u128);
        assert!(!is_expired(1_000, 1_000 + week));
        assert!(is_expired(1_000, 1_001 + week));
        // A save in the future (a clock set back) is not expired.
        assert!(!is_expired(5_000, 1_000));
    }

    #[test]
    fn directory_names_are_read_back() {
        let owner = Owner {
            pid: 12,
            start: 345,
            boot: "0af3".into(),
        };
        assert_eq!(Owner::parse("12-345-0af3"), Some(owner));
        assert_eq!(Owner::parse("12-345-0af3.2").map(|o| o.pid), Some(12));
        for foreign in [
            "",
            "x",
            "12",
            "12-345",
            "12-x-0af3",
            "12-345-zz",
            "12-345-0af3.x",
            "12-345-0af3.",
        ] {
            assert_eq!(Owner::parse(foreign), None, "{foreign:?}");
        }
    }

    /// This process is alive by its own name; a pid with another start time, or of another
    /// boot, is not.
    #[test]
    fn liveness_comes_from_proc() {
        let life = Life::read();
        let me = Owner::parse(&life.instance()).unwrap();
        assert!(life.is_alive(&me));
        if life.start.is_some() {
            let reused = Owner {
                start: me.start + 1,
                ..Owner::parse(&life.instance()).unwrap()
            };
            assert!(!life.is_alive(&reused));
            let rebooted = Owner {
                boot: "ffffffff0".into(),
                ..Owner::parse(&life.instance()).unwrap()
            };
            assert!(!life.is_alive(&rebooted));
        }
    }
}
