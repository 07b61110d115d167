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

mod builtins;
mod claude_state;
mod cline;
mod copilot;
mod cursor;
mod jcli;
mod json;
mod matcher;
mod mcp_servers;
mod picoclaw;

pub use builtins::{BUILTIN_OPTIONS, BUILTINS, BuiltinOption, Merge, OptionKind, builtin_option, builtin_options};
use claude_state::claude_state;
use json::{CLAUDE_ONLY_KEYS, detect_json_dialect};
pub use matcher::{RegexFlavour, compile_matcher, flavour_of, searched_matcher};
pub(crate) use picoclaw::PICOCLAW_PROCESS_KEYS;

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
    /// `security_scan`'s `rules_file`s as this load read them (parsed
    /// once, here; a changed file makes the setting differ, which starts
    /// the built-in again).
    pub rules: Vec<crate::gitleaks::RulesFile>,
    /// The options a later file set or made stricter after the one that
    /// turned it on, each with where (Figment's "which source set this
    /// value", for `doctor`).
    pub set_later: Vec<(String, Provenance)>,
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
    /// For a plugin: its options as its hooks' environment
    /// (`CLAUDE_PLUGIN_OPTION_<KEY>`), from the user's Claude Code settings.
    pub plugin_options: Vec<(String, String)>,
    /// The project the file is read for: `~/.claude.json` keeps each
    /// project's own MCP servers under `projects.<path>`.
    pub project: Option<std::path::PathBuf>,
}

/// [`parse`] with what the file's place says about it.
pub fn parse_with(path: &Path, text: &str, source: SourceKind, cx: &Context) -> Result<SettingsFile, Error> {
    let looks_yaml = matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"));
    if path.file_name().is_some_and(|n| n == ".claude.json") {
        return claude_state(path, text, source, cx);
    }
    // A hook file of Cline's is its hook, not settings.
    if let Some(name) = hookshot_core::agent::cline_hook_file(path) {
        return Ok(cline::hook_file(path, text, name, source));
    }
    let (value, positions) = front_end(path, text, cx)?;
    run_parser(path, &value, &positions, source, cx, looks_yaml)
}

/// The guards a file that does not load turns on, with the options that
/// could be read (a mode that could not, in its strictest): a typo in a
/// guard's settings must not switch the guard off. Audit logs and hooks
/// are not kept from such a file; the file is still reported broken.
pub fn salvage_guards(path: &Path, text: &str, source: SourceKind, cx: &Context) -> Vec<BuiltinSetting> {
    let Ok((value, positions)) = front_end(path, text, cx) else {
        return Vec::new();
    };
    let Some(builtins) = value.get("builtins").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut p = Parser {
        path,
        positions: &positions,
        source,
        cx,
        yaml: false,
        errors: Vec::new(),
        out: SettingsFile::default(),
    };
    p.builtins(builtins);
    p.out
        .builtins
        .into_iter()
        .filter(|b| b.on && b.name != "audit_log")
        .collect()
}

/// A settings text as a JSON value with its position index, by the file's
/// kind: YAML, TOML, or JSON (with gemini-cli's comments).
fn front_end(path: &Path, text: &str, cx: &Context) -> Result<(Value, Positions), Error> {
    let looks_yaml = matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"));
    let looks_toml = matches!(path.extension().and_then(|e| e.to_str()), Some("toml"));
    Ok(if looks_yaml {
        crate::yaml::parse(path, text)?
    } else if looks_toml {
        crate::toml::parse(path, text)?
    } else {
        // gemini-cli strips `//` and `/* */` comments before parsing its
        // settings; Claude Code and Codex do not. Blanked with spaces, so
        // every line and column stays where it was.
        let blanked = (cx.dialect != Some(Dialect::Claude))
            .then(|| blank_comments(text))
            .flatten();
        let text = blanked.as_deref().unwrap_or(text);
        let value: Value = serde_json::from_str(text).map_err(|e| {
            if cx.dialect == Some(Dialect::Claude) && blank_comments(text).is_some() {
                Error::syntax(
                    path,
                    e.line(),
                    e.column(),
                    "invalid JSON: comments are not allowed here (Claude Code and Codex read their settings as plain JSON; only gemini-cli's allow comments)".into(),
                )
            } else {
                invalid_json(path, &e)
            }
        })?;
        let positions = Positions::of_json(text);
        (value, positions)
    })
}

