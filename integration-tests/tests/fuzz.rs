//! Property-based fuzzing of the two parsers that read untrusted input: a
//! hook's output and a settings file. Neither may panic on any input, and
//! the settings parser must either accept a file or name a position in it.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hookshot_core::*;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Keys that reach deep into both parsers.
const KEYS: &[&str] = &[
    "hooks",
    "hooksConfig",
    "enabled",
    "disabled",
    "builtins",
    "matcher",
    "sequential",
    "type",
    "command",
    "timeout",
    "name",
    "fail",
    "retry",
    "filter",
    "tool_name",
    "tool_matcher",
    "model_prefix",
    "on_error",
    "BeforeTool",
    "PreToolUse",
    "pre_tool_execution",
    "stop",
    "SessionStart",
    "decision",
    "reason",
    "continue",
    "stopReason",
    "systemMessage",
    "hookSpecificOutput",
    "permissionDecision",
    "updatedInput",
    "tool_input",
    "llm_request",
    "llm_response",
    "toolConfig",
    "tailToolCallRequest",
    "args",
    "action",
    "retry_feedback",
    "tool_arguments",
    "inject_messages",
    "messages",
    "assistant_output",
    "audit_log",
    "dangerous_confirmation",
    "security_scan",
    "mode",
    "path",
    "patterns",
    "processes",
    "disableAllHooks",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        prop::sample::select(vec![
            "command", "block", "deny", "ask", "allow", "stop", "skip", "(", "*", "a|b", "^x.*", ""
        ])
        .prop_map(|s| Value::String(s.into())),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS.to_vec()), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

