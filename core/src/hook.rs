//! Hook definitions: the plain data the registry hands to the planner and
//! the runner. Nothing here is compiled or spawned.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::event::{Dialect, EventKind};

/// Where a hook comes from, lowest precedence first: a later kind overrides an
/// earlier one of the same identity, and sequential chains run in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// Registered by code (built-in hooks).
    Builtin,
    /// System-wide settings (`/etc/hookshot/`).
    System,
    /// The user's settings (`~/.config/hookshot/`, agent-native user files).
    User,
    /// The project's settings (`.hookshot/`, `.gemini/`, `.claude/`, `.jcli/`).
    Project,
    /// Hooks contributed by extensions.
    Extension,
    /// Hooks registered at run time for this session.
    Session,
    /// Files named on the command line with `--settings`.
    Cli,
}

impl SourceKind {
    /// Whether hooks of this kind only run after the user trusted them.
    pub fn needs_trust(self) -> bool {
        matches!(self, SourceKind::Project | SourceKind::Extension)
    }
}

impl fmt::Display for SourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            SourceKind::Builtin => "builtin",
            SourceKind::System => "system",
            SourceKind::User => "user",
            SourceKind::Project => "project",
            SourceKind::Extension => "extension",
            SourceKind::Session => "session",
            SourceKind::Cli => "cli",
        };
        f.write_str(s)
    }
}

/// Where a value was written: file, line and column (1-based) and the JSON
/// pointer (or YAML path) of the value inside the file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Provenance {
    /// The settings file; `None` for hooks registered by code.
    pub file: Option<PathBuf>,
    /// 1-based line, 0 when unknown.
    pub line: usize,
    /// 1-based column, 0 when unknown.
    pub column: usize,
    /// JSON pointer of the value, e.g. `/hooks/BeforeTool/0/hooks/1`.
    pub pointer: String,
}

impl fmt::Display for Provenance {
    /// `path:line:column`, the form editors and terminals link to.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{}", file.display())?,
            None => f.write_str("<code>")?,
        }
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        Ok(())
    }
}

/// Which targets a hook applies to, as the dialect declared it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum MatcherSpec {
    /// Every target (no matcher, empty, or `*`).
    Any,
    /// The target equals one of these names (`write_file`, `Edit|Write`).
    Exact(Vec<String>),
    /// The target matches this regular expression somewhere (gemini's rule).
    Regex(String),
    /// The whole target matches this regular expression (Claude's rule).
    FullRegex(String),
    /// A JavaScript regular expression (Claude Code's and gemini-cli's
    /// matchers), tested anywhere in the target, that the `regex` crate
    /// would read otherwise or refuse: look-arounds (`^(?!Read$).*`),
    /// back-references, `\<` (a literal `<` in JavaScript), `[^]`, ASCII
    /// `\d`/`\w`/`\b`. Run by an ECMAScript engine; a JavaScript
    /// matcher the `regex` crate reads the same way is a `Regex`.
    Script(String),
    /// Claude-style argument filters, any of which may match: the tool is
    /// named exactly and its main argument (the command, the file path)
    /// matches the glob: `Bash(git push*)`, `Write(src/**)`.
    ToolArgs(Vec<(String, String)>),
}

/// The alternatives of a regex matcher that is nothing but literal names
/// (`write_file|run_shell_command`: letters, digits, `_` and `-` between
/// `|`), or `None` when it has anything a regex engine must read. Loading
/// checks and classifies such matchers without parsing them: parsing was a
/// measurable share of a one-shot `fire`.
pub fn literal_alternatives(pattern: &str) -> Option<std::str::Split<'_, char>> {
    pattern
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'|')
        .then(|| pattern.split('|'))
}

/// The argument of a tool call that argument filters match: the command of
/// a shell tool, the path of a file tool, the URL of a fetch.
pub fn main_argument(tool_input: &serde_json::Value) -> Option<&str> {
    [
        "command",
        "file_path",
        "absolute_path",
        "notebook_path",
        "path",
        "url",
        "pattern",
        "query",
    ]
    .iter()
    .find_map(|k| tool_input.get(*k).and_then(serde_json::Value::as_str))
}

