//! Hooks written for Claude Code (and picoclaw) run under hookshot as under
//! their own agent: cases taken from Claude Code's hooks reference, run
//! through the real binary with real hook scripts.

use serde_json::{Value, json};

mod common;
use common::{Project, stderr, stdout};

fn bash(command: &str) -> Value {
    json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": command}})
}

/// The reference's block-rm example: `if` narrows the Bash group to `rm`
/// subcommands, exec form runs the script from `${CLAUDE_PROJECT_DIR}`, and
/// keys hookshot has no use for (`statusMessage`, `comment`) load with a
/// warning instead of rejecting the file.
#[test]
fn the_block_rm_example_denies_rm_and_skips_other_commands() {
    let p = Project::new();
    p.write(
        "proj/.claude/hooks/block-rm.sh",
        "#!/bin/sh\ncat > /dev/null\necho ran >> \"$CLAUDE_PROJECT_DIR/ran.log\"\n\
         echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\
         \"permissionDecisionReason\":\"Destructive command blocked by hook\"}}'\n",
    );
    let script = p.path("proj/.claude/hooks/block-rm.sh");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "comment": "house rules", "hooks": [
            {"type": "command", "if": "Bash(rm *)", "command": "${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh",
             "args": [], "statusMessage": "checking", "id": 7}]}]}})
        .to_string(),
    );
    let o = p.fire("PreToolUse", &bash("npm test && rm -rf /tmp/build"), &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stdout(&o)["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("unknown key \"comment\""), "{}", stderr(&o));
    // `rm` inside $(...) is a subcommand too.
    let o = p.fire("PreToolUse", &bash("echo $(rm -rf /)"), &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // Not an rm: the hook is never started.
    let o = p.fire("PreToolUse", &bash("npm test"), &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let runs = std::fs::read_to_string(p.path("proj/ran.log")).unwrap();
    assert_eq!(runs.lines().count(), 2);
}

/// A Claude file whose events gemini-cli also has is read as Claude's when
/// it lives in `.claude/`: `"timeout": 5` is five seconds (as milliseconds
/// the hook would be killed at once), and `startup|resume` is a list.
#[test]
fn session_start_in_dot_claude_is_read_in_seconds_and_adds_context() {
    let p = Project::new();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"SessionStart": [{"matcher": "startup|resume", "hooks": [
            {"type": "command", "command": "sleep 0.2; echo 'Current branch: main'", "timeout": 5}]}]}})
        .to_string(),
    );
    let input = json!({"session_id": "s", "source": "startup"});
    let o = p.fire("SessionStart", &input, &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Claude Code adds a SessionStart hook's plain stdout to the context.
    let out = stdout(&o);
    assert_eq!(
        out["hookSpecificOutput"]["additionalContext"], "Current branch: main",
        "{out}"
    );
    assert!(out.get("systemMessage").is_none(), "{out}");
    let o = p.fire("SessionStart", &json!({"session_id": "s", "source": "clear"}), &[], &[]);
    assert_eq!(stdout(&o), json!({}));
}

/// The same file given with --settings says what it guessed, and
/// `--dialect claude` settles it.
#[test]
fn an_ambiguous_settings_file_says_so_and_can_be_pinned() {
    let p = Project::new();
    let f = p.write(
        "s.json",
        &json!({"hooks": {"SessionStart": [{"hooks": [
            {"type": "command", "command": "sleep 0.2; echo hi"}]}]}})
        .to_string(),
    );
    let f = f.to_str().unwrap();
    let input = json!({"session_id": "s", "source": "startup"});
    let o = p.fire("SessionStart", &input, &["--settings", f], &[]);
    assert!(
        stderr(&o).contains("cannot tell whether this is gemini-cli or Claude Code"),
        "{}",
        stderr(&o)
    );
    let o = p.fire("SessionStart", &input, &["--settings", f, "--dialect", "claude"], &[]);
    assert!(!stderr(&o).contains("cannot tell"), "{}", stderr(&o));
    assert_eq!(stdout(&o)["hookSpecificOutput"]["additionalContext"], "hi");
}

/// A plugin (`.claude-plugin/plugin.json` + `hooks/hooks.json`) in
/// hookshot's extension folder: `${CLAUDE_PLUGIN_ROOT}` names its folder,
/// `CLAUDE_PLUGIN_DATA` a folder that exists.
#[test]
fn a_claude_plugin_runs_with_its_variables() {
    let p = Project::new();
    let root = "proj/.hookshot/extensions/safety";
    p.write(&format!("{root}/.claude-plugin/plugin.json"), r#"{"name": "safety"}"#);
    p.write(
        &format!("{root}/scripts/guard.sh"),
        "cat > /dev/null\ntest -d \"$CLAUDE_PLUGIN_DATA\" || { echo no data dir >&2; exit 1; }\n\
         echo 'rm is not allowed' >&2\nexit 2\n",
    );
    p.write(
        &format!("{root}/hooks/hooks.json"),
        &json!({"description": "Blocks rm", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}/scripts/guard.sh\"", "timeout": 10}]}]}})
        .to_string(),
    );
    let o = p.fire("PreToolUse", &bash("rm -rf /"), &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stdout(&o)["hookSpecificOutput"]["permissionDecisionReason"],
        "rm is not allowed"
    );
}

