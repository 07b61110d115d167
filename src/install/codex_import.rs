//! `install --agent codex --import`: the user's Codex hooks run under
//! hookshot, with no moment where a guard is off and no hook of theirs to
//! approve again.
//!
//! Codex runs a `hooks.json` entry only when `hooks.state."FILE:event:
//! GROUP:HANDLER".trusted_hash` in its `config.toml` is the hash of the
//! entry's content (a hash of content alone: the same handler anywhere has
//! the same hash). So:
//!
//! 1. hookshot's own entries are registered after the user's groups
//!    (nothing of theirs moves) and the user approves them in `/hooks`.
//!    Until then nothing is moved: the user's hooks keep running in Codex.
//! 2. Run again, once Codex lists every hookshot entry as trusted, the
//!    groups Codex trusts move into hookshot's imported file; the entries
//!    that stay (hookshot's, and groups hookshot cannot take or Codex does
//!    not trust) shift up, and each carries its approval to its new key:
//!    the hash Codex trusted, unchanged, since the content is. Writes go
//!    imported file, then approvals, then `hooks.json`: a failure between
//!    runs a hook twice, never not at all.
//! 3. `uninstall` puts the groups back in their places and every approval
//!    as it was (kept in hookshot's data folder meanwhile).
//!
//! What Codex says is asked of Codex (`codex app-server`'s `hooks/list`):
//! an entry edited since its approval is "modified", which only Codex can
//! tell, and a hook Codex would not run must not start running under
//! hookshot.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::codex_approval::{codex_home, key, listed};
use super::{groups_of, is_ours, only_ours};
use crate::fail::Fail;

/// What Codex says of one entry: its status and current hash.
fn status<'a>(listing: &'a [Value], key: &str) -> Option<(&'a str, &'a str)> {
    let h = listing
        .iter()
        .find(|h| h.get("key").and_then(Value::as_str) == Some(key))?;
    if h.get("enabled") == Some(&Value::Bool(false)) {
        return Some(("disabled", ""));
    }
    Some((h.get("trustStatus")?.as_str()?, h.get("currentHash")?.as_str()?))
}

fn trusted(listing: &[Value], key: &str) -> Option<String> {
    match status(listing, key) {
        Some(("trusted", hash)) => Some(hash.to_string()),
        _ => None,
    }
}

/// The import of one Codex `hooks.json`, decided.
pub(crate) struct Plan {
    /// The groups that move, by event.
    pub(crate) theirs: Map<String, Value>,
    /// Approvals to write: each key that stays, at its new place.
    pub(crate) approvals: Vec<(String, String)>,
    /// What uninstall needs to put everything back.
    pub(crate) saved: Value,
}

/// Decides what moves out of `doc` (the file at `file`, hookshot's
/// entries already in it) and takes it out; `Err` says why nothing moves.
/// `can_take` is install's own test of a group (an event hookshot
/// registers, a hook kind it runs): a group it refuses stays, named in
/// `left`.
pub(crate) fn plan(
    file: &Path,
    doc: &mut Map<String, Value>,
    cwd: &Path,
    can_take: impl Fn(&str, &Value) -> Option<String>,
    left: &mut Vec<String>,
) -> Result<Plan, String> {
    let theirs_there = groups_of(doc).flat_map(|(_, g)| g).any(|g| !only_ours(g));
    if !theirs_there {
        return Ok(Plan {
            theirs: Map::new(),
            approvals: Vec::new(),
            saved: Value::Null,
        });
    }
    let listing = listed(cwd).ok_or_else(|| {
        "Codex could not be asked which hooks it approved (no `codex` on PATH; set HOOKSHOT_CODEX to its program): \
         they stay where Codex runs them"
            .to_string()
    })?;
    let Some(Value::Object(hooks)) = doc.get_mut("hooks") else {
        return Err("no hooks".into());
    };
    // Every hookshot entry must run before anything of the user's moves.
    let mut waiting = Vec::new();
    for (event, groups) in hooks.iter() {
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            for (h, handler) in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if is_ours(handler) && trusted(&listing, &key(file, event, g, h)).is_none() {
                    waiting.push(event.clone());
                }
            }
        }
    }
    if !waiting.is_empty() {
        return Err(format!(
            "Codex has not approved hookshot's entries yet ({}): start `codex`, type /hooks and approve them, \
             then run this install again to move your hooks under hookshot; until then they stay where Codex runs them",
            waiting.join(", ")
        ));
    }
    let mut theirs = Map::new();
    let mut approvals = Vec::new();
    let mut original_groups = Map::new();
    let mut original_state = Map::new();
    for (event, groups) in hooks.iter_mut() {
        let Value::Array(list) = groups else { continue };
        let before = list.clone();
        let mut kept = Vec::new();
        let mut taken = Vec::new();
        for (g, group) in before.iter().enumerate() {
            let handlers: Vec<&Value> = group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .collect();
            let keys: Vec<String> = (0..handlers.len()).map(|h| key(file, event, g, h)).collect();
            for k in &keys {
                if let Some(hash) = trusted(&listing, k) {
                    original_state.insert(k.clone(), json!(hash));
                }
            }
            let why = if only_ours(group) {
                None
            } else if let Some(why) = can_take(event, group) {
                Some(why)
            } else if let Some(k) = keys.iter().find(|k| trusted(&listing, k).is_none()) {
                let st = status(&listing, k).map_or("not loaded by Codex", |(s, _)| s);
                Some(format!(
                    "Codex does not run it ({st}): it stays, and moves once approved in /hooks and installed again"
                ))
            } else {
                taken.push(group.clone());
                continue;
            };
            if let Some(why) = why {
                let what = handlers
                    .iter()
                    .filter_map(|h| h.get("command").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join(", ");
                left.push(format!("{}: {event} [{what}]: {why}", file.display()));
            }
            // It stays, shifting up: its approval goes with it.
            let new_g = kept.len();
            for (h, k) in keys.iter().enumerate() {
                if let Some(hash) = trusted(&listing, k) {
                    approvals.push((key(file, event, new_g, h), hash));
                }
            }
            kept.push(group.clone());
        }
        if !taken.is_empty() {
            // As uninstall sees them once hookshot's own entries are out.
            let theirs_only =
                |groups: &[Value]| -> Vec<Value> { groups.iter().filter(|g| !only_ours(g)).cloned().collect() };
            original_groups.insert(
                event.clone(),
                json!({"was": theirs_only(&before), "stays": theirs_only(&kept)}),
            );
            theirs.insert(event.clone(), Value::Array(taken));
            *list = kept;
        }
    }
    hooks.retain(|_, g| g.as_array().is_none_or(|g| !g.is_empty()));
    if theirs.is_empty() {
        approvals.clear();
    }
    let saved = json!({"file": file, "groups": original_groups, "state": original_state});
    Ok(Plan {
        theirs,
        approvals,
        saved,
    })
}

