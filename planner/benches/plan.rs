//! Planning BeforeTool events with 1,000 and 10,000 registered hooks,
//! matchers mixed as in the bench-anchor workload (exact names, `a|b`
//! lists, `^mcp__srv<i>__.*`, `mcp__srv<k>__tool_<i>`, genuine regexes),
//! 1 % of them matching `write_file`.
//!
//! Each iteration plans the next of 256 varied targets (common tools,
//! hooked and unhooked MCP tools, names no hook knows), so no row measures
//! one hot cache entry. Rows, all in the same run:
//! - `uncached`: the compiled planner, matching every time;
//! - `cached`: the same through the plan cache (a hit after the first
//!   round), to decide whether the cache earns its place;
//! - `scan_compiled`: the fair naive matcher, every regex compiled once,
//!   each hook tested in turn;
//! - `naive` (1,000 only): each regex compiled per event, as gemini-cli
//!   does.

#![expect(
    missing_docs,
    reason = "criterion_group! and criterion_main! generate undocumented entry points"
)]

use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hookshot_core::{EventKind, HookAction, HookDef, MatcherSpec};
use hookshot_planner::{Planner, Target, naive_plan};
use regex::Regex;

fn workload(n: usize) -> Vec<Arc<HookDef>> {
    (0..n)
        .map(|i| {
            let matcher = if i % 100 == 0 {
                // The 1 % that match write_file.
                ["write_file", "read_file|write_file", "write_file|replace", "^write_.*"][(i / 100) % 4].to_string()
            } else {
                match i % 6 {
                    0 => "read_file".to_string(),
                    1 => format!("tool_{i}"),
                    2 => format!("tool_{i}|tool_{}", i + 1),
                    3 => format!("^mcp__srv{i}__.*"),
                    4 => format!("mcp__srv{}__tool_{i}", i % 7),
                    _ => format!("^mcp__srv\\d+__tool_{i}$"),
                }
            };
            let command = HookAction::Command { command: "true".into() };
            Arc::new(HookDef {
                name: Some(format!("h{i}")),
                matcher: MatcherSpec::Regex(matcher),
                ..HookDef::new(format!("h{i}"), EventKind::BeforeTool, command)
            })
        })
        .collect()
}

/// The targets planned in turn: a tool 1 % of hooks match, tools some
/// hooks name, MCP tools with and without hooks, and names no hook knows.
fn targets() -> Vec<String> {
    (0..256)
        .map(|i| match i % 8 {
            0 => "write_file".to_string(),
            1 => "read_file".to_string(),
            2 => format!("tool_{}", i * 37),
            3 => format!("mcp__srv{}__tool_{}", i % 7, i * 11),
            4 => format!("mcp__srv{i}__list"),
            5 => "run_shell_command".to_string(),
            6 => format!("unknown_tool_{i}"),
            _ => format!("mcp__other__thing_{i}"),
        })
        .collect()
}

/// A naive matcher that is fair to it: each hook's regex compiled once,
/// then every hook tested against the target in turn (gemini's rule: the
/// regex matches anywhere in the name).
struct ScanCompiled {
    hooks: Vec<(Arc<HookDef>, Regex)>,
}

impl ScanCompiled {
    fn new(hooks: &[Arc<HookDef>]) -> ScanCompiled {
        let hooks = hooks
            .iter()
            .map(|h| {
                let MatcherSpec::Regex(p) = &h.matcher else {
                    unreachable!("the workload has regex matchers only")
                };
                (Arc::clone(h), Regex::new(p).expect("workload regexes compile"))
            })
            .collect();
        ScanCompiled { hooks }
    }

    fn plan(&self, name: &str) -> Vec<Arc<HookDef>> {
        self.hooks
            .iter()
            .filter(|(_, r)| r.is_match(name))
            .map(|(h, _)| Arc::clone(h))
            .collect()
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("plan_before_tool");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    let names = targets();
    let target = |i: usize| Target {
        name: Some(names[i % names.len()].as_str()),
        ..Target::default()
    };
    for n in [1_000, 10_000] {
        let hooks = workload(n);
        let planner = Planner::new(&hooks).expect("matchers compile");
        let scan = ScanCompiled::new(&hooks);
        // The three agree on every target before any is timed.
        for (i, name) in names.iter().enumerate() {
            let labels = |p: &[Arc<HookDef>]| p.iter().map(|h| h.identity.clone()).collect::<Vec<_>>();
            let planned = planner.plan_uncached(EventKind::BeforeTool, target(i)).hooks;
            assert_eq!(labels(&planned), labels(&scan.plan(name)), "target {name}");
            assert_eq!(
                labels(&planned),
                labels(&planner.plan(EventKind::BeforeTool, target(i)).hooks)
            );
        }
        assert_eq!(
            planner.plan_uncached(EventKind::BeforeTool, target(0)).hooks.len(),
            n / 100
        );
        let mut i = 0;
        g.bench_with_input(BenchmarkId::new("uncached", n), &n, |b, _| {
            b.iter(|| {
                i += 1;
                planner.plan_uncached(EventKind::BeforeTool, target(i))
            })
        });
        g.bench_with_input(BenchmarkId::new("cached", n), &n, |b, _| {
            b.iter(|| {
                i += 1;
                planner.plan(EventKind::BeforeTool, target(i))
            })
        });
        g.bench_with_input(BenchmarkId::new("scan_compiled", n), &n, |b, _| {
            b.iter(|| {
                i += 1;
                scan.plan(&names[i % names.len()])
            })
        });
        if n == 1_000 {
            g.bench_with_input(BenchmarkId::new("naive", n), &n, |b, _| {
                b.iter(|| {
                    i += 1;
                    naive_plan(&hooks, EventKind::BeforeTool, target(i))
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
