//! Event inputs: the common fields every hook receives, and the shape each
//! dialect expects on stdin.
//!
//! hookshot keeps one canonical input per event, with gemini-cli's field
//! names (`tool_name`, `tool_input`, `tool_response`, `prompt`,
//! `prompt_response`, `llm_request`, ...). A hook written in another dialect
//! receives the same facts under its own names.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

use crate::event::{Dialect, EventKind};

/// Facts about the session that every input carries.
#[derive(Debug, Clone)]
pub struct SessionFacts<'a> {
    /// The session's id.
    pub session_id: &'a str,
    /// The project directory hooks run in.
    pub cwd: &'a Path,
    /// Where the agent keeps its transcript, if anywhere.
    pub transcript_path: Option<&'a Path>,
}

/// Fills the common fields an input lacks (`session_id`, `transcript_path`,
/// `cwd`, `hook_event_name`); fields already present are kept. The
/// `timestamp` gemini-cli sends is added for the dialects that have one
/// ([`for_dialect`]).
pub fn fill_common(input: &mut Map<String, Value>, event: EventKind, facts: &SessionFacts<'_>) {
    let put = |input: &mut Map<String, Value>, k: &str, v: Value| {
        if input.get(k).is_none_or(Value::is_null) {
            input.insert(k.to_string(), v);
        }
    };
    put(input, "session_id", json!(facts.session_id));
    put(
        input,
        "transcript_path",
        json!(
            facts
                .transcript_path
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ),
    );
    put(input, "cwd", json!(facts.cwd.display().to_string()));
    put(input, "hook_event_name", json!(event.canonical_name()));
}

/// The canonical input as a hook that runs as `agent` reads it: its
/// dialect's shape, and the tools under the agent's own names where it
/// has names of its own in Claude Code's format (Qwen Code's
/// `run_shell_command`, not `Bash`).
pub fn for_agent(event: EventKind, agent: crate::Agent, canonical: &Map<String, Value>) -> Map<String, Value> {
    let mut m = for_dialect(event, agent.dialect(), canonical);
    if agent.dialect() == Dialect::Claude
        && let Some(Value::String(tool)) = m.get("tool_name")
        && let Some(own) = agent.own_name_of(tool)
    {
        m.insert("tool_name".into(), json!(own));
    }
    m
}

/// The canonical input as a hook of `dialect` reads it when it runs as
/// `agent`: that agent's shape ([`for_agent`]), but for a hook of Copilot
/// CLI's own camelCase events, which reads Copilot CLI's own payload, one
/// of Cursor's own file, which reads Cursor's payload of the event it is
/// written under (`own_event`, [`crate::HookOptions::own_event`]), and a
/// hook file of Cline's own, which reads Cline's payload.
pub fn for_hook(
    event: EventKind,
    agent: crate::Agent,
    (dialect, own_event): (Dialect, Option<&str>),
    canonical: &Map<String, Value>,
) -> Map<String, Value> {
    match dialect {
        Dialect::Copilot => for_dialect(event, dialect, canonical),
        Dialect::Cursor => {
            let name = own_event.unwrap_or_else(|| event.display_in(Dialect::Cursor));
            cursor_payload(name, event, canonical)
        }
        // A hook file of Cline's own, named after its event.
        Dialect::Claude if agent == crate::Agent::Cline && own_event.is_some() => {
            cline_payload(own_event.unwrap_or_default(), canonical)
        }
        _ => for_agent(event, agent, canonical),
    }
}

