//! `hookshot install` and `uninstall`: register hookshot as an agent's hook
//! for every event the agent has, in the agent's own settings file, and
//! take it out again. `--import` moves the hooks the agent already had into
//! hookshot's own settings, so they run once, under hookshot's supervision,
//! trust and failure policy; a hook hookshot cannot run the same way stays
//! where the agent runs it, named, and install exits 1.
//!
//! The first install keeps each file as it was (`FILE.hookshot-backup`, or
//! `FILE.hookshot-absent` when there was none); uninstall puts it back byte
//! for byte when nothing else changed since, and otherwise removes only
//! hookshot's entries. Only hookshot's entries of a file ever change
//! (file.rs): comments, key order, numbers, mode, owner and symlinks stay.

mod cline;
pub(crate) mod codex_approval;
mod codex_import;
mod file;

use std::path::{Path, PathBuf};

use hookshot::{EventKind, FailPolicy};
use hookshot_core::agent::IMPORTED_DIR;
use serde_json::{Map, Value, json};

use crate::fail::Fail;
use crate::load::{Sources, build, config_home, trust_store_path};
use file::JsonFile;

/// The agents of the agent table; install registers in those with a file
/// to register in ([`hookshot::Agent::installable`]).
pub(crate) use hookshot::Agent;

/// The agent table's names on the command line: every agent, or with
/// `installable` those install registers in.
#[derive(Clone, Copy)]
pub(crate) struct AgentName {
    pub(crate) installable: bool,
}

impl AgentName {
    fn names(self) -> impl Iterator<Item = &'static str> {
        Agent::ALL
            .into_iter()
            .filter(move |a| !self.installable || a.installable())
            .map(Agent::name)
    }
}

impl clap::builder::TypedValueParser for AgentName {
    type Value = Agent;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Agent, clap::Error> {
        let name = value.to_string_lossy();
        match Agent::parse(&name).filter(|a| !self.installable || a.installable()) {
            Some(agent) => Ok(agent),
            None => {
                let known: Vec<&str> = self.names().collect();
                let why = match Agent::parse(&name) {
                    Some(a) => format!(
                        "`hookshot install` does not register in {}'s files; put `hookshot fire --agent {a} EVENT` in them by hand",
                        a.display_name()
                    ),
                    None => format!("unknown agent \"{name}\""),
                };
                let msg = format!("{why}; use {}\n", known.join(", "));
                Err(clap::Error::raw(clap::error::ErrorKind::InvalidValue, msg).with_cmd(cmd))
            }
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(self.names().map(clap::builder::PossibleValue::new)))
    }
}

/// How long the agent waits for `hookshot fire`: longer than any hook's own
/// deadline inside it, so hookshot, not the agent, decides what a slow hook
/// means (where the agent allows that long).
const AGENT_TIMEOUT_S: u64 = 600;

/// One settings file of the agent that install reads or writes.
struct AgentFile {
    path: PathBuf,
    /// Whether hookshot's entries go here (else only `--import` reads it,
    /// and older registrations are taken out of it).
    register: bool,
    /// Its file in [`IMPORTED_DIR`]: where `--import` moves its hooks.
    imported: &'static str,
}

/// What install does with an agent of the table.
trait Install: Copy {
    fn files_in(self, scope: &Scope) -> Vec<AgentFile>;
    fn settings_file(self, scope: &Scope) -> PathBuf;
    fn registered_events(self) -> Vec<&'static str>;
    fn imported_file(self, scope: &Scope, name: &str) -> PathBuf;
    fn entry(self, command: &str, event: &str) -> Value;
}

impl Install for Agent {
    /// The agent's files in `scope` that install reads or writes (its
    /// row of the agent table: where it registers, and what `--import`
    /// moves).
    fn files_in(self, scope: &Scope) -> Vec<AgentFile> {
        let agent = self;
        let in_project = matches!(scope, Scope::Project(_));
        let registered = agent.registered_file(in_project);
        let folder = if in_project {
            agent.folder()
        } else {
            agent.user_folder()
        };
        agent
            .files()
            .iter()
            .filter(|f| in_project || !f.project_only)
            .filter_map(|f| {
                Some(AgentFile {
                    path: scope.root().join(folder).join(f.name),
                    register: Some(f) == registered,
                    imported: f.imported_as?,
                })
            })
            .collect()
    }

    /// The file hookshot registers in.
    fn settings_file(self, scope: &Scope) -> PathBuf {
        self.files_in(scope)
            .into_iter()
            .find(|f| f.register)
            .map(|f| f.path)
            .unwrap_or_default()
    }

    /// The events hookshot registers for, in the agent's names. Claude
    /// Code's WorktreeCreate and WorktreeRemove are left out: a hook there
    /// replaces Claude Code's own git worktree handling, which no
    /// multiplexer should do unasked (hooks a user has there stay with
    /// Claude Code).
    fn registered_events(self) -> Vec<&'static str> {
        let d = self.dialect();
        self.events()
            .into_iter()
            .filter(|e| !matches!(e, EventKind::WorktreeCreate | EventKind::WorktreeRemove))
            .filter_map(|e| e.name_in(d))
            .chain(self.tool_events_registered().iter().copied())
            .collect()
    }

    /// Where `--import` puts the hooks of one of the agent's files.
    fn imported_file(self, scope: &Scope, name: &str) -> PathBuf {
        match scope {
            Scope::User { config, .. } => config.join("hookshot").join(IMPORTED_DIR).join(name),
            Scope::Project(p) => p.join(".hookshot").join(IMPORTED_DIR).join(name),
        }
    }

    /// One registration: `hookshot fire EVENT`, no matcher (every target).
    fn entry(self, command: &str, event: &str) -> Value {
        if self.flat_entries() {
            return json!({"command": command});
        }
        let mut hook = json!({"type": "command", "command": command});
        if let Some(key) = self.timeout_key() {
            hook[key] = json!(self.timeout_value(event, AGENT_TIMEOUT_S));
        }
        if self.names_hooks() {
            hook["name"] = json!("hookshot");
        }
        // hookshot cuts each hook's context to its own limit, as Codex
        // would; Codex must not cut their sum to one hook's 2,500 tokens.
        if let Some(limit) = hookshot::EventKind::parse(event).and_then(|(kind, _)| self.entry_context_limit(kind)) {
            hook["additionalContextLimit"] = json!(limit);
        }
        json!({"hooks": [hook]})
    }
}

/// Where the agent's file is: the user's home or a project.
enum Scope {
    User { home: PathBuf, config: PathBuf },
    Project(PathBuf),
}

impl Scope {
    fn root(&self) -> &Path {
        match self {
            Scope::User { home, .. } => home,
            Scope::Project(p) => p,
        }
    }

    /// What writes must stay inside: a project's root.
    fn confine(&self) -> Option<&Path> {
        match self {
            Scope::User { .. } => None,
            Scope::Project(p) => Some(p),
        }
    }
}

