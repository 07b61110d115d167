//! Persistent JSON-RPC hook processes (picoclaw's protocol) under faults,
//! with a real hook process (the scenario's pico.py).

use std::time::{Duration, Instant};

use hookshot::{EventKind, HookSystem, Outcome};
use hookshot_integration_tests::Project;
use serde_json::{Map, Value, json};

fn pico(mode: &str, intercept: &[&str]) -> (Project, HookSystem) {
    let p = Project::new(&json!({}));
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/picoclaw-process-hook/hooks/pico.py"
    );
    std::fs::create_dir(p.path().join(".hooks")).unwrap();
    std::fs::copy(script, p.path().join(".hooks/pico.py")).unwrap();
    let settings = json!({"hooks": {"enabled": true,
        "defaults": {"interceptor_timeout_ms": 2000, "approval_timeout_ms": 2000},
        "processes": {"pico": {"command": ["python3", ".hooks/pico.py", mode], "intercept": intercept}}}});
    std::fs::write(p.path().join("settings.json"), settings.to_string()).unwrap();
    let h = HookSystem::builder()
        .settings(p.path().join("settings.json"))
        .workdir(p.path())
        .build()
        .unwrap();
    (p, h)
}

fn call(tool: &str, content: &str) -> Map<String, Value> {
    json!({"tool_name": tool, "tool_input": {"content": content}})
        .as_object()
        .unwrap()
        .clone()
}

async fn fire(h: &HookSystem, event: EventKind, input: Map<String, Value>) -> Outcome {
    tokio::time::timeout(Duration::from_secs(20), h.fire(event, input))
        .await
        .expect("the event hung")
}

fn log_lines(p: &Project, method: &str) -> usize {
    std::fs::read_to_string(p.path().join(".hooks/calls.log"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(&format!("\"method\": \"{method}\"")))
        .count()
}

#[tokio::test]
async fn started_once_and_greeted_once_for_many_events() {
    let (p, h) = pico("normal", &["before_tool", "approve_tool"]);
    for i in 0..5 {
        let o = fire(&h, EventKind::BeforeTool, call("write_file", &format!("ok {i}"))).await;
        assert!(!o.is_blocked() && o.warnings.is_empty(), "{:?}", o.warnings);
    }
    let o = fire(&h, EventKind::BeforeTool, call("write_file", "deny this")).await;
    assert_eq!(o.block_reason(), "pico denies this call");
    let o = fire(&h, EventKind::PermissionRequest, call("write_file", "unapproved")).await;
    assert_eq!(o.block_reason(), "pico does not approve");
    assert_eq!(log_lines(&p, "hook.hello"), 1);
    assert_eq!(log_lines(&p, "hook.before_tool"), 6);
}

#[tokio::test]
async fn crash_mid_answer_fails_open_then_the_process_is_restarted() {
    let (p, h) = pico("crash_once", &["before_tool"]);
    let o = fire(&h, EventKind::BeforeTool, call("write_file", "deny this")).await;
    assert!(!o.is_blocked(), "an interceptor fails open");
    assert!(o.warnings[0].contains("exited"), "{:?}", o.warnings);
    // The restart waits out a short backoff; then it answers again.
    tokio::time::sleep(Duration::from_millis(250)).await;
    let o = fire(&h, EventKind::BeforeTool, call("write_file", "deny this")).await;
    assert_eq!(o.block_reason(), "pico denies this call", "{:?}", o.warnings);
    assert_eq!(log_lines(&p, "hook.hello"), 2);
}

#[tokio::test]
async fn approver_that_cannot_answer_fails_closed() {
    let (_p, h) = pico("crash_once", &["approve_tool", "before_tool"]);
    // The crash happens on before_tool; approvals after it are refused
    // while the process is down (fail closed), not waved through.
    let o = fire(&h, EventKind::BeforeTool, call("write_file", "x")).await;
    assert!(!o.is_blocked());
    let o = fire(&h, EventKind::PermissionRequest, call("write_file", "x")).await;
    assert!(o.is_blocked(), "{:?}", o.output);
    assert!(o.block_reason().contains("fail-closed"), "{}", o.block_reason());
}

#[tokio::test]
async fn a_process_that_never_says_hello_is_given_up_on() {
    let (_p, h) = pico("no_hello", &["before_tool"]);
    let t = Instant::now();
    let o = fire(&h, EventKind::BeforeTool, call("write_file", "deny this")).await;
    assert!(t.elapsed() < Duration::from_secs(8), "took {:?}", t.elapsed());
    assert!(!o.is_blocked());
    assert!(o.warnings[0].contains("hello"), "{:?}", o.warnings);
}

#[tokio::test]
async fn sixty_four_requests_in_flight_answered_out_of_order() {
    let (p, h) = pico("reverse", &["before_tool"]);
    let events = (0..64).map(|i| {
        let content = if i % 2 == 0 {
            format!("deny {i}")
        } else {
            format!("ok {i}")
        };
        h.fire(EventKind::BeforeTool, call("write_file", &content))
    });
    let outcomes = tokio::time::timeout(Duration::from_secs(20), futures::future::join_all(events))
        .await
        .expect("hung");
    for (i, o) in outcomes.iter().enumerate() {
        assert_eq!(
            o.is_blocked(),
            i % 2 == 0,
            "event {i} got another event's answer: {:?}",
            o.warnings
        );
    }
    assert_eq!(log_lines(&p, "hook.hello"), 1);
}

#[tokio::test]
async fn answers_with_unknown_ids_are_ignored() {
    let (_p, h) = pico("unknown_ids", &["before_tool"]);
    let o = fire(&h, EventKind::BeforeTool, call("write_file", "ok")).await;
    assert!(
        !o.is_blocked(),
        "the stray answer (a deny) must not be taken: {:?}",
        o.output
    );
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
}

#[tokio::test]
async fn ten_megabyte_lines_are_skipped_not_fatal() {
    let (_p, h) = pico("big_lines", &["before_tool"]);
    let o = fire(&h, EventKind::BeforeTool, call("write_file", "deny this")).await;
    assert_eq!(o.block_reason(), "pico denies this call", "{:?}", o.warnings);
    let o = fire(&h, EventKind::BeforeTool, call("write_file", "ok")).await;
    assert!(!o.is_blocked());
}
