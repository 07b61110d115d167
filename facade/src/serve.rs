//! `hookshot serve`: a JSON-RPC 2.0 sidecar, one message per line, so agents
//! written in any language can fire events without linking Rust.
//!
//! Methods: `fire {"event", "input", "agent"?}` -> `{"blocked", "output"}`
//! (output in the event name's dialect, in the shapes `agent` applies when
//! named, e.g. `"codex"`; plus `reason` when blocked and `warnings`);
//! `list` -> the effective hooks; `stats` -> per-hook metrics of this
//! process; `shutdown` -> answers, then the server ends. Requests are
//! handled concurrently (answers carry their ids); a bad line gets a
//! JSON-RPC error and never ends the server; notifications (no id) get no
//! answer.
//!
//! Everything a client can make the server hold is bounded ([`Limits`]):
//! connections, requests in flight and bytes buffered per connection (when
//! a client sends faster than its events are answered, the server stops
//! reading from it), line length, idle time. Settings are reloaded when
//! they change, with the same trust rules as at start.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex as StdMutex, RwLock};
use std::time::{Duration, Instant};

use hookshot_runner::LineReader;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

use crate::{EventKind, HookSystem};

/// What the server lets clients hold.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Socket connections at once; more are answered with an error and
    /// closed.
    pub max_connections: usize,
    /// Requests of one connection being handled at once.
    pub max_in_flight: usize,
    /// Bytes of requests of one connection being handled at once.
    pub max_buffered: usize,
    /// Bytes of requests being handled at once, all connections together.
    pub max_buffered_total: usize,
    /// Longest request line; longer lines are refused without being kept.
    pub max_line: usize,
    /// A connection that sends nothing for this long, with nothing in
    /// flight, is closed; so is one that does not read its answers.
    pub idle_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 64,
            max_in_flight: 64,
            max_buffered: 32 << 20,
            max_buffered_total: 128 << 20,
            max_line: 16 << 20,
            idle_timeout: Duration::from_secs(600),
        }
    }
}

/// One event the server answered, as an [`Observer`] is told of it.
#[derive(Debug)]
pub struct Fired<'a> {
    /// The event's name as the client sent it.
    pub event: &'a str,
    /// Its input as received, when the observer asked for it.
    pub input: Option<Map<String, Value>>,
    /// What the hooks came to.
    pub outcome: &'a crate::Outcome,
    /// The answer as sent, in the event name's dialect.
    pub output: &'a Value,
}

/// Told of every event the server answers, after the answer is made
/// (`serve --record` saves them as test cases, metrics count them).
#[derive(Clone)]
pub struct Observer {
    /// Whether the input is kept for it: a copy of every input, paid only
    /// by an observer that reads them.
    pub with_input: bool,
    /// Called once per answered event.
    pub on_fire: Arc<dyn Fn(Fired<'_>) + Send + Sync>,
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observer")
            .field("with_input", &self.with_input)
            .finish()
    }
}

/// How often a server looks at its settings files for changes.
const RELOAD_CHECK: Duration = Duration::from_secs(1);

