//! hookshot registry: where users' settings meet the engine.
//!
//! Sources are read in precedence order, lowest first: builtin, system,
//! user, project, extension, session, then files named on the command line
//! (each later `--settings` file above the one before). A later source
//! overrides an earlier one: its `hooksConfig.enabled` / `disableAllHooks`
//! wins, and sequential chains run in this order. Project and extension
//! hooks run only when trusted.
//!
//! Commands are not expanded here: hooks run under `bash -c` with
//! `GEMINI_PROJECT_DIR`, `CLAUDE_PROJECT_DIR` and the rest of the
//! environment set, so `$GEMINI_PROJECT_DIR` and `${VAR}` expand exactly as a
//! shell user expects.

mod discover;
mod error;
pub mod gitleaks;
mod http_policy;
mod mcp;
mod position;
mod read;
mod schema;
mod settings;
mod toml;
mod trust;
mod yaml;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hookshot_core::agent::IMPORTED_DIR;
use hookshot_core::{Agent, Dialect, FailPolicy, HookDef, SourceKind};
use serde_json::Value;

pub use discover::{claude_plugins, discover, system_dirs};
use discover::{expand_extension_path, plugin_data_dir};
pub use error::{Diagnostic, Error};
use http_policy::HttpPolicy;
pub use mcp::McpServerDef;
pub use position::Positions;
pub use read::{MAX_SETTINGS_BYTES, ReadError, read_capped, read_settings, sha256_hex};
pub use schema::schema;
pub use settings::{
    AUDIT_KEEP, AUDIT_MAX_BYTES, BUILTIN_OPTIONS, BUILTINS, BuiltinOption, BuiltinSetting, MAX_TIMEOUT_SECS, Merge,
    OptionKind, RegexFlavour, SettingsFile, blank_comments, builtin_option, builtin_options, compile_matcher,
    flavour_of, parse,
};
pub use trust::{
    ABSENT, CommandFiles, CommandPaths, Covers, MAX_COVERED_FILES, TrustEntry, TrustError, TrustStore, covered_files,
    hook_folders, process_files,
};

/// One settings file to read, and the kind of source it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    /// Its kind (decides precedence and whether trust is needed).
    pub kind: SourceKind,
    /// For sources that need trust: the folder an approval is bound to
    /// (the project root, or the user's hookshot folder for user
    /// extensions). `None` binds it to the file's own folder.
    pub scope: Option<PathBuf>,
    /// The dialect to read it in, when the user named it (`--dialect`);
    /// otherwise the file's place decides ([`Source::dialect`]), then its
    /// content.
    pub dialect: Option<Dialect>,
    /// For an extension: the workspace its `${workspacePath}` names; for
    /// `~/.claude.json`: the project whose own MCP servers it may hold.
    pub workspace: Option<PathBuf>,
}

impl Source {
    /// A source with no trust scope of its own.
    pub fn new(path: impl Into<PathBuf>, kind: SourceKind) -> Source {
        Source {
            path: path.into(),
            kind,
            scope: None,
            dialect: None,
            workspace: None,
        }
    }

    /// The dialect the file is read in, when known before reading it: as
    /// the user named it, else as its place says (`.claude/`, a Claude Code
    /// plugin's `hooks/hooks.json` and Codex's `.codex/hooks.json`, which
    /// has Claude Code's format, are read as Claude Code's; `.gemini/` and
    /// `gemini-extension.json` gemini-cli's; `hooks.yaml` and `.jcli/`
    /// jcli's). `None`: the content decides.
    pub fn dialect(&self) -> Option<Dialect> {
        if self.dialect.is_some() {
            return self.dialect;
        }
        let name = self.path.file_name()?.to_str()?;
        let dir = self.path.parent().and_then(Path::file_name).and_then(|d| d.to_str());
        // Copilot CLI's folders hold its camelCase files and Claude
        // Code's format side by side, event by event.
        if Agent::Copilot.owns_file(&self.path) {
            return Some(Dialect::Copilot);
        }
        // Any file in Claude Code's or gemini-cli's folder is theirs (a
        // user names `.claude/other.json` to try it); Codex's folder holds
        // more than hooks (`auth.json`), so only its hook files are read.
        let by_folder = Agent::ALL
            .into_iter()
            .find(|a| dir == Some(a.folder()) && (a.owns_its_folder() || a.owns_file(&self.path)));
        if let Some(agent) = by_folder {
            return Some(agent.dialect());
        }
        match (dir, name) {
            (_, "gemini-extension.json") => Some(Dialect::Gemini),
            // What `hookshot install --import` moved out of an agent's file.
            (Some(IMPORTED_DIR), _) if self.in_hookshot_dir() => Agent::of_imported(name).map(Agent::dialect),
            (_, "hooks.yaml" | "hooks.yml") => Some(Dialect::Jcli),
            (Some("hooks"), "hooks.json") if self.plugin_root().is_some() => Some(Dialect::Claude),
            _ => None,
        }
    }

