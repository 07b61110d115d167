//! hookshot started by one of its own hooks.
//!
//! Multiplexer mode makes this normal: a trusted project whose settings
//! register `hookshot fire PreToolUse` runs hookshot inside hookshot. Two
//! things must hold, and neither may rest on anything a hook's subprocess or
//! a settings file's `env` can forge, since such a process inherits and can
//! set any variable:
//!
//! - **Depth** is the number of ancestor processes running this same
//!   executable, read from `/proc`, not from a variable. Past
//!   [`MAX_DEPTH`] an event is blocked with a reason (fail closed): a forged
//!   depth cannot exist, and a real runaway recursion stops.
//! - **Skipping** is limited to the exact hooks the parent hookshot is
//!   running right now. The parent passes their fingerprints in
//!   [`PARENT_VAR`] together with its pid, and a child honours the list only
//!   when that pid really is one of its hookshot ancestors. A forged or
//!   inherited list from anywhere else is ignored; a true one can only skip
//!   hooks whose answer the parent is already collecting.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hookshot_core::HookDef;

/// `<pid>:<fingerprint>,<fingerprint>...` of the hooks a hookshot is
/// running, set in each hook's environment.
pub const PARENT_VAR: &str = "HOOKSHOT_PARENT";
/// How many hookshot processes may be nested (counting ancestors).
pub const MAX_DEPTH: u32 = 4;

/// What this process knows about the hookshots above it.
#[derive(Debug, Clone, Default)]
pub struct Nesting {
    /// How many ancestors run this executable.
    pub depth: u32,
    /// Fingerprints of the hooks the parent hookshot is running.
    pub parent_hooks: HashSet<u64>,
}

impl Nesting {
    /// Reads the process tree (and [`PARENT_VAR`], when its pid checks out).
    pub fn detect() -> Nesting {
        let ancestors = hookshot_ancestors();
        let parent_hooks = std::env::var(PARENT_VAR)
            .ok()
            .and_then(|v| {
                let (pid, list) = v.split_once(':')?;
                let pid: u32 = pid.parse().ok()?;
                ancestors.contains(&pid).then(|| {
                    list.split(',')
                        .filter_map(|h| u64::from_str_radix(h, 16).ok())
                        .collect()
                })
            })
            .unwrap_or_default();
        Nesting {
            depth: ancestors.len() as u32,
            parent_hooks,
        }
    }
}

/// A hook's fingerprint: the same definition at the same place of the same
/// file (`file`: its settings file, canonical), for the same event.
pub fn fingerprint(hook: &HookDef, file: Option<&Path>) -> u64 {
    let mut h = DefaultHasher::new();
    hook.event.canonical_name().hash(&mut h);
    hook.identity.hash(&mut h);
    hook.action.hash(&mut h);
    hook.provenance.pointer.hash(&mut h);
    file.hash(&mut h);
    h.finish()
}

/// The canonical path of each settings file `hooks` come from, found when
/// hooks are (re)compiled, so firing an event costs no file-system call.
/// Fingerprints themselves are hashed when a hook is about to run: most
/// hooks of a large configuration never do.
pub fn canonical_files(hooks: &[Arc<HookDef>]) -> HashMap<PathBuf, PathBuf> {
    let mut canonical: HashMap<PathBuf, PathBuf> = HashMap::new();
    for file in hooks.iter().filter_map(|h| h.provenance.file.as_deref()) {
        if !canonical.contains_key(file) {
            let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
            canonical.insert(file.to_path_buf(), real);
        }
    }
    canonical
}

/// The value of [`PARENT_VAR`] for the hooks of one plan.
pub fn parent_value(fingerprints: &[u64]) -> String {
    let list: Vec<String> = fingerprints.iter().map(|f| format!("{f:x}")).collect();
    format!("{}:{}", std::process::id(), list.join(","))
}

use hookshot_platform::process::{exe_of, own_exe, parent_of};

/// The pids of the ancestors that run this same executable, nearest first.
fn hookshot_ancestors() -> Vec<u32> {
    let Some(me) = own_exe() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..64 {
        if pid <= 1 {
            break;
        }
        if exe_of(pid).as_ref() == Some(&me) {
            out.push(pid);
        }
        match parent_of(pid) {
            Some(p) => pid = p,
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forged_parent_lists_are_ignored() {
        // The test binary's parent is cargo, not this executable: whatever
        // the variable says, nothing is skipped and the depth is 0.
        let n = Nesting::detect();
        assert_eq!(n.depth, 0);
        assert!(n.parent_hooks.is_empty());
        assert_eq!(parent_of(std::process::id()), Some(std::os::unix::process::parent_id()));
    }
}
