//! `hookshot explain EVENT --input FILE`: "why didn't my hook fire?" For
//! every hook known for the event, from every source, whether it would run
//! for this input and why not; then the plan. No hook runs.

use hookshot::{Explained, HookDef, MatcherSpec, Phase, Why};
use serde_json::{Value, json};

use crate::answer::Caller;
use crate::fail::Fail;
use crate::load::{Sources, build_for, read_input};

#[derive(clap::Args, Debug)]
pub(crate) struct ExplainArgs {
    /// The event, in any dialect (BeforeTool, PreToolUse, pre_tool_execution, ...).
    #[arg(value_parser = crate::load::EventName, hide_possible_values = true)]
    event: String,
    /// The event input as JSON (a file, or - for stdin; default: stdin when piped).
    #[arg(long, value_name = "FILE|-")]
    input: Option<String>,
    #[command(flatten)]
    sources: Sources,
    /// As JSON.
    #[arg(long)]
    json: bool,
    /// The agent that runs hookshot, as `fire --agent` takes it.
    #[arg(long, value_parser = crate::install::AgentName { installable: false })]
    agent: Option<crate::install::Agent>,
}

pub(crate) fn run(args: ExplainArgs) -> Result<u8, Fail> {
    let (event, dialect) = crate::load::parse_event_for(&args.event, args.agent)?;
    // In hookshot's words, as `fire` reads it: Cursor's tool-naming
    // events, Copilot CLI's and Cline's payloads name their tool otherwise.
    let input = hookshot_core::input::from_wire(&args.event, dialect, read_input(args.input.as_deref())?);
    let caller = Caller::of(args.agent, event, dialect, &input);
    let host = caller.host;
    let hooks = build_for(&args.sources, host)?;
    let x = hooks.explain(event, &input);
    let problems = hooks.registry().problems();
    if args.json {
        let rows: Vec<Value> = x.hooks.iter().map(row).collect();
        let sources: Vec<Value> = problems
            .iter()
            .map(|p| json!({"file": p.source.path, "source": p.source.kind, "problem": p.message}))
            .collect();
        println!(
            "{}",
            json!({"event": event.display_in(dialect), "target": x.target, "model": x.model,
                "argument": x.argument, "sequential": x.sequential, "hooks": rows,
                "sources_not_loaded": sources,
                "left_to_the_agent": host.map(hookshot::Agent::name)})
        );
        return Ok(0);
    }
    let mut tested = match &x.target {
        Some(t) => {
            let mut aliases: Vec<&str> = Vec::new();
            for a in hookshot_core::tools::aliases(t) {
                if !aliases.contains(&a) {
                    aliases.push(a);
                }
            }
            let mut s = format!("matchers are tested against {t:?}");
            if !aliases.is_empty() {
                s.push_str(&format!(" (also known as {})", aliases.join(", ")));
            }
            s
        }
        None => match event.match_target() {
            hookshot::MatchTarget::None => "this event ignores matchers: every hook of it runs".into(),
            hookshot::MatchTarget::ToolName => "the input has no tool_name: only hooks without a matcher run".into(),
            hookshot::MatchTarget::Trigger(f) => format!("the input has no {f}: only hooks without a matcher run"),
        },
    };
    if let Some(a) = &x.argument {
        tested.push_str(&format!("; the call's argument is {a:?}"));
    }
    // Tool names, commands and paths come from inputs and settings files:
    // a terminal must not be able to hide any of them.
    let shown = hookshot_core::display::escaped;
    println!("{} ({dialect}): {}", event.display_in(dialect), shown(&tested));
    if let Some(h) = host {
        let who = h.display_name();
        println!("run by {who}: the hooks it runs itself are left to it and not loaded");
    }
    for p in problems {
        println!("  source not loaded: {}", shown(&p.message));
    }
    if x.hooks.is_empty() {
        println!("  no hook is registered for this event");
    }
    for e in &x.hooks {
        let h = &e.hook;
        let verdict = match &e.why {
            Why::Runs { position, phase, .. } => {
                format!(
                    "RUNS #{}{}",
                    position + 1,
                    match phase {
                        Phase::Now => "",
                        Phase::Guard => " (after the others' rewrites: judges the call as it will run)",
                        Phase::OnBlock => " (only once the tool call is blocked)",
                        Phase::Background => " (after the answer: async)",
                    }
                )
            }
            Why::Untrusted => "skipped: its file is not trusted (review it, then `hookshot trust`)".into(),
            Why::Disabled(by) => format!("skipped: {by}"),
            Why::NoMatch => format!(
                "skipped: matcher {} does not match {}",
                matcher(h),
                x.target.as_deref().map_or("(no target)".into(), |t| format!("{t:?}"))
            ),
            Why::Model => format!(
                "skipped: model filter {:?} does not match model {:?}",
                h.model_prefix.as_deref().unwrap_or(""),
                x.model.as_deref().unwrap_or("(none)")
            ),
            // Cursor's shell events: their matcher searches the command.
            Why::Condition if h.options.condition.as_ref().is_some_and(|c| c.regex) => format!(
                "skipped: its matcher /{}/ is not found in the command",
                h.options
                    .condition
                    .as_ref()
                    .and_then(|c| c.pattern.as_deref())
                    .unwrap_or_default()
            ),
            Why::Condition => format!(
                "skipped: its `if` rule {} does not hold for this call",
                h.options
                    .condition
                    .as_ref()
                    .map(|c| format!("{}({})", c.tool, c.pattern.as_deref().unwrap_or("")))
                    .unwrap_or_default()
            ),
            Why::Duplicate(of) => format!("skipped: the same hook runs from {} (higher precedence)", of.provenance),
            Why::RunByParent => "skipped: the hookshot that started this one runs it already".into(),
            Why::NestingLimit(depth) => format!(
                "BLOCKS: hookshot is nested {depth} deep in its own hooks (the limit is {}); the event is blocked",
                hookshot::MAX_DEPTH
            ),
        };
        // A built-in has no dialect of its own: it answers in the caller's.
        let dialect = if h.source == hookshot::SourceKind::Builtin {
            String::new()
        } else {
            format!(" {}", h.dialect)
        };
        println!(
            "  {}  [{}{dialect}, matcher {}] {}\n      {}",
            shown(h.label()),
            h.source,
            shown(&matcher(h)),
            shown(&h.provenance.to_string()),
            shown(&verdict)
        );
    }
    let runs: Vec<&Explained> = {
        let mut r: Vec<&Explained> = x.hooks.iter().filter(|e| matches!(e.why, Why::Runs { .. })).collect();
        r.sort_by_key(|e| match e.why {
            Why::Runs { position, .. } => position,
            _ => usize::MAX,
        });
        r
    };
    if runs.is_empty() {
        println!("plan: nothing runs");
    } else {
        let names: Vec<String> = runs.iter().map(|e| shown(e.hook.label())).collect();
        println!(
            "plan: {} hook(s), {}: {}",
            runs.len(),
            if x.sequential {
                "one after the other (a hook asked for sequential)"
            } else {
                "in parallel"
            },
            names.join(", then ")
        );
    }
    Ok(0)
}

