//! The tools around the engine, as a hook author uses them: `hookshot
//! test` (and the cases `fire --record` writes), `explain`, `install`,
//! `uninstall`, `doctor`, `completions`. The real binary, real hooks.

mod common;

use std::process::Output;

use common::{Project, hookshot, installed_copy, registered_command};
use serde_json::{Value, json};

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn the_shipped_example_cases_pass_for_every_dialect() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("junit.xml");
    let root = env!("CARGO_MANIFEST_DIR");
    let out = hookshot()
        .args(["test", "examples/tests", "--junit"])
        .arg(&junit)
        .current_dir(root)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    for dialect in ["claude:", "gemini:", "codex:", "jcli:", "picoclaw:"] {
        assert!(
            stdout.contains(&format!("ok   {dialect}")),
            "no {dialect} case passed:\n{stdout}"
        );
    }
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.ends_with("passed, 0 failed"), "{stdout}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("failures=\"0\"") && xml.contains("<testcase "), "{xml}");
}

#[test]
fn a_wrong_expectation_fails_with_what_differs_and_exit_1() {
    let p = Project::new();
    p.write("proj/hook.sh", "cat >/dev/null; echo 'no force pushes' >&2; exit 2\n");
    p.write(
        "proj/cases/push.test.json",
        &json!([
            {"name": "blocks", "event": "PreToolUse",
             "settings": [{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh hook.sh"}]}]}}],
             "workdir": "..", "input": {"tool_name": "Bash", "tool_input": {"command": "git push -f"}},
             "expect": {"decision": "block", "reason": "no force pushes", "exit": 2}},
            {"name": "claims it allows", "event": "PreToolUse",
             "settings": [{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh hook.sh"}]}]}}],
             "workdir": "..", "input": {"tool_name": "Bash", "tool_input": {"command": "git push -f"}},
             "expect": {"decision": "allow", "exit": 0}}
        ])
        .to_string(),
    );
    p.write(
        "proj/cases/typo.test.json",
        r#"{"event": "PreToolUse", "expect": {"decison": "block"}}"#,
    );
    let out = p.command(&["test", "proj/cases"]).output().unwrap();
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("ok   blocks"), "{stdout}");
    assert!(stdout.contains("FAIL claims it allows"), "{stdout}");
    assert!(stdout.contains("decision: expected allow, got block"), "{stdout}");
    assert!(stdout.contains("exit code: expected 0, got 2"), "{stdout}");
    assert!(stdout.contains("unknown field `decison`"), "{stdout}");
    assert!(stdout.ends_with("1 passed, 2 failed\n"), "{stdout}");
}

/// A project whose settings file holds a guard on Bash (`proj/guard.sh`,
/// which says "not here" and blocks): the project and that file.
fn guarded_project() -> (Project, std::path::PathBuf) {
    let p = Project::new();
    p.write("proj/guard.sh", "cat >/dev/null; echo 'not here' >&2; exit 2\n");
    let settings = p.write(
        "proj/hooks.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh guard.sh"}]}]}})
            .to_string(),
    );
    (p, settings)
}

