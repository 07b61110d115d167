//! The runner against real processes: each test would hang or fail if
//! supervision broke.

use std::time::{Duration, Instant};

use hookshot_runner::{RunEnv, Runner, RunnerConfig};

fn env() -> RunEnv {
    RunEnv {
        cwd: std::env::temp_dir(),
        vars: vec![("HOOK_TEST_VAR".into(), "set".into())],
        ..RunEnv::default()
    }
}

/// Hooks running in `dir`, with nothing added to the environment.
fn env_in(dir: impl Into<std::path::PathBuf>) -> RunEnv {
    RunEnv {
        cwd: dir.into(),
        vars: vec![],
        ..RunEnv::default()
    }
}

fn alive(pid: i32) -> bool {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
}

#[tokio::test]
async fn stdin_reaches_the_hook_and_env_is_set() {
    let r = Runner::default();
    let c = r
        .run_command(
            "cat; echo \" $HOOK_TEST_VAR\"",
            Duration::from_secs(5),
            b"{\"a\":1}",
            &env(),
        )
        .await;
    assert_eq!(c.exit.code, Some(0));
    assert_eq!(c.stdout, "{\"a\":1} set\n");
}

#[tokio::test]
async fn hang_with_grandchild_is_killed_within_timeout_and_grace() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let cmd = format!("sleep 1000 & echo $! > {}; wait", pidfile.display());
    let r = Runner::default();
    let t = Instant::now();
    let c = r.run_command(&cmd, Duration::from_millis(300), b"", &env()).await;
    let took = t.elapsed();
    assert!(c.exit.timed_out);
    assert!(took < Duration::from_secs(3), "took {took:?}");
    let pid: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    // The grandchild was in the hook's group: it must be gone (or a zombie
    // about to be reaped by init); give init a moment.
    let deadline = Instant::now() + Duration::from_secs(2);
    while alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    assert!(
        !alive(pid) || state.contains(") Z "),
        "grandchild {pid} survived: {state}"
    );
}

