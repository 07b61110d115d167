//! Fault injection: hooks that misbehave in every way we know of, through
//! the real engine and real processes. Each test asserts that nothing hangs
//! (a watchdog bounds it), nothing leaks (the processes a hook started are
//! gone), memory stays bounded, and the event still gets a correct,
//! explained decision.

use std::path::Path;
use std::time::{Duration, Instant};

use hookshot::{EventKind, HookSystem, Outcome, RunnerConfig};
use hookshot_integration_tests::Project;
use serde_json::{Map, Value, json};

fn system(p: &Project, hooks: &[(&str, u64)]) -> HookSystem {
    let defs: Vec<Value> = hooks
        .iter()
        .map(|(cmd, timeout)| json!({"type": "command", "command": cmd, "timeout": timeout}))
        .collect();
    std::fs::write(
        p.path().join("settings.json"),
        json!({"hooks": {"BeforeTool": [{"hooks": defs}]}}).to_string(),
    )
    .unwrap();
    HookSystem::builder()
        .settings(p.path().join("settings.json"))
        .workdir(p.path())
        .runner(RunnerConfig {
            kill_grace: Duration::from_millis(300),
            ..RunnerConfig::default()
        })
        .build()
        .unwrap()
}

fn tool_input() -> Map<String, Value> {
    json!({"tool_name": "write_file", "tool_input": {"file_path": "a", "content": "b"}})
        .as_object()
        .unwrap()
        .clone()
}

/// Fires with a watchdog: a hang fails the test instead of stalling it.
async fn fire_within(h: &HookSystem, input: Map<String, Value>, limit: Duration) -> (Outcome, Duration) {
    let t = Instant::now();
    let o = tokio::time::timeout(limit, h.fire(EventKind::BeforeTool, input))
        .await
        .expect("the event hung past its watchdog");
    (o, t.elapsed())
}

fn alive(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    !stat.is_empty() && !stat.contains(") Z ")
}

