//! hookshot runner: runs one hook and reports what happened, without ever
//! hanging the agent, leaking a process or buffering without bound.
//!
//! Each command hook is supervised the way cargo-nextest supervises tests:
//! it runs in its own process group; its input is written on a separate task
//! while stdout and stderr are read (a hook that never reads stdin cannot
//! deadlock it); each stream is capped and the rest drained and discarded;
//! on timeout the whole group gets SIGTERM, then SIGKILL after a grace
//! period; once the hook has exited, processes it leaked are given a moment
//! to release the pipes and are then killed with the group. Dropping the
//! future (cancelling the event) kills the group too.

pub mod agent;
mod groups;
pub mod http;
pub mod llm;
pub mod mcp;
mod persistent;
mod plan;
mod supervise;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

pub use groups::{group_taken, owned_groups, terminate_all};
use hookshot_core::input::for_dialect;
use hookshot_core::{
    Captured, Dialect, EventKind, Exit, Failure, FailureKind, HookAction, HookDef, HookOutput, HookRecord, McpStdio,
    ProcessSpec,
};
pub use llm::ModelClient;
pub use persistent::ProcessPool;
pub use plan::PlanRun;
use serde_json::{Map, Value};
use tokio::process::Command;
use tokio::sync::Semaphore;
use tracing::Instrument;

/// Why a model hook cannot run in a runner without a model client.
const NO_MODEL: &str = "has no model client to ask (configure one, e.g. --hook-model FIXTURE)";

/// Cuts `s` to at most `max` bytes, at a character boundary; says whether
/// anything was cut.
pub(crate) fn truncate_to(s: &mut String, max: usize) -> bool {
    if s.len() <= max {
        return false;
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.truncate(cut);
    true
}

/// How hooks are started and supervised.
#[derive(Debug, Clone)]
pub struct RunnerConfig {
    /// The shell and its flag; the command line is appended (`bash -c`).
    pub shell: Vec<String>,
    /// Bytes kept per stream; the rest is discarded and flagged.
    pub output_cap: usize,
    /// Time between SIGTERM and SIGKILL on timeout.
    pub kill_grace: Duration,
    /// How long to wait for pipes held by leaked grandchildren after the
    /// hook itself exited, before killing its group.
    pub pipe_linger: Duration,
    /// Hooks running at once, across all events; 0 (the default) is four
    /// per CPU this process may use, counted when the first hook starts:
    /// reading the CPU quota was a measurable part of a `fire` that runs no
    /// hook.
    pub max_concurrency: usize,
}

impl RunnerConfig {
    /// Hooks running at once, across all events.
    pub fn concurrency(&self) -> usize {
        match self.max_concurrency {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()) * 4,
            n => n,
        }
    }
}

impl Default for RunnerConfig {
    fn default() -> Self {
        RunnerConfig {
            shell: vec!["bash".into(), "-c".into()],
            output_cap: 1 << 20,
            kill_grace: Duration::from_millis(500),
            pipe_linger: Duration::from_millis(100),
            max_concurrency: 0,
        }
    }
}

/// Seconds, to the millisecond, as people read them in messages.
pub(crate) fn secs(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0).round() / 1000.0
}

/// Reads lines of at most `cap` bytes. A longer line is skipped, its bytes
/// never kept, so one huge line costs no memory and ends nothing. Its state
/// lives here, not in the future: [`LineReader::next`] can be cancelled
/// between reads (by a timeout, a shutdown) and called again without losing
/// part of a line.
#[derive(Debug)]
pub struct LineReader {
    buf: Vec<u8>,
    too_long: bool,
    cap: usize,
}

impl LineReader {
    /// A reader of lines up to `cap` bytes.
    pub fn new(cap: usize) -> LineReader {
        LineReader {
            buf: Vec::new(),
            too_long: false,
            cap,
        }
    }

    /// Reads to the end of the next line: `Some(true)` when it is complete
    /// (take it with [`LineReader::take`]), `Some(false)` when it was longer
    /// than the cap and was dropped, `None` at the end of input.
    pub async fn next<R: tokio::io::AsyncBufRead + Unpin>(&mut self, r: &mut R) -> std::io::Result<Option<bool>> {
        use tokio::io::AsyncBufReadExt;
        loop {
            let chunk = r.fill_buf().await?;
            if chunk.is_empty() {
                let any = !self.buf.is_empty() || self.too_long;
                return Ok(any.then_some(!std::mem::take(&mut self.too_long)));
            }
            let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            if !self.too_long {
                if self.buf.len() + take > self.cap {
                    self.too_long = true;
                    self.buf.clear();
                } else {
                    self.buf.extend_from_slice(&chunk[..take]);
                }
            }
            r.consume(take);
            if done {
                return Ok(Some(!std::mem::take(&mut self.too_long)));
            }
        }
    }

    /// The line just read, leaving the reader empty for the next.
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf)
    }

    /// Whether part of a line has been read.
    pub fn midway(&self) -> bool {
        !self.buf.is_empty() || self.too_long
    }
}

