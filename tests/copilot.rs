//! GitHub Copilot CLI's own camelCase events, at the protocol level (its
//! real CLI runs them in `agents/test_copilot.py`): `hookshot fire --agent
//! copilot preToolUse` (or a hand-written entry without `--agent`, told by
//! `COPILOT_CLI`) reads Copilot CLI's payload (1.0.102: `sessionId`,
//! `toolName`, `toolArgs`, `toolResult`) in Claude Code's shape for the
//! hooks, and answers at the top of the JSON as Copilot CLI reads its own
//! hooks' answers. The same names are Cursor's when Cursor calls.

mod common;

use common::Project;
use serde_json::{Value, json};

fn guards(p: &Project) {
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                "command": "cat > ../seen-pre.json; grep -q 'rm -rf' ../seen-pre.json && { echo 'no rm -rf' >&2; exit 2; }; exit 0"}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command":
                "cat > ../seen-post.json; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"run the tests\"}}'"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command",
                "command": "grep -q 'ship it' && { echo 'not on a Friday' >&2; exit 2; }; exit 0"}]}],
            "Stop": [{"hooks": [{"type": "command",
                "command": "cat > ../seen-stop.json; echo '{\"decision\": \"block\", \"reason\": \"run the tests first\"}'"}]}]}})
        .to_string(),
    );
}

fn copilot_input(p: &Project, fields: Value) -> Value {
    let mut input = json!({"sessionId": "s-1", "timestamp": 1795858733020u64,
        "cwd": p.path("proj").display().to_string()});
    for (k, v) in fields.as_object().unwrap() {
        input[k] = v.clone();
    }
    input
}

fn copilot(p: &Project, event: &str, fields: Value) -> (Value, Option<i32>) {
    let input = copilot_input(p, fields);
    common::fire_as_agent(p, "copilot", event, input, json!({}))
}

#[test]
fn a_claude_code_guard_denies_copilots_own_pre_tool_event_in_its_words() {
    let p = Project::new();
    guards(&p);
    let (answer, code) = copilot(
        &p,
        "preToolUse",
        json!({"toolName": "bash", "toolArgs": {"command": "rm -rf build", "description": "clean"}}),
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        answer,
        json!({"permissionDecision": "deny", "permissionDecisionReason": "no rm -rf"})
    );
    let seen: Value = p.read_json("seen-pre.json");
    assert_eq!(
        (&seen["tool_name"], &seen["tool_input"]["command"], &seen["session_id"]),
        (&json!("Bash"), &json!("rm -rf build"), &json!("s-1")),
        "{seen}"
    );
    assert_eq!(seen["hook_event_name"], "PreToolUse", "{seen}");
    // toolArgs as JSON text (older Copilot CLI) is read as the arguments.
    let (answer, _) = copilot(
        &p,
        "preToolUse",
        json!({"toolName": "bash", "toolArgs": "{\"command\": \"rm -rf /tmp/x\"}"}),
    );
    assert_eq!(answer["permissionDecision"], "deny", "{answer}");
    let (answer, _) = copilot(
        &p,
        "preToolUse",
        json!({"toolName": "bash", "toolArgs": {"command": "ls"}}),
    );
    assert_eq!(answer, json!({}));
}

#[test]
fn a_hand_written_entry_without_agent_is_told_copilots_by_its_variable() {
    let p = Project::new();
    guards(&p);
    let input = copilot_input(&p, json!({"toolName": "bash", "toolArgs": {"command": "rm -rf build"}}));
    let o = p.fire("preToolUse", &input, &[], &[("COPILOT_CLI", "1")]);
    assert_eq!(
        common::stdout(&o)["permissionDecision"],
        "deny",
        "{}",
        common::stderr(&o)
    );
    // Without it, the name is Cursor's.
    let cursor = json!({"conversation_id": "c", "tool_name": "Shell", "tool_input": {"command": "rm -rf build"}});
    let o = p.fire("preToolUse", &cursor, &[], &[]);
    assert_eq!(common::stdout(&o)["permission"], "deny", "{}", common::stderr(&o));
}

