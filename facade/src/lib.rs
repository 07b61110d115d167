//! hookshot: one hook engine for AI agents.
//!
//! It reads the hook settings of gemini-cli, Claude Code and jcli unchanged,
//! and runs an event through four stages, each its own crate:
//!
//! 1. the **registry** ([`hookshot_registry`]) loads hooks from every source
//!    with their provenance, precedence and trust;
//! 2. the **planner** ([`hookshot_planner`]) picks the hooks whose matchers
//!    fit the event, from matchers compiled once into sets;
//! 3. the **runner** ([`hookshot_runner`]) runs them under supervision;
//! 4. the **aggregator** ([`hookshot_aggregator`]) merges their answers into
//!    one [`Outcome`].
//!
//! [`HookSystem`] wires them together for embedders; the `hookshot` binary
//! (the `hookshot-cli` crate) is built on it, and so is the reference agent
//! loop (the `hookshot-replay` crate).
//!
//! ```
//! use std::sync::Arc;
//! use hookshot::{Decision, EventKind, Hook, HookOutput, HookSystem};
//! use serde_json::{json, Map, Value};
//!
//! #[derive(Debug)]
//! struct NoEnvFiles;
//! impl Hook for NoEnvFiles {
//!     fn call(&self, _: EventKind, input: &Map<String, Value>) -> HookOutput {
//!         let path = input["tool_input"]["file_path"].as_str().unwrap_or("");
//!         let decision = if path.ends_with(".env") { Decision::Block } else { Decision::Allow };
//!         HookOutput { decision, reason: Some("no .env writes".into()), ..Default::default() }
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! // Add `.settings("settings.json")` to load gemini, Claude or jcli hooks too.
//! let hooks = HookSystem::builder().hook(EventKind::BeforeTool, "no-env", Arc::new(NoEnvFiles)).build()?;
//! let input = json!({"tool_name": "write_file", "tool_input": {"file_path": "app/.env"}});
//! let outcome = hooks.fire(EventKind::BeforeTool, input.as_object().unwrap().clone()).await;
//! assert!(outcome.is_blocked());
//! assert_eq!(outcome.block_reason(), "no .env writes");
//! // The same answer in the words of each agent:
//! assert_eq!(outcome.render(hookshot::Dialect::Claude)["hookSpecificOutput"]["permissionDecision"], "deny");
//! # Ok::<(), hookshot::Error>(())
//! # }).unwrap();
//! ```

pub mod background;
/// The built-in hooks (the `hookshot-builtins` crate).
pub use hookshot_builtins as builtins;
mod context_cap;
mod run;
mod stop_loops;
pub(crate) use run::EventCx;
pub use run::{Call, Planned};
mod event_plan;
mod explain;
mod listed;
pub mod metrics;
pub mod nesting;
pub mod serve;

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use background::BackgroundMode;
pub use event_plan::{BackgroundJob, EventPlan, NotRun};
pub use explain::{Explained, Explanation, Phase, Why};
/// The agents hookshot answers as a hook of, and the answer each gets
/// ([`agent::answer`]).
pub use hookshot_core::agent;
use hookshot_core::input::{SessionFacts, fill_common};
pub use hookshot_core::{
    Agent, Decision, Dialect, EventKind, FailPolicy, HookDef, HookOutput, HookRecord, MatchTarget, MatcherSpec,
    Outcome, SourceKind,
};
use hookshot_planner::{Planner, Target};
pub use hookshot_registry::{
    Covers, Diagnostic, ProblemKind, Registry, Skipped, Source, SourceProblem, TrustPolicy, TrustStore,
};
use hookshot_runner::Runner;
pub use hookshot_runner::{Hook, ModelClient, RunnerConfig};
pub use listed::{Listed, ListedHook, ListedSource};
pub use nesting::{MAX_DEPTH, PARENT_VAR};

/// What an approval of `file` (trusted for `scope`, its hooks run in
/// `project`) covers besides the file itself, with the shell's own reading
/// of each command line ([`builtins::dangerous::command_paths`]); `Err`
/// when hookshot cannot bind all of it, and so will not trust it; what it
/// runs that no approval binds is listed apart ([`Covers::unbound`]).
pub fn covered_files(
    scope: &Path,
    project: &Path,
    file: &hookshot_registry::SettingsFile,
    folders: &[PathBuf],
) -> Result<hookshot_registry::Covers, String> {
    hookshot_registry::covered_files(scope, project, file, &builtins::dangerous::command_paths, folders)
}
use serde_json::{Map, Value};

/// Why a hook system could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A settings file is unreadable or wrong.
    #[error(transparent)]
    Settings(#[from] hookshot_registry::Error),
    /// A reload found settings files it could not use; the configuration
    /// loaded before stays in force.
    #[error("{0}")]
    Broken(String),
    /// A matcher could not be compiled.
    #[error(transparent)]
    Matcher(#[from] hookshot_planner::Error),
}

/// How the hooks of one event run, whatever their definitions ask.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Strategy {
    /// As the definitions say: sequential when any matched hook asks for it.
    #[default]
    Auto,
    /// Always in parallel.
    Parallel,
    /// Always one after the other, each seeing the previous one's changes.
    Sequential,
    /// One after the other, stopping at the first block.
    FailFast,
}

