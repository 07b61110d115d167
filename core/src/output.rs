//! What one hook answered, read from whichever dialect it wrote.
//!
//! gemini-cli, Claude Code and jcli spell the same intents differently
//! (`decision: "block"`, `permissionDecision: "deny"`, `action: "skip"`).
//! [`HookOutput::from_json`] reads all of them into one shape, so a hook
//! written for one agent keeps working when another drives it.

use serde::Serialize;
use serde_json::{Map, Value};

/// A hook's verdict on the action at hand.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Decision {
    /// No opinion (the default).
    #[default]
    Undecided,
    /// Let the agent decide as it would without hooks (Claude's `defer`).
    Defer,
    /// Allow explicitly.
    Allow,
    /// Ask the user.
    Ask,
    /// Block or deny.
    Block,
}

impl Decision {
    /// Reads gemini, Claude and jcli spellings.
    pub fn parse(s: &str) -> Option<Decision> {
        Some(match s.to_ascii_lowercase().as_str() {
            "allow" | "approve" | "approved" | "continue" => Decision::Allow,
            "ask" => Decision::Ask,
            "block" | "deny" | "denied" | "skip" | "deny_tool" => Decision::Block,
            "defer" => Decision::Defer,
            _ => return None,
        })
    }

    /// Whether this decision stops the action.
    pub fn is_block(self) -> bool {
        self == Decision::Block
    }

    /// Its word in an answer that calls a block `block` and has no
    /// deferral (gemini-cli's `decision`, Cursor's `permission`): `None`
    /// when nothing was decided.
    pub fn word(self, block: &'static str) -> Option<&'static str> {
        match self {
            Decision::Block => Some(block),
            Decision::Ask => Some("ask"),
            Decision::Allow => Some("allow"),
            Decision::Defer | Decision::Undecided => None,
        }
    }
}

/// A tool call a hook asks the agent to run next (gemini's AfterTool tail call).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TailToolCall {
    /// The tool to run.
    pub name: String,
    /// Its arguments.
    pub args: Map<String, Value>,
}

/// One hook's answer, normalised.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HookOutput {
    /// Verdict.
    pub decision: Decision,
    /// Why (block reason, or the explanation of an allow).
    pub reason: Option<String>,
    /// `continue: false` stops the agent.
    pub stop: bool,
    /// Why the agent stops.
    pub stop_reason: Option<String>,
    /// A message for the user.
    pub system_message: Option<String>,
    /// Hide the hook's output from the transcript.
    pub suppress_output: bool,
    /// Text added to what the model sees.
    pub additional_context: Option<String>,
    /// Replacement (overlay) for the tool's input.
    pub tool_input: Option<Map<String, Value>>,
    /// Replacement for the tool's result (picoclaw `respond`, jcli `tool_result`).
    pub tool_result: Option<Value>,
    /// Edits to the model request (hook `llm_request` shape).
    pub llm_request: Option<Value>,
    /// A model response (synthetic for BeforeModel, replacement for AfterModel).
    pub llm_response: Option<Value>,
    /// Tool-selection config (`mode`, `allowedFunctionNames`).
    pub tool_config: Option<Value>,
    /// Start the next turn from an empty history (AfterAgent).
    pub clear_context: bool,
    /// Run this tool next; its result replaces the original's.
    pub tail_tool_call: Option<TailToolCall>,
    /// Replacement for the user's prompt (jcli `user_input`).
    pub prompt: Option<String>,
    /// jcli `retry_feedback`: a block whose reason is fed back to the model.
    pub retry_feedback: Option<String>,
    /// jcli `inject_messages`: messages appended to the conversation.
    pub inject_messages: Vec<Value>,
    /// Anything else the hook wrote in `hookSpecificOutput`, kept verbatim.
    pub extra: Map<String, Value>,
}

fn string_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::String(_) | Value::Null => None,
        other => Some(other.to_string()),
    }
}

fn bool_of(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Bool(true)))
}

