//! What one event will do, decided in one place: which hooks run within
//! the event and in which phase, which run after the answer, which do not
//! run and why, sequential or parallel, the budget. `fire` runs this value
//! and `explain` prints it, so the two cannot disagree.

use std::sync::Arc;
use std::time::Duration;

use hookshot_core::{EventKind, HookDef};
use hookshot_planner::Mode;
use serde_json::{Map, Value};

use crate::background::BackgroundMode;
use crate::{HookSystem, MAX_DEPTH, Strategy, builtins, nesting};

/// The plan of one event.
#[derive(Debug, Clone)]
pub struct EventPlan {
    /// The event.
    pub event: EventKind,
    /// The hooks that run within the event, first: their answers merge, and
    /// when sequential each sees the input as the ones before rewrote it.
    pub now: Vec<Arc<HookDef>>,
    /// Guards that judge the tool call as it will run, after every rewrite
    /// of the first phase (`dangerous_confirmation`); they run unless the
    /// first phase blocked.
    pub guards: Vec<Arc<HookDef>>,
    /// Hooks that hear of a tool call only once it is blocked (observers
    /// of skipped tools).
    pub on_block: Vec<Arc<HookDef>>,
    /// Hooks started after the answer (`async`), not waited for.
    pub background: Vec<Arc<HookDef>>,
    /// Hooks that matched but do not run, and why.
    pub not_run: Vec<(Arc<HookDef>, NotRun)>,
    /// Whether the first phase runs one hook after the other.
    pub sequential: bool,
    /// Whether the first block stops the hooks after it.
    pub fail_fast: bool,
    /// The time the whole event may take (a jcli chain's, or the
    /// embedder's).
    pub budget: Option<Duration>,
    /// hookshot is nested this deep in its own hooks: the event is
    /// blocked and nothing runs.
    pub nesting_limit: Option<u32>,
    /// Each running hook's fingerprint, for the hooks' environment (the
    /// hookshot inside them must not run them again).
    pub(crate) prints: Vec<u64>,
    /// When the event was planned: the results of background runs spooled
    /// after it (this event's own, handed off after planning) wait for the
    /// session's next event, so whether an event hears its own background
    /// hooks never depends on which process was faster.
    pub(crate) planned_at: std::time::SystemTime,
}

/// Why a hook that matched does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotRun {
    /// The hookshot above this one (which started one of its hooks, which
    /// started this process) runs it already.
    RunByParent,
    /// hookshot is nested this deep in its own hooks.
    NestingLimit(u32),
    /// A background hook where background hooks run elsewhere (the one-shot
    /// `fire` hands them to a detached hookshot).
    Elsewhere,
}

impl EventPlan {
    /// Every hook that runs, in phase order (background last).
    pub fn running(&self) -> impl Iterator<Item = &Arc<HookDef>> {
        self.now
            .iter()
            .chain(&self.guards)
            .chain(&self.on_block)
            .chain(&self.background)
    }

    /// Whether nothing runs within the event.
    pub fn runs_nothing_now(&self) -> bool {
        self.now.is_empty() && self.guards.is_empty() && self.on_block.is_empty()
    }
}

/// What a one-shot run hands to a detached `hookshot` for its background
/// hooks: exactly the hooks its own plan sends elsewhere (so each runs
/// once, whoever else is nested), and the depth it was handed off at (so
/// the limit holds for the detached run, which has no hookshot above it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BackgroundJob {
    /// The event's input, as the agent sent it.
    pub input: Map<String, Value>,
    /// The fingerprints of the hooks to run, in hex.
    pub hooks: Vec<String>,
    /// The nesting depth of the process that handed them off.
    pub depth: u32,
}

impl HookSystem {
    /// The background job of a planned call: `None` when its plan runs no
    /// background hook elsewhere (none matched, the parent runs them, or
    /// the nesting limit blocks the event).
    pub fn background_job(&self, planned: &crate::Planned) -> Option<BackgroundJob> {
        if !self.load.has_background {
            return None;
        }
        let hooks: Vec<String> = planned
            .plan()
            .not_run
            .iter()
            .filter(|(_, why)| matches!(why, NotRun::Elsewhere))
            .map(|(h, _)| format!("{:x}", self.fingerprint_of(h)))
            .collect();
        (!hooks.is_empty()).then(|| BackgroundJob {
            input: planned.call().input.clone(),
            hooks,
            depth: self.services.nesting.get().map_or(0, |n| n.depth),
        })
    }

