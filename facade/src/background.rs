//! Hooks the agent does not wait for: Claude Code's `async` and
//! `asyncRewake`. The event is answered without them; what they say when
//! they finish (their context, a rewake reminder, or why they failed) is
//! held for their session and reaches the model with that session's next
//! event that carries context, as Claude Code delivers it "on the next
//! conversation turn".
//!
//! A long-lived host (`serve`, `replay`, an embedding app) runs them as
//! tasks of its own and holds their results in memory. A one-shot `fire`
//! ends with its event, so it leaves them to a detached `hookshot` of their
//! own, and the results wait in a spool folder for the next `fire` of the
//! same session.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use hookshot_core::HookRecord;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::task::JoinSet;

/// Where a host runs the hooks the agent does not wait for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum BackgroundMode {
    /// As tasks of this process, results held in memory (`serve`, `replay`,
    /// an embedding app). Cancelled by [`crate::HookSystem::shutdown`], as
    /// Claude Code cancels them when a `-p` session ends.
    #[default]
    Tasks,
    /// Within the event, as if they were ordinary hooks, their results kept
    /// as deliveries only: the detached runner of a one-shot `fire`.
    Inline,
    /// Not at all: the caller starts them elsewhere (a one-shot `fire`
    /// hands them to a detached `hookshot`).
    Elsewhere,
}

/// What one background run left for the model or the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delivery {
    /// The hook, as warnings name it.
    pub hook: String,
    /// Its context or rewake reminder, for the model.
    pub context: Option<String>,
    /// Why it failed, for the user.
    pub warning: Option<String>,
}

impl Delivery {
    /// What `record` has to deliver, if anything.
    pub fn of(record: &HookRecord) -> Option<Delivery> {
        let d = Delivery {
            hook: record.hook.label().to_string(),
            context: record.output.additional_context.clone(),
            warning: record.warning(),
        };
        (d.context.is_some() || d.warning.is_some()).then_some(d)
    }
}

/// The background runs of one hook system and what they left undelivered,
/// shared with the systems a reload makes.
#[derive(Debug, Default)]
pub(crate) struct Background {
    pub(crate) mode: BackgroundMode,
    pending: Arc<Mutex<HashMap<String, Vec<Delivery>>>>,
    tasks: Mutex<JoinSet<()>>,
    /// Results of detached runs (a one-shot `fire`'s), read and removed by
    /// the next event of their session.
    pub(crate) spool: Option<PathBuf>,
}

impl Background {
    pub(crate) fn new(mode: BackgroundMode, spool: Option<PathBuf>) -> Background {
        Background {
            mode,
            spool,
            ..Background::default()
        }
    }

    /// Runs `work` as a task; its records become deliveries for `session`.
    pub(crate) fn start(
        &self,
        session: String,
        work: impl Future<Output = Vec<HookRecord>> + Send + 'static,
        done: impl FnOnce(&[HookRecord]) + Send + 'static,
    ) {
        let pending = Arc::clone(&self.pending);
        // A poisoned lock still holds a usable set: a run is never dropped
        // because some other thread panicked.
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        // Finished tasks are dropped here, so the set holds only live ones.
        while tasks.try_join_next().is_some() {}
        tasks.spawn(async move {
            let records = work.await;
            done(&records);
            let found: Vec<Delivery> = records.iter().filter_map(Delivery::of).collect();
            if !found.is_empty() {
                let mut p = pending.lock().unwrap_or_else(PoisonError::into_inner);
                p.entry(session).or_default().extend(found);
            }
        });
    }

    /// Everything waiting for `session`: held in memory, then spooled by
    /// detached runs up to `until`.
    pub(crate) fn take(&self, session: &str, until: std::time::SystemTime) -> Vec<Delivery> {
        let mut out = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(session)
            .unwrap_or_default();
        if let Some(dir) = &self.spool {
            out.extend(spool::take(dir, session, until));
        }
        out
    }

    /// Cancels the runs still going: dropping a run kills its processes.
    pub(crate) async fn shutdown(&self) {
        let mut tasks = std::mem::take(&mut *self.tasks.lock().unwrap_or_else(PoisonError::into_inner));
        tasks.shutdown().await;
    }
}

