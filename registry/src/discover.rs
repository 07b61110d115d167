//! Where settings come from: the system, user and project folders, the
//! extensions (gemini-cli's and hookshot's), Claude Code's installed
//! plugins, and each agent's own files, in the order a load reads them.

use std::path::{Path, PathBuf};

use hookshot_core::agent::{IMPORTED_DIR, imported_files};
use hookshot_core::{Agent, SourceKind};
use serde_json::Value;

use crate::{ReadError, Source, read_settings};

/// A Claude Code plugin's persistent data folder (`CLAUDE_PLUGIN_DATA`):
/// for a plugin Claude Code installed (under `~/.claude/plugins/`), the one
/// Claude Code gives it; otherwise hookshot's own, under
/// `$XDG_DATA_HOME/hookshot/plugin-data/`. Named after the plugin, with
/// characters other than letters, digits, `_` and `-` replaced by `-`.
pub(crate) fn plugin_data_dir(root: &Path) -> PathBuf {
    let manifest = read_settings(&root.join(".claude-plugin").join("plugin.json")).ok();
    let name = manifest
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_string))
        .or_else(|| root.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "plugin".into());
    let id: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if let Some(h) = &hookshot_core::paths::home() {
        let claude = h.join(".claude").join("plugins");
        if root.starts_with(&claude) {
            return claude.join("data").join(id);
        }
    }
    let data_home = hookshot_core::paths::xdg_dir("XDG_DATA_HOME", ".local/share").unwrap_or_else(std::env::temp_dir);
    data_home.join("hookshot").join("plugin-data").join(id)
}

/// A Claude Code plugin's options as its hooks' environment, as Claude
/// Code gives them: each value the user set for the plugin (`pluginConfigs.
/// <id>.options` in `~/.claude/settings.json`, `<id>` being the plugin's
/// name in `installed_plugins.json` whose install is `root`) as
/// `CLAUDE_PLUGIN_OPTION_<KEY>`, the key upper-cased with every character
/// but letters, digits and `_` made `_`, the value as JavaScript's
/// `String()` writes it (a list joined with commas). Values Claude Code
/// keeps in secure storage (the sensitive ones) are not readable here.
pub(crate) fn plugin_options(home: &Path, root: &Path) -> Vec<(String, String)> {
    let json = |p: &Path| {
        read_settings(p)
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
    };
    let Some(installed) = json(&home.join(".claude/plugins/installed_plugins.json")) else {
        return Vec::new();
    };
    let id = installed
        .get("plugins")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .find(|(_, installs)| {
            installs
                .as_array()
                .into_iter()
                .flatten()
                .any(|e| e.get("installPath").and_then(Value::as_str).map(Path::new) == Some(root))
        })
        .map(|(id, _)| id.clone());
    let Some(id) = id else { return Vec::new() };
    let Some(settings) = json(&home.join(".claude/settings.json")) else {
        return Vec::new();
    };
    let Some(options) = settings
        .get("pluginConfigs")
        .and_then(|c| c.get(&id))
        .and_then(|c| c.get("options"))
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    let js_string = |v: &Value| -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Number(n) => Some(match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{}", f as i64),
                _ => n.to_string(),
            }),
            Value::Array(items) => items
                .iter()
                .map(|i| i.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .map(|parts| parts.join(",")),
            _ => None,
        }
    };
    options
        .iter()
        .filter_map(|(key, value)| {
            let name: String = key
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        c.to_ascii_uppercase()
                    } else {
                        '_'
                    }
                })
                .collect();
            Some((format!("CLAUDE_PLUGIN_OPTION_{name}"), js_string(value)?))
        })
        .collect()
}

