//! Persistent hook processes: picoclaw's JSON-RPC 2.0 over stdio, one
//! message per line (seeds 000/001).
//!
//! A process is started on first use and greeted with `hook.hello` (a
//! deadline bounds the handshake; `ok: false` or another protocol version
//! refuses it). Requests carry increasing ids and are multiplexed: many
//! events may be in flight at once, and each answer is routed to its caller
//! by id; answers with unknown ids are ignored. Observers get
//! `hook.runtime_event` notifications (no id, no answer). A line longer than
//! the cap is skipped, not fatal.
//!
//! Every wait is bounded by the call's timeout: handing a line to the
//! process, and the answer. A process that does not take its input in time,
//! or leaves [`WEDGED_AFTER`] requests in a row unanswered, is wedged: it is
//! killed, every call waiting on it fails at once (and each hook's policy
//! decides: observers and interceptors open, approvers closed), and the next
//! call restarts it after an exponential backoff (100 ms doubling, capped at
//! 30 s). One event's request never decides another's: a request whose
//! shared process crashed under it, or that comes during the backoff, is
//! asked of a process of its own, as a one-shot run would ask it. A process whose command, arguments, directory or environment
//! changed (a reload) is replaced by a new one.
//!
//! Shutting down closes each process's stdin (a well-behaved hook reads what
//! is left, then exits on end of input), waits out a grace period, and kills
//! what remains of its process group.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;
use tokio::time::Instant;

use crate::groups::OwnedGroup;
use hookshot_core::{Failure, FailureKind, ProcessSpec};
use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio::sync::{Mutex, Notify, mpsc, oneshot};

/// Longest line read from a hook process; longer ones are skipped.
pub const MAX_LINE: usize = 4 << 20;
/// How long a process has to answer `hook.hello`.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(5);
/// Requests in a row left unanswered within their timeouts after which a
/// process counts as wedged and is restarted.
pub const WEDGED_AFTER: u32 = 3;
/// Lines waiting to be written to one process.
const QUEUE: usize = 256;
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// How long a process has to exit after its stdin was closed.
const CLOSE_GRACE: Duration = Duration::from_millis(300);

type Pending = Arc<StdMutex<HashMap<u64, oneshot::Sender<Result<Value, Failure>>>>>;

/// What the writer task is asked to do.
#[derive(Debug)]
enum ToProcess {
    /// Write this line; say so on the sender once it is in the pipe.
    Line(String, Option<oneshot::Sender<()>>),
    /// Close stdin: no more input.
    Close,
}

/// How a running process ends: the reader task owns the process and its
/// group and ends both when told to (or when stdout ends).
#[derive(Debug, Default)]
struct Ending {
    /// Why it is being killed, once it is.
    why: StdMutex<Option<String>>,
    kill: Notify,
    /// When the reader saw stdout end or killed it; the restart backoff
    /// counts from then.
    died_at: StdMutex<Option<Instant>>,
}

impl Ending {
    fn kill(&self, why: &str) {
        if let Ok(mut w) = self.why.lock()
            && w.is_none()
        {
            *w = Some(why.to_string());
        }
        // notify_one keeps the wake-up for a reader not waiting yet.
        self.kill.notify_one();
    }

    fn died_at(&self) -> Option<Instant> {
        self.died_at.lock().ok().and_then(|d| *d)
    }
}

/// The way to talk to a running process; cheap to clone for each request.
#[derive(Debug, Clone)]
struct Conn {
    lines: mpsc::Sender<ToProcess>,
    pending: Pending,
    ending: Arc<Ending>,
    /// Requests in a row that timed out; any answer resets it.
    unanswered: Arc<AtomicU32>,
}

impl Conn {
    /// Hands `line` to the writer by `deadline`; with `ack`, also waits
    /// until it is written into the pipe. A process that does not take its
    /// input in time is wedged and is killed.
    async fn send(&self, line: String, ack: bool, deadline: Instant) -> Result<(), Failure> {
        let (tx, rx) = oneshot::channel();
        let sent = tokio::time::timeout_at(deadline, self.lines.send(ToProcess::Line(line, ack.then_some(tx)))).await;
        let written = match sent {
            Ok(Ok(())) if ack => tokio::time::timeout_at(deadline, rx).await.map(|r| r.is_ok()),
            Ok(Ok(())) => Ok(true),
            Ok(Err(_)) => Ok(false),
            Err(e) => Err(e),
        };
        match written {
            Ok(true) => Ok(()),
            Ok(false) => Err(Failure::new(FailureKind::Crash, "the hook process is not running")),
            Err(_) => {
                let why = "stopped reading its input and was killed (it will be restarted)";
                self.ending.kill(why);
                Err(Failure::new(FailureKind::Timeout, why))
            }
        }
    }
}

