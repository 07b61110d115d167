//! Built-in hooks, enabled by a settings file's `builtins` key:
//! `{"builtins": {"audit_log": {"path": "audit.jsonl"},
//! "dangerous_confirmation": {"mode": "ask"}, "security_scan": {"mode": "redact"}}}`.
//!
//! They run in process, before every other hook (the builtin source has the
//! lowest precedence, so sequential chains start with them: a redaction is
//! what later hooks see). Options beyond the contract's:
//! - `audit_log`: `max_bytes` (rotate size, default 10 MiB), `keep` (rotated
//!   files kept, default 3);
//! - `dangerous_confirmation`: `patterns` (extra regexes over commands);
//! - every built-in: `enabled: false`, or `false` in place of the options.

pub mod audit;
pub mod dangerous;
pub mod secrets;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hookshot_core::{Decision, EventKind, HookAction, HookDef, Provenance, SourceKind};
use hookshot_runner::Hook;
use serde_json::{Map, Value};

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

/// Builds what `config` (the merged `builtins` objects) enables. The
/// registry has validated names and modes. A built-in that cannot start is
/// reported in [`Builtins::problems`]; the others start as usual.
pub fn from_settings(config: &Map<String, Value>, workdir: &Path) -> Builtins {
    let mut b = Builtins::default();
    for (name, options) in config {
        let opts = match options {
            Value::Bool(false) => continue,
            Value::Object(o) if o.get("enabled") == Some(&Value::Bool(false)) => continue,
            Value::Object(o) => o.clone(),
            _ => Map::new(),
        };
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
                let hook = dangerous::DangerousConfirmation {
                    decision: if mode == Some("deny") {
                        Decision::Block
                    } else {
                        Decision::Ask
                    },
                    patterns,
                    workdir: workdir.to_path_buf(),
                };
                b.hooks.push(def(name, EventKind::BeforeTool));
                b.in_process.push((name.clone(), Arc::new(hook)));
            }
            "security_scan" => {
                let m = if mode == Some("block") {
                    secrets::Mode::Block
                } else {
                    secrets::Mode::Redact
                };
                for e in [EventKind::BeforeTool, EventKind::AfterTool, EventKind::BeforeModel] {
                    b.hooks.push(def(name, e));
                }
                b.in_process
                    .push((name.clone(), Arc::new(secrets::SecurityScan::new(m))));
            }
            "audit_log" => {
                let path = opts
                    .get("path")
                    .and_then(Value::as_str)
                    .unwrap_or("hookshot-audit.jsonl");
                let cfg = audit::AuditConfig {
                    path: workdir.join(path),
                    max_bytes: opts.get("max_bytes").and_then(Value::as_u64).unwrap_or(10 << 20),
                    keep: opts.get("keep").and_then(Value::as_u64).unwrap_or(3) as usize,
                };
                let shown = cfg.path.display().to_string();
                match audit::AuditLog::start(cfg) {
                    Ok(log) => b.audit = Some(log),
                    Err(e) => b.problems.push(format!("built-in audit_log cannot write {shown}: {e}")),
                }
            }
            _ => {}
        }
    }
    b
}
