//! MCP servers for Claude Code's `mcp_tool` hooks, spoken to with the
//! official Rust SDK (`rmcp`) over stdio.
//!
//! A server is started on first use, in its own process group like every
//! hook, and kept for the life of the runner: a session's later calls (in
//! `serve` or `replay`) reuse it instead of paying its start-up again. A
//! server that dies or breaks the protocol is dropped, its group killed,
//! and the next call starts it anew. Its stderr is kept (the last
//! [`STDERR_TAIL`] bytes) so a failure can say what the server said.
//!
//! Without the `mcp` feature the runner has no MCP client: every
//! `mcp_tool` hook fails with that reason, which the failure policy turns
//! into a warning or, under `closed`, a block.

use serde_json::Value;

#[cfg(feature = "mcp")]
mod client;
#[cfg(feature = "mcp")]
pub use client::{McpPool, STDERR_TAIL};

#[cfg(not(feature = "mcp"))]
pub use absent::McpPool;

/// What a tool answered.
#[derive(Debug, Clone, Default)]
pub struct ToolAnswer {
    /// Its text blocks, one per line: read like a command's stdout.
    pub text: String,
    /// The tool reported an error (`isError`).
    pub is_error: bool,
}

#[cfg(not(feature = "mcp"))]
mod absent {
    use std::time::Duration;

    use hookshot_core::{Failure, FailureKind, McpStdio};
    use serde_json::{Map, Value};
    use tokio::time::Instant;

    use super::ToolAnswer;
    use crate::RunEnv;

    /// No MCP client in this build.
    #[derive(Debug, Default)]
    pub struct McpPool;

    impl McpPool {
        /// Fails: this build has no MCP client.
        pub async fn call(
            &self,
            name: &str,
            _spec: &McpStdio,
            tool: &str,
            _arguments: Option<Map<String, Value>>,
            _env: &RunEnv,
            _deadline: Instant,
        ) -> Result<ToolAnswer, Failure> {
            Err(Failure::new(
                FailureKind::Spawn,
                format!(
                    "calls {tool} on the MCP server \"{name}\", but this hookshot was built without MCP support (the `mcp` feature)"
                ),
            ))
        }

        /// Nothing to end.
        pub async fn shutdown(&self, _grace: Duration) {}
    }
}

/// Claude Code's `${path}` in an `mcp_tool` hook's `input`: each string
/// value has its `${a.b}` references replaced by those fields of the hook's
/// input. A string that is one reference and nothing else takes the
/// field's value as it is (a number stays a number); inside longer text a
/// value that is not a string is written as JSON; a missing field is empty.
pub fn fill(template: &Value, input: &Value) -> Value {
    match template {
        Value::String(s) => fill_string(s, input),
        Value::Array(items) => Value::Array(items.iter().map(|v| fill(v, input)).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), fill(v, input))).collect()),
        other => other.clone(),
    }
}

fn lookup<'a>(input: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(input, |v, key| match v {
        Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => v.get(key),
    })
}

fn fill_string(s: &str, input: &Value) -> Value {
    if let Some(path) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}'))
        && !path.contains(['{', '}', '$'])
    {
        return lookup(input, path)
            .cloned()
            .unwrap_or_else(|| Value::String(String::new()));
    }
    let filled = hookshot_core::subst::braced(s, |path| {
        Ok::<_, std::convert::Infallible>(match lookup(input, path) {
            Some(Value::String(v)) => v.clone(),
            Some(v) => v.to_string(),
            None => String::new(),
        })
    });
    Value::String(filled.unwrap_or_else(|never| match never {}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_fill_from_the_hook_input() {
        let input = json!({"tool_input": {"file_path": "/p/a.rs", "n": 3, "list": ["x", "y"]}, "cwd": "/p"});
        let template = json!({
            "file_path": "${tool_input.file_path}",
            "n": "${tool_input.n}",
            "text": "in ${cwd}: ${tool_input.n} ${tool_input.list.1} ${missing}!",
            "keep": 5,
            "nested": ["${cwd}"]
        });
        assert_eq!(
            fill(&template, &input),
            json!({"file_path": "/p/a.rs", "n": 3, "text": "in /p: 3 y !", "keep": 5, "nested": ["/p"]})
        );
        assert_eq!(fill(&json!("${unclosed"), &input), json!("${unclosed"));
    }
}