/// A running process, as its slot holds it.
#[derive(Debug)]
struct Live {
    conn: Conn,
}

impl Drop for Live {
    /// Closes stdin (requests still in flight hold their own sender, but
    /// the writer stops at `Close`), and kills the process if it has not
    /// gone after a grace period. The timer runs on a thread of its own: a
    /// drop on the runtime must never stall the other events.
    fn drop(&mut self) {
        let _ = self.conn.lines.try_send(ToProcess::Close);
        let ending = Arc::clone(&self.conn.ending);
        std::thread::spawn(move || {
            std::thread::sleep(CLOSE_GRACE);
            ending.kill("was stopped");
        });
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

/// A process exited by itself with requests waiting: the oldest was being
/// answered and gets the crash; the others were only queued behind it, and
/// are told they were not asked (their callers ask again elsewhere).
fn fail_crashed(pending: &Pending) {
    let mut waiting: Vec<_> = pending.lock().map(|mut p| p.drain().collect()).unwrap_or_default();
    waiting.sort_by_key(|(id, _)| *id);
    for (i, (_, tx)) in waiting.into_iter().enumerate() {
        let failure = if i == 0 {
            Failure::new(FailureKind::Crash, "the hook process exited")
        } else {
            Failure::new(
                FailureKind::Skipped,
                "was not asked: its process exited while answering another event",
            )
        };
        let _ = tx.send(Err(failure));
    }
}

fn fail_all(pending: &Pending, why: &Failure) {
    let waiting: Vec<_> = pending.lock().map(|mut p| p.drain().collect()).unwrap_or_default();
    for (_, tx) in waiting {
        let _ = tx.send(Err(why.clone()));
    }
}

/// The `hook.runtime_event` notification picoclaw sends observers (seed
/// 001): the kind the observer subscribed to, the session, and the event's
/// fields in picoclaw's words.
pub fn runtime_event(kind: &str, params: Value) -> Value {
    let session = params.get("session_id").cloned().unwrap_or(Value::Null);
    json!({"kind": kind, "meta": {"session_key": session}, "payload": params})
}

fn spawn_failure(program: &str, e: impl std::fmt::Display) -> Failure {
    Failure::new(FailureKind::Spawn, format!("could not start {program}: {e}"))
}

impl Proc {
    fn start(&self) -> Result<Live, Failure> {
        let argv = &self.spec.argv;
        let program = argv
            .first()
            .ok_or_else(|| spawn_failure("the process", "empty command"))?;
        let mut cmd = Command::new(program);
        cmd.args(&argv[1..])
            .current_dir(&self.cwd)
            .envs(self.spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = cmd.spawn().map_err(|e| spawn_failure(program, e))?;
        let group = OwnedGroup::new(Some(
            child.id().ok_or_else(|| spawn_failure(program, "exited at once"))?,
        ));
        let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(spawn_failure(program, "no pipes"));
        };
        let (lines, mut rx) = mpsc::channel::<ToProcess>(QUEUE);
        let pending: Pending = Arc::default();
        let ending: Arc<Ending> = Arc::default();
        let unanswered: Arc<AtomicU32> = Arc::default();

        tokio::spawn(async move {
            while let Some(msg) = rx.recv().await {
                let ToProcess::Line(line, ack) = msg else { break };
                if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
                if let Some(ack) = ack {
                    let _ = ack.send(());
                }
            }
        });
        let (p, e, u, name) = (
            Arc::clone(&pending),
            Arc::clone(&ending),
            Arc::clone(&unanswered),
            self.spec.name.clone(),
        );
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout);
            let mut lines = crate::LineReader::new(MAX_LINE);
            loop {
                let read = tokio::select! {
                    r = lines.next(&mut reader) => r,
                    () = e.kill.notified() => break,
                };
                match read {
                    Ok(Some(true)) => {}
                    Ok(Some(false)) => {
                        tracing::warn!(process = %name, "skipped a line longer than {MAX_LINE} bytes");
                        continue;
                    }
                    Ok(None) | Err(_) => break,
                }
                let Ok(msg) = serde_json::from_slice::<Value>(&lines.take()) else {
                    tracing::warn!(process = %name, "ignored a line that is not JSON");
                    continue;
                };
                let Some(id) = msg.get("id").and_then(Value::as_u64) else {
                    continue;
                };
                let answer = match (msg.get("result"), msg.get("error")) {
                    (_, Some(e)) => Err(Failure::new(
                        FailureKind::Protocol,
                        format!(
                            "answered with error {}: {}",
                            e.get("code").map_or_else(String::new, ToString::to_string),
                            e.get("message").and_then(Value::as_str).unwrap_or("")
                        ),
                    )),
                    (Some(r), None) => Ok(r.clone()),
                    (None, None) => Err(Failure::new(
                        FailureKind::Protocol,
                        "answered with neither result nor error",
                    )),
                };
                let waiter = p.lock().ok().and_then(|mut m| m.remove(&id));
                match waiter {
                    Some(tx) => {
                        u.store(0, Ordering::Relaxed);
                        let _ = tx.send(answer);
                    }
                    None => tracing::debug!(process = %name, id, "answer to an unknown id ignored"),
                }
            }
            // Its stdout is gone or it was told to go: either way it is dead
            // to us, and so is anything it left in its group.
            drop(group);
            drop(child);
            if let Ok(mut d) = e.died_at.lock() {
                *d = Some(Instant::now());
            }
            let why = e.why.lock().ok().and_then(|w| w.clone());
            match why {
                Some(why) => fail_all(&p, &Failure::new(FailureKind::Timeout, why)),
                None => fail_crashed(&p),
            }
        });
        Ok(Live {
            conn: Conn {
                lines,
                pending,
                ending,
                unanswered,
            },
        })
    }

    async fn call_live(&self, live: &Conn, method: &str, params: Value, timeout: Duration) -> Result<Value, Failure> {
        let deadline = Instant::now() + timeout;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = live.pending.lock() {
            p.insert(id, tx);
        }
        let forget = || live.pending.lock().ok().map(|mut p| p.remove(&id));
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string() + "\n";
        if let Err(e) = live.send(line, false, deadline).await {
            forget();
            return Err(e);
        }
        match tokio::time::timeout_at(deadline, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(Failure::new(FailureKind::Crash, "the hook process exited")),
            Err(_) => {
                forget();
                let missed = live.unanswered.fetch_add(1, Ordering::Relaxed) + 1;
                let mut why = format!("did not answer {method} within {}s", crate::secs(timeout));
                if missed >= WEDGED_AFTER {
                    why.push_str(&format!(
                        "; {missed} requests in a row went unanswered, so it was killed (it will be restarted)"
                    ));
                    live.ending.kill(&why);
                }
                Err(Failure::new(FailureKind::Timeout, why))
            }
        }
    }

    /// The running process, started (and greeted) if need be.
    async fn ensure<'a>(&self, slot: &'a mut Slot) -> Result<&'a Live, Failure> {
        if let Some(t) = slot.live.as_ref().and_then(|l| l.conn.ending.died_at()) {
            slot.live = None;
            slot.failures += 1;
            slot.not_before = Some(t + backoff(slot.failures));
        }
        if slot.live.is_none() {
            if let Some(t) = slot.not_before
                && Instant::now() < t
            {
                return Err(Failure::new(
                    FailureKind::Skipped,
                    format!(
                        "was not asked: its process is restarting after a failure (next start in {:?})",
                        t - Instant::now()
                    ),
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
                live.conn.ending.kill(&why);
                drop(live);
                slot.failures += 1;
                slot.not_before = Some(Instant::now() + backoff(slot.failures));
                return Err(Failure::new(FailureKind::Protocol, why));
            }
            slot.failures = 0;
            slot.live = Some(live);
        }
        slot.live
            .as_ref()
            .ok_or_else(|| Failure::new(FailureKind::Crash, "not running"))
    }

    /// Asks a process of this event's own, started, greeted and closed for
    /// this one request: what a one-shot run does, and what an event gets
    /// when the shared process cannot answer it for a reason that is not
    /// its own (another event crashed it, or it is waiting out a restart
    /// backoff).
    async fn one_off(&self, method: &str, params: Value, timeout: Duration) -> Result<Value, Failure> {
        let deadline = Instant::now() + timeout;
        let live = self.start()?;
        let hello = json!({"name": self.spec.name, "version": 1, "modes": self.spec.modes});
        let greeted = self
            .call_live(&live.conn, "hook.hello", hello, HELLO_TIMEOUT.min(timeout))
            .await?;
        if greeted.get("ok") == Some(&Value::Bool(false)) {
            return Err(Failure::new(FailureKind::Protocol, "refused the hello handshake"));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        self.call_live(&live.conn, method, params, left).await
    }

    /// A connection to the running process. The slot lock covers start-up
    /// only (bounded by the handshake's deadline); calls then run
    /// concurrently.
    async fn conn(&self, timeout: Duration) -> Result<Conn, Failure> {
        let wait = HELLO_TIMEOUT + timeout;
        let mut slot = tokio::time::timeout(wait, self.slot.lock()).await.map_err(|_| {
            Failure::new(
                FailureKind::Timeout,
                format!(
                    "was not asked: its process was still starting after {}s",
                    crate::secs(wait)
                ),
            )
        })?;
        Ok(self.ensure(&mut slot).await?.conn.clone())
    }
}

fn backoff(failures: u32) -> Duration {
    (Duration::from_millis(100) * 2u32.saturating_pow(failures.saturating_sub(1).min(16))).min(MAX_BACKOFF)
}

impl ProcessPool {
    /// The process named in `spec`; a process of that name started from
    /// another command line, directory or environment is replaced (the old
    /// one is closed once its last call is done).
    fn get(&self, spec: &ProcessSpec, project: &Path) -> Arc<Proc> {
        let cwd = spec
            .dir
            .as_ref()
            .map_or_else(|| project.to_path_buf(), |d| project.join(d));
        let mut procs = self.procs.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match procs.get(&spec.name) {
            Some(p) if p.spec == *spec && p.cwd == cwd => Arc::clone(p),
            _ => {
                let p = Arc::new(Proc {
                    spec: spec.clone(),
                    cwd,
                    slot: Mutex::new(Slot::default()),
                    next_id: AtomicU64::new(1),
                });
                procs.insert(spec.name.clone(), Arc::clone(&p));
                p
            }
        }
    }

    /// Sends a request and awaits its answer, within `timeout` (the first
    /// call to a process also waits for its start-up handshake).
    pub async fn request(
        &self,
        spec: &ProcessSpec,
        project: &Path,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, Failure> {
        let proc = self.get(spec, project);
        let deadline = Instant::now() + timeout;
        let shared = match proc.conn(timeout).await {
            Ok(conn) => proc.call_live(&conn, method, params.clone(), timeout).await,
            // Restarting after a failure: this event is still asked.
            Err(f) if f.kind == FailureKind::Skipped => return proc.one_off(method, params, timeout).await,
            Err(f) => Err(f),
        };
        match shared {
            // The shared process died answering another event's request
            // while this one waited. A one-shot run of this event would have
            // had a process of its own, so it gets one.
            Err(f) if f.kind == FailureKind::Skipped && Instant::now() < deadline => {
                proc.one_off(method, params, deadline - Instant::now()).await
            }
            other => other,
        }
    }

    /// Sends a `hook.runtime_event` notification (no answer) and waits until
    /// it is written to the process, within `timeout`.
    pub async fn notify(
        &self,
        spec: &ProcessSpec,
        project: &Path,
        params: Value,
        timeout: Duration,
    ) -> Result<(), Failure> {
        let proc = self.get(spec, project);
        let conn = proc.conn(timeout).await?;
        let line = json!({"jsonrpc": "2.0", "method": "hook.runtime_event", "params": params}).to_string() + "\n";
        conn.send(line, true, Instant::now() + timeout).await
    }

    /// Closes every process's stdin, gives them `grace` to read what is left
    /// and exit, then kills what remains. For the end of a run: what was
    /// sent is delivered, and nothing is left behind.
    pub async fn shutdown(&self, grace: Duration) {
        let procs: Vec<Arc<Proc>> = self
            .procs
            .lock()
            .map(|mut p| p.drain().map(|(_, p)| p).collect())
            .unwrap_or_default();
        let mut lives = Vec::new();
        for p in procs {
            if let Some(live) = p.slot.lock().await.live.take() {
                // A full queue belongs to a wedged process: it is killed below.
                let _ = live.conn.lines.try_send(ToProcess::Close);
                lives.push(live);
            }
        }
        let endings: Vec<Arc<Ending>> = lives.iter().map(|l| Arc::clone(&l.conn.ending)).collect();
        let deadline = tokio::time::Instant::now() + grace;
        while endings.iter().any(|e| e.died_at().is_none()) && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        for e in &endings {
            e.kill("was stopped at shutdown");
        }
        // Let the readers run their endings (kill the groups).
        while endings.iter().any(|e| e.died_at().is_none()) && tokio::time::Instant::now() < deadline + grace {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}