/// The canonical input as a hook of `dialect` expects to read it.
pub fn for_dialect(event: EventKind, dialect: Dialect, canonical: &Map<String, Value>) -> Map<String, Value> {
    if dialect == Dialect::Copilot {
        return copilot_payload(event, canonical);
    }
    let mut m = canonical.clone();
    m.insert("hook_event_name".into(), json!(event.display_in(dialect)));
    // The tool under the name (and argument names) the hook's agent uses.
    if matches!(dialect, Dialect::Claude | Dialect::Gemini)
        && let Some(Value::String(tool)) = canonical.get("tool_name")
    {
        let named = crate::tools::name_in(dialect, tool);
        if named != tool.as_str() {
            if dialect == Dialect::Claude
                && let Some(Value::Object(args)) = m.get_mut("tool_input")
            {
                crate::tools::arguments_to_claude(tool, args);
            }
            m.insert("tool_name".into(), json!(named));
        }
    }
    // Claude Code sends no timestamp; gemini-cli does.
    if dialect != Dialect::Claude && m.get("timestamp").is_none_or(Value::is_null) {
        m.insert("timestamp".into(), json!(rfc3339_now()));
    }
    match dialect {
        Dialect::Gemini => {}
        Dialect::Claude => {
            // Claude Code sends the permission mode with tool, prompt and
            // stop events (not, say, with SessionStart); an event from
            // another agent gets the mode Claude Code starts in.
            let has_mode = matches!(
                event,
                EventKind::BeforeTool
                    | EventKind::AfterTool
                    | EventKind::AfterToolFailure
                    | EventKind::PermissionRequest
                    | EventKind::BeforeAgent
                    | EventKind::AfterAgent
                    | EventKind::SubagentStop
            );
            if has_mode {
                m.entry("permission_mode").or_insert_with(|| json!("default"));
            }
            if event == EventKind::AfterToolFailure
                && let Some(e) = canonical.get("tool_error")
            {
                m.insert("error".into(), e.clone());
            }
        }
        Dialect::Jcli => {
            m.insert("event".into(), json!(event.display_in(Dialect::Jcli)));
            let rename = [("prompt", "user_input"), ("prompt_response", "assistant_output")];
            for (from, to) in rename {
                if let Some(v) = canonical.get(from) {
                    m.insert(to.into(), v.clone());
                }
            }
            // jcli passes arguments and results as strings.
            for (from, to) in [("tool_input", "tool_arguments"), ("tool_response", "tool_result")] {
                if let Some(v) = canonical.get(from) {
                    let s = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    m.insert(to.into(), json!(s));
                }
            }
            // After the model: the answer's text is jcli's assistant_output.
            if let Some(text) = canonical.get("llm_response").and_then(|r| r.get("text")) {
                m.insert("assistant_output".into(), text.clone());
            }
            if let Some(req) = canonical.get("llm_request") {
                for k in ["messages", "model"] {
                    if let Some(v) = req.get(k) {
                        m.insert(k.into(), v.clone());
                    }
                }
            }
        }
        Dialect::Picoclaw => {
            for (from, to) in [("tool_name", "tool"), ("tool_input", "arguments")] {
                if let Some(v) = canonical.get(from) {
                    m.insert(to.into(), v.clone());
                }
            }
            // picoclaw's tool result: for_llm is the text the model sees.
            if let Some(r) = canonical.get("tool_response") {
                let text = r.get("llmContent").cloned().unwrap_or_else(|| r.clone());
                let is_error = r.get("error").is_some_and(|e| !e.is_null());
                m.insert(
                    "result".into(),
                    json!({"for_llm": text, "for_user": "", "silent": false, "is_error": is_error}),
                );
            }
            if let Some(req) = canonical.get("llm_request") {
                for (from, to) in [("model", "model"), ("messages", "messages"), ("config", "options")] {
                    if let Some(v) = req.get(from) {
                        m.insert(to.into(), v.clone());
                    }
                }
            }
            if let Some(resp) = canonical.get("llm_response") {
                let text = resp.get("text").cloned().unwrap_or(json!(""));
                m.insert("response".into(), json!({"role": "assistant", "content": text}));
            }
            let session = canonical.get("session_id").cloned().unwrap_or(Value::Null);
            m.insert("meta".into(), json!({"SessionKey": session, "Source": "hookshot"}));
        }
        // Built whole, before the match: see `copilot_payload`.
        Dialect::Copilot => {}
        Dialect::Cursor => {
            // Cursor's common fields: its conversation, the workspace.
            if let Some(session) = canonical.get("session_id") {
                m.entry("conversation_id").or_insert_with(|| session.clone());
            }
            if let Some(cwd) = canonical.get("cwd") {
                m.entry("workspace_roots").or_insert_with(|| json!([cwd]));
            }
            if let Some(Value::Object(args)) = canonical.get("tool_input")
                && let Some(c) = args.get("command")
            {
                m.entry("command").or_insert_with(|| c.clone());
            }
        }
    }
    m
}

/// The tool call of `canonical` in Claude Code's words: gemini-cli's
/// `run_shell_command` is `Bash`, its `absolute_path` a `file_path`. The
/// payloads of the other agents' own hooks are built from these.
fn claude_call(canonical: &Map<String, Value>) -> (String, Option<Value>) {
    let tool = match canonical.get("tool_name") {
        Some(Value::String(t)) => t.clone(),
        Some(other) if !other.is_null() => other.to_string(),
        _ => String::new(),
    };
    let claude = crate::tools::name_in(Dialect::Claude, &tool).into_owned();
    let mut args = canonical.get("tool_input").filter(|v| !v.is_null()).cloned();
    if claude != tool
        && let Some(Value::Object(a)) = &mut args
    {
        crate::tools::arguments_to_claude(&tool, a);
    }
    (claude, args)
}

