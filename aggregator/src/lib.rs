//! hookshot aggregator: many hook answers become the one decision the agent
//! acts on.
//!
//! Rules common to every event (applied in plan order):
//! - decision: block > ask > allow > defer; the reasons kept are those of the
//!   hooks that gave the winning decision, joined by newlines;
//! - `continue: false` anywhere stops the agent (stop reasons joined);
//! - system messages and additional context are joined, never lost;
//! - `suppressOutput` and `clearContext` hold if any hook set them;
//! - a tool-input overlay from a later hook overrides an earlier one field by
//!   field; for tool results, tail calls and prompts the last one wins.
//!
//! Per event family, on top of that ([`Strategy`]):
//! - [`Strategy::ModelEdits`] (BeforeModel, AfterModel): `llm_request` and
//!   `llm_response` edits are deep-merged, later hooks winning field by field,
//!   so one hook's temperature change does not erase another's messages;
//! - [`Strategy::ToolSelection`] (BeforeToolSelection): allowed function
//!   names are the union, and mode NONE > ANY > AUTO.
//!
//! [`chain`] is the rule for sequential plans: what one hook changed is what
//! the next one receives.

use hookshot_core::{Decision, EventKind, HookOutput, HookRecord, Outcome};
use serde_json::{Map, Value};

/// How the outputs of one event family merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Decisions, messages and overlays (tool, agent, session events).
    Decisions,
    /// Decisions plus field-by-field model edits.
    ModelEdits,
    /// Decisions plus the tool-selection union.
    ToolSelection,
}

impl Strategy {
    /// The strategy of an event.
    pub fn of(event: EventKind) -> Strategy {
        match event {
            EventKind::BeforeModel | EventKind::AfterModel => Strategy::ModelEdits,
            EventKind::BeforeToolSelection => Strategy::ToolSelection,
            _ => Strategy::Decisions,
        }
    }
}

/// Merges the records of one event (in plan order) into its outcome.
pub fn aggregate(event: EventKind, records: Vec<HookRecord>) -> Outcome {
    let outputs: Vec<&HookOutput> = records.iter().map(|r| &r.output).collect();
    let mut output = merge(Strategy::of(event), &outputs);
    if !event.can_block() && output.decision.is_block() {
        // Blocking is meaningless here (gemini ignores it too); keep the
        // reason visible as a message rather than pretending to block.
        output.decision = Decision::Undecided;
    }
    let warnings = records.iter().filter_map(HookRecord::warning).collect();
    Outcome {
        event,
        output,
        warnings,
        records,
    }
}

fn join(parts: Vec<&str>) -> Option<String> {
    if parts.is_empty() { None } else { Some(parts.join("\n")) }
}

/// Merges outputs given in plan order.
pub fn merge(strategy: Strategy, outputs: &[&HookOutput]) -> HookOutput {
    let decision = outputs.iter().map(|o| o.decision).max().unwrap_or_default();
    let winning: Vec<&str> = outputs
        .iter()
        .filter(|o| o.decision == decision)
        .filter_map(|o| o.reason.as_deref())
        .collect();
    let reason = if winning.is_empty() {
        join(outputs.iter().filter_map(|o| o.reason.as_deref()).collect())
    } else {
        join(winning)
    };
    let mut m = HookOutput {
        decision,
        reason,
        stop: outputs.iter().any(|o| o.stop),
        stop_reason: join(
            outputs
                .iter()
                .filter(|o| o.stop)
                .filter_map(|o| o.stop_reason.as_deref())
                .collect(),
        ),
        system_message: join(outputs.iter().filter_map(|o| o.system_message.as_deref()).collect()),
        suppress_output: outputs.iter().any(|o| o.suppress_output),
        additional_context: join(outputs.iter().filter_map(|o| o.additional_context.as_deref()).collect()),
        clear_context: outputs.iter().any(|o| o.clear_context),
        retry_feedback: join(outputs.iter().filter_map(|o| o.retry_feedback.as_deref()).collect()),
        ..HookOutput::default()
    };
    for o in outputs {
        if let Some(input) = &o.tool_input {
            m.tool_input.get_or_insert_with(Map::new).extend(input.clone());
        }
        last_wins(&mut m.tool_result, &o.tool_result);
        last_wins(&mut m.tail_tool_call, &o.tail_tool_call);
        last_wins(&mut m.prompt, &o.prompt);
        m.inject_messages.extend(o.inject_messages.iter().cloned());
        m.extra.extend(o.extra.clone());
        match strategy {
            Strategy::ModelEdits | Strategy::Decisions => {
                deep_merge_opt(&mut m.llm_request, &o.llm_request);
                deep_merge_opt(&mut m.llm_response, &o.llm_response);
                last_wins(&mut m.tool_config, &o.tool_config);
            }
            Strategy::ToolSelection => {
                last_wins(&mut m.llm_request, &o.llm_request);
                last_wins(&mut m.llm_response, &o.llm_response);
            }
        }
    }
    if strategy == Strategy::ToolSelection {
        m.tool_config = union_tool_config(outputs.iter().filter_map(|o| o.tool_config.as_ref()));
    }
    m
}

