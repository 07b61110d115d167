//! Property-based fuzzing of the two parsers that read untrusted input: a
//! hook's output and a settings file. Neither may panic on any input, and
//! the settings parser must either accept a file or name a position in it.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hookshot_core::*;
use proptest::prelude::*;
use serde_json::Value;

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
    Arc::new(HookDef {
        identity: "fuzz".into(),
        name: None,
        event: EventKind::BeforeTool,
        dialect: Dialect::Gemini,
        matcher: MatcherSpec::Any,
        model_prefix: None,
        action: HookAction::Command { command: "fuzz".into() },
        timeout: Duration::from_secs(1),
        sequential: false,
        fail: FailPolicy::Open,
        retry: 0,
        source: SourceKind::Cli,
        provenance: Provenance::default(),
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
