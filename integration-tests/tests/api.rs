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
    let o = h.fire(EventKind::BeforeTool, input()).await;
    assert_eq!(o.block_reason(), "v2", "old config stays");
    assert!(
        o.warnings
            .iter()
            .any(|w| w.contains("settings.json:1:3") && w.contains("stay in force")),
        "the edit that was not taken is reported: {:?}",
        o.warnings
    );
    // Not read again until it changes again.
    assert!(!h.reload_if_changed().unwrap());
}

#[tokio::test]
async fn a_built_in_turned_on_or_off_while_running_takes_effect_at_the_next_load() {
    let p = Project::new(&json!({}));
    let mut h = p.hooks();
    let wipe = || {
        json!({"tool_name": "run_shell_command", "tool_input": {"command": "rm -rf /"}})
            .as_object()
            .unwrap()
            .clone()
    };
    assert!(
        !h.fire(EventKind::BeforeTool, wipe()).await.is_blocked(),
        "no guard yet"
    );
    let guarded = json!({"builtins": {"dangerous_confirmation": {"mode": "deny"}}});
    std::fs::write(p.path().join("settings.json"), guarded.to_string()).unwrap();
    // A server's path: a new system sharing this one's services.
    let (next, loaded) = h.reloaded().expect("the settings changed");
    loaded.unwrap();
    assert!(
        next.fire(EventKind::BeforeTool, wipe()).await.is_blocked(),
        "a guard turned on while a server runs must guard from the next event"
    );
    // The in-place path.
    assert!(h.reload_if_changed().unwrap());
    assert!(h.fire(EventKind::BeforeTool, wipe()).await.is_blocked());
    std::fs::write(p.path().join("settings.json"), "{}").unwrap();
    h.reload().unwrap();
    assert!(
        !h.fire(EventKind::BeforeTool, wipe()).await.is_blocked(),
        "turned off, it stops"
    );
}

#[tokio::test]
async fn an_edited_secret_rules_file_is_noticed_and_used_at_the_next_load() {
    let settings = json!({"builtins": {"security_scan": {"mode": "block", "rules_file": "rules.toml"}}});
    let p = Project::new(&settings);
    let rules = p.path().join("rules.toml");
    std::fs::write(&rules, "[[rules]]\nid = \"other\"\nregex = '''other_[a-z]{30}'''\n").unwrap();
    let mut h = p.hooks();
    let leak = || {
        json!({"tool_name": "write_file", "tool_input": {"file_path": "a", "content": "token acme_k3mz8pl2xv7nb4cr9ty6wf1h"}})
            .as_object()
            .unwrap()
            .clone()
    };
    assert!(
        !h.fire(EventKind::BeforeTool, leak()).await.is_blocked(),
        "no rule for it yet"
    );
    std::fs::write(&rules, "[[rules]]\nid = \"acme\"\nregex = '''acme_[a-z0-9]{24}'''\n").unwrap();
    assert!(h.sources_changed(), "the rules file is part of what the load read");
    let (next, loaded) = h.reloaded().unwrap();
    loaded.unwrap();
    assert!(
        next.fire(EventKind::BeforeTool, leak()).await.is_blocked(),
        "a rule the user added while a server runs guards from the next event"
    );
    assert!(h.reload_if_changed().unwrap());
    assert!(h.fire(EventKind::BeforeTool, leak()).await.is_blocked());
}