    /// Runs the hooks of a background job handed off by another `hookshot`
    /// (see [`HookSystem::background_job`]): only those, at the depth it
    /// was handed off at.
    pub async fn run_background_job(&mut self, event: EventKind, job: BackgroundJob) -> hookshot_core::Outcome {
        let detected = nesting::Nesting::detect();
        self.set_nesting(nesting::Nesting {
            depth: detected.depth.max(job.depth),
            parent_hooks: detected.parent_hooks,
        });
        let wanted: Vec<u64> = job
            .hooks
            .iter()
            .filter_map(|h| u64::from_str_radix(h, 16).ok())
            .collect();
        self.fire_where(event, job.input, |h| {
            h.options.background.is_on() && wanted.contains(&self.fingerprint_of(h))
        })
        .await
    }

    /// The plan of `event` for `input` (completed already), with only the
    /// matched hooks `keep` accepts. Nothing runs.
    pub fn event_plan(
        &self,
        event: EventKind,
        input: &Map<String, Value>,
        keep: impl Fn(&HookDef) -> bool,
    ) -> EventPlan {
        self.event_plan_in(&self.default_cx(), event, input, keep)
    }

    /// [`HookSystem::event_plan`] for one event's caller.
    pub(crate) fn event_plan_in(
        &self,
        cx: &crate::EventCx,
        event: EventKind,
        input: &Map<String, Value>,
        keep: impl Fn(&HookDef) -> bool,
    ) -> EventPlan {
        let mut planned = self.plan_for(event, input);
        planned.hooks.retain(|h| keep(h));
        let mut plan = EventPlan {
            event,
            now: Vec::new(),
            guards: Vec::new(),
            on_block: Vec::new(),
            background: Vec::new(),
            not_run: Vec::new(),
            sequential: false,
            fail_fast: self.services.strategy == Strategy::FailFast,
            budget: None,
            nesting_limit: None,
            prints: Vec::new(),
            planned_at: std::time::SystemTime::now(),
        };
        if planned.hooks.is_empty() {
            return plan;
        }
        // Only processes of our own can make this a nested run; built-ins
        // and embedders' hooks run in this process.
        let nesting = self.services.nesting.get_or_init(nesting::Nesting::detect);
        // The hookshot above runs the hooks it listed (one of them started
        // this process): running them again would double every effect.
        let mut hooks = Vec::with_capacity(planned.hooks.len());
        for h in planned.hooks {
            let print = self.fingerprint_of(&h);
            if nesting.parent_hooks.contains(&print) {
                plan.not_run.push((h, NotRun::RunByParent));
            } else {
                hooks.push(h);
                plan.prints.push(print);
            }
        }
        if hooks.is_empty() {
            return plan;
        }
        if nesting.depth >= MAX_DEPTH {
            plan.nesting_limit = Some(nesting.depth);
            plan.not_run
                .extend(hooks.into_iter().map(|h| (h, NotRun::NestingLimit(nesting.depth))));
            plan.prints.clear();
            return plan;
        }
        if self.load.has_background && self.services.background.mode != BackgroundMode::Inline {
            let (later, rest): (Vec<_>, Vec<_>) = hooks.into_iter().partition(|h| h.options.background.is_on());
            hooks = rest;
            match self.services.background.mode {
                BackgroundMode::Tasks => plan.background = later,
                _ => plan.not_run.extend(later.into_iter().map(|h| (h, NotRun::Elsewhere))),
            }
        }
        let mode = if hooks.iter().any(|h| h.sequential) {
            planned.mode
        } else {
            Mode::Parallel
        };
        plan.sequential = match self.services.strategy {
            Strategy::Auto => mode == Mode::Sequential,
            Strategy::Parallel => false,
            Strategy::Sequential | Strategy::FailFast => true,
        };
        // A chain its agent bounds (jcli's) has that budget; an embedder
        // may set one for every event.
        let agents_budget = hooks.first().and_then(|h| h.agent().chain_budget());
        let chain_budget = agents_budget.filter(|b| hooks.iter().all(|h| h.agent().chain_budget() == Some(*b)));
        plan.budget = self.services.event_budget.or(chain_budget);
        // An agent that kills hookshot at a hard limit (Codex, SessionEnd)
        // would leave the hooks' process groups running: the event ends
        // early enough for hookshot to end them itself (TERM, grace, KILL).
        if let Some(limit) = cx.agent.and_then(|a| a.hard_limit(event)) {
            let room = self.runner_config().kill_grace + Duration::from_millis(500);
            let budget = limit.saturating_sub(room);
            plan.budget = Some(plan.budget.map_or(budget, |b| b.min(budget)));
        }
        for h in hooks {
            if event == EventKind::BeforeTool && h.observes_skip() {
                plan.on_block.push(h);
            } else if builtins::judges_final_input(&h) {
                plan.guards.push(h);
            } else {
                plan.now.push(h);
            }
        }
        plan
    }
}
