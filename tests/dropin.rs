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

/// An mcp_tool hook whose server no file defines cannot run: it is
/// reported every time it would run (and blocks under the closed policy),
/// never dropped.
#[test]
fn a_hook_type_hookshot_cannot_run_is_reported_and_blocks_when_closed() {
    let p = Project::new();
    let settings = |closed: bool| {
        let mut v = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "mcp_tool", "server": "my_server", "tool": "security_scan", "timeout": 3}]}]}});
        if closed {
            v["hooks"]["PreToolUse"][0]["hooks"][0]["onFailure"] = json!("block");
        }
        v.to_string()
    };
    p.write("proj/.claude/settings.json", &settings(false));
    let o = p.fire("PreToolUse", &bash("ls"), &[], &[]);
    assert_eq!(o.status.code(), Some(0));
    let shown = stdout(&o)["systemMessage"].as_str().unwrap_or("").to_string();
    assert!(
        shown.contains("\"my_server\", which no file hookshot read defines"),
        "{shown}"
    );
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

/// The reference's http hook: the event is POSTed as JSON, headers
/// interpolate only the variables `allowedEnvVars` lists, and a 2xx body
/// is read like a command's stdout.
#[test]
fn an_http_hook_gets_the_event_and_its_answer_decides() {
    let server = common::HttpServer::start(
        200,
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the service says no"}}"#,
        std::time::Duration::ZERO,
    );
    let p = Project::new();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http",
            "url": format!("{}/hooks/pre-tool-use", server.url),
            "headers": {"Authorization": "Bearer $MY_TOKEN", "X-Other": "[${OTHER}]"},
            "allowedEnvVars": ["MY_TOKEN"]}]}]}})
        .to_string(),
    );
    let o = p.fire(
        "PreToolUse",
        &bash("rm -rf build"),
        &[],
        &[("MY_TOKEN", "t0k3n"), ("OTHER", "leak")],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(
        out["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("the service says no")
    );
    let seen = server.seen.lock().unwrap();
    let (head, body) = &seen[0];
    assert!(head.starts_with("POST /hooks/pre-tool-use HTTP/1.1"), "{head}");
    let head = head.to_ascii_lowercase();
    assert!(head.contains("content-type: application/json"), "{head}");
    assert!(head.contains("authorization: bearer t0k3n"), "{head}");
    assert!(head.contains("x-other: []"), "an unlisted variable went out: {head}");
    let sent: Value = serde_json::from_str(body).unwrap();
    assert_eq!(sent["hook_event_name"], "PreToolUse");
    assert_eq!(sent["tool_input"]["command"], "rm -rf build");
}

/// Non-2xx answers, no connection and no answer in time are non-blocking
/// errors, as in Claude Code, and visible; under the closed policy, they
/// block.
#[test]
fn an_http_hook_that_fails_is_seen_and_blocks_when_closed() {
    let p = Project::new();
    let refused = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let error = common::HttpServer::start(500, "boom", std::time::Duration::ZERO);
    let slow = common::HttpServer::start(200, "{}", std::time::Duration::from_secs(5));
    for (url, timeout, said) in [
        (error.url.clone(), 10, "answered HTTP 500: boom"),
        (refused, 10, "could not POST to"),
        (slow.url.clone(), 1, "no answer"),
    ] {
        let hooks = json!({"PreToolUse": [{"hooks": [{"type": "http", "url": url, "timeout": timeout}]}]});
        p.write("proj/.claude/settings.json", &json!({"hooks": hooks}).to_string());
        let o = p.fire("PreToolUse", &bash("ls"), &[], &[]);
        assert_eq!(o.status.code(), Some(0), "{said}: {}", stderr(&o));
        assert!(
            stdout(&o)["systemMessage"].as_str().unwrap_or("").contains(said),
            "{said}: {}",
            stdout(&o)
        );
        p.write(
            "proj/.claude/settings.json",
            &json!({"hooks": hooks, "hooksConfig": {"onFailure": "closed"}}).to_string(),
        );
        let o = p.fire("PreToolUse", &bash("ls"), &[], &[]);
        assert_eq!(o.status.code(), Some(2), "{said}: {}", stderr(&o));
    }
}

/// `allowedHttpHookUrls` from the user's settings: a project's http hook
/// to another URL does not run, and says why.
#[test]
fn allowed_http_hook_urls_keep_the_event_home() {
    let server = common::HttpServer::start(200, "{}", std::time::Duration::ZERO);
    let p = Project::new();
    p.write(
        "home/.claude/settings.json",
        &json!({"allowedHttpHookUrls": ["http://hooks.internal.example/*"]}).to_string(),
    );
    p.write(
        "proj/.claude/settings.json",
        &json!({"allowedHttpHookUrls": [format!("{}/*", server.url)],
            "hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": format!("{}/x", server.url)}]}]}})
        .to_string(),
    );
    let o = p.fire("PreToolUse", &bash("ls"), &["--agent-user-files"], &[]);
    assert!(server.seen.lock().unwrap().is_empty(), "the event was POSTed");
    assert!(
        stdout(&o)["systemMessage"]
            .as_str()
            .unwrap_or("")
            .contains("allowedHttpHookUrls"),
        "{}",
        stdout(&o)
    );
}

