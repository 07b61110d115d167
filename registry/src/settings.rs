//! Reading one settings file in any dialect into hook definitions.
//!
//! The file is parsed to a JSON value with a position index first; the
//! dialect is then detected from its content and the value is walked once,
//! collecting every problem (not just the first) with its provenance.

use std::path::Path;
use std::time::Duration;

use hookshot_core::suggest::did_you_mean;
use hookshot_core::{
    BACKGROUND_CEILING, Background, Dialect, EventKind, FailPolicy, HookAction, HookDef, MatchTarget, MatcherSpec,
    Provenance, SourceKind,
};
use serde_json::{Map, Value};

use crate::error::{Diagnostic, Error};
use crate::mcp::McpServerDef;
use crate::position::{Positions, escape_token};

/// What one settings file contributes.
#[derive(Debug, Clone, Default)]
pub struct SettingsFile {
    /// The dialect detected from its content.
    pub dialect: Option<Dialect>,
    /// Hooks in file order.
    pub hooks: Vec<HookDef>,
    /// `hooksConfig.enabled` (gemini) or `!disableAllHooks` (Claude), if set.
    pub enabled: Option<bool>,
    /// Names or commands listed in `hooksConfig.disabled`.
    pub disabled: Vec<String>,
    /// `hooksConfig.onFailure`: what a hook or settings failure means.
    pub on_failure: Option<FailPolicy>,
    /// The top-level `builtins` entries, validated (interpreted by the
    /// facade).
    pub builtins: Vec<BuiltinSetting>,
    /// Claude Code's `allowedHttpHookUrls`: the URLs http hooks may POST
    /// to (`*` is a wildcard), if set.
    pub http_urls: Option<Vec<String>>,
    /// Claude Code's `httpHookAllowedEnvVars`: the variables any http hook
    /// may put in its headers, if set.
    pub http_env: Option<Vec<String>>,
    /// The MCP servers it defines (`mcpServers`; a plugin's own).
    pub mcp_servers: Vec<McpServerDef>,
    /// Likely mistakes that do not stop loading.
    pub warnings: Vec<Diagnostic>,
}

/// One entry of a file's `builtins` object.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltinSetting {
    /// `audit_log`, `dangerous_confirmation` or `security_scan`.
    pub name: String,
    /// On, unless `false` or `"enabled": false`.
    pub on: bool,
    /// Its options, validated (`enabled` taken out).
    pub options: Map<String, Value>,
    /// The kind of source that set it: a relative audit log path leads
    /// into the state directory from user and system files, into the
    /// project from the others.
    pub source: SourceKind,
    /// Where it was set.
    pub at: Provenance,
}

/// Audit log rotation size: from 4 KiB to 1 GiB.
pub const AUDIT_MAX_BYTES: std::ops::RangeInclusive<u64> = 4096..=(1 << 30);

/// Rotated audit logs kept: up to 100.
pub const AUDIT_KEEP: std::ops::RangeInclusive<u64> = 0..=100;

/// Parses a settings file's text. `path` names it in messages; `source` is
/// the kind of source it was found in. The dialect comes from the content.
pub fn parse(path: &Path, text: &str, source: SourceKind) -> Result<SettingsFile, Error> {
    parse_with(path, text, source, &Context::default())
}

/// What is known about a file before reading it: the dialect its place
/// implies (`.claude/` is Claude Code's, `.gemini/` gemini-cli's), and for
/// a Claude Code plugin its folders.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The dialect, when the file's place or the user says it.
    pub dialect: Option<Dialect>,
    /// For a Claude Code plugin's `hooks/hooks.json`: its root folder and
    /// its persistent data folder (`CLAUDE_PLUGIN_ROOT`, `CLAUDE_PLUGIN_DATA`).
    pub plugin: Option<(std::path::PathBuf, std::path::PathBuf)>,
    /// The project the file is read for: `~/.claude.json` keeps each
    /// project's own MCP servers under `projects.<path>`.
    pub project: Option<std::path::PathBuf>,
}

/// [`parse`] with what the file's place says about it.
pub fn parse_with(path: &Path, text: &str, source: SourceKind, cx: &Context) -> Result<SettingsFile, Error> {
    let looks_yaml = matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"));
    let looks_toml = matches!(path.extension().and_then(|e| e.to_str()), Some("toml"));
    if path.file_name().is_some_and(|n| n == ".claude.json") {
        return claude_state(path, text, source, cx);
    }
    let (value, positions) = if looks_yaml {
        crate::yaml::parse(path, text)?
    } else if looks_toml {
        crate::toml::parse(path, text)?
    } else {
        let value: Value = serde_json::from_str(text).map_err(|e| invalid_json(path, &e))?;
        let positions = Positions::of_json(text);
        (value, positions)
    };
    run_parser(path, &value, &positions, source, cx, looks_yaml)
}

fn invalid_json(path: &Path, e: &serde_json::Error) -> Error {
    Error::syntax(
        path,
        e.line(),
        e.column(),
        format!("invalid JSON: {}", strip_position(&e.to_string())),
    )
}

fn run_parser(
    path: &Path,
    value: &Value,
    positions: &Positions,
    source: SourceKind,
    cx: &Context,
    yaml: bool,
) -> Result<SettingsFile, Error> {
    let mut p = Parser {
        path,
        positions,
        source,
        cx,
        yaml: yaml || cx.dialect == Some(Dialect::Jcli),
        errors: Vec::new(),
        out: SettingsFile::default(),
    };
    p.file(value);
    if let Some((root, data)) = &cx.plugin {
        p.plugin_servers(root, data);
    }
    if p.errors.is_empty() {
        Ok(p.out)
    } else {
        Err(Error::Invalid(p.errors))
    }
}

/// What hookshot reads of Claude Code's `~/.claude.json`: the user's MCP
/// servers and each project's. The file is mostly Claude Code's own state
/// and often megabytes; the rest of it is skipped without being built.
#[derive(serde::Deserialize)]
struct ClaudeState {
    #[serde(rename = "mcpServers")]
    mcp_servers: Option<Value>,
    #[serde(default)]
    projects: std::collections::HashMap<String, ClaudeProject>,
}