    /// Whether the file is in `hookshot/imported/` or `.hookshot/imported/`
    /// (not in any folder that happens to be called `imported`).
    fn in_hookshot_dir(&self) -> bool {
        let owner = self.path.parent().and_then(Path::parent).and_then(Path::file_name);
        owner.is_some_and(|d| d == "hookshot" || d == ".hookshot")
    }

    /// For a Claude Code plugin's `hooks/hooks.json` (a folder with
    /// `.claude-plugin/plugin.json`): the plugin's root folder.
    pub fn plugin_root(&self) -> Option<PathBuf> {
        if self.path.file_name()? != "hooks.json" {
            return None;
        }
        let hooks = self.path.parent()?;
        let root = hooks.parent()?;
        (hooks.file_name()? == "hooks" && root.join(".claude-plugin").join("plugin.json").is_file())
            .then(|| root.to_path_buf())
    }

    /// The folders an approval of this file covers whole besides the
    /// project's hook folders: a Claude Code plugin's root, an extension's
    /// own folder (its scripts and shared code live there).
    pub fn own_folders(&self) -> Vec<PathBuf> {
        let extension = (self.kind == SourceKind::Extension).then(|| discover::extension_dir(&self.path).to_path_buf());
        self.plugin_root().into_iter().chain(extension).collect()
    }

    /// Whether it is a file of MCP servers only (`.mcp.json`,
    /// `~/.claude.json`), which defines no hook.
    pub fn servers_only(&self) -> bool {
        self.path
            .file_name()
            .is_some_and(|n| n == ".mcp.json" || n == ".claude.json")
    }

    /// What its place says about the file before it is read.
    fn context(&self) -> settings::Context {
        let dialect = self.dialect();
        let plugin = (dialect == Some(Dialect::Claude))
            .then(|| self.plugin_root())
            .flatten()
            .map(|root| {
                let data = plugin_data_dir(&root);
                (root, data)
            });
        let plugin_options = match (&plugin, hookshot_core::paths::home()) {
            (Some((root, _)), Some(home)) => discover::plugin_options(&home, root),
            _ => Vec::new(),
        };
        settings::Context {
            dialect,
            plugin,
            plugin_options,
            project: self.workspace.clone(),
        }
    }

    /// The file's bytes, read with the settings limits ([`read_settings`]).
    pub fn read(&self) -> Result<Vec<u8>, Error> {
        read_settings(&self.path).map_err(|source| Error::Read {
            path: self.path.clone(),
            source,
        })
    }

    /// Parses bytes [`Source::read`] returned: UTF-8, then an extension's
    /// `${extensionPath}`, then the settings themselves. Loading, `hookshot
    /// trust` and `validate` all read a file this one way.
    pub fn parse(&self, bytes: Vec<u8>) -> Result<SettingsFile, Error> {
        self.parse_text(&self.text_of(bytes)?)
    }

    fn parse_text(&self, text: &str) -> Result<SettingsFile, Error> {
        settings::parse_with(&self.path, text, self.kind, &self.context())
    }

    /// The guards a file that does not parse turns on, as far as they can
    /// be read ([`settings::salvage_guards`]): a typo in a guard's options
    /// must not switch the guard off.
    fn salvage_guards(&self, text: &str) -> Vec<BuiltinSetting> {
        settings::salvage_guards(&self.path, text, self.kind, &self.context())
    }