/// A wildcard host in `allowedHttpHookUrls` is a host, as Claude Code
/// matches it: it never stretches over a port and a path to reach another
/// server.
#[test]
fn a_wildcard_host_does_not_reach_another_port() {
    let server = common::HttpServer::start(200, "{}", std::time::Duration::ZERO);
    let p = Project::new();
    p.write(
        "home/.claude/settings.json",
        &json!({"allowedHttpHookUrls": ["http://*.example.com/*"]}).to_string(),
    );
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": format!("{}/.example.com/x", server.url)}]}]}})
            .to_string(),
    );
    let o = p.fire("PreToolUse", &bash("ls"), &["--agent-user-files"], &[]);
    assert!(server.seen.lock().unwrap().is_empty(), "the event was POSTed");
    assert!(
        stdout(&o)["systemMessage"]
            .as_str()
            .unwrap_or("")
            .contains("allowedHttpHookUrls"),
        "{}",
        stdout(&o)
    );
}

/// Codex reads Claude Code's answers more strictly: a question it cannot
/// ask would fail the hook and let the tool run, so for Codex (which sends
/// a `turn_id`) a question is a denial with exit code 2.
#[test]
fn codex_gets_a_denial_where_claude_code_gets_a_question() {
    let p = Project::new();
    p.write(
        "proj/.hookshot/settings.json",
        &json!({"builtins": {"dangerous_confirmation": {"mode": "ask"}}}).to_string(),
    );
    let claude = bash("rm -rf /");
    let o = p.fire("PreToolUse", &claude, &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o)["hookSpecificOutput"]["permissionDecision"], "ask");
    let mut codex = claude.clone();
    codex["turn_id"] = json!("turn-1");
    codex["model"] = json!("gpt-5");
    let o = p.fire("PreToolUse", &codex, &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("Codex hooks cannot ask for confirmation"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stdout(&o)["hookSpecificOutput"]["permissionDecision"], "deny");
}

/// `.codex/hooks.json` has Claude Code's format and loads as such; when
/// Codex itself runs hookshot, that file is Codex's to run, not loaded again.
#[test]
fn codex_hook_files_load_unless_codex_is_the_caller() {
    let p = Project::new();
    p.write(
        "proj/.codex/hooks.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "cat >/dev/null; echo ran >> ran.log; echo 'not here' >&2; exit 2", "timeout": 5}]}]}})
        .to_string(),
    );
    let o = p.fire("PreToolUse", &bash("ls"), &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not here"));
    let mut codex = bash("ls");
    codex["turn_id"] = json!("turn-1");
    let o = p.fire("PreToolUse", &codex, &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(p.path("proj/ran.log")).unwrap(),
        "ran\n",
        "ran twice"
    );
}

/// A hook written for Claude Code fires on gemini-cli's name for the same
/// tool and sees the name (and argument names) it was written for; a
/// gemini hook does the same the other way round.
#[test]
fn hooks_see_tools_under_their_own_agents_names() {
    let p = Project::new();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash|Read", "hooks": [{"type": "command",
            "if": "Bash(rm *)",
            "command": "cat > claude-saw.json; echo 'no rm here' >&2; exit 2", "timeout": 5}]}]}})
        .to_string(),
    );
    p.write(
        "proj/.gemini/settings.json",
        &json!({"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command",
            "command": "cat > gemini-saw.json", "timeout": 5}]}]}})
        .to_string(),
    );
    let gemini =
        json!({"session_id": "s", "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf build"}});
    let o = p.fire("BeforeTool", &gemini, &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let saw: Value = p.read_json("proj/claude-saw.json");
    assert_eq!(saw["tool_name"], "Bash");
    assert_eq!(saw["hook_event_name"], "PreToolUse");
    // Claude Code's own event reaches the gemini hook as run_shell_command.
    let o = p.fire("PreToolUse", &bash("ls"), &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let saw: Value = p.read_json("proj/gemini-saw.json");
    assert_eq!(saw["tool_name"], "run_shell_command");
    // gemini's read_file takes absolute_path; Claude's Read, file_path.
    std::fs::remove_file(p.path("proj/claude-saw.json")).unwrap();
    let read = json!({"session_id": "s", "tool_name": "read_file", "tool_input": {"absolute_path": "/p/a.rs"}});
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command",
            "command": "cat > claude-saw.json", "timeout": 5}]}]}})
        .to_string(),
    );
    let o = p.fire("BeforeTool", &read, &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let saw: Value = p.read_json("proj/claude-saw.json");
    assert_eq!(
        (saw["tool_name"].as_str(), saw["tool_input"]["file_path"].as_str()),
        (Some("Read"), Some("/p/a.rs"))
    );
}

/// Codex's inline hooks in `.codex/config.toml` load like its hooks.json;
/// a broken one is reported at its line.
#[test]
fn codex_config_toml_hooks_load() {
    let p = Project::new();
    p.write(
        "proj/.codex/config.toml",
        "model = \"gpt-5\"\n\n[features]\nhooks = true\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"cat >/dev/null; echo 'toml says no' >&2; exit 2\"\ntimeout = 5\n",
    );
    let o = p.fire("PreToolUse", &bash("ls"), &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("toml says no"));
    p.write(
        "proj/.codex/config.toml",
        "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"comand\"\n",
    );
    let o = p.fire("PreToolUse", &bash("ls"), &[], &[]);
    let said = stdout(&o).to_string();
    assert!(
        said.contains("config.toml:4:") && said.contains("/hooks/PreToolUse/0/hooks/0/type"),
        "{said}"
    );
}