/// Builds a [`HookSystem`].
#[derive(Debug, Default)]
pub struct Builder {
    settings: Vec<PathBuf>,
    settings_dialect: Option<Dialect>,
    hook_of: Option<Agent>,
    workdir: Option<PathBuf>,
    discover: bool,
    agent_user_files: bool,
    home: Option<PathBuf>,
    config_home: Option<PathBuf>,
    trust: TrustPolicy,
    runner: RunnerConfig,
    strategy: Strategy,
    session_id: Option<String>,
    code_hooks: Vec<(EventKind, String, Arc<dyn Hook>)>,
    model: Option<Arc<dyn ModelClient>>,
    event_budget: Option<Duration>,
}

/// An in-process hook's definition, registered by code.
fn code_hook(event: EventKind, name: &str, source: SourceKind) -> HookDef {
    let action = hookshot_core::HookAction::InProcess { name: name.to_string() };
    HookDef {
        name: Some(name.to_string()),
        timeout: std::time::Duration::from_secs(5),
        source,
        ..HookDef::new(format!("{source}:{name}"), event, action)
    }
}

impl Builder {
    /// The most time all hooks of one event may take together: each hook's
    /// timeout is cut to what is left, and hooks that would start after it
    /// is spent are skipped (a failure, under their policy).
    pub fn event_budget(mut self, budget: Duration) -> Self {
        self.event_budget = Some(budget);
        self
    }

    /// The model that LLM prompt hooks (jcli `type: llm`, Claude `type:
    /// "prompt"`) ask.
    pub fn model_client(mut self, client: Arc<dyn ModelClient>) -> Self {
        self.model = Some(client);
        self
    }

    /// Adds an in-process hook for `event` (it runs before every
    /// configured hook, as built-ins do).
    pub fn hook(mut self, event: EventKind, name: impl Into<String>, hook: Arc<dyn Hook>) -> Self {
        self.code_hooks.push((event, name.into(), hook));
        self
    }

    /// Adds a settings file; each one added overrides the ones before.
    pub fn settings(mut self, path: impl Into<PathBuf>) -> Self {
        self.settings.push(path.into());
        self
    }

    /// Reads the files given with [`Builder::settings`] in this
    /// dialect instead of telling it from their content (for a file whose
    /// events exist in several agents, kept outside `.claude/`/`.gemini/`).
    pub fn settings_dialect(mut self, dialect: Option<Dialect>) -> Self {
        self.settings_dialect = dialect;
        self
    }

    /// The project directory: hooks run there, project sources live there.
    pub fn workdir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.workdir = Some(dir.into());
        self
    }

    /// Also read system, user and project sources (see
    /// [`hookshot_registry::discover`]); `home` and `config_home` locate the
    /// user's files.
    pub fn discover(mut self, home: Option<PathBuf>, config_home: Option<PathBuf>) -> Self {
        self.discover = true;
        self.home = home;
        self.config_home = config_home;
        self
    }

    /// hookshot runs as a hook of this agent (it named the event in that
    /// agent's words from inside one of its hook runs): the agent's own
    /// settings files (`.claude/settings*.json`, `~/.claude/settings.json`
    /// for Claude Code; `.gemini/settings.json`, `~/.gemini/settings.json`
    /// for gemini-cli; `.codex/hooks.json` and `.codex/config.toml`, in the
    /// project and home, for Codex; every `*.json` of `.github/hooks/` and
    /// `~/.copilot/hooks/`, and the project's Claude Code files, for
    /// Copilot CLI) are the agent's to run, and are not loaded again.
    pub fn hook_of(mut self, agent: Option<Agent>) -> Self {
        self.hook_of = agent;
        self
    }

    /// With [`Builder::discover`], also read `~/.gemini`, `~/.claude` and
    /// `~/.jdata` user settings.
    pub fn agent_user_files(mut self, yes: bool) -> Self {
        self.agent_user_files = yes;
        self
    }

    /// Which untrusted sources may run.
    pub fn trust(mut self, trust: TrustPolicy) -> Self {
        self.trust = trust;
        self
    }

    /// Shell, output caps, grace periods, concurrency.
    pub fn runner(mut self, config: RunnerConfig) -> Self {
        self.runner = config;
        self
    }

    /// The execution strategy.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// The session id hooks see (a fresh one by default).
    pub fn session_id(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// Loads and compiles everything; nothing runs from a bad configuration.
    pub fn build(self) -> Result<HookSystem, Error> {
        let workdir = self.workdir.clone().unwrap_or_else(|| PathBuf::from("."));
        let workdir = std::fs::canonicalize(&workdir).unwrap_or(workdir);
        let spec = SourceSpec {
            workdir: workdir.clone(),
            discover: self
                .discover
                .then(|| (self.home.clone(), self.config_home.clone(), self.agent_user_files)),
            settings: self.settings.clone(),
            settings_dialect: self.settings_dialect,
            hook_of: self.hook_of,
            trust: self.trust.clone(),
        };
        let sources = spec.sources();
        // Taken before reading: an edit made while loading shows as a change.
        let loaded = fingerprint(spec.watched(&sources));
        let registry = Registry::load(&sources, &spec.trust);
        // Compiled once, below, with the code hooks: compiling the planner
        // is a third of loading 100,000 hooks.
        let mut system = HookSystem::assemble(registry, workdir, self.runner, self.strategy, self.session_id);
        system.finish_load(loaded);
        system.services.reload_from = Some(spec);
        if let Some(m) = self.model {
            system.services.runner.set_model_client(m);
        }
        system.services.event_budget = self.event_budget;
        for (event, name, hook) in self.code_hooks {
            system.add_code_hook(code_hook(event, &name, SourceKind::Builtin), hook);
        }
        system.recompile()?;
        Ok(system)
    }
}

