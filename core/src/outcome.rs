//! The aggregated answer to one event, and how it is written back in each
//! dialect's output format.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::event::{Dialect, EventKind};
use crate::output::{Decision, HookOutput};
use crate::record::HookRecord;

/// Everything the hooks of one event decided, merged.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// The event.
    pub event: EventKind,
    /// The merged answer (system messages and contexts joined by newlines).
    pub output: HookOutput,
    /// One warning per failed hook, naming it.
    pub warnings: Vec<String>,
    /// Every hook's run, in plan order.
    pub records: Vec<HookRecord>,
}

impl Outcome {
    /// An event no hook answered.
    pub fn empty(event: EventKind) -> Outcome {
        Outcome {
            event,
            output: HookOutput::default(),
            warnings: Vec::new(),
            records: Vec::new(),
        }
    }

    /// The action is refused.
    pub fn is_blocked(&self) -> bool {
        self.output.decision.is_block()
    }

    /// The reason for a block, never empty.
    pub fn block_reason(&self) -> String {
        self.output
            .reason
            .clone()
            .unwrap_or_else(|| format!("blocked by a {} hook", self.event))
    }

    /// What the user is shown: the hooks' system messages, then one line
    /// per warning. Agents hide a hook's stderr when its stdout is JSON, so
    /// a guard that did not run must be reported here to be seen at all.
    pub fn shown_message(&self) -> Option<String> {
        let mut lines: Vec<String> = self.output.system_message.iter().cloned().collect();
        lines.extend(self.warnings.iter().map(|w| format!("hookshot warning: {w}")));
        (!lines.is_empty()).then(|| lines.join("\n"))
    }

    /// Renders the outcome as `dialect` expects a hook's output to look.
    pub fn render(&self, dialect: Dialect) -> Value {
        match dialect {
            Dialect::Gemini => self.render_gemini(),
            Dialect::Picoclaw => self.render_picoclaw(),
            Dialect::Claude => self.render_claude(),
            Dialect::Jcli => self.render_jcli(),
            Dialect::Cursor => self.render_cursor(),
            Dialect::Copilot => self.render_copilot(),
        }
    }

    /// GitHub Copilot CLI's answers to its own camelCase events (its SDK's
    /// hook output types, 1.0.102), all at the top: `permissionDecision`
    /// (`deny`, `ask`, `allow`) with `permissionDecisionReason` and
    /// `modifiedArgs` before a tool (a `decision: "block"` there is
    /// ignored by it); `decision: "block"` with `reason` on the prompt, at
    /// `agentStop` and `subagentStop` (the reason goes on as the next
    /// message); `modifiedResult` after a tool; `additionalContext`. A
    /// stop (`continue: false`) is a denial before a tool and a block on
    /// the prompt, the nearest it has.
    fn render_copilot(&self) -> Value {
        let o = &self.output;
        let mut out = Map::new();
        let stopped = o
            .stop
            .then(|| o.stop_reason.clone().unwrap_or_else(|| self.block_reason()));
        match self.event {
            EventKind::BeforeTool => {
                let decision = if stopped.is_some() {
                    Some("deny")
                } else {
                    o.decision.word("deny")
                };
                if let Some(d) = decision {
                    out.insert("permissionDecision".into(), json!(d));
                    let why = stopped.clone().or_else(|| o.reason.clone());
                    if let Some(r) = why.or_else(|| (d == "deny").then(|| self.block_reason())) {
                        out.insert("permissionDecisionReason".into(), json!(r));
                    }
                }
                if let Some(i) = &o.tool_input {
                    out.insert("modifiedArgs".into(), Value::Object(crate::agent::copilot_arguments(i)));
                }
            }
            EventKind::BeforeAgent | EventKind::AfterAgent | EventKind::SubagentStop => {
                let blocked = o.decision.is_block() || (stopped.is_some() && self.event == EventKind::BeforeAgent);
                if blocked {
                    out.insert("decision".into(), json!("block"));
                    let why = stopped
                        .filter(|_| !o.decision.is_block())
                        .unwrap_or_else(|| self.block_reason());
                    out.insert("reason".into(), json!(why));
                }
            }
            EventKind::AfterTool => {
                if let Some(r) = &o.tool_result {
                    let text = r.as_str().map_or_else(|| r.to_string(), str::to_string);
                    out.insert(
                        "modifiedResult".into(),
                        json!({"resultType": "success", "textResultForLlm": text}),
                    );
                }
            }
            _ => {}
        }
        if let Some(c) = &o.additional_context {
            out.insert("additionalContext".into(), json!(c));
        }
        Value::Object(out)
    }

