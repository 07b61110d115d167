//! `fire --warm`: a `fire` that asks a long-lived server of this user's to
//! run the hooks, so persistent process hooks (picoclaw's) are started once
//! instead of once per event.
//!
//! What makes it safe to use for every event is that the answer cannot
//! differ from a one-shot `fire`:
//! - a server answers only for the exact context it was started in: the
//!   same executable, working directory, source flags, umask and the
//!   variables hookshot itself reads (the socket's name is a hash of them,
//!   and every request carries them in full to be compared); the rest of
//!   the caller's environment comes with the event, and its command hooks
//!   start from it;
//! - before each event it checks what a fresh load would read (settings
//!   files, discovery, the trust store, the scripts approvals cover, the
//!   files its persistent processes run) and, if anything changed, loads
//!   again from scratch, as a one-shot `fire` would, stopping the old
//!   processes;
//! - it renders the answer with the code a one-shot `fire` uses (stdout,
//!   stderr lines, exit code); `--record` is done by the client;
//! - whenever it cannot answer exactly so (a nested hookshot, a fixture
//!   model, background hooks it cannot hand off, a request it cannot
//!   read), the client runs the event itself.
//!
//! The socket lives in a folder only this user can enter
//! (`$XDG_RUNTIME_DIR/hookshot`, else `/tmp/hookshot-<uid>`), is bound by
//! the sidecar's rules (mode 0600, never over another file or a live
//! server), and both ends check the other's user; the client also checks
//! that the server runs this same executable. A server leaves when idle.

use std::ffi::OsString;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use hookshot::{Agent as Host, HookSystem};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::answer::{Answer, Caller, answer, hand_off_background};
use crate::fail::Fail;
use crate::install::Agent;
use crate::load::{Sources, build_for, parse_event_for, registry_warnings};

/// The largest request a server reads; a larger event runs one-shot.
const MAX_REQUEST: u64 = 64 << 20;
/// A client that finds no server starts one at most this often, so events
/// that come together (or a server that cannot start) do not each start one.
const START_EVERY: Duration = Duration::from_secs(2);
/// How often a server tells its client it is still working on the event.
const KEEPALIVE: Duration = Duration::from_millis(500);
/// How long a client waits for any line from the server (its first, or the
/// next keepalive) before running the event itself: a stopped, stuck or
/// overloaded server costs this much, never the agent's whole timeout.
const SILENCE: Duration = Duration::from_secs(3);
/// How long a server waits for a connection's request: a client that
/// connects and says nothing does not keep it alive.
const REQUEST_WAIT: Duration = SILENCE;

/// Everything a hook's run depends on that a server inherits at start
/// instead of receiving with each event.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Identity {
    cwd: PathBuf,
    /// The working directory's device and inode: a folder removed and made
    /// again at the same path is another folder, and a server whose
    /// working directory was removed reads relative paths in nothing.
    cwd_id: (u64, u64),
    sources: String,
    /// The variables hookshot itself reads ([`context_var`]); the rest of
    /// the environment comes with each event, for its hooks.
    context: Vec<(String, String)>,
    umask: String,
}

