//! Built-in hooks, enabled by a settings file's `builtins` key:
//! `{"builtins": {"audit_log": {"path": "audit.jsonl"},
//! "dangerous_confirmation": {"mode": "ask"}, "security_scan": {"mode": "redact"}}}`.
//!
//! They run in process. `security_scan` and `audit_log` run before every
//! other hook (the builtin source has the lowest precedence, so sequential
//! chains start with them: a redaction is what later hooks see);
//! `dangerous_confirmation` runs after them, on the tool input as the other
//! hooks rewrote it (a rewrite can make a safe command dangerous). Options
//! beyond the contract's:
//! - `audit_log`: `max_bytes` (rotate size, default 10 MiB), `keep` (rotated
//!   files kept, default 3); a relative `path` from a user or system file is
//!   in the state directory ([`state_dir`]), from any other in the project;
//! - `dangerous_confirmation`: `patterns` (extra regexes over commands);
//! - `security_scan`: `rules_file` (a gitleaks rules file of the user's own
//!   secret formats);
//! - every built-in: `enabled: false`, or `false` in place of the options
//!   (which only works where no earlier file turned it on: see
//!   [`hookshot_registry::Registry::builtins`]).

pub mod audit;
pub mod dangerous;
pub mod secrets;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hookshot_core::{Decision, EventKind, Hook, HookAction, HookDef, Provenance, SourceKind};
use hookshot_registry::BuiltinSetting;
use serde_json::Value;

/// The built-ins one configuration enables.
#[derive(Debug, Default)]
pub struct Builtins {
    /// Their hook definitions, in run order.
    pub hooks: Vec<HookDef>,
    /// The in-process hooks behind them, by name.
    pub in_process: Vec<(String, Arc<dyn Hook>)>,
    /// The audit log, if enabled.
    pub audit: Option<audit::AuditLog>,
    /// Built-ins that could not start, each naming itself and why.
    pub problems: Vec<String>,
}

/// Whether `hook` is a guard that judges the tool call as it will run,
/// after every other hook's rewrites, rather than as first proposed.
pub fn judges_final_input(hook: &HookDef) -> bool {
    hook.source == SourceKind::Builtin && hook.identity == "builtin:dangerous_confirmation"
}

fn def(name: &str, event: EventKind) -> HookDef {
    let action = HookAction::InProcess { name: name.to_string() };
    HookDef {
        name: Some(name.to_string()),
        timeout: Duration::from_secs(5),
        source: SourceKind::Builtin,
        provenance: Provenance {
            pointer: format!("/builtins/{name}"),
            ..Provenance::default()
        },
        ..HookDef::new(format!("builtin:{name}"), event, action)
    }
}

/// Where a relative audit log path from a user or system file leads:
/// `$XDG_STATE_HOME/hookshot`, else `~/.local/state/hookshot`.
pub fn state_dir() -> Option<PathBuf> {
    hookshot_core::paths::xdg_dir("XDG_STATE_HOME", ".local/state").map(|d| d.join("hookshot"))
}

/// Where the audit log of `setting` goes: a relative path from a user or
/// system file into the state directory, from any other file into the
/// project (which a project or extension file cannot leave, not even
/// through a symlinked folder).
fn audit_path(path: &str, setting: &BuiltinSetting, workdir: &Path) -> Result<PathBuf, String> {
    let p = Path::new(path);
    match setting.source {
        SourceKind::User | SourceKind::System if p.is_relative() => state_dir()
            .map(|d| d.join(p))
            .ok_or_else(|| "no state directory (set HOME or XDG_STATE_HOME)".to_string()),
        SourceKind::Project | SourceKind::Extension => {
            let inside = p.is_relative() && !p.components().any(|c| matches!(c, std::path::Component::ParentDir));
            let full = workdir.join(p);
            let dir = full.parent().unwrap_or(workdir);
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            let real = std::fs::canonicalize(dir).map_err(|e| e.to_string())?;
            let root = std::fs::canonicalize(workdir).unwrap_or_else(|_| workdir.to_path_buf());
            if inside && real.starts_with(&root) {
                Ok(full)
            } else {
                Err(format!("it leaves the project (through {})", real.display()))
            }
        }
        _ => Ok(workdir.join(p)),
    }
}

/// Builds what `config` (the merged built-in settings) enables. The
/// registry has validated names and options. A built-in that cannot start
/// is reported in [`Builtins::problems`]; the others start as usual.
pub fn from_settings(config: &[BuiltinSetting], workdir: &Path) -> Builtins {
    let mut b = Builtins::default();
    for setting in config.iter().filter(|s| s.on) {
        let (name, opts) = (&setting.name, &setting.options);
        let mode = opts.get("mode").and_then(Value::as_str);
        match name.as_str() {
            "dangerous_confirmation" => {
                let patterns = opts
                    .get("patterns")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .filter_map(|p| regex::Regex::new(p).ok())
                    .collect();
                let decision = if mode == Some("deny") {
                    Decision::Block
                } else {
                    Decision::Ask
                };
                let hook = dangerous::DangerousConfirmation::new(decision, patterns, workdir);
                // A skill's `!` shell lines are commands too.
                b.hooks.push(def(name, EventKind::BeforeTool));
                b.hooks.push(def(name, EventKind::PreSkillShellCommand));
                b.in_process.push((name.clone(), Arc::new(hook)));
            }
            "security_scan" => {
                let m = if mode == Some("block") {
                    secrets::Mode::Block
                } else {
                    secrets::Mode::Redact
                };
                // The user's own rules: a file that cannot be used leaves
                // the scan running on its own rules, and is a problem of
                // the load (which the closed policy blocks on).
                let mut extra = Vec::new();
                for file in &setting.rules {
                    match &file.loaded {
                        Ok(loaded) => extra.extend(loaded.rules.iter().cloned()),
                        Err(why) => b.problems.push(format!(
                            "built-in security_scan ({}) cannot use its rules_file: {why}; it runs with its own rules",
                            setting.at
                        )),
                    }
                }
                for e in [
                    EventKind::BeforeTool,
                    EventKind::AfterTool,
                    EventKind::BeforeModel,
                    EventKind::BeforeAgent,
                ] {
                    b.hooks.push(def(name, e));
                }
                b.in_process
                    .push((name.clone(), Arc::new(secrets::SecurityScan::new(m).with_rules(extra))));
            }
            "audit_log" => {
                let path = opts
                    .get("path")
                    .and_then(Value::as_str)
                    .unwrap_or("hookshot-audit.jsonl");
                let at = &setting.at;
                let path = match audit_path(path, setting, workdir) {
                    Ok(p) => p,
                    Err(why) => {
                        b.problems
                            .push(format!("built-in audit_log ({at}) cannot write {path}: {why}"));
                        continue;
                    }
                };
                let cfg = audit::AuditConfig {
                    path,
                    max_bytes: opts.get("max_bytes").and_then(Value::as_u64).unwrap_or(10 << 20),
                    keep: opts.get("keep").and_then(Value::as_u64).unwrap_or(3) as usize,
                };
                let shown = cfg.path.display().to_string();
                match audit::AuditLog::start(cfg) {
                    Ok(log) => b.audit = Some(log),
                    Err(e) => b
                        .problems
                        .push(format!("built-in audit_log ({at}) cannot write {shown}: {e}")),
                }
            }
            _ => {}
        }
    }
    b
}
