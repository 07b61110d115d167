//! `hookshot list`: the effective hooks, by event, with source, precedence
//! and trust.

use hookshot::{EventKind, HookSystem};
use serde_json::Value;

use crate::Fail;
use crate::load::{Sources, build, parse_dialect};

#[derive(clap::Args, Debug)]
pub(crate) struct ListArgs {
    #[command(flatten)]
    sources: Sources,
    /// As JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: ListArgs) -> Result<u8, Fail> {
    let hooks = build(&args.sources)?;
    list(&hooks, args.json);
    Ok(0)
}

fn list(hooks: &HookSystem, as_json: bool) {
    let described = hooks.describe_hooks();
    let rows = described.as_array().cloned().unwrap_or_default();
    if as_json {
        println!("{}", Value::Array(rows));
        return;
    }
    for p in hooks.registry().problems() {
        let state = match p.kind {
            hookshot::ProblemKind::Untrusted => "untrusted",
            hookshot::ProblemKind::Broken | hookshot::ProblemKind::Servers => "broken",
        };
        println!("{state} ({} source): {}", p.source.kind, p.message);
    }
    let rows: Vec<Value> = rows.into_iter().filter(|r| !r["event"].is_null()).collect();
    if rows.is_empty() {
        println!("no hooks");
        return;
    }
    let mut events: Vec<String> = rows
        .iter()
        .map(|r| r["event"].as_str().unwrap_or("").to_string())
        .collect();
    events.dedup();
    let mut seen = std::collections::BTreeSet::new();
    for e in events {
        if !seen.insert(e.clone()) {
            continue;
        }
        // Each hook's own agent's name for the event, beside the canonical one.
        let kind = EventKind::parse(&e).map(|(k, _)| k);
        let mut names: Vec<&str> = rows
            .iter()
            .filter(|r| r["event"] == e.as_str())
            .filter_map(|r| kind?.name_in(parse_dialect(r["dialect"].as_str()?).ok()?))
            .filter(|n| *n != e)
            .collect();
        names.sort_unstable();
        names.dedup();
        if names.is_empty() {
            println!("{e}");
        } else {
            println!("{e} ({})", names.join(", "));
        }
        for r in rows.iter().filter(|r| r["event"] == e.as_str()) {
            let m = match r["matcher"]["value"].clone() {
                Value::Null => "*".to_string(),
                Value::Array(v) => v.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("|"),
                other => other.as_str().unwrap_or("").to_string(),
            };
            let prec = r["precedence"].as_u64().map_or("-".to_string(), |p| p.to_string());
            println!(
                "  [{prec}] {} (matcher {m}, {} {}, {}) {}",
                r["name"].as_str().unwrap_or(""),
                r["source"].as_str().unwrap_or(""),
                r["dialect"].as_str().unwrap_or(""),
                r["state"].as_str().unwrap_or(""),
                r["at"].as_str().unwrap_or("")
            );
        }
    }
}
