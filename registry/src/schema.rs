//! The JSON Schema of the settings format (`hookshot schema`), for editor
//! completion and checks. Event names come from the event table in core, so
//! the schema cannot drift from what the parser accepts.
//!
//! Written by hand rather than derived with schemars: the parser reads
//! positioned JSON values (to name line and column), not serde structs, so
//! there is no type to derive from.

use hookshot_core::{Dialect, EventKind};
use serde_json::{Map, Value, json};

use crate::settings::{BUILTIN_OPTIONS, BUILTINS, OptionKind, PICOCLAW_PROCESS_KEYS};

fn names(dialects: &[Dialect]) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = EventKind::ALL
        .iter()
        .flat_map(|e| dialects.iter().filter_map(move |d| e.name_in(*d)))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Each built-in's options object, from the option table the parser reads.
fn builtin_schemas() -> Value {
    let mut out = Map::new();
    for (name, options) in BUILTIN_OPTIONS {
        let mut props = Map::new();
        for o in *options {
            let schema = match &o.kind {
                OptionKind::Enabled => json!({"type": "boolean"}),
                OptionKind::Mode(modes) => json!({"enum": modes}),
                OptionKind::Path => {
                    json!({"type": "string", "description": "JSON Lines file: relative to the state directory from user and system settings, to the workdir from others; a project's must stay inside the project"})
                }
                OptionKind::Bounded(range, _) => {
                    json!({"type": "integer", "minimum": range.start(), "maximum": range.end()})
                }
                OptionKind::Patterns => json!({"type": "array", "items": {"type": "string", "format": "regex"}}),
                OptionKind::RulesFile => {
                    json!({"type": "string", "description": "a gitleaks rules file (TOML), relative to this file's folder"})
                }
            };
            props.insert(o.key.into(), schema);
        }
        let mut object = json!({"type": "object", "additionalProperties": false, "properties": props});
        // The audit log needs to know where to write.
        if options.iter().any(|o| o.kind == OptionKind::Path) {
            object["required"] = json!(["path"]);
        }
        out.insert((*name).into(), json!({"oneOf": [{"type": "boolean"}, object]}));
    }
    Value::Object(out)
}