/// Words a command must not start with to run without the shell: bash's
/// builtins (`compgen -b`; some, like `pwd` and `echo`, exist as programs too
/// but behave differently from the builtin) and its reserved words.
const SHELL_WORDS: &[&str] = &[
    ".",
    ":",
    "[",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "declare",
    "dirs",
    "disown",
    "echo",
    "enable",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "getopts",
    "hash",
    "help",
    "history",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "while",
    "until",
    "for",
    "do",
    "done",
    "case",
    "esac",
    "function",
    "select",
    "time",
    "coproc",
    "in",
    "[[",
    "]]",
    "!",
    "{",
    "}",
];

/// The argument vector of a command that needs no shell: no quoting,
/// expansion, redirection, globbing, control operators or assignments, and
/// not a shell builtin. Running it directly saves a shell start-up per hook.
pub fn direct_argv(command: &str) -> Option<Vec<&str>> {
    const SPECIAL: &[char] = &[
        '$', '\'', '"', '\\', '`', '|', '&', ';', '<', '>', '(', ')', '{', '}', '*', '?', '[', ']', '~', '#', '\n',
        '\r',
    ];
    if command.contains(SPECIAL) {
        return None;
    }
    let argv: Vec<&str> = command.split_ascii_whitespace().collect();
    match argv.first() {
        // `NAME=value cmd` is an assignment, which only the shell performs.
        Some(first) if !SHELL_WORDS.contains(first) && !first.contains('=') => Some(argv),
        _ => None,
    }
}

/// Claude Code's path placeholders in an exec-form hook, replaced by the
/// values the hook's environment gives them, as plain strings: there is no
/// shell to expand them, and none to re-parse what they expand to.
fn placeholders<'a>(word: &'a str, env: &RunEnv) -> std::borrow::Cow<'a, str> {
    const NAMES: [&str; 3] = ["CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA"];
    if !word.contains("${") {
        return word.into();
    }
    hookshot_core::subst::braced_known(word, |name| {
        NAMES.contains(&name).then(|| env.var(name).unwrap_or_default())
    })
    .into()
}

/// A gemini-cli command line as gemini-cli hands it to the shell: it
/// replaces `$GEMINI_PROJECT_DIR`, `$GEMINI_CWD`, `$GEMINI_PLANS_DIR`,
/// `$GEMINI_SESSION_ID` and `$CLAUDE_PROJECT_DIR` in the text first, in
/// that order, each value quoted for the shell (so `'$GEMINI_CWD'` is the
/// folder too); `${...}` and other variables are the shell's.
fn gemini_variables<'a>(command: &'a str, env: &RunEnv) -> std::borrow::Cow<'a, str> {
    const NAMES: [(&str, &str); 5] = [
        ("$GEMINI_PROJECT_DIR", "GEMINI_PROJECT_DIR"),
        ("$GEMINI_CWD", "GEMINI_CWD"),
        ("$GEMINI_PLANS_DIR", "GEMINI_PLANS_DIR"),
        ("$GEMINI_SESSION_ID", "GEMINI_SESSION_ID"),
        ("$CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"),
    ];
    if !NAMES.iter().any(|(text, _)| command.contains(text)) {
        return command.into();
    }
    let mut out = command.to_string();
    for (text, var) in NAMES {
        if out.contains(text) {
            let value = env.var(var).filter(|v| !v.is_empty());
            // A folder or session name is data: one that would change how
            // the line parses (`x'; touch PWNED; '` inside the quotes the
            // docs recommend) is not pasted. The reference stays for the
            // shell to expand from the hook's environment, where the value
            // is one word whatever it holds.
            if let Some(v) = value.as_deref().filter(|v| !hookshot_core::subst::shell_inert(v)) {
                tracing::warn!(
                    "{var} is {:?}, which holds characters the shell would read as code: \
                     `{text}` is left for the shell to expand instead of pasted as gemini-cli does",
                    hookshot_core::display::escaped(v)
                );
                continue;
            }
            out = out.replace(text, &value.map(|v| shell_quote(&v)).unwrap_or_default());
        }
    }
    out.into()
}

/// The shell prefix `agent` (the one a hook runs as) would wrap its
/// command line in (Claude Code's `CLAUDE_CODE_SHELL_PREFIX`: a shell-form hook,
/// not `args`, not PowerShell; Codex, calling hookshot, knows no such
/// variable), when set and not empty.
fn shell_prefix(agent: hookshot_core::Agent, env: &RunEnv) -> Option<String> {
    let var = agent.shell_prefix_var()?;
    env.var(var).filter(|p| !p.is_empty())
}

/// A hook's command line wrapped in Claude Code's shell prefix as Claude
/// Code 2.1.332 wraps it: the prefix's last ` -` starts its flags, which
/// stay as written; the program before them and the whole command line
/// are each one quoted word (`/opt/log.sh -v 'echo hi'`).
fn with_shell_prefix(prefix: &str, command: &str) -> String {
    match prefix.rfind(" -").filter(|&i| i > 0) {
        Some(i) => format!(
            "{} {} {}",
            shell_quote(&prefix[..i]),
            &prefix[i + 1..],
            shell_quote(command)
        ),
        None => format!("{} {}", shell_quote(prefix), shell_quote(command)),
    }
}

