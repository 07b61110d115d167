//! What every command that loads hooks shares: the source flags, the trust
//! store, building the [`HookSystem`], reading an event's input.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use clap::Args;
use hookshot::{EventKind, HookSystem, TrustPolicy};
use serde_json::{Map, Value};

use crate::fail::Fail;

#[derive(Args, Debug, Clone, Default)]
pub(crate) struct Sources {
    /// A settings file (gemini, Claude, Copilot CLI, Cursor, jcli or picoclaw); later files take precedence.
    #[arg(long = "settings", value_name = "FILE")]
    pub(crate) settings: Vec<PathBuf>,
    /// The dialect of the --settings files, when their content cannot tell
    /// it (events both gemini-cli and Claude Code have). Files in .claude/,
    /// .gemini/ or a plugin need no flag.
    #[arg(long, value_name = "DIALECT", value_parser = parse_dialect)]
    pub(crate) dialect: Option<hookshot::Dialect>,
    /// The project directory: hooks run there and its own settings are found there.
    #[arg(long, value_name = "DIR")]
    pub(crate) workdir: Option<PathBuf>,
    /// Trust the project's own settings for this run.
    #[arg(long)]
    pub(crate) trust_project: bool,
    /// Also read the agents' own user settings (~/.gemini, ~/.claude, ~/.codex, ~/.qwen, ~/.jdata, ~/.copilot/hooks, ~/.cursor, ~/.cline/hooks).
    #[arg(long)]
    pub(crate) agent_user_files: bool,
    /// Answer LLM prompt hooks from this recorded `.responses` file, one
    /// line per prompt.
    #[arg(long, value_name = "FIXTURE")]
    pub(crate) hook_model: Option<PathBuf>,
}

impl Sources {
    /// The flags that give these sources to another `hookshot` process
    /// (the warm server a client starts).
    pub(crate) fn to_args(&self) -> Vec<std::ffi::OsString> {
        let mut args: Vec<std::ffi::OsString> = Vec::new();
        for f in &self.settings {
            args.extend(["--settings".into(), f.clone().into_os_string()]);
        }
        if let Some(d) = self.dialect {
            args.extend(["--dialect".into(), d.as_str().into()]);
        }
        if let Some(w) = &self.workdir {
            args.extend(["--workdir".into(), w.clone().into_os_string()]);
        }
        if self.trust_project {
            args.push("--trust-project".into());
        }
        if self.agent_user_files {
            args.push("--agent-user-files".into());
        }
        if let Some(m) = &self.hook_model {
            args.extend(["--hook-model".into(), m.clone().into_os_string()]);
        }
        args
    }
}

pub(crate) fn parse_dialect(name: &str) -> Result<hookshot::Dialect, String> {
    hookshot::Dialect::ALL
        .into_iter()
        .find(|d| d.as_str() == name)
        .ok_or_else(|| format!("unknown dialect \"{name}\"; use gemini, claude, copilot, cursor, jcli or picoclaw"))
}

pub(crate) fn parse_event(name: &str) -> Result<(EventKind, hookshot::Dialect), Fail> {
    parse_event_for(name, None)
}

/// [`parse_event`] for a run of `agent` (`fire --agent`): in its words when
/// it names the event so.
pub(crate) fn parse_event_for(
    name: &str,
    agent: Option<hookshot::Agent>,
) -> Result<(EventKind, hookshot::Dialect), Fail> {
    // Copilot CLI's camelCase names are most of them Cursor's too: the
    // variable it sets for its hooks says who calls a hand-written entry.
    let agent = agent.or_else(|| {
        std::env::var_os("COPILOT_CLI")
            .is_some_and(|v| !v.is_empty())
            .then_some(hookshot::Agent::Copilot)
    });
    hookshot::agent::parse_event_for(name, agent).ok_or_else(|| {
        let hint = hookshot_core::suggest::did_you_mean(name, wire_names())
            .map(|s| format!("; did you mean \"{s}\"?"))
            .unwrap_or_default();
        Fail::Usage(format!("unknown event \"{name}\"{hint}"))
    })
}

/// Every event name an agent may send: every dialect's, and Cursor's
/// tool-naming events.
fn wire_names() -> impl Iterator<Item = &'static str> {
    EventKind::all_names().chain(hookshot_core::event::CURSOR_TOOL_EVENTS.iter().map(|(n, _, _)| *n))
}

/// The value parser of an EVENT argument: every event name of every
/// dialect is offered to shell completion, and an unknown name gets the
/// same message as everywhere ("did you mean").
#[derive(Clone, Debug)]
pub(crate) struct EventName;

