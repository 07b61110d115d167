//! Persistent JSON-RPC hook processes (picoclaw's protocol) under faults,
//! with a real hook process (the scenario's pico.py).

use std::time::{Duration, Instant};

use hookshot::{EventKind, HookSystem, Outcome};
use hookshot_integration_tests::Project;
use serde_json::{Map, Value, json};

fn pico(mode: &str, intercept: &[&str]) -> (Project, HookSystem) {
    pico_with(mode, json!({"intercept": intercept}))
}

/// The pico process in `mode`, with `extra` keys in its process entry.
fn pico_with(mode: &str, extra: Value) -> (Project, HookSystem) {
    let p = Project::new(&json!({}));
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/picoclaw-process-hook/hooks/pico.py"
    );
    std::fs::create_dir(p.path().join(".hooks")).unwrap();
    std::fs::copy(script, p.path().join(".hooks/pico.py")).unwrap();
    write_settings(&p, mode, extra);
    let h = HookSystem::builder()
        .settings(p.path().join("settings.json"))
        .workdir(p.path())
        .build()
        .unwrap();
    (p, h)
}

fn write_settings(p: &Project, mode: &str, extra: Value) {
    let mut process = json!({"command": ["python3", ".hooks/pico.py", mode]});
    process
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let settings = json!({"hooks": {"enabled": true,
        "defaults": {"interceptor_timeout_ms": 2000, "approval_timeout_ms": 2000, "observer_timeout_ms": 300},
        "processes": {"pico": process}}});
    std::fs::write(p.path().join("settings.json"), settings.to_string()).unwrap();
}

