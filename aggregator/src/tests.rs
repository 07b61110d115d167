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