    /// Cursor's answers (its hook reference): `permission` (`allow`,
    /// `deny`, `ask`) with `user_message` for the person and
    /// `agent_message` for the model before a tool (and `updated_input`
    /// for a rewrite); `continue` on the prompt; `followup_message` at
    /// `stop` to go on; `additional_context` after a tool and at session
    /// start. An undecided call gets no `permission`, so Cursor's own
    /// approval still applies; warnings are the person's `user_message`.
    fn render_cursor(&self) -> Value {
        let o = &self.output;
        let mut out = Map::new();
        let said = self.shown_message();
        match self.event {
            EventKind::BeforeTool => {
                let permission = o.decision.word("deny");
                if let Some(p) = permission {
                    out.insert("permission".into(), json!(p));
                }
                if permission.is_some_and(|p| p != "allow") {
                    let why = self.block_reason();
                    out.insert("agent_message".into(), json!(why));
                    out.insert("user_message".into(), json!(said.clone().unwrap_or(why)));
                } else if let Some(m) = &said {
                    out.insert("user_message".into(), json!(m));
                }
                if let Some(i) = &o.tool_input {
                    out.insert("updated_input".into(), Value::Object(crate::Agent::cursor_arguments(i)));
                }
            }
            EventKind::BeforeAgent => {
                let blocked = self.is_blocked();
                out.insert("continue".into(), json!(!blocked));
                match (blocked, &said) {
                    (true, _) => {
                        out.insert("user_message".into(), json!(self.block_reason()));
                    }
                    (false, Some(m)) => {
                        out.insert("user_message".into(), json!(m));
                    }
                    (false, None) => {}
                }
            }
            EventKind::AfterAgent if o.decision.is_block() => {
                out.insert("followup_message".into(), json!(self.block_reason()));
            }
            _ => {}
        }
        if matches!(self.event, EventKind::AfterTool | EventKind::SessionStart)
            && let Some(c) = &o.additional_context
        {
            out.insert("additional_context".into(), json!(c));
        }
        Value::Object(out)
    }

    /// Cline's answer (its CLI 3.0.65, any hook file): `cancel: true` with
    /// `errorMessage` stops the task (before a tool: the tool does not
    /// run, and the task ends, as Cline does for its own hooks), context
    /// is `contextModification`, a rewrite of the tool's input is
    /// `overrideInput`. Cline reads this at any exit code.
    pub fn render_cline(&self) -> Value {
        let o = &self.output;
        let mut out = Map::new();
        if self.is_blocked() || o.stop {
            out.insert("cancel".into(), json!(true));
            let why = o
                .stop_reason
                .clone()
                .filter(|_| !o.decision.is_block())
                .unwrap_or_else(|| self.block_reason());
            out.insert("errorMessage".into(), json!(why));
        }
        if let Some(c) = &o.additional_context {
            out.insert("contextModification".into(), json!(c));
        }
        if let Some(i) = &o.tool_input {
            // Back to Cline's shell tool's shape (`run_commands`).
            let input = match i.get("command") {
                Some(Value::String(c)) if !i.contains_key("commands") => json!({"commands": [c]}),
                _ => Value::Object(i.clone()),
            };
            out.insert("overrideInput".into(), input);
        }
        Value::Object(out)
    }

    fn common(&self, out: &mut Map<String, Value>) {
        let o = &self.output;
        if o.stop {
            out.insert("continue".into(), json!(false));
            if let Some(r) = &o.stop_reason {
                out.insert("stopReason".into(), json!(r));
            }
        }
        if let Some(m) = self.shown_message() {
            out.insert("systemMessage".into(), json!(m));
        }
        if o.suppress_output {
            out.insert("suppressOutput".into(), json!(true));
        }
    }

