//! Running one event: the call as its caller sent it ([`Call`]), its plan
//! made once ([`Planned`]), the hooks' environment, the phases of the
//! plan, the background hand-off, and the merged outcome. Loading and
//! reloading settings, planning and describing hooks live in `lib.rs` and
//! `event_plan.rs`; the agent's answer is `hookshot_core::agent::answer`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};
use tracing::Instrument;

use hookshot_core::{Agent, Decision, Dialect, EventKind, FailPolicy, HookDef, HookRecord, Outcome};
use hookshot_runner::{PlanRun, RunEnv};

use crate::nesting::{self, MAX_DEPTH, PARENT_VAR};
use crate::{EventPlan, HookSystem, NotRun, context_cap, read_agent_json, stop_loops};

/// One event as its caller sends it: what every door (`fire`, `serve`, the
/// warm server, an embedding app) hands [`HookSystem::call`], so the same
/// event gets the same hooks, environment and answer whoever asks.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Call {
    /// The event.
    pub event: EventKind,
    /// Its input, in any dialect's field names.
    pub input: Map<String, Value>,
    /// The agent that runs hookshot as its hook for this event, if any:
    /// its hooks' shell and variables, its limits, the shapes of its
    /// answers. `None`: hookshot is the agent (`replay`, an embedder).
    pub agent: Option<Agent>,
    /// The environment its command hooks start from, when it is not this
    /// process's (a long-lived server answering callers whose environments
    /// differ). Long-lived processes (process hooks, MCP servers) keep the
    /// one they were started with.
    pub env: Option<Arc<Vec<(String, String)>>>,
}

impl Call {
    /// `event` with `input`, from no agent, in this process's environment.
    pub fn new(event: EventKind, input: Map<String, Value>) -> Call {
        Call {
            event,
            input,
            agent: None,
            env: None,
        }
    }

    /// The same call, made by `agent`.
    pub fn from_agent(mut self, agent: Option<Agent>) -> Call {
        self.agent = agent;
        self
    }

    /// The same call, its command hooks starting from `env`.
    pub fn with_env(mut self, env: Arc<Vec<(String, String)>>) -> Call {
        self.env = Some(env);
        self
    }
}

/// One event planned once: what a [`Call`] runs, decided before it runs
/// ([`HookSystem::plan_call`]), so a door that must know beforehand
/// (whether anything starts; what is handed off to run in the
/// background) and the run itself read the same plan.
#[derive(Debug)]
pub struct Planned {
    call: Call,
    plan: EventPlan,
}

impl Planned {
    /// Nothing runs now or in the background: no hook matches, or the
    /// parent hookshot runs them all.
    pub fn starts_nothing(&self) -> bool {
        self.plan.runs_nothing_now() && self.plan.background.is_empty() && !self.hands_off()
    }

    fn hands_off(&self) -> bool {
        self.plan
            .not_run
            .iter()
            .any(|(_, why)| matches!(why, NotRun::Elsewhere))
    }

    /// The plan.
    pub fn plan(&self) -> &EventPlan {
        &self.plan
    }

    /// The call, its input completed.
    pub fn call(&self) -> &Call {
        &self.call
    }
}

/// What travels with one event through planning and running: the calling
/// agent and the environment hooks start from.
#[derive(Debug, Clone, Default)]
pub(crate) struct EventCx {
    pub(crate) agent: Option<Agent>,
    pub(crate) env: Option<Arc<Vec<(String, String)>>>,
}