/// What running the hook means.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HookAction {
    /// A shell command, run with the configured shell (`bash -c`).
    Command {
        /// The command line, after environment expansion.
        command: String,
    },
    /// A program run directly with these arguments, no shell involved
    /// (Claude Code's exec form: `command` plus `args`).
    Exec {
        /// The program (a path, or a name looked up on `PATH`).
        program: String,
        /// Its arguments, each passed as written.
        args: Vec<String>,
    },
    /// An HTTP endpoint the event is POSTed to as JSON (Claude Code's
    /// `type: "http"`); the response body is read like a command's stdout.
    Http {
        /// Where to POST.
        url: String,
        /// Extra headers, `$VAR`/`${VAR}` not yet interpolated.
        headers: Vec<(String, String)>,
        /// The variables the headers may interpolate; others become "".
        allowed_env: Vec<String>,
    },
    /// A tool called on an MCP server (Claude Code's `type: "mcp_tool"`);
    /// the tool's text is read like a command's stdout.
    McpTool {
        /// The server's name as the hook wrote it.
        server: String,
        /// How to start that server, once the registry found its
        /// definition; `None` while unresolved, which fails visibly.
        spawn: Option<McpStdio>,
        /// The tool to call.
        tool: String,
        /// The tool's arguments as a JSON object text; string values may
        /// hold `${path}` references into the hook's input.
        input: Option<String>,
    },
    /// Claude Code's `prompt` and `agent` hooks: a model judges the event
    /// and answers `{"ok": ..., "reason": ...}` (`core::judge`).
    Judge {
        /// The prompt; `$ARGUMENTS` is the hook's input JSON.
        prompt: String,
        /// A model to use instead of the client's default.
        model: Option<String>,
        /// An agent hook: the model may call read-only tools (Read, Grep,
        /// Glob) over several turns before it answers.
        agent: bool,
        /// A prompt hook's `continueOnBlock`: feed the reason back and go
        /// on instead of ending the turn.
        continue_on_block: bool,
    },
    /// A kind of hook this build cannot run:
    /// loaded so that it is listed and reported each time it would run,
    /// never silently dropped.
    Unsupported {
        /// The hook type as written.
        kind: String,
        /// Why it cannot run.
        why: String,
    },
    /// A hook compiled into the process (built-ins, embedders' hooks),
    /// looked up by name in the runner.
    InProcess {
        /// The registered name.
        name: String,
    },
    /// A long-running process spoken to with JSON-RPC 2.0 over stdio, one
    /// message per line (picoclaw's process hooks); started once, shared by
    /// every hook definition that names it.
    Persistent {
        /// The process.
        process: ProcessSpec,
        /// For an observer, the runtime-event kind it watches (picoclaw's
        /// `agent.tool.exec_start`, ...): it is sent a `hook.runtime_event`
        /// notification with that kind, and no answer is awaited. `None`
        /// for an interceptor, which is asked and answers.
        observe: Option<String>,
    },
    /// A prompt for a model (jcli `type: llm`, Claude `type: "prompt"`):
    /// the template is rendered with the event's fields and the model's
    /// JSON answer is the hook's output.
    Llm {
        /// The template, with `{{event}}`, `{{tool_name}}`, ... placeholders.
        prompt: String,
        /// A model to use instead of the client's default.
        model: Option<String>,
    },
}

/// A local MCP server spoken to over stdio, as `.mcp.json` (or any
/// settings file's `mcpServers`) defines it, variables already expanded.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct McpStdio {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Environment on top of the hook's.
    pub env: Vec<(String, String)>,
    /// Working directory; the project's when `None`.
    pub cwd: Option<PathBuf>,
    /// The file that defines it, for messages.
    pub defined_in: PathBuf,
}

/// Claude Code's `if` on a handler: one permission rule (`Bash(git *)`,
/// `Edit(*.ts)`, `WebFetch(domain:example.com)`) the tool call must match
/// as well as the group's matcher.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct ToolRule {
    /// The tool the rule names.
    pub tool: String,
    /// What is inside the parentheses; `None` matches every call of the tool.
    pub pattern: Option<String>,
    /// `pattern` is a regular expression searched for in the tool's main
    /// argument (Cursor's matcher of `beforeShellExecution`, tested on the
    /// command), not a permission rule's glob.
    pub regex: bool,
}