/// Where the settings come from, kept so that a reload looks again.
#[derive(Debug, Clone)]
struct SourceSpec {
    workdir: PathBuf,
    /// Discovery of system, user, extension and project files: home,
    /// config home, agent-native user files.
    discover: Option<(Option<PathBuf>, Option<PathBuf>, bool)>,
    settings: Vec<PathBuf>,
    settings_dialect: Option<Dialect>,
    hook_of: Option<Agent>,
    trust: TrustPolicy,
}

impl SourceSpec {
    fn sources(&self) -> Vec<Source> {
        let mut sources = match &self.discover {
            Some((home, config_home, agent)) => {
                hookshot_registry::discover(&self.workdir, home.as_deref(), config_home.as_deref(), *agent)
            }
            None => Vec::new(),
        };
        if let Some(agent) = self.hook_of {
            sources.retain(|s| !agent.runs_file(&s.path, s.kind == SourceKind::Project));
            // The plugins Claude Code installed and enabled, it runs itself.
            if agent.runs_plugins()
                && let Some((Some(home), _, _)) = &self.discover
            {
                let own = hookshot_registry::claude_plugins(home, &self.workdir);
                sources.retain(|s| !own.iter().any(|(path, _)| path == &s.path));
            }
        }
        sources.extend(self.settings.iter().map(|path| Source {
            dialect: self.settings_dialect,
            ..Source::new(path, SourceKind::Cli)
        }));
        sources
    }

    /// What loading `sources` depends on besides discovery: the files
    /// themselves, the trust store, and the scripts its approvals of these
    /// files cover (an edited script makes its file untrusted).
    fn watched(&self, sources: &[Source]) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = sources.iter().map(|s| s.path.clone()).collect();
        out.extend(self.trust.path().map(Path::to_path_buf));
        let Some(store) = &self.trust.store else {
            return out;
        };
        for (scope, file) in sources.iter().filter(|s| s.kind.needs_trust()).map(Source::trust_key) {
            let (scope, file) = (scope.display().to_string(), file.display().to_string());
            if let Some(e) = store.entries().find(|e| e.project == scope && e.file == file) {
                out.extend(e.covers.keys().map(|rel| Path::new(&e.project).join(rel)));
            }
        }
        out
    }
}

/// A file as it is now: device, inode, size, modification and change
/// time; `None` when it is missing. The change time moves on every write
/// and the file's owner cannot set it back, so an edit that keeps the size
/// and the modification time still shows, as does a file replaced by a
/// rename.
type FileState = Option<[i64; 7]>;

/// The files a load depended on, each with its state then.
type Fingerprint = Vec<(PathBuf, FileState)>;

fn file_state(path: &Path) -> FileState {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some([
        m.dev() as i64,
        m.ino() as i64,
        m.size() as i64,
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    ])
}

/// The files the long-lived processes of `registry`'s hooks run, resolved
/// against `workdir` ([`hookshot_registry::process_files`]).
/// The flag: whether they could all be listed.
fn process_files(registry: &Registry, workdir: &Path) -> (Vec<PathBuf>, bool) {
    let mut all = true;
    let mut out: Vec<PathBuf> = Vec::new();
    for h in registry.hooks() {
        let (files, complete) = hookshot_registry::process_files(&h.action, workdir);
        all &= complete;
        out.extend(files);
    }
    out.sort();
    out.dedup();
    (out, all)
}

fn fingerprint(paths: Vec<PathBuf>) -> Fingerprint {
    paths
        .into_iter()
        .map(|p| {
            let state = file_state(&p);
            (p, state)
        })
        .collect()
}

/// A loaded, compiled hook configuration, ready to fire events.
#[derive(Debug)]
pub struct HookSystem {
    /// What the last load produced: replaced by a reload
    /// ([`HookSystem::take`]).
    load: Snapshot,
    /// What outlives loads: a system [`HookSystem::reloaded`] makes shares
    /// them (the runner's processes, the metrics, background runs).
    services: Services,
}

/// What one load produced.
#[derive(Debug, Clone)]
struct Snapshot {
    registry: Registry,
    /// The built-ins' hooks, as the registry's merged `builtins` settings
    /// (`builtins_from`) made them: rebuilt by a load that changes those.
    builtin_hooks: Vec<Arc<HookDef>>,
    builtins_from: Option<Vec<hookshot_registry::BuiltinSetting>>,
    /// The built-ins' audit log.
    audit: Option<Arc<builtins::audit::AuditLog>>,
    /// Built-ins that could not start (until a load changes their
    /// settings).
    builtin_problems: Vec<String>,
    /// What the last load read, as it was then.
    loaded: Fingerprint,
    /// The files the hooks' long-lived processes run: a server that keeps
    /// those processes restarts them when one changes.
    process_files: Vec<PathBuf>,
    /// Whether `process_files` is all of them (a folder beside a process's
    /// program may hold too many to watch).
    process_files_complete: bool,
    /// Those files as the processes running now were started from.
    processes_from: Fingerprint,
    /// Compiled over code, registry and session hooks.
    planner: Arc<Planner>,
    /// The canonical path of each settings file hooks come from
    /// ([`nesting::canonical_files`]), for [`HookSystem::fingerprint_of`].
    canonical_files: std::collections::HashMap<PathBuf, PathBuf>,
    /// Sources and built-ins that could not be used: shown with every
    /// event's answer, and a block under the closed failure policy.
    load_warnings: Vec<String>,
    /// Some planned hook runs in the background: only then are spooled
    /// results looked for.
    has_background: bool,
}