/// A value as text: a string as it is, anything else as its JSON.
fn text_of(v: Value) -> String {
    match v {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

/// What a tool printed, as the agents that give a result as text give it
/// (Copilot CLI's `textResultForLlm`, Cursor's `output`): a shell's
/// output and errors (Claude Code's streams, gemini-cli's `llmContent`),
/// else the result's text.
fn result_text(response: &Value) -> String {
    match (response.get("stdout"), response.get("stderr")) {
        (Some(out), err) => [text_of(out.clone()), err.cloned().map(text_of).unwrap_or_default()]
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => match response.get("llmContent") {
            Some(c) => text_of(c.clone()),
            None => text_of(response.clone()),
        },
    }
}

/// What GitHub Copilot CLI 1.0.102 gives a hook of its own camelCase
/// events, and nothing else (observed): `sessionId`, a millisecond
/// `timestamp` and `cwd`, then per event `source` and `initialPrompt`
/// (sessionStart), `prompt` (userPromptSubmitted), `toolName` (its own:
/// `bash`, [`crate::agent::COPILOT_TOOLS`]) and `toolArgs` (the tool
/// events), `toolResult` (`resultType`, `textResultForLlm`;
/// postToolUse), `error` (postToolUseFailure), `transcriptPath`,
/// `stopReason` and `stop_hook_active` (agentStop), `reason` (sessionEnd).
fn copilot_payload(event: EventKind, canonical: &Map<String, Value>) -> Map<String, Value> {
    let get = |k: &str| canonical.get(k).filter(|v| !v.is_null()).cloned();
    let mut m = Map::new();
    m.insert(
        "sessionId".into(),
        get("sessionId").or_else(|| get("session_id")).unwrap_or(json!("")),
    );
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let timestamp = get("timestamp").filter(Value::is_u64).unwrap_or(json!(ms));
    m.insert("timestamp".into(), timestamp);
    m.insert("cwd".into(), get("cwd").unwrap_or(json!("")));
    let mut put = |k: &str, v: Option<Value>| {
        if let Some(v) = v {
            m.insert(k.into(), v);
        }
    };
    match event {
        EventKind::SessionStart => {
            put("source", Some(get("source").unwrap_or(json!("new"))));
            put("initialPrompt", get("initialPrompt"));
        }
        EventKind::BeforeAgent => put("prompt", Some(get("prompt").unwrap_or(json!("")))),
        EventKind::BeforeTool | EventKind::AfterTool | EventKind::AfterToolFailure => {
            let (tool, tool_input) = claude_call(canonical);
            let own = crate::agent::COPILOT_TOOLS
                .iter()
                .find(|(_, claude)| *claude == tool)
                .map_or(tool.as_str(), |(own, _)| own);
            put("toolName", Some(json!(own)));
            // Another agent's call, in Copilot CLI's argument names.
            let args = get("toolArgs").unwrap_or_else(|| match tool_input {
                Some(Value::Object(mut args)) => {
                    let renames = crate::agent::COPILOT_ARGUMENTS
                        .iter()
                        .find(|(claude, _)| *claude == tool)
                        .map_or(&[][..], |(_, r)| r);
                    for (claude, own) in renames {
                        if let Some(v) = args.remove(*claude) {
                            args.entry(*own).or_insert(v);
                        }
                    }
                    Value::Object(args)
                }
                other => other.unwrap_or(json!({})),
            });
            put("toolArgs", Some(args));
            if event == EventKind::AfterTool {
                let result = get("toolResult").unwrap_or_else(|| {
                    let said = result_text(&get("tool_response").unwrap_or(json!("")));
                    json!({"resultType": "success", "textResultForLlm": said})
                });
                put("toolResult", Some(result));
            }
            if event == EventKind::AfterToolFailure {
                put(
                    "error",
                    Some(json!(
                        get("tool_error")
                            .or_else(|| get("error"))
                            .map(text_of)
                            .unwrap_or_default()
                    )),
                );
            }
        }
        EventKind::AfterAgent => {
            put(
                "transcriptPath",
                get("transcriptPath").or_else(|| get("transcript_path")),
            );
            put(
                "stopReason",
                Some(
                    get("stopReason")
                        .or_else(|| get("stop_reason"))
                        .unwrap_or(json!("end_turn")),
                ),
            );
            put(
                "stop_hook_active",
                Some(get("stop_hook_active").unwrap_or(json!(false))),
            );
        }
        EventKind::SessionEnd => put("reason", Some(get("reason").unwrap_or(json!("complete")))),
        _ => {}
    }
    m
}

/// The most of a file `beforeReadFile` hands its hooks as `content`:
/// Cursor gives the whole file; a hook that scans it for secrets needs no
/// more than this, and a huge file must not become a huge stdin.
const READ_CONTENT_CAP: u64 = 4 << 20;

/// What Cline 3.0.65 gives its own hook file `name` (`PreToolUse`, ...;
/// observed, and its `GV`): its common fields (`clineVersion`,
/// `timestamp`, `taskId`, `sessionContext`, `workspaceRoots`,
/// `workspaceInfo`, `userId`, `agent_id`, `parent_agent_id`), `hookName`,
/// and the event's own: `tool_call` and `preToolUse` (its parameters as
/// text) before a tool, `tool_result` and `postToolUse` after it,
/// `userPromptSubmit`, `taskStart`/`taskResume`, `turn` and
/// `taskComplete`, a shutdown's `reason`. The call is in Cline's tools:
/// a shell command is `run_commands` with a list of commands, a read
/// `read_files`, a write or an edit `editor` (`path`, `old_text`,
/// `new_text`).
fn cline_payload(name: &str, canonical: &Map<String, Value>) -> Map<String, Value> {
    let get = |k: &str| canonical.get(k).filter(|v| !v.is_null()).cloned();
    let session = get("session_id").map(text_of).unwrap_or_default();
    let cwd = get("cwd").map(text_of).unwrap_or_default();
    let hook_name = match name {
        "PreToolUse" => "tool_call",
        "PostToolUse" => "tool_result",
        "UserPromptSubmit" => "prompt_submit",
        "TaskStart" => "agent_start",
        "TaskResume" => "agent_resume",
        "TaskComplete" => "agent_end",
        "SessionShutdown" => "session_shutdown",
        other => other,
    };
    let mut m = Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.into(), v);
    };
    put("clineVersion", json!(""));
    put("timestamp", json!(rfc3339_now()));
    put("taskId", json!(session));
    put("sessionContext", json!({"rootSessionId": session}));
    put("workspaceRoots", json!([cwd]));
    put("workspaceInfo", json!({"rootPath": cwd, "hint": "project"}));
    put("userId", json!("unknown"));
    put("agent_id", json!(""));
    put("parent_agent_id", Value::Null);
    put("hookName", json!(hook_name));
    let (tool, args) = claude_call(canonical);
    let args = match args {
        Some(Value::Object(a)) => a,
        _ => Map::new(),
    };
    let arg = |k: &str| args.get(k).cloned();
    let (own, input) = match tool.as_str() {
        "Bash" => (
            "run_commands".to_string(),
            json!({"commands": [arg("command").map(text_of).unwrap_or_default()]}),
        ),
        "Read" => (
            "read_files".to_string(),
            json!({"files": [{"path": arg("file_path").unwrap_or(json!(""))}]}),
        ),
        "Write" => (
            "editor".to_string(),
            json!({"path": arg("file_path").unwrap_or(json!("")), "new_text": arg("content").unwrap_or(json!(""))}),
        ),
        "Edit" => (
            "editor".to_string(),
            json!({"path": arg("file_path").unwrap_or(json!("")), "old_text": arg("old_string").unwrap_or(json!("")),
                "new_text": arg("new_string").unwrap_or(json!(""))}),
        ),
        _ => (tool.clone(), Value::Object(args.clone())),
    };
    // Cline gives each parameter as text (a list as its JSON).
    let parameters: Map<String, Value> = input
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), json!(text_of(v.clone()))))
        .collect();
    let id = get("tool_use_id").unwrap_or(json!(""));
    match name {
        "PreToolUse" => {
            put("iteration", json!(1));
            put("tool_call", json!({"id": id, "name": own, "input": input}));
            put("preToolUse", json!({"toolName": own, "parameters": parameters}));
        }
        "PostToolUse" => {
            let response = get("tool_response").unwrap_or(json!(""));
            // A shell's result is one entry per command, as Cline's.
            let output = match (own.as_str(), response.get("stdout")) {
                ("run_commands", Some(out)) => {
                    let command = input["commands"][0].clone();
                    json!([{"query": command, "result": text_of(out.clone()), "success": true}])
                }
                _ => response,
            };
            let now = rfc3339_now();
            put("iteration", json!(1));
            put(
                "tool_result",
                json!({"id": id, "name": own, "input": input, "output": output, "durationMs": 0, "startedAt": now, "endedAt": now}),
            );
            put(
                "postToolUse",
                json!({"toolName": own, "parameters": parameters, "result": text_of(output), "success": true, "executionTimeMs": 0}),
            );
        }
        "UserPromptSubmit" => {
            put(
                "userPromptSubmit",
                json!({"prompt": get("prompt").map(text_of).unwrap_or_default(), "attachments": []}),
            );
        }
        "TaskStart" => put("taskStart", json!({"taskMetadata": {}})),
        "TaskResume" => put("taskResume", json!({"taskMetadata": {}, "previousState": {}})),
        "TaskComplete" => {
            put("iteration", json!(1));
            let said = get("last_assistant_message").map(text_of).unwrap_or_default();
            put("turn", json!({"outputText": said, "status": "completed"}));
            put("taskComplete", json!({"taskMetadata": {}}));
        }
        "SessionShutdown" => put("reason", get("reason").unwrap_or(json!("completed"))),
        _ => {}
    }
    m
}

