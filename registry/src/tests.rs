use std::path::Path;
use std::time::Duration;

use hookshot_core::{EventKind, MatcherSpec, SourceKind};

use super::*;

fn parse_str(name: &str, text: &str) -> Result<SettingsFile, Error> {
    settings::parse(Path::new(name), text, SourceKind::Cli)
}

fn errors(name: &str, text: &str) -> String {
    match parse_str(name, text) {
        Ok(_) => "no error".into(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_timeout_the_agent_accepts_is_taken_and_clamped_with_a_note() {
    // A published Claude hook collection writes 120000 (meant as
    // milliseconds); Claude Code runs it, and Codex writes `timeoutSec`.
    for (text, secs) in [
        (
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": 120000}]}]}}"#,
            86_400,
        ),
        (
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": 1e300}]}]}}"#,
            86_400,
        ),
        (
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeoutSec": 7}]}]}}"#,
            7,
        ),
        (
            r#"{"hooksConfig": {"enabled": true}, "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "x", "timeout": 1e12}]}]}}"#,
            86_400,
        ),
    ] {
        let f = parse_str("s.json", text).unwrap();
        assert_eq!(f.hooks[0].timeout.as_secs(), secs, "{text}");
        let notes: Vec<String> = f.warnings.iter().map(|w| w.to_string()).collect();
        if secs == 86_400 {
            assert!(
                notes.len() == 1 && notes[0].contains("/timeout") && notes[0].contains("the hook gets 86400 s"),
                "{notes:?}"
            );
        } else {
            assert!(notes.is_empty(), "{notes:?}");
        }
    }
}

/// gemini-cli adds a hook's own `env` to its environment.
#[test]
fn a_gemini_hook_s_env_is_its_own() {
    let f = parse_str(
        "s.json",
        r#"{"hooksConfig": {"enabled": true}, "hooks": {"BeforeTool": [{"hooks": [
            {"type": "command", "command": "x", "env": {"COLOUR": "teal", "N": 5}}]}]}}"#,
    )
    .unwrap();
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    assert_eq!(
        f.hooks[0].options.env,
        [
            ("COLOUR".to_string(), "teal".to_string()),
            ("N".to_string(), "5".to_string())
        ]
    );
    let msg = errors(
        "s.json",
        r#"{"hooksConfig": {"enabled": true}, "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "x", "env": "A=1"}]}]}}"#,
    );
    assert!(
        msg.contains("/hooks/BeforeTool/0/hooks/0/env: expected an object of variables"),
        "{msg}"
    );
}

#[test]
fn gemini_file_parses() {
    let f = parse_str(
        "s.json",
        r#"{"hooksConfig": {"enabled": true}, "hooks": {"BeforeTool": [{"matcher": "write_file", "sequential": true,
            "hooks": [{"type": "command", "command": "python3 a.py", "timeout": 5000, "name": "a"}]}]}}"#,
    )
    .unwrap();
    assert_eq!(f.dialect, Some(Dialect::Gemini));
    let h = &f.hooks[0];
    assert_eq!(h.event, EventKind::BeforeTool);
    assert_eq!(h.timeout.as_millis(), 5000);
    assert!(h.sequential);
    assert_eq!(h.matcher, MatcherSpec::Regex("write_file".into()));
    assert_eq!((h.provenance.line, h.provenance.column), (2, 23));
}

#[test]
fn claude_file_parses_with_seconds_and_exact_lists() {
    let f = parse_str(
        "c.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type": "command", "command": "x", "timeout": 30}]}]}}"#,
    )
    .unwrap();
    assert_eq!(f.dialect, Some(Dialect::Claude));
    assert_eq!(f.hooks[0].timeout.as_secs(), 30);
    assert_eq!(
        f.hooks[0].matcher,
        MatcherSpec::Exact(vec!["Bash".into(), "Write".into()])
    );
}

#[test]
fn hookshot_s_own_keys_never_make_a_claude_file_gemini_s() {
    // The docs invite `hooksConfig.onFailure` into any settings file.
    let f = parse_str(
        "c.json",
        r#"{"hooksConfig": {"onFailure": "closed"}, "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": 2, "if": "Bash(rm *)"}]}]}}"#,
    )
    .unwrap();
    assert_eq!(f.dialect, Some(Dialect::Claude));
    assert_eq!(f.hooks[0].timeout.as_secs(), 2);
    assert_eq!(f.on_failure, Some(hookshot_core::FailPolicy::Closed));
    // gemini-cli's own hooksConfig keys still say gemini when events cannot.
    let f = parse_str(
        "g.json",
        r#"{"hooksConfig": {"enabled": true}, "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "x", "timeout": 2000}]}]}}"#,
    )
    .unwrap();
    assert_eq!(f.dialect, Some(Dialect::Gemini));
    // Both agents' own events in one file: a warning naming both.
    let f = parse_str(
        "both.json",
        r#"{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "x"}]}], "PreToolUse": [{"hooks": [{"type": "command", "command": "y"}]}]}}"#,
    );
    let text = match f {
        Ok(f) => f.warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>().join("\n"),
        Err(e) => e.to_string(),
    };
    assert!(text.contains("BeforeTool") && text.contains("PreToolUse"), "{text}");
}

#[test]
fn gemini_settings_may_hold_comments_and_claude_s_are_told_why_not() {
    let text = "{\n  // the user's note, \"quoted\" /* */\n  \"hooks\": {\"BeforeTool\": [{\"matcher\": \"a//b\", /* inline */ \"hooks\": [{\"type\": \"command\", \"command\": \"echo '/* not a comment */'\"}]}]}\n}\n";
    let cx = |d| settings::Context {
        dialect: Some(d),
        ..settings::Context::default()
    };
    let f = settings::parse_with(
        Path::new("/p/.gemini/settings.json"),
        text,
        SourceKind::Project,
        &cx(Dialect::Gemini),
    )
    .unwrap();
    assert_eq!(f.hooks.len(), 1);
    let hookshot_core::HookAction::Command { command } = &f.hooks[0].action else {
        panic!("{:?}", f.hooks[0].action)
    };
    assert_eq!(command, "echo '/* not a comment */'");
    let err = settings::parse_with(
        Path::new("/p/.claude/settings.json"),
        text,
        SourceKind::Project,
        &cx(Dialect::Claude),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("settings.json:2:") && err.contains("comments are not allowed"),
        "{err}"
    );
}

