//! The agents hookshot sits in front of, and what each does differently:
//! one row per agent, read by every stage that must behave as that agent
//! (the registry's regex flavour, the runner's shell, the facade's own
//! files and hook variables, the events `install` registers, the answers
//! of `fire` and `serve`). Adding an agent is adding a row here.
//!
//! Each fact is checked against the agent itself in `agents/` (Claude Code
//! 2.1.332, Codex 0.169.0, gemini-cli 0.61.0); jcli's and picoclaw's rows
//! follow their published hook documents.

use std::path::Path;

use serde_json::Value;

use crate::{Decision, Dialect, EventKind, Outcome};

/// An agent that runs hookshot as one of its hooks, or whose files
/// hookshot reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Agent {
    /// Claude Code.
    Claude,
    /// gemini-cli.
    Gemini,
    /// OpenAI Codex: Claude Code's hook format and event names, its own
    /// shell, regex engine and stricter answers.
    Codex,
    /// jcli: `hooks.yaml`, its snake_case events, `sh -c`.
    Jcli,
    /// picoclaw: JSON-RPC process hooks in its configuration.
    Picoclaw,
    /// Qwen Code: gemini-cli's fork with Claude Code's hook format and
    /// event names, its own tool ids, unanchored matchers and 60 s
    /// timeouts (0.24.4's bundle and its hooks reference).
    Qwen,
    /// GitHub Copilot CLI: its own camelCase format, and Claude Code's
    /// event names, which switch its payload to Claude Code's shape
    /// (1.0.102, observed).
    Copilot,
    /// Cline (its CLI 3.0.65): one executable per event
    /// (`~/.cline/hooks/PreToolUse`, ...), its own payload (`tool_call`,
    /// `preToolUse`, `taskId`, `workspaceRoots`) and answers (`cancel`,
    /// `errorMessage`, `contextModification`) read at any exit code.
    /// hookshot's own hooks run under it with Claude Code's shapes.
    Cline,
    /// Cursor: `.cursor/hooks.json`, camelCase events, tool-naming events
    /// (`beforeShellExecution`), `permission` answers. Its agent is in no
    /// registry reachable here: built from its published hook reference
    /// and checked at the protocol level.
    Cursor,
}

/// A settings file an agent reads its hooks from, in its folder
/// ([`Agent::folder`]) of the user's home or of a project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentFile {
    /// Its name in the agent's folder.
    pub name: &'static str,
    /// Read in a project only, never in the home.
    pub project_only: bool,
    /// Its name in hookshot's `imported/` folder, where `hookshot install
    /// --import` moves its hooks; `None`: install neither registers in
    /// it nor moves hooks out of it.
    pub imported_as: Option<&'static str>,
    /// Whether hookshot reads its hooks: not where the agent's own format
    /// is not one hookshot reads (Copilot CLI's `hookshot.json` holds
    /// hookshot's registration alone, in Claude Code's shapes).
    pub read: bool,
}

/// A tool an agent names in its own words: its name, Claude Code's name
/// for the same tool (hookshot's reference names), and the renames of its
/// arguments from its words to Claude Code's, where they differ.
pub type ToolName = (&'static str, &'static str, &'static [(&'static str, &'static str)]);

/// Whose regular expressions a file's matchers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegexFlavour {
    /// JavaScript's, without flags (`new RegExp(matcher)`).
    Ecma,
    /// The `regex` crate's (Codex is Rust; jcli too; picoclaw's Go RE2
    /// reads the same).
    Rust,
}

/// hookshot's folder (in `$XDG_CONFIG_HOME/hookshot` and a project's
/// `.hookshot`) for the hooks `hookshot install --import` moved out of the
/// agents' files, one file per agent file ([`AgentFile::imported_as`]).
pub const IMPORTED_DIR: &str = "imported";

impl Agent {
    /// Every agent.
    pub const ALL: [Agent; 9] = [
        Agent::Claude,
        Agent::Gemini,
        Agent::Codex,
        Agent::Jcli,
        Agent::Picoclaw,
        Agent::Qwen,
        Agent::Copilot,
        Agent::Cline,
        Agent::Cursor,
    ];