#[derive(serde::Deserialize)]
struct ClaudeProject {
    #[serde(rename = "mcpServers")]
    mcp_servers: Option<Value>,
}

/// `~/.claude.json` read for its MCP servers only. Line and column are
/// looked up (a scan of the whole file) only when there is something to
/// report.
fn claude_state(path: &Path, text: &str, source: SourceKind, cx: &Context) -> Result<SettingsFile, Error> {
    let mut state: ClaudeState = serde_json::from_str(text).map_err(|e| invalid_json(path, &e))?;
    let mut kept = Map::new();
    if let Some(servers) = state.mcp_servers {
        kept.insert("mcpServers".into(), servers);
    }
    if let Some(project) = &cx.project {
        let key = project.display().to_string();
        if let Some(servers) = state.projects.remove(&key).and_then(|p| p.mcp_servers) {
            let mut entry = Map::new();
            entry.insert("mcpServers".into(), servers);
            let mut projects = Map::new();
            projects.insert(key, Value::Object(entry));
            kept.insert("projects".into(), Value::Object(projects));
        }
    }
    let kept = Value::Object(kept);
    match run_parser(path, &kept, &Positions::default(), source, cx, false) {
        Ok(file) if file.warnings.is_empty() => Ok(file),
        _ => run_parser(path, &kept, &Positions::of_json(text), source, cx, false),
    }
}

/// serde_json appends " at line L column C"; the provenance says that already.
fn strip_position(msg: &str) -> &str {
    msg.find(" at line ").map_or(msg, |i| &msg[..i])
}

struct Parser<'a> {
    path: &'a Path,
    positions: &'a Positions,
    source: SourceKind,
    cx: &'a Context,
    /// A YAML file is jcli's `hooks.yaml`, whatever its keys.
    yaml: bool,
    errors: Vec<Diagnostic>,
    out: SettingsFile,
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

const GEMINI_ONLY_KEYS: &[&str] = &["hooksConfig"];
/// The keys of a picoclaw process hook (the schema lists the same).
pub(crate) const PICOCLAW_PROCESS_KEYS: &[&str] = &[
    "enabled",
    "priority",
    "transport",
    "command",
    "dir",
    "env",
    "observe",
    "intercept",
];
const CLAUDE_ONLY_KEYS: &[&str] = &[
    "disableAllHooks",
    "permissions",
    "enabledPlugins",
    "statusLine",
    "apiKeyHelper",
];

/// The longest timeout a hook may have: one day. Longer ones are mistakes
/// (and `1e300` would overflow a `Duration`).
pub const MAX_TIMEOUT_SECS: u64 = 86_400;

/// The built-in hooks a settings file may enable.
pub const BUILTINS: &[&str] = &["audit_log", "dangerous_confirmation", "security_scan"];

/// The options each built-in accepts.
pub const BUILTIN_OPTIONS: &[(&str, &[&str])] = &[
    ("audit_log", &["path", "max_bytes", "keep", "enabled"]),
    ("dangerous_confirmation", &["mode", "patterns", "enabled"]),
    ("security_scan", &["mode", "enabled"]),
];