#[test]
fn jcli_yaml_parses() {
    let f = parse_str(
        "hooks.yaml",
        "pre_tool_execution:\n  - command: \"echo {}\"\n    timeout: 5\n    on_error: abort\n    filter:\n      tool_matcher: \"Bash|Shell\"\n",
    )
    .unwrap();
    assert_eq!(f.dialect, Some(Dialect::Jcli));
    let h = &f.hooks[0];
    assert_eq!(h.timeout.as_secs(), 5);
    assert!(h.sequential);
    assert_eq!(h.fail, hookshot_core::FailPolicy::Closed);
    assert_eq!(h.provenance.line, 2);
}

#[test]
fn all_errors_of_a_file_are_reported() {
    let text = r#"{"hooks": {
  "BeforTool": [],
  "AfterTool": [{"matcher": "(?!R)(a+)+$", "hooks": [{"type": "command"}]}]
}}"#;
    let msg = errors("bad.json", text);
    assert!(
        msg.contains("bad.json:2:3: /hooks/BeforTool: unknown event \"BeforTool\"; did you mean \"BeforeTool\"?"),
        "{msg}"
    );
    assert!(
        msg.contains("bad.json:3:29: /hooks/AfterTool/0/matcher: matcher regex \"(?!R)(a+)+$\" repeats a group"),
        "{msg}"
    );
    assert!(msg.contains("missing \"command\""), "{msg}");
}

/// A matcher JavaScript cannot read is compared with the tool name as plain
/// text by gemini-cli: so it is here, with a warning, and the file loads.
#[test]
fn a_gemini_matcher_that_is_no_regex_is_a_name() {
    let f = parse_str(
        "g.json",
        r#"{"hooks": {"BeforeTool": [{"matcher": "run_shell_command(", "hooks": [{"type": "command", "command": "x"}]}]}}"#,
    )
    .unwrap();
    assert_eq!(
        f.hooks[0].matcher,
        MatcherSpec::Exact(vec!["run_shell_command(".into()])
    );
    assert!(
        f.warnings.iter().any(|w| w.to_string().contains("plain text")),
        "{:?}",
        f.warnings
    );
}

#[test]
fn a_regex_the_engine_refuses_is_the_file_s_error_with_its_line() {
    // It parses, but compiles past the regex engine's size limit: the
    // file is refused here, never left for the planner to fail on, which
    // would stop every other file's hooks too.
    let text = r#"{"hooks": {
  "BeforeTool": [{"matcher": "(?:a{1000}){1000}", "hooks": [{"type": "command", "command": "x"}]}]
}}"#;
    let msg = errors("big.json", text);
    assert!(
        msg.contains("big.json:2:30: /hooks/BeforeTool/0/matcher: invalid matcher regex"),
        "{msg}"
    );
}

#[test]
fn later_sources_override_enabled() {
    let a = parse_str("a.json", r#"{"hooksConfig": {"enabled": true}, "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "a"}]}]}}"#).unwrap();
    let b = parse_str("b.json", r#"{"hooksConfig": {"enabled": false}}"#).unwrap();
    let src = |p: &str| Source::new(p, SourceKind::Cli);
    let reg = Registry::from_files(vec![(src("a.json"), a.clone(), true), (src("b.json"), b, true)]);
    assert!(reg.hooks().is_empty());
    assert!(
        matches!(&reg.skipped()[0].1, Skipped::Disabled(why) if why == "all hooks are disabled by b.json (enabled: false)"),
        "{:?}",
        reg.skipped()
    );
    let reg = Registry::from_files(vec![(src("a.json"), a, false)]);
    assert_eq!(reg.skipped()[0].1, Skipped::Untrusted);
}

/// A later file makes a guard stricter and adds patterns; it never
/// switches it off, loosens it, or moves its log; system files come first.
#[test]
fn built_ins_merge_tighten_only() {
    let file = |name: &str, kind: SourceKind, text: &str| {
        let f = settings::parse(Path::new(name), text, kind).unwrap();
        (Source::new(name, kind), f, true)
    };
    let reg = Registry::from_files(vec![
        file(
            "user.json",
            SourceKind::User,
            r#"{"builtins": {"dangerous_confirmation": {"patterns": ["a"]}, "audit_log": {"path": "u.jsonl"}}}"#,
        ),
        file(
            "proj.json",
            SourceKind::Project,
            r#"{"builtins": {"dangerous_confirmation": {"mode": "deny", "patterns": ["b"]}, "audit_log": {"path": "p.jsonl"}, "security_scan": false}}"#,
        ),
        file(
            "cli.json",
            SourceKind::Cli,
            r#"{"builtins": {"dangerous_confirmation": {"mode": "ask"}, "audit_log": false}}"#,
        ),
        file(
            "sys.json",
            SourceKind::System,
            r#"{"builtins": {"security_scan": {"mode": "block"}}}"#,
        ),
    ]);
    let get = |n: &str| reg.builtins().iter().find(|b| b.name == n).unwrap();
    let d = get("dangerous_confirmation");
    assert_eq!(d.options["mode"], "deny");
    assert_eq!(d.options["patterns"], serde_json::json!(["a", "b"]));
    let a = get("audit_log");
    assert_eq!(
        (a.options["path"].as_str(), a.source),
        (Some("u.jsonl"), SourceKind::User)
    );
    assert_eq!(get("security_scan").options["mode"], "block");
    let warned: Vec<String> = reg.warnings().iter().map(|w| w.to_string()).collect();
    assert_eq!(warned.len(), 4, "{warned:#?}");
    assert!(
        warned
            .iter()
            .any(|w| w.starts_with("cli.json") && w.contains("keeps the stricter mode \"deny\""))
    );
    assert!(
        warned
            .iter()
            .any(|w| w.starts_with("proj.json") && w.contains("keeps its path \"u.jsonl\""))
    );
    assert!(warned.iter().any(|w| w.starts_with("proj.json") && w.contains("cannot switch off the built-in security_scan: sys.json")));
}

#[test]
fn disabled_list_removes_by_name_or_command() {
    let f = parse_str(
        "a.json",
        r#"{"hooksConfig": {"disabled": ["x"]}, "hooks": {"BeforeTool": [{"hooks": [
            {"type": "command", "command": "x"}, {"type": "command", "command": "y", "name": "named"}]}]}}"#,
    )
    .unwrap();
    let reg = Registry::from_files(vec![(Source::new("a.json", SourceKind::Cli), f, true)]);
    assert_eq!(reg.hooks().len(), 1);
    assert_eq!(reg.hooks()[0].label(), "named");
}

