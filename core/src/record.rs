//! What one run of one hook left behind, and how its exit status and output
//! are read (the contract's "How one hook's result is read").

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::event::{Dialect, EventKind};
use crate::hook::{Background, FailPolicy, HookDef};
use crate::output::{Decision, HookOutput};

/// How a hook process ended, as the runner observed it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Exit {
    /// Exit code, when it exited normally.
    pub code: Option<i32>,
    /// Signal number, when a signal ended it.
    pub signal: Option<i32>,
    /// The runner killed it after its timeout.
    pub timed_out: bool,
    /// It could not be started at all (the OS error).
    pub spawn_error: Option<String>,
}

/// The raw material of one run: exit and captured output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Captured {
    /// How it ended.
    pub exit: Exit,
    /// stdout, lossily decoded, capped.
    pub stdout: String,
    /// stderr, lossily decoded, capped.
    pub stderr: String,
    /// stdout was longer than the cap; the rest was discarded.
    pub stdout_truncated: bool,
    /// stderr was longer than the cap; the rest was discarded.
    pub stderr_truncated: bool,
    /// Wall-clock time of the run.
    pub duration: Duration,
    /// The time it was allowed (its timeout, or less when the rest of an
    /// event's budget was shorter).
    pub limit: Option<Duration>,
}

/// What kind of failure a run was: metrics count them apart, and the audit
/// log records the kind beside the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FailureKind {
    /// It did not finish (or answer) within its timeout.
    Timeout,
    /// It could not be started (no such program, no process to talk to).
    Spawn,
    /// It ended abnormally: a non-zero exit other than 2, a signal, a panic,
    /// a persistent process that died mid-call.
    Crash,
    /// Its answer was longer than the output cap and was cut.
    OverCap,
    /// It answered, but not in a form hookshot can read (a wrong-typed
    /// verdict, an error response, a non-object result).
    Protocol,
    /// It was not run: the event's time budget was spent, or its process is
    /// waiting out a restart backoff.
    Skipped,
}

impl FailureKind {
    /// The name used in the audit log and in metrics.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Timeout => "timeout",
            FailureKind::Spawn => "spawn",
            FailureKind::Crash => "crash",
            FailureKind::OverCap => "over_cap",
            FailureKind::Protocol => "protocol",
            FailureKind::Skipped => "skipped",
        }
    }
}

/// Why a run counts as failed: its kind, and the words a person reads
/// (after the hook's name: "hook x {message}").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// What kind of failure.
    pub kind: FailureKind,
    /// What happened, in words.
    pub message: String,
}

impl Failure {
    /// A failure of `kind`.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
        }
    }

    /// Whether it is a timeout.
    pub fn is_timeout(&self) -> bool {
        self.kind == FailureKind::Timeout
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// One hook's run, interpreted.
#[derive(Debug, Clone, Serialize)]
pub struct HookRecord {
    /// The hook that ran.
    pub hook: Arc<HookDef>,
    /// What the process did.
    pub captured: Captured,
    /// What it answered (default when it failed open).
    pub output: HookOutput,
    /// Why the run counts as failed (shown as a warning naming the hook).
    pub failure: Option<Failure>,
}

fn parse_object(text: &str) -> Option<serde_json::Map<String, Value>> {
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(Value::Object(m)) => Some(m),
        _ => None,
    }
}

