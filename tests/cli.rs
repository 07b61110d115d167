//! `hookshot fire` and `hookshot validate` as a user runs them: the real
//! binary, real hook scripts, real processes.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod common;

fn hookshot() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hookshot"));
    c.env_remove("HOOKSHOT_DEPTH");
    c
}

/// A temp project with one settings file whose BeforeTool hook runs `script`.
fn project(script: &str, timeout_ms: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hook.sh"), script).unwrap();
    let settings = json!({"hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [
        {"type": "command", "name": "the-hook", "command": "sh hook.sh", "timeout": timeout_ms}]}]}});
    std::fs::write(dir.path().join("settings.json"), settings.to_string()).unwrap();
    dir
}

fn fire(dir: &Path, event: &str, input: &Value) -> Output {
    let child = hookshot()
        .args(["fire", event, "--settings", "settings.json", "--workdir"])
        .arg(dir)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("HOME", dir)
        .spawn()
        .unwrap();
    feed(child, input)
}

/// A temp project with the test picoclaw process hook (`pico.py`) and a
/// picoclaw settings file whose `processes` are `processes`.
fn pico_project(processes: Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/integration-tests/scenarios/picoclaw-process-hook/hooks/pico.py"
    );
    std::fs::copy(script, dir.path().join("pico.py")).unwrap();
    let settings = json!({"hooks": {"enabled": true, "processes": processes}});
    std::fs::write(dir.path().join("settings.json"), settings.to_string()).unwrap();
    dir
}

/// Writes `input` to a spawned child's stdin and collects what it printed.
fn feed(mut child: std::process::Child, input: &Value) -> Output {
    common::write_stdin(&mut child, input.to_string().as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// `hookshot fire EVENT --settings settings.json` in `dir`, stdin empty.
fn fire_without_input(dir: &Path, event: &str) -> Output {
    hookshot()
        .args(["fire", event, "--settings", "settings.json"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn write_call() -> Value {
    json!({"tool_name": "write_file", "tool_input": {"file_path": "a.txt", "content": "x"}})
}

fn stdout_json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", String::from_utf8_lossy(&o.stdout)))
}

#[test]
fn allow_exits_0_and_the_hook_sees_the_input() {
    let dir = project("cat > seen.json; echo '{\"decision\": \"allow\"}'", 5000);
    let o = fire(dir.path(), "BeforeTool", &write_call());
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(stdout_json(&o), json!({"decision": "allow"}));
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("seen.json")).unwrap()).unwrap();
    assert_eq!(seen["tool_name"], "write_file");
    assert_eq!(seen["hook_event_name"], "BeforeTool");
    for field in ["session_id", "cwd", "timestamp"] {
        assert!(
            seen[field].as_str().is_some_and(|s| !s.is_empty()),
            "{field} missing in {seen}"
        );
    }
}

#[test]
fn block_via_json_exits_2_with_reason_on_stderr() {
    let dir = project(
        "cat >/dev/null; echo '{\"decision\": \"block\", \"reason\": \"no writes today\"}'",
        5000,
    );
    let o = fire(dir.path(), "BeforeTool", &write_call());
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&o.stderr).trim(), "no writes today");
    assert_eq!(stdout_json(&o)["decision"], "block");
}

#[test]
fn exit_2_with_empty_stdout_blocks_with_stderr_reason() {
    let dir = project("cat >/dev/null; echo 'protected path' >&2; exit 2", 5000);
    let o = fire(dir.path(), "PreToolUse", &write_call());
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&o.stderr).trim(), "protected path");
    assert_eq!(
        stdout_json(&o),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "protected path"}})
    );
}

#[test]
fn non_matching_tool_runs_nothing() {
    let dir = project("touch ran; exit 2", 5000);
    let o = fire(
        dir.path(),
        "BeforeTool",
        &json!({"tool_name": "read_file", "tool_input": {}}),
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(!dir.path().join("ran").exists());
}

#[test]
fn hanging_hook_is_killed_and_reported_without_blocking() {
    let dir = project("sleep 30", 300);
    let t = Instant::now();
    let o = fire(dir.path(), "BeforeTool", &write_call());
    assert!(t.elapsed() < Duration::from_secs(10), "took {:?}", t.elapsed());
    assert_eq!(o.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("hook the-hook timed out after 0.3s"), "{stderr}");
}

#[test]
fn invalid_json_output_is_a_message_not_a_decision() {
    let dir = project("cat >/dev/null; echo '{\"decision\": \"block\"'", 5000);
    let o = fire(dir.path(), "BeforeTool", &write_call());
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout_json(&o), json!({"systemMessage": "{\"decision\": \"block\""}));
}