fn hook() -> Arc<HookDef> {
    let command = HookAction::Command { command: "fuzz".into() };
    Arc::new(HookDef {
        timeout: Duration::from_secs(1),
        ..HookDef::new("fuzz", EventKind::BeforeTool, command)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn hook_output_reader_never_panics(v in json_value(), code in prop::option::of(-3i32..300), stderr in ".{0,40}") {
        if let Value::Object(m) = &v {
            let _ = HookOutput::from_json(m);
        }
        let captured = Captured {
            exit: Exit { code, ..Exit::default() },
            stdout: v.to_string(),
            stderr,
            ..Captured::default()
        };
        let r = HookRecord::interpret(hook(), captured);
        // Exit 2 always blocks, whatever was printed.
        if code == Some(2) {
            prop_assert!(r.output.decision.is_block());
        }
        let o = hookshot_aggregator::aggregate(EventKind::BeforeTool, vec![r]);
        for d in Dialect::ALL {
            let _ = o.render(d);
        }
    }

    #[test]
    fn arbitrary_bytes_as_hook_stdout_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let captured = Captured {
            exit: Exit { code: Some(0), ..Exit::default() },
            stdout: String::from_utf8_lossy(&bytes).into_owned(),
            ..Captured::default()
        };
        let _ = HookRecord::interpret(hook(), captured);
    }

    #[test]
    fn settings_parser_accepts_or_names_a_position(v in json_value()) {
        let text = serde_json::to_string_pretty(&v).unwrap();
        match hookshot_registry::parse(Path::new("fuzz.json"), &text, SourceKind::Cli) {
            Ok(_) => {}
            Err(e) => {
                for d in e.diagnostics() {
                    prop_assert!(d.at.line >= 1 && d.at.column >= 1, "{}", d);
                    prop_assert!(d.to_string().starts_with("fuzz.json:"), "{}", d);
                }
            }
        }
    }

    #[test]
    fn settings_parser_survives_arbitrary_text(text in ".{0,300}", yaml in any::<bool>()) {
        let name = if yaml { "hooks.yaml" } else { "settings.json" };
        let _ = hookshot_registry::parse(Path::new(name), &text, SourceKind::Cli);
    }
}

#[test]
fn yaml_that_mirrors_the_fuzzed_json_also_parses() {
    // A smoke check that the YAML front end takes JSON (JSON is YAML).
    let text = r#"{"pre_tool_execution": [{"command": "x", "filter": {"tool_name": "Bash"}}]}"#;
    let f = hookshot_registry::parse(Path::new("hooks.yaml"), text, SourceKind::Cli).unwrap();
    assert_eq!(f.hooks.len(), 1);
}

/// Values meant to break a field: extremes of every JSON type, and the
/// values a field of another type would hold.
fn hostile() -> impl Strategy<Value = Value> {
    let special = prop::sample::select(vec![
        json!(1e300),
        json!(-1e300),
        json!(1e-300),
        json!(0),
        json!(-1),
        json!(0.5),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(86_400_001),
        json!(""),
        json!(" "),
        json!("5s"),
        json!("closed"),
        json!("block"),
        json!("(unclosed"),
        json!("Bash(git push:*)"),
        json!("*"),
        json!(true),
        json!(null),
        json!([]),
        json!(["deny"]),
        json!({}),
        json!({"x": 1}),
    ]);
    prop_oneof![
        3 => special,
        1 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => ".{0,8}".prop_map(Value::String),
    ]
}

/// A settings file of `dialect` whose every field (numbers and strings
/// alike) holds a [`hostile`] value, so each field's validation is reached:
/// random JSON almost never builds the nesting a `timeout` sits in.
fn shaped_settings(dialect: usize, v: Vec<Value>) -> Value {
    let mut v = v.into_iter();
    let mut n = || v.next().unwrap_or(Value::Null);
    match dialect {
        0 => json!({"hooksConfig": {"enabled": n(), "disabled": n(), "onFailure": n()},
            "builtins": {"audit_log": {"path": n(), "max_bytes": n(), "keep": n(), "enabled": n()},
                "dangerous_confirmation": {"mode": n(), "patterns": n()}, "security_scan": {"mode": n()}},
            "hooks": {"BeforeTool": [{"matcher": n(), "sequential": n(), "hooks": [
                {"type": "command", "command": n(), "name": n(), "timeout": n(), "fail": n(),
                 "retry": n(), "enabled": n(), "description": n()}]}]}}),
        1 => json!({"disableAllHooks": n(), "hooks": {"PreToolUse": [{"matcher": n(), "hooks": [
                {"type": "command", "command": n(), "timeout": n(), "onFailure": n(), "statusMessage": n()},
                {"type": "prompt", "prompt": n(), "model": n(), "timeout": n()}]}],
            "SessionStart": [{"matcher": n(), "hooks": [{"type": n(), "command": n(), "timeout": n()}]}]}}),
        2 => json!({"hooks": {"enabled": n(), "defaults": {"observer_timeout_ms": n(),
                "interceptor_timeout_ms": n(), "approval_timeout_ms": n()},
            "processes": {"p": {"enabled": n(), "priority": n(), "transport": n(), "command": n(),
                "dir": n(), "env": n(), "observe": n(), "intercept": n()}}}}),
        _ => json!({"pre_tool_execution": [{"type": n(), "command": n(), "prompt": n(), "model": n(),
                "timeout": n(), "on_error": n(), "retry": n(), "name": n(), "enabled": n(),
                "filter": {"tool_name": n(), "tool_matcher": n(), "model_prefix": n()}}]}),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn every_field_of_every_dialect_is_validated(
        dialect in 0usize..4,
        values in prop::collection::vec(hostile(), 32),
        yaml in any::<bool>(),
    ) {
        let text = serde_json::to_string_pretty(&shaped_settings(dialect, values)).unwrap();
        // JSON is YAML: the jcli front end reads the same text.
        let name = if yaml { "hooks.yaml" } else { "settings.json" };
        match hookshot_registry::parse(Path::new(name), &text, SourceKind::Cli) {
            Ok(f) => {
                for h in &f.hooks {
                    prop_assert!(!h.timeout.is_zero(), "{text}");
                    prop_assert!(h.timeout.as_secs() <= hookshot_registry::MAX_TIMEOUT_SECS, "{text}");
                }
            }
            Err(e) => {
                for d in e.diagnostics() {
                    prop_assert!(d.at.line >= 1, "{d}");
                    prop_assert!(d.to_string().starts_with(name), "{d}");
                }
            }
        }
    }
}
