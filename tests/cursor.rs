//! Cursor at the protocol level (its agent is in no registry reachable
//! here): `hookshot fire EVENT --agent cursor` with the inputs Cursor's
//! hook reference gives for each event, and the answers it reads back. A
//! guard written for Claude Code (`"matcher": "Bash"`) meets Cursor's shell
//! command, and the built-ins guard it too.

mod common;

use common::Project;
use serde_json::{Value, json};

fn guards(p: &Project) {
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command",
                    "command": "cat > ../seen-pre.json; grep -q 'rm -rf' ../seen-pre.json && { echo 'no rm -rf' >&2; exit 2; }; exit 0"}]},
                {"matcher": "db_query", "hooks": [{"type": "command",
                    "command": "grep -q DROP && { echo 'no DROP' >&2; exit 2; }; exit 0"}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command":
                "cat > ../seen-post.json; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"run the tests\"}}'"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command",
                "command": "grep -q 'ship it' && { echo 'not on a Friday' >&2; exit 2; }; exit 0"}]}],
            "Stop": [{"hooks": [{"type": "command",
                "command": "echo '{\"decision\": \"block\", \"reason\": \"run the tests first\"}'"}]}]},
            "builtins": {"security_scan": {"mode": "redact"}}})
        .to_string(),
    );
}

/// `fire EVENT --agent cursor` with Cursor's common fields around `fields`.
fn cursor(p: &Project, event: &str, fields: Value) -> (Value, Option<i32>) {
    let root = p.path("proj").display().to_string();
    let base = json!({"hook_event_name": event, "conversation_id": "conv-1", "generation_id": "gen-1",
        "workspace_roots": [root], "cursor_version": "2.0.77"});
    common::fire_as_agent(p, "cursor", event, base, fields)
}

#[test]
fn a_claude_code_guard_denies_cursors_shell_command_with_its_reason() {
    let p = Project::new();
    guards(&p);
    let cwd = p.path("proj").display().to_string();
    let (answer, code) = cursor(
        &p,
        "beforeShellExecution",
        json!({"command": "rm -rf build", "cwd": cwd}),
    );
    assert_eq!(code, Some(0));
    assert_eq!(answer["permission"], "deny", "{answer}");
    assert_eq!(answer["agent_message"], "no rm -rf", "{answer}");
    // The guard read the call as Claude Code names it.
    let seen: Value = p.read_json("seen-pre.json");
    assert_eq!(seen["tool_name"], "Bash", "{seen}");
    assert_eq!(seen["tool_input"]["command"], "rm -rf build", "{seen}");
    assert_eq!(seen["session_id"], "conv-1", "{seen}");
    // An allowed command gets no permission: Cursor's own approval stands.
    let (answer, code) = cursor(&p, "beforeShellExecution", json!({"command": "ls", "cwd": cwd}));
    assert_eq!((answer, code), (json!({}), Some(0)));
}

#[test]
fn an_mcp_call_is_matched_by_its_tool_and_its_json_text_input() {
    let p = Project::new();
    guards(&p);
    let (answer, _) = cursor(
        &p,
        "beforeMCPExecution",
        json!({"tool_name": "db_query", "tool_input": "{\"query\": \"DROP TABLE users\"}", "command": "npx db-mcp"}),
    );
    assert_eq!(answer["permission"], "deny", "{answer}");
    let (answer, _) = cursor(
        &p,
        "beforeMCPExecution",
        json!({"tool_name": "db_query", "tool_input": "{\"query\": \"SELECT 1\"}"}),
    );
    assert!(answer.get("permission").is_none(), "{answer}");
}

#[test]
fn a_read_of_a_file_with_secrets_is_denied_before_the_model_sees_it() {
    let p = Project::new();
    guards(&p);
    let env = p.path("proj/.env").display().to_string();
    let (answer, _) = cursor(
        &p,
        "beforeReadFile",
        json!({"file_path": env, "content": "GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a\n", "attachments": []}),
    );
    assert_eq!(answer["permission"], "deny", "{answer}");
    assert!(
        answer["agent_message"].as_str().unwrap().contains("github_token"),
        "{answer}"
    );
    let (answer, _) = cursor(&p, "beforeReadFile", json!({"file_path": env, "content": "DEBUG=1\n"}));
    assert!(answer.get("permission").is_none(), "{answer}");
}

#[test]
fn after_a_shell_command_the_output_is_the_tools_result_and_context_is_given() {
    let p = Project::new();
    guards(&p);
    let (answer, _) = cursor(
        &p,
        "afterShellExecution",
        json!({"command": "ls", "output": "a b", "duration": 5}),
    );
    assert_eq!(answer, json!({"additional_context": "run the tests"}));
    let seen: Value = p.read_json("seen-post.json");
    assert_eq!(seen["tool_name"], "Bash", "{seen}");
    assert_eq!(seen["tool_response"]["stdout"], "a b", "{seen}");
    let (answer, _) = cursor(
        &p,
        "afterFileEdit",
        json!({"file_path": "/p/main.ts", "edits": [{"old_string": "a", "new_string": "b"}]}),
    );
    assert_eq!(answer, json!({"additional_context": "run the tests"}));
    let seen: Value = p.read_json("seen-post.json");
    assert_eq!(seen["tool_name"], "Edit", "{seen}");
    assert_eq!(seen["tool_input"]["edits"][0]["new_string"], "b", "{seen}");
}