impl clap::builder::TypedValueParser for EventName {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let name = value.to_string_lossy();
        match parse_event(&name) {
            Ok(_) => Ok(name.into_owned()),
            Err(Fail::Usage(msg) | Fail::Settings(msg)) => {
                Err(clap::Error::raw(clap::error::ErrorKind::InvalidValue, format!("{msg}\n")).with_cmd(cmd))
            }
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let mut names: Vec<&'static str> = wire_names().collect();
        names.sort_unstable();
        names.dedup();
        Some(Box::new(names.into_iter().map(clap::builder::PossibleValue::new)))
    }
}

/// `$XDG_CONFIG_HOME`, else `~/.config` (a relative value is ignored:
/// see [`hookshot_core::paths::xdg_dir`]).
pub(crate) fn config_home() -> Option<PathBuf> {
    hookshot_core::paths::xdg_dir("XDG_CONFIG_HOME", ".config")
}

pub(crate) fn trust_store_path() -> Option<PathBuf> {
    config_home().map(|c| c.join("hookshot").join("trusted.json"))
}

/// The trust store for loading: when it cannot be read, nothing in it is
/// trusted and every source that needs trust says why.
pub(crate) fn trust_policy(trust_project: bool) -> TrustPolicy {
    TrustPolicy::from_store(trust_store_path(), trust_project)
}

pub(crate) fn build(sources: &Sources) -> Result<HookSystem, Fail> {
    build_for(sources, None)
}

pub(crate) fn build_for(sources: &Sources, hook_of: Option<hookshot::Agent>) -> Result<HookSystem, Fail> {
    let home = hookshot_core::paths::home();
    let mut b = HookSystem::builder()
        .workdir(sources.workdir.clone().unwrap_or_else(|| PathBuf::from(".")))
        .discover(home, config_home())
        .agent_user_files(sources.agent_user_files)
        .trust(trust_policy(sources.trust_project));
    for s in &sources.settings {
        b = b.settings(s);
    }
    b = b.settings_dialect(sources.dialect).hook_of(hook_of);
    if let Some(f) = &sources.hook_model {
        let model = hookshot_replay::HookModel::open(f).map_err(|e| Fail::Usage(format!("{}: {e}", f.display())))?;
        b = b.model_client(std::sync::Arc::new(model));
    }
    let hooks = b.build()?;
    for w in registry_warnings(&hooks) {
        eprintln!("{w}");
    }
    Ok(hooks)
}

/// What loading found to say about the settings (printed once loaded).
pub(crate) fn registry_warnings(hooks: &HookSystem) -> Vec<String> {
    hooks
        .registry()
        .warnings()
        .iter()
        .map(|w| format!("hookshot: warning: {w}"))
        .collect()
}

/// Prints the sources that could not be used, for commands that fire no
/// event (`fire` prints them with the event's other warnings).
pub(crate) fn print_load_warnings(hooks: &HookSystem) {
    for w in hooks.load_warnings() {
        eprintln!("hookshot: warning: {w}");
    }
}

pub(crate) fn read_input(arg: Option<&str>) -> Result<Map<String, Value>, Fail> {
    read_event_input(arg)?.map_err(Fail::Usage)
}

/// The deepest nesting of an event input hookshot reads. Agents send a
/// few levels; a model can send thousands on purpose. Deeper inputs are
/// "cannot be read", which blocks the event wherever a hook would see it.
pub(crate) const MAX_INPUT_DEPTH: usize = 1000;

/// Reads an event's input as the agents send it. The outer error is a file
/// or stream that cannot be read at all; the inner one, text that is not
/// an event input (which `fire` must not take for "no hooks to run").
/// JavaScript's `JSON.stringify` writes a broken string's lone surrogate
/// as `\ud800`: read as U+FFFD, as the agent itself shows it. Invalid
/// UTF-8 is read the same way.
pub(crate) fn read_event_input(arg: Option<&str>) -> Result<Result<Map<String, Value>, String>, Fail> {
    let (bytes, name) = match arg {
        Some("-") => (read_stdin_bytes()?, "stdin".to_string()),
        Some(path) => (
            std::fs::read(path).map_err(|e| Fail::Usage(format!("{path}: cannot read input: {e}")))?,
            path.to_string(),
        ),
        None if !std::io::stdin().is_terminal() => (read_stdin_bytes()?, "stdin".to_string()),
        None => (Vec::new(), "stdin".to_string()),
    };
    let text = String::from_utf8_lossy(&bytes);
    if text.trim().is_empty() {
        return Ok(Ok(Map::new()));
    }
    let depth = json_depth(&text);
    if depth > MAX_INPUT_DEPTH {
        return Ok(Err(format!(
            "{name}: the event input nests {depth} levels deep, more than the {MAX_INPUT_DEPTH} hookshot reads"
        )));
    }
    let parsed = parse_deep(&text).or_else(|e| match mend_surrogates(&text) {
        Some(mended) => parse_deep(&mended),
        None => Err(e),
    });
    Ok(match parsed {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(format!(
            "{name}: the event input must be a JSON object, found {}",
            kind(&other)
        )),
        Err(e) => Err(format!("{name}:{}:{}: invalid input JSON: {e}", e.line(), e.column())),
    })
}