/// Whether hookshot itself reads the variable `name` while loading or
/// running hooks (where settings live, which programs `PATH` finds, which
/// agent calls): a server answers only callers that agree on all of these.
/// Any other variable is the event's own and goes to its hooks.
fn context_var(name: &str) -> bool {
    matches!(
        name,
        "HOME"
            | "PATH"
            | "USER"
            | "LOGNAME"
            | "SHELL"
            | "TMPDIR"
            | "CLAUDE_PROJECT_DIR"
            | "GEMINI_PROJECT_DIR"
            // Who called (the agent table's detect, answer.rs).
            | "COPILOT_CLI"
            | "COPILOT_PROJECT_DIR"
            | "QWEN_PROJECT_DIR"
    ) || ["HOOKSHOT_", "XDG_", "OTEL_", "RUST_LOG"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// This process's environment as text; `None` when a name or value is not
/// UTF-8.
fn environment() -> Option<Vec<(String, String)>> {
    let mut env = Vec::new();
    for (k, v) in std::env::vars_os() {
        env.push((k.into_string().ok()?, v.into_string().ok()?));
    }
    env.sort();
    Some(env)
}

/// The variables the loaded settings read at load: `${NAME}` in the files
/// that define MCP servers (their command lines, arguments and environment
/// are expanded when read). A server answers only callers that agree on
/// them; every other variable a hook reads, it reads when it runs, from
/// its own caller's environment.
/// A loaded system with the variables its settings read, as this load
/// saw them.
fn with_named(hooks: HookSystem) -> (Arc<HookSystem>, Arc<Named>) {
    let named: Named = named_vars(&hooks)
        .into_iter()
        .map(|n| {
            let v = std::env::var(&n).ok();
            (n, v)
        })
        .collect();
    (Arc::new(hooks), Arc::new(named))
}

fn named_vars(hooks: &HookSystem) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    for s in hooks.registry().loaded() {
        let Ok(text) = std::fs::read_to_string(&s.source.path) else {
            continue;
        };
        if !text.contains("mcpServers") && s.source.path.file_name().is_none_or(|n| n != ".mcp.json") {
            continue;
        }
        for piece in text.split("${").skip(1) {
            let end = piece
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(piece.len());
            if end > 0 && !piece.starts_with(|c: char| c.is_ascii_digit()) {
                names.insert(piece[..end].to_string());
            }
        }
    }
    names
}

impl Identity {
    /// This process's; `None` when something cannot be carried as text (a
    /// variable or folder name that is not UTF-8).
    fn now(sources: &Sources) -> Option<Identity> {
        let context = environment()?.into_iter().filter(|(k, _)| context_var(k)).collect();
        let umask = format!("{:04o}", hookshot_platform::process::umask());
        Some(Identity {
            cwd: std::env::current_dir().ok()?,
            cwd_id: cwd_id()?,
            sources: format!("{sources:?}"),
            context,
            umask,
        })
    }

    /// The server's socket name: the identity and the executable (its
    /// path and file, so an upgraded hookshot gets a server of its own).
    fn socket_name(&self, exe: &Path) -> Option<String> {
        use std::hash::{Hash, Hasher};
        let meta = std::fs::metadata(exe).ok()?;
        let mut h = std::hash::DefaultHasher::new();
        (self, exe, meta.ino(), meta.mtime(), meta.mtime_nsec()).hash(&mut h);
        Some(format!("{:016x}", h.finish()))
    }
}

/// The working directory's device and inode, now.
fn cwd_id() -> Option<(u64, u64)> {
    std::fs::metadata(".").ok().map(|m| (m.dev(), m.ino()))
}

#[derive(Serialize, Deserialize)]
struct Request {
    identity: Identity,
    /// The client's arguments, for handing background hooks off as it
    /// would.
    argv: Vec<String>,
    event: String,
    input: Map<String, Value>,
    /// `fire --agent`.
    #[serde(default)]
    agent: Option<Agent>,
    /// The client's whole environment: what the event's hooks start from.
    env: Vec<(String, String)>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Reply {
    /// What to print and exit with.
    Answer(Answer),
    /// Why the client must run this event itself.
    Oneshot(String),
    /// The event is being answered (sent every [`KEEPALIVE`], and when a
    /// hook starts), with the process groups the server owns: if it dies
    /// now, its client ends them before running the event itself, so no
    /// hook of the event runs twice at once.
    Working {
        #[serde(default)]
        groups: Vec<i32>,
    },
}

/// The folder of this user's warm servers, made if missing, and used only
/// when it is a real folder of this user's that nobody else may enter.
fn private_dir() -> Option<PathBuf> {
    let uid = nix::unistd::getuid().as_raw();
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
        Some(d) if d.is_absolute() => d.join("hookshot"),
        _ => PathBuf::from(format!("/tmp/hookshot-{uid}")),
    };
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let m = std::fs::symlink_metadata(&dir).ok()?;
    (m.is_dir() && m.uid() == uid && m.mode() & 0o077 == 0).then_some(dir)
}

/// Asks this context's warm server for the event's answer. `None` means
/// the caller runs the event itself: no server yet (one is started for the
/// next event), or a case only a one-shot run answers exactly.
pub(crate) async fn fire(
    sources: &Sources,
    event: &str,
    input: &Map<String, Value>,
    idle: u64,
    agent: Option<Agent>,
) -> Option<Answer> {
    // A fixture model answers prompts from its first line in every process.
    if sources.hook_model.is_some() {
        return None;
    }
    // Under another hookshot, depth and the hooks to skip are read from
    // this process's place in the process tree, which a server's is not.
    let nesting = hookshot::nesting::Nesting::detect();
    if nesting.depth > 0 {
        return None;
    }
    let identity = Identity::now(sources)?;
    let argv = std::env::args_os()
        .skip(1)
        .map(OsString::into_string)
        .collect::<Result<Vec<String>, _>>()
        .ok()?;
    let exe = std::env::current_exe().ok()?;
    let dir = private_dir()?;
    let name = identity.socket_name(&exe)?;
    let socket = dir.join(format!("{name}.sock"));
    // Longer paths cannot be bound (sun_path is 108 bytes).
    if socket.as_os_str().len() > 100 {
        return None;
    }
    let request = Request {
        identity,
        argv,
        event: event.to_string(),
        input: input.clone(),
        agent,
        env: environment()?,
    };
    let mut line = serde_json::to_vec(&request).ok()?;
    line.push(b'\n');
    // More than a server reads (its parser stops at 128 levels): this
    // event runs here.
    if line.len() as u64 > MAX_REQUEST || std::str::from_utf8(&line).map_or(true, |t| crate::load::json_depth(t) > 120)
    {
        return None;
    }
    let stream = match tokio::net::UnixStream::connect(&socket).await {
        Ok(s) => s,
        Err(e) => {
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
            ) {
                start_server(&exe, &dir, &name, &socket, idle, sources);
            }
            return None;
        }
    };
    match ask(stream, &exe, &line).await {
        Ok(Reply::Answer(a)) => Some(a),
        Ok(Reply::Oneshot(why)) => {
            tracing::debug!("warm server: running here: {why}");
            None
        }
        // `ask` reads past these.
        Ok(Reply::Working { .. }) => None,
        Err(e) => {
            eprintln!("hookshot: warning: the warm server did not answer ({e}); the hooks run here");
            None
        }
    }
}