#[test]
fn bad_input_json_blocks_a_guarded_event_and_fails_elsewhere() {
    let dir = project("exit 0", 5000);
    let fire = |event: &str| {
        let mut child = hookshot()
            .args(["fire", event, "--settings", "settings.json", "--input", "-"])
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(b"{\"tool_name\": ").unwrap();
        child.wait_with_output().unwrap()
    };
    // BeforeTool has a hook that could not be asked: blocked, not let through.
    let o = fire("BeforeTool");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("stdin:1:14: invalid input JSON"), "{err}");
    assert!(err.contains("its input cannot be read"), "{err}");
    // No hook sees AfterTool: a plain failure.
    let o = fire("AfterTool");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("stdin:1:14: invalid input JSON"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn unknown_event_suggests_the_right_name() {
    let o = hookshot()
        .args(["fire", "BeforTool"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    insta::assert_snapshot!(String::from_utf8_lossy(&o.stderr), @r#"hookshot: unknown event "BeforTool"; did you mean "BeforeTool"?"#);
}

#[test]
fn bad_settings_file_is_named_with_line_and_column_and_nothing_of_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let settings = r#"{
  "hooks": {
    "BeforeTool": [
      {"matcher": "write_file(", "hooks": [{"type": "command", "command": "touch ran"}]}
    ],
    "AfterTol": [],
    "AfterTool": [{"hooks": [{"type": "command", "command": "x", "timeout": "5s"}]}]
  }
}"#;
    std::fs::write(dir.path().join("settings.json"), settings).unwrap();
    let o = fire_without_input(dir.path(), "BeforeTool");
    // The broken file is a warning the agent shows (exit 0 with a
    // systemMessage), not exit 1, which agents ignore.
    assert_eq!(o.status.code(), Some(0));
    assert!(!dir.path().join("ran").exists());
    let shown = stdout_json(&o)["systemMessage"].as_str().unwrap().to_string();
    assert!(shown.contains("settings.json:6:5: /hooks/AfterTol"), "{shown}");
    let v = hookshot()
        .args(["validate", "settings.json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(v.status.code(), Some(1));
    insta::assert_snapshot!(String::from_utf8_lossy(&v.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains(String::from_utf8_lossy(&v.stderr).trim()));
}

#[test]
fn recursion_through_hookshot_itself_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let me = env!("CARGO_BIN_EXE_hookshot");
    let settings = json!({"hooks": {"BeforeTool": [{"hooks": [
        {"type": "command", "command": format!("{me} fire BeforeTool --settings settings.json"), "timeout": 20000}]}]}});
    std::fs::write(dir.path().join("settings.json"), settings.to_string()).unwrap();
    let t = Instant::now();
    let o = fire_without_input(dir.path(), "BeforeTool");
    assert!(t.elapsed() < Duration::from_secs(15));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn hookshot_registered_as_its_own_hook_runs_the_hooks_once() {
    // Multiplexer mode with a trusted project whose settings register
    // `hookshot fire` itself: the user's other hook must run once, not once
    // per nesting level.
    let dir = tempfile::tempdir().unwrap();
    let me = env!("CARGO_BIN_EXE_hookshot");
    let settings = json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": format!("{me} fire PreToolUse --settings settings.json"), "timeout": 20},
        {"type": "command", "command": "cat >/dev/null; echo run >> runs.log", "timeout": 20}]}]}});
    std::fs::write(dir.path().join("settings.json"), settings.to_string()).unwrap();
    let o = fire_without_input(dir.path(), "PreToolUse");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(dir.path().join("runs.log")).unwrap(), "run\n");
}