#[tokio::test]
async fn term_ignoring_hook_gets_killed() {
    let r = Runner::new(RunnerConfig {
        kill_grace: Duration::from_millis(200),
        ..RunnerConfig::default()
    });
    let t = Instant::now();
    let c = r
        .run_command(
            "trap '' TERM; while :; do sleep 0.05; done",
            Duration::from_millis(200),
            b"",
            &env(),
        )
        .await;
    assert!(c.exit.timed_out);
    assert!(t.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn leaked_pipe_holder_does_not_hold_the_run() {
    let r = Runner::default();
    let t = Instant::now();
    // The background sleep inherits stdout and would keep the pipe open.
    let c = r
        .run_command("sleep 1000 & echo $!", Duration::from_secs(10), b"", &env())
        .await;
    assert_eq!(c.exit.code, Some(0));
    assert!(t.elapsed() < Duration::from_secs(3), "took {:?}", t.elapsed());
    // The hook ended on its own: what it started is released, not killed.
    let pid: i32 = c.stdout.trim().parse().unwrap();
    let pid = nix::unistd::Pid::from_raw(pid);
    assert!(
        nix::sys::signal::kill(pid, None).is_ok(),
        "a released background job was killed"
    );
    let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
}

#[tokio::test]
async fn background_work_of_a_finished_hook_goes_on_of_a_timed_out_one_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let env = env_in(dir.path());
    let r = Runner::default();
    // gemini-cli's docs archive a plan with `gsutil cp ... &` and exit.
    let c = r
        .run_command(
            "(sleep 0.3; touch uploaded) >/dev/null 2>&1 & echo started",
            Duration::from_secs(5),
            b"",
            &env,
        )
        .await;
    assert_eq!((c.exit.code, c.stdout.as_str()), (Some(0), "started\n"));
    let c = r
        .run_command(
            "(sleep 0.3; touch after-timeout) >/dev/null 2>&1 & sleep 10",
            Duration::from_millis(100),
            b"",
            &env,
        )
        .await;
    assert!(c.exit.timed_out);
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(
        dir.path().join("uploaded").exists(),
        "a finished hook's background job was killed"
    );
    assert!(
        !dir.path().join("after-timeout").exists(),
        "a timed-out hook's group survived"
    );
}

#[tokio::test]
async fn output_is_capped_and_drained() {
    let r = Runner::new(RunnerConfig {
        output_cap: 1000,
        ..RunnerConfig::default()
    });
    let c = r
        .run_command("head -c 100000000 /dev/zero", Duration::from_secs(30), b"", &env())
        .await;
    assert_eq!(
        c.exit.code,
        Some(0),
        "the hook must run to its end, not be blocked on a full pipe"
    );
    assert_eq!(c.stdout.len(), 1000);
    assert!(c.stdout_truncated);
}

#[tokio::test]
async fn hook_that_never_reads_large_stdin_does_not_deadlock() {
    let r = Runner::default();
    let input = vec![b'x'; 10 << 20];
    let c = r
        .run_command("echo ignored", Duration::from_secs(10), &input, &env())
        .await;
    assert_eq!(c.exit.code, Some(0));
    assert_eq!(c.stdout, "ignored\n");
}

#[tokio::test]
async fn invalid_utf8_is_kept_lossily() {
    let r = Runner::default();
    let c = r
        .run_command("printf 'a\\377b'", Duration::from_secs(5), b"", &env())
        .await;
    assert_eq!(c.stdout, "a\u{FFFD}b");
}

#[tokio::test]
async fn signal_exit_and_missing_shell_are_reported() {
    let r = Runner::default();
    let c = r.run_command("kill -9 $$", Duration::from_secs(5), b"", &env()).await;
    assert_eq!(c.exit.signal, Some(9));
    let r = Runner::new(RunnerConfig {
        shell: vec!["/nonexistent/sh".into(), "-c".into()],
        ..RunnerConfig::default()
    });
    let c = r.run_command("true", Duration::from_secs(5), b"", &env()).await;
    assert!(c.exit.spawn_error.is_some());
}

#[tokio::test]
async fn dropping_the_future_kills_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let cmd = format!("echo $$ > {}; sleep 1000", pidfile.display());
    let r = Runner::default();
    let e = env();
    let fut = r.run_command(&cmd, Duration::from_secs(100), b"", &e);
    let _ = tokio::time::timeout(Duration::from_millis(300), fut).await;
    let pid: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs(2);
    while alive(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    assert!(
        !alive(pid) || state.contains(") Z "),
        "hook {pid} survived cancellation"
    );
}

#[derive(Debug)]
struct Panics;

impl hookshot_runner::Hook for Panics {
    fn call(
        &self,
        _: hookshot_core::EventKind,
        _: &serde_json::Map<String, serde_json::Value>,
    ) -> hookshot_core::HookOutput {
        panic!("boom")
    }
}

#[tokio::test]
async fn in_process_panic_is_the_hooks_failure() {
    use std::sync::Arc;

    use hookshot_core::*;
    let mut r = Runner::default();
    r.register("panics", Arc::new(Panics));
    let def = |name: &str| {
        Arc::new(HookDef {
            name: Some(name.into()),
            timeout: Duration::from_secs(1),
            source: SourceKind::Builtin,
            ..HookDef::new(name, EventKind::BeforeTool, HookAction::InProcess { name: name.into() })
        })
    };
    let input = serde_json::Map::new();
    let hi = hookshot_runner::HookInput {
        event: EventKind::BeforeTool,
        canonical: &input,
        bytes: b"",
    };
    let rec = r.run(&def("panics"), hi, &env()).await;
    let f = rec.failure.unwrap();
    assert_eq!((f.kind, f.message.as_str()), (FailureKind::Crash, "panicked: boom"));
    let rec = r.run(&def("missing"), hi, &env()).await;
    assert!(rec.failure.unwrap().message.contains("not registered"));
}

#[test]
fn only_plain_commands_skip_the_shell() {
    use hookshot_runner::direct_argv;
    assert_eq!(
        direct_argv("python3 .hooks/a.py --flag=1"),
        Some(vec!["python3", ".hooks/a.py", "--flag=1"])
    );
    assert_eq!(direct_argv("wc -c input.txt"), Some(vec!["wc", "-c", "input.txt"]));
    for needs_shell in [
        // Builtins that also exist as programs behave differently as such.
        "printf %s hello",
        "pwd",
        ":",
        "exit 2",
        "cd x",
        "echo $HOME",
        "cat > out",
        "a && b",
        "python3 'a b.py'",
        "FOO=1 run",
        "ls *.txt",
        "echo ~",
        "",
    ] {
        assert_eq!(direct_argv(needs_shell), None, "{needs_shell}");
    }
}

#[tokio::test]
async fn direct_and_shell_runs_agree() {
    // A corpus of commands without shell syntax, run once as they are (the
    // direct path when possible) and once inside `{ ...; }`, which forces
    // bash: exit code, stdout and whether stderr is empty agree.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("noshebang.sh"), "echo from-script; exit 2\n").unwrap();
    std::fs::write(d.join("notexec.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::write(d.join("input.txt"), "data").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(d.join("noshebang.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(d.join("notexec.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::os::unix::fs::symlink(d, d.join("link")).unwrap();
    let env = env_in(d.join("link"));
    let corpus = [
        "printf %s hello",
        "true",
        "false",
        ":",
        "pwd",
        "echo -n hi",
        "test -e input.txt",
        "cat input.txt",
        "ls no-such-file",
        "no-such-hook-binary-xyz --flag",
        "./noshebang.sh",
        "./notexec.sh",
        "/nonexistent/dir/guard",
        "wc -c input.txt",
    ];
    let r = Runner::default();
    for cmd in corpus {
        let a = r.run_command(cmd, Duration::from_secs(5), b"", &env).await;
        // `{ ...; }` is shell syntax: this form always goes through bash.
        let b = r
            .run_command(&format!("{{ {cmd}; }}"), Duration::from_secs(5), b"", &env)
            .await;
        assert!(a.exit.spawn_error.is_none(), "{cmd}: {:?}", a.exit);
        assert_eq!(a.exit.code, b.exit.code, "{cmd}: exit codes differ");
        assert_eq!(a.stdout, b.stdout, "{cmd}: stdout differs");
        assert_eq!(
            a.stderr.is_empty(),
            b.stderr.is_empty(),
            "{cmd}: stderr {:?} vs {:?}",
            a.stderr,
            b.stderr
        );
    }
    let noshebang = r.run_command("./noshebang.sh", Duration::from_secs(5), b"", &env).await;
    assert_eq!(
        (noshebang.exit.code, noshebang.stdout.as_str()),
        (Some(2), "from-script\n")
    );
    let missing = r
        .run_command("no-such-hook-binary-xyz", Duration::from_secs(5), b"", &env)
        .await;
    assert_eq!(missing.exit.code, Some(127));
}

fn hook_def(
    action: hookshot_core::HookAction,
    timeout: Duration,
    retry: u32,
) -> std::sync::Arc<hookshot_core::HookDef> {
    use hookshot_core::*;
    std::sync::Arc::new(HookDef {
        name: Some("h".into()),
        timeout,
        retry,
        ..HookDef::new("h", EventKind::BeforeTool, action)
    })
}

fn no_input() -> hookshot_runner::HookInput<'static> {
    static EMPTY: std::sync::OnceLock<serde_json::Map<String, serde_json::Value>> = std::sync::OnceLock::new();
    hookshot_runner::HookInput {
        event: hookshot_core::EventKind::BeforeTool,
        canonical: EMPTY.get_or_init(serde_json::Map::new),
        bytes: b"",
    }
}

#[tokio::test(start_paused = true)]
async fn retries_and_their_pauses_stay_inside_the_hooks_timeout() {
    use hookshot_core::{FailureKind, HookAction};
    let r = Runner::default();
    // Each attempt hangs: the first takes the whole second, and no retry
    // (nor its backoff) runs past it.
    let hangs = hook_def(
        HookAction::Command {
            command: "sleep 100".into(),
        },
        Duration::from_secs(1),
        5,
    );
    let start = tokio::time::Instant::now();
    let rec = r.run(&hangs, no_input(), &env()).await;
    assert_eq!(rec.failure.map(|f| f.kind), Some(FailureKind::Timeout));
    assert!(
        start.elapsed() < Duration::from_millis(1600),
        "took {:?}",
        start.elapsed()
    );
}

// Real time: a paused clock would time out a real process before it exits.
#[tokio::test]
async fn quick_failures_are_retried_only_while_the_timeout_lasts() {
    use hookshot_core::{FailureKind, HookAction};
    let r = Runner::default();
    // Quick failures are retried while time is left, then the last one
    // stands.
    let fails = hook_def(
        HookAction::Command {
            command: "exit 1".into(),
        },
        Duration::from_secs(1),
        10,
    );
    let start = tokio::time::Instant::now();
    let rec = r.run(&fails, no_input(), &env()).await;
    assert_eq!(rec.failure.map(|f| f.kind), Some(FailureKind::Crash));
    assert!(start.elapsed() < Duration::from_secs(1), "took {:?}", start.elapsed());
}

#[derive(Debug)]
struct SilentModel;

impl hookshot_runner::ModelClient for SilentModel {
    fn complete<'a>(&'a self, _: &'a str, _: Option<&'a str>) -> hookshot_runner::llm::Completion<'a> {
        Box::pin(async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(String::new())
        })
    }
}

#[tokio::test(start_paused = true)]
async fn an_llm_hooks_retry_shares_its_timeout() {
    use hookshot_core::{FailureKind, HookAction};
    let mut r = Runner::default();
    r.set_model_client(std::sync::Arc::new(SilentModel));
    let ask = hook_def(
        HookAction::Llm {
            prompt: "judge {{tool_name}}".into(),
            model: None,
        },
        Duration::from_secs(30),
        1,
    );
    let start = tokio::time::Instant::now();
    let rec = r.run(&ask, no_input(), &env()).await;
    assert_eq!(rec.failure.map(|f| f.kind), Some(FailureKind::Timeout));
    assert!(start.elapsed() <= Duration::from_secs(30), "took {:?}", start.elapsed());
}

#[tokio::test]
async fn a_hook_that_finds_no_free_slot_in_time_is_not_started() {
    use hookshot_core::{FailureKind, HookAction};
    let dir = tempfile::tempdir().unwrap();
    let r = Runner::new(RunnerConfig {
        max_concurrency: 1,
        ..RunnerConfig::default()
    });
    let e = RunEnv {
        cwd: dir.path().to_path_buf(),
        vars: vec![],
        ..RunEnv::default()
    };
    let busy = hook_def(
        HookAction::Command {
            command: "sleep 2".into(),
        },
        Duration::from_secs(5),
        0,
    );
    let late = hook_def(
        HookAction::Command {
            command: "touch started".into(),
        },
        Duration::from_millis(300),
        0,
    );
    let (_, rec) = tokio::join!(r.run(&busy, no_input(), &e), async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        r.run(&late, no_input(), &e).await
    });
    let f = rec.failure.expect("the late hook cannot have run");
    assert_eq!(f.kind, FailureKind::Timeout);
    assert!(f.message.contains("waiting to start"), "{}", f.message);
    assert!(!dir.path().join("started").exists(), "it was started only to be killed");
}