/// The folder of an extension whose hooks live in `file`.
pub(crate) fn extension_dir(file: &Path) -> &Path {
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
///
/// gemini-cli pastes the folder into command lines as it is; a folder name
/// is data, so one the shell would read as code (a quote, `$(`, `;`) is
/// refused with the reason instead of pasted.
pub(crate) fn expand_extension_path(file: &Path, workspace: Option<&Path>, text: &str) -> Result<String, String> {
    // Substituted into JSON text: each value goes in escaped.
    let json = |name: &str, p: &Path| {
        let shown = p.display().to_string();
        if !hookshot_core::subst::shell_inert(&shown) {
            return Err(format!(
                "${{{name}}} is {:?}, which holds characters a shell would read as code; \
                 it is not pasted into the extension's commands (rename the folder)",
                hookshot_core::display::escaped(&shown)
            ));
        }
        let s = serde_json::to_string(&shown).unwrap_or_default();
        Ok(Some(s.trim_matches('"').to_string()))
    };
    hookshot_core::subst::braced(text, |name| {
        let value = match name {
            "extensionPath" => json(name, extension_dir(file))?,
            "/" | "pathSeparator" => Some("/".into()),
            "workspacePath" => workspace.map(|w| json(name, w)).transpose()?.flatten(),
            _ => None,
        };
        Ok::<_, String>(value.unwrap_or_else(|| format!("${{{name}}}")))
    })
}

/// Extension folders under `root`: each `<name>/` with a
/// `hookshot-extension.json` or `gemini-extension.json` manifest holding
/// `hooks`, or a `hooks/hooks.json` beside it; in name order. Manifests are
/// read with the settings limits and only searched for the keys, not
/// parsed: an extension may be untrusted.
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
            let has_hooks = match read_settings(&m) {
                Ok(bytes) => {
                    let has = |key: &[u8]| bytes.windows(key.len()).any(|w| w == key);
                    has(b"\"hooks\"") || has(b"\"builtins\"")
                }
                // Present but unusable (a FIFO, too large): load it, so the
                // problem is reported instead of the extension vanishing.
                Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => false,
                Err(_) => true,
            };
            if has_hooks {
                out.push(m);
                break;
            }
        }
        let hooks = d.join("hooks").join("hooks.json");
        if hooks.exists() {
            out.push(hooks);
        }
    }
    out
}

/// The system folders: `/etc/hookshot`, and the folder named by
/// `HOOKSHOT_SYSTEM_DIR` (for tests and packagers) when it is an absolute
/// path. The variable adds a folder and never replaces `/etc/hookshot`, so
/// setting it cannot remove the system's policy.
pub fn system_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![PathBuf::from("/etc/hookshot")];
    if let Some(d) = std::env::var_os("HOOKSHOT_SYSTEM_DIR").map(PathBuf::from)
        && d.is_absolute()
        && !dirs.contains(&d)
    {
        dirs.push(d);
    }
    dirs
}

