//! The tools around the engine, as a hook author uses them: `hookshot
//! test` (and the cases `fire --record` writes), `explain`, `install`,
//! `uninstall`, `doctor`, `completions`. The real binary, real hooks.

mod common;

use std::process::Output;

use common::{Project, hookshot};
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

#[test]
fn a_recorded_session_replays_as_a_test_and_catches_a_changed_hook() {
    let p = Project::new();
    p.write("proj/guard.sh", "cat >/dev/null; echo 'not here' >&2; exit 2\n");
    let settings = p.write(
        "proj/hooks.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh guard.sh"}]}]}})
            .to_string(),
    );
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