#[tokio::test]
async fn a_line_read_interrupted_midway_resumes_without_losing_bytes() {
    use tokio::io::AsyncWriteExt;
    let (client, server) = tokio::io::duplex(64);
    let mut reader = tokio::io::BufReader::new(server);
    let mut lines = hookshot_runner::LineReader::new(16);
    let mut client = client;
    client.write_all(b"hello ").await.unwrap();
    // Interrupted before the line ends (as a timeout or shutdown would).
    let cut = tokio::time::timeout(Duration::from_millis(50), lines.next(&mut reader)).await;
    assert!(cut.is_err() && lines.midway());
    client.write_all(b"world\n").await.unwrap();
    assert_eq!(lines.next(&mut reader).await.unwrap(), Some(true));
    assert_eq!(lines.take(), b"hello world\n");
    // Longer than the cap: dropped, and the next line is whole.
    client.write_all(b"0123456789abcdefXYZ\nok\n").await.unwrap();
    assert_eq!(lines.next(&mut reader).await.unwrap(), Some(false));
    assert_eq!(lines.next(&mut reader).await.unwrap(), Some(true));
    assert_eq!(lines.take(), b"ok\n");
    drop(client);
    assert_eq!(lines.next(&mut reader).await.unwrap(), None);
}

/// A keep-alive HTTP/1.1 server answering `{}` after `delay`: how many
/// connections it accepted, and the most requests it had in hand at once.
struct SlowServer {
    url: String,
    connections: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    most_at_once: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

fn slow_server(delay: Duration) -> SlowServer {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let connections = std::sync::Arc::new(AtomicUsize::new(0));
    let most_at_once = std::sync::Arc::new(AtomicUsize::new(0));
    let now = std::sync::Arc::new(AtomicUsize::new(0));
    let (c, m) = (connections.clone(), most_at_once.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            c.fetch_add(1, SeqCst);
            let (m, now) = (m.clone(), now.clone());
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut stream = stream;
                loop {
                    let mut length = 0;
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    loop {
                        line.clear();
                        reader.read_line(&mut line).unwrap();
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap();
                        }
                        if line == "\r\n" {
                            break;
                        }
                    }
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    m.fetch_max(now.fetch_add(1, SeqCst) + 1, SeqCst);
                    std::thread::sleep(delay);
                    now.fetch_sub(1, SeqCst);
                    let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
                    if stream.write_all(answer.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    SlowServer {
        url,
        connections,
        most_at_once,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_hooks_take_slots_like_commands_and_share_one_client() {
    use std::sync::atomic::Ordering::SeqCst;
    let server = slow_server(Duration::from_millis(200));
    let r = Runner::new(RunnerConfig {
        max_concurrency: 1,
        ..RunnerConfig::default()
    });
    let post = hook_def(
        hookshot_core::HookAction::Http {
            url: server.url.clone(),
            headers: vec![],
            allowed_env: vec![],
        },
        Duration::from_secs(10),
        0,
    );
    let e = env();
    let (a, b, c) = tokio::join!(
        r.run(&post, no_input(), &e),
        r.run(&post, no_input(), &e),
        r.run(&post, no_input(), &e)
    );
    for rec in [a, b, c] {
        assert!(rec.failure.is_none(), "{:?}", rec.failure);
    }
    let d = r.run(&post, no_input(), &e).await;
    assert!(d.failure.is_none(), "{:?}", d.failure);
    assert_eq!(server.most_at_once.load(SeqCst), 1, "one slot, one request at a time");
    assert_eq!(
        server.connections.load(SeqCst),
        1,
        "four requests in turn to one server reuse one connection"
    );
}

#[tokio::test]
async fn a_timeout_names_the_hooks_own_limit_even_after_waiting_for_a_slot() {
    use hookshot_core::{FailureKind, HookAction};
    let r = Runner::new(RunnerConfig {
        max_concurrency: 1,
        ..RunnerConfig::default()
    });
    let busy = hook_def(
        HookAction::Command {
            command: "sleep 0.3".into(),
        },
        Duration::from_secs(5),
        0,
    );
    let hangs = hook_def(
        HookAction::Command {
            command: "sleep 100".into(),
        },
        Duration::from_secs(1),
        0,
    );
    let e = env();
    let (_, rec) = tokio::join!(r.run(&busy, no_input(), &e), async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        r.run(&hangs, no_input(), &e).await
    });
    let f = rec.failure.expect("it timed out");
    assert_eq!(f.kind, FailureKind::Timeout);
    assert!(f.message.contains("timed out after 1s"), "{}", f.message);
}