#[test]
fn a_recorded_session_replays_as_a_test_and_catches_a_changed_hook() {
    let (p, settings) = guarded_project();
    let rec = p.path("recorded");
    let mut args = vec!["fire", "PreToolUse", "--workdir", "proj", "--record"];
    args.push(rec.to_str().unwrap());
    args.extend(["--settings", settings.to_str().unwrap()]);
    let out = p.run(&args, &json!({"tool_name": "Bash", "tool_input": {"command": "rm x"}}));
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
    let out = p.run(
        &[
            "fire",
            "UserPromptSubmit",
            "--workdir",
            "proj",
            "--record",
            rec.to_str().unwrap(),
        ],
        &json!({"prompt": "hi"}),
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let cases: Vec<_> = std::fs::read_dir(&rec).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(cases.len(), 2, "{cases:?}");
    let out = p.command(&["test", rec.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert!(text(&out).0.ends_with("2 passed, 0 failed\n"), "{:?}", text(&out));
    // The guard is changed to let everything through: the suite says so.
    p.write("proj/guard.sh", "cat >/dev/null; exit 0\n");
    let out = p.command(&["test", rec.to_str().unwrap()]).output().unwrap();
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("decision: expected block, got none"), "{stdout}");
}

/// A recorded event of an agent whose words another agent shares replays
/// as that agent's: Copilot CLI's `preToolUse` (told by `COPILOT_CLI`, no
/// `--agent`) is not Cursor's, Cline's `PreToolUse` not Claude Code's; the
/// case names the agent, and its decision is read from that agent's
/// answer (`permissionDecision` at the top, `cancel`).
#[test]
fn a_recorded_event_replays_as_the_agent_that_sent_it() {
    let (p, settings) = guarded_project();
    let rec = p.path("recorded");
    let fire = |event: &str, agent: Option<&str>, env: &[(&str, &str)], input: Value| {
        let mut args = vec![
            "--record",
            rec.to_str().unwrap(),
            "--settings",
            settings.to_str().unwrap(),
        ];
        if let Some(a) = agent {
            args.extend(["--agent", a]);
        }
        let o = p.fire(event, &input, &args, env);
        assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
        common::stdout(&o)
    };
    let copilot = fire(
        "preToolUse",
        None,
        &[("COPILOT_CLI", "1")],
        json!({"sessionId": "s", "toolName": "bash", "toolArgs": {"command": "rm x"}}),
    );
    assert_eq!(copilot["permissionDecision"], "deny", "{copilot}");
    let cline = fire(
        "PreToolUse",
        Some("cline"),
        &[],
        json!({"clineVersion": "3.0.65", "hookName": "PreToolUse", "taskId": "t",
            "preToolUse": {"toolName": "run_commands"},
            "tool_call": {"id": "c1", "name": "run_commands", "input": {"commands": ["rm x"]}}}),
    );
    assert_eq!(cline["cancel"], true, "{cline}");
    let cases: Vec<Value> = std::fs::read_dir(&rec)
        .unwrap()
        .map(|e| serde_json::from_str(&std::fs::read_to_string(e.unwrap().path()).unwrap()).unwrap())
        .collect();
    let mut agents: Vec<&str> = cases.iter().map(|c| c["agent"].as_str().unwrap()).collect();
    agents.sort_unstable();
    assert_eq!(agents, ["cline", "copilot"]);
    assert!(cases.iter().all(|c| c["expect"]["decision"] == "block"), "{cases:?}");
    let out = p.command(&["test", rec.to_str().unwrap()]).output().unwrap();
    assert!(text(&out).0.ends_with("2 passed, 0 failed\n"), "{:?}", text(&out));
    p.write("proj/guard.sh", "cat >/dev/null; exit 0\n");
    let out = p.command(&["test", rec.to_str().unwrap()]).output().unwrap();
    let (stdout, _) = text(&out);
    assert!(stdout.ends_with("0 passed, 2 failed\n"), "{stdout}");
    assert_eq!(
        stdout.matches("decision: expected block, got none").count(),
        2,
        "{stdout}"
    );
}

/// `explain` says which engine reads each regex matcher, as its agent
/// would: JavaScript for Claude Code's files (on the ECMAScript engine
/// where the `regex` crate would read it otherwise), the `regex` crate for
/// Codex's.
#[test]
fn explain_names_each_regex_matchers_engine() {
    let p = Project::new();
    let hooks = json!({"hooks": {"PreToolUse": [
        {"matcher": "Edit.*", "hooks": [{"type": "command", "command": "echo edit"}]},
        {"matcher": "^(?!Read$).*", "hooks": [{"type": "command", "command": "echo ahead"}]}
    ]}});
    let claude = p.write("proj/claude.json", &hooks.to_string());
    let codex_hooks = json!({"hooks": {"PreToolUse": [
        {"matcher": "Edit.*", "hooks": [{"type": "command", "command": "echo codex"}]}
    ]}});
    let codex = p.write("proj/x/.codex/hooks.json", &codex_hooks.to_string());
    let input = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
    let out = p.run(
        &[
            "explain",
            "PreToolUse",
            "--workdir",
            "proj",
            "--settings",
            claude.to_str().unwrap(),
            "--settings",
            codex.to_str().unwrap(),
        ],
        &input,
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("/Edit.*/ (JavaScript regex, read alike by the regex crate)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("/^(?!Read$).*/ (JavaScript regex, ECMAScript engine)"),
        "{stdout}"
    );
    assert!(stdout.contains("/Edit.*/ (regex crate)"), "{stdout}");
}

#[test]
fn explain_names_why_each_hook_does_or_does_not_run() {
    let p = Project::new();
    let claude = p.write(
        "proj/claude.json",
        &json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo a", "if": "Bash(git push*)"}]},
            {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "echo b"}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo c"}]},
            {"matcher": "*", "hooks": [{"type": "command", "command": "echo c"}]},
            {"hooks": [{"type": "command", "command": "echo d"}]}
        ]}})
        .to_string(),
    );
    let off = p.write(
        "proj/off.json",
        &json!({"hooksConfig": {"disabled": ["echo d"]}}).to_string(),
    );
    let (c, o) = (claude.to_str().unwrap(), off.to_str().unwrap());
    let input = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
    let out = p.run(
        &[
            "explain",
            "PreToolUse",
            "--workdir",
            "proj",
            "--settings",
            c,
            "--settings",
            o,
        ],
        &input,
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("matchers are tested against \"Bash\""), "{stdout}");
    assert!(
        stdout.contains("its `if` rule Bash(git push*) does not hold"),
        "{stdout}"
    );
    assert!(
        stdout.contains("matcher Write|Edit does not match \"Bash\""),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("the same hook runs from {c}:1:")), "{stdout}");
    assert!(
        stdout.contains(&format!("listed in the disabled list of {o}")),
        "{stdout}"
    );
    assert!(stdout.contains("RUNS #1"), "{stdout}");
    assert!(stdout.contains("plan: 1 hook(s), in parallel: echo c"), "{stdout}");
    // The same facts as JSON, one row per hook.
    let out = p.run(
        &[
            "explain",
            "PreToolUse",
            "--json",
            "--workdir",
            "proj",
            "--settings",
            c,
            "--settings",
            o,
        ],
        &input,
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let whys: Vec<&Value> = v["hooks"].as_array().unwrap().iter().map(|h| &h["why"]).collect();
    assert_eq!(whys.len(), 5, "{v}");
    assert!(
        whys.contains(&&json!("if_rule")) && whys.contains(&&json!("no_match")),
        "{v}"
    );
}

