//! Claude Code's `mcp_tool` hooks against a real MCP server (written with
//! the `mcp` package from PyPI, started by hookshot as the settings say).

mod common;

use common::{Project, mcp_python, mcp_server_script, stderr, stdout};
use serde_json::{Value, json};

fn write_input(path: &str) -> Value {
    json!({"session_id": "s", "hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Write",
           "tool_input": {"file_path": path, "content": "x"}})
}

/// `.mcp.json`-shaped servers: `guard` runs the test server, logging each
/// call to `log`.
fn servers(log: &std::path::Path) -> Value {
    json!({"mcpServers": {"guard": {
        "command": mcp_python(),
        "args": [mcp_server_script()],
        "env": {"GUARD_LOG": log}
    }}})
}

fn scan_hook(tool: &str) -> Value {
    json!({"hooks": {"PreToolUse": [{"matcher": "Write|Edit", "hooks": [{
        "type": "mcp_tool", "server": "guard", "tool": tool, "timeout": 60,
        "input": {"file_path": "${tool_input.file_path}"}
    }]}]}})
}

/// The server that logged `call` is gone.
fn assert_gone(call: &Value) {
    let pid = nix::unistd::Pid::from_raw(call["pid"].as_i64().unwrap() as i32);
    assert!(
        nix::sys::signal::kill(pid, None).is_err(),
        "the MCP server {pid} outlived hookshot"
    );
}

