//! `hookshot serve` as a sidecar client sees it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn settings(dir: &std::path::Path) -> std::path::PathBuf {
    let p = dir.join("settings.json");
    let s = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "cat >/dev/null; echo 'no shell today' >&2; exit 2", "timeout": 5}]}]}});
    std::fs::write(&p, s.to_string()).unwrap();
    p
}

/// `hookshot serve` on stdin/stdout with these settings, in `workdir`.
fn serve(settings: &std::path::Path, workdir: &std::path::Path, extra: &[&std::ffi::OsStr]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_hookshot"))
        .args(["serve", "--settings"])
        .arg(settings)
        .arg("--workdir")
        .arg(workdir)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn fire_list_errors_and_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = dir.path().join("recorded");
    let mut child = serve(
        &settings(dir.path()),
        dir.path(),
        &["--record".as_ref(), recorded.as_os_str()],
    );
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &str| -> Value {
        writeln!(stdin, "{line}").unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        serde_json::from_str(&answer).unwrap()
    };
    let r = ask(
        r#"{"jsonrpc":"2.0","id":1,"method":"fire","params":{"event":"PreToolUse","input":{"tool_name":"Bash","tool_input":{"command":"ls"}}}}"#,
    );
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["blocked"], true);
    assert_eq!(r["result"]["reason"], "no shell today");
    assert_eq!(
        r["result"]["output"]["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    let r =
        ask(r#"{"jsonrpc":"2.0","id":2,"method":"fire","params":{"event":"BeforeTool","input":{"tool_name":"Read"}}}"#);
    assert_eq!(r["result"], json!({"blocked": false, "output": {}}));
    let r = ask("this is not json");
    assert_eq!(r["error"]["code"], -32700);
    let r = ask(r#"{"jsonrpc":"2.0","id":"x","method":"frobnicate"}"#);
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!("x"), json!(-32601))
    );
    let r = ask(r#"{"jsonrpc":"2.0","id":3,"method":"fire","params":{"event":"PreTollUse"}}"#);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean \"PreToolUse\"")
    );
    let r = ask(r#"{"jsonrpc":"2.0","id":4,"method":"list"}"#);
    assert_eq!(r["result"][0]["event"], "BeforeTool");
    assert_eq!(r["result"][0]["state"], "active");
    let r = ask(r#"{"jsonrpc":"2.0","id":5,"method":"shutdown"}"#);
    assert_eq!(r["result"], Value::Null);
    // Shutdown ends the process although stdin is still open.
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "serve did not exit after shutdown"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(child.wait().unwrap().success());
    // --record kept both events as test cases that pass as they are.
    let recorded = std::fs::read_dir(dir.path().join("recorded")).unwrap().count();
    assert_eq!(recorded, 2);
    let out = Command::new(env!("CARGO_BIN_EXE_hookshot"))
        .arg("test")
        .arg(dir.path().join("recorded"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.ends_with("2 passed, 0 failed\n"), "{stdout}");
    assert!(
        stdout.contains("PreToolUse") && stdout.contains("BeforeTool"),
        "{stdout}"
    );
}

#[test]
fn python_client_example_works() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3")
        .arg(format!("{root}/examples/sidecar/client.py"))
        .arg(env!("CARGO_BIN_EXE_hookshot"))
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("write_file notes.txt: allowed"), "{stdout}");
    assert!(
        stdout.contains("write_file config/.env: blocked: writing .env files is not allowed"),
        "{stdout}"
    );
    assert!(stdout.contains("2 hooks configured"), "{stdout}");
}

/// Starts `hookshot serve --socket` with the test settings and connects once
/// the socket is up.
fn serve_on_socket(
    dir: &std::path::Path,
    socket: &std::path::Path,
) -> (std::process::Child, std::os::unix::net::UnixStream) {
    serve_on_socket_with(dir, socket, &[])
}

/// Like [`serve_on_socket`], with more arguments to `serve`.
fn serve_on_socket_with(
    dir: &std::path::Path,
    socket: &std::path::Path,
    args: &[&str],
) -> (std::process::Child, std::os::unix::net::UnixStream) {
    if !dir.join("settings.json").exists() {
        settings(dir);
    }
    let child = Command::new(env!("CARGO_BIN_EXE_hookshot"))
        .args(["serve", "--settings"])
        .arg(dir.join("settings.json"))
        .arg("--workdir")
        .arg(dir)
        .arg("--socket")
        .arg(socket)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    (child, connect_when_up(socket))
}

/// A connection to the server that is starting on `socket`.
fn connect_when_up(socket: &std::path::Path) -> std::os::unix::net::UnixStream {
    let t = Instant::now();
    loop {
        match std::os::unix::net::UnixStream::connect(socket) {
            Ok(s) => return s,
            Err(_) if t.elapsed() < Duration::from_secs(10) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("socket never came up: {e}"),
        }
    }
}

#[test]
fn unix_socket_serves_the_same_protocol() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("hookshot.sock");
    let (mut child, stream) = serve_on_socket(dir.path(), &socket);
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    let mut ask = |line: &str| -> Value {
        writeln!(writer, "{line}").unwrap();
        let mut answer = String::new();
        reader.read_line(&mut answer).unwrap();
        serde_json::from_str(&answer).unwrap()
    };
    let r =
        ask(r#"{"jsonrpc":"2.0","id":7,"method":"fire","params":{"event":"PreToolUse","input":{"tool_name":"Bash"}}}"#);
    assert_eq!(
        (r["id"].clone(), r["result"]["blocked"].clone()),
        (json!(7), json!(true))
    );
    let r = ask(r#"{"jsonrpc":"2.0","id":8,"method":"stats"}"#);
    assert_eq!(r["result"][0]["runs"], 1);
    ask(r#"{"jsonrpc":"2.0","id":9,"method":"shutdown"}"#);
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "serve did not exit after shutdown on the socket"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!socket.exists(), "the socket file is removed");
}

#[test]
fn stats_reads_a_live_sidecar() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    let (mut child, mut stream) = serve_on_socket(dir.path(), &socket);
    writeln!(
        stream,
        r#"{{"jsonrpc":"2.0","id":1,"method":"fire","params":{{"event":"PreToolUse","input":{{"tool_name":"Bash"}}}}}}"#
    )
    .unwrap();
    let mut line = String::new();
    BufReader::new(&stream).read_line(&mut line).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hookshot"))
        .args(["stats", "--json", "--socket"])
        .arg(&socket)
        .output()
        .unwrap();
    let stats: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (stats[0]["runs"].clone(), stats[0]["blocks"].clone()),
        (json!(1), json!(1))
    );
    writeln!(stream, r#"{{"jsonrpc":"2.0","id":2,"method":"shutdown"}}"#).unwrap();
    let _ = child.wait();
}

/// Sends `line` and reads one answer line.
fn ask_on(stream: &std::os::unix::net::UnixStream, line: &str) -> Value {
    let mut w = stream;
    writeln!(w, "{line}").unwrap();
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer).unwrap();
    serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer:?}"))
}