    fn render_gemini(&self) -> Value {
        let o = &self.output;
        let mut out = Map::new();
        let decision = o.decision.word("block");
        if let Some(d) = decision {
            out.insert("decision".into(), json!(d));
        }
        if let Some(r) = &o.reason {
            out.insert("reason".into(), json!(r));
        }
        // gemini-cli replaces a tool's result only one way: a denial whose
        // reason is sent to the model instead of the result.
        if self.event == EventKind::AfterTool
            && !o.decision.is_block()
            && let Some(r) = &o.tool_result
        {
            let text = match r {
                Value::String(s) => s.clone(),
                Value::Object(m) if m.get("llmContent").is_some_and(Value::is_string) => {
                    m["llmContent"].as_str().unwrap_or_default().to_string()
                }
                other => other.to_string(),
            };
            out.insert("decision".into(), json!("deny"));
            out.insert("reason".into(), json!(text));
        }
        self.common(&mut out);
        let mut hso = Map::new();
        let put = |hso: &mut Map<String, Value>, k: &str, v: Option<Value>| {
            if let Some(v) = v {
                hso.insert(k.into(), v);
            }
        };
        put(
            &mut hso,
            "additionalContext",
            o.additional_context.clone().map(Value::String),
        );
        put(&mut hso, "tool_input", o.tool_input.clone().map(Value::Object));
        // hookshot's own field: a result supplied instead of running the tool.
        put(&mut hso, "tool_result", o.tool_result.clone());
        put(&mut hso, "llm_request", o.llm_request.clone());
        put(&mut hso, "llm_response", o.llm_response.clone());
        put(&mut hso, "toolConfig", o.tool_config.clone());
        if o.clear_context {
            hso.insert("clearContext".into(), json!(true));
        }
        put(
            &mut hso,
            "tailToolCallRequest",
            o.tail_tool_call
                .as_ref()
                .map(|t| json!({"name": t.name, "args": t.args})),
        );
        hso.extend(o.extra.clone());
        if !hso.is_empty() {
            let mut with_name = Map::new();
            with_name.insert("hookEventName".into(), json!(self.event.display_in(Dialect::Gemini)));
            with_name.extend(hso);
            out.insert("hookSpecificOutput".into(), Value::Object(with_name));
        }
        Value::Object(out)
    }

    fn render_claude(&self) -> Value {
        /// Fields of `extra` hookshot places itself: the worktree path is
        /// answered as text, the permissions go inside the decision.
        const CLAUDE_OWN_EXTRA: &[&str] = &["worktreePath", "updatedPermissions"];
        let o = &self.output;
        let mut out = Map::new();
        self.common(&mut out);
        let name = self.event.display_in(Dialect::Claude);
        let mut hso = Map::new();
        match self.event {
            // A skill's shell command answers as PreToolUse does (Claude
            // Code never applies an `updatedInput` there: any keeps the
            // command from running, which a rewrite here then does).
            EventKind::BeforeTool | EventKind::PreSkillShellCommand => {
                let d = match o.decision {
                    Decision::Block => Some("deny"),
                    Decision::Ask => Some("ask"),
                    Decision::Allow => Some("allow"),
                    Decision::Defer => Some("defer"),
                    Decision::Undecided => None,
                };
                if let Some(d) = d {
                    hso.insert("permissionDecision".into(), json!(d));
                    if let Some(r) = &o.reason {
                        hso.insert("permissionDecisionReason".into(), json!(r));
                    }
                }
                if let Some(i) = &o.tool_input {
                    hso.insert("updatedInput".into(), Value::Object(i.clone()));
                }
            }
            EventKind::PermissionRequest => {
                let behavior = match o.decision {
                    Decision::Block => Some("deny"),
                    Decision::Allow => Some("allow"),
                    _ => None,
                };
                if let Some(b) = behavior {
                    let mut d = json!({"behavior": b});
                    if let Some(r) = &o.reason {
                        d["message"] = json!(r);
                    }
                    if let Some(i) = &o.tool_input {
                        d["updatedInput"] = Value::Object(i.clone());
                    }
                    if let Some(p) = o.extra.get("updatedPermissions").filter(|_| b == "allow") {
                        d["updatedPermissions"] = p.clone();
                    }
                    hso.insert("decision".into(), d);
                }
            }
            _ => {
                if o.decision.is_block() {
                    out.insert("decision".into(), json!("block"));
                    out.insert("reason".into(), json!(self.block_reason()));
                }
                if self.event == EventKind::AfterTool
                    && let Some(r) = &o.tool_result
                {
                    hso.insert("updatedToolOutput".into(), r.clone());
                }
            }
        }
        if let Some(c) = &o.additional_context {
            hso.insert("additionalContext".into(), json!(c));
        }
        // A field hookshot does not model passes through to Claude Code as
        // the hooks answered it (the last hook's value per field): the next
        // field Claude Code adds works the day it ships.
        for (k, v) in &o.extra {
            if !CLAUDE_OWN_EXTRA.contains(&k.as_str()) && !hso.contains_key(k) {
                hso.insert(k.clone(), v.clone());
            }
        }
        if !hso.is_empty() {
            let mut with_name = Map::new();
            with_name.insert("hookEventName".into(), json!(name));
            with_name.extend(hso);
            out.insert("hookSpecificOutput".into(), Value::Object(with_name));
        }
        Value::Object(out)
    }

