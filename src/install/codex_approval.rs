//! Whether Codex will run hookshot's entries. Codex (0.16x on) runs a hook
//! of `hooks.json` only once its user approved it in the `/hooks` screen,
//! and keeps that approval in its `config.toml` as
//! `[hooks.state."FILE:event_name:GROUP:HANDLER"] trusted_hash = "sha256:…"`;
//! an entry changed since (a reinstall) is "modified" and does not run
//! either. A registration Codex does not run looks like protection and is
//! none, so `doctor` reports every entry not approved as a problem.
//!
//! The hash is Codex's own (of its normalised handler); rather than copy
//! its recipe, hookshot asks Codex: `codex app-server` answers `hooks/list`
//! with each hook's key and trust status. Without a `codex` to ask, the
//! config file still tells an entry never approved from one approved once.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Map, Value, json};

/// How long Codex's app server may take to list its hooks.
const ASK_FOR: Duration = Duration::from_secs(20);

/// What is known of Codex's approval of hookshot's entries in one file.
#[derive(Debug)]
pub(crate) struct Approval {
    /// Who said it.
    pub(crate) by: By,
    /// hookshot's entries there.
    pub(crate) ours: usize,
    /// Each entry Codex would not run now: its event and why.
    pub(crate) pending: Vec<(String, &'static str)>,
    /// The user's own hook groups still in the file (Codex runs them, not
    /// hookshot: `install --import` moves them once hookshot's run).
    pub(crate) theirs: usize,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum By {
    /// Codex's app server (`hooks/list`), with the program asked.
    Codex(PathBuf),
    /// Codex's config file alone: an approval found there may be of an
    /// older entry (only Codex checks its hash).
    Config(PathBuf),
}

/// Codex's key of the handler at `group`/`handler` of `event` in `file`.
pub(crate) fn key(file: &Path, event: &str, group: usize, handler: usize) -> String {
    format!("{}:{}:{group}:{handler}", file.display(), snake(event))
}

/// `PreToolUse` -> `pre_tool_use`, as Codex names events in its keys.
fn snake(event: &str) -> String {
    let mut out = String::with_capacity(event.len() + 4);
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The keys of hookshot's entries in a Codex `hooks.json`, with their event.
pub(crate) fn our_keys(
    file: &Path,
    doc: &Map<String, Value>,
    is_ours: impl Fn(&Value) -> bool,
) -> Vec<(String, String)> {
    let mut keys = Vec::new();
    for (event, groups) in super::groups_of(doc) {
        for (g, group) in groups.iter().enumerate() {
            let handlers = group.get("hooks").and_then(Value::as_array).into_iter().flatten();
            for (h, handler) in handlers.enumerate() {
                if is_ours(handler) {
                    keys.push((key(file, event, g, h), event.clone()));
                }
            }
        }
    }
    keys
}

/// Codex's approval of `keys` (hookshot's entries of one file), asked of
/// Codex when a `codex` can be run (`$HOOKSHOT_CODEX`, else `codex` on
/// PATH), else read from its config file.
pub(crate) fn approval(keys: &[(String, String)], cwd: &Path) -> Approval {
    if let Some((program, listed)) = listed_by(cwd) {
        let pending = keys
            .iter()
            .filter_map(|(key, event)| {
                let why = match listed
                    .iter()
                    .find(|h| h.get("key").and_then(Value::as_str) == Some(key))
                {
                    None => "Codex does not load it (an untrusted project's .codex is not read)",
                    Some(h) if h.get("enabled") == Some(&Value::Bool(false)) => "turned off in /hooks",
                    Some(h) => match h.get("trustStatus").and_then(Value::as_str) {
                        Some("trusted" | "managed") => return None,
                        Some("modified") => "changed since you approved it (a reinstall): approve it again",
                        _ => "not approved yet",
                    },
                };
                Some((event.clone(), why))
            })
            .collect();
        return Approval {
            by: By::Codex(program),
            ours: keys.len(),
            pending,
            theirs: 0,
        };
    }
    let config = codex_home().join("config.toml");
    let state = std::fs::read_to_string(&config)
        .ok()
        .and_then(|t| toml::from_str::<toml::Table>(&t).ok())
        .and_then(|t| t.get("hooks")?.get("state")?.as_table().cloned())
        .unwrap_or_default();
    let pending = keys
        .iter()
        .filter(|(key, _)| {
            state
                .get(key)
                .and_then(|s| s.get("trusted_hash"))
                .and_then(toml::Value::as_str)
                .is_none()
        })
        .map(|(_, event)| (event.clone(), "not approved yet"))
        .collect();
    Approval {
        by: By::Config(config),
        ours: keys.len(),
        pending,
        theirs: 0,
    }
}

/// The `codex` to ask: `$HOOKSHOT_CODEX`, else `codex` on PATH.
fn program() -> Option<PathBuf> {
    std::env::var_os("HOOKSHOT_CODEX")
        .map(PathBuf::from)
        .or_else(|| super::on_path("codex").then(|| PathBuf::from("codex")))
}

/// The hooks Codex lists for a session in `cwd`, and the program asked.
fn listed_by(cwd: &Path) -> Option<(PathBuf, Vec<Value>)> {
    let program = program()?;
    let listed = ask_codex(&program, cwd)?;
    Some((program, listed))
}

/// The hooks Codex lists for a session in `cwd` (key, trust status,
/// current hash, ...), when a `codex` can be asked.
pub(crate) fn listed(cwd: &Path) -> Option<Vec<Value>> {
    listed_by(cwd).map(|(_, l)| l)
}

/// Codex's own folder: `$CODEX_HOME`, else `~/.codex`.
pub(crate) fn codex_home() -> PathBuf {
    std::env::var_os("CODEX_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| hookshot_core::paths::home().unwrap_or_default().join(".codex"))
}

/// The hooks Codex lists for `cwd` (`hooks/list` of its app server), or
/// `None` when it cannot be asked (not there, too old, too slow).
fn ask_codex(program: &Path, cwd: &Path) -> Option<Vec<Value>> {
    let mut child = Command::new(program)
        .arg("app-server")
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let stdout = child.stdout.take()?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if msg.get("id") == Some(&json!(2)) {
                let _ = tx.send(msg);
                break;
            }
        }
    });
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "hookshot", "version": env!("CARGO_PKG_VERSION")}}}),
        json!({"jsonrpc": "2.0", "method": "initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [cwd]}}),
    ];
    let sent = requests.iter().all(|r| writeln!(stdin, "{r}").is_ok()) && stdin.flush().is_ok();
    let answer = if sent { rx.recv_timeout(ASK_FOR).ok() } else { None };
    let _ = child.kill();
    let _ = child.wait();
    let data = answer?.get("result")?.get("data")?.as_array()?.clone();
    Some(
        data.iter()
            .filter_map(|entry| entry.get("hooks")?.as_array().cloned())
            .flatten()
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_name_file_event_group_and_handler_as_codex_does() {
        let doc: Map<String, Value> = serde_json::from_value(json!({"hooks": {
            "PreToolUse": [{"hooks": [{"command": "theirs"}, {"command": "ours"}]}],
            "UserPromptSubmit": [{"hooks": [{"command": "theirs"}]}, {"hooks": [{"command": "ours"}]}]
        }}))
        .unwrap();
        let keys = our_keys(Path::new("/h/.codex/hooks.json"), &doc, |h| h["command"] == "ours");
        assert_eq!(
            keys,
            [
                (
                    "/h/.codex/hooks.json:pre_tool_use:0:1".to_string(),
                    "PreToolUse".to_string()
                ),
                (
                    "/h/.codex/hooks.json:user_prompt_submit:1:0".to_string(),
                    "UserPromptSubmit".to_string()
                ),
            ]
        );
    }
}
