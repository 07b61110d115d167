//! `mcpServers` and the `.mcp.json` files beside a settings file or plugin.

use super::*;

impl Parser<'_> {
    /// Reads an `mcpServers` object (of this file or one beside it).
    pub(super) fn mcp_servers(
        &mut self,
        path: &Path,
        positions: &Positions,
        servers: &Value,
        base: &str,
        prefix: String,
        vars: &[(String, String)],
    ) {
        crate::mcp::Reader {
            path,
            positions,
            source: self.source,
            prefix,
            vars,
            out: &mut self.out.mcp_servers,
            warnings: &mut self.out.warnings,
        }
        .servers(servers, base);
    }

    /// A Claude Code plugin's MCP servers, which its hooks call by the
    /// scoped name `plugin:<plugin>:<server>`: its `.mcp.json`, and the
    /// `mcpServers` of its manifest (inline, or the paths of more files).
    pub(super) fn plugin_servers(&mut self, root: &Path, data: &Path) {
        let vars = [
            ("CLAUDE_PLUGIN_ROOT".to_string(), root.display().to_string()),
            ("CLAUDE_PLUGIN_DATA".to_string(), data.display().to_string()),
        ];
        let manifest_path = root.join(".claude-plugin").join("plugin.json");
        let manifest = self.side_file(&manifest_path);
        let name = manifest
            .as_ref()
            .and_then(|(v, _)| v.get("name").and_then(Value::as_str).map(str::to_string))
            .or_else(|| root.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        let prefix = format!("plugin:{name}:");
        let mut files = vec![root.join(".mcp.json")];
        if let Some((m, positions)) = &manifest {
            match m.get("mcpServers") {
                Some(Value::String(rel)) => files.push(root.join(rel)),
                Some(Value::Array(rels)) => files.extend(rels.iter().filter_map(Value::as_str).map(|r| root.join(r))),
                Some(inline @ Value::Object(_)) => {
                    self.mcp_servers(&manifest_path, positions, inline, "/mcpServers", prefix.clone(), &vars);
                }
                _ => {}
            }
        }
        files.dedup();
        for f in files {
            if let Some((v, positions)) = self.side_file(&f)
                && let Some(servers) = v.get("mcpServers")
            {
                self.mcp_servers(&f, &positions, servers, "/mcpServers", prefix.clone(), &vars);
            }
        }
    }

    /// A JSON file beside the one being read (a plugin's manifest or MCP
    /// file): absent is fine, unreadable or invalid is a warning there.
    fn side_file(&mut self, path: &Path) -> Option<(Value, Positions)> {
        let warn = |this: &mut Self, line, column, message: String| {
            this.out.warnings.push(Diagnostic::at_line(path, line, column, message));
        };
        let bytes = match crate::read::read_settings(path) {
            Ok(b) => b,
            Err(crate::read::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                warn(
                    self,
                    0,
                    0,
                    format!("cannot read it: {e}; its MCP servers are not loaded"),
                );
                return None;
            }
        };
        let text = String::from_utf8_lossy(&bytes);
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => Some((v, Positions::of_json(&text))),
            Err(e) => {
                let msg = format!(
                    "invalid JSON: {}; its MCP servers are not loaded",
                    strip_position(&e.to_string())
                );
                warn(self, e.line(), e.column(), msg);
                None
            }
        }
    }
}
