//! Persistent hook processes: picoclaw's JSON-RPC 2.0 over stdio, one
//! message per line (seeds 000/001).
//!
//! A process is started on first use and greeted with `hook.hello` (a
//! deadline bounds the handshake; `ok: false` or another protocol version
//! refuses it). Requests carry increasing ids and are multiplexed: many
//! events may be in flight at once, and each answer is routed to its caller
//! by id; answers with unknown ids are ignored. Observers get notifications
//! (no id, no answer). A line longer than the cap is skipped, not fatal. If
//! the process dies, every pending request fails at once (and each hook's
//! policy decides: interceptors open, approvers closed); the next request
//! restarts it after an exponential backoff (100 ms doubling, capped at
//! 30 s). Dropping the pool closes each process's stdin, waits briefly and
//! kills its process group.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, Instant};

use crate::groups::OwnedGroup;
use hookshot_core::ProcessSpec;
use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio::sync::{Mutex, mpsc, oneshot};

/// Longest line read from a hook process; longer ones are skipped.
pub const MAX_LINE: usize = 4 << 20;
/// How long a process has to answer `hook.hello`.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(5);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

type Pending = Arc<StdMutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>>;

/// The way to talk to a running process; cheap to clone for each request.
#[derive(Debug, Clone)]
struct Conn {
    lines: mpsc::Sender<String>,
    pending: Pending,
    /// When the reader saw stdout end (the process is gone or closing); the
    /// restart backoff counts from then.
    died_at: Arc<StdMutex<Option<Instant>>>,
}

/// A running process: its connection and its process group.
#[derive(Debug)]
struct Live {
    conn: Conn,
    group: Option<OwnedGroup>,
}

impl Drop for Live {
    /// Closes stdin (a well-behaved hook exits on EOF; requests still in
    /// flight hold their own sender), gives it a moment, then kills what is
    /// left of its group. The waiting happens on a thread of its own: a
    /// drop on the runtime must never stall the other events.
    fn drop(&mut self) {
        let (tx, _) = mpsc::channel(1);
        drop(std::mem::replace(&mut self.conn.lines, tx));
        if let Some(group) = self.group.take() {
            std::thread::spawn(move || {
                let deadline = Instant::now() + Duration::from_millis(300);
                while group.alive() && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(10));
                }
                drop(group);
            });
        }
    }
}

#[derive(Debug, Default)]
struct Slot {
    live: Option<Live>,
    failures: u32,
    not_before: Option<Instant>,
}

/// One named process and its restart state.
#[derive(Debug)]
struct Proc {
    spec: ProcessSpec,
    cwd: PathBuf,
    slot: Mutex<Slot>,
    next_id: AtomicU64,
}

/// The persistent processes of a hook system, by name.
#[derive(Debug, Default)]
pub struct ProcessPool {
    procs: StdMutex<HashMap<String, Arc<Proc>>>,
}

fn fail_all(pending: &Pending, why: &str) {
    let waiting: Vec<_> = pending.lock().map(|mut p| p.drain().collect()).unwrap_or_default();
    for (_, tx) in waiting {
        let _ = tx.send(Err(why.to_string()));
    }
}

