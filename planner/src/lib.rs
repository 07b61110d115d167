//! hookshot planner: which hooks run for an event, and how.
//!
//! All matchers of an event are compiled once into sets: a hash map from
//! exact names to hooks, and one [`RegexSet`] for every regex matcher
//! (gemini's unanchored ones and Claude's full-match ones, anchored at
//! compile time). Planning an event is one hash lookup and one pass of the
//! regex set, however many hooks are registered, then a sort of the few hooks
//! that matched back into precedence order.

use std::collections::HashMap;
use std::sync::Arc;

use hookshot_core::{EventKind, HookDef, MatchTarget, MatcherSpec};
use regex::RegexSet;

/// How a plan's hooks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// All at once; outputs merged in plan order.
    Parallel,
    /// One after the other, each seeing the input as the previous one left it.
    Sequential,
}

/// The hooks to run for one event, in precedence then file order.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The hooks.
    pub hooks: Vec<Arc<HookDef>>,
    /// How to run them: sequential when any of them asked for it.
    pub mode: Mode,
}

/// What an event is matched against.
#[derive(Debug, Clone, Copy, Default)]
pub struct Target<'a> {
    /// The tool name or trigger (`source`, `reason`, ...), per the event.
    pub name: Option<&'a str>,
    /// The model name, for jcli's `model_prefix` filters.
    pub model: Option<&'a str>,
}

/// A matcher that could not be compiled.
#[derive(Debug, thiserror::Error)]
#[error("{provenance}: invalid matcher of hook {hook}: {message}")]
pub struct Error {
    /// The hook's label.
    pub hook: String,
    /// Where it was defined.
    pub provenance: String,
    /// The regex error.
    pub message: String,
}

#[derive(Debug, Default)]
struct EventIndex {
    /// Hooks that match every target (or whose event ignores matchers).
    any: Vec<u32>,
    exact: HashMap<String, Vec<u32>>,
    regex: Option<RegexSet>,
    /// For pattern `i` of `regex`, the hook it belongs to.
    regex_hooks: Vec<u32>,
    has_model_filter: bool,
}

/// Compiled matchers of one registry snapshot.
#[derive(Debug, Default)]
pub struct Planner {
    hooks: Vec<Arc<HookDef>>,
    events: HashMap<EventKind, EventIndex>,
}

impl Planner {
    /// Compiles the matchers of `hooks` (given in precedence order).
    pub fn new(hooks: &[Arc<HookDef>]) -> Result<Planner, Error> {
        let mut events: HashMap<EventKind, (EventIndex, Vec<String>)> = HashMap::new();
        for (i, h) in hooks.iter().enumerate() {
            let id = i as u32;
            let (idx, patterns) = events.entry(h.event).or_default();
            idx.has_model_filter |= h.model_prefix.is_some();
            let spec = if h.event.match_target() == MatchTarget::None {
                &MatcherSpec::Any
            } else {
                &h.matcher
            };
            match spec {
                MatcherSpec::Any => idx.any.push(id),
                MatcherSpec::Exact(names) => {
                    for n in names {
                        let ids = idx.exact.entry(n.clone()).or_default();
                        if ids.last() != Some(&id) {
                            ids.push(id);
                        }
                    }
                }
                MatcherSpec::Regex(p) => {
                    patterns.push(p.clone());
                    idx.regex_hooks.push(id);
                }
                MatcherSpec::FullRegex(p) => {
                    patterns.push(format!("^(?:{p})$"));
                    idx.regex_hooks.push(id);
                }
            }
        }
        let mut out = HashMap::with_capacity(events.len());
        for (event, (mut idx, patterns)) in events {
            if !patterns.is_empty() {
                let set = RegexSet::new(&patterns).map_err(|e| {
                    // Name the first pattern that fails on its own.
                    let bad = patterns.iter().position(|p| regex::Regex::new(p).is_err()).unwrap_or(0);
                    let h = &hooks[idx.regex_hooks[bad] as usize];
                    Error {
                        hook: h.label().to_string(),
                        provenance: h.provenance.to_string(),
                        message: e.to_string(),
                    }
                })?;
                idx.regex = Some(set);
            }
            out.insert(event, idx);
        }
        Ok(Planner {
            hooks: hooks.to_vec(),
            events: out,
        })
    }

