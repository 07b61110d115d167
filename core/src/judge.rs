//! Claude Code's `prompt` and `agent` hooks: a model judges the event and
//! answers `{"ok": bool, "reason": "...", "impossible": bool}`. What
//! `ok: false` does depends on the event (the hooks reference's "Response
//! schema"); here it becomes the command-hook answer with the same effect,
//! so the one output reader and aggregator handle it.

use serde_json::{Map, Value, json};

use crate::EventKind;

/// The instruction appended to every prompt: the answer's shape.
pub const ANSWER_FORMAT: &str = "\n\nRespond with one JSON object only: {\"ok\": true} to allow, \
or {\"ok\": false, \"reason\": \"why\"} to block.";

/// Whether Claude Code runs `prompt` hooks on `event` (`agent` hooks on
/// the same events except PermissionRequest).
pub fn runs_on(event: EventKind, agent: bool) -> bool {
    use EventKind::*;
    match event {
        BeforeTool | AfterTool | AfterToolFailure | PermissionDenied | PostToolBatch | AfterAgent | SubagentStop
        | TaskCompleted | TaskCreated | TeammateIdle | UserPromptExpansion | BeforeAgent => true,
        PermissionRequest => !agent,
        _ => false,
    }
}

/// The prompt as sent: `$ARGUMENTS` is the hook's input JSON (appended
/// when the prompt has none), `\$` a literal `$`; then the answer format.
pub fn render(template: &str, input_json: &str) -> String {
    let mut out = String::with_capacity(template.len() + input_json.len() + ANSWER_FORMAT.len());
    let mut used = false;
    let mut rest = template;
    while let Some(i) = rest.find('$') {
        if i > 0 && rest.as_bytes()[i - 1] == b'\\' {
            out.push_str(&rest[..i - 1]);
            out.push('$');
            rest = &rest[i + 1..];
        } else if rest[i..].starts_with("$ARGUMENTS") {
            out.push_str(&rest[..i]);
            out.push_str(input_json);
            used = true;
            rest = &rest[i + "$ARGUMENTS".len()..];
        } else {
            out.push_str(&rest[..=i]);
            rest = &rest[i + 1..];
        }
    }
    out.push_str(rest);
    if !used {
        out.push_str("\n\n");
        out.push_str(input_json);
    }
    out.push_str(ANSWER_FORMAT);
    out
}

/// The command-hook answer that does what the verdict does on `event`.
/// `continue_on_block`: feed the reason back and go on instead of ending
/// the turn (a prompt hook's option; agent hooks always behave so).
/// `impossible` lets a Stop end although the condition is unmet (prompt
/// hooks only). Errors name what is wrong with the verdict.
pub fn verdict(
    event: EventKind,
    answer: &Map<String, Value>,
    agent: bool,
    continue_on_block: bool,
) -> Result<Map<String, Value>, String> {
    let ok = match answer.get("ok") {
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("the verdict's \"ok\" is not true or false: {other}")),
        None => return Err("the verdict has no \"ok\"".into()),
    };
    if ok {
        return Ok(Map::new());
    }
    let reason = answer
        .get("reason")
        .and_then(Value::as_str)
        .filter(|r| !r.trim().is_empty())
        .unwrap_or("blocked by a prompt hook")
        .to_string();
    let feed_back = agent || continue_on_block;
    let block = json!({"decision": "block", "reason": reason});
    let end_turn = json!({"decision": "block", "reason": reason, "continue": false, "stopReason": reason});
    let out = match event {
        EventKind::BeforeTool => {
            let mut deny = json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }});
            if !feed_back {
                deny["continue"] = json!(false);
                deny["stopReason"] = json!(reason);
            }
            deny
        }
        EventKind::AfterAgent | EventKind::SubagentStop => {
            let impossible = !agent && answer.get("impossible") == Some(&Value::Bool(true));
            if impossible { json!({}) } else { block }
        }
        EventKind::AfterTool | EventKind::TeammateIdle if !feed_back => end_turn,
        EventKind::AfterTool
        | EventKind::TeammateIdle
        | EventKind::BeforeAgent
        | EventKind::UserPromptExpansion
        | EventKind::PostToolBatch
        | EventKind::AfterToolFailure
        | EventKind::TaskCreated
        | EventKind::TaskCompleted => block,
        // PermissionRequest and PermissionDenied: ok false has no effect.
        _ => json!({}),
    };
    Ok(match out {
        Value::Object(m) => m,
        _ => Map::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_the_input_and_escaped_dollars_stay() {
        let r = render("Check $ARGUMENTS costs \\$1.00 and $HOME", "{\"a\":1}");
        assert!(r.starts_with("Check {\"a\":1} costs $1.00 and $HOME\n\nRespond"), "{r}");
        let r = render("No placeholder.", "{}");
        assert!(r.starts_with("No placeholder.\n\n{}\n\nRespond"), "{r}");
    }

    fn v(event: EventKind, answer: Value, agent: bool, cob: bool) -> Value {
        Value::Object(verdict(event, answer.as_object().unwrap(), agent, cob).unwrap())
    }

    #[test]
    fn ok_false_does_what_the_event_documents() {
        let no = json!({"ok": false, "reason": "tests fail"});
        assert_eq!(v(EventKind::AfterAgent, json!({"ok": true}), false, false), json!({}));
        assert_eq!(
            v(EventKind::AfterAgent, no.clone(), false, false),
            json!({"decision": "block", "reason": "tests fail"})
        );
        let impossible = json!({"ok": false, "reason": "r", "impossible": true});
        assert_eq!(v(EventKind::AfterAgent, impossible.clone(), false, false), json!({}));
        // Agent hooks ignore `impossible`.
        assert_eq!(v(EventKind::AfterAgent, impossible, true, false)["decision"], "block");
        let pre = v(EventKind::BeforeTool, no.clone(), false, false);
        assert_eq!(pre["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(pre["continue"], false);
        let pre = v(EventKind::BeforeTool, no.clone(), false, true);
        assert_eq!(pre.get("continue"), None);
        assert_eq!(v(EventKind::AfterTool, no.clone(), false, false)["continue"], false);
        assert_eq!(v(EventKind::AfterTool, no.clone(), true, false).get("continue"), None);
        assert_eq!(v(EventKind::BeforeAgent, no.clone(), false, false)["decision"], "block");
        assert_eq!(v(EventKind::PermissionRequest, no, false, false), json!({}));
        assert!(
            verdict(
                EventKind::AfterAgent,
                json!({"allow": 1}).as_object().unwrap(),
                false,
                false
            )
            .is_err()
        );
    }
}
