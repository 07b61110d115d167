//! "Why didn't my hook fire?": every hook known for an event, from every
//! source, with whether it would run for one input and exactly why not.
//! The answer is computed by the same planner, registry and nesting rules
//! the event path uses, never by a second copy of them.

use std::sync::Arc;

use hookshot_core::{EventKind, HookDef};
use hookshot_planner::Verdict;
use hookshot_registry::Skipped;
use serde_json::{Map, Value};

use crate::{HookSystem, MAX_DEPTH, nesting};

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
    /// It runs, at this position of the plan; `background` when it runs
    /// after the answer (`async`).
    Runs {
        /// Position in the plan (0 first).
        position: usize,
        /// Runs after the answer, not within it.
        background: bool,
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
        let (plan, verdicts, target) = self.target_of(event, &input, |t| {
            let (plan, verdicts) = self.planner.explain(event, t);
            let own = |s: Option<&str>| s.map(str::to_string);
            (plan, verdicts, (own(t.name), own(t.model), own(t.argument)))
        });
        let nesting = self.nesting.get_or_init(nesting::Nesting::detect);
        let mut hooks: Vec<Explained> = self
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
                Verdict::Runs(position) => {
                    let print = self.fingerprint_of(&hook);
                    if nesting.parent_hooks.contains(&print) {
                        Why::RunByParent
                    } else if nesting.depth >= MAX_DEPTH {
                        Why::NestingLimit(nesting.depth)
                    } else {
                        Why::Runs {
                            position,
                            background: hook.options.background.is_on(),
                        }
                    }
                }
            };
            hooks.push(Explained { hook, why });
        }
        let (name, model, argument) = target;
        Explanation {
            event,
            target: name,
            model,
            argument,
            sequential: plan.mode == hookshot_planner::Mode::Sequential,
            hooks,
        }
    }
}