/// An object given either as a JSON object or as a string holding one (jcli
/// passes `tool_arguments` as a JSON string).
fn object_of(v: Option<&Value>) -> Option<Map<String, Value>> {
    match v? {
        Value::Object(m) => Some(m.clone()),
        Value::String(s) => match serde_json::from_str(s) {
            Ok(Value::Object(m)) => Some(m),
            _ => None,
        },
        _ => None,
    }
}

/// The verdict fields a hook may write, and where: a value of the wrong
/// type there is a hook bug, never a silent "no decision".
fn check_verdicts(obj: &Map<String, Value>) -> Result<(), String> {
    let decision = |field: &str, v: Option<&Value>| -> Result<(), String> {
        match v {
            None | Some(Value::Null) => Ok(()),
            Some(Value::String(s)) if Decision::parse(s).is_some() => Ok(()),
            Some(other) => Err(format!(
                "answered an invalid \"{field}\": {other} (expected \"allow\", \"deny\"/\"block\", \"ask\" or \"defer\")"
            )),
        }
    };
    let boolean = |field: &str, v: Option<&Value>| -> Result<(), String> {
        match v {
            None | Some(Value::Null) | Some(Value::Bool(_)) => Ok(()),
            Some(other) => Err(format!(
                "answered an invalid \"{field}\": {other} (expected true or false)"
            )),
        }
    };
    decision("decision", obj.get("decision"))?;
    boolean("continue", obj.get("continue"))?;
    boolean("approved", obj.get("approved"))?;
    if let Some(a) = obj.get("action")
        && !a.is_string()
        && !a.is_null()
    {
        return Err(format!("answered an invalid \"action\": {a} (expected a string)"));
    }
    match obj.get("hookSpecificOutput") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Object(hso)) => {
            decision("permissionDecision", hso.get("permissionDecision"))?;
            match hso.get("decision") {
                None | Some(Value::Null) => Ok(()),
                Some(Value::Object(d)) => decision("decision.behavior", d.get("behavior")),
                Some(v @ Value::String(_)) => decision("decision", Some(v)),
                Some(other) => Err(format!(
                    "answered an invalid \"hookSpecificOutput.decision\": {other} (expected an object)"
                )),
            }
        }
        Some(other) => Err(format!(
            "answered an invalid \"hookSpecificOutput\": {other} (expected an object)"
        )),
    }
}

impl HookOutput {
    /// Like [`HookOutput::from_json`], but a verdict field of the wrong
    /// type or with an unknown value (`"decision": 1`, `["deny"]`,
    /// `"permissionDecision": "nope"`) is an error: whatever the hook meant,
    /// reading it as "no decision" would allow what it may have denied.
    pub fn from_json_checked(obj: &Map<String, Value>) -> Result<HookOutput, String> {
        check_verdicts(obj)?;
        Ok(HookOutput::from_json(obj))
    }