#[test]
fn multiplexer_mode_answers_claude_code_in_its_own_words() {
    // Claude Code runs `hookshot fire PreToolUse` as its only hook and pipes
    // this JSON in; hookshot runs its own hooks and builtins.
    let dir = tempfile::tempdir().unwrap();
    let settings = json!({
        "builtins": {"dangerous_confirmation": {"mode": "deny"}},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "cat > seen.json", "timeout": 5}]}]}
    });
    std::fs::write(dir.path().join("settings.json"), settings.to_string()).unwrap();
    let claude_input = json!({
        "session_id": "abc123",
        "transcript_path": "/home/u/.claude/projects/p/abc123.jsonl",
        "cwd": dir.path(),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git push --force origin main", "description": "Publish"},
        "tool_use_id": "toolu_01"
    });
    let o = fire(dir.path(), "PreToolUse", &claude_input);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout_json(&o);
    assert_eq!(out["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(String::from_utf8_lossy(&o.stderr).contains("git push --force"));
    // The user's own hook saw Claude's input unchanged.
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("seen.json")).unwrap()).unwrap();
    assert_eq!(seen["session_id"], "abc123");
    assert_eq!(seen["tool_use_id"], "toolu_01");
    assert_eq!(seen["hook_event_name"], "PreToolUse");
}

/// A project with its own `.gemini/settings.json` whose hook leaves a marker.
fn project_with_own_hooks(marker: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".gemini")).unwrap();
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    let settings = json!({"hooksConfig": {"enabled": true}, "hooks": {"BeforeTool": [{"hooks": [
        {"type": "command", "command": format!("touch {marker}; echo '{{\"decision\":\"deny\",\"reason\":\"project says no\"}}'")}]}]}});
    std::fs::write(dir.path().join(".gemini/settings.json"), settings.to_string()).unwrap();
    dir
}

fn fire_in(dir: &Path, extra: &[&str]) -> Output {
    hookshot()
        .args(["fire", "BeforeTool", "--workdir"])
        .arg(dir)
        .args(extra)
        .env("HOME", dir.join("home"))
        .env_remove("XDG_CONFIG_HOME")
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn untrusted_project_hooks_never_run() {
    let dir = project_with_own_hooks("ran");
    let o = fire_in(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!dir.path().join("ran").exists(), "an untrusted project hook ran");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("hook settings are not trusted"), "{stderr}");
    assert!(
        stdout_json(&o)["systemMessage"]
            .as_str()
            .unwrap()
            .contains("not trusted")
    );
    // Trusted for one run.
    let o = fire_in(dir.path(), &["--trust-project"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(dir.path().join("ran").exists());
}

#[test]
fn trust_store_approves_until_the_file_changes() {
    let dir = project_with_own_hooks("ran");
    let t = hookshot()
        .args(["trust", "--yes", "--project"])
        .arg(dir.path())
        .env("HOME", dir.path().join("home"))
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap();
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
    assert!(
        String::from_utf8_lossy(&t.stdout).contains("touch ran"),
        "trust shows what it trusts"
    );
    assert_eq!(fire_in(dir.path(), &[]).status.code(), Some(2));
    assert!(dir.path().join("ran").exists());
    // A changed definition is untrusted again.
    std::fs::remove_file(dir.path().join("ran")).unwrap();
    let p = dir.path().join(".gemini/settings.json");
    let changed = std::fs::read_to_string(&p)
        .unwrap()
        .replace("touch ran", "touch ran; true");
    std::fs::write(&p, changed).unwrap();
    assert_eq!(fire_in(dir.path(), &[]).status.code(), Some(0));
    assert!(!dir.path().join("ran").exists());
}

#[test]
fn later_sources_win_and_disable_lists_apply_across_sources() {
    let dir = project_with_own_hooks("ran");
    // The user's hookshot settings disable hooks entirely; the --settings
    // file (highest precedence) turns them back on and disables one by name.
    let user = dir.path().join("home/.config/hookshot");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("settings.json"),
        json!({"hooksConfig": {"enabled": false}}).to_string(),
    )
    .unwrap();
    let o = fire_in(dir.path(), &["--trust-project"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "the project (later than user) turns hooks on again"
    );
    std::fs::remove_file(dir.path().join("ran")).unwrap();
    let cli = dir.path().join("cli.json");
    std::fs::write(
        &cli,
        json!({"hooksConfig": {"disabled": [format!("touch ran; echo '{{\"decision\":\"deny\",\"reason\":\"project says no\"}}'")]}})
            .to_string(),
    )
    .unwrap();
    let o = fire_in(dir.path(), &["--trust-project", "--settings", cli.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!dir.path().join("ran").exists());
    let l = hookshot()
        .args(["list", "--json", "--trust-project", "--workdir"])
        .arg(dir.path())
        .args(["--settings", cli.to_str().unwrap()])
        .env("HOME", dir.path().join("home"))
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap();
    let rows: Value = serde_json::from_slice(&l.stdout).unwrap();
    assert_eq!(rows[0]["state"], "disabled");
    assert_eq!(rows[0]["source"], "project");
}

#[test]
fn stats_command_reads_an_audit_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let line = |d: &str, ms: f64| json!({"event": "BeforeTool", "hooks": [{"hook": "guard", "decision": d, "duration_ms": ms, "failure": null}]});
    std::fs::write(&log, format!("{}\n{}\n", line("block", 2.0), line("allow", 3.0))).unwrap();
    std::fs::write(dir.path().join("audit.jsonl.1"), format!("{}\n", line("allow", 1.0))).unwrap();
    let out = hookshot()
        .args(["stats", "--json", "--audit"])
        .arg(&log)
        .output()
        .unwrap();
    let stats: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats[0]["hook"], "guard");
    assert_eq!(stats[0]["runs"], 3, "rotated files are read too");
    assert_eq!(stats[0]["blocks"], 1);
    // The median of 1, 2 and 3 ms is 2 ms (within 1%), not a bucket bound.
    assert!(
        (stats[0]["p50_ms"].as_f64().unwrap() - 2.0).abs() < 0.02,
        "{}",
        stats[0]
    );
    // Records the log says it lost are shown.
    let lost = json!({"type": "lost", "dropped": 2, "failed": 1, "error": "No space left on device (os error 28)"});
    std::fs::write(&log, format!("{}\n{lost}\n", line("block", 2.0))).unwrap();
    let out = hookshot().args(["stats", "--audit"]).arg(&log).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "audit records lost: 3 (2 dropped while the writer was behind, 1 not written: No space left on device"
        ),
        "{text}"
    );
}

