//! Replacing a file whole or not at all: the one way hookshot writes a
//! file others read while it writes (the trust store, an agent's settings
//! file, the background spool, the lasting copy of the binary). The new
//! content goes into a fresh file beside the target (`O_EXCL`: never an
//! existing file, never through a symlink), then is renamed over it, so a
//! reader sees the old file or the new one, never half of one; a failure
//! removes the fresh file and leaves the target as it was.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// How the fresh file is made.
#[derive(Debug, Clone, Copy)]
pub struct Replace {
    /// Its mode at creation (the umask applies; `fill` may set another).
    pub mode: u32,
    /// Flushed to disk, and its folder's entry too, before the call
    /// returns: for files whose loss would lose a user's decision.
    pub durable: bool,
}

/// Replaces `target` with what `fill` writes into a fresh file beside it.
pub fn replace(target: &Path, how: Replace, fill: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::other(format!("{} names no file", target.display())))?;
    let temp = dir.join(format!(
        ".{}.{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(how.mode)
            .open(&temp)?;
        fill(&mut file)?;
        if how.durable {
            file.sync_all()?;
        }
        std::fs::rename(&temp, target)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(e);
    }
    if how.durable
        && let Ok(d) = File::open(dir)
    {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn the_target_is_replaced_whole_or_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("f.json");
        std::fs::write(&target, "old").unwrap();
        let how = Replace {
            mode: 0o600,
            durable: true,
        };
        replace(&target, how, |f| f.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        let failed = replace(&target, how, |f| {
            f.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no fresh file is left behind");
    }

    #[test]
    fn a_symlink_planted_at_the_fresh_files_name_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        // Whatever fresh name is chosen, creating it never opens an
        // existing path: a symlink in the target's place is replaced, not
        // written through.
        std::os::unix::fs::symlink(&victim, &target).unwrap();
        replace(
            &target,
            Replace {
                mode: 0o600,
                durable: false,
            },
            |f| f.write_all(b"x"),
        )
        .unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert!(!std::fs::symlink_metadata(&target).unwrap().file_type().is_symlink());
    }
}