/// A plugin Claude Code installed and the user enabled loads from where
/// Claude Code put it (`installed_plugins.json`), with its root and data
/// folder; disabled, it does not; and when Claude Code itself runs
/// hookshot, the plugin is Claude Code's to run.
#[test]
fn claude_installed_plugins_load_when_enabled() {
    let p = Project::new();
    let root = p.path("home/.claude/plugins/cache/market/guard/1.0.0");
    p.write(
        "home/.claude/plugins/cache/market/guard/1.0.0/.claude-plugin/plugin.json",
        &json!({"name": "guard", "version": "1.0.0"}).to_string(),
    );
    p.write(
        "home/.claude/plugins/cache/market/guard/1.0.0/deny.sh",
        "cat >/dev/null; echo \"plugin at $CLAUDE_PLUGIN_ROOT says no\" >&2; exit 2\n",
    );
    p.write(
        "home/.claude/plugins/cache/market/guard/1.0.0/hooks/hooks.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}/deny.sh\""}]}]}})
        .to_string(),
    );
    p.write(
        "home/.claude/plugins/installed_plugins.json",
        &json!({"version": 2, "plugins": {"guard@market": [
            {"scope": "user", "installPath": root, "version": "1.0.0", "lastUpdated": "2026-11-01T00:00:00Z"}]}})
        .to_string(),
    );
    let enable = |on: bool| {
        p.write(
            "home/.claude/settings.json",
            &json!({"enabledPlugins": {"guard@market": on}}).to_string(),
        );
    };
    enable(true);
    let o = p.fire("PreToolUse", &bash("ls"), &["--agent-user-files"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("plugin at {} says no", root.display())),
        "{}",
        stderr(&o)
    );
    let o = p.fire(
        "PreToolUse",
        &bash("ls"),
        &["--agent-user-files"],
        &[("CLAUDE_PROJECT_DIR", p.path("proj").to_str().unwrap())],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "Claude Code runs its plugins itself: {}",
        stderr(&o)
    );
    enable(false);
    let o = p.fire("PreToolUse", &bash("ls"), &["--agent-user-files"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // An enabled plugin whose folder is gone, and a plugin list that does
    // not parse, are said in the answer (and block under the closed policy),
    // never silently skipped.
    enable(true);
    std::fs::rename(&root, p.path("home/moved")).unwrap();
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooksConfig": {"onFailure": "closed"}}).to_string(),
    );
    let o = p.fire("PreToolUse", &bash("ls"), &["--agent-user-files"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stdout(&o).to_string().contains("guard/1.0.0/hooks/hooks.json"),
        "{}",
        stdout(&o)
    );
    p.write("home/.claude/plugins/installed_plugins.json", "{\"plugins\": ");
    let o = p.fire("PreToolUse", &bash("ls"), &["--agent-user-files"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stdout(&o).to_string().contains("installed_plugins.json:1:"),
        "{}",
        stdout(&o)
    );
}

/// Two plugins that register the same command text are two hooks, as in
/// Claude Code (each runs with its own `CLAUDE_PLUGIN_ROOT`): both
/// plugins' SessionStart contexts reach the model.
#[test]
fn two_plugins_with_the_same_command_both_run() {
    let p = Project::new();
    let mut installed = serde_json::Map::new();
    let mut enabled = serde_json::Map::new();
    for name in ["alpha", "beta"] {
        let dir = format!("home/.claude/plugins/cache/market/{name}/1.0.0");
        p.write(
            &format!("{dir}/.claude-plugin/plugin.json"),
            &json!({"name": name, "version": "1.0.0"}).to_string(),
        );
        p.write(&format!("{dir}/start.sh"), &format!("echo \"context from {name}\"\n"));
        p.write(
            &format!("{dir}/hooks/hooks.json"),
            &json!({"hooks": {"SessionStart": [{"hooks": [
                {"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}/start.sh\""}]}]}})
            .to_string(),
        );
        installed.insert(
            format!("{name}@market"),
            json!([{"scope": "user", "installPath": p.path(&dir), "version": "1.0.0"}]),
        );
        enabled.insert(format!("{name}@market"), json!(true));
    }
    p.write(
        "home/.claude/plugins/installed_plugins.json",
        &json!({"version": 2, "plugins": installed}).to_string(),
    );
    p.write(
        "home/.claude/settings.json",
        &json!({"enabledPlugins": enabled}).to_string(),
    );
    let input =
        json!({"hook_event_name": "SessionStart", "session_id": "s", "source": "startup", "cwd": p.path("proj")});
    let o = p.fire("SessionStart", &input, &["--agent-user-files"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o).to_string();
    assert!(
        out.contains("context from alpha") && out.contains("context from beta"),
        "{out}"
    );
}

/// A plugin the project enables (`enabledPlugins` in its
/// `.claude/settings.json`) loads as the project's: it runs once the
/// project is trusted, and untrusted it is reported, not skipped. A
/// project cannot disable a plugin the user enabled.
#[test]
fn a_plugin_the_project_enables_runs_in_a_trusted_project_and_a_project_cannot_disable_the_users() {
    let p = Project::new();
    let plugin = |name: &str, scope: Value| {
        let root = p.path(&format!("home/.claude/plugins/cache/market/{name}/1.0.0"));
        p.write(
            &format!("home/.claude/plugins/cache/market/{name}/1.0.0/hooks/hooks.json"),
            &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": format!("cat >/dev/null; echo '{name} says no' >&2; exit 2")}]}]}})
            .to_string(),
        );
        let mut install = json!({"installPath": root, "version": "1.0.0", "lastUpdated": "2026-11-01T00:00:00Z"});
        install
            .as_object_mut()
            .unwrap()
            .extend(scope.as_object().unwrap().clone());
        install
    };
    let team = plugin(
        "team",
        json!({"scope": "project", "projectPath": p.path("proj").canonicalize().unwrap()}),
    );
    let mine = plugin("mine", json!({"scope": "user"}));
    p.write(
        "home/.claude/plugins/installed_plugins.json",
        &json!({"version": 2, "plugins": {"team@market": [team], "mine@market": [mine]}}).to_string(),
    );
    p.write(
        "proj/.claude/settings.json",
        &json!({"enabledPlugins": {"team@market": true}}).to_string(),
    );
    let proj = p.path("proj").canonicalize().unwrap();
    let untrusted = |args: &[&str]| {
        let mut all = vec![
            "fire",
            "PreToolUse",
            "--workdir",
            proj.to_str().unwrap(),
            "--agent-user-files",
        ];
        all.extend(args);
        p.run(&all, &bash("ls"))
    };
    let o = untrusted(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).to_string().contains("team/1.0.0/hooks/hooks.json")
            && stdout(&o).to_string().contains("not trusted"),
        "an untrusted project's plugin is reported: {}",
        stdout(&o)
    );
    let o = untrusted(&["--trust-project"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("team says no"), "{}", stderr(&o));
    // The user's plugin, which the project tries to switch off.
    p.write(
        "home/.claude/settings.json",
        &json!({"enabledPlugins": {"mine@market": true}}).to_string(),
    );
    p.write(
        "proj/.claude/settings.json",
        &json!({"enabledPlugins": {"mine@market": false}}).to_string(),
    );
    let o = untrusted(&["--trust-project"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("mine says no"), "{}", stderr(&o));
}

/// `"shell": "powershell"` runs the command with `pwsh -Command`, Claude
/// Code's path placeholders rewritten to PowerShell's `${env:NAME}`; with
/// no `pwsh` installed the hook's failure is in the answer, and blocks
/// under the closed policy.
#[test]
fn a_powershell_hook_runs_under_pwsh_with_env_placeholders() {
    let p = Project::new();
    // A stand-in pwsh that shows what it was asked to run and denies.
    let pwsh = p.write(
        "bin/pwsh",
        "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' \"pwsh $1 $2 $3 [$4] in $CLAUDE_PROJECT_DIR\" >&2\nexit 2\n",
    );
    std::fs::set_permissions(&pwsh, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "shell": "powershell", "command": "& \"${CLAUDE_PROJECT_DIR}\\check.ps1\""}]}]}})
        .to_string(),
    );
    let path = format!("{}:{}", p.path("bin").display(), std::env::var("PATH").unwrap());
    let o = p.fire("PreToolUse", &bash("ls"), &[], &[("PATH", &path)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let proj = p.path("proj").canonicalize().unwrap();
    assert!(
        stderr(&o).contains(&format!(
            "pwsh -NoProfile -NonInteractive -Command [& \"${{env:CLAUDE_PROJECT_DIR}}\\check.ps1\"] in {}",
            proj.display()
        )),
        "{}",
        stderr(&o)
    );
    // Windows PowerShell when there is no PowerShell 7, as Claude Code picks.
    let powershell = p.write(
        "bin5/powershell",
        "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' \"powershell $1 $2 $3\" >&2\nexit 2\n",
    );
    std::fs::set_permissions(&powershell, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", p.path("bin5").display());
    let o = p.fire("PreToolUse", &bash("ls"), &[], &[("PATH", &path)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("powershell -NoProfile -NonInteractive -Command"),
        "{}",
        stderr(&o)
    );
    // No pwsh: said in the answer, a block under the closed policy.
    let o = p.fire("PreToolUse", &bash("ls"), &[], &[("PATH", "/nonexistent")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o)["systemMessage"]
            .as_str()
            .unwrap()
            .contains("could not start"),
        "{}",
        stdout(&o)
    );
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooksConfig": {"onFailure": "closed"}}).to_string(),
    );
    let o = p.fire("PreToolUse", &bash("ls"), &[], &[("PATH", "/nonexistent")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// WorktreeCreate: the hook's answer is the worktree's path, the last
/// non-empty stdout line without escape codes; hookshot answers Claude
/// Code the same way, and fails when no hook gave a path.
#[test]
fn worktree_create_answers_with_a_path() {
    let p = Project::new();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"WorktreeCreate": [{"hooks": [{"type": "command",
            "command": "cat >/dev/null; printf 'banner\\n\\033[32m/tmp/wt/feature-auth\\033[0m\\n\\n'", "timeout": 5}]}]}})
        .to_string(),
    );
    let input = json!({"session_id": "s", "hook_event_name": "WorktreeCreate", "name": "feature-auth"});
    let o = p.fire("WorktreeCreate", &input, &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "/tmp/wt/feature-auth\n");
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"WorktreeCreate": [{"hooks": [{"type": "command", "command": "cat >/dev/null", "timeout": 5}]}]}})
            .to_string(),
    );
    let o = p.fire("WorktreeCreate", &input, &[], &[]);
    assert_ne!(o.status.code(), Some(0), "no path must fail the creation");
}