/// Parses without serde_json's 128-level limit ([`json_depth`] bounds it).
fn parse_deep(text: &str) -> Result<Value, serde_json::Error> {
    use serde::Deserialize;
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = Value::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// How deep arrays and objects nest in `text` (strings skipped).
pub(crate) fn json_depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// `text` with every `\uXXXX` escape of a surrogate that has no partner
/// made `\ufffd`; `None` when there is none.
fn mend_surrogates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let hex = |i: usize| -> Option<u32> {
        let s = text.get(i..i + 4)?;
        u32::from_str_radix(s, 16)
            .ok()
            .filter(|_| s.bytes().all(|c| c.is_ascii_hexdigit()))
    };
    let escape_at = |i: usize| -> Option<u32> {
        (b.get(i) == Some(&b'\\') && matches!(b.get(i + 1), Some(b'u')))
            .then(|| hex(i + 2))
            .flatten()
    };
    let mut out = String::with_capacity(text.len());
    let (mut i, mut last, mut in_str, mut changed) = (0, 0, false, false);
    while i < b.len() {
        if !in_str {
            in_str = b[i] == b'"';
            i += 1;
            continue;
        }
        match b[i] {
            b'"' => {
                in_str = false;
                i += 1;
            }
            b'\\' => match escape_at(i) {
                Some(hi @ 0xD800..=0xDBFF) if escape_at(i + 6).is_some_and(|lo| (0xDC00..=0xDFFF).contains(&lo)) => {
                    let _ = hi;
                    i += 12;
                }
                Some(0xD800..=0xDFFF) => {
                    out.push_str(&text[last..i]);
                    out.push_str("\\ufffd");
                    i += 6;
                    last = i;
                    changed = true;
                }
                _ => i += 2,
            },
            _ => i += 1,
        }
    }
    out.push_str(&text[last..]);
    changed.then_some(out)
}

pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
        Value::Object(_) => "an object",
    }
}

fn read_stdin_bytes() -> Result<Vec<u8>, Fail> {
    let mut b = Vec::new();
    std::io::stdin()
        .read_to_end(&mut b)
        .map_err(|e| Fail::Usage(format!("cannot read stdin: {e}")))?;
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_are_read_as_the_replacement_character() {
        let text = r#"{"tool_input": {"command": "rm -rf ~ # \ud800", "ok": "\ud83d\ude00", "low": "\udc00x"}}"#;
        assert!(serde_json::from_str::<Value>(text).is_err());
        let v = parse_deep(&mend_surrogates(text).unwrap()).unwrap();
        assert_eq!(v["tool_input"]["command"], "rm -rf ~ # \u{fffd}");
        assert_eq!(v["tool_input"]["ok"], "\u{1f600}");
        assert_eq!(v["tool_input"]["low"], "\u{fffd}x");
        // Escaped backslashes are not escapes.
        assert_eq!(mend_surrogates(r#"{"a": "\\ud800"}"#), None);
    }

    #[test]
    fn depth_is_counted_outside_strings() {
        assert_eq!(json_depth(r#"{"a": [[1], "[[[[", {"b": {}}]}"#), 4);
        let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
        assert_eq!(json_depth(&deep), 600);
        assert!(parse_deep(&deep).is_ok());
    }

    #[test]
    fn sources_given_as_flags_parse_back_to_the_same_sources() {
        #[derive(clap::Parser, Debug)]
        struct Flags {
            #[command(flatten)]
            sources: Sources,
        }
        let sources = Sources {
            settings: vec!["a b.json".into(), "/x/.claude/settings.json".into()],
            dialect: Some(hookshot::Dialect::Jcli),
            workdir: Some("/w d".into()),
            trust_project: true,
            agent_user_files: true,
            hook_model: Some("m.responses".into()),
        };
        let argv = std::iter::once("hookshot".into()).chain(sources.to_args());
        let back = <Flags as clap::Parser>::try_parse_from(argv).unwrap().sources;
        assert_eq!(format!("{back:?}"), format!("{sources:?}"));
        let none = <Flags as clap::Parser>::try_parse_from(
            std::iter::once("hookshot".into()).chain(Sources::default().to_args()),
        );
        assert_eq!(
            format!("{:?}", none.unwrap().sources),
            format!("{:?}", Sources::default())
        );
    }
}