impl Parser<'_> {
    /// The `builtins` key: known names, the options each accepts, and
    /// their values, each checked with its place in the file.
    fn builtins(&mut self, m: &Map<String, Value>) {
        for (name, cfg) in m {
            let ptr = format!("/builtins/{}", escape_token(name));
            let modes: &[&str] = match name.as_str() {
                "dangerous_confirmation" => &["ask", "deny"],
                "security_scan" => &["redact", "block"],
                _ => &[],
            };
            let keys = match BUILTIN_OPTIONS.iter().find(|(n, _)| n == name) {
                Some((_, keys)) => *keys,
                None => {
                    let hint = did_you_mean(name, BUILTINS.iter().copied())
                        .map(|s| format!("did you mean \"{s}\"?"))
                        .unwrap_or_else(|| format!("known: {}", BUILTINS.join(", ")));
                    self.key_error(&ptr, format!("unknown built-in hook \"{name}\"; {hint}"));
                    continue;
                }
            };
            let mut setting = BuiltinSetting {
                name: name.clone(),
                on: true,
                options: Map::new(),
                source: self.source,
                at: self.at(&ptr, true),
            };
            let cfg = match cfg {
                Value::Bool(on) => {
                    setting.on = *on;
                    self.out.builtins.push(setting);
                    continue;
                }
                Value::Object(o) => o,
                other => {
                    self.error(
                        &ptr,
                        format!("expected an options object (or true/false), found {}", kind_of(other)),
                    );
                    continue;
                }
            };
            let before = self.errors.len();
            for (key, value) in cfg {
                let kp = format!("{ptr}/{}", escape_token(key));
                match key.as_str() {
                    k if !keys.contains(&k) => {
                        let hint = did_you_mean(k, keys.iter().copied())
                            .map(|s| format!("did you mean \"{s}\"?"))
                            .unwrap_or_else(|| format!("{name} accepts {}", keys.join(", ")));
                        self.key_error(&kp, format!("unknown option \"{k}\" of {name}; {hint}"));
                    }
                    "enabled" => match value.as_bool() {
                        Some(on) => setting.on = on,
                        None => self.error(&kp, format!("expected true or false, found {}", describe(value))),
                    },
                    "mode" => match value.as_str() {
                        Some(m) if modes.contains(&m) => {}
                        _ => self.error(
                            &kp,
                            format!(
                                "{name} mode must be one of {}, found {}",
                                modes.join(", "),
                                describe(value)
                            ),
                        ),
                    },
                    "path" => self.audit_path(&kp, value),
                    "max_bytes" => self.bounded(&kp, value, AUDIT_MAX_BYTES, "bytes"),
                    "keep" => self.bounded(&kp, value, AUDIT_KEEP, "rotated files"),
                    "patterns" => self.patterns(&kp, value),
                    _ => {}
                }
                if key != "enabled" {
                    setting.options.insert(key.clone(), value.clone());
                }
            }
            if name == "audit_log" && !cfg.contains_key("path") && setting.on {
                self.error(&ptr, "missing \"path\": where to write the audit log");
            }
            if self.errors.len() == before {
                self.out.builtins.push(setting);
            }
        }
    }

    /// An audit log path: a string; from a project or an extension, one
    /// that stays inside the project (relative, no `..`), since such files
    /// are written by others than the user.
    fn audit_path(&mut self, ptr: &str, value: &Value) {
        let Some(path) = value.as_str() else {
            self.error(ptr, format!("expected a file path, found {}", describe(value)));
            return;
        };
        let p = Path::new(path);
        if path.is_empty() || p.file_name().is_none() {
            self.error(ptr, format!("expected a file path, found \"{path}\""));
        } else if matches!(self.source, SourceKind::Project | SourceKind::Extension)
            && (p.is_absolute() || p.components().any(|c| matches!(c, std::path::Component::ParentDir)))
        {
            self.error(
                ptr,
                format!(
                    "\"{path}\" leaves the project: an audit log named by {} settings must be a path inside the project",
                    self.source
                ),
            );
        }
    }

    /// A whole number within `range`.
    fn bounded(&mut self, ptr: &str, value: &Value, range: std::ops::RangeInclusive<u64>, what: &str) {
        match value.as_u64() {
            Some(n) if range.contains(&n) => {}
            _ => self.error(
                ptr,
                format!(
                    "expected a whole number of {what} from {} to {}, found {}",
                    range.start(),
                    range.end(),
                    describe(value)
                ),
            ),
        }
    }

    fn patterns(&mut self, pp: &str, p: &Value) {
        let Some(items) = p.as_array() else {
            self.error(pp, format!("expected a list of regexes, found {}", kind_of(p)));
            return;
        };
        for (i, item) in items.iter().enumerate() {
            match item.as_str().map(regex::Regex::new) {
                Some(Ok(_)) => {}
                Some(Err(e)) => self.error(
                    &format!("{pp}/{i}"),
                    format!("invalid regex: {}", e.to_string().lines().last().unwrap_or("").trim()),
                ),
                None => self.error(
                    &format!("{pp}/{i}"),
                    format!("expected a regex, found {}", kind_of(item)),
                ),
            }
        }
    }

    fn at(&self, pointer: &str, key: bool) -> Provenance {
        let (line, column) = if key {
            self.positions.key(pointer)
        } else {
            self.positions.value(pointer)
        };
        Provenance {
            file: Some(self.path.to_path_buf()),
            line,
            column,
            pointer: pointer.to_string(),
        }
    }

    fn error(&mut self, pointer: &str, message: impl Into<String>) {
        let at = self.at(pointer, false);
        self.errors.push(Diagnostic {
            at,
            message: message.into(),
        });
    }

    fn key_error(&mut self, pointer: &str, message: impl Into<String>) {
        let at = self.at(pointer, true);
        self.errors.push(Diagnostic {
            at,
            message: message.into(),
        });
    }

    /// A warning about a key itself (placed at the key, not its value).
    fn key_warn(&mut self, pointer: &str, message: impl Into<String>) {
        let at = self.at(pointer, true);
        self.out.warnings.push(Diagnostic {
            at,
            message: message.into(),
        });
    }

    fn warn(&mut self, pointer: &str, message: impl Into<String>) {
        let at = self.at(pointer, false);
        self.out.warnings.push(Diagnostic {
            at,
            message: message.into(),
        });
    }

    fn file(&mut self, v: &Value) {
        let Some(top) = v.as_object() else {
            self.error("", format!("expected a settings object, found {}", kind_of(v)));
            return;
        };
        if let Some(servers) = top.get("mcpServers") {
            self.mcp_servers(self.path, self.positions, servers, "/mcpServers", String::new(), &[]);
        }
        // Claude Code's own MCP files hold servers and nothing hookshot
        // reads besides: `~/.claude.json` is mostly Claude Code's state.
        match self.path.file_name().and_then(|n| n.to_str()) {
            Some(".claude.json") => {
                if let Some(project) = &self.cx.project {
                    let key = project.display().to_string();
                    if let Some(servers) = top
                        .get("projects")
                        .and_then(|p| p.get(&key))
                        .and_then(|p| p.get("mcpServers"))
                    {
                        let base = format!("/projects/{}/mcpServers", escape_token(&key));
                        self.mcp_servers(self.path, self.positions, servers, &base, String::new(), &[]);
                    }
                }
                return;
            }
            Some(".mcp.json") => return,
            _ => {}
        }
        if let Some(b) = top.get("builtins") {
            match b.as_object() {
                Some(m) => self.builtins(m),
                None => self.error(
                    "/builtins",
                    format!("expected an object of built-in hooks, found {}", kind_of(b)),
                ),
            }
        }
        self.out.http_urls = self.string_list(top, "allowedHttpHookUrls");
        self.out.http_env = self.string_list(top, "httpHookAllowedEnvVars");
        let hint = self.cx.dialect;
        match top.get("hooks") {
            Some(Value::Object(hooks))
                if hint == Some(Dialect::Picoclaw)
                    || hint.is_none()
                        && (hooks.contains_key("processes")
                            || hooks.contains_key("defaults") && !top.contains_key("hooksConfig")) =>
            {
                self.out.dialect = Some(Dialect::Picoclaw);
                self.picoclaw(hooks);
            }
            Some(Value::Object(hooks)) => {
                let dialect = match hint {
                    Some(d) => d,
                    None => {
                        let (d, doubt) = detect_json_dialect(top, hooks);
                        if let Some(doubt) = doubt {
                            self.warn("/hooks", doubt);
                        }
                        d
                    }
                };
                self.out.dialect = Some(dialect);
                self.json_config(top, hooks, dialect);
                self.json_hooks(hooks, dialect);
            }
            Some(other) => self.error(
                "/hooks",
                format!(
                    "expected an object mapping event names to hook lists, found {}",
                    kind_of(other)
                ),
            ),
            None if self.yaml
                || top
                    .keys()
                    .any(|k| EventKind::parse(k).is_some_and(|(_, d)| d == Dialect::Jcli)) =>
            {
                self.out.dialect = Some(Dialect::Jcli);
                self.jcli(top);
            }
            None => {
                if top.contains_key("hooksConfig") || CLAUDE_ONLY_KEYS.iter().any(|k| top.contains_key(*k)) {
                    let dialect = hint.unwrap_or_else(|| detect_json_dialect(top, &Map::new()).0);
                    self.out.dialect = Some(dialect);
                    self.json_config(top, &Map::new(), dialect);
                }
                // Agent settings files hold much more than hooks; only keys
                // that look like a misspelt hooks key, or events written at
                // the top level, are worth a word.
                for k in top.keys() {
                    let ptr = format!("/{}", escape_token(k));
                    if EventKind::parse(k).is_some() {
                        self.key_error(
                            &ptr,
                            format!("event \"{k}\" must be inside \"hooks\": {{\"hooks\": {{\"{k}\": [...]}}}}"),
                        );
                    } else if !matches!(k.as_str(), "hooks" | "hooksConfig" | "builtins")
                        && let Some(s) = did_you_mean(k, ["hooks", "hooksConfig", "builtins"])
                    {
                        self.key_error(&ptr, format!("unknown key \"{k}\"; did you mean \"{s}\"?"));
                    } else if let Some(s) = did_you_mean(k, EventKind::all_names()) {
                        let msg = format!("unknown key \"{k}\"; did you mean the event \"{s}\" (inside \"hooks\")?");
                        self.key_error(&ptr, msg);
                    }
                }
            }
        }
    }

    fn json_config(&mut self, top: &Map<String, Value>, hooks: &Map<String, Value>, dialect: Dialect) {
        // gemini keeps enabled/disabled under hooksConfig; older versions put
        // them inside hooks itself.
        for (base, cfg) in [
            ("/hooksConfig", top.get("hooksConfig")),
            ("/hooks", Some(&Value::Object(hooks.clone()))),
        ] {
            let Some(cfg) = cfg else { continue };
            let Some(cfg) = cfg.as_object() else {
                self.error(base, format!("expected an object, found {}", kind_of(cfg)));
                continue;
            };
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

    fn json_hooks(&mut self, hooks: &Map<String, Value>, dialect: Dialect) {
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

    fn definition(&mut self, ptr: &str, def: &Value, event: EventKind, dialect: Dialect) {
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
                match compile_matcher(m, dialect, event) {
                    Ok(spec) => spec,
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

    fn hook(
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
            KEYS.to_vec()
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
        let (unit_ms, default) = match dialect {
            Dialect::Claude => (1000.0, claude_default_timeout(event, &kind)),
            _ => (1.0, Duration::from_secs(60)),
        };
        let timeout = match h.get("timeout") {
            None => default,
            Some(Value::Number(n))
                if n.as_f64()
                    .is_some_and(|t| t > 0.0 && t * unit_ms / 1000.0 <= MAX_TIMEOUT_SECS as f64) =>
            {
                let t = n.as_f64().unwrap_or(0.0);
                if dialect == Dialect::Gemini && t < 100.0 {
                    self.warn(
                        &format!("{ptr}/timeout"),
                        format!(
                            "timeout {t} is in milliseconds in gemini settings; did you mean {}?",
                            t * 1000.0
                        ),
                    );
                }
                Duration::from_secs_f64(t * unit_ms / 1000.0)
            }
            Some(other) => {
                let unit = if dialect == Dialect::Claude {
                    "seconds"
                } else {
                    "milliseconds"
                };
                let max = MAX_TIMEOUT_SECS as f64 * 1000.0 / unit_ms;
                self.error(
                    &format!("{ptr}/timeout"),
                    format!(
                        "expected a positive number of {unit} up to {max}, found {}",
                        describe(other)
                    ),
                );
                default
            }
        };
        let enabled = self.flag_or(h, ptr, "enabled", true);
        let fail = self.fail_policy(h, ptr);
        let retry = self.retry(h, ptr);
        let mut options = hookshot_core::HookOptions::default();
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
        let identity = name.clone().unwrap_or_else(|| match &action {
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
                    return Some(HookAction::Exec {
                        program: "pwsh".into(),
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

    /// An optional boolean field, false when absent.
    fn flag(&mut self, h: &Map<String, Value>, ptr: &str, key: &str) -> bool {
        self.flag_or(h, ptr, key, false)
    }

    /// An optional boolean field, `default` when absent (or wrong, which is
    /// reported).
    fn flag_or(&mut self, h: &Map<String, Value>, ptr: &str, key: &str, default: bool) -> bool {
        match h.get(key) {
            None => default,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                self.error(
                    &format!("{ptr}/{key}"),
                    format!("expected true or false, found {}", kind_of(other)),
                );
                default
            }
        }
    }

    /// Every key of `obj` not in `known` is an error, with a suggestion;
    /// when the agent `ignores` keys it does not know, a warning instead.
    fn unknown_keys(&mut self, obj: &Map<String, Value>, ptr: &str, known: &[&str], what: &str, ignores: bool) {
        for k in obj.keys() {
            if !known.contains(&k.as_str()) {
                let hint = did_you_mean(k, known.iter().copied())
                    .map(|s| format!("; did you mean \"{s}\"?"))
                    .unwrap_or_default();
                let at = format!("{ptr}/{}", escape_token(k));
                if ignores {
                    self.key_warn(&at, format!("unknown key \"{k}\" in {what} is ignored{hint}"));
                } else {
                    self.key_error(&at, format!("unknown key \"{k}\" in {what}{hint}"));
                }
            }
        }
    }

    /// A string field that must be there and not blank.
    fn required_string(&mut self, h: &Map<String, Value>, ptr: &str, key: &str, why: &str) -> Option<String> {
        match h.get(key) {
            Some(Value::String(c)) if !c.trim().is_empty() => Some(c.clone()),
            Some(Value::String(_)) => {
                self.error(&format!("{ptr}/{key}"), format!("the {key} is empty"));
                None
            }
            Some(other) => {
                self.error(
                    &format!("{ptr}/{key}"),
                    format!("expected a {key} string, found {}", kind_of(other)),
                );
                None
            }
            None => {
                self.error(ptr, format!("missing \"{key}\": {why}"));
                None
            }
        }
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

    /// Reads an `mcpServers` object (of this file or one beside it).
    fn mcp_servers(
        &mut self,
        path: &Path,
        positions: &Positions,
        servers: &Value,
        base: &str,
        prefix: String,
        vars: &[(String, String)],
    ) {
        crate::mcp::Reader {
            path,
            positions,
            source: self.source,
            prefix,
            vars,
            out: &mut self.out.mcp_servers,
            warnings: &mut self.out.warnings,
        }
        .servers(servers, base);
    }

    /// A Claude Code plugin's MCP servers, which its hooks call by the
    /// scoped name `plugin:<plugin>:<server>`: its `.mcp.json`, and the
    /// `mcpServers` of its manifest (inline, or the paths of more files).
    fn plugin_servers(&mut self, root: &Path, data: &Path) {
        let vars = [
            ("CLAUDE_PLUGIN_ROOT".to_string(), root.display().to_string()),
            ("CLAUDE_PLUGIN_DATA".to_string(), data.display().to_string()),
        ];
        let manifest_path = root.join(".claude-plugin").join("plugin.json");
        let manifest = self.side_file(&manifest_path);
        let name = manifest
            .as_ref()
            .and_then(|(v, _)| v.get("name").and_then(Value::as_str).map(str::to_string))
            .or_else(|| root.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        let prefix = format!("plugin:{name}:");
        let mut files = vec![root.join(".mcp.json")];
        if let Some((m, positions)) = &manifest {
            match m.get("mcpServers") {
                Some(Value::String(rel)) => files.push(root.join(rel)),
                Some(Value::Array(rels)) => files.extend(rels.iter().filter_map(Value::as_str).map(|r| root.join(r))),
                Some(inline @ Value::Object(_)) => {
                    self.mcp_servers(&manifest_path, positions, inline, "/mcpServers", prefix.clone(), &vars);
                }
                _ => {}
            }
        }
        files.dedup();
        for f in files {
            if let Some((v, positions)) = self.side_file(&f)
                && let Some(servers) = v.get("mcpServers")
            {
                self.mcp_servers(&f, &positions, servers, "/mcpServers", prefix.clone(), &vars);
            }
        }
    }

    /// A JSON file beside the one being read (a plugin's manifest or MCP
    /// file): absent is fine, unreadable or invalid is a warning there.
    fn side_file(&mut self, path: &Path) -> Option<(Value, Positions)> {
        let warn = |this: &mut Self, line, column, message: String| {
            this.out.warnings.push(Diagnostic::at_line(path, line, column, message));
        };
        let bytes = match crate::read::read_settings(path) {
            Ok(b) => b,
            Err(crate::read::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                warn(
                    self,
                    0,
                    0,
                    format!("cannot read it: {e}; its MCP servers are not loaded"),
                );
                return None;
            }
        };
        let text = String::from_utf8_lossy(&bytes);
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => Some((v, Positions::of_json(&text))),
            Err(e) => {
                let msg = format!(
                    "invalid JSON: {}; its MCP servers are not loaded",
                    strip_position(&e.to_string())
                );
                warn(self, e.line(), e.column(), msg);
                None
            }
        }
    }

    /// A top-level list of strings, if present.
    fn string_list(&mut self, top: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
        let v = top.get(key)?;
        Some(self.strings(v, &format!("/{key}"), "strings"))
    }

    /// A list of strings at `ptr`; anything else is an error (and no list).
    fn strings(&mut self, v: &Value, ptr: &str, what: &str) -> Vec<String> {
        match v {
            Value::Array(items) if items.iter().all(Value::is_string) => {
                items.iter().filter_map(Value::as_str).map(str::to_string).collect()
            }
            other => {
                self.error(ptr, format!("expected a list of {what}, found {}", kind_of(other)));
                Vec::new()
            }
        }
    }

    fn opt_string(&mut self, h: &Map<String, Value>, ptr: &str, key: &str) -> Option<String> {
        match h.get(key) {
            None => None,
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::String(_)) => None,
            Some(other) => {
                self.error(
                    &format!("{ptr}/{key}"),
                    format!("expected a string, found {}", kind_of(other)),
                );
                None
            }
        }
    }

    /// A hook's own failure policy: gemini/hookshot `fail`, jcli
    /// `on_error` (`skip`/`abort`), Claude Code `onFailure`
    /// (`continue`/`block`).
    fn fail_policy(&mut self, h: &Map<String, Value>, ptr: &str) -> FailPolicy {
        let Some((key, value)) = ["fail", "on_error", "onFailure"]
            .iter()
            .find_map(|k| h.get(*k).map(|v| (*k, v)))
        else {
            return FailPolicy::Open;
        };
        match value.as_str() {
            Some("open" | "skip" | "continue") => FailPolicy::Open,
            Some("closed" | "abort" | "block") => FailPolicy::Closed,
            _ => {
                self.error(
                    &format!("{ptr}/{key}"),
                    format!(
                        "expected a failure policy (\"open\"/\"skip\"/\"continue\" or \"closed\"/\"abort\"/\"block\"), found {}",
                        describe(value)
                    ),
                );
                FailPolicy::Open
            }
        }
    }

    fn retry(&mut self, h: &Map<String, Value>, ptr: &str) -> u32 {
        match h.get("retry") {
            None => 0,
            Some(Value::Number(n)) if n.as_u64().is_some_and(|r| r <= 10) => n.as_u64().unwrap_or(0) as u32,
            Some(other) => {
                self.error(
                    &format!("{ptr}/retry"),
                    format!("expected a whole number from 0 to 10, found {}", describe(other)),
                );
                0
            }
        }
    }

    /// picoclaw: `hooks.processes.<name>` are JSON-RPC processes; each
    /// `intercept` point becomes a hook, each `observe` kind a notification.
    /// Ordered by `priority` (lower first), then name, as picoclaw does.
    fn picoclaw(&mut self, hooks: &Map<String, Value>) {
        if let Some(Value::Bool(b)) = hooks.get("enabled") {
            self.out.enabled = Some(*b);
        }
        let mut timeouts = [
            ("observer_timeout_ms", 500u64),
            ("interceptor_timeout_ms", 5000),
            ("approval_timeout_ms", 60_000),
        ];
        if let Some(d) = hooks.get("defaults") {
            match d.as_object() {
                Some(d) => {
                    for (key, value) in timeouts.iter_mut() {
                        match d.get(*key) {
                            None => {}
                            Some(v) if v.as_u64().is_some_and(|n| n > 0 && n <= MAX_TIMEOUT_SECS * 1000) => {
                                *value = v.as_u64().unwrap_or(*value)
                            }
                            Some(v) => self.error(
                                &format!("/hooks/defaults/{key}"),
                                format!(
                                    "expected a positive number of milliseconds up to {}, found {}",
                                    MAX_TIMEOUT_SECS * 1000,
                                    describe(v)
                                ),
                            ),
                        }
                    }
                }
                None => self.error(
                    "/hooks/defaults",
                    format!("expected an object of timeouts, found {}", kind_of(d)),
                ),
            }
        }
        if hooks.contains_key("builtins") {
            self.warn("/hooks/builtins", "picoclaw built-in hooks are compiled into picoclaw; hookshot skips them (see hookshot's own \"builtins\")");
        }
        let Some(processes) = hooks.get("processes") else {
            return;
        };
        let Some(processes) = processes.as_object() else {
            self.error(
                "/hooks/processes",
                format!("expected an object of named processes, found {}", kind_of(processes)),
            );
            return;
        };
        let mut order: Vec<(i64, &String, &Value)> = processes
            .iter()
            .map(|(n, v)| (v.get("priority").and_then(Value::as_i64).unwrap_or(0), n, v))
            .collect();
        order.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        for (_, name, spec) in order {
            let ptr = format!("/hooks/processes/{}", escape_token(name));
            let Some(spec) = spec.as_object() else {
                self.error(
                    &ptr,
                    format!(
                        "expected a process {{\"command\": [...], \"intercept\": [...]}}, found {}",
                        kind_of(spec)
                    ),
                );
                continue;
            };
            self.unknown_keys(spec, &ptr, PICOCLAW_PROCESS_KEYS, "a process hook", false);
            if let Some(t) = spec.get("transport")
                && t.as_str() != Some("stdio")
            {
                self.error(
                    &format!("{ptr}/transport"),
                    format!("only \"stdio\" is supported, found {}", describe(t)),
                );
            }
            let argv: Vec<String> = match spec.get("command") {
                Some(Value::Array(items)) if !items.is_empty() && items.iter().all(Value::is_string) => {
                    items.iter().filter_map(Value::as_str).map(str::to_string).collect()
                }
                Some(Value::String(s)) if !s.trim().is_empty() => s.split_whitespace().map(str::to_string).collect(),
                Some(other) => {
                    self.error(
                        &format!("{ptr}/command"),
                        format!(
                            "expected the program and its arguments as a list of strings, found {}",
                            describe(other)
                        ),
                    );
                    continue;
                }
                None => {
                    self.error(
                        &ptr,
                        "missing \"command\": the program to start, e.g. [\"python3\", \"hook.py\"]",
                    );
                    continue;
                }
            };
            let env: Vec<(String, String)> = match spec.get("env") {
                None => Vec::new(),
                Some(Value::Object(m)) => m
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string)))
                    .collect(),
                Some(other) => {
                    self.error(
                        &format!("{ptr}/env"),
                        format!("expected an object of variables, found {}", kind_of(other)),
                    );
                    Vec::new()
                }
            };
            let dir = spec.get("dir").and_then(Value::as_str).map(std::path::PathBuf::from);
            let list = |me: &mut Self, key: &str| -> Vec<String> {
                match spec.get(key) {
                    None => Vec::new(),
                    Some(v) => me.strings(v, &format!("{ptr}/{key}"), "names"),
                }
            };
            let intercept = list(self, "intercept");
            let observe = list(self, "observe");
            let mut modes = Vec::new();
            if !observe.is_empty() {
                modes.push("observe".to_string());
            }
            if intercept.iter().any(|i| i != "approve_tool") {
                modes.push("tool".to_string());
            }
            if intercept.iter().any(|i| i == "approve_tool") {
                modes.push("approve".to_string());
            }
            let process = hookshot_core::ProcessSpec {
                name: name.clone(),
                argv,
                dir,
                env,
                modes,
            };
            let enabled = spec.get("enabled").and_then(Value::as_bool).unwrap_or(true);
            let add = |me: &mut Self,
                       event: EventKind,
                       observe: Option<&String>,
                       timeout_ms: u64,
                       fail: FailPolicy,
                       at: String| {
                if enabled {
                    me.out.hooks.push(HookDef {
                        identity: match observe {
                            Some(kind) => format!("process:{name}:{}:observe:{kind}", event.canonical_name()),
                            None => format!("process:{name}:{}:intercept", event.canonical_name()),
                        },
                        name: Some(name.clone()),
                        event,
                        dialect: Dialect::Picoclaw,
                        matcher: MatcherSpec::Any,
                        model_prefix: None,
                        action: HookAction::Persistent {
                            process: process.clone(),
                            observe: observe.cloned(),
                        },
                        timeout: Duration::from_millis(timeout_ms),
                        sequential: false,
                        fail,
                        retry: 0,
                        source: me.source,
                        provenance: me.at(&at, false),
                        options: Default::default(),
                    });
                }
            };
            for (i, point) in intercept.iter().enumerate() {
                let at = format!("{ptr}/intercept/{i}");
                match EventKind::parse(point) {
                    Some((event, _)) if event.name_in(Dialect::Picoclaw).is_some() => {
                        // Interceptors fail open, approvers closed (as picoclaw).
                        let approve = event == EventKind::PermissionRequest;
                        let (t, fail) = if approve {
                            (timeouts[2].1, FailPolicy::Closed)
                        } else {
                            (timeouts[1].1, FailPolicy::Open)
                        };
                        add(self, event, None, t, fail, at);
                    }
                    _ => {
                        let points = ["before_llm", "after_llm", "before_tool", "after_tool", "approve_tool"];
                        let hint = did_you_mean(point, points)
                            .map(|s| format!("did you mean \"{s}\"?"))
                            .unwrap_or_else(|| format!("known: {}", points.join(", ")));
                        self.error(&at, format!("unknown interception point \"{point}\"; {hint}"));
                    }
                }
            }
            for (i, kind) in observe.iter().enumerate() {
                let at = format!("{ptr}/observe/{i}");
                let short = kind.trim_start_matches("agent.").replace('.', "_");
                // A skipped tool is one a BeforeTool hook blocked: its
                // observers are told once the BeforeTool answer is known.
                let events: &[EventKind] = match short.as_str() {
                    "turn_start" => &[EventKind::BeforeAgent],
                    "turn_end" => &[EventKind::AfterAgent],
                    "llm_request" => &[EventKind::BeforeModel],
                    "llm_response" => &[EventKind::AfterModel],
                    "tool_exec_start" | "tool_exec_skipped" => &[EventKind::BeforeTool],
                    "tool_exec_end" => &[EventKind::AfterTool, EventKind::AfterToolFailure],
                    "session_start" => &[EventKind::SessionStart],
                    "session_end" => &[EventKind::SessionEnd],
                    _ => &[],
                };
                for e in events {
                    add(self, *e, Some(kind), timeouts[0].1, FailPolicy::Open, at.clone());
                }
                match events.first() {
                    Some(_) => {}
                    None => self.warn(
                        &at,
                        format!("hookshot has no event for \"{kind}\"; it will not be observed"),
                    ),
                }
            }
        }
    }

    /// jcli `hooks.yaml`: event -> list of hooks with `type`, `command`,
    /// `prompt`, `timeout` (seconds), `on_error`, `retry`, `filter`.
    fn jcli(&mut self, top: &Map<String, Value>) {
        for (name, list) in top {
            if name == "builtins" {
                continue;
            }
            let ptr = format!("/{}", escape_token(name));
            let Some((event, _)) = EventKind::parse(name) else {
                let hint = did_you_mean(name, EventKind::all_names())
                    .map(|s| format!("; did you mean \"{s}\"?"))
                    .unwrap_or_else(|| format!("; known events: {}", known_events(Dialect::Jcli)));
                self.key_error(&ptr, format!("unknown event \"{name}\"{hint}"));
                continue;
            };
            let Some(list) = list.as_array() else {
                self.error(&ptr, format!("expected a list of hooks, found {}", kind_of(list)));
                continue;
            };
            for (i, h) in list.iter().enumerate() {
                let hp = format!("{ptr}/{i}");
                if let Some(def) = self.jcli_hook(&hp, h, event) {
                    self.out.hooks.push(def);
                }
            }
        }
    }

    fn jcli_hook(&mut self, ptr: &str, h: &Value, event: EventKind) -> Option<HookDef> {
        let Some(h) = h.as_object() else {
            self.error(ptr, format!("expected a hook with a \"command\", found {}", kind_of(h)));
            return None;
        };
        const KEYS: &[&str] = &[
            "type", "command", "prompt", "model", "timeout", "on_error", "retry", "filter", "name", "enabled",
        ];
        self.unknown_keys(h, ptr, KEYS, "a jcli hook", false);
        let action = match h.get("type").and_then(Value::as_str).unwrap_or("bash") {
            "bash" => HookAction::Command {
                command: self.required_string(h, ptr, "command", "a bash hook needs the command line to run")?,
            },
            "llm" => HookAction::Llm {
                prompt: self.required_string(h, ptr, "prompt", "an llm hook needs the prompt to send")?,
                model: self.opt_string(h, ptr, "model"),
            },
            other => {
                self.error(
                    &format!("{ptr}/type"),
                    format!("unknown hook type \"{other}\"; use \"bash\" or \"llm\""),
                );
                return None;
            }
        };
        // jcli's defaults: bash 10 s and no retry, llm 30 s and one retry.
        let (default_secs, default_retry) = match action {
            HookAction::Llm { .. } => (30.0, 1),
            _ => (10.0, 0),
        };
        let timeout = match h.get("timeout") {
            None => Duration::from_secs_f64(default_secs),
            Some(Value::Number(n)) if n.as_f64().is_some_and(|t| t > 0.0 && t <= MAX_TIMEOUT_SECS as f64) => {
                Duration::from_secs_f64(n.as_f64().unwrap_or(default_secs))
            }
            Some(other) => {
                self.error(
                    &format!("{ptr}/timeout"),
                    format!(
                        "expected a positive number of seconds up to {MAX_TIMEOUT_SECS}, found {}",
                        describe(other)
                    ),
                );
                Duration::from_secs(10)
            }
        };
        let fail = self.fail_policy(h, ptr);
        let retry = if h.contains_key("retry") {
            self.retry(h, ptr)
        } else {
            default_retry
        };
        let name = self.opt_string(h, ptr, "name");
        let mut matcher = MatcherSpec::Any;
        let mut model_prefix = None;
        if let Some(f) = h.get("filter") {
            let fp = format!("{ptr}/filter");
            match f.as_object() {
                Some(f) => {
                    for k in f.keys() {
                        if !matches!(k.as_str(), "tool_name" | "tool_matcher" | "model_prefix") {
                            self.key_error(
                                &format!("{fp}/{}", escape_token(k)),
                                format!("unknown filter \"{k}\"; filters are tool_name, tool_matcher and model_prefix"),
                            );
                        }
                    }
                    // tool_name takes precedence over tool_matcher, as in jcli.
                    if let Some(n) = f.get("tool_name") {
                        match n.as_str() {
                            Some(n) => matcher = MatcherSpec::Exact(vec![n.to_string()]),
                            None => self.error(
                                &format!("{fp}/tool_name"),
                                format!("expected a tool name, found {}", kind_of(n)),
                            ),
                        }
                    } else if let Some(m) = f.get("tool_matcher") {
                        match m.as_str() {
                            Some(m) => match compile_matcher(m, Dialect::Jcli, event) {
                                Ok(spec) => matcher = spec,
                                Err(e) => self.error(&format!("{fp}/tool_matcher"), e),
                            },
                            None => self.error(
                                &format!("{fp}/tool_matcher"),
                                format!("expected a pattern string, found {}", kind_of(m)),
                            ),
                        }
                    }
                    if let Some(p) = f.get("model_prefix") {
                        match p.as_str() {
                            Some(p) => model_prefix = Some(p.to_string()),
                            None => self.error(
                                &format!("{fp}/model_prefix"),
                                format!("expected a string, found {}", kind_of(p)),
                            ),
                        }
                    }
                }
                None => self.error(
                    &fp,
                    format!(
                        "expected an object with tool_name, tool_matcher or model_prefix, found {}",
                        kind_of(f)
                    ),
                ),
            }
        }
        if h.get("enabled") == Some(&Value::Bool(false)) {
            return None;
        }
        Some(HookDef {
            identity: name.clone().unwrap_or_else(|| match &action {
                HookAction::Command { command } => command.clone(),
                HookAction::Llm { prompt, .. } => prompt.clone(),
                _ => String::new(),
            }),
            name,
            event,
            dialect: Dialect::Jcli,
            matcher,
            model_prefix,
            action,
            timeout,
            // jcli chains are ordered: each hook sees the previous one's output.
            sequential: true,
            fail,
            retry,
            source: self.source,
            provenance: self.at(ptr, false),
            options: Default::default(),
        })
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string \"{s}\""),
        Value::Number(n) => format!("{n}"),
        other => kind_of(other).to_string(),
    }
}

fn known_events(dialect: Dialect) -> String {
    EventKind::ALL
        .iter()
        .filter_map(|e| e.name_in(dialect))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Keys only a Claude Code handler has, and handler types only it runs.
const CLAUDE_HANDLER_KEYS: &[&str] = &[
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
];

/// The dialect of a JSON settings file whose place does not say it, and,
/// when the content does not say it either, a note that it was assumed.
fn detect_json_dialect(top: &Map<String, Value>, hooks: &Map<String, Value>) -> (Dialect, Option<String>) {
    if GEMINI_ONLY_KEYS.iter().any(|k| top.contains_key(*k)) {
        return (Dialect::Gemini, None);
    }
    if CLAUDE_ONLY_KEYS.iter().any(|k| top.contains_key(*k)) {
        return (Dialect::Claude, None);
    }
    for name in hooks.keys() {
        let gemini = EventKind::ALL
            .iter()
            .any(|e| e.name_in(Dialect::Gemini) == Some(name.as_str()));
        let claude = EventKind::ALL
            .iter()
            .any(|e| e.name_in(Dialect::Claude) == Some(name.as_str()));
        match (gemini, claude) {
            (true, false) => return (Dialect::Gemini, None),
            (false, true) => return (Dialect::Claude, None),
            _ => {}
        }
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

/// A matcher string as `dialect` defines it. gemini: tool events match by
/// unanchored regex, trigger events exactly. Claude (and jcli): `*` or empty
/// for all, plain names and `A|B` lists exactly, `Tool(glob)` filters on the
/// tool's main argument (`Bash(git push*)`, `Write(src/**)`), anything else
/// a full regex.
pub fn compile_matcher(m: &str, dialect: Dialect, event: EventKind) -> Result<MatcherSpec, String> {
    let m = m.trim();
    if m.is_empty() || m == "*" {
        return Ok(MatcherSpec::Any);
    }
    if matches!(dialect, Dialect::Claude | Dialect::Jcli)
        && let Some(filters) = tool_arg_filters(m)?
    {
        return Ok(MatcherSpec::ToolArgs(filters));
    }
    let trigger = matches!(event.match_target(), MatchTarget::Trigger(_));
    match dialect {
        Dialect::Gemini | Dialect::Picoclaw if !trigger => {
            regex_check(m)?;
            Ok(MatcherSpec::Regex(m.to_string()))
        }
        Dialect::Gemini | Dialect::Picoclaw => Ok(MatcherSpec::Exact(vec![m.to_string()])),
        // Claude Code: letters, digits, `_`, `-`, spaces, `,` and `|` only
        // make a list of exact names (split on `|` or `,`); FileChanged and
        // StopFailure allow letters, digits, `_` and `|` only. Anything
        // else is a JavaScript regex tested anywhere in the value.
        Dialect::Claude => {
            let narrow = matches!(event, EventKind::FileChanged | EventKind::StopFailure);
            let exact = m
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|' || !narrow && matches!(c, '-' | ' ' | ','));
            if exact {
                let names: Vec<String> = m
                    .split(if narrow { &['|'][..] } else { &['|', ','][..] })
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(str::to_string)
                    .collect();
                return Ok(MatcherSpec::Exact(names));
            }
            regex_check(m)?;
            Ok(MatcherSpec::Regex(m.to_string()))
        }
        Dialect::Jcli => {
            let is_names = m.split('|').all(|n| {
                !n.is_empty()
                    && n.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.'))
            });
            if is_names && !m.contains('.') {
                return Ok(MatcherSpec::Exact(m.split('|').map(str::to_string).collect()));
            }
            regex_check(m)?;
            Ok(MatcherSpec::FullRegex(m.to_string()))
        }
    }
}

/// `Bash(git push*)|Write(src/**)`: each alternative a tool name and a glob
/// over its main argument (Claude's permission-rule syntax; `:*` is `*`).
/// `None` when the matcher is not of that form.
fn tool_arg_filters(m: &str) -> Result<Option<Vec<(String, String)>>, String> {
    if !m.ends_with(')') || !m.contains('(') {
        return Ok(None);
    }
    let mut out = Vec::new();
    let mut rest = m;
    while !rest.is_empty() {
        let Some(open) = rest.find('(') else { return Ok(None) };
        let tool = &rest[..open];
        if tool.is_empty() || !tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Ok(None);
        }
        let Some(close) = rest[open..].find(')').map(|i| open + i) else {
            return Ok(None);
        };
        let inner = &rest[open + 1..close];
        // `Notebook(Edit|Read)` is a regex group: globs never use `|`.
        if inner.contains('|') {
            return Ok(None);
        }
        let glob = inner.replace(":*", "*");
        globset::Glob::new(&glob).map_err(|e| format!("invalid argument glob \"{glob}\" in \"{m}\": {}", e.kind()))?;
        out.push((tool.to_string(), glob));
        rest = &rest[close + 1..];
        match rest.strip_prefix('|') {
            Some(r) => rest = r,
            None if rest.is_empty() => {}
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

fn regex_check(m: &str) -> Result<(), String> {
    regex::Regex::new(m).map(|_| ()).map_err(|e| {
        format!(
            "invalid matcher regex \"{m}\": {}",
            e.to_string().lines().last().unwrap_or("").trim()
        )
    })
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
    })
}
