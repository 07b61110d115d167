//! `audit_log`: every fired event and its hooks' decisions, appended as JSON
//! Lines.
//!
//! The event path never waits for the disk: records go through a bounded
//! channel to a writer thread, and when the channel is full the record is
//! counted as dropped instead. Records the disk refused are counted too;
//! both counts are written when the log closes (`{"type":"lost",...}`, read
//! by `hookshot stats`) and told on stderr. The file is rotated by size
//! (`path` -> `path.1` -> ... -> `path.N`).
//!
//! The log is opened without following a symlink, only as a regular file
//! (a FIFO or a device is refused, never waited on) and created 0600: a
//! planted `audit.jsonl -> ~/.bashrc` cannot make it append elsewhere.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::thread::JoinHandle;

use serde_json::{Value, json};

use hookshot_core::Outcome;

/// Records that may wait for the writer before new ones are dropped.
const QUEUE: usize = 4096;

/// Where and how much to keep.
#[derive(Debug, Clone)]
pub struct AuditConfig {
    /// The log file.
    pub path: PathBuf,
    /// Rotate when the file grows past this many bytes.
    pub max_bytes: u64,
    /// Rotated files kept.
    pub keep: usize,
}

/// The audit log's sending end.
#[derive(Debug)]
pub struct AuditLog {
    /// Where it writes.
    path: PathBuf,
    tx: Option<SyncSender<String>>,
    dropped: Arc<AtomicU64>,
    writer: Option<JoinHandle<()>>,
}

fn open(path: &Path) -> std::io::Result<(BufWriter<File>, u64)> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(dir) = path.parent() {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    }
    // Named for the user; the open below is what holds against a race.
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        let t = meta.file_type();
        if t.is_symlink() {
            return Err(std::io::Error::other(
                "it is a symlink; the audit log is never written through one",
            ));
        }
        if !t.is_file() {
            let kind = hookshot_core::paths::file_kind(t);
            return Err(std::io::Error::other(format!("it is {kind}, not a regular file")));
        }
    }
    let f = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        // A FIFO with no reader fails at once instead of blocking.
        .custom_flags((nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK).bits())
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(nix::libc::ELOOP) => {
                std::io::Error::other("it is a symlink; the audit log is never written through one")
            }
            Some(nix::libc::ENXIO) => std::io::Error::other("it is not a regular file"),
            _ => e,
        })?;
    let meta = f.metadata()?;
    if !meta.file_type().is_file() {
        return Err(std::io::Error::other("it is not a regular file"));
    }
    Ok((BufWriter::new(f), meta.len()))
}

fn rotate(cfg: &AuditConfig) {
    let name = |i: usize| {
        let mut p = cfg.path.clone().into_os_string();
        p.push(format!(".{i}"));
        PathBuf::from(p)
    };
    for i in (1..cfg.keep).rev() {
        let _ = std::fs::rename(name(i), name(i + 1));
    }
    if cfg.keep > 0 {
        let _ = std::fs::rename(&cfg.path, name(1));
    } else {
        let _ = std::fs::remove_file(&cfg.path);
    }
}

/// The writing end, on its own thread.
struct Writer {
    out: BufWriter<File>,
    len: u64,
    cfg: AuditConfig,
    /// Records the disk refused.
    failed: u64,
    /// Records written to the buffer since the last good flush.
    pending: u64,
    /// The last write error.
    error: Option<std::io::Error>,
    /// How long the file is up to its last whole record: a write the disk
    /// cut short (disk full) is cut back to it, so the next record does not
    /// glue onto half a line.
    whole: u64,
    /// The file may end in half a line (it could not be cut back): the
    /// next record starts on a line of its own.
    torn: bool,
}

impl Writer {
    /// Opens the log again when its path no longer names the file being
    /// written (moved away by logrotate, or removed): a long-lived process
    /// (`serve`, a warm server) must not go on writing where nobody reads.
    fn reopen_if_moved(&mut self) {
        use std::os::unix::fs::MetadataExt;
        let ours = self.out.get_ref().metadata().ok().map(|m| (m.dev(), m.ino()));
        let named = std::fs::symlink_metadata(&self.cfg.path)
            .ok()
            .map(|m| (m.dev(), m.ino()));
        if ours.is_some() && ours == named {
            return;
        }
        self.flush();
        match open(&self.cfg.path) {
            Ok((o, l)) => {
                self.out = o;
                self.len = l;
                self.whole = l;
            }
            Err(e) => self.error = Some(e),
        }
    }

