//! Cline's registration: its hooks are executables named after their
//! events (`~/.cline/hooks/PreToolUse`, a project's
//! `.clinerules/hooks/PreToolUse`), not entries of a settings file. Each
//! of hookshot's is a small script that runs `hookshot fire --agent cline
//! EVENT` and says so on its second line, which is how uninstall knows it.
//! A file of the user's own at one of those names is never touched: that
//! event stays the user's (Cline runs one file per event and folder).

use std::path::{Path, PathBuf};

use hookshot::{Agent, EventKind, FailPolicy};

use super::{Guarded, Registration, Scope, file};
use crate::Fail;

/// The second line of every script install writes.
const MARK: &str =
    "# hookshot: written by `hookshot install --agent cline`; `hookshot uninstall --agent cline` removes it";

/// The hook files hookshot registers as, by Cline's names.
pub(super) fn events() -> Vec<&'static str> {
    hookshot::agent::CLINE_HOOK_FILES.iter().map(|(n, _)| *n).collect()
}

/// The hook files earlier installs wrote that Cline never runs
/// (PreCompact: Cline 3.0.65 maps it to no hook): install and uninstall
/// take hookshot's own out, so no file claims a guard that never fires.
const RETIRED: &[&str] = &["PreCompact"];

/// Removes hookshot's own scripts at the [`RETIRED`] names in `dir`;
/// how many.
fn remove_retired(dir: &Path) -> Result<usize, Fail> {
    let mut removed = 0;
    for name in RETIRED {
        let path = dir.join(name);
        if ours(&path) {
            std::fs::remove_file(&path).map_err(|e| Fail::Usage(format!("{}: cannot remove: {e}", path.display())))?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Cline's hooks folder for `scope`.
pub(super) fn folder(scope: &Scope) -> PathBuf {
    match scope {
        Scope::User { home, .. } => home.join(Agent::Cline.user_folder()).join("hooks"),
        Scope::Project(p) => p.join(Agent::Cline.hooks_folder()),
    }
}

/// The script for `event`: hookshot's answer, or, when hookshot is not
/// there any more or ends without answering (a crash, a signal, a settings
/// file it could not read: Cline reads no exit code, so that would be
/// silence and the event would go on), what the failure policy says:
/// a block is `cancel`.
fn script(program: &str, event: &str, policy: FailPolicy) -> String {
    let guards = hookshot::agent::cline_event(event).is_some_and(EventKind::guards_an_action);
    let fix = "reinstall hookshot, or run: hookshot uninstall --all";
    let answer = if policy == FailPolicy::Closed && guards {
        "printf '{\"cancel\": true, \"errorMessage\": \"%s (blocked by the closed failure policy)\"}\\n' \"$m\""
    } else {
        "echo '{}'"
    };
    format!(
        "#!/bin/sh\n{MARK}\nP={program}\n\
         if [ -x \"$P\" ]; then\n\
         \x20 out=$(\"$P\" fire --agent cline {event}); s=$?\n\
         \x20 [ -n \"$out\" ] && {{ printf '%s\\n' \"$out\"; exit 0; }}\n\
         \x20 m=\"hookshot fire {event} ended without an answer (exit $s), so its hooks did not run; {fix}\"\n\
         else\n\
         \x20 cat >/dev/null\n\
         \x20 m=\"hookshot could not run (it is not installed there any more): {event}; {fix}\"\n\
         fi\n\
         echo \"$m\" >&2\n\
         {answer}\n"
    )
}

/// The text of `path`, a regular file of this user's.
fn text_of(path: &Path) -> Option<String> {
    file::read_own(path).and_then(|(bytes, _)| String::from_utf8(bytes).ok())
}

/// The text of `path` when it is a script install wrote.
fn our_text(path: &Path) -> Option<String> {
    text_of(path).filter(|t| t.lines().nth(1) == Some(MARK))
}

/// Whether `path` is a script install wrote.
fn ours(path: &Path) -> bool {
    our_text(path).is_some()
}

/// Writes hookshot's script for each event; the events left to the user's
/// own files.
pub(super) fn install(scope: &Scope, program: &str, policy: FailPolicy, dry: bool) -> Result<Vec<String>, Fail> {
    let dir = folder(scope);
    let mut left = Vec::new();
    let mut written = 0;
    for event in events() {
        let path = dir.join(event);
        let exists = std::fs::symlink_metadata(&path).is_ok();
        if exists && !ours(&path) {
            left.push(format!(
                "{}: your own {event} hook; Cline runs one file per event, so hookshot does not register there",
                path.display()
            ));
            continue;
        }
        let text = script(program, event, policy);
        if text_of(&path).as_deref() == Some(text.as_str()) {
            continue;
        }
        if dry {
            println!("would write {}:\n{text}", path.display());
            continue;
        }
        file::write(&path, text.as_bytes(), scope.confine(), false, None)?;
        set_executable(&path)?;
        written += 1;
    }
    if !dry {
        written += remove_retired(&dir)?;
        if written == 0 && left.is_empty() {
            println!(
                "{}: hookshot is already registered for all {} events; nothing changed",
                dir.display(),
                events().len()
            );
        } else if written > 0 {
            println!(
                "{}: hookshot registered for {written} event(s) ({} in all), one script per event; `hookshot uninstall --agent cline` removes them",
                dir.display(),
                events().len()
            );
        }
    }
    Ok(left)
}

fn set_executable(path: &Path) -> Result<(), Fail> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| Fail::Usage(format!("{}: cannot make it executable: {e}", path.display())))
}

/// hookshot's scripts in `scope`'s folder, for `doctor`: how many events,
/// whether each still finds its program, and what they answer without it.
pub(super) fn registration(scope: &Scope) -> Option<Registration> {
    let dir = folder(scope);
    // An event the user's own file holds is not hookshot's to register.
    let all: Vec<&str> = events()
        .into_iter()
        .filter(|e| {
            let path = dir.join(e);
            std::fs::symlink_metadata(&path).is_err() || ours(&path)
        })
        .collect();
    let mut reg = Registration {
        file: dir.clone(),
        events: 0,
        all: all.len(),
        guarded: Guarded::Blocks,
        missing: Vec::new(),
    };
    for event in &all {
        let Some(text) = our_text(&dir.join(event)) else {
            continue;
        };
        reg.events += 1;
        let guards = hookshot::agent::cline_event(event).is_some_and(EventKind::guards_an_action);
        // Cline shows a hook's messages nowhere (an `errorMessage` without
        // `cancel` is dropped: measured), so only a cancel is seen.
        if guards && !text.contains("\"cancel\": true") {
            reg.guarded = Guarded::Silently;
        }
        let program = text
            .lines()
            .find_map(|l| l.strip_prefix("P="))
            .unwrap_or_default()
            .to_string();
        if !super::can_run(&program) && !reg.missing.contains(&program) {
            reg.missing.push(program);
        }
    }
    (reg.events > 0).then_some(reg)
}

/// Removes the scripts install wrote; whether there was any.
pub(super) fn uninstall(scope: &Scope) -> Result<bool, Fail> {
    let dir = folder(scope);
    let mut removed = remove_retired(&dir)?;
    for event in events() {
        let path = dir.join(event);
        if ours(&path) {
            std::fs::remove_file(&path).map_err(|e| Fail::Usage(format!("{}: cannot remove: {e}", path.display())))?;
            removed += 1;
        }
    }
    if removed > 0 {
        println!("{}: hookshot's {removed} script(s) removed", dir.display());
    }
    Ok(removed > 0)
}