#[test]
fn a_prompt_is_stopped_and_the_stop_goes_on_in_cursors_words() {
    let p = Project::new();
    guards(&p);
    let (answer, _) = cursor(
        &p,
        "beforeSubmitPrompt",
        json!({"prompt": "ship it", "attachments": []}),
    );
    assert_eq!(answer, json!({"continue": false, "user_message": "not on a Friday"}));
    let (answer, _) = cursor(&p, "beforeSubmitPrompt", json!({"prompt": "fix the bug"}));
    assert_eq!(answer, json!({"continue": true}));
    // Cursor's `stop` is also jcli's name: `--agent cursor` decides.
    let (answer, code) = cursor(&p, "stop", json!({"status": "completed", "loop_count": 0}));
    assert_eq!(
        (answer, code),
        (json!({"followup_message": "run the tests first"}), Some(0))
    );
}

/// A hand-written `hookshot fire beforeShellExecution` (no `--agent`) is
/// told Cursor's by its event name; a settings file cannot use Cursor's
/// tool-naming events as keys (a hook under `beforeReadFile` would run for
/// every tool): it is told which name to use.
#[test]
fn cursors_names_are_told_apart_and_kept_out_of_settings_keys() {
    let p = Project::new();
    guards(&p);
    let input = json!({"hook_event_name": "beforeShellExecution", "conversation_id": "c", "command": "rm -rf x"});
    let o = p.fire("beforeShellExecution", &input, &[], &[]);
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(answer["permission"], "deny", "{answer}");
    p.write(
        "bad.json",
        &json!({"hooks": {"beforeReadFile": [{"hooks": [{"type": "command", "command": "exit 2"}]}]}}).to_string(),
    );
    let o = p.command(&["validate", "bad.json"]).output().unwrap();
    assert_ne!(o.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("unknown event \"beforeReadFile\""),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Cursor's generic tool events name its own tools (`Shell`, `Write`,
/// `StrReplace`, `Read`, with `path` and `contents`): a guard written for
/// Claude Code's `Bash` or `Write|Edit` meets them, the built-ins judge
/// them, and a rewrite goes back in Cursor's argument names.
#[test]
fn the_generic_tool_events_name_cursors_tools_and_claude_code_guards_meet_them() {
    let p = Project::new();
    guards(&p);
    let cwd = p.path("proj").display().to_string();
    let (answer, code) = cursor(
        &p,
        "preToolUse",
        json!({"tool_name": "Shell", "tool_input": {"command": "rm -rf build", "cwd": cwd}, "tool_use_id": "t1"}),
    );
    assert_eq!(code, Some(0));
    assert_eq!(answer["permission"], "deny", "{answer}");
    let seen: Value = p.read_json("seen-pre.json");
    assert_eq!(
        (&seen["tool_name"], &seen["tool_input"]["command"]),
        (&json!("Bash"), &json!("rm -rf build")),
        "{seen}"
    );
    // The built-ins: a force push refused whatever the hooks say.
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"builtins": {"dangerous_confirmation": {"mode": "deny"}}}).to_string(),
    );
    let (answer, _) = cursor(
        &p,
        "preToolUse",
        json!({"tool_name": "Shell", "tool_input": {"command": "git push --force origin main"}}),
    );
    assert_eq!(answer["permission"], "deny", "{answer}");
    // A file tool: Claude Code's names and arguments for the guards.
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command":
            "cat > ../seen-write.json; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"file_path\": \"/p/b.txt\", \"content\": \"y\"}}}'"}]}]}})
        .to_string(),
    );
    let (answer, _) = cursor(
        &p,
        "preToolUse",
        json!({"tool_name": "Write", "tool_input": {"path": "/p/a.txt", "contents": "x"}}),
    );
    let seen: Value = p.read_json("seen-write.json");
    assert_eq!(seen["tool_name"], "Write", "{seen}");
    assert_eq!(
        (&seen["tool_input"]["file_path"], &seen["tool_input"]["content"]),
        (&json!("/p/a.txt"), &json!("x")),
        "{seen}"
    );
    assert_eq!(answer["permission"], "allow", "{answer}");
    assert_eq!(
        answer["updated_input"],
        json!({"path": "/p/b.txt", "contents": "y"}),
        "{answer}"
    );
    let (_, _) = cursor(
        &p,
        "preToolUse",
        json!({"tool_name": "StrReplace", "tool_input": {"path": "/p/a.txt", "old_string": "a", "new_string": "b"}}),
    );
    let seen: Value = p.read_json("seen-write.json");
    assert_eq!(
        (&seen["tool_name"], &seen["tool_input"]["file_path"]),
        (&json!("Edit"), &json!("/p/a.txt")),
        "{seen}"
    );
    // After a shell command: its output is the tool's result.
    guards(&p);
    let (answer, _) = cursor(
        &p,
        "postToolUse",
        json!({"tool_name": "Shell", "tool_input": {"command": "ls"}, "tool_output": "a b"}),
    );
    assert_eq!(answer, json!({"additional_context": "run the tests"}));
    let seen: Value = p.read_json("seen-post.json");
    assert_eq!(
        (&seen["tool_name"], &seen["tool_response"]["stdout"]),
        (&json!("Bash"), &json!("a b")),
        "{seen}"
    );
}