    fn write(&mut self, line: &str) {
        // Lines arrive finished (newline included).
        if self.len > 0 && self.len + line.len() as u64 > self.cfg.max_bytes {
            self.flush();
            rotate(&self.cfg);
            match open(&self.cfg.path) {
                Ok((o, l)) => {
                    self.out = o;
                    self.len = l;
                    self.whole = l;
                    self.torn = false;
                }
                Err(e) => self.error = Some(e),
            }
        }
        let torn = std::mem::take(&mut self.torn);
        let written = if torn {
            self.out
                .write_all(b"\n")
                .and_then(|()| self.out.write_all(line.as_bytes()))
        } else {
            self.out.write_all(line.as_bytes())
        };
        match written {
            Ok(()) => {
                self.len += line.len() as u64 + u64::from(torn);
                self.pending += 1;
            }
            Err(e) => {
                // This record, and what the buffer held, may be half on
                // disk: counted, and cut back to the last whole record.
                self.pending += 1;
                self.cut_back(e);
            }
        }
    }

    fn flush(&mut self) {
        match self.out.flush() {
            Ok(()) => self.whole = self.len,
            Err(e) => self.cut_back(e),
        }
        self.pending = 0;
    }

    /// After a write the disk refused or cut short: the buffered records
    /// are counted as not written, and the file is cut back to its last
    /// whole record (or, failing that, the next record starts a new line).
    fn cut_back(&mut self, e: std::io::Error) {
        self.failed += self.pending;
        self.pending = 0;
        self.error = Some(e);
        // A later flush would retry the same bytes: they are dropped.
        if let Ok(file) = self.out.get_ref().try_clone() {
            let stale = std::mem::replace(&mut self.out, BufWriter::new(file));
            let _ = stale.into_parts();
        }
        let file = self.out.get_ref();
        let on_disk = file.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
        if on_disk > self.whole && file.set_len(self.whole).is_err() {
            self.torn = true;
            self.len = on_disk;
        } else {
            self.len = self.whole.min(on_disk);
        }
    }

    /// Writes what was lost, and says it on stderr: a record that is not
    /// in the log must not go unnoticed.
    fn close(mut self, dropped: u64) {
        let failed = self.failed;
        let lost = dropped + failed;
        if lost > 0 {
            let error = self.error.as_ref().map(ToString::to_string);
            let line = json!({"type": "lost", "dropped": dropped, "failed": failed, "error": error});
            self.write(&format!("{line}\n"));
            self.flush();
            eprintln!(
                "hookshot: audit_log lost {lost} record(s) of {} ({dropped} dropped while the writer was behind, {failed} not written{})",
                self.cfg.path.display(),
                error.map(|e| format!(": {e}")).unwrap_or_default()
            );
        }
    }
}

impl AuditLog {
    /// Starts the writer thread.
    pub fn start(cfg: AuditConfig) -> std::io::Result<AuditLog> {
        let (out, len) = open(&cfg.path)?;
        let path = cfg.path.clone();
        let (tx, rx) = mpsc::sync_channel::<String>(QUEUE);
        let dropped = Arc::new(AtomicU64::new(0));
        let dropped_w = Arc::clone(&dropped);
        let writer = std::thread::Builder::new()
            .name("hookshot-audit".into())
            .spawn(move || {
                let mut w = Writer {
                    out,
                    len,
                    cfg,
                    failed: 0,
                    pending: 0,
                    error: None,
                    whole: len,
                    torn: false,
                };
                while let Ok(record) = rx.recv() {
                    w.reopen_if_moved();
                    w.write(&record);
                    // Flush when the queue is drained, not per record.
                    while let Ok(more) = rx.try_recv() {
                        w.write(&more);
                    }
                    w.flush();
                }
                let dropped = dropped_w.load(Ordering::Relaxed);
                w.close(dropped);
            })?;
        Ok(AuditLog {
            path,
            tx: Some(tx),
            dropped,
            writer: Some(writer),
        })
    }