/// The `hooks/hooks.json` of every plugin Claude Code installed
/// (`~/.claude/plugins/installed_plugins.json`) and enabled, each with the
/// kind of source it loads as: enabled in the user's Claude Code settings
/// (`enabledPlugins` in `~/.claude/settings.json`), a user source; enabled
/// only by the project's (`.claude/settings.json`, `.claude/settings.local.json`),
/// a project source, so it runs only in a trusted project. A project
/// cannot disable a plugin the user enabled: that would let a repository
/// turn a user's guard off. Of a plugin installed more than once, the
/// latest install that applies (the user's, or one made for this project).
///
/// A plugin list that cannot be read is returned itself, and an enabled
/// plugin's `hooks.json` whose folder is gone is returned all the same:
/// loading them reports why, so no plugin guard goes missing unseen.
pub fn claude_plugins(home: &Path, project: &Path) -> Vec<(PathBuf, SourceKind)> {
    let json = |p: &Path| {
        read_settings(p)
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
    };
    let list = home.join(".claude/plugins/installed_plugins.json");
    if std::fs::symlink_metadata(&list).is_err() {
        return Vec::new();
    }
    let Some(installed) = json(&list) else {
        return vec![(list, SourceKind::User)];
    };
    let enabled_in = |file: PathBuf| -> Vec<String> {
        json(&file)
            .and_then(|s| s.get("enabledPlugins").and_then(Value::as_object).cloned())
            .into_iter()
            .flatten()
            .filter(|(_, on)| on == &Value::Bool(true))
            .map(|(id, _)| id)
            .collect()
    };
    let by_user = enabled_in(home.join(".claude/settings.json"));
    let mut by_project = enabled_in(project.join(".claude/settings.json"));
    by_project.extend(enabled_in(project.join(".claude/settings.local.json")));
    let mut out = Vec::new();
    for (id, installs) in installed
        .get("plugins")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let kind = if by_user.contains(id) {
            SourceKind::User
        } else if by_project.contains(id) {
            SourceKind::Project
        } else {
            continue;
        };
        let applies = |e: &&Value| match e.get("scope").and_then(Value::as_str) {
            None | Some("user") => true,
            Some(_) => {
                kind == SourceKind::Project
                    && e.get("projectPath").and_then(Value::as_str).map(Path::new) == Some(project)
            }
        };
        let latest = installs
            .as_array()
            .into_iter()
            .flatten()
            .filter(applies)
            .max_by_key(|e| e.get("lastUpdated").and_then(Value::as_str).unwrap_or("").to_string());
        if let Some(root) = latest.and_then(|e| e.get("installPath")).and_then(Value::as_str) {
            out.push((Path::new(root).join("hooks").join("hooks.json"), kind));
        }
    }
    out.sort();
    out
}

/// The folder, beside hookshot's own settings (`~/.config/hookshot/`,
/// `.hookshot/`), holding the hooks `hookshot install --import` moved out of
/// an agent's settings.
/// The order the agents' own files are read in: where a hook stands in a
/// sequential plan must not move when a row is added to the agent table.
const READ_ORDER: [Agent; 7] = [
    Agent::Gemini,
    Agent::Claude,
    Agent::Codex,
    Agent::Jcli,
    Agent::Picoclaw,
    Agent::Qwen,
    Agent::Cursor,
];

/// The entries of `dir` that `keep` takes, in name order; none when it
/// cannot be read.
fn files_in(dir: &Path, keep: impl Fn(&std::fs::DirEntry) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries.filter_map(Result::ok).filter(keep).map(|e| e.path()).collect();
    out.sort();
    out
}

/// The hook files of an agent that runs every `*.json` of its folder
/// (Copilot CLI, [`Agent::runs_every_json_file`]) in `dir`, without
/// hookshot's own registration there. Whatever is not a plain file is
/// listed too, so that loading says why it cannot be read.
fn every_json_file(dir: &Path) -> Vec<PathBuf> {
    files_in(dir, |e| Agent::Copilot.reads_hooks_of(&e.path()))
}

/// Cline's own hook files in `dir` (one of its hook folders): plain files
/// only, as Cline lists them (it runs no symlink).
fn cline_hook_files(dir: &Path) -> Vec<PathBuf> {
    files_in(dir, |e| {
        e.file_type().is_ok_and(|t| t.is_file()) && hookshot_core::agent::cline_hook_file(&e.path()).is_some()
    })
}