fn last_wins<T: Clone>(into: &mut Option<T>, from: &Option<T>) {
    if from.is_some() {
        into.clone_from(from);
    }
}

fn deep_merge_opt(into: &mut Option<Value>, from: &Option<Value>) {
    if let Some(f) = from {
        match into {
            Some(i) => deep_merge(i, f),
            None => *into = Some(f.clone()),
        }
    }
}

/// Overlays `from` onto `into`: objects merge key by key, anything else
/// (arrays included) is replaced.
pub fn deep_merge(into: &mut Value, from: &Value) {
    match (into, from) {
        (Value::Object(i), Value::Object(f)) => {
            for (k, v) in f {
                match i.get_mut(k) {
                    Some(existing) => deep_merge(existing, v),
                    None => {
                        i.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (i, f) => *i = f.clone(),
    }
}

fn mode_rank(mode: &str) -> u8 {
    match mode {
        "NONE" => 3,
        "ANY" => 2,
        "AUTO" => 1,
        _ => 0,
    }
}

/// Union of allowed function names (first-seen order); mode NONE > ANY > AUTO,
/// and NONE allows nothing.
fn union_tool_config<'a>(configs: impl Iterator<Item = &'a Value>) -> Option<Value> {
    let mut mode: Option<&str> = None;
    let mut names: Vec<Value> = Vec::new();
    let mut any = false;
    for c in configs {
        any = true;
        if let Some(m) = c.get("mode").and_then(Value::as_str)
            && mode.is_none_or(|cur| mode_rank(m) > mode_rank(cur))
        {
            mode = Some(m);
        }
        for n in c
            .get("allowedFunctionNames")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    if !any {
        return None;
    }
    let mut out = Map::new();
    if let Some(m) = mode {
        out.insert("mode".into(), Value::String(m.to_string()));
    }
    if mode == Some("NONE") {
        names.clear();
    }
    if !names.is_empty() || mode == Some("NONE") {
        out.insert("allowedFunctionNames".into(), Value::Array(names));
    }
    Some(Value::Object(out))
}

/// Applies one hook's answer to the input the next hook of a sequential
/// chain receives (canonical field names).
pub fn chain(event: EventKind, input: &mut Map<String, Value>, output: &HookOutput) {
    match event {
        EventKind::BeforeTool | EventKind::PermissionRequest => {
            if let Some(overlay) = &output.tool_input {
                let target = input.entry("tool_input").or_insert_with(|| Value::Object(Map::new()));
                if let Some(t) = target.as_object_mut() {
                    t.extend(overlay.clone());
                } else {
                    *target = Value::Object(overlay.clone());
                }
            }
        }
        EventKind::BeforeAgent => {
            if let Some(p) = &output.prompt {
                input.insert("prompt".into(), Value::String(p.clone()));
            }
            if let Some(ctx) = &output.additional_context
                && let Some(Value::String(prompt)) = input.get_mut("prompt")
            {
                prompt.push_str("\n\n");
                prompt.push_str(ctx);
            }
        }
        EventKind::BeforeModel | EventKind::BeforeToolSelection => {
            if let Some(edit) = &output.llm_request {
                let target = input.entry("llm_request").or_insert_with(|| Value::Object(Map::new()));
                deep_merge(target, edit);
            }
            if let Some(tc) = &output.tool_config
                && let Some(req) = input.get_mut("llm_request")
                && let Some(req) = req.as_object_mut()
            {
                req.insert("toolConfig".into(), tc.clone());
            }
        }
        EventKind::AfterModel => {
            if let Some(edit) = &output.llm_response {
                let target = input.entry("llm_response").or_insert_with(|| Value::Object(Map::new()));
                deep_merge(target, edit);
            }
        }
        EventKind::AfterTool | EventKind::AfterToolFailure => {
            if let Some(r) = &output.tool_result {
                input.insert("tool_response".into(), r.clone());
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests;