/// Sends the request to a server that is this user's and runs this
/// executable; reads its reply.
async fn ask(stream: tokio::net::UnixStream, exe: &Path, line: &[u8]) -> Result<Reply, String> {
    let peer = stream.peer_cred().map_err(|e| e.to_string())?;
    let server_exe = peer
        .pid()
        .and_then(|p| u32::try_from(p).ok())
        .and_then(hookshot_platform::process::exe_of);
    if peer.uid() != nix::unistd::getuid().as_raw() || server_exe.as_deref() != Some(exe) {
        return Err("the socket is not served by this hookshot of this user's".into());
    }
    let (r, mut w) = stream.into_split();
    // The write side stays open: the server reads its closing as the
    // client giving up, and stops the event's hooks.
    tokio::time::timeout(SILENCE, w.write_all(line))
        .await
        .map_err(|_| "it took no request".to_string())?
        .map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(r);
    let mut groups = Vec::new();
    let failed = |groups: &[i32], why: String| {
        end_groups(groups);
        Err(why)
    };
    loop {
        let mut reply = String::new();
        match tokio::time::timeout(SILENCE, reader.read_line(&mut reply)).await {
            Err(_) => return failed(&groups, format!("it said nothing for {} s", SILENCE.as_secs())),
            Ok(Err(e)) => return failed(&groups, e.to_string()),
            Ok(Ok(_)) => {}
        }
        if reply.is_empty() {
            return failed(&groups, "it closed the connection".into());
        }
        match serde_json::from_str(&reply).map_err(|e| format!("unreadable reply: {e}"))? {
            Reply::Working { groups: now } => groups = now,
            done => return Ok(done),
        }
    }
}

/// Kills the process groups a server that stopped answering owned: its
/// hooks must not go on while this event runs them again here.
fn end_groups(groups: &[i32]) {
    for g in groups {
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(*g), nix::sys::signal::Signal::SIGKILL);
    }
}

