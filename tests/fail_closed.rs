//! Nothing fails open: the user's own deny keeps blocking beside every kind
//! of broken or hostile project file, environment variable and trust
//! bypass, and the closed policy turns every failure into a block that
//! names its cause. Each test runs the real binary in a temp project with a
//! temp HOME, XDG config folder and system folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const DENY: &str = r#"cat >/dev/null; echo '{"decision":"deny","reason":"user says no"}'"#;

/// A sandbox: `home/`, `xdg/` (XDG_CONFIG_HOME), `sys/` (HOOKSHOT_SYSTEM_DIR)
/// and the project `proj/`.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        for d in ["home", "xdg/hookshot", "sys", "proj"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        Sandbox { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    /// The user's settings: a BeforeTool hook that denies everything.
    fn user_deny(&self) {
        self.user(json!({"hooks": {"BeforeTool": [{"hooks": [
            {"type": "command", "name": "user-deny", "command": DENY, "timeout": 5000}]}]}}));
    }

    fn user(&self, settings: Value) {
        self.write("xdg/hookshot/settings.json", settings.to_string());
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_hookshot"));
        c.args(args)
            .current_dir(self.path("proj"))
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("xdg"))
            .env("HOOKSHOT_SYSTEM_DIR", self.path("sys"))
            .env_remove("HOOKSHOT_PARENT")
            .env_remove("HOOKSHOT_DEPTH")
            .env_remove("HOOKSHOT_EVENT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    /// `hookshot fire EVENT` in the project with a write_file call as input.
    fn fire(&self, event: &str, extra: &[&str]) -> Output {
        self.fire_with(self.cmd(&[&["fire", event, "--workdir", "."], extra].concat()))
    }

    /// Writes `settings` as `name` beside the project and fires EVENT with it.
    fn fire_settings(&self, event: &str, name: &str, settings: &Value) -> Output {
        let f = self.write(name, settings.to_string());
        self.fire(event, &["--settings", f.to_str().unwrap()])
    }

    fn fire_with(&self, mut c: Command) -> Output {
        let input = json!({"session_id": "abc", "tool_name": "write_file",
            "tool_input": {"file_path": "a.txt", "content": "x"}});
        let t = Instant::now();
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        let _ = child.stdin.take().unwrap().write_all(input.to_string().as_bytes());
        let o = child.wait_with_output().unwrap();
        assert!(t.elapsed() < Duration::from_secs(20), "fire took {:?}", t.elapsed());
        o
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn shown(o: &Output) -> String {
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", String::from_utf8_lossy(&o.stdout)));
    v["systemMessage"].as_str().unwrap_or("").to_string()
}

/// Puts one hostile thing at `rel` in the project.
fn plant(s: &Sandbox, rel: &str, kind: &str) {
    let p = s.path("proj").join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&p);
    match kind {
        "truncated" => std::fs::write(&p, "{\"hooks\": {").unwrap(),
        // Unknown keys are ignored with a warning in Claude Code files (as
        // Claude Code does); an unknown hook type is an error everywhere.
        "unknown-type" => std::fs::write(
            &p,
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "commnd", "command": "touch pwned"}]}]}}"#,
        )
        .unwrap(),
        // Taken and clamped, as the agents take it (so its hook is a real
        // one when the project is trusted): it must neither crash hookshot
        // nor stop the user's guard.
        "huge-timeout" => std::fs::write(
            &p,
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "exit 0", "timeout": 1e300}]}]}}"#,
        )
        .unwrap(),
        "bad-byte" => std::fs::write(&p, b"{\"hooks\": {\xff}}").unwrap(),
        "yaml-bomb" => {
            let mut t = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
            for i in 1..9 {
                t.push_str(&format!(
                    "a{i}: &a{i} [{}]\n",
                    vec![format!("*a{}", i - 1); 10].join(", ")
                ));
            }
            std::fs::write(&p, t).unwrap();
        }
        "fifo" => nix::unistd::mkfifo(&p, nix::sys::stat::Mode::S_IRWXU).unwrap(),
        "dev-zero" => std::os::unix::fs::symlink("/dev/zero", &p).unwrap(),
        "directory" => std::fs::create_dir_all(&p).unwrap(),
        "too-large" => std::fs::write(&p, vec![b' '; 5 << 20]).unwrap(),
        other => panic!("unknown kind {other}"),
    }
}