    /// Its name on the command line and in `serve` requests.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Gemini => "gemini",
            Agent::Codex => "codex",
            Agent::Jcli => "jcli",
            Agent::Picoclaw => "picoclaw",
            Agent::Qwen => "qwen",
            Agent::Copilot => "copilot",
            Agent::Cline => "cline",
            Agent::Cursor => "cursor",
        }
    }

    /// The agent called `name`.
    pub fn parse(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The settings format its hooks are written in.
    pub fn dialect(self) -> Dialect {
        match self {
            Agent::Gemini => Dialect::Gemini,
            Agent::Claude | Agent::Codex | Agent::Qwen | Agent::Copilot | Agent::Cline => Dialect::Claude,
            Agent::Jcli => Dialect::Jcli,
            Agent::Picoclaw => Dialect::Picoclaw,
            Agent::Cursor => Dialect::Cursor,
        }
    }

    /// The events it runs hooks for that hookshot fires, in its own words.
    /// Codex 0.171 has 14 (Claude Code's names, and three of its own that
    /// Claude Code does not have: `PreModelRequest`, `PostModelRequest`,
    /// `Interrupt`).
    pub fn events(self) -> Vec<EventKind> {
        const CODEX_OWN: [EventKind; 3] = [
            EventKind::PreModelRequest,
            EventKind::PostModelRequest,
            EventKind::Interrupt,
        ];
        const CODEX: [EventKind; 14] = [
            EventKind::BeforeTool,
            EventKind::PermissionRequest,
            EventKind::AfterTool,
            EventKind::PreCompress,
            EventKind::PostCompress,
            EventKind::SessionStart,
            EventKind::SessionEnd,
            EventKind::BeforeAgent,
            EventKind::SubagentStart,
            EventKind::SubagentStop,
            EventKind::AfterAgent,
            EventKind::PreModelRequest,
            EventKind::PostModelRequest,
            EventKind::Interrupt,
        ];
        match self {
            Agent::Codex => CODEX.to_vec(),
            // Qwen Code 0.24.4's 22 events but SessionDelete, TodoCreated
            // and TodoCompleted, which hookshot does not fire.
            // Those Copilot CLI 1.0.102 runs with Claude Code's payload
            // when named in Claude Code's words (its PermissionRequest
            // keeps its own payload, and is left out).
            // The events of the hook files of Cline's hookshot answers.
            Agent::Cline => {
                let mut events: Vec<EventKind> = CLINE_HOOK_FILES.iter().map(|(_, e)| *e).collect();
                events.dedup();
                events
            }
            Agent::Copilot => vec![
                EventKind::SessionStart,
                EventKind::SessionEnd,
                EventKind::BeforeAgent,
                EventKind::BeforeTool,
                EventKind::AfterTool,
                EventKind::AfterToolFailure,
                EventKind::AfterAgent,
            ],
            Agent::Qwen => vec![
                EventKind::BeforeTool,
                EventKind::AfterTool,
                EventKind::AfterToolFailure,
                EventKind::PostToolBatch,
                EventKind::BeforeAgent,
                EventKind::UserPromptExpansion,
                EventKind::SessionStart,
                EventKind::SessionEnd,
                EventKind::MessageDisplay,
                EventKind::AfterAgent,
                EventKind::StopFailure,
                EventKind::SubagentStart,
                EventKind::SubagentStop,
                EventKind::PreCompress,
                EventKind::PostCompress,
                EventKind::Notification,
                EventKind::PermissionRequest,
                EventKind::PermissionDenied,
                EventKind::InstructionsLoaded,
            ],
            Agent::Claude | Agent::Gemini | Agent::Jcli | Agent::Picoclaw | Agent::Cursor => EventKind::ALL
                .iter()
                .copied()
                .filter(|e| e.name_in(self.dialect()).is_some() && !CODEX_OWN.contains(e))
                .collect(),
        }
    }

    /// The variables it sets for its hooks: hookshot sets them for its
    /// hooks only, so a hook that checks one to know its agent is not
    /// misled. gemini-cli sets Claude Code's `CLAUDE_PROJECT_DIR` too (for
    /// the Claude Code hooks it runs); Codex sets none (not even that one,
    /// though it shares Claude Code's format); picoclaw's process hooks
    /// learn everything from their JSON-RPC messages.
    pub fn hook_vars(self) -> &'static [&'static str] {
        match self {
            Agent::Gemini => &[
                "GEMINI_PROJECT_DIR",
                "GEMINI_CWD",
                "GEMINI_SESSION_ID",
                "GEMINI_PLANS_DIR",
                "CLAUDE_PROJECT_DIR",
            ],
            Agent::Claude => &[
                "CLAUDE_PROJECT_DIR",
                "CLAUDE_ENV_FILE",
                "CLAUDE_PLUGIN_ROOT",
                "CLAUDE_PLUGIN_DATA",
            ],
            Agent::Jcli => &["JCLI_CWD", "JCLI_HOOK_EVENT"],
            // Each the project folder, for every command hook.
            Agent::Qwen => &["QWEN_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"],
            Agent::Copilot => &[
                "COPILOT_CLI",
                "COPILOT_PROJECT_DIR",
                "COPILOT_HOOK_DIR",
                "CLAUDE_PROJECT_DIR",
            ],
            // Cursor's reference: the project, and Claude Code's name for
            // it, which hooks written for both read.
            Agent::Cursor => &["CURSOR_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
            // Cline's hooks learn the project from `workspaceRoots` (its
            // `CLINE_*` variables name its own folders, not the project).
            Agent::Codex | Agent::Picoclaw | Agent::Cline => &[],
        }
    }

    /// Whether `name` is a variable some agent sets for its hooks.
    pub fn is_hook_var(name: &str) -> bool {
        Agent::ALL.iter().any(|a| a.hook_vars().contains(&name))
    }

    /// Its folder in a project (and in the user's home, unless
    /// [`Agent::user_folder`] says otherwise).
    pub fn folder(self) -> &'static str {
        match self {
            Agent::Claude => ".claude",
            Agent::Gemini => ".gemini",
            Agent::Codex => ".codex",
            Agent::Jcli => ".jcli",
            Agent::Picoclaw => ".picoclaw",
            Agent::Qwen => ".qwen",
            Agent::Copilot => ".github/hooks",
            Agent::Cline => ".clinerules",
            Agent::Cursor => ".cursor",
        }
    }

    /// Its folder in the user's home: jcli keeps the user's hooks in
    /// `~/.jdata/agent/`, the project's in `.jcli/`.
    pub fn user_folder(self) -> &'static str {
        match self {
            Agent::Jcli => ".jdata/agent",
            Agent::Copilot => ".copilot/hooks",
            Agent::Cline => ".cline",
            _ => self.folder(),
        }
    }

    /// The files in its folder it reads hooks from, in the order it reads
    /// them.
    pub fn files(self) -> &'static [AgentFile] {
        const fn file(name: &'static str, imported_as: Option<&'static str>) -> AgentFile {
            AgentFile {
                name,
                project_only: false,
                imported_as,
                read: true,
            }
        }
        const CLAUDE: &[AgentFile] = &[
            file("settings.json", Some("claude.json")),
            // What Claude Code keeps per user in a project.
            AgentFile {
                project_only: true,
                ..file("settings.local.json", Some("claude-local.json"))
            },
        ];
        const GEMINI: &[AgentFile] = &[file("settings.json", Some("gemini.json"))];
        // Codex 0.169 reads `[hooks]` tables in config.toml too; install
        // registers in hooks.json only.
        const CODEX: &[AgentFile] = &[file("hooks.json", Some("codex.json")), file("config.toml", None)];
        // hookshot reads jcli's files but does not register in them.
        const JCLI: &[AgentFile] = &[file("hooks.yaml", None)];
        const QWEN: &[AgentFile] = &[file("settings.json", Some("qwen.json"))];
        // Copilot CLI runs every `*.json` of its hooks folders; hookshot
        // registers in one of its own there, and `imported/copilot.json`
        // holds Claude-format hooks that run as Copilot CLI's.
        const COPILOT: &[AgentFile] = &[AgentFile {
            read: false,
            ..file("hookshot.json", Some("copilot.json"))
        }];
        // Cursor's own entries are flat (`{"command": ...}` under an
        // event, [`Agent::flat_entries`]); hookshot registers there beside
        // them and reads them, as Cursor runs them, for the other agents.
        const CURSOR: &[AgentFile] = &[file("hooks.json", Some("cursor.json"))];
        match self {
            Agent::Claude => CLAUDE,
            Agent::Gemini => GEMINI,
            Agent::Codex => CODEX,
            Agent::Jcli => JCLI,
            Agent::Qwen => QWEN,
            Agent::Copilot => COPILOT,
            Agent::Cursor => CURSOR,
            // Cline's hooks are executables, one per event, not a file of
            // hooks: hookshot is run as one of them (`fire --agent cline`).
            Agent::Cline => &[],
            // picoclaw's configuration is named with `--settings`.
            Agent::Picoclaw => &[],
        }
    }

    /// The file `hookshot install` registers in: in a project, Claude
    /// Code's per-user `settings.local.json`, so the shared
    /// `settings.json`, which teams commit, never names one machine's
    /// path of hookshot. `None`: install does not register in this agent.
    pub fn registered_file(self, in_project: bool) -> Option<&'static AgentFile> {
        self.files()
            .iter()
            .rfind(|f| f.imported_as.is_some() && (in_project || !f.project_only))
    }

    /// Whether it runs a hook of its files only once its user approved
    /// that entry (Codex 0.169's hook trust): a registration guards nothing
    /// until then, and hooks moved out of its files keep their approvals.
    pub fn approves_hooks(self) -> bool {
        self == Agent::Codex
    }

    /// Whether its hook entries carry a `name` (gemini-cli shows it in its
    /// hooks panel and in warnings).
    pub fn names_hooks(self) -> bool {
        self == Agent::Gemini
    }

    /// Whether every file in its folder is its settings (a user names
    /// `.claude/other.json` to try it), not only [`Agent::files`]: Codex's
    /// folder holds more than hooks (`auth.json`), picoclaw's its whole
    /// configuration.
    pub fn owns_its_folder(self) -> bool {
        matches!(self, Agent::Claude | Agent::Gemini | Agent::Jcli | Agent::Qwen)
    }

    /// Whether it installs plugins whose hooks it runs itself (Claude
    /// Code's `~/.claude/plugins`): hookshot called by it leaves them to it.
    pub fn runs_plugins(self) -> bool {
        self == Agent::Claude
    }

    /// The time all of one event's hooks get together, when the agent
    /// bounds their chain: jcli's 30 s.
    pub fn chain_budget(self) -> Option<std::time::Duration> {
        (self == Agent::Jcli).then_some(std::time::Duration::from_secs(30))
    }

    /// Whether a matcher of plain names that names no target exactly is
    /// still searched for in it (Qwen Code 0.24.4: a list is compared
    /// exactly, else read as an unanchored regex of its trimmed entries,
    /// so `run` fires on `run_shell_command`; one starting with `^` or `(`
    /// is only a regex). Claude Code compares a list of names exactly.
    pub fn searches_plain_matchers(self) -> bool {
        self == Agent::Qwen
    }

    /// The timeout of a command hook of its files that sets none, when
    /// not its format's: Qwen Code's 60 s.
    pub fn default_timeout(self) -> Option<std::time::Duration> {
        (self == Agent::Qwen).then_some(std::time::Duration::from_secs(60))
    }

    /// The `timeout` from which a command hook of its files counts
    /// milliseconds instead of seconds: Qwen Code reads 1000 and more as
    /// milliseconds (its older unit).
    pub fn timeout_ms_from(self) -> Option<f64> {
        (self == Agent::Qwen).then_some(1000.0)
    }

    /// Whether it reads a hook's answer on standard output when the hook
    /// exits 2: Copilot CLI 1.0.102 then denies with "hook exited with code
    /// 2" and drops the answer (its reason among it), and takes no
    /// `decision: "block"` from exit 2 at Stop: hookshot answers it with
    /// exit 0 and the decision in the JSON, which it applies. Cursor's
    /// answers (`permission`, `followup_message`) are JSON read at exit 0.
    pub fn reads_answer_at_exit_2(self) -> bool {
        !matches!(self, Agent::Copilot | Agent::Cursor | Agent::Cline)
    }

    /// Whether it reads `additionalContext` at the top of the answer, not
    /// in `hookSpecificOutput`, on `event`: Copilot CLI 1.0.102 does
    /// after a tool, on the prompt and at session start (in its own
    /// shape), and takes it in `hookSpecificOutput` only before a tool.
    pub fn context_on_top(self, event: EventKind) -> bool {
        self == Agent::Copilot && event != EventKind::BeforeTool
    }

    /// The key of a hook entry's timeout in its files, in seconds; `None`
    /// where install writes none: Cursor's reference gives its `timeout`
    /// in seconds and integrations read it as milliseconds, and 600 read
    /// as milliseconds would end hookshot after 0.6 s.
    pub fn timeout_key(self) -> Option<&'static str> {
        match self {
            Agent::Copilot => Some("timeoutSec"),
            Agent::Cursor => None,
            _ => Some("timeout"),
        }
    }

    /// The keys its hook files must carry besides `hooks` (Copilot CLI
    /// refuses a file without `"version": 1`; Cursor's reference asks
    /// for it).
    pub fn file_header(self) -> &'static [(&'static str, u64)] {
        match self {
            Agent::Copilot | Agent::Cursor => &[("version", 1)],
            _ => &[],
        }
    }

    /// Whether it runs every `*.json` file of its folders (Copilot CLI's
    /// `.github/hooks/` and `~/.copilot/hooks/`), not only
    /// [`Agent::files`], whose names are then hookshot's own in there.
    pub fn runs_every_json_file(self) -> bool {
        self == Agent::Copilot
    }

    /// Whether `path` is one of its own hook files hookshot reads: every
    /// `*.json` of Copilot CLI's folders but hookshot's registration
    /// there ([`Agent::files`] it does not read).
    pub fn reads_hooks_of(self, path: &Path) -> bool {
        let name = path.file_name().and_then(|n| n.to_str());
        self.owns_file(path) && !self.files().iter().any(|f| !f.read && Some(f.name) == name)
    }

    /// Whether each entry under an event of its files is one hook
    /// (`{"command": ..., "matcher": ...}`, Cursor's), not a group
    /// holding `hooks`.
    pub fn flat_entries(self) -> bool {
        self == Agent::Cursor
    }

    /// Its events that name their tool which `hookshot install` registers
    /// besides [`Agent::events`]: Cursor's `beforeReadFile`, the one
    /// event that carries a file's content before the model reads it
    /// (`security_scan` keeps a `.env` out of the conversation there).
    pub fn tool_events_registered(self) -> &'static [&'static str] {
        match self {
            Agent::Cursor => &["beforeReadFile"],
            _ => &[],
        }
    }

    /// Whether it denies the call when a hook of `event` fails this way:
    /// Copilot CLI 1.0.102 denies a tool whose `preToolUse` hook exits
    /// other than 0 or 2 or cannot start ("hook errored"), and lets it run
    /// after a timeout (observed).
    pub fn denies_on_failure(self, event: EventKind, kind: crate::FailureKind) -> bool {
        self == Agent::Copilot
            && event == EventKind::BeforeTool
            && matches!(kind, crate::FailureKind::Crash | crate::FailureKind::Spawn)
    }

    /// Its name as its users know it.
    pub fn display_name(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Gemini => "gemini-cli",
            Agent::Codex => "Codex",
            Agent::Jcli => "jcli",
            Agent::Picoclaw => "picoclaw",
            Agent::Qwen => "Qwen Code",
            Agent::Copilot => "GitHub Copilot CLI",
            Agent::Cline => "Cline",
            Agent::Cursor => "Cursor",
        }
    }

    /// Whether `hookshot install` registers hookshot in its files, or, for
    /// Cline, its folder of hook executables.
    pub fn installable(self) -> bool {
        self.registered_file(false).is_some() || self.hooks_are_files()
    }

    /// Whether its hooks are executables named after their events (Cline:
    /// `~/.cline/hooks/PreToolUse`), not entries of a settings file.
    pub fn hooks_are_files(self) -> bool {
        self == Agent::Cline
    }

    /// The folder of a project where its hook scripts live (what a trust
    /// approval covers besides the settings files).
    pub fn hooks_folder(self) -> &'static str {
        match self {
            Agent::Claude => ".claude/hooks",
            Agent::Gemini => ".gemini/hooks",
            Agent::Codex => ".codex/hooks",
            Agent::Jcli => ".jcli/hooks",
            Agent::Picoclaw => ".picoclaw/hooks",
            Agent::Qwen => ".qwen/hooks",
            Agent::Copilot => ".github/hooks",
            Agent::Cline => ".clinerules/hooks",
            Agent::Cursor => ".cursor/hooks",
        }
    }

    /// The agent whose file hookshot's `imported/<name>` holds.
    pub fn of_imported(name: &str) -> Option<Agent> {
        imported_files().find(|(n, _)| *n == name).map(|(_, a)| a)
    }

    /// Its own names for tools Claude Code names otherwise; empty when it
    /// uses Claude Code's.
    pub fn tool_names(self) -> &'static [ToolName] {
        match self {
            Agent::Gemini => &[
                ("run_shell_command", "Bash", &[]),
                ("write_file", "Write", &[]),
                ("replace", "Edit", &[]),
                ("read_file", "Read", &[("absolute_path", "file_path")]),
                ("read_many_files", "Read", &[]),
                ("glob", "Glob", &[]),
                ("search_file_content", "Grep", &[]),
                ("grep_search", "Grep", &[]),
                ("list_directory", "LS", &[]),
                ("web_fetch", "WebFetch", &[]),
                ("google_web_search", "WebSearch", &[]),
                ("write_todos", "TodoWrite", &[]),
            ],
            // Qwen Code's ids take Claude Code's argument names; its
            // matchers also accept Claude Code's names for them.
            Agent::Qwen => &[
                ("run_shell_command", "Bash", &[]),
                ("write_file", "Write", &[]),
                ("edit", "Edit", &[]),
                ("read_file", "Read", &[]),
                ("grep_search", "Grep", &[]),
                ("glob", "Glob", &[]),
                ("list_directory", "LS", &[]),
                ("web_fetch", "WebFetch", &[]),
                ("web_search", "WebSearch", &[]),
                ("todo_write", "TodoWrite", &[]),
                ("notebook_edit", "NotebookEdit", &[]),
            ],
            // The tools of Cursor's generic tool events (`preToolUse`,
            // `postToolUse`), read in Claude Code's names and arguments
            // when they arrive ([`crate::input::from_wire`]) and a rewrite
            // given back in Cursor's ([`Agent::cursor_arguments`]).
            Agent::Cursor => &[
                ("Shell", "Bash", &[]),
                ("Write", "Write", &[("path", "file_path"), ("contents", "content")]),
                ("StrReplace", "Edit", &[("path", "file_path")]),
                ("Read", "Read", &[("path", "file_path")]),
                ("EditNotebook", "NotebookEdit", &[]),
            ],
            // Cline's payload is made Claude Code's shape when it arrives
            // ([`crate::input::from_wire`]).
            Agent::Claude | Agent::Codex | Agent::Jcli | Agent::Picoclaw | Agent::Copilot | Agent::Cline => &[],
        }
    }

    /// A rewrite of a tool's arguments, in Claude Code's names, back in
    /// Cursor's (`file_path` is its `path`, `content` its `contents`):
    /// every Cursor tool that takes a file names it `path`.
    pub fn cursor_arguments(args: &serde_json::Map<String, Value>) -> serde_json::Map<String, Value> {
        let renames = || Agent::Cursor.tool_names().iter().flat_map(|(_, _, r)| r.iter());
        args.iter()
            .map(|(k, v)| {
                let own = renames()
                    .find(|(_, claude)| claude == k)
                    .map_or(k.as_str(), |(own, _)| own);
                (own.to_string(), v.clone())
            })
            .collect()
    }

    /// Its name for the tool Claude Code calls `claude` (hookshot's
    /// reference names).
    pub fn own_tool_name(self, claude: &'static str) -> &'static str {
        self.own_name_of(claude).unwrap_or(claude)
    }

    /// Its own name for the tool Claude Code calls `claude`, when it has
    /// one.
    pub fn own_name_of(self, claude: &str) -> Option<&'static str> {
        self.tool_names()
            .iter()
            .find(|(_, c, _)| *c == claude)
            .map(|(own, _, _)| *own)
    }

    /// A shell tool's result as its hooks read it after the tool ran
    /// (`tool_response`): gemini-cli's `llmContent`/`returnDisplay`,
    /// else Claude Code's streams.
    pub fn shell_result(self, text: &str) -> Value {
        match self {
            Agent::Gemini => serde_json::json!({"llmContent": text, "returnDisplay": text}),
            _ => serde_json::json!({"stdout": text, "stderr": "", "interrupted": false, "isImage": false}),
        }
    }

    /// Tools whose hooks it lets matchers name by other words, one way:
    /// Codex runs `Write` and `Edit` hooks for its `apply_patch` (its
    /// `HookToolName::apply_patch` matcher aliases, codex-rs 0.169), while
    /// the hook still reads `tool_name: "apply_patch"`; a `"apply_patch"`
    /// matcher does not fire on Claude Code's Write.
    pub fn matcher_aliases(self) -> &'static [(&'static str, &'static [&'static str])] {
        match self {
            Agent::Codex => &[("apply_patch", &["Write", "Edit"])],
            _ => &[],
        }
    }

    /// The `timeout` a hook registered for `event` (in its own name) gives
    /// to ask for `secs`: in its units (gemini-cli counts milliseconds) and
    /// within its caps ([`Agent::hard_limit`]: Codex warns on every session
    /// about an entry asking for more).
    pub fn timeout_value(self, event: &str, secs: u64) -> u64 {
        let cap = EventKind::parse(event)
            .and_then(|(e, _)| self.hard_limit(e))
            .map_or(u64::MAX, |d| d.as_secs());
        match self {
            Agent::Gemini => secs.min(cap) * 1000,
            _ => secs.min(cap),
        }
    }

    /// How long the agent lets a hook of `event` run whatever its entry
    /// asks: Codex ends a SessionEnd hook after 3 s, by killing the process
    /// it started (SIGKILL, which nothing can catch), and clamps an
    /// Interrupt hook's timeout to 3 s (warning the user of a longer one).
    /// hookshot in that place must have ended its own hooks before then.
    pub fn hard_limit(self, event: EventKind) -> Option<std::time::Duration> {
        match (self, event) {
            (Agent::Codex, EventKind::SessionEnd | EventKind::Interrupt) => Some(std::time::Duration::from_secs(3)),
            _ => None,
        }
    }

    /// The most `additionalContext` one hook of `event` may give the
    /// model, in tokens of 4 bytes, when its entry sets no
    /// `additionalContextLimit`: Codex 0.171 cuts longer text in the middle
    /// and saves it whole to a file ([`codex_cut_context`]), per hook, on
    /// the five events whose hooks can give context (it warns about a limit
    /// on the others). `None`: the agent does not cut.
    pub fn context_limit(self, event: EventKind) -> Option<u64> {
        match (self, event) {
            (
                Agent::Codex,
                EventKind::BeforeTool
                | EventKind::AfterTool
                | EventKind::SessionStart
                | EventKind::BeforeAgent
                | EventKind::SubagentStart,
            ) => Some(CODEX_CONTEXT_LIMIT),
            _ => None,
        }
    }

    /// The `additionalContextLimit` hookshot's own entry for `event` asks
    /// for, where the agent cuts context ([`CODEX_ENTRY_CONTEXT_LIMIT`]).
    pub fn entry_context_limit(self, event: EventKind) -> Option<u64> {
        self.context_limit(event).map(|_| CODEX_ENTRY_CONTEXT_LIMIT)
    }

    /// How it reads a matcher that is a regular expression.
    pub fn regex_flavour(self) -> RegexFlavour {
        match self {
            Agent::Claude | Agent::Gemini | Agent::Qwen | Agent::Cursor | Agent::Cline => RegexFlavour::Ecma,
            // Go's RE2 (picoclaw) reads what the crate reads.
            Agent::Codex | Agent::Jcli | Agent::Picoclaw | Agent::Copilot => RegexFlavour::Rust,
        }
    }

    /// The shell it runs a command hook with, when not the runner's own
    /// (`bash -c`, which is gemini-cli's, and which an embedder may
    /// replace): Claude Code `/bin/sh -c`, Codex the user's shell
    /// ([`codex_shell`]), jcli `sh -c` (its hooks document); picoclaw
    /// starts programs, and a command line written for it runs as
    /// hookshot's own do.
    pub fn shell(self) -> Option<Vec<String>> {
        match self {
            // Cline runs hook files, not command lines: hookshot's own
            // hooks under it run as Claude Code's do.
            Agent::Claude | Agent::Cline => Some(vec!["/bin/sh".into(), "-c".into()]),
            // Qwen Code runs `bash -c` on Unix, as gemini-cli does.
            Agent::Gemini | Agent::Picoclaw | Agent::Qwen | Agent::Cursor => None,
            Agent::Codex => Some(codex_shell()),
            Agent::Jcli => Some(vec!["sh".into(), "-c".into()]),
            Agent::Copilot => Some(vec!["/bin/bash".into(), "-c".into()]),
        }
    }

    /// The agent a hook of `dialect` from none of the agents' own files
    /// (hookshot's settings, the command line) runs as: the format's
    /// first agent, or the calling agent when it reads that format (Codex
    /// calling runs hookshot's Claude-format hooks as it would run them).
    pub fn of_dialect(dialect: Dialect, caller: Option<Agent>) -> Agent {
        caller
            .filter(|c| c.dialect() == dialect)
            .unwrap_or_else(|| Agent::of_hook_file(dialect, Path::new("")))
    }

    /// The variable whose value Claude Code puts before every hook
    /// command line it runs (`CLAUDE_CODE_SHELL_PREFIX`, a wrapper that
    /// logs or sandboxes them).
    pub fn shell_prefix_var(self) -> Option<&'static str> {
        (self == Agent::Claude).then_some("CLAUDE_CODE_SHELL_PREFIX")
    }

    /// Whether it pastes its hook variables into a command line before the
    /// shell reads it (gemini-cli replaces `$GEMINI_PROJECT_DIR` itself).
    pub fn pastes_variables(self) -> bool {
        self == Agent::Gemini
    }

    /// Whether a hook's `continue: false` ends the hooks of the event that
    /// would run after it: not for gemini-cli, which runs its whole
    /// sequential chain and stops after it.
    pub fn stop_ends_chain(self) -> bool {
        self != Agent::Gemini
    }

    /// Whether a block ends the hooks after it: jcli's `stop`/`skip`.
    pub fn block_ends_chain(self) -> bool {
        self == Agent::Jcli
    }

    /// Whether it runs the hooks of `path` itself (hookshot called by it
    /// must not run them again): its own settings files, and for Copilot
    /// CLI Claude Code's files in a project (`in_project`), which it runs
    /// too.
    pub fn runs_file(self, path: &Path, in_project: bool) -> bool {
        self.owns_file(path) || (self == Agent::Copilot && in_project && Agent::Claude.owns_file(path))
    }

    /// Whether `path` is one of the settings files it reads and runs
    /// itself.
    pub fn owns_file(self, path: &Path) -> bool {
        if self == Agent::Cline {
            return cline_hook_file(path).is_some();
        }
        if self.runs_every_json_file() {
            let parent = path.parent().unwrap_or(Path::new(""));
            return path.extension().is_some_and(|e| e == "json")
                && (parent.ends_with(self.folder()) || parent.ends_with(self.user_folder()));
        }
        let dir = path.parent().and_then(Path::file_name).and_then(|d| d.to_str());
        let name = path.file_name().and_then(|n| n.to_str());
        dir == Some(self.folder()) && self.files().iter().any(|f| Some(f.name) == name)
    }

    /// The agent whose hooks `path` holds when its place says so beyond
    /// the dialect: the files of the agents that share Claude Code's format
    /// (Codex's, Qwen Code's) and what `hookshot install --import` moved
    /// out of them (`hookshot/imported/codex.json`), which share Claude
    /// Code's format but not its shell, regex engine or matchers.
    pub fn of_claude_format_file(path: &Path) -> Agent {
        let in_imported = path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == IMPORTED_DIR)
            && path
                .parent()
                .and_then(Path::parent)
                .and_then(Path::file_name)
                .is_some_and(|d| d == "hookshot" || d == ".hookshot");
        let imported = in_imported
            .then(|| path.file_name().and_then(|n| n.to_str()).and_then(Agent::of_imported))
            .flatten();
        imported
            .or_else(|| {
                Agent::ALL
                    .into_iter()
                    .find(|a| a.dialect() == Dialect::Claude && a.owns_file(path))
            })
            .filter(|a| a.dialect() == Dialect::Claude)
            .unwrap_or(Agent::Claude)
    }

    /// The agent whose hook a hook of `dialect` from `path` is: the
    /// dialect's agent, but for Claude Code's format, which Codex's files
    /// share ([`Agent::of_claude_format_file`]).
    pub fn of_hook_file(dialect: Dialect, path: &Path) -> Agent {
        match dialect {
            Dialect::Claude => Agent::of_claude_format_file(path),
            Dialect::Gemini => Agent::Gemini,
            Dialect::Jcli => Agent::Jcli,
            Dialect::Picoclaw => Agent::Picoclaw,
            Dialect::Cursor => Agent::Cursor,
            Dialect::Copilot => Agent::Copilot,
        }
    }

    /// Shapes a merged answer into one this agent applies. Codex sends
    /// Claude Code's event names and reads Claude Code's answers, but more
    /// strictly: an answer it finds invalid (`permissionDecision: "ask"`,
    /// `"allow"` without `updatedInput`, `updatedInput` without `"allow"`,
    /// `continue: false` before a tool) fails the hook and the tool runs. A
    /// question or a stop is therefore a denial for Codex (given with exit
    /// code 2, which Codex always honours); a bare allow is no answer, and
    /// a rewrite is an allow. Codex takes no replacement of a tool's result
    /// (`updatedToolOutput`); what replaces the result its model sees is a
    /// PostToolUse block's reason, so a redacted result is given as that.
    pub fn shape_answer(self, outcome: &mut Outcome) {
        if self != Agent::Codex {
            return;
        }
        let o = &mut outcome.output;
        // Codex checks answers against its own schemas and fails a hook
        // (running the tool) on fields it does not know: the fields
        // Claude Code gets passed through are not Codex's.
        o.extra.clear();
        if outcome.event == EventKind::AfterTool
            && !o.decision.is_block()
            && let Some(result) = o.tool_result.take()
        {
            o.reason = Some(match result {
                Value::String(s) => s,
                other => other.to_string(),
            });
            o.decision = Decision::Block;
            return;
        }
        if !matches!(outcome.event, EventKind::BeforeTool | EventKind::PermissionRequest) {
            return;
        }
        if o.decision == Decision::Ask || o.stop {
            let why = o
                .reason
                .clone()
                .or_else(|| o.stop_reason.clone())
                .unwrap_or_else(|| "a hook asked for confirmation".into());
            o.reason = Some(format!(
                "{why} (Codex hooks cannot ask for confirmation, so hookshot denies)"
            ));
            o.decision = Decision::Block;
            o.stop = false;
            o.stop_reason = None;
        }
        if o.decision == Decision::Allow && o.tool_input.is_none() {
            o.decision = Decision::Undecided;
        }
        if o.decision == Decision::Undecided && o.tool_input.is_some() {
            o.decision = Decision::Allow;
        }
        o.suppress_output = false;
    }
}