/// What outlives a load.
#[derive(Debug, Clone)]
struct Services {
    /// Hooks registered by code: the builder's in-process hooks (lowest
    /// precedence after the built-ins); and session hooks added at run
    /// time (highest).
    code_hooks: Vec<Arc<HookDef>>,
    session_hooks: Vec<Arc<HookDef>>,
    /// Where `reload` reads from again.
    reload_from: Option<SourceSpec>,
    metrics: Arc<metrics::Metrics>,
    event_budget: Option<Duration>,
    runner: Runner,
    workdir: PathBuf,
    session_id: String,
    strategy: Strategy,
    /// The hookshots above this process, read once, when first needed.
    nesting: std::sync::OnceLock<nesting::Nesting>,
    /// Claude Code's `CLAUDE_ENV_FILE` for this session, when this process
    /// is the agent (`replay`): given to the hooks of the events Claude
    /// Code gives it to.
    env_file: std::sync::OnceLock<PathBuf>,
    /// Hooks the agent does not wait for, and what they left to deliver.
    background: Arc<background::Background>,
}

/// An agent's JSON file (comments allowed, as in gemini-cli's settings),
/// read as settings are: capped, and never waiting on a FIFO.
fn read_agent_json(path: &Path) -> Option<Value> {
    let bytes = hookshot_registry::read_settings(path).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let text = hookshot_registry::blank_comments(&text).unwrap_or(text);
    serde_json::from_str(&text).ok()
}

fn new_session_id() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    format!("hookshot-{}-{:x}", std::process::id(), t.as_nanos())
}

impl HookSystem {
    /// Starts a builder.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// A hook system over an already loaded registry.
    pub fn from_registry(
        registry: Registry,
        workdir: PathBuf,
        runner: RunnerConfig,
        strategy: Strategy,
        session_id: Option<String>,
    ) -> Result<HookSystem, Error> {
        let mut system = HookSystem::assemble(registry, workdir, runner, strategy, session_id);
        system.recompile()?;
        Ok(system)
    }

    /// [`HookSystem::from_registry`] before its planner is compiled.
    fn assemble(
        registry: Registry,
        workdir: PathBuf,
        runner: RunnerConfig,
        strategy: Strategy,
        session_id: Option<String>,
    ) -> HookSystem {
        let mut system = HookSystem {
            load: Snapshot {
                registry: Registry::default(),
                builtin_hooks: Vec::new(),
                builtins_from: None,
                audit: None,
                builtin_problems: Vec::new(),
                loaded: Vec::new(),
                process_files: Vec::new(),
                process_files_complete: true,
                processes_from: Vec::new(),
                planner: Arc::default(),
                canonical_files: std::collections::HashMap::new(),
                load_warnings: Vec::new(),
                has_background: false,
            },
            services: Services {
                code_hooks: Vec::new(),
                session_hooks: Vec::new(),
                reload_from: None,
                metrics: Arc::default(),
                event_budget: None,
                runner: Runner::new(runner),
                workdir,
                session_id: session_id.unwrap_or_else(new_session_id),
                strategy,
                nesting: std::sync::OnceLock::new(),
                env_file: std::sync::OnceLock::new(),
                background: Arc::default(),
            },
        };
        system.take(registry);
        system
    }

    /// Makes `registry` the system's configuration: the one place a load
    /// takes effect, for the first load and every reload alike. Built-ins
    /// whose settings changed are started again (one turned on while a
    /// server runs guards from the next event; one turned off stops). The
    /// planner is compiled by the caller.
    fn take(&mut self, registry: Registry) {
        if self.load.builtins_from.as_deref() != Some(registry.builtins()) {
            // An audit log whose own settings did not change goes on as it
            // is: a second writer on the same file while events in flight
            // still log through the first would interleave and rotate twice.
            fn audit_of(b: &[hookshot_registry::BuiltinSetting]) -> Option<(bool, &Map<String, Value>, SourceKind)> {
                let s = b.iter().find(|s| s.name == "audit_log")?;
                Some((s.on, &s.options, s.source))
            }
            let keep_audit = self.load.audit.is_some()
                && self.load.builtins_from.as_deref().map(audit_of) == Some(audit_of(registry.builtins()));
            let config: Vec<_> = registry
                .builtins()
                .iter()
                .filter(|b| !(keep_audit && b.name == "audit_log"))
                .cloned()
                .collect();
            let built = builtins::from_settings(&config, &self.services.workdir);
            for (name, hook) in built.in_process {
                self.services.runner.register(name, hook);
            }
            self.load.builtin_hooks = built.hooks.into_iter().map(Arc::new).collect();
            if !keep_audit {
                self.load.audit = built.audit.map(Arc::new);
            }
            self.load.builtin_problems = built.problems;
            self.load.builtins_from = Some(registry.builtins().to_vec());
        }
        self.load.load_warnings = load_warnings(&registry, &self.load.builtin_problems);
        (self.load.process_files, self.load.process_files_complete) = process_files(&registry, &self.services.workdir);
        self.load.registry = registry;
    }

