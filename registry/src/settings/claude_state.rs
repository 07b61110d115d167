//! `~/.claude.json`: Claude Code's state file, read for its MCP servers only.

use super::*;

/// What hookshot reads of Claude Code's `~/.claude.json`: the user's MCP
/// servers and each project's. The file is mostly Claude Code's own state
/// and often megabytes; the rest of it is skipped without being built.
#[derive(serde::Deserialize)]
struct ClaudeState {
    #[serde(rename = "mcpServers")]
    mcp_servers: Option<Value>,
    #[serde(default)]
    projects: std::collections::HashMap<String, ClaudeProject>,
}

#[derive(serde::Deserialize)]
struct ClaudeProject {
    #[serde(rename = "mcpServers")]
    mcp_servers: Option<Value>,
}

/// `~/.claude.json` read for its MCP servers only. Line and column are
/// looked up (a scan of the whole file) only when there is something to
/// report.
pub(super) fn claude_state(path: &Path, text: &str, source: SourceKind, cx: &Context) -> Result<SettingsFile, Error> {
    let mut state: ClaudeState = serde_json::from_str(text).map_err(|e| invalid_json(path, &e))?;
    let mut kept = Map::new();
    if let Some(servers) = state.mcp_servers {
        kept.insert("mcpServers".into(), servers);
    }
    if let Some(project) = &cx.project {
        let key = project.display().to_string();
        if let Some(servers) = state.projects.remove(&key).and_then(|p| p.mcp_servers) {
            let mut entry = Map::new();
            entry.insert("mcpServers".into(), servers);
            let mut projects = Map::new();
            projects.insert(key, Value::Object(entry));
            kept.insert("projects".into(), Value::Object(projects));
        }
    }
    let kept = Value::Object(kept);
    match run_parser(path, &kept, &Positions::default(), source, cx, false) {
        Ok(file) if file.warnings.is_empty() => Ok(file),
        _ => run_parser(path, &kept, &Positions::of_json(text), source, cx, false),
    }
}