/// `text` with its `//` and `/* */` comments (outside strings) replaced by
/// spaces, newlines kept; `None` when it has none.
pub fn blank_comments(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let (mut i, mut in_str, mut changed) = (0, false, false);
    while i < b.len() {
        if in_str {
            match b[i] {
                b'\\' => i += 1,
                b'"' => in_str = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match (b[i], b.get(i + 1)) {
            (b'"', _) => in_str = true,
            (b'/', Some(b'/')) => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                changed = true;
                continue;
            }
            (b'/', Some(b'*')) => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                for c in &mut out[i..end] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
                i = end;
                changed = true;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    // Only ASCII bytes were replaced, and only outside strings: still UTF-8.
    changed.then(|| String::from_utf8(out).unwrap_or_default())
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
    p.duplicate_keys();
    if let Some((root, data)) = &cx.plugin {
        p.plugin_servers(root, data);
    }
    if p.errors.is_empty() {
        Ok(p.out)
    } else {
        Err(Error::Invalid(p.errors))
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

/// A hook of `agent`'s own file of a kind hookshot does not run: loaded
/// so that it fails each time it would run, never skipped unseen.
fn not_run_kind(agent: &str, kind: &str) -> HookAction {
    HookAction::Unsupported {
        kind: kind.to_string(),
        why: format!(
            "{agent}'s \"{kind}\" hooks are not run by hookshot; it fails each time it would run, so that a guard written so is never skipped unseen"
        ),
    }
}

/// The longest timeout a hook may have: one day. Longer ones are mistakes
/// (and `1e300` would overflow a `Duration`).
pub const MAX_TIMEOUT_SECS: u64 = 86_400;

/// `secs` seconds as a hook's timeout, never zero: a timeout too small for
/// a duration (1e-300 s; the settings fuzz found 8.8e-197) is the shortest
/// one, since a zero one would fail every run.
fn nonzero_secs(secs: f64) -> Duration {
    Duration::from_secs_f64(secs).max(Duration::from_millis(1))
}

impl Parser<'_> {
    /// A key written twice keeps only its last value, so a hook or a guard
    /// written under the first is silently gone. In hookshot's own files
    /// that is an error naming both places; in an agent's file a warning,
    /// since the agent itself keeps the last one.
    fn duplicate_keys(&mut self) {
        let own = self
            .path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == ".hookshot" || d == "hookshot");
        for d in self.positions.duplicates() {
            let diagnostic = Diagnostic {
                at: Provenance {
                    file: Some(self.path.to_path_buf()),
                    line: d.again.0,
                    column: d.again.1,
                    ..Provenance::default()
                },
                message: format!(
                    "the key {:?} is written twice in one object (first at line {}, column {}); only this one is kept, and what the first held is dropped",
                    d.key, d.first.0, d.first.1
                ),
            };
            if own {
                self.errors.push(diagnostic);
            } else {
                self.out.warnings.push(diagnostic);
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
        // Codex's `[mcp_servers.NAME]` tables (config.toml): the servers
        // its mcp_tool hooks call. Only the TOML front end passes them on.
        if let Some(servers) = top.get(crate::toml::CODEX_SERVERS) {
            self.mcp_servers(self.path, self.positions, servers, "/mcp_servers", String::new(), &[]);
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
                let flat = match hint {
                    Some(Dialect::Cursor) => Some(json::FlatFile::Cursor),
                    None => json::agents_own_flat_file(top, hooks),
                    _ => None,
                };
                match flat {
                    Some(json::FlatFile::Either(ptr, why)) => {
                        self.error(&ptr, why);
                        return;
                    }
                    Some(json::FlatFile::Cursor) => {
                        self.out.dialect = Some(Dialect::Cursor);
                        self.json_config(top, &Map::new(), Dialect::Cursor);
                        return self.cursor_hooks(top, hooks);
                    }
                    Some(json::FlatFile::Copilot) => {}
                    None if hint == Some(Dialect::Copilot) => {}
                    None => return self.json_file(top, hooks, hint),
                }
                self.out.dialect = Some(Dialect::Copilot);
                self.json_config(top, &Map::new(), Dialect::Copilot);
                self.copilot_hooks(hooks);
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

    /// A file of gemini-cli's or Claude Code's matcher groups, in `hint`'s
    /// dialect or the one its content says.
    fn json_file(&mut self, top: &Map<String, Value>, hooks: &Map<String, Value>, hint: Option<Dialect>) {
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

    /// A timeout of `secs` seconds the agents take as written (`as_written`:
    /// the number and its unit): the hook runs, at most for hookshot's own
    /// ceiling, which validate says at `ptr` (a published Claude hook
    /// writes 120000, meant as milliseconds), and never for nothing.
    /// The hooks of a list at `ptr` (an agent's own flat entries), each
    /// with its pointer; what is not a list, or an entry that is not an
    /// object (`a_hook`: how a hook is written, for the message), is an
    /// error with its place.
    fn hook_list<'v>(&mut self, ptr: &str, list: &'v Value, a_hook: &str) -> Vec<(String, &'v Map<String, Value>)> {
        let Some(list) = list.as_array() else {
            self.error(ptr, format!("expected a list of hooks, found {}", kind_of(list)));
            return Vec::new();
        };
        let mut out = Vec::with_capacity(list.len());
        for (i, entry) in list.iter().enumerate() {
            let p = format!("{ptr}/{i}");
            match entry.as_object() {
                Some(h) => out.push((p, h)),
                None => self.error(&p, format!("expected a hook {a_hook}, found {}", kind_of(entry))),
            }
        }
        out
    }

    /// An agent's own hook's `type` (`command` when left out); `None`
    /// after an error when it is not text (`expected`: the kinds it has).
    fn own_hook_kind<'h>(&mut self, h: &'h Map<String, Value>, ptr: &str, expected: &str) -> Option<&'h str> {
        match h.get("type") {
            None => Some("command"),
            Some(Value::String(t)) => Some(t.as_str()),
            Some(other) => {
                self.error(
                    &format!("{ptr}/type"),
                    format!("expected {expected}, found {}", kind_of(other)),
                );
                None
            }
        }
    }

    /// An agent's own hook's timeout in seconds at `ptr`, any positive
    /// number ([`Parser::agent_timeout`]); anything else is warned of and
    /// the hook still runs (and guards) for `default` (`whose`: "Copilot
    /// CLI's default").
    fn agent_seconds(&mut self, ptr: &str, v: &Value, default: Duration, whose: &str) -> Duration {
        match v.as_f64().filter(|t| *t > 0.0 && t.is_finite()) {
            Some(t) => self.agent_timeout(ptr, &format!("{t} seconds"), t),
            None => {
                self.warn(
                    ptr,
                    format!(
                        "expected a positive number of seconds, found {}; the hook gets {whose} of {} s",
                        describe(v),
                        default.as_secs()
                    ),
                );
                default
            }
        }
    }

    /// Adds one hook of an agent's own file (Copilot CLI's, Cursor's),
    /// written at `ptr`: a command is known by its command line, another
    /// kind by its whole entry `h`.
    #[expect(
        clippy::too_many_arguments,
        reason = "each is one field of the hook, named where it is made"
    )]
    fn push_own_hook(
        &mut self,
        ptr: &str,
        h: &Map<String, Value>,
        (event, dialect): (EventKind, Dialect),
        matcher: MatcherSpec,
        action: HookAction,
        timeout: Duration,
        fail: FailPolicy,
        options: hookshot_core::HookOptions,
    ) {
        let identity = match &action {
            HookAction::Command { command } => command.clone(),
            HookAction::Unsupported { kind, .. } => format!("{kind}:{}", Value::Object(h.clone())),
            _ => Value::Object(h.clone()).to_string(),
        };
        self.out.hooks.push(HookDef {
            identity,
            name: None,
            event,
            dialect,
            matcher,
            model_prefix: None,
            action,
            timeout,
            sequential: false,
            fail,
            retry: 0,
            source: self.source,
            provenance: self.at(ptr, false),
            options,
        });
    }

    fn agent_timeout(&mut self, ptr: &str, as_written: &str, secs: f64) -> Duration {
        if secs > MAX_TIMEOUT_SECS as f64 {
            self.warn(
                ptr,
                format!(
                    "timeout {as_written} is more than hookshot's limit of {MAX_TIMEOUT_SECS} s; the hook gets {MAX_TIMEOUT_SECS} s"
                ),
            );
            Duration::from_secs(MAX_TIMEOUT_SECS)
        } else {
            nonzero_secs(secs)
        }
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
