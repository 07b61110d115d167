//! The agents hookshot sits in front of, and what each does differently:
//! one row per agent, read by every stage that must behave as that agent
//! (the registry's regex flavour, the runner's shell, the facade's own
//! files and hook variables, the events `install` registers, the answers
//! of `fire` and `serve`). Adding an agent is adding a row here.
//!
//! Each fact is checked against the agent itself in `agents/` (Claude Code
//! 2.1.332, Codex 0.169.0, gemini-cli 0.61.0).

use std::path::Path;

use serde_json::Value;

use crate::{Decision, Dialect, EventKind, Outcome};

/// An agent that runs hookshot as one of its hooks, or whose files
/// hookshot reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Agent {
    /// Claude Code.
    Claude,
    /// gemini-cli.
    Gemini,
    /// OpenAI Codex: Claude Code's hook format and event names, its own
    /// shell, regex engine and stricter answers.
    Codex,
}

/// Whose regular expressions a file's matchers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegexFlavour {
    /// JavaScript's, without flags (`new RegExp(matcher)`).
    Ecma,
    /// The `regex` crate's (Codex is Rust; jcli too; picoclaw's Go RE2
    /// reads the same).
    Rust,
}

impl Agent {
    /// Every agent.
    pub const ALL: [Agent; 3] = [Agent::Claude, Agent::Gemini, Agent::Codex];

    /// Its name on the command line and in `serve` requests.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Gemini => "gemini",
            Agent::Codex => "codex",
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
            Agent::Claude | Agent::Codex => Dialect::Claude,
        }
    }

    /// The events it runs hooks for that hookshot fires, in its own words.
    /// Codex 0.169 has 14 (Claude Code's names); `PreModelRequest`,
    /// `PostModelRequest` and `Interrupt` are not among hookshot's events.
    pub fn events(self) -> Vec<EventKind> {
        const CODEX: [EventKind; 11] = [
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
        ];
        match self {
            Agent::Codex => CODEX.to_vec(),
            Agent::Claude | Agent::Gemini => EventKind::ALL
                .iter()
                .copied()
                .filter(|e| e.name_in(self.dialect()).is_some())
                .collect(),
        }
    }

    /// The variables it sets for its hooks: its dialect's, but Codex sets
    /// none of its own (not even Claude Code's `CLAUDE_PROJECT_DIR`, whose
    /// format it shares).
    pub fn hook_vars(self) -> &'static [&'static str] {
        match self {
            Agent::Codex => &[],
            Agent::Claude | Agent::Gemini => self.dialect().hook_vars(),
        }
    }

    /// How it reads a matcher that is a regular expression.
    pub fn regex_flavour(self) -> RegexFlavour {
        match self {
            Agent::Claude | Agent::Gemini => RegexFlavour::Ecma,
            Agent::Codex => RegexFlavour::Rust,
        }
    }

    /// The shell it runs a command hook with: Claude Code `/bin/sh -c`,
    /// gemini-cli `bash -c`, Codex the user's login shell as `-lc`.
    pub fn shell(self) -> Vec<String> {
        match self {
            Agent::Claude => vec!["/bin/sh".into(), "-c".into()],
            Agent::Gemini => vec!["bash".into(), "-c".into()],
            Agent::Codex => codex_shell(),
        }
    }

    /// Whether `path` is one of the settings files it reads and runs
    /// itself.
    pub fn owns_file(self, path: &Path) -> bool {
        let dir = path.parent().and_then(Path::file_name).and_then(|d| d.to_str());
        let name = path.file_name().and_then(|n| n.to_str());
        match self {
            Agent::Claude => dir == Some(".claude") && matches!(name, Some("settings.json" | "settings.local.json")),
            Agent::Gemini => dir == Some(".gemini") && name == Some("settings.json"),
            Agent::Codex => dir == Some(".codex") && matches!(name, Some("hooks.json" | "config.toml")),
        }
    }

    /// The agent whose hooks `path` holds when its place says so beyond
    /// the dialect: Codex's own files and what `hookshot install --import`
    /// moved out of them (`hookshot/imported/codex.json`), which share
    /// Claude Code's format but not its shell or regex engine.
    pub fn of_claude_format_file(path: &Path) -> Agent {
        let imported_codex = path.file_name().is_some_and(|n| n == "codex.json")
            && path.parent().and_then(Path::file_name).is_some_and(|d| d == "imported")
            && path
                .parent()
                .and_then(Path::parent)
                .and_then(Path::file_name)
                .is_some_and(|d| d == "hookshot" || d == ".hookshot");
        if imported_codex || Agent::Codex.owns_file(path) {
            Agent::Codex
        } else {
            Agent::Claude
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

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where gemini-cli keeps a session's approved plans (`GEMINI_PLANS_DIR`
/// for its hooks): `~/.gemini/tmp/<slug>/<session>/plans`, the slug being
/// the project's in `~/.gemini/projects.json`. `None` when gemini-cli has
/// not seen the project (it would name it on its first run; hookshot does
/// not write gemini-cli's registry).
pub fn gemini_plans_dir(home: &Path, project: &Path, session: &str) -> Option<std::path::PathBuf> {
    let gemini = home.join(".gemini");
    let text = std::fs::read_to_string(gemini.join("projects.json")).ok()?;
    let registry: Value = serde_json::from_str(&text).ok()?;
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

/// The shell Codex runs its hooks with: the user's login shell (`$SHELL`,
/// else the user's entry in `/etc/passwd`, else `/bin/sh`), as `-lc`.
pub fn codex_shell() -> Vec<String> {
    // Read once: it is asked for every event Codex sends.
    static SHELL: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SHELL.get_or_init(login_shell).clone()
}

fn login_shell() -> Vec<String> {
    let from_passwd = || {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let uid = status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))?
            .split_whitespace()
            .next()?
            .to_string();
        let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
        passwd.lines().find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.len() >= 7 && f[2] == uid && !f[6].is_empty()).then(|| f[6].to_string())
        })
    };
    let shell = std::env::var("SHELL")
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(from_passwd)
        .unwrap_or_else(|| "/bin/sh".into());
    vec![shell, "-lc".into()]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_table_reads_back() {
        for a in Agent::ALL {
            assert_eq!(Agent::parse(a.name()), Some(a));
        }
        assert_eq!(Agent::Codex.dialect(), Dialect::Claude);
        assert_eq!(Agent::Codex.regex_flavour(), RegexFlavour::Rust);
        assert_eq!(Agent::Gemini.shell(), ["bash", "-c"]);
        let names = |a: Agent| -> Vec<&str> { a.events().into_iter().filter_map(|e| e.name_in(a.dialect())).collect() };
        assert_eq!(names(Agent::Codex).len(), 11);
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
        ] {
            assert_eq!(Agent::of_claude_format_file(Path::new(path)), agent, "{path}");
        }
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