/// Each bad file's full message, one block per case.
fn report(name: &str, cases: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (what, text) in cases {
        let msg = errors(name, text);
        assert_ne!(msg, "no error", "{what} was accepted");
        out.push_str(&format!("## {what}\n{msg}\n\n"));
    }
    out
}

#[test]
fn bad_gemini_files() {
    let h =
        |inner: &str| format!("{{\"hooksConfig\": {{\"enabled\": true}}, \"hooks\": {{\"BeforeTool\": [{inner}]}}}}");
    let cases: Vec<(&str, String)> = vec![
        ("not JSON", "{\"hooks\": {".into()),
        ("trailing comma", "{\"hooks\": {},}".into()),
        ("top level is a list", "[]".into()),
        ("hooks is a list", "{\"hooks\": []}".into()),
        (
            "misspelt event",
            "{\"hooksConfig\": {}, \"hooks\": {\"BeforTool\": []}}".into(),
        ),
        (
            "unknown event",
            "{\"hooksConfig\": {}, \"hooks\": {\"OnSave\": []}}".into(),
        ),
        (
            "event value not a list",
            "{\"hooksConfig\": {}, \"hooks\": {\"BeforeTool\": {}}}".into(),
        ),
        ("group not an object", h("\"write_file\"")),
        ("group without hooks", h("{\"matcher\": \"write_file\"}")),
        ("misspelt group key", h("{\"matchr\": \"x\", \"hooks\": []}")),
        (
            "regex a JavaScript engine would take exponential time on",
            h("{\"matcher\": \"(?!Read)(a+)+$\", \"hooks\": []}"),
        ),
        ("matcher not a string", h("{\"matcher\": 3, \"hooks\": []}")),
        (
            "sequential not a boolean",
            h("{\"sequential\": \"yes\", \"hooks\": []}"),
        ),
        ("hook without type", h("{\"hooks\": [{\"command\": \"x\"}]}")),
        (
            "unsupported hook type",
            h("{\"hooks\": [{\"type\": \"agent\", \"command\": \"x\"}]}"),
        ),
        ("hook without command", h("{\"hooks\": [{\"type\": \"command\"}]}")),
        (
            "empty command",
            h("{\"hooks\": [{\"type\": \"command\", \"command\": \" \"}]}"),
        ),
        (
            "timeout as a string",
            h("{\"hooks\": [{\"type\": \"command\", \"command\": \"x\", \"timeout\": \"5s\"}]}"),
        ),
        (
            "negative timeout",
            h("{\"hooks\": [{\"type\": \"command\", \"command\": \"x\", \"timeout\": -1}]}"),
        ),
        (
            "misspelt hook key",
            h("{\"hooks\": [{\"type\": \"command\", \"comand\": \"x\"}]}"),
        ),
        ("disabled not a list", "{\"hooksConfig\": {\"disabled\": \"x\"}}".into()),
        (
            "unknown builtin",
            "{\"builtins\": {\"audit\": {\"path\": \"a\"}}}".into(),
        ),
        (
            "bad builtin mode",
            "{\"builtins\": {\"security_scan\": {\"mode\": \"loud\"}}}".into(),
        ),
        ("audit log without a path", "{\"builtins\": {\"audit_log\": {}}}".into()),
        ("event outside hooks", "{\"BeforeTool\": []}".into()),
    ];
    let cases: Vec<(&str, &str)> = cases.iter().map(|(a, b)| (*a, b.as_str())).collect();
    insta::assert_snapshot!(report("gemini.json", &cases));
}

#[test]
fn bad_claude_files() {
    let h = |inner: &str| format!("{{\"permissions\": {{}}, \"hooks\": {{\"PreToolUse\": [{inner}]}}}}");
    let cases: Vec<(&str, String)> = vec![
        (
            "not JSON",
            "{\"permissions\": {}, \"hooks\": {\"PreToolUse\": [}".into(),
        ),
        ("misspelt event", "{\"hooks\": {\"PreToolUsee\": []}}".into()),
        ("lower-case event", "{\"hooks\": {\"pretooluse\": []}}".into()),
        (
            "disableAllHooks not a boolean",
            "{\"disableAllHooks\": \"yes\", \"hooks\": {}}".into(),
        ),
        ("event value not a list", "{\"hooks\": {\"PostToolUse\": \"x\"}}".into()),
        ("group not an object", h("[]")),
        ("group without hooks", h("{\"matcher\": \"Bash\"}")),
        ("hooks not a list", h("{\"matcher\": \"Bash\", \"hooks\": {}}")),
        ("invalid regex", h("{\"matcher\": \"Bash(\", \"hooks\": []}")),
        (
            "invalid regex in an MCP matcher",
            h("{\"matcher\": \"mcp__[a-\", \"hooks\": []}"),
        ),
        ("hook not an object", h("{\"hooks\": [\"echo hi\"]}")),
        (
            "hook without command",
            h("{\"hooks\": [{\"type\": \"command\", \"timeout\": 30}]}"),
        ),
        (
            "command not a string",
            h("{\"hooks\": [{\"type\": \"command\", \"command\": [\"echo\"]}]}"),
        ),
        (
            "timeout zero",
            h("{\"hooks\": [{\"type\": \"command\", \"command\": \"x\", \"timeout\": 0}]}"),
        ),
        (
            "timeout as a string",
            h("{\"hooks\": [{\"type\": \"command\", \"command\": \"x\", \"timeout\": \"30\"}]}"),
        ),
        (
            "unknown onFailure",
            h("{\"hooks\": [{\"type\": \"command\", \"command\": \"x\", \"onFailure\": \"explode\"}]}"),
        ),
        (
            "unknown failure policy",
            h("{\"hooks\": [{\"type\": \"command\", \"command\": \"x\", \"fail\": \"maybe\"}]}"),
        ),
        (
            "retry out of range",
            h("{\"hooks\": [{\"type\": \"command\", \"command\": \"x\", \"retry\": 99}]}"),
        ),
        (
            "several problems at once",
            h("{\"matcher\": \"(\", \"hooks\": [{\"type\": \"command\"}, {\"command\": \"y\"}]}"),
        ),
    ];
    let cases: Vec<(&str, &str)> = cases.iter().map(|(a, b)| (*a, b.as_str())).collect();
    insta::assert_snapshot!(report("claude.json", &cases));
}

