use super::*;

fn cmd(program: &str, event: &str, fallback: Fallback, warm: bool, portable: bool) -> String {
    Command {
        program,
        portable,
        agent: Some(Agent::Claude),
        warm,
        event,
        fallback,
    }
    .text()
}

#[test]
fn only_hookshot_fire_commands_are_ours() {
    let h = |c: &str| json!({"type": "command", "command": c});
    assert!(is_ours(&h("/usr/local/bin/hookshot fire PreToolUse")));
    assert!(is_ours(&h("'/home/a b/hookshot' fire BeforeTool")));
    assert!(!is_ours(&h("/usr/bin/hookshot-like fire PreToolUse")));
    assert!(!is_ours(&h("sh guard.sh fire PreToolUse")));
    assert!(!is_ours(&h("hookshot fire PreToolUse --settings x.json")));
    for fallback in [Fallback::Block, Fallback::Warn] {
        for (warm, portable) in [(false, false), (true, false), (false, true), (true, true)] {
            let c = cmd("'/a b/hookshot'", "Stop", fallback, warm, portable);
            assert!(is_ours(&h(&c)), "{c}");
            assert_eq!(c.contains("fire --agent claude --warm Stop ||"), warm, "{c}");
            // A user's own variation of it is theirs.
            assert!(!is_ours(&h(&c.replace("2) exit 2;;", "2) exit 0;;"))), "{c}");
            assert!(!is_ours(&h(&c.replace("hookshot'", "hookshot2'"))), "{c}");
            assert!(!is_ours(&h(&c.replace("--agent claude", "--agent other"))), "{c}");
        }
    }
    // What the previous version wrote (`P=PROGRAM; "$P" fire …`) is still
    // read back whole: doctor and uninstall find it, install replaces it.
    for fallback in [Fallback::Block, Fallback::Warn] {
        for (warm, portable) in [(false, false), (true, false), (false, true), (true, true)] {
            for program in ["'/a b/hookshot'", "/x/hookshot", "'/it'\\''s/hookshot'"] {
                let c = Command {
                    program,
                    portable,
                    agent: Some(Agent::Codex),
                    warm,
                    event: "PreToolUse",
                    fallback,
                };
                for form in [Form::Assigned, Form::ProgramFirst] {
                    let text = c.text_in(form);
                    assert_eq!(Command::parse(&text), Some(c.clone()), "{text}");
                }
            }
        }
    }
    // What older versions wrote is still recognised (to be replaced).
    let old = "P=/x/hookshot; \"$P\" fire Stop; s=$?; case $s in 0|2) exit $s;; esac; printf '{\"systemMessage\":\"hookshot fire Stop failed (exit %s), so the hooks it runs did not run (reinstall hookshot or run hookshot uninstall)\"}\\n' $s; exit 0";
    assert!(is_ours(&h(old)));
}

/// Writes an executable script from a child process: a file this process
/// held open for writing could be inherited by another test thread's fork
/// at that moment, and exec would fail with "text file busy" (exit 126).
fn script(path: &std::path::Path, text: &str) {
    let ok = std::process::Command::new("sh")
        .args(["-c", "printf %s \"$1\" > \"$2\" && chmod 755 \"$2\"", "sh", text])
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "{}", path.display());
}

fn run(command: &str) -> std::process::Output {
    std::process::Command::new("sh").args(["-c", command]).output().unwrap()
}

#[test]
fn a_registration_answers_for_hookshot_when_it_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("hookshot").display().to_string();
    let out = run(&cmd(&gone, "BeforeTool", Fallback::Warn, false, false));
    assert_eq!(out.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        answer["systemMessage"]
            .as_str()
            .unwrap()
            .contains("(it is not installed there any more)"),
        "{answer}"
    );
    let out = run(&cmd(&gone, "BeforeTool", Fallback::Block, false, false));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("hookshot uninstall --all"), "{stderr}");
    // hookshot's own answers pass through as they are.
    let here = dir.path().join("hookshot");
    script(&here, "#!/bin/sh\necho '{\"decision\":\"deny\"}'; exit 2\n");
    for fallback in [Fallback::Warn, Fallback::Block] {
        let out = run(&cmd(&gone, "BeforeTool", fallback, false, false));
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(out.stdout, b"{\"decision\":\"deny\"}\n");
        assert!(out.stderr.is_empty());
    }
}

