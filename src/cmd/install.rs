//! `hookshot install` and `uninstall`: register hookshot as an agent's hook
//! for every event the agent has, in the agent's own settings file, and
//! take it out again. `--import` moves the hooks the agent already had into
//! hookshot's own settings, so they run once, under hookshot's supervision,
//! trust and failure policy.
//!
//! The first install keeps the file as it was (`FILE.hookshot-backup`, or
//! `FILE.hookshot-absent` when there was none); uninstall puts it back byte
//! for byte when nothing else changed since, and otherwise removes only
//! hookshot's entries.

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use hookshot::{Dialect, EventKind, FailPolicy};
use hookshot_registry::IMPORTED_DIR;
use serde_json::{Map, Value, json};

use crate::Fail;
use crate::load::{Sources, build, config_home, trust_store_path};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Agent {
    /// Claude Code (`.claude/settings.json`).
    Claude,
    /// gemini-cli (`.gemini/settings.json`).
    Gemini,
    /// OpenAI Codex (`.codex/hooks.json`).
    Codex,
}

/// The events Codex runs hooks for (its `hooks.json` takes Claude Code's
/// names).
const CODEX_EVENTS: [&str; 5] = ["SessionStart", "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"];

/// How long the agent waits for `hookshot fire`: longer than any hook's own
/// deadline inside it, so hookshot, not the agent, decides what a slow hook
/// means (Claude Code and Codex count seconds, gemini-cli milliseconds).
const AGENT_TIMEOUT_S: u64 = 600;

impl Agent {
    fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Gemini => "gemini",
            Agent::Codex => "codex",
        }
    }

    /// The agent's settings file holding hooks, for the user or a project.
    fn settings_file(self, scope: &Scope) -> PathBuf {
        let (dir, file) = match self {
            Agent::Claude => (".claude", "settings.json"),
            Agent::Gemini => (".gemini", "settings.json"),
            Agent::Codex => (".codex", "hooks.json"),
        };
        scope.root().join(dir).join(file)
    }

    /// The events hookshot registers for, in the agent's names. Claude
    /// Code's WorktreeCreate and WorktreeRemove are left out: a hook there
    /// replaces Claude Code's own git worktree handling, which no
    /// multiplexer should do unasked.
    fn events(self) -> Vec<&'static str> {
        match self {
            Agent::Codex => CODEX_EVENTS.to_vec(),
            Agent::Claude | Agent::Gemini => {
                let d = self.dialect();
                EventKind::ALL
                    .iter()
                    .filter(|e| !matches!(e, EventKind::WorktreeCreate | EventKind::WorktreeRemove))
                    .filter_map(|e| e.name_in(d))
                    .collect()
            }
        }
    }

    fn dialect(self) -> Dialect {
        match self {
            Agent::Gemini => Dialect::Gemini,
            Agent::Claude | Agent::Codex => Dialect::Claude,
        }
    }

    /// Where `--import` puts the agent's own hooks.
    fn imported_file(self, scope: &Scope) -> PathBuf {
        let name = format!("{}.json", self.name());
        match scope {
            Scope::User { config, .. } => config.join("hookshot").join(IMPORTED_DIR).join(name),
            Scope::Project(p) => p.join(".hookshot").join(IMPORTED_DIR).join(name),
        }
    }

    /// One registration: `hookshot fire EVENT`, no matcher (every target).
    fn entry(self, command: &str) -> Value {
        let timeout = match self {
            Agent::Gemini => AGENT_TIMEOUT_S * 1000,
            Agent::Claude | Agent::Codex => AGENT_TIMEOUT_S,
        };
        let mut hook = json!({"type": "command", "command": command, "timeout": timeout});
        if self == Agent::Gemini {
            hook["name"] = json!("hookshot");
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
}

/// Which agent's file, and where.
#[derive(clap::Args, Debug)]
pub(crate) struct Place {
    /// The agent.
    #[arg(long, value_enum)]
    agent: Agent,
    /// The user's settings (~/.claude, ~/.gemini, ~/.codex): the default.
    #[arg(long, conflicts_with = "project")]
    user: bool,
    /// The project's settings (the current directory, or --workdir).
    #[arg(long)]
    project: bool,
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
}

#[derive(clap::Args, Debug)]
pub(crate) struct UninstallArgs {
    #[command(flatten)]
    place: Place,
}

fn scope(project: bool, workdir: Option<&Path>) -> Result<Scope, Fail> {
    if project {
        let dir = workdir.unwrap_or(Path::new("."));
        let dir = std::fs::canonicalize(dir).map_err(|e| Fail::Usage(format!("{}: {e}", dir.display())))?;
        return Ok(Scope::Project(dir));
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
        .ok_or_else(|| Fail::Usage("install: HOME is not set; use --project".into()))?;
    let config = config_home().unwrap_or_else(|| home.join(".config"));
    Ok(Scope::User { home, config })
}

/// This very program, by absolute path (an agent's PATH is not the
/// shell's), quoted for the agent's shell: the commands the agent runs are
/// `PROGRAM fire EVENT`.
fn this_program() -> Result<String, Fail> {
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| Fail::Usage(format!("cannot find this program: {e}")))?;
    let exe = exe.to_string_lossy();
    let quoted = if exe.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c)) {
        exe.into_owned()
    } else {
        format!("'{}'", exe.replace('\'', r"'\''"))
    };
    Ok(quoted)
}