    /// Recompiles the planner over code, registry and session hooks, in
    /// that precedence order, each under the failure policy in force (which
    /// a reload may have changed).
    fn recompile(&mut self) -> Result<(), Error> {
        // A plugin's data folder exists before its hooks run, as Claude
        // Code makes it on first use (once per plugin, not per hook).
        let data_dirs: std::collections::BTreeSet<&String> = self
            .load
            .registry
            .hooks()
            .iter()
            .flat_map(|h| &h.options.env)
            .filter(|(k, _)| k == "CLAUDE_PLUGIN_DATA")
            .map(|(_, dir)| dir)
            .collect();
        for dir in data_dirs {
            let _ = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir);
        }
        let policy = self.load.registry.failure_policy();
        let hooks: Vec<Arc<HookDef>> = self
            .load
            .builtin_hooks
            .iter()
            .chain(&self.services.code_hooks)
            .chain(self.load.registry.hooks())
            .chain(&self.services.session_hooks)
            .map(|h| {
                // Copied only when the policy changes it: cloning every hook
                // was a sixth of loading 10,000.
                if h.governed_by(policy) {
                    let mut governed = (**h).clone();
                    governed.govern(policy);
                    Arc::new(governed)
                } else {
                    Arc::clone(h)
                }
            })
            .collect();
        self.load.planner = Arc::new(Planner::new(&hooks)?);
        self.load.canonical_files = nesting::canonical_files(&hooks);
        self.load.has_background = hooks.iter().any(|h| h.options.background.is_on());
        Ok(())
    }

    /// The folder where detached runs of background hooks leave their
    /// results ([`HookSystem::set_background`]).
    pub fn background_spool(&self) -> Option<&Path> {
        self.services.background.spool.as_deref()
    }

    /// Says what this process is to the hookshots above it, instead of
    /// reading it from the process tree at the first event: for a server
    /// that answers for a client process, whose place in the tree is the
    /// one that counts.
    pub fn set_nesting(&mut self, nesting: nesting::Nesting) {
        self.services.nesting = std::sync::OnceLock::from(nesting);
    }

    /// Where hooks the agent does not wait for run (default: as tasks of
    /// this process), and the folder where detached runs leave their
    /// results for the session's next event. Set before the first event.
    pub fn set_background(&mut self, mode: BackgroundMode, spool: Option<PathBuf>) {
        self.services.background = Arc::new(background::Background::new(mode, spool));
    }

    fn add_code_hook(&mut self, def: HookDef, hook: Arc<dyn Hook>) {
        self.services.runner.register(def.label().to_string(), hook);
        self.services.code_hooks.push(Arc::new(def));
    }

    /// Registers an in-process hook for this session (source `session`, the
    /// highest precedence), as jcli's `register_hook` does for its agent.
    pub fn register(&mut self, event: EventKind, name: &str, hook: Arc<dyn Hook>) -> Result<(), Error> {
        self.services.runner.register(name.to_string(), hook);
        self.services
            .session_hooks
            .push(Arc::new(code_hook(event, name, SourceKind::Session)));
        self.recompile()
    }

    /// Registers a command hook for this session.
    pub fn register_command(&mut self, event: EventKind, name: &str, command: &str) -> Result<(), Error> {
        let mut def = code_hook(event, name, SourceKind::Session);
        def.action = hookshot_core::HookAction::Command {
            command: command.to_string(),
        };
        def.timeout = std::time::Duration::from_secs(60);
        self.services.session_hooks.push(Arc::new(def));
        self.recompile()
    }

    /// Reads the settings files again, under the same trust policy (a
    /// changed project file is untrusted until trusted again). On an error
    /// the loaded configuration stays in force, and until the file changes
    /// again every answer carries the problem as a warning (a block under
    /// the closed failure policy). Built-ins whose settings changed start
    /// again.
    pub fn reload(&mut self) -> Result<(), Error> {
        let Some(old) = self.services.reload_from.take() else {
            return Ok(());
        };
        // The trust store is read again, so a revoked approval holds from
        // this load on; discovery runs again, so a project file created
        // since is found.
        let spec = &*self.services.reload_from.insert(SourceSpec {
            trust: old.trust.reopened(),
            ..old
        });
        let sources = spec.sources();
        let loaded = fingerprint(spec.watched(&sources));
        let registry = Registry::load(&sources, &spec.trust);
        // A settings file caught half-written must not drop the guards it
        // held a moment ago: keep what was loaded until it is fixed.
        let broken: Vec<&str> = registry
            .problems()
            .iter()
            .filter(|p| p.kind == ProblemKind::Broken)
            .map(|p| p.message.as_str())
            .collect();
        if !broken.is_empty() {
            // The hooks in force stay, and so does the news that the edit
            // was not taken: every answer says it (the closed policy
            // blocks on it) until the file changes again.
            let why = broken.join("\n");
            self.finish_load(loaded);
            self.load.load_warnings = load_warnings(&self.load.registry, &self.load.builtin_problems);
            self.load.load_warnings.extend(
                broken
                    .iter()
                    .map(|m| format!("{m} (the hooks loaded before it changed stay in force)")),
            );
            return Err(Error::Broken(why));
        }
        self.take(registry);
        self.finish_load(loaded);
        self.recompile()
    }

    /// What a load read besides the settings sources, in the order
    /// [`HookSystem::finish_load`] records it: the files the hooks'
    /// long-lived processes run, then the built-ins' rules files.
    fn also_read(&self) -> Vec<PathBuf> {
        let mut files = self.load.process_files.clone();
        files.extend(self.rules_files());
        files
    }

    /// The files the built-ins were started from (`security_scan`'s rules
    /// files): a change to one is a change of the configuration.
    fn rules_files(&self) -> Vec<PathBuf> {
        let files = self.load.builtins_from.iter().flatten().flat_map(|b| &b.rules);
        files.map(|r| r.path.clone()).collect()
    }

    /// Records what a load read: `sources` (the settings, taken before
    /// reading), then [`HookSystem::also_read`]. Restarts the hooks'
    /// long-lived processes (persistent hooks, MCP servers) when a file
    /// they run changed since they started, as a one-shot run would run
    /// the new one.
    fn finish_load(&mut self, mut sources: Fingerprint) {
        let processes = fingerprint(self.load.process_files.clone());
        if processes != self.load.processes_from {
            self.services.runner.renew_processes();
        }
        sources.extend(processes.iter().cloned());
        sources.extend(fingerprint(self.rules_files()));
        self.load.processes_from = processes;
        self.load.loaded = sources;
    }

    /// Reloads when a settings file appeared, vanished or changed (size or
    /// modification time) since the last load; cheap enough to call before
    /// every turn. Returns whether it reloaded.
    pub fn reload_if_changed(&mut self) -> Result<bool, Error> {
        if !self.sources_changed() {
            return Ok(false);
        }
        self.reload().map(|()| true)
    }

    /// Whether what the last load read changed since: a settings file
    /// appeared, vanished or changed (a load that found it broken counts),
    /// the trust store changed, or a script an approval covers did. A
    /// long-lived server asks before each event, so that it answers as a
    /// fresh load would.
    pub fn sources_changed(&self) -> bool {
        self.services.reload_from.as_ref().is_some_and(|spec| {
            let mut now = spec.watched(&spec.sources());
            now.extend(self.also_read());
            fingerprint(now) != self.load.loaded
        })
    }

    /// When a settings file changed since the last load, the system to use
    /// from now on, and how loading the change went: with `Err`, the change
    /// could not be used, the new system keeps this one's hooks and every
    /// answer reports the problem (see [`HookSystem::reload`]). It shares
    /// this system's hook processes, built-ins, audit log and metrics. For
    /// servers: events in flight finish on the old system while new ones
    /// use the new.
    pub fn reloaded(&self) -> Option<(HookSystem, Result<(), Error>)> {
        if !self.sources_changed() {
            return None;
        }
        let mut next = HookSystem {
            load: self.load.clone(),
            services: self.services.clone(),
        };
        // A change that was not taken leaves the load as it was, planner
        // included; one that was taken compiles its own.
        let loaded = next.reload();
        Some((next, loaded))
    }

    /// Per-hook metrics since this system was built.
    pub fn metrics(&self) -> Vec<metrics::HookStats> {
        self.services.metrics.snapshot()
    }

    /// Why some configured hooks cannot run (untrusted or broken sources,
    /// built-ins that could not start), then files of MCP servers that
    /// could not be used: each fired event carries all of these as
    /// warnings, and blocks on the first kind under the closed failure
    /// policy.
    pub fn load_warnings(&self) -> Vec<String> {
        let servers = self
            .load
            .registry
            .problems()
            .iter()
            .filter(|p| p.kind == ProblemKind::Servers);
        self.load
            .load_warnings
            .iter()
            .cloned()
            .chain(servers.map(|p| p.message.clone()))
            .collect()
    }

    /// The failure policy in force (`hooksConfig.onFailure`, strictest wins).
    pub fn failure_policy(&self) -> FailPolicy {
        self.load.registry.failure_policy()
    }

    /// The registry behind this system.
    pub fn registry(&self) -> &Registry {
        &self.load.registry
    }

    /// The project directory.
    pub fn workdir(&self) -> &Path {
        &self.services.workdir
    }

    /// Where the audit log is written, when the built-in is on.
    pub fn audit_log_path(&self) -> Option<&Path> {
        self.load.audit.as_deref().map(builtins::audit::AuditLog::path)
    }

    /// Calls in-process hooks (the built-ins) apart from the event's task,
    /// on the blocking pool: for a server whose other events and
    /// keepalives must not wait behind one long check
    /// ([`hookshot_runner::Runner::call_in_process_apart`]).
    pub fn call_in_process_hooks_apart(&self) {
        self.services.runner.call_in_process_apart();
    }

    /// Whether every file its long-lived processes run is watched: when
    /// not, a server that keeps them alive cannot know they still run what
    /// a fresh start would, and must not answer for a one-shot `fire`.
    pub fn watches_every_process_file(&self) -> bool {
        self.load.process_files_complete
    }

    /// The session id hooks see.
    pub fn session_id(&self) -> &str {
        &self.services.session_id
    }

    /// A hook's [`nesting::fingerprint`], its settings file canonical.
    pub(crate) fn fingerprint_of(&self, hook: &HookDef) -> u64 {
        let file = hook.provenance.file.as_deref();
        let real = file.map(|f| self.load.canonical_files.get(f).map_or(f, PathBuf::as_path));
        nesting::fingerprint(hook, real)
    }

    /// Every defined hook, as `hookshot list` and the sidecar's `list` show
    /// it: event, name, matcher, source, dialect, where it is written, its
    /// precedence (run order; none when it does not run) and its state
    /// (`active`, `untrusted`, `disabled`); then each source that gave no
    /// hooks because it is untrusted or broken, with why.
    pub fn describe_hooks(&self) -> Vec<Listed<'_>> {
        let reg = &self.load.registry;
        let active = reg.hooks().iter().enumerate().map(|(i, h)| (h, Some(i), "active"));
        let skipped = reg.skipped().iter().map(|(h, why)| {
            let state = match why {
                Skipped::Untrusted => "untrusted",
                Skipped::Disabled(_) => "disabled",
            };
            (h, None, state)
        });
        let sources = reg.problems().iter().map(|p| {
            let state = match p.kind {
                ProblemKind::Untrusted => "untrusted",
                ProblemKind::Broken | ProblemKind::Servers => "broken",
            };
            Listed::Source(ListedSource {
                event: None,
                name: None,
                source: p.source.kind,
                at: p.source.path.display().to_string(),
                precedence: None,
                state,
                problem: &p.message,
            })
        });
        active
            .chain(skipped)
            .map(|(h, precedence, state)| {
                Listed::Hook(ListedHook {
                    event: h.event,
                    name: h.label(),
                    command: h.command(),
                    matcher: &h.matcher,
                    source: h.source,
                    dialect: h.dialect,
                    at: h.provenance.to_string(),
                    precedence,
                    sequential: h.sequential,
                    timeout_ms: u64::try_from(h.timeout.as_millis()).unwrap_or(u64::MAX),
                    fail: h.fail,
                    state,
                })
            })
            .chain(sources)
            .collect()
    }

    /// Whether any hook registered for `event` satisfies `pred` (matchers
    /// aside).
    pub fn has_hooks_where(&self, event: EventKind, pred: impl Fn(&HookDef) -> bool) -> bool {
        self.load
            .builtin_hooks
            .iter()
            .chain(&self.services.code_hooks)
            .chain(self.load.registry.hooks())
            .chain(&self.services.session_hooks)
            .any(|h| h.event == event && pred(h))
    }

    /// Whether any hook is registered for `event`.
    pub fn has_hooks(&self, event: EventKind) -> bool {
        self.load.planner.has_hooks(event)
    }

    /// The hooks that would run for `event` with this input (no hook runs).
    pub fn plan(&self, event: EventKind, input: &Map<String, Value>) -> Vec<Arc<HookDef>> {
        self.plan_for(event, input).hooks
    }

    /// Whether firing `event` with `input` would match no hook (nothing
    /// would start): `fire` then builds no reactor and handles no signals,
    /// a tenth of a one-shot `fire` that runs nothing.
    pub fn matches_nothing(&self, event: EventKind, input: &Map<String, Value>) -> bool {
        let mut input = input.clone();
        self.complete_input(event, &mut input);
        self.plan_for(event, &input).hooks.is_empty()
    }

    /// Like [`HookSystem::plan`], matching afresh instead of using the plan
    /// cache: what a benchmark of matching should time.
    pub fn plan_uncached(&self, event: EventKind, input: &Map<String, Value>) -> Vec<Arc<HookDef>> {
        self.target_of(event, input, |t| self.load.planner.plan_uncached(event, t))
            .hooks
    }

    fn plan_for(&self, event: EventKind, input: &Map<String, Value>) -> hookshot_planner::Plan {
        self.target_of(event, input, |t| self.load.planner.plan(event, t))
    }

    /// Calls `f` with what `event`'s matchers are tested against in `input`.
    fn target_of<R>(&self, event: EventKind, input: &Map<String, Value>, f: impl FnOnce(Target<'_>) -> R) -> R {
        let name = match event.match_target() {
            MatchTarget::ToolName => input.get("tool_name").and_then(Value::as_str),
            MatchTarget::Trigger(field) => input.get(field).and_then(Value::as_str),
            MatchTarget::None => None,
        };
        let name = match event {
            EventKind::FileChanged => name.map(|p| p.rsplit(['/', '\\']).next().unwrap_or(p)),
            _ => name,
        };
        let model = input
            .get("llm_request")
            .and_then(|r| r.get("model"))
            .or_else(|| input.get("model"))
            .and_then(Value::as_str);
        let argument = input.get("tool_input").and_then(hookshot_core::main_argument);
        let cwd = input.get("cwd").and_then(Value::as_str);
        f(Target {
            name,
            model,
            argument,
            cwd,
        })
    }

    /// Fills the input's common fields the way [`HookSystem::fire`] does.
    pub fn complete_input(&self, event: EventKind, input: &mut Map<String, Value>) {
        let facts = SessionFacts {
            session_id: &self.services.session_id,
            cwd: &self.services.workdir,
            transcript_path: None,
        };
        fill_common(input, event, &facts);
    }

    /// The agent this system was loaded to answer as a hook of (`fire
    /// --agent`, or told from the environment), if any: the agent of a
    /// [`HookSystem::fire`] that names none.
    pub(crate) fn caller(&self) -> Option<Agent> {
        self.services.reload_from.as_ref().and_then(|s| s.hook_of)
    }

    /// The context of an event fired without a [`Call`].
    pub(crate) fn default_cx(&self) -> EventCx {
        EventCx {
            agent: self.caller(),
            env: None,
        }
    }

    /// How the runner ends a hook (the grace between TERM and KILL).
    pub(crate) fn runner_config(&self) -> &RunnerConfig {
        self.services.runner.config()
    }

    /// Ends what outlives single events (persistent hook processes): each
    /// is given the rest of what it was sent and a moment to finish. Call it
    /// before the process exits; otherwise they are killed when the system
    /// is dropped.
    pub async fn shutdown(&self) {
        // Background runs still going are cancelled, as Claude Code cancels
        // them when a `-p` session ends.
        self.services.background.shutdown().await;
        self.services.runner.shutdown(Duration::from_millis(500)).await;
    }
}