#[test]
fn llm_prompt_hooks_answer_from_a_model_fixture() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("hooks.yaml"),
        "pre_tool_execution:\n  - type: llm\n    prompt: \"Is {{tool_name}} with {{tool_arguments}} safe? Reply JSON.\"\n    retry: 1\n",
    )
    .unwrap();
    let answers = [
        model_says("Looking at it... {\"action\": \"skip\", \"retry_feedback\": \"rm is not safe\"} hope that helps"),
        model_says("I think it is fine"),
        model_says("{}"),
    ];
    let text: String = answers.iter().map(|a| format!("{a}\n")).collect();
    std::fs::write(dir.path().join("model.responses"), text).unwrap();
    let run = |input: &Value, extra: &[&str]| {
        let child = hookshot()
            .args(["fire", "pre_tool_execution", "--settings", "hooks.yaml"])
            .args(extra)
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        feed(child, input)
    };
    let call = json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}});
    let model = ["--hook-model", "model.responses"];
    // First answer: JSON inside prose, taken from the first { to the last }.
    let o = run(&call, &model);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stdout_json(&o),
        json!({"action": "skip", "retry_feedback": "rm is not safe"})
    );
    // A fresh process reads the fixture from the start: the same answer.
    // Without a model client the hook fails open, with a warning naming it.
    let o = run(&call, &[]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("has no model client"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[tokio::test]
async fn llm_hook_retries_an_answer_without_json() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("hooks.yaml"),
        "stop:\n  - type: llm\n    prompt: \"Review: {{assistant_output}}\"\n",
    )
    .unwrap();
    let text = format!(
        "{}\n{}\n",
        model_says("no json at all"),
        model_says("{\"action\": \"stop\", \"retry_feedback\": \"add tests\"}")
    );
    std::fs::write(dir.path().join("m.responses"), text).unwrap();
    let model = hookshot_replay::HookModel::open(&dir.path().join("m.responses")).unwrap();
    let hooks = hookshot::HookSystem::builder()
        .settings(dir.path().join("hooks.yaml"))
        .workdir(dir.path())
        .model_client(std::sync::Arc::new(model))
        .build()
        .unwrap();
    let input = json!({"prompt": "p", "prompt_response": "done"})
        .as_object()
        .unwrap()
        .clone();
    let o = hooks.fire(hookshot::EventKind::AfterAgent, input.clone()).await;
    assert!(
        o.is_blocked(),
        "the retry (jcli's default for llm hooks is 1) got the JSON answer: {:?}",
        o.warnings
    );
    assert_eq!(o.block_reason(), "add tests");
    // The fixture is used up: the next run fails open, with a warning.
    let o = hooks.fire(hookshot::EventKind::AfterAgent, input).await;
    assert!(!o.is_blocked());
    assert!(o.warnings[0].contains("ran out"), "{:?}", o.warnings);
}

