//! Cursor tells its `stop` hooks how many follow-ups its stop hooks have
//! already made in a row (`loop_count`), and takes no more from a hook
//! than its `loop_limit` (5 by default). A Cursor stop hook written to
//! go on "until the tests pass" leans on that cap. Claude Code and
//! gemini-cli say only whether the turn goes on because of a stop hook
//! (`stop_hook_active`) and cap nothing: run for them, such a hook would
//! keep the agent going forever. hookshot counts the follow-ups of each
//! session itself, in a small file, and applies Cursor's cap.

use std::io::Write;
use std::path::PathBuf;

use hookshot_core::{Decision, Dialect, EventKind, HookDef, HookRecord};
use serde_json::{Map, Value, json};

use crate::background::spool;

/// Whether `hooks` hold a hook of Cursor's own file that reads the count.
pub(crate) fn wanted(event: EventKind, hooks: &[std::sync::Arc<HookDef>]) -> bool {
    event == EventKind::AfterAgent && hooks.iter().any(|h| h.dialect == Dialect::Cursor)
}

fn file(session: &str) -> Option<PathBuf> {
    Some(
        crate::builtins::state_dir()?
            .join("stop-loops")
            .join(spool::key(session)),
    )
}

/// The follow-ups made in a row before this end of a turn, put in the
/// input as `loop_count` (unless the caller, Cursor itself, gave one): 0
/// when the turn does not go on because of a stop hook.
pub(crate) fn count(input: &mut Map<String, Value>, session: &str) -> u32 {
    if let Some(n) = input.get("loop_count").and_then(Value::as_u64) {
        return u32::try_from(n).unwrap_or(u32::MAX);
    }
    let going_on = input.get("stop_hook_active") == Some(&Value::Bool(true));
    let n = if going_on {
        file(session)
            .and_then(|f| std::fs::read_to_string(f).ok())
            .and_then(|t| t.trim().parse().ok())
            // A follow-up hookshot did not count (the file is gone) is one.
            .unwrap_or(1)
    } else {
        0
    };
    input.insert("loop_count".into(), json!(n));
    n
}

/// Drops the follow-up of each Cursor hook whose `loop_limit` the count
/// reached, as Cursor does; what the user is told.
pub(crate) fn cap(records: &mut [HookRecord], count: u32) -> Vec<String> {
    let mut said = Vec::new();
    for r in records {
        let Some(limit) = r.hook.options.loop_limit else {
            continue;
        };
        if r.hook.dialect == Dialect::Cursor && r.output.decision.is_block() && count >= limit {
            r.output.decision = Decision::Undecided;
            r.output.reason = None;
            said.push(format!(
                "hook {}: its follow-up was dropped: Cursor takes {limit} in a row from it (its loop_limit), and {count} were made",
                r.hook.label()
            ));
        }
    }
    said
}

/// Keeps the count for the session's next end of a turn: one more when
/// the agent goes on now, none when it stops.
pub(crate) fn record(session: &str, count: u32, goes_on: bool) -> Result<(), String> {
    let Some(path) = file(session) else {
        return Err("no state folder ($XDG_STATE_HOME or $HOME) to count stop follow-ups in".into());
    };
    if !goes_on {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.to_string()),
            _ => Ok(()),
        };
    }
    let dir = path.parent().unwrap_or(&path);
    spool::ensure(dir).map_err(|e| e.to_string())?;
    let how = hookshot_core::atomic::Replace {
        mode: 0o600,
        durable: false,
    };
    let text = (count.saturating_add(1)).to_string();
    hookshot_core::atomic::replace(&path, how, |f| f.write_all(text.as_bytes())).map_err(|e| e.to_string())
}