/// One line per source and built-in that could not be used, files of MCP
/// servers left out: those are no block.
fn load_warnings(registry: &Registry, builtin_problems: &[String]) -> Vec<String> {
    registry
        .problems()
        .iter()
        .filter(|p| p.kind != ProblemKind::Servers)
        .map(|p| p.message.clone())
        .chain(builtin_problems.iter().cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, settings: &Value) {
        std::fs::write(dir.join("settings.json"), settings.to_string()).unwrap();
    }

    #[test]
    fn a_reload_that_changes_another_built_in_keeps_the_audit_log_writing() {
        let dir = tempfile::tempdir().unwrap();
        let audit = serde_json::json!({"path": "audit.jsonl"});
        write(
            dir.path(),
            &serde_json::json!({"builtins": {"audit_log": audit, "dangerous_confirmation": {"mode": "ask"}}}),
        );
        let h = HookSystem::builder()
            .settings(dir.path().join("settings.json"))
            .workdir(dir.path())
            .build()
            .unwrap();
        let first = h.load.audit.clone().expect("an audit log");
        // Another built-in changes, and the file's lines move.
        write(
            dir.path(),
            &serde_json::json!({"x": 1, "builtins": {"audit_log": audit, "dangerous_confirmation": {"mode": "deny"}}}),
        );
        let (next, loaded) = h.reloaded().expect("changed");
        loaded.unwrap();
        assert!(
            Arc::ptr_eq(&first, next.load.audit.as_ref().unwrap()),
            "one writer per log"
        );
        assert_eq!(next.load.builtins_from.as_ref().unwrap().len(), 2);
        // Its own settings change: a new log.
        let moved = serde_json::json!({"path": "other.jsonl"});
        write(
            dir.path(),
            &serde_json::json!({"builtins": {"audit_log": moved, "dangerous_confirmation": {"mode": "deny"}}}),
        );
        let (last, loaded) = next.reloaded().expect("changed");
        loaded.unwrap();
        assert!(!Arc::ptr_eq(&first, last.load.audit.as_ref().unwrap()));
    }

    /// A background job runs exactly the hooks it was handed, at the depth
    /// it was handed off at: at the nesting limit, none, and it says so.
    #[tokio::test]
    async fn a_background_job_keeps_its_hooks_and_its_depth() {
        let dir = tempfile::tempdir().unwrap();
        let marks = dir.path().join("marks");
        let hook = |name: &str| {
            serde_json::json!({"type": "command", "name": name, "async": true,
                "command": format!("cat >/dev/null; echo {name} >> {}", marks.display())})
        };
        write(
            dir.path(),
            &serde_json::json!({"hooks": {"PostToolUse": [{"hooks": [hook("one"), hook("two")]}]}}),
        );
        let build = || {
            let mut h = HookSystem::builder()
                .settings(dir.path().join("settings.json"))
                .workdir(dir.path())
                .build()
                .unwrap();
            h.set_background(BackgroundMode::Elsewhere, None);
            h
        };
        let input: Map<String, Value> = serde_json::from_value(
            serde_json::json!({"session_id": "s", "tool_name": "Write", "tool_input": {}, "tool_response": {}}),
        )
        .unwrap();
        let system = build();
        let planned = system.plan_call(Call::new(EventKind::AfterTool, input));
        let job = system.background_job(&planned).expect("two hooks go elsewhere");
        assert_eq!(job.hooks.len(), 2);
        let mut only_one = job.clone();
        only_one.hooks.truncate(1);
        let mut h = build();
        h.set_background(BackgroundMode::Inline, None);
        let outcome = h.run_background_job(EventKind::AfterTool, only_one).await;
        assert_eq!(outcome.records.len(), 1, "{:?}", outcome.warnings);
        assert_eq!(std::fs::read_to_string(&marks).unwrap().lines().count(), 1);
        let mut deep = job;
        deep.depth = MAX_DEPTH;
        let mut h = build();
        h.set_background(BackgroundMode::Inline, None);
        let outcome = h.run_background_job(EventKind::AfterTool, deep).await;
        assert!(outcome.records.is_empty());
        assert!(
            outcome.warnings.iter().any(|w| w.contains("nested")),
            "{:?}",
            outcome.warnings
        );
        assert_eq!(std::fs::read_to_string(&marks).unwrap().lines().count(), 1);
    }
}
