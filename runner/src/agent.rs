//! Claude Code's `agent` hooks: a verifier that may look at the project
//! with read-only tools (Read, Grep, Glob) for up to [`MAX_TURNS`] model
//! turns before it answers `{"ok": ...}`.
//!
//! The tools see only the project folder: a path that leads outside it
//! (`..`, an absolute path elsewhere, a symlink out) is refused, so a hook
//! the project wrote cannot have the model read the user's keys. Every
//! answer is capped, and the whole conversation ends by the hook's
//! deadline.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use tokio::time::Instant;

use crate::llm::ModelClient;

/// Model turns an agent hook may take, as in Claude Code.
pub const MAX_TURNS: usize = 50;
/// Bytes of one tool answer.
const MAX_ANSWER: usize = 64 << 10;
/// Files a Grep or Glob looks at.
const MAX_FILES: usize = 20_000;
/// Files larger than this are not searched.
const MAX_GREP_FILE: u64 = 1 << 20;

/// The tools the verifier is offered, as function declarations.
pub fn declarations() -> Vec<Value> {
    vec![json!({"functionDeclarations": [
        {"name": "Read", "description": "Read a file of the project; lines are numbered.",
         "parameters": {"type": "object", "properties": {
            "file_path": {"type": "string"}, "offset": {"type": "integer"}, "limit": {"type": "integer"}},
            "required": ["file_path"]}},
        {"name": "Grep", "description": "Search file contents of the project with a regular expression.",
         "parameters": {"type": "object", "properties": {
            "pattern": {"type": "string"}, "path": {"type": "string"}, "glob": {"type": "string"}},
            "required": ["pattern"]}},
        {"name": "Glob", "description": "List the project's files whose paths match a glob such as **/*.rs.",
         "parameters": {"type": "object", "properties": {
            "pattern": {"type": "string"}, "path": {"type": "string"}},
            "required": ["pattern"]}}
    ]})]
}

/// Runs the conversation and returns the verifier's final text.
pub async fn verify(
    client: &dyn ModelClient,
    prompt: String,
    model: Option<&str>,
    root: &Path,
    deadline: Instant,
) -> Result<String, String> {
    let tools = declarations();
    let mut contents = vec![json!({"role": "user", "parts": [{"text": prompt}]})];
    for _ in 0..MAX_TURNS {
        let content = tokio::time::timeout_at(deadline, client.turn(&contents, &tools, model))
            .await
            .map_err(|_| "the verifier did not answer in time".to_string())??;
        let parts = content
            .get("parts")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let calls: Vec<(String, Map<String, Value>)> = parts
            .iter()
            .filter_map(|p| p.get("functionCall"))
            .map(|c| {
                let name = c.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
                let args = c.get("args").and_then(Value::as_object).cloned().unwrap_or_default();
                (name, args)
            })
            .collect();
        contents.push(json!({"role": "model", "parts": parts}));
        if calls.is_empty() {
            return Ok(parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect());
        }
        let root = root.to_path_buf();
        let answers = tokio::task::spawn_blocking(move || {
            calls
                .into_iter()
                .map(|(name, args)| {
                    let response = match call(&name, &args, &root) {
                        Ok(output) => json!({"output": output}),
                        Err(error) => json!({"error": error}),
                    };
                    json!({"functionResponse": {"name": name, "response": response}})
                })
                .collect::<Vec<_>>()
        });
        let answers = tokio::time::timeout_at(deadline, answers)
            .await
            .map_err(|_| "the verifier's tools did not finish in time".to_string())?
            .map_err(|e| format!("a tool of the verifier failed: {e}"))?;
        contents.push(json!({"role": "user", "parts": answers}));
    }
    Err(format!("the verifier did not answer within {MAX_TURNS} turns"))
}

/// One tool call, by Claude's name or another agent's (`read_file`, ...).
fn call(name: &str, args: &Map<String, Value>, root: &Path) -> Result<String, String> {
    let mut args = args.clone();
    hookshot_core::tools::arguments_to_claude(name, &mut args);
    let text = |k: &str| args.get(k).and_then(Value::as_str);
    let number = |k: &str| args.get(k).and_then(Value::as_u64).map(|n| n as usize);
    let tool = ["Read", "Grep", "Glob"]
        .into_iter()
        .find(|t| hookshot_core::tools::same_tool(t, name))
        .ok_or_else(|| format!("no tool {name}: the verifier has Read, Grep and Glob"))?;
    let root = std::fs::canonicalize(root).map_err(|e| format!("the project folder: {e}"))?;
    let place = |p: Option<&str>| inside(&root, p.unwrap_or("."));
    let out = match tool {
        "Read" => read(
            &place(text("file_path").or(text("path")))?,
            number("offset").unwrap_or(1),
            number("limit").unwrap_or(2000),
        )?,
        "Grep" => {
            let pattern = text("pattern").ok_or("Grep needs a pattern")?;
            let re = regex::Regex::new(pattern).map_err(|e| format!("bad pattern: {e}"))?;
            let only = text("glob").map(glob).transpose()?;
            let mut out = String::new();
            for f in files(&place(text("path"))?) {
                if out.len() > MAX_ANSWER {
                    break;
                }
                let rel = f.strip_prefix(&root).unwrap_or(&f);
                if only
                    .as_ref()
                    .is_some_and(|g| !g.is_match(rel) && !rel.file_name().is_some_and(|n| g.is_match(n)))
                {
                    continue;
                }
                if std::fs::metadata(&f).map_or(true, |m| m.len() > MAX_GREP_FILE) {
                    continue;
                }
                let Ok(body) = std::fs::read_to_string(&f) else {
                    continue;
                };
                for (i, line) in body.lines().enumerate().filter(|(_, l)| re.is_match(l)) {
                    out.push_str(&format!("{}:{}:{line}\n", rel.display(), i + 1));
                }
            }
            out
        }
        _ => {
            let pattern = glob(text("pattern").ok_or("Glob needs a pattern")?)?;
            let base = place(text("path"))?;
            files(&base)
                .into_iter()
                .filter(|f| f.strip_prefix(&base).is_ok_and(|rel| pattern.is_match(rel)))
                .map(|f| f.strip_prefix(&root).unwrap_or(&f).display().to_string())
                .collect::<Vec<_>>()
                .join("\n")
        }
    };
    Ok(cap(out))
}