/// Which agent's file, and where.
#[derive(clap::Args, Debug)]
pub(crate) struct Place {
    /// The agent.
    #[arg(long, value_parser = AgentName { installable: true })]
    agent: Agent,
    /// The user's settings (~/.claude, ~/.gemini, ~/.codex): the default.
    #[arg(long, conflicts_with = "project")]
    user: bool,
    /// The project's settings: of DIR (as `trust --project DIR`), else of
    /// --workdir, else of the current directory.
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = ".")]
    project: Option<PathBuf>,
    /// The project, with --project (default: the current directory).
    #[arg(long, value_name = "DIR")]
    workdir: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub(crate) struct InstallArgs {
    #[command(flatten)]
    place: Place,
    /// Also move the hooks the agent's file already has into hookshot's
    /// own settings (same dialect), so they run once, under hookshot.
    #[arg(long)]
    import: bool,
    /// Register `hookshot fire --warm`: persistent process hooks and MCP
    /// servers stay started between events, the answers unchanged
    /// (docs/CLI.md, "Warm fire").
    #[arg(long)]
    warm: bool,
    /// Protection in one command: also turn on the three built-ins in your
    /// hookshot settings (dangerous_confirmation asking before destructive
    /// commands, security_scan redacting secrets, audit_log), keeping any
    /// choice already made there.
    #[arg(long, conflicts_with = "project")]
    guards: bool,
    /// With --guards: the closed failure policy too (a hook or hookshot
    /// itself that cannot run blocks the action instead of warning).
    #[arg(long, requires = "guards")]
    closed: bool,
    /// Show what would change in each file (a unified diff) and write
    /// nothing.
    #[arg(long, visible_alias = "diff")]
    dry_run: bool,
}

#[derive(clap::Args, Debug)]
pub(crate) struct UninstallArgs {
    /// The agent.
    #[arg(long, value_parser = AgentName { installable: true }, required_unless_present = "all")]
    agent: Option<Agent>,
    /// The user's settings (~/.claude, ~/.gemini, ~/.codex): the default.
    #[arg(long, conflicts_with_all = ["project", "all"])]
    user: bool,
    /// The project's settings: of DIR, else of --workdir, else of the
    /// current directory.
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = ".", conflicts_with = "all")]
    project: Option<PathBuf>,
    /// The project, with --project (default: the current directory).
    #[arg(long, value_name = "DIR")]
    workdir: Option<PathBuf>,
    /// Every agent, from the user's files, every project `install
    /// --project` registered in, and the current one (or --workdir); and
    /// the lasting copy install keeps for package runners.
    #[arg(long, conflicts_with = "agent")]
    all: bool,
    /// With --all: hookshot's own data too (the trust store's approvals,
    /// background job spool, the list of projects). Your settings files
    /// stay.
    #[arg(long, requires = "all")]
    purge: bool,
}

fn scope(place: &Place) -> Result<Scope, Fail> {
    let project = place.project.as_deref().map(|named| {
        // `--project` alone is the current directory, or --workdir.
        Some(named)
            .filter(|d| *d != Path::new("."))
            .or(place.workdir.as_deref())
            .unwrap_or(Path::new("."))
    });
    scope_of(project)
}

/// The user's files, or the project in `project`.
fn scope_of(project: Option<&Path>) -> Result<Scope, Fail> {
    if let Some(dir) = project {
        let dir = std::fs::canonicalize(dir).map_err(|e| Fail::Usage(format!("{}: {e}", dir.display())))?;
        return Ok(Scope::Project(dir));
    }
    let home =
        hookshot_core::paths::home().ok_or_else(|| Fail::Usage("install: HOME is not set; use --project".into()))?;
    let config = config_home().unwrap_or_else(|| home.join(".config"));
    Ok(Scope::User { home, config })
}

/// This very program, by absolute path (an agent's PATH is not the
/// shell's), quoted for the agent's shell. Run from a package runner's
/// cache (`npx`, `uvx`, `pipx run`), which is cleaned behind the user's
/// back, it is first copied to a lasting place, so the agent's hooks do not
/// vanish with the cache.
fn this_program(dry_run: bool) -> Result<String, Fail> {
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| Fail::Usage(format!("cannot find this program: {e}")))?;
    let exe = if in_runner_cache(&exe) {
        lasting_copy(&exe, dry_run)?
    } else {
        exe
    };
    let exe = exe.to_string_lossy();
    let quoted = if exe.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c)) {
        exe.into_owned()
    } else {
        format!("'{}'", exe.replace('\'', r"'\''"))
    };
    Ok(quoted)
}

/// Says so when this program runs from inside the project it installs
/// into (its `node_modules`, a vendored binary): a repository's own copy
/// of hookshot can be anything, and it is what would be registered.
fn warn_if_run_from_inside(scope: &Scope) {
    let Ok(exe) = std::env::current_exe().and_then(std::fs::canonicalize) else {
        return;
    };
    let project = match scope {
        Scope::Project(p) => Some(p.clone()),
        Scope::User { .. } => std::env::current_dir().ok(),
    };
    let Some(project) = project.and_then(|p| std::fs::canonicalize(p).ok()) else {
        return;
    };
    // The user's home holds user-wide installs (~/.local, ~/.cargo): only a
    // folder below it counts as a project.
    let home = hookshot_core::paths::home().and_then(|h| std::fs::canonicalize(h).ok());
    if exe.starts_with(&project) && home.as_deref() != Some(project.as_path()) {
        eprintln!(
            "hookshot: warning: this hookshot runs from inside {} ({}): a repository's own copy of hookshot can be anything. \
             Install from outside the project (npx --yes hookshot-cli@{} from another folder), or install it globally",
            project.display(),
            exe.display(),
            env!("CARGO_PKG_VERSION")
        );
    }
}

/// Whether `exe` lies in a package runner's cache or temporary folder:
/// npm's `_npx`, uv's `archive-v*` (uvx), pipx's `.cache` (pipx run),
/// pnpm's `dlx` (`pnpm dlx`), yarn's `xfs-*`/`dlx-*` (`yarn dlx`), bun's
/// `bunx-*` (`bunx`).
fn in_runner_cache(exe: &Path) -> bool {
    let parts: Vec<&str> = exe.iter().filter_map(|c| c.to_str()).collect();
    let temporary =
        |c: &str| c == "_npx" || c == "dlx" || c.starts_with("dlx-") || c.starts_with("bunx-") || c.starts_with("xfs-");
    parts.iter().any(|c| temporary(c))
        || parts
            .windows(2)
            .any(|w| (w[0] == "uv" && w[1].starts_with("archive-v")) || (w[0] == "pipx" && w[1] == ".cache"))
}

/// Copies `exe` to `$XDG_DATA_HOME/hookshot/bin/hookshot` (whole, then
/// renamed into place: a hook running the old copy keeps it) and returns
/// that path.
fn lasting_copy(exe: &Path, dry_run: bool) -> Result<PathBuf, Fail> {
    let dir = hookshot_core::paths::xdg_dir("XDG_DATA_HOME", ".local/share")
        .ok_or_else(|| Fail::Usage("install: HOME is not set; cannot keep a copy of hookshot".into()))?
        .join("hookshot")
        .join("bin");
    if dry_run {
        println!(
            "would copy {} to {} (a package runner's cache is cleaned)",
            exe.display(),
            dir.join("hookshot").display()
        );
        return Ok(dir.join("hookshot"));
    }
    let fail = |e: std::io::Error| Fail::Usage(format!("install: cannot copy hookshot to {}: {e}", dir.display()));
    std::fs::create_dir_all(&dir).map_err(fail)?;
    let target = dir.join("hookshot");
    // Whole, then renamed into place: a hook running the old copy keeps
    // it, and a half-made copy is removed.
    let how = hookshot_core::atomic::Replace {
        mode: 0o755,
        durable: true,
    };
    hookshot_core::atomic::replace(&target, how, |f| {
        use std::os::unix::fs::PermissionsExt;
        std::io::copy(&mut std::fs::File::open(exe)?, f)?;
        f.set_permissions(std::fs::Permissions::from_mode(0o755))
    })
    .map_err(fail)?;
    eprintln!(
        "hookshot: running from a package runner's cache ({}), which is cleaned; registered a lasting copy at {}",
        exe.display(),
        target.display()
    );
    Ok(target)
}

