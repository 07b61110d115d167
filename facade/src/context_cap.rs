//! Codex cuts what each of its hooks adds to the model's context to that
//! hook's `additionalContextLimit` (2,500 tokens by default) and saves the
//! whole text to a file the model is told of. hookshot is one Codex hook
//! that runs many: it cuts each hook it ran the same way, so the model gets
//! what it would have had with those hooks in Codex's own file, and asks
//! Codex not to cut the sum again ([`CODEX_ENTRY_CONTEXT_LIMIT`] on its
//! entries).
//!
//! [`CODEX_ENTRY_CONTEXT_LIMIT`]: hookshot_core::agent::CODEX_ENTRY_CONTEXT_LIMIT

use std::io::Write;
use std::path::PathBuf;

use hookshot_core::agent::codex_cut_context;
use hookshot_core::{Agent, EventKind, HookRecord};

use crate::background::spool;

/// Cuts each record's context longer than its hook's limit, as Codex does;
/// what the user is told of a whole text that could not be saved (the
/// cut still applies: the model never gets more than the limit).
pub(crate) fn cut(agent: Option<Agent>, records: &mut [HookRecord], event: EventKind, session: &str) -> Vec<String> {
    let mut unsaved = Vec::new();
    let Some(default) = agent.and_then(|a| a.context_limit(event)) else {
        return unsaved;
    };
    for r in records {
        let Some(text) = r.output.additional_context.as_deref() else {
            continue;
        };
        let limit = r.hook.options.context_limit.unwrap_or(default);
        if text.len() as u64 <= limit.saturating_mul(4) {
            continue;
        }
        let saved = save(session, text);
        let note = match &saved {
            Ok(path) => format!("\n\nFull hook output saved to: {}", path.display()),
            Err(e) => {
                unsaved.push(format!(
                    "{}: its context was cut to {limit} tokens, and the whole text could not be saved: {e}",
                    r.hook.label()
                ));
                String::new()
            }
        };
        if let Some(cut) = codex_cut_context(text, limit, &note) {
            r.output.additional_context = Some(cut);
        }
    }
    unsaved
}

/// The whole text, in `$XDG_STATE_HOME/hookshot/hook-outputs/<session
/// hash>/` (0700 folders, a 0600 file: Codex's `/tmp/hook_outputs` is
/// shared with every user of the machine).
fn save(session: &str, text: &str) -> std::io::Result<PathBuf> {
    let dir = crate::builtins::state_dir()
        .ok_or_else(|| std::io::Error::other("no state folder ($XDG_STATE_HOME or $HOME)"))?
        .join("hook-outputs")
        .join(spool::key(session));
    spool::ensure(&dir)?;
    let path = dir.join(format!("{}.txt", spool::unique()));
    spool::create(&path)?.write_all(text.as_bytes())?;
    Ok(path)
}