impl HookRecord {
    /// Reads a finished run. Exit 0: a JSON object on stdout is the answer,
    /// other text is a message for the user. Exit 2: a block, always, with
    /// the reason from JSON (stdout, then stderr) or else stderr's text. Any
    /// other ending is a failure that blocks only under a fail-closed policy.
    pub fn interpret(hook: Arc<HookDef>, captured: Captured) -> HookRecord {
        let exit = &captured.exit;
        let label = hook.label().to_string();
        let failed = |kind, message: String| (HookOutput::default(), Some(Failure::new(kind, message)));
        let (mut output, failure) = if let Some(err) = &exit.spawn_error {
            failed(FailureKind::Spawn, format!("could not start: {err}"))
        } else if exit.timed_out {
            // Milliseconds are the resolution anyone set a timeout in.
            let limit = captured.limit.unwrap_or(hook.timeout);
            let secs = (limit.as_secs_f64() * 1000.0).round() / 1000.0;
            failed(FailureKind::Timeout, format!("timed out after {secs}s and was killed"))
        } else if let Some(sig) = exit.signal {
            failed(FailureKind::Crash, format!("killed by signal {sig}"))
        } else {
            match exit.code {
                // A cut answer may have lost its verdict: never read it.
                Some(0) if captured.stdout_truncated => failed(
                    FailureKind::OverCap,
                    format!(
                        "printed more than the output cap ({} bytes kept); its answer was cut and is ignored",
                        captured.stdout.len()
                    ),
                ),
                Some(0) => match read_success(answer_text(&captured, &hook), &hook) {
                    Ok(out) => match glued_answer(answer_text(&captured, &hook)) {
                        // Text then a JSON object: a shell's start-up file
                        // (zsh reads `~/.zshenv` even for `-c`) printed before
                        // the hook's answer. Never a silent allow: a verdict
                        // that stops the action is taken (stricter than the
                        // agent), and either way the user is told.
                        Some(glued) if glued.decision.is_block() || glued.decision == Decision::Ask => (
                            glued,
                            Some(Failure::new(
                                FailureKind::Protocol,
                                "printed text before its JSON answer (a shell profile's output?); the JSON object at the end was read, and it stops the action".to_string(),
                            )),
                        ),
                        Some(_) => (
                            out,
                            Some(Failure::new(
                                FailureKind::Protocol,
                                "printed text before its JSON answer (a shell profile's output?); the agent reads that as text, so the answer was not read".to_string(),
                            )),
                        ),
                        None => (out, None),
                    },
                    Err(why) => failed(FailureKind::Protocol, why),
                },
                // Cline reads its own hook files' answers whatever their
                // exit code, and no exit code of theirs means anything.
                Some(code) if code != 0 && is_clines_own(&hook) => match parse_object(captured.stdout.trim()) {
                    Some(obj) => match HookOutput::from_cline(&obj, hook.event) {
                        Ok(out) => (
                            out,
                            Some(Failure::new(FailureKind::Crash, format!("exited with code {code}"))),
                        ),
                        Err(why) => failed(FailureKind::Protocol, why),
                    },
                    None => failed(FailureKind::Crash, format!("exited with code {code}")),
                },
                // Claude Code does not honour exit 2 on PermissionRequest
                // (only the decision object grants or denies there).
                Some(2) if hook.dialect == Dialect::Claude && hook.event == EventKind::PermissionRequest => {
                    (HookOutput::default(), None)
                }
                Some(2) => (
                    read_block(&captured, || format!("blocked by hook {label} (exit code 2)")),
                    None,
                ),
                // gemini-cli reads any other exit's answer too: JSON (on
                // stdout, else stderr) is the answer whatever the code, and
                // text with a code other than 1 is a denial. Never less
                // strict than gemini-cli: the same is done here, and the
                // exit is still a failure the user is told of.
                Some(code) if hook.dialect == Dialect::Gemini => {
                    let text = answer_text(&captured, &hook).trim();
                    let exited = Failure::new(FailureKind::Crash, format!("exited with code {code}"));
                    match parse_gemini_object(text) {
                        Some(obj) => match HookOutput::from_json_checked(&obj) {
                            Ok(out) => (out, Some(exited)),
                            Err(why) => failed(FailureKind::Protocol, why),
                        },
                        // Where a block means "keep working", a failure
                        // is a warning: the agent would loop.
                        None if code == 1 || text.is_empty() || hook.event.block_keeps_going() => {
                            let detail = first_line(text).map(|l| format!(": {l}")).unwrap_or_default();
                            failed(FailureKind::Crash, format!("exited with code {code}{detail}"))
                        }
                        None => (
                            HookOutput {
                                decision: Decision::Block,
                                reason: Some(text.to_string()),
                                ..HookOutput::default()
                            },
                            Some(exited),
                        ),
                    }
                }
                // A worktree hook that fails fails the creation or removal.
                Some(code)
                    if hook.dialect == Dialect::Claude
                        && matches!(hook.event, EventKind::WorktreeCreate | EventKind::WorktreeRemove) =>
                {
                    (
                        read_block(&captured, || format!("hook {label} exited with code {code}")),
                        None,
                    )
                }
                Some(code) => {
                    let detail = first_line(&captured.stderr)
                        .or_else(|| first_line(&captured.stdout))
                        .map(|l| format!(": {l}"))
                        .unwrap_or_default();
                    failed(FailureKind::Crash, format!("exited with code {code}{detail}"))
                }
                None => failed(FailureKind::Crash, "ended without an exit status".into()),
            }
        };
        if let Some(f) = &failure {
            fail_closed(&hook, f, &mut output);
        }
        HookRecord::new(hook, captured, output, failure)
    }