    /// The hooks registered in total.
    pub fn len(&self) -> usize {
        self.hooks.len()
    }

    /// Whether no hook is registered.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// Whether any hook is registered for `event` (lets callers skip building
    /// an input nobody reads).
    pub fn has_hooks(&self, event: EventKind) -> bool {
        self.events.contains_key(&event)
    }

    /// The plan for `event` against `target`.
    pub fn plan(&self, event: EventKind, target: Target<'_>) -> Plan {
        let Some(idx) = self.events.get(&event) else {
            return Plan {
                hooks: Vec::new(),
                mode: Mode::Parallel,
            };
        };
        let name = target.name.unwrap_or("");
        let mut ids: Vec<u32> = idx.any.clone();
        if let Some(v) = idx.exact.get(name) {
            ids.extend_from_slice(v);
        }
        if let Some(set) = &idx.regex {
            ids.extend(set.matches(name).iter().map(|p| idx.regex_hooks[p]));
        }
        ids.sort_unstable();
        ids.dedup();
        let mut hooks: Vec<Arc<HookDef>> = Vec::with_capacity(ids.len());
        for id in ids {
            let h = &self.hooks[id as usize];
            if idx.has_model_filter
                && let Some(prefix) = &h.model_prefix
                && !target.model.is_some_and(|m| m.starts_with(prefix.as_str()))
            {
                continue;
            }
            hooks.push(Arc::clone(h));
        }
        dedup_by_identity(&mut hooks);
        let mode = if hooks.iter().any(|h| h.sequential) {
            Mode::Sequential
        } else {
            Mode::Parallel
        };
        Plan { hooks, mode }
    }
}

/// Keeps, for each identity, only the highest-precedence (last) hook, at
/// its own position: the same hook from a user and a project file runs once.
fn dedup_by_identity(hooks: &mut Vec<Arc<HookDef>>) {
    if hooks.len() < 2 {
        return;
    }
    let mut seen = std::collections::HashSet::with_capacity(hooks.len());
    let mut keep = vec![false; hooks.len()];
    for (i, h) in hooks.iter().enumerate().rev() {
        keep[i] = seen.insert(h.identity.as_str());
    }
    let mut k = keep.into_iter();
    hooks.retain(|_| k.next().unwrap_or(true));
}

/// The reference semantics the compiled planner must equal: each hook's
/// matcher tried on its own. Used by tests and benchmarks as the baseline.
pub fn naive_plan(hooks: &[Arc<HookDef>], event: EventKind, target: Target<'_>) -> Vec<Arc<HookDef>> {
    let name = target.name.unwrap_or("");
    let mut out: Vec<Arc<HookDef>> = hooks
        .iter()
        .filter(|h| h.event == event)
        .filter(|h| {
            event.match_target() == MatchTarget::None
                || match &h.matcher {
                    MatcherSpec::Any => true,
                    MatcherSpec::Exact(names) => names.iter().any(|n| n == name),
                    MatcherSpec::Regex(p) => regex::Regex::new(p).is_ok_and(|r| r.is_match(name)),
                    MatcherSpec::FullRegex(p) => {
                        regex::Regex::new(&format!("^(?:{p})$")).is_ok_and(|r| r.is_match(name))
                    }
                }
        })
        .filter(|h| {
            h.model_prefix
                .as_ref()
                .is_none_or(|p| target.model.is_some_and(|m| m.starts_with(p.as_str())))
        })
        .cloned()
        .collect();
    dedup_by_identity(&mut out);
    out
}

#[cfg(test)]
mod tests;