impl HookSystem {
    /// The environment of this event's hooks: the session is the caller's
    /// (the input's `session_id`), and [`PARENT_VAR`] names the hooks
    /// running now, so a hookshot one of them starts does not run them again.
    /// `gemini`: some hook of the event is gemini-cli's (it gets
    /// `GEMINI_PLANS_DIR`).
    pub(crate) fn env(
        &self,
        cx: &EventCx,
        event: EventKind,
        input: &Map<String, Value>,
        running: &[u64],
        gemini: bool,
    ) -> RunEnv {
        let wd = self.services.workdir.display().to_string();
        let session = input
            .get("session_id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .unwrap_or(&self.services.session_id);
        let mut vars: Vec<(String, String)> = vec![
            ("GEMINI_PROJECT_DIR".into(), wd.clone()),
            ("CLAUDE_PROJECT_DIR".into(), wd.clone()),
            ("QWEN_PROJECT_DIR".into(), wd.clone()),
            ("COPILOT_PROJECT_DIR".into(), wd.clone()),
            ("COPILOT_CLI".into(), "1".into()),
            ("CURSOR_PROJECT_DIR".into(), wd.clone()),
            ("GEMINI_CWD".into(), wd.clone()),
            ("JCLI_CWD".into(), wd),
            ("GEMINI_SESSION_ID".into(), session.to_string()),
            ("JCLI_HOOK_EVENT".into(), event.display_in(Dialect::Jcli).into()),
            (PARENT_VAR.into(), nesting::parent_value(running)),
        ];
        // Claude Code gives these events' hooks a file whose `export`s it
        // sources before every later shell command of the session.
        let exports_env = matches!(
            event,
            EventKind::SessionStart | EventKind::Setup | EventKind::CwdChanged | EventKind::FileChanged
        );
        if exports_env && let Some(f) = self.services.env_file.get() {
            vars.push(("CLAUDE_ENV_FILE".into(), f.display().to_string()));
        }
        let base = cx.env.clone();
        let caller = |name: &str| match &base {
            Some(b) => b.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()),
            None => std::env::var(name).ok(),
        };
        // gemini-cli gives its hooks the session's plans folder (or the
        // one its settings name); run for
        // another caller, gemini hooks get where gemini-cli keeps it.
        // Read only for gemini hooks: other events pay no file read.
        if gemini
            && caller("GEMINI_PLANS_DIR").is_none()
            && let Some(home) = caller("HOME").filter(|h| !h.is_empty())
            && let Some(dir) =
                hookshot_core::agent::gemini_plans_dir(Path::new(&home), &self.services.workdir, session, |path| {
                    self.readable_agent_file(path, Path::new(&home))
                        .then(|| read_agent_json(path))?
                })
        {
            vars.push(("GEMINI_PLANS_DIR".into(), dir.display().to_string()));
        }
        RunEnv {
            cwd: self.services.workdir.clone(),
            vars,
            base,
            caller: cx.agent,
            gate: None,
        }
    }

    /// Whether an agent's settings file may be read for a value hookshot
    /// passes on (gemini-cli's plans folder): a file of the project is read
    /// only when this load trusted it, as gemini-cli reads no workspace
    /// settings in an untrusted folder; the user's own files always.
    pub(crate) fn readable_agent_file(&self, path: &Path, home: &Path) -> bool {
        if !path.starts_with(&self.services.workdir) || path.parent().and_then(Path::parent) == Some(home) {
            return true;
        }
        self.load
            .registry
            .loaded()
            .iter()
            .any(|l| l.trusted && l.source.path == path)
    }

    /// Makes `path` this session's `CLAUDE_ENV_FILE` (for an embedder that
    /// is the agent, as `replay` is); the first call wins.
    pub fn set_session_env_file(&self, path: PathBuf) {
        let _ = self.services.env_file.set(path);
    }

    /// Runs the hooks of `event` and merges their answers. The input's
    /// common fields are filled in when missing. Dropping the returned future
    /// kills the hooks it started.
    pub async fn fire(&self, event: EventKind, input: Map<String, Value>) -> Outcome {
        self.fire_where(event, input, |_| true).await
    }

    /// Runs the hooks of one event as its caller sent it ([`Call`]): the
    /// calling agent's shell, variables and limits, the caller's
    /// environment. [`HookSystem::fire`] is a call from the agent this
    /// system was loaded for.
    pub async fn call(&self, call: Call) -> Outcome {
        let cx = EventCx {
            agent: call.agent,
            env: call.env,
        };
        self.fire_in(&cx, call.event, call.input, |_| true, None).await
    }

    /// Plans `call` (its input completed) without running anything.
    pub fn plan_call(&self, mut call: Call) -> Planned {
        self.complete_input(call.event, &mut call.input);
        let cx = EventCx {
            agent: call.agent,
            env: call.env.clone(),
        };
        let plan = self.event_plan_in(&cx, call.event, &call.input, |_| true);
        Planned { call, plan }
    }

