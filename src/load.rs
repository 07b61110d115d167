//! What every command that loads hooks shares: the source flags, the trust
//! store, building the [`HookSystem`], reading an event's input.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use clap::Args;
use hookshot::{EventKind, HookSystem, TrustPolicy};
use serde_json::{Map, Value};

use crate::Fail;

#[derive(Args, Debug, Clone, Default)]
pub(crate) struct Sources {
    /// A settings file (gemini, Claude, jcli or picoclaw); later files take precedence.
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
    /// Also read ~/.gemini, ~/.claude and ~/.jdata user settings.
    #[arg(long)]
    pub(crate) agent_user_files: bool,
    /// Answer LLM prompt hooks from this recorded `.responses` file, one
    /// line per prompt.
    #[arg(long, value_name = "FIXTURE")]
    pub(crate) hook_model: Option<PathBuf>,
}

pub(crate) fn parse_dialect(name: &str) -> Result<hookshot::Dialect, String> {
    hookshot::Dialect::ALL
        .into_iter()
        .find(|d| d.as_str() == name)
        .ok_or_else(|| format!("unknown dialect \"{name}\"; use gemini, claude, jcli or picoclaw"))
}

pub(crate) fn parse_event(name: &str) -> Result<(EventKind, hookshot::Dialect), Fail> {
    EventKind::parse(name).ok_or_else(|| {
        let hint = hookshot_core::suggest::did_you_mean(name, EventKind::all_names())
            .map(|s| format!("; did you mean \"{s}\"?"))
            .unwrap_or_default();
        Fail::Usage(format!("unknown event \"{name}\"{hint}"))
    })
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

pub(crate) fn build_for(sources: &Sources, hook_of: Option<hookshot::Host>) -> Result<HookSystem, Fail> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
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
    let (text, name) = match arg {
        Some("-") => (read_stdin()?, "stdin".to_string()),
        Some(path) => (
            std::fs::read_to_string(path).map_err(|e| Fail::Usage(format!("{path}: cannot read input: {e}")))?,
            path.to_string(),
        ),
        None if !std::io::stdin().is_terminal() => (read_stdin()?, "stdin".to_string()),
        None => (String::new(), "stdin".to_string()),
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(Fail::Usage(format!(
            "{name}: the event input must be a JSON object, found {}",
            kind(&other)
        ))),
        Err(e) => Err(Fail::Usage(format!(
            "{name}:{}:{}: invalid input JSON: {e}",
            e.line(),
            e.column()
        ))),
    }
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

pub(crate) fn read_stdin() -> Result<String, Fail> {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .map_err(|e| Fail::Usage(format!("cannot read stdin: {e}")))?;
    Ok(s)
}
