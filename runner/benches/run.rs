//! Runner costs against the raw tokio spawn floor, measured in the same run:
//! one command hook round trip, 16 in parallel, one persistent (JSON-RPC)
//! round trip, one in-process hook.

#![expect(
    missing_docs,
    reason = "criterion_group! and criterion_main! generate undocumented entry points"
)]

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use hookshot_core::*;
use hookshot_runner::{Hook, HookInput, RunEnv, Runner};
use serde_json::{Map, Value, json};
use tokio::io::AsyncWriteExt;

const HOOK: &str = r#"cat >/dev/null; printf '{"decision":"allow"}'"#;
/// A minimal JSON-RPC hook process.
const RESPONDER: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("id") is not None:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"action": "continue", "ok": True}}) + "\n")
        sys.stdout.flush()
"#;

fn def(action: HookAction) -> Arc<HookDef> {
    Arc::new(HookDef {
        name: Some("bench".into()),
        timeout: Duration::from_secs(10),
        ..HookDef::new("bench", EventKind::BeforeTool, action)
    })
}

#[derive(Debug)]
struct Allow;

impl Hook for Allow {
    fn call(&self, _: EventKind, input: &Map<String, Value>) -> HookOutput {
        HookOutput {
            decision: if input.contains_key("tool_name") {
                Decision::Allow
            } else {
                Decision::Block
            },
            ..HookOutput::default()
        }
    }
}

async fn floor(input: &[u8]) {
    let mut child = tokio::process::Command::new("bash")
        .arg("-c")
        .arg(HOOK)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash");
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(input).await;
    drop(stdin);
    let out = child.wait_with_output().await.expect("wait");
    assert_eq!(out.stdout, br#"{"decision":"allow"}"#);
}

/// Runs `n` awaits of `f()` in one `block_on`, so runtime entry is not timed.
fn timed<F, Fut>(rt: &tokio::runtime::Runtime, n: u64, mut f: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    rt.block_on(async {
        let t = Instant::now();
        for _ in 0..n {
            f().await;
        }
        t.elapsed()
    })
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let canonical = json!({"tool_name": "write_file", "tool_input": {"file_path": "x.txt", "content": "hi"}})
        .as_object()
        .cloned()
        .expect("object");
    let bytes = serde_json::to_vec(&canonical).expect("json");
    let input = HookInput {
        event: EventKind::BeforeTool,
        canonical: &canonical,
        bytes: &bytes,
    };
    let env = RunEnv {
        cwd: std::env::temp_dir(),
        ..RunEnv::default()
    };
    let mut runner = Runner::default();
    runner.register("allow", Arc::new(Allow));
    let command = def(HookAction::Command { command: HOOK.into() });
    let in_process = def(HookAction::InProcess { name: "allow".into() });
    let persistent = def(HookAction::Persistent {
        process: ProcessSpec {
            name: "responder".into(),
            argv: vec!["python3".into(), "-c".into(), RESPONDER.into()],
            dir: None,
            env: vec![],
            modes: vec!["tool".into()],
        },
        observe: None,
    });

    let mut g = c.benchmark_group("runner");
    g.sample_size(30)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_millis(500));
    g.bench_function("spawn_floor_n1", |b| b.iter_custom(|n| timed(&rt, n, || floor(&bytes))));
    g.bench_function("command_hook_n1", |b| {
        b.iter_custom(|n| {
            timed(&rt, n, || async {
                let r = runner.run(&command, input, &env).await;
                assert_eq!(r.output.decision, Decision::Allow);
            })
        })
    });
    g.bench_function("spawn_floor_n16_parallel", |b| {
        b.iter_custom(|n| {
            timed(&rt, n, || async {
                futures::future::join_all((0..16).map(|_| floor(&bytes))).await;
            })
        })
    });
    g.bench_function("command_hooks_n16_parallel", |b| {
        b.iter_custom(|n| {
            timed(&rt, n, || async {
                futures::future::join_all((0..16).map(|_| runner.run(&command, input, &env))).await;
            })
        })
    });
    // Start and greet the process once, outside the measurement.
    rt.block_on(runner.run(&persistent, input, &env));
    g.bench_function("persistent_round_trip", |b| {
        b.iter_custom(|n| {
            timed(&rt, n, || async {
                let r = runner.run(&persistent, input, &env).await;
                assert!(r.failure.is_none(), "{:?}", r.failure);
            })
        })
    });
    g.sample_size(100).measurement_time(Duration::from_secs(2));
    g.bench_function("in_process_hook", |b| {
        b.iter_custom(|n| {
            rt.block_on(async {
                let t = Instant::now();
                for _ in 0..n {
                    std::hint::black_box(runner.run(&in_process, input, &env).await);
                }
                t.elapsed()
            })
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