/// Starts a detached server for this context, unless one was started
/// moments ago; its stderr goes to `<name>.log` beside the socket.
fn start_server(exe: &Path, dir: &Path, name: &str, socket: &Path, idle: u64, sources: &Sources) {
    let log_path = dir.join(format!("{name}.log"));
    let recent = std::fs::metadata(&log_path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t.elapsed().is_ok_and(|age| age < START_EVERY));
    if recent {
        return;
    }
    let log = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .mode(0o600)
        .open(&log_path);
    let Ok(log) = log else { return };
    let started = std::process::Command::new(exe)
        .arg("warm-server")
        .arg("--socket")
        .arg(socket)
        .arg("--idle")
        .arg(idle.to_string())
        .args(sources.to_args())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .spawn();
    if let Err(e) = started {
        tracing::debug!("cannot start a warm server: {e}");
    }
}

#[derive(clap::Args, Debug)]
pub(crate) struct ServerArgs {
    /// Where to listen.
    #[arg(long)]
    socket: PathBuf,
    /// Leave after this many seconds without a request.
    #[arg(long)]
    idle: u64,
    /// The sources of the client that started it (its `fire` flags).
    #[command(flatten)]
    sources: Sources,
}

/// The variables a load's settings name, with the values it read.
type Named = Vec<(String, Option<String>)>;

/// A load for one calling agent, and the variables its settings read.
type Loaded = (Option<Host>, Arc<HookSystem>, Arc<Named>);

/// One server's state: its context, and a hook system per calling agent
/// (which agent calls decides which of its own files are skipped).
struct Server {
    identity: Identity,
    sources: Sources,
    uid: u32,
    systems: tokio::sync::Mutex<Vec<Loaded>>,
    /// Its working directory is gone: it answers nothing more and leaves.
    stale: AtomicBool,
}

impl Server {
    /// The hook system for `host`, loaded again (the library's one reload
    /// path) when anything a load reads changed since. A change that
    /// cannot be used is answered one-shot: a one-shot load drops the
    /// broken file where a reload keeps the hooks before it, and a warm
    /// answer must be the one-shot's.
    async fn system(&self, host: Option<Host>) -> Result<(Arc<HookSystem>, Arc<Named>), Reply> {
        let mut systems = self.systems.lock().await;
        let at = systems.iter().position(|(h, _, _)| *h == host);
        if let Some(i) = at {
            let (_, current, named) = &systems[i];
            let Some((next, loaded)) = current.reloaded() else {
                return Ok((Arc::clone(current), Arc::clone(named)));
            };
            if let Err(e) = loaded {
                return Err(Reply::Oneshot(format!("the settings changed and cannot be used: {e}")));
            }
            eprintln!("hookshot: settings, trust or a hook's program changed; loading again");
            let (next, named) = with_named(next);
            systems[i] = (host, Arc::clone(&next), Arc::clone(&named));
            return Ok((next, named));
        }
        let mut hooks = build_for(&self.sources, host).map_err(|fail| Reply::Answer(Answer::failed(&fail)))?;
        hooks.set_background(hookshot::BackgroundMode::Elsewhere, hookshot::background::spool::dir());
        // The client checked that it runs under no hookshot.
        hooks.set_nesting(hookshot::nesting::Nesting::default());
        // A guard's long check must not hold up its own keepalives (the
        // client would run the event a second time) or other callers.
        hooks.call_in_process_hooks_apart();
        let (hooks, named) = with_named(hooks);
        systems.push((host, Arc::clone(&hooks), Arc::clone(&named)));
        Ok((hooks, named))
    }