/// What the agent's shell runs for `event`: hookshot, and when hookshot
/// itself cannot answer (its binary gone or not executable, killed, or an
/// input or settings file it cannot read: any exit but 0 and 2), an answer
/// the agent shows: a block with the reason under the closed failure
/// policy, a `systemMessage` warning under the open one. Run directly, a
/// vanished binary is the shell's exit 127, which every agent reads as a
/// non-blocking error kept out of sight: the guards imported into hookshot
/// would stop without a word.
fn registered_command(program: &str, event: &str, on_failure: FailPolicy, warm: bool) -> String {
    let warm = if warm { "--warm " } else { "" };
    let run = format!("P={program}; \"$P\" fire {warm}{event}; s=$?; case $s in 0|2) exit $s;; esac; ");
    let what = format!("hookshot fire {event} failed (exit %s), so the hooks it runs did not run");
    let fix = "reinstall hookshot or run hookshot uninstall";
    match on_failure {
        FailPolicy::Closed => format!(
            "{run}printf '{what}: blocked by the closed failure policy ({fix}; hookshot was %s)\\n' $s \"$P\" >&2; exit 2"
        ),
        FailPolicy::Open => format!("{run}printf '{{\"systemMessage\":\"{what} ({fix})\"}}\\n' $s; exit 0"),
    }
}

/// How a registration `install` wrote answers when hookshot cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Guarded {
    /// `PROGRAM fire EVENT` as older versions wrote it: the agent hides
    /// the failure.
    Silently,
    /// A warning the agent shows; the event goes on.
    Warns,
    /// The event is blocked.
    Blocks,
}

/// Whether a hook entry is one `install` wrote, and which form: the
/// program is named `hookshot`, and the command is exactly what `install`
/// writes for it, so a user's own wrapper is never taken for ours.
fn ours(hook: &Value) -> Option<(Guarded, &str)> {
    let cmd = hook.get("command").and_then(Value::as_str)?.trim();
    let named = |program: &str| {
        Path::new(&unquote(program))
            .file_name()
            .is_some_and(|n| n == "hookshot")
    };
    if let Some(rest) = cmd.strip_prefix("P=") {
        let (program, tail) = rest.split_once("; \"$P\" fire ")?;
        let (warm, tail) = tail.strip_prefix("--warm ").map_or((false, tail), |t| (true, t));
        let event = tail.split(';').next()?;
        return [
            (FailPolicy::Closed, Guarded::Blocks),
            (FailPolicy::Open, Guarded::Warns),
        ]
        .into_iter()
        .find(|(p, _)| named(program) && registered_command(program, event, *p, warm) == cmd)
        .map(|(_, g)| (g, program));
    }
    let (program, rest) = cmd.rsplit_once(" fire ")?;
    (named(program) && !rest.contains(char::is_whitespace)).then_some((Guarded::Silently, program))
}

fn is_ours(hook: &Value) -> bool {
    ours(hook).is_some()
}

/// A settings file read: its JSON object, and its bytes (`None` when there
/// is no file).
type Read = (Map<String, Value>, Option<Vec<u8>>);

/// Reads the agent's file.
fn read(path: &Path) -> Result<Read, Fail> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Map::new(), None)),
        Err(e) => return Err(Fail::Usage(format!("{}: cannot read: {e}", path.display()))),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok((Map::new(), Some(bytes)));
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(m)) => Ok((m, Some(bytes))),
        Ok(_) => Err(Fail::Usage(format!(
            "{}: not a JSON object; nothing was changed",
            path.display()
        ))),
        Err(e) => Err(Fail::Usage(format!(
            "{}:{}:{}: {e}; nothing was changed",
            path.display(),
            e.line(),
            e.column()
        ))),
    }
}

