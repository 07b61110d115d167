//! `explain` promises to say exactly what `fire` runs. Generated settings
//! (matchers of every shape, sequential groups, duplicates, `if` rules,
//! disabled hooks, the dangerous-command guard, blocks) are fired for
//! several tools, and the hooks that ran are compared with the hooks
//! `explain` said would run, phase by phase.

use std::collections::BTreeSet;

use hookshot::{EventKind, HookSystem, Phase, Why};
use hookshot_integration_tests::Project;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// One generated hook: its matcher, whether it blocks, its group's
/// `sequential`, an `if` rule, `enabled`.
fn hook_def() -> impl Strategy<Value = Value> {
    let matcher = prop::sample::select(vec![
        "",
        "*",
        "run_shell_command",
        "write_file|replace",
        "^run_.*",
        ".*_file$",
        "mcp__srv__.*",
        "read_file",
        "(?i)WRITE_FILE",
    ]);
    (matcher, any::<bool>(), any::<bool>(), 0..6usize, 0..4u8).prop_map(|(m, sequential, blocks, n, extra)| {
        // Distinct commands are distinct hooks; the same command twice is
        // one hook (a duplicate explain must name).
        let command = if blocks && n == 0 {
            "cat >/dev/null; echo 'no' >&2; exit 2".to_string()
        } else {
            format!("cat >/dev/null; true # {}", n % 4)
        };
        let mut hook = json!({"type": "command", "command": command, "name": format!("h{n}")});
        if extra == 1 {
            hook["enabled"] = json!(false);
        }
        let mut group = json!({"hooks": [hook], "sequential": sequential});
        if !m.is_empty() {
            group["matcher"] = json!(m);
        }
        group
    })
}

fn settings() -> impl Strategy<Value = Value> {
    (prop::collection::vec(hook_def(), 0..7), any::<bool>()).prop_map(|(groups, guard)| {
        let mut s = json!({"hooks": {"BeforeTool": groups}});
        if guard {
            s["builtins"] = json!({"dangerous_confirmation": {"mode": "deny"}});
        }
        s
    })
}

fn input(tool: &str, command: &str) -> Map<String, Value> {
    json!({"session_id": "s", "tool_name": tool,
        "tool_input": {"command": command, "file_path": "a.txt"}})
    .as_object()
    .unwrap()
    .clone()
}

/// The hooks explain says run in `phase`, by identity.
fn said(h: &HookSystem, input: &Map<String, Value>, phases: &[Phase]) -> BTreeSet<String> {
    h.explain(EventKind::BeforeTool, input)
        .hooks
        .iter()
        .filter(|e| matches!(&e.why, Why::Runs { phase, .. } if phases.contains(phase)))
        .map(|e| e.hook.identity.clone())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn what_explain_says_runs_is_what_fire_runs(s in settings()) {
        let p = Project::new(&s);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let h = p.hooks();
        for (tool, command) in [
            ("run_shell_command", "ls"),
            ("run_shell_command", "rm -rf /"),
            ("write_file", "x"),
            ("read_file", "x"),
            ("mcp__srv__query", "x"),
        ] {
            let input = input(tool, command);
            let first = said(&h, &input, &[Phase::Now]);
            let guards = said(&h, &input, &[Phase::Guard]);
            let outcome = rt.block_on(h.fire(EventKind::BeforeTool, input.clone()));
            let ran: BTreeSet<String> = outcome.records.iter().map(|r| r.hook.identity.clone()).collect();
            // The first phase always runs; the guards run unless it blocked.
            let first_blocked = outcome
                .records
                .iter()
                .filter(|r| first.contains(&r.hook.identity))
                .any(|r| r.output.decision.is_block());
            let expected: BTreeSet<String> = if first_blocked {
                first.clone()
            } else {
                first.union(&guards).cloned().collect()
            };
            prop_assert_eq!(&ran, &expected, "{}: explain said {:?} then guards {:?}\n{}", tool, first, guards, s);
        }
    }
}