const PROJECT_FILES: &[&str] = &[
    ".gemini/settings.json",
    ".claude/settings.json",
    ".jcli/hooks.yaml",
    ".hookshot/settings.json",
    ".hookshot/extensions/ext/gemini-extension.json",
];
const HOSTILE: &[&str] = &[
    "truncated",
    "unknown-type",
    "huge-timeout",
    "bad-byte",
    "yaml-bomb",
    "fifo",
    "dev-zero",
    "directory",
    "too-large",
];

#[test]
fn the_users_deny_blocks_beside_every_hostile_project_file() {
    for rel in PROJECT_FILES {
        for kind in HOSTILE {
            let s = Sandbox::new();
            s.user_deny();
            plant(&s, rel, kind);
            for trust in [false, true] {
                let extra: &[&str] = if trust { &["--trust-project"] } else { &[] };
                let o = s.fire("BeforeTool", extra);
                let what = format!("{rel} {kind} trusted={trust}: {}", stderr(&o));
                assert_eq!(o.status.code(), Some(2), "{what}");
                assert!(stderr(&o).contains("user says no"), "{what}");
                assert!(!s.path("proj/pwned").exists(), "{what}");
            }
        }
    }
}

#[test]
fn an_untrusted_or_broken_project_file_is_shown_to_the_user() {
    let s = Sandbox::new();
    plant(&s, ".claude/settings.json", "truncated");
    // Untrusted: named, not parsed (no position), shown in the answer.
    let o = s.fire("PreToolUse", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let msg = shown(&o);
    assert!(
        msg.contains(".claude/settings.json") && msg.contains("not trusted"),
        "{msg}"
    );
    assert!(!msg.contains(":1:"), "an untrusted file was parsed: {msg}");
    // Trusted and broken: named with its position.
    let o = s.fire("PreToolUse", &["--trust-project"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(shown(&o).contains(".claude/settings.json:1:"), "{}", shown(&o));
}

/// Hooks that fail in each way the closed policy must turn into a block.
fn failing_hooks() -> Vec<(&'static str, Value)> {
    let hook = |command: &str, timeout: u64| json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "name": "guard", "command": command, "timeout": timeout}]}]}});
    vec![
        ("exit 1", hook("cat >/dev/null; exit 1", 5000)),
        ("timeout", hook("sleep 5", 300)),
        ("not startable", hook("/nonexistent/guard --check", 5000)),
        (
            "cut output",
            hook("cat >/dev/null; head -c 2000000 /dev/zero | tr '\\0' x", 5000),
        ),
        (
            "wrong decision type",
            hook("cat >/dev/null; echo '{\"decision\": 1}'", 5000),
        ),
        ("broken file", json!({"hooks": {"BeforeTool": "not a list"}})),
    ]
}

#[test]
fn the_closed_policy_blocks_on_every_failure_and_names_it() {
    for (what, settings) in failing_hooks() {
        let s = Sandbox::new();
        s.user(json!({"hooksConfig": {"onFailure": "closed"}}));
        let o = s.fire_settings("BeforeTool", "hooks.json", &settings);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
        let reason = stderr(&o);
        assert!(
            reason.contains("guard") || reason.contains("hooks.json"),
            "{what}: {reason}"
        );
        // Under the default open policy it is a warning the agent shows;
        // but a gemini-cli hook that exits with text (the shell's "No such
        // file") is a denial, as gemini-cli itself reads it.
        let s = Sandbox::new();
        let o = s.fire_settings("PreToolUse", "hooks.json", &settings);
        if what == "not startable" {
            assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
            assert!(stderr(&o).contains("/nonexistent/guard"), "{what}: {}", stderr(&o));
            continue;
        }
        assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(&o));
        assert!(shown(&o).contains("hookshot warning"), "{what}: {}", shown(&o));
    }
}