/// One word quoted the way gemini-cli quotes it (the `shell-quote`
/// package's `quote`): bare when safe, else single or double quotes, else
/// each special character escaped.
fn shell_quote(s: &str) -> String {
    let space = |c: char| c.is_whitespace() || c == '\u{feff}';
    if s.is_empty() {
        return "''".into();
    }
    if s.chars().any(|c| c == '"' || c == '\\' || space(c)) && !s.contains('\'') {
        return format!("'{s}'");
    }
    if s.chars().any(|c| c == '"' || c == '\'' || space(c)) {
        let mut out = String::from('"');
        for c in s.chars() {
            if matches!(c, '"' | '\\' | '$' | '`' | '!') {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('"');
        return out;
    }
    const SPECIAL: &str = "#!\"$&'()*,:;<=>?@[\\]^`{|}";
    let c: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 4);
    let mut i = 0;
    while i < c.len() {
        // `C:` before a special character keeps its colon unescaped.
        if c[i].is_ascii_alphabetic()
            && c.get(i + 1) == Some(&':')
            && c.get(i + 2).is_some_and(|x| SPECIAL.contains(*x))
        {
            out.push(c[i]);
            out.push(':');
            out.push('\\');
            out.push(c[i + 2]);
            i += 3;
            continue;
        }
        if SPECIAL.contains(c[i]) {
            out.push('\\');
        }
        out.push(c[i]);
        i += 1;
    }
    out
}

/// What a command hook runs.
#[derive(Debug, Clone, Copy)]
pub enum Program<'a> {
    /// A command line, for the shell (run directly when it needs no shell).
    Line(&'a str),
    /// A program and its arguments, with no shell (Claude's exec form).
    Argv(&'a str, &'a [String]),
}

/// One in-process hook's answer, a panic caught as a crash.
fn call_in_process(h: &dyn Hook, event: EventKind, input: &Map<String, Value>) -> Result<HookOutput, Failure> {
    std::panic::catch_unwind(AssertUnwindSafe(|| h.call(event, input))).map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Failure::new(FailureKind::Crash, format!("panicked: {msg}"))
    })
}

/// Where and with what environment hooks run.
#[derive(Debug, Clone, Default)]
pub struct RunEnv {
    /// Working directory.
    pub cwd: PathBuf,
    /// Variables set on top of the inherited environment.
    pub vars: Vec<(String, String)>,
    /// The environment a command hook starts from instead of this
    /// process's own: a long-lived server gives each event's hooks its
    /// caller's (`None`: this process's).
    pub base: Option<std::sync::Arc<Vec<(String, String)>>>,
    /// The agent that runs hookshot for this event, when one does: a hook
    /// in its format from none of the agents' own files runs as it would
    /// run it ([`HookDef::runs_as`]).
    pub caller: Option<hookshot_core::Agent>,
    /// Asked right before each hook starts (each attempt): `Err` says why
    /// it must not start now (its file's approval no longer holds).
    pub gate: Option<Gate>,
}

/// A last check before a hook starts: what was approved when the hooks
/// were loaded may have been swapped since, and only the moment of
/// starting tells.
#[derive(Clone)]
pub struct Gate(pub std::sync::Arc<GateFn>);

/// What a [`Gate`] asks: `Err` with the reason a hook must not start.
pub type GateFn = dyn Fn(&HookDef) -> Result<(), String> + Send + Sync;

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Gate")
    }
}

impl RunEnv {
    /// The value a hook started here sees for `name`: hookshot's variables,
    /// then the environment it starts from.
    pub fn var(&self, name: &str) -> Option<String> {
        if let Some((_, v)) = self.vars.iter().rev().find(|(k, _)| k == name) {
            return Some(v.clone());
        }
        match &self.base {
            Some(base) => base.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()),
            None => std::env::var(name).ok(),
        }
    }

    /// This environment with `hook`'s own variables (a plugin's root) on
    /// top; borrowed when it has none.
    ///
    /// Of the variables agents set for their hooks, a hook gets only those
    /// its own agent sets (a Claude Code hook does not see
    /// `GEMINI_PROJECT_DIR`), and it runs with its agent's shell.
    fn for_hook(&self, hook: &HookDef) -> HookEnv<'_> {
        let agent = hook.runs_as(self.caller);
        let own = agent.hook_vars();
        let foreign = |k: &str| hookshot_core::Agent::is_hook_var(k) && !own.contains(&k);
        let env = if hook.options.env.is_empty()
            && hook.options.cwd.is_none()
            && !self.vars.iter().any(|(k, _)| foreign(k))
        {
            std::borrow::Cow::Borrowed(self)
        } else {
            std::borrow::Cow::Owned(RunEnv {
                // Relative to the project's folder; an absolute one as it is.
                cwd: hook
                    .options
                    .cwd
                    .as_ref()
                    .map_or_else(|| self.cwd.clone(), |c| self.cwd.join(c)),
                vars: self
                    .vars
                    .iter()
                    .filter(|(k, _)| !foreign(k))
                    .chain(&hook.options.env)
                    .cloned()
                    .collect(),
                base: self.base.clone(),
                gate: self.gate.clone(),
                caller: self.caller,
            })
        };
        HookEnv { env, agent }
    }
}