/// What the agent gets when hookshot itself cannot answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fallback {
    /// Exit 2 with the reason: the event's action does not happen.
    Block,
    /// A `systemMessage` the agent shows; the event goes on.
    Warn,
}

/// Whether blocking `event` when hookshot cannot run is the safe answer
/// ([`EventKind::guards_an_action`]; Cursor's `beforeReadFile` is a
/// before-tool event); under the closed failure policy the other events
/// get the warning too.
fn block_is_safe(event: &str) -> bool {
    hookshot::agent::parse_event_for(event, None).is_some_and(|(e, _)| e.guards_an_action())
}

fn fallback_for(policy: FailPolicy, event: &str) -> Fallback {
    match policy {
        FailPolicy::Closed if block_is_safe(event) => Fallback::Block,
        _ => Fallback::Warn,
    }
}

/// One registered command, as `install` writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Command<'a> {
    /// The program, quoted for the shell.
    program: &'a str,
    /// When the program is not there, `hookshot` on PATH is run instead:
    /// for files a team shares, where the path is one machine's.
    portable: bool,
    /// Named so hookshot never has to guess which agent runs it (`None`
    /// in registrations of older versions).
    agent: Option<Agent>,
    warm: bool,
    event: &'a str,
    fallback: Fallback,
}

impl Command<'_> {
    /// What the agent's shell runs: hookshot, and when hookshot itself
    /// cannot answer (its binary gone or not executable, killed, or an
    /// input or settings file it cannot read: any exit but 0 and 2), an
    /// answer the agent shows. Run directly, a vanished binary is the
    /// shell's exit 127, which every agent reads as a non-blocking error
    /// kept out of sight: the guards imported into hookshot would stop
    /// without a word.
    fn text(&self) -> String {
        self.text_in(Form::ProgramFirst)
    }

    fn text_in(&self, form: Form) -> String {
        let Command {
            program,
            portable,
            agent,
            warm,
            event,
            fallback,
        } = self;
        let agent = agent.map(|a| format!("--agent {} ", a.name())).unwrap_or_default();
        let warm = if *warm { "--warm " } else { "" };
        if form == Form::Assigned {
            let look = if *portable { "[ -x \"$P\" ] || P=hookshot; " } else { "" };
            let run =
                format!("P={program}; {look}\"$P\" fire {agent}{warm}{event}; s=$?; case $s in 0|2) exit $s;; esac; ");
            let what = format!("hookshot fire {event} failed (exit %s), so the hooks it runs did not run");
            let fix = "reinstall hookshot or run hookshot uninstall";
            return match fallback {
                Fallback::Block => format!(
                    "{run}printf '{what}: blocked by the closed failure policy ({fix}; hookshot was %s)\\n' $s \"$P\" >&2; exit 2"
                ),
                Fallback::Warn => format!("{run}printf '{{\"systemMessage\":\"{what} ({fix})\"}}\\n' $s; exit 0"),
            };
        }
        // The program first, so the agent's hook list (Claude's /hooks)
        // shows what runs; a team's file looks for hookshot on PATH too.
        let run = if *portable {
            format!("P={program}; [ -x \"$P\" ] || P=hookshot; \"$P\" fire {agent}{warm}{event}")
        } else {
            format!("{program} fire {agent}{warm}{event}")
        };
        // Short, since agents show the command beside the message; the
        // advice is one a user can follow when the binary is gone.
        let why =
            "case $s in 2) exit 2;; 127) m='it is not installed there any more';; *) m=\"it failed, exit $s\";; esac; ";
        let fix = "reinstall hookshot, or run: hookshot uninstall --all";
        match fallback {
            Fallback::Block => format!(
                "{run} || {{ s=$?; {why}printf 'hookshot could not run (%s): {event} blocked by the closed failure policy; {fix}\\n' \"$m\" >&2; exit 2; }}"
            ),
            Fallback::Warn => format!(
                "{run} || {{ s=$?; {why}printf '{{\"systemMessage\":\"hookshot could not run (%s): the hooks of {event} did not run; {fix}\"}}\\n' \"$m\"; exit 0; }}"
            ),
        }
    }

    /// Reads back a command [`Command::text`] wrote (any version of it):
    /// the program must be named `hookshot` and the whole command exactly
    /// what `install` writes, so a user's own wrapper is never taken for
    /// ours.
    fn parse(cmd: &str) -> Option<Command<'_>> {
        let (form, program, portable, tail) = if let Some(rest) = cmd.strip_prefix("P=") {
            let (program, tail) = rest.split_once("; ")?;
            match tail.strip_prefix("[ -x \"$P\" ] || P=hookshot; ") {
                Some(t) => (None, program, true, t.strip_prefix("\"$P\" fire ")?),
                None => (Some(Form::Assigned), program, false, tail.strip_prefix("\"$P\" fire ")?),
            }
        } else {
            let (program, tail) = split_program(cmd)?;
            (Some(Form::ProgramFirst), program, false, tail.strip_prefix(" fire ")?)
        };
        let (agent, tail) = match tail.strip_prefix("--agent ") {
            Some(t) => {
                let (name, t) = t.split_once(' ')?;
                (Some(Agent::parse(name)?), t)
            }
            None => (None, tail),
        };
        let (warm, tail) = tail.strip_prefix("--warm ").map_or((false, tail), |t| (true, t));
        let event = tail.split([';', ' ']).next()?;
        if !named_hookshot(program) {
            return None;
        }
        let forms = form.map_or(vec![Form::Assigned, Form::ProgramFirst], |f| vec![f]);
        forms.into_iter().find_map(|form| {
            [Fallback::Block, Fallback::Warn]
                .into_iter()
                .map(|fallback| Command {
                    program,
                    portable,
                    agent,
                    warm,
                    event,
                    fallback,
                })
                .find(|c| c.text_in(form) == cmd)
        })
    }
}

/// The registered command's shapes, newest last: what older versions
/// wrote is still read back (for doctor and uninstall).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `P=PROGRAM; "$P" fire …; s=$?; case …`
    Assigned,
    /// `PROGRAM fire … || { s=$?; … }`
    ProgramFirst,
}

/// The program at the start of `cmd` as [`this_program`] quotes it, and
/// the rest.
fn split_program(cmd: &str) -> Option<(&str, &str)> {
    if cmd.starts_with('\'') {
        // 'path'\''s rest' ... : ends at a quote not followed by \''
        let mut i = 1;
        let b = cmd.as_bytes();
        while i < b.len() {
            if b[i] == b'\'' {
                if cmd[i..].starts_with("'\\''") {
                    i += 4;
                    continue;
                }
                return Some((&cmd[..=i], &cmd[i + 1..]));
            }
            i += 1;
        }
        None
    } else {
        let end = cmd.find(' ')?;
        Some((&cmd[..end], &cmd[end..]))
    }
}

fn named_hookshot(program: &str) -> bool {
    Path::new(&unquote(program))
        .file_name()
        .is_some_and(|n| n == "hookshot")
}