#[tokio::test]
async fn under_the_closed_policy_an_edit_that_cannot_be_used_blocks() {
    let closed = |cmd: &str| {
        let mut s = settings(&[cmd]);
        s["hooksConfig"] = json!({"onFailure": "closed"});
        s
    };
    let p = Project::new(&closed("cat >/dev/null; echo '{\"decision\":\"allow\"}'"));
    let mut h = p.hooks();
    assert!(!h.fire(EventKind::BeforeTool, input()).await.is_blocked());
    std::fs::write(p.path().join("settings.json"), "{ broken").unwrap();
    assert!(h.reload().is_err());
    let o = h.fire(EventKind::BeforeTool, input()).await;
    assert!(
        o.is_blocked(),
        "a guard edit that was not taken must not allow silently"
    );
    assert!(o.block_reason().contains("settings.json:1:3"), "{}", o.block_reason());
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

/// gemini-cli runs every hook of a sequential chain whatever an earlier
/// one said (its `executeHooksSequential` only passes each answer on): a
/// `continue: false` stops the agent, and the logger after it still runs.
#[tokio::test]
async fn a_gemini_chain_runs_on_after_continue_false_and_the_agent_still_stops() {
    let p = Project::new(&settings(&[
        "cat >/dev/null; echo '{\"continue\":false,\"stopReason\":\"enough\"}'",
        "cat >/dev/null; touch second-ran",
    ]));
    let o = p.hooks().fire(EventKind::BeforeTool, input()).await;
    assert!(o.output.stop, "{:?}", o.output);
    assert_eq!(o.records.len(), 2);
    assert!(
        p.path().join("second-ran").exists(),
        "the chain stopped where gemini-cli runs on"
    );
}

#[tokio::test]
async fn an_event_budget_cuts_timeouts_and_skips_what_cannot_start() {
    let p = Project::new(&settings(&["sleep 5 # a", "sleep 5 # b"]));
    let h = HookSystem::builder()
        .settings(p.path().join("settings.json"))
        .workdir(p.path())
        .event_budget(std::time::Duration::from_millis(400))
        .build()
        .unwrap();
    let t = std::time::Instant::now();
    let o = h.fire(EventKind::BeforeTool, input()).await;
    assert!(
        t.elapsed() < std::time::Duration::from_secs(3),
        "took {:?}",
        t.elapsed()
    );
    // The hook had what was left of the budget when it started: 0.4 s less
    // the moments spent planning and spawning it.
    let had = o.warnings[0]
        .split("timed out after ")
        .nth(1)
        .and_then(|r| r.split('s').next())
        .and_then(|n| n.parse::<f64>().ok());
    assert!(had.is_some_and(|s| (0.35..=0.4).contains(&s)), "{:?}", o.warnings);
    assert!(
        o.warnings[1].contains("was skipped: the event's time budget of 0.4s was spent"),
        "{:?}",
        o.warnings
    );
}

// Paused time runs the 30 s budget in a moment: with nothing else to do the
// runtime jumps to the next deadline.
#[tokio::test(start_paused = true)]
async fn jcli_chains_share_one_thirty_second_budget() {
    // The chain has 30 s in all: a second hook allowed 30 s of its own gets
    // only the 10 s the first left, retries included.
    let p = Project::new(&json!({}));
    std::fs::write(
        p.path().join("hooks.yaml"),
        "stop:\n  - command: \"sleep 100\"\n    timeout: 20\n  - command: \"sleep 100 # second\"\n    timeout: 30\n    retry: 3\n",
    )
    .unwrap();
    let h = HookSystem::builder()
        .settings(p.path().join("hooks.yaml"))
        .workdir(p.path())
        .build()
        .unwrap();
    let input = json!({"prompt": "p"}).as_object().unwrap().clone();
    let start = tokio::time::Instant::now();
    let o = h.fire(EventKind::AfterAgent, input).await;
    let spent = start.elapsed();
    assert_eq!(o.records.len(), 2);
    assert!(o.warnings[0].contains("timed out after 20s"), "{:?}", o.warnings);
    // What the first left: 10 s, less the moment its SIGTERM took.
    let second: f64 = o.warnings[1]
        .split("timed out after ")
        .nth(1)
        .and_then(|r| r.split('s').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{:?}", o.warnings));
    assert!((9.0..=10.0).contains(&second), "{:?}", o.warnings);
    assert!(
        spent < std::time::Duration::from_millis(31_500),
        "the chain took {spent:?} of its 30 s"
    );
}

#[tokio::test]
async fn reload_if_changed_notices_edits_and_new_project_files() {
    let p = Project::new(&settings(&["cat >/dev/null; echo '{\"decision\":\"allow\"}'"]));
    let mut h = HookSystem::builder()
        .settings(p.path().join("settings.json"))
        .workdir(p.path())
        .discover(Some(p.path().join("home")), None)
        .trust(hookshot::TrustPolicy {
            trust_project: true,
            store: None,
            store_error: None,
            store_path: None,
        })
        .build()
        .unwrap();
    assert!(!h.reload_if_changed().unwrap(), "nothing changed yet");
    // A project settings file appears: discovery finds it on reload.
    std::fs::create_dir_all(p.path().join(".gemini")).unwrap();
    std::fs::write(
        p.path().join(".gemini/settings.json"),
        settings(&["cat >/dev/null; echo '{\"decision\":\"deny\",\"reason\":\"project\"}'"]).to_string(),
    )
    .unwrap();
    assert!(h.reload_if_changed().unwrap());
    assert_eq!(h.fire(EventKind::BeforeTool, input()).await.block_reason(), "project");
    assert!(!h.reload_if_changed().unwrap());
}

#[derive(Debug)]
struct Panics;

impl Hook for Panics {
    fn call(&self, _: EventKind, _: &Map<String, Value>) -> HookOutput {
        panic!("guard bug")
    }
}

#[tokio::test]
async fn the_closed_policy_governs_hooks_registered_by_code_too() {
    let p = Project::new(&json!({"hooksConfig": {"onFailure": "closed"}}));
    let mut h = HookSystem::builder()
        .settings(p.path().join("settings.json"))
        .workdir(p.path())
        .hook(EventKind::BeforeTool, "builder-guard", Arc::new(Panics))
        .build()
        .unwrap();
    let o = h.fire(EventKind::BeforeTool, input()).await;
    assert!(o.is_blocked(), "a panicking builder hook failed open: {:?}", o.warnings);
    // A session hook registered later is under the same policy.
    let mut s = HookSystem::builder()
        .settings(p.path().join("settings.json"))
        .workdir(p.path())
        .build()
        .unwrap();
    s.register_command(EventKind::BeforeTool, "late", "cat >/dev/null; exit 1")
        .unwrap();
    assert!(s.fire(EventKind::BeforeTool, input()).await.is_blocked());
    // After a reload that drops the closed policy, failures are warnings again.
    std::fs::write(p.path().join("settings.json"), "{}").unwrap();
    h.reload().unwrap();
    let o = h.fire(EventKind::BeforeTool, input()).await;
    assert!(!o.is_blocked());
    assert!(o.warnings.iter().any(|w| w.contains("panicked")), "{:?}", o.warnings);
}

#[tokio::test]
async fn a_built_in_that_cannot_start_stays_reported_after_reload() {
    let p = Project::new(&json!({"hooksConfig": {"onFailure": "closed"},
        "builtins": {"audit_log": {"path": "not-a-dir/audit.jsonl"}}}));
    std::fs::write(p.path().join("not-a-dir"), "a file in the way").unwrap();
    let mut h = p.hooks();
    let check = |o: &hookshot::Outcome| {
        assert!(o.is_blocked(), "{:?}", o.warnings);
        assert!(o.warnings.iter().any(|w| w.contains("audit_log")), "{:?}", o.warnings);
    };
    check(&h.fire(EventKind::BeforeTool, input()).await);
    h.reload().unwrap();
    check(&h.fire(EventKind::BeforeTool, input()).await);
}