fn glob(pattern: &str) -> Result<globset::GlobMatcher, String> {
    globset::Glob::new(pattern)
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("bad glob: {e}"))
}

fn cap(mut s: String) -> String {
    if crate::truncate_to(&mut s, MAX_ANSWER) {
        s.push_str("\n[cut: the answer was longer]");
    }
    s
}

/// `path` (relative to the project, or absolute) if it stays inside the
/// project once symlinks are followed.
fn inside(root: &Path, path: &str) -> Result<PathBuf, String> {
    let joined = root.join(path);
    let real = std::fs::canonicalize(&joined).map_err(|e| format!("{path}: {e}"))?;
    if real.starts_with(root) {
        Ok(real)
    } else {
        Err(format!(
            "{path} is outside the project; the verifier reads only the project"
        ))
    }
}

fn read(path: &Path, offset: usize, limit: usize) -> Result<String, String> {
    let body = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&body[..body.len().min(8 * MAX_ANSWER)]).into_owned();
    Ok(text
        .lines()
        .enumerate()
        .skip(offset.saturating_sub(1))
        .take(limit)
        .map(|(i, l)| format!("{:>6}\t{l}\n", i + 1))
        .collect())
}

/// The files under `base` (itself, if a file), `.git` left out, at most
/// [`MAX_FILES`], symlinks not followed.
fn files(base: &Path) -> Vec<PathBuf> {
    if base.is_file() {
        return vec![base.to_path_buf()];
    }
    let mut out = Vec::new();
    let mut dirs = vec![base.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            if out.len() >= MAX_FILES {
                return out;
            }
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() && e.file_name() != ".git" {
                dirs.push(e.path());
            } else if kind.is_file() {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Completion, Turn};

    /// Asks for a Grep, then answers with what the Grep found: the tool's
    /// answer must reach the model.
    #[derive(Debug)]
    struct Scripted;

    impl ModelClient for Scripted {
        fn complete<'a>(&'a self, _: &'a str, _: Option<&'a str>) -> Completion<'a> {
            Box::pin(async { Err("text only".to_string()) })
        }

        fn turn<'a>(&'a self, contents: &'a [Value], tools: &'a [Value], _: Option<&'a str>) -> Turn<'a> {
            let offered = tools.to_vec();
            let last = contents.last().cloned().unwrap_or_default();
            Box::pin(async move {
                assert!(offered[0].to_string().contains("\"Grep\""));
                let found = last
                    .pointer("/parts/0/functionResponse/response/output")
                    .and_then(Value::as_str);
                Ok(match found {
                    None => {
                        json!({"role": "model", "parts": [{"functionCall": {"name": "Grep", "args": {"pattern": "TODO"}}}]})
                    }
                    Some(hit) => {
                        json!({"role": "model", "parts": [{"text": format!("{{\"ok\": false, \"reason\": \"{}\"}}", hit.trim())}]})
                    }
                })
            })
        }
    }

    #[tokio::test]
    async fn tool_answers_reach_the_model() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "x\n// TODO\n").unwrap();
        let deadline = Instant::now() + std::time::Duration::from_secs(5);
        let text = verify(&Scripted, "check".into(), None, dir.path(), deadline)
            .await
            .unwrap();
        assert_eq!(text, "{\"ok\": false, \"reason\": \"a.rs:2:// TODO\"}");
    }

    #[test]
    fn tools_read_search_and_list_only_inside_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "fn main() {}\n// TODO: test\n").unwrap();
        std::fs::write(dir.path().join("secret"), "key").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret"), root.join("link")).unwrap();
        let args = |v: Value| v.as_object().unwrap().clone();
        let read = call("Read", &args(json!({"file_path": "src/a.rs"})), &root).unwrap();
        assert!(read.contains("     2\t// TODO: test"), "{read}");
        // gemini's name and argument for the same tool.
        let read = call("read_file", &args(json!({"absolute_path": "src/a.rs"})), &root).unwrap();
        assert!(read.contains("fn main"), "{read}");
        let grep = call("Grep", &args(json!({"pattern": "TODO", "glob": "*.rs"})), &root).unwrap();
        assert_eq!(grep.trim(), "src/a.rs:2:// TODO: test");
        let listed = call("Glob", &args(json!({"pattern": "**/*.rs"})), &root).unwrap();
        assert_eq!(listed, "src/a.rs");
        for outside in ["../secret", "link", "/etc/hostname"] {
            let e = call("Read", &args(json!({"file_path": outside})), &root).unwrap_err();
            assert!(
                e.contains("outside the project") || e.contains("No such file"),
                "{outside}: {e}"
            );
        }
        assert!(call("Bash", &args(json!({"command": "ls"})), &root).is_err());
    }
}
