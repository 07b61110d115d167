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

mod error;
mod position;
mod schema;
mod settings;
mod trust;
mod yaml;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hookshot_core::{Dialect, HookDef, SourceKind};
use serde_json::{Map, Value};

pub use error::{Diagnostic, Error};
pub use position::Positions;
pub use schema::schema;
pub use settings::{BUILTINS, SettingsFile, compile_matcher, parse};
pub use trust::TrustStore;

/// One settings file to read, and the kind of source it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    /// Its kind (decides precedence and whether trust is needed).
    pub kind: SourceKind,
}

/// Why a defined hook does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skipped {
    /// Its project or extension is not trusted (or changed since trusted).
    Untrusted,
    /// Listed in a `disabled` list, or all hooks are disabled.
    Disabled,
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

/// The effective hooks of all sources.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    hooks: Vec<Arc<HookDef>>,
    skipped: Vec<(Arc<HookDef>, Skipped)>,
    warnings: Vec<Diagnostic>,
    builtins: Map<String, Value>,
    loaded: Vec<LoadedSource>,
}

/// Which untrusted sources may run anyway.
#[derive(Debug, Clone, Default)]
pub struct TrustPolicy {
    /// Trust the project's own settings for this run (`--trust-project`).
    pub trust_project: bool,
    /// The trust store to consult, if any.
    pub store: Option<TrustStore>,
}

impl Registry {
    /// Reads every source; the first file with errors stops loading (nothing
    /// runs from a bad configuration).
    pub fn load(sources: &[Source], trust: &TrustPolicy) -> Result<Registry, Error> {
        let mut ordered: Vec<&Source> = sources.iter().collect();
        ordered.sort_by_key(|s| s.kind);
        let mut files = Vec::with_capacity(ordered.len());
        for s in ordered {
            let mut text = std::fs::read_to_string(&s.path).map_err(|source| Error::Read {
                path: s.path.clone(),
                source,
            })?;
            if s.kind == SourceKind::Extension {
                text = expand_extension_path(&s.path, &text);
            }
            let parsed = settings::parse(&s.path, &text, s.kind)?;
            let trusted = !s.kind.needs_trust()
                || trust.trust_project
                || trust.store.as_ref().is_some_and(|t| t.is_trusted(&s.path, &text));
            files.push((s.clone(), parsed, trusted));
        }
        Ok(Registry::from_files(files))
    }

    /// Combines parsed files, given lowest precedence first.
    pub fn from_files(files: Vec<(Source, SettingsFile, bool)>) -> Registry {
        let mut reg = Registry::default();
        let enabled = files
            .iter()
            .rfind(|(_, f, trusted)| *trusted && f.enabled.is_some())
            .and_then(|(_, f, _)| f.enabled)
            .unwrap_or(true);
        let disabled: Vec<String> = files
            .iter()
            .filter(|(_, _, trusted)| *trusted)
            .flat_map(|(_, f, _)| f.disabled.iter().cloned())
            .collect();
        for (source, file, trusted) in files {
            reg.warnings.extend(file.warnings);
            if trusted && let Some(b) = file.builtins {
                reg.builtins.extend(b);
            }
            reg.loaded.push(LoadedSource {
                source,
                dialect: file.dialect,
                trusted,
            });
            for hook in file.hooks {
                let hook = Arc::new(hook);
                let is_disabled = !enabled
                    || disabled
                        .iter()
                        .any(|d| Some(d.as_str()) == hook.name.as_deref() || Some(d.as_str()) == hook.command());
                if !trusted {
                    reg.skipped.push((hook, Skipped::Untrusted));
                } else if is_disabled {
                    reg.skipped.push((hook, Skipped::Disabled));
                } else {
                    reg.hooks.push(hook);
                }
            }
        }
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

    /// The `builtins` objects of trusted files, merged (later files win).
    pub fn builtins(&self) -> &Map<String, Value> {
        &self.builtins
    }

    /// The files read, in precedence order.
    pub fn loaded(&self) -> &[LoadedSource] {
        &self.loaded
    }
}

/// The folder of an extension whose hooks live in `file`.
fn extension_dir(file: &Path) -> &Path {
    let dir = file.parent().unwrap_or(Path::new("."));
    // hooks/hooks.json belongs to the folder above it.
    if file.file_name().is_some_and(|n| n == "hooks.json") && dir.file_name().is_some_and(|n| n == "hooks") {
        dir.parent().unwrap_or(dir)
    } else {
        dir
    }
}

/// gemini-cli's `${extensionPath}`: the extension's own folder, so its
/// hooks can name their scripts wherever it is installed. The path is
/// escaped as a JSON string body, since it lands inside one.
fn expand_extension_path(file: &Path, text: &str) -> String {
    let dir = extension_dir(file).display().to_string();
    let escaped = serde_json::to_string(&dir).unwrap_or_default();
    text.replace("${extensionPath}", escaped.trim_matches('"'))
}

/// Extension folders under `root`: each `<name>/` with a
/// `hookshot-extension.json` or `gemini-extension.json` manifest holding
/// `hooks`, or a `hooks/hooks.json` beside it; in name order.
fn extensions(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for d in dirs {
        for manifest in ["hookshot-extension.json", "gemini-extension.json"] {
            let m = d.join(manifest);
            let has_hooks = std::fs::read_to_string(&m)
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .is_some_and(|v| v.get("hooks").is_some() || v.get("builtins").is_some());
            if has_hooks {
                out.push(m);
                break;
            }
        }
        let hooks = d.join("hooks").join("hooks.json");
        if hooks.is_file() {
            out.push(hooks);
        }
    }
    out
}

/// The settings files hookshot looks for: system, user
/// (`$XDG_CONFIG_HOME/hookshot`), the agent-native user files when
/// `agent_user_files` is set, extensions (user, then project:
/// `.hookshot/extensions/<name>/`), and the project's own files in
/// `project`. [`Registry::load`] orders them by precedence (builtin,
/// system, user, project, extension, session, command line).
pub fn discover(
    project: &Path,
    home: Option<&Path>,
    config_home: Option<&Path>,
    agent_user_files: bool,
) -> Vec<Source> {
    let mut out = Vec::new();
    let mut add = |path: PathBuf, kind: SourceKind| {
        if path.is_file() {
            out.push(Source { path, kind });
        }
    };
    for name in ["settings.json", "hooks.yaml"] {
        add(Path::new("/etc/hookshot").join(name), SourceKind::System);
    }
    let config_home = config_home
        .map(Path::to_path_buf)
        .or_else(|| home.map(|h| h.join(".config")));
    if let Some(c) = &config_home {
        for name in ["settings.json", "hooks.yaml"] {
            add(c.join("hookshot").join(name), SourceKind::User);
        }
    }
    if agent_user_files && let Some(h) = home {
        add(h.join(".gemini/settings.json"), SourceKind::User);
        add(h.join(".claude/settings.json"), SourceKind::User);
        add(h.join(".jdata/agent/hooks.yaml"), SourceKind::User);
    }
    // Extensions: the user's, then the project's (`extensions/<name>/`).
    if let Some(c) = &config_home {
        for path in extensions(&c.join("hookshot").join("extensions")) {
            add(path, SourceKind::Extension);
        }
    }
    for path in extensions(&project.join(".hookshot").join("extensions")) {
        add(path, SourceKind::Extension);
    }
    for rel in [
        ".hookshot/settings.json",
        ".hookshot/hooks.yaml",
        ".gemini/settings.json",
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".jcli/hooks.yaml",
    ] {
        add(project.join(rel), SourceKind::Project);
    }
    out
}

#[cfg(test)]
mod tests;