    /// The record of a hook that answered without a process of its own (an
    /// in-process hook, or a persistent process over JSON-RPC): its answer
    /// or why it failed, under the same fail-open/closed policy.
    pub fn from_answer(hook: Arc<HookDef>, duration: Duration, answer: Result<HookOutput, Failure>) -> HookRecord {
        let captured = Captured {
            duration,
            ..Captured::default()
        };
        match answer {
            Ok(output) => HookRecord::new(hook, captured, output, None),
            Err(failure) => {
                let mut output = HookOutput::default();
                fail_closed(&hook, &failure, &mut output);
                HookRecord::new(hook, captured, output, Some(failure))
            }
        }
    }

    /// A background (Claude `async`) hook cannot decide: the action it would
    /// have controlled went on without it, so of its answer only what it
    /// says is kept, as context for the model. Applied here, where every
    /// record is made, so neither the merge nor a sequential chain (which
    /// feeds each answer to the next hook) can act on its verdict.
    fn new(hook: Arc<HookDef>, captured: Captured, output: HookOutput, failure: Option<Failure>) -> HookRecord {
        let output = if hook.options.background.is_on() {
            // asyncRewake's exit 2 is a wake-up call, not a block: its
            // stderr (or stdout when stderr is empty) is the reminder.
            let woke = (hook.options.background == Background::Rewake && captured.exit.code == Some(2))
                .then(|| first_nonempty(&captured.stderr, &captured.stdout))
                .flatten();
            let said: Vec<&str> = match woke {
                Some(text) => vec![text],
                None => [output.additional_context.as_deref(), output.system_message.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect(),
            };
            HookOutput {
                additional_context: (!said.is_empty()).then(|| said.join("\n")),
                ..HookOutput::default()
            }
        } else {
            output
        };
        HookRecord {
            hook,
            captured,
            output,
            failure,
        }
    }

    /// The warning a person sees for a failed run.
    pub fn warning(&self) -> Option<String> {
        self.failure.as_ref().map(|f| format!("hook {} {f}", self.hook.label()))
    }
}

/// The first of two texts with something in it, trimmed.
fn first_nonempty<'a>(a: &'a str, b: &'a str) -> Option<&'a str> {
    [a.trim(), b.trim()].into_iter().find(|t| !t.is_empty())
}

/// A failed hook blocks only under a fail-closed policy, and never where a
/// block means "keep working" ([`crate::EventKind::block_keeps_going`]):
/// there its failure is a warning.
fn fail_closed(hook: &HookDef, failure: &Failure, output: &mut HookOutput) {
    if hook.fail == FailPolicy::Closed && !hook.event.block_keeps_going() {
        output.decision = Decision::Block;
        output.reason = Some(format!(
            "hook {} failed ({failure}) and its policy is fail-closed",
            hook.label()
        ));
    }
}

fn first_line(s: &str) -> Option<String> {
    let trimmed = s.trim();
    if trimmed.is_empty() {
        return None;
    }
    let line = trimmed.lines().next().unwrap_or(trimmed);
    let mut line: String = line.chars().take(300).collect();
    if trimmed.len() > line.len() {
        line.push('…');
    }
    Some(line)
}

/// Exit 0: a JSON object is the answer. Plain text is, for gemini-cli and
/// jcli hooks, a message for the user; for Claude Code hooks, context for
/// the model on the events where Claude Code adds it (SessionStart,
/// UserPromptSubmit, ...), and elsewhere only what Claude Code writes to
/// its debug log: nothing the agent acts on.
fn read_success(stdout: &str, hook: &HookDef) -> Result<HookOutput, String> {
    let text = stdout.trim();
    if text.is_empty() {
        return Ok(HookOutput::default());
    }
    // Claude Code's WorktreeCreate command hooks answer with no JSON: the
    // worktree's path is the last non-empty line, escape codes removed.
    if hook.dialect == Dialect::Claude
        && hook.event == EventKind::WorktreeCreate
        && matches!(
            hook.action,
            crate::HookAction::Command { .. } | crate::HookAction::Exec { .. }
        )
    {
        let path = text
            .lines()
            .map(|l| strip_ansi(l).trim().to_string())
            .rfind(|l| !l.is_empty())
            .unwrap_or_default();
        let mut out = HookOutput::default();
        out.extra.insert("worktreePath".into(), Value::String(path));
        return Ok(out);
    }
    let object = if hook.dialect == Dialect::Gemini {
        parse_gemini_object(text)
    } else {
        parse_object(text)
    };
    match object {
        Some(obj) if is_clines_own(hook) => HookOutput::from_cline(&obj, hook.event),
        Some(obj) => HookOutput::from_dialect_json_checked(&obj, hook.dialect, hook.event),
        // Cursor reads its hooks' stdout as JSON only: text is a failed
        // hook there (which blocks under its `failClosed`).
        None if hook.dialect == Dialect::Cursor && !text.trim().is_empty() => Err(format!(
            "printed text that is not a JSON answer: {}",
            first_line(text).unwrap_or_default()
        )),
        None if is_clines_own(hook) && !text.trim().is_empty() => Err(format!(
            "printed text that is not a JSON answer (Cline ignores it): {}",
            first_line(text).unwrap_or_default()
        )),
        None if hook.dialect == Dialect::Claude => Ok(HookOutput {
            additional_context: hook.event.plain_stdout_is_context().then(|| text.to_string()),
            ..HookOutput::default()
        }),
        None => Ok(HookOutput {
            system_message: Some(text.to_string()),
            ..HookOutput::default()
        }),
    }
}

/// Whether `hook` is a hook file of Cline's own (which reads Cline's
/// payload and answers in Cline's words).
fn is_clines_own(hook: &HookDef) -> bool {
    hook.options.own_event.is_some() && hook.agent() == crate::Agent::Cline
}

/// What a hook answered: its stdout, or for a gemini-cli hook whose stdout
/// is empty its stderr (gemini-cli reads that instead).
fn answer_text<'a>(c: &'a Captured, hook: &HookDef) -> &'a str {
    if hook.dialect == Dialect::Gemini && c.stdout.trim().is_empty() {
        &c.stderr
    } else {
        &c.stdout
    }
}