/// One `.responses` line whose model answer is `parts`.
fn model_line(parts: Value) -> String {
    json!({"method": "generateContent", "response": {"candidates": [{"content": {"role": "model", "parts": parts}}]}})
        .to_string()
}

/// Claude Code's prompt hooks answer `{"ok": false, "reason": ...}`; on
/// Stop that keeps Claude working with the reason (unless `impossible`),
/// before a tool it denies the call and ends the turn. Before, the answer
/// was read as a jcli hook result, in which `ok` means nothing: the guard
/// allowed everything.
#[test]
fn claude_prompt_hooks_block_with_ok_false_as_documented() {
    let p = Project::new();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {
            "Stop": [{"hooks": [{"type": "prompt", "prompt": "Are all tasks done? $ARGUMENTS"}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Is this safe?"}]}]
        }})
        .to_string(),
    );
    let fixture = [
        model_line(json!([{"text": "{\"ok\": false, \"reason\": \"the tests were not run\"}"}])),
        model_line(json!([{"text": "{\"ok\": false, \"reason\": \"cannot be done\", \"impossible\": true}"}])),
        model_line(json!([{"text": "Verdict: {\"ok\": false, \"reason\": \"rm is not safe\"}"}])),
    ]
    .join("\n");
    p.write("proj/model.responses", &fixture);
    let model = ["--hook-model", "proj/model.responses"];
    let stop = json!({"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": false});
    let o = p.fire("Stop", &stop, &model, &[]);
    let answer = stdout(&o);
    assert_eq!(answer["decision"], "block", "{answer} {}", stderr(&o));
    assert_eq!(answer["reason"], "the tests were not run");

    // Each fire reads the fixture from its first line.
    p.write("proj/model.responses", fixture.lines().nth(1).unwrap());
    let o = p.fire("Stop", &stop, &model, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_ne!(stdout(&o)["decision"], "block", "impossible lets the turn end");
}

#[test]
fn a_claude_prompt_hook_before_a_tool_denies_and_ends_the_turn() {
    let p = Project::new();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "prompt", "prompt": "Is this safe? $ARGUMENTS"}]}]}})
        .to_string(),
    );
    p.write(
        "proj/model.responses",
        &model_line(json!([{"text": "{\"ok\": false, \"reason\": \"rm is not safe\"}"}])),
    );
    let o = p.fire(
        "PreToolUse",
        &bash("rm -rf build"),
        &["--hook-model", "proj/model.responses"],
        &[],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("rm is not safe"), "{}", stderr(&o));
    let answer = stdout(&o);
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer}");
    assert_eq!(answer["continue"], false, "{answer}");
}

