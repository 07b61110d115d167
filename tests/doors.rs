//! Every door answers one event the same: `hookshot fire --agent A` (a
//! one-shot run), `hookshot fire --warm --agent A` (answered by the warm
//! server once one runs) and `hookshot serve` asked with `{"agent": "A"}`
//! give the same hooks the same environment and shell, and the agent the
//! same answer, for every agent of the agent table.

use std::io::{BufRead, BufReader, Write};

use serde_json::{Value, json};

mod common;
use common::{Project, write_stdin};

/// A hook (in hookshot's own settings, Claude Code's format) that writes
/// down what it was given: its variables, its shell, and answers with
/// context long enough that Codex cuts it.
fn settings(p: &Project, tag: &str) -> std::path::PathBuf {
    let out = p.path(&format!("seen-{tag}"));
    let dump = format!(
        "cat >/dev/null; {{ env | cut -d= -f1 | grep -v -e '^HOOKSHOT_' -e '^_$' -e '^SHLVL$' -e '^PWD$' -e '^OLDPWD$' | sort; \
         tr '\\0' ' ' < /proc/$$/cmdline; echo; }} > {out}; tr '\\0' ' ' < /proc/$PPID/cmdline > {out}.parent; \
         python3 -c \"import json; print(json.dumps({{'hookSpecificOutput': {{'hookEventName': 'UserPromptSubmit', 'additionalContext': 'w ' * 6000}}}}))\"",
        out = out.display()
    );
    let s = json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": dump}]}]}});
    p.write(&format!("settings-{tag}.json"), &s.to_string())
}

fn input(p: &Project) -> Value {
    json!({"session_id": "s1", "prompt": "hello", "cwd": p.path("proj"), "turn_id": "t1"})
}

/// `hookshot ARGS` in `proj/` with hookshot's settings of `tag`, its
/// shell not named by `$SHELL` (Codex reads the user database).
fn door(p: &Project, args: &[&str], tag: &str) -> std::process::Child {
    let settings = settings(p, tag);
    let mut all = args.to_vec();
    all.extend(["--workdir", "proj", "--settings", settings.to_str().unwrap()]);
    let mut c = p.command(&all);
    c.env_remove("SHELL").env("XDG_RUNTIME_DIR", p.path("run"));
    c.spawn().unwrap()
}

/// What the answer says once the paths that differ by run (a saved
/// context's file) are taken out.
fn normalized(answer: &Value) -> String {
    let text = answer.to_string();
    match text.find("Full hook output saved to: ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// How long a warm server waits for the next event in these tests.
const WARM_IDLE: &str = "30";

#[test]
fn fire_warm_and_serve_give_hooks_the_same_environment_and_the_agent_the_same_answer() {
    let mut checked = Vec::new();
    for agent in hookshot::Agent::ALL {
        // The prompt event, in the agent's words (picoclaw has none).
        let Some(event) = hookshot::EventKind::BeforeAgent.name_in(agent.dialect()) else {
            continue;
        };
        let name = agent.name();
        checked.push(name);
        let p = Project::new();
        std::fs::create_dir_all(p.path("run")).unwrap();
        let fire = |tag: &str, extra: &[&str]| {
            let mut args = vec!["fire", event, "--agent", name];
            args.extend_from_slice(extra);
            let mut child = door(&p, &args, tag);
            let _ = write_stdin(&mut child, input(&p).to_string().as_bytes());
            let out = child.wait_with_output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name} {extra:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice::<Value>(&out.stdout).unwrap_or(Value::Null)
        };
        // One-shot.
        let fired_answer = fire("fire", &[]);
        // Warm: the first call starts a server, the second is its answer.
        let warm = ["--warm", "--warm-idle", WARM_IDLE];
        fire("warm", &warm);
        std::fs::remove_file(p.path("seen-warm")).unwrap();
        let started = std::time::Instant::now();
        while !std::fs::read_dir(p.path("run/hookshot"))
            .is_ok_and(|d| d.flatten().any(|e| e.path().extension().is_some_and(|x| x == "sock")))
        {
            assert!(started.elapsed().as_secs() < 20, "{name}: no warm server started");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // A client that hears nothing from the server for 3 s runs the
        // event itself (by design: an overloaded server must not cost the
        // agent its timeout), which a loaded test machine can provoke:
        // the server must answer one of three asks.
        let mut warm_answer = Value::Null;
        let mut parent = String::new();
        for _ in 0..3 {
            warm_answer = fire("warm", &warm);
            parent = std::fs::read_to_string(p.path("seen-warm.parent")).unwrap();
            if parent.contains("warm-server") {
                break;
            }
            std::fs::remove_file(p.path("seen-warm")).unwrap();
        }
        assert!(
            parent.contains("warm-server"),
            "{name}: not answered by the warm server: {parent}"
        );
        let stop = p
            .command(&["warm", "stop"])
            .env("XDG_RUNTIME_DIR", p.path("run"))
            .output()
            .unwrap();
        assert_eq!(stop.status.code(), Some(0), "{}", String::from_utf8_lossy(&stop.stderr));
        // The sidecar.
        let mut child = door(&p, &["serve"], "serve");
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "fire",
            "params": {"event": event, "input": input(&p), "agent": name}});
        writeln!(stdin, "{request}").unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        drop(stdin);
        let _ = child.wait();
        let served: Value = serde_json::from_str(&line).unwrap();
        let served_answer = &served["result"]["output"];

        let seen = |tag: &str| {
            std::fs::read_to_string(p.path(&format!("seen-{tag}")))
                .unwrap_or_else(|e| panic!("{name}: the hook did not run through {tag}: {e}"))
                .replace(&format!("seen-{tag}"), "seen-X")
        };
        let (f, w, s) = (seen("fire"), seen("warm"), seen("serve"));
        assert_eq!(
            f, s,
            "{name}: the hook's variables and shell differ between fire and serve"
        );
        assert_eq!(
            f, w,
            "{name}: the hook's variables and shell differ between fire and fire --warm"
        );
        assert_eq!(
            normalized(&fired_answer),
            normalized(served_answer),
            "{name}: the answers differ"
        );
        assert_eq!(
            normalized(&fired_answer),
            normalized(&warm_answer),
            "{name}: the warm answer differs"
        );
        if agent == hookshot::Agent::Codex {
            assert!(fired_answer.to_string().contains("tokens truncated"), "{fired_answer}");
            assert!(
                !f.contains("CLAUDE_PROJECT_DIR"),
                "Codex sets no CLAUDE_PROJECT_DIR:\n{f}"
            );
        }
    }
    assert!(checked.len() >= 6, "{checked:?}");
}