#[test]
fn extension_hooks_load_with_their_own_path_and_need_trust() {
    let dir = tempfile::tempdir().unwrap();
    let ext = dir.path().join(".hookshot/extensions/guard");
    std::fs::create_dir_all(&ext).unwrap();
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    std::fs::write(
        ext.join("guard.sh"),
        "cat >/dev/null; echo 'extension says no' >&2; exit 2\n",
    )
    .unwrap();
    let manifest = json!({"name": "guard", "version": "1.0.0", "hooks": {"BeforeTool": [{"hooks": [
        {"type": "command", "command": "sh ${extensionPath}${/}guard.sh ${workspacePath}", "timeout": 5000}]}]}});
    std::fs::write(ext.join("gemini-extension.json"), manifest.to_string()).unwrap();
    let o = fire_in(dir.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "an untrusted extension's hook must not run");
    let o = fire_in(dir.path(), &["--trust-project"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stderr).trim(), "extension says no");
    let l = hookshot()
        .args(["list", "--json", "--trust-project", "--workdir"])
        .arg(dir.path())
        .env("HOME", dir.path().join("home"))
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap();
    let rows: Value = serde_json::from_slice(&l.stdout).unwrap();
    assert_eq!(rows[0]["source"], "extension");
    // gemini-cli's variables: the extension's folder, the path separator,
    // the workspace.
    let command = rows[0]["command"].as_str().unwrap();
    assert!(command.contains(".hookshot/extensions/guard/guard.sh"), "{command}");
    assert!(command.ends_with(&format!(" {}", dir.path().display())), "{command}");
}

/// One recorded model answer with this text.
fn model_says(text: &str) -> Value {
    json!({"method": "generateContentStream", "response": [{"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]}]})
}

#[test]
fn a_one_shot_fire_delivers_its_notifications_before_it_ends_the_observer() {
    // slow_exit takes a while over each notification, as a real observer
    // writing to a log or a socket does.
    let dir = pico_project(json!({"watch": {
        "command": ["python3", "pico.py", "slow_exit"],
        "observe": ["agent.tool.exec_start", "agent.tool.exec_end"]}}));
    let out = fire(
        dir.path(),
        "BeforeTool",
        &json!({"tool_name": "write_file", "tool_input": {"content": "x"}}),
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let log = std::fs::read_to_string(dir.path().join("calls.log")).unwrap_or_default();
    let events: Vec<Value> = log.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let kinds: Vec<&str> = events
        .iter()
        .filter(|e| e["method"] == "hook.runtime_event")
        .filter_map(|e| e["input"]["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["agent.tool.exec_start"], "{log}");
}

/// Peak resident memory (MiB) of `hookshot ARGS` fed `input`, measured by a
/// Python parent with getrusage (the child's own high-water mark).
fn peak_mib(dir: &Path, args: &[&str], input: &Path) -> (u64, i32) {
    let script = r#"
import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], stdin=sys.stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, p.returncode)
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_hookshot"))
        .args(args)
        .current_dir(dir)
        .stdin(std::fs::File::open(input).unwrap())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut words = text.split_whitespace();
    let mib = words
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("{text} {}", String::from_utf8_lossy(&out.stderr)));
    let code = words.next().and_then(|w| w.parse().ok()).unwrap();
    (mib, code)
}

#[test]
fn parallel_hooks_share_one_copy_of_a_large_input() {
    let dir = tempfile::tempdir().unwrap();
    let hooks: Vec<Value> = (0..10)
        .map(|i| json!({"type": "command", "command": format!("cat >/dev/null # {i}"), "timeout": 60000}))
        .collect();
    let settings = json!({"hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": hooks}]}});
    std::fs::write(dir.path().join("settings.json"), settings.to_string()).unwrap();
    let input = json!({"tool_name": "write_file", "tool_input": {"content": "x".repeat(30 << 20)}});
    std::fs::write(dir.path().join("input.json"), input.to_string()).unwrap();
    let (mib, code) = peak_mib(
        dir.path(),
        &["fire", "BeforeTool", "--settings", "settings.json"],
        &dir.path().join("input.json"),
    );
    assert_eq!(code, 0);
    // Reading and parsing hold about three copies (~90 MiB); a copy per hook
    // would add 300 MiB.
    assert!(
        mib < 200,
        "hookshot peaked at {mib} MiB for a 30 MB input and ten hooks"
    );
}

/// What the commands print agrees with what they do: a count in the right
/// number, the way to a missing option named, events under their agents'
/// own names.
#[test]
fn messages_name_things_the_way_their_users_do() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let one =
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}});
    std::fs::write(&settings, one.to_string()).unwrap();
    let o = hookshot().arg("validate").arg(&settings).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("(claude, 1 hook)"), "{o:?}");
    let o = hookshot().arg("stats").output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.contains("--audit FILE") && said.contains("--socket PATH"),
        "{said}"
    );
    let o = hookshot()
        .args(["list", "--trust-project", "--workdir"])
        .arg(dir.path())
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.starts_with("PreToolUse\n"), "{said}");
    let o = hookshot().args(["serve", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("fire, list, stats, shutdown"));
}

