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

/// Cline's own hook files of a project (`.clinerules/hooks/PreToolUse`, a
/// script named after its event) guard the other agents too: hookshot
/// called by Claude Code runs each as Cline runs it (by its `#!` line, or
/// its extension), with Cline's payload (its shell tool `run_commands`,
/// its parameters as text), and reads its answer in Cline's words at any
/// exit code.
#[test]
fn clines_own_hook_files_guard_claude_code() {
    let p = Project::new();
    p.write(
        "proj/.clinerules/hooks/PreToolUse",
        "#!/bin/sh\ni=$(cat); echo \"$i\" > ../seen-cline.json\ncase $i in *'rm -rf'*) echo '{\"cancel\": true, \"errorMessage\": \"no rm -rf here\"}'; exit 1;; *'make'*) echo '{\"overrideInput\": {\"commands\": [\"make -j2\"]}}';; esac\n",
    );
    p.write(
        "proj/.clinerules/hooks/PostToolUse.sh",
        "cat > ../seen-post.json; [ -n \"$BASH_VERSION\" ] && echo '{\"contextModification\": \"run the tests\"}'\n",
    );
    let proj = p.path("proj").canonicalize().unwrap().display().to_string();
    let call = |event: &str, fields: Value| {
        let mut input = json!({"session_id": "s-7", "cwd": proj, "tool_use_id": "toolu_1"});
        for (k, v) in fields.as_object().unwrap() {
            input[k] = v.clone();
        }
        common::fire_as_claude(&p, event, &input)
    };
    let (code, _, said) = call(
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}),
    );
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("no rm -rf here"), "{said}");
    let seen = p.read_json("seen-cline.json");
    let keys: Vec<&String> = seen.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "clineVersion",
            "timestamp",
            "taskId",
            "sessionContext",
            "workspaceRoots",
            "workspaceInfo",
            "userId",
            "agent_id",
            "parent_agent_id",
            "hookName",
            "iteration",
            "tool_call",
            "preToolUse"
        ],
        "{seen}"
    );
    assert_eq!(
        (&seen["hookName"], &seen["taskId"], &seen["workspaceRoots"]),
        (&json!("tool_call"), &json!("s-7"), &json!([proj]))
    );
    assert_eq!(
        seen["tool_call"],
        json!({"id": "toolu_1", "name": "run_commands", "input": {"commands": ["rm -rf build"]}})
    );
    assert_eq!(
        seen["preToolUse"],
        json!({"toolName": "run_commands", "parameters": {"commands": "[\"rm -rf build\"]"}})
    );
    // A rewrite in Cline's shape comes back as Claude Code's.
    let (code, answer, said) = call(
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "make"}}),
    );
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(
        answer["hookSpecificOutput"]["updatedInput"],
        json!({"command": "make -j2"}),
        "{answer}"
    );
    // After the tool: its `.sh` runs with bash, and its context reaches
    // the model.
    let (_, answer, said) = call(
        "PostToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a\n", "stderr": ""}}),
    );
    assert_eq!(
        answer["hookSpecificOutput"]["additionalContext"], "run the tests",
        "{answer} {said}"
    );
    let post = p.read_json("seen-post.json");
    assert_eq!(post["hookName"], "tool_result");
    assert_eq!(
        post["tool_result"]["output"],
        json!([{"query": "ls", "result": "a\n", "success": true}])
    );
}

/// Cline runs its own hook files itself: hookshot called by Cline leaves
/// them to it; an untrusted project's are not run; a task's start is not
/// its resumption, and Cline waits for no answer there.
#[test]
fn clines_own_hook_files_run_once_only_when_trusted_and_start_is_not_resume() {
    let p = Project::new();
    p.write(
        "proj/.clinerules/hooks/PreToolUse",
        "cat >> ../runs.log; echo >> ../runs.log; echo '{\"cancel\": true, \"errorMessage\": \"guarded\"}'\n",
    );
    p.write(
        "proj/.clinerules/hooks/TaskStart",
        "cat >> ../starts.log; echo >> ../starts.log; echo '{\"cancel\": true}'\n",
    );
    let (answer, _) = cline(&p, "PreToolUse", "tool_call", run_commands(&["ls"]));
    assert_eq!(answer, json!({}));
    assert!(!p.path("runs.log").exists(), "run a second time under Cline");
    let input = json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let o = p.run(
        &["fire", "PreToolUse", "--workdir", "proj", "--agent", "claude"],
        &input,
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(!p.path("runs.log").exists(), "an untrusted file ran");
    let trust = p.run(&["trust", "--yes", "--workdir", "proj"], &json!({}));
    assert!(trust.status.success(), "{}", common::stderr(&trust));
    let o = p.run(
        &["fire", "PreToolUse", "--workdir", "proj", "--agent", "claude"],
        &input,
    );
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(common::stderr(&o).contains("guarded"), "{}", common::stderr(&o));
    for source in ["startup", "resume"] {
        let o = p.run(
            &["fire", "SessionStart", "--workdir", "proj", "--agent", "claude"],
            &json!({"session_id": "s", "source": source}),
        );
        assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    }
    let starts = std::fs::read_to_string(p.path("starts.log")).unwrap();
    assert_eq!(starts.matches("\"agent_start\"").count(), 1, "{starts}");
    assert!(!starts.contains("agent_resume"), "{starts}");
}

/// A Cline hook file in a project's `.cline/hooks/` that sources a
/// neighbour: the approval binds the neighbour too, so swapping it stops
/// the hook (and says why) instead of running code nobody approved.
#[test]
fn a_neighbour_a_cline_hook_file_sources_is_bound_by_its_approval() {
    let p = Project::new();
    p.write(
        "proj/.cline/hooks/lib.sh",
        "answer() { echo '{\"cancel\": true, \"errorMessage\": \"guarded\"}'; }\n",
    );
    p.write(
        "proj/.cline/hooks/PreToolUse",
        "#!/bin/sh\n. .cline/hooks/lib.sh\ncat >/dev/null\nanswer\n",
    );
    let trust = p.run(&["trust", "--yes", "--workdir", "proj"], &json!({}));
    assert!(trust.status.success(), "{}", common::stderr(&trust));
    let input = json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let fire = || {
        p.run(
            &["fire", "PreToolUse", "--workdir", "proj", "--agent", "claude"],
            &input,
        )
    };
    let o = fire();
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    p.write("proj/.cline/hooks/lib.sh", "answer() { echo '{}'; }\n");
    let o = fire();
    let said = common::stderr(&o);
    assert!(said.contains("not trusted") && said.contains("lib.sh"), "{said}");
}
