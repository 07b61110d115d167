use std::collections::BTreeSet;

use hookshot_core::{Dialect, Outcome};
use proptest::prelude::{Strategy as Gen, any, prop, prop_assert_eq, prop_assume, proptest};
use serde_json::json;

use super::Strategy;
use super::*;

fn out(v: Value) -> HookOutput {
    HookOutput::from_json(v.as_object().unwrap())
}

fn outcome(event: EventKind, outputs: &[HookOutput]) -> Outcome {
    let refs: Vec<&HookOutput> = outputs.iter().collect();
    Outcome {
        event,
        output: merge(Strategy::of(event), &refs),
        warnings: vec![],
        records: vec![],
    }
}

#[test]
fn block_wins_and_keeps_only_block_reasons() {
    let o = outcome(
        EventKind::BeforeTool,
        &[
            out(json!({"decision": "allow", "reason": "fine", "systemMessage": "one"})),
            out(json!({"decision": "block", "reason": "no writes"})),
            out(json!({"decision": "deny", "reason": "not here", "systemMessage": "two"})),
        ],
    );
    insta::assert_json_snapshot!("before_tool_block_gemini", o.render(Dialect::Gemini));
    insta::assert_json_snapshot!("before_tool_block_claude", o.render(Dialect::Claude));
    insta::assert_json_snapshot!("before_tool_block_jcli", o.render(Dialect::Jcli));
}

#[test]
fn stop_and_contexts_are_never_lost() {
    let o = outcome(
        EventKind::AfterTool,
        &[
            out(json!({"hookSpecificOutput": {"additionalContext": "a"}})),
            out(
                json!({"continue": false, "stopReason": "enough", "hookSpecificOutput": {"additionalContext": "b",
            "tailToolCallRequest": {"name": "read_file", "args": {"file_path": "x"}}}}),
            ),
        ],
    );
    insta::assert_json_snapshot!("after_tool_stop_gemini", o.render(Dialect::Gemini));
}

#[test]
fn later_model_edit_overrides_field_by_field() {
    let o = outcome(
        EventKind::BeforeModel,
        &[
            out(
                json!({"hookSpecificOutput": {"llm_request": {"messages": [{"role": "user", "content": "edited"}], "config": {"temperature": 0.1}}}}),
            ),
            out(json!({"hookSpecificOutput": {"llm_request": {"config": {"temperature": 0.9, "topK": 3}}}})),
        ],
    );
    let req = o.output.llm_request.unwrap();
    assert_eq!(req["messages"][0]["content"], "edited");
    assert_eq!(req["config"], json!({"temperature": 0.9, "topK": 3}));
}

#[test]
fn tool_selection_union_and_mode_order() {
    let o = outcome(
        EventKind::BeforeToolSelection,
        &[
            out(json!({"hookSpecificOutput": {"toolConfig": {"mode": "AUTO", "allowedFunctionNames": ["a"]}}})),
            out(json!({"hookSpecificOutput": {"toolConfig": {"mode": "ANY", "allowedFunctionNames": ["b", "a"]}}})),
        ],
    );
    assert_eq!(
        o.output.tool_config.unwrap(),
        json!({"mode": "ANY", "allowedFunctionNames": ["a", "b"]})
    );
    let o = outcome(
        EventKind::BeforeToolSelection,
        &[
            out(json!({"hookSpecificOutput": {"toolConfig": {"mode": "ANY", "allowedFunctionNames": ["a"]}}})),
            out(json!({"hookSpecificOutput": {"toolConfig": {"mode": "NONE"}}})),
        ],
    );
    assert_eq!(
        o.output.tool_config.unwrap(),
        json!({"mode": "NONE", "allowedFunctionNames": []})
    );
}

#[test]
fn chain_feeds_tool_input_and_prompt_forward() {
    let mut input = json!({"tool_input": {"file_path": "a", "content": "x"}, "prompt": "p"})
        .as_object()
        .unwrap()
        .clone();
    chain(
        EventKind::BeforeTool,
        &mut input,
        &out(json!({"hookSpecificOutput": {"tool_input": {"file_path": "b"}}})),
    );
    assert_eq!(input["tool_input"], json!({"file_path": "b", "content": "x"}));
    chain(
        EventKind::BeforeAgent,
        &mut input,
        &out(json!({"hookSpecificOutput": {"additionalContext": "ctx"}})),
    );
    assert_eq!(input["prompt"], "p\n\nctx");
}

fn any_output() -> impl Gen<Value = HookOutput> {
    (
        prop::sample::select(vec!["allow", "block", "deny", "ask", "", "approve"]),
        prop::option::of("[a-z]{1,6}"),
        prop::option::of("[a-z]{1,6}"),
        prop::option::of(prop::collection::btree_map("[a-c]", 0i32..5, 0..3)),
    )
        .prop_map(|(d, reason, msg, edit)| {
            let mut v = json!({});
            if !d.is_empty() {
                v["decision"] = json!(d);
            }
            if let Some(r) = reason {
                v["reason"] = json!(r);
            }
            if let Some(m) = msg {
                v["systemMessage"] = json!(m);
            }
            if let Some(e) = edit {
                v["hookSpecificOutput"] = json!({"llm_request": {"config": e}, "tool_input": e});
            }
            out(v)
        })
}

