//! hookshot's own death takes its hooks with it: an agent that applies its
//! own timeout to `hookshot fire` (SIGTERM) must not leave hooks running
//! with PPID 1.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;

mod common;

fn gone(pid: Pid) -> bool {
    // Gone, or a zombie waiting for init to reap it.
    kill(pid, None).is_err()
        || std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| s.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
            .unwrap_or(true)
}

/// `hookshot fire --agent AGENT EVENT` with `dir/s.json`, run in `dir`.
fn fire_as(dir: &std::path::Path, agent: &str, event: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hookshot"));
    c.args([
        "fire",
        "--agent",
        agent,
        event,
        "--settings",
        "s.json",
        "--workdir",
        ".",
    ])
    .current_dir(dir)
    .env("HOME", dir);
    c
}

#[test]
fn a_signal_to_hookshot_ends_the_hooks_it_runs() {
    for (sig, code) in [(Signal::SIGTERM, 143), (Signal::SIGINT, 130), (Signal::SIGHUP, 129)] {
        let dir = tempfile::tempdir().unwrap();
        let settings = json!({"hooks": {"BeforeTool": [{"hooks": [
            {"type": "command", "command": "echo $$ > hook.pid; sleep 1 & echo $! > child.pid; exec sleep 30", "timeout": 60000}]}]}});
        std::fs::write(dir.path().join("s.json"), settings.to_string()).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_hookshot"))
            .args(["fire", "BeforeTool", "--settings", "s.json", "--workdir", "."])
            .current_dir(dir.path())
            .env("HOME", dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let read_pid = |f: &str| -> Option<Pid> {
            let t = std::fs::read_to_string(dir.path().join(f)).ok()?;
            t.trim().parse().ok().map(Pid::from_raw)
        };
        let t = Instant::now();
        let (hook, grandchild) = loop {
            if let (Some(h), Some(g)) = (read_pid("hook.pid"), read_pid("child.pid")) {
                break (h, g);
            }
            assert!(t.elapsed() < Duration::from_secs(10), "the hook never started");
            std::thread::sleep(Duration::from_millis(20));
        };
        kill(Pid::from_raw(child.id() as i32), sig).unwrap();
        let t = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(t.elapsed() < Duration::from_secs(5), "hookshot did not exit on {sig}");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(code), "{sig}");
        let t = Instant::now();
        while !(gone(hook) && gone(grandchild)) {
            assert!(
                t.elapsed() < Duration::from_secs(2),
                "{sig}: the hook or its child survived hookshot"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn under_codexs_hard_session_end_limit_hookshot_ends_its_hooks_before_codex_kills_it() {
    // Codex kills the SessionEnd hook it started (hookshot) after 3 s with
    // SIGKILL, which hookshot cannot catch: a hook still running then would
    // be left with PPID 1. Here the test is Codex.
    let dir = tempfile::tempdir().unwrap();
    let settings = json!({"hooks": {"SessionEnd": [{"hooks": [
        {"type": "command", "command": "sleep 100 & echo $! > child.pid; wait", "timeout": 30}]}]}});
    std::fs::write(dir.path().join("s.json"), settings.to_string()).unwrap();
    let mut child = fire_as(dir.path(), "codex", "SessionEnd")
        .env_remove("HOOKSHOT_DEPTH")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = json!({"session_id": "s", "hook_event_name": "SessionEnd", "cwd": dir.path(), "turn_id": "t"});
    common::write_stdin(&mut child, input.to_string().as_bytes()).unwrap();
    let start = Instant::now();
    let finished = loop {
        if child.try_wait().unwrap().is_some() {
            break true;
        }
        if start.elapsed() >= Duration::from_secs(3) {
            let _ = child.kill();
            let _ = child.wait();
            break false;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let grandchild: Pid = std::fs::read_to_string(dir.path().join("child.pid"))
        .unwrap()
        .trim()
        .parse()
        .map(Pid::from_raw)
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let alive = !gone(grandchild);
    if alive {
        let _ = kill(grandchild, Signal::SIGKILL);
    }
    assert!(finished, "hookshot was still running at Codex's 3 s limit");
    assert!(!alive, "a hook's process outlived hookshot");
}

/// A SIGTERM while a built-in checks a long command ends `fire` at once
/// (exit 143, no answer): before, the check held the only thread and the
/// signal was heard only once it had answered.
#[test]
fn a_signal_during_a_long_built_in_check_ends_fire_at_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.json"),
        json!({"builtins": {"dangerous_confirmation": {"mode": "deny"}}}).to_string(),
    )
    .unwrap();
    // A quarter of the 1 MiB a command may have: a check of a tenth of a
    // second or more.
    let command = format!("{}ls", "cd a; ".repeat(43_000));
    let input = json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}, "cwd": dir.path()});
    let mut child = fire_as(dir.path(), "claude", "PreToolUse")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    common::write_stdin(&mut child, input.to_string().as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(30));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let out = child.wait_with_output().unwrap();
    // 143 once its handler is in place; ended by the signal itself if it
    // came while the input was still being read (nothing runs then).
    use std::os::unix::process::ExitStatusExt as _;
    assert!(
        out.status.code() == Some(143) || out.status.signal() == Some(15),
        "{:?}: {:?}",
        out.status,
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(out.stdout.is_empty(), "{:?}", String::from_utf8_lossy(&out.stdout));
}