fn matcher(h: &HookDef) -> String {
    match &h.matcher {
        MatcherSpec::Any => "*".into(),
        MatcherSpec::Exact(names) => names.join("|"),
        MatcherSpec::Regex(r) if hookshot_core::literal_alternatives(r).is_some() => format!("/{r}/"),
        // Which engine reads it, as its agent would (the agent table).
        MatcherSpec::Regex(r) => {
            let file = h.provenance.file.as_deref().unwrap_or(std::path::Path::new(""));
            match hookshot_registry::flavour_of(h.dialect, file) {
                hookshot_core::RegexFlavour::Ecma => format!("/{r}/ (JavaScript regex, read alike by the regex crate)"),
                hookshot_core::RegexFlavour::Rust => format!("/{r}/ (regex crate)"),
            }
        }
        MatcherSpec::Script(r) => format!("/{r}/ (JavaScript regex, ECMAScript engine)"),
        MatcherSpec::FullRegex(r) => format!("/^{r}$/"),
        MatcherSpec::ToolArgs(v) => v.iter().map(|(t, g)| format!("{t}({g})")).collect::<Vec<_>>().join("|"),
    }
}

fn row(e: &Explained) -> Value {
    let h = &e.hook;
    let (runs, why) = match &e.why {
        Why::Runs {
            position,
            background,
            phase,
        } => {
            let phase = match phase {
                Phase::Now => "now",
                Phase::Guard => "guard",
                Phase::OnBlock => "on_block",
                Phase::Background => "background",
            };
            (
                true,
                json!({"position": position, "background": background, "phase": phase}),
            )
        }
        Why::Untrusted => (false, json!("untrusted")),
        Why::Disabled(by) => (false, json!({"disabled": by})),
        Why::NoMatch => (false, json!("no_match")),
        Why::Model => (false, json!("model_filter")),
        Why::Condition => (false, json!("if_rule")),
        Why::Duplicate(of) => (false, json!({"duplicate_of": of.provenance.to_string()})),
        Why::RunByParent => (false, json!("run_by_parent")),
        Why::NestingLimit(d) => (false, json!({"nesting_limit": d})),
    };
    json!({"name": h.label(), "source": h.source, "dialect": h.dialect, "at": h.provenance.to_string(),
        "matcher": matcher(h), "runs": runs, "why": why})
}