    /// The file it writes (rotated ones beside it, `.1` ... `.N`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records one event's outcome; never blocks.
    pub fn record(
        &self,
        session_id: &str,
        input: &serde_json::Map<String, Value>,
        outcome: &Outcome,
        duration_ms: f64,
    ) {
        let Some(tx) = &self.tx else { return };
        let hooks: Vec<Value> = outcome
            .records
            .iter()
            .map(|r| {
                json!({
                    "hook": r.hook.identity,
                    "source": r.hook.source,
                    "decision": r.output.decision,
                    "exit_code": r.captured.exit.code,
                    "duration_ms": r.captured.duration.as_secs_f64() * 1000.0,
                    "failure": r.failure.as_ref().map(|f| &f.message),
                    "failure_kind": r.failure.as_ref().map(|f| f.kind),
                })
            })
            .collect();
        // The event as the calling agent named it (a Claude Code user reads
        // PreToolUse, not gemini's BeforeTool); the canonical name when the
        // input names none or another event.
        let event = input
            .get("hook_event_name")
            .and_then(Value::as_str)
            .filter(|n| hookshot_core::EventKind::parse(n).is_some_and(|(e, _)| e == outcome.event))
            .unwrap_or(outcome.event.canonical_name());
        let record = json!({
            "timestamp": hookshot_core::input::rfc3339_now(),
            "session_id": session_id,
            "event": event,
            "tool": input.get("tool_name"),
            "decision": outcome.output.decision,
            "reason": outcome.output.reason,
            "stop": outcome.output.stop,
            "duration_ms": duration_ms,
            "hooks": hooks,
        });
        // A queued line costs its bytes, not a tree of JSON values: the
        // queue bound is then a small memory bound.
        let mut line = record.to_string();
        line.push('\n');
        if let Err(TrySendError::Full(_)) = tx.try_send(line) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Records dropped because the writer fell behind.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

impl Drop for AuditLog {
    /// Closes the channel and waits for the writer to drain it, so nothing
    /// accepted is lost at exit.
    fn drop(&mut self) {
        self.tx.take();
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookshot_core::EventKind;

    #[test]
    fn writes_lines_and_rotates() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs/audit.jsonl");
        let log = AuditLog::start(AuditConfig {
            path: path.clone(),
            max_bytes: 600,
            keep: 2,
        })
        .unwrap();
        let outcome = Outcome::empty(EventKind::BeforeTool);
        let input = json!({"tool_name": "write_file"}).as_object().unwrap().clone();
        for _ in 0..10 {
            log.record("s1", &input, &outcome, 1.0);
        }
        drop(log);
        let current = std::fs::read_to_string(&path).unwrap();
        let rotated = std::fs::read_to_string(dir.path().join("logs/audit.jsonl.1")).unwrap();
        let lines: Vec<Value> = current
            .lines()
            .chain(rotated.lines())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(lines.len() >= 4, "{} lines kept", lines.len());
        assert!(current.len() <= 600 + 300);
        assert_eq!(lines[0]["event"], "BeforeTool");
        assert_eq!(lines[0]["tool"], "write_file");
    }

    #[test]
    fn the_event_is_named_as_the_calling_agent_named_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let log = AuditLog::start(AuditConfig {
            path: path.clone(),
            max_bytes: 1 << 20,
            keep: 1,
        })
        .unwrap();
        let outcome = Outcome::empty(EventKind::BeforeTool);
        for name in ["PreToolUse", "BeforeTool", "Stop"] {
            let input = json!({"hook_event_name": name}).as_object().unwrap().clone();
            log.record("s1", &input, &outcome, 1.0);
        }
        drop(log);
        let events: Vec<String> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["event"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        // A name of another event is not taken for this one.
        assert_eq!(events, ["PreToolUse", "BeforeTool", "BeforeTool"]);
    }

    #[test]
    fn a_log_moved_away_or_removed_is_opened_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let log = AuditLog::start(AuditConfig {
            path: path.clone(),
            max_bytes: 1 << 20,
            keep: 2,
        })
        .unwrap();
        let outcome = Outcome::empty(EventKind::BeforeTool);
        let input = json!({"tool_name": "a"}).as_object().unwrap().clone();
        let wait_for = |p: &Path, n: usize| {
            for _ in 0..500 {
                if std::fs::read_to_string(p).is_ok_and(|t| t.lines().count() >= n) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            panic!("{} never had {n} line(s)", p.display());
        };
        log.record("s", &input, &outcome, 1.0);
        wait_for(&path, 1);
        // logrotate's move, then a record: it lands in a new file.
        std::fs::rename(&path, dir.path().join("audit.jsonl.old")).unwrap();
        log.record("s", &input, &outcome, 1.0);
        wait_for(&path, 1);
        std::fs::remove_file(&path).unwrap();
        log.record("s", &input, &outcome, 1.0);
        drop(log);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 1);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("audit.jsonl.old"))
                .unwrap()
                .lines()
                .count(),
            1
        );
    }
}
