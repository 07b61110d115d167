//! "Why didn't my hook fire?": every hook known for an event, from every
//! source, with whether it would run for one input and exactly why not.
//! What runs, in which phase, is the event's plan ([`EventPlan`]), the
//! value `fire` runs; the reasons for the rest are the planner's and the
//! registry's own.

use std::sync::Arc;

use hookshot_core::{EventKind, HookDef};
use hookshot_planner::Verdict;
use hookshot_registry::Skipped;
use serde_json::{Map, Value};

use crate::HookSystem;
use crate::event_plan::{EventPlan, NotRun};

/// When a running hook runs, within its event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// With the event's hooks, their answers merged.
    Now,
    /// After them, judging the tool call as it will run.
    Guard,
    /// Only once the tool call is blocked.
    OnBlock,
    /// After the answer (`async`).
    Background,
}

/// What [`HookSystem::explain`] found.
#[derive(Debug)]
pub struct Explanation {
    /// The event.
    pub event: EventKind,
    /// What the matchers were tested against (tool name, or the trigger
    /// field the event matches on); `None` when the event has no matcher
    /// target or the input lacks it.
    pub target: Option<String>,
    /// The model named in the input, for model filters.
    pub model: Option<String>,
    /// The tool call's main argument (command, path), for `if` rules and
    /// `Tool(glob)` filters.
    pub argument: Option<String>,
    /// Whether the hooks that run, run one after the other.
    pub sequential: bool,
    /// Every hook registered for the event, lowest precedence first.
    pub hooks: Vec<Explained>,
}

/// One hook and its fate.
#[derive(Debug)]
pub struct Explained {
    /// The hook.
    pub hook: Arc<HookDef>,
    /// Whether it runs, and why not.
    pub why: Why,
}

/// Whether a hook runs for the input, and why not.
#[derive(Debug)]
pub enum Why {
    /// It runs, at this position of the event's plan, in this phase;
    /// `background` when it runs after the answer (`async`).
    Runs {
        /// Position in the plan (0 first).
        position: usize,
        /// Runs after the answer, not within it.
        background: bool,
        /// When, within the event.
        phase: Phase,
    },
    /// Its file is not trusted.
    Untrusted,
    /// A disable list or `enabled: false` switched it off: which file, how.
    Disabled(String),
    /// Its matcher does not match the target.
    NoMatch,
    /// Its model filter does not match the model.
    Model,
    /// Its `if` rule does not hold for this call.
    Condition,
    /// The same hook (same command, same kind) runs from this higher
    /// precedence definition instead.
    Duplicate(Arc<HookDef>),
    /// The hookshot above this one (which started one of its hooks, which
    /// started this process) runs it already.
    RunByParent,
    /// hookshot is nested this deep in its own hooks: the event is blocked.
    NestingLimit(u32),
}

impl HookSystem {
    /// Every hook known for `event` and whether it would run for `input`
    /// (completed as [`HookSystem::fire`] completes it), and why not. No
    /// hook runs.
    pub fn explain(&self, event: EventKind, input: &Map<String, Value>) -> Explanation {
        let mut input = input.clone();
        self.complete_input(event, &mut input);
        let (verdicts, target) = self.target_of(event, &input, |t| {
            let (_, verdicts) = self.load.planner.explain(event, t);
            let own = |s: Option<&str>| s.map(str::to_string);
            (verdicts, (own(t.name), own(t.model), own(t.argument)))
        });
        let plan = self.event_plan(event, &input, |_| true);
        let mut hooks: Vec<Explained> = self
            .load
            .registry
            .skipped()
            .iter()
            .filter(|(h, _)| h.event == event)
            .map(|(h, skipped)| Explained {
                hook: Arc::clone(h),
                why: match skipped {
                    Skipped::Untrusted => Why::Untrusted,
                    Skipped::Disabled(by) => Why::Disabled(by.clone()),
                },
            })
            .collect();
        for (hook, verdict) in verdicts {
            let why = match verdict {
                Verdict::NoMatch => Why::NoMatch,
                Verdict::Model => Why::Model,
                Verdict::Condition => Why::Condition,
                Verdict::Duplicate(of) => Why::Duplicate(of),
                Verdict::Runs(_) => fate(&plan, &hook),
            };
            hooks.push(Explained { hook, why });
        }
        let (name, model, argument) = target;
        Explanation {
            event,
            target: name,
            model,
            argument,
            sequential: plan.sequential,
            hooks,
        }
    }
}

/// What the plan does with `hook`, which the planner matched.
fn fate(plan: &EventPlan, hook: &Arc<HookDef>) -> Why {
    let phases = [
        (&plan.now, Phase::Now),
        (&plan.guards, Phase::Guard),
        (&plan.on_block, Phase::OnBlock),
        (&plan.background, Phase::Background),
    ];
    let mut position = 0;
    for (hooks, phase) in phases {
        if let Some(i) = hooks.iter().position(|h| Arc::ptr_eq(h, hook)) {
            return Why::Runs {
                position: position + i,
                background: phase == Phase::Background,
                phase,
            };
        }
        position += hooks.len();
    }
    match plan
        .not_run
        .iter()
        .find(|(h, _)| Arc::ptr_eq(h, hook))
        .map(|(_, why)| why)
    {
        Some(NotRun::RunByParent) => Why::RunByParent,
        Some(NotRun::NestingLimit(depth)) => Why::NestingLimit(*depth),
        // Handed to a detached hookshot: it runs, after the answer.
        Some(NotRun::Elsewhere) => Why::Runs {
            position: position
                + plan
                    .not_run
                    .iter()
                    .filter(|(_, w)| *w == NotRun::Elsewhere)
                    .position(|(h, _)| Arc::ptr_eq(h, hook))
                    .unwrap_or(0),
            background: true,
            phase: Phase::Background,
        },
        // A hook the planner matched is always in the plan; were it not,
        // it would not run.
        None => Why::NoMatch,
    }
}