/// Where a block means "keep working" (Claude Code's Stop, SubagentStop,
/// TaskCompleted and TeammateIdle, gemini-cli's AfterAgent), a failure
/// under the closed policy is a warning the agent shows: a block there
/// would make the agent loop (real Claude Code sent ten model requests).
#[test]
fn the_closed_policy_never_makes_the_agent_loop_at_stop() {
    for (event, hooks_event) in [
        ("Stop", "Stop"),
        ("SubagentStop", "SubagentStop"),
        ("TaskCompleted", "TaskCompleted"),
        ("TeammateIdle", "TeammateIdle"),
        ("AfterAgent", "AfterAgent"),
    ] {
        for (what, command) in [("timeout", "sleep 5"), ("not startable", "/nonexistent/stop-check")] {
            let s = Sandbox::new();
            s.user(json!({"hooksConfig": {"onFailure": "closed"}}));
            let settings = if event == "AfterAgent" {
                json!({"hooks": {hooks_event: [{"hooks": [{"type": "command", "name": "stop-check", "command": command, "timeout": 300}]}]}})
            } else {
                json!({"hooks": {hooks_event: [{"hooks": [{"type": "command", "command": command, "timeout": 0.3, "onFailure": "block"}]}]}})
            };
            let o = s.fire_settings(event, "hooks.json", &settings);
            let out = String::from_utf8_lossy(&o.stdout);
            assert_eq!(o.status.code(), Some(0), "{event} {what}: {out} {}", stderr(&o));
            assert!(!out.contains("\"block\""), "{event} {what}: {out}");
            assert!(shown(&o).contains("hookshot warning"), "{event} {what}: {out}");
        }
        // A broken settings file under the closed policy: shown, not a loop.
        let s = Sandbox::new();
        s.user(json!({"hooksConfig": {"onFailure": "closed"}}));
        let o = s.fire_settings(event, "hooks.json", &json!({"hooks": {hooks_event: "not a list"}}));
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{event} broken file: {out} {}", stderr(&o));
        assert!(!out.contains("\"block\""), "{event} broken file: {out}");
    }
}

#[test]
fn claude_on_failure_block_is_per_hook() {
    let s = Sandbox::new();
    let o = s.fire_settings(
        "PreToolUse",
        "claude.json",
        &json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "sleep 5", "timeout": 0.3, "onFailure": "block"}]}]}}),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("timed out"), "{}", stderr(&o));
}

#[test]
fn the_closed_policy_blocks_while_a_project_file_is_untrusted() {
    let s = Sandbox::new();
    s.user(json!({"hooksConfig": {"onFailure": "closed"}}));
    s.write(
        "proj/.gemini/settings.json",
        json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "true"}]}]}}).to_string(),
    );
    let o = s.fire("BeforeTool", &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(".gemini/settings.json"), "{}", stderr(&o));
}

#[test]
fn system_settings_are_policy_no_lower_source_can_switch_them_off() {
    let s = Sandbox::new();
    s.write(
        "sys/settings.json",
        json!({"hooksConfig": {"onFailure": "closed"},
            "builtins": {"dangerous_confirmation": {"mode": "deny"}},
            "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [
                {"type": "command", "name": "system-guard", "command": DENY}]}]}})
        .to_string(),
    );
    let off = json!({"hooksConfig": {"enabled": false, "disabled": ["system-guard"], "onFailure": "open"},
        "disableAllHooks": true, "builtins": {"dangerous_confirmation": false}});
    let claude_off = json!({"disableAllHooks": true, "builtins": {"dangerous_confirmation": {"mode": "ask"}}});
    s.user(off.clone());
    s.write("proj/.gemini/settings.json", off.to_string());
    s.write("proj/.claude/settings.json", claude_off.to_string());
    let cli = s.write("cli.json", off.to_string());
    let args = ["--trust-project", "--settings", cli.to_str().unwrap()];
    let o = s.fire("BeforeTool", &args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("user says no"));
    // The system's built-in still denies, in deny mode.
    let mut c = s.cmd(&[&["fire", "PreToolUse", "--workdir", "."], &args[..]].concat());
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
                .to_string()
                .as_bytes(),
        )
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let out: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
}

#[test]
fn a_relative_xdg_config_home_is_ignored() {
    let s = Sandbox::new();
    s.write(
        "proj/cfg/hookshot/settings.json",
        json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "touch pwned"}]}]}}).to_string(),
    );
    let mut c = s.cmd(&["fire", "BeforeTool", "--workdir", "."]);
    c.env("XDG_CONFIG_HOME", "cfg");
    let o = s.fire_with(c);
    assert_eq!(o.status.code(), Some(0));
    assert!(!s.path("proj/pwned").exists(), "a project file ran as user settings");
}

#[test]
fn no_environment_variable_turns_enforcement_off() {
    let s = Sandbox::new();
    s.user_deny();
    let forged = [
        ("HOOKSHOT_DEPTH", "4"),
        ("HOOKSHOT_EVENT", "BeforeTool"),
        ("HOOKSHOT_PARENT", "1:0,1,2,3"),
    ];
    for (k, v) in forged {
        let mut c = s.cmd(&["fire", "BeforeTool", "--workdir", "."]);
        c.env(k, v);
        let o = s.fire_with(c);
        assert_eq!(o.status.code(), Some(2), "{k}={v}: {}", stderr(&o));
    }
    let mut c = s.cmd(&["fire", "BeforeTool", "--workdir", "."]);
    c.env(
        "HOOKSHOT_PARENT",
        format!("{}:{}", std::process::id(), "ffffffffffffffff"),
    );
    assert_eq!(s.fire_with(c).status.code(), Some(2));
}