#[test]
fn bad_jcli_files() {
    let cases: &[(&str, &str)] = &[
        ("YAML syntax error", "pre_tool_execution:\n  - command: \"x\n"),
        (
            "bad indentation",
            "pre_tool_execution:\n  - command: x\n   timeout: 5\n",
        ),
        ("misspelt event", "pre_tool_execute:\n  - command: x\n"),
        ("event value not a list", "stop: x\n"),
        ("hook not a mapping", "stop:\n  - x\n"),
        ("missing command", "stop:\n  - timeout: 5\n"),
        ("timeout too large", "stop:\n  - command: x\n    timeout: 1e300\n"),
        (
            "alias bomb",
            "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
        ),
        ("command not a string", "stop:\n  - command: [a, b]\n"),
        ("unknown type", "stop:\n  - type: python\n    command: x\n"),
        (
            "llm hook without a prompt",
            "stop:\n  - type: llm\n    model: gpt-4o-mini\n",
        ),
        ("timeout as text", "stop:\n  - command: x\n    timeout: soon\n"),
        ("unknown on_error", "stop:\n  - command: x\n    on_error: ignore\n"),
        ("retry as text", "stop:\n  - command: x\n    retry: twice\n"),
        (
            "filter not a mapping",
            "pre_tool_execution:\n  - command: x\n    filter: Bash\n",
        ),
        (
            "unknown filter",
            "pre_tool_execution:\n  - command: x\n    filter:\n      tool: Bash\n",
        ),
        (
            "invalid tool_matcher",
            "pre_tool_execution:\n  - command: x\n    filter:\n      tool_matcher: \"Bash(\"\n",
        ),
        ("misspelt hook key", "stop:\n  - comand: x\n"),
    ];
    insta::assert_snapshot!(report("hooks.yaml", cases));
}

#[test]
fn bad_picoclaw_files() {
    let p = |inner: &str| format!("{{\"hooks\": {{\"enabled\": true, \"processes\": {{\"gate\": {inner}}}}}}}");
    let cases: Vec<(&str, String)> = vec![
        ("processes not an object", "{\"hooks\": {\"processes\": []}}".into()),
        ("process not an object", p("\"python3 gate.py\"")),
        ("missing command", p("{\"intercept\": [\"before_tool\"]}")),
        ("command not a list of strings", p("{\"command\": [1, 2]}")),
        (
            "unsupported transport",
            p("{\"command\": [\"x\"], \"transport\": \"tcp\"}"),
        ),
        (
            "unknown interception point",
            p("{\"command\": [\"x\"], \"intercept\": [\"before_tools\"]}"),
        ),
        ("env not an object", p("{\"command\": [\"x\"], \"env\": [\"A=1\"]}")),
        (
            "misspelt key",
            p("{\"command\": [\"x\"], \"intercepts\": [\"before_tool\"]}"),
        ),
        (
            "bad default timeout",
            "{\"hooks\": {\"defaults\": {\"approval_timeout_ms\": \"1m\"}, \"processes\": {}}}".into(),
        ),
    ];
    let cases: Vec<(&str, &str)> = cases.iter().map(|(a, b)| (*a, b.as_str())).collect();
    insta::assert_snapshot!(report("picoclaw.json", &cases));
}

/// Flat hook files (each entry one hook) are told apart by what only
/// Cursor or Copilot CLI has, and read as that agent's; one that could be
/// either is named for what it is, at its first entry, not read as matcher
/// groups that each miss "hooks"; Copilot CLI's file of hookshot's
/// registration (groups under "version": 1) is read.
#[test]
fn the_agents_own_flat_files_are_told_apart() {
    let cases = [(
        "either",
        "{\"version\": 1, \"hooks\": {\"preToolUse\": [{\"command\": \"./guard.sh\"}]}}",
    )];
    insta::assert_snapshot!(report("hooks.json", &cases));
    let cursor = "{\"version\": 1, \"hooks\": {\"beforeShellExecution\": [{\"command\": \"./guard.sh\", \"failClosed\": true}]}}";
    let parsed = crate::settings::parse(Path::new("hooks.json"), cursor, SourceKind::Cli).unwrap();
    assert_eq!(parsed.dialect, Some(Dialect::Cursor));
    assert_eq!(parsed.hooks.len(), 1);
    assert_eq!(parsed.hooks[0].fail, hookshot_core::FailPolicy::Closed);
    let own = "{\"version\": 1, \"hooks\": {\"preToolUse\": [{\"type\": \"command\", \"bash\": \"./guard.sh\", \"timeoutSec\": 10}]}}";
    let parsed = crate::settings::parse(Path::new("hooks.json"), own, SourceKind::User).unwrap();
    assert_eq!(parsed.dialect, Some(Dialect::Copilot));
    assert_eq!(parsed.hooks.len(), 1);
    assert_eq!(parsed.hooks[0].timeout, Duration::from_secs(10));
    let registration = "{\"version\": 1, \"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"hookshot fire --agent copilot PreToolUse\", \"timeoutSec\": 600}]}]}}";
    let parsed = crate::settings::parse(Path::new("hookshot.json"), registration, SourceKind::User).unwrap();
    assert_eq!(parsed.hooks.len(), 1);
}