/// A regular file's text, up to [`READ_CONTENT_CAP`]: a FIFO or a device
/// named by the tool call is never waited on or drained.
fn read_capped(path: &Path) -> std::io::Result<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(f, READ_CONTENT_CAP), &mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// What Cursor gives a hook of its own file under the event `name`
/// (Cursor's hook reference, 2.x): its common fields (`conversation_id`,
/// `generation_id`, `model`, `hook_event_name`, `cursor_version`,
/// `workspace_roots`, `user_email`, `transcript_path`) and the event's
/// own: `command` and `cwd` before a shell command, `output` after it,
/// `file_path` and the file's `content` before a read, `file_path` and
/// `edits` after an edit, an MCP tool's `tool_name` and its input as JSON
/// text, Cursor's own tool names (`Shell`, `StrReplace`) and argument
/// names (`path`, `contents`) in the generic tool events, `prompt`,
/// `status` and `loop_count` at `stop`.
fn cursor_payload(name: &str, event: EventKind, canonical: &Map<String, Value>) -> Map<String, Value> {
    let get = |k: &str| canonical.get(k).filter(|v| !v.is_null()).cloned();
    let cwd = get("cwd").map(text_of).unwrap_or_default();
    let mut m = Map::new();
    m.insert(
        "conversation_id".into(),
        get("conversation_id")
            .or_else(|| get("session_id"))
            .unwrap_or(json!("")),
    );
    m.insert(
        "generation_id".into(),
        get("generation_id").or_else(|| get("turn_id")).unwrap_or(json!("")),
    );
    m.insert(
        "model".into(),
        get("model").filter(Value::is_string).unwrap_or(json!("")),
    );
    m.insert("hook_event_name".into(), json!(name));
    m.insert("cursor_version".into(), get("cursor_version").unwrap_or(json!("")));
    m.insert(
        "workspace_roots".into(),
        get("workspace_roots").unwrap_or_else(|| json!([cwd])),
    );
    m.insert("user_email".into(), get("user_email").unwrap_or(Value::Null));
    m.insert(
        "transcript_path".into(),
        get("transcript_path")
            .filter(|p| p.as_str() != Some(""))
            .unwrap_or(Value::Null),
    );
    let (tool, args) = claude_call(canonical);
    let args = match args {
        Some(Value::Object(a)) => a,
        _ => Map::new(),
    };
    let arg = |k: &str| args.get(k).cloned().map(text_of).unwrap_or_default();
    let result = get("tool_response").unwrap_or(json!(""));
    let absolute = |p: String| {
        if p.is_empty() || Path::new(&p).is_absolute() {
            p
        } else {
            Path::new(&cwd).join(p).display().to_string()
        }
    };
    let file = || {
        let p = ["file_path", "path", "absolute_path", "notebook_path"]
            .iter()
            .find_map(|k| args.get(*k).and_then(Value::as_str))
            .unwrap_or_default();
        absolute(p.to_string())
    };
    let mut put = |k: &str, v: Value| {
        m.insert(k.into(), v);
    };
    match name {
        "beforeShellExecution" | "afterShellExecution" => {
            put("command", json!(arg("command")));
            put("cwd", json!(cwd));
            put("sandbox", json!(false));
            if name == "afterShellExecution" {
                // A shell's result is what it printed, as Cursor gives it.
                put("output", json!(result_text(&result)));
                put("duration", json!(0));
            }
        }
        "beforeMCPExecution" | "afterMCPExecution" => {
            // `mcp__server__tool`: Cursor names the server's tool.
            let own = tool.splitn(3, "__").nth(2).unwrap_or(&tool).to_string();
            put("tool_name", json!(own));
            put("tool_input", json!(Value::Object(args.clone()).to_string()));
            if name == "afterMCPExecution" {
                put("result_json", json!(result.to_string()));
                put("duration", json!(0));
            }
        }
        "beforeReadFile" => {
            let path = file();
            let content = read_capped(Path::new(&path)).unwrap_or_default();
            put("file_path", json!(path));
            put("content", json!(content));
            put("attachments", json!([]));
        }
        "afterFileEdit" => {
            let edits = match args.get("edits") {
                Some(Value::Array(list)) => list
                    .iter()
                    .map(|e| json!({"old_string": e.get("old_string").cloned().unwrap_or(json!("")), "new_string": e.get("new_string").cloned().unwrap_or(json!(""))}))
                    .collect(),
                _ if args.contains_key("old_string") => {
                    vec![json!({"old_string": arg("old_string"), "new_string": arg("new_string")})]
                }
                _ => vec![json!({"old_string": "", "new_string": arg("content")})],
            };
            put("file_path", json!(file()));
            put("edits", Value::Array(edits));
        }
        _ => match event {
            EventKind::BeforeTool | EventKind::AfterTool | EventKind::AfterToolFailure => {
                let own = crate::Agent::Cursor
                    .own_name_of(&tool)
                    .map(str::to_string)
                    .or_else(|| {
                        // Cursor calls an MCP tool `MCP:<tool>`.
                        tool.strip_prefix("mcp__")
                            .map(|rest| format!("MCP:{}", rest.split_once("__").map_or(rest, |(_, t)| t)))
                    })
                    .unwrap_or(tool.clone());
                put("tool_name", json!(own));
                put("tool_input", Value::Object(crate::Agent::cursor_arguments(&args)));
                put("tool_use_id", get("tool_use_id").unwrap_or(json!("")));
                put("cwd", json!(cwd));
                if event == EventKind::AfterTool {
                    let out = if crate::tools::same_tool(&tool, "Bash") {
                        result_text(&result)
                    } else {
                        result.to_string()
                    };
                    put("tool_output", json!(out));
                    put("duration", json!(0));
                }
                if event == EventKind::AfterToolFailure {
                    let error = get("error")
                        .or_else(|| get("tool_error"))
                        .map(text_of)
                        .unwrap_or_default();
                    put("error_message", json!(error));
                    put("failure_type", json!("error"));
                    put("duration", json!(0));
                    put("is_interrupt", json!(get("is_interrupt").unwrap_or(json!(false))));
                }
            }
            EventKind::BeforeAgent => {
                put("prompt", json!(get("prompt").map(text_of).unwrap_or_default()));
                put("attachments", json!([]));
            }
            EventKind::AfterAgent => {
                put("status", get("status").unwrap_or(json!("completed")));
                // Agents other than Cursor say only whether the turn goes
                // on because of a stop hook.
                let looped = get("stop_hook_active") == Some(json!(true));
                put("loop_count", get("loop_count").unwrap_or(json!(u8::from(looped))));
            }
            EventKind::SubagentStart | EventKind::SubagentStop => {
                put(
                    "subagent_type",
                    get("subagent_type").or_else(|| get("agent_type")).unwrap_or(json!("")),
                );
                if event == EventKind::SubagentStop {
                    put("status", json!("completed"));
                    put(
                        "result",
                        get("last_assistant_message")
                            .map(text_of)
                            .map_or(json!(""), |t| json!(t)),
                    );
                    put(
                        "agent_transcript_path",
                        get("agent_transcript_path").unwrap_or(Value::Null),
                    );
                } else {
                    put("prompt", json!(get("prompt").map(text_of).unwrap_or_default()));
                }
            }
            EventKind::SessionStart | EventKind::SessionEnd => {
                put("session_id", get("session_id").unwrap_or(json!("")));
                put("is_background_agent", json!(false));
                if event == EventKind::SessionStart {
                    put("composer_mode", json!("agent"));
                } else {
                    put("reason", get("reason").unwrap_or(json!("completed")));
                    put("duration_ms", json!(0));
                    put("final_status", json!("completed"));
                }
            }
            EventKind::PreCompress => {
                put("trigger", get("trigger").unwrap_or(json!("auto")));
            }
            _ => {}
        },
    }
    m
}