/// Who runs hookshot as its hook for one event, told from the variables
/// the agents set for their hooks (`var`) and the event's input: for a
/// hand-written registration (`install` names the agent with `fire
/// --agent`, which is not second-guessed but in one case: Copilot CLI runs
/// Claude Code's project files, hookshot's registration for Claude Code
/// among them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Detected {
    /// The agent, when one is told: Codex sends a `turn_id` and sets no
    /// `CLAUDE_PROJECT_DIR`; Qwen Code sets `QWEN_PROJECT_DIR` and Copilot
    /// CLI `COPILOT_CLI` (each besides Claude Code's variable); Claude Code
    /// and gemini-cli set their project variable and name the event in
    /// their words.
    pub agent: Option<Agent>,
}

/// Tells who called ([`Detected`]); `named` is the agent `fire --agent`
/// names, which wins, but for Copilot CLI calling a Claude Code
/// registration.
pub fn detect(
    named: Option<Agent>,
    event: EventKind,
    dialect: Dialect,
    input: &serde_json::Map<String, Value>,
    var: impl Fn(&str) -> Option<String>,
) -> Detected {
    let set = |v: &str| var(v).is_some_and(|x| !x.is_empty());
    let copilot = dialect == Dialect::Claude && set("COPILOT_CLI");
    if copilot && matches!(named, None | Some(Agent::Claude)) {
        return Detected {
            agent: Some(Agent::Copilot),
        };
    }
    let agent = named.or_else(|| {
        let claude_name = event.name_in(Dialect::Claude) == Some(event.display_in(dialect));
        if dialect == Dialect::Claude && input.contains_key("turn_id") && !set("CLAUDE_PROJECT_DIR") {
            Some(Agent::Codex)
        } else if dialect == Dialect::Claude && set("QWEN_PROJECT_DIR") {
            Some(Agent::Qwen)
        } else if set("CLAUDE_PROJECT_DIR") && (dialect == Dialect::Claude || claude_name && !set("GEMINI_PROJECT_DIR"))
        {
            Some(Agent::Claude)
        } else if set("GEMINI_PROJECT_DIR") && dialect == Dialect::Gemini {
            Some(Agent::Gemini)
        } else if dialect == Dialect::Copilot {
            // Its camelCase names are read as its own only when it calls.
            Some(Agent::Copilot)
        } else if dialect == Dialect::Cursor {
            // Only Cursor names events in its words.
            Some(Agent::Cursor)
        } else {
            None
        }
    });
    Detected { agent }
}