/// An agent hook may look at the project (Grep here) before it answers;
/// `ok: false` feeds the reason back as a prompt hook with continueOnBlock
/// would. A prompt hook on an event Claude Code runs none on is a warning.
#[test]
fn a_claude_agent_hook_uses_tools_then_decides() {
    let p = Project::new();
    p.write("proj/src/a.rs", "fn main() {}\n// TODO: tests\n");
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {
            "Stop": [{"hooks": [{"type": "agent", "prompt": "Verify no TODO is left. $ARGUMENTS"}]}],
            "SessionStart": [{"hooks": [{"type": "prompt", "prompt": "never"}]}]
        }})
        .to_string(),
    );
    let fixture = [
        model_line(json!([{"functionCall": {"name": "Grep", "args": {"pattern": "TODO"}}}])),
        model_line(json!([{"text": "{\"ok\": false, \"reason\": \"src/a.rs:2 still has a TODO\"}"}])),
    ]
    .join("\n");
    p.write("proj/model.responses", &fixture);
    let stop = json!({"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": false});
    let o = p.fire("Stop", &stop, &["--hook-model", "proj/model.responses"], &[]);
    let answer = stdout(&o);
    assert_eq!(answer["decision"], "block", "{answer} {}", stderr(&o));
    assert_eq!(answer["reason"], "src/a.rs:2 still has a TODO");
    assert!(
        stderr(&o).contains("does not run \"prompt\" hooks on SessionStart"),
        "{}",
        stderr(&o)
    );
}

/// What a Claude SessionStart hook writes to `$CLAUDE_ENV_FILE` holds for
/// every later shell command of the session, as in Claude Code. Before,
/// replay set no such file: the hook's `>> "$CLAUDE_ENV_FILE"` failed.
#[test]
fn replay_gives_session_start_hooks_an_env_file_later_commands_source() {
    let p = Project::new();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command",
            "command": "echo 'export GREETING=from-session-start' >> \"$CLAUDE_ENV_FILE\""}]}]}})
        .to_string(),
    );
    let call = |parts: Value| {
        json!({"method": "generateContentStream", "response": [
            {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}]}]})
        .to_string()
    };
    let fixture = [
        call(json!([{"functionCall": {"name": "run_shell_command", "args": {"command": "echo \"G=$GREETING\" > g.txt"}}}])),
        call(json!([{"text": "done"}])),
    ]
    .join("\n");
    p.write("session.responses", &fixture);
    let replay = [
        "replay",
        "session.responses",
        "--workdir",
        "proj",
        "--trust-project",
        "--prompt",
        "go",
    ];
    let o = p.run(&replay, &json!({}));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    let seen = std::fs::read_to_string(p.path("proj/g.txt")).unwrap_or_default();
    assert_eq!(seen.trim(), "G=from-session-start", "{out}{}", stderr(&o));
}