/// One hook's environment, and the agent it runs as (its shell).
struct HookEnv<'a> {
    env: std::borrow::Cow<'a, RunEnv>,
    agent: hookshot_core::Agent,
}

/// A hook compiled into the process (defined in the core, so the
/// built-ins and embedders implement it without depending on the runner).
pub use hookshot_core::Hook;

/// What one hook run receives: the canonical input, and its bytes as the
/// hook's dialect expects them (for process hooks).
#[derive(Debug, Clone, Copy)]
pub struct HookInput<'a> {
    /// The event.
    pub event: EventKind,
    /// Canonical input, for in-process hooks.
    pub canonical: &'a Map<String, Value>,
    /// Serialized input for a process hook's stdin.
    pub bytes: &'a [u8],
}

/// One hook's run, as every kind of hook gets it: the hook, its input,
/// the environment it starts in, and when it must be done.
#[derive(Clone, Copy)]
struct One<'a> {
    hook: &'a Arc<HookDef>,
    input: HookInput<'a>,
    env: &'a RunEnv,
    deadline: Instant,
}

/// Runs hooks.
#[derive(Debug, Clone)]
pub struct Runner {
    config: Arc<RunnerConfig>,
    /// Made when the first hook starts (see [`RunnerConfig::max_concurrency`]).
    permits: Arc<std::sync::OnceLock<Semaphore>>,
    in_process: Arc<HashMap<String, Arc<dyn Hook>>>,
    processes: Arc<ProcessPool>,
    mcp: Arc<mcp::McpPool>,
    model: Option<Arc<dyn ModelClient>>,
    /// Call in-process hooks on the blocking pool ([`Runner::call_in_process_apart`]).
    in_process_apart: Arc<std::sync::atomic::AtomicBool>,
}

impl Default for Runner {
    fn default() -> Self {
        Runner::new(RunnerConfig::default())
    }
}

impl Runner {
    /// The slots of hooks running at once, made on first use.
    fn permits(&self) -> &Semaphore {
        self.permits
            .get_or_init(|| Semaphore::new(self.config.concurrency().max(1)))
    }

    /// A runner with this configuration.
    pub fn new(config: RunnerConfig) -> Runner {
        Runner {
            config: Arc::new(config),
            permits: Arc::default(),
            in_process: Arc::new(HashMap::new()),
            processes: Arc::new(ProcessPool::default()),
            mcp: Arc::default(),
            model: None,
            in_process_apart: Arc::default(),
        }
    }