/// `list` names every matcher as written; a Claude argument filter
/// (`Bash(git push*)`) was listed as an empty matcher.
#[test]
fn list_shows_argument_filters_and_every_hook_in_one_event_block() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("s.json");
    let hook = |m: &str| json!({"matcher": m, "hooks": [{"type": "command", "command": format!("echo {m}")}]});
    let file = json!({"hooks": {"PreToolUse": [hook("Bash(git push*)"), hook("Edit|Write"), hook("*")]}});
    std::fs::write(&settings, file.to_string()).unwrap();
    let o = hookshot()
        .args(["list", "--dialect", "claude", "--settings"])
        .arg(&settings)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let said = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines[0], "PreToolUse", "{said}");
    assert!(
        lines[1].contains("(matcher Bash(git push*), cli claude, active) "),
        "{said}"
    );
    assert!(lines[2].contains("(matcher Edit|Write, "), "{said}");
    assert!(lines[3].contains("(matcher *, "), "{said}");
    assert_eq!(lines.len(), 4, "{said}");
}

#[test]
fn a_process_hooks_protocol_noise_is_a_warning_without_rust_log_and_a_log_line_with_it() {
    let dir =
        pico_project(json!({"pico": {"command": ["python3", "pico.py", "big_lines"], "intercept": ["before_tool"]}}));
    let input = json!({"tool_name": "write_file", "tool_input": {"file_path": "a"}});
    let run = |rust_log: Option<&str>| {
        let mut c = hookshot();
        c.args(["fire", "BeforeTool", "--settings", "settings.json", "--workdir"])
            .arg(dir.path())
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("HOME", dir.path())
            .env_remove("RUST_LOG");
        if let Some(filter) = rust_log {
            c.env("RUST_LOG", filter);
        }
        let o = feed(c.spawn().unwrap(), &input);
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let plain = run(None);
    assert!(
        plain.contains("hookshot: warning: skipped a line longer than") && plain.contains("process=pico"),
        "{plain}"
    );
    let logged = run(Some("warn"));
    assert!(
        logged.contains("WARN") && logged.contains("skipped a line longer than"),
        "{logged}"
    );
    assert!(run(Some("error")).lines().all(|l| !l.contains("skipped a line")));
}

/// `hookshot doctor | head -1`: a reader that stops reading ends a listing
/// quietly (exit 0, no panic); a fire whose stdout the agent closed still
/// exits with its answer's code, which carries a block.
#[test]
fn a_closed_stdout_ends_quietly_and_a_fire_keeps_its_code() {
    let p = common::Project::new();
    p.write(
        "home/.config/hookshot/settings.json",
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "cat >/dev/null; echo no >&2; exit 2"}]}]}}"#,
    );
    for args in [&["doctor"][..], &["list", "--workdir", "proj"], &["schema"], &["man"]] {
        let mut child = p.command(args).spawn().unwrap();
        drop(child.stdout.take());
        drop(child.stdin.take());
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_ne!(o.status.code(), Some(101), "{args:?}: {err}");
    }
    let mut child = p.command(&["fire", "PreToolUse", "--workdir", "proj"]).spawn().unwrap();
    drop(child.stdout.take());
    let _ = common::write_stdin(&mut child, br#"{"tool_name": "Bash", "tool_input": {"command": "ls"}}"#);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A file that only turns built-ins on: `list` and `validate` say they are
/// on, not "no hooks".
#[test]
fn list_and_validate_name_the_built_ins_a_file_turns_on() {
    let p = common::Project::new();
    let file = p.write(
        "home/.config/hookshot/settings.json",
        r#"{"builtins": {"dangerous_confirmation": {"mode": "deny"}, "security_scan": true}}"#,
    );
    let o = p.command(&["list", "--workdir", "proj"]).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("built-in on: dangerous_confirmation") && out.contains("built-in on: security_scan"),
        "{out}"
    );
    let o = p.command(&["validate", file.to_str().unwrap()]).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("built-in dangerous_confirmation on") && out.contains("built-in security_scan on"),
        "{out}"
    );
}

