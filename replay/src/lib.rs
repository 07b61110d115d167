//! The reference agent loop: drives a [`HookSystem`] the way gemini-cli
//! does in non-interactive mode, with a scripted model read from a
//! `.responses` fixture. `hookshot replay` is this loop; so are the
//! end-to-end tests. It lives apart from the engine: embedders bring their
//! own agent loop and model, and need neither the Gemini wire format
//! ([`gemini`]) nor the fixture reader.
//!
//! SessionStart -> BeforeAgent -> per model call: BeforeModel,
//! BeforeToolSelection, the model's answer, AfterModel per chunk -> per
//! function call: BeforeTool, the tool, AfterTool -> ... until the model
//! stops calling tools -> AfterAgent (a block sends its reason back to the
//! model, with a loop guard) -> SessionEnd.

mod fixture;
pub mod gemini;
pub mod tools;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::gemini as llm;
use serde_json::{Map, Value, json};

pub use fixture::{FixtureError, HookModel, ScriptedModel};
use hookshot::{EventKind, HookSystem, Outcome};
use tools::Tools;

/// The model name the reference loop puts in its requests.
pub const MODEL: &str = "gemini-2.5-flash";
/// How often an empty model answer is retried with the next recorded line.
const EMPTY_RETRIES: usize = 2;
/// How often AfterAgent may send the model back to work in one session.
const AFTER_AGENT_CONTINUATIONS: usize = 3;
/// Tail tool calls one tool call may chain.
const TAIL_CALLS: usize = 5;
/// Model calls in one turn before the loop gives up (a runaway guard).
const MAX_MODEL_CALLS: usize = 100;

/// What to replay.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// The `.responses` fixture.
    pub fixture: PathBuf,
    /// The user's prompt.
    pub prompt: String,
    /// Where to write the JSON Lines transcript, if anywhere.
    pub transcript: Option<PathBuf>,
}

/// How a replay ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The model finished.
    Completed,
    /// A hook stopped the agent, with this reason.
    Stopped(String),
}

/// Why a replay could not go on.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The fixture is unreadable, malformed or too short (exit 3).
    #[error(transparent)]
    Fixture(#[from] FixtureError),
    /// Writing the transcript or the display failed.
    #[error("cannot write output: {0}")]
    Io(#[from] std::io::Error),
}

/// Control flow out of a step: go on, or stop the agent.
enum Flow {
    Go,
    Stop(String),
}

struct Transcript(Option<BufWriter<File>>);

impl Transcript {
    fn write(&mut self, record: Value) -> std::io::Result<()> {
        if let Some(w) = &mut self.0 {
            serde_json::to_writer(&mut *w, &record)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    }
}

struct Loop<'a> {
    hooks: &'a HookSystem,
    /// Model calls made out of those recorded, for a person at a terminal.
    progress: indicatif::ProgressBar,
    /// Given to hooks as `transcript_path`, as gemini-cli gives its chat log.
    transcript_path: Option<String>,
    model: ScriptedModel,
    tools: Tools,
    out: &'a mut dyn Write,
    transcript: Transcript,
    history: Vec<Value>,
}

/// The session's `CLAUDE_ENV_FILE`: an empty file in a folder of its own
/// (made 0700, never an existing one, so nobody else's file or symlink is
/// used), removed with the session.
struct SessionEnv(Option<PathBuf>);

impl SessionEnv {
    fn create() -> SessionEnv {
        use std::os::unix::fs::DirBuilderExt;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!("hookshot-session-{}-{nanos}", std::process::id()));
        let made = std::fs::DirBuilder::new().mode(0o700).create(&dir);
        let file = dir.join("claude-env.sh");
        SessionEnv(made.and_then(|()| std::fs::File::create_new(&file)).ok().map(|_| file))
    }

    fn file(&self) -> Option<&Path> {
        self.0.as_deref()
    }
}