/// gemini-cli gives its hooks `GEMINI_PLANS_DIR` (the session's approved
/// plans, under the project's slug in `~/.gemini/projects.json`); run for
/// another caller, hookshot gives gemini hooks the same folder, and
/// Claude Code hooks none.
#[test]
fn gemini_hooks_get_the_plans_folder_gemini_cli_gives_them() {
    let p = Project::new();
    let proj = p.path("proj");
    p.write(
        "home/.gemini/projects.json",
        &json!({"projects": {proj.to_str().unwrap(): "my-proj"}}).to_string(),
    );
    p.write(
        "proj/.gemini/settings.json",
        &json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "name": "plans",
            "command": "echo \"gemini:$GEMINI_PLANS_DIR\" >> ../seen"}]}]}})
        .to_string(),
    );
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command",
            "command": "echo \"claude:${GEMINI_PLANS_DIR-unset}\" >> ../seen"}]}]}})
        .to_string(),
    );
    let input = json!({"session_id": "s-1", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let o = p.fire("BeforeTool", &input, &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let seen = std::fs::read_to_string(p.path("seen")).unwrap();
    let expected = p.path("home/.gemini/tmp/my-proj/s-1/plans");
    assert!(seen.contains(&format!("gemini:{}\n", expected.display())), "{seen}");
    assert!(seen.contains("claude:unset\n"), "{seen}");
}

/// Where the gemini settings name a plans folder (`general.plan.directory`,
/// the project's over the user's), gemini hooks run for another caller get
/// that folder, resolved in the project, as gemini-cli gives it; a folder
/// outside the project is refused, as gemini-cli refuses it.
#[test]
fn gemini_hooks_get_the_plans_folder_the_settings_name() {
    let p = Project::new();
    let proj = p.path("proj");
    p.write(
        "home/.gemini/projects.json",
        &json!({"projects": {proj.to_str().unwrap(): "my-proj"}}).to_string(),
    );
    let hooks = json!({"BeforeTool": [{"hooks": [{"type": "command", "name": "plans",
        "command": "echo \"$GEMINI_PLANS_DIR\" > ../seen"}]}]});
    let input = json!({"session_id": "s-1", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    for (user, project, expected) in [
        ("docs/plans", None, proj.join("docs/plans")),
        ("docs/plans", Some(".gemini/plans"), proj.join(".gemini/plans")),
        ("../outside", None, p.path("home/.gemini/tmp/my-proj/s-1/plans")),
    ] {
        p.write(
            "home/.gemini/settings.json",
            &json!({"general": {"plan": {"directory": user}}}).to_string(),
        );
        let mut settings = json!({"hooks": hooks});
        if let Some(dir) = project {
            settings["general"] = json!({"plan": {"directory": dir}});
        }
        p.write("proj/.gemini/settings.json", &settings.to_string());
        let o = p.fire("BeforeTool", &input, &[], &[]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let seen = std::fs::read_to_string(p.path("seen")).unwrap();
        assert_eq!(seen.trim(), expected.display().to_string(), "{user} {project:?}");
    }
}

/// Text printed before a guard's JSON deny (zsh, the shell Codex runs a
/// zsh user's hooks with, reads `~/.zshenv` even for `-c`, and one that
/// echoes `Welcome back` is common): the deny still holds, and the user is
/// told why the answer was hard to read.
#[test]
fn text_printed_before_a_codex_deny_does_not_turn_it_into_an_allow() {
    let p = Project::new();
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "cat >/dev/null; echo Welcome back; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"guard says no\"}}'"}]}]}})
        .to_string(),
    );
    let mut codex = bash("ls");
    codex["turn_id"] = json!("turn-1");
    let o = p.fire("PreToolUse", &codex, &["--agent", "codex"], &[]);
    let answer = String::from_utf8_lossy(&o.stdout).to_string() + &stderr(&o);
    assert!(answer.contains("guard says no"), "the deny was lost: {answer}");
    assert!(answer.contains("before its JSON answer"), "{answer}");
}

/// Never less strict than gemini-cli: it reads a hook's JSON whatever its
/// exit code (on stdout, else on stderr) and takes text with a code other
/// than 0 or 1 as a denial; where gemini-cli would stop the tool, so does
/// hookshot.
#[test]
fn a_gemini_hook_blocks_wherever_gemini_cli_would() {
    let deny = r#"{"decision": "deny", "reason": "gemini says no"}"#;
    for command in [
        format!("cat >/dev/null; echo '{deny}'; exit 1"),
        format!("cat >/dev/null; echo '{deny}' >&2"),
        "cat >/dev/null; echo 'gemini says no' >&2; exit 3".to_string(),
    ] {
        let p = Project::new();
        p.write(
            "proj/.gemini/settings.json",
            &json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "name": "g", "command": command}]}]}})
                .to_string(),
        );
        let input = json!({"session_id": "s", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}});
        let o = p.fire("BeforeTool", &input, &[], &[]);
        assert_eq!(o.status.code(), Some(2), "{command}: {}", stderr(&o));
        assert!(stderr(&o).contains("gemini says no"), "{command}: {}", stderr(&o));
    }
}