/// How a registration `install` wrote answers when hookshot cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Guarded {
    /// `PROGRAM fire EVENT` as older versions wrote it: the agent hides
    /// the failure.
    Silently,
    /// A warning the agent shows; the event goes on.
    Warns,
    /// The event is blocked where blocking is safe.
    Blocks,
}

/// Whether a hook entry is one `install` wrote, how it answers when
/// hookshot cannot run, and its program.
fn ours(hook: &Value) -> Option<(Guarded, String)> {
    let cmd = hook.get("command").and_then(Value::as_str)?.trim();
    if let Some(c) = Command::parse(cmd) {
        // Where a block is not safe every policy warns: it tells nothing.
        let guarded = match c.fallback {
            Fallback::Block => Guarded::Blocks,
            Fallback::Warn if block_is_safe(c.event) => Guarded::Warns,
            Fallback::Warn => Guarded::Blocks,
        };
        let program = if c.portable {
            format!("{} (else hookshot on PATH)", unquote(c.program))
        } else {
            unquote(c.program)
        };
        return Some((guarded, program));
    }
    let (program, rest) = cmd.rsplit_once(" fire ")?;
    (named_hookshot(program) && !rest.contains(char::is_whitespace)).then(|| (Guarded::Silently, unquote(program)))
}

fn is_ours(hook: &Value) -> bool {
    ours(hook).is_some()
}

/// The hooks of one entry of an event's list: a group's `hooks`, or the
/// entry itself where the agent's entries are flat (Cursor's
/// `{"command": ...}`).
fn handlers(group: &Value) -> &[Value] {
    match group.get("hooks") {
        Some(Value::Array(hs)) => hs,
        _ if group.get("command").is_some() => std::slice::from_ref(group),
        _ => &[],
    }
}

/// Whether a hook group holds hookshot's entries and nothing else (the
/// group `install` adds): the groups that are not are the user's own.
fn only_ours(group: &Value) -> bool {
    let hs = handlers(group);
    !hs.is_empty() && hs.iter().all(is_ours)
}

fn side(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

fn groups_of(doc: &Map<String, Value>) -> impl Iterator<Item = (&String, &Vec<Value>)> {
    doc.get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(e, g)| g.as_array().map(|g| (e, g)))
}

/// Why hookshot cannot take a hook group of `event` from the agent, if it
/// cannot: an event it does not register for, a hook kind that needs the
/// agent's own model, or an entry its parser rejects (checked one group
/// at a time, in the file it would go to, so one bad entry keeps only
/// itself back).
fn cannot_take(agent: Agent, event: &str, group: &Value, imported: &Path) -> Option<String> {
    if !agent.registered_events().contains(&event) {
        return Some(format!("hookshot does not run {} hooks for {event}", agent.name()));
    }
    if agent.flat_entries() {
        return Some(format!(
            "hookshot does not read {}'s own hook entries; {} runs them",
            agent.display_name(),
            agent.display_name()
        ));
    }
    let hooks = group.get("hooks").and_then(Value::as_array);
    if let Some(kind) = hooks.into_iter().flatten().find_map(|h| {
        h.get("type")
            .and_then(Value::as_str)
            .filter(|t| matches!(*t, "prompt" | "agent"))
    }) {
        return Some(format!(
            "a \"{kind}\" hook asks the agent's own model, which hookshot does not have"
        ));
    }
    if group
        .get("hooks")
        .and_then(Value::as_array)
        .is_some_and(|h| h.iter().any(is_ours))
    {
        return Some("it mixes hookshot's registration with other hooks".into());
    }
    let doc = json!({"hooks": {event: [group]}});
    let source = hookshot::Source::new(imported, hookshot::SourceKind::User);
    match source.parse(serde_json::to_vec(&doc).unwrap_or_default()) {
        Ok(_) => None,
        Err(e) => Some(
            e.to_string()
                .lines()
                .map(|l| l.trim_start_matches(&format!("{}:", imported.display())).trim())
                .collect::<Vec<_>>()
                .join("; "),
        ),
    }
}

/// Splits the agent's own hook groups out of `doc` (hookshot's entries and
/// what hookshot cannot take stay): event name -> groups taken, and what
/// was left behind and why.
fn take_theirs(agent: Agent, doc: &mut Map<String, Value>, imported: &Path) -> (Map<String, Value>, Vec<String>) {
    let mut theirs = Map::new();
    let mut left = Vec::new();
    let Some(Value::Object(hooks)) = doc.get_mut("hooks") else {
        return (theirs, left);
    };
    for (event, groups) in hooks.iter_mut() {
        let Value::Array(groups) = groups else { continue };
        let mut taken = Vec::new();
        groups.retain(|g| {
            if only_ours(g) {
                return true;
            }
            match cannot_take(agent, event, g, imported) {
                Some(why) => {
                    let what = handlers(g)
                        .iter()
                        .filter_map(|h| h.get("command").or_else(|| h.get("url")).and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join(", ");
                    left.push(format!("{event} [{what}]: {why}"));
                    true
                }
                None => {
                    taken.push(g.clone());
                    false
                }
            }
        });
        if !taken.is_empty() {
            theirs.insert(event.clone(), Value::Array(taken));
        }
    }
    hooks.retain(|_, g| g.as_array().is_none_or(|g| !g.is_empty()));
    if hooks.is_empty() {
        doc.remove("hooks");
    }
    (theirs, left)
}

/// Appends hook groups to `doc`'s `hooks`, event by event, each group
/// once; how many were added. `None` when `hooks` is not an object.
fn merge_groups(doc: &mut Map<String, Value>, groups: Map<String, Value>) -> Option<usize> {
    let Value::Object(hooks) = doc.entry("hooks").or_insert_with(|| Value::Object(Map::new())) else {
        return None;
    };
    let mut n = 0;
    for (event, new) in groups {
        let have = hooks.entry(event).or_insert_with(|| Value::Array(Vec::new()));
        if let (Value::Array(have), Value::Array(new)) = (have, new) {
            for g in new {
                if !have.contains(&g) {
                    have.push(g);
                    n += 1;
                }
            }
        }
    }
    Some(n)
}

/// Removes hookshot's entries from one event's groups, and the groups
/// that held only them; how many.
fn remove_ours_from(groups: &mut Vec<Value>) -> usize {
    let mut removed = 0;
    groups.retain_mut(|g| {
        let Some(Value::Array(hs)) = g.get_mut("hooks") else {
            // A flat entry (Cursor's) is one hook.
            let ours = is_ours(g);
            removed += usize::from(ours);
            return !ours;
        };
        let before = hs.len();
        hs.retain(|h| !is_ours(h));
        removed += before - hs.len();
        !(hs.is_empty() && before > 0)
    });
    removed
}

/// Removes hookshot's entries (and the events and `hooks` key they leave
/// empty).
fn remove_ours(doc: &mut Map<String, Value>) -> usize {
    let mut removed = 0;
    if let Some(Value::Object(hooks)) = doc.get_mut("hooks") {
        for groups in hooks.values_mut() {
            if let Value::Array(groups) = groups {
                removed += remove_ours_from(groups);
            }
        }
        hooks.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
    }
    if doc.get("hooks").and_then(Value::as_object).is_some_and(Map::is_empty) {
        doc.remove("hooks");
    }
    removed
}

/// Adds hookshot's registration for every event to `doc`; how many were
/// added (an older registration of an event is replaced, never run twice).
fn register(
    doc: &mut Map<String, Value>,
    path: &Path,
    agent: Agent,
    policy: FailPolicy,
    program: &str,
    portable: bool,
    warm: bool,
) -> Result<usize, Fail> {
    // Copilot CLI refuses a hooks file without its `"version": 1`.
    for (key, value) in agent.file_header() {
        doc.entry(*key).or_insert_with(|| json!(value));
    }
    let hooks = doc.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(Fail::Usage(format!(
            "{}: \"hooks\" is not an object; nothing was changed",
            path.display()
        )));
    };
    let mut added = 0;
    for event in agent.registered_events() {
        let command = Command {
            program,
            portable,
            agent: Some(agent),
            warm,
            event,
            fallback: fallback_for(policy, event),
        }
        .text();
        let groups = hooks.entry(event).or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else {
            return Err(Fail::Usage(format!(
                "{}: hooks.{event} is not a list; nothing was changed",
                path.display()
            )));
        };
        let mut entry = agent.entry(&command, event);
        // Cursor blocks the action itself when a hook it was told fails
        // closed crashes or times out: the closed policy, where hookshot's
        // own fallback cannot answer.
        if agent.flat_entries() && fallback_for(policy, event) == Fallback::Block {
            entry["failClosed"] = json!(true);
        }
        // The whole handler, not only its command: an install by an older
        // hookshot (a timeout the agent clamps, say) is brought up to date.
        let present = groups
            .iter()
            .flat_map(handlers)
            .any(|h| handlers(&entry).first() == Some(h));
        if !present {
            remove_ours_from(groups);
            // After the user's own groups: Codex keeps each hook's approval
            // under its position, which must not move.
            groups.push(entry);
            added += 1;
        }
    }
    Ok(added)
}