    /// picoclaw's result shapes: `{"approved": ...}` for approve_tool,
    /// `{"action": ...}` for the interception points.
    fn render_picoclaw(&self) -> Value {
        let o = &self.output;
        let mut out = Map::new();
        if self.event == EventKind::PermissionRequest {
            // picoclaw reads anything but an explicit approval as a denial;
            // an undecided event is left to its approver, which is us: with
            // no hook against it, the call is approved.
            out.insert("approved".into(), json!(!o.decision.is_block()));
            if o.decision.is_block() {
                out.insert("reason".into(), json!(self.block_reason()));
            }
        } else if o.stop {
            out.insert("action".into(), json!("abort_turn"));
            if let Some(r) = o.stop_reason.as_ref().or(o.reason.as_ref()) {
                out.insert("reason".into(), json!(r));
            }
        } else if o.decision.is_block() {
            let action = if self.event == EventKind::BeforeTool {
                "deny_tool"
            } else {
                "abort_turn"
            };
            out.insert("action".into(), json!(action));
            out.insert("reason".into(), json!(self.block_reason()));
        } else if self.event == EventKind::BeforeTool && o.tool_result.is_some() {
            out.insert("action".into(), json!("respond"));
            out.insert("result".into(), o.tool_result.clone().unwrap_or(Value::Null));
        } else if self.event == EventKind::AfterTool && o.tool_result.is_some() {
            // picoclaw's after_tool takes a modified result.
            out.insert("action".into(), json!("modify"));
            out.insert("result".into(), o.tool_result.clone().unwrap_or(Value::Null));
        } else if let Some(i) = &o.tool_input {
            out.insert("action".into(), json!("modify"));
            out.insert("call".into(), json!({"arguments": i}));
        } else if let Some(r) = &o.llm_request {
            out.insert("action".into(), json!("modify"));
            out.insert("request".into(), r.clone());
        } else {
            out.insert("action".into(), json!("continue"));
        }
        if let Some(m) = self.shown_message() {
            out.insert("systemMessage".into(), json!(m));
        }
        Value::Object(out)
    }