#[test]
fn explain_shows_untrusted_project_files() {
    let p = Project::new();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo guard"}]}]}}).to_string(),
    );
    let out = p.run(
        &["explain", "PreToolUse", "--workdir", "proj"],
        &json!({"tool_name": "Bash"}),
    );
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains("source not loaded:") && stdout.contains("not trusted"),
        "{stdout}"
    );
    assert!(stdout.contains("plan: nothing runs"), "{stdout}");
}

/// [`common::agent_runs`] for Claude Code.
fn agent_runs(p: &Project, command: &str, input: &[u8]) -> Output {
    agent_runs_with(p, command, input, Some("CLAUDE_PROJECT_DIR"))
}

/// [`common::agent_runs`] for an agent that sets `project_var` (or, as Codex, none).
fn agent_runs_with(p: &Project, command: &str, input: &[u8], project_var: Option<&str>) -> Output {
    let env: Vec<(&str, String)> = project_var
        .map(|v| (v, p.path("proj").display().to_string()))
        .into_iter()
        .collect();
    common::agent_runs(p, command, input, &env)
}

#[test]
fn a_vanished_hookshot_is_a_warning_in_the_agent_or_a_block_under_the_closed_policy() {
    let p = Project::new();
    let settings = p.path("home/.claude/settings.json");
    let input = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
        .to_string()
        .into_bytes();
    let install =
        |exe: &std::path::Path| common::output_of_copy(&mut p.command_of(exe, &["install", "--agent", "claude"]));
    // Open policy: the agent shows that the hooks did not run.
    let exe = installed_copy(&p);
    let out = install(&exe);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert!(text(&out).0.contains("shows a warning"), "{:?}", text(&out));
    let command = registered_command(&settings, "PreToolUse");
    let out = agent_runs(&p, &command, &input);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    std::fs::remove_file(&exe).unwrap();
    let out = agent_runs(&p, &command, &input);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {:?}", text(&out)));
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("hookshot could not run (it is not installed there any more): the hooks of PreToolUse"),
        "{answer}"
    );
    let out = p.command(&["doctor"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    assert!(
        text(&out).0.contains("which is not there or not executable"),
        "{:?}",
        text(&out)
    );

    // Closed policy: doctor says the registration is weaker than the
    // policy; a new install blocks, and replaces the old entries.
    p.closed_policy();
    let exe = installed_copy(&p);
    let out = p.command(&["doctor"]).output().unwrap();
    assert!(
        text(&out).0.contains("under another failure policy"),
        "{:?}",
        text(&out)
    );
    let out = install(&exe);
    assert!(text(&out).0.contains("blocks tool calls"), "{:?}", text(&out));
    let command = registered_command(&settings, "PreToolUse");
    let doc = std::fs::read_to_string(&settings).unwrap();
    assert_eq!(doc.matches("PreToolUse || { s=$?").count(), 1, "{doc}");
    let out = p.command(&["doctor"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert!(
        text(&out).0.contains("if hookshot cannot run, it blocks"),
        "{:?}",
        text(&out)
    );
    std::fs::remove_file(&exe).unwrap();
    let out = agent_runs(&p, &command, &input);
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
    assert!(
        text(&out).1.contains("blocked by the closed failure policy"),
        "{:?}",
        text(&out)
    );
    // Input hookshot cannot read is the same failure: blocked, not exit 1.
    installed_copy(&p);
    let out = agent_runs(&p, &command, b"{not json");
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
    assert!(text(&out).1.contains("invalid input JSON"), "{:?}", text(&out));
}

#[test]
fn install_import_fire_uninstall_for_claude_code_leaves_the_file_as_it_was() {
    let p = Project::new();
    let original = "{\n  \"permissions\": {\"allow\": [\"Bash(ls)\"]},\n  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"sh $HOME/guard.sh\"}]}]}\n}\n";
    let settings = p.write("home/.claude/settings.json", original);
    p.write(
        "home/guard.sh",
        "cat >/dev/null; echo 'guarded by the user' >&2; exit 2\n",
    );
    let install = || {
        p.command(&["install", "--agent", "claude", "--import"])
            .output()
            .unwrap()
    };
    let out = install();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    // Twice changes nothing.
    let after_first = std::fs::read(&settings).unwrap();
    let out = install();
    assert!(text(&out).0.contains("nothing changed"), "{:?}", text(&out));
    assert_eq!(std::fs::read(&settings).unwrap(), after_first);
    // The user's guard left Claude Code's file: it runs once, under hookshot.
    let doc: Value = serde_json::from_slice(&after_first).unwrap();
    assert!(!doc.to_string().contains("guard.sh"), "{doc}");
    assert_eq!(doc["permissions"]["allow"][0], "Bash(ls)");
    // Claude Code runs the registered command, in the project, with its variable set.
    let command = registered_command(&settings, "PreToolUse");
    let out = agent_runs(
        &p,
        &command,
        json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
    assert!(text(&out).1.contains("guarded by the user"), "{:?}", text(&out));
    // Doctor sees the registration and the imported file.
    let out = p.command(&["doctor", "--workdir", "proj"]).output().unwrap();
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains("claude (user):") && stdout.contains("32 of 32 events"),
        "{stdout}"
    );
    assert!(
        stdout.contains("imported/claude.json (user settings, claude, 1 hook(s))"),
        "{stdout}"
    );
    // Uninstall: byte for byte what it was.
    let out = p.command(&["uninstall", "--agent", "claude"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    assert!(!p.path("home/.config/hookshot/imported/claude.json").exists());
}

#[test]
fn an_install_with_warm_answers_the_same_from_a_warm_server_and_a_plain_install_replaces_it() {
    let p = Project::new();
    std::fs::create_dir_all(p.path("run")).unwrap();
    let original = "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"sh $HOME/guard.sh\"}]}]}}\n";
    let settings = p.write("home/.claude/settings.json", original);
    p.write(
        "home/guard.sh",
        "cat >/dev/null; echo 'guarded by the user' >&2; exit 2\n",
    );
    let out = p
        .command(&["install", "--agent", "claude", "--import", "--warm"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let command = registered_command(&settings, "PreToolUse");
    assert!(
        command.contains("fire --agent claude --warm PreToolUse ||"),
        "{command}"
    );
    let input = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})
        .to_string()
        .into_bytes();
    let first = agent_runs(&p, &command, &input);
    assert_eq!(first.status.code(), Some(2), "{:?}", text(&first));
    let start = std::time::Instant::now();
    let served = || {
        std::fs::read_dir(p.path("run/hookshot"))
            .map(|d| d.flatten().any(|e| e.path().extension().is_some_and(|x| x == "sock")))
            .unwrap_or(false)
    };
    while !served() {
        assert!(start.elapsed() < std::time::Duration::from_secs(20), "no warm server");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let warm = agent_runs(&p, &command, &input);
    assert_eq!((warm.status.code(), text(&warm)), (first.status.code(), text(&first)));
    // A plain install replaces the warm registration: one entry an event.
    let out = p.command(&["install", "--agent", "claude"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let doc = std::fs::read_to_string(&settings).unwrap();
    assert_eq!(doc.matches("PreToolUse || { s=$?").count(), 1, "{doc}");
    assert!(!doc.contains("--warm"), "{doc}");
    let out = p.command(&["uninstall", "--agent", "claude"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
}

#[test]
fn codex_install_fire_uninstall_end_to_end() {
    let p = Project::new();
    let original = "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"sh guard.sh\", \"timeout\": 10}]}]}}\n";
    let hooks = p.write("proj/.codex/hooks.json", original);
    p.write(
        "proj/.hookshot/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no recursive deletes' >&2; exit 2; }; exit 0"}]}]}}"#,
    );
    let out = p.command(&["trust", "--yes", "--workdir", "proj"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let out = p
        .command(&["install", "--agent", "codex", "--project", "--workdir", "proj"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&hooks).unwrap()).unwrap();
    let mut events: Vec<_> = doc["hooks"].as_object().unwrap().keys().cloned().collect();
    events.sort();
    assert_eq!(
        events,
        [
            "Interrupt",
            "PermissionRequest",
            "PostCompact",
            "PostModelRequest",
            "PostToolUse",
            "PreCompact",
            "PreModelRequest",
            "PreToolUse",
            "SessionEnd",
            "SessionStart",
            "Stop",
            "SubagentStart",
            "SubagentStop",
            "UserPromptSubmit"
        ],
        "{doc}"
    );
    // The user's own group keeps its place (and Codex's approval of it).
    assert_eq!(
        doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "sh guard.sh",
        "{doc}"
    );
    assert_eq!(doc["hooks"]["PreToolUse"][1]["hooks"][0]["timeout"], 600, "{doc}");
    // Codex runs the command with its own input (a turn_id, no project variable).
    let command = registered_command(&hooks, "PreToolUse");
    let event = |cmd: &str| {
        json!({"session_id": "s1", "turn_id": "t1", "hook_event_name": "PreToolUse", "model": "gpt-5",
               "cwd": p.path("proj"), "tool_name": "Bash", "tool_input": {"command": cmd}})
        .to_string()
        .into_bytes()
    };
    let out = agent_runs_with(&p, &command, &event("rm -rf build"), None);
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
    assert!(text(&out).1.contains("no recursive deletes"), "{:?}", text(&out));
    let out = agent_runs_with(&p, &command, &event("ls"), None);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let out = p
        .command(&["uninstall", "--agent", "codex", "--project", "--workdir", "proj"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert_eq!(std::fs::read_to_string(&hooks).unwrap(), original);
}

#[test]
fn uninstall_after_the_user_edited_the_file_keeps_their_edit_and_their_hooks() {
    let p = Project::new();
    let settings = p.write(
        "proj/.gemini/settings.json",
        &json!({"hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "sh g.sh"}]}]}}).to_string(),
    );
    // The script is there before the import trusts it (a script that
    // appears after an approval withdraws it).
    p.write("proj/g.sh", "cat >/dev/null; echo 'no writes here' >&2; exit 2\n");
    let out = p
        .command(&[
            "install",
            "--agent",
            "gemini",
            "--project",
            "--workdir",
            "proj",
            "--import",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert!(text(&out).0.contains("trusted as it is now"), "{:?}", text(&out));
    // The imported project file is trusted: explain shows the hook would run.
    let out = p.run(
        &["explain", "BeforeTool", "--workdir", "proj"],
        &json!({"tool_name": "write_file"}),
    );
    assert!(text(&out).0.contains("RUNS #1"), "{:?}", text(&out));
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(doc["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"], 600000, "{doc}");
    // gemini-cli runs the registered command; the imported hook answers.
    let command = registered_command(&settings, "BeforeTool");
    let event = json!({"hook_event_name": "BeforeTool", "tool_name": "write_file", "tool_input": {"file_path": "a"}});
    let out = agent_runs_with(&p, &command, event.to_string().as_bytes(), Some("GEMINI_PROJECT_DIR"));
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
    assert!(text(&out).1.contains("no writes here"), "{:?}", text(&out));
    doc["general"] = json!({"vimMode": true});
    std::fs::write(&settings, doc.to_string()).unwrap();
    let out = p
        .command(&["uninstall", "--agent", "gemini", "--project", "--workdir", "proj"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(doc["general"]["vimMode"], true, "{doc}");
    assert_eq!(doc["hooks"]["BeforeTool"][0]["hooks"][0]["command"], "sh g.sh", "{doc}");
    assert!(!doc.to_string().contains(" fire "), "{doc}");
}

#[test]
fn install_refuses_a_broken_settings_file_and_changes_nothing() {
    let p = Project::new();
    let settings = p.write("home/.codex/hooks.json", "{\"hooks\": {,}}");
    let out = p.command(&["install", "--agent", "codex"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).1.contains("hooks.json:1:"), "{:?}", text(&out));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{\"hooks\": {,}}");
    assert!(!p.path("home/.codex/hooks.json.hookshot-backup").exists());
}

#[test]
fn completions_and_the_man_page_come_from_the_cli_definition() {
    for shell in ["bash", "zsh", "fish"] {
        let out = hookshot().args(["completions", shell]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let s = String::from_utf8_lossy(&out.stdout);
        assert!(s.contains("explain") && s.contains("uninstall"), "{shell}: {s}");
        // Event names complete, in every dialect (clap's fish script
        // completes options' values only).
        for event in ["PreToolUse", "BeforeTool", "pre_tool_execution"] {
            assert!(shell == "fish" || s.contains(event), "{shell}: no {event}");
        }
    }
    let out = hookshot().args(["--help"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Getting started:\n  hookshot install --agent claude --guards"),
        "{out:?}"
    );
    let out = hookshot().args(["man"]).output().unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.starts_with(".ie") || s.contains(".TH hookshot"), "{s}");
    assert!(s.contains("install"), "{s}");
    // One page: every command in it, no pointer to pages that do not
    // exist, and the exit codes agents rely on.
    assert!(!s.contains("hookshot\\-fire(1)") && !s.contains("(1)\n"), "{s}");
    for section in [
        ".SH \"HOOKSHOT FIRE\"",
        ".SH \"HOOKSHOT INSTALL\"",
        ".SH \"EXIT STATUS\"",
        ".SH FILES",
        ".SH ENVIRONMENT",
        ".SH EXAMPLES",
    ] {
        assert!(s.contains(section), "{section} missing:\n{s}");
    }
}

/// A project's `.claude/settings.json` that hookshot was never asked to
/// trust is run by Claude Code itself: doctor notes it, and does not call
/// the setup broken (exit 0); an untrusted file only hookshot runs is a
/// problem (exit 1).
#[test]
fn doctor_leaves_an_agents_own_untrusted_file_to_the_agent() {
    let p = Project::new();
    let doctor_with = |file: &str, event: &str| {
        let hooks = format!(r#"{{"hooks": {{"{event}": [{{"hooks": [{{"type": "command", "command": "true"}}]}}]}}}}"#);
        p.write(file, &hooks);
        p.command(&["doctor", "--workdir", "proj"]).output().unwrap()
    };
    let out = doctor_with("proj/.claude/settings.json", "PreToolUse");
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert!(text(&out).0.contains("claude runs it itself"), "{:?}", text(&out));
    let out = doctor_with("proj/.hookshot/settings.json", "BeforeTool");
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    assert!(text(&out).0.contains("NOT LOADED"), "{:?}", text(&out));
}