pub(crate) fn install(args: InstallArgs) -> Result<u8, Fail> {
    let scope = scope(&args.place)?;
    let agent = args.place.agent;
    let dry = args.dry_run;
    // The guards first: the registration carries the policy they set.
    let guards = if args.guards {
        Some(write_guards(&scope, args.closed, dry)?)
    } else {
        None
    };
    let policy = match &guards {
        // A dry run wrote nothing, so the settings do not say it yet.
        Some(_) if dry && args.closed => FailPolicy::Closed,
        _ => policy_for(&scope)?,
    };
    let program = this_program(dry)?;
    // A file a team shares (in a project, not one kept per user) names the
    // program so it works on another machine.
    let portable = matches!(scope, Scope::Project(_)) && agent.registered_file(true).is_some_and(|f| !f.project_only);
    let mut left = Vec::new();
    let mut code = 0;
    warn_if_run_from_inside(&scope);
    if let Scope::Project(project) = &scope
        && !dry
    {
        remember_project(project);
    }
    if agent.hooks_are_files() {
        left.extend(cline::install(&scope, &program, policy, dry)?);
    }
    for f in agent.files_in(&scope) {
        // A file install only reads may lie anywhere; one it writes may not.
        let writes = f.register || args.import;
        // Refused before anything is written beside it (a backup, an import).
        if writes {
            file::writable(&f.path, scope.confine(), true)?;
        }
        // Claude Code's local settings are the user's own, never committed:
        // one that is a link (into the project's committed settings, say)
        // was planted, and writing through it would change a shared file.
        if writes
            && matches!(scope, Scope::Project(_))
            && f.path.file_name().is_some_and(|n| n == "settings.local.json")
            && std::fs::symlink_metadata(&f.path).is_ok_and(|m| m.file_type().is_symlink())
        {
            return Err(Fail::Usage(format!(
                "{}: is a symlink; Claude Code's local settings are your own file, and hookshot does not write through a link there (it may lead into the project's committed settings). Remove the link and install again; nothing was changed",
                f.path.display()
            )));
        }
        let file = JsonFile::read(&f.path, scope.confine().filter(|_| writes))?;
        let mut doc = file.doc.clone();
        let imported = agent.imported_file(&scope, f.imported);
        let mut theirs = Map::new();
        // Codex's hooks move only once Codex runs hookshot's entries, and
        // with their approvals (codex_import.rs): decided after register.
        if args.import && !agent.approves_hooks() {
            let (taken, stays) = take_theirs(agent, &mut doc, &imported);
            theirs = taken;
            left.extend(stays.into_iter().map(|s| format!("{}: {s}", f.path.display())));
        }
        let added = if f.register {
            register(&mut doc, &f.path, agent, policy, &program, portable, args.warm)?
        } else {
            remove_ours(&mut doc);
            0
        };
        let mut codex_plan = None;
        if args.import && agent.approves_hooks() && f.register {
            let cwd = match &scope {
                Scope::Project(p) => p.clone(),
                Scope::User { .. } => std::env::current_dir().unwrap_or_else(|_| scope.root().to_path_buf()),
            };
            let plan = codex_import::plan(
                &f.path,
                &mut doc,
                &cwd,
                |event, group| cannot_take(agent, event, group, &imported),
                &mut left,
            );
            match plan {
                Ok(plan) => {
                    theirs = plan.theirs.clone();
                    codex_plan = Some(plan);
                }
                Err(why) => left.push(format!("{}: your Codex hooks: {why}", f.path.display())),
            }
        }
        if doc == file.doc {
            if f.register {
                println!(
                    "{}: hookshot is already registered for all {} events; nothing changed",
                    f.path.display(),
                    agent.registered_events().len()
                );
            }
            continue;
        }
        let text = file.render(&doc)?;
        if dry {
            print_diff(&f.path, file.text.as_deref().unwrap_or_default(), &text);
            if !theirs.is_empty() {
                println!(
                    "would move {} hook group(s) into {}",
                    theirs.values().filter_map(Value::as_array).map(Vec::len).sum::<usize>(),
                    imported.display()
                );
            }
            continue;
        }
        // The imported hooks are saved before they leave the agent's file:
        // a failure between the two runs them twice, never not at all.
        let moved = theirs.values().filter_map(Value::as_array).map(Vec::len).sum::<usize>();
        if !theirs.is_empty() {
            import(&scope, &imported, theirs)?;
        }
        // Codex: what stays carries its approval to its new place first.
        if let Some(plan) = codex_plan.filter(|p| !p.theirs.is_empty()) {
            codex_import::save(&f.path, &plan.saved)?;
            codex_import::write_approvals(&plan.approvals)?;
            println!(
                "{}: {moved} hook group(s) Codex approved now run under hookshot ({}); each entry that stays there carried its approval to its new place ({} in all)",
                f.path.display(),
                imported.display(),
                plan.approvals.len()
            );
        }
        // The file as it was before hookshot first touched it.
        let (backup, absent) = (side(&f.path, ".hookshot-backup"), side(&f.path, ".hookshot-absent"));
        if file::read_own(&backup).is_none() && file::read_own(&absent).is_none() {
            match &file.text {
                Some(t) => file::write(&backup, t.as_bytes(), scope.confine(), false, file.meta.as_ref())?,
                None => file::write(&absent, b"", scope.confine(), false, None)?,
            }
        }
        file::write(&f.path, text.as_bytes(), scope.confine(), true, None)?;
        if f.register && added > 0 {
            println!(
                "{}: hookshot registered for {added} event(s) ({} in all); the file as it was is kept beside it for `hookshot uninstall --agent {}`",
                f.path.display(),
                agent.registered_events().len(),
                agent.name()
            );
        } else {
            println!("{}: hookshot's older registration taken out", f.path.display());
        }
    }
    if dry {
        println!("dry run: nothing was written");
        return Ok(code);
    }
    if agent.approves_hooks() {
        // Codex runs a hook of hooks.json only once its user approved it:
        // until then this registration guards nothing.
        let settings = agent.settings_file(&scope);
        let cwd = std::env::current_dir().unwrap_or_else(|_| scope.root().to_path_buf());
        match codex_approval(&settings, &cwd) {
            Some(a) if a.pending.is_empty() && matches!(a.by, codex_approval::By::Codex(_)) => {
                println!("Codex has approved all {} of hookshot's entries: they run", a.ours)
            }
            _ => println!(
                "Codex runs none of these hooks until you approve them: start `codex`, type /hooks and approve each hookshot entry \
                 (again after every install that changed them); `hookshot doctor` checks"
            ),
        }
    }
    match policy {
        FailPolicy::Closed => println!(
            "if hookshot itself cannot run, {agent} blocks tool calls, prompts and permissions, and warns at other events (closed failure policy)"
        ),
        FailPolicy::Open => println!(
            "if hookshot itself cannot run, {agent} shows a warning and goes on (open failure policy; with \"hooksConfig\": {{\"onFailure\": \"closed\"}} in hookshot's settings, run install again to block instead)"
        ),
    }
    if let Some(settings) = guards {
        println!(
            "next: `hookshot check 'git push --force'` shows a guard at work; `hookshot doctor` checks the setup; \
             `hookshot log` shows decisions. Your guards are in {} (docs/BUILTINS.md); `hookshot uninstall --agent {}` takes hookshot out of the agent (the guards stay in that file)",
            settings.display(),
            agent.name()
        );
        if !args.closed {
            println!(
                "for the closed policy (block, not warn, when a guard cannot run): `hookshot install --agent {} --guards --closed`",
                agent.name()
            );
        }
    }
    if !left.is_empty() {
        eprintln!(
            "hookshot: {} hook group(s) stay where {agent} runs them, as they were:",
            left.len()
        );
        for l in &left {
            eprintln!("  {l}");
        }
        code = 1;
    }
    Ok(code)
}