fn log_entries(p: &Project) -> Vec<Value> {
    std::fs::read_to_string(p.path().join(".hooks/calls.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
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
async fn an_approval_during_the_restart_backoff_is_still_asked() {
    let (p, h) = pico("crash_once", &["approve_tool", "before_tool"]);
    // The crash happens on before_tool; an approval while the process waits
    // out its restart backoff is asked of a process of its own, as a
    // one-shot run would ask it: neither waved through nor refused unasked.
    let o = fire(&h, EventKind::BeforeTool, call("write_file", "x")).await;
    assert!(!o.is_blocked());
    let o = fire(&h, EventKind::PermissionRequest, call("write_file", "unapproved")).await;
    assert_eq!(o.block_reason(), "pico does not approve", "{:?}", o.warnings);
    assert_eq!(log_lines(&p, "hook.hello"), 2);
}

#[tokio::test]
async fn one_event_that_crashes_the_shared_process_decides_no_other_event() {
    let (p, h) = pico("crash_on_word", &["before_tool"]);
    let h = std::sync::Arc::new(h);
    // Started and greeted first, so both events share the one process.
    let o = fire(&h, EventKind::BeforeTool, call("write_file", "ok")).await;
    assert!(o.warnings.is_empty(), "{:?}", o.warnings);
    let crasher = fire(&h, EventKind::BeforeTool, call("write_file", "crash"));
    let bystander = async {
        // Queued behind the request that crashes the process.
        tokio::time::sleep(Duration::from_millis(100)).await;
        fire(&h, EventKind::BeforeTool, call("write_file", "deny this")).await
    };
    let (crashed, other) = tokio::join!(crasher, bystander);
    assert!(
        crashed.warnings.iter().any(|w| w.contains("exited")),
        "{:?}",
        crashed.warnings
    );
    // As a one-shot run would have: asked, and denied.
    assert_eq!(other.block_reason(), "pico denies this call", "{:?}", other.warnings);
    // Right after, within the restart backoff: asked too.
    let o = fire(&h, EventKind::BeforeTool, call("write_file", "deny this")).await;
    assert_eq!(o.block_reason(), "pico denies this call", "{:?}", o.warnings);
    assert!(log_lines(&p, "hook.hello") >= 3);
}

#[tokio::test]
async fn approver_that_cannot_answer_fails_closed() {
    let (_p, h) = pico("crash_always", &["approve_tool"]);
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

#[tokio::test]
async fn observers_get_runtime_events_with_the_kind_they_asked_for() {
    let (p, h) = pico_with(
        "normal",
        json!({"observe": ["agent.tool.exec_start", "agent.tool.exec_skipped"], "intercept": ["before_tool"]}),
    );
    let o = fire(&h, EventKind::BeforeTool, call("write_file", "fine")).await;
    assert!(!o.is_blocked() && o.warnings.is_empty(), "{:?}", o.warnings);
    let o = fire(&h, EventKind::BeforeTool, call("write_file", "deny this")).await;
    assert!(o.is_blocked());
    h.shutdown().await;
    let kinds: Vec<(String, String)> = log_entries(&p)
        .iter()
        .filter(|e| e["method"] == "hook.runtime_event")
        .map(|e| {
            (
                e["input"]["kind"].as_str().unwrap_or("").to_string(),
                e["input"]["payload"]["arguments"]["content"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect();
    let kinds: Vec<(&str, &str)> = kinds.iter().map(|(k, c)| (k.as_str(), c.as_str())).collect();
    assert_eq!(
        kinds,
        [
            ("agent.tool.exec_start", "fine"),
            ("agent.tool.exec_start", "deny this"),
            ("agent.tool.exec_skipped", "deny this"),
        ],
        "a skipped tool is reported once, only when the tool was blocked"
    );
    assert_eq!(log_lines(&p, "hook.event"), 0, "the legacy notification is gone");
}

#[tokio::test]
async fn an_observer_that_stops_reading_cannot_hang_six_hundred_events() {
    let (p, h) = pico_with("deaf", json!({"observe": ["agent.tool.exec_start"]}));
    let h = std::sync::Arc::new(h);
    // Started (and deaf) before the burst, however slowly the interpreter
    // starts (a pyenv shim takes longer than the observer's 300 ms): the
    // burst is about a process that stopped reading, not one starting.
    until_logged(&p, &h, 1).await;
    let big = "x".repeat(2000);
    let start = Instant::now();
    let events = (0..600).map(|_| {
        let h = std::sync::Arc::clone(&h);
        let input = call("write_file", &big);
        tokio::spawn(async move { h.fire(EventKind::BeforeTool, input).await })
    });
    let outcomes = tokio::time::timeout(Duration::from_secs(30), futures::future::join_all(events))
        .await
        .expect("events hung behind an observer that stopped reading");
    assert_eq!(outcomes.len(), 600);
    let warned = outcomes
        .iter()
        .map(|o| o.as_ref().unwrap())
        .filter(|o| o.warnings.iter().any(|w| w.contains("stopped reading its input")))
        .count();
    assert!(warned > 0, "the wedged observer was never reported");
    assert!(
        outcomes.iter().all(|o| !o.as_ref().unwrap().is_blocked()),
        "an observer's failure never blocks"
    );
    assert!(start.elapsed() < Duration::from_secs(30));
    // It was killed and a new one started once its backoff passed.
    until_logged(&p, &h, 2).await;
}

/// Fires until the process has said hello `n` times (started `n` times),
/// for at most 20 s: how fast an interpreter starts is no part of a test.
async fn until_logged(p: &Project, h: &HookSystem, n: usize) {
    let start = Instant::now();
    while log_lines(p, "hook.hello") < n {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the process was not started {n} time(s)"
        );
        fire(h, EventKind::BeforeTool, call("write_file", "again")).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_process_that_stops_answering_is_killed_and_restarted() {
    let (p, h) = pico_with("mute", json!({"intercept": ["before_tool"]}));
    let mut last = None;
    for _ in 0..3 {
        last = Some(fire(&h, EventKind::BeforeTool, call("write_file", "deny this")).await);
    }
    let o = last.unwrap();
    assert!(!o.is_blocked(), "an interceptor fails open");
    assert!(o.warnings[0].contains("3 requests in a row"), "{:?}", o.warnings);
    tokio::time::sleep(Duration::from_millis(250)).await;
    fire(&h, EventKind::BeforeTool, call("write_file", "ok")).await;
    assert_eq!(log_lines(&p, "hook.hello"), 2, "killed once, started again once");
}

#[tokio::test]
async fn a_reload_that_changes_a_process_restarts_it() {
    let (p, mut h) = pico_with(
        "normal",
        json!({"intercept": ["before_tool"], "env": {"PICO_TAG": "one"}}),
    );
    fire(&h, EventKind::BeforeTool, call("write_file", "a")).await;
    write_settings(
        &p,
        "normal",
        json!({"intercept": ["before_tool"], "env": {"PICO_TAG": "two"}}),
    );
    h.reload().unwrap();
    fire(&h, EventKind::BeforeTool, call("write_file", "b")).await;
    let tags: Vec<(String, String)> = log_entries(&p)
        .iter()
        .map(|e| {
            (
                e["method"].as_str().unwrap_or("").to_string(),
                e["tag"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let tags: Vec<(&str, &str)> = tags.iter().map(|(m, t)| (m.as_str(), t.as_str())).collect();
    assert_eq!(
        tags,
        [
            ("hook.hello", "one"),
            ("hook.before_tool", "one"),
            ("hook.hello", "two"),
            ("hook.before_tool", "two"),
        ]
    );
}

#[tokio::test]
async fn a_process_whose_program_changed_is_restarted_by_either_reload() {
    let (p, mut h) = pico("normal", &["before_tool"]);
    fire(&h, EventKind::BeforeTool, call("write_file", "a")).await;
    assert_eq!(log_lines(&p, "hook.hello"), 1);
    // The settings stay; the program they run is edited.
    let program = p.path().join(".hooks/pico.py");
    let mut text = std::fs::read_to_string(&program).unwrap();
    text.push_str("\n# edited\n");
    std::fs::write(&program, text).unwrap();
    // A server's path: the next system, sharing this one's services, must
    // not go on asking the process started from the old program.
    let (next, loaded) = h.reloaded().expect("the program changed");
    loaded.unwrap();
    fire(&next, EventKind::BeforeTool, call("write_file", "b")).await;
    assert_eq!(log_lines(&p, "hook.hello"), 2, "restarted for the new program");
    drop(next);
    // The in-place path.
    std::fs::write(&program, std::fs::read_to_string(&program).unwrap() + "# again\n").unwrap();
    assert!(h.reload_if_changed().unwrap());
    fire(&h, EventKind::BeforeTool, call("write_file", "c")).await;
    assert_eq!(log_lines(&p, "hook.hello"), 3);
}
