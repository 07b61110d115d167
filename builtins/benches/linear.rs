//! The built-ins' time against the size of what they judge: a command of
//! N chained `cd`s or `ln -s`, and an output of N MiB of secrets, each at
//! N and 2N in the same run. Linear means the 2N figure is about twice the
//! N one (bench/RESULTS.md has the ratios); a guard slower than its
//! deadline is a guard that is off.

#![expect(
    missing_docs,
    reason = "criterion_group! and criterion_main! generate undocumented entry points"
)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hookshot_builtins::dangerous::DangerousConfirmation;
use hookshot_builtins::secrets::{Mode, SecurityScan};
use hookshot_core::Decision;

fn commands(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let guard = DangerousConfirmation::new(Decision::Ask, Vec::new(), dir.path());
    let mut group = c.benchmark_group("dangerous_confirmation");
    group.sample_size(10);
    for n in [2000usize, 4000] {
        let cds = "cd a; ".repeat(n) + "ls";
        group.bench_with_input(BenchmarkId::new("chained cd", n), &cds, |b, cmd| {
            b.iter(|| guard.check_command(cmd, None))
        });
        let links: String = (0..n).map(|i| format!("ln -s x y{i}; ")).collect::<String>() + "ls";
        group.bench_with_input(BenchmarkId::new("chained ln -s", n), &links, |b, cmd| {
            b.iter(|| guard.check_command(cmd, None))
        });
    }
    group.finish();
}

fn secrets(c: &mut Criterion) {
    let scan = SecurityScan::new(Mode::Redact);
    let mut group = c.benchmark_group("security_scan");
    group.sample_size(10);
    for mib in [1usize, 2] {
        let text = "PASS=a1\n".repeat(mib * 1024 * 1024 / 8);
        group.bench_with_input(BenchmarkId::new("MiB of findings", mib), &text, |b, t| {
            b.iter(|| scan.redact(t))
        });
    }
    group.finish();
}

criterion_group!(benches, commands, secrets);
criterion_main!(benches);
