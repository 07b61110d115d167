//! Cline's payload and answers at the protocol level (the real CLI runs in
//! `agents/test_cline.py`): `hookshot fire --agent cline EVENT`, EVENT one
//! of Cline's hook file names, with the payload Cline 3.0.65 sends.

mod common;

use common::Project;
use serde_json::{Value, json};

/// `fire --agent cline EVENT` with Cline's common fields around `fields`.
fn cline(p: &Project, event: &str, hook_name: &str, fields: Value) -> (Value, Option<i32>) {
    let root = p.path("proj").display().to_string();
    let base = json!({"clineVersion": "", "timestamp": "2026-11-28T07:37:46.485Z", "taskId": "conv_1",
        "sessionContext": {"rootSessionId": "1795851466070_rmwia"}, "workspaceRoots": [root],
        "workspaceInfo": {"rootPath": root, "hint": "project"}, "userId": "unknown", "agent_id": "agent_1",
        "parent_agent_id": null, "hookName": hook_name});
    common::fire_as_agent(p, "cline", event, base, fields)
}

fn run_commands(commands: &[&str]) -> Value {
    json!({"iteration": 1, "tool_call": {"id": "call_1", "name": "run_commands", "input": {"commands": commands}},
        "preToolUse": {"toolName": "run_commands", "parameters": {"commands": serde_json::to_string(commands).unwrap()}}})
}

#[test]
fn a_claude_code_guard_on_bash_cancels_clines_commands_with_its_reason() {
    let p = Project::new();
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "cat > ../seen.json; grep -q 'rm -rf' ../seen.json && { echo 'no rm -rf' >&2; exit 2; }; exit 0"}]}]}})
        .to_string(),
    );
    let (answer, code) = cline(&p, "PreToolUse", "tool_call", run_commands(&["ls", "rm -rf build"]));
    assert_eq!(
        code,
        Some(0),
        "Cline reads the answer at any exit code; hookshot exits 0"
    );
    assert_eq!(answer, json!({"cancel": true, "errorMessage": "no rm -rf"}));
    // The hook read Claude Code's shape: every command of the call, the
    // task as the session, the workspace as the folder.
    let seen: Value = p.read_json("seen.json");
    assert_eq!(seen["tool_name"], "Bash");
    assert_eq!(seen["tool_input"]["command"], "ls\nrm -rf build");
    assert_eq!(seen["hook_event_name"], "PreToolUse");
    assert_eq!(seen["session_id"], "conv_1");
    assert_eq!(seen["tool_use_id"], "call_1");
    let (answer, _) = cline(&p, "PreToolUse", "tool_call", run_commands(&["ls"]));
    assert_eq!(answer, json!({}), "nothing to say: Cline goes on");
}

#[test]
fn built_ins_guard_cline_and_a_rewrite_comes_back_in_its_shape() {
    let p = Project::new();
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"builtins": {"dangerous_confirmation": {"mode": "deny"}},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command":
                "grep -q 'make' || exit 0; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"command\": \"make -j2\"}}}'"}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command":
                "cat > ../seen-post.json; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"run the tests\"}}'"}]}]}})
        .to_string(),
    );
    let (answer, _) = cline(
        &p,
        "PreToolUse",
        "tool_call",
        run_commands(&["ls", "git push --force origin main"]),
    );
    assert_eq!(answer["cancel"], true, "{answer}");
    assert!(answer["errorMessage"].as_str().unwrap().contains("force"), "{answer}");
    let (answer, _) = cline(&p, "PreToolUse", "tool_call", run_commands(&["make"]));
    assert_eq!(answer, json!({"overrideInput": {"commands": ["make -j2"]}}));
    let result = json!({"iteration": 1, "tool_result": {"id": "call_1", "name": "run_commands",
        "input": {"commands": ["echo hi"]}, "output": [{"query": "echo hi", "result": "hi\n", "success": true}]}});
    let (answer, _) = cline(&p, "PostToolUse", "tool_result", result);
    assert_eq!(answer, json!({"contextModification": "run the tests"}));
    let seen: Value = p.read_json("seen-post.json");
    assert_eq!(seen["tool_response"]["stdout"], "hi\n");
}

/// Input hookshot cannot read still blocks a guarded event in Cline's
/// words: Cline reads no exit code, so an exit 2 alone would let the tool
/// run.
#[test]
fn unreadable_input_cancels_in_clines_words() {
    let p = Project::new();
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 0"}]}]}})
            .to_string(),
    );
    let mut child = p
        .command(&["fire", "--agent", "cline", "PreToolUse"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::write_stdin(&mut child, b"{\"clineVersion\": ").unwrap();
    let o = child.wait_with_output().unwrap();
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| {
        panic!(
            "not JSON: {:?} / {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    assert_eq!(answer["cancel"], true, "{answer}");
    assert!(
        answer["errorMessage"].as_str().unwrap().contains("cannot be read"),
        "{answer}"
    );
}

/// Cline's TaskComplete, at the end of every task, runs the Stop hooks
/// (a notifier, a log): they read the task's last answer as Claude Code's
/// `last_assistant_message`. Cline ends the task whatever the answer says
/// (measured on 3.0.65), so a Stop hook's block changes nothing there.
#[test]
fn task_complete_runs_the_stop_hooks_with_the_last_answer() {
    let p = Project::new();
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "cat > ../seen-stop.json"}]}]}})
            .to_string(),
    );
    let (answer, code) = cline(
        &p,
        "TaskComplete",
        "agent_end",
        json!({"iteration": 1, "turn": {"outputText": "all done", "status": "completed"},
            "taskComplete": {"taskMetadata": {}}}),
    );
    assert_eq!((answer, code), (json!({}), Some(0)));
    let seen = p.read_json("seen-stop.json");
    assert_eq!(seen["hook_event_name"], "Stop", "{seen}");
    assert_eq!(seen["last_assistant_message"], "all done", "{seen}");
    assert_eq!(seen["stop_hook_active"], false, "{seen}");
    assert_eq!(seen["session_id"], "conv_1", "{seen}");
}
