//! The replay's tools, confined to the workdir: a path that resolves outside
//! it (through `..`, an absolute path or a symlink) is refused.

use std::path::{Path, PathBuf};
use std::time::Duration;

use hookshot_runner::{RunEnv, Runner};
use serde_json::{Map, Value, json};

/// How long `run_shell_command` may run.
const SHELL_TIMEOUT: Duration = Duration::from_secs(60);

/// The tools a replayed model may call.
#[derive(Debug)]
pub struct Tools {
    root: PathBuf,
    runner: Runner,
    /// The session's `CLAUDE_ENV_FILE`, sourced before each shell command.
    pub env_file: Option<PathBuf>,
}

/// The name a tool is known by (aliases folded).
pub fn canonical_name(name: &str) -> &str {
    match name {
        "list_dir" | "ls" => "list_directory",
        "shell" | "run_shell" => "run_shell_command",
        "edit" => "replace",
        other => other,
    }
}

/// Function declarations offered to the model.
pub fn declarations() -> Value {
    let decl = |name: &str, description: &str, props: Value, required: &[&str]| {
        json!({"name": name, "description": description,
               "parameters": {"type": "OBJECT", "properties": props, "required": required}})
    };
    let s = json!({"type": "STRING"});
    json!([{"functionDeclarations": [
        decl("read_file", "Reads a file in the project.", json!({"file_path": s}), &["file_path"]),
        decl("write_file", "Writes a file in the project.", json!({"file_path": s, "content": s}), &["file_path", "content"]),
        decl("replace", "Replaces text in a file.", json!({"file_path": s, "old_string": s, "new_string": s}), &["file_path", "old_string", "new_string"]),
        decl("list_directory", "Lists a directory of the project.", json!({"path": s}), &["path"]),
        decl("run_shell_command", "Runs a shell command in the project.", json!({"command": s}), &["command"]),
    ]}])
}

fn arg<'a>(args: &'a Map<String, Value>, names: &[&str]) -> Result<&'a str, String> {
    names
        .iter()
        .find_map(|n| args.get(*n).and_then(Value::as_str))
        .ok_or_else(|| format!("missing argument \"{}\"", names[0]))
}

impl Tools {
    /// Tools working in `root`.
    pub fn new(root: &Path) -> Tools {
        Tools {
            root: std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
            runner: Runner::default(),
            env_file: None,
        }
    }

    /// Resolves a path argument inside the workdir, or says why not.
    pub fn resolve(&self, p: &str) -> Result<PathBuf, String> {
        let out = hookshot_core::paths::lexical_join(&self.root, p);
        let escapes = || format!("path \"{p}\" is outside the workdir");
        if !out.starts_with(&self.root) {
            return Err(escapes());
        }
        // A symlink inside may point outside: check what exists of the path.
        let mut existing = out.as_path();
        while !existing.exists() {
            match existing.parent() {
                Some(parent) => existing = parent,
                None => break,
            }
        }
        if let Ok(real) = std::fs::canonicalize(existing)
            && !real.starts_with(&self.root)
        {
            return Err(escapes());
        }
        Ok(out)
    }