    /// From now on, in-process hooks (the built-ins) are called on the
    /// blocking pool instead of the task that runs the event: for a server
    /// whose every event must keep answering (the warm server's keepalives,
    /// other callers' events) while one guard takes long. It costs each
    /// call a hand-off and a copy of the input, which a pipelined sidecar
    /// (`serve`: half its throughput) and a one-shot fire do not pay.
    pub fn call_in_process_apart(&self) {
        self.in_process_apart.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Starts afresh with no persistent process or MCP server: for a load
    /// whose hooks' programs changed, so the next event runs the new ones,
    /// as a one-shot run would. The old ones end (stdin closed, grace,
    /// kill) once nothing holds them: events still in flight on a clone of
    /// this runner finish with them.
    pub fn renew_processes(&mut self) {
        self.processes = Arc::default();
        self.mcp = Arc::default();
    }

    /// The model that LLM prompt hooks ask.
    pub fn set_model_client(&mut self, client: Arc<dyn ModelClient>) {
        self.model = Some(client);
    }

    /// Registers an in-process hook under `name` (what
    /// [`HookAction::InProcess`] refers to).
    pub fn register(&mut self, name: impl Into<String>, hook: Arc<dyn Hook>) {
        Arc::make_mut(&mut self.in_process).insert(name.into(), hook);
    }

    /// Ends the persistent processes and MCP servers: each gets the end of
    /// its input and `grace` to finish what it was sent, then its group is
    /// killed.
    pub async fn shutdown(&self, grace: Duration) {
        tokio::join!(self.processes.shutdown(grace), self.mcp.shutdown(grace));
    }

    /// The configuration.
    pub fn config(&self) -> &RunnerConfig {
        &self.config
    }

    /// Calls an in-process hook; a panic is the hook's failure, not ours.
    async fn run_in_process(&self, hook: &Arc<HookDef>, name: &str, input: HookInput<'_>) -> HookRecord {
        let start = Instant::now();
        let Some(h) = self.in_process.get(name) else {
            let failure = Failure::new(
                FailureKind::Spawn,
                format!("is not registered (no in-process hook named \"{name}\")"),
            );
            return HookRecord::from_answer(Arc::clone(hook), start.elapsed(), Err(failure));
        };
        // See [`Runner::call_in_process_apart`].
        let answer = if self.in_process_apart.load(std::sync::atomic::Ordering::Relaxed) {
            let (h, event, canonical) = (Arc::clone(h), input.event, input.canonical.clone());
            match tokio::task::spawn_blocking(move || call_in_process(&*h, event, &canonical)).await {
                Ok(answer) => answer,
                Err(e) => Err(Failure::new(FailureKind::Crash, format!("its thread failed: {e}"))),
            }
        } else {
            call_in_process(&**h, input.event, input.canonical)
        };
        HookRecord::from_answer(Arc::clone(hook), start.elapsed(), answer)
    }

    /// Asks a persistent process (picoclaw's JSON-RPC): `hook.<point>` for
    /// interceptors, a `hook.runtime_event` notification for observers.
    async fn run_persistent(
        &self,
        hook: &Arc<HookDef>,
        process: &ProcessSpec,
        observe: Option<&str>,
        input: HookInput<'_>,
        env: &RunEnv,
        deadline: Instant,
    ) -> HookRecord {
        let start = Instant::now();
        let params = Value::Object(for_dialect(input.event, Dialect::Picoclaw, input.canonical));
        let timeout = deadline.saturating_duration_since(start);
        let answer = if let Some(kind) = observe {
            let note = persistent::runtime_event(kind, params);
            self.processes
                .notify(process, &env.cwd, note, timeout)
                .await
                .map(|()| HookOutput::default())
        } else {
            let point = input
                .event
                .name_in(Dialect::Picoclaw)
                .unwrap_or(input.event.canonical_name());
            let method = format!("hook.{point}");
            match self
                .processes
                .request(process, &env.cwd, &method, params, timeout)
                .await
            {
                Ok(Value::Object(m)) => {
                    HookOutput::from_json_checked(&m).map_err(|e| Failure::new(FailureKind::Protocol, e))
                }
                Ok(Value::Null) => Ok(HookOutput::default()),
                Ok(other) => Err(Failure::new(
                    FailureKind::Protocol,
                    format!("answered {method} with a non-object result: {other}"),
                )),
                Err(e) => Err(e),
            }
        };
        HookRecord::from_answer(Arc::clone(hook), start.elapsed(), answer)
    }

    /// Asks the model client once, by `deadline`; no answer in time or no
    /// JSON object is a failure (which [`Runner::run_until`] retries as
    /// the hook's `retry` says).
    async fn run_llm(
        &self,
        hook: &Arc<HookDef>,
        template: &str,
        model: Option<&str>,
        input: HookInput<'_>,
        deadline: Instant,
    ) -> HookRecord {
        let start = Instant::now();
        let prompt = llm::render(template, input.event, input.canonical);
        let Some(client) = &self.model else {
            let why = NO_MODEL;
            return HookRecord::from_answer(
                Arc::clone(hook),
                start.elapsed(),
                Err(Failure::new(FailureKind::Spawn, why)),
            );
        };
        let left = deadline.saturating_duration_since(Instant::now());
        let answer = match tokio::time::timeout(left, client.complete(&prompt, model)).await {
            Ok(Ok(text)) => llm::extract_json(&text)
                .and_then(|m| HookOutput::from_json_checked(&m))
                .map_err(|e| Failure::new(FailureKind::Protocol, e)),
            Ok(Err(e)) => Err(Failure::new(FailureKind::Crash, format!("model call failed: {e}"))),
            Err(_) => Err(Failure::new(
                FailureKind::Timeout,
                format!("model did not answer within {}s", secs(start.elapsed())),
            )),
        };
        HookRecord::from_answer(Arc::clone(hook), start.elapsed(), answer)
    }

    /// Asks the model to judge the event (Claude Code's `prompt` and
    /// `agent` hooks) and turns its `{"ok": ...}` into the answer that does
    /// what Claude Code does with it on this event.
    async fn run_judge(
        &self,
        one: One<'_>,
        template: &str,
        model: Option<&str>,
        agent: bool,
        continue_on_block: bool,
    ) -> HookRecord {
        let One {
            hook,
            input,
            env,
            deadline,
        } = one;
        let start = Instant::now();
        let failed = |kind, why: String| {
            HookRecord::from_answer(Arc::clone(hook), start.elapsed(), Err(Failure::new(kind, why)))
        };
        let Some(client) = &self.model else {
            let why = NO_MODEL;
            return failed(FailureKind::Spawn, why.into());
        };
        let prompt = hookshot_core::judge::render(template, &String::from_utf8_lossy(input.bytes));
        let answer = if agent {
            agent::verify(client.as_ref(), prompt, model, &env.cwd, deadline).await
        } else {
            match tokio::time::timeout_at(deadline, client.complete(&prompt, model)).await {
                Ok(r) => r,
                Err(_) => Err(format!("the model did not answer within {}s", secs(start.elapsed()))),
            }
        };
        let text = match answer {
            Ok(t) => t,
            Err(e) if Instant::now() >= deadline => return failed(FailureKind::Timeout, e),
            Err(e) => return failed(FailureKind::Crash, format!("model call failed: {e}")),
        };
        let verdict = llm::extract_json(&text)
            .and_then(|m| hookshot_core::judge::verdict(input.event, &m, agent, continue_on_block))
            .and_then(|m| HookOutput::from_json_checked(&m));
        match verdict {
            Ok(out) => HookRecord::from_answer(Arc::clone(hook), start.elapsed(), Ok(out)),
            Err(e) => failed(FailureKind::Protocol, e),
        }
    }

    /// POSTs the event to an HTTP hook and reads its answer; the request
    /// runs on the blocking pool, bounded by the deadline.
    async fn run_http(&self, one: One<'_>, url: &str, headers: &[(String, String)], allowed: &[String]) -> HookRecord {
        let One {
            hook,
            input,
            env,
            deadline,
        } = one;
        let HookEnv { env, .. } = env.for_hook(hook);
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| (k.clone(), http::interpolate(v, allowed, &env)))
            .collect();
        let (url, body, cap) = (url.to_string(), input.bytes.to_vec(), self.config.output_cap);
        let left = deadline.saturating_duration_since(Instant::now());
        let start = Instant::now();
        let posted = tokio::task::spawn_blocking(move || http::post(&url, &headers, &body, left, cap));
        let answer = match tokio::time::timeout_at(deadline + Duration::from_millis(200), posted).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(e)) => http::Answer::Failed(Failure::new(FailureKind::Crash, format!("the request failed: {e}"))),
            Err(_) => http::Answer::Failed(Failure::new(
                FailureKind::Timeout,
                format!("got no answer within {}s", secs(left)),
            )),
        };
        match answer {
            http::Answer::Body(captured) => HookRecord::interpret(Arc::clone(hook), captured),
            http::Answer::Failed(f) => HookRecord::from_answer(Arc::clone(hook), start.elapsed(), Err(f)),
        }
    }

    /// Calls a tool on an MCP server; its text is read like a command's
    /// stdout, and `isError` is a failure of the hook.
    async fn run_mcp(
        &self,
        one: One<'_>,
        server: &str,
        spawn: Option<&McpStdio>,
        tool: &str,
        template: Option<&str>,
    ) -> HookRecord {
        let One {
            hook,
            input,
            env,
            deadline,
        } = one;
        let start = Instant::now();
        let failed = |f: Failure| HookRecord::from_answer(Arc::clone(hook), start.elapsed(), Err(f));
        // Claude Code calls no MCP tool before its servers are up: at
        // launch (SessionStart from startup or resume) and in Setup.
        let at_launch = match input.event {
            EventKind::Setup => true,
            EventKind::SessionStart => matches!(
                input.canonical.get("source").and_then(Value::as_str),
                Some("startup" | "resume")
            ),
            _ => false,
        };
        if at_launch {
            tracing::debug!(
                hook = hook.label(),
                "mcp_tool hooks do not run before MCP servers are up"
            );
            return HookRecord::from_answer(Arc::clone(hook), Duration::ZERO, Ok(HookOutput::default()));
        }
        let Some(spec) = spawn else {
            return failed(Failure::new(
                FailureKind::Spawn,
                format!("calls {tool} on the MCP server \"{server}\", which is not defined"),
            ));
        };
        let arguments = match template.map(serde_json::from_str::<Value>) {
            None => None,
            Some(Ok(t)) => {
                let event: Value = serde_json::from_slice(input.bytes).unwrap_or(Value::Null);
                match mcp::fill(&t, &event) {
                    Value::Object(m) => Some(m),
                    _ => None,
                }
            }
            Some(Err(e)) => return failed(Failure::new(FailureKind::Protocol, format!("has a bad input: {e}"))),
        };
        let HookEnv { env, .. } = env.for_hook(hook);
        match self.mcp.call(server, spec, tool, arguments, &env, deadline).await {
            Ok(result) => {
                let mut text = result.text;
                if result.is_error {
                    let why = format!("the MCP tool {tool} on \"{server}\" reported an error: {}", text.trim());
                    return failed(Failure::new(FailureKind::Crash, why));
                }
                let truncated = truncate_to(&mut text, self.config.output_cap);
                HookRecord::interpret(
                    Arc::clone(hook),
                    Captured {
                        exit: Exit {
                            code: Some(0),
                            ..Exit::default()
                        },
                        stdout: text,
                        stdout_truncated: truncated,
                        duration: start.elapsed(),
                        limit: Some(deadline.saturating_duration_since(start)),
                        ..Captured::default()
                    },
                )
            }
            Err(f) => failed(f),
        }
    }

    /// Runs `hook` within its timeout and interprets the result.
    pub async fn run(&self, hook: &Arc<HookDef>, input: HookInput<'_>, env: &RunEnv) -> HookRecord {
        self.run_within(hook, input, env, None).await
    }

    /// Runs `hook` and interprets the result, retrying failed runs as the
    /// hook's `retry` asks (with exponential backoff). Every kind of hook
    /// goes through the same layers: a slot among the hooks running at
    /// once (for every kind that waits on something outside this process),
    /// the deadline (the hook's own timeout or `deadline`, whichever comes
    /// first: every attempt and every pause between them ends by it, so a
    /// retry never stretches a budget), the retries, and one tracing span.
    pub async fn run_until(
        &self,
        hook: &Arc<HookDef>,
        input: HookInput<'_>,
        env: &RunEnv,
        deadline: Instant,
    ) -> HookRecord {
        self.run_within(hook, input, env, Some(deadline)).await
    }

    /// [`Runner::run_until`], where no `budget` means the hook's own
    /// timeout alone.
    async fn run_within(
        &self,
        hook: &Arc<HookDef>,
        input: HookInput<'_>,
        env: &RunEnv,
        budget: Option<Instant>,
    ) -> HookRecord {
        // In-process hooks take no slot: they are a call on this thread,
        // and a guard must not wait behind slow commands. For the others
        // the slots are counted before the hook's clock starts: the first
        // count reads the CPU quota, which is not the hook's time to spend
        // (and which a fire running only built-ins never reads).
        let permits = (!matches!(hook.action, HookAction::InProcess { .. })).then(|| self.permits());
        let start = Instant::now();
        let own = start + hook.timeout;
        let deadline = budget.map_or(own, |b| b.min(own));
        let own_limit = budget.is_none_or(|b| b >= own);
        let span = tracing::debug_span!("hook_run", hook = hook.label());
        async {
            let mut attempt = 0;
            loop {
                // No slot before the deadline: the hook is not started
                // just to be killed at once.
                let permit = if let Some(permits) = permits {
                    let Ok(p) = tokio::time::timeout_at(deadline, permits.acquire()).await else {
                        let why = format!(
                            "timed out after {}s waiting to start ({} hooks already running)",
                            secs(start.elapsed()),
                            self.config.concurrency()
                        );
                        let failure = Failure::new(FailureKind::Timeout, why);
                        return HookRecord::from_answer(Arc::clone(hook), start.elapsed(), Err(failure));
                    };
                    p.ok()
                } else {
                    None
                };
                let mut record = self.attempt(hook, input, env, deadline, own_limit).await;
                drop(permit);
                let pause = Duration::from_millis(100 << (attempt + 1).min(6));
                let settled = record.failure.is_none()
                    || matches!(
                        hook.action,
                        HookAction::Unsupported { .. } | HookAction::InProcess { .. }
                    );
                if settled || attempt >= hook.retry || Instant::now() + pause >= deadline {
                    // Several attempts took the time of all of them.
                    record.captured.duration = start.elapsed();
                    return record;
                }
                tracing::debug!(attempt, "retrying after {}s", secs(pause));
                attempt += 1;
                tokio::time::sleep(pause).await;
            }
        }
        .instrument(span)
        .await
    }

    /// One attempt at `hook`, of whichever kind, by `deadline`. `own` says
    /// the deadline is the hook's own timeout (a timeout is reported as
    /// that, not as what was left of it when the process started).
    async fn attempt(
        &self,
        hook: &Arc<HookDef>,
        input: HookInput<'_>,
        env: &RunEnv,
        deadline: Instant,
        own: bool,
    ) -> HookRecord {
        if let Some(Gate(gate)) = &env.gate
            && let Err(why) = gate(hook)
        {
            let failure = Failure::new(FailureKind::Spawn, format!("was not started: {why}"));
            return HookRecord::from_answer(Arc::clone(hook), Duration::ZERO, Err(failure));
        }
        let (gemini_line, prefixed);
        let one = One {
            hook,
            input,
            env,
            deadline,
        };
        let command = match &hook.action {
            HookAction::InProcess { name } => return self.run_in_process(hook, name, input).await,
            HookAction::Persistent { process, observe } => {
                return self
                    .run_persistent(hook, process, observe.as_deref(), input, env, deadline)
                    .await;
            }
            HookAction::Llm { prompt, model } => {
                return self.run_llm(hook, prompt, model.as_deref(), input, deadline).await;
            }
            HookAction::Judge {
                prompt,
                model,
                agent,
                continue_on_block,
            } => {
                return self
                    .run_judge(one, prompt, model.as_deref(), *agent, *continue_on_block)
                    .await;
            }
            HookAction::Unsupported { why, .. } => {
                let failure = Failure::new(FailureKind::Spawn, why.clone());
                return HookRecord::from_answer(Arc::clone(hook), Duration::ZERO, Err(failure));
            }
            HookAction::Http {
                url,
                headers,
                allowed_env,
            } => {
                return self.run_http(one, url, headers, allowed_env).await;
            }
            HookAction::McpTool {
                server,
                spawn,
                tool,
                input: template,
            } => {
                return self
                    .run_mcp(one, server, spawn.as_ref(), tool, template.as_deref())
                    .await;
            }
            HookAction::Command { command } if hook.runs_as(env.caller).pastes_variables() => {
                gemini_line = gemini_variables(command, env);
                Program::Line(&gemini_line)
            }
            HookAction::Command { command } => match shell_prefix(hook.runs_as(env.caller), env) {
                Some(prefix) => {
                    prefixed = with_shell_prefix(&prefix, command);
                    Program::Line(&prefixed)
                }
                None => Program::Line(command),
            },
            HookAction::Exec { program, args } => Program::Argv(program, args),
        };
        // A hook's own variables (a plugin's root) go on top of the event's.
        let HookEnv { env, agent } = env.for_hook(hook);
        let left = deadline.saturating_duration_since(Instant::now());
        let shell = agent.shell();
        let mut captured = self
            .run_program(command, shell.as_deref(), left, input.bytes, env.as_ref())
            .await;
        if own {
            captured.limit = Some(hook.timeout);
        }
        HookRecord::interpret(Arc::clone(hook), captured)
    }

    /// Runs one command line under supervision.
    pub async fn run_command(&self, command: &str, timeout: Duration, input: &[u8], env: &RunEnv) -> Captured {
        self.run_program(Program::Line(command), None, timeout, input, env)
            .await
    }

    /// Runs one program under supervision: a command line (through
    /// `shell`, else the runner's own, unless it needs none) or a program
    /// with its arguments.
    pub async fn run_program(
        &self,
        program: Program<'_>,
        shell: Option<&[String]>,
        timeout: Duration,
        input: &[u8],
        env: &RunEnv,
    ) -> Captured {
        let cfg = &self.config;
        let command = match program {
            Program::Line(c) => c,
            Program::Argv(p, _) => p,
        };
        let start = Instant::now();
        let shell = shell.unwrap_or(&cfg.shell);
        // A plain `-c` shell runs a command that needs none exactly as an
        // exec would; another shell (zsh reads `~/.zshenv`) may not.
        let default_shell =
            shell.len() == 2 && matches!(shell[0].as_str(), "bash" | "sh" | "/bin/sh") && shell[1] == "-c";
        let supervised = |mut c: Command| {
            if let Some(base) = &env.base {
                c.env_clear().envs(base.iter().map(|(k, v)| (k, v)));
            }
            c.current_dir(&env.cwd)
                .envs(env.vars.iter().map(|(k, v)| (k, v)))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .process_group(0)
                .kill_on_drop(true);
            c
        };
        let through_shell = || {
            let mut c = Command::new(&shell[0]);
            c.args(&shell[1..]).arg(command);
            supervised(c).spawn()
        };
        let spawned = match program {
            // Exec form: exactly this program and these arguments, as the
            // user wrote them; no shell to fall back to.
            Program::Argv(p, args) => {
                let mut c = Command::new(placeholders(p, env).as_ref());
                c.args(args.iter().map(|a| placeholders(a, env).into_owned()));
                supervised(c).spawn()
            }
            Program::Line(_) => match direct_argv(command).filter(|_| default_shell) {
                // Direct exec must mean exactly what `bash -c` means. Whenever
                // exec fails (a script without `#!`: ENOEXEC, which bash runs as
                // a shell script; a missing program, which bash answers with
                // exit 127; no execute permission, 126), the shell runs it
                // instead and gives bash's own answer.
                Some(argv) => {
                    let mut c = Command::new(argv[0]);
                    c.args(&argv[1..]);
                    supervised(c).spawn().or_else(|_| through_shell())
                }
                None => through_shell(),
            },
        };
        match spawned {
            Ok(child) => supervise::supervise(child, &self.config, timeout, input, start).await,
            Err(e) => Captured {
                exit: Exit {
                    spawn_error: Some(format!("{command}: {e}")),
                    ..Exit::default()
                },
                duration: start.elapsed(),
                ..Captured::default()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values from the `shell-quote` package gemini-cli 0.61
    /// bundles, run under Node.
    #[test]
    fn words_are_quoted_as_gemini_cli_quotes_them() {
        for (word, quoted) in [
            ("/home/me/proj", "/home/me/proj"),
            ("/home/my proj", "'/home/my proj'"),
            ("it's mine", "\"it's mine\""),
            ("it's \"x\" $HOME", "\"it's \\\"x\\\" \\$HOME\""),
            ("a(b)c", "a\\(b\\)c"),
            ("C:#x", "C:\\#x"),
            ("a:b", "a\\:b"),
            ("back\\slash", "'back\\slash'"),
            ("tab\there", "'tab\there'"),
            ("", "''"),
        ] {
            assert_eq!(shell_quote(word), quoted, "{word:?}");
        }
    }

    /// Claude Code 2.1.332's wrapping (`eDe` in its bundle): flags after
    /// the prefix's last ` -` stay bare, the rest and the command are one
    /// word each.
    #[test]
    fn a_command_is_wrapped_in_the_shell_prefix_as_claude_code_wraps_it() {
        assert_eq!(with_shell_prefix("/opt/log.sh", "echo hi"), "/opt/log.sh 'echo hi'");
        assert_eq!(
            with_shell_prefix("/opt/log.sh -v", "echo hi"),
            "/opt/log.sh -v 'echo hi'"
        );
        assert_eq!(
            with_shell_prefix("/my tools/log.sh -a -b", "it's $X"),
            "'/my tools/log.sh -a' -b \"it's \\$X\""
        );
        assert_eq!(with_shell_prefix("-x", "true"), "-x true");
    }

    #[test]
    fn gemini_variables_are_replaced_in_the_text_in_gemini_cli_s_order() {
        let env = RunEnv {
            vars: vec![
                ("GEMINI_PROJECT_DIR".into(), "/p q".into()),
                ("GEMINI_CWD".into(), "/p q".into()),
                ("GEMINI_SESSION_ID".into(), "s1".into()),
            ],
            base: Some(std::sync::Arc::new(vec![("GEMINI_PLANS_DIR".into(), "/plans".into())])),
            ..RunEnv::default()
        };
        assert_eq!(
            gemini_variables(
                "echo '$GEMINI_PROJECT_DIR' $CLAUDE_PROJECT_DIR/x $GEMINI_PLANS_DIR ${GEMINI_CWD} $GEMINI_SESSION_ID",
                &env
            ),
            "echo ''/p q'' '/p q'/x /plans ${GEMINI_CWD} s1"
        );
        assert!(matches!(
            gemini_variables("echo $HOME", &env),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
