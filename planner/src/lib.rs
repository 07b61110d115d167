//! hookshot planner: which hooks run for an event, and how.
//!
//! All matchers of an event are compiled once into sets. Regex matchers
//! that are really literals (`write_file`, `Edit|Write`, `^mcp__srv1__.*`)
//! become exact, prefix, suffix or substring probes (`classify`); exact
//! names, prefixes and suffixes are hash-map lookups, substrings one
//! Aho-Corasick automaton, and only genuine regexes (gemini's unanchored
//! ones and Claude's full-match ones, anchored at compile time) go into one
//! `RegexSet`. Planning an event costs a few lookups and one pass of each
//! automaton over the target name, however many hooks are registered, then
//! a sort of the few hooks that matched back into precedence order.

mod classify;
mod regexes;
mod rule;

use std::collections::HashMap;
use std::sync::Arc;

use std::sync::Mutex;

use aho_corasick::AhoCorasick;
use classify::{Classified, Probe};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use hookshot_core::{EventKind, HookDef, MatchTarget, MatcherSpec};

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
    /// The working directory of the call, for path rules relative to it.
    pub cwd: Option<&'a str>,
    /// The tool name or trigger (`source`, `reason`, ...), per the event.
    pub name: Option<&'a str>,
    /// The model name, for jcli's `model_prefix` filters.
    pub model: Option<&'a str>,
    /// The tool's main argument (command, file path), for `Tool(glob)` filters.
    pub argument: Option<&'a str>,
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

/// Literal probes keyed by their text, with the distinct key lengths (so a
/// target is probed only at lengths some key has).
#[derive(Debug, Default)]
struct Affixes {
    keys: HashMap<String, Vec<u32>>,
    lens: Vec<usize>,
}

impl Affixes {
    fn add(&mut self, key: String, id: u32) {
        if !self.lens.contains(&key.len()) {
            self.lens.push(key.len());
        }
        push_id(self.keys.entry(key).or_default(), id);
    }

    fn probe(&self, name: &str, prefix: bool, ids: &mut Vec<u32>) {
        for &l in &self.lens {
            if l > name.len() {
                continue;
            }
            let at = if prefix { l } else { name.len() - l };
            if !name.is_char_boundary(at) {
                continue;
            }
            let part = if prefix { &name[..at] } else { &name[at..] };
            if let Some(v) = self.keys.get(part) {
                ids.extend_from_slice(v);
            }
        }
    }
}

fn push_id(ids: &mut Vec<u32>, id: u32) {
    if ids.last() != Some(&id) {
        ids.push(id);
    }
}

#[derive(Debug, Default)]
struct EventIndex {
    /// Hooks that match every target (or whose event ignores matchers).
    any: Vec<u32>,
    exact: HashMap<String, Vec<u32>>,
    prefix: Affixes,
    suffix: Affixes,
    /// Substring probes, and the hooks of each pattern.
    contains: Option<Substrings>,
    contains_hooks: Vec<Vec<u32>>,
    regex: Option<regexes::Regexes>,
    /// For pattern `i` of `regex`, the hook it belongs to.
    regex_hooks: Vec<u32>,
    /// JavaScript matchers the `regex` crate would read otherwise, each on
    /// the ECMAScript engine, and the hook of each.
    scripts: Vec<(regress::Regex, u32)>,
    /// Some hook of this event has an `if` rule (plans then depend on the
    /// whole call, not on the name alone).
    has_conditions: bool,
    /// Argument filters by tool name: one glob set, and the hook of each glob.
    arg_filters: HashMap<String, (GlobSet, Vec<u32>)>,
    has_model_filter: bool,
}

/// Up to this many distinct substrings are searched one by one: building
/// an automaton costs more than the searches of a one-shot `fire`, which
/// plans one event.
const FEW_SUBSTRINGS: usize = 32;

/// The substring matchers of an event.
#[derive(Debug)]
enum Substrings {
    /// Few: each is looked for in turn.
    Few(Vec<String>),
    /// Many: one automaton finds them all in one pass.
    Many(AhoCorasick),
}

