//! Codex's `config.toml`: its `[hooks]` tables hold the same hooks as a
//! `hooks.json` (`[[hooks.PreToolUse]]` groups, `[[hooks.PreToolUse.hooks]]`
//! handlers). The rest of the file is Codex's and is left alone.
//!
//! Positions come from a line scan of table headers and `key =` lines,
//! which is how such files are written; anything else (inline tables,
//! arrays) is placed at the nearest table the scan saw.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::Error;
use crate::position::{Positions, escape_token};

/// The key under which the parsed file carries Codex's MCP servers (its
/// own name, `mcp_servers`, which no JSON settings format uses).
pub(crate) const CODEX_SERVERS: &str = "mcp_servers";

/// The `hooks` of a `config.toml`, as `{"hooks": ...}`, and its
/// `mcp_servers` (the servers its mcp_tool hooks call), with positions.
pub fn parse(path: &Path, text: &str) -> Result<(Value, Positions), Error> {
    let doc: Value = ::toml::from_str(text).map_err(|e| {
        let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
        Error::syntax(path, line, column, format!("invalid TOML: {}", e.message()))
    })?;
    let mut top = Map::new();
    if let Some(hooks) = doc.get("hooks") {
        top.insert("hooks".into(), hooks.clone());
    }
    if let Some(servers) = doc.get(CODEX_SERVERS) {
        top.insert(CODEX_SERVERS.into(), servers.clone());
    }
    Ok((Value::Object(top), positions(text)))
}

pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rfind('\n').map_or(before.len(), |i| before.len() - i - 1) + 1;
    (line, column)
}

/// Pointers of table headers and their `key =` lines.
fn positions(text: &str) -> Positions {
    let mut p = Positions::default();
    // How many times each array-of-tables path was opened so far.
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut current = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let n = i + 1;
        let column = raw.len() - raw.trim_start().len() + 1;
        if let Some(name) = line.strip_prefix("[[").and_then(|l| l.split("]]").next()) {
            let parts: Vec<&str> = name.split('.').map(str::trim).collect();
            // Each [[a.b]] opens a new element of a.b, inside the latest
            // element of its parents.
            let mut ptr = String::new();
            let mut path = String::new();
            for (k, part) in parts.iter().enumerate() {
                path.push('.');
                path.push_str(part);
                ptr.push('/');
                ptr.push_str(&escape_token(part.trim_matches('"')));
                let last = k + 1 == parts.len();
                if last {
                    let c = counts.entry(path.clone()).or_insert(0);
                    ptr.push_str(&format!("/{c}"));
                    *c += 1;
                } else if let Some(c) = counts.get(&path) {
                    ptr.push_str(&format!("/{}", c.saturating_sub(1)));
                }
            }
            p.insert_value(ptr.clone(), n, column);
            current = ptr;
        } else if let Some(name) = line.strip_prefix('[').and_then(|l| l.split(']').next()) {
            current = name
                .split('.')
                .map(|s| format!("/{}", escape_token(s.trim().trim_matches('"'))))
                .collect();
            p.insert_value(current.clone(), n, column);
        } else if let Some((key, _)) = line.split_once('=')
            && !line.starts_with('#')
        {
            let key = key.trim().trim_matches('"');
            let ptr = format!("{current}/{}", escape_token(key));
            let value_col = raw
                .find('=')
                .map_or(column, |e| e + 2 + raw[e + 1..].len() - raw[e + 1..].trim_start().len());
            p.insert_key(ptr.clone(), n, column);
            p.insert_value(ptr, n, value_col);
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_tables_become_the_json_shape_with_lines() {
        let text = "model = \"gpt-5\"\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"./check.sh\"\ntimeout = 30\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"true\"\n";
        let (v, p) = parse(Path::new("config.toml"), text).unwrap();
        assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "./check.sh");
        assert!(v.get("model").is_none());
        assert_eq!(p.value("/hooks/PreToolUse/0/matcher"), (4, 11));
        assert_eq!(p.key("/hooks/PreToolUse/0/hooks/0/timeout"), (9, 1));
        assert_eq!(p.value("/hooks/Stop/0/hooks/0"), (12, 1));
        let e = parse(Path::new("config.toml"), "[hooks\n").unwrap_err();
        assert!(e.to_string().starts_with("config.toml:1:"), "{e}");
    }
}