/// The built-ins `--guards` turns on, as a user who wants protection
/// expects them: asked before a destructive command, secrets redacted on
/// the way to the model, every decision logged.
fn guard_settings() -> [(&'static str, Value); 3] {
    [
        ("dangerous_confirmation", json!({"mode": "ask"})),
        ("security_scan", json!({"mode": "redact"})),
        ("audit_log", json!({"path": "audit.jsonl"})),
    ]
}

/// Writes the guards into the user's hookshot settings (each built-in only
/// where the file has no choice for it yet; with `closed`, the closed
/// failure policy). Returns the file.
fn write_guards(scope: &Scope, closed: bool, dry: bool) -> Result<PathBuf, Fail> {
    let Scope::User { config, .. } = scope else {
        return Err(Fail::Usage(
            "--guards writes your user settings; leave out --project".into(),
        ));
    };
    let path = config.join("hookshot").join("settings.json");
    let file = JsonFile::read(&path, None)?;
    let mut doc = file.doc.clone();
    let builtins = doc.entry("builtins").or_insert_with(|| json!({}));
    let Some(builtins) = builtins.as_object_mut() else {
        return Err(Fail::Usage(format!(
            "{}: \"builtins\" is not an object; nothing was changed",
            path.display()
        )));
    };
    let mut kept = Vec::new();
    for (name, options) in guard_settings() {
        if builtins.contains_key(name) {
            kept.push(name);
        } else {
            builtins.insert(name.into(), options);
        }
    }
    if closed {
        let config = doc.entry("hooksConfig").or_insert_with(|| json!({}));
        let Some(config) = config.as_object_mut() else {
            return Err(Fail::Usage(format!(
                "{}: \"hooksConfig\" is not an object; nothing was changed",
                path.display()
            )));
        };
        config.insert("onFailure".into(), json!("closed"));
    }
    for name in &kept {
        println!("{}: {name} kept as you set it", path.display());
    }
    if doc == file.doc {
        return Ok(path);
    }
    let text = file.render(&doc)?;
    if dry {
        print_diff(&path, file.text.as_deref().unwrap_or_default(), &text);
        return Ok(path);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Fail::Usage(format!("{}: {e}", dir.display())))?;
    }
    file::write(&path, text.as_bytes(), None, true, None)?;
    println!(
        "{}: built-ins on: dangerous_confirmation asks before destructive commands, security_scan redacts secrets \
         (in commands too: what runs then holds the placeholder), audit_log records each decision{}",
        path.display(),
        if closed { "; closed failure policy" } else { "" }
    );
    Ok(path)
}

/// A unified diff of what install would write to `path`.
fn print_diff(path: &Path, old: &str, new: &str) {
    let name = path.display().to_string();
    let diff = similar::TextDiff::from_lines(old, new);
    print!(
        "{}",
        diff.unified_diff()
            .context_radius(3)
            .header(&name, &format!("{name} (after install)"))
    );
}

/// The failure policy the registration carries: what hookshot's trusted
/// settings for this place say now (the user's, or the project's with the
/// user's and the system's).
fn policy_for(scope: &Scope) -> Result<FailPolicy, Fail> {
    let sources = Sources {
        workdir: Some(scope.root().to_path_buf()),
        ..Sources::default()
    };
    Ok(build(&sources)?.failure_policy())
}

