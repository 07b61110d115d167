//! The case file format: what `hookshot test` runs and `fire --record`
//! and `serve --record` write (one event, its input, the settings, and
//! what the answer must be).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookshot::{Decision, HookOutput};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::load::Sources;

/// How case files are named when a directory is searched.
pub(crate) const SUFFIX: &str = ".test.json";

/// One case, as written in a case file.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Case {
    /// Shown in the report (default: the file's name, and the case's
    /// position when the file holds several).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    /// The event, in any dialect; the answer is in that dialect.
    pub(crate) event: String,
    /// The agent that runs hookshot, as `fire --agent` names it: its
    /// event names and answers (Copilot CLI's `preToolUse` is not
    /// Cursor's; Cline's `PreToolUse` is not Claude Code's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agent: Option<String>,
    /// The event's input.
    #[serde(default)]
    pub(crate) input: Map<String, Value>,
    /// Settings files (relative to the case file) or settings documents
    /// written inline; later ones take precedence.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) settings: Vec<SettingsRef>,
    /// The dialect of the settings, when their content cannot tell it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) dialect: Option<String>,
    /// The project directory (relative to the case file; default: the
    /// case file's directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) workdir: Option<PathBuf>,
    /// Trust the project's own settings for this case.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) trust_project: bool,
    /// Also read the agents' own user settings (~/.claude, ~/.gemini).
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) agent_user_files: bool,
    /// Answers for prompt hooks: a `.responses` fixture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) hook_model: Option<PathBuf>,
    /// Variables added to the hooks' environment.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) env: BTreeMap<String, String>,
    /// Run in an empty home, config and state directory (the default), so
    /// the user's own hooks, trust approvals and background results do not
    /// change the outcome; `false` runs with the real ones.
    #[serde(default = "yes", skip_serializing_if = "Clone::clone")]
    pub(crate) hermetic: bool,
    /// Seconds before the case is stopped and fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) timeout: Option<f64>,
    /// What the answer must be.
    pub(crate) expect: Expect,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum SettingsRef {
    File(PathBuf),
    Inline(Map<String, Value>),
}

/// What the answer must be; every field given is checked.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Expect {
    /// `block` (also `deny`), `allow`, `ask`, `stop`, or `none` (no decision).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) decision: Option<String>,
    /// Text the reason (or stop reason, or block message) holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// Text the context added for the model holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) context: Option<String>,
    /// Text the message shown to the user holds (`systemMessage`): where
    /// warnings about hooks that could not run appear in the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) message: Option<String>,
    /// Fields the answer JSON holds, with these values (other fields may be there too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) output: Option<Value>,
    /// `fire`'s exit code: 0 allowed, 2 blocked, 1 an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) exit: Option<i32>,
    /// Text stdout holds (for answers that are not JSON, as WorktreeCreate's path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stdout: Option<String>,
    /// Text stderr holds (warnings, the block reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stderr: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn yes() -> bool {
    true
}

impl Case {
    /// A case that replays this `fire`, saved in `dir`: the same sources
    /// (relative to `dir` when they share a folder with it, so a recorded
    /// case can be committed and run on another machine; absolute
    /// otherwise), with the user's real home, and what the answer was.
    pub(crate) fn recorded(
        dir: &Path,
        event: &str,
        input: Map<String, Value>,
        agent: Option<hookshot::Agent>,
        sources: &Sources,
        stdout: &str,
        code: u8,
    ) -> Case {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let absolute = |p: &Path| {
            let full = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
            relative_to(&full, &dir).unwrap_or(full)
        };
        let output = serde_json::from_str::<Value>(stdout).ok();
        let parsed = output.as_ref().and_then(Value::as_object).map(verdict_of);
        let decision = match (code, parsed) {
            (2, p) => Some(decision_word(2, &p.unwrap_or_default())),
            (0, Some(p)) => Some(decision_word(0, &p)),
            _ => None,
        };
        Case {
            name: None,
            event: event.to_string(),
            agent: agent.map(|a| a.name().to_string()),
            input,
            settings: sources
                .settings
                .iter()
                .map(|p| SettingsRef::File(absolute(p)))
                .collect(),
            dialect: sources.dialect.map(|d| d.as_str().to_string()),
            workdir: Some(absolute(sources.workdir.as_deref().unwrap_or(Path::new(".")))),
            trust_project: sources.trust_project,
            agent_user_files: sources.agent_user_files,
            hook_model: sources.hook_model.as_deref().map(absolute),
            env: BTreeMap::new(),
            hermetic: false,
            timeout: None,
            expect: Expect {
                decision: decision.map(String::from),
                exit: Some(i32::from(code)),
                stdout: output.is_none().then(|| stdout.to_string()).filter(|s| !s.is_empty()),
                output,
                ..Expect::default()
            },
        }
    }

