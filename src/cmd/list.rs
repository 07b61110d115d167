//! `hookshot list`: the effective hooks, by event, with source, precedence
//! and trust.

use std::io::Write;

use hookshot::{EventKind, HookSystem, Listed, ListedHook, MatcherSpec};

use crate::fail::Fail;
use crate::load::{Sources, build};

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
    let rows = hooks.describe_hooks();
    // One write per buffer, not per line: 10,000 hooks are 10,000 lines.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if as_json {
        serde_json::to_writer(&mut out, &rows)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        write_builtins(&mut out, hooks).and_then(|()| write_list(&mut out, &rows))
    };
    // A closed pipe (`hookshot list | head`) ends the listing, not the process.
    let _ = written.and_then(|()| out.flush());
}

/// The built-ins trusted files turned on, where each was set: hooks too,
/// though no settings entry of the event lists them.
fn write_builtins(out: &mut impl Write, hooks: &HookSystem) -> std::io::Result<()> {
    for b in hooks.registry().builtins() {
        writeln!(
            out,
            "built-in on: {} (set at {})",
            b.name,
            hookshot_core::display::escaped(&b.at.to_string())
        )?;
    }
    Ok(())
}

fn write_list(out: &mut impl Write, rows: &[Listed<'_>]) -> std::io::Result<()> {
    // Sources that gave no hooks first, then the hooks by event.
    let mut hooks: Vec<&ListedHook<'_>> = Vec::with_capacity(rows.len());
    for r in rows {
        match r {
            Listed::Source(s) => writeln!(
                out,
                "{} ({} source): {}",
                s.state,
                s.source,
                hookshot_core::display::escaped(s.problem)
            )?,
            Listed::Hook(h) => hooks.push(h),
        }
    }
    let rows = hooks;
    if rows.is_empty() {
        return writeln!(out, "no hooks in settings");
    }
    // Events in the order they first appear, each with its hooks.
    let mut events: Vec<EventKind> = Vec::new();
    for r in &rows {
        if !events.contains(&r.event) {
            events.push(r.event);
        }
    }
    for e in events {
        let of_event = || rows.iter().filter(move |r| r.event == e);
        // The event as its hooks' own agents name it (a Claude Code user
        // reads PreToolUse, not gemini's BeforeTool), in order of appearance.
        let mut names: Vec<&str> = Vec::new();
        for n in of_event().map(|r| e.display_in(r.dialect)) {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        writeln!(out, "{}", names.join(", "))?;
        for r in of_event() {
            let m = match r.matcher {
                MatcherSpec::Any => "*".to_string(),
                MatcherSpec::Exact(names) => names.join("|"),
                MatcherSpec::Regex(p) | MatcherSpec::FullRegex(p) | MatcherSpec::Script(p) => p.clone(),
                MatcherSpec::ToolArgs(rules) => rules
                    .iter()
                    .map(|(tool, glob)| format!("{tool}({glob})"))
                    .collect::<Vec<_>>()
                    .join("|"),
            };
            let prec = r.precedence.map_or("-".to_string(), |p| p.to_string());
            // Names, matchers and places come from settings files and
            // path names: a terminal must not be able to hide them.
            let shown = hookshot_core::display::escaped;
            writeln!(
                out,
                "  [{prec}] {} (matcher {}, {} {}, {}) {}",
                shown(r.name),
                shown(&m),
                r.source,
                r.dialect,
                r.state,
                shown(&r.at.to_string())
            )?;
        }
    }
    Ok(())
}