/// An event's input as the agent sent it (`raw`, for the event it named
/// `name` in `dialect`'s words) in hookshot's canonical fields. Cursor's
/// tool-naming events carry their tool's facts at the top
/// (`beforeShellExecution`: `command`; `beforeReadFile`: `file_path` and
/// the file's `content`; `afterFileEdit`: `file_path` and `edits`;
/// `beforeMCPExecution`: `tool_name` and `tool_input`, a JSON text) and
/// its `conversation_id` and `workspace_roots`: they become `tool_name`,
/// `tool_input`, `tool_response`, `session_id` and `cwd`, the original
/// fields kept. Every other dialect's input is canonical already.
pub fn from_wire(name: &str, dialect: Dialect, mut raw: Map<String, Value>) -> Map<String, Value> {
    if dialect == Dialect::Claude && raw.contains_key("clineVersion") && raw.contains_key("hookName") {
        return from_cline(name, raw);
    }
    if dialect == Dialect::Copilot {
        return from_copilot(name, raw);
    }
    if dialect != Dialect::Cursor {
        return raw;
    }
    if let Some(c) = raw.get("conversation_id").cloned() {
        raw.entry("session_id").or_insert(c);
    }
    if let Some(root) = raw.get("workspace_roots").and_then(|r| r.get(0)).cloned() {
        raw.entry("cwd").or_insert(root);
    }
    let Some((event, tool)) = crate::event::cursor_tool_event(name) else {
        return cursor_generic_tool(raw);
    };
    let field = |raw: &Map<String, Value>, k: &str| raw.get(k).cloned();
    let (tool_name, input) = match tool {
        Some("Bash") => (
            "Bash".to_string(),
            json!({"command": field(&raw, "command").unwrap_or(json!(""))}),
        ),
        Some("Read") => (
            "Read".to_string(),
            json!({"file_path": field(&raw, "file_path").unwrap_or(json!(""))}),
        ),
        Some(other) => {
            let mut args = json!({"file_path": field(&raw, "file_path").unwrap_or(json!(""))});
            if let Some(edits) = field(&raw, "edits") {
                args["edits"] = edits;
            }
            (other.to_string(), args)
        }
        None => {
            let name = raw
                .get("tool_name")
                .and_then(Value::as_str)
                .unwrap_or("mcp")
                .to_string();
            // Cursor sends an MCP tool's input as JSON text.
            let input = match field(&raw, "tool_input") {
                Some(Value::String(text)) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
                Some(v) => v,
                None => json!({}),
            };
            (name, input)
        }
    };
    raw.insert("tool_name".into(), json!(tool_name));
    raw.insert("tool_input".into(), input);
    if event == EventKind::AfterTool {
        let response = match tool {
            Some("Bash") => shell_output(field(&raw, "output").unwrap_or(json!(""))),
            None => field(&raw, "result_json").unwrap_or(Value::Null),
            Some(_) => json!({"success": true}),
        };
        raw.insert("tool_response".into(), response);
    }
    raw
}

