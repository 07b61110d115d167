//! `audit_log`: every fired event and its hooks' decisions, appended as JSON
//! Lines.
//!
//! The event path never waits for the disk: records go through a bounded
//! channel to a writer thread, and when the channel is full the record is
//! counted as dropped instead (the count is written when the log closes).
//! The file is rotated by size (`path` -> `path.1` -> ... -> `path.N`).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::thread::JoinHandle;

use serde_json::{Value, json};

use crate::Outcome;

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
    tx: Option<SyncSender<String>>,
    dropped: Arc<AtomicU64>,
    writer: Option<JoinHandle<()>>,
}

fn open(path: &Path) -> std::io::Result<(BufWriter<File>, u64)> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let f = OpenOptions::new().create(true).append(true).open(path)?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    Ok((BufWriter::new(f), len))
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

impl AuditLog {
    /// Starts the writer thread.
    pub fn start(cfg: AuditConfig) -> std::io::Result<AuditLog> {
        let (mut out, mut len) = open(&cfg.path)?;
        let (tx, rx) = mpsc::sync_channel::<String>(QUEUE);
        let dropped = Arc::new(AtomicU64::new(0));
        let dropped_w = Arc::clone(&dropped);
        let writer = std::thread::Builder::new()
            .name("hookshot-audit".into())
            .spawn(move || {
                let write = |line: &str, out: &mut BufWriter<File>, len: &mut u64| {
                    // Lines arrive finished (newline included).
                    if *len > 0 && *len + line.len() as u64 > cfg.max_bytes {
                        let _ = out.flush();
                        rotate(&cfg);
                        if let Ok((o, l)) = open(&cfg.path) {
                            *out = o;
                            *len = l;
                        }
                    }
                    if out.write_all(line.as_bytes()).is_ok() {
                        *len += line.len() as u64;
                    }
                };
                while let Ok(record) = rx.recv() {
                    write(&record, &mut out, &mut len);
                    // Flush when the queue is drained, not per record.
                    while let Ok(more) = rx.try_recv() {
                        write(&more, &mut out, &mut len);
                    }
                    let _ = out.flush();
                }
                let n = dropped_w.load(Ordering::Relaxed);
                if n > 0 {
                    write(
                        &format!("{}\n", json!({"type": "dropped", "count": n})),
                        &mut out,
                        &mut len,
                    );
                }
                let _ = out.flush();
            })?;
        Ok(AuditLog {
            tx: Some(tx),
            dropped,
            writer: Some(writer),
        })
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
        let record = json!({
            "timestamp": hookshot_core::input::rfc3339_now(),
            "session_id": session_id,
            "event": outcome.event.canonical_name(),
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
}
