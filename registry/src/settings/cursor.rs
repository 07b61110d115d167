//! Cursor's own hook files (`.cursor/hooks.json`, `~/.cursor/hooks.json`):
//! `{"version": 1, "hooks": {"beforeShellExecution": [{"command": ...}]}}`,
//! each entry one hook, read as Cursor's hook reference (2.x) says Cursor
//! runs it, so that a guard written for Cursor guards the other agents
//! too. Its events that name their tool (`beforeShellExecution`,
//! `beforeReadFile`, `afterFileEdit`, the MCP ones) are its generic tool
//! events for that tool, each with its own payload
//! ([`hookshot_core::HookOptions::own_event`]).

use super::*;
use hookshot_core::ToolRule;

/// The keys of one of its hooks.
const HOOK_KEYS: &[&str] = &[
    "command",
    "type",
    "prompt",
    "timeout",
    "matcher",
    "failClosed",
    "loop_limit",
];

/// What hookshot waits for a hook that sets no timeout (Cursor's reference
/// names no default).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How many follow-ups in a row Cursor takes from one stop hook.
const DEFAULT_LOOP_LIMIT: u32 = 5;

/// Its events hookshot does not fire: their hooks run under Cursor only.
const CURSOR_ONLY: &[&str] = &[
    "afterAgentResponse",
    "afterAgentThought",
    "beforeTabFileRead",
    "afterTabFileEdit",
];

/// Which calls a hook of one of its events sees, before its own matcher.
enum Scope {
    /// Its generic events: what its matcher says.
    Generic,
    /// One tool, by Claude Code's names (`beforeShellExecution`: the
    /// shell); its matcher, if any, is tested on the tool's main argument
    /// (the command) when `searches_argument`, else on Cursor's tool type.
    Tools(&'static [&'static str], bool),
    /// Every MCP tool.
    Mcp,
}