impl Proc {
    fn start(&self) -> Result<Live, String> {
        let argv = &self.spec.argv;
        let program = argv.first().ok_or("empty command")?;
        let mut cmd = Command::new(program);
        cmd.args(&argv[1..])
            .current_dir(&self.cwd)
            .envs(self.spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = cmd.spawn().map_err(|e| format!("could not start {program}: {e}"))?;
        let group = OwnedGroup::new(Some(child.id().ok_or("exited at once")?));
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (lines, mut rx) = mpsc::channel::<String>(256);
        let pending: Pending = Arc::default();
        let died_at: Arc<StdMutex<Option<Instant>>> = Arc::default();

        tokio::spawn(async move {
            while let Some(line) = rx.recv().await {
                if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
        });
        let (p, d, name) = (Arc::clone(&pending), Arc::clone(&died_at), self.spec.name.clone());
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match crate::read_capped_line(&mut reader, &mut buf, MAX_LINE).await {
                    Ok(Some(true)) => {}
                    Ok(Some(false)) => {
                        tracing::warn!(process = %name, "skipped a line longer than {MAX_LINE} bytes");
                        continue;
                    }
                    Ok(None) | Err(_) => break,
                }
                let Ok(msg) = serde_json::from_slice::<Value>(&buf) else {
                    tracing::warn!(process = %name, "ignored a line that is not JSON");
                    continue;
                };
                let Some(id) = msg.get("id").and_then(Value::as_u64) else {
                    continue;
                };
                let answer = match (msg.get("result"), msg.get("error")) {
                    (_, Some(e)) => Err(format!(
                        "answered with error {}: {}",
                        e.get("code").map_or_else(String::new, ToString::to_string),
                        e.get("message").and_then(Value::as_str).unwrap_or("")
                    )),
                    (Some(r), None) => Ok(r.clone()),
                    (None, None) => Err("answered with neither result nor error".into()),
                };
                let waiter = p.lock().ok().and_then(|mut m| m.remove(&id));
                match waiter {
                    Some(tx) => {
                        let _ = tx.send(answer);
                    }
                    None => tracing::debug!(process = %name, id, "answer to an unknown id ignored"),
                }
            }
            if let Ok(mut d) = d.lock() {
                *d = Some(Instant::now());
            }
            fail_all(&p, "the hook process exited");
            drop(child);
        });
        Ok(Live {
            conn: Conn {
                lines,
                pending,
                died_at,
            },
            group: Some(group),
        })
    }

    async fn call_live(&self, live: &Conn, method: &str, params: Value, timeout: Duration) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = live.pending.lock() {
            p.insert(id, tx);
        }
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string() + "\n";
        if live.lines.send(line).await.is_err() {
            live.pending.lock().ok().map(|mut p| p.remove(&id));
            return Err("the hook process is not running".into());
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err("the hook process exited".into()),
            Err(_) => {
                live.pending.lock().ok().map(|mut p| p.remove(&id));
                Err(format!("did not answer {method} within {}s", timeout.as_secs_f64()))
            }
        }
    }

    /// The running process, started (and greeted) if need be.
    async fn ensure<'a>(&self, slot: &'a mut Slot) -> Result<&'a Live, String> {
        let died = slot
            .live
            .as_ref()
            .and_then(|l| l.conn.died_at.lock().ok().and_then(|d| *d));
        if let Some(t) = died {
            slot.live = None;
            slot.failures += 1;
            slot.not_before = Some(t + backoff(slot.failures));
        }
        if slot.live.is_none() {
            if let Some(t) = slot.not_before
                && Instant::now() < t
            {
                return Err(format!(
                    "is restarting after a failure (next start in {:?})",
                    t - Instant::now()
                ));
            }
            let live = self.start()?;
            let hello = json!({"name": self.spec.name, "version": 1, "modes": self.spec.modes});
            let answer = self.call_live(&live.conn, "hook.hello", hello, HELLO_TIMEOUT).await;
            let refused = match &answer {
                Ok(r) if r.get("ok") == Some(&Value::Bool(false)) => Some("refused the hello handshake".to_string()),
                Ok(r) if r.get("version").and_then(Value::as_u64).is_some_and(|v| v != 1) => {
                    Some(format!("speaks protocol version {}, not 1", r["version"]))
                }
                Ok(_) => None,
                Err(e) => Some(format!("failed the hello handshake: {e}")),
            };
            if let Some(why) = refused {
                drop(live);
                slot.failures += 1;
                slot.not_before = Some(Instant::now() + backoff(slot.failures));
                return Err(why);
            }
            slot.failures = 0;
            slot.live = Some(live);
        }
        slot.live.as_ref().ok_or_else(|| "not running".to_string())
    }
}

fn backoff(failures: u32) -> Duration {
    (Duration::from_millis(100) * 2u32.saturating_pow(failures.saturating_sub(1).min(16))).min(MAX_BACKOFF)
}

impl ProcessPool {
    fn get(&self, spec: &ProcessSpec, project: &Path) -> Arc<Proc> {
        let mut procs = self.procs.lock().expect("pool lock");
        Arc::clone(procs.entry(spec.name.clone()).or_insert_with(|| {
            Arc::new(Proc {
                spec: spec.clone(),
                cwd: spec
                    .dir
                    .as_ref()
                    .map_or_else(|| project.to_path_buf(), |d| project.join(d)),
                slot: Mutex::new(Slot::default()),
                next_id: AtomicU64::new(1),
            })
        }))
    }

    /// Sends a request and awaits its answer.
    pub async fn request(
        &self,
        spec: &ProcessSpec,
        project: &Path,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        let proc = self.get(spec, project);
        // The slot lock covers start-up only; requests then run concurrently.
        let conn = {
            let mut slot = proc.slot.lock().await;
            proc.ensure(&mut slot).await?.conn.clone()
        };
        proc.call_live(&conn, method, params, timeout).await
    }

    /// Sends a notification (no answer).
    pub async fn notify(&self, spec: &ProcessSpec, project: &Path, method: &str, params: Value) -> Result<(), String> {
        let proc = self.get(spec, project);
        let mut slot = proc.slot.lock().await;
        let live = proc.ensure(&mut slot).await?;
        let line = json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string() + "\n";
        live.conn
            .lines
            .send(line)
            .await
            .map_err(|_| "the hook process is not running".to_string())
    }
}
