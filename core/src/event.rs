//! The event catalogue: one canonical [`EventKind`] per point of the agent
//! loop, and the name each dialect gives it.
//!
//! Every dialect names the same moments differently (`BeforeTool`,
//! `PreToolUse`, `pre_tool_execution`, `before_tool`). hookshot accepts any of
//! these names wherever an event is named and keeps the dialect it came from,
//! so that answers can be given back in the caller's words.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A settings dialect: whose file format and wire shapes a hook speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// gemini-cli `settings.json` (timeouts in milliseconds).
    Gemini,
    /// Claude Code `settings.json` (timeouts in seconds).
    Claude,
    /// jcli `hooks.yaml` (snake_case events, chains).
    Jcli,
    /// picoclaw JSON-RPC process hooks.
    Picoclaw,
    /// Cursor `hooks.json` (camelCase events; its own payloads and answers).
    Cursor,
    /// GitHub Copilot CLI's own camelCase events (`preToolUse`,
    /// `userPromptSubmitted`, `agentStop`), with its payload (`toolName`,
    /// `toolArgs`, a millisecond `timestamp`) and answers
    /// (`permissionDecision`, `modifiedArgs`) at the top. A name it shares
    /// with Cursor is Cursor's unless Copilot CLI is named or calls.
    Copilot,
}

impl Dialect {
    /// All dialects, in the order names are looked up when a name is shared.
    pub const ALL: [Dialect; 6] = [
        Dialect::Gemini,
        Dialect::Claude,
        Dialect::Jcli,
        Dialect::Picoclaw,
        Dialect::Cursor,
        Dialect::Copilot,
    ];

    /// The dialect's name as users write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Gemini => "gemini",
            Dialect::Claude => "claude",
            Dialect::Jcli => "jcli",
            Dialect::Picoclaw => "picoclaw",
            Dialect::Cursor => "cursor",
            Dialect::Copilot => "copilot",
        }
    }
}

/// Cursor's events that name their tool: each is its before- or after-tool
/// event for one tool (Claude Code's name for it; `None`: the MCP tool the
/// input names). Names an agent sends, never keys of a settings file
/// (a hook there under `beforeReadFile` would run for every tool).
pub const CURSOR_TOOL_EVENTS: &[(&str, EventKind, Option<&str>)] = &[
    ("beforeShellExecution", EventKind::BeforeTool, Some("Bash")),
    ("beforeMCPExecution", EventKind::BeforeTool, None),
    ("beforeReadFile", EventKind::BeforeTool, Some("Read")),
    ("afterShellExecution", EventKind::AfterTool, Some("Bash")),
    ("afterMCPExecution", EventKind::AfterTool, None),
    ("afterFileEdit", EventKind::AfterTool, Some("Edit")),
];

