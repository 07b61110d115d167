//! Planning one BeforeTool event with 1,000 and 10,000 registered hooks,
//! matchers mixed as in the bench-anchor workload (exact names, `a|b`
//! lists, `^mcp__srv<i>__.*`, `mcp__srv<k>__tool_<i>`, genuine regexes),
//! 1 % of them matching `write_file`. The naive per-hook matcher (each
//! regex compiled per event, as gemini-cli does) is the baseline measured
//! in the same run.

#![expect(
    missing_docs,
    reason = "criterion_group! and criterion_main! generate undocumented entry points"
)]

use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hookshot_core::{EventKind, HookAction, HookDef, MatcherSpec};
use hookshot_planner::{Planner, Target, naive_plan};

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

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("plan_before_tool");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    let target = Target {
        name: Some("write_file"),
        ..Target::default()
    };
    for n in [1_000, 10_000] {
        let hooks = workload(n);
        let planner = Planner::new(&hooks).expect("matchers compile");
        assert_eq!(planner.plan(EventKind::BeforeTool, target).hooks.len(), n / 100);
        g.bench_with_input(BenchmarkId::new("compiled", n), &n, |b, _| {
            b.iter(|| planner.plan(EventKind::BeforeTool, target))
        });
        if n == 1_000 {
            g.bench_with_input(BenchmarkId::new("naive", n), &n, |b, _| {
                b.iter(|| naive_plan(&hooks, EventKind::BeforeTool, target))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