    /// [`HookOutput::from_json_checked`] for a hook of `dialect`: Copilot
    /// CLI's own camelCase hooks answer at the top (`permissionDecision`
    /// and its reason, `modifiedArgs`, `modifiedResult`, `modifiedPrompt`),
    /// words that mean nothing, or something else, to the other agents.
    /// A hook of Cursor's own file answers in Cursor's words
    /// ([`HookOutput::from_cursor`]).
    pub fn from_dialect_json_checked(
        obj: &Map<String, Value>,
        dialect: crate::Dialect,
        event: crate::EventKind,
    ) -> Result<HookOutput, String> {
        if dialect == crate::Dialect::Cursor {
            return HookOutput::from_cursor(obj, event);
        }
        if dialect != crate::Dialect::Copilot {
            return HookOutput::from_json_checked(obj);
        }
        let mut obj = obj.clone();
        let mut hso = match obj.remove("hookSpecificOutput") {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        for (own, claude) in [
            ("permissionDecision", "permissionDecision"),
            ("permissionDecisionReason", "permissionDecisionReason"),
            ("modifiedArgs", "updatedInput"),
        ] {
            if let Some(mut v) = obj.remove(own) {
                if let Value::Object(args) = &mut v {
                    crate::agent::copilot_arguments_to_claude(args);
                }
                hso.insert(claude.into(), v);
            }
        }
        // What the model sees of the result: its text for the model.
        if let Some(r) = obj.remove("modifiedResult") {
            let text = r.get("textResultForLlm").cloned().unwrap_or(r);
            hso.insert("updatedToolOutput".into(), text);
        }
        if let Some(p) = obj.remove("modifiedPrompt") {
            obj.insert("user_input".into(), p);
        }
        if !hso.is_empty() {
            obj.insert("hookSpecificOutput".into(), Value::Object(hso));
        }
        HookOutput::from_json_checked(&obj)
    }

    /// What a hook of Cursor's own file answered, in Cursor's words only
    /// (its hook reference, 2.x): `permission` (`allow`, `deny`, `ask`)
    /// with `agent_message` for the model and `user_message` for the
    /// person; `continue: false` on the prompt; `followup_message` at
    /// `stop` and `subagentStop`, which goes on with it; `updated_input`
    /// before a tool, in Cursor's argument names (`path`, `contents`);
    /// `additional_context`; `updated_mcp_tool_output`. Claude Code's
    /// words (`decision`, `hookSpecificOutput`) mean nothing to Cursor
    /// and are not read. A `permission` that is none of Cursor's is an
    /// error: reading it as "no decision" would allow what it may deny.
    pub fn from_cursor(obj: &Map<String, Value>, event: crate::EventKind) -> Result<HookOutput, String> {
        use crate::EventKind as E;
        let text = |k: &str| match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!("answered an invalid \"{k}\": {other} (expected a string)")),
        };
        let decision = match obj.get("permission") {
            None | Some(Value::Null) => None,
            Some(Value::String(p)) if matches!(p.as_str(), "allow" | "deny" | "ask") => Decision::parse(p),
            Some(other) => {
                return Err(format!(
                    "answered an invalid \"permission\": {other} (expected \"allow\", \"deny\" or \"ask\")"
                ));
            }
        };
        let (user, agent) = (text("user_message")?, text("agent_message")?);
        let mut out = HookOutput::default();
        if let Some(d) = decision {
            out.decision = d;
        }
        match obj.get("continue") {
            None | Some(Value::Null) | Some(Value::Bool(true)) => {}
            // Only the prompt's hooks stop with it (Cursor ignores it
            // elsewhere).
            Some(Value::Bool(false)) if event == E::BeforeAgent => out.decision = Decision::Block,
            Some(Value::Bool(false)) => {}
            Some(other) => {
                return Err(format!(
                    "answered an invalid \"continue\": {other} (expected true or false)"
                ));
            }
        }
        if out.decision.is_block() || out.decision == Decision::Ask {
            out.reason = agent.clone().or_else(|| user.clone());
            out.system_message = user;
        } else {
            out.system_message = user;
            out.additional_context = agent;
        }
        if matches!(event, E::AfterAgent | E::SubagentStop)
            && let Some(follow) = text("followup_message")?
        {
            out.decision = Decision::Block;
            out.reason = Some(follow);
        }
        if let Some(context) = text("additional_context")? {
            out.additional_context = Some(match out.additional_context.take() {
                Some(said) => format!("{said}\n{context}"),
                None => context,
            });
        }
        match obj.get("updated_input") {
            None | Some(Value::Null) => {}
            Some(Value::Object(args)) => {
                let renames = crate::Agent::Cursor.tool_names().iter().flat_map(|(_, _, r)| r.iter());
                let mut claude = Map::new();
                for (k, v) in args {
                    let name = renames.clone().find(|(own, _)| own == k).map_or(k.as_str(), |(_, c)| c);
                    claude.insert(name.to_string(), v.clone());
                }
                out.tool_input = Some(claude);
            }
            Some(other) => {
                return Err(format!(
                    "answered an invalid \"updated_input\": {other} (expected an object)"
                ));
            }
        }
        if let Some(r) = obj.get("updated_mcp_tool_output").filter(|v| !v.is_null()) {
            out.tool_result = Some(r.clone());
        }
        Ok(out)
    }

    /// What a hook file of Cline's own answered, in Cline's words only
    /// (3.0.65, its `yl`): `cancel: true` stops the call, with
    /// `errorMessage` (else the context) as the reason; `context` or
    /// `contextModification` (else `errorMessage`) is context for the
    /// model; `overrideInput` replaces the call's input, in Cline's tools'
    /// shapes (`commands`, `path` with `old_text`/`new_text`, `files`),
    /// read in Claude Code's. Cline waits only for the tool events' hooks:
    /// on the others it reads nothing, and nothing is read here either.
    pub fn from_cline(obj: &Map<String, Value>, event: crate::EventKind) -> Result<HookOutput, String> {
        use crate::EventKind as E;
        let mut out = HookOutput::default();
        if !matches!(event, E::BeforeTool | E::AfterTool) {
            return Ok(out);
        }
        let text = |k: &str| match obj.get(k) {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
            _ => None,
        };
        let context = text("context").or_else(|| text("contextModification"));
        let error = text("errorMessage");
        match obj.get("cancel") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => out.additional_context = context.or(error),
            Some(Value::Bool(true)) => {
                out.decision = Decision::Block;
                out.reason = error.or(context);
            }
            Some(other) => {
                return Err(format!(
                    "answered an invalid \"cancel\": {other} (expected true or false)"
                ));
            }
        }
        if let Some(v) = obj.get("overrideInput").filter(|v| !v.is_null()) {
            let Value::Object(own) = v else {
                return Err(format!(
                    "answered an invalid \"overrideInput\": {v} (expected an object)"
                ));
            };
            let mut claude = own.clone();
            if let Some(commands) = claude.remove("commands") {
                let list: Vec<String> = match commands {
                    Value::Array(a) => a
                        .iter()
                        .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_string))
                        .collect(),
                    Value::String(s) => vec![s],
                    other => vec![other.to_string()],
                };
                claude.insert("command".into(), Value::String(list.join("\n")));
            }
            if let Some(Value::Array(files)) = claude.remove("files")
                && let Some(path) = files.first().and_then(|f| f.get("path").or(Some(f))).cloned()
            {
                claude.insert("file_path".into(), path);
            }
            for (own, name) in [("path", "file_path"), ("old_text", "old_string")] {
                if let Some(v) = claude.remove(own) {
                    claude.insert(name.into(), v);
                }
            }
            if let Some(v) = claude.remove("new_text") {
                let name = if claude.contains_key("old_string") {
                    "new_string"
                } else {
                    "content"
                };
                claude.insert(name.into(), v);
            }
            out.tool_input = Some(claude);
        }
        Ok(out)
    }

    /// Reads a hook's JSON object in any dialect. Unknown fields are kept in
    /// [`HookOutput::extra`]; nothing is rejected, since a hook that says more
    /// than we understand must still be obeyed in what we do understand.
    pub fn from_json(obj: &Map<String, Value>) -> HookOutput {
        let empty = Map::new();
        let hso = obj
            .get("hookSpecificOutput")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let get = |k: &str| hso.get(k).or_else(|| obj.get(k));

        let mut out = HookOutput {
            reason: string_of(obj.get("reason")),
            stop: matches!(obj.get("continue"), Some(Value::Bool(false))),
            stop_reason: string_of(obj.get("stopReason")),
            system_message: string_of(obj.get("systemMessage").or_else(|| obj.get("system_message"))),
            suppress_output: bool_of(obj.get("suppressOutput")),
            additional_context: string_of(get("additionalContext").or_else(|| get("additional_context"))),
            tool_input: object_of(
                get("tool_input")
                    .or_else(|| get("updatedInput"))
                    .or_else(|| get("tool_arguments")),
            ),
            tool_result: get("tool_result").cloned(),
            llm_request: get("llm_request").cloned(),
            llm_response: get("llm_response").cloned(),
            tool_config: get("toolConfig").cloned(),
            clear_context: bool_of(get("clearContext")),
            prompt: string_of(obj.get("user_input")),
            retry_feedback: string_of(obj.get("retry_feedback")),
            ..HookOutput::default()
        };

        // Verdict: Claude's hook-specific permission decision is the most
        // specific, then the top-level decision, then jcli/picoclaw actions.
        let decision = hso
            .get("permissionDecision")
            .and_then(Value::as_str)
            .and_then(Decision::parse)
            .or_else(|| obj.get("decision").and_then(Value::as_str).and_then(Decision::parse))
            .or_else(|| {
                hso.get("decision")
                    .and_then(|d| d.get("behavior"))
                    .and_then(Value::as_str)
                    .and_then(Decision::parse)
            })
            .or_else(|| {
                obj.get("approved")
                    .and_then(Value::as_bool)
                    .map(|a| if a { Decision::Allow } else { Decision::Block })
            });
        if let Some(d) = decision {
            out.decision = d;
        }
        if out.reason.is_none() {
            out.reason = string_of(hso.get("permissionDecisionReason"))
                .or_else(|| hso.get("decision").and_then(|d| string_of(d.get("message"))));
        }
        // Claude's PermissionRequest answers inside its decision object:
        // a rewritten input for an allow, an interrupt for a deny.
        if let Some(d) = hso.get("decision").and_then(Value::as_object) {
            if out.tool_input.is_none() {
                out.tool_input = object_of(d.get("updatedInput"));
            }
            if bool_of(d.get("interrupt")) {
                out.stop = true;
            }
            if let Some(p) = d.get("updatedPermissions") {
                out.extra.insert("updatedPermissions".into(), p.clone());
            }
        }
        // Claude's PostToolUse replaces what the model sees of the result.
        if let Some(r) = hso.get("updatedToolOutput").or_else(|| hso.get("updatedMCPToolOutput")) {
            out.tool_result = Some(r.clone());
        }

        match obj.get("action").and_then(Value::as_str) {
            // jcli: stop aborts the step; with retry_feedback the feedback is
            // what the model hears. skip refuses one tool call.
            Some("stop") | Some("skip") | Some("deny_tool") => {
                out.decision = Decision::Block;
                if out.reason.is_none() {
                    out.reason = out.retry_feedback.clone();
                }
            }
            // picoclaw: abort_turn ends the current turn with an error,
            // hard_abort the whole agent loop; both stop the agent here.
            Some("abort_turn") | Some("hard_abort") => {
                out.decision = Decision::Block;
                out.stop = true;
                if out.stop_reason.is_none() {
                    out.stop_reason = out.reason.clone();
                }
            }
            Some("respond") => {
                if let Some(r) = obj.get("result") {
                    out.tool_result = Some(r.clone());
                }
            }
            Some("modify") => {
                if let Some(call) = obj.get("call") {
                    out.tool_input = object_of(call.get("arguments"));
                }
                if let Some(req) = obj.get("request") {
                    out.llm_request = Some(req.clone());
                }
            }
            _ => {}
        }
        if out.retry_feedback.is_some() && out.reason.is_none() {
            out.reason = out.retry_feedback.clone();
        }

        // jcli edits the request and the answer with top-level fields.
        if out.llm_request.is_none() {
            let mut req = Map::new();
            for k in ["messages", "system_prompt"] {
                if let Some(v) = obj.get(k) {
                    req.insert(k.into(), v.clone());
                }
            }
            if !req.is_empty() {
                out.llm_request = Some(Value::Object(req));
            }
        }
        if out.llm_response.is_none()
            && let Some(text) = string_of(obj.get("assistant_output"))
                .or_else(|| obj.get("response").and_then(|r| string_of(r.get("content"))))
        {
            out.llm_response = Some(serde_json::json!({ "text": text }));
        }
        if out.tool_result.is_none()
            && let Some(e) = obj.get("tool_error")
        {
            out.tool_result = Some(e.clone());
        }

        if let Some(tail) = get("tailToolCallRequest").and_then(Value::as_object)
            && let Some(name) = tail.get("name").and_then(Value::as_str)
        {
            out.tail_tool_call = Some(TailToolCall {
                name: name.to_string(),
                args: object_of(tail.get("args")).unwrap_or_default(),
            });
        }
        if let Some(Value::Array(msgs)) = obj.get("inject_messages") {
            out.inject_messages = msgs.clone();
        }

        const KNOWN: &[&str] = &[
            "hookEventName",
            "additionalContext",
            "tool_input",
            "updatedInput",
            "llm_request",
            "llm_response",
            "toolConfig",
            "clearContext",
            "tailToolCallRequest",
            "permissionDecision",
            "permissionDecisionReason",
            "decision",
            "updatedToolOutput",
            "updatedMCPToolOutput",
        ];
        for (k, v) in hso {
            if !KNOWN.contains(&k.as_str()) {
                out.extra.insert(k.clone(), v.clone());
            }
        }
        out
    }
}

