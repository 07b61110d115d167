//! The MCP servers Claude Code's `mcp_tool` hooks call: their definitions
//! (`mcpServers` in `.mcp.json`, `~/.claude.json`, a plugin, or any
//! settings file hookshot reads), and which definition a hook's server
//! name means.
//!
//! Which definition a name means is where hookshot departs from Claude
//! Code on purpose. Claude Code lets a project's `.mcp.json` shadow a
//! user's server of the same name; here a project may shadow it only for
//! the project's own hooks. A user's or the system's hook resolves its
//! server among user and system definitions alone, so a project file can
//! never swap the server behind a trusted guard for one that always allows.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hookshot_core::{HookAction, HookDef, McpStdio, Provenance, SourceKind};
use serde_json::{Map, Value};

use crate::error::Diagnostic;
use crate::position::{Positions, escape_token};

/// One server a file defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerDef {
    /// The name hooks call it by (`plugin:<plugin>:<key>` for a plugin's).
    pub name: String,
    /// How to start it, or why it cannot be used by a hook.
    pub how: Result<McpStdio, String>,
    /// The kind of file that defines it.
    pub source: SourceKind,
    /// The file.
    pub defined_in: PathBuf,
}

/// Reads an `mcpServers` object found at `base` in `path`. A definition
/// this build cannot start is kept with the reason, so a hook naming it
/// says why it did not run; a malformed one is a warning at its place.
pub(crate) struct Reader<'a> {
    pub path: &'a Path,
    pub positions: &'a Positions,
    pub source: SourceKind,
    /// `plugin:<name>:` for a plugin's servers.
    pub prefix: String,
    /// Variables a plugin adds (`CLAUDE_PLUGIN_ROOT`, ...) before the
    /// environment is asked.
    pub vars: &'a [(String, String)],
    pub out: &'a mut Vec<McpServerDef>,
    pub warnings: &'a mut Vec<Diagnostic>,
}

impl Reader<'_> {
    fn warn(&mut self, pointer: &str, message: String) {
        let (line, column) = self.positions.value(pointer);
        self.warnings.push(Diagnostic {
            at: Provenance {
                file: Some(self.path.to_path_buf()),
                line,
                column,
                pointer: pointer.to_string(),
            },
            message,
        });
    }

    pub fn servers(&mut self, v: &Value, base: &str) {
        let Some(map) = v.as_object() else {
            self.warn(
                base,
                "expected an object of MCP servers by name; none of them is read".into(),
            );
            return;
        };
        for (name, def) in map {
            let ptr = format!("{base}/{}", escape_token(name));
            let Some(def) = def.as_object() else {
                self.warn(&ptr, "expected an MCP server {\"command\": ...}; it is not read".into());
                continue;
            };
            let how = self.server(def, &ptr);
            self.out.push(McpServerDef {
                name: format!("{}{name}", self.prefix),
                how,
                source: self.source,
                defined_in: self.path.to_path_buf(),
            });
        }
    }

    fn server(&mut self, def: &Map<String, Value>, ptr: &str) -> Result<McpStdio, String> {
        let kind = def.get("type").and_then(Value::as_str).unwrap_or("stdio");
        let url = ["url", "httpUrl"]
            .iter()
            .find_map(|k| def.get(*k).and_then(Value::as_str));
        if kind != "stdio" || def.get("command").is_none() && url.is_some() {
            return Err(format!(
                "is reached over {kind} ({}), and this hookshot calls tools only on stdio MCP servers",
                url.unwrap_or("no url")
            ));
        }
        let Some(command) = def.get("command").and_then(Value::as_str) else {
            self.warn(ptr, "an MCP server needs a \"command\" string (or a \"url\")".into());
            return Err("has no command".into());
        };
        let mut strings = |key: &str| -> Vec<String> {
            match def.get(key) {
                None => Vec::new(),
                Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                    items.iter().filter_map(Value::as_str).map(str::to_string).collect()
                }
                Some(_) => {
                    self.warn(
                        &format!("{ptr}/{key}"),
                        "expected a list of strings; it is ignored".into(),
                    );
                    Vec::new()
                }
            }
        };
        let args = strings("args");
        let mut env = Vec::new();
        match def.get("env") {
            None => {}
            Some(Value::Object(m)) => {
                for (k, v) in m {
                    match v.as_str() {
                        Some(s) => env.push((k.clone(), s.to_string())),
                        None => self.warn(
                            &format!("{ptr}/env/{}", escape_token(k)),
                            "expected a string; this variable is not set".into(),
                        ),
                    }
                }
            }
            Some(_) => self.warn(
                &format!("{ptr}/env"),
                "expected an object of variables; it is ignored".into(),
            ),
        }
        let expand = |s: &str| expand(s, self.vars);
        Ok(McpStdio {
            command: expand(command)?,
            args: args.iter().map(|a| expand(a)).collect::<Result<_, _>>()?,
            env: env
                .into_iter()
                .map(|(k, v)| Ok((k, expand(&v)?)))
                .collect::<Result<_, String>>()?,
            cwd: def
                .get("cwd")
                .and_then(Value::as_str)
                .map(|c| expand(c).map(PathBuf::from))
                .transpose()?,
            defined_in: self.path.to_path_buf(),
        })
    }
}

/// Claude Code's expansion in MCP server settings: `${VAR}` and
/// `${VAR:-default}`; a variable that is not set and has no default makes
/// the server unusable, as it does in Claude Code.
pub fn expand(s: &str, vars: &[(String, String)]) -> Result<String, String> {
    hookshot_core::subst::braced(s, |inner| {
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        vars.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
            .or_else(|| default.map(str::to_string))
            .ok_or_else(|| format!("needs ${{{name}}}, which is not set"))
    })
}