#[test]
fn a_hook_that_fires_hookshot_with_other_settings_gets_their_answer() {
    // A hook (a real child of hookshot, so it inherits a valid
    // HOOKSHOT_PARENT) asks hookshot about other settings: their deny holds.
    let s = Sandbox::new();
    let me = env!("CARGO_BIN_EXE_hookshot");
    let deny = s.write(
        "deny.json",
        json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": DENY}]}]}}).to_string(),
    );
    let outer = s.write(
        "outer.json",
        json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "timeout": 20000,
            "command": format!("{me} fire BeforeTool --settings {} > nested.out; echo $? > nested.code; exit 0", deny.display())}]}]}})
        .to_string(),
    );
    let o = s.fire("BeforeTool", &["--settings", outer.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let code = std::fs::read_to_string(s.path("proj/nested.code")).unwrap();
    assert_eq!(code.trim(), "2", "the nested hookshot allowed");
}

fn trust(s: &Sandbox, project: &Path, extra: &[&str]) -> Output {
    s.cmd(&[&["trust", "--workdir", project.to_str().unwrap()], extra].concat())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn guard_project(s: &Sandbox, rel: &str) {
    s.write(
        &format!("{rel}/.claude/settings.json"),
        json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "bash .hooks/check.sh", "timeout": 5}]}]}})
            .to_string(),
    );
    s.write(&format!("{rel}/.hooks/check.sh"), "cat >/dev/null; touch ran; exit 2\n");
}