/// The event `name` names, and the dialect to answer in: `agent`'s
/// words when it names the event so (Cursor's `stop` is also jcli's, its
/// `beforeShellExecution` a tool-naming alias), else whichever dialect
/// has the name.
pub fn parse_event_for(name: &str, agent: Option<Agent>) -> Option<(EventKind, Dialect)> {
    if agent == Some(Agent::Cline) {
        return cline_event(name).map(|e| (e, Dialect::Claude));
    }
    if agent == Some(Agent::Copilot)
        && let Some(e) = EventKind::named_in(name, Dialect::Copilot)
    {
        return Some((e, Dialect::Copilot));
    }
    if let Some(a) = agent {
        let d = a.dialect();
        let own = EventKind::named_in(name, d);
        let alias = (a == Agent::Cursor)
            .then(|| crate::event::cursor_tool_event(name).map(|(e, _)| e))
            .flatten();
        if let Some(e) = own.or(alias) {
            return Some((e, d));
        }
    }
    EventKind::parse(name).or_else(|| crate::event::cursor_tool_event(name).map(|(e, _)| (e, Dialect::Cursor)))
}

/// The tools of GitHub Copilot CLI's own camelCase events (1.0.102) by
/// their names there and Claude Code's, the names it gives them itself
/// when it sends Claude Code's event names (its changelog: "Claude-format
/// hook payloads carry the Claude tool name (`Bash` rather than
/// `bash`)"); their arguments are its own either way.
pub const COPILOT_TOOLS: &[(&str, &str)] = &[
    ("bash", "Bash"),
    ("view", "Read"),
    ("edit", "Edit"),
    ("create", "Write"),
    ("glob", "Glob"),
    ("grep", "Grep"),
    ("web_fetch", "WebFetch"),
    ("task", "Task"),
];

