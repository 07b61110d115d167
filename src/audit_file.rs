//! Where the audit log is, for the commands that read it (`stats`, `log`):
//! the one the settings configure, or a name given as the built-in would
//! place it.

use std::path::{Path, PathBuf};

use crate::fail::Fail;

/// A relative audit log name as the built-in places a user file's: here
/// when it is here, else in hookshot's state folder.
pub(crate) fn located(named: PathBuf) -> PathBuf {
    if named.is_absolute() || named.exists() {
        return named;
    }
    hookshot_core::paths::xdg_dir("XDG_STATE_HOME", ".local/state")
        .map(|d| d.join("hookshot").join(&named))
        .filter(|p| p.exists())
        .unwrap_or(named)
}

/// The audit log the settings (user, system, trusted project) configure.
pub(crate) fn configured_audit_log() -> Result<PathBuf, Fail> {
    let hooks = crate::load::build(&crate::load::Sources::default())?;
    hooks.audit_log_path().map(Path::to_path_buf).ok_or_else(|| {
        Fail::Usage(
            "no audit log is configured: turn on the audit_log built-in ({\"builtins\": {\"audit_log\": {\"path\": \"audit.jsonl\"}}}), \
             or name one with --audit FILE (or a running sidecar with --socket PATH)"
                .into(),
        )
    })
}