/// gemini-cli runs a hook once per `name:command`: two hooks sharing a name
/// with other commands both run (the second may be the guard), while the
/// same name and command in two files runs once.
#[test]
fn gemini_hooks_of_one_name_and_other_commands_both_run() {
    let p = Project::new();
    p.write(
        "proj/.gemini/settings.json",
        &json!({"hooks": {"BeforeTool": [{"hooks": [
            {"type": "command", "name": "guard", "command": "cat >/dev/null; echo a >> ../ran"},
            {"type": "command", "name": "guard", "command": "cat >/dev/null; echo 'second says no' >&2; exit 2"}]}]}})
        .to_string(),
    );
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {"BeforeTool": [{"hooks": [
            {"type": "command", "name": "guard", "command": "cat >/dev/null; echo a >> ../ran"}]}]}})
        .to_string(),
    );
    let input = json!({"session_id": "s", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}});
    let o = p.fire("BeforeTool", &input, &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("second says no"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(p.path("ran")).unwrap(),
        "a\n",
        "the same name and command ran twice"
    );
}

/// An answer field hookshot does not model reaches Claude Code as the hook
/// wrote it (the later hook's value per field), so the next field Claude
/// Code adds works the day it ships; Codex, which rejects fields it does
/// not know, gets none of them.
#[test]
fn fields_hookshot_does_not_know_pass_through_to_claude_code() {
    let p = Project::new();
    let answer = |title: &str| {
        format!(
            "cat >/dev/null; echo '{}'",
            json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "sessionTitle": title,
                "suppressOriginalPrompt": true}})
        )
    };
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {"UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": answer("first")}]}]}})
        .to_string(),
    );
    p.write(
        "proj/.hookshot/settings.json",
        &json!({"hooks": {"UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": answer("second")}]}]}})
        .to_string(),
    );
    let input = json!({"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": "hi"});
    let o = p.fire("UserPromptSubmit", &input, &["--agent", "claude"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let hso = &out["hookSpecificOutput"];
    assert_eq!(hso["suppressOriginalPrompt"], true, "{out}");
    assert!(
        matches!(hso["sessionTitle"].as_str(), Some("first" | "second")),
        "{out}"
    );
    let mut codex = input.clone();
    codex["turn_id"] = json!("turn-1");
    let o = p.fire("UserPromptSubmit", &codex, &["--agent", "codex"], &[]);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(!said.contains("sessionTitle"), "{said}");
    let allow = r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]}}}"#;
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {"PermissionRequest": [{"hooks": [
            {"type": "command", "command": format!("cat >/dev/null; echo '{allow}'")}]}]}})
        .to_string(),
    );
    std::fs::remove_file(p.path("proj/.hookshot/settings.json")).unwrap();
    let input = json!({"session_id": "s", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": "ls"}});
    let o = p.fire("PermissionRequest", &input, &["--agent", "claude"], &[]);
    let out = stdout(&o);
    assert_eq!(
        out["hookSpecificOutput"]["decision"]["updatedPermissions"][0]["mode"], "acceptEdits",
        "{out}"
    );
}

/// A plugin Claude Code installed gets the options its user set, as Claude
/// Code 2.1.332 gives them: `CLAUDE_PLUGIN_OPTION_<KEY>` from
/// `pluginConfigs.<id>.options` of the user's settings.
#[test]
fn an_installed_plugin_s_hooks_get_its_options() {
    let p = Project::new();
    let root = p.path("home/.claude/plugins/cache/market/safety/1.0.0");
    let root_s = root.display().to_string();
    p.write(
        "home/.claude/plugins/cache/market/safety/1.0.0/.claude-plugin/plugin.json",
        r#"{"name": "safety"}"#,
    );
    p.write(
        "home/.claude/plugins/cache/market/safety/1.0.0/hooks/hooks.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command":
            "cat > /dev/null; echo \"$CLAUDE_PLUGIN_OPTION_MAX_FILES|$CLAUDE_PLUGIN_OPTION_BRANCHES|$CLAUDE_PLUGIN_OPTION_STRICT_MODE|$CLAUDE_PLUGIN_OPTION_RATIO\" >&2; exit 2"}]}]}})
        .to_string(),
    );
    p.write(
        "home/.claude/plugins/installed_plugins.json",
        &json!({"version": 2, "plugins": {"safety@market": [
            {"scope": "user", "installPath": root_s, "version": "1.0.0", "lastUpdated": "2026-11-01T00:00:00Z"}]}})
        .to_string(),
    );
    p.write(
        "home/.claude/settings.json",
        &json!({"enabledPlugins": {"safety@market": true},
            "pluginConfigs": {"safety@market": {"options": {
                "max_files": 20, "branches": ["main", "release"], "strict-mode": true, "ratio": 0.5}}}})
        .to_string(),
    );
    // Claude Code's own plugins load with its user files.
    let o = p.fire("PreToolUse", &bash("ls"), &["--agent-user-files"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stdout(&o)["hookSpecificOutput"]["permissionDecisionReason"],
        "20|main,release|true|0.5"
    );
}

/// Copilot CLI runs Claude Code's project files, so it calls hookshot's
/// Claude Code registration (`--agent claude`); it sets `COPILOT_CLI`
/// besides Claude Code's `CLAUDE_PROJECT_DIR`. It is answered as Copilot
/// CLI 1.0.102 reads answers (observed): a block by exit 0 and a JSON
/// denial carrying the reason (at exit 2 it drops the answer and the
/// reason), context after a tool at the top of the answer. Claude Code
/// itself still gets exit 2.
#[test]
fn copilot_cli_calling_a_claude_code_registration_is_answered_as_itself() {
    let p = Project::new();
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                "command": "grep -q 'rm -rf' && { echo 'guard says no' >&2; exit 2; }; exit 0"}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command":
                "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"run the tests\"}}'"}]}]}})
        .to_string(),
    );
    let dir = p.path("proj").display().to_string();
    let copilot = [("COPILOT_CLI", "1"), ("CLAUDE_PROJECT_DIR", dir.as_str())];
    let o = p.fire("PreToolUse", &bash("rm -rf x"), &["--agent", "claude"], &copilot);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let answer = stdout(&o);
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer}");
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecisionReason"], "guard says no",
        "{answer}"
    );
    let mut after = bash("ls");
    after["tool_response"] = json!({"stdout": "a"});
    let o = p.fire("PostToolUse", &after, &["--agent", "claude"], &copilot);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o)["additionalContext"], "run the tests", "{}", stdout(&o));
    let claude = [("CLAUDE_PROJECT_DIR", dir.as_str())];
    let o = p.fire("PreToolUse", &bash("rm -rf x"), &["--agent", "claude"], &claude);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o).trim(), "guard says no");
}

