//! `hookshot check`: "would this be blocked?" without writing an event by
//! hand. A shell command is checked as the agent's shell tool call
//! (PreToolUse / BeforeTool), a file as what a shell tool returned to the
//! model (PostToolUse / AfterTool): every hook the agent would run for it
//! runs (the built-ins and yours), and the merged decision is told with
//! the hooks that made it.

use std::path::PathBuf;

use hookshot::{Decision, EventKind};
use serde_json::{Map, Value, json};

use crate::fail::Fail;
use crate::install::Agent;
use crate::load::{Sources, build_for};

#[derive(clap::Args, Debug)]
pub(crate) struct CheckArgs {
    /// The shell command a model wants to run (`hookshot check 'git push -f'`).
    #[arg(required_unless_present = "output", conflicts_with = "output")]
    command: Option<String>,
    /// Check a tool's result instead: what FILE holds, as a shell tool's
    /// output the model would read (secrets, for security_scan).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Whose event it is: the agent's hooks, tool names and answers.
    #[arg(long, value_parser = crate::install::AgentName { installable: false }, default_value = "claude")]
    agent: Agent,
    #[command(flatten)]
    sources: Sources,
}

pub(crate) async fn run(args: CheckArgs) -> Result<u8, Fail> {
    let agent = args.agent;
    let dialect = agent.dialect();
    let tool = agent.own_tool_name("Bash");
    let (event, command, response) = match &args.output {
        Some(file) => {
            let text = std::fs::read_to_string(file).map_err(|e| Fail::Usage(format!("{}: {e}", file.display())))?;
            let response = agent.shell_result(&text);
            (EventKind::AfterTool, format!("cat {}", file.display()), Some(response))
        }
        None => (EventKind::BeforeTool, args.command.clone().unwrap_or_default(), None),
    };
    let name = event.display_in(dialect);
    let mut input = Map::new();
    input.insert("hook_event_name".into(), json!(name));
    // Recognisable in the audit log: no agent session sent it.
    input.insert("session_id".into(), json!("hookshot-check"));
    input.insert("tool_name".into(), json!(tool));
    input.insert("tool_input".into(), json!({"command": command}));
    if let Some(r) = response {
        input.insert("tool_response".into(), r);
    }
    let hooks = build_for(&args.sources, Some(agent))?;
    let outcome = hooks.fire(event, input).await;
    hooks.shutdown().await;
    let shown = hookshot_core::display::escaped;
    let what = match &args.output {
        Some(file) => format!("{}'s content as a tool's result", file.display()),
        None => format!("`{command}`"),
    };
    let out = &outcome.output;
    let verdict = match out.decision {
        Decision::Block => "BLOCKED",
        Decision::Ask => "ASKS YOU FIRST",
        _ if out.tool_input.is_some() => "RUNS, REWRITTEN",
        _ if out.tool_result.is_some() => "REACHES THE MODEL CHANGED",
        _ => "allowed",
    };
    println!("{} {name} {tool}, {}: {verdict}", agent.name(), shown(&what));
    for r in &outcome.records {
        let o = &r.output;
        let said = match o.decision {
            Decision::Block => Some("blocks"),
            Decision::Ask => Some("asks"),
            _ if o.tool_input.is_some() => Some("rewrites the call"),
            _ if o.tool_result.is_some() => Some("changes the result"),
            _ => None,
        };
        if let Some(said) = said {
            let reason = o.reason.as_deref().map(|x| format!(": {x}")).unwrap_or_default();
            println!(
                "  {} ({}) {said}{}",
                shown(r.hook.label()),
                r.hook.source,
                shown(&reason)
            );
        }
        if let Some(f) = &r.failure {
            println!(
                "  {} ({}) failed: {}",
                shown(r.hook.label()),
                r.hook.source,
                shown(&f.message)
            );
        }
    }
    if let Some(input) = &out.tool_input {
        let runs = input.get("command").and_then(Value::as_str).unwrap_or_default();
        println!("  what runs instead: {}", shown(runs));
    }
    if let Some(result) = &out.tool_result {
        let text = result
            .get("stdout")
            .or_else(|| result.get("llmContent"))
            .and_then(Value::as_str)
            .map_or_else(|| result.to_string(), str::to_string);
        println!(
            "  what the model reads:\n{}",
            hookshot_core::display::escaped_lines(&text)
        );
    }
    for w in &outcome.warnings {
        println!("  warning: {}", shown(w));
    }
    if outcome.records.is_empty() {
        println!("  no hook runs for it (see `hookshot doctor`; `hookshot explain {name}` says why)");
    }
    Ok(if out.decision == Decision::Block { 2 } else { 0 })
}