/// The arguments of GitHub Copilot CLI's file tools (1.0.102, its tool
/// schemas) by Claude Code's names: a hook of its own files reads `path`,
/// `file_text`, `old_str`, whichever agent made the call.
pub const COPILOT_ARGUMENTS: &[(&str, &[(&str, &str)])] = &[
    ("Read", &[("file_path", "path")]),
    ("Write", &[("file_path", "path"), ("content", "file_text")]),
    (
        "Edit",
        &[
            ("file_path", "path"),
            ("old_string", "old_str"),
            ("new_string", "new_str"),
        ],
    ),
];

/// A rewrite in Claude Code's argument names, in Copilot CLI's, which
/// its tools read (`file_path` is its `path`, `content` its `file_text`);
/// its own names are kept.
pub fn copilot_arguments(args: &serde_json::Map<String, Value>) -> serde_json::Map<String, Value> {
    let renames = || COPILOT_ARGUMENTS.iter().flat_map(|(_, r)| r.iter());
    let mut out = serde_json::Map::new();
    for (k, v) in args {
        let own = renames()
            .find(|(claude, _)| claude == k)
            .map_or(k.as_str(), |(_, own)| own);
        out.entry(own.to_string()).or_insert_with(|| v.clone());
    }
    out
}

/// A rewrite a hook of Copilot CLI's own files gave in its argument
/// names (`path`, `file_text`, `old_str`), in Claude Code's: its search
/// tools' `path` (a folder, with a `pattern`) is Claude Code's too.
pub fn copilot_arguments_to_claude(args: &mut serde_json::Map<String, Value>) {
    let search = args.contains_key("pattern");
    for (claude, own) in COPILOT_ARGUMENTS.iter().flat_map(|(_, r)| r.iter()) {
        if *own == "path" && search {
            continue;
        }
        if !args.contains_key(*claude)
            && let Some(v) = args.remove(*own)
        {
            args.insert((*claude).to_string(), v);
        }
    }
}