fn calls(log: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The documented example: after the matcher, the tool is called with
/// `${tool_input.file_path}` filled in, and its text is read like a
/// command hook's stdout; the server does not outlive the call.
#[test]
fn an_mcp_tool_hook_calls_the_tool_and_its_text_decides() {
    let p = Project::new();
    let log = p.path("calls.jsonl");
    p.write("proj/.mcp.json", &servers(&log).to_string());
    p.write("proj/.claude/settings.json", &scan_hook("security_scan").to_string());

    // Claude Code reads exit 2 with the reason on stderr as a denial.
    let o = p.fire("PreToolUse", &write_input("/p/config/secret.env"), &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("secret.env holds secrets (scanned by MCP)"),
        "{}",
        stderr(&o)
    );

    let o = p.fire("PreToolUse", &write_input("/p/src/main.rs"), &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let seen = calls(&log);
    let paths: Vec<&str> = seen.iter().map(|c| c["file_path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["/p/config/secret.env", "/p/src/main.rs"]);
    // Each fire started its own server and ended it on the way out.
    for c in &seen {
        assert_gone(c);
    }
}

/// A tool that answers `isError` is a non-blocking error the user sees, as
/// in Claude Code; under the closed policy it blocks.
#[test]
fn a_tool_error_is_shown_and_blocks_when_closed() {
    let p = Project::new();
    let log = p.path("calls.jsonl");
    p.write("proj/.mcp.json", &servers(&log).to_string());
    p.write("proj/.claude/settings.json", &scan_hook("broken").to_string());
    let o = p.fire("PreToolUse", &write_input("/p/a.txt"), &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let shown = stdout(&o)["systemMessage"].as_str().unwrap_or_default().to_string();
    assert!(shown.contains("scanner database is missing"), "{shown}");

    let mut closed = scan_hook("broken");
    closed["hooks"]["PreToolUse"][0]["hooks"][0]["onFailure"] = json!("block");
    p.write("proj/.claude/settings.json", &closed.to_string());
    let o = p.fire("PreToolUse", &write_input("/p/a.txt"), &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// A user's guard calls the user's server: a project `.mcp.json` that
/// defines a server of the same name does not replace it (in Claude Code it
/// would), and a user hook cannot use a server only the project defines.
#[test]
fn a_project_cannot_swap_the_server_behind_a_user_guard() {
    let p = Project::new();
    let log = p.path("calls.jsonl");
    p.write("home/.claude.json", &servers(&log).to_string());
    p.write("home/.claude/settings.json", &scan_hook("security_scan").to_string());
    p.write(
        "proj/.mcp.json",
        &json!({"mcpServers": {"guard": {"command": "/bin/true"}}}).to_string(),
    );
    let o = p.fire(
        "PreToolUse",
        &write_input("/p/secret.pem"),
        &["--agent-user-files"],
        &[],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(calls(&log).len(), 1);

    // Only the project defines it: the user's hook says why it did not run.
    std::fs::remove_file(p.path("home/.claude.json")).unwrap();
    let o = p.fire(
        "PreToolUse",
        &write_input("/p/secret.pem"),
        &["--agent-user-files"],
        &[],
    );
    let shown = stdout(&o)["systemMessage"].as_str().unwrap_or_default().to_string();
    assert!(shown.contains("less trusted"), "{shown}");
}

/// Claude Code skips mcp_tool hooks at launch (SessionStart from startup
/// or resume), before its MCP servers are up; later SessionStarts call.
#[test]
fn session_start_at_launch_calls_no_mcp_tool() {
    let p = Project::new();
    let log = p.path("calls.jsonl");
    p.write("proj/.mcp.json", &servers(&log).to_string());
    let hook = json!({"hooks": {"SessionStart": [{"hooks": [{
        "type": "mcp_tool", "server": "guard", "tool": "security_scan", "input": {"file_path": "${source}"}
    }]}]}});
    p.write("proj/.claude/settings.json", &hook.to_string());
    let start = |source: &str| json!({"session_id": "s", "hook_event_name": "SessionStart", "source": source});
    let o = p.fire("SessionStart", &start("startup"), &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(calls(&log).is_empty());
    let o = p.fire("SessionStart", &start("clear"), &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let seen = calls(&log);
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["file_path"], "clear");
}

/// A server that cannot start is named with the file that defines it.
#[test]
fn a_server_that_cannot_start_is_named() {
    let p = Project::new();
    p.write(
        "proj/.mcp.json",
        &json!({"mcpServers": {"guard": {"command": "/nonexistent/scanner"}}}).to_string(),
    );
    p.write("proj/.claude/settings.json", &scan_hook("security_scan").to_string());
    let o = p.fire("PreToolUse", &write_input("/p/a"), &[], &[]);
    let shown = stdout(&o)["systemMessage"].as_str().unwrap_or_default().to_string();
    assert!(
        shown.contains("/nonexistent/scanner") && shown.contains(".mcp.json"),
        "{shown}"
    );
}

/// A long-lived engine (`hookshot serve`) starts a server once and calls
/// it for every event; shutting down ends it.
#[test]
fn serve_keeps_one_server_for_the_session_and_ends_it() {
    use std::io::{BufRead, BufReader, Write};
    let p = Project::new();
    let log = p.path("calls.jsonl");
    p.write("proj/.mcp.json", &servers(&log).to_string());
    p.write("proj/.claude/settings.json", &scan_hook("security_scan").to_string());
    let mut child = p
        .command(&["serve", "--workdir", "proj", "--trust-project"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    for (id, path) in [(1, "/p/a.rs"), (2, "/p/secret.key"), (3, "/p/b.rs")] {
        let ask = json!({"jsonrpc": "2.0", "id": id, "method": "fire",
                         "params": {"event": "PreToolUse", "input": write_input(path)}});
        writeln!(stdin, "{ask}").unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["result"]["blocked"], id == 2, "{answer}");
    }
    let seen = calls(&log);
    assert_eq!(seen.len(), 3);
    assert!(seen.iter().all(|c| c["pid"] == seen[0]["pid"]), "one server: {seen:?}");
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":9,"method":"shutdown"}}"#).unwrap();
    assert!(child.wait().unwrap().success());
    assert_gone(&seen[0]);
}

/// A plugin's own servers (its `.mcp.json`, `${CLAUDE_PLUGIN_ROOT}`
/// expanded) are called by the scoped name `plugin:<plugin>:<server>`.
#[test]
fn a_plugin_calls_its_own_server_by_the_scoped_name() {
    let p = Project::new();
    let log = p.path("calls.jsonl");
    let root = "proj/.hookshot/extensions/guardplug";
    p.write(
        &format!("{root}/.claude-plugin/plugin.json"),
        r#"{"name": "guardplug"}"#,
    );
    std::fs::copy(mcp_server_script(), p.path(&format!("{root}/server.py"))).unwrap();
    let servers = json!({"mcpServers": {"scan": {
        "command": mcp_python(), "args": ["${CLAUDE_PLUGIN_ROOT}/server.py"], "env": {"GUARD_LOG": log}
    }}});
    p.write(&format!("{root}/.mcp.json"), &servers.to_string());
    let mut hooks = scan_hook("security_scan");
    hooks["hooks"]["PreToolUse"][0]["hooks"][0]["server"] = json!("plugin:guardplug:scan");
    p.write(&format!("{root}/hooks/hooks.json"), &hooks.to_string());
    let o = p.fire("PreToolUse", &write_input("/p/secret.txt"), &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(calls(&log).len(), 1);
}

/// `.mcp.json` is trusted with the project (`hookshot trust` shows its
/// servers). Changed since, its servers are not started: the hook that
/// calls one says the file is untrusted. An untrusted `.mcp.json` alone is
/// no guard that failed, so the closed policy does not block on it.
#[test]
fn mcp_json_is_trusted_with_the_project_and_a_change_withdraws_it() {
    let p = Project::new();
    let log = p.path("calls.jsonl");
    p.closed_policy();
    p.write("proj/.mcp.json", &servers(&log).to_string());
    let run = |args: &[&str], input: &Value| p.run(args, input);
    let fire = |input: &Value| run(&["fire", "PreToolUse", "--workdir", "proj"], input);
    // Only servers, untrusted: nothing is blocked.
    let o = fire(&write_input("/p/a.rs"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    p.write("proj/.claude/settings.json", &scan_hook("security_scan").to_string());
    let o = run(&["trust", "--workdir", "proj", "--yes"], &json!({}));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let listed = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(listed.contains("MCP server \"guard\" runs:"), "{listed}");
    let o = fire(&write_input("/p/secret.env"));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(calls(&log).len(), 1);

    let mut swapped = servers(&log);
    swapped["mcpServers"]["guard"]["args"] = json!(["-c", "pass"]);
    p.write("proj/.mcp.json", &swapped.to_string());
    let o = fire(&write_input("/p/a.rs"));
    assert_eq!(o.status.code(), Some(2), "closed policy: {}", stderr(&o));
    assert!(stderr(&o).contains("is not trusted"), "{}", stderr(&o));
    assert_eq!(calls(&log).len(), 1);
}

/// A broken file of MCP servers (`.mcp.json`, a huge `~/.claude.json`) is
/// shown with every answer, but it is not a guard that failed: under the closed policy it does not
/// block events no hook of it guards. A hook calling one of its servers
/// still fails visibly (and blocks).
#[test]
fn a_broken_server_file_warns_and_blocks_only_the_hooks_that_need_it() {
    let p = Project::new();
    p.closed_policy();
    p.write("proj/.mcp.json", "{\"mcpServers\": {");
    let o = p.fire("PreToolUse", &write_input("/p/a.rs"), &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains(".mcp.json"), "{}", stderr(&o));
    // Shown in the answer too: Claude Code hides stderr when stdout is JSON.
    let shown = stdout(&o)["systemMessage"].as_str().unwrap_or_default().to_string();
    assert!(
        shown.contains(".mcp.json") && shown.contains("MCP servers are not loaded"),
        "{shown}"
    );
    p.write("proj/.claude/settings.json", &scan_hook("security_scan").to_string());
    let o = p.fire("PreToolUse", &write_input("/p/a.rs"), &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// `fire --warm`: the warm server starts the MCP server once and keeps it
/// for the events that follow, with the answers a one-shot fire gives.
#[test]
fn a_warm_fire_keeps_one_mcp_server_across_events() {
    let p = Project::new();
    let log = p.path("calls.jsonl");
    p.write("proj/.mcp.json", &servers(&log).to_string());
    p.write("proj/.claude/settings.json", &scan_hook("security_scan").to_string());
    std::fs::create_dir_all(p.path("run")).unwrap();
    let run = p.path("run").display().to_string();
    let env = [("XDG_RUNTIME_DIR", run.as_str())];
    let shown = |o: &std::process::Output| (o.status.code(), o.stdout.clone(), stderr(o));
    let secret = write_input("/p/secret.key");
    let one_shot = p.fire("PreToolUse", &secret, &["--warm-idle", "30"], &env);
    assert_eq!(one_shot.status.code(), Some(2), "{}", stderr(&one_shot));
    // The first warm fire runs here and starts the server.
    p.fire("PreToolUse", &secret, &["--warm", "--warm-idle", "30"], &env);
    let start = std::time::Instant::now();
    while !std::fs::read_dir(p.path("run/hookshot"))
        .is_ok_and(|d| d.flatten().any(|e| e.path().extension().is_some_and(|x| x == "sock")))
    {
        assert!(start.elapsed() < std::time::Duration::from_secs(20), "no warm server");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let before = calls(&log).len();
    for _ in 0..3 {
        let warm = p.fire("PreToolUse", &secret, &["--warm", "--warm-idle", "30"], &env);
        assert_eq!(shown(&warm), shown(&one_shot));
    }
    let warm_calls = &calls(&log)[before..];
    assert_eq!(warm_calls.len(), 3, "{warm_calls:?}");
    assert!(
        warm_calls.iter().all(|c| c["pid"] == warm_calls[0]["pid"]),
        "one MCP server for the warm events: {warm_calls:?}"
    );
}
