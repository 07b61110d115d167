//! `hookshot log`: the latest decisions from the audit log, one line each,
//! newest last (what `tail` of the JSON Lines would show, readable).

use std::path::PathBuf;

use serde_json::Value;

use crate::audit_file::{configured_audit_log, located};
use crate::fail::Fail;

#[derive(clap::Args, Debug)]
pub(crate) struct LogArgs {
    /// The audit log (default: the one your settings configure).
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// How many of the latest events.
    #[arg(short = 'n', long, default_value_t = 20)]
    lines: usize,
    /// Only events that were blocked (or asked about).
    #[arg(long)]
    blocked: bool,
}

pub(crate) fn run(args: LogArgs) -> Result<u8, Fail> {
    let path = match args.audit {
        Some(named) => located(named),
        None => configured_audit_log()?,
    };
    let text = std::fs::read_to_string(&path).map_err(|e| Fail::Usage(format!("{}: {e}", path.display())))?;
    let records: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r.get("event").is_some())
        .filter(|r| !args.blocked || matches!(r["decision"].as_str(), Some("block" | "deny" | "ask")))
        .collect();
    let from = records.len().saturating_sub(args.lines);
    let shown = hookshot_core::display::escaped;
    for r in &records[from..] {
        let s = |k: &str| r[k].as_str().unwrap_or("-").to_string();
        let hooks: Vec<String> = r["hooks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|h| h["decision"].as_str() != Some("undecided") || !h["failure"].is_null())
            .map(|h| {
                let failure = h["failure"].as_str().map(|f| format!(" ({f})")).unwrap_or_default();
                format!(
                    "{}: {}{failure}",
                    h["hook"].as_str().unwrap_or("?"),
                    h["decision"].as_str().unwrap_or("?")
                )
            })
            .collect();
        let reason = r["reason"].as_str().map(|x| format!(" - {x}")).unwrap_or_default();
        println!(
            "{}  {}  {}{}  {}{}{}",
            s("timestamp"),
            shown(&s("session_id")),
            s("event"),
            r["tool"].as_str().map(|t| format!(" {}", shown(t))).unwrap_or_default(),
            s("decision"),
            shown(&reason),
            if hooks.is_empty() {
                String::new()
            } else {
                format!("  [{}]", shown(&hooks.join("; ")))
            }
        );
    }
    if records.is_empty() {
        println!("{}: no events recorded yet", path.display());
    }
    Ok(0)
}