#[test]
fn after_a_tool_on_the_prompt_and_at_the_stop_the_answers_are_copilots() {
    let p = Project::new();
    guards(&p);
    let (answer, _) = copilot(
        &p,
        "postToolUse",
        json!({"toolName": "bash", "toolArgs": {"command": "ls"},
            "toolResult": {"resultType": "success", "textResultForLlm": "a b"}}),
    );
    assert_eq!(answer, json!({"additionalContext": "run the tests"}));
    let seen: Value = p.read_json("seen-post.json");
    assert_eq!(
        (&seen["tool_name"], &seen["tool_response"]["stdout"]),
        (&json!("Bash"), &json!("a b")),
        "{seen}"
    );
    let (answer, code) = copilot(&p, "userPromptSubmitted", json!({"prompt": "ship it"}));
    assert_eq!(
        (answer, code),
        (json!({"decision": "block", "reason": "not on a Friday"}), Some(0))
    );
    let (answer, _) = copilot(&p, "userPromptSubmitted", json!({"prompt": "fix the bug"}));
    assert_eq!(answer, json!({}));
    let (answer, code) = copilot(
        &p,
        "agentStop",
        json!({"transcriptPath": "/t.jsonl", "stopReason": "end_turn", "stop_hook_active": false}),
    );
    assert_eq!(
        (answer, code),
        (json!({"decision": "block", "reason": "run the tests first"}), Some(0))
    );
    let seen: Value = p.read_json("seen-stop.json");
    assert_eq!(
        (&seen["hook_event_name"], &seen["transcript_path"]),
        (&json!("Stop"), &json!("/t.jsonl")),
        "{seen}"
    );
    // Its SDK's names for the folder and the re-entry flag read as Claude
    // Code's, should a release send them.
    let mut input = json!({"sessionId": "s-2", "timestamp": 1, "workingDirectory": "/w", "stopHookActive": true});
    let o = p.fire("agentStop", &input, &["--agent", "copilot"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let seen: Value = p.read_json("seen-stop.json");
    assert_eq!(
        (&seen["cwd"], &seen["stop_hook_active"]),
        (&json!("/w"), &json!(true)),
        "{seen}"
    );
    input["cwd"] = json!("/c");
    p.fire("agentStop", &input, &["--agent", "copilot"], &[]);
    let seen: Value = p.read_json("seen-stop.json");
    assert_eq!(seen["cwd"], "/c", "{seen}");
}

/// The built-ins guard Copilot CLI's own events: a force push is refused,
/// and a hook's rewrite reaches it as `modifiedArgs`.
#[test]
fn the_built_ins_and_a_rewrite_reach_copilots_own_events() {
    let p = Project::new();
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"builtins": {"dangerous_confirmation": {"mode": "deny"}},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command":
                "grep -q 'echo hi' || exit 0; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"command\": \"echo bye\"}}}'"}]}]}})
        .to_string(),
    );
    let (answer, _) = copilot(
        &p,
        "preToolUse",
        json!({"toolName": "bash", "toolArgs": {"command": "git push --force origin main"}}),
    );
    assert_eq!(answer["permissionDecision"], "deny", "{answer}");
    let (answer, _) = copilot(
        &p,
        "preToolUse",
        json!({"toolName": "bash", "toolArgs": {"command": "echo hi"}}),
    );
    assert_eq!(
        answer,
        json!({"permissionDecision": "allow", "modifiedArgs": {"command": "echo bye"}})
    );
}