    /// Runs a tool; `Ok` is the output for the model, `Err` the error.
    pub async fn call(&self, name: &str, args: &Map<String, Value>) -> Result<String, String> {
        match canonical_name(name) {
            "read_file" => {
                let p = self.resolve(arg(args, &["file_path", "absolute_path", "path"])?)?;
                std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))
            }
            "write_file" => {
                let rel = arg(args, &["file_path", "absolute_path", "path"])?;
                let content = arg(args, &["content"])?;
                let p = self.resolve(rel)?;
                let existed = p.exists();
                if let Some(dir) = p.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                }
                std::fs::write(&p, content).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
                Ok(if existed {
                    format!("Successfully overwrote file: {rel}")
                } else {
                    format!("Successfully created and wrote to new file: {rel}")
                })
            }
            "replace" => {
                let rel = arg(args, &["file_path", "absolute_path", "path"])?;
                let old = arg(args, &["old_string"])?;
                let new = arg(args, &["new_string"])?;
                let p = self.resolve(rel)?;
                let text = std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
                let n = text.matches(old).count();
                if old.is_empty() || n == 0 {
                    return Err(format!("old_string not found in {rel}"));
                }
                let expected = args.get("expected_replacements").and_then(Value::as_u64).unwrap_or(1) as usize;
                if n != expected {
                    return Err(format!(
                        "expected {expected} occurrence(s) of old_string in {rel}, found {n}"
                    ));
                }
                std::fs::write(&p, text.replace(old, new)).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
                Ok(format!("Successfully modified file: {rel} ({n} replacement(s))"))
            }
            "list_directory" => {
                let rel = arg(args, &["path", "dir_path", "directory"]).unwrap_or(".");
                let p = self.resolve(rel)?;
                let mut entries: Vec<String> = std::fs::read_dir(&p)
                    .map_err(|e| format!("cannot list {}: {e}", p.display()))?
                    .filter_map(Result::ok)
                    .map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        if e.path().is_dir() {
                            format!("[DIR] {name}")
                        } else {
                            name
                        }
                    })
                    .collect();
                entries.sort();
                Ok(format!("Directory listing for {rel}:\n{}", entries.join("\n")))
            }
            "run_shell_command" => {
                let command = arg(args, &["command"])?;
                let cwd = match args.get("directory").and_then(Value::as_str) {
                    Some(d) => self.resolve(d)?,
                    None => self.root.clone(),
                };
                let env = RunEnv {
                    cwd,
                    ..RunEnv::default()
                };
                // As Claude Code does: what SessionStart hooks exported
                // holds for every later command of the session.
                let line = match &self.env_file {
                    Some(f) if std::fs::metadata(f).is_ok_and(|m| m.len() > 0) => {
                        let quoted = f.display().to_string().replace('\'', r"'\''");
                        format!(". '{quoted}' && {command}")
                    }
                    _ => command.to_string(),
                };
                let c = self.runner.run_command(&line, SHELL_TIMEOUT, b"", &env).await;
                if let Some(e) = c.exit.spawn_error {
                    return Err(e);
                }
                let code = c.exit.code.map_or_else(|| "(none)".to_string(), |c| c.to_string());
                let mut out = format!(
                    "Command: {command}\nStdout: {}\nStderr: {}\nExit Code: {code}",
                    c.stdout.trim_end(),
                    c.stderr.trim_end()
                );
                if c.exit.timed_out {
                    out.push_str(&format!("\nTimed out after {}s", SHELL_TIMEOUT.as_secs()));
                }
                Ok(out)
            }
            other => Err(format!("tool \"{other}\" not found")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_confined() {
        let dir = tempfile::tempdir().unwrap();
        let t = Tools::new(dir.path());
        assert!(t.resolve("a/b.txt").is_ok());
        assert!(t.resolve("a/../b.txt").is_ok());
        assert!(t.resolve("../x").is_err());
        assert!(t.resolve("/etc/passwd").is_err());
        std::os::unix::fs::symlink("/etc", dir.path().join("link")).unwrap();
        assert!(t.resolve("link/passwd").is_err());
    }

    #[tokio::test]
    async fn write_read_replace_list() {
        let dir = tempfile::tempdir().unwrap();
        let t = Tools::new(dir.path());
        let a = |v: Value| v.as_object().unwrap().clone();
        t.call("write_file", &a(json!({"file_path": "d/x.txt", "content": "hello"})))
            .await
            .unwrap();
        t.call(
            "replace",
            &a(json!({"file_path": "d/x.txt", "old_string": "ll", "new_string": "LL"})),
        )
        .await
        .unwrap();
        assert_eq!(
            t.call("read_file", &a(json!({"file_path": "d/x.txt"}))).await.unwrap(),
            "heLLo"
        );
        let l = t.call("list_dir", &a(json!({"path": "."}))).await.unwrap();
        assert!(l.contains("[DIR] d"), "{l}");
        let s = t
            .call("run_shell_command", &a(json!({"command": "cat d/x.txt"})))
            .await
            .unwrap();
        assert!(s.contains("Stdout: heLLo"), "{s}");
        assert!(t.call("nope", &Map::new()).await.is_err());
    }
}