/// Where the approvals and places of an imported file are kept until
/// uninstall: hookshot's data folder, never a project (whose files a
/// repository writes).
fn saved_path(file: &Path) -> Option<PathBuf> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    file.hash(&mut h);
    Some(
        super::data_dir()?
            .join("codex-import")
            .join(format!("{:016x}.json", h.finish())),
    )
}

pub(crate) fn save(file: &Path, saved: &Value) -> Result<(), Fail> {
    let path = saved_path(file).ok_or_else(|| Fail::Usage("HOME is not set".into()))?;
    let fail = |e: std::io::Error| Fail::Usage(format!("{}: {e}", path.display()));
    std::fs::create_dir_all(path.parent().unwrap_or(Path::new("."))).map_err(fail)?;
    super::file::write(&path, saved.to_string().as_bytes(), None, false, None)
}

/// Writes approvals into Codex's `config.toml` as its `/hooks` screen does
/// (`[hooks.state."KEY"] trusted_hash = "…"`), keeping the rest of the file
/// as it is.
pub(crate) fn write_approvals(approvals: &[(String, String)]) -> Result<(), Fail> {
    if approvals.is_empty() {
        return Ok(());
    }
    let path = codex_home().join("config.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Fail::Usage(format!("{}: {e}", path.display()))),
    };
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e| Fail::Usage(format!("{}: {e}; nothing was changed", path.display())))?;
    // `[hooks.state."KEY"]` tables, as Codex writes them: the tables on
    // the way are implicit (no `[hooks]` header of their own).
    fn table<'a>(parent: &'a mut toml_edit::Table, name: &str, path: &Path) -> Result<&'a mut toml_edit::Table, Fail> {
        parent
            .entry(name)
            .or_insert_with(|| {
                let mut t = toml_edit::Table::new();
                t.set_implicit(true);
                toml_edit::Item::Table(t)
            })
            .as_table_mut()
            .ok_or_else(|| {
                Fail::Usage(format!(
                    "{}: `{name}` is not a table; nothing was changed",
                    path.display()
                ))
            })
    }
    let hooks = table(doc.as_table_mut(), "hooks", &path)?;
    let state = table(hooks, "state", &path)?;
    for (k, hash) in approvals {
        let entry = state
            .entry(k)
            .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
        if let Some(t) = entry.as_table_like_mut() {
            t.insert("trusted_hash", toml_edit::value(hash.as_str()));
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Fail::Usage(format!("{}: {e}", dir.display())))?;
    }
    super::file::write(&path, doc.to_string().as_bytes(), None, true, None)
}

/// For uninstall: puts each event's groups back as they were before the
/// import (when what stayed is still as it was), and every approval of
/// that time back in Codex's config. Returns whether the file had been
/// imported this way.
pub(crate) fn restore(file: &Path, doc: &mut Map<String, Value>) -> Result<bool, Fail> {
    let Some(path) = saved_path(file) else { return Ok(false) };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(false);
    };
    let saved: Value = serde_json::from_str(&text).map_err(|e| Fail::Usage(format!("{}: {e}", path.display())))?;
    let hooks = doc.entry("hooks").or_insert_with(|| json!({}));
    if let (Some(hooks), Some(groups)) = (hooks.as_object_mut(), saved["groups"].as_object()) {
        for (event, g) in groups {
            let now = hooks.get(event).cloned().unwrap_or_else(|| json!([]));
            if now == g["stays"] {
                hooks.insert(event.clone(), g["was"].clone());
            } else {
                eprintln!(
                    "hookshot: {}: {event} changed since the import; its hook groups go back after the others, \
                     and Codex asks to approve the ones whose place changed",
                    file.display()
                );
            }
        }
    }
    if doc
        .get("hooks")
        .is_some_and(|h| h.as_object().is_some_and(Map::is_empty))
    {
        doc.remove("hooks");
    }
    let state: Vec<(String, String)> = saved["state"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect();
    write_approvals(&state)?;
    let _ = std::fs::remove_file(&path);
    Ok(true)
}
