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

/// Cursor's own guard file of a project (`.cursor/hooks.json`, flat
/// entries) guards the other agents too: hookshot called by Claude Code or
/// gemini-cli runs a `beforeShellExecution` hook whose matcher finds the
/// command with exactly Cursor's payload (its common fields, `command`,
/// `cwd`), in the project's folder with `CURSOR_PROJECT_DIR`, and reads
/// its `permission` with `agent_message` for the model.
#[test]
fn cursors_own_project_file_guards_claude_code_and_gemini_cli() {
    let p = Project::new();
    p.write(
        "proj/.cursor/hooks.json",
        &json!({"version": 1, "hooks": {"beforeShellExecution": [{
            "command": "cat > ../seen-shell.json; printf '%s\\n' \"$CURSOR_PROJECT_DIR\" \"$CLAUDE_PROJECT_DIR\" \"$(pwd)\" > ../vars-shell.txt; echo '{\"permission\": \"deny\", \"agent_message\": \"not in this repo\", \"user_message\": \"rm -rf blocked\"}'",
            "matcher": "rm\\s+-rf"
        }]}})
        .to_string(),
    );
    let proj = p.path("proj").canonicalize().unwrap().display().to_string();
    let claude = json!({"session_id": "s-9", "cwd": proj, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "cd x && rm  -rf build"}});
    let o = p.fire("PreToolUse", &claude, &["--agent", "claude"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("not in this repo"),
        "{}",
        common::stderr(&o)
    );
    let seen: Value = p.read_json("seen-shell.json");
    let keys: Vec<&String> = seen.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "conversation_id",
            "generation_id",
            "model",
            "hook_event_name",
            "cursor_version",
            "workspace_roots",
            "user_email",
            "transcript_path",
            "command",
            "cwd",
            "sandbox"
        ],
        "{seen}"
    );
    assert_eq!(
        (&seen["hook_event_name"], &seen["command"], &seen["conversation_id"]),
        (
            &json!("beforeShellExecution"),
            &json!("cd x && rm  -rf build"),
            &json!("s-9")
        )
    );
    assert_eq!((&seen["workspace_roots"], &seen["cwd"]), (&json!([proj]), &json!(proj)));
    let vars = std::fs::read_to_string(p.path("vars-shell.txt")).unwrap();
    assert_eq!(
        vars.lines().collect::<Vec<_>>(),
        [proj.as_str(), proj.as_str(), proj.as_str()]
    );
    // A command its matcher does not find is not its hook's.
    std::fs::remove_file(p.path("seen-shell.json")).unwrap();
    let ls = json!({"session_id": "s-9", "cwd": proj, "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let o = p.fire("PreToolUse", &ls, &["--agent", "claude"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(!p.path("seen-shell.json").exists());
    // explain says why, in Cursor's terms.
    let o = p.run(
        &[
            "explain",
            "PreToolUse",
            "--agent",
            "claude",
            "--workdir",
            "proj",
            "--trust-project",
        ],
        &ls,
    );
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("its matcher /rm\\s+-rf/ is not found in the command"),
        "{said}"
    );
    // gemini-cli's shell tool is Cursor's shell too.
    let gemini = json!({"session_id": "s-9", "cwd": proj, "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf build"}});
    let o = p.fire("BeforeTool", &gemini, &["--agent", "gemini"], &[]);
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(answer["decision"], "block", "{answer} {}", common::stderr(&o));
}