/// `explain` reads Copilot CLI's payload as `fire` does: the tool its
/// matchers are tested against is Claude Code's `Bash`, and the guard on
/// it runs.
#[test]
fn explain_reads_copilots_payload_as_fire_does() {
    let p = Project::new();
    guards(&p);
    let input = copilot_input(&p, json!({"toolName": "bash", "toolArgs": {"command": "rm -rf build"}}));
    let o = p.run(&["explain", "preToolUse", "--agent", "copilot", "--json"], &input);
    let x = common::stdout(&o);
    assert_eq!(x["target"], "Bash", "{x}");
    let guard = x["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["matcher"] == "Bash")
        .cloned();
    assert_eq!(guard.map(|g| g["runs"].clone()), Some(json!(true)), "{x}");
}

/// Copilot CLI's own guard file of a project (`.github/hooks/*.json`,
/// camelCase events, flat `bash` entries) guards the other agents too:
/// hookshot called by Claude Code or gemini-cli runs it with Copilot CLI's
/// payload (exactly its fields: `sessionId`, a millisecond `timestamp`,
/// `cwd`, its own `toolName` and `toolArgs`), its variables, its `cwd`,
/// and reads its answer at the top of the JSON.
fn copilot_guard_file(p: &Project) {
    std::fs::create_dir_all(p.path("proj/sub")).unwrap();
    p.write(
        "proj/.github/hooks/guard.json",
        &json!({"version": 1, "hooks": {"preToolUse": [{
            "type": "command", "matcher": "bash", "cwd": "sub", "env": {"LEVEL": "strict"},
            "bash": "cat > ../../seen-own.json; printf '%s\\n' \"$COPILOT_CLI\" \"$COPILOT_HOOK_DIR\" \"$COPILOT_PROJECT_DIR\" \"$LEVEL\" \"$(pwd)\" > ../../vars-own.txt; grep -q 'rm -rf' ../../seen-own.json && echo '{\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"not in this repo\"}'; exit 0"
        }]}})
        .to_string(),
    );
}

#[test]
fn copilot_clis_own_project_file_guards_claude_code_and_gemini_cli() {
    let p = Project::new();
    copilot_guard_file(&p);
    let proj = p.path("proj").canonicalize().unwrap().display().to_string();
    let claude = json!({"session_id": "s-9", "cwd": proj, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}});
    let o = p.fire("PreToolUse", &claude, &["--agent", "claude"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("not in this repo"),
        "{}",
        common::stderr(&o)
    );
    let seen: Value = p.read_json("seen-own.json");
    let keys: Vec<&String> = seen.as_object().unwrap().keys().collect();
    // Copilot CLI's fields, in its order.
    assert_eq!(
        keys,
        ["sessionId", "timestamp", "cwd", "toolName", "toolArgs"],
        "{seen}"
    );
    assert_eq!(
        (&seen["toolName"], &seen["toolArgs"]["command"], &seen["sessionId"]),
        (&json!("bash"), &json!("rm -rf build"), &json!("s-9"))
    );
    assert!(seen["timestamp"].is_u64(), "{seen}");
    let vars = std::fs::read_to_string(p.path("vars-own.txt")).unwrap();
    let hooks_dir = format!("{proj}/.github/hooks");
    let sub = format!("{proj}/sub");
    assert_eq!(
        vars.lines().collect::<Vec<_>>(),
        ["1", hooks_dir.as_str(), proj.as_str(), "strict", sub.as_str()]
    );
    // gemini-cli's shell tool is Copilot CLI's `bash` too.
    let gemini = json!({"session_id": "s-9", "cwd": proj, "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf build"}});
    let o = p.fire("BeforeTool", &gemini, &["--agent", "gemini"], &[]);
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(answer["decision"], "block", "{answer} {}", common::stderr(&o));
    // Another tool is not its matcher's.
    let read = json!({"session_id": "s-9", "cwd": proj, "tool_name": "Read", "tool_input": {"file_path": "rm -rf"}});
    let o = p.fire("PreToolUse", &read, &["--agent", "claude"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
}

/// Copilot CLI runs its own files itself: hookshot called by it leaves
/// them to it, and an untrusted project's file is not run at all.
#[test]
fn copilot_clis_own_files_run_once_and_only_when_trusted() {
    let p = Project::new();
    copilot_guard_file(&p);
    let (answer, code) = copilot(
        &p,
        "preToolUse",
        json!({"toolName": "bash", "toolArgs": {"command": "rm -rf build"}}),
    );
    assert_eq!((answer, code), (json!({}), Some(0)));
    assert!(!p.path("seen-own.json").exists(), "run a second time under Copilot CLI");
    let input = json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}});
    let o = p.run(
        &["fire", "PreToolUse", "--workdir", "proj", "--agent", "claude"],
        &input,
    );
    assert!(!p.path("seen-own.json").exists(), "an untrusted file ran");
    assert!(common::stderr(&o).contains("guard.json"), "{}", common::stderr(&o));
}