/// A hook compiled into the process: same input and output as a command
/// hook, called directly. Synchronous on purpose: in-process hooks are
/// checks over the input, and a plain call costs no allocation or task.
pub trait Hook: Send + Sync + std::fmt::Debug {
    /// Answers one event; `input` has the canonical (gemini) field names.
    fn call(&self, event: crate::EventKind, input: &serde_json::Map<String, serde_json::Value>) -> HookOutput;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> HookOutput {
        HookOutput::from_json(v.as_object().unwrap())
    }

    /// Cursor's words mean what Cursor does with them, per event; Claude
    /// Code's words mean nothing to it; a verdict it cannot read is an
    /// error, never "no decision".
    #[test]
    fn cursors_answers_by_event() {
        use crate::EventKind as E;
        let cursor = |v: Value, e: E| HookOutput::from_cursor(v.as_object().unwrap(), e);
        let deny = cursor(
            json!({"permission": "deny", "agent_message": "for the model", "user_message": "for you"}),
            E::BeforeTool,
        )
        .unwrap();
        assert_eq!(
            (deny.decision, deny.reason.as_deref(), deny.system_message.as_deref()),
            (Decision::Block, Some("for the model"), Some("for you"))
        );
        assert_eq!(
            cursor(json!({"permission": "ask"}), E::BeforeTool).unwrap().decision,
            Decision::Ask
        );
        assert!(cursor(json!({"permission": "block"}), E::BeforeTool).is_err());
        assert!(cursor(json!({"continue": "no"}), E::BeforeAgent).is_err());
        assert!(
            cursor(json!({"continue": false}), E::BeforeAgent)
                .unwrap()
                .decision
                .is_block()
        );
        assert!(
            !cursor(json!({"continue": false}), E::SessionStart)
                .unwrap()
                .decision
                .is_block()
        );
        let stop = cursor(json!({"followup_message": "again"}), E::AfterAgent).unwrap();
        assert_eq!(
            (stop.decision, stop.reason.as_deref()),
            (Decision::Block, Some("again"))
        );
        assert!(
            !cursor(json!({"followup_message": "again"}), E::BeforeTool)
                .unwrap()
                .decision
                .is_block()
        );
        assert_eq!(
            cursor(json!({"decision": "block"}), E::BeforeTool).unwrap(),
            HookOutput::default()
        );
        let rewrite = cursor(json!({"updated_input": {"path": "/a", "contents": "x"}}), E::BeforeTool).unwrap();
        assert_eq!(
            rewrite.tool_input,
            Some(json!({"file_path": "/a", "content": "x"}).as_object().unwrap().clone())
        );
    }