/// A shell command's result as another agent sent it (Cursor's `output`,
/// Copilot CLI's `textResultForLlm`, Cline's results), as Claude Code's
/// `Bash` result holds it: all of it as its output.
fn shell_output(stdout: Value) -> Value {
    json!({"stdout": stdout, "stderr": ""})
}

/// A tool of Cursor's generic tool events (`preToolUse`, `postToolUse`,
/// `postToolUseFailure`) under Claude Code's name and arguments
/// ([`crate::Agent::tool_names`]: `Shell` is `Bash`, `Write`'s `path` and
/// `contents` are `file_path` and `content`), its `tool_output` the
/// tool's result; tools Claude Code has no name for keep Cursor's.
fn cursor_generic_tool(mut raw: Map<String, Value>) -> Map<String, Value> {
    let own = raw.get("tool_name").and_then(Value::as_str).unwrap_or_default();
    let Some((_, claude, renames)) = crate::Agent::Cursor.tool_names().iter().find(|(o, _, _)| *o == own) else {
        return raw;
    };
    raw.insert("tool_name".into(), json!(claude));
    if let Some(Value::Object(args)) = raw.get_mut("tool_input") {
        for (own, claude) in *renames {
            if let Some(v) = args.remove(*own) {
                args.entry(*claude).or_insert(v);
            }
        }
    }
    if let Some(out) = raw.get("tool_output").cloned() {
        let response = match (*claude, out) {
            ("Bash", Value::String(text)) => shell_output(json!(text)),
            (_, v) => v,
        };
        raw.entry("tool_response").or_insert(response);
    }
    raw
}