/// The answers of Copilot CLI's own hooks, at the top of their JSON: a
/// rewrite (`modifiedArgs`, with or without an allow: Copilot CLI 1.0.102
/// applies it either way), an invalid verdict (the tool runs there, as
/// here, and the user is told), a prompt's replacement, and a hook that
/// fails before a tool (Copilot CLI denies then).
#[test]
fn the_answers_of_copilot_clis_own_hooks_are_read_in_its_words() {
    let p = Project::new();
    p.write(
        "proj/.github/hooks/answers.json",
        &json!({"version": 1, "hooks": {
            "preToolUse": [{"bash": "i=$(cat); case $i in *'\"ls\"'*) echo '{\"permissionDecision\": \"allow\", \"modifiedArgs\": {\"command\": \"ls -a\"}}';; *'\"pwd\"'*) echo '{\"modifiedArgs\": {\"command\": \"pwd -P\"}}';; *nope*) echo '{\"permissionDecision\": \"nope\"}';; *crash*) exit 1;; esac"}],
            "userPromptSubmitted": [{"bash": "echo '{\"modifiedPrompt\": \"be brief\"}'"}]
        }})
        .to_string(),
    );
    let tool = |command: &str| json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": command}});
    let o = p.fire("PreToolUse", &tool("ls"), &["--agent", "claude"], &[]);
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["updatedInput"]["command"], "ls -a",
        "{answer}"
    );
    let o = p.fire("PreToolUse", &tool("pwd"), &["--agent", "claude"], &[]);
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["updatedInput"]["command"], "pwd -P",
        "{answer}"
    );
    let o = p.fire("PreToolUse", &tool("nope"), &["--agent", "claude"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("invalid \"permissionDecision\""),
        "{}",
        common::stderr(&o)
    );
    let o = p.fire("PreToolUse", &tool("crash"), &["--agent", "claude"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("GitHub Copilot CLI denies the tool"),
        "{}",
        common::stderr(&o)
    );
    // jcli takes a replaced prompt (`user_input`).
    let o = p.fire(
        "pre_send_message",
        &json!({"session_id": "s", "user_input": "hi"}),
        &["--agent", "jcli"],
        &[],
    );
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(answer["user_input"], "be brief", "{answer} {}", common::stderr(&o));
}

/// A Copilot CLI file hookshot cannot read is said in the answer, and the
/// closed policy blocks; an approved guard that writes a log beside its
/// script in its own `cwd` still guards at the next events.
#[test]
fn a_broken_copilot_file_is_said_and_a_logging_guard_keeps_guarding() {
    let p = Project::new();
    p.write(
        "proj/.github/hooks/broken.json",
        "{\"version\": 1, \"hooks\": {\"preToolUse\": [",
    );
    let input = json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let o = p.fire("PreToolUse", &input, &["--agent", "claude"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(common::stderr(&o).contains("broken.json"), "{}", common::stderr(&o));
    p.closed_policy();
    let o = p.fire("PreToolUse", &input, &["--agent", "claude"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(common::stderr(&o).contains("broken.json"), "{}", common::stderr(&o));
    std::fs::remove_file(p.path("proj/.github/hooks/broken.json")).unwrap();

    p.write(
        "proj/tools/guard.sh",
        "cat >> calls.log; echo '{\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"guarded\"}'\n",
    );
    p.write(
        "proj/.github/hooks/guard.json",
        &json!({"version": 1, "hooks": {"preToolUse": [{"bash": "sh ./guard.sh", "cwd": "tools"}]}}).to_string(),
    );
    let trust = p.run(&["trust", "--yes", "--workdir", "proj"], &json!({}));
    assert!(trust.status.success(), "{}", common::stderr(&trust));
    for n in 1..=3 {
        let o = p.run(
            &["fire", "PreToolUse", "--workdir", "proj", "--agent", "claude"],
            &input,
        );
        assert_eq!(o.status.code(), Some(2), "event {n}: {}", common::stderr(&o));
        assert!(
            common::stderr(&o).contains("guarded"),
            "event {n}: {}",
            common::stderr(&o)
        );
    }
    let log = std::fs::read_to_string(p.path("proj/tools/calls.log")).unwrap();
    assert_eq!(log.matches("\"sessionId\"").count(), 3, "{log}");
    // The approval binds the script it runs from there: swapped, it stops.
    p.write("proj/tools/guard.sh", "exit 0\n");
    let o = p.run(
        &["fire", "PreToolUse", "--workdir", "proj", "--agent", "claude"],
        &input,
    );
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(common::stderr(&o).contains("guard.sh"), "{}", common::stderr(&o));
}

/// Copilot CLI's file tools name their arguments `path`, `file_text`,
/// `old_str`: a guard of its own files that reads `toolArgs.path` guards
/// Claude Code's `Write` and `Edit` too, and its rewrite comes back in
/// Claude Code's names; called by Copilot CLI, a rewrite in Claude Code's
/// names goes back in its own.
#[test]
fn copilot_clis_own_argument_names_reach_its_hooks_and_come_back() {
    let p = Project::new();
    p.write(
        "proj/.github/hooks/files.json",
        &json!({"version": 1, "hooks": {"preToolUse": [{"matcher": "create|edit",
            "bash": "i=$(cat); echo \"$i\" > ../seen-files.json; case $i in *'.env\"'*) echo '{\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no .env\"}';; *'\"file_text\"'*) echo '{\"modifiedArgs\": {\"path\": \"/tmp/out.txt\", \"file_text\": \"clean\"}}';; esac"}]}})
        .to_string(),
    );
    let claude = |tool: &str, input: Value| {
        let call = json!({"session_id": "s", "tool_name": tool, "tool_input": input});
        common::fire_as_claude(&p, "PreToolUse", &call)
    };
    let (code, _, said) = claude(
        "Edit",
        json!({"file_path": "/p/.env", "old_string": "A=1", "new_string": "A=2"}),
    );
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("no .env"), "{said}");
    let seen: Value = p.read_json("seen-files.json");
    assert_eq!(
        (&seen["toolName"], &seen["toolArgs"]),
        (
            &json!("edit"),
            &json!({"path": "/p/.env", "old_str": "A=1", "new_str": "A=2"})
        )
    );
    let (code, answer, said) = claude("Write", json!({"file_path": "/p/a.txt", "content": "x"}));
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(
        answer["hookSpecificOutput"]["updatedInput"],
        json!({"file_path": "/tmp/out.txt", "content": "clean"}),
        "{answer}"
    );
    // Called by Copilot CLI, hookshot's own Claude Code hook rewrites in
    // Claude Code's names; Copilot CLI's tool reads its own.
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command",
            "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"updatedInput\": {\"file_path\": \"/tmp/b.txt\", \"content\": \"y\"}}}'"}]}]}})
        .to_string(),
    );
    let (answer, _) = copilot(
        &p,
        "preToolUse",
        json!({"toolName": "create", "toolArgs": {"path": "/p/b.txt", "file_text": "x"}}),
    );
    assert_eq!(
        answer["modifiedArgs"],
        json!({"path": "/tmp/b.txt", "file_text": "y"}),
        "{answer}"
    );
}