    /// The settings text of the file's bytes: UTF-8, a BOM read past, an
    /// extension's `${extensionPath}` filled in.
    fn text_of(&self, bytes: Vec<u8>) -> Result<String, Error> {
        let text = String::from_utf8(bytes).map_err(|e| {
            let offset = e.utf8_error().valid_up_to();
            Error::NotUtf8 {
                path: self.path.clone(),
                line: e.as_bytes()[..offset].iter().filter(|b| **b == b'\n').count() + 1,
                offset,
            }
        })?;
        // A BOM (Windows editors write one) is not part of the settings.
        let text = match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => text,
        };
        let text = if self.kind == SourceKind::Extension {
            expand_extension_path(&self.path, self.workspace.as_deref(), &text).map_err(|message| {
                Error::Invalid(vec![Diagnostic {
                    at: hookshot_core::Provenance {
                        file: Some(self.path.clone()),
                        ..hookshot_core::Provenance::default()
                    },
                    message,
                }])
            })?
        } else {
            text
        };
        Ok(text)
    }

    /// The folder trust is bound to (canonical), and the file's path inside
    /// it as discovered, not where a symlink leads: that is what makes an
    /// approval borrowed from another project not apply.
    pub fn trust_key(&self) -> (PathBuf, PathBuf) {
        let given = self
            .scope
            .clone()
            .or_else(|| self.path.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        let scope = std::fs::canonicalize(&given).unwrap_or_else(|_| given.clone());
        let rel = self
            .path
            .strip_prefix(&given)
            .or_else(|_| self.path.strip_prefix(&scope))
            .map_or_else(|_| self.path.clone(), Path::to_path_buf);
        (scope, rel)
    }
}

/// Why a defined hook does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skipped {
    /// Its project or extension is not trusted (or changed since trusted).
    Untrusted,
    /// Listed in a `disabled` list, or all hooks are disabled: by which
    /// file and how.
    Disabled(String),
}

/// A file that was read.
#[derive(Debug, Clone)]
pub struct LoadedSource {
    /// Where from.
    pub source: Source,
    /// The dialect detected.
    pub dialect: Option<Dialect>,
    /// Whether its hooks may run.
    pub trusted: bool,
}

/// A settings source whose hooks do not run, and why. Each one is a warning
/// the user sees, and a block under the `closed` failure policy.
#[derive(Debug, Clone)]
pub struct SourceProblem {
    /// The file.
    pub source: Source,
    /// What kind of problem.
    pub kind: ProblemKind,
    /// The whole message, naming the file.
    pub message: String,
}

/// The kinds of [`SourceProblem`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// Needs trust and is not trusted (it was not parsed).
    Untrusted,
    /// Could not be read or parsed.
    Broken,
    /// A file of MCP servers only (`.mcp.json`, `~/.claude.json`) could
    /// not be read or parsed. It guards nothing itself, so it is shown but
    /// never a block; a hook that calls one of its servers fails (and
    /// blocks under the closed policy) when it would run.
    Servers,
}

/// The effective hooks of all sources.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    hooks: Vec<Arc<HookDef>>,
    skipped: Vec<(Arc<HookDef>, Skipped)>,
    warnings: Vec<Diagnostic>,
    builtins: Vec<BuiltinSetting>,
    loaded: Vec<LoadedSource>,
    problems: Vec<SourceProblem>,
    policy: FailPolicy,
    /// The trusted files that ask for the closed policy.
    closed_by: Vec<PathBuf>,
    /// The approvals the files that needed trust were loaded under, by
    /// file: checked again right before their hooks run.
    approvals: Approvals,
}

/// The approvals one load's files were trusted under, to check again at
/// the moment their hooks start ([`Approvals::recheck`]). Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Approvals(Arc<Vec<(PathBuf, TrustEntry)>>);

impl Approvals {
    /// Checks again, now, the approval a file's hooks were loaded under
    /// (its bytes and every file it covers): a script swapped between the
    /// load and the run must not run under it. `Ok` for a file that needed
    /// no approval.
    pub fn recheck(&self, file: &Path) -> Result<(), String> {
        let Some((path, entry)) = self.0.iter().find(|(p, _)| p == file) else {
            return Ok(());
        };
        let bytes = read_settings(path).map_err(|e| format!("it cannot be read again ({e})"))?;
        entry
            .holds(&bytes)
            .map_err(|why| format!("{} is not trusted any more: it {why}", path.display()))
    }
}

/// Which untrusted sources may run anyway.
#[derive(Debug, Clone, Default)]
pub struct TrustPolicy {
    /// Trust the project's own settings for this run (`--trust-project`).
    pub trust_project: bool,
    /// The trust store to consult, if any.
    pub store: Option<TrustStore>,
    /// Why the trust store could not be opened, if it could not: every
    /// source that needs trust is then untrusted, and this says why.
    pub store_error: Option<String>,
    /// Where the store is, also when it could not be opened, so that it
    /// can be read again ([`TrustPolicy::reopened`]).
    pub store_path: Option<PathBuf>,
}

