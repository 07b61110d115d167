//! The scripted model: a `.responses` file, one recorded model call per line
//! (`{"method": "generateContentStream", "response": [chunk, ...]}`),
//! consumed strictly in order.

use std::path::{Path, PathBuf};

use hookshot_runner::ModelClient;
use hookshot_runner::llm::{Completion, Turn};
use serde_json::Value;

use crate::gemini;

/// Why the fixture cannot answer (replay exits 3).
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// The file could not be read.
    #[error("{}: cannot read fixture: {source}", path.display())]
    Read {
        /// The fixture.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A line is not a recorded model call.
    #[error("{}:{line}: {message}", path.display())]
    BadLine {
        /// The fixture.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The loop asked for more model calls than were recorded.
    #[error("{}: the fixture ran out: model call {call} was requested but only {recorded} are recorded", path.display())]
    RanOut {
        /// The fixture.
        path: PathBuf,
        /// The call that found nothing (1-based).
        call: usize,
        /// How many calls the file holds.
        recorded: usize,
    },
}

/// A recorded model, answering calls in order.
#[derive(Debug)]
pub struct ScriptedModel {
    path: PathBuf,
    /// (line number, text) of each non-blank line.
    lines: Vec<(usize, String)>,
    next: usize,
}

impl ScriptedModel {
    /// Opens a fixture.
    pub fn open(path: &Path) -> Result<ScriptedModel, FixtureError> {
        let text = std::fs::read_to_string(path).map_err(|source| FixtureError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| (i + 1, l.to_string()))
            .collect();
        Ok(ScriptedModel {
            path: path.to_path_buf(),
            lines,
            next: 0,
        })
    }

    /// Model calls answered so far.
    pub fn calls(&self) -> usize {
        self.next
    }

    /// Model calls the fixture holds.
    pub fn recorded(&self) -> usize {
        self.lines.len()
    }

    /// The next recorded answer: its stream chunks.
    pub fn next_response(&mut self) -> Result<Vec<Value>, FixtureError> {
        loop {
            let Some((line, text)) = self.lines.get(self.next) else {
                return Err(FixtureError::RanOut {
                    path: self.path.clone(),
                    call: self.next + 1,
                    recorded: self.lines.len(),
                });
            };
            self.next += 1;
            let bad = |message: String| FixtureError::BadLine {
                path: self.path.clone(),
                line: *line,
                message,
            };
            let v: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
            // gemini-cli's recordings also hold its other calls (token
            // counts, embeddings); they are not answers to a turn.
            if matches!(
                v.get("method").and_then(Value::as_str),
                Some("countTokens" | "embedContent")
            ) {
                continue;
            }
            return match v.get("response") {
                Some(Value::Array(chunks)) => Ok(chunks.clone()),
                // A non-streaming recording holds one response object.
                Some(obj @ Value::Object(_)) => Ok(vec![obj.clone()]),
                Some(_) => Err(bad("\"response\" must be a list of stream chunks".into())),
                None => Err(bad(
                    "missing \"response\": expected {\"method\": ..., \"response\": [chunk, ...]}".into(),
                )),
            };
        }
    }
}

/// A [`ModelClient`] for prompt and agent hooks, answering from a fixture
/// in order: a prompt gets the text of the next recorded answer, a turn
/// its parts (tool calls too). `hookshot --hook-model` is this.
#[derive(Debug)]
pub struct HookModel {
    script: std::sync::Mutex<ScriptedModel>,
}

impl HookModel {
    /// Opens a fixture.
    pub fn open(path: &Path) -> Result<HookModel, FixtureError> {
        Ok(HookModel {
            script: std::sync::Mutex::new(ScriptedModel::open(path)?),
        })
    }

    fn next(&self) -> Result<Vec<Value>, String> {
        // A panic elsewhere while holding the lock leaves the script as
        // it was: keep answering from it.
        let mut script = self.script.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        script.next_response().map_err(|e| e.to_string())
    }
}

impl ModelClient for HookModel {
    fn complete<'a>(&'a self, _prompt: &'a str, _model: Option<&'a str>) -> Completion<'a> {
        let next = self.next().map(|chunks| gemini::response_text(&chunks));
        Box::pin(async move { next })
    }

    fn turn<'a>(&'a self, _contents: &'a [Value], _tools: &'a [Value], _model: Option<&'a str>) -> Turn<'a> {
        let next = self.next().map(|chunks| {
            gemini::merge_chunks(&chunks)
                .pointer("/candidates/0/content")
                .cloned()
                .unwrap_or_else(|| serde_json::json!({"role": "model", "parts": []}))
        });
        Box::pin(async move { next })
    }
}
