//! `hookshot fire`: one event, its hooks, the merged answer in the event's
//! dialect; background hooks handed to a detached `hookshot`.

use std::path::{Path, PathBuf};

use hookshot::EventKind;
use serde_json::{Map, Value};

use crate::answer::{Answer, Caller, answer, hand_off_background};
use crate::fail::Fail;
use crate::install::Agent;
use crate::load::{Sources, build_for, parse_event_for, read_event_input};

#[derive(clap::Args, Debug)]
pub(crate) struct FireArgs {
    /// The event, in any dialect (BeforeTool, PreToolUse, pre_tool_execution, ...).
    #[arg(value_parser = crate::load::EventName, hide_possible_values = true)]
    event: String,
    /// The event input as JSON (a file, or - for stdin; default: stdin when piped).
    #[arg(long, value_name = "FILE|-")]
    input: Option<String>,
    #[command(flatten)]
    pub(crate) sources: Sources,
    /// Accepted for symmetry with `list` and `stats`: the answer is
    /// always JSON, in the event's dialect.
    #[arg(long, hide = true)]
    json: bool,
    /// Also save the input and the answer as a `hookshot test` case in
    /// this directory (one file per event), so a real session becomes a
    /// regression suite.
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// Run only the event's background (`async`) hooks, with the input
    /// in FILE (removed once read), and leave what they say for the
    /// session's next event: how a `fire` hands them off.
    #[arg(long, value_name = "FILE", hide = true)]
    background_job: Option<PathBuf>,
    /// Ask a warm server for this user, project, settings and environment
    /// to run the hooks, so persistent process hooks stay started between
    /// events; the first event starts it and runs here. The answer is the
    /// same either way (docs/CLI.md, "Warm fire").
    #[arg(long)]
    warm: bool,
    /// A warm server started by this `fire` exits after this many seconds
    /// without an event.
    #[arg(long, value_name = "SECS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86400))]
    warm_idle: u64,
    /// The agent that runs this `fire` as its hook (what `install`
    /// registers): its own settings files are its business, and answers
    /// take its shape. Without it, the agent is told from the environment
    /// and the input.
    #[arg(long, value_parser = crate::install::AgentName { installable: false })]
    agent: Option<Agent>,
}

impl FireArgs {
    /// The command lines agents run (`install` registers `fire --agent A
    /// EVENT`; benches and tests add `--settings`, `--workdir`, `--input`),
    /// read without building clap's parser, which was a tenth of a
    /// one-shot fire. `None` for anything else (another option, an `=`
    /// form, an empty or dash-led value, help): clap reads those, with
    /// its messages. A test in main.rs checks that where this reads a
    /// line, clap reads it the same.
    pub(crate) fn plain(args: &[String]) -> Option<FireArgs> {
        let mut out = FireArgs {
            event: String::new(),
            input: None,
            sources: Sources::default(),
            json: false,
            record: None,
            background_job: None,
            warm: false,
            warm_idle: 300,
            agent: None,
        };
        let mut event = None;
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = || {
                it.next()
                    .filter(|v| !v.is_empty() && (*v == "-" || !v.starts_with('-')))
                    .cloned()
            };
            match arg.as_str() {
                "--input" if out.input.is_none() => out.input = Some(value()?),
                "--settings" => out.sources.settings.push(value()?.into()),
                "--workdir" if out.sources.workdir.is_none() => out.sources.workdir = Some(value()?.into()),
                "--agent" if out.agent.is_none() => out.agent = Some(Agent::parse(&value()?)?),
                "--warm" if !out.warm => out.warm = true,
                "--trust-project" if !out.sources.trust_project => out.sources.trust_project = true,
                "--agent-user-files" if !out.sources.agent_user_files => out.sources.agent_user_files = true,
                a if !a.is_empty() && !a.starts_with('-') && event.is_none() => event = Some(a.to_string()),
                _ => return None,
            }
        }
        out.event = event?;
        Some(out)
    }
}

