//! `hookshot fire`: one event, its hooks, the merged answer in the event's
//! dialect; background hooks handed to a detached `hookshot`.

use std::path::{Path, PathBuf};

use hookshot::EventKind;
use serde_json::{Map, Value};

use crate::Fail;
use crate::cmd::install::Agent;
use crate::load::{Sources, build_for, parse_event, read_event_input};

#[derive(clap::Args, Debug)]
pub(crate) struct FireArgs {
    /// The event, in any dialect (BeforeTool, PreToolUse, pre_tool_execution, ...).
    event: String,
    /// The event input as JSON (a file, or - for stdin; default: stdin when piped).
    #[arg(long, value_name = "FILE|-")]
    input: Option<String>,
    #[command(flatten)]
    pub(crate) sources: Sources,
    /// Accepted for symmetry with `list` and `stats`: the answer is
    /// always JSON, in the event's dialect.
    #[arg(long, hide = true)]
    json: bool,
    /// Also save the input and the answer as a `hookshot test` case in
    /// this directory (one file per event), so a real session becomes a
    /// regression suite.
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// Run only the event's background (`async`) hooks, with the input
    /// in FILE (removed once read), and leave what they say for the
    /// session's next event: how a `fire` hands them off.
    #[arg(long, value_name = "FILE", hide = true)]
    background_job: Option<PathBuf>,
    /// Ask a warm server for this user, project, settings and environment
    /// to run the hooks, so persistent process hooks stay started between
    /// events; the first event starts it and runs here. The answer is the
    /// same either way (docs/CLI.md, "Warm fire").
    #[arg(long)]
    warm: bool,
    /// A warm server started by this `fire` exits after this many seconds
    /// without an event.
    #[arg(long, value_name = "SECS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86400))]
    warm_idle: u64,
    /// The agent that runs this `fire` as its hook (what `install`
    /// registers): its own settings files are its business, and answers
    /// take its shape. Without it, the agent is told from the environment
    /// and the input.
    #[arg(long, value_enum)]
    agent: Option<Agent>,
}

pub(crate) async fn run(args: FireArgs) -> Result<u8, Fail> {
    let (event, dialect) = parse_event(&args.event)?;
    let sources = &args.sources;
    if let Some(job) = args.background_job {
        return run_background_job(event, dialect, &job, sources, args.agent).await;
    }
    let input = match read_event_input(args.input.as_deref())? {
        Ok(input) => input,
        Err(why) => return unreadable(event, dialect, sources, args.agent, &why),
    };
    let recorded_input = args.record.as_ref().map(|_| input.clone());
    let warm = if args.warm {
        crate::cmd::warm::fire(sources, &args.event, &input, args.warm_idle, args.agent).await
    } else {
        None
    };
    let answer = match warm {
        Some(answer) => answer,
        None => one_shot(event, dialect, input, sources, args.agent).await?,
    };
    answer.print();
    if let (Some(dir), Some(input)) = (&args.record, recorded_input) {
        crate::cmd::test::record(dir, &args.event, input, sources, &answer.stdout, answer.code);
    }
    Ok(answer.code)
}

/// An event whose input cannot be read: no hook can be asked, so it is
/// blocked wherever a hook or built-in would have seen it and a block stops
/// the action; elsewhere `fire` fails (exit 1, which the registered command
/// shows the agent as a warning). Either way, never a silent "go on".
fn unreadable(
    event: EventKind,
    dialect: hookshot::Dialect,
    sources: &Sources,
    named: Option<Agent>,
    why: &str,
) -> Result<u8, Fail> {
    let caller = Caller::of(named, event, dialect, &Map::new());
    let hooks = build_for(sources, caller.host)?;
    if hooks.has_hooks(event) && event.guards_an_action() {
        eprintln!("hookshot: {why}");
        eprintln!("hookshot: {event} blocked: its input cannot be read, so its hooks could not check it");
        return Ok(2);
    }
    Err(Fail::Usage(why.to_string()))
}

