//! gemini-cli and Claude Code settings: events -> matcher groups -> handlers,
//! the dialect told from the file's place or content.

use super::*;

/// gemini-cli's keys in `hooksConfig` (hookshot adds `onFailure`, which
/// says nothing about the dialect).
const GEMINI_CONFIG_KEYS: &[&str] = &["enabled", "disabled", "notifications"];
pub(super) const CLAUDE_ONLY_KEYS: &[&str] = &[
    "disableAllHooks",
    "permissions",
    "enabledPlugins",
    "statusLine",
    "apiKeyHelper",
];

/// Keys only a Claude Code handler has, and handler types only it runs.
const CLAUDE_HANDLER_KEYS: &[&str] = &[
    "timeoutSec",
    "args",
    "if",
    "async",
    "asyncRewake",
    "once",
    "shell",
    "url",
    "headers",
    "allowedEnvVars",
    "server",
    "tool",
    "input",
    "continueOnBlock",
    // Codex's, in the same format: the first is honoured when Codex is
    // the agent; the second is the command Codex runs on Windows.
    "additionalContextLimit",
    "commandWindows",
];

/// A file of flat hook entries whose place did not say whose it is.
pub(super) enum FlatFile {
    /// GitHub Copilot CLI's own (its keys or events only it has): read
    /// as its files are.
    Copilot,
    /// Cursor's own (its keys or events only it has).
    Cursor,
    /// Either's: the first flat entry's pointer and why hookshot cannot
    /// tell which.
    Either(String, String),
}

/// Where a file holds Cursor's or GitHub Copilot CLI's own hook entries
/// (`{"version": 1, "hooks": {"preToolUse": [{"command": ...}]}}`: each
/// entry one hook, no `hooks` list inside): whose it looks like, rather
/// than read it as a file of matcher groups (every entry "missing hooks")
/// or take the hooks as none. The two read the same entry differently
/// (Copilot CLI's payload is not Cursor's): when nothing tells, the user
/// is asked to say.
pub(super) fn agents_own_flat_file(top: &Map<String, Value>, hooks: &Map<String, Value>) -> Option<FlatFile> {
    const CURSOR_ONLY: &[&str] = &[
        "beforeSubmitPrompt",
        "stop",
        "afterAgentResponse",
        "afterAgentThought",
        "beforeTabFileRead",
        "afterTabFileEdit",
    ];
    const COPILOT_KEYS: &[&str] = &["bash", "powershell", "timeoutSec", "cwd", "env"];
    const CURSOR_KEYS: &[&str] = &["failClosed", "loop_limit"];
    if !top.get("version").is_some_and(Value::is_number) {
        return None;
    }
    let flat = |e: &Value| {
        e.as_object().is_some_and(|e| {
            !e.contains_key("hooks")
                && ["command", "bash", "powershell", "prompt"]
                    .iter()
                    .any(|k| e.contains_key(*k))
        })
    };
    let (event, i) = hooks.iter().find_map(|(event, list)| {
        let list = list.as_array()?;
        list.iter().position(flat).map(|i| (event, i))
    })?;
    let entries = || {
        hooks
            .values()
            .filter_map(Value::as_array)
            .flatten()
            .filter_map(Value::as_object)
    };
    let cursor = hooks
        .keys()
        .any(|k| CURSOR_ONLY.contains(&k.as_str()) || hookshot_core::event::cursor_tool_event(k).is_some())
        || entries().any(|e| CURSOR_KEYS.iter().any(|k| e.contains_key(*k)));
    let copilot = hooks
        .keys()
        .any(|k| EventKind::named_in(k, Dialect::Copilot).is_some_and(|e| e.name_in(Dialect::Cursor).is_none()))
        || entries().any(|e| COPILOT_KEYS.iter().any(|k| e.contains_key(*k)));
    match (cursor, copilot) {
        (false, true) => Some(FlatFile::Copilot),
        (true, false) => Some(FlatFile::Cursor),
        _ => Some(FlatFile::Either(
            format!("/hooks/{}/{i}", escape_token(event)),
            "this is Cursor's or GitHub Copilot CLI's own hooks file (each entry one hook, no \"hooks\" list), and nothing in it tells whose: each gives its hooks another payload. hookshot reads Cursor's at `.cursor/hooks.json` and Copilot CLI's in its folders (`.github/hooks/`, `~/.copilot/hooks/`); elsewhere name it with `--dialect cursor` or `--dialect copilot`".into(),
        )),
    }
}