impl TrustPolicy {
    /// The policy with the store at `path` as it is now: a store that
    /// cannot be read trusts nothing, and every source that needs trust
    /// says why.
    pub fn from_store(path: Option<PathBuf>, trust_project: bool) -> TrustPolicy {
        let (store, store_error) = match path.clone().map(TrustStore::open) {
            Some(Ok(s)) => (Some(s), None),
            Some(Err(e)) => (None, Some(e.to_string())),
            None => (None, Some("no trust store: set HOME or XDG_CONFIG_HOME".into())),
        };
        TrustPolicy {
            trust_project,
            store,
            store_error,
            store_path: path,
        }
    }

    /// Where the store is, if there is one.
    pub fn path(&self) -> Option<&Path> {
        self.store_path.as_deref().or(self.store.as_ref().map(TrustStore::path))
    }

    /// This policy with its store read again: an approval given or revoked
    /// since holds from now on. A policy without a store stays as it is.
    pub fn reopened(&self) -> TrustPolicy {
        match self.path() {
            Some(path) => TrustPolicy::from_store(Some(path.to_path_buf()), self.trust_project),
            None => self.clone(),
        }
    }
}

impl Registry {
    /// Reads every source. A source that needs trust is hashed and checked
    /// before anything else is done with it: an untrusted one is never
    /// parsed. A source that cannot be read or parsed is reported in
    /// [`Registry::problems`] and the others load as usual, so one broken
    /// file never switches off the hooks of another.
    pub fn load(sources: &[Source], trust: &TrustPolicy) -> Registry {
        let mut ordered: Vec<&Source> = sources.iter().collect();
        ordered.sort_by_key(|s| s.kind);
        let mut files = Vec::with_capacity(ordered.len());
        let mut problems = Vec::new();
        let mut untrusted_servers = Vec::new();
        let mut approvals = Vec::new();
        let mut salvaged = Vec::new();
        for s in ordered {
            let broken = |message: String| SourceProblem {
                source: s.clone(),
                kind: ProblemKind::Broken,
                message,
            };
            let servers_only = s.servers_only();
            let mut broken_file = |e: Error| {
                problems.push(if servers_only {
                    SourceProblem {
                        kind: ProblemKind::Servers,
                        message: format!("{e} (its MCP servers are not loaded)"),
                        ..broken(String::new())
                    }
                } else {
                    broken(e.to_string())
                });
            };
            let bytes = match s.read() {
                Ok(b) => b,
                Err(e) => {
                    broken_file(e);
                    continue;
                }
            };
            if s.kind.needs_trust() && !trust.trust_project {
                let verdict = match (&trust.store, &trust.store_error) {
                    (_, Some(err)) => Err(format!("cannot be checked: {err}")),
                    (Some(store), None) => {
                        let (scope, rel) = s.trust_key();
                        let verdict = store.check(&scope, &rel, &bytes);
                        if let (Ok(()), Some(entry)) = (&verdict, store.approval(&scope, &rel)) {
                            approvals.push((s.path.clone(), entry.clone()));
                        }
                        verdict
                    }
                    (None, None) => Err("was never trusted".into()),
                };
                if let Err(why) = verdict {
                    // Hooks that call its servers say it is untrusted when
                    // they would run.
                    if servers_only {
                        untrusted_servers.push(s.path.clone());
                        continue;
                    }
                    problems.push(SourceProblem {
                        source: s.clone(),
                        kind: ProblemKind::Untrusted,
                        message: format!(
                            "{}: {} hook settings are not trusted ({why}); their hooks do not run (review them, then run `hookshot trust`)",
                            s.path.display(),
                            s.kind
                        ),
                    });
                    continue;
                }
            }
            // The text that was checked is the one read, for the guards of
            // a broken file too.
            let parsed = s.text_of(bytes).map(|text| {
                let parsed = s.parse_text(&text);
                if parsed.is_err() {
                    salvaged.extend(s.salvage_guards(&text));
                }
                parsed
            });
            match parsed.and_then(|p| p) {
                Ok(parsed) => files.push((s.clone(), parsed, true)),
                Err(e) => broken_file(e),
            }
        }
        let mut reg = Registry::combine(files, &untrusted_servers);
        // A trusted file's guards stay on when the file is broken (merged
        // tighten-only, as every file's built-ins are); the file itself is
        // reported, and blocks under the closed policy.
        for guard in salvaged {
            reg.merge_builtin(guard);
        }
        reg.problems = problems;
        reg.approvals = Approvals(Arc::new(approvals));
        reg
    }