/// Claude Code runs its own settings' hooks; hookshot, registered as one
/// of them, must not run them a second time.
#[test]
fn under_claude_code_its_own_settings_run_once() {
    let p = Project::new();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": "echo x >> calls.log"}]}]}})
        .to_string(),
    );
    let proj = p.path("proj");
    let proj = proj.to_str().unwrap();
    p.fire("PreToolUse", &bash("ls"), &[], &[("CLAUDE_PROJECT_DIR", proj)]);
    assert!(
        !p.path("proj/calls.log").exists(),
        "hookshot ran a hook Claude Code runs itself"
    );
    // Run on its own, hookshot does run them.
    p.fire("PreToolUse", &bash("ls"), &[], &[]);
    assert!(p.path("proj/calls.log").exists());
}

/// PermissionRequest: the decision object allows with a rewritten input;
/// exit 2 is not a denial there (Claude Code ignores it).
#[test]
fn permission_request_decisions_as_claude_reads_them() {
    let p = Project::new();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PermissionRequest": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command":
                "echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"allow\",\"updatedInput\":{\"command\":\"npm run lint\"}}}}'"}]},
            {"matcher": "Write", "hooks": [{"type": "command", "command": "echo nope >&2; exit 2"}]}]}})
        .to_string(),
    );
    let o = p.fire("PermissionRequest", &bash("npm run lint --fix"), &[], &[]);
    let d = &stdout(&o)["hookSpecificOutput"]["decision"];
    assert_eq!(d["behavior"], "allow");
    assert_eq!(d["updatedInput"]["command"], "npm run lint");
    let write = json!({"session_id": "s", "tool_name": "Write", "tool_input": {"file_path": "/x"}});
    let o = p.fire("PermissionRequest", &write, &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// An http hook cannot run in this build: it is reported every time it
/// would run (and blocks under the closed policy), never dropped.
#[test]
fn a_hook_type_hookshot_cannot_run_is_reported_and_blocks_when_closed() {
    let p = Project::new();
    let settings = |closed: bool| {
        let mut v = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "http", "url": "http://127.0.0.1:9/hook", "timeout": 3}]}]}});
        if closed {
            v["hooks"]["PreToolUse"][0]["hooks"][0]["onFailure"] = json!("block");
        }
        v.to_string()
    };
    p.write("proj/.claude/settings.json", &settings(false));
    let o = p.fire("PreToolUse", &bash("ls"), &[], &[]);
    assert_eq!(o.status.code(), Some(0));
    let shown = stdout(&o)["systemMessage"].as_str().unwrap_or("").to_string();
    assert!(shown.contains("\"http\" hook"), "{shown}");
    p.write("proj/.claude/settings.json", &settings(true));
    let o = p.fire("PreToolUse", &bash("ls"), &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// picoclaw reads anything but `{"approved": true}` as a denial, and
/// wants an `action` from interception points.
#[test]
fn picoclaw_events_are_answered_in_picoclaw_shapes() {
    let p = Project::new();
    let f = p.write("s.json", r#"{"hooks": {}}"#);
    let f = f.to_str().unwrap();
    let call = json!({"session_id": "s", "tool_name": "bash", "tool_input": {"command": "ls"}});
    let o = p.fire("approve_tool", &call, &["--settings", f], &[]);
    assert_eq!(stdout(&o), json!({"approved": true}));
    let o = p.fire("before_tool", &call, &["--settings", f], &[]);
    assert_eq!(stdout(&o), json!({"action": "continue"}));
}

/// An async hook never decides: its deny does not block, the agent gets
/// what it said as context.
#[test]
fn an_async_hook_cannot_block() {
    let p = Project::new();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "async": true, "command": "echo late >&2; exit 2"}]}]}})
        .to_string(),
    );
    let o = p.fire("PreToolUse", &bash("ls"), &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn validate_strict_fails_on_what_the_agent_would_ignore() {
    let p = Project::new();
    let f = p.write(
        ".claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true", "comment": "x"}]}]}})
            .to_string(),
    );
    let run = |strict: bool| {
        let mut c = common::hookshot();
        c.arg("validate").arg(&f);
        if strict {
            c.arg("--strict");
        }
        c.output().unwrap()
    };
    assert_eq!(run(false).status.code(), Some(0));
    assert_eq!(run(true).status.code(), Some(1));
}