/// A `fire` as far as it goes before the runtime exists (see `main`): with
/// its input read and its hooks loaded, whether it needs a reactor at all
/// is known.
pub(crate) enum Fire {
    /// Loaded, ready to run.
    Loaded(Box<Loaded>),
    /// Answered already (its input could not be read).
    Done(u8),
    /// Warm, or a background job: those need the runtime from the start.
    Later(FireArgs),
}

pub(crate) struct Loaded {
    args: FireArgs,
    dialect: hookshot::Dialect,
    /// The input as it came and the agent that sent it, for `--record`.
    recorded: Option<(Map<String, Value>, Option<Agent>)>,
    hooks: hookshot::HookSystem,
    /// The event planned once: whether anything starts, what is handed
    /// off, and what runs all read this plan.
    planned: hookshot::Planned,
}

/// Reads the input and loads the hooks, outside any runtime.
pub(crate) fn load(args: FireArgs) -> Result<Fire, Fail> {
    if args.background_job.is_some() || args.warm {
        return Ok(Fire::Later(args));
    }
    let (event, dialect) = parse_event_for(&args.event, args.agent)?;
    let raw = match read_event_input(args.input.as_deref())? {
        Ok(input) => input,
        Err(why) => return unreadable(event, dialect, &args.sources, args.agent, &why).map(Fire::Done),
    };
    let raw_kept = args.record.as_ref().map(|_| raw.clone());
    let input = hookshot_core::input::from_wire(&args.event, dialect, raw);
    let caller = Caller::of(args.agent, event, dialect, &input);
    // The case names the agent that called (named or told), so its replay
    // reads the event in that agent's words without its environment.
    let recorded = raw_kept.map(|raw| (raw, caller.host));
    if caller.defers {
        return Ok(Fire::Done(0));
    }
    let hooks = hooks_for(&args.sources, caller)?;
    // A large input can keep a built-in busy for a while (checks are
    // linear: a 1 MiB command is about a second); on its own
    // thread, the runtime still hears a SIGTERM meanwhile and `fire` ends
    // at once, as the agent that sent it expects. Small inputs, the usual,
    // do not pay the thread.
    if text_bytes(&input, LARGE_INPUT) >= LARGE_INPUT {
        hooks.call_in_process_hooks_apart();
    }
    let planned = hooks.plan_call(hookshot::Call::new(event, input).from_agent(caller.host));
    Ok(Fire::Loaded(Box::new(Loaded {
        args,
        dialect,
        recorded,
        planned,
        hooks,
    })))
}

/// From this many bytes of text an event's input is checked apart.
const LARGE_INPUT: usize = 64 * 1024;

/// The bytes of text in `input`'s strings, counted up to `limit`.
fn text_bytes(input: &Map<String, Value>, limit: usize) -> usize {
    fn walk(v: &Value, n: &mut usize, limit: usize) {
        if *n >= limit {
            return;
        }
        match v {
            Value::String(s) => *n += s.len(),
            Value::Array(a) => a.iter().for_each(|v| walk(v, n, limit)),
            Value::Object(o) => o.values().for_each(|v| walk(v, n, limit)),
            _ => {}
        }
    }
    let mut n = 0;
    input.values().for_each(|v| walk(v, &mut n, limit));
    n
}

impl Fire {
    /// Whether this fire starts nothing: no hook matches its event. Then it
    /// needs no reactor and no signal handling (nothing would be left
    /// running to stop), which were a tenth of a one-shot `fire`.
    pub(crate) fn starts_nothing(&self) -> bool {
        match self {
            Fire::Loaded(l) => l.planned.starts_nothing(),
            Fire::Done(_) => true,
            Fire::Later(_) => false,
        }
    }

    pub(crate) async fn run(self) -> Result<u8, Fail> {
        match self {
            Fire::Loaded(l) => l.run().await,
            Fire::Done(code) => Ok(code),
            Fire::Later(args) => run_later(args).await,
        }
    }
}

impl Loaded {
    async fn run(self: Box<Self>) -> Result<u8, Fail> {
        let l = *self;
        let answer = fire_loaded(l.hooks, l.planned, l.dialect).await;
        Ok(finish(&l.args, answer, l.recorded))
    }
}