    /// The approvals this load's files were trusted under.
    pub fn approvals(&self) -> &Approvals {
        &self.approvals
    }

    /// Combines parsed files, given lowest precedence first. System files
    /// are policy: nothing in a lower source (user, project, extension,
    /// command line) disables a system hook or built-in or loosens the
    /// system failure policy.
    pub fn from_files(files: Vec<(Source, SettingsFile, bool)>) -> Registry {
        Registry::combine(files, &[])
    }

    /// [`Registry::from_files`], knowing which files of MCP servers were
    /// left unread as untrusted.
    fn combine(files: Vec<(Source, SettingsFile, bool)>, untrusted_servers: &[PathBuf]) -> Registry {
        let mut reg = Registry::default();
        let is_system = |s: &Source| s.kind == SourceKind::System;
        // The file whose `enabled: false` is the last word, if any.
        let switched_off = |system: bool| {
            files
                .iter()
                .rfind(|(s, f, trusted)| *trusted && is_system(s) == system && f.enabled.is_some())
                .filter(|(_, f, _)| f.enabled == Some(false))
                .map(|(s, _, _)| format!("all hooks are disabled by {} (enabled: false)", s.path.display()))
        };
        let (system_off, others_off) = (switched_off(true), switched_off(false));
        let disabled_by = |system: bool| -> Vec<(String, String)> {
            files
                .iter()
                .filter(|(s, _, trusted)| *trusted && is_system(s) == system)
                .flat_map(|(s, f, _)| {
                    let why = format!("listed in the disabled list of {}", s.path.display());
                    f.disabled.iter().map(move |d| (d.clone(), why.clone()))
                })
                .collect()
        };
        let (system_disabled, others_disabled) = (disabled_by(true), disabled_by(false));
        // The strictest policy any trusted file states: a lower source may
        // tighten it, never loosen it.
        reg.closed_by = files
            .iter()
            .filter(|(_, f, trusted)| *trusted && f.on_failure == Some(FailPolicy::Closed))
            .map(|(s, _, _)| s.path.clone())
            .collect();
        reg.policy = if reg.closed_by.is_empty() {
            FailPolicy::Open
        } else {
            FailPolicy::Closed
        };
        // Built-ins are guards: system files first, then the others in
        // order, each able to tighten what earlier files set, never to
        // switch it off.
        let (system_settings, other_settings): (Vec<_>, Vec<_>) = files
            .iter()
            .filter(|(_, _, trusted)| *trusted)
            .flat_map(|(_, f, _)| f.builtins.iter().cloned())
            .partition(|b| b.source == SourceKind::System);
        for b in system_settings.into_iter().chain(other_settings) {
            reg.merge_builtin(b);
        }
        let http = HttpPolicy::of(&files);
        let servers: Vec<McpServerDef> = files
            .iter()
            .filter(|(_, _, trusted)| *trusted)
            .flat_map(|(_, f, _)| f.mcp_servers.iter().cloned())
            .collect();
        for (source, file, trusted) in files {
            reg.warnings.extend(file.warnings);
            let system = is_system(&source);
            reg.loaded.push(LoadedSource {
                source,
                dialect: file.dialect,
                trusted,
            });
            for mut hook in file.hooks {
                let listed = |list: &[(String, String)]| {
                    list.iter()
                        .find(|(d, _)| Some(d.as_str()) == hook.name.as_deref() || Some(d.as_str()) == hook.command())
                        .map(|(_, why)| why.clone())
                };
                let disabled = if system {
                    system_off.clone().or_else(|| listed(&system_disabled))
                } else {
                    (system_off.clone().or_else(|| others_off.clone()))
                        .or_else(|| listed(&system_disabled))
                        .or_else(|| listed(&others_disabled))
                };
                hook.govern(reg.policy);
                let hook = Arc::new(hook);
                if !trusted {
                    reg.skipped.push((hook, Skipped::Untrusted));
                } else if let Some(why) = disabled {
                    reg.skipped.push((hook, Skipped::Disabled(why)));
                } else {
                    reg.hooks.push(hook);
                }
            }
        }
        reg.hooks = reg
            .hooks
            .into_iter()
            .map(|h| mcp::resolve(http.apply(h), &servers, untrusted_servers))
            .collect();
        reg
    }