/// Cline's hook files (3.0.65) hookshot answers, by file name, with their
/// events: TaskResume is a session start too; TaskComplete, at the end of
/// every task, is where Stop hooks run (observers: Cline ends the task
/// whatever its hook answers, measured). TaskCancel and TaskError are left
/// out (Cline reads nothing from them that hookshot could give), and so is
/// PreCompact: Cline lists a file of that name but maps it to no hook
/// (its `ZV` table), so it never runs one.
pub const CLINE_HOOK_FILES: &[(&str, EventKind)] = &[
    ("PreToolUse", EventKind::BeforeTool),
    ("PostToolUse", EventKind::AfterTool),
    ("UserPromptSubmit", EventKind::BeforeAgent),
    ("TaskStart", EventKind::SessionStart),
    ("TaskResume", EventKind::SessionStart),
    ("TaskComplete", EventKind::AfterAgent),
    ("SessionShutdown", EventKind::SessionEnd),
];

/// The event of one of Cline's hook files ([`CLINE_HOOK_FILES`]).
pub fn cline_event(file_name: &str) -> Option<EventKind> {
    CLINE_HOOK_FILES.iter().find(|(n, _)| *n == file_name).map(|(_, e)| *e)
}

/// The folders Cline 3.0.65 finds its hook files in, in a project (and,
/// the last, in the home: `~/.cline/hooks`).
pub const CLINE_HOOK_DIRS: &[&str] = &[".clinerules/hooks", ".cline/hooks"];

/// Which of [`CLINE_HOOK_FILES`] `path` is when it is a hook file of
/// Cline's own (3.0.65, its `n8`): in one of its hook folders, named
/// after the event whatever the case, with no extension or one of the
/// scripts it knows how to run.
pub fn cline_hook_file(path: &Path) -> Option<&'static str> {
    const EXTENSIONS: &[&str] = &[
        "", "sh", "bash", "zsh", "js", "mjs", "cjs", "ts", "mts", "cts", "py", "ps1",
    ];
    let parent = path.parent()?;
    if !CLINE_HOOK_DIRS.iter().any(|d| parent.ends_with(d)) {
        return None;
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()) {
        return None;
    }
    let stem = path.file_stem()?.to_str()?.trim();
    CLINE_HOOK_FILES
        .iter()
        .map(|(n, _)| *n)
        .find(|n| n.eq_ignore_ascii_case(stem))
}

/// What an agent gets back from hookshot run as its hook for one event,
/// whichever door ran it (`fire`, the warm server, `serve`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentAnswer {
    /// What goes to standard output: the answer in the event's dialect,
    /// or, for Claude Code's WorktreeCreate, the worktree's path.
    pub stdout: String,
    /// The exit code: 0, 2 for a block, 1 when the agent must see a
    /// failure (a WorktreeCreate no hook answered).
    pub code: u8,
    /// What the user is told besides the outcome's warnings.
    pub notes: Vec<String>,
}

