//! Every door answers one event the same: `hookshot fire --agent A` (a
//! one-shot run), and `hookshot serve` asked with `{"agent": "A"}`, give
//! the same hooks the same environment and shell, and the agent the same
//! answer, for every agent.

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
         tr '\\0' ' ' < /proc/$$/cmdline; echo; }} > {out}; \
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
    c.env_remove("SHELL");
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

#[test]
fn fire_and_serve_give_hooks_the_same_environment_and_the_agent_the_same_answer() {
    for agent in ["claude", "codex", "gemini"] {
        let p = Project::new();
        let event = if agent == "gemini" {
            "BeforeAgent"
        } else {
            "UserPromptSubmit"
        };
        // One-shot.
        let mut child = door(&p, &["fire", event, "--agent", agent], "fire");
        let _ = write_stdin(&mut child, input(&p).to_string().as_bytes());
        let fired = child.wait_with_output().unwrap();
        assert_eq!(
            fired.status.code(),
            Some(0),
            "{agent}: {}",
            String::from_utf8_lossy(&fired.stderr)
        );
        let fired_answer: Value = serde_json::from_slice(&fired.stdout).unwrap_or(Value::Null);
        // The sidecar.
        let mut child = door(&p, &["serve"], "serve");
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "fire",
            "params": {"event": event, "input": input(&p), "agent": agent}});
        writeln!(stdin, "{request}").unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        drop(stdin);
        let _ = child.wait();
        let served: Value = serde_json::from_str(&line).unwrap();
        let served_answer = &served["result"]["output"];

        let seen = |tag: &str| std::fs::read_to_string(p.path(&format!("seen-{tag}"))).unwrap();
        let (f, s) = (seen("fire"), seen("serve"));
        assert_eq!(
            f.replace("seen-fire", "seen-X"),
            s.replace("seen-serve", "seen-X"),
            "{agent}: the hook's variables and shell differ between fire and serve"
        );
        assert_eq!(
            normalized(&fired_answer),
            normalized(served_answer),
            "{agent}: the answers differ"
        );
        if agent == "codex" {
            assert!(fired_answer.to_string().contains("tokens truncated"), "{fired_answer}");
            assert!(
                !f.contains("CLAUDE_PROJECT_DIR"),
                "Codex sets no CLAUDE_PROJECT_DIR:\n{f}"
            );
        }
    }
}