/// What `fire` prints and exits with, whoever ran the hooks: this process,
/// or the warm server it asked (`--warm`), which must answer the same.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Answer {
    /// The answer in the event's dialect (nothing printed when empty).
    pub(crate) stdout: String,
    /// Lines for stderr: warnings, then why the event was blocked.
    pub(crate) stderr: Vec<String>,
    /// 0, 2 for a block, 1 for a failure.
    pub(crate) code: u8,
}

impl Answer {
    /// Settings that could not be loaded, as `fire` reports them.
    pub(crate) fn failed(fail: &Fail) -> Answer {
        Answer {
            stdout: String::new(),
            stderr: vec![fail.message()],
            code: 1,
        }
    }

    fn print(&self) {
        if !self.stdout.is_empty() {
            println!("{}", self.stdout);
        }
        for line in &self.stderr {
            eprintln!("{line}");
        }
    }
}

/// Loads the hooks in this process and fires the event.
async fn one_shot(
    event: EventKind,
    dialect: hookshot::Dialect,
    input: Map<String, Value>,
    sources: &Sources,
    named: Option<Agent>,
) -> Result<Answer, Fail> {
    let caller = Caller::of(named, event, dialect, &input);
    let mut hooks = build_for(sources, caller.host)?;
    let spool = hookshot::background::spool::dir();
    hooks.set_background(hookshot::BackgroundMode::Elsewhere, spool.clone());
    let argv: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let handoff = hand_off_background(&hooks, event, &input, &argv, None).err();
    if handoff.is_some() {
        // Run them within the event rather than not at all.
        hooks.set_background(hookshot::BackgroundMode::Inline, spool);
    }
    let answer = answer(&hooks, event, dialect, input, handoff, caller.host).await;
    // Observers were sent this event: let them read it before they go.
    hooks.shutdown().await;
    Ok(answer)
}

/// When the event has background hooks, hands them to a detached
/// `hookshot` started with `argv` (this `fire`'s arguments), its job in
/// the hook system's spool folder; `Err` says why they could not be, and
/// then they must run within the event.
/// `env`, when given, is the whole environment the detached `hookshot`
/// gets (a warm server's caller's) instead of this process's.
pub(crate) fn hand_off_background(
    hooks: &hookshot::HookSystem,
    event: EventKind,
    input: &Map<String, Value>,
    argv: &[std::ffi::OsString],
    env: Option<&[(String, String)]>,
) -> Result<(), String> {
    if !hooks.plan(event, input).iter().any(|h| h.options.background.is_on()) {
        return Ok(());
    }
    hand_off(input, hooks.background_spool(), argv, env).map_err(|e| {
        format!("background hooks ran before the answer, not after it: they could not be handed off ({e})")
    })
}

/// Fires the event and renders what `fire` prints. `handoff` is the
/// warning to give when background hooks had to run within the event.
pub(crate) async fn answer(
    hooks: &hookshot::HookSystem,
    event: EventKind,
    dialect: hookshot::Dialect,
    input: Map<String, Value>,
    handoff: Option<String>,
    host: Option<hookshot::Agent>,
) -> Answer {
    let mut outcome = hooks.fire(event, input).await;
    crate::telemetry::record(&outcome);
    outcome.warnings.extend(handoff);
    // In the shapes the calling agent applies (Codex's stricter ones).
    if let Some(agent) = host {
        agent.shape_answer(&mut outcome);
    }
    let mut stderr: Vec<String> = outcome
        .warnings
        .iter()
        .map(|w| format!("hookshot: warning: {w}"))
        .collect();
    // Claude Code reads a WorktreeCreate command hook's answer as a path on
    // stdout; no path fails the creation.
    let (stdout, code) =
        if event == EventKind::WorktreeCreate && dialect == hookshot::Dialect::Claude && !outcome.is_blocked() {
            match outcome.output.extra.get("worktreePath").and_then(Value::as_str) {
                Some(path) if !path.is_empty() => (path.to_string(), 0),
                _ => {
                    stderr.push("hookshot: no WorktreeCreate hook answered with a worktree path".into());
                    (String::new(), 1)
                }
            }
        } else {
            (
                outcome.render(dialect).to_string(),
                if outcome.is_blocked() { 2 } else { 0 },
            )
        };
    if code == 2 {
        stderr.push(outcome.block_reason());
    }
    Answer { stdout, stderr, code }
}