/// The schema.
pub fn schema() -> Value {
    let mut hook_events = Map::new();
    for n in names(&Dialect::ALL) {
        hook_events.insert(
            n.into(),
            json!({"type": "array", "items": {"$ref": "#/$defs/matcherGroup"}}),
        );
    }
    // picoclaw's keys inside "hooks", beside the event names.
    hook_events.insert(
        "enabled".into(),
        json!({"type": "boolean", "description": "picoclaw: turn its hooks on or off."}),
    );
    hook_events.insert(
        "defaults".into(),
        json!({"type": "object", "description": "picoclaw: timeouts in milliseconds.", "properties": {
            "observer_timeout_ms": {"type": "integer", "minimum": 1},
            "interceptor_timeout_ms": {"type": "integer", "minimum": 1},
            "approval_timeout_ms": {"type": "integer", "minimum": 1}
        }}),
    );
    hook_events.insert(
        "builtins".into(),
        json!({"description": "picoclaw: its compiled-in hooks, which hookshot skips (see the top-level builtins)."}),
    );
    let process_keys: Map<String, Value> = PICOCLAW_PROCESS_KEYS
        .iter()
        .map(|k| {
            let t = match *k {
                "enabled" => json!({"type": "boolean"}),
                "priority" => json!({"type": "integer"}),
                "transport" => json!({"const": "stdio"}),
                "command" => json!({"oneOf": [
                    {"type": "array", "items": {"type": "string"}, "minItems": 1},
                    {"type": "string", "minLength": 1}]}),
                "dir" => json!({"type": "string"}),
                "env" => json!({"type": "object"}),
                _ => json!({"type": "array", "items": {"type": "string"}}),
            };
            ((*k).to_string(), t)
        })
        .collect();
    hook_events.insert(
        "processes".into(),
        json!({"type": "object", "description": "picoclaw: JSON-RPC hook processes by name.",
            "additionalProperties": {"type": "object", "required": ["command"], "properties": process_keys}}),
    );
    let mut jcli_events = Map::new();
    for n in names(&[Dialect::Jcli]) {
        jcli_events.insert(
            n.into(),
            json!({"type": "array", "items": {"$ref": "#/$defs/jcliHook"}}),
        );
    }
    let mut properties = json!({
        "hooksConfig": {
            "description": "gemini-cli: turn hooks on or off, and disable hooks by name or command.",
            "type": "object",
            "properties": {
                "enabled": {"type": "boolean"},
                "disabled": {"type": "array", "items": {"type": "string"}}
            }
        },
        "disableAllHooks": {"description": "Claude Code: turn every hook off.", "type": "boolean"},
        "allowedHttpHookUrls": {"description": "Claude Code: URLs http hooks may POST to (* is a wildcard); lists merge, and a system or user list cannot be widened by other files.", "type": "array", "items": {"type": "string"}},
        "httpHookAllowedEnvVars": {"description": "Claude Code: variables any http hook may interpolate into its headers.", "type": "array", "items": {"type": "string"}},
        "mcpServers": {
            "description": "MCP servers mcp_tool hooks call, as in Claude Code's .mcp.json: name -> {command, args, env} (${VAR} and ${VAR:-default} expand). Only stdio servers are called.",
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "type": {"enum": ["stdio", "http", "sse"]},
                    "command": {"type": "string"},
                    "args": {"type": "array", "items": {"type": "string"}},
                    "env": {"type": "object", "additionalProperties": {"type": "string"}},
                    "cwd": {"type": "string"},
                    "url": {"type": "string"},
                    "headers": {"type": "object", "additionalProperties": {"type": "string"}}
                }
            }
        },
        "hooks": {
            "description": "Event name (any dialect) -> matcher groups.",
            "type": "object",
            "properties": hook_events,
            "additionalProperties": false
        },
        "builtins": {
            "description": "Built-in hooks to enable.",
            "type": "object",
            "properties": builtin_schemas(),
            "propertyNames": {"enum": BUILTINS}
        }
    });
    if let Some(p) = properties.as_object_mut() {
        p.extend(jcli_events);
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/hookshot/hookshot/settings.schema.json",
        "title": "hookshot settings",
        "description": "gemini-cli and Claude Code settings.json hooks, jcli hooks.yaml events at the top level, and hookshot's builtins. Other keys of an agent's settings file are allowed and ignored.",
        "type": "object",
        "properties": properties,
        "$defs": {
            "matcherGroup": {
                "type": "object",
                "properties": {
                    "matcher": {"type": "string", "description": "Tool name, A|B list or regex (gemini: unanchored regex; Claude: letters, digits, _, -, spaces, commas and | are exact names, anything else a regex tested anywhere); for session events the trigger."},
                    "sequential": {"type": "boolean"},
                    "description": {"type": "string"},
                    "name": {"type": "string"},
                    "hooks": {"type": "array", "items": {"$ref": "#/$defs/commandHook"}}
                },
                "required": ["hooks"],
                "additionalProperties": false
            },
            "commandHook": {
                "type": "object",
                "properties": {
                    "type": {"enum": ["command", "prompt", "http", "mcp_tool", "agent"], "description": "Claude Code: http POSTs the event to url; mcp_tool calls a tool on an MCP server from mcpServers; prompt asks a model for {ok, reason}; agent lets it Read, Grep and Glob the project first"},
                    "command": {"type": "string", "minLength": 1},
                    "args": {"type": "array", "items": {"type": "string"}, "description": "Claude: exec form, no shell"},
                    "prompt": {"type": "string"},
                    "model": {"type": "string"},
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "gemini: milliseconds (default 60000); Claude: seconds (default 600)"},
                    "enabled": {"type": "boolean"},
                    "fail": {"enum": ["open", "closed"]},
                    "onFailure": {"enum": ["continue", "block"]},
                    "retry": {"type": "integer", "minimum": 0, "maximum": 10},
                    "statusMessage": {"type": "string"},
                    "if": {"type": "string", "description": "Claude: a permission rule such as Bash(git *) or Edit(*.ts)"},
                    "async": {"type": "boolean"},
                    "asyncRewake": {"type": "boolean"},
                    "once": {"type": "boolean"},
                    "shell": {"enum": ["bash", "powershell"]},
                    "continueOnBlock": {"type": "boolean"},
                    "url": {"type": "string", "pattern": "^https?://", "description": "Claude http hook: where to POST the event"},
                    "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                    "allowedEnvVars": {"type": "array", "items": {"type": "string"}},
                    "server": {"type": "string", "description": "Claude mcp_tool hook: the MCP server (a name in mcpServers; plugin:<plugin>:<server> for a plugin's)"},
                    "tool": {"type": "string", "description": "Claude mcp_tool hook: the tool to call"},
                    "input": {"type": "object", "description": "Claude mcp_tool hook: the tool's arguments; string values may hold ${path} references into the hook's input"}
                },
                "required": ["type"],
                "allOf": [
                    {"if": {"properties": {"type": {"const": "command"}}}, "then": {"required": ["command"]}},
                    {"if": {"properties": {"type": {"enum": ["prompt", "agent"]}}}, "then": {"required": ["prompt"]}},
                    {"if": {"properties": {"type": {"const": "mcp_tool"}}}, "then": {"required": ["server", "tool"]}}
                ]
            },
            "jcliHook": {
                "type": "object",
                "properties": {
                    "type": {"enum": ["bash", "llm"]},
                    "command": {"type": "string", "minLength": 1},
                    "prompt": {"type": "string"},
                    "model": {"type": "string"},
                    "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "seconds (default 10)"},
                    "on_error": {"enum": ["skip", "abort"]},
                    "retry": {"type": "integer", "minimum": 0, "maximum": 10},
                    "name": {"type": "string"},
                    "filter": {"type": "object", "properties": {
                        "tool_name": {"type": "string"},
                        "tool_matcher": {"type": "string"},
                        "model_prefix": {"type": "string"}}, "additionalProperties": false}
                },
                "additionalProperties": false
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_name_is_in_the_schema() {
        let s = schema();
        for name in EventKind::all_names() {
            let in_hooks = s["properties"]["hooks"]["properties"].get(name).is_some();
            assert!(in_hooks, "{name} missing");
        }
        assert!(s["properties"].get("pre_tool_execution").is_some());
        assert_eq!(s["properties"]["builtins"]["propertyNames"]["enum"], json!(BUILTINS));
        // The options the schema lists are the ones the parser accepts.
        for (name, keys) in crate::settings::BUILTIN_OPTIONS {
            let listed: Vec<&String> = s["properties"]["builtins"]["properties"][name]["oneOf"][1]["properties"]
                .as_object()
                .unwrap()
                .keys()
                .collect();
            let keys: Vec<&str> = keys.iter().map(|o| o.key).collect();
            assert_eq!(listed, keys, "{name}");
        }
    }
}