/// `beforeReadFile` hooks get the file's `content`, as Cursor gives it, so
/// a secrets guard written for Cursor keeps a `.env` from Claude Code's
/// model; the generic `preToolUse` names Cursor's own tool and arguments
/// (`Write`, `path`, `contents`), and its rewrite comes back in Claude
/// Code's.
#[test]
fn cursors_read_guard_sees_the_content_and_a_rewrite_comes_back() {
    let p = Project::new();
    p.write("proj/.env", "API_KEY=sk-live-123\n");
    p.write(
        "proj/.cursor/hooks.json",
        &json!({"version": 1, "hooks": {
            "beforeReadFile": [{"command": "cat > ../seen-read.json; grep -q API_KEY ../seen-read.json && echo '{\"permission\": \"deny\", \"user_message\": \"secrets stay out\"}'; exit 0"}],
            "preToolUse": [{"matcher": "Write", "command": "cat > ../seen-pre.json; echo '{\"permission\": \"allow\", \"updated_input\": {\"path\": \"/tmp/safe.txt\", \"contents\": \"redacted\"}}'"}]
        }})
        .to_string(),
    );
    let proj = p.path("proj").canonicalize().unwrap().display().to_string();
    let env = format!("{proj}/.env");
    let read = json!({"session_id": "s", "cwd": proj, "tool_name": "Read", "tool_input": {"file_path": env}});
    let o = p.fire("PreToolUse", &read, &["--agent", "claude"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("secrets stay out"),
        "{}",
        common::stderr(&o)
    );
    let seen: Value = p.read_json("seen-read.json");
    assert_eq!(
        (&seen["hook_event_name"], &seen["file_path"], &seen["content"]),
        (&json!("beforeReadFile"), &json!(env), &json!("API_KEY=sk-live-123\n"))
    );
    let write = json!({"session_id": "s", "cwd": proj, "tool_name": "Write", "tool_use_id": "t-1",
        "tool_input": {"file_path": "/tmp/x.txt", "content": "API_KEY=1"}});
    let o = p.fire("PreToolUse", &write, &["--agent", "claude"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["updatedInput"],
        json!({"file_path": "/tmp/safe.txt", "content": "redacted"}),
        "{answer}"
    );
    let seen: Value = p.read_json("seen-pre.json");
    assert_eq!(
        (
            &seen["hook_event_name"],
            &seen["tool_name"],
            &seen["tool_input"],
            &seen["tool_use_id"]
        ),
        (
            &json!("preToolUse"),
            &json!("Write"),
            &json!({"path": "/tmp/x.txt", "contents": "API_KEY=1"}),
            &json!("t-1")
        )
    );
    // gemini-cli's write_file is Cursor's Write too, in Cursor's names.
    let gemini = json!({"session_id": "s", "cwd": proj, "tool_name": "write_file",
        "tool_input": {"file_path": "/tmp/g.txt", "content": "g"}});
    let o = p.fire("BeforeTool", &gemini, &["--agent", "gemini"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let seen: Value = p.read_json("seen-pre.json");
    assert_eq!(
        (&seen["tool_name"], &seen["tool_input"]),
        (&json!("Write"), &json!({"path": "/tmp/g.txt", "contents": "g"}))
    );
}

/// The prompt's `continue: false`, `stop`'s `followup_message` (with
/// `loop_count`), and `failClosed`: a hook that fails, or prints what is
/// not JSON, blocks where it says so and not elsewhere.
#[test]
fn cursors_prompt_stop_and_fail_closed_answers_hold_under_claude_code() {
    let p = Project::new();
    p.write(
        "proj/.cursor/hooks.json",
        &json!({"version": 1, "hooks": {
            "beforeSubmitPrompt": [{"command": "grep -q 'ship it' && echo '{\"continue\": false, \"user_message\": \"not on a Friday\"}'; exit 0"}],
            "stop": [{"command": "cat > ../seen-stop.json; grep -q '\"loop_count\":0' ../seen-stop.json && echo '{\"followup_message\": \"run the tests\"}'; exit 0"}],
            "preToolUse": [
                {"matcher": "Shell", "command": "exit 1", "failClosed": true},
                {"matcher": "Read", "command": "echo not json", "failClosed": true},
                {"matcher": "Grep", "command": "exit 1"}
            ]
        }})
        .to_string(),
    );
    let o = p.fire(
        "UserPromptSubmit",
        &json!({"session_id": "s", "prompt": "ship it"}),
        &["--agent", "claude"],
        &[],
    );
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(answer["decision"], "block", "{answer} {}", common::stderr(&o));
    assert!(answer.to_string().contains("not on a Friday"), "{answer}");
    let stop = |active: bool| {
        let o = p.fire(
            "Stop",
            &json!({"session_id": "s", "stop_hook_active": active}),
            &["--agent", "claude"],
            &[],
        );
        serde_json::from_slice::<Value>(&o.stdout).unwrap()
    };
    let answer = stop(false);
    assert_eq!(
        (&answer["decision"], &answer["reason"]),
        (&json!("block"), &json!("run the tests")),
        "{answer}"
    );
    assert_eq!(p.read_json("seen-stop.json")["status"], "completed");
    // Once going on because of a stop hook, it has looped once.
    assert_eq!(stop(true), json!({}));
    assert_eq!(p.read_json("seen-stop.json")["loop_count"], 1);
    let tool = |name: &str, input: Value| {
        let call = json!({"session_id": "s", "tool_name": name, "tool_input": input});
        let (code, _, said) = common::fire_as_claude(&p, "PreToolUse", &call);
        (code, said)
    };
    let (code, said) = tool("Bash", json!({"command": "ls"}));
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("fail-closed"), "{said}");
    let (code, said) = tool("Read", json!({"file_path": "/etc/hostname"}));
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("not a JSON answer"), "{said}");
    let (code, said) = tool("Grep", json!({"pattern": "x"}));
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("exited with code 1"), "{said}");
}

/// Cursor runs its own file itself: hookshot called by Cursor leaves it
/// to it; an untrusted project's file is not run; and hookshot's own
/// registration beside the user's entries (`install --agent cursor
/// --project`) adds nothing when another agent calls.
#[test]
fn cursors_own_file_runs_once_only_when_trusted_beside_hookshots_registration() {
    let p = Project::new();
    let guard = json!({"command": "cat >> ../runs.log; echo >> ../runs.log; echo '{\"permission\": \"deny\", \"agent_message\": \"guarded\"}'"});
    p.write(
        "proj/.cursor/hooks.json",
        &json!({"version": 1, "hooks": {"beforeShellExecution": [guard]}}).to_string(),
    );
    let (answer, _) = cursor(&p, "beforeShellExecution", json!({"command": "ls", "cwd": "/"}));
    assert_eq!(answer, json!({}));
    assert!(!p.path("runs.log").exists(), "run a second time under Cursor");
    let input = json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let o = p.run(
        &["fire", "PreToolUse", "--workdir", "proj", "--agent", "claude"],
        &input,
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(!p.path("runs.log").exists(), "an untrusted file ran");
    assert!(common::stderr(&o).contains("hooks.json"), "{}", common::stderr(&o));
    let install = p.run(&["install", "--agent", "cursor", "--project", "proj"], &json!({}));
    assert!(install.status.success(), "{}", common::stderr(&install));
    let text = std::fs::read_to_string(p.path("proj/.cursor/hooks.json")).unwrap();
    assert!(text.contains("guarded") && text.contains("--agent cursor"), "{text}");
    let o = p.fire("PreToolUse", &input, &["--agent", "claude"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(common::stderr(&o).contains("guarded"), "{}", common::stderr(&o));
    let log = std::fs::read_to_string(p.path("runs.log")).unwrap();
    assert_eq!(log.matches("beforeShellExecution").count(), 1, "{log}");
}

/// A Cursor stop hook that always asks to go on relies on Cursor's cap
/// (`loop_limit`, 5 by default): hookshot counts the session's follow-ups
/// in a row (`loop_count`) and drops the one past the cap, so Claude Code,
/// which caps nothing, is not kept going forever.
#[test]
fn a_cursor_stop_hook_is_capped_at_its_loop_limit_under_claude_code() {
    let p = Project::new();
    p.write(
        "proj/.cursor/hooks.json",
        &json!({"version": 1, "hooks": {"stop": [{"loop_limit": 2,
            "command": "cat >> ../stops.log; echo >> ../stops.log; echo '{\"followup_message\": \"keep going\"}'"}]}})
        .to_string(),
    );
    let stop = |session: &str, active: bool| {
        let o = p.fire(
            "Stop",
            &json!({"session_id": session, "stop_hook_active": active}),
            &["--agent", "claude"],
            &[],
        );
        (serde_json::from_slice::<Value>(&o.stdout).unwrap(), common::stderr(&o))
    };
    assert_eq!(stop("s", false).0["decision"], "block");
    assert_eq!(stop("s", true).0["decision"], "block");
    let (answer, said) = stop("s", true);
    assert_eq!(answer.get("decision"), None, "{answer} {said}");
    assert!(answer["systemMessage"].to_string().contains("loop_limit"), "{answer}");
    // Another session counts its own; a turn that starts afresh, from 0.
    assert_eq!(stop("t", false).0["decision"], "block");
    assert_eq!(stop("s", false).0["decision"], "block");
    let log = std::fs::read_to_string(p.path("stops.log")).unwrap();
    let counts: Vec<u64> = log
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["loop_count"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(counts, [0, 1, 2, 0, 0]);
}