/// Who runs this `fire` as one of its hooks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caller {
    /// The agent, when known: its own settings files are then its business
    /// (it runs those hooks itself); loading them too would run each twice.
    pub(crate) host: Option<hookshot::Agent>,
}

impl Caller {
    /// The agent `install` named (`--agent`), which is never second-guessed;
    /// for a hand-written registration, the agent told from the
    /// environment and the input.
    pub(crate) fn of(
        named: Option<Agent>,
        event: EventKind,
        dialect: hookshot::Dialect,
        input: &Map<String, Value>,
    ) -> Caller {
        match named {
            Some(agent) => Caller {
                host: Some(agent.core()),
            },
            None => Caller {
                host: calling_agent(event, dialect, from_codex(dialect, input)),
            },
        }
    }
}

/// The agent that runs this `fire` as one of its hooks, guessed: Claude
/// Code and gemini-cli set their project variable in every hook's
/// environment, and the event is named in their words.
pub(crate) fn calling_agent(event: EventKind, dialect: hookshot::Dialect, codex: bool) -> Option<hookshot::Agent> {
    use hookshot::Dialect::{Claude, Gemini};
    let set = |v: &str| std::env::var_os(v).is_some_and(|x| !x.is_empty());
    let claude_name = event.name_in(Claude) == Some(event.display_in(dialect));
    if codex {
        return Some(hookshot::Agent::Codex);
    }
    if set("CLAUDE_PROJECT_DIR") && (dialect == Claude || claude_name && !set("GEMINI_PROJECT_DIR")) {
        return Some(hookshot::Agent::Claude);
    }
    if set("GEMINI_PROJECT_DIR") && dialect == Gemini {
        return Some(hookshot::Agent::Gemini);
    }
    None
}

/// Codex sends a `turn_id` with its turn events and Claude Code mostly
/// does not; Claude Code sets `CLAUDE_PROJECT_DIR` for its hooks and Codex
/// does not. A guess for hand-written registrations only: `install` names
/// the agent.
pub(crate) fn from_codex(dialect: hookshot::Dialect, input: &Map<String, Value>) -> bool {
    dialect == hookshot::Dialect::Claude
        && input.contains_key("turn_id")
        && std::env::var_os("CLAUDE_PROJECT_DIR").is_none_or(|v| v.is_empty())
}

/// Starts a detached `hookshot` that runs this event's background hooks
/// (this very command line, with the input in a job file): the agent gets
/// its answer now, and the hooks go on after this process has exited, out
/// of its process group and its pipes, so the agent waits for neither.
fn hand_off(
    input: &Map<String, Value>,
    spool: Option<&Path>,
    argv: &[std::ffi::OsString],
    env: Option<&[(String, String)]>,
) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let spool = spool.ok_or("no state directory (set HOME or XDG_STATE_HOME)")?;
    let bytes = serde_json::to_vec(input).map_err(|e| e.to_string())?;
    let job = hookshot::background::spool::put_job(spool, &bytes).map_err(|e| format!("{}: {e}", spool.display()))?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let mut command = std::process::Command::new(exe);
    if let Some(env) = env {
        command.env_clear().envs(env.iter().map(|(k, v)| (k, v)));
    }
    let started = command
        .args(argv)
        .arg("--background-job")
        .arg(&job)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn();
    // Reaped when it ends: a warm server lives on and must not collect
    // zombies (a one-shot `fire` exits before it matters).
    started
        .map(|mut child| {
            std::thread::spawn(move || child.wait());
        })
        .map_err(|e| {
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
    named: Option<Agent>,
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
    let caller = Caller::of(named, event, dialect, &input);
    let mut hooks = match build_for(sources, caller.host) {
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