    /// Hooks that run, lowest precedence first, file order within a file.
    pub fn hooks(&self) -> &[Arc<HookDef>] {
        &self.hooks
    }

    /// Hooks that are defined but do not run, and why.
    pub fn skipped(&self) -> &[(Arc<HookDef>, Skipped)] {
        &self.skipped
    }

    /// Likely mistakes found while loading.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// Sources whose hooks do not run: untrusted (not parsed) or broken.
    pub fn problems(&self) -> &[SourceProblem] {
        &self.problems
    }

    /// The failure policy in force: `closed` when any trusted file asks for
    /// it (`hooksConfig.onFailure`).
    pub fn failure_policy(&self) -> FailPolicy {
        self.policy
    }

    /// The trusted files that made the policy closed
    /// (`hooksConfig.onFailure: "closed"`), in precedence order.
    pub fn closed_by(&self) -> &[PathBuf] {
        &self.closed_by
    }

    /// The built-ins trusted files turned on, merged: the first file to
    /// turn one on (system files first) sets its options; later files may
    /// make it stricter (a stricter mode, more patterns, more secret
    /// rules files), never switch it off or loosen it.
    pub fn builtins(&self) -> &[BuiltinSetting] {
        &self.builtins
    }

    fn merge_builtin(&mut self, b: BuiltinSetting) {
        let Some(first) = self.builtins.iter_mut().find(|x| x.name == b.name) else {
            if b.on {
                self.builtins.push(b);
            }
            return;
        };
        let name = &b.name;
        let by = first.at.to_string();
        if !b.on {
            self.warnings.push(Diagnostic {
                at: b.at,
                message: format!("cannot switch off the built-in {name}: {by} turned it on, and a guard stays on"),
            });
            return;
        }
        for file in b.rules {
            if !first.rules.iter().any(|r| r.path == file.path) {
                first.rules.push(file);
            }
        }
        for (key, value) in b.options {
            let kept = first.options.get(&key).cloned();
            let Some(option) = settings::builtin_option(name, &key) else {
                continue;
            };
            match (option.merge, &option.kind) {
                (Merge::Stricter, OptionKind::Mode(modes)) => {
                    let rank = |m: Option<&Value>| {
                        m.and_then(Value::as_str)
                            .and_then(|m| modes.iter().position(|x| *x == m))
                    };
                    if rank(Some(&value)) >= rank(kept.as_ref()) {
                        if kept.as_ref() != Some(&value) {
                            first.set_later.push((key.clone(), b.at.clone()));
                        }
                        first.options.insert(key, value);
                    } else {
                        self.warnings.push(Diagnostic {
                            at: b.at.clone(),
                            message: format!(
                                "{name} keeps the stricter mode {} set at {by}",
                                kept.unwrap_or_default()
                            ),
                        });
                    }
                }
                (Merge::Union, _) => {
                    let list = first
                        .options
                        .entry(key.clone())
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if let (Some(list), Some(more)) = (list.as_array_mut(), value.as_array()) {
                        let before = list.len();
                        for p in more {
                            if !list.contains(p) {
                                list.push(p.clone());
                            }
                        }
                        if list.len() > before {
                            first.set_later.push((key.clone(), b.at.clone()));
                        }
                    }
                }
                (Merge::First | Merge::Stricter, _) if kept.as_ref().is_some_and(|k| *k != value) => {
                    self.warnings.push(Diagnostic {
                        at: b.at.clone(),
                        message: format!(
                            "{name} keeps its {key} {} set at {by}; a later file does not change it",
                            kept.unwrap_or_default()
                        ),
                    });
                }
                (Merge::First | Merge::Stricter, _) => {
                    if kept.is_none() {
                        first.set_later.push((key.clone(), b.at.clone()));
                    }
                    first.options.entry(key).or_insert(value);
                }
            }
        }
    }

    /// The files read, in precedence order.
    pub fn loaded(&self) -> &[LoadedSource] {
        &self.loaded
    }
}

#[cfg(test)]
mod tests;