/// Every pid a hook wrote to `file` is gone (allowing init a moment to reap).
fn assert_gone(file: &Path) {
    let pids: Vec<i32> = std::fs::read_to_string(file)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect();
    assert!(!pids.is_empty(), "the hook recorded no pids");
    let deadline = Instant::now() + Duration::from_secs(2);
    while pids.iter().any(|&p| alive(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<i32> = pids.into_iter().filter(|&p| alive(p)).collect();
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn hanging_hook_with_grandchildren_is_killed_with_them() {
    let p = Project::new(&json!({}));
    let h = system(
        &p,
        &[(
            "sleep 1000 & echo $! >> pids; sleep 1000 & echo $! >> pids; echo $$ >> pids; wait",
            400,
        )],
    );
    let (o, took) = fire_within(&h, tool_input(), Duration::from_secs(10)).await;
    eprintln!("hang with grandchildren: event answered {took:?} after start (timeout 0.4 s)");
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert!(!o.is_blocked());
    assert!(o.warnings[0].contains("timed out after 0.4s"), "{:?}", o.warnings);
    assert_gone(&p.path().join("pids"));
}

#[tokio::test]
async fn hook_closing_stdout_early_but_running_on_is_killed_at_its_timeout() {
    let p = Project::new(&json!({}));
    let h = system(
        &p,
        &[(
            "echo $$ > pids; echo '{\"decision\":\"block\",\"reason\":\"early\"}'; exec >&- 2>&-; sleep 1000",
            500,
        )],
    );
    let (o, took) = fire_within(&h, tool_input(), Duration::from_secs(10)).await;
    assert!(took < Duration::from_secs(3), "took {took:?}");
    // It was killed, so what it printed is not taken as its answer.
    assert!(!o.is_blocked());
    assert!(o.warnings[0].contains("timed out"));
    assert_gone(&p.path().join("pids"));
}

#[tokio::test]
async fn hundred_megabytes_of_output_stay_at_the_cap() {
    let p = Project::new(&json!({}));
    let h = system(
        &p,
        &[("echo $$ > pids; head -c 100000000 /dev/zero | tr '\\0' x", 30_000)],
    );
    let before = rss_kb();
    let (o, _) = fire_within(&h, tool_input(), Duration::from_secs(30)).await;
    let grew_mb = rss_kb().saturating_sub(before) / 1024;
    eprintln!("100 MB of hook output: RSS grew {grew_mb} MiB");
    let r = &o.records[0];
    assert!(r.captured.stdout_truncated);
    assert_eq!(r.captured.stdout.len(), 1 << 20);
    assert!(grew_mb < 40, "memory grew by {grew_mb} MiB");
    assert!(!o.is_blocked());
    assert_gone(&p.path().join("pids"));
}

#[tokio::test]
async fn hook_that_never_reads_ten_megabytes_of_input() {
    let p = Project::new(&json!({}));
    let h = system(
        &p,
        &[(
            "echo $$ > pids; echo '{\"decision\":\"deny\",\"reason\":\"too big\"}'",
            10_000,
        )],
    );
    let mut input = tool_input();
    input.insert("tool_input".into(), json!({"content": "x".repeat(10 << 20)}));
    let (o, took) = fire_within(&h, input, Duration::from_secs(10)).await;
    assert!(o.is_blocked(), "{:?}", o.warnings);
    assert_eq!(o.block_reason(), "too big");
    assert!(took < Duration::from_secs(5));
    assert_gone(&p.path().join("pids"));
}

#[tokio::test]
async fn malformed_outputs_allow_with_a_message() {
    let p = Project::new(&json!({}));
    let cases = [
        ("echo '{\"decision\": \"block\"'", "{\"decision\": \"block\""),
        ("echo '{\"decision\": \"block\"} trailing'", "trailing"),
        ("printf 'a\\377b'", "a\u{FFFD}b"),
    ];
    for (cmd, shown) in cases {
        let h = system(&p, &[(cmd, 5_000)]);
        let (o, _) = fire_within(&h, tool_input(), Duration::from_secs(10)).await;
        assert!(!o.is_blocked(), "{cmd}");
        assert!(
            o.output.system_message.as_deref().unwrap_or("").contains(shown),
            "{cmd}: {:?}",
            o.output
        );
    }
}

#[tokio::test]
async fn deeply_nested_json_does_not_overflow() {
    let p = Project::new(&json!({}));
    let h = system(&p, &[("python3 -c \"print('[' * 200000 + ']' * 200000)\"", 30_000)]);
    let (o, _) = fire_within(&h, tool_input(), Duration::from_secs(30)).await;
    assert!(!o.is_blocked());
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
}

#[tokio::test]
async fn signals_missing_commands_and_unrunnable_scripts_are_named_and_read_as_gemini_cli_reads_them() {
    let p = Project::new(&json!({}));
    std::fs::create_dir(p.path().join("a-directory")).unwrap();
    let cases = [
        ("kill -9 $$", "killed by signal 9"),
        // Direct exec answers exactly as bash would: 127 and 126.
        ("no-such-command-hookshot", "exited with code 127"),
        ("no-such-command-hookshot 'quoted'", "exited with code 127"),
        ("./a-directory", "exited with code 126"),
        ("bash ./a-directory", "exited with code 126"),
    ];
    for (cmd, why) in cases {
        let h = system(&p, &[(cmd, 5_000)]);
        let (o, _) = fire_within(&h, tool_input(), Duration::from_secs(10)).await;
        // gemini-cli denies when a hook exits with text other than 0 or 1
        // (the shell's "not found", "Is a directory"), and so does
        // hookshot for its hooks; a signal gives no code, and a warning.
        assert_eq!(o.is_blocked(), why != "killed by signal 9", "{cmd}");
        let w = o.warnings.join("\n");
        assert!(w.contains(cmd) && w.contains(why), "{cmd}: {w}");
    }
}

#[tokio::test]
async fn settings_changed_while_events_are_in_flight() {
    let p = Project::new(&json!({}));
    let h = system(
        &p,
        &[(
            "sleep 0.3; echo '{\"decision\":\"block\",\"reason\":\"from the old settings\"}'",
            5_000,
        )],
    );
    let event = h.fire(EventKind::BeforeTool, tool_input());
    let rewrite = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        std::fs::write(p.path().join("settings.json"), "{ this is not json").unwrap();
    };
    let (o, ()) = tokio::join!(event, rewrite);
    assert_eq!(o.block_reason(), "from the old settings");
    // The next load sees the bad file and reports it, with its position,
    // in every answer.
    let next = HookSystem::builder()
        .settings(p.path().join("settings.json"))
        .build()
        .unwrap();
    let w = next.load_warnings().join("\n");
    assert!(w.contains("settings.json:1:3"), "{w}");
    let o = next.fire(EventKind::BeforeTool, tool_input()).await;
    assert!(o.warnings.iter().any(|w| w.contains("settings.json:1:3")));
}

#[tokio::test]
#[ignore = "stress: 4,000 hook processes, 8 s; .ci/run's soak step runs it and prints its figure"]
async fn a_thousand_concurrent_events_through_four_hooks_each() {
    let p = Project::new(&json!({}));
    // Distinct commands: identical ones are the same hook and run once.
    let allow = |n: u32| {
        (
            format!("cat >/dev/null; echo '{{\"decision\":\"allow\"}}' # {n}"),
            20_000,
        )
    };
    let hooks = [
        allow(1),
        allow(2),
        allow(3),
        (
            "cat >/dev/null; echo '{\"decision\":\"deny\",\"reason\":\"no\"}'".to_string(),
            20_000,
        ),
    ];
    let hooks: Vec<(&str, u64)> = hooks.iter().map(|(c, t)| (c.as_str(), *t)).collect();
    let h = system(&p, &hooks);
    let t = Instant::now();
    let events = (0..1000).map(|_| h.fire(EventKind::BeforeTool, tool_input()));
    let outcomes = tokio::time::timeout(Duration::from_secs(120), futures::future::join_all(events))
        .await
        .expect("1,000 events hung");
    let took = t.elapsed();
    for o in &outcomes {
        assert!(
            o.is_blocked() && o.records.len() == 4 && o.warnings.is_empty(),
            "{:?}",
            o.warnings
        );
    }
    eprintln!(
        "1000 events x 4 hooks in {:.2}s: {:.0} events/s, {:.0} hooks/s",
        took.as_secs_f64(),
        1000.0 / took.as_secs_f64(),
        4000.0 / took.as_secs_f64()
    );
}

#[tokio::test]
#[ignore = "soak: 110,000 events, a minute unoptimized; .ci/run's soak step runs it and prints its figure"]
async fn memory_stays_flat_over_a_hundred_thousand_events() {
    // In-process built-ins and the audit log: no per-call history may be
    // kept anywhere on the event path.
    let p = Project::new(&json!({"builtins": {
        "dangerous_confirmation": {"mode": "ask"}, "security_scan": {"mode": "redact"},
        "audit_log": {"path": "audit.jsonl", "max_bytes": 1_000_000, "keep": 1}}}));
    let h = p.hooks();
    let input = |i: usize| {
        json!({"tool_name": "run_shell_command", "tool_input": {"command": format!("echo {i}")}})
            .as_object()
            .unwrap()
            .clone()
    };
    for i in 0..10_000 {
        h.fire(EventKind::BeforeTool, input(i)).await;
    }
    // The audit queue (bounded at 4,096 records) may hold a backlog; let
    // the writer drain it before each reading.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let warm = rss_kb();
    let t = Instant::now();
    for i in 0..100_000 {
        let o = h.fire(EventKind::BeforeTool, input(i)).await;
        assert_eq!(o.records.len(), 2);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let grew_kb = rss_kb().saturating_sub(warm);
    eprintln!(
        "100,000 events through 2 in-process hooks + audit log: {:.1} s, RSS grew {grew_kb} KiB",
        t.elapsed().as_secs_f64()
    );
    assert!(grew_kb < 4 * 1024, "memory grew by {grew_kb} KiB over 100,000 events");
    drop(h);
    // Rotation kept the log bounded: the current file and one rotated copy.
    let size = |f: &str| std::fs::metadata(p.path().join(f)).map_or(0, |m| m.len());
    assert!(size("audit.jsonl") <= 1_000_000 && size("audit.jsonl.1") <= 1_000_000);
    assert!(!p.path().join("audit.jsonl.2").exists());
}
