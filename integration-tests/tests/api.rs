//! The embedding API: what an agent wiring hookshot in relies on.

use std::sync::Arc;

use hookshot::{Decision, EventKind, Hook, HookOutput, HookSystem, Strategy};
use hookshot_integration_tests::Project;
use serde_json::{Map, Value, json};

#[derive(Debug)]
struct Deny(&'static str);

impl Hook for Deny {
    fn call(&self, _: EventKind, _: &Map<String, Value>) -> HookOutput {
        HookOutput {
            decision: Decision::Block,
            reason: Some(self.0.into()),
            ..HookOutput::default()
        }
    }
}

fn input() -> Map<String, Value> {
    json!({"tool_name": "write_file", "tool_input": {"file_path": "a"}})
        .as_object()
        .unwrap()
        .clone()
}

fn settings(hooks: &[&str]) -> Value {
    let defs: Vec<Value> = hooks.iter().map(|c| json!({"type": "command", "command": c})).collect();
    json!({"hooks": {"BeforeTool": [{"sequential": true, "hooks": defs}]}})
}

#[tokio::test]
async fn session_hooks_registered_at_run_time_take_effect() {
    let p = Project::new(&settings(&["cat >/dev/null; echo '{\"decision\":\"allow\"}'"]));
    let mut h = p.hooks();
    assert!(!h.fire(EventKind::BeforeTool, input()).await.is_blocked());
    h.register(EventKind::BeforeTool, "late-policy", Arc::new(Deny("registered later")))
        .unwrap();
    let o = h.fire(EventKind::BeforeTool, input()).await;
    assert_eq!(o.block_reason(), "registered later");
    // Session hooks have the highest precedence: they run last in a chain.
    assert_eq!(o.records.last().unwrap().hook.label(), "late-policy");
    let stats = h.metrics();
    let late = stats.iter().find(|s| s.hook == "session:late-policy").unwrap();
    assert_eq!((late.runs, late.blocks), (1, 1));
}

#[tokio::test]
async fn reload_reads_changed_settings_and_keeps_the_old_on_error() {
    let p = Project::new(&settings(&["cat >/dev/null; echo '{\"decision\":\"allow\"}'"]));
    let mut h = p.hooks();
    std::fs::write(
        p.path().join("settings.json"),
        settings(&["cat >/dev/null; echo '{\"decision\":\"deny\",\"reason\":\"v2\"}'"]).to_string(),
    )
    .unwrap();
    assert!(
        !h.fire(EventKind::BeforeTool, input()).await.is_blocked(),
        "no reload yet"
    );
    h.reload().unwrap();
    assert_eq!(h.fire(EventKind::BeforeTool, input()).await.block_reason(), "v2");
    std::fs::write(p.path().join("settings.json"), "{ broken").unwrap();
    let err = h.reload().unwrap_err();
    assert!(err.to_string().contains("settings.json:1:3"), "{err}");
    assert_eq!(
        h.fire(EventKind::BeforeTool, input()).await.block_reason(),
        "v2",
        "old config stays"
    );
}

#[tokio::test]
async fn fail_fast_stops_the_chain_at_the_first_block() {
    let p = Project::new(&settings(&[
        "cat >/dev/null; echo '{\"decision\":\"deny\",\"reason\":\"first\"}'",
        "cat >/dev/null; touch second-ran",
    ]));
    let h = HookSystem::builder()
        .settings(p.path().join("settings.json"))
        .workdir(p.path())
        .strategy(Strategy::FailFast)
        .build()
        .unwrap();
    let o = h.fire(EventKind::BeforeTool, input()).await;
    assert_eq!((o.block_reason().as_str(), o.records.len()), ("first", 1));
    assert!(!p.path().join("second-ran").exists());
    let all = p.hooks().fire(EventKind::BeforeTool, input()).await;
    assert_eq!(all.records.len(), 2, "without fail-fast every hook of the chain runs");
}