const FIRE_BASH: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"fire","params":{"event":"PreToolUse","input":{"tool_name":"Bash"}}}"#;

/// Asks the server to shut down and waits for it to exit.
fn shut_down(child: &mut std::process::Child, stream: &std::os::unix::net::UnixStream) {
    ask_on(stream, r#"{"jsonrpc":"2.0","id":9,"method":"shutdown"}"#);
    wait_exit(child);
}

fn wait_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
    let t = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "serve did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn serve_never_removes_a_file_that_is_not_a_socket() {
    let dir = tempfile::tempdir().unwrap();
    let precious = dir.path().join("precious.txt");
    std::fs::write(&precious, "keep me").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hookshot"))
        .args(["serve", "--settings"])
        .arg(settings(dir.path()))
        .arg("--socket")
        .arg(&precious)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not a socket"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me");
}

#[test]
fn a_second_server_leaves_a_live_socket_alone_and_the_socket_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    let (mut first, stream) = serve_on_socket(dir.path(), &socket);
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the socket is {mode:o}");
    let out = Command::new(env!("CARGO_BIN_EXE_hookshot"))
        .args(["serve", "--settings"])
        .arg(dir.path().join("settings.json"))
        .arg("--socket")
        .arg(&socket)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("another server is listening"));
    // The first one still answers, on a new connection too.
    let again = std::os::unix::net::UnixStream::connect(&socket).expect("the first server's socket is gone");
    assert_eq!(ask_on(&again, FIRE_BASH)["result"]["blocked"], true);
    shut_down(&mut first, &stream);
    // A socket nobody listens on any more (a crashed server) is replaced.
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    let (mut third, stream) = serve_on_socket(dir.path(), &socket);
    assert_eq!(ask_on(&stream, FIRE_BASH)["result"]["blocked"], true);
    shut_down(&mut third, &stream);
}