/// The dialect of a JSON settings file whose place does not say it, and,
/// when the content does not say it plainly, a note why it was read so.
/// Events only one agent has decide; then keys only Claude Code has; then
/// Claude Code's handler shapes; then gemini-cli's own `hooksConfig` keys.
/// hookshot's own keys (`hooksConfig.onFailure`, `builtins`), which the
/// docs invite into any settings file, never decide.
pub(super) fn detect_json_dialect(top: &Map<String, Value>, hooks: &Map<String, Value>) -> (Dialect, Option<String>) {
    let only = |d: Dialect, other: Dialect| -> Vec<&str> {
        hooks
            .keys()
            .map(String::as_str)
            .filter(|name| EventKind::named_in(name, d).is_some() && EventKind::named_in(name, other).is_none())
            .collect()
    };
    let (gemini, claude) = (
        only(Dialect::Gemini, Dialect::Claude),
        only(Dialect::Claude, Dialect::Gemini),
    );
    let claude_keys: Vec<&str> = CLAUDE_ONLY_KEYS
        .iter()
        .copied()
        .filter(|k| top.contains_key(*k))
        .collect();
    match (gemini.is_empty(), claude.is_empty()) {
        (false, false) => {
            let d = if claude_keys.is_empty() {
                Dialect::Gemini
            } else {
                Dialect::Claude
            };
            return (
                d,
                Some(format!(
                    "this file names gemini-cli's events ({}) and Claude Code's ({}); read as {} settings. \
                     Keep each agent's hooks in its own file",
                    gemini.join(", "),
                    claude.join(", "),
                    if d == Dialect::Gemini {
                        "gemini-cli"
                    } else {
                        "Claude Code"
                    }
                )),
            );
        }
        (false, true) => {
            let doubt = (!claude_keys.is_empty()).then(|| {
                format!(
                    "Claude Code keys ({}) beside gemini-cli's events ({}); read as gemini-cli settings",
                    claude_keys.join(", "),
                    gemini.join(", ")
                )
            });
            return (Dialect::Gemini, doubt);
        }
        (true, false) => return (Dialect::Claude, None),
        (true, true) => {}
    }
    if !claude_keys.is_empty() {
        return (Dialect::Claude, None);
    }
    // Only events both agents have: look at the handlers. Claude-only keys
    // and types say Claude; so do a `|` list on a trigger matcher (gemini
    // compares triggers exactly, so `startup|clear` could never match
    // there) and a timeout under 100 (seconds: as milliseconds no hook
    // could even start).
    let mut evidence = None;
    for (event, groups) in hooks {
        let trigger = EventKind::parse(event).is_some_and(|(e, _)| matches!(e.match_target(), MatchTarget::Trigger(_)));
        for g in groups.as_array().into_iter().flatten() {
            if trigger
                && g.get("matcher")
                    .and_then(Value::as_str)
                    .is_some_and(|m| m.contains('|'))
            {
                evidence = Some("a \"|\" list in a matcher");
            }
            for h in g.get("hooks").and_then(Value::as_array).into_iter().flatten() {
                let Some(h) = h.as_object() else { continue };
                if CLAUDE_HANDLER_KEYS.iter().any(|k| h.contains_key(*k)) {
                    evidence = Some("Claude Code handler keys");
                }
                if h.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| matches!(t, "http" | "mcp_tool" | "agent" | "prompt"))
                {
                    evidence = Some("a Claude Code handler type");
                }
                if h.get("timeout")
                    .and_then(Value::as_f64)
                    .is_some_and(|t| t > 0.0 && t < 100.0)
                {
                    evidence = Some("timeouts in seconds");
                }
            }
        }
    }
    if evidence.is_some() {
        return (Dialect::Claude, None);
    }
    // gemini-cli's own keys of `hooksConfig` (not hookshot's `onFailure`).
    if top
        .get("hooksConfig")
        .and_then(Value::as_object)
        .is_some_and(|c| c.keys().any(|k| GEMINI_CONFIG_KEYS.contains(&k.as_str())))
    {
        return (Dialect::Gemini, None);
    }
    let names: Vec<&str> = hooks.keys().map(String::as_str).collect();
    let doubt = (!names.is_empty()).then(|| {
        format!(
            "cannot tell whether this is gemini-cli or Claude Code settings: both have {}; \
             read as gemini-cli settings (timeouts in milliseconds). Keep it in .gemini/ or \
             .claude/, or name its dialect with --dialect gemini|claude",
            names.join(", ")
        )
    });
    (Dialect::Gemini, doubt)
}