/// Cursor's own file, as its hook reference (2.x) says Cursor runs it:
/// each entry one hook of Cursor's payload and answers (`own_event`);
/// the events that name their tool are the generic tool events of that
/// tool (the shell's matcher searches the command); `failClosed` blocks
/// on failure; `timeout` in seconds; a project's hooks run in the project,
/// a user's in `~/.cursor/`; its events hookshot does not fire, and a bad
/// entry, are named with their place.
#[test]
fn cursors_own_file_read_as_it_runs_it() {
    let text = r#"{"version": 1, "hooks": {
        "beforeShellExecution": [{"command": "./shell-guard.sh", "matcher": "git\\s+push", "failClosed": true, "timeout": 5}],
        "beforeReadFile": [{"command": "./secrets.sh"}],
        "afterFileEdit": [{"command": "./format.sh", "matcher": "TabWrite"}],
        "beforeMCPExecution": [{"command": "./mcp.sh"}],
        "preToolUse": [{"command": "./pre.sh", "matcher": "Shell|StrReplace"}],
        "stop": [{"command": "./stop.sh", "loop_limit": 3}],
        "afterAgentThought": [{"command": "./thought.sh"}],
        "beforeShellExecutoin": [{"command": "./typo.sh"}]
    }}"#;
    let cx = crate::settings::Context {
        dialect: Some(Dialect::Cursor),
        project: Some("/p".into()),
        ..Default::default()
    };
    let parsed =
        crate::settings::parse_with(Path::new("/p/.cursor/hooks.json"), text, SourceKind::Project, &cx).unwrap();
    let hooks = &parsed.hooks;
    assert_eq!(hooks.len(), 6, "{hooks:#?}");
    let by = |cmd: &str| hooks.iter().find(|h| h.command() == Some(cmd)).unwrap();
    let shell = by("./shell-guard.sh");
    assert_eq!((shell.event, shell.dialect), (EventKind::BeforeTool, Dialect::Cursor));
    assert_eq!(shell.options.own_event.as_deref(), Some("beforeShellExecution"));
    assert_eq!(shell.matcher, MatcherSpec::Exact(vec!["Bash".into()]));
    let rule = shell.options.condition.as_ref().unwrap();
    assert!(rule.regex && rule.pattern.as_deref() == Some("git\\s+push"));
    assert_eq!(shell.fail, hookshot_core::FailPolicy::Closed);
    assert_eq!(shell.timeout, Duration::from_secs(5));
    assert_eq!(shell.options.cwd, None, "a project's hooks run in the project");
    let read = by("./secrets.sh");
    assert_eq!(read.matcher, MatcherSpec::Exact(vec!["Read".into()]));
    assert_eq!(
        (read.fail, read.timeout),
        (hookshot_core::FailPolicy::Open, Duration::from_secs(60))
    );
    // Only Cursor's Tab's edits: none hookshot sees.
    assert_eq!(by("./format.sh").matcher, MatcherSpec::Exact(Vec::new()));
    assert_eq!(by("./mcp.sh").matcher, MatcherSpec::Regex("^mcp__".into()));
    assert_eq!(
        by("./pre.sh").matcher,
        MatcherSpec::Exact(vec!["Shell".into(), "StrReplace".into()])
    );
    assert_eq!(by("./stop.sh").event, EventKind::AfterAgent);
    let said: Vec<String> = parsed.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        said.iter()
            .any(|w| w.contains("\"afterAgentThought\" is not one hookshot fires")),
        "{said:#?}"
    );
    assert!(
        said.iter()
            .any(|w| w.contains("did you mean \"beforeShellExecution\"") && w.contains(":9:")),
        "{said:#?}"
    );
    assert!(said.iter().any(|w| w.contains("does not match \"Write\"")), "{said:#?}");
    // A user's hooks run in ~/.cursor, where its scripts are named from.
    let parsed =
        crate::settings::parse_with(Path::new("/home/u/.cursor/hooks.json"), text, SourceKind::User, &cx).unwrap();
    assert_eq!(
        parsed.hooks[0].options.cwd.as_deref(),
        Some(Path::new("/home/u/.cursor"))
    );
    // Bad entries are errors with their place; a guard that meant to fail
    // closed is never read as open.
    let bad = r#"{"version": 1, "hooks": {"preToolUse": [{"matcher": "Shell"}, {"command": "x", "failClosed": "yes"}, {"command": "y", "matcher": "(("}]}}"#;
    let err =
        crate::settings::parse_with(Path::new("/p/.cursor/hooks.json"), bad, SourceKind::Project, &cx).unwrap_err();
    insta::assert_snapshot!(err.to_string());
}

/// Copilot CLI's own files, as it reads them (1.0.102, observed): under a
/// camelCase event each entry one hook (`bash` before `command`, `cwd`
/// from the project, `env`, `timeoutSec` or `timeout` in seconds, 30 by
/// default) of Copilot CLI's shapes, its matcher a regex the whole of its
/// own tool name must match (so `bash` guards what hookshot plans as
/// `Bash`, and `Bash` guards nothing of its own); under a Claude Code
/// event name, Claude Code's shapes, groups or flat; every hook runs as
/// Copilot CLI's, from its folder (`COPILOT_HOOK_DIR`).
#[test]
fn copilot_clis_own_files_read_as_it_reads_them() {
    let text = r#"{"version": 1, "hooks": {
        "preToolUse": [
            {"type": "command", "bash": "guard", "command": "not this", "matcher": "bash", "cwd": "sub", "env": {"A": "1"}},
            {"command": "other", "timeout": 5, "matcher": "Bash"},
            {"matcher": "edit|create", "hooks": [{"bash": "grouped"}]}
        ],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "claude shaped"}]}],
        "notification": [{"bash": "theirs"}]
    }}"#;
    let path = Path::new("/p/.github/hooks/guards.json");
    let cx = crate::settings::Context {
        dialect: Some(Dialect::Copilot),
        ..Default::default()
    };
    let parsed = crate::settings::parse_with(path, text, SourceKind::Project, &cx).unwrap();
    let hooks = &parsed.hooks;
    assert_eq!(hooks.len(), 4, "{hooks:#?}");
    let by = |cmd: &str| hooks.iter().find(|h| h.command() == Some(cmd)).unwrap();
    let guard = by("guard");
    assert_eq!(guard.dialect, Dialect::Copilot);
    assert_eq!(guard.agent(), hookshot_core::Agent::Copilot);
    assert_eq!(guard.timeout, Duration::from_secs(30));
    assert_eq!(guard.options.cwd.as_deref(), Some(Path::new("sub")));
    assert!(guard.options.env.contains(&("A".into(), "1".into())));
    assert!(
        guard
            .options
            .env
            .contains(&("COPILOT_HOOK_DIR".into(), "/p/.github/hooks".into()))
    );
    let planner_sees = |h: &HookDef, tool: &str| match &h.matcher {
        MatcherSpec::Regex(r) => regex::Regex::new(r).unwrap().is_match(tool),
        other => panic!("{other:?}"),
    };
    assert!(planner_sees(guard, "bash") && planner_sees(guard, "Bash"));
    assert!(!planner_sees(guard, "bashful"));
    let other = by("other");
    assert_eq!(other.timeout, Duration::from_secs(5));
    assert!(!planner_sees(other, "bash"), "Copilot CLI's own tool is bash");
    let grouped = by("grouped");
    assert!(planner_sees(grouped, "Edit") && planner_sees(grouped, "Write") && !planner_sees(grouped, "Bash"));
    let claude = by("claude shaped");
    assert_eq!(claude.dialect, Dialect::Claude);
    assert_eq!(claude.agent(), hookshot_core::Agent::Copilot);
    assert!(planner_sees(claude, "Bash"));
    assert!(
        parsed
            .warnings
            .iter()
            .any(|w| w.message.contains("\"notification\" is not one hookshot fires"))
    );
}

