//! The `hookshot` command line (see CLI-CONTRACT.md).

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};
use hookshot::replay::{Ending, ReplayError, ReplayOptions};
use hookshot::{EventKind, HookSystem, TrustPolicy, TrustStore};
use serde_json::{Map, Value, json};

#[derive(Parser, Debug)]
#[command(
    name = "hookshot",
    version,
    about = "A hook engine for AI agents: runs gemini-cli, Claude Code and jcli hooks"
)]
struct Cli {
    /// Log format on stderr (filter with RUST_LOG, e.g. RUST_LOG=hookshot=debug).
    #[arg(long, value_enum, default_value_t = LogFormat::Text, global = true)]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Args, Debug, Clone)]
struct Sources {
    /// A settings file (gemini, Claude, jcli or picoclaw); later files take precedence.
    #[arg(long = "settings", value_name = "FILE")]
    settings: Vec<PathBuf>,
    /// The dialect of the --settings files, when their content cannot tell
    /// it (events both gemini-cli and Claude Code have). Files in .claude/,
    /// .gemini/ or a plugin need no flag.
    #[arg(long, value_name = "DIALECT", value_parser = parse_dialect)]
    dialect: Option<hookshot::Dialect>,
    /// The project directory: hooks run there and its own settings are found there.
    #[arg(long, value_name = "DIR")]
    workdir: Option<PathBuf>,
    /// Trust the project's own settings for this run.
    #[arg(long)]
    trust_project: bool,
    /// Also read ~/.gemini, ~/.claude and ~/.jdata user settings.
    #[arg(long)]
    agent_user_files: bool,
    /// Answer LLM prompt hooks from this recorded `.responses` file, one
    /// line per prompt.
    #[arg(long, value_name = "FIXTURE")]
    hook_model: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the hooks of one event; print the merged answer in the event's dialect.
    Fire {
        /// The event, in any dialect (BeforeTool, PreToolUse, pre_tool_execution, ...).
        event: String,
        /// The event input as JSON (a file, or - for stdin; default: stdin when piped).
        #[arg(long, value_name = "FILE|-")]
        input: Option<String>,
        #[command(flatten)]
        sources: Sources,
        /// Accepted for symmetry with `list` and `stats`: the answer is
        /// always JSON, in the event's dialect.
        #[arg(long, hide = true)]
        json: bool,
        /// Run only the event's background (`async`) hooks, with the input
        /// in FILE (removed once read), and leave what they say for the
        /// session's next event: how a `fire` hands them off.
        #[arg(long, value_name = "FILE", hide = true)]
        background_job: Option<PathBuf>,
    },
    /// Replay a recorded model session through the reference agent loop.
    Replay {
        /// The `.responses` fixture.
        fixture: PathBuf,
        #[command(flatten)]
        sources: Sources,
        /// The user's prompt.
        #[arg(long, default_value = "")]
        prompt: String,
        /// Write every step as JSON Lines here.
        #[arg(long, value_name = "OUT.jsonl")]
        transcript: Option<PathBuf>,
    },
    /// Check settings files; exit 1 at the first bad one.
    Validate {
        /// The files.
        files: Vec<PathBuf>,
        /// Read them in this dialect instead of telling it from their place and content.
        #[arg(long, value_name = "DIALECT", value_parser = parse_dialect)]
        dialect: Option<hookshot::Dialect>,
        /// Warnings fail too (unknown keys the agent would ignore, doubts
        /// about the dialect, hooks that never run).
        #[arg(long)]
        strict: bool,
    },
    /// Show the effective hooks with their source, precedence and trust.
    List {
        #[command(flatten)]
        sources: Sources,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Serve JSON-RPC 2.0 on stdin/stdout (and a Unix socket): fire, list, stats, shutdown.
    Serve {
        #[command(flatten)]
        sources: Sources,
        /// Also listen on this Unix socket (created 0600; an existing file
        /// that is not a socket, or a live server's socket, is refused).
        #[arg(long, value_name = "PATH")]
        socket: Option<PathBuf>,
        /// Close a connection that sends nothing for this many seconds.
        #[arg(long, value_name = "SECS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=86400))]
        idle_timeout: u64,
        /// Socket connections served at once.
        #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
        max_connections: u64,
    },
    /// Print the JSON Schema of the settings format (for editor completion).
    Schema,
    /// Per-hook runs, failures, timeouts, blocks and latency from an audit
    /// log (a live sidecar answers the `stats` method).
    Stats {
        /// The audit log (JSON Lines written by the audit_log built-in);
        /// rotated files beside it (`.1`, `.2`, ...) are read too.
        #[arg(long, value_name = "FILE")]
        audit: Option<PathBuf>,
        /// Ask a running `hookshot serve --socket PATH` instead.
        #[arg(long, value_name = "PATH", conflicts_with = "audit")]
        socket: Option<PathBuf>,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Trust the project's hook settings as they are now, after showing
    /// every hook they would run; --list and --revoke manage approvals.
    Trust {
        /// The project (default: the current directory).
        #[arg(long, visible_alias = "project", value_name = "DIR")]
        workdir: Option<PathBuf>,
        /// Approve without asking (needed when stdin is not a terminal).
        #[arg(long)]
        yes: bool,
        /// List every approval in the trust store.
        #[arg(long, conflicts_with_all = ["revoke", "yes"])]
        list: bool,
        /// Withdraw every approval given for this project.
        #[arg(long)]
        revoke: bool,
    },
    /// Fire an event repeatedly and report latency.
    Bench {
        /// The event.
        event: String,
        #[command(flatten)]
        sources: Sources,
        /// The event input.
        #[arg(long, value_name = "FILE")]
        input: Option<PathBuf>,
        /// Measured iterations.
        #[arg(long, default_value_t = 100)]
        iterations: usize,
        /// Unmeasured iterations first.
        #[arg(long, default_value_t = 5)]
        warmup: usize,
        /// Measure planning only; run no hook.
        #[arg(long)]
        plan_only: bool,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
}

/// A failure the user must fix: printed, exit 1.
enum Fail {
    /// A usage or input problem, printed after the program name.
    Usage(String),
    /// Settings diagnostics, printed as they are: they start with
    /// `path:line:column:` so editors and terminals link them.
    Settings(String),
}

impl From<hookshot::Error> for Fail {
    fn from(e: hookshot::Error) -> Self {
        Fail::Settings(e.to_string())
    }
}

fn main() -> ExitCode {
    // Usage errors exit 1, never clap's 2: an agent reads 2 from a hook as
    // "block", with the usage text as the reason.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    init_logging(cli.log_format);
    // Hook work is waiting on child processes and pipes: one thread drives it
    // all, without waking worker threads for every pipe read.
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("hookshot: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(async {
        let run = run(cli.command);
        tokio::pin!(run);
        tokio::select! {
            r = &mut run => r,
            sig = stop_signal() => {
                // The agent gave up on us (its own timeout, Ctrl-C, a closed
                // terminal): every hook and persistent process we started
                // goes with us (TERM, grace, KILL), none is left orphaned.
                hookshot_runner::terminate_all(std::time::Duration::from_millis(500));
                Ok(128 + sig as u8)
            }
        }
    });
    // A read of stdin may still be parked on a blocking thread (serve after
    // shutdown); do not wait for it.
    runtime.shutdown_background();
    match result {
        Ok(code) => ExitCode::from(code),
        Err(fail) => {
            match fail {
                Fail::Settings(diagnostics) => eprintln!("{diagnostics}"),
                Fail::Usage(msg) => eprintln!("hookshot: {msg}"),
            }
            ExitCode::from(1)
        }
    }
}

/// Waits for SIGTERM, SIGINT or SIGHUP; returns its number. If a handler
/// cannot be installed, waits forever (the default disposition stays).
async fn stop_signal() -> i32 {
    use tokio::signal::unix::{SignalKind, signal};
    let mut streams = Vec::new();
    for (kind, no) in [
        (SignalKind::terminate(), 15),
        (SignalKind::interrupt(), 2),
        (SignalKind::hangup(), 1),
    ] {
        if let Ok(s) = signal(kind) {
            streams.push((s, no));
        }
    }
    if streams.is_empty() {
        return std::future::pending().await;
    }
    let waits = streams.iter_mut().map(|(s, no)| {
        let no = *no;
        Box::pin(async move {
            s.recv().await;
            no
        })
    });
    futures::future::select_all(waits).await.0
}

fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}

fn parse_dialect(name: &str) -> Result<hookshot::Dialect, String> {
    hookshot::Dialect::ALL
        .into_iter()
        .find(|d| d.as_str() == name)
        .ok_or_else(|| format!("unknown dialect \"{name}\"; use gemini, claude, jcli or picoclaw"))
}

fn parse_event(name: &str) -> Result<(EventKind, hookshot::Dialect), Fail> {
    EventKind::parse(name).ok_or_else(|| {
        let hint = hookshot_core::suggest::did_you_mean(name, EventKind::all_names())
            .map(|s| format!("; did you mean \"{s}\"?"))
            .unwrap_or_default();
        Fail::Usage(format!("unknown event \"{name}\"{hint}"))
    })
}

/// `$XDG_CONFIG_HOME`, else `~/.config` (a relative value is ignored:
/// see [`hookshot_core::paths::xdg_dir`]).
fn config_home() -> Option<PathBuf> {
    hookshot_core::paths::xdg_dir("XDG_CONFIG_HOME", ".config")
}

fn trust_store_path() -> Option<PathBuf> {
    config_home().map(|c| c.join("hookshot").join("trusted.json"))
}

/// The trust store for loading: when it cannot be read, nothing in it is
/// trusted and every source that needs trust says why.
fn trust_policy(trust_project: bool) -> TrustPolicy {
    let (store, store_error) = match trust_store_path().map(TrustStore::open) {
        Some(Ok(s)) => (Some(s), None),
        Some(Err(e)) => (None, Some(e.to_string())),
        None => (None, Some("no trust store: set HOME or XDG_CONFIG_HOME".into())),
    };
    TrustPolicy {
        trust_project,
        store,
        store_error,
    }
}

/// The agent that runs this `fire` as one of its hooks, if any: Claude Code
/// and gemini-cli set their project variable in every hook's environment,
/// and the event is named in their words. Its own settings files are then
/// its business (it runs those hooks itself); loading them too would run
/// each of them twice.
fn calling_agent(event: EventKind, dialect: hookshot::Dialect, codex: bool) -> Option<hookshot::Host> {
    use hookshot::Dialect::{Claude, Gemini};
    let set = |v: &str| std::env::var_os(v).is_some_and(|x| !x.is_empty());
    let claude_name = event.name_in(Claude) == Some(event.display_in(dialect));
    if codex {
        return Some(hookshot::Host::Codex);
    }
    if set("CLAUDE_PROJECT_DIR") && (dialect == Claude || claude_name && !set("GEMINI_PROJECT_DIR")) {
        return Some(hookshot::Host::Claude);
    }
    if set("GEMINI_PROJECT_DIR") && dialect == Gemini {
        return Some(hookshot::Host::Gemini);
    }
    None
}

/// Codex sends a `turn_id` with every event; Claude Code does not.
fn from_codex(dialect: hookshot::Dialect, input: &Map<String, Value>) -> bool {
    dialect == hookshot::Dialect::Claude && input.contains_key("turn_id")
}

/// Codex sends Claude Code's event names and reads Claude Code's answers,
/// but more strictly: an answer it finds invalid (`permissionDecision:
/// "ask"`, `"allow"` without `updatedInput`, `continue: false` before a
/// tool) fails the hook and the tool runs. A question or a stop is
/// therefore a denial for Codex, given with exit code 2, which Codex
/// always honours; a bare allow is no answer.
fn answer_codex(outcome: &mut hookshot::Outcome) {
    use hookshot::{Decision, EventKind};
    if !matches!(outcome.event, EventKind::BeforeTool | EventKind::PermissionRequest) {
        return;
    }
    let o = &mut outcome.output;
    if o.decision == Decision::Ask || o.stop {
        let why = o
            .reason
            .clone()
            .or_else(|| o.stop_reason.clone())
            .unwrap_or_else(|| "a hook asked for confirmation".into());
        o.reason = Some(format!(
            "{why} (Codex hooks cannot ask for confirmation, so hookshot denies)"
        ));
        o.decision = Decision::Block;
        o.stop = false;
        o.stop_reason = None;
    }
    if o.decision == Decision::Allow && o.tool_input.is_none() {
        o.decision = Decision::Undecided;
    }
    o.suppress_output = false;
}

/// Starts a detached `hookshot` that runs this event's background hooks
/// (this very command line, with the input in a job file): the agent gets
/// its answer now, and the hooks go on after this process has exited, out
/// of its process group and its pipes, so the agent waits for neither.
fn hand_off(input: &Map<String, Value>, spool: Option<&Path>) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let spool = spool.ok_or("no state directory (set HOME or XDG_STATE_HOME)")?;
    let bytes = serde_json::to_vec(input).map_err(|e| e.to_string())?;
    let job = hookshot::background::spool::put_job(spool, &bytes).map_err(|e| format!("{}: {e}", spool.display()))?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let started = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .arg("--background-job")
        .arg(&job)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn();
    started.map(drop).map_err(|e| {
        let _ = std::fs::remove_file(&job);
        format!("cannot start: {e}")
    })
}

/// The detached half of [`hand_off`]: runs the background hooks of the
/// event in the job and saves what they say for the session's next event.
/// Nobody reads this process's output, so every problem is saved as a
/// warning for that event instead.
async fn run_background_job(
    event: EventKind,
    dialect: hookshot::Dialect,
    job: &Path,
    sources: &Sources,
) -> Result<u8, Fail> {
    use hookshot::background::{Delivery, spool};
    let Some(dir) = spool::dir() else { return Ok(1) };
    let problem = |session: &str, why: String| {
        let d = Delivery {
            hook: "background".into(),
            context: None,
            warning: Some(format!("background hooks of {event} did not run: {why}")),
        };
        let _ = spool::put(&dir, session, &[d]);
        Ok(1)
    };
    let input = match spool::take_job(job).map(|b| serde_json::from_slice::<Map<String, Value>>(&b)) {
        Ok(Ok(input)) => input,
        // No input, no session to tell.
        _ => return Ok(1),
    };
    let session = input
        .get("session_id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let codex = from_codex(dialect, &input);
    let mut hooks = match build_for(sources, calling_agent(event, dialect, codex)) {
        Ok(h) => h,
        Err(Fail::Settings(why) | Fail::Usage(why)) => return problem(&session, why),
    };
    hooks.set_background(hookshot::BackgroundMode::Inline, None);
    let outcome = hooks.fire_where(event, input, |h| h.options.background.is_on()).await;
    hooks.shutdown().await;
    let found: Vec<Delivery> = outcome
        .records
        .iter()
        .filter(|r| r.hook.options.background.is_on())
        .filter_map(Delivery::of)
        .collect();
    match spool::put(&dir, &session, &found) {
        Ok(()) => Ok(0),
        Err(e) => problem(&session, e.to_string()),
    }
}

fn build(sources: &Sources) -> Result<HookSystem, Fail> {
    build_for(sources, None)
}

fn build_for(sources: &Sources, hook_of: Option<hookshot::Host>) -> Result<HookSystem, Fail> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut b = HookSystem::builder()
        .workdir(sources.workdir.clone().unwrap_or_else(|| PathBuf::from(".")))
        .discover(home, config_home())
        .agent_user_files(sources.agent_user_files)
        .trust(trust_policy(sources.trust_project));
    for s in &sources.settings {
        b = b.settings(s);
    }
    b = b.settings_dialect(sources.dialect).hook_of(hook_of);
    if let Some(f) = &sources.hook_model {
        let model = hookshot::FixtureModel::open(f).map_err(|e| Fail::Usage(format!("{}: {e}", f.display())))?;
        b = b.model_client(std::sync::Arc::new(model));
    }
    let hooks = b.build()?;
    for w in hooks.registry().warnings() {
        eprintln!("hookshot: warning: {w}");
    }
    Ok(hooks)
}

/// Prints the sources that could not be used, for commands that fire no
/// event (`fire` prints them with the event's other warnings).
fn print_load_warnings(hooks: &HookSystem) {
    for w in hooks.load_warnings() {
        eprintln!("hookshot: warning: {w}");
    }
}

fn read_input(arg: Option<&str>) -> Result<Map<String, Value>, Fail> {
    let (text, name) = match arg {
        Some("-") => (read_stdin()?, "stdin".to_string()),
        Some(path) => (
            std::fs::read_to_string(path).map_err(|e| Fail::Usage(format!("{path}: cannot read input: {e}")))?,
            path.to_string(),
        ),
        None if !std::io::stdin().is_terminal() => (read_stdin()?, "stdin".to_string()),
        None => (String::new(), "stdin".to_string()),
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(Fail::Usage(format!(
            "{name}: the event input must be a JSON object, found {}",
            kind(&other)
        ))),
        Err(e) => Err(Fail::Usage(format!(
            "{name}:{}:{}: invalid input JSON: {e}",
            e.line(),
            e.column()
        ))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
        Value::Object(_) => "an object",
    }
}

fn read_stdin() -> Result<String, Fail> {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .map_err(|e| Fail::Usage(format!("cannot read stdin: {e}")))?;
    Ok(s)
}

async fn run(command: Command) -> Result<u8, Fail> {
    match command {
        Command::Fire {
            event,
            input,
            sources,
            json: _,
            background_job,
        } => {
            let (event, dialect) = parse_event(&event)?;
            if let Some(job) = background_job {
                return run_background_job(event, dialect, &job, &sources).await;
            }
            let input = read_input(input.as_deref())?;
            let codex = from_codex(dialect, &input);
            let mut hooks = build_for(&sources, calling_agent(event, dialect, codex))?;
            let spool = hookshot::background::spool::dir();
            hooks.set_background(hookshot::BackgroundMode::Elsewhere, spool.clone());
            let mut handoff = None;
            if hooks.plan(event, &input).iter().any(|h| h.options.background.is_on())
                && let Err(e) = hand_off(&input, spool.as_deref())
            {
                // Run them within the event rather than not at all.
                hooks.set_background(hookshot::BackgroundMode::Inline, spool);
                handoff = Some(format!(
                    "background hooks ran before the answer, not after it: they could not be handed off ({e})"
                ));
            }
            let mut outcome = hooks.fire(event, input).await;
            outcome.warnings.extend(handoff);
            if codex {
                answer_codex(&mut outcome);
            }
            for w in &outcome.warnings {
                eprintln!("hookshot: warning: {w}");
            }
            // Claude Code reads a WorktreeCreate command hook's answer as a
            // path on stdout; no path fails the creation.
            if event == EventKind::WorktreeCreate && dialect == hookshot::Dialect::Claude && !outcome.is_blocked() {
                hooks.shutdown().await;
                return match outcome.output.extra.get("worktreePath").and_then(Value::as_str) {
                    Some(path) if !path.is_empty() => {
                        println!("{path}");
                        Ok(0)
                    }
                    _ => {
                        eprintln!("hookshot: no WorktreeCreate hook answered with a worktree path");
                        Ok(1)
                    }
                };
            }
            println!("{}", outcome.render(dialect));
            // Observers were sent this event: let them read it before they go.
            hooks.shutdown().await;
            if outcome.is_blocked() {
                eprintln!("{}", outcome.block_reason());
                return Ok(2);
            }
            Ok(0)
        }
        Command::Replay {
            fixture,
            sources,
            prompt,
            transcript,
        } => {
            let hooks = build(&sources)?;
            let opts = ReplayOptions {
                fixture,
                prompt,
                transcript,
            };
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            let ended = hookshot::replay::replay(&hooks, &opts, &mut out).await;
            hooks.shutdown().await;
            match ended {
                Ok(Ending::Completed) | Ok(Ending::Stopped(_)) => Ok(0),
                Err(ReplayError::Fixture(e)) => {
                    let _ = out.flush();
                    eprintln!("hookshot: {e}");
                    Ok(3)
                }
                Err(e) => Err(Fail::Usage(e.to_string())),
            }
        }
        Command::Validate { files, dialect, strict } => validate(&files, dialect, strict),
        Command::Serve {
            sources,
            socket,
            idle_timeout,
            max_connections,
        } => {
            let hooks = build(&sources)?;
            print_load_warnings(&hooks);
            let limits = hookshot::serve::Limits {
                idle_timeout: std::time::Duration::from_secs(idle_timeout),
                max_connections: max_connections as usize,
                ..Default::default()
            };
            hookshot::serve::serve(hooks, socket, limits)
                .await
                .map_err(|e| Fail::Usage(format!("serve: {e}")))?;
            Ok(0)
        }
        Command::Stats { audit, socket, json } => {
            let stats = match (audit, socket) {
                (_, Some(socket)) => live_stats(&socket)?,
                (Some(audit), None) => {
                    let (rows, lost) = audit_stats(&audit)?;
                    if lost.total() > 0 {
                        // Not a row: the JSON rows stay one per hook.
                        let line = format!(
                            "audit records lost: {} ({} dropped while the writer was behind, {} not written{})",
                            lost.total(),
                            lost.dropped,
                            lost.failed,
                            lost.error.map(|e| format!(": {e}")).unwrap_or_default()
                        );
                        if json {
                            eprintln!("hookshot: {line}");
                        } else {
                            print_stats(&rows, false);
                            println!("{line}");
                            return Ok(0);
                        }
                    }
                    rows
                }
                (None, None) => {
                    return Err(Fail::Usage(
                        "stats needs --audit FILE (an audit_log built-in's log) or --socket PATH (a running `hookshot serve --socket PATH`)".into(),
                    ));
                }
            };
            print_stats(&stats, json);
            Ok(0)
        }
        Command::Schema => {
            println!(
                "{}",
                serde_json::to_string_pretty(&hookshot_registry::schema()).unwrap_or_default()
            );
            Ok(0)
        }
        Command::List { sources, json } => {
            let hooks = build(&sources)?;
            list(&hooks, json);
            Ok(0)
        }
        Command::Trust {
            workdir,
            yes,
            list,
            revoke,
        } => {
            let project = workdir.as_deref().unwrap_or(Path::new("."));
            match (list, revoke) {
                (true, _) => trust_list(),
                (false, true) => trust_revoke(project),
                (false, false) => trust(project, yes),
            }
        }
        Command::Bench {
            event,
            sources,
            input,
            iterations,
            warmup,
            plan_only,
            json,
        } => {
            let (event, _) = parse_event(&event)?;
            let input = read_input(input.as_ref().and_then(|p| p.to_str()))?;
            let hooks = build(&sources)?;
            print_load_warnings(&hooks);
            bench(&hooks, event, input, iterations, warmup, plan_only, json).await
        }
    }
}

fn validate(files: &[PathBuf], dialect: Option<hookshot::Dialect>, strict: bool) -> Result<u8, Fail> {
    if files.is_empty() {
        return Err(Fail::Usage("validate: name at least one settings file".into()));
    }
    for f in files {
        let source = hookshot::Source {
            dialect,
            ..hookshot::Source::new(f, hookshot::SourceKind::Cli)
        };
        let bytes = source.read().map_err(|e| Fail::Usage(e.to_string()))?;
        match source.parse(bytes) {
            Ok(parsed) => {
                for w in &parsed.warnings {
                    eprintln!("warning: {w}");
                }
                if strict && !parsed.warnings.is_empty() {
                    eprintln!("{}: {} warnings (--strict)", f.display(), parsed.warnings.len());
                    return Ok(1);
                }
                let dialect = parsed.dialect.map_or("no hooks", |d| d.as_str());
                let n = parsed.hooks.len();
                println!(
                    "{}: ok ({dialect}, {n} hook{})",
                    f.display(),
                    if n == 1 { "" } else { "s" }
                );
            }
            Err(e) => {
                eprintln!("{e}");
                return Ok(1);
            }
        }
    }
    Ok(0)
}

fn list(hooks: &HookSystem, as_json: bool) {
    let described = hooks.describe_hooks();
    let rows = described.as_array().cloned().unwrap_or_default();
    if as_json {
        println!("{}", Value::Array(rows));
        return;
    }
    for p in hooks.registry().problems() {
        let state = match p.kind {
            hookshot::ProblemKind::Untrusted => "untrusted",
            hookshot::ProblemKind::Broken | hookshot::ProblemKind::Servers => "broken",
        };
        println!("{state} ({} source): {}", p.source.kind, p.message);
    }
    let rows: Vec<Value> = rows.into_iter().filter(|r| !r["event"].is_null()).collect();
    if rows.is_empty() {
        println!("no hooks");
        return;
    }
    let mut events: Vec<String> = rows
        .iter()
        .map(|r| r["event"].as_str().unwrap_or("").to_string())
        .collect();
    events.dedup();
    let mut seen = std::collections::BTreeSet::new();
    for e in events {
        if !seen.insert(e.clone()) {
            continue;
        }
        // Each hook's own agent's name for the event, beside the canonical one.
        let kind = EventKind::parse(&e).map(|(k, _)| k);
        let mut names: Vec<&str> = rows
            .iter()
            .filter(|r| r["event"] == e.as_str())
            .filter_map(|r| kind?.name_in(parse_dialect(r["dialect"].as_str()?).ok()?))
            .filter(|n| *n != e)
            .collect();
        names.sort_unstable();
        names.dedup();
        if names.is_empty() {
            println!("{e}");
        } else {
            println!("{e} ({})", names.join(", "));
        }
        for r in rows.iter().filter(|r| r["event"] == e.as_str()) {
            let m = match r["matcher"]["value"].clone() {
                Value::Null => "*".to_string(),
                Value::Array(v) => v.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("|"),
                other => other.as_str().unwrap_or("").to_string(),
            };
            let prec = r["precedence"].as_u64().map_or("-".to_string(), |p| p.to_string());
            println!(
                "  [{prec}] {} (matcher {m}, {} {}, {}) {}",
                r["name"].as_str().unwrap_or(""),
                r["source"].as_str().unwrap_or(""),
                r["dialect"].as_str().unwrap_or(""),
                r["state"].as_str().unwrap_or(""),
                r["at"].as_str().unwrap_or("")
            );
        }
    }
}

fn audit_stats(audit: &Path) -> Result<(Vec<Value>, hookshot::metrics::Lost), Fail> {
    let mut text = std::fs::read_to_string(audit).map_err(|e| Fail::Usage(format!("{}: {e}", audit.display())))?;
    for i in 1.. {
        let mut rotated = audit.as_os_str().to_owned();
        rotated.push(format!(".{i}"));
        match std::fs::read_to_string(PathBuf::from(rotated)) {
            Ok(t) => text.push_str(&t),
            Err(_) => break,
        }
    }
    let rows = hookshot::metrics::Metrics::from_audit(&text)
        .snapshot()
        .iter()
        .filter_map(|s| serde_json::to_value(s).ok())
        .collect();
    Ok((rows, hookshot::metrics::Lost::in_audit(&text)))
}

/// Asks a running sidecar for its metrics (the `stats` method).
fn live_stats(socket: &Path) -> Result<Vec<Value>, Fail> {
    use std::io::BufRead;
    let fail = |e: std::io::Error| Fail::Usage(format!("{}: {e}", socket.display()));
    let mut stream = std::os::unix::net::UnixStream::connect(socket).map_err(fail)?;
    writeln!(stream, "{}", json!({"jsonrpc": "2.0", "id": 1, "method": "stats"})).map_err(fail)?;
    let mut line = String::new();
    std::io::BufReader::new(&stream).read_line(&mut line).map_err(fail)?;
    let answer: Value =
        serde_json::from_str(&line).map_err(|e| Fail::Usage(format!("{}: bad answer: {e}", socket.display())))?;
    Ok(answer["result"].as_array().cloned().unwrap_or_default())
}

fn print_stats(rows: &[Value], as_json: bool) {
    if as_json {
        println!("{}", Value::Array(rows.to_vec()));
        return;
    }
    println!(
        "{:<40} {:>8} {:>8} {:>8} {:>8} {:>10} {:>10} {:>10}",
        "hook", "runs", "failed", "timeout", "blocked", "mean ms", "p50 ms", "p99 ms"
    );
    for r in rows {
        let n = |k: &str| r[k].as_f64().unwrap_or(0.0);
        println!(
            "{:<40} {:>8} {:>8} {:>8} {:>8} {:>10.2} {:>10.2} {:>10.2}",
            r["hook"].as_str().unwrap_or(""),
            n("runs"),
            n("failures"),
            n("timeouts"),
            n("blocks"),
            n("mean_ms"),
            n("p50_ms"),
            n("p99_ms")
        );
    }
}

fn open_store() -> Result<TrustStore, Fail> {
    let path = trust_store_path()
        .ok_or_else(|| Fail::Usage("cannot locate the user config directory (set HOME or XDG_CONFIG_HOME)".into()))?;
    TrustStore::open(path).map_err(|e| Fail::Usage(e.to_string()))
}

fn trust_list() -> Result<u8, Fail> {
    let store = open_store()?;
    let mut n = 0;
    for e in store.entries() {
        n += 1;
        println!("{}/{} (sha256 {})", e.project, e.file, &e.sha256[..12]);
        for (script, digest) in &e.covers {
            println!("  runs {script} (sha256 {})", &digest[..12]);
        }
    }
    if n == 0 {
        println!("no approvals in {}", store.path().display());
    }
    Ok(0)
}

fn trust_revoke(project: &Path) -> Result<u8, Fail> {
    let project = std::fs::canonicalize(project).map_err(|e| Fail::Usage(format!("{}: {e}", project.display())))?;
    let mut store = open_store()?;
    let n = store.revoke(&project);
    store.save().map_err(|e| Fail::Usage(e.to_string()))?;
    println!("revoked {n} approval(s) for {}", project.display());
    Ok(0)
}

/// One hook as `hookshot trust` shows it: everything it would run.
fn describe_for_trust(h: &hookshot::HookDef) -> String {
    use hookshot_core::HookAction;
    let what = match &h.action {
        HookAction::Command { command } => format!("runs: {command}"),
        HookAction::Exec { program, args } => format!("runs: {program} with arguments {args:?} (no shell)"),
        HookAction::Unsupported { why, .. } => format!("cannot run: {why}"),
        HookAction::McpTool { server, tool, .. } => format!("calls the tool {tool} of the MCP server \"{server}\""),
        HookAction::Http {
            url,
            headers,
            allowed_env,
        } => {
            let names: Vec<&str> = headers.iter().map(|(k, _)| k.as_str()).collect();
            format!(
                "POSTs each event to {url} (headers: {}; variables it may send: {})",
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                },
                if allowed_env.is_empty() {
                    "none".into()
                } else {
                    allowed_env.join(", ")
                }
            )
        }
        HookAction::Persistent { process, observe } => {
            let mut s = format!(
                "starts process \"{}\" ({}): {}",
                process.name,
                if observe.is_some() { "observer" } else { "interceptor" },
                process.argv.join(" ")
            );
            if let Some(d) = &process.dir {
                s.push_str(&format!(" in {}", d.display()));
            }
            for (k, v) in &process.env {
                s.push_str(&format!("\n      env {k}={v}"));
            }
            s
        }
        HookAction::Llm { prompt, model } => format!(
            "asks {} with the prompt:\n      {}",
            model.as_deref().unwrap_or("the model"),
            prompt.replace('\n', "\n      ")
        ),
        HookAction::Judge {
            prompt, model, agent, ..
        } => format!(
            "asks {}{} to judge with the prompt:\n      {}",
            model.as_deref().unwrap_or("the model"),
            if *agent {
                " (an agent that may Read, Grep and Glob the project)"
            } else {
                ""
            },
            prompt.replace('\n', "\n      ")
        ),
        HookAction::InProcess { name } => format!("in-process hook {name}"),
    };
    let matcher = serde_json::to_value(&h.matcher).unwrap_or_default();
    let matcher = match &matcher["value"] {
        Value::Null => "*".to_string(),
        v => v.to_string(),
    };
    format!(
        "  {} [{}] matcher {matcher}, timeout {}s, on failure {:?} ({})\n    {what}",
        h.event,
        h.dialect,
        h.timeout.as_secs_f64(),
        h.fail,
        h.provenance
    )
}

fn trust(project: &Path, yes: bool) -> Result<u8, Fail> {
    let project = std::fs::canonicalize(project).map_err(|e| Fail::Usage(format!("{}: {e}", project.display())))?;
    let mut store = open_store()?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    // With the agents' user files: a Claude Code plugin the project enables
    // is the project's to trust.
    let sources: Vec<_> = hookshot_registry::discover(&project, home.as_deref(), config_home().as_deref(), true)
        .into_iter()
        .filter(|s| s.kind.needs_trust())
        .collect();
    if sources.is_empty() {
        println!("{}: no project hook settings found", project.display());
        return Ok(0);
    }
    let mut approvals = Vec::new();
    for s in &sources {
        let fail = |e: String| Fail::Settings(format!("{e}\nnothing was trusted"));
        let bytes = s.read().map_err(|e| fail(e.to_string()))?;
        let parsed = s.parse(bytes.clone()).map_err(|e| fail(e.to_string()))?;
        let (scope, rel) = s.trust_key();
        let covers = hookshot_registry::covered_files(&scope, &project, &parsed);
        println!(
            "{} ({} settings, {} hook(s)):",
            s.path.display(),
            s.kind,
            parsed.hooks.len()
        );
        for h in &parsed.hooks {
            println!("{}", describe_for_trust(h));
        }
        for d in &parsed.mcp_servers {
            match &d.how {
                Ok(s) => println!(
                    "  MCP server \"{}\" runs: {} with arguments {:?} (started when a hook calls one of its tools)",
                    d.name, s.command, s.args
                ),
                Err(why) => println!("  MCP server \"{}\" cannot be used: it {why}", d.name),
            }
        }
        for b in &parsed.builtins {
            let state = if b.on { "on" } else { "off" };
            println!("  built-in {} {state} {}", b.name, Value::Object(b.options.clone()));
        }
        if let Some(p) = parsed.on_failure {
            println!("  failure policy: {p:?}");
        }
        if parsed.enabled == Some(false) {
            println!("  disables all hooks of lower sources (hooksConfig.enabled: false)");
        }
        if !parsed.disabled.is_empty() {
            println!("  disables: {}", parsed.disabled.join(", "));
        }
        for script in covers.keys() {
            println!("  covers {script} (a change to it withdraws this approval)");
        }
        approvals.push((scope, rel, bytes, covers));
    }
    if !yes {
        if !std::io::stdin().is_terminal() {
            return Err(Fail::Usage(
                "trust: stdin is not a terminal; review the hooks above and pass --yes to approve them".into(),
            ));
        }
        eprint!(
            "Trust these {} file(s) for {}? [y/N] ",
            approvals.len(),
            project.display()
        );
        let mut answer = String::new();
        let _ = std::io::stdin().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            println!("nothing was trusted");
            return Ok(1);
        }
    }
    let n = approvals.len();
    for (scope, rel, bytes, covers) in approvals {
        store.trust(&scope, &rel, &bytes, covers);
    }
    store.save().map_err(|e| Fail::Usage(e.to_string()))?;
    println!("trusted {n} file(s); a change to any of them, or to a script they run, makes it untrusted again");
    Ok(0)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

async fn bench(
    hooks: &HookSystem,
    event: EventKind,
    mut input: Map<String, Value>,
    iterations: usize,
    warmup: usize,
    plan_only: bool,
    as_json: bool,
) -> Result<u8, Fail> {
    hooks.complete_input(event, &mut input);
    let n_hooks = hooks.plan(event, &input).len();
    let plan_rounds = iterations.max(1000);
    let t = Instant::now();
    let mut matched = 0;
    for _ in 0..plan_rounds {
        matched += std::hint::black_box(hooks.plan_uncached(event, &input)).len();
    }
    let plan_us = t.elapsed().as_secs_f64() * 1e6 / plan_rounds as f64;
    std::hint::black_box(matched);
    let mut report = json!({"event": event.canonical_name(), "hooks": n_hooks, "plan_us": plan_us});
    if !plan_only {
        for _ in 0..warmup {
            hooks.fire(event, input.clone()).await;
        }
        // A progress bar only for a person watching; never in pipes or CI.
        let bar = if std::io::stderr().is_terminal() {
            indicatif::ProgressBar::new(iterations as u64)
        } else {
            indicatif::ProgressBar::hidden()
        };
        let mut samples = Vec::with_capacity(iterations);
        for _ in 0..iterations {
            let t = Instant::now();
            std::hint::black_box(hooks.fire(event, input.clone()).await);
            samples.push(t.elapsed().as_secs_f64() * 1000.0);
            bar.inc(1);
        }
        bar.finish_and_clear();
        let mean = samples.iter().sum::<f64>() / samples.len().max(1) as f64;
        samples.sort_by(f64::total_cmp);
        report["iterations"] = json!(iterations);
        report["mean_ms"] = json!(mean);
        report["p50_ms"] = json!(percentile(&samples, 0.5));
        report["p99_ms"] = json!(percentile(&samples, 0.99));
    }
    if as_json {
        println!("{report}");
    } else {
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    }
    Ok(0)
}