/// Claude Code's default handler timeout for `event` and hook `kind`.
fn claude_default_timeout(event: EventKind, kind: &str) -> Duration {
    match kind {
        "prompt" => return Duration::from_secs(30),
        "agent" => return Duration::from_secs(60),
        _ => {}
    }
    match event {
        EventKind::BeforeAgent | EventKind::PreModelSwitch | EventKind::PostModelSwitch => Duration::from_secs(30),
        EventKind::MessageDisplay => Duration::from_secs(10),
        // SessionEnd hooks share a 1.5 s budget in Claude Code.
        EventKind::SessionEnd => Duration::from_millis(1500),
        _ => Duration::from_secs(600),
    }
}

/// A permission rule: `Tool` or `Tool(pattern)`.
fn parse_rule(rule: &str) -> Result<hookshot_core::ToolRule, String> {
    let rule = rule.trim();
    let (tool, pattern) = match rule.find('(') {
        Some(open) if rule.ends_with(')') => (&rule[..open], Some(&rule[open + 1..rule.len() - 1])),
        Some(_) => {
            return Err(format!(
                "invalid permission rule \"{rule}\": expected Tool or Tool(pattern)"
            ));
        }
        None => (rule, None),
    };
    if tool.is_empty()
        || !tool
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
    {
        return Err(format!(
            "invalid permission rule \"{rule}\": \"{tool}\" is not a tool name"
        ));
    }
    let pattern = pattern.map(str::trim).filter(|p| !p.is_empty() && *p != "*");
    if let Some(p) = pattern
        && !p.starts_with("domain:")
    {
        globset::Glob::new(&p.replace(":*", " *"))
            .map_err(|e| format!("invalid pattern \"{p}\" in \"{rule}\": {}", e.kind()))?;
    }
    Ok(hookshot_core::ToolRule {
        tool: tool.to_string(),
        pattern: pattern.map(str::to_string),
        regex: false,
    })
}