/// GitHub Copilot CLI's payload for its own camelCase events (1.0.102:
/// `sessionId`, a millisecond `timestamp`, `toolName`, `toolArgs`,
/// `toolResult`, `transcriptPath`, `stopReason`, `error`) in Claude Code's
/// shape, its own fields kept: its tool names are Claude Code's
/// ([`crate::agent::COPILOT_TOOLS`]), as Copilot CLI itself gives them
/// with Claude Code's event names; `toolArgs` may be JSON text.
fn from_copilot(name: &str, mut raw: Map<String, Value>) -> Map<String, Value> {
    // Its SDK's names for two fields its command hooks' payload names as
    // Claude Code does (`cwd`, `stop_hook_active`), in case a release
    // sends those.
    let names = [
        ("sessionId", "session_id"),
        ("transcriptPath", "transcript_path"),
        ("workingDirectory", "cwd"),
        ("stopHookActive", "stop_hook_active"),
    ];
    for (own, claude) in names {
        if let Some(v) = raw.get(own).cloned() {
            raw.entry(claude).or_insert(v);
        }
    }
    if let Some(claude) = EventKind::named_in(name, Dialect::Copilot).and_then(|e| e.name_in(Dialect::Claude)) {
        raw.insert("hook_event_name".into(), json!(claude));
    }
    if let Some(tool) = raw.get("toolName").and_then(Value::as_str) {
        let claude = crate::agent::COPILOT_TOOLS
            .iter()
            .find(|(own, _)| *own == tool)
            .map_or(tool, |(_, c)| c);
        raw.insert("tool_name".into(), json!(claude));
    }
    if let Some(args) = raw.get("toolArgs").cloned() {
        let args = match args {
            Value::String(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
            v => v,
        };
        raw.insert("tool_input".into(), args);
    }
    if let Some(result) = raw.get("toolResult").cloned() {
        let text = result
            .get("textResultForLlm")
            .cloned()
            .unwrap_or_else(|| result.clone());
        let response = match raw.get("tool_name").and_then(Value::as_str) {
            Some("Bash") => shell_output(text),
            _ => text,
        };
        raw.insert("tool_response".into(), response);
    }
    if let Some(e) = raw.get("error").cloned() {
        raw.entry("tool_error").or_insert(e);
    }
    if let Some(r) = raw.get("stopReason").cloned() {
        raw.entry("stop_reason").or_insert(r);
    }
    raw
}

/// Cline's payload (3.0.65) in Claude Code's shape, its own fields kept:
/// `taskId` is the session, the first of `workspaceRoots` the folder, its
/// shell tool (`run_commands`, a list of commands) is `Bash` with the
/// commands one per line, and that tool's result its output.
fn from_cline(name: &str, mut raw: Map<String, Value>) -> Map<String, Value> {
    if let Some(t) = raw.get("taskId").cloned() {
        raw.entry("session_id").or_insert(t);
    }
    if let Some(root) = raw.get("workspaceRoots").and_then(|r| r.get(0)).cloned() {
        raw.entry("cwd").or_insert(root);
    }
    if let Some(e) = crate::agent::cline_event(name).and_then(|e| e.name_in(Dialect::Claude)) {
        raw.insert("hook_event_name".into(), json!(e));
    }
    // The task's last answer, which a Stop hook reads as Claude Code's
    // `last_assistant_message`; Cline has no forced continuation.
    if let Some(text) = raw.get("turn").and_then(|t| t.get("outputText")).cloned() {
        raw.entry("last_assistant_message").or_insert(text);
        raw.entry("stop_hook_active").or_insert(json!(false));
    }
    if let Some(p) = raw.get("userPromptSubmit").and_then(|u| u.get("prompt")).cloned() {
        raw.entry("prompt").or_insert(p);
    }
    let call = raw.get("tool_call").or_else(|| raw.get("tool_result")).cloned();
    if let Some(call) = call {
        let tool = call.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
        let input = call.get("input").cloned().unwrap_or(json!({}));
        if let Some(id) = call.get("id").cloned() {
            raw.insert("tool_use_id".into(), id);
        }
        let output = call.get("output").cloned();
        if tool == "run_commands" {
            // Whatever the model sent is judged: an element that is not a
            // string, or input not in the tool's shape, as its JSON text.
            let commands: Vec<String> = match input.get("commands") {
                Some(Value::Array(a)) => a.iter().cloned().map(text_of).collect(),
                _ => vec![input.to_string()],
            };
            raw.insert("tool_name".into(), json!("Bash"));
            raw.insert("tool_input".into(), json!({"command": commands.join("\n")}));
            if let Some(output) = output {
                let text: Vec<String> = output
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|r| match r.get("result") {
                                Some(Value::String(s)) => s.clone(),
                                Some(other) => other.to_string(),
                                None => r.to_string(),
                            })
                            .collect()
                    })
                    .unwrap_or_else(|| vec![output.to_string()]);
                raw.insert("tool_response".into(), shell_output(json!(text.join("\n"))));
            }
        } else {
            raw.insert("tool_name".into(), json!(tool));
            raw.insert("tool_input".into(), input);
            if let Some(output) = output {
                raw.insert("tool_response".into(), output);
            }
        }
    }
    raw
}

