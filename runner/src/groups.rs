//! The process groups hookshot owns, so that every one of them can be ended
//! when hookshot itself is told to stop, and none is signalled after it was
//! given up (its id may belong to someone else by then).
//!
//! The rule: a hook that exits on its own releases its group (what it left
//! running in the background, such as an upload, goes on); a hook that
//! times out, is cancelled, or is still running when hookshot exits has its
//! group killed.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

static OWNED: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
/// Woken whenever a group is taken on.
static TAKEN: tokio::sync::Notify = tokio::sync::Notify::const_new();

fn owned() -> std::sync::MutexGuard<'static, BTreeSet<i32>> {
    OWNED.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A process group this process started and still answers for. Dropping it
/// kills the group, if it is still owned.
#[derive(Debug)]
pub(crate) struct OwnedGroup(Option<i32>);

impl OwnedGroup {
    /// Takes ownership of the group led by `pid` (started with
    /// `process_group(0)`).
    pub(crate) fn new(pid: Option<u32>) -> OwnedGroup {
        let id = pid.map(|p| p as i32);
        if let Some(id) = id {
            owned().insert(id);
            TAKEN.notify_waiters();
        }
        OwnedGroup(id)
    }

    /// Signals the group while it is still ours.
    pub(crate) fn signal(&self, sig: Signal) {
        if let Some(id) = self.0
            && owned().contains(&id)
        {
            // ESRCH (group already gone) is the expected, good case.
            let _ = killpg(Pid::from_raw(id), sig);
        }
    }

    /// Gives the group up without signalling it.
    pub(crate) fn release(mut self) {
        if let Some(id) = self.0.take() {
            owned().remove(&id);
        }
    }
}

impl Drop for OwnedGroup {
    fn drop(&mut self) {
        if let Some(id) = self.0.take()
            && owned().remove(&id)
        {
            let _ = killpg(Pid::from_raw(id), Signal::SIGKILL);
        }
    }
}

/// The process groups this process owns now: what to end if it dies
/// without ending them (a warm server's client does, when the server
/// vanishes mid-event).
pub fn owned_groups() -> Vec<i32> {
    owned().iter().copied().collect()
}

/// Resolves when this process next takes on a group (starts a hook).
pub async fn group_taken() {
    TAKEN.notified().await;
}

/// Ends every group hookshot owns: SIGTERM, up to `grace` for them to go,
/// then SIGKILL. For shutdown (a signal to hookshot itself): it blocks the
/// calling thread, and afterwards nothing is owned any more.
pub fn terminate_all(grace: Duration) {
    let groups: Vec<Pid> = std::mem::take(&mut *owned()).into_iter().map(Pid::from_raw).collect();
    for g in &groups {
        let _ = killpg(*g, Signal::SIGTERM);
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline && groups.iter().any(|g| killpg(*g, None).is_ok()) {
        std::thread::sleep(Duration::from_millis(10));
    }
    for g in &groups {
        let _ = killpg(*g, Signal::SIGKILL);
    }
}
