//! The answer an agent gets for one event, whoever runs its hooks (a
//! one-shot `fire`, the warm server a `fire --warm` asks, `explain`'s view
//! of the caller): who called, the merged outcome shaped for that agent,
//! printed and exited with; and the hand-off of background hooks to a
//! detached `hookshot`. Shared by the commands, so none imports another.

use std::path::Path;

use hookshot::EventKind;
use serde_json::{Map, Value};

use crate::fail::Fail;
use crate::install::Agent;

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

    /// Prints the answer. A stream the agent closed is no reason to lose
    /// the exit code, which carries a block too: write errors are ignored.
    pub(crate) fn print(&self) {
        use std::io::Write;
        if !self.stdout.is_empty() {
            let _ = writeln!(std::io::stdout(), "{}", self.stdout);
        }
        let mut err = std::io::stderr();
        for line in &self.stderr {
            let _ = writeln!(err, "{line}");
        }
    }
}

/// When the event has background hooks, hands them to a detached
/// `hookshot` started with `argv` (this `fire`'s arguments), its job in
/// the hook system's spool folder; `Err` says why they could not be, and
/// then they must run within the event.
/// `env`, when given, is the whole environment the detached `hookshot`
/// gets (a warm server's caller's) instead of this process's.
pub(crate) fn hand_off_background(
    hooks: &hookshot::HookSystem,
    planned: &hookshot::Planned,
    argv: &[std::ffi::OsString],
    env: Option<&[(String, String)]>,
) -> Result<(), String> {
    // Exactly what this process's own plan sends elsewhere: the hooks a
    // hookshot above runs already are not handed off again.
    let Some(job) = hooks.background_job(planned) else {
        return Ok(());
    };
    hand_off(&job, hooks.background_spool(), argv, env).map_err(|e| {
        format!("background hooks ran before the answer, not after it: they could not be handed off ({e})")
    })
}

/// Fires the event and renders what `fire` prints, with the library's
/// answer for the calling agent (the one `serve` gives too). `handoff` is
/// the warning to give when background hooks had to run within the event.
pub(crate) async fn answer(
    hooks: &hookshot::HookSystem,
    planned: hookshot::Planned,
    dialect: hookshot::Dialect,
    handoff: Option<String>,
) -> Answer {
    let agent = planned.call().agent;
    let mut outcome = hooks.call_planned(planned).await;
    crate::telemetry::record(&outcome);
    outcome.warnings.extend(handoff);
    let said = hookshot::agent::answer(&mut outcome, agent, dialect);
    let mut stderr: Vec<String> = outcome
        .warnings
        .iter()
        .map(|w| format!("hookshot: warning: {w}"))
        .chain(said.notes.iter().map(|n| format!("hookshot: {n}")))
        .collect();
    if said.code == 2 {
        stderr.push(outcome.block_reason());
    }
    Answer {
        stdout: said.stdout,
        stderr,
        code: said.code,
    }
}

/// Who runs this `fire` as one of its hooks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caller {
    /// The agent, when known: its own settings files are then its business
    /// (it runs those hooks itself); loading them too would run each twice.
    pub(crate) host: Option<hookshot::Agent>,
    /// Copilot CLI running hookshot's Claude Code registration (it runs
    /// Claude Code's project files) while hookshot is registered in its
    /// own hooks folder too: this call runs nothing, or every hook would
    /// run twice an event.
    pub(crate) defers: bool,
}

impl Caller {
    /// The agent `install` named (`--agent`), which is never second-guessed;
    /// for a hand-written registration, the agent told from the
    /// environment and the input (the agent table's [`hookshot::agent::detect`]).
    pub(crate) fn of(
        named: Option<Agent>,
        event: EventKind,
        dialect: hookshot::Dialect,
        input: &Map<String, Value>,
    ) -> Caller {
        let found = hookshot::agent::detect(named, event, dialect, input, |v| {
            std::env::var_os(v).map(|x| x.to_string_lossy().into_owned())
        });
        let defers = named == Some(Agent::Claude)
            && found.agent == Some(Agent::Copilot)
            && registered_for_copilot(std::env::var_os("COPILOT_PROJECT_DIR").map(std::path::PathBuf::from));
        Caller {
            host: found.agent,
            defers,
        }
    }
}

/// Whether hookshot is registered in Copilot CLI's own hooks folder, the
/// user's or the project's.
fn registered_for_copilot(project: Option<std::path::PathBuf>) -> bool {
    let mine = |p: Option<&Path>| crate::install::registration(Agent::Copilot, p).is_some_and(|r| r.events > 0);
    mine(None) || project.as_deref().is_some_and(|p| mine(Some(p)))
}

/// Starts a detached `hookshot` that runs this event's background hooks
/// (this very command line, with the input in a job file): the agent gets
/// its answer now, and the hooks go on after this process has exited, out
/// of its process group and its pipes, so the agent waits for neither.
fn hand_off(
    job: &hookshot::BackgroundJob,
    spool: Option<&Path>,
    argv: &[std::ffi::OsString],
    env: Option<&[(String, String)]>,
) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let spool = spool.ok_or("no state directory (set HOME or XDG_STATE_HOME)")?;
    let bytes = serde_json::to_vec(job).map_err(|e| e.to_string())?;
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