/// The current time as RFC 3339 UTC with milliseconds, as gemini-cli writes it.
pub fn rfc3339_now() -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    rfc3339(now.as_secs() as i64, now.subsec_millis())
}

fn rfc3339(secs: i64, millis: u32) -> String {
    // Howard Hinnant's days-to-civil algorithm.
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool's result as text, whichever agent ran it: Claude Code's
    /// streams, gemini-cli's `llmContent`, anything else as its JSON.
    #[test]
    fn a_result_reads_as_text_from_every_agent() {
        assert_eq!(result_text(&json!({"stdout": "out", "stderr": "err"})), "out\nerr");
        assert_eq!(result_text(&json!({"stdout": "", "stderr": "err"})), "err");
        assert_eq!(
            result_text(&json!({"llmContent": "said", "returnDisplay": "x"})),
            "said"
        );
        assert_eq!(result_text(&json!({"success": true})), "{\"success\":true}");
        assert_eq!(result_text(&json!("plain")), "plain");
    }

    /// Every command of Cline's shell tool reaches the guards, also one
    /// that is not a string, and input in another shape as its text.
    #[test]
    fn clines_commands_are_judged_whatever_their_shape() {
        let call = |input: Value| {
            let raw = json!({"clineVersion": "", "hookName": "tool_call", "taskId": "t",
                "tool_call": {"id": "c", "name": "run_commands", "input": input}});
            from_wire("PreToolUse", Dialect::Claude, raw.as_object().unwrap().clone())
        };
        let m = call(json!({"commands": ["ls", {"cmd": "rm -rf ~"}]}));
        assert_eq!(m["tool_name"], "Bash");
        assert_eq!(m["tool_input"]["command"], "ls\n{\"cmd\":\"rm -rf ~\"}");
        let m = call(json!({"command": "rm -rf ~"}));
        assert!(m["tool_input"]["command"].as_str().unwrap().contains("rm -rf ~"));
        assert_eq!(m["session_id"], "t");
    }

    #[test]
    fn rfc3339_known_dates() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_795_398_930, 5), "2026-11-23T01:55:30.005Z");
        assert_eq!(rfc3339(951_782_400, 0), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn fill_keeps_given_fields() {
        let mut m = Map::new();
        m.insert("session_id".into(), json!("given"));
        let facts = SessionFacts {
            session_id: "generated",
            cwd: Path::new("/w"),
            transcript_path: None,
        };
        fill_common(&mut m, EventKind::BeforeTool, &facts);
        assert_eq!(m["session_id"], "given");
        assert_eq!(m["cwd"], "/w");
        assert_eq!(m["hook_event_name"], "BeforeTool");
    }

    #[test]
    fn jcli_sees_strings_and_its_names() {
        let canonical = json!({"hook_event_name": "BeforeTool", "tool_name": "Bash",
            "tool_input": {"command": "ls"}})
        .as_object()
        .unwrap()
        .clone();
        let j = for_dialect(EventKind::BeforeTool, Dialect::Jcli, &canonical);
        assert_eq!(j["event"], "pre_tool_execution");
        assert_eq!(j["tool_arguments"], "{\"command\":\"ls\"}");
        let c = for_dialect(EventKind::BeforeTool, Dialect::Claude, &canonical);
        assert_eq!(c["hook_event_name"], "PreToolUse");
    }
}