#[test]
fn a_portable_registration_finds_hookshot_on_path_when_its_path_is_another_machines() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let here = bin.join("hookshot");
    script(&here, "#!/bin/sh\necho \"ran $*\"\n");
    let c = cmd("/elsewhere/hookshot", "Stop", Fallback::Warn, false, true);
    let out = std::process::Command::new("sh")
        .args(["-c", &c])
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ran fire --agent claude Stop\n");
}

#[test]
fn the_closed_policy_blocks_only_where_a_block_is_safe() {
    for e in [
        "PreToolUse",
        "BeforeTool",
        "PermissionRequest",
        "UserPromptSubmit",
        "BeforeAgent",
    ] {
        assert_eq!(fallback_for(FailPolicy::Closed, e), Fallback::Block, "{e}");
    }
    // A block at Stop makes the agent go on forever; at SessionEnd it
    // stops nothing.
    for e in [
        "Stop",
        "SubagentStop",
        "SessionEnd",
        "SessionStart",
        "Notification",
        "PostToolUse",
        "AfterAgent",
    ] {
        assert_eq!(fallback_for(FailPolicy::Closed, e), Fallback::Warn, "{e}");
    }
    for e in ["PreToolUse", "Stop"] {
        assert_eq!(fallback_for(FailPolicy::Open, e), Fallback::Warn, "{e}");
    }
}

#[test]
fn every_agent_event_name_is_known() {
    for agent in agents() {
        for e in agent.registered_events() {
            assert!(hookshot::agent::parse_event_for(e, None).is_some(), "{agent}: {e}");
        }
    }
    assert!(!Agent::Claude.registered_events().contains(&"WorktreeCreate"));
    assert!(Agent::Gemini.registered_events().contains(&"BeforeTool"));
    assert!(Agent::Codex.registered_events().contains(&"PermissionRequest"));
}

/// Codex cuts the context of each of its hooks to 2,500 tokens; hookshot
/// cuts each hook it runs itself, so its entries on the five events that
/// carry context ask Codex for room for all of them (and only those: Codex
/// warns on every session about a limit on another event).
#[test]
fn codex_entries_ask_for_room_for_every_hooks_context() {
    let limit = |agent: Agent, event: &str| {
        agent.entry("hookshot fire", event)["hooks"][0]
            .get("additionalContextLimit")
            .cloned()
    };
    for event in [
        "PreToolUse",
        "PostToolUse",
        "SessionStart",
        "UserPromptSubmit",
        "SubagentStart",
    ] {
        assert_eq!(
            limit(Agent::Codex, event),
            Some(serde_json::json!(1_000_000)),
            "{event}"
        );
        assert_eq!(limit(Agent::Claude, event), None, "{event}");
    }
    for event in [
        "PermissionRequest",
        "PreCompact",
        "PostCompact",
        "SessionEnd",
        "SubagentStop",
        "Stop",
    ] {
        assert_eq!(limit(Agent::Codex, event), None, "{event}");
    }
}

#[test]
fn each_agent_imports_into_a_file_discovery_reads_in_its_dialect() {
    for scope in [
        Scope::Project(PathBuf::from("/p")),
        Scope::User {
            home: "/h".into(),
            config: "/h/.config".into(),
        },
    ] {
        for agent in agents() {
            for f in agent.files_in(&scope) {
                let file = agent.imported_file(&scope, f.imported);
                let name = file.file_name().and_then(|n| n.to_str()).unwrap();
                assert_eq!(
                    hookshot::Agent::of_imported(name).map(hookshot::Agent::dialect),
                    Some(agent.dialect()),
                    "{agent}"
                );
            }
        }
    }
}
