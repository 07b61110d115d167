//! Helpers for end-to-end tests: a temporary project with settings and hook
//! scripts, recorded model answers, and a replay that returns what a person
//! saw and the transcript.

use std::path::{Path, PathBuf};

use hookshot::HookSystem;
use hookshot_replay::{Ending, ReplayError, ReplayOptions, replay};
use serde_json::{Value, json};

/// A temporary project directory with one settings file.
#[derive(Debug)]
pub struct Project {
    dir: tempfile::TempDir,
}

/// What one replay left behind.
#[derive(Debug)]
pub struct Run {
    /// How it ended (or why it could not go on).
    pub ending: Result<Ending, String>,
    /// What a person saw.
    pub stdout: String,
    /// The transcript records.
    pub transcript: Vec<Value>,
}

impl Run {
    /// Records of one `type`.
    pub fn records(&self, kind: &str) -> Vec<&Value> {
        self.transcript.iter().filter(|r| r["type"] == kind).collect()
    }

    /// Events of the `hook_event` records, in order.
    pub fn events(&self) -> Vec<String> {
        self.records("hook_event")
            .iter()
            .map(|r| r["event"].as_str().unwrap_or("").to_string())
            .collect()
    }
}

impl Project {
    /// A project whose settings file holds `settings`.
    pub fn new(settings: &Value) -> Project {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("settings.json"), settings.to_string()).expect("write settings");
        Project { dir }
    }

    /// The project directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file (a hook script, say) into the project.
    pub fn file(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(&p, text).expect("write file");
        p
    }

    /// The hook system over this project's settings.
    pub fn hooks(&self) -> HookSystem {
        HookSystem::builder()
            .settings(self.dir.path().join("settings.json"))
            .workdir(self.dir.path())
            .build()
            .expect("settings load")
    }

    /// Replays `answers` (one recorded model call each) with `prompt`.
    pub async fn replay(&self, answers: &[Value], prompt: &str) -> Run {
        let fixture = self.dir.path().join("session.responses");
        let text: String = answers.iter().map(|a| format!("{a}\n")).collect();
        std::fs::write(&fixture, text).expect("write fixture");
        let transcript = self.dir.path().join("transcript.jsonl");
        let opts = ReplayOptions {
            fixture,
            prompt: prompt.to_string(),
            transcript: Some(transcript.clone()),
        };
        let hooks = self.hooks();
        let mut out = Vec::new();
        let ending = replay(&hooks, &opts, &mut out)
            .await
            .map_err(|e: ReplayError| e.to_string());
        let transcript = std::fs::read_to_string(&transcript)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("transcript lines are JSON"))
            .collect();
        Run {
            ending,
            stdout: String::from_utf8_lossy(&out).into_owned(),
            transcript,
        }
    }
}

/// A recorded model answer with text.
pub fn says(text: &str) -> Value {
    json!({"method": "generateContentStream", "response": [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}]}]})
}

/// A recorded model answer that calls a tool.
pub fn calls(name: &str, args: Value) -> Value {
    json!({"method": "generateContentStream", "response": [
        {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": name, "args": args}}]},
                         "finishReason": "STOP", "index": 0}]}]})
}

/// A gemini settings object with one command hook per event.
pub fn gemini(hooks: &[(&str, &str)]) -> Value {
    let mut m = serde_json::Map::new();
    for (event, command) in hooks {
        m.insert(
            (*event).to_string(),
            json!([{"hooks": [{"type": "command", "command": command, "timeout": 10000}]}]),
        );
    }
    json!({"hooksConfig": {"enabled": true}, "hooks": m})
}