#[test]
fn trust_is_bound_to_the_project_and_to_the_scripts_it_runs() {
    let s = Sandbox::new();
    guard_project(&s, "proj");
    let t = trust(&s, &s.path("proj"), &[]);
    assert_eq!(
        t.status.code(),
        Some(1),
        "trust without --yes and no terminal must refuse"
    );
    let t = trust(&s, &s.path("proj"), &["--yes"]);
    assert!(t.status.success(), "{}", stderr(&t));
    let out = String::from_utf8_lossy(&t.stdout);
    assert!(
        out.contains("bash .hooks/check.sh") && out.contains("covers .hooks/check.sh"),
        "{out}"
    );
    assert_eq!(s.fire("PreToolUse", &[]).status.code(), Some(2));
    // Editing the script withdraws the approval.
    s.write("proj/.hooks/check.sh", "cat >/dev/null; touch ran; exit 0\n");
    let o = s.fire("PreToolUse", &[]);
    assert_eq!(o.status.code(), Some(0));
    assert!(shown(&o).contains(".hooks/check.sh"), "{}", shown(&o));

    // Project B borrows A's trusted settings through a symlink: untrusted.
    let a = "a";
    guard_project(&s, a);
    assert!(trust(&s, &s.path(a), &["--yes"]).status.success());
    std::fs::create_dir_all(s.path("b/.claude")).unwrap();
    std::os::unix::fs::symlink(s.path("a/.claude/settings.json"), s.path("b/.claude/settings.json")).unwrap();
    s.write("b/.hooks/check.sh", "cat >/dev/null; touch ran; exit 2\n");
    let o = s.fire_with(s.cmd(&["fire", "PreToolUse", "--workdir", s.path("b").to_str().unwrap()]));
    assert_eq!(o.status.code(), Some(0), "A's approval ran B's script");
    assert!(!s.path("b/ran").exists());

    // --list shows approvals, --revoke withdraws them.
    let l = s.cmd(&["trust", "--list"]).output().unwrap();
    assert!(String::from_utf8_lossy(&l.stdout).contains("/a/.claude/settings.json"));
    assert!(trust(&s, &s.path(a), &["--revoke"]).status.success());
    let o = s.fire_with(s.cmd(&["fire", "PreToolUse", "--workdir", s.path(a).to_str().unwrap()]));
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn extensions_with_extension_path_can_be_trusted() {
    let s = Sandbox::new();
    s.write(
        "proj/.hookshot/extensions/guard/gemini-extension.json",
        json!({"name": "guard", "hooks": {"BeforeTool": [{"hooks": [
            {"type": "command", "command": "sh ${extensionPath}/deny.sh"}]}]}})
        .to_string(),
    );
    s.write("proj/.hookshot/extensions/guard/deny.sh", "cat >/dev/null; exit 2\n");
    assert_eq!(s.fire("BeforeTool", &[]).status.code(), Some(0));
    let t = trust(&s, &s.path("proj"), &["--yes"]);
    assert!(t.status.success(), "{}", stderr(&t));
    assert!(String::from_utf8_lossy(&t.stdout).contains("deny.sh"));
    assert_eq!(s.fire("BeforeTool", &[]).status.code(), Some(2));
}

#[test]
fn thirty_concurrent_trust_runs_all_land_in_a_valid_store() {
    let s = Sandbox::new();
    let projects: Vec<String> = (0..30).map(|i| format!("p{i}")).collect();
    for p in &projects {
        guard_project(&s, p);
    }
    let children: Vec<_> = projects
        .iter()
        .map(|p| {
            s.cmd(&["trust", "--yes", "--workdir", s.path(p).to_str().unwrap()])
                .stdin(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        assert!(c.wait_with_output().unwrap().status.success());
    }
    let store: Value =
        serde_json::from_str(&std::fs::read_to_string(s.path("xdg/hookshot/trusted.json")).unwrap()).unwrap();
    assert_eq!(store["trusted"].as_array().unwrap().len(), 30);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(s.path("xdg/hookshot/trusted.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn a_corrupt_trust_store_is_an_error_never_an_empty_store() {
    let s = Sandbox::new();
    guard_project(&s, "proj");
    assert!(trust(&s, &s.path("proj"), &["--yes"]).status.success());
    s.write("xdg/hookshot/trusted.json", "{\"version\": 2, \"trusted\": [");
    let o = s.fire("PreToolUse", &[]);
    assert!(shown(&o).contains("trust store is corrupt"), "{}", shown(&o));
    let t = trust(&s, &s.path("proj"), &["--yes"]);
    assert_eq!(t.status.code(), Some(1));
    assert!(stderr(&t).contains("corrupt"));
    assert_eq!(
        std::fs::read_to_string(s.path("xdg/hookshot/trusted.json")).unwrap(),
        "{\"version\": 2, \"trusted\": ["
    );
}

#[test]
fn usage_errors_exit_1_never_2() {
    let s = Sandbox::new();
    for args in [
        &["fire", "BeforeTool", "--setings", "x.json"][..],
        &["fire"][..],
        &[][..],
        &["fire", "NoSuchEvent"][..],
    ] {
        let o = s.cmd(args).stdin(Stdio::null()).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
    }
    let o = s.cmd(&["--help"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn validate_refuses_special_files_without_hanging() {
    let s = Sandbox::new();
    plant(&s, "fifo.json", "fifo");
    plant(&s, "zero.json", "dev-zero");
    for f in ["fifo.json", "zero.json"] {
        let t = Instant::now();
        let o = s.cmd(&["validate", f]).stdin(Stdio::null()).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{f}");
        assert!(stderr(&o).contains("not a regular file"), "{f}: {}", stderr(&o));
        assert!(t.elapsed() < Duration::from_secs(5));
    }
}

#[test]
fn replay_shows_an_unusable_settings_file_to_the_person_watching() {
    let s = Sandbox::new();
    let fixture = json!({"method": "generateContentStream", "response": [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "done"}]}, "finishReason": "STOP", "index": 0}]}]});
    let f = s.write("session.responses", format!("{fixture}\n"));
    let broken = s.write("broken.json", "{\"hooks\": {");
    let o = s
        .cmd(&[
            "replay",
            f.to_str().unwrap(),
            "--settings",
            broken.to_str().unwrap(),
            "--workdir",
            ".",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.matches("broken.json:1:").count(), 1, "{out}");
}

#[test]
fn hooks_see_the_callers_session_id() {
    let s = Sandbox::new();
    let o = s.fire_settings(
        "BeforeTool",
        "env.json",
        &json!({"hooks": {"BeforeTool": [{"hooks": [
            {"type": "command", "command": "cat >/dev/null; echo \"$GEMINI_SESSION_ID\" > session.txt"}]}]}}),
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(s.path("proj/session.txt")).unwrap().trim(),
        "abc"
    );
}

#[test]
fn a_timed_out_guard_is_shown_in_claudes_system_message() {
    let s = Sandbox::new();
    let o = s.fire_settings(
        "PreToolUse",
        "claude.json",
        &json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "sleep 5", "timeout": 0.3}]}]}}),
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(shown(&o).contains("timed out after 0.3s"), "{}", shown(&o));
}