fn error(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

fn ok(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// Answers one request line; `None` for notifications. The flag is set
/// when the request was `shutdown`.
/// The line is taken, and dropped once parsed: a large request is not held
/// twice while its event runs.
pub async fn handle(hooks: &HookSystem, line: String, observer: Option<&Observer>) -> (Option<Value>, bool) {
    let parsed = serde_json::from_str::<Value>(&line);
    drop(line);
    let mut msg: Value = match parsed {
        Ok(v) => v,
        Err(e) => return (Some(error(Value::Null, -32700, format!("parse error: {e}"))), false),
    };
    let Some(obj) = msg.as_object_mut() else {
        return (
            Some(error(Value::Null, -32600, "invalid request: expected a JSON object")),
            false,
        );
    };
    let id = obj.get("id").cloned();
    let reply = |v: Value| id.as_ref().map(|_| v);
    let rid = id.clone().unwrap_or(Value::Null);
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return (
            reply(error(rid, -32600, "invalid request: \"jsonrpc\" must be \"2.0\"")),
            false,
        );
    }
    let mut params = obj.get_mut("params").map(Value::take).unwrap_or(Value::Null);
    let Some(method) = obj.get("method").and_then(Value::as_str) else {
        return (reply(error(rid, -32600, "invalid request: missing \"method\"")), false);
    };
    match method {
        "fire" => {
            let input = params.get_mut("input").map(Value::take);
            let Some(name) = params.get("event").and_then(Value::as_str) else {
                return (
                    reply(error(
                        rid,
                        -32602,
                        "invalid params: \"event\" (an event name) is required",
                    )),
                    false,
                );
            };
            let agent_named = params
                .get("agent")
                .and_then(Value::as_str)
                .and_then(crate::Agent::parse);
            let Some((event, dialect)) = hookshot_core::agent::parse_event_for(name, agent_named) else {
                let hint = hookshot_core::suggest::did_you_mean(name, EventKind::all_names())
                    .map(|s| format!("; did you mean \"{s}\"?"))
                    .unwrap_or_default();
                return (
                    reply(error(rid, -32602, format!("unknown event \"{name}\"{hint}"))),
                    false,
                );
            };
            let input: Map<String, Value> = match input {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(m)) => hookshot_core::input::from_wire(name, dialect, m),
                Some(_) => {
                    return (
                        reply(error(rid, -32602, "invalid params: \"input\" must be an object")),
                        false,
                    );
                }
            };
            // The agent that asks, when it says: its answer takes the
            // shapes that agent applies (Codex's, stricter than Claude's).
            let agent = match params.get("agent") {
                None | Some(Value::Null) => None,
                Some(Value::String(a)) if crate::Agent::parse(a).is_some() => crate::Agent::parse(a),
                Some(other) => {
                    let known: Vec<&str> = crate::Agent::ALL.iter().map(|a| a.name()).collect();
                    return (
                        reply(error(
                            rid,
                            -32602,
                            format!(
                                "invalid params: \"agent\" must be one of {}, found {other}",
                                known.join(", ")
                            ),
                        )),
                        false,
                    );
                }
            };
            let kept = observer.filter(|o| o.with_input).map(|_| input.clone());
            // The same call and answer as `hookshot fire --agent`: the
            // agent's shell, variables and limits for its hooks, its shapes.
            let mut outcome = hooks.call(crate::Call::new(event, input).from_agent(agent)).await;
            let said = crate::agent::answer(&mut outcome, agent, dialect);
            let output = serde_json::from_str(&said.stdout).unwrap_or(Value::String(said.stdout));
            outcome.warnings.extend(said.notes);
            if let Some(o) = observer {
                (o.on_fire)(Fired {
                    event: name,
                    input: kept,
                    outcome: &outcome,
                    output: &output,
                });
            }
            let mut result = json!({"blocked": outcome.is_blocked(), "output": output});
            if outcome.is_blocked() {
                result["reason"] = json!(outcome.block_reason());
            }
            if !outcome.warnings.is_empty() {
                result["warnings"] = json!(outcome.warnings);
            }
            (reply(ok(rid, result)), false)
        }
        "list" => (
            reply(ok(
                rid,
                serde_json::to_value(hooks.describe_hooks()).unwrap_or_default(),
            )),
            false,
        ),
        "stats" => (
            reply(ok(rid, serde_json::to_value(hooks.metrics()).unwrap_or_default())),
            false,
        ),
        "shutdown" => (reply(ok(rid, Value::Null)), true),
        other => (reply(error(rid, -32601, format!("method not found: {other}"))), false),
    }
}

/// One server: its hook system (swapped whole on reload), its limits, and
/// the shutdown signal every connection watches.
struct Server {
    hooks: RwLock<Arc<HookSystem>>,
    limits: Limits,
    stop: watch::Sender<bool>,
    stopping: AtomicBool,
    total_bytes: Arc<Semaphore>,
    last_check: StdMutex<Instant>,
    observer: Option<Observer>,
}

impl Server {
    /// The hook system in force, reloaded first when a settings file
    /// changed (looked at most once a second). A reload that finds a
    /// broken file keeps the hooks in force, says so on stderr once, and
    /// in every answer until the file changes again.
    fn current(&self) -> Arc<HookSystem> {
        let hooks = Arc::clone(&self.hooks.read().unwrap_or_else(std::sync::PoisonError::into_inner));
        let due = self
            .last_check
            .lock()
            .map(|mut t| {
                let due = t.elapsed() >= RELOAD_CHECK;
                if due {
                    *t = Instant::now();
                }
                due
            })
            .unwrap_or(false);
        if !due {
            return hooks;
        }
        let Some((next, loaded)) = hooks.reloaded() else {
            return hooks;
        };
        // Either way the new system is the one in force: with a change that
        // could not be used it keeps the old hooks, and its answers say why.
        let next = Arc::new(next);
        *self.hooks.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::clone(&next);
        match loaded {
            Ok(()) => {
                eprintln!("hookshot: settings changed; reloaded");
                for w in next.load_warnings() {
                    eprintln!("hookshot: warning: {w}");
                }
            }
            Err(e) => eprintln!("hookshot: settings changed but cannot be used; the previous hooks stay in force: {e}"),
        }
        next
    }