/// Adds the agent's own hook groups to hookshot's imported file (nothing
/// already there twice); a project's file is trusted as it is now: the
/// user moved hooks that already ran.
fn import(scope: &Scope, file: &Path, theirs: Map<String, Value>) -> Result<(), Fail> {
    let have = JsonFile::read(file, scope.confine())?;
    // Only what hookshot moves is approved: a file already there that the
    // user never approved (planted by the repository, or edited since) is
    // not merged into an approval. The agent's groups stay where the agent
    // runs them, so no guard is off meanwhile.
    if let (Scope::Project(project), Some(text)) = (scope, &have.text) {
        let source = hookshot::Source {
            scope: Some(project.clone()),
            ..hookshot::Source::new(file, hookshot::SourceKind::Project)
        };
        let (scope_dir, rel) = source.trust_key();
        let verdict = trust_store_path()
            .ok_or_else(|| "there is no trust store (set HOME or XDG_CONFIG_HOME)".to_string())
            .and_then(|p| hookshot::TrustStore::open(p).map_err(|e| e.to_string()))
            .and_then(|store| store.check(&scope_dir, &rel, text.as_bytes()));
        if let Err(why) = verdict {
            let planted: Vec<String> = have
                .doc
                .get("hooks")
                .and_then(Value::as_object)
                .map(|hooks| {
                    hooks
                        .iter()
                        .flat_map(|(event, groups)| {
                            let n = groups.as_array().map_or(0, Vec::len);
                            (0..n).map(move |i| format!("{event}[{i}]"))
                        })
                        .collect()
                })
                .unwrap_or_default();
            return Err(Fail::Usage(format!(
                "{}: already holds settings hookshot did not move there and you did not approve ({why}){}; \
                 nothing was moved and nothing approved. Review that file, then run `hookshot trust` or remove it, and install again",
                file.display(),
                if planted.is_empty() {
                    String::new()
                } else {
                    format!(": hook groups {}", hookshot_core::display::escaped(&planted.join(", ")))
                }
            )));
        }
    }
    let mut doc = have.doc.clone();
    let n = merge_groups(&mut doc, theirs)
        .ok_or_else(|| Fail::Usage(format!("{}: \"hooks\" is not an object", file.display())))?;
    let text = have.render(&doc)?;
    let bytes = text.into_bytes();
    file::write(file, &bytes, scope.confine(), true, None)?;
    println!("{}: imported {n} hook group(s)", file.display());
    if let Scope::Project(project) = scope {
        let store = trust_store_path()
            .ok_or_else(|| Fail::Usage("cannot locate the trust store (set HOME or XDG_CONFIG_HOME)".into()))?;
        let mut store = hookshot::TrustStore::open(store).map_err(|e| Fail::Usage(e.to_string()))?;
        let source = hookshot::Source::new(file, hookshot::SourceKind::Project);
        let source = hookshot::Source {
            scope: Some(project.clone()),
            ..source
        };
        let parsed = source.parse(bytes.clone()).map_err(|e| Fail::Settings(e.to_string()))?;
        let (scope_dir, rel) = source.trust_key();
        let covers = hookshot::covered_files(&scope_dir, project, &parsed, &[])
            .map_err(|why| Fail::Usage(format!("{}: not trusted: {why}", file.display())))?;
        // These hooks already ran in the project under the agent; what
        // they run beyond an approval is said, not a reason to stop them.
        for why in &covers.unbound {
            eprintln!(
                "hookshot: {}: runs code no approval can bind: {}",
                file.display(),
                hookshot_core::display::escaped(why)
            );
        }
        store.trust(&scope_dir, &rel, &bytes, covers.files);
        store.save().map_err(|e| Fail::Usage(e.to_string()))?;
        println!(
            "{}: trusted as it is now (it holds hooks the project already ran)",
            file.display()
        );
    }
    Ok(())
}

pub(crate) fn uninstall(args: UninstallArgs) -> Result<u8, Fail> {
    if args.all {
        return uninstall_all(args.workdir.as_deref(), args.purge);
    }
    let Some(agent) = args.agent else {
        return Err(Fail::Usage("uninstall: name --agent, or --all".into()));
    };
    let place = Place {
        agent,
        user: args.user,
        project: args.project,
        workdir: args.workdir,
    };
    let scope = scope(&place)?;
    let mut any = false;
    if agent.hooks_are_files() {
        any |= cline::uninstall(&scope)?;
    }
    for f in agent.files_in(&scope) {
        any |= uninstall_file(agent, &scope, &f)?;
    }
    if !any {
        let place = if agent.hooks_are_files() {
            cline::folder(&scope)
        } else {
            agent.settings_file(&scope)
        };
        println!("{}: hookshot is not registered there; nothing changed", place.display());
    }
    Ok(0)
}

/// hookshot's data folder (`$XDG_DATA_HOME/hookshot`).
fn data_dir() -> Option<PathBuf> {
    hookshot_core::paths::xdg_dir("XDG_DATA_HOME", ".local/share").map(|d| d.join("hookshot"))
}

/// The list of projects `install --project` registered in, which
/// `uninstall --all` goes through: a project's registration is in the
/// project, where nothing else would find it again.
fn projects_file() -> Option<PathBuf> {
    data_dir().map(|d| d.join("projects"))
}

fn installed_projects() -> Vec<PathBuf> {
    let Some(text) = projects_file().and_then(|f| std::fs::read_to_string(f).ok()) else {
        return Vec::new();
    };
    text.lines().filter(|l| !l.is_empty()).map(PathBuf::from).collect()
}

/// Adds `project` to [`projects_file`] (once). A failure only costs
/// `uninstall --all` this project, so it is a warning.
fn remember_project(project: &Path) {
    let Some(file) = projects_file() else { return };
    let listed = installed_projects();
    let Some(text) = project.to_str().filter(|t| !t.contains('\n')) else {
        return;
    };
    if listed.iter().any(|p| p == project) {
        return;
    }
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(file.parent().unwrap_or(Path::new(".")))?;
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&file)?;
        writeln!(f, "{text}")
    };
    if let Err(e) = write() {
        eprintln!(
            "hookshot: warning: cannot note this project in {} ({e}); `uninstall --all` will not find it",
            file.display()
        );
    }
}

/// `uninstall --all`: every agent from the user's files, every project
/// install registered in and the current one, then the lasting copy (and
/// with `purge`, hookshot's data). Says what it removed.
fn uninstall_all(workdir: Option<&Path>, purge: bool) -> Result<u8, Fail> {
    let mut scopes = vec![scope_of(None)?];
    let here = workdir.unwrap_or(Path::new("."));
    let mut projects = installed_projects();
    projects.push(here.to_path_buf());
    let mut failed = 0;
    for project in projects {
        match scope_of(Some(&project)) {
            Ok(s) if !scopes.iter().any(|have| have.root() == s.root()) => scopes.push(s),
            Ok(_) => {}
            Err(_) => println!("{}: gone; nothing to take out", project.display()),
        }
    }
    let mut removed = 0;
    for scope in &scopes {
        let mut count = |done: Result<bool, Fail>| match done {
            Ok(done) => removed += usize::from(done),
            Err(e) => {
                failed += 1;
                eprintln!("{}", e.message());
            }
        };
        for agent in agents() {
            if agent.hooks_are_files() {
                count(cline::uninstall(scope));
            }
            for f in agent.files_in(scope) {
                count(uninstall_file(agent, scope, &f));
            }
        }
    }
    if removed == 0 {
        println!("hookshot was registered with no agent, in the user's files or the projects it knows");
    }
    let data = data_dir();
    let copy = data.as_ref().map(|d| d.join("bin"));
    if let Some(copy) = copy.filter(|c| c.exists()) {
        match std::fs::remove_dir_all(&copy) {
            Ok(()) => println!(
                "{}: removed (the copy install kept for package runners)",
                copy.display()
            ),
            Err(e) => {
                failed += 1;
                eprintln!("hookshot: {}: {e}", copy.display());
            }
        }
    }
    if purge {
        let state = hookshot_core::paths::xdg_dir("XDG_STATE_HOME", ".local/state").map(|d| d.join("hookshot"));
        for path in [data, state, trust_store_path()].into_iter().flatten() {
            let gone = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
            match gone {
                Ok(()) => println!("{}: removed", path.display()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    failed += 1;
                    eprintln!("hookshot: {}: {e}", path.display());
                }
            }
        }
    } else if failed == 0
        && let Some(file) = projects_file()
    {
        // Every listed project is done.
        let _ = std::fs::remove_file(file);
    }
    if let Some(config) = config_home().map(|c| c.join("hookshot")).filter(|c| c.exists()) {
        println!(
            "{}: kept (your settings{})",
            config.display(),
            if purge {
                ""
            } else {
                " and project approvals; --purge removes the approvals"
            }
        );
    }
    println!(
        "the hookshot program itself stays: remove it as you installed it (npm uninstall -g hookshot-cli, pipx uninstall hookshot-cli, cargo uninstall hookshot-cli)"
    );
    Ok(u8::from(failed > 0))
}