impl Drop for SessionEnv {
    fn drop(&mut self) {
        if let Some(dir) = self.0.as_ref().and_then(|f| f.parent()) {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Runs the loop; `out` receives what a person would see.
pub async fn replay(hooks: &HookSystem, opts: &ReplayOptions, out: &mut dyn Write) -> Result<Ending, ReplayError> {
    let model = ScriptedModel::open(&opts.fixture)?;
    let transcript = match &opts.transcript {
        Some(p) => Transcript(Some(BufWriter::new(File::create(p)?))),
        None => Transcript(None),
    };
    // Only a person at a terminal gets a bar (on stderr); pipes and CI
    // see nothing.
    let progress = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        let bar = indicatif::ProgressBar::new(model.recorded() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} model call {pos}/{len} {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let session_env = SessionEnv::create();
    if let Some(f) = session_env.file() {
        hooks.set_session_env_file(f.to_path_buf());
    }
    let mut tools = Tools::new(hooks.workdir());
    tools.env_file = session_env.file().map(Path::to_path_buf);
    let mut l = Loop {
        hooks,
        progress,
        transcript_path: opts.transcript.as_ref().map(|p| {
            std::fs::canonicalize(p)
                .unwrap_or_else(|_| p.clone())
                .display()
                .to_string()
        }),
        model,
        tools,
        out,
        transcript,
        history: Vec::new(),
    };
    // Sources that could not be used are shown once, before anything runs
    // (each event's answer carries them too; the loop does not repeat them).
    for w in hooks.load_warnings() {
        l.say(&format!("warning: {w}"))?;
    }
    let result = l.session(&opts.prompt).await;
    let ending = match &result {
        Ok(Flow::Go) => Ending::Completed,
        Ok(Flow::Stop(reason)) => Ending::Stopped(reason.clone()),
        Err(e) => Ending::Stopped(e.to_string()),
    };
    let reason = match &ending {
        Ending::Completed => Value::Null,
        Ending::Stopped(r) => json!(r),
    };
    l.progress.finish_and_clear();
    l.transcript
        .write(json!({"type": "stop", "reason": reason, "model_calls": l.model.calls()}))?;
    if let Some(w) = &mut l.transcript.0 {
        w.flush()?;
    }
    l.out.flush()?;
    result.map(|_| ending)
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The function calls of a response: name, arguments, and the call's id
/// when the API gave one (its response must carry it back).
fn function_calls(chunks: &[Value]) -> Vec<(String, Map<String, Value>, Option<Value>)> {
    chunks
        .iter()
        .filter_map(|c| c.pointer("/candidates/0/content/parts").and_then(Value::as_array))
        .flatten()
        .filter_map(|p| p.get("functionCall"))
        .map(|fc| {
            let name = fc.get("name").and_then(Value::as_str).unwrap_or("").to_string();
            (
                name,
                fc.get("args").cloned().map(obj).unwrap_or_default(),
                fc.get("id").cloned(),
            )
        })
        .collect()
}

/// The model's turn as history keeps it: text and calls, thoughts dropped.
fn model_content(chunks: &[Value]) -> Value {
    let mut parts: Vec<Value> = Vec::new();
    let text = llm::response_text(chunks);
    if !text.is_empty() {
        parts.push(json!({"text": text}));
    }
    for c in chunks {
        for p in c
            .pointer("/candidates/0/content/parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if p.get("functionCall").is_some() {
                parts.push(p.clone());
            }
        }
    }
    json!({"role": "model", "parts": parts})
}

fn stop_reason(o: &Outcome) -> String {
    o.output
        .stop_reason
        .clone()
        .or_else(|| o.output.reason.clone())
        .unwrap_or_else(|| format!("stopped by a {} hook", o.event))
}

impl Loop<'_> {
    fn say(&mut self, line: &str) -> std::io::Result<()> {
        // The bar steps aside while a line is written, so neither garbles
        // the other on a terminal.
        let (out, bar) = (&mut self.out, &self.progress);
        bar.suspend(|| writeln!(out, "{line}"))
    }

    /// If a hook stopped the agent (`continue: false`), says so and gives
    /// the reason the stop record keeps.
    fn stopped(&mut self, o: &Outcome) -> std::io::Result<Option<String>> {
        if !o.output.stop {
            return Ok(None);
        }
        let r = stop_reason(o);
        self.say(&format!("Agent stopped by {} hook: {r}", o.event))?;
        Ok(Some(r))
    }

    /// Fires an event, records it and shows its messages and warnings.
    async fn fire(&mut self, event: EventKind, input: Value) -> Result<Outcome, ReplayError> {
        self.fire_where(event, input, |_| true).await
    }

    /// [`Loop::fire`] for the matched hooks `keep` accepts.
    async fn fire_where(
        &mut self,
        event: EventKind,
        input: Value,
        keep: impl Fn(&hookshot::HookDef) -> bool,
    ) -> Result<Outcome, ReplayError> {
        let mut input = obj(input);
        if let Some(t) = &self.transcript_path {
            input.insert("transcript_path".into(), json!(t));
        }
        self.hooks.complete_input(event, &mut input);
        let outcome = self.hooks.fire_where(event, input.clone(), keep).await;
        let hooks: Vec<Value> = outcome
            .records
            .iter()
            .map(|r| {
                json!({
                    "name": r.hook.label(),
                    "command": r.hook.command(),
                    "source": r.hook.source,
                    "exit_code": r.captured.exit.code,
                    "signal": r.captured.exit.signal,
                    "timed_out": r.captured.exit.timed_out,
                    "duration_ms": r.captured.duration.as_secs_f64() * 1000.0,
                    "stdout": r.captured.stdout,
                    "stderr": r.captured.stderr,
                    "failure": r.failure.as_ref().map(|f| &f.message),
                    "failure_kind": r.failure.as_ref().map(|f| f.kind),
                })
            })
            .collect();
        self.transcript.write(json!({
            "type": "hook_event",
            "event": event.canonical_name(),
            "input": input,
            "hooks": hooks,
            "output": outcome.render(hookshot_core::Dialect::Gemini),
        }))?;
        // Sources that could not be used were shown once, at the start.
        let load_warnings = self.hooks.load_warnings();
        for w in outcome.warnings.iter().filter(|w| !load_warnings.contains(w)) {
            self.say(&format!("warning: {w}"))?;
        }
        if let Some(m) = &outcome.output.system_message
            && !outcome.output.suppress_output
        {
            for line in m.lines() {
                self.say(&format!("[{event}] {line}"))?;
            }
        }
        Ok(outcome)
    }

    async fn session(&mut self, prompt: &str) -> Result<Flow, ReplayError> {
        let start = self.fire(EventKind::SessionStart, json!({"source": "startup"})).await?;
        let flow = if let Some(r) = self.stopped(&start)? {
            Flow::Stop(r)
        } else {
            let context = start.output.additional_context.clone();
            self.turn(prompt, context).await?
        };
        self.fire(EventKind::SessionEnd, json!({"reason": "exit"})).await?;
        Ok(flow)
    }

    async fn turn(&mut self, prompt: &str, session_context: Option<String>) -> Result<Flow, ReplayError> {
        let before = self.fire(EventKind::BeforeAgent, json!({"prompt": prompt})).await?;
        if let Some(r) = self.stopped(&before)? {
            return Ok(Flow::Stop(r));
        }
        if before.is_blocked() {
            self.say(&format!(
                "Prompt blocked by BeforeAgent hook: {}",
                before.block_reason()
            ))?;
            return Ok(Flow::Go);
        }
        let prompt = before.output.prompt.clone().unwrap_or_else(|| prompt.to_string());
        let mut parts = vec![json!({"text": prompt})];
        for ctx in [session_context, before.output.additional_context.clone()]
            .into_iter()
            .flatten()
        {
            // Separate from the prompt: hooks see text parts joined.
            parts.push(json!({"text": format!("\n\n{ctx}")}));
        }
        self.history.push(json!({"role": "user", "parts": parts}));

        let mut stop_hook_active = false;
        let mut continuations = 0;
        let mut answer = String::new();
        let mut calls = 0;
        loop {
            calls += 1;
            if calls > MAX_MODEL_CALLS {
                self.say(&format!(
                    "warning: giving up after {MAX_MODEL_CALLS} model calls in one turn"
                ))?;
                return Ok(Flow::Go);
            }
            let chunks = match self.model_call().await? {
                ModelCall::Answer(chunks) => chunks,
                // A refused model call ends the turn as an empty answer.
                ModelCall::Blocked => Vec::new(),
                ModelCall::Feedback(text) => {
                    self.history.push(json!({"role": "user", "parts": [{"text": text}]}));
                    continue;
                }
                ModelCall::Stop(r) => return Ok(Flow::Stop(r)),
            };
            answer.push_str(&llm::response_text(&chunks));
            let content = model_content(&chunks);
            if content["parts"].as_array().is_some_and(|p| !p.is_empty()) {
                self.history.push(content);
            }
            let calls = function_calls(&chunks);
            if !calls.is_empty() {
                let mut responses = Vec::with_capacity(calls.len());
                for (name, args, id) in calls {
                    match self.tool_call(name, args).await? {
                        (mut part, Flow::Go) => {
                            if let Some(id) = id {
                                part["functionResponse"]["id"] = id;
                            }
                            responses.push(part);
                        }
                        (_, Flow::Stop(r)) => return Ok(Flow::Stop(r)),
                    }
                }
                self.history.push(json!({"role": "user", "parts": responses}));
                continue;
            }
            let after = self
                .fire(
                    EventKind::AfterAgent,
                    json!({"prompt": prompt, "prompt_response": answer, "stop_hook_active": stop_hook_active}),
                )
                .await?;
            if let Some(r) = self.stopped(&after)? {
                return Ok(Flow::Stop(r));
            }
            if !after.is_blocked() {
                break;
            }
            let reason = after.block_reason();
            if continuations >= AFTER_AGENT_CONTINUATIONS {
                self.say(&format!(
                    "warning: AfterAgent blocked {continuations} times; accepting the answer to end the loop (last reason: {reason})"
                ))?;
                break;
            }
            continuations += 1;
            self.say(&format!("Answer rejected by AfterAgent hook: {reason}"))?;
            if after.output.clear_context {
                self.history.clear();
            }
            self.history.push(json!({"role": "user", "parts": [{"text": reason}]}));
            stop_hook_active = true;
            answer.clear();
        }
        Ok(Flow::Go)
    }

    /// One model call: BeforeModel, BeforeToolSelection, the recorded answer
    /// (retried when empty), AfterModel per chunk.
    async fn model_call(&mut self) -> Result<ModelCall, ReplayError> {
        let mut attempt = 0;
        loop {
            let mut request = json!({
                "model": MODEL,
                "contents": self.history,
                "config": {"tools": tools::declarations()},
            });
            let before = self
                .fire(
                    EventKind::BeforeModel,
                    json!({"llm_request": llm::to_hook_request(&request)}),
                )
                .await?;
            if let Some(r) = self.stopped(&before)? {
                return Ok(ModelCall::Stop(r));
            }
            if before.is_blocked() {
                self.say(&format!(
                    "Model call blocked by BeforeModel hook: {}",
                    before.block_reason()
                ))?;
                return Ok(feedback_or_blocked(&before));
            }
            if let Some(edit) = &before.output.llm_request {
                llm::apply_hook_request(&mut request, edit);
            }
            for m in &before.output.inject_messages {
                llm::append_message(&mut request, m);
            }
            if let Some(ctx) = &before.output.additional_context {
                llm::append_system_text(&mut request, ctx);
            }
            let synthetic = before.output.llm_response.clone();
            let selection = self
                .fire(
                    EventKind::BeforeToolSelection,
                    json!({"llm_request": llm::to_hook_request(&request)}),
                )
                .await?;
            if let Some(r) = self.stopped(&selection)? {
                return Ok(ModelCall::Stop(r));
            }
            if let Some(tc) = &selection.output.tool_config {
                llm::apply_tool_config(&mut request, tc);
            }
            let hook_request = llm::to_hook_request(&request);

            let mut chunks = if let Some(resp) = synthetic {
                // A BeforeModel hook answered for the model: nothing is sent.
                let mut chunk = json!({});
                llm::apply_hook_response(&mut chunk, &resp);
                vec![chunk]
            } else {
                self.transcript
                    .write(json!({"type": "model_request", "request": request}))?;
                let mut chunks = self.model.next_response()?;
                self.progress.inc(1);
                // gemini-style hooks see each streamed chunk; jcli's
                // post_llm_response sees the whole answer once, below.
                let per_chunk = |h: &hookshot::HookDef| h.dialect != hookshot::Dialect::Jcli;
                for chunk in &mut chunks {
                    if let Some(refused) = self.after_model(&hook_request, chunk, per_chunk).await? {
                        return Ok(refused);
                    }
                }
                let jcli = |h: &hookshot::HookDef| h.dialect == hookshot::Dialect::Jcli;
                if self.hooks.has_hooks_where(EventKind::AfterModel, jcli) {
                    // assistant_output replaces the whole answer's text.
                    let mut whole = llm::merge_chunks(&chunks);
                    if let Some(refused) = self.after_model(&hook_request, &mut whole, jcli).await? {
                        return Ok(refused);
                    }
                    chunks = vec![whole];
                }
                chunks
            };
            chunks.retain(|c| c.is_object());
            let text = llm::response_text(&chunks);
            let has_calls = !function_calls(&chunks).is_empty();
            self.transcript
                .write(json!({"type": "model_response", "response": chunks, "text": text}))?;
            if !text.trim().is_empty() {
                self.say(text.trim_end())?;
            }
            if has_calls || !text.trim().is_empty() || attempt >= EMPTY_RETRIES {
                return Ok(ModelCall::Answer(chunks));
            }
            attempt += 1;
        }
    }

    /// AfterModel over one response (a chunk, or a whole answer) for the
    /// hooks `keep` accepts: applies their edit to it, or says why the
    /// answer is refused.
    async fn after_model(
        &mut self,
        request: &Value,
        response: &mut Value,
        keep: impl Fn(&hookshot::HookDef) -> bool,
    ) -> Result<Option<ModelCall>, ReplayError> {
        let input = json!({"llm_request": request, "llm_response": llm::to_hook_response(response)});
        let after = self.fire_where(EventKind::AfterModel, input, keep).await?;
        if let Some(r) = self.stopped(&after)? {
            return Ok(Some(ModelCall::Stop(r)));
        }
        if after.is_blocked() {
            self.say(&format!(
                "Model response blocked by AfterModel hook: {}",
                after.block_reason()
            ))?;
            return Ok(Some(feedback_or_blocked(&after)));
        }
        if let Some(resp) = &after.output.llm_response {
            llm::apply_hook_response(response, resp);
        }
        Ok(None)
    }

    /// Runs one function call through BeforeTool, the tool and AfterTool;
    /// returns the function-response part for the model.
    async fn tool_call(&mut self, name: String, args: Map<String, Value>) -> Result<(Value, Flow), ReplayError> {
        let mut current = (name.clone(), args);
        let mut result: Option<(String, bool)> = None;
        for depth in 0..=TAIL_CALLS {
            let (tool, args) = current.clone();
            match self.one_tool(&tool, args).await? {
                ToolStep::Stop(r) => return Ok((json!({}), Flow::Stop(r))),
                ToolStep::Done { output, ok, tail } => {
                    result = Some((output, ok));
                    match tail {
                        Some(next) if depth < TAIL_CALLS => current = next,
                        Some(_) => {
                            self.say(&format!("warning: tail tool calls stopped after {TAIL_CALLS}"))?;
                            break;
                        }
                        None => break,
                    }
                }
            }
        }
        let (output, ok) = result.unwrap_or_default();
        let response = if ok {
            json!({"output": output})
        } else {
            json!({"error": output})
        };
        Ok((
            json!({"functionResponse": {"name": name, "response": response}}),
            Flow::Go,
        ))
    }

    async fn one_tool(&mut self, name: &str, args: Map<String, Value>) -> Result<ToolStep, ReplayError> {
        let canonical = tools::canonical_name(name).to_string();
        let before = self
            .fire(EventKind::BeforeTool, json!({"tool_name": name, "tool_input": args}))
            .await?;
        let mut args = args;
        if let Some(overlay) = &before.output.tool_input {
            args.extend(overlay.clone());
        }
        let refuse = |me: &mut Self, status: &str, reason: String| -> Result<ToolStep, ReplayError> {
            me.say(&format!("✗ {canonical} {status}: {reason}"))?;
            me.transcript.write(
                json!({"type": "tool_call", "name": canonical, "args": args, "status": "blocked", "result": reason}),
            )?;
            Ok(ToolStep::Done {
                output: format!("Tool call blocked: {reason}"),
                ok: false,
                tail: None,
            })
        };
        if let Some(r) = self.stopped(&before)? {
            refuse(self, "blocked", r.clone())?;
            return Ok(ToolStep::Stop(r));
        }
        if before.is_blocked() {
            return refuse(self, "blocked", before.block_reason());
        }
        if before.output.decision == hookshot::Decision::Ask {
            let why = before
                .output
                .reason
                .clone()
                .unwrap_or_else(|| "a hook asks for confirmation".into());
            let message = format!("Tool {canonical} requires permission: {why}");
            let n = self
                .fire(
                    EventKind::Notification,
                    json!({"notification_type": "ToolPermission", "message": message,
                           "details": {"tool_name": name, "tool_input": args, "reason": why}}),
                )
                .await?;
            if let Some(r) = self.stopped(&n)? {
                return Ok(ToolStep::Stop(r));
            }
            return refuse(self, "refused (needs permission, and replay has no user to ask)", why);
        }

        // A hook that answers for the tool (picoclaw's respond) skips it and
        // the after-tool hooks.
        if let Some(answer) = &before.output.tool_result {
            let output = match answer {
                Value::String(s) => s.clone(),
                Value::Object(o) => o
                    .get("for_llm")
                    .and_then(Value::as_str)
                    .map_or_else(|| answer.to_string(), str::to_string),
                other => other.to_string(),
            };
            self.say(&format!("✓ {canonical} answered by hook"))?;
            self.transcript.write(json!({"type": "tool_call", "name": canonical, "args": args, "status": "executed", "result": output, "answered_by_hook": true}))?;
            return Ok(ToolStep::Done {
                output,
                ok: true,
                tail: None,
            });
        }

        // The approval point (picoclaw's approve_tool, Claude's
        // PermissionRequest): an approver that says no refuses the call.
        let approval = self
            .fire(
                EventKind::PermissionRequest,
                json!({"tool_name": name, "tool_input": args}),
            )
            .await?;
        if let Some(r) = self.stopped(&approval)? {
            refuse(self, "blocked", r.clone())?;
            return Ok(ToolStep::Stop(r));
        }
        if approval.is_blocked() {
            return refuse(self, "not approved", approval.block_reason());
        }
        let run = self.tools.call(&canonical, &args).await;
        let (status, mut output, ok) = match run {
            Ok(o) => ("executed", o, true),
            Err(e) => ("failed", e, false),
        };
        match status {
            "executed" => self.say(&format!("✓ {canonical} {}", brief(&args)))?,
            _ => self.say(&format!("✗ {canonical} failed: {output}"))?,
        }
        self.transcript
            .write(json!({"type": "tool_call", "name": canonical, "args": args, "status": status, "result": output}))?;

        let response = if ok {
            json!({"llmContent": output, "returnDisplay": output})
        } else {
            json!({"llmContent": output, "returnDisplay": output, "error": output})
        };
        if !ok {
            self.fire(
                EventKind::AfterToolFailure,
                json!({"tool_name": name, "tool_input": args, "tool_error": output}),
            )
            .await?;
        }
        let after = self
            .fire(
                EventKind::AfterTool,
                json!({"tool_name": name, "tool_input": args, "tool_response": response}),
            )
            .await?;
        if let Some(r) = self.stopped(&after)? {
            return Ok(ToolStep::Stop(r));
        }
        if after.is_blocked() {
            let reason = after.block_reason();
            self.say(&format!("✗ {canonical} result blocked by AfterTool hook: {reason}"))?;
            output = format!("Tool result blocked: {reason}");
        } else if let Some(r) = &after.output.tool_result {
            output = match r {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
        }
        if let Some(ctx) = &after.output.additional_context {
            output = format!("{output}\n\n{ctx}");
        }
        let tail = after.output.tail_tool_call.clone().map(|t| (t.name, t.args));
        if let Some((t, _)) = &tail {
            self.say(&format!("→ {canonical} asks for a tail call: {t}"))?;
        }
        Ok(ToolStep::Done {
            output,
            ok: ok && !after.is_blocked(),
            tail,
        })
    }
}

/// A refused model call: with jcli's `retry_feedback` the model is asked
/// again with the feedback; otherwise the turn ends.
fn feedback_or_blocked(o: &Outcome) -> ModelCall {
    match &o.output.retry_feedback {
        Some(fb) => ModelCall::Feedback(fb.clone()),
        None => ModelCall::Blocked,
    }
}

enum ModelCall {
    Answer(Vec<Value>),
    /// The call was refused; the turn ends with no answer.
    Blocked,
    /// The call was refused with feedback for the model: ask again with it.
    Feedback(String),
    Stop(String),
}

enum ToolStep {
    Done {
        output: String,
        ok: bool,
        tail: Option<(String, Map<String, Value>)>,
    },
    Stop(String),
}

/// A short view of a call's arguments for the display line.
fn brief(args: &Map<String, Value>) -> String {
    let main = ["file_path", "absolute_path", "path", "command"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str));
    match main {
        Some(m) => {
            let m: String = m.chars().take(80).collect();
            format!("({m})")
        }
        None => String::new(),
    }
}