    /// Writes the case as a new file in `dir`, named after the time and the
    /// event; never over an existing file.
    pub(crate) fn save(&self, dir: &Path) -> std::io::Result<PathBuf> {
        use std::io::Write;
        std::fs::create_dir_all(dir)?;
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        for n in 0.. {
            let suffix = if n == 0 { String::new() } else { format!("-{n}") };
            let path = dir.join(format!("{millis}-{}{suffix}{SUFFIX}", self.event));
            match std::fs::File::create_new(&path) {
                Ok(mut f) => {
                    f.write_all(text.as_bytes())?;
                    f.write_all(b"\n")?;
                    return Ok(path);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        unreachable!("the loop returns")
    }
}

/// `--record DIR` of `fire` and `serve`: the event and the answer given
/// as a new case in `dir`; a case that cannot be written is a warning (the
/// answer was already given).
pub(crate) fn record(dir: &Path, case: &Case) {
    if let Err(e) = case.save(dir) {
        eprintln!("hookshot: warning: --record {}: {e}", dir.display());
    }
}

/// `path` relative to `dir` (both absolute), when they share more than the
/// root: `../settings.json` from a case folder beside the settings.
fn relative_to(path: &Path, dir: &Path) -> Option<PathBuf> {
    let (p, d): (Vec<_>, Vec<_>) = (path.components().collect(), dir.components().collect());
    let common = p.iter().zip(&d).take_while(|(a, b)| a == b).count();
    if common < 2 {
        return None;
    }
    let mut out = PathBuf::new();
    for _ in common..d.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c);
    }
    Some(if out.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        out
    })
}

/// An answer of hookshot's read for its verdict, in any agent's words:
/// Claude Code's and the others' (`HookOutput`), and where those give none,
/// Cursor's `permission` and `followup_message`, Copilot CLI's top-level
/// `permissionDecision`, Cline's `cancel`.
pub(crate) fn verdict_of(answer: &Map<String, Value>) -> HookOutput {
    let mut out = HookOutput::from_json(answer);
    if out.decision == Decision::Undecided {
        let word = |k: &str| answer.get(k).and_then(Value::as_str).and_then(Decision::parse);
        if let Some(d) = word("permission").or_else(|| word("permissionDecision")) {
            out.decision = d;
        } else if answer.get("cancel") == Some(&Value::Bool(true)) || answer.contains_key("followup_message") {
            out.decision = Decision::Block;
        }
    }
    out
}

/// The decision an agent reads from `fire`'s exit code and answer, in the
/// words of `expect.decision`: exit 2 or a block decision is `block`.
pub(crate) fn decision_word(code: i32, out: &HookOutput) -> &'static str {
    if code == 2 || out.decision == Decision::Block {
        return "block";
    }
    match out.decision {
        Decision::Allow => "allow",
        Decision::Ask => "ask",
        _ if out.stop => "stop",
        _ => "none",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_paths_are_relative_to_the_case_folder_when_they_share_one() {
        let rel = |p: &str, d: &str| relative_to(Path::new(p), Path::new(d));
        assert_eq!(
            rel("/w/p/settings.json", "/w/p/cases"),
            Some(PathBuf::from("../settings.json"))
        );
        assert_eq!(rel("/w/p", "/w/p"), Some(PathBuf::from(".")));
        assert_eq!(rel("/etc/x.json", "/w/p/cases"), None);
    }
}
