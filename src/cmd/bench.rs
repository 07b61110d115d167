//! `hookshot bench`: fire one event repeatedly and report latency.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use hookshot::{EventKind, HookSystem};
use serde_json::{Map, Value, json};

use crate::fail::Fail;
use crate::load::{Sources, build, parse_event, print_load_warnings, read_input};

#[derive(clap::Args, Debug)]
pub(crate) struct BenchArgs {
    /// The event.
    #[arg(value_parser = crate::load::EventName, hide_possible_values = true)]
    event: String,
    #[command(flatten)]
    sources: Sources,
    /// The event input.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Measured iterations.
    #[arg(long, default_value_t = 100)]
    iterations: usize,
    /// Unmeasured iterations first.
    #[arg(long, default_value_t = 5)]
    warmup: usize,
    /// Measure planning only; run no hook.
    #[arg(long)]
    plan_only: bool,
    /// As JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) async fn run(args: BenchArgs) -> Result<u8, Fail> {
    let BenchArgs {
        event,
        sources,
        input,
        iterations,
        warmup,
        plan_only,
        json,
    } = args;
    let (event, _) = parse_event(&event)?;
    let input = read_input(input.as_ref().and_then(|p| p.to_str()))?;
    let hooks = build(&sources)?;
    print_load_warnings(&hooks);
    bench(&hooks, event, input, iterations, warmup, plan_only, json).await
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

async fn bench(
    hooks: &HookSystem,
    event: EventKind,
    mut input: Map<String, Value>,
    iterations: usize,
    warmup: usize,
    plan_only: bool,
    as_json: bool,
) -> Result<u8, Fail> {
    hooks.complete_input(event, &mut input);
    let n_hooks = hooks.plan(event, &input).len();
    let plan_rounds = iterations.max(1000);
    let t = Instant::now();
    let mut matched = 0;
    for _ in 0..plan_rounds {
        matched += std::hint::black_box(hooks.plan_uncached(event, &input)).len();
    }
    let plan_us = t.elapsed().as_secs_f64() * 1e6 / plan_rounds as f64;
    std::hint::black_box(matched);
    let mut report = json!({"event": event.canonical_name(), "hooks": n_hooks, "plan_us": plan_us});
    if !plan_only {
        for _ in 0..warmup {
            hooks.fire(event, input.clone()).await;
        }
        // A progress bar only for a person watching; never in pipes or CI.
        let bar = if std::io::stderr().is_terminal() {
            indicatif::ProgressBar::new(iterations as u64)
        } else {
            indicatif::ProgressBar::hidden()
        };
        let mut samples = Vec::with_capacity(iterations);
        for _ in 0..iterations {
            let t = Instant::now();
            std::hint::black_box(hooks.fire(event, input.clone()).await);
            samples.push(t.elapsed().as_secs_f64() * 1000.0);
            bar.inc(1);
        }
        bar.finish_and_clear();
        let mean = samples.iter().sum::<f64>() / samples.len().max(1) as f64;
        samples.sort_by(f64::total_cmp);
        report["iterations"] = json!(iterations);
        report["mean_ms"] = json!(mean);
        report["p50_ms"] = json!(percentile(&samples, 0.5));
        report["p99_ms"] = json!(percentile(&samples, 0.99));
    }
    if as_json {
        println!("{report}");
    } else {
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    }
    Ok(0)
}