/// The definitions a hook from `hook` may use, most preferred first: the
/// system's hooks only the system's; a user's hooks the user's, then the
/// system's; every other hook its own tier's (the latest file first), then
/// the user's, then the system's.
fn tiers(hook: SourceKind) -> &'static [&'static [SourceKind]] {
    use SourceKind::*;
    match hook {
        Builtin | System => &[&[System]],
        User => &[&[User], &[System]],
        Project | Extension | Session | Cli => &[&[Project, Extension, Session, Cli], &[User], &[System]],
    }
}

/// `hook` with its MCP server found: a hook whose server no usable
/// definition names becomes one that reports why each time it would run
/// (naming the `untrusted` files of servers that were not read).
pub(crate) fn resolve(hook: Arc<HookDef>, defs: &[McpServerDef], untrusted: &[PathBuf]) -> Arc<HookDef> {
    let HookAction::McpTool {
        server,
        spawn: None,
        tool,
        input,
    } = &hook.action
    else {
        return hook;
    };
    let found = tiers(hook.source).iter().find_map(|tier| {
        defs.iter()
            .rev()
            .find(|d| d.name == *server && tier.contains(&d.source))
    });
    let action = match found {
        Some(McpServerDef { how: Ok(stdio), .. }) => HookAction::McpTool {
            server: server.clone(),
            spawn: Some(stdio.clone()),
            tool: tool.clone(),
            input: input.clone(),
        },
        Some(McpServerDef {
            how: Err(why),
            defined_in,
            ..
        }) => unusable(format!(
            "calls {tool} on the MCP server \"{server}\" of {}, which {why}; it did not run",
            defined_in.display()
        )),
        None => unusable(match defs.iter().find(|d| d.name == *server) {
            Some(d) => format!(
                "calls {tool} on the MCP server \"{server}\", which only {} ({} settings) defines, \
                 and a {} hook may not use a server a less trusted file defines; it did not run",
                d.defined_in.display(),
                d.source,
                hook.source
            ),
            None if !untrusted.is_empty() => format!(
                "calls {tool} on the MCP server \"{server}\", which no trusted file defines; \
                 {} may, but is not trusted (review it, then run `hookshot trust`); it did not run",
                untrusted
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => format!(
                "calls {tool} on the MCP server \"{server}\", which no file hookshot read defines \
                 (servers come from \"mcpServers\" in .mcp.json, a plugin, a settings file, \
                 or ~/.claude.json with --agent-user-files); it did not run"
            ),
        }),
    };
    Arc::new(HookDef {
        action,
        ..(*hook).clone()
    })
}

fn unusable(why: String) -> HookAction {
    HookAction::Unsupported {
        kind: "mcp_tool".into(),
        why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_expand_with_defaults_and_missing_ones_say_which() {
        let vars = vec![("ROOT".to_string(), "/p".to_string())];
        assert_eq!(expand("${ROOT}/s.py", &vars).as_deref(), Ok("/p/s.py"));
        assert_eq!(expand("${HOOKSHOT_SURELY_UNSET_X:-d}/x", &vars).as_deref(), Ok("d/x"));
        assert_eq!(
            expand("${HOOKSHOT_SURELY_UNSET_X}", &vars),
            Err("needs ${HOOKSHOT_SURELY_UNSET_X}, which is not set".to_string())
        );
        assert_eq!(expand("$PLAIN ${unclosed", &vars).as_deref(), Ok("$PLAIN ${unclosed"));
    }

    fn def(name: &str, source: SourceKind, command: &str) -> McpServerDef {
        McpServerDef {
            name: name.into(),
            how: Ok(McpStdio {
                command: command.into(),
                args: Vec::new(),
                env: Vec::new(),
                cwd: None,
                defined_in: PathBuf::from(format!("/{source}.json")),
            }),
            source,
            defined_in: PathBuf::from(format!("/{source}.json")),
        }
    }

    fn hook(source: SourceKind) -> Arc<HookDef> {
        let action = HookAction::McpTool {
            server: "guard".into(),
            spawn: None,
            tool: "check".into(),
            input: None,
        };
        Arc::new(HookDef {
            source,
            ..HookDef::new("h", hookshot_core::EventKind::BeforeTool, action)
        })
    }

    fn command_of(h: &HookDef) -> Result<String, String> {
        match &h.action {
            HookAction::McpTool { spawn: Some(s), .. } => Ok(s.command.clone()),
            HookAction::Unsupported { why, .. } => Err(why.clone()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_project_cannot_swap_the_server_behind_a_user_hook() {
        let defs = vec![
            def("guard", SourceKind::User, "user-guard"),
            def("guard", SourceKind::Project, "always-allow"),
        ];
        assert_eq!(
            command_of(&resolve(hook(SourceKind::User), &defs, &[])),
            Ok("user-guard".into())
        );
        // The project's own hooks get the project's server, as in Claude Code.
        assert_eq!(
            command_of(&resolve(hook(SourceKind::Project), &defs, &[])),
            Ok("always-allow".into())
        );
        // A server only a project defines is not one a user hook may call.
        let only_project = vec![def("guard", SourceKind::Project, "always-allow")];
        let why = command_of(&resolve(hook(SourceKind::User), &only_project, &[])).unwrap_err();
        assert!(why.contains("less trusted"), "{why}");
        let why = command_of(&resolve(hook(SourceKind::System), &defs, &[])).unwrap_err();
        assert!(why.contains("less trusted"), "{why}");
        let why = command_of(&resolve(hook(SourceKind::User), &[], &[])).unwrap_err();
        assert!(why.contains("no file hookshot read defines"), "{why}");
    }
}