/// A warm fire or a background job.
async fn run_later(args: FireArgs) -> Result<u8, Fail> {
    let (event, dialect) = parse_event_for(&args.event, args.agent)?;
    let sources = &args.sources;
    if let Some(job) = args.background_job {
        return run_background_job(event, dialect, &job, sources, args.agent).await;
    }
    let input = match read_event_input(args.input.as_deref())? {
        Ok(input) => input,
        Err(why) => return unreadable(event, dialect, sources, args.agent, &why),
    };
    let recorded_input = args.record.as_ref().map(|_| {
        let wire = hookshot_core::input::from_wire(&args.event, dialect, input.clone());
        (input.clone(), Caller::of(args.agent, event, dialect, &wire).host)
    });
    let answer = match crate::warm::fire(sources, &args.event, &input, args.warm_idle, args.agent).await {
        Some(answer) => answer,
        // No warm server could answer: the hooks are loaded here.
        None => {
            let input = hookshot_core::input::from_wire(&args.event, dialect, input);
            let caller = Caller::of(args.agent, event, dialect, &input);
            let hooks = hooks_for(sources, caller)?;
            let planned = hooks.plan_call(hookshot::Call::new(event, input).from_agent(caller.host));
            fire_loaded(hooks, planned, dialect).await
        }
    };
    Ok(finish(&args, answer, recorded_input))
}

/// Prints the answer, records the case when asked; the exit code.
fn finish(args: &FireArgs, answer: Answer, recorded: Option<(Map<String, Value>, Option<Agent>)>) -> u8 {
    answer.print();
    if let (Some(dir), Some((input, agent))) = (&args.record, recorded) {
        let case = crate::case::Case::recorded(
            dir,
            &args.event,
            input,
            agent,
            &args.sources,
            &answer.stdout,
            answer.code,
        );
        crate::case::record(dir, &case);
    }
    answer.code
}

/// An event whose input cannot be read: no hook can be asked, so it is
/// blocked wherever a hook or built-in would have seen it and a block stops
/// the action; elsewhere `fire` fails (exit 1, which the registered command
/// shows the agent as a warning). Either way, never a silent "go on".
fn unreadable(
    event: EventKind,
    dialect: hookshot::Dialect,
    sources: &Sources,
    named: Option<Agent>,
    why: &str,
) -> Result<u8, Fail> {
    let caller = Caller::of(named, event, dialect, &Map::new());
    let hooks = build_for(sources, caller.host)?;
    // Answered in the calling agent's shape, as any other answer: Cline
    // reads no exit code, Copilot CLI and Cursor no answer at exit 2.
    let respond = |mut outcome: hookshot::Outcome| -> u8 {
        let said = hookshot::agent::answer(&mut outcome, caller.host, dialect);
        println!("{}", said.stdout);
        said.code
    };
    let blocked = |reason: String| {
        let mut outcome = hookshot::Outcome::empty(event);
        outcome.output.decision = hookshot::Decision::Block;
        outcome.output.reason = Some(reason);
        outcome
    };
    if hooks.has_hooks(event) && event.guards_an_action() {
        eprintln!("hookshot: {why}");
        eprintln!("hookshot: {event} blocked: its input cannot be read, so its hooks could not check it");
        return Ok(respond(blocked(format!(
            "{event} blocked: its input cannot be read, so its hooks could not check it ({why})"
        ))));
    }
    // A tool's result its hooks cannot read (nested too deep to parse)
    // would reach the model unscanned: what the model sees of it is
    // replaced, and the closed policy blocks too.
    let closed = hooks.failure_policy() == hookshot::FailPolicy::Closed;
    if hooks.has_hooks(event) && event == EventKind::AfterTool {
        let mut outcome = if closed {
            blocked(format!("blocked by the closed failure policy: {why}"))
        } else {
            hookshot::Outcome::empty(event)
        };
        outcome.output.tool_result = Some(Value::String(format!(
            "[withheld by hookshot: the tool's result could not be read, so its hooks could not check it ({why})]"
        )));
        eprintln!("hookshot: warning: {why}; the tool's result was withheld from the model");
        return Ok(respond(outcome));
    }
    if closed && hooks.has_hooks(event) && event.can_block() && !event.block_keeps_going() {
        eprintln!("hookshot: {why}");
        eprintln!("hookshot: {event} blocked by the closed failure policy: its input cannot be read");
        return Ok(respond(blocked(format!(
            "{event} blocked by the closed failure policy: its input cannot be read ({why})"
        ))));
    }
    Err(Fail::Usage(why.to_string()))
}

