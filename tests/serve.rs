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

#[test]
fn fire_list_errors_and_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookshot"))
        .args(["serve", "--settings"])
        .arg(settings(dir.path()))
        .arg("--workdir")
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
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
    let child = Command::new(env!("CARGO_BIN_EXE_hookshot"))
        .args(["serve", "--settings"])
        .arg(settings(dir))
        .arg("--socket")
        .arg(socket)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    loop {
        match std::os::unix::net::UnixStream::connect(socket) {
            Ok(s) => return (child, s),
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