    /// Runs a call as it was planned ([`HookSystem::plan_call`]): the same
    /// hooks, phases and budget, without planning it again.
    pub async fn call_planned(&self, planned: Planned) -> Outcome {
        let Planned { call, plan } = planned;
        let cx = EventCx {
            agent: call.agent,
            env: call.env,
        };
        self.fire_in(&cx, call.event, call.input, |_| true, Some(plan)).await
    }

    /// Like [`HookSystem::fire`], running only the matched hooks `keep`
    /// accepts: an agent that calls one event at two moments for different
    /// dialects (jcli's `post_llm_response` once per answer, gemini's
    /// `AfterModel` per chunk) fires each part with its own hooks.
    pub async fn fire_where(
        &self,
        event: EventKind,
        input: Map<String, Value>,
        keep: impl Fn(&HookDef) -> bool,
    ) -> Outcome {
        self.fire_in(&self.default_cx(), event, input, keep, None).await
    }

    pub(crate) async fn fire_in(
        &self,
        cx: &EventCx,
        event: EventKind,
        mut input: Map<String, Value>,
        keep: impl Fn(&HookDef) -> bool,
        planned: Option<EventPlan>,
    ) -> Outcome {
        let start = std::time::Instant::now();
        self.complete_input(event, &mut input);
        let span = tracing::info_span!("event", event = %event, hooks = tracing::field::Empty, decision = tracing::field::Empty);
        // Boxed: the run's future is large, and wrapping it in the span
        // moved it whole on every event (a tenth of the sidecar's time).
        let outcome = Box::pin(self.run_hooks(cx, event, &mut input, keep, planned))
            .instrument(span.clone())
            .await;
        span.record("hooks", outcome.records.len());
        span.record("decision", tracing::field::debug(outcome.output.decision));
        self.services.metrics.record(&outcome.records);
        if let Some(audit) = &self.load.audit {
            // The agent's session, as the docs promise, not this process's.
            audit.record(
                &self.session_of(&input),
                &input,
                &outcome,
                start.elapsed().as_secs_f64() * 1000.0,
            );
        }
        outcome
    }

    pub(crate) async fn run_hooks(
        &self,
        cx: &EventCx,
        event: EventKind,
        input: &mut Map<String, Value>,
        keep: impl Fn(&HookDef) -> bool,
        planned: Option<EventPlan>,
    ) -> Outcome {
        // What background hooks of this session said since its last event
        // that could carry it: the model hears it now.
        let plan = match planned {
            Some(plan) => plan,
            None => self.event_plan_in(cx, event, input, keep),
        };
        let delivered = if self.load.has_background && event.context_reaches_model() {
            self.services.background.take(&self.session_of(input), plan.planned_at)
        } else {
            Vec::new()
        };
        let mut outcome = self.run_plan(cx, event, input, plan).await;
        for d in delivered {
            if let Some(c) = d.context {
                let joined = match outcome.output.additional_context.take() {
                    Some(mine) => format!("{mine}\n{c}"),
                    None => c,
                };
                outcome.output.additional_context = Some(joined);
            }
            outcome.warnings.extend(d.warning);
        }
        // Sources that could not be used are part of every answer: the user
        // sees them, and the closed policy refuses to act without them.
        outcome.warnings.splice(0..0, self.load_warnings());
        if self.failure_policy() == FailPolicy::Closed
            && !self.load.load_warnings.is_empty()
            && !outcome.is_blocked()
            && !event.block_keeps_going()
        {
            outcome.output.decision = Decision::Block;
            outcome.output.reason = Some(format!(
                "blocked by the closed failure policy: {}",
                self.load.load_warnings.join("; ")
            ));
        }
        outcome
    }