/// Results of detached background runs, one file per run, named by a hash
/// of the session (a session id never becomes a path). Written to a
/// temporary name and renamed, claimed by renaming before reading: each
/// result is delivered once even when two `fire`s of a session race.
pub mod spool {
    use super::*;

    /// The most a spool file is read: a run's context is capped by the
    /// output cap long before this.
    const MAX_FILE: u64 = 8 << 20;

    /// Results no event of their session came for in this long are removed.
    const FORGOTTEN: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

    /// The spool folder: `$XDG_STATE_HOME/hookshot/background`.
    pub fn dir() -> Option<PathBuf> {
        crate::builtins::state_dir().map(|d| d.join("background"))
    }

    pub(crate) fn key(session: &str) -> String {
        let digest = Sha256::digest(session.as_bytes());
        digest[..12].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// A name no other process makes, always of the same length: a saved
    /// hook output's path is part of what Codex's context cut keeps room
    /// for, so a pid of another width must not move the cut.
    pub(crate) fn unique() -> String {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        format!("{:08x}-{:032x}", std::process::id(), t.as_nanos())
    }

    /// Makes the folder (0700); refuses a symlink in its place.
    pub(crate) fn ensure(dir: &Path) -> std::io::Result<()> {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        let meta = std::fs::symlink_metadata(dir)?;
        if !meta.file_type().is_dir() {
            return Err(std::io::Error::other(format!("{} is not a folder", dir.display())));
        }
        Ok(())
    }

    /// A new file of our own, 0600, never through a symlink.
    pub(crate) fn create(path: &Path) -> std::io::Result<std::fs::File> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
            .open(path)
    }