    fn render_jcli(&self) -> Value {
        let o = &self.output;
        let mut out = Map::new();
        if o.decision.is_block() || o.stop {
            let action = if self.event == EventKind::BeforeTool && !o.stop {
                "skip"
            } else {
                "stop"
            };
            out.insert("action".into(), json!(action));
            if let Some(r) = o.retry_feedback.as_ref().or(o.reason.as_ref()) {
                out.insert("retry_feedback".into(), json!(r));
            }
        }
        if let Some(m) = self.shown_message() {
            out.insert("system_message".into(), json!(m));
        }
        if let Some(c) = &o.additional_context {
            out.insert("additional_context".into(), json!(c));
        }
        if let Some(i) = &o.tool_input {
            out.insert("tool_arguments".into(), json!(Value::Object(i.clone()).to_string()));
        }
        if let Some(p) = &o.prompt {
            out.insert("user_input".into(), json!(p));
        }
        if let Some(r) = &o.tool_result {
            out.insert("tool_result".into(), r.clone());
        }
        if !o.inject_messages.is_empty() {
            out.insert("inject_messages".into(), Value::Array(o.inject_messages.clone()));
        }
        Value::Object(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(event: EventKind, output: HookOutput) -> Outcome {
        Outcome {
            event,
            output,
            warnings: vec![],
            records: vec![],
        }
    }

    /// A replaced tool result reaches each agent through that agent's own
    /// field, or a hook that claims a redaction would be lying.
    #[test]
    fn a_replaced_tool_result_uses_each_agents_own_field() {
        let result = json!({"llmContent": "GITHUB=***REDACTED***", "returnDisplay": "x"});
        let o = outcome(
            EventKind::AfterTool,
            HookOutput {
                tool_result: Some(result.clone()),
                ..HookOutput::default()
            },
        );
        let gemini = o.render(Dialect::Gemini);
        assert_eq!(gemini["decision"], "deny");
        assert_eq!(gemini["reason"], "GITHUB=***REDACTED***");
        let claude = o.render(Dialect::Claude);
        assert_eq!(claude["hookSpecificOutput"]["updatedToolOutput"], result);
        assert_eq!(o.render(Dialect::Jcli)["tool_result"], result);
        let pico = o.render(Dialect::Picoclaw);
        assert_eq!(
            (pico["action"].clone(), pico["result"].clone()),
            (json!("modify"), result)
        );
    }

    #[test]
    fn block_renders_per_dialect() {
        let o = outcome(
            EventKind::BeforeTool,
            HookOutput {
                decision: Decision::Block,
                reason: Some("no writes".into()),
                ..HookOutput::default()
            },
        );
        assert_eq!(
            o.render(Dialect::Gemini),
            json!({"decision": "block", "reason": "no writes"})
        );
        assert_eq!(
            o.render(Dialect::Claude),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no writes"}})
        );
        assert_eq!(
            o.render(Dialect::Jcli),
            json!({"action": "skip", "retry_feedback": "no writes"})
        );
    }

    #[test]
    fn warnings_reach_the_field_the_agent_shows() {
        let mut o = outcome(
            EventKind::BeforeTool,
            HookOutput {
                system_message: Some("from a hook".into()),
                ..HookOutput::default()
            },
        );
        o.warnings
            .push("hook guard.sh timed out after 1s and was killed".into());
        let shown = "from a hook\nhookshot warning: hook guard.sh timed out after 1s and was killed";
        assert_eq!(o.render(Dialect::Gemini)["systemMessage"], shown);
        assert_eq!(o.render(Dialect::Claude)["systemMessage"], shown);
        assert_eq!(o.render(Dialect::Jcli)["system_message"], shown);
    }

    #[test]
    fn empty_outcome_renders_empty_object() {
        let o = Outcome::empty(EventKind::AfterTool);
        for d in [Dialect::Gemini, Dialect::Claude, Dialect::Jcli] {
            assert_eq!(o.render(d), json!({}));
        }
        // picoclaw wants an action, and reads a missing approval as a no.
        assert_eq!(o.render(Dialect::Picoclaw), json!({"action": "continue"}));
        let approve = Outcome::empty(EventKind::PermissionRequest);
        assert_eq!(approve.render(Dialect::Picoclaw), json!({"approved": true}));
    }

    #[test]
    fn picoclaw_shapes() {
        let deny = outcome(
            EventKind::BeforeTool,
            HookOutput {
                decision: Decision::Block,
                reason: Some("no".into()),
                ..HookOutput::default()
            },
        );
        assert_eq!(
            deny.render(Dialect::Picoclaw),
            json!({"action": "deny_tool", "reason": "no"})
        );
        let deny = Outcome {
            event: EventKind::PermissionRequest,
            ..deny
        };
        assert_eq!(
            deny.render(Dialect::Picoclaw),
            json!({"approved": false, "reason": "no"})
        );
    }

    #[test]
    fn claude_permission_request_and_tool_output() {
        let read = |v: Value| HookOutput::from_json(v.as_object().unwrap());
        let o = read(json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow", "updatedInput": {"command": "npm run lint"}}}}));
        assert_eq!(o.decision, Decision::Allow);
        assert_eq!(o.tool_input.as_ref().unwrap()["command"], "npm run lint");
        let rendered = outcome(EventKind::PermissionRequest, o).render(Dialect::Claude);
        assert_eq!(
            rendered["hookSpecificOutput"]["decision"]["updatedInput"]["command"],
            "npm run lint"
        );
        let o = read(json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
            "updatedMCPToolOutput": [{"type": "text", "text": "[redacted]"}]}}));
        let rendered = outcome(EventKind::AfterTool, o).render(Dialect::Claude);
        assert_eq!(
            rendered["hookSpecificOutput"]["updatedToolOutput"][0]["text"],
            "[redacted]"
        );
    }
}