/// Codex cuts a hook's long context and saves the whole text; hookshot
/// does the same for it. When the text cannot be saved (the state folder
/// is a file here), the cut still applies and the answer says so.
#[test]
fn a_cut_context_that_cannot_be_saved_is_said() {
    let p = Project::new();
    let long = "w ".repeat(20_000);
    let answer = json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": long}});
    p.write("answer.json", &answer.to_string());
    let answer_file = p.path("answer.json").display().to_string();
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
            "command": format!("cat >/dev/null; cat {answer_file}")}]}]}})
        .to_string(),
    );
    p.write("state-is-a-file", "");
    let state = p.path("state-is-a-file").display().to_string();
    let input = json!({"session_id": "s", "prompt": "hi", "turn_id": "t"});
    let o = p.fire(
        "UserPromptSubmit",
        &input,
        &["--agent", "codex"],
        &[("XDG_STATE_HOME", state.as_str())],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("tokens truncated"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("could not be saved"), "{}", stderr(&o));
    // In the outcome's warnings, not only a log line of this process: the
    // sidecar's answer carries them too.
    use std::io::{BufRead, Write};
    let mut c = p.command(&["serve", "--workdir", "proj"]);
    c.env("XDG_STATE_HOME", &state);
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "fire",
        "params": {"event": "UserPromptSubmit", "input": input, "agent": "codex"}});
    writeln!(stdin, "{request}").unwrap();
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    drop(stdin);
    let _ = child.wait();
    let served: Value = serde_json::from_str(&line).unwrap();
    assert!(
        served["result"]["warnings"].to_string().contains("could not be saved"),
        "{served}"
    );
}

/// Copilot CLI 1.0.102 denies a tool whose pre-tool hook exits other than
/// 0 or 2 or cannot start, and lets it run after a timeout or a failed
/// hook of another event (observed): hookshot called by it does the same,
/// never less strict than the agent; for Claude Code the open policy
/// stands.
#[test]
fn a_failed_pre_tool_hook_denies_the_tool_for_copilot_cli() {
    let p = Project::new();
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {
            "PreToolUse": [{"hooks": [{"type": "command", "command": "grep -q crash && exit 1; grep -q slow && sleep 5; exit 0", "timeout": 1}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command": "exit 1"}]}]}})
        .to_string(),
    );
    let dir = p.path("proj").display().to_string();
    let copilot = [("COPILOT_CLI", "1"), ("CLAUDE_PROJECT_DIR", dir.as_str())];
    let o = p.fire("PreToolUse", &bash("crash"), &["--agent", "copilot"], &copilot);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o)["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{}",
        stdout(&o)
    );
    let o = p.fire("PreToolUse", &bash("slow"), &["--agent", "copilot"], &copilot);
    assert!(
        stdout(&o)["hookSpecificOutput"]["permissionDecision"].is_null(),
        "{}",
        stdout(&o)
    );
    let mut after = bash("crash");
    after["tool_response"] = json!({"stdout": ""});
    let o = p.fire("PostToolUse", &after, &["--agent", "copilot"], &copilot);
    assert!(stdout(&o).get("decision").is_none(), "{}", stdout(&o));
    let claude = [("CLAUDE_PROJECT_DIR", dir.as_str())];
    let o = p.fire("PreToolUse", &bash("crash"), &["--agent", "claude"], &claude);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o)["hookSpecificOutput"]["permissionDecision"].is_null(),
        "{}",
        stdout(&o)
    );
}

/// Copilot CLI runs Claude Code's project files, hookshot's Claude Code
/// registration among them; with hookshot registered in Copilot CLI's own
/// hooks folder too, the Claude Code registration's call runs nothing, so
/// no hook runs twice an event.
#[test]
fn copilot_cli_runs_each_hook_once_with_both_registrations() {
    let p = Project::new();
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo x >> ran.txt"}]}]}})
            .to_string(),
    );
    let dir = p.path("proj").display().to_string();
    let copilot = [
        ("COPILOT_CLI", "1"),
        ("CLAUDE_PROJECT_DIR", dir.as_str()),
        ("COPILOT_PROJECT_DIR", dir.as_str()),
    ];
    let o = p.fire("PreToolUse", &bash("ls"), &["--agent", "claude"], &copilot);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(p.path("proj/ran.txt")).unwrap(), "x\n");
    let out = p.command(&["install", "--agent", "copilot"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let o = p.fire("PreToolUse", &bash("ls"), &["--agent", "claude"], &copilot);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = p.fire("PreToolUse", &bash("ls"), &["--agent", "copilot"], &copilot);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(p.path("proj/ran.txt")).unwrap(), "x\nx\n");
}