impl Substrings {
    /// Calls `found` with the index of every pattern `name` contains.
    fn each_in(&self, name: &str, mut found: impl FnMut(usize)) {
        match self {
            Substrings::Few(patterns) => {
                for (i, p) in patterns.iter().enumerate() {
                    if name.contains(p.as_str()) {
                        found(i);
                    }
                }
            }
            Substrings::Many(ac) => {
                for m in ac.find_overlapping_iter(name) {
                    found(m.pattern().as_usize());
                }
            }
        }
    }
}

/// An event's matchers while they are being collected.
#[derive(Debug, Default)]
struct Collecting {
    idx: EventIndex,
    contains: Vec<(String, Vec<u32>)>,
    /// Where each substring is in `contains`.
    contains_at: HashMap<String, usize>,
    /// Patterns for the regex engine (as compiled), each with its parsed
    /// form.
    patterns: Vec<(String, regex_syntax::hir::Hir)>,
    globs: HashMap<String, (GlobSetBuilder, Vec<u32>)>,
}

impl Collecting {
    fn probe(&mut self, probe: Probe, id: u32) {
        self.classified(Classified { probe, one_line: false }, id);
    }

    /// Adds a probe; one that holds only for one-line targets stores its
    /// hook id tagged with [`ONE_LINE`].
    fn classified(&mut self, c: Classified, id: u32) {
        let Classified { probe, one_line } = c;
        let id = if one_line { id | ONE_LINE } else { id };
        let idx = &mut self.idx;
        match probe {
            Probe::Any => push_id(&mut idx.any, id),
            Probe::Exact(s) => push_id(idx.exact.entry(s).or_default(), id),
            Probe::Prefix(s) => idx.prefix.add(s, id),
            Probe::Suffix(s) => idx.suffix.add(s, id),
            // By hash, not by a search of the list: with tens of thousands
            // of distinct substrings a search made loading quadratic.
            Probe::Contains(s) => match self.contains_at.get(&s) {
                Some(&at) => push_id(&mut self.contains[at].1, id),
                None => {
                    self.contains_at.insert(s.clone(), self.contains.len());
                    self.contains.push((s, vec![id]));
                }
            },
        }
    }

    fn regex(&mut self, pattern: String, hir: regex_syntax::hir::Hir, id: u32) {
        self.patterns.push((pattern, hir));
        self.idx.regex_hooks.push(id);
    }
}

/// The tag on a probe's hook id for "only when the target is one line"
/// (hook ids are indices, far below it).
const ONE_LINE: u32 = 1 << 31;

/// Plans kept, at most; the cache is emptied when it fills.
const CACHE_LIMIT: usize = 4096;

/// Compiled matchers of one registry snapshot. A new registry means a new
/// planner, so cached plans never outlive the hooks they were made from.
#[derive(Debug, Default)]
pub struct Planner {
    hooks: Vec<Arc<HookDef>>,
    /// Each hook's compiled `if` rule, by hook id.
    conditions: Vec<Option<rule::CompiledRule>>,
    events: HashMap<EventKind, EventIndex>,
    cache: Mutex<HashMap<(EventKind, String), Plan>>,
}