/// The settings files hookshot looks for: system ([`system_dirs`]), user
/// (`$XDG_CONFIG_HOME/hookshot`, with its [`IMPORTED_DIR`]), the agent-native user files when
/// `agent_user_files` is set, extensions (user, then project:
/// `.hookshot/extensions/<name>/`), and the project's own files in
/// `project`. [`crate::Registry::load`] orders them by precedence (builtin,
/// system, user, project, extension, session, command line). A path that
/// exists but is not a plain file is listed too, so that loading reports it.
pub fn discover(
    project: &Path,
    home: Option<&Path>,
    config_home: Option<&Path>,
    agent_user_files: bool,
) -> Vec<Source> {
    let mut out = Vec::new();
    // Listed even though missing, so that loading says so.
    let mut plugins_gone = Vec::new();
    let mut claude_state = None;
    let mut add = |path: PathBuf, kind: SourceKind, scope: Option<&Path>| {
        // symlink_metadata: a dangling symlink at a settings path is worth a
        // report too.
        if std::fs::symlink_metadata(&path).is_ok() {
            out.push(Source {
                path,
                kind,
                scope: scope.map(Path::to_path_buf),
                dialect: None,
                workspace: (kind == SourceKind::Extension).then(|| project.to_path_buf()),
            });
        }
    };
    for dir in system_dirs() {
        for name in ["settings.json", "hooks.yaml"] {
            add(dir.join(name), SourceKind::System, None);
        }
    }
    // XDG: a relative XDG_CONFIG_HOME is invalid and is ignored.
    let config_home = config_home
        .filter(|c| c.is_absolute())
        .map(Path::to_path_buf)
        .or_else(|| home.map(|h| h.join(".config")));
    if let Some(c) = &config_home {
        for name in ["settings.json", "hooks.yaml"] {
            add(c.join("hookshot").join(name), SourceKind::User, None);
        }
        for (name, _) in imported_files() {
            add(c.join("hookshot").join(IMPORTED_DIR).join(name), SourceKind::User, None);
        }
    }
    if agent_user_files && let Some(h) = home {
        for agent in READ_ORDER {
            for f in agent.files().iter().filter(|f| f.read && !f.project_only) {
                add(h.join(agent.user_folder()).join(f.name), SourceKind::User, None);
            }
        }
        for path in every_json_file(&h.join(Agent::Copilot.user_folder())) {
            add(path, SourceKind::User, None);
        }
        for path in cline_hook_files(&h.join(".cline").join("hooks")) {
            add(path, SourceKind::User, None);
        }
        // Claude Code's user and per-project MCP servers, for mcp_tool hooks.
        let claude_json = h.join(".claude.json");
        if std::fs::symlink_metadata(&claude_json).is_ok() {
            claude_state = Some(Source {
                workspace: Some(project.to_path_buf()),
                ..Source::new(claude_json, SourceKind::User)
            });
        }
        for (hooks, kind) in claude_plugins(h, project) {
            let gone = hooks.parent().and_then(Path::parent).is_some_and(|root| !root.exists());
            let scope = (kind == SourceKind::Project).then_some(project);
            if gone {
                plugins_gone.push((hooks, kind, scope.map(Path::to_path_buf)));
            } else {
                add(hooks, kind, scope);
            }
        }
    }
    // Extensions: the user's, then the project's (`extensions/<name>/`).
    if let Some(c) = &config_home {
        let scope = c.join("hookshot");
        for path in extensions(&scope.join("extensions")) {
            add(path, SourceKind::Extension, Some(&scope));
        }
    }
    for path in extensions(&project.join(".hookshot").join("extensions")) {
        add(path, SourceKind::Extension, Some(project));
    }
    for (name, _) in imported_files() {
        let path = project.join(".hookshot").join(IMPORTED_DIR).join(name);
        add(path, SourceKind::Project, Some(project));
    }
    let agents = READ_ORDER.into_iter().flat_map(|a| {
        a.files()
            .iter()
            .filter(|f| f.read)
            .map(move |f| Path::new(a.folder()).join(f.name))
    });
    let hookshot_own = [".hookshot/settings.json", ".hookshot/hooks.yaml"].map(PathBuf::from);
    for rel in hookshot_own
        .into_iter()
        .chain(agents)
        .chain([PathBuf::from(".mcp.json")])
    {
        add(project.join(rel), SourceKind::Project, Some(project));
    }
    for path in every_json_file(&project.join(Agent::Copilot.folder())) {
        add(path, SourceKind::Project, Some(project));
    }
    for dir in hookshot_core::agent::CLINE_HOOK_DIRS {
        for path in cline_hook_files(&project.join(dir)) {
            add(path, SourceKind::Project, Some(project));
        }
    }
    out.extend(plugins_gone.into_iter().map(|(path, kind, scope)| Source {
        scope,
        ..Source::new(path, kind)
    }));
    out.extend(claude_state);
    out
}