impl Parser<'_> {
    pub(super) fn cursor_hooks(&mut self, top: &Map<String, Value>, hooks: &Map<String, Value>) {
        match top.get("version") {
            Some(v) if v.as_u64() == Some(1) => {}
            found => self.warn(
                if found.is_some() { "/version" } else { "" },
                format!(
                    "Cursor's hooks file declares \"version\": 1, found {}; its hooks are read as version 1's",
                    found.map_or("none".to_string(), describe)
                ),
            ),
        }
        for (name, defs) in hooks {
            let ptr = format!("/hooks/{}", escape_token(name));
            let (event, scope) = match hookshot_core::event::cursor_tool_event(name) {
                Some((e, Some("Bash"))) => (e, Scope::Tools(&["Bash"], true)),
                Some((e, Some("Read"))) => (e, Scope::Tools(&["Read"], false)),
                // After any edit the agent makes to a file.
                Some((e, Some(_))) => (e, Scope::Tools(&["Write", "Edit", "MultiEdit", "NotebookEdit"], false)),
                Some((e, None)) => (e, Scope::Mcp),
                None => match EventKind::named_in(name, Dialect::Cursor) {
                    Some(e) => (e, Scope::Generic),
                    None => {
                        let why = if CURSOR_ONLY.contains(&name.as_str()) {
                            String::new()
                        } else {
                            did_you_mean(
                                name,
                                EventKind::ALL
                                    .iter()
                                    .filter_map(|e| e.name_in(Dialect::Cursor))
                                    .chain(hookshot_core::event::CURSOR_TOOL_EVENTS.iter().map(|(n, _, _)| *n))
                                    .chain(CURSOR_ONLY.iter().copied()),
                            )
                            .map(|s| format!("; did you mean \"{s}\"?"))
                            .unwrap_or_default()
                        };
                        self.key_warn(
                            &ptr,
                            format!("event \"{name}\" is not one hookshot fires: its hooks run under Cursor only{why}"),
                        );
                        continue;
                    }
                },
            };
            for (p, h) in self.hook_list(&ptr, defs, "{\"command\": ...}") {
                self.cursor_hook(&p, h, name, event, &scope);
            }
        }
    }

    /// One hook: `command` as a shell command line, in the project's folder (a
    /// user's hook in `~/.cursor/`), for `timeout` seconds; `failClosed`
    /// blocks when it fails.
    fn cursor_hook(&mut self, ptr: &str, h: &Map<String, Value>, name: &str, event: EventKind, scope: &Scope) {
        self.unknown_keys(h, ptr, HOOK_KEYS, "a hook", true);
        let Some(kind) = self.own_hook_kind(h, ptr, "\"command\" or \"prompt\"") else {
            return;
        };
        let action = match (kind, h.get("command")) {
            ("command", Some(Value::String(c))) if !c.trim().is_empty() => HookAction::Command { command: c.clone() },
            ("command", Some(other)) if !other.is_string() => {
                self.error(
                    &format!("{ptr}/command"),
                    format!("expected a command line, found {}", kind_of(other)),
                );
                return;
            }
            ("command", _) => {
                self.error(ptr, "missing \"command\": a hook needs the command line to run");
                return;
            }
            (other, _) => not_run_kind("Cursor", other),
        };
        let fail = match h.get("failClosed") {
            None | Some(Value::Bool(false)) => FailPolicy::Open,
            Some(Value::Bool(true)) => FailPolicy::Closed,
            Some(other) => {
                // A guard that meant to fail closed is never read as open.
                self.error(
                    &format!("{ptr}/failClosed"),
                    format!("expected true or false, found {}", kind_of(other)),
                );
                FailPolicy::Closed
            }
        };
        let (matcher, condition) = self.cursor_matcher(h, ptr, event, scope);
        let mut options = hookshot_core::HookOptions {
            condition,
            own_event: Some(name.to_string()),
            loop_limit: self.cursor_loop_limit(h, ptr, event),
            ..Default::default()
        };
        // Cursor runs a project's hooks in the project's folder and a
        // user's in `~/.cursor/`: a script is named from there.
        let in_project = !matches!(self.source, SourceKind::User | SourceKind::System)
            && self.path.parent().and_then(Path::file_name) == Some(std::ffi::OsStr::new(".cursor"));
        if !in_project {
            options.cwd = self.path.parent().map(Path::to_path_buf);
        }
        let timeout = match h.get("timeout") {
            None => DEFAULT_TIMEOUT,
            Some(v) => self.agent_seconds(
                &format!("{ptr}/timeout"),
                v,
                DEFAULT_TIMEOUT,
                "hookshot's default for Cursor's hooks",
            ),
        };
        self.push_own_hook(
            ptr,
            h,
            (event, Dialect::Cursor),
            matcher,
            action,
            timeout,
            fail,
            options,
        );
    }

    /// `loop_limit` at `stop` and `subagentStop`: how many follow-ups in a
    /// row Cursor takes from the hook (5 unless set; `null`: no limit).
    fn cursor_loop_limit(&mut self, h: &Map<String, Value>, ptr: &str, event: EventKind) -> Option<u32> {
        if !matches!(event, EventKind::AfterAgent | EventKind::SubagentStop) {
            if h.contains_key("loop_limit") {
                self.warn(
                    &format!("{ptr}/loop_limit"),
                    "Cursor reads \"loop_limit\" at stop and subagentStop only; here it has no effect",
                );
            }
            return None;
        }
        match h.get("loop_limit") {
            None => Some(DEFAULT_LOOP_LIMIT),
            Some(Value::Null) => None,
            Some(v) => match v.as_u64() {
                Some(n) => Some(u32::try_from(n).unwrap_or(u32::MAX)),
                None => {
                    self.warn(
                        &format!("{ptr}/loop_limit"),
                        format!(
                            "expected a whole number of follow-ups or null, found {}; the hook gets Cursor's default of {DEFAULT_LOOP_LIMIT}",
                            describe(v)
                        ),
                    );
                    Some(DEFAULT_LOOP_LIMIT)
                }
            },
        }
    }

    /// The calls a hook sees: its event's tool, and its `matcher`, a
    /// regular expression searched for in Cursor's tool type (`Shell`,
    /// `Write`, `MCP:<tool>`; Claude Code's names of the same tools meet
    /// it, [`hookshot_core::tools::aliases`]) or, on the shell's events,
    /// in the whole command.
    fn cursor_matcher(
        &mut self,
        h: &Map<String, Value>,
        ptr: &str,
        event: EventKind,
        scope: &Scope,
    ) -> (MatcherSpec, Option<ToolRule>) {
        let mp = format!("{ptr}/matcher");
        let m = match h.get("matcher") {
            None => None,
            Some(Value::String(m)) => Some(m.trim()).filter(|m| !m.is_empty() && *m != "*"),
            Some(other) => {
                self.error(&mp, format!("expected a string, found {}", kind_of(other)));
                None
            }
        };
        let tools = |names: &[&str]| MatcherSpec::Exact(names.iter().map(|n| n.to_string()).collect());
        match (scope, m) {
            (Scope::Generic, None) => (MatcherSpec::Any, None),
            (Scope::Generic, Some(m)) if event.match_target() == MatchTarget::None => {
                self.warn(&mp, format!("{event} ignores matchers; \"{m}\" has no effect"));
                (MatcherSpec::Any, None)
            }
            (Scope::Generic, Some(m)) => match compile_matcher(m, Dialect::Cursor, event, RegexFlavour::Ecma) {
                Ok(spec) => (spec, None),
                Err(e) => {
                    self.error(&mp, e);
                    (MatcherSpec::Any, None)
                }
            },
            (Scope::Tools(names, true), Some(m)) => {
                if let Err(e) = regex::Regex::new(m) {
                    self.error(&mp, format!("invalid regular expression \"{m}\": {e}"));
                }
                let rule = ToolRule {
                    tool: names[0].to_string(),
                    pattern: Some(m.to_string()),
                    regex: true,
                };
                (tools(names), Some(rule))
            }
            (Scope::Tools(names, false), Some(m)) => {
                // Cursor's types of these calls: the agent's are `Read`
                // and `Write` (`TabRead`/`TabWrite` are its inline
                // completions', which hookshot never sees).
                let own = if names[0] == "Read" { "Read" } else { "Write" };
                match regex::Regex::new(m) {
                    Ok(r) if r.is_match(own) => (tools(names), None),
                    Ok(_) => {
                        self.warn(
                            &mp,
                            format!("\"{m}\" does not match \"{own}\", the type of the agent's calls here: the hook runs only for Cursor's Tab, which hookshot never sees"),
                        );
                        (MatcherSpec::Exact(Vec::new()), None)
                    }
                    Err(e) => {
                        self.error(&mp, format!("invalid regular expression \"{m}\": {e}"));
                        (tools(names), None)
                    }
                }
            }
            (Scope::Tools(names, _), None) => (tools(names), None),
            (Scope::Mcp, None) => (MatcherSpec::Regex("^mcp__".into()), None),
            // Never fewer calls than Cursor would: the hook judges each.
            (Scope::Mcp, Some(m)) => {
                self.warn(
                    &mp,
                    format!("hookshot does not narrow an MCP event by \"{m}\": the hook runs for every MCP tool"),
                );
                (MatcherSpec::Regex("^mcp__".into()), None)
            }
        }
    }
}