impl Parser<'_> {
    pub(super) fn json_config(&mut self, top: &Map<String, Value>, hooks: &Map<String, Value>, dialect: Dialect) {
        // gemini keeps enabled/disabled under hooksConfig; older versions put
        // them inside hooks itself.
        let config = match top.get("hooksConfig") {
            Some(Value::Object(cfg)) => Some(cfg),
            Some(other) => {
                self.error("/hooksConfig", format!("expected an object, found {}", kind_of(other)));
                None
            }
            None => None,
        };
        for (base, cfg) in [("/hooksConfig", config), ("/hooks", Some(hooks))] {
            let Some(cfg) = cfg else { continue };
            match cfg.get("enabled") {
                Some(Value::Bool(b)) => self.out.enabled = Some(*b),
                Some(other) => self.error(
                    &format!("{base}/enabled"),
                    format!("expected true or false, found {}", kind_of(other)),
                ),
                None => {}
            }
            match cfg.get("onFailure") {
                Some(Value::String(p)) if p == "open" => self.out.on_failure = Some(FailPolicy::Open),
                Some(Value::String(p)) if p == "closed" => self.out.on_failure = Some(FailPolicy::Closed),
                Some(other) => self.error(
                    &format!("{base}/onFailure"),
                    format!("expected \"open\" or \"closed\", found {}", describe(other)),
                ),
                None => {}
            }
            match cfg.get("disabled") {
                Some(Value::Array(items)) => {
                    for (i, item) in items.iter().enumerate() {
                        match item.as_str() {
                            Some(s) => self.out.disabled.push(s.to_string()),
                            None => self.error(
                                &format!("{base}/disabled/{i}"),
                                format!("expected a hook name, found {}", kind_of(item)),
                            ),
                        }
                    }
                }
                Some(other) => self.error(
                    &format!("{base}/disabled"),
                    format!("expected a list of hook names, found {}", kind_of(other)),
                ),
                None => {}
            }
        }
        if dialect == Dialect::Claude {
            match top.get("disableAllHooks") {
                Some(Value::Bool(b)) => self.out.enabled = Some(!b),
                Some(other) => self.error(
                    "/disableAllHooks",
                    format!("expected true or false, found {}", kind_of(other)),
                ),
                None => {}
            }
        }
    }

    pub(super) fn json_hooks(&mut self, hooks: &Map<String, Value>, dialect: Dialect) {
        for (name, defs) in hooks {
            if matches!(name.as_str(), "enabled" | "disabled" | "notifications") {
                continue;
            }
            let ptr = format!("/hooks/{}", escape_token(name));
            let Some((event, _)) = EventKind::parse(name) else {
                let hint = did_you_mean(name, EventKind::all_names())
                    .map(|s| format!("; did you mean \"{s}\"?"))
                    .unwrap_or_else(|| format!("; known events: {}", known_events(dialect)));
                if dialect == Dialect::Claude {
                    // An event this hookshot does not know (a newer Claude
                    // Code's) fires nowhere here: its hooks are skipped, the
                    // rest of the file loads.
                    self.key_warn(&ptr, format!("unknown event \"{name}\": its hooks never run{hint}"));
                } else {
                    self.key_error(&ptr, format!("unknown event \"{name}\"{hint}"));
                }
                continue;
            };
            let Some(defs) = defs.as_array() else {
                self.error(
                    &ptr,
                    format!("expected a list of matcher groups, found {}", kind_of(defs)),
                );
                continue;
            };
            for (i, def) in defs.iter().enumerate() {
                self.definition(&format!("{ptr}/{i}"), def, event, dialect);
            }
        }
    }

    pub(super) fn definition(&mut self, ptr: &str, def: &Value, event: EventKind, dialect: Dialect) {
        let Some(def) = def.as_object() else {
            self.error(
                ptr,
                format!(
                    "expected a matcher group {{\"matcher\": ..., \"hooks\": [...]}}, found {}",
                    kind_of(def)
                ),
            );
            return;
        };
        // Claude Code ignores keys it does not know; so does hookshot in
        // its files, saying so.
        let lenient = dialect == Dialect::Claude;
        let group_keys = ["matcher", "sequential", "hooks", "description", "name"];
        self.unknown_keys(def, ptr, &group_keys, "a matcher group", lenient);
        let matcher = match def.get("matcher") {
            None => MatcherSpec::Any,
            Some(Value::String(m)) => {
                let mp = format!("{ptr}/matcher");
                if event.match_target() == MatchTarget::None && !m.is_empty() && m != "*" {
                    self.warn(&mp, format!("{event} ignores matchers; \"{m}\" has no effect"));
                }
                let agent = hookshot_core::Agent::of_hook_file(dialect, self.path);
                let compiled = if agent.searches_plain_matchers() {
                    searched_matcher(m, agent.regex_flavour())
                } else {
                    compile_matcher(m, dialect, event, flavour_of(dialect, self.path))
                };
                match compiled {
                    Ok(spec) => spec,
                    // gemini-cli compares a matcher that is no regex with
                    // the tool name as a string: the hook keeps guarding
                    // that name, and the mistake is said.
                    Err(e) if dialect == Dialect::Gemini && super::matcher::javascript_rejects(m) => {
                        self.warn(
                            &mp,
                            format!(
                                "{e}; gemini-cli compares it with the tool name as plain text, and so does hookshot"
                            ),
                        );
                        MatcherSpec::Exact(vec![m.trim().to_string()])
                    }
                    Err(e) => {
                        self.error(&mp, e);
                        MatcherSpec::Any
                    }
                }
            }
            Some(other) => {
                self.error(
                    &format!("{ptr}/matcher"),
                    format!("expected a string, found {}", kind_of(other)),
                );
                MatcherSpec::Any
            }
        };
        let sequential = self.flag(def, ptr, "sequential");
        let Some(hooks) = def.get("hooks") else {
            self.error(ptr, "missing \"hooks\": a matcher group needs a list of hooks to run");
            return;
        };
        let Some(hooks) = hooks.as_array() else {
            self.error(
                &format!("{ptr}/hooks"),
                format!("expected a list of hooks, found {}", kind_of(hooks)),
            );
            return;
        };
        for (j, h) in hooks.iter().enumerate() {
            let hp = format!("{ptr}/hooks/{j}");
            if let Some(def) = self.hook(&hp, h, event, dialect, matcher.clone(), sequential) {
                self.out.hooks.push(def);
            }
        }
    }

    pub(super) fn hook(
        &mut self,
        ptr: &str,
        h: &Value,
        event: EventKind,
        dialect: Dialect,
        matcher: MatcherSpec,
        sequential: bool,
    ) -> Option<HookDef> {
        let Some(h) = h.as_object() else {
            self.error(
                ptr,
                format!(
                    "expected a hook {{\"type\": \"command\", \"command\": ...}}, found {}",
                    kind_of(h)
                ),
            );
            return None;
        };
        const KEYS: &[&str] = &[
            "type",
            "command",
            "name",
            "timeout",
            "description",
            "enabled",
            "fail",
            "retry",
            "statusMessage",
            "source",
            "prompt",
            "model",
            "onFailure",
        ];
        let claude = dialect == Dialect::Claude;
        let known: Vec<&str> = if claude {
            KEYS.iter().chain(CLAUDE_HANDLER_KEYS).copied().collect()
        } else {
            // gemini-cli adds a hook's own `env` to its environment.
            KEYS.iter().chain(&["env"]).copied().collect()
        };
        self.unknown_keys(h, ptr, &known, "a hook", claude);
        let kind = match h.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(other) => {
                self.error(
                    &format!("{ptr}/type"),
                    format!("expected \"command\", found {}", kind_of(other)),
                );
                return None;
            }
            None => {
                self.error(ptr, "missing \"type\": add \"type\": \"command\"");
                return None;
            }
        };
        let action = match kind.as_str() {
            "command" => self.command_action(h, ptr, claude)?,
            // Claude Code's prompt and agent hooks: a model judges the
            // event, on the events Claude Code runs them for.
            "prompt" | "agent" if claude => {
                let agent = kind == "agent";
                let prompt =
                    self.required_string(h, ptr, "prompt", &format!("an {kind} hook needs the prompt to send"))?;
                if !hookshot_core::judge::runs_on(event, agent) {
                    let name = event.name_in(Dialect::Claude).unwrap_or(event.canonical_name());
                    self.warn(
                        &format!("{ptr}/type"),
                        format!("Claude Code does not run \"{kind}\" hooks on {name}; this one never runs (use a command hook)"),
                    );
                    return None;
                }
                let continue_on_block = match h.get("continueOnBlock") {
                    None => false,
                    Some(Value::Bool(b)) if !agent => *b,
                    Some(Value::Bool(_)) => {
                        self.warn(
                            &format!("{ptr}/continueOnBlock"),
                            "agent hooks always feed their reason back; continueOnBlock is ignored",
                        );
                        false
                    }
                    Some(other) => {
                        self.error(
                            &format!("{ptr}/continueOnBlock"),
                            format!("expected true or false, found {}", kind_of(other)),
                        );
                        return None;
                    }
                };
                HookAction::Judge {
                    prompt,
                    model: self.opt_string(h, ptr, "model"),
                    agent,
                    continue_on_block,
                }
            }
            // hookshot's own prompt hooks (jcli's rules): a model answers
            // with a hook result.
            "prompt" => HookAction::Llm {
                prompt: self.required_string(h, ptr, "prompt", "a prompt hook needs the prompt to send")?,
                model: self.opt_string(h, ptr, "model"),
            },
            "http" if claude => self.http_action(h, ptr)?,
            "mcp_tool" if claude => self.mcp_tool_action(h, ptr)?,
            t => {
                let known = if claude {
                    "\"command\", \"prompt\", \"http\", \"mcp_tool\" or \"agent\""
                } else {
                    "\"command\" or \"prompt\""
                };
                self.error(
                    &format!("{ptr}/type"),
                    format!("hook type \"{t}\" is not supported; use {known}"),
                );
                return None;
            }
        };
        let name = self.opt_string(h, ptr, "name");
        let agent = hookshot_core::Agent::of_hook_file(dialect, self.path);
        let (unit_ms, default) = match dialect {
            Dialect::Claude => (
                1000.0,
                agent
                    .default_timeout()
                    .unwrap_or_else(|| claude_default_timeout(event, &kind)),
            ),
            _ => (1.0, Duration::from_secs(60)),
        };
        // Codex spells it `timeoutSec` too (its hooks.json, Claude's format).
        let key = if claude && !h.contains_key("timeout") && h.contains_key("timeoutSec") {
            "timeoutSec"
        } else {
            "timeout"
        };
        let timeout = match h.get(key) {
            None => default,
            Some(Value::Number(n)) if n.as_f64().is_some_and(|t| t > 0.0 && t.is_finite()) => {
                let t = n.as_f64().unwrap_or(0.0);
                if dialect == Dialect::Gemini && t < 100.0 {
                    self.warn(
                        &format!("{ptr}/{key}"),
                        format!(
                            "timeout {t} is in milliseconds in gemini settings; did you mean {}?",
                            t * 1000.0
                        ),
                    );
                }
                let in_ms = kind == "command" && agent.timeout_ms_from().is_some_and(|from| t >= from);
                let secs = if in_ms { t / 1000.0 } else { t * unit_ms / 1000.0 };
                let unit = if claude { "seconds" } else { "milliseconds" };
                self.agent_timeout(&format!("{ptr}/{key}"), &format!("{t} {unit}"), secs)
            }
            Some(other) => {
                let unit = if claude { "seconds" } else { "milliseconds" };
                self.error(
                    &format!("{ptr}/{key}"),
                    format!("expected a positive number of {unit}, found {}", describe(other)),
                );
                default
            }
        };
        let enabled = self.flag_or(h, ptr, "enabled", true);
        // Claude Code reads an mcp_tool hook's `onFailure` as "continue" or
        // else "block" (2.1.332's schema maps every other value to block):
        // a value it blocks on must not drop the guard here.
        let fail = if claude
            && kind == "mcp_tool"
            && h.get("onFailure")
                .is_some_and(|v| v != &Value::String("continue".into()))
        {
            FailPolicy::Closed
        } else {
            self.fail_policy(h, ptr)
        };
        let retry = self.retry(h, ptr);
        let mut options = hookshot_core::HookOptions::default();
        if !claude && let Some(env) = h.get("env") {
            match env {
                // As gemini-cli spreads it into the hook's environment:
                // strings as they are, other values as their JSON text.
                Value::Object(m) => options.env.extend(
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string))),
                ),
                other => self.error(
                    &format!("{ptr}/env"),
                    format!("expected an object of variables, found {}", kind_of(other)),
                ),
            }
        }
        if claude {
            options.background = match (self.flag(h, ptr, "asyncRewake"), self.flag(h, ptr, "async")) {
                (false, false) => Background::Off,
                _ if kind != "command" => {
                    self.warn(
                        ptr,
                        format!("\"async\" is for command hooks only; this {kind} hook runs in the foreground, as in Claude Code"),
                    );
                    Background::Off
                }
                (true, _) => Background::Rewake,
                (false, true) => Background::Async,
            };
            if let Some(v) = h.get("additionalContextLimit") {
                // Codex keeps it as a TOML integer: above i64::MAX it panics.
                match v.as_u64().filter(|&n| i64::try_from(n).is_ok()) {
                    Some(n) => options.context_limit = Some(n),
                    None => self.error(
                        &format!("{ptr}/additionalContextLimit"),
                        format!("expected a number of tokens (0 to {}), found {v}", i64::MAX),
                    ),
                }
            }
            if self.flag(h, ptr, "once") {
                self.warn(
                    &format!("{ptr}/once"),
                    "\"once\" is honoured only in skill frontmatter; Claude Code ignores it in settings files, and so does hookshot: the hook runs every time",
                );
            }
            if let Some((plugin_root, plugin_data)) = &self.cx.plugin {
                options
                    .env
                    .push(("CLAUDE_PLUGIN_ROOT".into(), plugin_root.display().to_string()));
                options
                    .env
                    .push(("CLAUDE_PLUGIN_DATA".into(), plugin_data.display().to_string()));
                options.env.extend(self.cx.plugin_options.iter().cloned());
            }
            if let Some(rule) = h.get("if") {
                let ip = format!("{ptr}/if");
                match rule.as_str().map(parse_rule) {
                    Some(Ok(rule)) if event.match_target() == MatchTarget::ToolName => options.condition = Some(rule),
                    Some(Ok(_)) => {
                        self.warn(
                            &ip,
                            format!("\"if\" applies to tool events only; on {event} a hook with \"if\" never runs (as in Claude Code)"),
                        );
                        return None;
                    }
                    Some(Err(e)) => {
                        self.error(&ip, e);
                        return None;
                    }
                    None => {
                        self.error(
                            &ip,
                            format!(
                                "expected a permission rule such as \"Bash(git *)\", found {}",
                                kind_of(rule)
                            ),
                        );
                        return None;
                    }
                }
            }
        }
        if !enabled {
            return None;
        }
        // gemini-cli runs a hook once per `name:command`: two hooks of one
        // name with other commands both run there, and so here.
        let gemini_key = (dialect == Dialect::Gemini)
            .then_some(name.as_ref())
            .flatten()
            .map(|n| match &action {
                HookAction::Command { command } => format!("{n}:{command}"),
                _ => format!("{n}:"),
            });
        let identity = gemini_key.or_else(|| name.clone()).unwrap_or_else(|| match &action {
            HookAction::Command { command } => command.clone(),
            HookAction::Exec { program, args } => std::iter::once(program)
                .chain(args)
                .cloned()
                .collect::<Vec<_>>()
                .join(" "),
            HookAction::Llm { prompt, .. } => prompt.clone(),
            HookAction::Unsupported { kind, .. } => format!("{kind}:{}", Value::Object(h.clone())),
            HookAction::Http { url, .. } => url.clone(),
            _ => String::new(),
        });
        // Claude Code keeps each plugin's hooks apart: two plugins that
        // register the same command text (`${CLAUDE_PLUGIN_ROOT}/x.sh`)
        // run two scripts, each with its own root.
        let identity = match &self.cx.plugin {
            Some((root, _)) => format!("{identity} (plugin {})", root.display()),
            None => identity,
        };
        // Claude Code enforces no timeout on an async hook; the ceiling
        // still ends one a session forgot.
        let timeout = if options.background == Background::Async {
            BACKGROUND_CEILING
        } else {
            timeout
        };
        Some(HookDef {
            identity,
            name,
            event,
            dialect,
            matcher,
            model_prefix: None,
            action,
            timeout,
            sequential,
            fail,
            retry,
            source: self.source,
            provenance: self.at(ptr, false),
            options,
        })
    }

    /// A command handler: shell form (`command`), or Claude's exec form
    /// (`command` plus `args`, no shell), or a shell hookshot cannot start.
    fn command_action(&mut self, h: &Map<String, Value>, ptr: &str, claude: bool) -> Option<HookAction> {
        let command = self.required_string(h, ptr, "command", "a command hook needs the command line to run")?;
        if claude && let Some(args) = h.get("args") {
            return match args.as_array() {
                Some(items) if items.iter().all(Value::is_string) => Some(HookAction::Exec {
                    program: command,
                    args: items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
                }),
                _ => {
                    self.error(
                        &format!("{ptr}/args"),
                        format!("expected a list of argument strings, found {}", describe(args)),
                    );
                    None
                }
            };
        }
        if claude && let Some(shell) = h.get("shell") {
            match shell.as_str() {
                Some("bash") => {}
                // Claude Code's path placeholders become PowerShell's
                // `${env:NAME}`, read from the exported variables after
                // parsing, so a path with spaces or quotes stays one value.
                Some("powershell") => {
                    let mut line = command;
                    for name in ["CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA"] {
                        line = line.replace(&format!("${{{name}}}"), &format!("${{env:{name}}}"));
                    }
                    // PowerShell 7 (`pwsh`), else Windows PowerShell
                    // (`powershell`), as Claude Code picks; with neither
                    // the hook cannot start and says `pwsh` is missing.
                    let on_path = |name: &str| {
                        std::env::var_os("PATH")
                            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
                    };
                    let program = if !on_path("pwsh") && on_path("powershell") {
                        "powershell"
                    } else {
                        "pwsh"
                    };
                    return Some(HookAction::Exec {
                        program: program.into(),
                        args: vec!["-NoProfile".into(), "-NonInteractive".into(), "-Command".into(), line],
                    });
                }
                _ => {
                    self.error(
                        &format!("{ptr}/shell"),
                        format!("expected \"bash\" or \"powershell\", found {}", describe(shell)),
                    );
                    return None;
                }
            }
        }
        Some(HookAction::Command { command })
    }

    /// A Claude Code http hook: `url` (http or https), `headers` (strings),
    /// `allowedEnvVars` (names).
    fn http_action(&mut self, h: &Map<String, Value>, ptr: &str) -> Option<HookAction> {
        let url = self.required_string(h, ptr, "url", "an http hook needs the URL to POST the event to")?;
        let scheme_ok = url.starts_with("http://") || url.starts_with("https://");
        if !scheme_ok {
            self.error(
                &format!("{ptr}/url"),
                format!("expected an http:// or https:// URL, found \"{url}\""),
            );
            return None;
        }
        let headers = match h.get("headers") {
            None => Vec::new(),
            Some(Value::Object(m)) => {
                let mut out = Vec::new();
                for (k, v) in m {
                    match v.as_str() {
                        Some(v) => out.push((k.clone(), v.to_string())),
                        None => self.error(
                            &format!("{ptr}/headers/{}", escape_token(k)),
                            format!("expected a header value string, found {}", kind_of(v)),
                        ),
                    }
                }
                out
            }
            Some(other) => {
                self.error(
                    &format!("{ptr}/headers"),
                    format!("expected an object of headers, found {}", kind_of(other)),
                );
                Vec::new()
            }
        };
        let allowed_env = match h.get("allowedEnvVars") {
            None => Vec::new(),
            Some(v) => self.strings(v, &format!("{ptr}/allowedEnvVars"), "variable names"),
        };
        Some(HookAction::Http {
            url,
            headers,
            allowed_env,
        })
    }

    fn mcp_tool_action(&mut self, h: &Map<String, Value>, ptr: &str) -> Option<HookAction> {
        let server = self.required_string(h, ptr, "server", "an mcp_tool hook needs the MCP server to call")?;
        let tool = self.required_string(h, ptr, "tool", "an mcp_tool hook needs the tool to call")?;
        let input = match h.get("input") {
            None => None,
            Some(v @ Value::Object(_)) => Some(v.to_string()),
            Some(other) => {
                self.error(
                    &format!("{ptr}/input"),
                    format!("expected an object of the tool's arguments, found {}", kind_of(other)),
                );
                return None;
            }
        };
        Some(HookAction::McpTool {
            server,
            spawn: None,
            tool,
            input,
        })
    }
}