/// A timeout too small for a duration (found by the settings fuzz: jcli's
/// 8.8e-197 s) is the shortest one, never zero, in every format.
#[test]
fn a_vanishing_timeout_is_never_zero() {
    let files = [
        (
            "settings.json",
            "{\"hooks\": {\"BeforeTool\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\", \"timeout\": 1e-300}]}]}}",
        ),
        (
            "hooks.yaml",
            "pre_tool_execution:\n  - type: bash\n    command: x\n    timeout: 8.781323940062671e-197\n",
        ),
    ];
    for (name, text) in files {
        let parsed = crate::settings::parse(Path::new(name), text, SourceKind::User).unwrap();
        assert_eq!(parsed.hooks.len(), 1, "{name}");
        assert!(!parsed.hooks[0].timeout.is_zero(), "{name}");
    }
}

mod properties {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn settings() -> impl Strategy<Value = String> {
        let hook = (
            prop::sample::select(vec![
                "BeforeTool",
                "PreToolUse",
                "AfterTool",
                "SessionStart",
                "BeforeModel",
            ]),
            prop::sample::select(vec!["", "*", "write_file", "Edit|Write", "^mcp__.*", "startup"]),
            prop::sample::select(vec!["a", "b", "c"]),
            prop::option::of(prop::sample::select(vec!["n1", "n2"])),
            any::<bool>(),
        );
        prop::collection::vec(hook, 0..12).prop_map(|hooks| {
            let mut events = serde_json::Map::new();
            for (event, matcher, command, name, enabled) in hooks {
                let mut h = json!({"type": "command", "command": command, "enabled": enabled});
                if let Some(n) = name {
                    h["name"] = json!(n);
                }
                let list = events.entry(event.to_string()).or_insert_with(|| json!([]));
                list.as_array_mut()
                    .unwrap()
                    .push(json!({"matcher": matcher, "hooks": [h]}));
            }
            json!({"hooksConfig": {"enabled": true}, "hooks": events}).to_string()
        })
    }

    proptest! {
        #[test]
        fn loading_is_deterministic(text in settings()) {
            let a = parse_str("s.json", &text).unwrap();
            let b = parse_str("s.json", &text).unwrap();
            prop_assert_eq!(&a.hooks, &b.hooks);
            let src = Source::new("s.json", SourceKind::Cli);
            let ra = Registry::from_files(vec![(src.clone(), a, true)]);
            let rb = Registry::from_files(vec![(src, b, true)]);
            prop_assert_eq!(ra.hooks(), rb.hooks());
        }

        #[test]
        fn disabled_hooks_never_load(text in settings()) {
            let f = parse_str("s.json", &text).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            let enabled = v["hooks"].as_object().unwrap().values()
                .flat_map(|l| l.as_array().unwrap().iter())
                .filter(|g| g["hooks"][0]["enabled"] == json!(true))
                .count();
            prop_assert_eq!(f.hooks.len(), enabled);
        }
    }
}

#[test]
fn claude_argument_filters() {
    let m = |s: &str| compile_matcher(s, Dialect::Claude, EventKind::BeforeTool, RegexFlavour::Ecma);
    assert_eq!(
        m("Bash(git push:*)|Write(src/**)").unwrap(),
        MatcherSpec::ToolArgs(vec![
            ("Bash".into(), "git push*".into()),
            ("Write".into(), "src/**".into())
        ])
    );
    // Claude Code tests regexes anywhere in the name (`Edit.*` matches
    // NotebookEdit too); letters, digits, `_`, `-`, spaces, `,` and `|`
    // alone are a list of exact names.
    assert_eq!(
        m("Notebook(Edit|Read)").unwrap(),
        MatcherSpec::Regex("Notebook(Edit|Read)".into())
    );
    assert_eq!(
        m("mcp__gh__(create|update)_issue").unwrap(),
        MatcherSpec::Regex("mcp__gh__(create|update)_issue".into())
    );
    assert_eq!(m("Edit.*").unwrap(), MatcherSpec::Regex("Edit.*".into()));
    assert_eq!(
        m("Edit, Write | code-reviewer").unwrap(),
        MatcherSpec::Exact(vec!["Edit".into(), "Write".into(), "code-reviewer".into()])
    );
    assert_eq!(
        m("mcp__memory").unwrap(),
        MatcherSpec::Exact(vec!["mcp__memory".into()])
    );
    let file = compile_matcher(
        ".envrc|.env",
        Dialect::Claude,
        EventKind::FileChanged,
        RegexFlavour::Ecma,
    )
    .unwrap();
    assert_eq!(file, MatcherSpec::Regex(".envrc|.env".into()));
    assert!(m("Write(src/[)").unwrap_err().contains("invalid argument glob"));
}