    async fn answer(&self, request: Request) -> Reply {
        if request.identity != self.identity {
            return Reply::Oneshot("this server was started for another context".into());
        }
        if cwd_id() != Some(self.identity.cwd_id) {
            self.stale.store(true, Ordering::SeqCst);
            return Reply::Oneshot("the server's working directory is gone".into());
        }
        let (event, dialect) = match parse_event_for(&request.event, request.agent) {
            Ok(e) => e,
            Err(fail) => return Reply::Answer(Answer::failed(&fail)),
        };
        let request = Request {
            input: hookshot_core::input::from_wire(&request.event, dialect, request.input),
            ..request
        };
        let caller = Caller::of(request.agent, event, dialect, &request.input);
        if caller.defers {
            return Reply::Oneshot("Copilot CLI runs hookshot's registration in its own hooks folder".into());
        }
        let (hooks, named) = match self.system(caller.host).await {
            Ok(h) => h,
            Err(reply) => return reply,
        };
        // No cap may make a warm answer differ from a one-shot one.
        if !hooks.watches_every_process_file() {
            return Reply::Oneshot("a folder beside a hook's program holds more files than the server watches".into());
        }
        // The settings were read with this server's values of the variables
        // they name: a caller with others would have read other settings.
        let value = |name: &str| request.env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        if let Some((name, _)) = named.iter().find(|(n, v)| value(n) != *v) {
            return Reply::Oneshot(format!(
                "the settings name ${name}, which differs in this caller's environment"
            ));
        }
        let argv: Vec<OsString> = request.argv.into_iter().map(OsString::from).collect();
        let env = Arc::new(request.env);
        let planned = hooks.plan_call(
            hookshot::Call::new(event, request.input)
                .from_agent(caller.host)
                .with_env(Arc::clone(&env)),
        );
        // The one-shot run hands off as well and, failing that, runs them
        // within the event: its answer is the exact one.
        if let Err(why) = hand_off_background(&hooks, &planned, &argv, Some(&env)) {
            return Reply::Oneshot(why);
        }
        let mut answer = answer(&hooks, planned, dialect, None).await;
        answer.stderr.splice(0..0, registry_warnings(&hooks));
        Reply::Answer(answer)
    }

    /// Answers one connection's request, unless the client leaves first
    /// (then the event's hooks are stopped, as a one-shot `fire` killed by
    /// its agent stops them).
    async fn serve(&self, stream: tokio::net::UnixStream) {
        if !stream.peer_cred().is_ok_and(|c| c.uid() == self.uid) {
            return;
        }
        let (r, mut w) = stream.into_split();
        let mut reader = BufReader::new(r.take(MAX_REQUEST));
        let mut line = Vec::new();
        let read = tokio::time::timeout(REQUEST_WAIT, reader.read_until(b'\n', &mut line)).await;
        let reply = match read {
            Ok(Ok(_)) if line.ends_with(b"\n") => match serde_json::from_slice::<Request>(&line) {
                Ok(request) => {
                    drop(line);
                    let gone = async {
                        let mut byte = [0u8; 1];
                        while matches!(reader.read(&mut byte).await, Ok(n) if n > 0) {}
                    };
                    let answer = self.answer(request);
                    tokio::pin!(gone, answer);
                    let mut tick = tokio::time::interval(KEEPALIVE);
                    loop {
                        tokio::select! {
                            reply = &mut answer => break reply,
                            () = &mut gone => return,
                            () = async {
                                tokio::select! {
                                    _ = tick.tick() => {}
                                    () = hookshot_runner::group_taken() => {}
                                }
                            } => {
                                // The client stops waiting when these stop.
                                let working = Reply::Working { groups: hookshot_runner::owned_groups() };
                                if write_reply(&mut w, &working).await.is_err() {
                                    return;
                                }
                            }
                        }
                    }
                }
                Err(e) => Reply::Oneshot(format!("unreadable request: {e}")),
            },
            Err(_) => return,
            _ => Reply::Oneshot(format!("no request, or one over {MAX_REQUEST} bytes")),
        };
        let _ = write_reply(&mut w, &reply).await;
    }
}

async fn write_reply(w: &mut tokio::net::unix::OwnedWriteHalf, reply: &Reply) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(reply).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    w.write_all(&bytes).await
}

/// Counts a connection as active while it lives.
struct Active(Arc<AtomicUsize>);

