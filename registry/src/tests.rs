use std::path::Path;

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
  "AfterTool": [{"matcher": "(", "hooks": [{"type": "command"}]}]
}}"#;
    let msg = errors("bad.json", text);
    assert!(
        msg.contains("bad.json:2:3: /hooks/BeforTool: unknown event \"BeforTool\"; did you mean \"BeforeTool\"?"),
        "{msg}"
    );
    assert!(
        msg.contains("bad.json:3:29: /hooks/AfterTool/0/matcher: invalid matcher regex"),
        "{msg}"
    );
    assert!(msg.contains("missing \"command\""), "{msg}");
}

#[test]
fn later_sources_override_enabled() {
    let a = parse_str("a.json", r#"{"hooksConfig": {"enabled": true}, "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "a"}]}]}}"#).unwrap();
    let b = parse_str("b.json", r#"{"hooksConfig": {"enabled": false}}"#).unwrap();
    let src = |p: &str| Source {
        path: p.into(),
        kind: SourceKind::Cli,
    };
    let reg = Registry::from_files(vec![(src("a.json"), a.clone(), true), (src("b.json"), b, true)]);
    assert!(reg.hooks().is_empty());
    assert_eq!(reg.skipped()[0].1, Skipped::Disabled);
    let reg = Registry::from_files(vec![(src("a.json"), a, false)]);
    assert_eq!(reg.skipped()[0].1, Skipped::Untrusted);
}

#[test]
fn disabled_list_removes_by_name_or_command() {
    let f = parse_str(
        "a.json",
        r#"{"hooksConfig": {"disabled": ["x"]}, "hooks": {"BeforeTool": [{"hooks": [
            {"type": "command", "command": "x"}, {"type": "command", "command": "y", "name": "named"}]}]}}"#,
    )
    .unwrap();
    let reg = Registry::from_files(vec![(
        Source {
            path: "a.json".into(),
            kind: SourceKind::Cli,
        },
        f,
        true,
    )]);
    assert_eq!(reg.hooks().len(), 1);
    assert_eq!(reg.hooks()[0].label(), "named");
}