impl Planner {
    /// Compiles the matchers of `hooks` (given in precedence order).
    pub fn new(hooks: &[Arc<HookDef>]) -> Result<Planner, Error> {
        let mut events: HashMap<EventKind, Collecting> = HashMap::new();
        let mut conditions = Vec::with_capacity(hooks.len());
        for (i, h) in hooks.iter().enumerate() {
            let id = i as u32;
            let c = events.entry(h.event).or_default();
            c.idx.has_model_filter |= h.model_prefix.is_some();
            let condition = match &h.options.condition {
                Some(r) => Some(rule::CompiledRule::new(r).map_err(|message| Error {
                    hook: h.label().to_string(),
                    provenance: h.provenance.to_string(),
                    message,
                })?),
                None => None,
            };
            c.idx.has_conditions |= condition.is_some();
            conditions.push(condition);
            let spec = if h.event.match_target() == MatchTarget::None {
                &MatcherSpec::Any
            } else {
                &h.matcher
            };
            match spec {
                MatcherSpec::Any => c.probe(Probe::Any, id),
                MatcherSpec::Exact(names) => {
                    for n in names {
                        c.probe(Probe::Exact(n.clone()), id);
                    }
                }
                MatcherSpec::ToolArgs(filters) => {
                    for (tool, glob) in filters {
                        let g = arg_glob(tool, glob).map_err(|e| Error {
                            hook: h.label().to_string(),
                            provenance: h.provenance.to_string(),
                            message: e.to_string(),
                        })?;
                        let (b, ids) = c
                            .globs
                            .entry(tool.clone())
                            .or_insert_with(|| (GlobSetBuilder::new(), Vec::new()));
                        b.add(g);
                        ids.push(id);
                    }
                }
                MatcherSpec::Script(p) => {
                    let re = regress::Regex::with_flags(p, "").map_err(|e| Error {
                        hook: h.label().to_string(),
                        provenance: h.provenance.to_string(),
                        message: e.to_string(),
                    })?;
                    c.idx.scripts.push((re, id));
                }
                MatcherSpec::Regex(p) | MatcherSpec::FullRegex(p) => {
                    let full = matches!(spec, MatcherSpec::FullRegex(_));
                    match classify::matcher(p, full) {
                        Ok(classify::Matcher::Probes(probes)) => probes.into_iter().for_each(|pr| c.classified(pr, id)),
                        Ok(classify::Matcher::Regex(hir)) if full => c.regex(format!("^(?:{p})$"), hir, id),
                        Ok(classify::Matcher::Regex(hir)) => c.regex(p.clone(), hir, id),
                        Err(message) => {
                            return Err(Error {
                                hook: h.label().to_string(),
                                provenance: h.provenance.to_string(),
                                message,
                            });
                        }
                    }
                }
            }
        }
        let mut out = HashMap::with_capacity(events.len());
        for (event, c) in events {
            let mut idx = c.idx;
            if !c.patterns.is_empty() {
                let set = regexes::Regexes::new(c.patterns).map_err(|(bad, message)| {
                    let h = &hooks[idx.regex_hooks[bad] as usize];
                    Error {
                        hook: h.label().to_string(),
                        provenance: h.provenance.to_string(),
                        message,
                    }
                })?;
                idx.regex = Some(set);
            }
            for (tool, (builder, ids)) in c.globs {
                let set = builder.build().map_err(|e| Error {
                    hook: tool.clone(),
                    provenance: event.to_string(),
                    message: e.to_string(),
                })?;
                idx.arg_filters.insert(tool, (set, ids));
            }
            if c.contains.len() > FEW_SUBSTRINGS {
                // The targets searched are names (a tool, a source): short
                // enough that the cheapest automaton to build wins. A DFA
                // took a fifth of a one-shot `fire`'s own time to build,
                // for one search.
                let ac = AhoCorasick::builder()
                    .kind(Some(aho_corasick::AhoCorasickKind::NoncontiguousNFA))
                    .prefilter(false)
                    .build(c.contains.iter().map(|(k, _)| k.as_str()))
                    .map_err(|e| Error {
                        hook: String::from("(substring matchers)"),
                        provenance: event.to_string(),
                        message: e.to_string(),
                    })?;
                idx.contains = Some(Substrings::Many(ac));
            } else if !c.contains.is_empty() {
                idx.contains = Some(Substrings::Few(c.contains.iter().map(|(k, _)| k.clone()).collect()));
            }
            idx.contains_hooks = c.contains.into_iter().map(|(_, ids)| ids).collect();
            out.insert(event, idx);
        }
        Ok(Planner {
            hooks: hooks.to_vec(),
            conditions,
            events: out,
            cache: Mutex::default(),
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

    /// The plan for `event` against `target`. Plans that depend on the
    /// target's name alone are cached.
    pub fn plan(&self, event: EventKind, target: Target<'_>) -> Plan {
        let Some(idx) = self.events.get(&event) else {
            return Plan {
                hooks: Vec::new(),
                mode: Mode::Parallel,
            };
        };
        let cacheable = !idx.has_model_filter && !idx.has_conditions && idx.arg_filters.is_empty();
        if !cacheable {
            return self.compute(idx, target);
        }
        let key = (event, target.name.unwrap_or("").to_string());
        if let Some(p) = self.cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return p;
        }
        let plan = self.compute(idx, target);
        if let Ok(mut c) = self.cache.lock() {
            if c.len() >= CACHE_LIMIT {
                c.clear();
            }
            c.insert(key, plan.clone());
        }
        plan
    }

    /// The hooks whose matcher matches the tool or trigger `name`.
    fn matching(&self, idx: &EventIndex, name: &str, argument: Option<&str>, ids: &mut Vec<u32>) {
        if let Some(v) = idx.exact.get(name) {
            ids.extend_from_slice(v);
        }
        idx.prefix.probe(name, true, ids);
        idx.suffix.probe(name, false, ids);
        if let Some(substrings) = &idx.contains {
            substrings.each_in(name, |i| ids.extend_from_slice(&idx.contains_hooks[i]));
        }
        if let Some(set) = &idx.regex {
            ids.extend(set.matches(name).into_iter().map(|p| idx.regex_hooks[p]));
        }
        ids.extend(
            idx.scripts
                .iter()
                .filter(|(re, _)| re.find(name).is_some())
                .map(|(_, id)| *id),
        );
        if let (Some((set, hooks)), Some(arg)) = (idx.arg_filters.get(name), argument) {
            ids.extend(set.matches(arg).into_iter().map(|g| hooks[g]));
        }
    }

    /// The plan computed afresh, bypassing the cache (what `plan_us` in
    /// `hookshot bench` measures: matching included).
    pub fn plan_uncached(&self, event: EventKind, target: Target<'_>) -> Plan {
        match self.events.get(&event) {
            Some(idx) => self.compute(idx, target),
            None => Plan {
                hooks: Vec::new(),
                mode: Mode::Parallel,
            },
        }
    }

    fn compute(&self, idx: &EventIndex, target: Target<'_>) -> Plan {
        let ids = self.candidates(idx, target);
        let mut hooks: Vec<Arc<HookDef>> = Vec::with_capacity(ids.len());
        for id in ids {
            if self.refusal(idx, id, target).is_none() {
                hooks.push(Arc::clone(&self.hooks[id as usize]));
            }
        }
        dedup_by_identity(&mut hooks);
        let mode = if hooks.iter().any(|h| h.sequential) {
            Mode::Sequential
        } else {
            Mode::Parallel
        };
        Plan { hooks, mode }
    }

    /// The ids of the hooks whose matcher matches, sorted.
    fn candidates(&self, idx: &EventIndex, target: Target<'_>) -> Vec<u32> {
        let name = target.name.unwrap_or("");
        let mut ids: Vec<u32> = idx.any.clone();
        // A matcher naming the tool in any agent's words matches it:
        // Claude's `Bash` is gemini's `run_shell_command`.
        self.matching(idx, name, target.argument, &mut ids);
        for alias in hookshot_core::tools::aliases(name) {
            self.matching(idx, alias, target.argument, &mut ids);
        }
        // Probes from a `.` that stops at newlines hold for one-line
        // targets only.
        let multiline = name.contains('\n');
        ids.retain_mut(|id| {
            let tagged = *id & ONE_LINE != 0;
            *id &= !ONE_LINE;
            !(tagged && multiline)
        });
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Why a hook whose matcher matched does not run for this call, if it
    /// does not: its model filter or its `if` rule.
    fn refusal(&self, idx: &EventIndex, id: u32, target: Target<'_>) -> Option<Verdict> {
        let h = &self.hooks[id as usize];
        if idx.has_model_filter
            && let Some(prefix) = &h.model_prefix
            && !target.model.is_some_and(|m| m.starts_with(prefix.as_str()))
        {
            return Some(Verdict::Model);
        }
        if let Some(rule) = &self.conditions[id as usize]
            && !rule.matches(target.name, target.argument, target.cwd)
        {
            return Some(Verdict::Condition);
        }
        None
    }

    /// The plan, and for every hook of `event` whether it is in the plan
    /// and, if not, why: what `hookshot explain` shows. Slower than
    /// [`Planner::plan`]; not for the event path.
    pub fn explain(&self, event: EventKind, target: Target<'_>) -> (Plan, Vec<(Arc<HookDef>, Verdict)>) {
        let plan = self.plan_uncached(event, target);
        let Some(idx) = self.events.get(&event) else {
            return (plan, Vec::new());
        };
        let candidates = self.candidates(idx, target);
        let verdicts = (0..self.hooks.len() as u32)
            .filter(|&id| self.hooks[id as usize].event == event)
            .map(|id| {
                let h = &self.hooks[id as usize];
                let verdict = if candidates.binary_search(&id).is_err() {
                    Verdict::NoMatch
                } else if let Some(v) = self.refusal(idx, id, target) {
                    v
                } else if let Some(at) = plan.hooks.iter().position(|p| Arc::ptr_eq(p, h)) {
                    Verdict::Runs(at)
                } else {
                    let kept = plan.hooks.iter().find(|p| p.identity == h.identity);
                    Verdict::Duplicate(kept.cloned().unwrap_or_else(|| Arc::clone(h)))
                };
                (Arc::clone(h), verdict)
            })
            .collect();
        (plan, verdicts)
    }
}

/// Whether one hook is in a plan, and why not.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// In the plan, at this position.
    Runs(usize),
    /// Its matcher does not match the target.
    NoMatch,
    /// Its model filter (jcli `model_prefix`) does not match the model.
    Model,
    /// Its `if` rule does not hold for this call.
    Condition,
    /// The same hook runs from the source of higher precedence named here.
    Duplicate(Arc<HookDef>),
}

/// A `Tool(glob)` filter's glob: over a shell command `*` matches anything
/// (`git push*`); over a path it stops at `/` and `**` crosses directories.
fn arg_glob(tool: &str, glob: &str) -> Result<globset::Glob, globset::Error> {
    let shell = matches!(tool, "Bash" | "run_shell_command" | "shell" | "Shell");
    GlobBuilder::new(glob).literal_separator(!shell).build()
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
    let names: Vec<&str> = std::iter::once(name)
        .chain(hookshot_core::tools::aliases(name).map(|a| -> &str { a }))
        .collect();
    let matches = |h: &HookDef, name: &str| match &h.matcher {
        MatcherSpec::Any => true,
        MatcherSpec::Exact(names) => names.iter().any(|n| n == name),
        MatcherSpec::Regex(p) => regex::Regex::new(p).is_ok_and(|r| r.is_match(name)),
        MatcherSpec::Script(p) => regress::Regex::with_flags(p, "").is_ok_and(|r| r.find(name).is_some()),
        MatcherSpec::FullRegex(p) => regex::Regex::new(&format!("^(?:{p})$")).is_ok_and(|r| r.is_match(name)),
        MatcherSpec::ToolArgs(filters) => filters.iter().any(|(tool, glob)| {
            tool == name
                && target
                    .argument
                    .is_some_and(|a| arg_glob(tool, glob).is_ok_and(|g| g.compile_matcher().is_match(a)))
        }),
    };
    let mut out: Vec<Arc<HookDef>> = hooks
        .iter()
        .filter(|h| h.event == event)
        .filter(|h| event.match_target() == MatchTarget::None || names.iter().any(|n| matches(h, n)))
        .filter(|h| {
            h.model_prefix
                .as_ref()
                .is_none_or(|p| target.model.is_some_and(|m| m.starts_with(p.as_str())))
        })
        .filter(|h| {
            h.options.condition.as_ref().is_none_or(|r| {
                rule::CompiledRule::new(r).is_ok_and(|r| r.matches(target.name, target.argument, target.cwd))
            })
        })
        .cloned()
        .collect();
    dedup_by_identity(&mut out);
    out
}

#[cfg(test)]
mod tests;