/// Per-hook settings some dialects have beyond matching and running.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct HookOptions {
    /// Environment for this hook only, on top of the event's (a plugin's
    /// `CLAUDE_PLUGIN_ROOT`, an extension's path).
    pub env: Vec<(String, String)>,
    /// Claude's `if`: a rule the tool call must also match.
    pub condition: Option<ToolRule>,
    /// Claude's `async` and `asyncRewake`: the agent does not wait, and
    /// what the hook says reaches the model with a later event.
    pub background: Background,
    /// Codex's `additionalContextLimit`: the most context (in tokens of 4
    /// bytes) this hook gives the model when Codex is the agent; `None`:
    /// Codex's default ([`crate::Agent::context_limit`]).
    pub context_limit: Option<u64>,
    /// The folder it runs in instead of the project's (Copilot CLI's
    /// `cwd`; a relative one is taken from the project's).
    pub cwd: Option<PathBuf>,
    /// The event's name in the hook's own file where its agent gives one
    /// event several, each with its own payload (Cursor's
    /// `beforeShellExecution` is its `preToolUse` of the shell, and reads
    /// `command` and `cwd`, not `tool_input`).
    pub own_event: Option<String>,
    /// How many times in a row its answer at the end of a turn may make
    /// the agent go on (Cursor's `loop_limit`, 5 by default): past it the
    /// follow-up is dropped, as Cursor drops it. `None`: no limit.
    pub loop_limit: Option<u32>,
}

/// How a hook runs when the agent does not wait for it (Claude's `async`
/// and `asyncRewake`). Its verdict never applies: the action it would have
/// controlled went on without it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Background {
    /// The agent waits for it: an ordinary hook.
    #[default]
    Off,
    /// `async`: its `additionalContext` and `systemMessage` reach the model
    /// with the session's next event that carries context. Its timeout is
    /// not enforced (as in Claude Code), only [`BACKGROUND_CEILING`].
    Async,
    /// `asyncRewake`: as `async`, its timeout enforced, and exit code 2
    /// delivers its stderr (or stdout) to the model as a reminder.
    Rewake,
}

impl Background {
    /// The agent does not wait for the hook.
    pub fn is_on(self) -> bool {
        self != Background::Off
    }
}

/// The longest an `async` hook may run: Claude Code enforces no timeout on
/// one, and hookshot still ends it rather than let a forgotten session
/// leave processes behind forever.
pub const BACKGROUND_CEILING: std::time::Duration = std::time::Duration::from_secs(3600);

/// How to start a persistent hook process.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct ProcessSpec {
    /// Its name (from the settings), which identifies the process.
    pub name: String,
    /// The program and its arguments (no shell).
    pub argv: Vec<String>,
    /// Working directory, relative to the project directory if relative.
    pub dir: Option<PathBuf>,
    /// Extra environment.
    pub env: Vec<(String, String)>,
    /// What it said it can do (`hook.hello` modes sent to it).
    pub modes: Vec<String>,
}

/// What a failing hook (non-zero exit other than 2, timeout, crash) means.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FailPolicy {
    /// Warn and go on as if the hook had allowed (the default everywhere).
    #[default]
    Open,
    /// Treat the failure as a block.
    Closed,
}

/// One hook as the registry resolved it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct HookDef {
    /// Stable identity used for de-duplication and disable lists: the name if
    /// given, else `name:command` as gemini-cli forms it.
    pub identity: String,
    /// The name the user gave, if any.
    pub name: Option<String>,
    /// The event this hook is registered for.
    pub event: EventKind,
    /// The dialect the hook was written in (decides its input and output shapes).
    pub dialect: Dialect,
    /// Which targets it applies to.
    pub matcher: MatcherSpec,
    /// jcli's `filter.model_prefix`: the model name must start with this.
    pub model_prefix: Option<String>,
    /// What to run.
    pub action: HookAction,
    /// How long one run may take.
    pub timeout: Duration,
    /// The definition asked for sequential execution.
    pub sequential: bool,
    /// What a failure means.
    pub fail: FailPolicy,
    /// Extra attempts after a failure (jcli `retry`).
    pub retry: u32,
    /// Where it comes from.
    pub source: SourceKind,
    /// Where it was written.
    pub provenance: Provenance,
    /// Dialect extras: per-hook environment, `if` rule, background runs.
    pub options: HookOptions,
}