    fn begin_shutdown(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        let _ = self.stop.send(true);
    }
}

/// Writes one answer, giving up after `limit` (a client that does not read
/// its answers); returns whether it was written.
/// One answer on its way out, with what it still holds: its request's
/// budget permits (released once it is written, so a client that does not
/// read keeps its budget spent) and, for a `shutdown`, who waits for it to
/// be out before the server stops.
struct Queued {
    line: String,
    limit: Duration,
    _permits: Option<[OwnedSemaphorePermit; 3]>,
    written: Option<tokio::sync::oneshot::Sender<()>>,
}

/// The answers of one connection, written by one task: whatever is ready
/// goes out in one write. One write (and, on stdio, one trip through
/// tokio's blocking pool) per answer was most of the sidecar's cost under
/// pipelined requests.
#[derive(Clone)]
struct Answers(tokio::sync::mpsc::UnboundedSender<Queued>);

impl Answers {
    /// Starts the writer; it sets `broken` and stops when a write fails or
    /// takes longer than the answer's limit (the client stopped reading).
    fn start<W>(mut writer: W, broken: Arc<AtomicBool>) -> (Answers, tokio::task::JoinHandle<()>)
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Queued>();
        let task = tokio::spawn(async move {
            let mut batch: Vec<Queued> = Vec::new();
            let mut bytes: Vec<u8> = Vec::new();
            while let Some(first) = rx.recv().await {
                batch.push(first);
                while bytes.len() < (1 << 20)
                    && let Ok(next) = rx.try_recv()
                {
                    batch.push(next);
                }
                bytes.clear();
                for q in &batch {
                    bytes.extend_from_slice(q.line.as_bytes());
                    bytes.push(b'\n');
                }
                let limit = batch.iter().map(|q| q.limit).min().unwrap_or_default();
                let write = async {
                    writer.write_all(&bytes).await?;
                    writer.flush().await
                };
                if !matches!(tokio::time::timeout(limit, write).await, Ok(Ok(()))) {
                    broken.store(true, Ordering::Relaxed);
                    return;
                }
                for q in batch.drain(..) {
                    if let Some(done) = q.written {
                        let _ = done.send(());
                    }
                }
            }
        });
        (Answers(tx), task)
    }

    /// Queues an answer; it is written within `limit` or the connection is
    /// broken.
    fn send(&self, v: &Value, limit: Duration, permits: Option<[OwnedSemaphorePermit; 3]>) {
        let _ = self.0.send(Queued {
            line: v.to_string(),
            limit,
            _permits: permits,
            written: None,
        });
    }

    /// Queues an answer and waits until it is written; false if it was not.
    async fn send_and_wait(&self, v: &Value, limit: Duration) -> bool {
        let (done, written) = tokio::sync::oneshot::channel();
        let queued = Queued {
            line: v.to_string(),
            limit,
            _permits: None,
            written: Some(done),
        };
        self.0.send(queued).is_ok() && written.await.is_ok()
    }
}

/// What a request costs against the byte budgets.
fn cost(len: usize, budget: usize) -> u32 {
    len.clamp(1, budget).min(u32::MAX as usize) as u32
}

