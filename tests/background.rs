//! Claude Code's `async` and `asyncRewake` hooks: the agent never waits for
//! them, and what they say reaches the model with the session's next event
//! that carries context, whether hookshot is a one-shot `fire` per event
//! or a long-lived `serve`.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{Project, stderr, stdout};
use serde_json::{Value, json};

/// A PostToolUse hook that records it started, then waits (at most 30 s)
/// for `go` beside the project before it answers: while it waits, an
/// answer given to the agent cannot have waited for it.
fn waiting_hook(p: &Project, key: &str) {
    let script = p.write(
        "proj/hook.sh",
        "#!/bin/sh\ncat > ../started.part && mv ../started.part ../started\nn=0\nwhile [ ! -e ../go ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n+1)); done\n\
         echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"tests failed: 2\"}}'\n\
         touch ../finished\n",
    );
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    on_write(
        p,
        json!({"type": "command", "command": "./hook.sh", key: true, "timeout": 1}),
    );
}

/// The project's one hook: `handler`, after every Write.
fn on_write(p: &Project, handler: Value) {
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [handler]}]}}).to_string(),
    );
}

fn wrote(session: &str) -> Value {
    json!({"session_id": session, "hook_event_name": "PostToolUse", "tool_name": "Write",
           "tool_input": {"file_path": "a.txt", "content": "x"}, "tool_response": {"success": true}})
}

fn prompt(session: &str) -> Value {
    json!({"session_id": session, "hook_event_name": "UserPromptSubmit", "prompt": "go on"})
}

fn context(answer: &Value) -> Option<String> {
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .map(str::to_string)
}

fn wait_for(path: &Path) {
    let t = Instant::now();
    while !path.exists() {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Fires UserPromptSubmit for `session` until something is delivered.
fn next_turn_context(p: &Project, session: &str) -> String {
    let t = Instant::now();
    loop {
        let o = p.fire("UserPromptSubmit", &prompt(session), &[], &[]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        if let Some(c) = context(&stdout(&o)) {
            return c;
        }
        assert!(t.elapsed() < Duration::from_secs(20), "nothing was delivered");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_one_shot_fire_answers_at_once_and_the_next_turn_hears_the_async_hook() {
    let p = Project::new();
    waiting_hook(&p, "async");
    let o = p.fire("PostToolUse", &wrote("s1"), &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), json!({}));
    // The hook runs (with the event's input) after the answer was given.
    wait_for(&p.path("started"));
    let given: Value = serde_json::from_slice(&std::fs::read(p.path("started")).unwrap()).unwrap();
    assert_eq!(given["tool_name"], "Write");
    assert!(!p.path("finished").exists(), "the answer waited for the async hook");
    // Nothing to deliver while it runs; its 1 s timeout is not enforced.
    assert_eq!(
        context(&stdout(&p.fire("UserPromptSubmit", &prompt("s1"), &[], &[]))),
        None
    );
    std::thread::sleep(Duration::from_millis(1500));
    std::fs::write(p.path("go"), "").unwrap();
    wait_for(&p.path("finished"));
    // Another session does not hear it; its own does, once.
    assert_eq!(
        context(&stdout(&p.fire("UserPromptSubmit", &prompt("s2"), &[], &[]))),
        None
    );
    assert_eq!(next_turn_context(&p, "s1"), "tests failed: 2");
    assert_eq!(
        context(&stdout(&p.fire("UserPromptSubmit", &prompt("s1"), &[], &[]))),
        None
    );
}

#[test]
fn an_async_rewake_exit_2_reminds_the_model_and_blocks_nothing() {
    let p = Project::new();
    on_write(
        &p,
        json!({"type": "command", "asyncRewake": true, "command": "echo 'lint: 3 errors in a.txt' >&2; exit 2"}),
    );
    let o = p.fire("PostToolUse", &wrote("s1"), &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), json!({}));
    assert_eq!(next_turn_context(&p, "s1"), "lint: 3 errors in a.txt");
}

#[test]
fn an_async_rewake_hook_keeps_its_timeout_and_the_user_hears_of_it() {
    let p = Project::new();
    on_write(
        &p,
        json!({"type": "command", "asyncRewake": true, "command": "sleep 30", "timeout": 1}),
    );
    assert_eq!(p.fire("PostToolUse", &wrote("s1"), &[], &[]).status.code(), Some(0));
    let t = Instant::now();
    let said = loop {
        let answer = stdout(&p.fire("UserPromptSubmit", &prompt("s1"), &[], &[]));
        if let Some(m) = answer["systemMessage"].as_str() {
            break m.to_string();
        }
        assert!(t.elapsed() < Duration::from_secs(20), "the timeout was never reported");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(said.contains("timed out after 1s"), "{said}");
}

#[test]
fn a_sidecar_runs_async_hooks_as_its_own_tasks() {
    let p = Project::new();
    waiting_hook(&p, "async");
    let mut child = p
        .command(&["serve", "--workdir", "proj", "--trust-project"])
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |event: &str, input: &Value| -> Value {
        let req = json!({"jsonrpc": "2.0", "id": 1, "method": "fire", "params": {"event": event, "input": input}});
        writeln!(stdin, "{req}").unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap()["result"]["output"].clone()
    };
    assert_eq!(ask("PostToolUse", &wrote("s1")), json!({}));
    wait_for(&p.path("started"));
    assert!(!p.path("finished").exists(), "the answer waited for the async hook");
    assert_eq!(context(&ask("UserPromptSubmit", &prompt("s1"))), None);
    std::fs::write(p.path("go"), "").unwrap();
    wait_for(&p.path("finished"));
    let t = Instant::now();
    let got = loop {
        assert_eq!(context(&ask("UserPromptSubmit", &prompt("s2"))), None);
        if let Some(c) = context(&ask("UserPromptSubmit", &prompt("s1"))) {
            break c;
        }
        assert!(t.elapsed() < Duration::from_secs(20), "nothing was delivered");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(got, "tests failed: 2");
    drop(stdin);
    child.wait().unwrap();
}

/// Nested (a hook that itself runs `hookshot fire`, the multiplexer set-up):
/// an async hook runs exactly once per event, however many hookshots see
/// it; the detached run does not start again from depth 0 either.
#[test]
fn an_async_hook_runs_exactly_once_under_nesting() {
    let bin = env!("CARGO_BIN_EXE_hookshot");
    for trial in 0..5 {
        let p = Project::new();
        p.write(
            "home/.config/hookshot/settings.json",
            &json!({"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [
                {"type": "command", "command": "cat > /dev/null; echo ran >> ../runs", "async": true},
                {"type": "command", "command": format!("{bin} fire PostToolUse --workdir . > /dev/null")}]}]}})
            .to_string(),
        );
        let o = p.fire("PostToolUse", &wrote(&format!("s{trial}")), &[], &[]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        wait_for(&p.path("runs"));
        // Every detached run has had time to start and finish.
        std::thread::sleep(Duration::from_millis(1500));
        let runs = std::fs::read_to_string(p.path("runs")).unwrap();
        assert_eq!(
            runs.lines().count(),
            1,
            "trial {trial}: the async hook ran {} times",
            runs.lines().count()
        );
    }
}