impl HookDef {
    /// The agent whose hook this is, by its format and file
    /// ([`crate::Agent::of_hook_file`]): it runs with that agent's shell
    /// and variables.
    pub fn agent(&self) -> crate::Agent {
        let file = self.provenance.file.as_deref().unwrap_or(std::path::Path::new(""));
        crate::Agent::of_hook_file(self.dialect, file)
    }

    /// The agent it runs as when `caller` runs hookshot: its own file's
    /// agent, but a hook from a file no agent owns beyond its format
    /// (hookshot's settings) runs as the caller would run it when the
    /// caller reads that format.
    pub fn runs_as(&self, caller: Option<crate::Agent>) -> crate::Agent {
        let own = self.agent();
        if own == crate::Agent::of_dialect(self.dialect, None) {
            crate::Agent::of_dialect(self.dialect, caller)
        } else {
            own
        }
    }

    /// A hook with the plainest settings, the rest to be filled in with
    /// struct update syntax: gemini dialect, no matcher, 60 s timeout, no
    /// retry, fail open, from the command line, no extras. For hooks made
    /// by code (built-ins, embedders, tests) rather than read from a file.
    pub fn new(identity: impl Into<String>, event: EventKind, action: HookAction) -> HookDef {
        HookDef {
            identity: identity.into(),
            name: None,
            event,
            dialect: Dialect::Gemini,
            matcher: MatcherSpec::Any,
            model_prefix: None,
            action,
            timeout: std::time::Duration::from_secs(60),
            sequential: false,
            fail: FailPolicy::Open,
            retry: 0,
            source: SourceKind::Cli,
            provenance: Provenance::default(),
            options: HookOptions::default(),
        }
    }

    /// What a person calls this hook in messages: its name, else its command.
    pub fn label(&self) -> &str {
        if let Some(n) = &self.name {
            return n;
        }
        match &self.action {
            HookAction::Command { command } => command,
            HookAction::Exec { program, .. } => program,
            HookAction::Unsupported { kind, .. } => kind,
            HookAction::Http { url, .. } => url,
            HookAction::McpTool { tool, .. } => tool,
            HookAction::InProcess { name } => name,
            HookAction::Persistent { process, .. } => &process.name,
            HookAction::Llm { prompt, .. } | HookAction::Judge { prompt, .. } => prompt,
        }
    }

    /// Applies the failure policy in force: under `closed`, a failure of
    /// any hook that can decide blocks. Observers (picoclaw notifications)
    /// only watch, so their failures stay warnings. Returns whether the
    /// hook changed.
    pub fn govern(&mut self, policy: FailPolicy) -> bool {
        let changes = self.governed_by(policy);
        if changes {
            self.fail = FailPolicy::Closed;
        }
        changes
    }

    /// Whether [`HookDef::govern`] would change this hook (so a caller
    /// holding shared hooks copies only those).
    pub fn governed_by(&self, policy: FailPolicy) -> bool {
        let observer = matches!(self.action, HookAction::Persistent { observe: Some(_), .. });
        policy == FailPolicy::Closed && !observer && self.fail != FailPolicy::Closed
    }

    /// Whether it observes skipped tools (picoclaw's
    /// `agent.tool.exec_skipped`): such a hook is registered for BeforeTool
    /// but told only when the BeforeTool answer blocked the tool.
    pub fn observes_skip(&self) -> bool {
        matches!(&self.action, HookAction::Persistent { observe: Some(kind), .. } if kind.ends_with("exec_skipped"))
    }

    /// The command line, for command hooks.
    pub fn command(&self) -> Option<&str> {
        match &self.action {
            HookAction::Command { command } => Some(command),
            HookAction::Exec { program, .. } => Some(program),
            HookAction::InProcess { .. }
            | HookAction::Persistent { .. }
            | HookAction::Llm { .. }
            | HookAction::Judge { .. }
            | HookAction::Http { .. }
            | HookAction::McpTool { .. }
            | HookAction::Unsupported { .. } => None,
        }
    }
}