#[test]
fn idle_connections_are_closed_and_connections_are_limited() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    let (mut child, first) =
        serve_on_socket_with(dir.path(), &socket, &["--idle-timeout", "1", "--max-connections", "2"]);
    let second = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    assert_eq!(ask_on(&second, FIRE_BASH)["result"]["blocked"], true);
    let third = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    let mut line = String::new();
    BufReader::new(&third).read_line(&mut line).unwrap();
    assert!(line.contains("too many connections"), "{line}");
    // The first sends nothing: after a second it is told and closed.
    first.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let t = Instant::now();
    let mut reader = BufReader::new(&first);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(line.contains("nothing received"), "{line}");
    line.clear();
    assert_eq!(reader.read_line(&mut line).unwrap(), 0, "closed after the notice");
    assert!(t.elapsed() < Duration::from_secs(4));
    // Its place is free again.
    let fourth = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    assert_eq!(ask_on(&fourth, FIRE_BASH)["result"]["blocked"], true);
    shut_down(&mut child, &fourth);
}

#[test]
fn requests_after_shutdown_are_refused_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    let (mut child, stream) = serve_on_socket(dir.path(), &socket);
    let mut w = &stream;
    let both = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"fire","params":{"event":"PreToolUse","input":{"tool_name":"Bash"}}}"#,
        "\n"
    );
    w.write_all(both.as_bytes()).unwrap();
    let mut answers = Vec::new();
    let mut reader = BufReader::new(&stream);
    for _ in 0..2 {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    answers.sort_by_key(|a| a["id"].as_i64());
    assert_eq!(answers[0]["result"], Value::Null);
    assert_eq!(answers[1]["error"]["message"], "the server is shutting down");
    wait_exit(&mut child);
}

#[test]
fn settings_edited_while_serving_take_effect() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    let (mut child, stream) = serve_on_socket(dir.path(), &socket);
    assert_eq!(ask_on(&stream, FIRE_BASH)["result"]["blocked"], true);
    let allow = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo '{\"decision\": \"allow\"}'", "timeout": 5}]}]}});
    std::fs::write(dir.path().join("settings.json"), allow.to_string()).unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(ask_on(&stream, FIRE_BASH)["result"]["blocked"], false);
    // Half-written (broken) settings keep the hooks in force.
    std::fs::write(dir.path().join("settings.json"), "{\"hooks\": {").unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    let r = ask_on(&stream, FIRE_BASH);
    assert_eq!(r["result"]["blocked"], false, "{r}");
    // ...and the client sees that its edit was not taken.
    assert!(
        r["result"]["warnings"][0]
            .as_str()
            .unwrap_or("")
            .contains("stay in force"),
        "{r}"
    );
    shut_down(&mut child, &stream);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(stderr.contains("reloaded"), "{stderr}");
    assert!(stderr.contains("previous hooks stay in force"), "{stderr}");
}

/// Peak resident memory of a process, in MiB.
fn peak_rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap();
    kb / 1024
}

#[test]
fn a_flood_of_huge_requests_is_read_only_as_fast_as_it_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    let (mut child, stream) = serve_on_socket(dir.path(), &socket);
    let content = "x".repeat(10 << 20);
    let line = json!({"jsonrpc": "2.0", "id": 1, "method": "fire",
        "params": {"event": "PreToolUse", "input": {"tool_name": "Bash", "tool_input": {"command": content}}}})
    .to_string()
        + "\n";
    let writer = stream.try_clone().unwrap();
    let sender = std::thread::spawn(move || {
        let mut w = &writer;
        for _ in 0..12 {
            w.write_all(line.as_bytes()).unwrap();
        }
    });
    let mut reader = BufReader::new(&stream);
    for _ in 0..12 {
        let mut answer = String::new();
        reader.read_line(&mut answer).unwrap();
        assert!(
            answer.contains("\"blocked\":true"),
            "{}",
            &answer[..answer.len().min(300)]
        );
    }
    sender.join().unwrap();
    let peak = peak_rss_mib(child.id());
    shut_down(&mut child, &stream);
    // 120 MiB went through; at most 32 MiB of requests are held at once.
    eprintln!("serve peaked at {peak} MiB");
    assert!(peak < 250, "serve peaked at {peak} MiB");
}