    /// Cline's words, read before and after a tool only, its tools'
    /// shapes read as Claude Code's.
    #[test]
    fn clines_answers_and_rewrites() {
        use crate::EventKind as E;
        let cline = |v: Value, e: E| HookOutput::from_cline(v.as_object().unwrap(), e).unwrap();
        let cancel = cline(json!({"cancel": true, "contextModification": "why"}), E::BeforeTool);
        assert_eq!(
            (cancel.decision, cancel.reason.as_deref()),
            (Decision::Block, Some("why"))
        );
        assert_eq!(cline(json!({"cancel": true}), E::SessionStart), HookOutput::default());
        let said = cline(json!({"errorMessage": "note"}), E::AfterTool);
        assert_eq!(
            (said.decision, said.additional_context.as_deref()),
            (Decision::Undecided, Some("note"))
        );
        let input = |v: Value| {
            cline(json!({"overrideInput": v}), E::BeforeTool)
                .tool_input
                .map(Value::Object)
        };
        assert_eq!(input(json!({"commands": ["a", "b"]})), Some(json!({"command": "a\nb"})));
        assert_eq!(
            input(json!({"path": "/f", "old_text": "x", "new_text": "y"})),
            Some(json!({"file_path": "/f", "old_string": "x", "new_string": "y"}))
        );
        assert_eq!(
            input(json!({"path": "/f", "new_text": "y"})),
            Some(json!({"file_path": "/f", "content": "y"}))
        );
        assert_eq!(
            input(json!({"files": [{"path": "/r"}]})),
            Some(json!({"file_path": "/r"}))
        );
        assert!(HookOutput::from_cline(json!({"cancel": "yes"}).as_object().unwrap(), E::BeforeTool).is_err());
    }