/// The hooks of a one-shot fire: background hooks go to a detached
/// `hookshot` of their own.
fn hooks_for(sources: &Sources, caller: Caller) -> Result<hookshot::HookSystem, Fail> {
    let mut hooks = build_for(sources, caller.host)?;
    hooks.set_background(hookshot::BackgroundMode::Elsewhere, hookshot::background::spool::dir());
    Ok(hooks)
}

/// Fires the event with hooks loaded in this process.
async fn fire_loaded(
    mut hooks: hookshot::HookSystem,
    mut planned: hookshot::Planned,
    dialect: hookshot::Dialect,
) -> Answer {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let handoff = hand_off_background(&hooks, &planned, &argv, None).err();
    if handoff.is_some() {
        // Run them within the event rather than not at all: the one case
        // that plans again, with the background hooks kept here.
        hooks.set_background(hookshot::BackgroundMode::Inline, hookshot::background::spool::dir());
        planned = hooks.plan_call(planned.call().clone());
    }
    let answer = answer(&hooks, planned, dialect, handoff).await;
    // Observers were sent this event: let them read it before they go.
    hooks.shutdown().await;
    answer
}

/// The detached half of [`crate::answer::hand_off_background`]: runs the background hooks of the
/// event in the job and saves what they say for the session's next event.
/// Nobody reads this process's output, so every problem is saved as a
/// warning for that event instead.
async fn run_background_job(
    event: EventKind,
    dialect: hookshot::Dialect,
    job: &Path,
    sources: &Sources,
    named: Option<Agent>,
) -> Result<u8, Fail> {
    use hookshot::background::{Delivery, spool};
    let Some(dir) = spool::dir() else { return Ok(1) };
    let problem = |session: &str, why: String| {
        let d = Delivery {
            hook: "background".into(),
            context: None,
            warning: Some(format!("background hooks of {event} did not run: {why}")),
        };
        let _ = spool::put(&dir, session, &[d]);
        Ok(1)
    };
    let job = match spool::take_job(job).map(|b| serde_json::from_slice::<hookshot::BackgroundJob>(&b)) {
        Ok(Ok(job)) => job,
        // No input, no session to tell.
        _ => return Ok(1),
    };
    let input = &job.input;
    let session = input
        .get("session_id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let caller = Caller::of(named, event, dialect, input);
    let mut hooks = match build_for(sources, caller.host) {
        Ok(h) => h,
        Err(Fail::Settings(why) | Fail::Usage(why)) => return problem(&session, why),
    };
    hooks.set_background(hookshot::BackgroundMode::Inline, None);
    let outcome = hooks.run_background_job(event, job).await;
    hooks.shutdown().await;
    let mut found: Vec<Delivery> = outcome
        .records
        .iter()
        .filter(|r| r.hook.options.background.is_on())
        .filter_map(Delivery::of)
        .collect();
    // The nesting limit, an approval withdrawn since: said, not lost.
    if outcome.records.is_empty() && !outcome.warnings.is_empty() {
        found.push(Delivery {
            hook: "background".into(),
            context: None,
            warning: Some(format!(
                "background hooks of {event} did not run: {}",
                outcome.warnings.join("; ")
            )),
        });
    }
    match spool::put(&dir, &session, &found) {
        Ok(()) => Ok(0),
        Err(e) => problem(&session, e.to_string()),
    }
}