impl Active {
    fn new(count: &Arc<AtomicUsize>) -> Active {
        count.fetch_add(1, Ordering::SeqCst);
        Active(Arc::clone(count))
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What `hookshot warm` does with this user's warm servers.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum WarmAction {
    /// List the warm servers (one per user, project, settings and
    /// environment) with their sockets.
    List,
    /// Stop every warm server of this user: each ends the events it is
    /// answering, stops its hooks' processes and leaves; the next `fire
    /// --warm` starts a fresh one (the way to have persistent hooks start
    /// over).
    Stop,
}

/// `hookshot warm list|stop`. A server leaves within a second of its
/// socket going (it checks), so stopping is removing the sockets: no
/// process is signalled by a name it might share with another's.
pub(crate) fn manage(action: WarmAction) -> Result<u8, Fail> {
    let Some(dir) = private_dir() else {
        println!("no warm servers (no private runtime folder)");
        return Ok(0);
    };
    let mut sockets: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| Fail::Usage(format!("{}: {e}", dir.display())))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sock"))
        .collect();
    sockets.sort();
    match action {
        WarmAction::List => {
            for s in &sockets {
                println!("{}", s.display());
            }
            println!("{} warm server(s) in {}", sockets.len(), dir.display());
        }
        WarmAction::Stop => {
            let mut stopped = 0;
            for s in &sockets {
                // Its log, too: a log written moments ago tells a client
                // not to start another server yet, and the next event
                // should start one at once.
                let _ = std::fs::remove_file(s.with_extension("log"));
                match std::fs::remove_file(s) {
                    Ok(()) => stopped += 1,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => eprintln!("hookshot: {}: {e}", s.display()),
                }
            }
            println!(
                "{stopped} warm server(s) told to stop: each finishes its events, stops its hooks and leaves within a second"
            );
        }
    }
    Ok(0)
}

/// `hookshot warm-server`: serves until idle, or until its socket is gone
/// or replaced.
pub(crate) async fn serve(args: ServerArgs) -> Result<u8, Fail> {
    // Out of the agent's session and process group: it outlives the
    // `fire` that started it, and the agent's signals are not for it.
    let _ = nix::unistd::setsid();
    let identity = Identity::now(&args.sources).ok_or_else(|| Fail::Usage("no identity".into()))?;
    let (listener, ino) =
        hookshot::serve::bind_private(&args.socket).map_err(|e| Fail::Usage(format!("warm server: {e}")))?;
    let server = Arc::new(Server {
        identity,
        sources: args.sources,
        uid: nix::unistd::getuid().as_raw(),
        systems: tokio::sync::Mutex::new(Vec::new()),
        stale: AtomicBool::new(false),
    });
    let active = Arc::new(AtomicUsize::new(0));
    let idle = Duration::from_secs(args.idle);
    let mut last = tokio::time::Instant::now();
    let mut pause = Duration::from_millis(10);
    loop {
        tokio::select! {
            conn = listener.accept() => {
                last = tokio::time::Instant::now();
                let stream = match conn {
                    Ok((stream, _)) => {
                        pause = Duration::from_millis(10);
                        stream
                    }
                    Err(e) => {
                        // Out of descriptors: wait for some to be freed
                        // instead of spinning (clients time out and run
                        // their events themselves meanwhile).
                        if hookshot::serve::out_of_files(&e) {
                            pause = (pause * 2).min(Duration::from_secs(1));
                        }
                        tokio::time::sleep(pause).await;
                        continue;
                    }
                };
                let (server, guard) = (Arc::clone(&server), Active::new(&active));
                tokio::spawn(async move {
                    let _guard = guard;
                    server.serve(stream).await;
                });
            }
            () = tokio::time::sleep(Duration::from_secs(1)) => {
                if active.load(Ordering::SeqCst) > 0 {
                    last = tokio::time::Instant::now();
                }
                let ours = std::fs::symlink_metadata(&args.socket).is_ok_and(|m| m.ino() == ino);
                if !ours || last.elapsed() >= idle || server.stale.load(Ordering::SeqCst) {
                    break;
                }
            }
        }
    }
    // Clients from now on find no server and run one-shot; any that
    // connected in between are told to.
    hookshot::serve::remove_own_socket(&args.socket, ino);
    while let Ok(Ok((stream, _))) = tokio::time::timeout(Duration::from_millis(10), listener.accept()).await {
        let (_, mut w) = stream.into_split();
        let _ = write_reply(&mut w, &Reply::Oneshot("the warm server is leaving".into())).await;
    }
    while active.load(Ordering::SeqCst) > 0 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for (_, hooks, _) in server.systems.lock().await.drain(..) {
        hooks.shutdown().await;
    }
    Ok(0)
}