    #[test]
    fn gemini_block() {
        let o = read(json!({"decision": "block", "reason": "no"}));
        assert_eq!(o.decision, Decision::Block);
        assert_eq!(o.reason.as_deref(), Some("no"));
    }

    #[test]
    fn claude_permission_decision_wins_over_top_level() {
        let o = read(json!({"decision": "approve", "hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "rm is not allowed"}}));
        assert_eq!(o.decision, Decision::Block);
        assert_eq!(o.reason.as_deref(), Some("rm is not allowed"));
    }

    #[test]
    fn jcli_stop_with_feedback_blocks_with_feedback() {
        let o = read(json!({"action": "stop", "retry_feedback": "mention the tests"}));
        assert_eq!(o.decision, Decision::Block);
        assert_eq!(o.reason.as_deref(), Some("mention the tests"));
    }

    #[test]
    fn jcli_tool_arguments_as_string() {
        let o = read(json!({"tool_arguments": "{\"path\": \"a\"}"}));
        assert_eq!(o.tool_input.unwrap()["path"], "a");
    }

    #[test]
    fn continue_false_stops() {
        let o = read(json!({"continue": false, "stopReason": "enough"}));
        assert!(o.stop);
        assert_eq!(o.stop_reason.as_deref(), Some("enough"));
        assert_eq!(o.decision, Decision::Undecided);
    }

    #[test]
    fn verdicts_of_the_wrong_type_are_errors() {
        for bad in [
            json!({"decision": 1}),
            json!({"decision": ["deny"]}),
            json!({"decision": "nope"}),
            json!({"continue": "false"}),
            json!({"hookSpecificOutput": {"permissionDecision": true}}),
            json!({"hookSpecificOutput": "deny"}),
            json!({"hookSpecificOutput": {"decision": {"behavior": 0}}}),
        ] {
            assert!(
                HookOutput::from_json_checked(bad.as_object().unwrap()).is_err(),
                "{bad}"
            );
        }
        let ok = json!({"decision": "approve", "continue": true, "hookSpecificOutput": {"permissionDecision": "deny"}});
        assert!(HookOutput::from_json_checked(ok.as_object().unwrap()).is_ok());
    }

    #[test]
    fn unknown_hook_specific_fields_are_kept() {
        let o = read(json!({"hookSpecificOutput": {"hookEventName": "X", "custom": 1}}));
        assert_eq!(o.extra["custom"], 1);
    }
}