    pub(crate) async fn run_plan(
        &self,
        cx: &EventCx,
        event: EventKind,
        input: &mut Map<String, Value>,
        mut plan: EventPlan,
    ) -> Outcome {
        if let Some(depth) = plan.nesting_limit {
            let mut o = Outcome::empty(event);
            let why = format!(
                "hookshot is nested {depth} deep in its own hooks (the limit is {MAX_DEPTH}); the {} hook(s) of this event did not run",
                plan.not_run.len()
            );
            // Where a block means "keep working" it would loop the agent.
            if !event.block_keeps_going() {
                o.output.decision = Decision::Block;
                o.output.reason = Some(format!("blocked: {why}"));
            }
            o.warnings.push(why);
            return o;
        }
        if plan.runs_nothing_now() && plan.background.is_empty() {
            return Outcome::empty(event);
        }
        let gemini = plan
            .running()
            .any(|h| h.runs_as(cx.agent).hook_vars().contains(&"GEMINI_PLANS_DIR"));
        let mut env = self.env(cx, event, input, &plan.prints, gemini);
        // What was approved is checked again as each hook of an approved
        // file starts: a script swapped since the load does not run.
        if plan.running().any(|h| h.source.needs_trust()) {
            let approvals = self.load.registry.approvals().clone();
            env.gate = Some(hookshot_runner::Gate(Arc::new(move |h: &HookDef| {
                match (h.source.needs_trust(), h.provenance.file.as_deref()) {
                    (true, Some(file)) => approvals.recheck(file),
                    _ => Ok(()),
                }
            })));
        }
        if !plan.background.is_empty() {
            self.start_background(event, std::mem::take(&mut plan.background), input.clone(), env.clone());
        }
        if plan.runs_nothing_now() {
            return Outcome::empty(event);
        }
        let session = self.session_of(input);
        // Cursor's stop hooks read how many follow-ups were made in a row.
        let loops = stop_loops::wanted(event, &plan.now).then(|| stop_loops::count(input, &session));
        let run = PlanRun {
            event,
            hooks: &plan.now,
            sequential: plan.sequential,
            fail_fast: plan.fail_fast,
            budget: plan.budget,
            env: &env,
        };
        let mut records = self
            .services
            .runner
            .run_plan(run, input, |input, output| {
                hookshot_aggregator::chain(event, input, output)
            })
            .await;
        let mut unsaved = Vec::new();
        unsaved.extend(context_cap::cut(cx.agent, &mut records, event, &session));
        if let Some(n) = loops {
            unsaved.extend(stop_loops::cap(&mut records, n));
        }
        let mut outcome = hookshot_aggregator::aggregate(event, records);
        // Guards judge the tool call that will run: after every rewrite.
        if !plan.guards.is_empty() && !outcome.is_blocked() {
            let mut last = input.clone();
            hookshot_aggregator::chain(event, &mut last, &outcome.output);
            let run = PlanRun {
                hooks: &plan.guards,
                sequential: false,
                ..run
            };
            let mut judged = self.services.runner.run_plan(run, &mut last, |_, _| {}).await;
            unsaved.extend(context_cap::cut(cx.agent, &mut judged, event, &session));
            let mut records = std::mem::take(&mut outcome.records);
            records.extend(judged);
            outcome = hookshot_aggregator::aggregate(event, records);
        }
        outcome.warnings.extend(unsaved);
        // Observers of skipped tools hear of a tool only once it is blocked.
        if outcome.is_blocked() && !plan.on_block.is_empty() {
            let run = PlanRun {
                hooks: &plan.on_block,
                sequential: false,
                ..run
            };
            let told = self.services.runner.run_plan(run, input, |_, _| {}).await;
            outcome.warnings.extend(told.iter().filter_map(HookRecord::warning));
            outcome.records.extend(told);
        }
        if let Some(n) = loops
            && let Err(e) = stop_loops::record(&session, n, outcome.is_blocked())
        {
            outcome
                .warnings
                .push(format!("the stop follow-ups of this session could not be counted: {e}"));
        }
        outcome
    }

    /// Starts the hooks the agent does not wait for, all at once, each with
    /// its own timeout and no event budget (the event is over for them).
    pub(crate) fn start_background(
        &self,
        event: EventKind,
        hooks: Vec<Arc<HookDef>>,
        mut input: Map<String, Value>,
        env: RunEnv,
    ) {
        let runner = self.services.runner.clone();
        let metrics = Arc::clone(&self.services.metrics);
        let session = self.session_of(&input);
        let work = async move {
            let run = PlanRun {
                event,
                hooks: &hooks,
                sequential: false,
                fail_fast: false,
                budget: None,
                env: &env,
            };
            runner.run_plan(run, &mut input, |_, _| {}).await
        };
        self.services
            .background
            .start(session, work, move |records| metrics.record(records));
    }

    /// The session an event belongs to: the caller's, else this system's.
    pub(crate) fn session_of(&self, input: &Map<String, Value>) -> String {
        input
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or(&self.services.session_id)
            .to_string()
    }
}