/// Serves one connection until it closes, idles out, or the server stops.
async fn serve_connection<R, W>(server: Arc<Server>, reader: R, writer: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let limits = server.limits;
    let broken = Arc::new(AtomicBool::new(false));
    let (answers, written) = Answers::start(writer, Arc::clone(&broken));
    let mut reader = BufReader::new(reader);
    let mut lines = LineReader::new(limits.max_line);
    let mut stopped = server.stop.subscribe();
    let in_flight = Arc::new(Semaphore::new(limits.max_in_flight.max(1)));
    let bytes = Arc::new(Semaphore::new(limits.max_buffered.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    let mut quiet_since = tokio::time::Instant::now();
    while !*stopped.borrow() && !broken.load(Ordering::Relaxed) {
        let read = tokio::select! {
            r = lines.next(&mut reader) => r,
            _ = stopped.changed() => break,
            () = tokio::time::sleep_until(quiet_since + limits.idle_timeout) => {
                let busy = in_flight.available_permits() < limits.max_in_flight.max(1);
                if busy && !lines.midway() {
                    quiet_since = tokio::time::Instant::now();
                    continue;
                }
                let e = error(Value::Null, -32000, format!(
                    "closing the connection: nothing received for {}s", limits.idle_timeout.as_secs_f64()));
                answers.send_and_wait(&e, Duration::from_secs(1)).await;
                break;
            }
        };
        quiet_since = tokio::time::Instant::now();
        match read {
            Ok(None) | Err(_) => break,
            Ok(Some(false)) => {
                let e = error(
                    Value::Null,
                    -32600,
                    format!("invalid request: line longer than {} bytes", limits.max_line),
                );
                answers.send(&e, limits.idle_timeout, None);
                continue;
            }
            Ok(Some(true)) => {}
        }
        let line = trimmed(lines.take());
        if line.is_empty() {
            continue;
        }
        // Room for it, or no more reading until there is: the client waits,
        // the server's memory does not grow.
        let permits = async {
            let a = Arc::clone(&in_flight).acquire_owned().await.ok()?;
            let b = Arc::clone(&bytes)
                .acquire_many_owned(cost(line.len(), limits.max_buffered))
                .await
                .ok()?;
            let c = Arc::clone(&server.total_bytes)
                .acquire_many_owned(cost(line.len(), limits.max_buffered_total))
                .await
                .ok()?;
            Some::<[OwnedSemaphorePermit; 3]>([a, b, c])
        };
        let permits = tokio::select! {
            p = permits => p,
            _ = stopped.changed() => None,
        };
        let Some(permits) = permits else {
            // Stopped while waiting: this request was sent after shutdown.
            answer_after_shutdown(&answers, &line);
            break;
        };
        if server.stopping.load(Ordering::SeqCst) {
            answer_after_shutdown(&answers, &line);
            continue;
        }
        // A shutdown takes effect before the next line is read, so what
        // follows it on this connection is refused, not run.
        if line.contains("\"shutdown\"") && is_method(&line, "shutdown") {
            server.stopping.store(true, Ordering::SeqCst);
        }
        let (server, answers) = (Arc::clone(&server), answers.clone());
        tasks.spawn(async move {
            let hooks = server.current();
            // Boxed: the request's future is large, and a task's future is
            // moved whole when it is spawned and when it completes.
            let (answer, shutdown) = Box::pin(handle(&hooks, line, server.observer.as_ref())).await;
            drop(hooks);
            if shutdown {
                // Its answer is out before the server stops.
                if let Some(a) = answer {
                    answers.send_and_wait(&a, server.limits.idle_timeout).await;
                }
                drop(permits);
                server.begin_shutdown();
            } else if let Some(a) = answer {
                answers.send(&a, server.limits.idle_timeout, Some(permits));
            }
        });
        // Reap finished tasks as we go, so the set does not grow.
        while tasks.try_join_next().is_some() {}
    }
    // Lines already sent after a shutdown get an answer, not silence.
    if server.stopping.load(Ordering::SeqCst) {
        while let Ok(Ok(Some(true))) = tokio::time::timeout(Duration::from_millis(50), lines.next(&mut reader)).await {
            let line = trimmed(lines.take());
            if !line.is_empty() {
                answer_after_shutdown(&answers, &line);
            }
        }
    }
    while tasks.join_next().await.is_some() {}
    // Every answer queued is written (or the client stopped reading).
    drop(answers);
    let _ = written.await;
}

/// The line as text without its surrounding whitespace, copied only when it
/// is not valid UTF-8.
fn trimmed(bytes: Vec<u8>) -> String {
    let mut s = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    let end = s.trim_end().len();
    s.truncate(end);
    let start = s.len() - s.trim_start().len();
    s.drain(..start);
    s
}

fn is_method(line: &str, method: &str) -> bool {
    serde_json::from_str::<Value>(line).is_ok_and(|v| v.get("method").and_then(Value::as_str) == Some(method))
}

fn answer_after_shutdown(answers: &Answers, line: &str) {
    let id = serde_json::from_str::<Value>(line)
        .ok()
        .and_then(|v| v.get("id").cloned());
    if let Some(id) = id {
        let e = error(id, -32000, "the server is shutting down");
        answers.send(&e, Duration::from_secs(1), None);
    }
}

/// A Unix socket at `path` that only this user can connect to. It is
/// created (mode 0600) in a fresh directory only the user can enter and
/// then moved into place, so nobody can connect in between. A path that
/// exists and is not a socket is never removed, nor is the socket of a
/// server still listening on it; a stale socket (nobody listening) is
/// replaced.
pub fn bind_private(path: &Path) -> std::io::Result<(tokio::net::UnixListener, u64)> {
    use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
    let refuse = |kind, why: String| Err(std::io::Error::new(kind, why));
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_socket() => {
            return refuse(
                std::io::ErrorKind::AlreadyExists,
                format!("{} exists and is not a socket; refusing to replace it", path.display()),
            );
        }
        Ok(_) => {
            if std::os::unix::net::UnixStream::connect(path).is_ok() {
                return refuse(
                    std::io::ErrorKind::AddrInUse,
                    format!("another server is listening on {}", path.display()),
                );
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let private = parent.join(format!(".hookshot-{}", std::process::id()));
    std::fs::DirBuilder::new().mode(0o700).create(&private)?;
    let inner = private.join("s");
    let bound = (|| {
        let listener = std::os::unix::net::UnixListener::bind(&inner)?;
        std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o600))?;
        std::fs::rename(&inner, path)?;
        listener.set_nonblocking(true)?;
        let ino = std::fs::symlink_metadata(path)?.ino();
        Ok((tokio::net::UnixListener::from_std(listener)?, ino))
    })();
    let _ = std::fs::remove_file(&inner);
    let _ = std::fs::remove_dir(&private);
    bound
}

/// Removes the socket at `path` if it is still the one this server made.
pub fn remove_own_socket(path: &Path, ino: u64) {
    use std::os::unix::fs::MetadataExt;
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.ino() == ino) {
        let _ = std::fs::remove_file(path);
    }
}

/// Whether an accept error means the process or system is out of file
/// descriptors (then accepting again at once would only spin).
pub fn out_of_files(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(code) if code == nix::libc::EMFILE || code == nix::libc::ENFILE)
}