/// Takes hookshot out of one of the agent's files and puts back what
/// `--import` moved out of it; whether there was anything to do.
fn uninstall_file(agent: Agent, scope: &Scope, f: &AgentFile) -> Result<bool, Fail> {
    let path = &f.path;
    let confine = scope.confine();
    let file = JsonFile::read(path, confine)?;
    let mut doc = file.doc.clone();
    let (backup, absent) = (side(path, ".hookshot-backup"), side(path, ".hookshot-absent"));
    let removed = remove_ours(&mut doc);
    // Codex's imported groups go back to their own places, with their
    // approvals (codex_import.rs).
    let codex_restored = agent.approves_hooks() && codex_import::restore(path, &mut doc)?;
    // What --import moved out goes back where it came from.
    let imported = agent.imported_file(scope, f.imported);
    let had = JsonFile::read(&imported, confine)?;
    let had_import = had.text.is_some();
    let theirs = had
        .doc
        .get("hooks")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let restored = theirs.values().filter_map(Value::as_array).map(Vec::len).sum::<usize>();
    let returned = if theirs.is_empty() {
        0
    } else if codex_restored {
        // Back in their own places already; merging adds none twice.
        merge_groups(&mut doc, theirs);
        restored
    } else {
        if agent.approves_hooks() {
            // Their places and approvals were not kept (the record in
            // hookshot's data folder is gone): appended, they are new
            // entries to Codex, which runs none of them until approved.
            eprintln!(
                "hookshot: {}: the places and approvals of its {restored} hook group(s) were not found; they go back after the others, \
                 and Codex runs none of them until you approve them again in /hooks",
                imported.display()
            );
        }
        merge_groups(&mut doc, theirs).ok_or_else(|| {
            Fail::Usage(format!(
                "{}: \"hooks\" is not an object; nothing was changed",
                path.display()
            ))
        })?
    };
    if removed == 0 && !had_import {
        return Ok(false);
    }
    // The keys install adds for the agent (Copilot CLI's `"version": 1`)
    // go with hookshot's entries when nothing else is left.
    let header = agent.file_header();
    if doc
        .iter()
        .all(|(k, v)| header.iter().any(|(hk, hv)| hk == k && *v == json!(hv)))
    {
        doc.clear();
    }
    let done = |what: String| -> Result<bool, Fail> {
        if had_import {
            std::fs::remove_file(&imported).map_err(|e| Fail::Usage(format!("{}: {e}", imported.display())))?;
            println!(
                "{}: its {returned} hook group(s) are back in {}",
                imported.display(),
                path.display()
            );
        }
        println!("{what}");
        Ok(true)
    };
    if file::read_own(&absent).is_some() && doc.is_empty() {
        if file.text.is_some() {
            let target = file::resolve(path, confine, true)?;
            std::fs::remove_file(&target).map_err(|e| Fail::Usage(format!("{}: {e}", path.display())))?;
        }
        let _ = std::fs::remove_file(&absent);
        return done(format!("{}: removed (hookshot had created it)", path.display()));
    }
    // Nothing but hookshot's changes since install: the file goes back
    // byte for byte (its mode too).
    if let Some((bytes, meta)) = file::read_own(&backup) {
        let was = std::str::from_utf8(&bytes)
            .ok()
            .and_then(|t| file::parse(&backup, t).ok())
            .map(Option::unwrap_or_default);
        let same = was.is_some_and(|mut was| {
            remove_ours(&mut was);
            was == doc
        });
        if same {
            file::write(path, &bytes, confine, true, Some(&meta))?;
            let _ = std::fs::remove_file(&backup);
            return done(format!(
                "{}: restored exactly as it was before hookshot",
                path.display()
            ));
        }
    }
    file::write(path, file.render(&doc)?.as_bytes(), confine, true, None)?;
    let _ = std::fs::remove_file(&absent);
    let kept = if file::read_own(&backup).is_some() {
        format!("; the original is still in {}", backup.display())
    } else {
        String::new()
    };
    done(format!(
        "{}: removed hookshot's {removed} entr{} (the file changed since install, so the rest stays as it is now{kept})",
        path.display(),
        if removed == 1 { "y" } else { "ies" },
    ))
}

/// Where hookshot is registered for one agent, as `doctor` reports it.
pub(crate) struct Registration {
    pub(crate) file: PathBuf,
    /// How many of the agent's events run hookshot, of how many.
    pub(crate) events: usize,
    pub(crate) all: usize,
    /// The weakest answer any of them gives when hookshot cannot run.
    pub(crate) guarded: Guarded,
    /// Registered programs that cannot be found (or run) now.
    pub(crate) missing: Vec<String>,
}

/// Where hookshot is registered for `agent` in the user's files or a
/// project's; `None` when it is not.
pub(crate) fn registration(agent: Agent, project: Option<&Path>) -> Option<Registration> {
    let scope = match project {
        Some(p) => Scope::Project(p.to_path_buf()),
        None => scope_of(None).ok()?,
    };
    if agent.hooks_are_files() {
        return cline::registration(&scope);
    }
    let all = agent.registered_events();
    let mut r: Option<Registration> = None;
    for f in agent.files_in(&scope) {
        let Ok(file) = JsonFile::read(&f.path, None) else {
            continue;
        };
        let mut found_any = false;
        let mut reg = Registration {
            file: f.path.clone(),
            events: 0,
            all: all.len(),
            guarded: Guarded::Blocks,
            missing: Vec::new(),
        };
        for (event, groups) in groups_of(&file.doc) {
            let found: Vec<_> = groups.iter().flat_map(handlers).filter_map(ours).collect();
            found_any |= !found.is_empty();
            reg.events += usize::from(!found.is_empty() && all.contains(&event.as_str()));
            for (guarded, program) in found {
                reg.guarded = reg.guarded.min(guarded);
                if !can_run(&program) && !reg.missing.contains(&program) {
                    reg.missing.push(program);
                }
            }
        }
        if found_any && r.as_ref().is_none_or(|r| reg.events > r.events) {
            r = Some(reg);
        }
    }
    r
}

/// Codex's approval of hookshot's entries in its `hooks.json` at `file`
/// (codex_approval.rs), for a session started in `cwd`.
pub(crate) fn codex_approval(file: &Path, cwd: &Path) -> Option<codex_approval::Approval> {
    let doc = JsonFile::read(file, None).ok()?.doc;
    let keys = codex_approval::our_keys(file, &doc, is_ours);
    let theirs = groups_of(&doc)
        .flat_map(|(_, groups)| groups)
        .filter(|g| !only_ours(g))
        .count();
    (!keys.is_empty()).then(|| codex_approval::Approval {
        theirs,
        ..codex_approval::approval(&keys, cwd)
    })
}

/// Whether a registered program (as [`ours`] names it) can be run here.
fn can_run(program: &str) -> bool {
    match program.strip_suffix(" (else hookshot on PATH)") {
        Some(p) => is_executable(Path::new(p)) || on_path("hookshot"),
        None => is_executable(Path::new(program)),
    }
}

/// Whether an executable `name` is on `PATH`.
pub(crate) fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| is_executable(&d.join(name))))
}

/// The program as [`this_program`] quoted it.
fn unquote(program: &str) -> String {
    match program.strip_prefix('\'').and_then(|p| p.strip_suffix('\'')) {
        Some(inner) => inner.replace(r"'\''", "'"),
        None => program.to_string(),
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The agents install registers in.
pub(crate) fn agents() -> impl Iterator<Item = Agent> {
    Agent::ALL.into_iter().filter(|a| a.installable())
}

#[cfg(test)]
mod tests;