#[test]
fn out_of_descriptors_the_server_waits_and_hooks_follow_the_failure_policy() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s.sock");
    // hooksConfig makes this a gemini file: the timeout is in milliseconds.
    let closed = json!({"hooksConfig": {"onFailure": "closed"}, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "cat >/dev/null; exit 0", "timeout": 5000}]}]}});
    std::fs::write(dir.path().join("settings.json"), closed.to_string()).unwrap();
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(r#"ulimit -n 40 && exec "$0" serve --settings "$1" --workdir "$2" --socket "$3""#)
        .arg(env!("CARGO_BIN_EXE_hookshot"))
        .arg(dir.path().join("settings.json"))
        .arg(dir.path())
        .arg(&socket)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let first = connect_when_up(&socket);
    let r = ask_on(&first, FIRE_BASH);
    assert_eq!(r["result"]["blocked"], false, "{r}");
    // Use up the server's descriptors, then some.
    let crowd: Vec<_> = (0..60)
        .filter_map(|_| std::os::unix::net::UnixStream::connect(&socket).ok())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let cpu = |pid: u32| -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat.rsplit(')').next().unwrap().split_whitespace().collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    };
    let before = cpu(child.id());
    std::thread::sleep(Duration::from_secs(1));
    let ticks = cpu(child.id()) - before;
    assert!(ticks < 30, "the accept loop spun: {ticks} ticks of CPU in a second");
    // The hook cannot start (no descriptors for its pipes): under the
    // closed policy that blocks, it never allows.
    let r = ask_on(&first, FIRE_BASH);
    assert_eq!(r["result"]["blocked"], true, "{r}");
    drop(crowd);
    shut_down(&mut child, &first);
}

#[test]
fn a_revoked_approval_holds_in_a_running_sidecar() {
    let dir = tempfile::tempdir().unwrap();
    let (proj, home) = (dir.path().join("proj"), dir.path().join("home"));
    std::fs::create_dir_all(proj.join(".claude")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let blocks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "cat >/dev/null; echo 'no shell today' >&2; exit 2", "timeout": 5}]}]}});
    std::fs::write(proj.join(".claude/settings.json"), blocks.to_string()).unwrap();
    let hookshot = |args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_hookshot"));
        c.args(args)
            .arg("--workdir")
            .arg(&proj)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("GEMINI_PROJECT_DIR");
        c
    };
    let trusted = hookshot(&["trust", "--yes"]).output().unwrap();
    assert!(trusted.status.success(), "{}", String::from_utf8_lossy(&trusted.stderr));
    let socket = dir.path().join("s.sock");
    let mut child = hookshot(&["serve", "--socket", socket.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stream = connect_when_up(&socket);
    assert_eq!(ask_on(&stream, FIRE_BASH)["result"]["blocked"], true);
    // Only the trust store changes.
    let revoked = hookshot(&["trust", "--revoke"]).output().unwrap();
    assert!(revoked.status.success(), "{}", String::from_utf8_lossy(&revoked.stderr));
    std::thread::sleep(Duration::from_millis(1200));
    let r = ask_on(&stream, FIRE_BASH);
    assert_eq!(
        r["result"]["blocked"], false,
        "the revoked project still runs its hooks: {r}"
    );
    assert!(r["result"]["warnings"].to_string().contains("not trusted"), "{r}");
    shut_down(&mut child, &stream);
}

/// The library's sidecar answers an agent that names itself in the shapes
/// that agent applies, as `fire --agent` does: Codex cannot ask the user,
/// so a hook's question is a denial there, and an "ask" for Claude Code.
#[test]
fn a_named_agent_is_answered_in_its_own_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let ask_json = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
        "permissionDecisionReason": "sure?"}});
    let p = dir.path().join("settings.json");
    let s = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("cat >/dev/null; echo '{ask_json}'"), "timeout": 5}]}]}});
    std::fs::write(&p, s.to_string()).unwrap();
    let mut child = serve(&p, dir.path(), &[]);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut fire = |agent: Value| -> Value {
        let line = json!({"jsonrpc": "2.0", "id": 1, "method": "fire", "params": {"event": "PreToolUse",
            "agent": agent, "input": {"tool_name": "Bash", "tool_input": {"command": "ls"}}}});
        writeln!(stdin, "{line}").unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        serde_json::from_str(&answer).unwrap()
    };
    let decision = |r: &Value| r["result"]["output"]["hookSpecificOutput"]["permissionDecision"].clone();
    let r = fire(json!("codex"));
    assert_eq!(decision(&r), "deny", "{r}");
    assert_eq!(r["result"]["blocked"], true, "{r}");
    let r = fire(json!("claude"));
    assert_eq!(decision(&r), "ask", "{r}");
    let r = fire(Value::Null);
    assert_eq!(decision(&r), "ask", "{r}");
    let r = fire(json!("kodex"));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"agent\" must be one of claude, gemini, codex"),
        "{r}"
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