/// Serves stdin/stdout, and a Unix socket at `socket` if given, until
/// `shutdown` (or until stdin closes when there is no socket).
pub async fn serve(hooks: HookSystem, socket: Option<PathBuf>, limits: Limits) -> std::io::Result<()> {
    serve_with(hooks, socket, limits, None).await
}

/// [`serve`], telling `observer` of every event answered.
pub async fn serve_with(
    hooks: HookSystem,
    socket: Option<PathBuf>,
    limits: Limits,
    observer: Option<Observer>,
) -> std::io::Result<()> {
    let (stop, _) = watch::channel(false);
    let server = Arc::new(Server {
        hooks: RwLock::new(Arc::new(hooks)),
        limits,
        stop,
        stopping: AtomicBool::new(false),
        total_bytes: Arc::new(Semaphore::new(limits.max_buffered_total.max(1))),
        last_check: StdMutex::new(Instant::now()),
        observer,
    });
    let bound = socket.as_deref().map(bind_private).transpose()?;
    let stdio = serve_connection(Arc::clone(&server), tokio::io::stdin(), tokio::io::stdout());
    let Some((listener, ino)) = bound else {
        stdio.await;
        server.current().shutdown().await;
        return Ok(());
    };
    let connections = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut stopped = server.stop.subscribe();
    let accept = async {
        let mut pause = Duration::from_millis(10);
        loop {
            let conn = tokio::select! {
                conn = listener.accept() => conn,
                _ = stopped.changed() => break,
            };
            let stream = match conn {
                Ok((stream, _)) => {
                    pause = Duration::from_millis(10);
                    stream
                }
                Err(e) => {
                    // Out of descriptors: wait for some to be freed instead
                    // of spinning on a connection that cannot be taken.
                    if out_of_files(&e) {
                        if pause == Duration::from_millis(10) {
                            eprintln!("hookshot: cannot accept connections: {e}; waiting");
                        }
                        pause = (pause * 2).min(Duration::from_secs(1));
                    }
                    tokio::time::sleep(pause).await;
                    continue;
                }
            };
            let (r, mut w) = stream.into_split();
            let Ok(slot) = Arc::clone(&connections).try_acquire_owned() else {
                let e = error(
                    Value::Null,
                    -32000,
                    format!("too many connections (the limit is {})", limits.max_connections),
                );
                let _ = tokio::time::timeout(Duration::from_secs(1), w.write_all(format!("{e}\n").as_bytes())).await;
                continue;
            };
            let server = Arc::clone(&server);
            tokio::spawn(async move {
                let _slot = slot;
                serve_connection(server, r, w).await;
            });
        }
    };
    // With a socket, the server lives until shutdown even if stdin closes.
    tokio::join!(stdio, accept);
    remove_own_socket(socket.as_deref().unwrap_or(Path::new("")), ino);
    server.current().shutdown().await;
    Ok(())
}