/// Claude Code and gemini-cli match with JavaScript regular expressions,
/// Codex with the `regex` crate: each file's matchers are read as its
/// agent reads them, and a JavaScript pattern the `regex` crate reads the
/// same way stays on it (one set, linear time).
#[test]
fn matchers_are_read_with_their_agents_regex_engine() {
    let js = |s: &str| compile_matcher(s, Dialect::Claude, EventKind::BeforeTool, RegexFlavour::Ecma);
    let gemini = |s: &str| compile_matcher(s, Dialect::Gemini, EventKind::BeforeTool, RegexFlavour::Ecma);
    let codex = |s: &str| compile_matcher(s, Dialect::Claude, EventKind::BeforeTool, RegexFlavour::Rust);
    for same in [
        "^mcp__srv0__.*|Write_0",
        "Edit.*",
        "mcp__gh__(create|update)_issue",
        "^[A-Z][a-z]+$",
        "a{2,3}",
        "x\\.y",
    ] {
        assert_eq!(js(same).unwrap(), MatcherSpec::Regex(same.into()), "{same}");
    }
    for script in ["^(?!Read$).*", "\\<Bash", "(\\w)\\1", "[^]", "\\d+", "a{", "(?<n>x)"] {
        assert_eq!(js(script).unwrap(), MatcherSpec::Script(script.into()), "{script}");
        assert_eq!(gemini(script).unwrap(), MatcherSpec::Script(script.into()), "{script}");
    }
    // Codex reads a look-ahead as the `regex` crate does: it refuses it.
    assert!(codex("^(?!Read$).*").unwrap_err().contains("invalid matcher regex"));
    assert_eq!(codex("\\<Bash").unwrap(), MatcherSpec::Regex("\\<Bash".into()));
    // What JavaScript refuses is refused, with the engine's reason.
    assert!(js("(?<=a").unwrap_err().contains("invalid matcher regex"));
    // A backtracking engine can take exponential time on nested repetition.
    // (`(a+)+$` alone reads the same in the `regex` crate, which is linear.)
    assert_eq!(js("(a+)+$").unwrap(), MatcherSpec::Regex("(a+)+$".into()));
    for bad in ["(a+)+$(?!x)", "^(\\w*x?)*y(?=z)", "((ab)*c)*(?!d)"] {
        assert!(js(bad).unwrap_err().contains("exponential"), "{bad}");
    }
    assert_eq!(js("(ab)+(?!c)").unwrap(), MatcherSpec::Script("(ab)+(?!c)".into()));
    // The place of the file decides: Codex's own and what was imported from it.
    for (path, flavour) in [
        ("/h/.codex/hooks.json", RegexFlavour::Rust),
        ("/h/.config/hookshot/imported/codex.json", RegexFlavour::Rust),
        ("/h/.claude/settings.json", RegexFlavour::Ecma),
        ("/h/.config/hookshot/imported/claude.json", RegexFlavour::Ecma),
    ] {
        assert_eq!(flavour_of(Dialect::Claude, Path::new(path)), flavour, "{path}");
    }
}

/// `~/.claude.json` is read for its MCP servers only (the user's and this
/// project's), and a problem in one is still reported at its line.
#[test]
fn claude_state_yields_servers_and_places_problems() {
    let text = "{\"history\": [1, 2],\n \"projects\": {\"/p\": {\"mcpServers\": {\"local\": {\"command\": \"l\"}}},\n  \"/q\": {\"mcpServers\": {\"other\": {\"command\": \"o\"}}}},\n \"mcpServers\": {\"user\": {\"command\": \"u\", \"args\": 5}}}";
    let cx = settings::Context {
        dialect: None,
        plugin: None,
        plugin_options: Vec::new(),
        project: Some("/p".into()),
    };
    let f = settings::parse_with(Path::new("/h/.claude.json"), text, SourceKind::User, &cx).unwrap();
    let names: Vec<&str> = f.mcp_servers.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["user", "local"]);
    assert_eq!(f.warnings.len(), 1, "{:?}", f.warnings);
    assert_eq!(f.warnings[0].at.line, 4, "{}", f.warnings[0]);
}

#[test]
fn imported_files_are_read_in_their_agents_dialect_only_beside_hookshots_settings() {
    let dialect = |p: &str| Source::new(p, SourceKind::User).dialect();
    assert_eq!(
        dialect("/h/.config/hookshot/imported/claude.json"),
        Some(Dialect::Claude)
    );
    assert_eq!(dialect("/p/.hookshot/imported/gemini.json"), Some(Dialect::Gemini));
    assert_eq!(dialect("/p/.hookshot/imported/codex.json"), Some(Dialect::Claude));
    assert_eq!(dialect("/p/vendor/imported/claude.json"), None);
    assert_eq!(dialect("/p/.hookshot/imported/other.json"), None);
}

/// A key written twice drops what the first held: in hookshot's own file
/// an error naming both places, in an agent's file (which the agent reads
/// keeping the last) a warning.
#[test]
fn a_duplicate_key_is_never_silent() {
    let text =
        "{\"builtins\": {\"dangerous_confirmation\": {\"mode\": \"deny\"}},\n \"builtins\": {\"security_scan\": true}}";
    let e = errors("/etc/hookshot/settings.json", text);
    assert!(
        e.contains("settings.json:2:2") && e.contains("\"builtins\"") && e.contains("first at line 1, column 2"),
        "{e}"
    );
    let claude = "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"guard\"}]}],\n \"PreToolUse\": []}}";
    let f = parse_str("/p/.claude/settings.json", claude).unwrap();
    let notes: Vec<String> = f.warnings.iter().map(ToString::to_string).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains(":2:2") && n.contains("\"PreToolUse\" is written twice")),
        "{notes:?}"
    );
}

/// A UTF-8 byte order mark (Windows editors write one) is read past.
#[test]
fn a_byte_order_mark_is_read_past() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(
        &path,
        "\u{feff}{\"hooks\": {\"BeforeTool\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}]}}",
    )
    .unwrap();
    let s = Source::new(&path, SourceKind::User);
    let f = s.parse(s.read().unwrap()).unwrap();
    assert_eq!(f.hooks.len(), 1);
}

/// gemini-cli pastes `${extensionPath}` into command lines; a folder name
/// that a shell would read as code is refused, not pasted.
#[test]
fn an_extension_folder_that_would_be_code_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (name, ok) in [
        ("guard", true),
        ("my guard", true),
        ("x';touch PWNED;'", false),
        ("a$(id)", false),
    ] {
        let file = dir.path().join(name).join("gemini-extension.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            r#"{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "sh ${extensionPath}/x.sh"}]}]}}"#,
        )
        .unwrap();
        let s = Source::new(&file, SourceKind::Extension);
        match s.parse(s.read().unwrap()) {
            Ok(f) => {
                assert!(ok, "{name}: pasted");
                let hookshot_core::HookAction::Command { command } = &f.hooks[0].action else {
                    panic!("{:?}", f.hooks[0].action)
                };
                assert!(command.contains(name), "{command}");
            }
            Err(e) => {
                assert!(!ok, "{name}: {e}");
                assert!(e.to_string().contains("would read as code"), "{e}");
            }
        }
    }
}