proptest! {
    #[test]
    fn any_block_blocks_whatever_the_order(mut outs in prop::collection::vec(any_output(), 1..8), seed in any::<u64>()) {
        let refs: Vec<&HookOutput> = outs.iter().collect();
        let a = merge(Strategy::Decisions, &refs);
        let blocked = outs.iter().any(|o| o.decision == Decision::Block);
        prop_assert_eq!(a.decision.is_block(), blocked);
        // Same set of block reasons in any order.
        let n = outs.len();
        outs.rotate_left((seed as usize) % n);
        let refs: Vec<&HookOutput> = outs.iter().collect();
        let b = merge(Strategy::Decisions, &refs);
        let set = |o: &HookOutput| o.reason.clone().unwrap_or_default().split('\n').map(String::from).collect::<BTreeSet<_>>();
        prop_assert_eq!(a.decision, b.decision);
        prop_assert_eq!(set(&a), set(&b));
    }

    #[test]
    fn allow_only_is_idempotent(o in any_output()) {
        prop_assume!(o.decision != Decision::Block);
        let once = merge(Strategy::Decisions, &[&o]);
        let twice = merge(Strategy::Decisions, &[&once]);
        prop_assert_eq!(once, twice);
    }

    #[test]
    fn model_edits_last_writer_per_field_wins(outs in prop::collection::vec(any_output(), 1..6)) {
        let refs: Vec<&HookOutput> = outs.iter().collect();
        let m = merge(Strategy::ModelEdits, &refs);
        for key in ["a", "b", "c"] {
            let expected = outs.iter().rev().find_map(|o| o.llm_request.as_ref().and_then(|r| r["config"].get(key)).cloned());
            let got = m.llm_request.as_ref().and_then(|r| r["config"].get(key)).cloned();
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn tool_selection_union_is_commutative(a in prop::collection::vec("[a-d]", 0..4), b in prop::collection::vec("[a-d]", 0..4),
                                         ma in prop::sample::select(vec!["AUTO", "ANY", "NONE"]), mb in prop::sample::select(vec!["AUTO", "ANY", "NONE"])) {
        let x = out(json!({"hookSpecificOutput": {"toolConfig": {"mode": ma, "allowedFunctionNames": a}}}));
        let y = out(json!({"hookSpecificOutput": {"toolConfig": {"mode": mb, "allowedFunctionNames": b}}}));
        let names = |o: &HookOutput| {
            let tc = o.tool_config.clone().unwrap();
            (tc["mode"].clone(), tc.get("allowedFunctionNames").and_then(Value::as_array).map(|v| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>()))
        };
        prop_assert_eq!(names(&merge(Strategy::ToolSelection, &[&x, &y])), names(&merge(Strategy::ToolSelection, &[&y, &x])));
    }

    #[test]
    fn chaining_equals_folding_overlays(outs in prop::collection::vec(any_output(), 0..6)) {
        let mut input = json!({"tool_input": {"a": -1, "z": 9}}).as_object().unwrap().clone();
        for o in &outs {
            chain(EventKind::BeforeTool, &mut input, o);
        }
        let refs: Vec<&HookOutput> = outs.iter().collect();
        let merged = merge(Strategy::Decisions, &refs);
        let mut folded = json!({"a": -1, "z": 9}).as_object().unwrap().clone();
        folded.extend(merged.tool_input.unwrap_or_default());
        prop_assert_eq!(Value::Object(folded), input["tool_input"].clone());
    }
}

/// One row per rule: the event, the hooks' answers in plan order, and the
/// merged answer as each dialect writes it.
#[test]
fn every_rule_in_every_dialect() {
    let rows: Vec<(&str, EventKind, Vec<Value>)> = vec![
        (
            "deny beats ask beats allow",
            EventKind::BeforeTool,
            vec![
                json!({"decision": "allow"}),
                json!({"decision": "ask", "reason": "confirm"}),
                json!({"decision": "deny", "reason": "no"}),
            ],
        ),
        (
            "ask beats allow",
            EventKind::BeforeTool,
            vec![
                json!({"decision": "allow"}),
                json!({"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}),
            ],
        ),
        (
            "block reasons joined in plan order",
            EventKind::AfterTool,
            vec![
                json!({"decision": "block", "reason": "first"}),
                json!({"decision": "block", "reason": "second"}),
            ],
        ),
        (
            "continue false stops with its reason",
            EventKind::BeforeAgent,
            vec![
                json!({"decision": "allow"}),
                json!({"continue": false, "stopReason": "quota reached"}),
            ],
        ),
        (
            "messages and contexts concatenated",
            EventKind::SessionStart,
            vec![
                json!({"systemMessage": "a", "hookSpecificOutput": {"additionalContext": "ctx 1"}}),
                json!({"systemMessage": "b", "hookSpecificOutput": {"additionalContext": "ctx 2"}}),
            ],
        ),
        (
            "suppressOutput if any",
            EventKind::AfterTool,
            vec![json!({"suppressOutput": true}), json!({})],
        ),
        (
            "tool input overlays, later field wins",
            EventKind::BeforeTool,
            vec![
                json!({"hookSpecificOutput": {"tool_input": {"file_path": "a", "content": "x"}}}),
                json!({"hookSpecificOutput": {"updatedInput": {"file_path": "b"}}}),
            ],
        ),
        (
            "model request edits merge field by field",
            EventKind::BeforeModel,
            vec![
                json!({"hookSpecificOutput": {"llm_request": {"messages": [{"role": "user", "content": "edited"}]}}}),
                json!({"hookSpecificOutput": {"llm_request": {"config": {"temperature": 0.2}}}}),
            ],
        ),
        (
            "synthetic model response",
            EventKind::BeforeModel,
            vec![
                json!({"hookSpecificOutput": {"llm_response": {"candidates": [{"content": {"role": "model", "parts": ["cached"]}}]}}}),
            ],
        ),
        (
            "tool selection: union, NONE > ANY > AUTO",
            EventKind::BeforeToolSelection,
            vec![
                json!({"hookSpecificOutput": {"toolConfig": {"mode": "AUTO", "allowedFunctionNames": ["read_file"]}}}),
                json!({"hookSpecificOutput": {"toolConfig": {"mode": "ANY", "allowedFunctionNames": ["list_directory"]}}}),
            ],
        ),
        (
            "after-agent block with clearContext",
            EventKind::AfterAgent,
            vec![json!({"decision": "block", "reason": "add tests", "hookSpecificOutput": {"clearContext": true}})],
        ),
        (
            "tail tool call, last wins",
            EventKind::AfterTool,
            vec![
                json!({"hookSpecificOutput": {"tailToolCallRequest": {"name": "read_file", "args": {"file_path": "a"}}}}),
                json!({"hookSpecificOutput": {"tailToolCallRequest": {"name": "list_directory", "args": {"path": "."}}}}),
            ],
        ),
        (
            "picoclaw respond supplies the result",
            EventKind::BeforeTool,
            vec![json!({"action": "respond", "result": {"for_llm": "from the hook"}})],
        ),
        (
            "picoclaw deny_tool",
            EventKind::BeforeTool,
            vec![json!({"action": "deny_tool", "reason": "not this tool"})],
        ),
        (
            "picoclaw abort_turn stops",
            EventKind::BeforeTool,
            vec![json!({"action": "abort_turn", "reason": "abort"})],
        ),
        (
            "picoclaw approval refused",
            EventKind::PermissionRequest,
            vec![json!({"approved": false, "reason": "unsafe"})],
        ),
        (
            "jcli skip with feedback",
            EventKind::BeforeTool,
            vec![json!({"action": "skip", "retry_feedback": "use the API"})],
        ),
        (
            "jcli stop retry_feedback on stop",
            EventKind::AfterAgent,
            vec![
                json!({"action": "stop", "retry_feedback": "summarize"}),
                json!({"system_message": "reviewed"}),
            ],
        ),
        (
            "jcli inject_messages and additional_context",
            EventKind::BeforeModel,
            vec![
                json!({"inject_messages": [{"role": "user", "content": "note"}], "additional_context": "rule 1"}),
                json!({"inject_messages": [{"role": "user", "content": "note 2"}]}),
            ],
        ),
        (
            "jcli user_input replaces the prompt",
            EventKind::BeforeAgent,
            vec![json!({"user_input": "[10:00] hello"})],
        ),
        (
            "blocking a notification is only a message",
            EventKind::Notification,
            vec![json!({"decision": "block", "reason": "ignored", "systemMessage": "seen"})],
        ),
    ];
    let mut table = Vec::new();
    for (rule, event, answers) in rows {
        let outputs: Vec<HookOutput> = answers.into_iter().map(out).collect();
        let refs: Vec<&HookOutput> = outputs.iter().collect();
        let mut merged = merge(Strategy::of(event), &refs);
        if !event.can_block() && merged.decision.is_block() {
            merged.decision = Decision::Undecided;
        }
        let o = Outcome {
            event,
            output: merged,
            warnings: vec![],
            records: vec![],
        };
        table.push(json!({
            "rule": rule,
            "event": event.canonical_name(),
            "gemini": o.render(Dialect::Gemini),
            "claude": o.render(Dialect::Claude),
            "jcli": o.render(Dialect::Jcli),
        }));
    }
    insta::assert_json_snapshot!("every_rule_in_every_dialect", table);
}