    fn read(path: &Path) -> std::io::Result<Vec<u8>> {
        let f = OpenOptions::new()
            .read(true)
            .custom_flags((nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK).bits())
            .open(path)?;
        if !f.metadata()?.file_type().is_file() {
            return Err(std::io::Error::other("not a regular file"));
        }
        let mut bytes = Vec::new();
        f.take(MAX_FILE).read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// Saves `found` for the next event of `session`.
    pub fn put(dir: &Path, session: &str, found: &[Delivery]) -> std::io::Result<()> {
        if found.is_empty() {
            return Ok(());
        }
        ensure(dir)?;
        let name = format!("{}-{}.json", key(session), unique());
        let bytes = serde_json::to_vec(found).map_err(std::io::Error::other)?;
        // Not durable: a result lost in a crash is one the next event
        // would have reported late anyway.
        let how = hookshot_core::atomic::Replace {
            mode: 0o600,
            durable: false,
        };
        hookshot_core::atomic::replace(&dir.join(name), how, |f| f.write_all(&bytes))
    }

    /// Takes what waits for `session`, removing it.
    pub fn take(dir: &Path, session: &str, until: std::time::SystemTime) -> Vec<Delivery> {
        // Only a folder of our own is read: not one a symlink leads to.
        if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_dir()) {
            return Vec::new();
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let prefix = format!("{}-", key(session));
        let mut names = Vec::new();
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name.starts_with(&prefix) && name.ends_with(".json") {
                // Spooled after `until`: for the session's next event.
                if entry.metadata().and_then(|m| m.modified()).is_ok_and(|t| t > until) {
                    continue;
                }
                names.push(name);
            } else if entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > FORGOTTEN))
            {
                // Results of sessions that ended, jobs nobody ran.
                let _ = std::fs::remove_file(entry.path());
            }
        }
        // Oldest first: the name carries the writer's clock after its pid,
        // which orders runs of one writer; across writers any order is fair.
        names.sort();
        let mut out = Vec::new();
        for name in names {
            let claimed = dir.join(format!(".{name}.taken-{}", unique()));
            if std::fs::rename(dir.join(&name), &claimed).is_err() {
                continue;
            }
            let read = read(&claimed);
            let _ = std::fs::remove_file(&claimed);
            match read.map(|b| serde_json::from_slice::<Vec<Delivery>>(&b)) {
                Ok(Ok(found)) => out.extend(found),
                Ok(Err(e)) => out.push(unreadable(&name, &e.to_string())),
                Err(e) => out.push(unreadable(&name, &e.to_string())),
            }
        }
        out
    }

    fn unreadable(name: &str, why: &str) -> Delivery {
        Delivery {
            hook: "background".into(),
            context: None,
            warning: Some(format!(
                "the result of a background hook run ({name}) could not be read: {why}"
            )),
        }
    }

    /// Writes an event's input for a detached run to pick up; returns its path.
    pub fn put_job(dir: &Path, input: &[u8]) -> std::io::Result<PathBuf> {
        ensure(dir)?;
        let path = dir.join(format!("job-{}.json", unique()));
        let mut f = create(&path)?;
        if let Err(e) = f.write_all(input) {
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        Ok(path)
    }

    /// Reads and removes a job written by [`put_job`].
    pub fn take_job(path: &Path) -> std::io::Result<Vec<u8>> {
        let bytes = read(path);
        let _ = std::fs::remove_file(path);
        bytes
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn said(text: &str) -> Delivery {
            Delivery {
                hook: "h".into(),
                context: Some(text.into()),
                warning: None,
            }
        }

        fn now() -> std::time::SystemTime {
            std::time::SystemTime::now()
        }

        /// Every name is as long as every other (whatever the pid's width):
        /// a saved output's path length moves Codex's context cut.
        #[test]
        fn unique_names_have_one_length() {
            let a = unique();
            assert_eq!(a.len(), 8 + 1 + 32, "{a}");
            assert_ne!(a, unique());
        }

        /// A result spooled after the event was planned (its own
        /// background hook, handed off after planning, that finished
        /// first) waits for the session's next event.
        #[test]
        fn a_result_spooled_after_planning_waits_for_the_next_event() {
            let dir = tempfile::tempdir().unwrap();
            let spool = dir.path().join("background");
            let planned = now() - std::time::Duration::from_secs(1);
            put(&spool, "a", &[said("late")]).unwrap();
            assert!(take(&spool, "a", planned).is_empty());
            let got: Vec<_> = take(&spool, "a", now()).into_iter().filter_map(|d| d.context).collect();
            assert_eq!(got, ["late"]);
        }

        #[test]
        fn each_result_is_delivered_once_to_its_own_session() {
            let dir = tempfile::tempdir().unwrap();
            let spool = dir.path().join("background");
            put(&spool, "a", &[said("one")]).unwrap();
            put(&spool, "a", &[said("two")]).unwrap();
            put(&spool, "b", &[said("other")]).unwrap();
            let got: Vec<_> = take(&spool, "a", now()).into_iter().filter_map(|d| d.context).collect();
            assert_eq!(got.len(), 2, "{got:?}");
            assert!(got.contains(&"one".to_string()) && got.contains(&"two".to_string()));
            assert!(take(&spool, "a", now()).is_empty());
            assert_eq!(take(&spool, "b", now())[0].context.as_deref(), Some("other"));
            // Nothing is left behind.
            assert_eq!(std::fs::read_dir(&spool).unwrap().count(), 0);
        }

        #[test]
        fn a_planted_file_is_reported_not_trusted() {
            let dir = tempfile::tempdir().unwrap();
            let spool = dir.path().to_path_buf();
            std::fs::write(spool.join(format!("{}-1-1.json", key("s"))), "not json").unwrap();
            let got = take(&spool, "s", now());
            assert_eq!(got.len(), 1);
            assert!(got[0].context.is_none());
            assert!(
                got[0].warning.as_deref().unwrap().contains("could not be read"),
                "{got:?}"
            );
        }

        #[test]
        fn a_symlinked_spool_folder_is_refused() {
            let dir = tempfile::tempdir().unwrap();
            let elsewhere = dir.path().join("elsewhere");
            std::fs::create_dir(&elsewhere).unwrap();
            let spool = dir.path().join("background");
            std::os::unix::fs::symlink(&elsewhere, &spool).unwrap();
            assert!(put(&spool, "s", &[said("x")]).is_err());
            assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        }
    }
}