/// Codex takes only `[A-Za-z0-9_|]` as a list of exact names; anything else
/// in its files is a regex (`Bash, Write` matches no tool there, and
/// `mcp__a-b__t` also matches `mcp__a-b__tool`). Claude Code's rule stays
/// for its own files.
#[test]
fn codex_matchers_are_lists_only_of_plain_names() {
    let file = |m: &str| {
        format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "{m}", "hooks": [{{"type": "command", "command": "x"}}]}}]}}}}"#
        )
    };
    let codex = |m: &str| {
        settings::parse_with(
            Path::new("/p/.codex/hooks.json"),
            &file(m),
            SourceKind::Project,
            &settings::Context {
                dialect: Some(hookshot_core::Dialect::Claude),
                ..settings::Context::default()
            },
        )
        .unwrap()
        .hooks[0]
            .matcher
            .clone()
    };
    let claude = |m: &str| {
        parse_str("/p/.claude/settings.json", &file(m)).unwrap().hooks[0]
            .matcher
            .clone()
    };
    assert_eq!(
        codex("Bash|Write"),
        MatcherSpec::Exact(vec!["Bash".into(), "Write".into()])
    );
    assert_eq!(codex("Bash, Write"), MatcherSpec::Regex("Bash, Write".into()));
    assert_eq!(codex("mcp__a-b__t"), MatcherSpec::Regex("mcp__a-b__t".into()));
    assert_eq!(
        claude("Bash, Write"),
        MatcherSpec::Exact(vec!["Bash".into(), "Write".into()])
    );
    assert_eq!(claude("mcp__a-b__t"), MatcherSpec::Exact(vec!["mcp__a-b__t".into()]));
}

#[test]
fn a_claude_mcp_tool_hook_blocks_on_failure_for_any_value_but_continue() {
    // Claude Code 2.1.332 maps every `onFailure` of an mcp_tool hook other
    // than "continue" to "block": such a file is a guard, never an error.
    let file = |on: &str, kind: &str| {
        let handler = if kind == "mcp_tool" {
            format!(r#"{{"type": "mcp_tool", "server": "s", "tool": "t", "onFailure": {on}}}"#)
        } else {
            format!(r#"{{"type": "command", "command": "x", "onFailure": {on}}}"#)
        };
        format!(r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [{handler}]}}]}}}}"#)
    };
    for (on, fail) in [
        (r#""continue""#, FailPolicy::Open),
        (r#""block""#, FailPolicy::Closed),
        (r#""stop""#, FailPolicy::Closed),
        ("true", FailPolicy::Closed),
    ] {
        let f = parse_str("/p/.claude/settings.json", &file(on, "mcp_tool")).unwrap();
        assert_eq!(f.hooks[0].fail, fail, "{on}");
    }
    // A command hook's value is still checked.
    assert!(errors("/p/.claude/settings.json", &file(r#""stop""#, "command")).contains("onFailure"));
}

#[test]
fn a_codex_config_gives_its_mcp_tool_hooks_their_servers() {
    // Codex's own `[mcp_servers.NAME]` tables are the servers an mcp_tool
    // hook in its `[hooks]` calls; Codex's other keys are its own.
    let text = "model = \"x\"\n\n[mcp_servers.guard]\ncommand = \"node\"\nargs = [\"guard.js\"]\nstartup_timeout_sec = 10\n\n[mcp_servers.broken]\ncommand = 5\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"mcp_tool\"\nserver = \"guard\"\ntool = \"check\"\n";
    let cx = settings::Context {
        dialect: Some(hookshot_core::Dialect::Claude),
        ..settings::Context::default()
    };
    let f = settings::parse_with(Path::new("/p/.codex/config.toml"), text, SourceKind::Project, &cx).unwrap();
    let names: Vec<&str> = f.mcp_servers.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["broken", "guard"]);
    assert_eq!(f.hooks.len(), 1);
    // A bad server is named at its own line.
    assert_eq!(f.warnings.len(), 1, "{:?}", f.warnings);
    assert_eq!(f.warnings[0].at.line, 8, "{}", f.warnings[0]);
}

/// Qwen Code 0.24.4 (its hooks reference and bundle): a list of names is
/// compared exactly, else searched as an unanchored regex of its trimmed
/// entries; `^…` and `(…` are only a regex; a stray `|` adds nothing and
/// `|` alone matches nothing. Its command timeouts count seconds, 60 by
/// default, and 1000 or more milliseconds.
#[test]
fn qwen_code_matchers_search_and_its_timeouts_count_seconds() {
    use settings::searched_matcher;
    let q = |s: &str| searched_matcher(s, RegexFlavour::Ecma).unwrap();
    assert_eq!(q("run"), MatcherSpec::Regex("run".into()));
    assert_eq!(q(" write_file | edit "), MatcherSpec::Regex("write_file|edit".into()));
    assert_eq!(q("read_(file|edit)|"), MatcherSpec::Regex("read_(file|edit)".into()));
    assert_eq!(q("^write_file|"), MatcherSpec::Regex("^write_file|".into()));
    assert_eq!(q("notes\\|todo\\.md"), MatcherSpec::Regex("notes\\|todo\\.md".into()));
    assert_eq!(q("|"), MatcherSpec::Exact(Vec::new()));
    for all in ["", "*", ".*", "Bash | *"] {
        assert_eq!(q(all), MatcherSpec::Any, "{all}");
    }
    let text = r#"{"hooks": {"PreToolUse": [
        {"matcher": "run", "hooks": [{"type": "command", "command": "a"}]},
        {"hooks": [{"type": "command", "command": "b", "timeout": 5}]},
        {"hooks": [{"type": "command", "command": "c", "timeout": 30000}]}]}}"#;
    let f = parse(Path::new("/p/.qwen/settings.json"), text, SourceKind::Project).unwrap();
    assert_eq!(f.hooks[0].matcher, MatcherSpec::Regex("run".into()));
    let secs: Vec<u64> = f.hooks.iter().map(|h| h.timeout.as_secs()).collect();
    assert_eq!(secs, [60, 5, 30]);
}