/// `doctor` says where the audit log is, and the command it gives reads it.
#[test]
fn doctor_names_the_audit_log_and_how_to_read_it() {
    let p = common::Project::new();
    p.write(
        "home/.config/hookshot/settings.json",
        r#"{"builtins": {"audit_log": {"path": "audit.jsonl"}}}"#,
    );
    let o = p.command(&["doctor", "--workdir", "proj"]).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let line = out
        .lines()
        .find(|l| l.starts_with("audit log: "))
        .unwrap_or_else(|| panic!("{out}"));
    let path = line["audit log: ".len()..].split(" (").next().unwrap();
    assert!(path.ends_with("/hookshot/audit.jsonl"), "{line}");
    // An event lands there, and the command doctor gave reads it.
    let mut child = p.command(&["fire", "PreToolUse", "--workdir", "proj"]).spawn().unwrap();
    let _ = common::write_stdin(&mut child, br#"{"tool_name": "Bash", "tool_input": {"command": "ls"}}"#);
    child.wait_with_output().unwrap();
    let o = p.command(&["stats", "--audit", path]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A jcli hook runs under `sh -c`, as jcli runs it (its hooks document),
/// a Claude Code hook under `/bin/sh -c`, a gemini-cli hook under
/// `bash -c`: each with its own agent's shell, whichever file it is in.
#[test]
fn each_agents_hook_runs_with_its_agents_shell() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("hooks.yaml"),
        "pre_tool_execution:\n  - type: bash\n    command: 'printf %s \"$0\" > jcli.txt'\n",
    )
    .unwrap();
    let line = |file: &str| format!("printf %s \"$0\" > {file}");
    std::fs::write(
        d.join("claude.json"),
        json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": line("claude.txt")}]}]}}).to_string(),
    )
    .unwrap();
    std::fs::write(
        d.join("gemini.json"),
        json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": line("gemini.txt")}]}]}}).to_string(),
    )
    .unwrap();
    for (event, settings) in [
        ("pre_tool_execution", "hooks.yaml"),
        ("PreToolUse", "claude.json"),
        ("BeforeTool", "gemini.json"),
    ] {
        let child = hookshot()
            .args(["fire", event, "--settings", settings])
            .current_dir(d)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let o = feed(child, &json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}));
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let shell = |f: &str| std::fs::read_to_string(d.join(f)).unwrap();
    assert_eq!(shell("jcli.txt"), "sh");
    assert_eq!(shell("claude.txt"), "/bin/sh");
    assert_eq!(shell("gemini.txt"), "bash");
}

/// `explain` names the calling agent as its users know it, and each other
/// name of the tool once (gemini-cli and Qwen Code both call Claude Code's
/// `Bash` `run_shell_command`).
#[test]
fn explain_names_the_agent_and_each_alias_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("in.json"),
        r#"{"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}"#,
    )
    .unwrap();
    let o = hookshot()
        .args(["explain", "PreToolUse", "--agent", "qwen", "--input", "in.json"])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("(also known as Bash)"), "{text}");
    assert!(text.contains("run by Qwen Code:"), "{text}");
}
