//! A started hook process, supervised as cargo-nextest supervises a test:
//! in its own process group, its input written while its output is read
//! (each stream capped), at its deadline SIGTERM to the group, a grace,
//! then SIGKILL; nothing left running that the hook did not put in the
//! background itself, and no zombie.

use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Child;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::groups::OwnedGroup;
use crate::{Captured, Exit, RunnerConfig};

/// Runs `child` (started in a process group of its own) to its end or to
/// `timeout`, feeding it `input`; `start` is when it was started.
pub(crate) async fn supervise(
    mut child: Child,
    cfg: &RunnerConfig,
    timeout: Duration,
    input: &[u8],
    start: Instant,
) -> Captured {
    // Dropped on any path out of here (cancellation included), it kills
    // the group; a hook that exits on its own releases it below.
    let group = OwnedGroup::new(child.id());
    let (stop_tx, stop_rx) = watch::channel(false);

    // The input is written while the hook runs, from the caller's bytes:
    // no copy per hook (ten hooks of a 100 MB event would hold 1 GB).
    let stdin = child.stdin.take();
    let writer = async move {
        if let Some(mut stdin) = stdin {
            // EPIPE from a hook that never reads its input is fine.
            let _ = stdin.write_all(input).await;
            let _ = stdin.shutdown().await;
        }
    };
    tokio::pin!(writer);
    let mut written = false;
    let out = child
        .stdout
        .take()
        .map(|s| tokio::spawn(read_capped(s, cfg.output_cap, stop_rx.clone())));
    let err = child
        .stderr
        .take()
        .map(|s| tokio::spawn(read_capped(s, cfg.output_cap, stop_rx)));

    let mut timed_out = false;
    let expiry = tokio::time::sleep(timeout);
    tokio::pin!(expiry);
    let status = loop {
        tokio::select! {
            s = child.wait() => break s.ok(),
            () = &mut writer, if !written => written = true,
            () = &mut expiry => {
                timed_out = true;
                group.signal(Signal::SIGTERM);
                match tokio::time::timeout(cfg.kill_grace, child.wait()).await {
                    Ok(s) => break s.ok(),
                    Err(_) => {
                        group.signal(Signal::SIGKILL);
                        break child.wait().await.ok();
                    }
                }
            }
        }
    };

    // The hook is gone; its pipes close unless something it started still
    // holds them. Give such leftovers a moment. A hook that ended on its
    // own keeps what it started in the background (its output is no
    // longer read); one that timed out has its whole group killed.
    let collect = async {
        let o = match out {
            Some(h) => h.await.unwrap_or_default(),
            None => Default::default(),
        };
        let e = match err {
            Some(h) => h.await.unwrap_or_default(),
            None => Default::default(),
        };
        (o, e)
    };
    tokio::pin!(collect);
    let ((stdout, stdout_truncated), (stderr, stderr_truncated)) =
        match tokio::time::timeout(cfg.pipe_linger, &mut collect).await {
            Ok(r) => r,
            Err(_) if !timed_out => {
                let _ = stop_tx.send(true);
                collect.await
            }
            Err(_) => {
                group.signal(Signal::SIGKILL);
                match tokio::time::timeout(cfg.kill_grace, &mut collect).await {
                    Ok(r) => r,
                    Err(_) => {
                        // A process that left the group (setsid) holds the
                        // pipe: stop reading and keep what arrived.
                        let _ = stop_tx.send(true);
                        collect.await
                    }
                }
            }
        };
    if timed_out {
        drop(group);
    } else {
        group.release();
    }

    use std::os::unix::process::ExitStatusExt;
    Captured {
        exit: Exit {
            code: status.and_then(|s| s.code()),
            signal: if timed_out {
                None
            } else {
                status.and_then(|s| s.signal())
            },
            timed_out,
            spawn_error: None,
        },
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        stdout_truncated,
        stderr_truncated,
        duration: start.elapsed(),
        limit: Some(timeout),
    }
}

/// Reads a stream to its end (or until told to stop), keeping at most `cap`
/// bytes.
async fn read_capped<R: AsyncRead + Unpin>(mut r: R, cap: usize, mut stop: watch::Receiver<bool>) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut truncated = false;
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let n = tokio::select! {
            biased;
            res = r.read(&mut chunk) => match res {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            },
            _ = stop.changed() => break,
        };
        let room = cap.saturating_sub(kept.len());
        kept.extend_from_slice(&chunk[..n.min(room)]);
        truncated |= n > room;
    }
    (kept, truncated)
}