/// The answer `agent` (or, with `None`, any caller) gets for `outcome`, an
/// event named in `dialect`'s words: the outcome shaped as the agent
/// applies answers ([`Agent::shape_answer`]), then rendered; Claude Code
/// reads a WorktreeCreate command hook's answer as a path on stdout, and no
/// path fails the creation.
pub fn answer(outcome: &mut Outcome, agent: Option<Agent>, dialect: Dialect) -> AgentAnswer {
    if let Some(agent) = agent {
        agent.shape_answer(outcome);
    }
    if outcome.event == EventKind::WorktreeCreate && dialect == Dialect::Claude && !outcome.is_blocked() {
        return match outcome.output.extra.get("worktreePath").and_then(Value::as_str) {
            Some(path) if !path.is_empty() => AgentAnswer {
                stdout: path.to_string(),
                code: 0,
                notes: Vec::new(),
            },
            _ => AgentAnswer {
                stdout: String::new(),
                code: 1,
                notes: vec!["no WorktreeCreate hook answered with a worktree path".into()],
            },
        };
    }
    let mut rendered = if agent == Some(Agent::Cline) {
        outcome.render_cline()
    } else {
        outcome.render(dialect)
    };
    if let Some(agent) = agent
        && agent.context_on_top(outcome.event)
        && let (Some(c), Value::Object(top)) = (&outcome.output.additional_context, &mut rendered)
    {
        top.insert("additionalContext".into(), Value::String(c.clone()));
    }
    let by_exit_code = agent.is_none_or(Agent::reads_answer_at_exit_2);
    AgentAnswer {
        stdout: rendered.to_string(),
        code: if outcome.is_blocked() && by_exit_code { 2 } else { 0 },
        notes: Vec::new(),
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The files of hookshot's [`IMPORTED_DIR`], each with the agent whose
/// hooks it holds.
pub fn imported_files() -> impl Iterator<Item = (&'static str, Agent)> {
    Agent::ALL
        .into_iter()
        .flat_map(|a| a.files().iter().filter_map(move |f| Some((f.imported_as?, a))))
}

/// Where gemini-cli keeps a session's approved plans (`GEMINI_PLANS_DIR`
/// for its hooks): the `general.plan.directory` of its settings (the
/// project's over the user's) resolved in the project, else
/// `~/.gemini/tmp/<slug>/<session>/plans`, the slug being the project's in
/// `~/.gemini/projects.json`. `read_json` reads one of those files (the
/// caller decides how a file is read safely). `None` when gemini-cli has
/// not seen the project (it would name it on its first run; hookshot does
/// not write gemini-cli's registry). A configured folder outside the
/// project is refused (gemini-cli then uses its own).
pub fn gemini_plans_dir(
    home: &Path,
    project: &Path,
    session: &str,
    read_json: impl Fn(&Path) -> Option<Value>,
) -> Option<std::path::PathBuf> {
    let gemini = home.join(".gemini");
    let configured = [project.join(".gemini"), gemini.clone()].into_iter().find_map(|dir| {
        let settings = read_json(&dir.join("settings.json"))?;
        let plan_dir = settings.get("general")?.get("plan")?.get("directory")?.as_str()?;
        (!plan_dir.is_empty()).then(|| plan_dir.to_string())
    });
    // A folder outside the project is refused, and gemini-cli 0.61 falls
    // back to its own.
    let inside = configured
        .map(|dir| crate::paths::lexical_join(project, &dir))
        .filter(|dir| real_path(dir).starts_with(real_path(project)));
    if inside.is_some() {
        return inside;
    }
    let registry = read_json(&gemini.join("projects.json"))?;
    let slug = registry.get("projects")?.get(project.to_str()?)?.as_str()?;
    if slug.is_empty() || slug.contains('/') || slug == ".." {
        return None;
    }
    let tmp = gemini.join("tmp").join(slug);
    Some(if session.is_empty() {
        tmp.join("plans")
    } else {
        tmp.join(session).join("plans")
    })
}

/// `path` with its symlinks resolved as far as it exists (a plans folder
/// is made on first use).
fn real_path(path: &Path) -> std::path::PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            return rest.iter().rev().fold(real, |p, c| p.join(c));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Codex's default `additionalContextLimit`, in tokens.
pub const CODEX_CONTEXT_LIMIT: u64 = 2500;

/// The limit hookshot's own Codex entries ask for on events whose context
/// Codex cuts: hookshot cuts each hook's context to that hook's limit
/// itself, so Codex must not cut their sum again.
pub const CODEX_ENTRY_CONTEXT_LIMIT: u64 = 1_000_000;

/// One hook's context as Codex 0.171 gives it to the model when it is
/// longer than `limit` tokens (4 bytes each, rounded up): a warning with
/// the original count and line count, the head and tail of the text (half
/// each of the budget, cut at character boundaries) around `…N tokens
/// truncated…`, and `saved` (`"\n\nFull hook output saved to: PATH"`),
/// whose length the budget leaves room for. Measured against the real
/// Codex: 42,000 bytes at the default limit keep 4,938 bytes each side
/// with its 124-byte note. `None`: the text fits and is given as it is.
pub fn codex_cut_context(text: &str, limit: u64, saved: &str) -> Option<String> {
    let tokens = |bytes: usize| (bytes as u64).div_ceil(4);
    let budget = usize::try_from(limit.saturating_mul(4)).unwrap_or(usize::MAX);
    if text.len() <= budget {
        return None;
    }
    let keep = budget.saturating_sub(saved.len());
    let mut head = keep / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - (keep - keep / 2);
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    let tail = tail.max(head);
    Some(format!(
        "Warning: truncated output (original token count: {})\nTotal output lines: {}\n\n{}…{} tokens truncated…{}{saved}",
        tokens(text.len()),
        text.lines().count(),
        &text[..head],
        tokens(text.len() - head - (text.len() - tail)),
        &text[tail..],
    ))
}

/// The shell Codex runs its hooks with, as `-c` (not a login shell): the
/// user's shell from `/etc/passwd` when it is one Codex knows (zsh, bash,
/// sh), else `bash` from `PATH`, else `/bin/sh`. `$SHELL` is not read.
/// Measured with Codex 0.169 and 0.171: passwd zsh -> `zsh -c`, sh ->
/// `/bin/sh -c`, dash -> `/usr/bin/bash -c`, whatever `$SHELL` says.
pub fn codex_shell() -> Vec<String> {
    // Read once: it is asked for every event Codex sends.
    static SHELL: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SHELL
        .get_or_init(|| {
            vec![
                codex_shell_program(passwd_shell(), std::env::var_os("PATH")),
                "-c".into(),
            ]
        })
        .clone()
}

fn codex_shell_program(passwd: Option<String>, path: Option<std::ffi::OsString>) -> String {
    let known = |p: &String| {
        let name = Path::new(p).file_name().and_then(|n| n.to_str()).unwrap_or("");
        matches!(name, "zsh" | "bash" | "sh") && Path::new(p).is_file()
    };
    let bash_on_path = || {
        std::env::split_paths(&path?)
            .map(|d| d.join("bash"))
            .find(|p| p.is_file())
            .map(|p| p.to_string_lossy().into_owned())
    };
    passwd
        .filter(known)
        .or_else(bash_on_path)
        .unwrap_or_else(|| "/bin/sh".into())
}

/// The current user's shell in the user database (`/etc/passwd`, or
/// macOS's Directory Services: `getpwuid`, as Codex asks).
fn passwd_shell() -> Option<String> {
    let user = nix::unistd::User::from_uid(nix::unistd::getuid()).ok()??;
    let shell = user.shell.to_str()?.to_string();
    (!shell.is_empty()).then_some(shell)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The figures of the real Codex 0.171 (agents/ measured them): 6,000
    /// words of 7 bytes at limits 2,500 and 100, and 1,400 bytes at 300.
    #[test]
    fn context_is_cut_as_codex_cuts_it() {
        let saved = format!(
            "\n\nFull hook output saved to: /tmp/hook_outputs/{0}/{0}.txt",
            "u".repeat(36)
        );
        assert_eq!(saved.len(), 124);
        let words: String = (0..6000).map(|i| format!("w{i:05} ")).collect();
        let parts = |cut: &str| -> (usize, usize, String) {
            let body = cut.split_once("\n\n").unwrap().1.strip_suffix(saved.as_str()).unwrap();
            let (head, rest) = body.split_once('…').unwrap();
            let (marker, tail) = rest.split_once('…').unwrap();
            (head.len(), tail.len(), marker.to_string())
        };
        let cut = codex_cut_context(&words, CODEX_CONTEXT_LIMIT, &saved).unwrap();
        assert!(
            cut.starts_with(
                "Warning: truncated output (original token count: 10500)\nTotal output lines: 1\n\nw00000 "
            )
        );
        assert_eq!(parts(&cut), (4938, 4938, "8031 tokens truncated".into()));
        let cut = codex_cut_context(&words, 100, &saved).unwrap();
        assert_eq!(parts(&cut), (138, 138, "10431 tokens truncated".into()));
        assert!(cut.contains("w0001…10431 tokens truncated…5980 w05981"));
        let small: String = (0..200).map(|i| format!("w{i:05} ")).collect();
        assert_eq!(
            parts(&codex_cut_context(&small, 300, &saved).unwrap()),
            (538, 538, "81 tokens truncated".into())
        );
        assert_eq!(codex_cut_context(&small, 350, &saved), None);
        let lines = format!("{}\n{}é\n{}", &words[..20], &words[20..60], &words[60..]);
        let cut = codex_cut_context(&lines, 100, &saved).unwrap();
        assert!(cut.starts_with("Warning: truncated output (original token count: 10501)\nTotal output lines: 3\n"));
        // A limit below the note keeps nothing of the text; a character
        // is never split.
        assert_eq!(
            parts(&codex_cut_context(&words, 30, &saved).unwrap()),
            (0, 0, "10500 tokens truncated".into())
        );
        let emoji = "😀".repeat(10);
        let cut = codex_cut_context(&emoji, 2, "").unwrap();
        assert!(cut.ends_with("\n\n😀…8 tokens truncated…😀"), "{cut}");
    }

    /// Who called, from the variables each agent sets for its hooks and
    /// the input: the named agent wins; Codex by a `turn_id` without
    /// `CLAUDE_PROJECT_DIR`; Copilot CLI and Qwen Code, which set Claude
    /// Code's variable too, by their own.
    #[test]
    fn the_caller_is_told_by_the_variables_only_it_sets() {
        let input = |turn: bool| -> serde_json::Map<String, Value> {
            let mut m = serde_json::Map::new();
            if turn {
                m.insert("turn_id".into(), Value::from("t"));
            }
            m
        };
        let env = |vars: &'static [&'static str]| move |v: &str| vars.contains(&v).then(|| "/p".to_string());
        let d = |named, event, dialect, turn, vars| detect(named, event, dialect, &input(turn), env(vars));
        let (claude, gemini) = (Dialect::Claude, Dialect::Gemini);
        use EventKind::{BeforeTool, SessionStart};
        assert_eq!(d(None, BeforeTool, claude, true, &[]).agent, Some(Agent::Codex));
        assert_eq!(
            d(None, BeforeTool, claude, true, &["CLAUDE_PROJECT_DIR"]).agent,
            Some(Agent::Claude)
        );
        assert_eq!(
            d(None, BeforeTool, claude, false, &["CLAUDE_PROJECT_DIR"]).agent,
            Some(Agent::Claude)
        );
        assert_eq!(
            d(None, BeforeTool, gemini, false, &["GEMINI_PROJECT_DIR"]).agent,
            Some(Agent::Gemini)
        );
        assert_eq!(d(None, SessionStart, gemini, false, &[]).agent, None);
        assert_eq!(
            d(Some(Agent::Gemini), BeforeTool, claude, true, &[]).agent,
            Some(Agent::Gemini)
        );
        // Copilot CLI runs Claude Code's project files, hookshot's Claude
        // Code registration among them: it is answered as itself.
        let copilot = d(
            Some(Agent::Claude),
            BeforeTool,
            claude,
            false,
            &["CLAUDE_PROJECT_DIR", "COPILOT_CLI"],
        );
        assert_eq!(copilot.agent, Some(Agent::Copilot));
        assert_eq!(
            d(Some(Agent::Codex), BeforeTool, claude, false, &["COPILOT_CLI"]).agent,
            Some(Agent::Codex)
        );
        let qwen = d(
            None,
            BeforeTool,
            claude,
            false,
            &["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "QWEN_PROJECT_DIR"],
        );
        assert_eq!(qwen.agent, Some(Agent::Qwen));
    }

    /// Codex's choice of shell, as measured: the passwd shell when Codex
    /// knows it, else `bash` on PATH, else `/bin/sh`; never a login shell.
    #[test]
    fn codex_runs_hooks_with_the_passwd_shell_it_knows_else_bash() {
        let dir = tempfile::tempdir().unwrap();
        let (bin, other) = (dir.path().join("bin"), dir.path().join("other"));
        for d in [&bin, &other] {
            std::fs::create_dir_all(d).unwrap();
        }
        for name in ["zsh", "dash", "sh"] {
            std::fs::write(other.join(name), "").unwrap();
        }
        std::fs::write(bin.join("bash"), "").unwrap();
        let path = Some(std::env::join_paths([&other, &bin]).unwrap());
        let at = |d: &std::path::Path, n: &str| d.join(n).to_string_lossy().into_owned();
        for (passwd, runs) in [
            (at(&other, "zsh"), at(&other, "zsh")),
            (at(&other, "sh"), at(&other, "sh")),
            (at(&other, "dash"), at(&bin, "bash")),
            (at(&other, "fish"), at(&bin, "bash")),
        ] {
            assert_eq!(
                codex_shell_program(Some(passwd.clone()), path.clone()),
                runs,
                "{passwd}"
            );
        }
        assert_eq!(codex_shell_program(None, path), at(&bin, "bash"));
        assert_eq!(codex_shell_program(None, None), "/bin/sh");
        assert_eq!(codex_shell()[1], "-c");
    }

    #[test]
    fn each_agents_hook_script_folder_is_inside_its_own_folder() {
        for agent in Agent::ALL {
            assert!(agent.hooks_folder().starts_with(agent.folder()), "{agent}");
        }
    }

    #[test]
    fn the_table_reads_back() {
        for a in Agent::ALL {
            assert_eq!(Agent::parse(a.name()), Some(a));
        }
        assert_eq!(Agent::Codex.dialect(), Dialect::Claude);
        assert_eq!(Agent::Codex.regex_flavour(), RegexFlavour::Rust);
        assert_eq!(Agent::Gemini.shell(), None);
        assert_eq!(Agent::Gemini.own_tool_name("Bash"), "run_shell_command");
        assert_eq!(Agent::Codex.own_tool_name("Bash"), "Bash");
        assert_eq!(Agent::Jcli.shell().unwrap(), ["sh", "-c"]);
        let names = |a: Agent| -> Vec<&str> { a.events().into_iter().filter_map(|e| e.name_in(a.dialect())).collect() };
        assert_eq!(names(Agent::Codex).len(), 14);
        assert!(names(Agent::Codex).contains(&"Interrupt") && !names(Agent::Claude).contains(&"Interrupt"));
        assert!(names(Agent::Codex).contains(&"PostCompact") && !names(Agent::Codex).contains(&"Notification"));
        assert!(names(Agent::Claude).contains(&"WorktreeCreate"));
        assert!(names(Agent::Gemini).contains(&"BeforeToolSelection"));
        assert!(Agent::Codex.hook_vars().is_empty());
        assert!(Agent::Claude.hook_vars().contains(&"CLAUDE_PROJECT_DIR"));
        for (path, agent) in [
            ("/h/.codex/hooks.json", Agent::Codex),
            ("/h/.config/hookshot/imported/codex.json", Agent::Codex),
            ("/p/.hookshot/imported/codex.json", Agent::Codex),
            ("/p/elsewhere/imported/codex.json", Agent::Claude),
            ("/h/.claude/settings.json", Agent::Claude),
            ("/p/.qwen/settings.json", Agent::Qwen),
            ("/h/.config/hookshot/imported/qwen.json", Agent::Qwen),
            ("/h/.config/hookshot/imported/gemini.json", Agent::Claude),
        ] {
            assert_eq!(Agent::of_claude_format_file(Path::new(path)), agent, "{path}");
        }
    }

    #[test]
    fn the_file_places_read_back() {
        assert_eq!(Agent::Claude.registered_file(true).unwrap().name, "settings.local.json");
        assert_eq!(Agent::Claude.registered_file(false).unwrap().name, "settings.json");
        assert_eq!(Agent::Codex.registered_file(true).unwrap().name, "hooks.json");
        assert!(!Agent::Jcli.installable() && !Agent::Picoclaw.installable());
        let imported: Vec<_> = imported_files().collect();
        assert_eq!(imported.len(), 7);
        for (name, agent) in imported {
            assert_eq!(Agent::of_imported(name), Some(agent));
        }
        assert!(Agent::Codex.owns_file(Path::new("/h/.codex/config.toml")));
        assert!(!Agent::Codex.owns_file(Path::new("/h/.codex/auth.json")));
        assert_eq!(Agent::Gemini.timeout_value("BeforeTool", 600), 600_000);
        assert_eq!(Agent::Codex.timeout_value("SessionEnd", 600), 3);
        assert_eq!(Agent::Claude.timeout_value("SessionEnd", 600), 600);
    }

    #[test]
    fn gemini_plans_follow_its_settings_inside_the_project_only() {
        let dir = tempfile::tempdir().unwrap();
        let (home, project) = (dir.path().join("h"), dir.path().join("p"));
        std::fs::create_dir_all(&project).unwrap();
        let files = |project_dir: Option<&str>, user_dir: Option<&str>| {
            let (project, home) = (project.clone(), home.clone());
            let project_dir = project_dir.map(str::to_string);
            let user_dir = user_dir.map(str::to_string);
            move |p: &Path| -> Option<Value> {
                let plan = |d: &Option<String>| d.as_ref().map(|d| json!({"general": {"plan": {"directory": d}}}));
                if p == project.join(".gemini/settings.json") {
                    plan(&project_dir)
                } else if p == home.join(".gemini/settings.json") {
                    plan(&user_dir)
                } else if p == home.join(".gemini/projects.json") {
                    Some(json!({"projects": {project.to_str().unwrap(): "slug"}}))
                } else {
                    None
                }
            }
        };
        let plans = |read| gemini_plans_dir(&home, &project, "s", read);
        assert_eq!(plans(files(None, None)), Some(home.join(".gemini/tmp/slug/s/plans")));
        assert_eq!(plans(files(None, Some("docs/plans"))), Some(project.join("docs/plans")));
        assert_eq!(
            plans(files(Some("mine"), Some("docs/plans"))),
            Some(project.join("mine"))
        );
        assert_eq!(
            plans(files(None, Some("../out"))),
            Some(home.join(".gemini/tmp/slug/s/plans"))
        );
        assert_eq!(
            plans(files(None, Some("/etc"))),
            Some(home.join(".gemini/tmp/slug/s/plans"))
        );
    }

    #[test]
    fn codex_is_answered_in_the_shapes_it_applies() {
        let mut ask = Outcome::empty(EventKind::BeforeTool);
        ask.output.decision = Decision::Ask;
        ask.output.reason = Some("sure?".into());
        Agent::Codex.shape_answer(&mut ask);
        assert_eq!(ask.output.decision, Decision::Block);
        let mut rewrite = Outcome::empty(EventKind::BeforeTool);
        rewrite.output.tool_input = Some(serde_json::Map::new());
        Agent::Codex.shape_answer(&mut rewrite);
        assert_eq!(rewrite.output.decision, Decision::Allow);
        let mut result = Outcome::empty(EventKind::AfterTool);
        result.output.tool_result = Some(json!("a=***"));
        let mut for_claude = result.clone();
        Agent::Codex.shape_answer(&mut result);
        assert_eq!(
            (result.output.decision, result.output.reason.as_deref()),
            (Decision::Block, Some("a=***"))
        );
        Agent::Claude.shape_answer(&mut for_claude);
        assert_eq!(for_claude.output.tool_result, Some(json!("a=***")));
    }
}