/// The event and tool of one of Cursor's tool-naming events.
pub fn cursor_tool_event(name: &str) -> Option<(EventKind, Option<&'static str>)> {
    CURSOR_TOOL_EVENTS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, e, t)| (*e, *t))
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! events {
    ($( $(#[$doc:meta])* $kind:ident => [$gemini:expr, $claude:expr, $jcli:expr, $pico:expr, $cursor:expr, $copilot:expr] ),+ $(,)?) => {
        /// One point of the agent loop, whatever a dialect calls it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum EventKind {
            $( $(#[$doc])* $kind, )+
        }

        impl EventKind {
            /// Every event, in catalogue order.
            pub const ALL: &'static [EventKind] = &[$(EventKind::$kind),+];

            /// The name `dialect` gives this event, if the dialect has it.
            pub fn name_in(self, dialect: Dialect) -> Option<&'static str> {
                let names: [Option<&'static str>; 6] = match self {
                    $( EventKind::$kind => [$gemini, $claude, $jcli, $pico, $cursor, $copilot], )+
                };
                names[dialect as usize]
            }
        }
    };
}

events! {
    /// Before a tool runs (may block, ask, or rewrite the tool's input).
    BeforeTool => [Some("BeforeTool"), Some("PreToolUse"), Some("pre_tool_execution"), Some("before_tool"), Some("preToolUse"), Some("preToolUse")],
    /// After a tool ran successfully.
    AfterTool => [Some("AfterTool"), Some("PostToolUse"), Some("post_tool_execution"), Some("after_tool"), Some("postToolUse"), Some("postToolUse")],
    /// After a tool failed.
    AfterToolFailure => [None, Some("PostToolUseFailure"), Some("post_tool_execution_failure"), None, Some("postToolUseFailure"), Some("postToolUseFailure")],
    /// A permission decision for a tool call is needed.
    PermissionRequest => [None, Some("PermissionRequest"), None, Some("approve_tool"), None, None],
    /// The user's prompt is about to be handled by the agent.
    BeforeAgent => [Some("BeforeAgent"), Some("UserPromptSubmit"), Some("pre_send_message"), None, Some("beforeSubmitPrompt"), Some("userPromptSubmitted")],
    /// The user's prompt was accepted (notification only).
    AfterPromptSubmit => [None, None, Some("post_send_message"), None, None, None],
    /// The agent is about to finish its answer.
    AfterAgent => [Some("AfterAgent"), Some("Stop"), Some("stop"), None, Some("stop"), Some("agentStop")],
    /// A sub-agent starts.
    SubagentStart => [None, Some("SubagentStart"), None, None, Some("subagentStart"), Some("subagentStart")],
    /// A sub-agent is about to finish.
    SubagentStop => [None, Some("SubagentStop"), None, None, Some("subagentStop"), Some("subagentStop")],
    /// Before a request is sent to the model.
    BeforeModel => [Some("BeforeModel"), None, Some("pre_llm_request"), Some("before_llm"), None, None],
    /// After the model answered (per chunk when streaming).
    AfterModel => [Some("AfterModel"), None, Some("post_llm_response"), Some("after_llm"), None, None],
    /// Before the model chooses among tools.
    BeforeToolSelection => [Some("BeforeToolSelection"), None, None, None, None, None],
    /// A session starts (startup, resume, clear).
    SessionStart => [Some("SessionStart"), Some("SessionStart"), Some("session_start"), None, Some("sessionStart"), Some("sessionStart")],
    /// A session ends.
    SessionEnd => [Some("SessionEnd"), Some("SessionEnd"), Some("session_end"), None, Some("sessionEnd"), Some("sessionEnd")],
    /// Before the context is compressed.
    PreCompress => [Some("PreCompress"), Some("PreCompact"), Some("pre_auto_compact"), None, Some("preCompact"), None],
    /// After the context was compressed.
    PostCompress => [None, Some("PostCompact"), Some("post_auto_compact"), None, None, None],
    /// Before a turn-level (micro) compaction.
    PreMicroCompact => [None, None, Some("pre_micro_compact"), None, None, None],
    /// After a turn-level (micro) compaction.
    PostMicroCompact => [None, None, Some("post_micro_compact"), None, None, None],
    /// The agent shows the user a notification (e.g. a permission prompt).
    Notification => [Some("Notification"), Some("Notification"), None, None, None, None],
    /// Auto mode denied a tool call (Claude); a hook may say the model may retry.
    PermissionDenied => [None, Some("PermissionDenied"), None, None, None, None],
    /// Every tool call of a parallel batch resolved, before the next model call.
    PostToolBatch => [None, Some("PostToolBatch"), None, None, None, None],
    /// A typed command expands into a prompt (Claude's slash commands).
    UserPromptExpansion => [None, Some("UserPromptExpansion"), None, None, None, None],
    /// One-time set-up run (`claude --init-only`, `--maintenance`).
    Setup => [None, Some("Setup"), None, None, None, None],
    /// Assistant text is being displayed (display-only rewrite).
    MessageDisplay => [None, Some("MessageDisplay"), None, None, None, None],
    /// A task is being created.
    TaskCreated => [None, Some("TaskCreated"), None, None, None, None],
    /// A task is being marked completed.
    TaskCompleted => [None, Some("TaskCompleted"), None, None, None, None],
    /// A shell command a skill or slash command holds is about to run
    /// (Claude's `!` lines): a guard's event, as PreToolUse.
    PreSkillShellCommand => [None, Some("PreSkillShellCommand"), None, None, None, None],
    /// The turn ended because of an API error (output ignored).
    StopFailure => [None, Some("StopFailure"), None, None, None, None],
    /// A teammate of an agent team is about to go idle.
    TeammateIdle => [None, Some("TeammateIdle"), None, None, None, None],
    /// An instructions file (CLAUDE.md, rules) was loaded into context.
    InstructionsLoaded => [None, Some("InstructionsLoaded"), None, None, None, None],
    /// A configuration file changed during the session.
    ConfigChange => [None, Some("ConfigChange"), None, None, None, None],
    /// The working directory changed.
    CwdChanged => [None, Some("CwdChanged"), None, None, None, None],
    /// A working directory was added mid-session.
    DirectoryAdded => [None, Some("DirectoryAdded"), None, None, None, None],
    /// A watched file changed on disk.
    FileChanged => [None, Some("FileChanged"), None, None, None, None],
    /// A worktree is being created (the hook returns its path).
    WorktreeCreate => [None, Some("WorktreeCreate"), None, None, None, None],
    /// A worktree is being removed.
    WorktreeRemove => [None, Some("WorktreeRemove"), None, None, None, None],
    /// Before a requested model switch (may block it).
    PreModelSwitch => [None, Some("PreModelSwitch"), None, None, None, None],
    /// After the session's model changed.
    PostModelSwitch => [None, Some("PostModelSwitch"), None, None, None, None],
    /// Before a request goes to the model (Codex's; it passes the request's
    /// ids, not its messages, and applies no answer: an observation).
    PreModelRequest => [None, Some("PreModelRequest"), None, None, None, None],
    /// After the model answered a request (Codex's; status and token
    /// usage, no answer applied).
    PostModelRequest => [None, Some("PostModelRequest"), None, None, None, None],
    /// The user interrupted the turn (Codex's; no answer applied).
    Interrupt => [None, Some("Interrupt"), None, None, None, None],
    /// An MCP server asks the user for input.
    Elicitation => [None, Some("Elicitation"), None, None, None, None],
    /// The user answered an MCP elicitation.
    ElicitationResult => [None, Some("ElicitationResult"), None, None, None, None],
}

/// What the input field an event's matcher is tested against holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchTarget {
    /// The tool's name (`tool_name`).
    ToolName,
    /// A trigger such as `source`, `reason`, `trigger` or `notification_type`.
    Trigger(&'static str),
    /// The event ignores matchers.
    None,
}

impl EventKind {
    /// Parses a name in any dialect; returns the event and the dialect the
    /// name belongs to (gemini first when dialects share a name).
    pub fn parse(name: &str) -> Option<(EventKind, Dialect)> {
        Dialect::ALL
            .iter()
            .find_map(|&d| EventKind::named_in(name, d).map(|e| (e, d)))
    }

    /// The event `dialect` calls `name`.
    pub fn named_in(name: &str, dialect: Dialect) -> Option<EventKind> {
        EventKind::ALL
            .iter()
            .copied()
            .find(|e| e.name_in(dialect) == Some(name))
    }

    /// The canonical (gemini-style when it exists) name.
    pub fn canonical_name(self) -> &'static str {
        self.name_in(Dialect::Gemini)
            .or_else(|| self.name_in(Dialect::Claude))
            .or_else(|| self.name_in(Dialect::Jcli))
            .or_else(|| self.name_in(Dialect::Picoclaw))
            .or_else(|| self.name_in(Dialect::Cursor))
            .or_else(|| self.name_in(Dialect::Copilot))
            .unwrap_or("unknown")
    }

    /// The name in `dialect`, else the canonical name.
    pub fn display_in(self, dialect: Dialect) -> &'static str {
        self.name_in(dialect).unwrap_or_else(|| self.canonical_name())
    }

    /// Every name of every dialect, for "did you mean" suggestions.
    pub fn all_names() -> impl Iterator<Item = &'static str> {
        EventKind::ALL
            .iter()
            .flat_map(|e| Dialect::ALL.iter().filter_map(move |&d| e.name_in(d)))
    }

    /// What this event's matcher is compared with.
    pub fn match_target(self) -> MatchTarget {
        use EventKind::*;
        match self {
            BeforeTool | AfterTool | AfterToolFailure | PermissionRequest | PermissionDenied | PreSkillShellCommand => {
                MatchTarget::ToolName
            }
            SessionStart | ConfigChange | DirectoryAdded => MatchTarget::Trigger("source"),
            SessionEnd => MatchTarget::Trigger("reason"),
            PreCompress | PostCompress | Setup => MatchTarget::Trigger("trigger"),
            Notification => MatchTarget::Trigger("notification_type"),
            SubagentStart | SubagentStop => MatchTarget::Trigger("agent_type"),
            UserPromptExpansion => MatchTarget::Trigger("command_name"),
            StopFailure => MatchTarget::Trigger("error"),
            InstructionsLoaded => MatchTarget::Trigger("load_reason"),
            // Claude matches the changed file's name, the last part of this.
            FileChanged => MatchTarget::Trigger("file_path"),
            PreModelSwitch | PostModelSwitch => MatchTarget::Trigger("to_model"),
            Elicitation | ElicitationResult => MatchTarget::Trigger("mcp_server_name"),
            _ => MatchTarget::None,
        }
    }

    /// Whether a hook may stop the agent's action at this point (block/deny).
    pub fn can_block(self) -> bool {
        use EventKind::*;
        !matches!(
            self,
            AfterPromptSubmit
                | SessionStart
                | SessionEnd
                | Notification
                | PostCompress
                | PostMicroCompact
                | PermissionDenied
                | Setup
                | MessageDisplay
                | StopFailure
                | InstructionsLoaded
                | CwdChanged
                | DirectoryAdded
                | FileChanged
                | PostModelSwitch
                | SubagentStart
                | PreModelRequest
                | PostModelRequest
                | Interrupt
        )
    }

    /// Whether a block here stops an action before it happens (a tool
    /// call, a prompt, a permission, a configuration change): where a
    /// guard lives, and so what to block when the guard cannot run. A
    /// block elsewhere is harmful or meaningless: at `Stop` it makes the
    /// agent go on forever, at `SessionEnd` it stops nothing.
    pub fn guards_an_action(self) -> bool {
        use EventKind::*;
        matches!(
            self,
            BeforeTool
                | PreSkillShellCommand
                | PermissionRequest
                | BeforeAgent
                | UserPromptExpansion
                | BeforeModel
                | BeforeToolSelection
                | ConfigChange
                | Elicitation
                | PreModelSwitch
        )
    }

    /// Whether a block here means "do not stop, keep working": Claude
    /// Code's Stop, SubagentStop, TaskCompleted and TeammateIdle, gemini-cli's
    /// AfterAgent (a retry), Codex's Stop. A hook's failure must never block
    /// here, whatever the failure policy: the agent would loop (Claude Code
    /// itself ignores `onFailure: block` at these events). It is a warning.
    pub fn block_keeps_going(self) -> bool {
        matches!(
            self,
            EventKind::AfterAgent | EventKind::SubagentStop | EventKind::TaskCompleted | EventKind::TeammateIdle
        )
    }

    /// Whether the answer to this event can carry `additionalContext` to
    /// the model: where what background hooks said is delivered.
    pub fn context_reaches_model(self) -> bool {
        matches!(
            self,
            EventKind::SessionStart
                | EventKind::Setup
                | EventKind::BeforeAgent
                | EventKind::UserPromptExpansion
                | EventKind::BeforeTool
                | EventKind::AfterTool
                | EventKind::AfterToolFailure
                | EventKind::PostToolBatch
                | EventKind::SubagentStart
        )
    }

    /// Whether the agent adds a hook's plain (non-JSON) stdout to the
    /// model's context at this event (Claude Code's rule); elsewhere plain
    /// stdout only reaches its debug log.
    pub fn plain_stdout_is_context(self) -> bool {
        matches!(
            self,
            EventKind::SessionStart
                | EventKind::BeforeAgent
                | EventKind::UserPromptExpansion
                | EventKind::PostModelSwitch
        )
    }
}

impl Serialize for EventKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.canonical_name())
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.canonical_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_name_the_same_event() {
        for name in ["BeforeTool", "PreToolUse", "pre_tool_execution", "before_tool"] {
            assert_eq!(
                EventKind::parse(name).map(|p| p.0),
                Some(EventKind::BeforeTool),
                "{name}"
            );
        }
        assert_eq!(
            EventKind::parse("PreToolUse"),
            Some((EventKind::BeforeTool, Dialect::Claude))
        );
        assert_eq!(EventKind::parse("stop"), Some((EventKind::AfterAgent, Dialect::Jcli)));
        assert_eq!(EventKind::parse("beforetool"), None);
    }

    #[test]
    fn every_name_round_trips() {
        for &e in EventKind::ALL {
            for d in Dialect::ALL {
                if let Some(n) = e.name_in(d) {
                    assert_eq!(EventKind::parse(n).map(|p| p.0), Some(e), "{n}");
                }
            }
        }
    }
}