/// Writes by rename, so the agent never reads half a file.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Fail> {
    let fail = |e: std::io::Error| Fail::Usage(format!("{}: cannot write: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let tmp = path.with_extension("hookshot-tmp");
    std::fs::write(&tmp, bytes).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

fn pretty(doc: &Map<String, Value>) -> Vec<u8> {
    let mut s = serde_json::to_string_pretty(doc).unwrap_or_default();
    s.push('\n');
    s.into_bytes()
}

fn side(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Takes the agent's own hook groups out of `doc` (hookshot's entries
/// stay): event name → groups.
fn take_theirs(doc: &mut Map<String, Value>) -> Map<String, Value> {
    let mut theirs = Map::new();
    let Some(Value::Object(hooks)) = doc.get_mut("hooks") else {
        return theirs;
    };
    for (event, groups) in hooks.iter_mut() {
        let Value::Array(groups) = groups else { continue };
        let (ours, others): (Vec<Value>, Vec<Value>) = std::mem::take(groups).into_iter().partition(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hs| !hs.is_empty() && hs.iter().all(is_ours))
        });
        *groups = ours;
        if !others.is_empty() {
            theirs.insert(event.clone(), Value::Array(others));
        }
    }
    theirs
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
            return true;
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

pub(crate) fn install(args: InstallArgs) -> Result<u8, Fail> {
    let scope = scope(args.place.project, args.place.workdir.as_deref())?;
    let agent = args.place.agent;
    let path = agent.settings_file(&scope);
    let (mut doc, original) = read(&path)?;
    let before = doc.clone();
    if args.import {
        let theirs = take_theirs(&mut doc);
        if !theirs.is_empty() {
            import(agent, &scope, theirs)?;
        }
    }
    let hooks = doc.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(Fail::Usage(format!(
            "{}: \"hooks\" is not an object; nothing was changed",
            path.display()
        )));
    };
    let policy = policy_for(&scope)?;
    let program = this_program()?;
    let mut added = 0;
    for event in agent.events() {
        let command = registered_command(&program, event, policy, args.warm);
        let groups = hooks.entry(event).or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else {
            return Err(Fail::Usage(format!(
                "{}: hooks.{event} is not a list; nothing was changed",
                path.display()
            )));
        };
        let present = groups
            .iter()
            .filter_map(|g| g.get("hooks").and_then(Value::as_array))
            .flatten()
            .any(|h| h.get("command").and_then(Value::as_str) == Some(command.as_str()));
        if !present {
            // An older registration (another program path, another
            // policy) is replaced, never run twice.
            remove_ours_from(groups);
            groups.push(agent.entry(&command));
            added += 1;
        }
    }
    if doc == before {
        println!(
            "{}: hookshot is already registered for all {} events; nothing changed",
            path.display(),
            agent.events().len()
        );
        return Ok(0);
    }
    // The file as it was before hookshot first touched it.
    let (backup, absent) = (side(&path, ".hookshot-backup"), side(&path, ".hookshot-absent"));
    if !backup.exists() && !absent.exists() {
        match &original {
            Some(bytes) => write_atomic(&backup, bytes)?,
            None => write_atomic(&absent, b"")?,
        }
    }
    write_atomic(&path, &pretty(&doc))?;
    println!(
        "{}: hookshot registered for {added} event(s) ({} in all); the file as it was is kept beside it for `hookshot uninstall --agent {}`",
        path.display(),
        agent.events().len(),
        agent.name()
    );
    match policy {
        FailPolicy::Closed => {
            println!("if hookshot itself cannot run, {agent} blocks the event (closed failure policy)")
        }
        FailPolicy::Open => println!(
            "if hookshot itself cannot run, {agent} shows a warning and goes on (open failure policy; with \"hooksConfig\": {{\"onFailure\": \"closed\"}} in hookshot's settings, run install again to block instead)"
        ),
    }
    Ok(0)
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

/// Adds the agent's own hook groups to hookshot's imported file for it
/// (nothing already there twice); a project's file is trusted as it is
/// now: the user moved hooks that already ran.
fn import(agent: Agent, scope: &Scope, theirs: Map<String, Value>) -> Result<(), Fail> {
    let file = agent.imported_file(scope);
    let (mut doc, _) = read(&file)?;
    let n = merge_groups(&mut doc, theirs)
        .ok_or_else(|| Fail::Usage(format!("{}: \"hooks\" is not an object", file.display())))?;
    let bytes = pretty(&doc);
    write_atomic(&file, &bytes)?;
    println!("{}: imported {n} hook group(s) from {}", file.display(), agent.name());
    if let Scope::Project(project) = scope {
        let store = trust_store_path()
            .ok_or_else(|| Fail::Usage("cannot locate the trust store (set HOME or XDG_CONFIG_HOME)".into()))?;
        let mut store = hookshot::TrustStore::open(store).map_err(|e| Fail::Usage(e.to_string()))?;
        let source = hookshot::Source::new(&file, hookshot::SourceKind::Project);
        let source = hookshot::Source {
            scope: Some(project.clone()),
            ..source
        };
        let parsed = source.parse(bytes.clone()).map_err(|e| Fail::Settings(e.to_string()))?;
        let (scope_dir, rel) = source.trust_key();
        let covers = hookshot_registry::covered_files(&scope_dir, project, &parsed);
        store.trust(&scope_dir, &rel, &bytes, covers);
        store.save().map_err(|e| Fail::Usage(e.to_string()))?;
        println!(
            "{}: trusted as it is now (it holds hooks the project already ran)",
            file.display()
        );
    }
    Ok(())
}

pub(crate) fn uninstall(args: UninstallArgs) -> Result<u8, Fail> {
    let scope = scope(args.place.project, args.place.workdir.as_deref())?;
    let agent = args.place.agent;
    let path = agent.settings_file(&scope);
    let (mut doc, _) = read(&path)?;
    let (backup, absent) = (side(&path, ".hookshot-backup"), side(&path, ".hookshot-absent"));
    let removed = remove_ours(&mut doc);
    // What --import moved out goes back where it came from.
    let imported = agent.imported_file(&scope);
    let (theirs, had_import) = match read(&imported)? {
        (doc, Some(_)) => (
            doc.get("hooks").and_then(Value::as_object).cloned().unwrap_or_default(),
            true,
        ),
        (_, None) => (Map::new(), false),
    };
    let returned = if theirs.is_empty() {
        0
    } else {
        merge_groups(&mut doc, theirs).ok_or_else(|| {
            Fail::Usage(format!(
                "{}: \"hooks\" is not an object; nothing was changed",
                path.display()
            ))
        })?
    };
    if removed == 0 && !had_import {
        println!("{}: hookshot is not registered there; nothing changed", path.display());
        return Ok(0);
    }
    let done = |what: String| -> Result<u8, Fail> {
        if had_import {
            std::fs::remove_file(&imported).map_err(|e| Fail::Usage(format!("{}: {e}", imported.display())))?;
            println!(
                "{}: its {returned} hook group(s) are back in {}",
                imported.display(),
                path.display()
            );
        }
        println!("{what}");
        Ok(0)
    };
    if absent.exists() && doc.is_empty() {
        if path.exists() {
            std::fs::remove_file(&path).map_err(|e| Fail::Usage(format!("{}: {e}", path.display())))?;
        }
        let _ = std::fs::remove_file(&absent);
        return done(format!("{}: removed (hookshot had created it)", path.display()));
    }
    // Nothing but hookshot's changes since install: the file goes back
    // byte for byte.
    if let Ok(bytes) = std::fs::read(&backup) {
        let was = if bytes.iter().all(u8::is_ascii_whitespace) {
            Some(Map::new())
        } else {
            serde_json::from_slice::<Map<String, Value>>(&bytes).ok()
        };
        let same = was.is_some_and(|mut was| {
            remove_ours(&mut was);
            was == doc
        });
        if same {
            write_atomic(&path, &bytes)?;
            let _ = std::fs::remove_file(&backup);
            return done(format!(
                "{}: restored exactly as it was before hookshot",
                path.display()
            ));
        }
    }
    write_atomic(&path, &pretty(&doc))?;
    let _ = std::fs::remove_file(&absent);
    let kept = if backup.exists() {
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
    /// Registered programs that are not there (or not executable) now.
    pub(crate) missing: Vec<String>,
}

/// Where hookshot is registered for `agent` in the user's files or a
/// project's; `None` when it is not.
pub(crate) fn registration(agent: Agent, project: Option<&Path>) -> Option<Registration> {
    let scope = match project {
        Some(p) => Scope::Project(p.to_path_buf()),
        None => scope(false, None).ok()?,
    };
    let file = agent.settings_file(&scope);
    let (doc, bytes) = read(&file).ok()?;
    bytes?;
    let hooks = doc.get("hooks").and_then(Value::as_object)?;
    let all = agent.events();
    let mut r = Registration {
        file: file.clone(),
        events: 0,
        all: all.len(),
        guarded: Guarded::Blocks,
        missing: Vec::new(),
    };
    for e in &all {
        let found: Vec<_> = hooks
            .get(*e)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|g| g.get("hooks").and_then(Value::as_array))
            .flatten()
            .filter_map(ours)
            .collect();
        r.events += usize::from(!found.is_empty());
        for (guarded, program) in found {
            r.guarded = r.guarded.min(guarded);
            let program = unquote(program);
            if !is_executable(Path::new(&program)) && !r.missing.contains(&program) {
                r.missing.push(program);
            }
        }
    }
    (r.events > 0).then_some(r)
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

pub(crate) const AGENTS: [Agent; 3] = [Agent::Claude, Agent::Gemini, Agent::Codex];

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookshot_registry::IMPORTED;

    #[test]
    fn only_hookshot_fire_commands_are_ours() {
        let h = |c: &str| json!({"type": "command", "command": c});
        assert!(is_ours(&h("/usr/local/bin/hookshot fire PreToolUse")));
        assert!(is_ours(&h("'/home/a b/hookshot' fire BeforeTool")));
        assert!(!is_ours(&h("/usr/bin/hookshot-like fire PreToolUse")));
        assert!(!is_ours(&h("sh guard.sh fire PreToolUse")));
        assert!(!is_ours(&h("hookshot fire PreToolUse --settings x.json")));
        for (policy, warm) in [FailPolicy::Open, FailPolicy::Closed]
            .into_iter()
            .flat_map(|p| [(p, false), (p, true)])
        {
            let cmd = registered_command("'/a b/hookshot'", "Stop", policy, warm);
            assert!(is_ours(&h(&cmd)), "{cmd}");
            assert_eq!(cmd.contains("fire --warm Stop;"), warm, "{cmd}");
            // A user's own variation of it is theirs.
            assert!(!is_ours(&h(&cmd.replace("exit $s;;", "exit 0;;"))), "{cmd}");
            assert!(!is_ours(&h(&cmd.replace("hookshot'", "hookshot2'"))), "{cmd}");
        }
    }

    #[test]
    fn a_registration_answers_for_hookshot_when_it_cannot_run() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("hookshot").display().to_string();
        let run = |policy| {
            std::process::Command::new("sh")
                .args(["-c", &registered_command(&gone, "BeforeTool", policy, false)])
                .output()
                .unwrap()
        };
        let out = run(FailPolicy::Open);
        assert_eq!(out.status.code(), Some(0));
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            answer["systemMessage"].as_str().unwrap().contains("(exit 127)"),
            "{answer}"
        );
        let out = run(FailPolicy::Closed);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(&format!("hookshot was {gone}")), "{stderr}");
        // hookshot's own answers pass through as they are.
        let here = dir.path().join("hookshot");
        std::fs::write(&here, "#!/bin/sh\necho '{\"decision\":\"deny\"}'; exit 2\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&here, std::fs::Permissions::from_mode(0o755)).unwrap();
        for policy in [FailPolicy::Open, FailPolicy::Closed] {
            let out = run(policy);
            assert_eq!(out.status.code(), Some(2));
            assert_eq!(out.stdout, b"{\"decision\":\"deny\"}\n");
            assert!(out.stderr.is_empty());
        }
    }

    #[test]
    fn every_agent_event_name_is_known() {
        for agent in AGENTS {
            for e in agent.events() {
                assert!(EventKind::parse(e).is_some(), "{agent}: {e}");
            }
        }
        assert!(!Agent::Claude.events().contains(&"WorktreeCreate"));
        assert!(Agent::Gemini.events().contains(&"BeforeTool"));
    }

    #[test]
    fn each_agent_imports_into_a_file_discovery_reads_in_its_dialect() {
        let scope = Scope::Project(PathBuf::from("/p"));
        for agent in AGENTS {
            let file = agent.imported_file(&scope);
            let name = file.file_name().and_then(|n| n.to_str()).unwrap();
            assert_eq!(
                IMPORTED.iter().find(|(n, _)| *n == name).map(|(_, d)| *d),
                Some(agent.dialect()),
                "{agent}"
            );
        }
    }
}