/// A JSON object as gemini-cli reads one: also when it is a JSON string
/// holding an object (double-encoded).
fn parse_gemini_object(text: &str) -> Option<serde_json::Map<String, Value>> {
    parse_object(text).or_else(|| match serde_json::from_str::<Value>(text) {
        Ok(Value::String(inner)) => parse_object(&inner),
        _ => None,
    })
}

/// The answer in `stdout` when it is text followed by a JSON object on
/// lines of its own (and is not one JSON object as a whole).
fn glued_answer(stdout: &str) -> Option<HookOutput> {
    let text = stdout.trim();
    if !text.ends_with('}') || parse_object(text).is_some() {
        return None;
    }
    // From the last line that opens an object: the shortest tail that is
    // one, found in one pass over the line starts (at most a few lines).
    let starts = text.match_indices("\n{").map(|(i, _)| i + 1).collect::<Vec<_>>();
    starts
        .iter()
        .rev()
        .take(64)
        .find_map(|&i| parse_object(&text[i..]))
        .and_then(|obj| HookOutput::from_json_checked(&obj).ok())
}

/// `line` without terminal escape sequences (`ESC [ ... letter`).
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// A blocking answer: the reason from JSON (stdout, then stderr), else
/// stderr's text, else `fallback`.
fn read_block(c: &Captured, fallback: impl FnOnce() -> String) -> HookOutput {
    let mut out = parse_object(&c.stdout)
        .or_else(|| parse_object(&c.stderr))
        .map(|o| HookOutput::from_json(&o))
        .unwrap_or_default();
    out.decision = Decision::Block;
    if out.reason.is_none() {
        let stderr = c.stderr.trim();
        out.reason = Some(if stderr.is_empty() {
            fallback()
        } else {
            stderr.to_string()
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::HookAction;

    fn hook(fail: FailPolicy) -> Arc<HookDef> {
        let command = HookAction::Command { command: "true".into() };
        Arc::new(HookDef {
            name: Some("h".into()),
            timeout: Duration::from_secs(1),
            fail,
            ..HookDef::new("h", EventKind::BeforeTool, command)
        })
    }

    fn ended(code: i32, stdout: &str, stderr: &str) -> Captured {
        Captured {
            exit: Exit {
                code: Some(code),
                ..Exit::default()
            },
            stdout: stdout.into(),
            stderr: stderr.into(),
            ..Captured::default()
        }
    }

    fn run(code: i32, stdout: &str, stderr: &str) -> HookRecord {
        HookRecord::interpret(hook(FailPolicy::Open), ended(code, stdout, stderr))
    }

    #[test]
    fn a_background_hook_keeps_only_what_it_says() {
        let mut def = (*hook(FailPolicy::Closed)).clone();
        def.options.background = Background::Async;
        let out = r#"{"systemMessage": "tests failed", "hookSpecificOutput": {"permissionDecision": "deny",
            "updatedInput": {"command": "rm -rf /"}, "additionalContext": "see log"}}"#;
        let c = Captured {
            stdout: out.into(),
            ..Captured::default()
        };
        let r = HookRecord::interpret(
            Arc::new(def.clone()),
            Captured {
                exit: Exit {
                    code: Some(0),
                    ..Exit::default()
                },
                ..c
            },
        );
        assert_eq!(r.output.decision, Decision::Undecided);
        assert!(r.output.tool_input.is_none());
        assert_eq!(r.output.additional_context.as_deref(), Some("see log\ntests failed"));
        // A failure under the closed policy is still reported, and still
        // cannot block for a hook the agent does not wait for.
        let r = HookRecord::interpret(
            Arc::new(def),
            Captured {
                exit: Exit {
                    code: Some(1),
                    ..Exit::default()
                },
                ..Captured::default()
            },
        );
        assert!(r.failure.is_some());
        assert_eq!(r.output.decision, Decision::Undecided);
    }

    #[test]
    fn an_async_rewake_exit_2_is_a_reminder_not_a_block() {
        let mut def = (*hook(FailPolicy::Closed)).clone();
        def.options.background = Background::Rewake;
        let def = Arc::new(def);
        let r = HookRecord::interpret(Arc::clone(&def), ended(2, "out", " 3 tests failed\n"));
        assert_eq!(r.output.decision, Decision::Undecided);
        assert_eq!(r.output.additional_context.as_deref(), Some("3 tests failed"));
        assert!(r.failure.is_none());
        // stdout when stderr says nothing.
        let r = HookRecord::interpret(Arc::clone(&def), ended(2, "lint found 2 errors", ""));
        assert_eq!(r.output.additional_context.as_deref(), Some("lint found 2 errors"));
        // Exit 0 is read like an async hook's answer.
        let r = HookRecord::interpret(def, ended(0, r#"{"systemMessage": "done"}"#, "noise"));
        assert_eq!(r.output.additional_context.as_deref(), Some("done"));
    }

    #[test]
    fn claude_worktree_hooks_fail_on_any_nonzero_exit() {
        let mut def = (*hook(FailPolicy::Open)).clone();
        def.dialect = Dialect::Claude;
        def.event = EventKind::WorktreeCreate;
        let exit = |code| Captured {
            exit: Exit {
                code: Some(code),
                ..Exit::default()
            },
            ..Captured::default()
        };
        let r = HookRecord::interpret(Arc::new(def.clone()), exit(1));
        assert_eq!(r.output.decision, Decision::Block);
        assert_eq!(r.output.reason.as_deref(), Some("hook h exited with code 1"));
        def.event = EventKind::PermissionRequest;
        let r = HookRecord::interpret(Arc::new(def), exit(2));
        assert_eq!(
            r.output.decision,
            Decision::Undecided,
            "Claude ignores exit 2 on PermissionRequest"
        );
    }

    #[test]
    fn exit_2_with_empty_stdout_blocks_with_stderr() {
        let r = run(2, "", "not on main\n");
        assert_eq!(r.output.decision, Decision::Block);
        assert_eq!(r.output.reason.as_deref(), Some("not on main"));
        assert!(r.failure.is_none());
    }

    #[test]
    fn exit_2_reason_from_json_on_stderr() {
        let r = run(2, "", r#"{"reason": "json reason"}"#);
        assert_eq!(r.output.reason.as_deref(), Some("json reason"));
    }

    #[test]
    fn exit_0_text_is_a_message() {
        let r = run(0, "hello\n", "");
        assert_eq!(r.output.system_message.as_deref(), Some("hello"));
        assert_eq!(r.output.decision, Decision::Undecided);
    }

    #[test]
    fn a_cut_or_mistyped_answer_is_a_failure_not_an_allow() {
        let mut c = Captured {
            exit: Exit {
                code: Some(0),
                ..Exit::default()
            },
            stdout: r#"{"decision": "deny", "reason": "xxxx"#.into(),
            stdout_truncated: true,
            ..Captured::default()
        };
        let r = HookRecord::interpret(hook(FailPolicy::Closed), c.clone());
        let f = r.failure.unwrap();
        assert!(f.message.contains("output cap"));
        assert_eq!(f.kind, FailureKind::OverCap);
        assert_eq!(r.output.decision, Decision::Block);
        c.stdout_truncated = false;
        c.stdout = r#"{"decision": 1}"#.into();
        let r = HookRecord::interpret(hook(FailPolicy::Open), c);
        let f = r.failure.unwrap();
        assert!(f.message.contains("invalid \"decision\""));
        assert_eq!(f.kind, FailureKind::Protocol);
        assert_eq!(r.output.decision, Decision::Undecided);
    }

    #[test]
    fn other_exit_fails_open_unless_closed() {
        let r = run(1, "", "boom");
        assert_eq!(r.output.decision, Decision::Undecided);
        assert_eq!(r.warning().unwrap(), "hook h exited with code 1: boom");
        let c = Captured {
            exit: Exit {
                code: Some(1),
                ..Exit::default()
            },
            ..Captured::default()
        };
        let r = HookRecord::interpret(hook(FailPolicy::Closed), c);
        assert_eq!(r.output.decision, Decision::Block);
    }

    /// A shell start-up file printing before a guard's JSON deny (zsh
    /// reads `~/.zshenv` for every `zsh -c`, Codex's shell for zsh users): the deny is taken and the user told;
    /// an allow glued to text is a warning, never a silent allow.
    #[test]
    fn text_glued_before_a_json_answer_is_never_silent() {
        let deny = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}"#;
        for profile in ["Welcome back\n", "Agent pid 4242\nWelcome back\n", "{broken\n"] {
            let r = run(0, &format!("{profile}{deny}\n"), "");
            assert!(r.output.decision.is_block(), "{profile:?}: {:?}", r.output);
            assert!(
                r.warning().is_some_and(|w| w.contains("before its JSON answer")),
                "{profile:?}"
            );
        }
        let r = run(0, "Welcome back\n{\"decision\": \"approve\"}", "");
        assert!(!r.output.decision.is_block());
        assert!(r.warning().is_some_and(|w| w.contains("not read")), "{:?}", r.warning());
        let r = HookRecord::interpret(
            hook(FailPolicy::Closed),
            ended(0, "Welcome back\n{\"decision\": \"approve\"}", ""),
        );
        assert!(r.output.decision.is_block(), "closed: an unreadable answer blocks");
        // One JSON object, or plain text: as before, no warning.
        assert!(run(0, deny, "").warning().is_none());
        assert!(run(0, "all good {not json}", "").warning().is_none());
    }

    /// gemini-cli reads a hook's answer whatever its exit code: JSON on
    /// stdout, else on stderr, is the answer; text with a code other than
    /// 0 or 1 is a denial. hookshot blocks wherever gemini-cli would.
    #[test]
    fn a_gemini_hook_is_read_as_gemini_cli_reads_it() {
        let gemini = |code: i32, stdout: &str, stderr: &str| {
            let def = HookDef {
                dialect: Dialect::Gemini,
                ..(*hook(FailPolicy::Open)).clone()
            };
            HookRecord::interpret(Arc::new(def), ended(code, stdout, stderr))
        };
        assert_eq!(
            hook(FailPolicy::Open).dialect,
            Dialect::Gemini,
            "run() reads as gemini-cli"
        );
        let deny = r#"{"decision": "deny", "reason": "gemini says no"}"#;
        for (code, out, err) in [
            (1, deny, ""),
            (3, deny, ""),
            (0, "", deny),
            (1, "", deny),
            (0, &serde_json::to_string(deny).unwrap(), ""),
            (3, "", "not allowed here"),
            (127, "", "sh: guard: not found"),
            (5, "plain text", ""),
        ] {
            let r = gemini(code, out, err);
            assert!(
                r.output.decision.is_block(),
                "exit {code} {out:?} {err:?}: {:?}",
                r.output
            );
        }
        // Exit 1 with text is a warning, as in gemini-cli; so is silence.
        for (code, out) in [(1, "just text"), (3, "")] {
            let r = gemini(code, out, "");
            assert!(!r.output.decision.is_block(), "exit {code} {out:?}");
            assert!(r.warning().is_some());
        }
        // Claude Code's rules stay Claude Code's: exit 3 is an error.
        let claude = HookDef {
            dialect: Dialect::Claude,
            ..(*hook(FailPolicy::Open)).clone()
        };
        let r = HookRecord::interpret(Arc::new(claude), ended(3, deny, ""));
        assert!(!r.output.decision.is_block());
    }
}
