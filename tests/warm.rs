//! `hookshot fire --warm`: answers exactly as a one-shot `fire`, keeps
//! persistent process hooks started between events, and sees every change
//! a fresh load would (settings, trust, the scripts trust covers, a
//! process hook's program) at the next event.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use common::Project;
use serde_json::{Value, json};

/// A picoclaw process hook that notes each start in `starts.log` and
/// denies writes under secrets/ with `reason`.
fn guard(reason: &str) -> String {
    format!(
        r#"import json, sys
open("starts.log", "a").write("started\n")
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("id") is None:
        continue
    params = msg.get("params") or {{}}
    if msg["method"] == "hook.before_tool" and "secrets/" in json.dumps(params.get("arguments", {{}})):
        result = {{"action": "deny_tool", "reason": "{reason}"}}
    else:
        result = {{"action": "continue"}} if msg["method"] != "hook.hello" else {{"ok": True}}
    print(json.dumps({{"jsonrpc": "2.0", "id": msg["id"], "result": result}}), flush=True)
"#
    )
}

fn write_to(path: &str) -> Value {
    json!({"session_id": "s", "tool_name": "write_file", "tool_input": {"file_path": path, "content": "x"}})
}

/// `hookshot fire EVENT [--warm]` in the project, with a runtime folder of
/// its own, `input` on stdin.
fn fire(p: &Project, event: &str, warm: bool, args: &[&str], input: &Value) -> Output {
    let mut c = p.command(&["fire", event, "--workdir", "proj", "--warm-idle", "30"]);
    if warm {
        c.arg("--warm");
    }
    c.args(args).env("XDG_RUNTIME_DIR", p.path("run"));
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    let _ = child.stdin.take().unwrap().write_all(input.to_string().as_bytes());
    child.wait_with_output().unwrap()
}

/// What a `fire` printed and how it exited.
fn shown(o: &Output) -> (String, String, Option<i32>) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code(),
    )
}

fn servers(p: &Project, ext: &str) -> Vec<PathBuf> {
    std::fs::read_dir(p.path("run/hookshot"))
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|f| f.extension().is_some_and(|x| x == ext))
                .collect()
        })
        .unwrap_or_default()
}

/// Waits until `ready` holds, for at most 20 s.
fn wait_until(what: &str, ready: impl Fn() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < Duration::from_secs(20), "timed out waiting: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn server_log(p: &Project) -> String {
    servers(p, "log")
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap_or_default())
        .collect()
}

fn starts(p: &Project) -> usize {
    std::fs::read_to_string(p.path("proj/starts.log"))
        .unwrap_or_default()
        .lines()
        .count()
}

/// A picoclaw project: `proj/config.json` runs `proj/guard.py`.
fn picoclaw(p: &Project, reason: &str) {
    p.write("proj/guard.py", &guard(reason));
    p.write(
        "proj/config.json",
        &json!({"hooks": {"enabled": true, "processes": {"guard": {
            "command": ["python3", "guard.py"], "intercept": ["before_tool"]}}}})
        .to_string(),
    );
    std::fs::create_dir_all(p.path("run")).unwrap();
    std::fs::set_permissions(p.path("run"), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
}

#[test]
fn a_warm_fire_answers_as_a_one_shot_fire_and_keeps_the_process_hook_started() {
    let p = Project::new();
    picoclaw(&p, "secrets are off limits");
    let settings = ["--settings", "proj/config.json"];
    let deny = fire(&p, "before_tool", false, &settings, &write_to("secrets/k"));
    let allow = fire(&p, "before_tool", false, &settings, &write_to("notes.txt"));
    assert_eq!(deny.status.code(), Some(2), "{}", common::stderr(&deny));
    assert_eq!(allow.status.code(), Some(0), "{}", common::stderr(&allow));
    assert_eq!(starts(&p), 2, "one-shot fires start the process every time");

    // No server yet: this event runs here, and starts one.
    assert_eq!(
        shown(&fire(&p, "before_tool", true, &settings, &write_to("secrets/k"))),
        shown(&deny)
    );
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    for (input, one_shot) in [("secrets/k", &deny), ("notes.txt", &allow), ("secrets/k", &deny)] {
        let warm = fire(&p, "before_tool", true, &settings, &write_to(input));
        assert_eq!(
            shown(&warm),
            shown(one_shot),
            "warm and one-shot answers differ for {input}"
        );
    }
    // Three one-shot starts, then one for the server's three events.
    assert_eq!(starts(&p), 4, "the warm server did not keep the process hook started");

    // Its program changes (the settings do not): the server starts the new
    // one, as a one-shot fire would run it.
    p.write("proj/guard.py", &guard("the new guard says no"));
    let warm = fire(&p, "before_tool", true, &settings, &write_to("secrets/k"));
    let fresh = fire(&p, "before_tool", false, &settings, &write_to("secrets/k"));
    assert_eq!(shown(&warm), shown(&fresh));
    assert!(
        common::stderr(&warm).contains("the new guard says no"),
        "{}",
        common::stderr(&warm)
    );
    assert!(server_log(&p).contains("loading again"), "{}", server_log(&p));
}

fn claude_project(p: &Project, script: &str) {
    p.write("proj/.hooks/guard.sh", script);
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "sh .hooks/guard.sh"}]}]}})
        .to_string(),
    );
    std::fs::create_dir_all(p.path("run")).unwrap();
    std::fs::set_permissions(p.path("run"), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
}

fn bash() -> Value {
    json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})
}

fn trust(p: &Project, extra: &[&str]) {
    let o = p.run(&[&["trust", "--yes", "--workdir", "proj"], extra].concat(), &json!({}));
    assert!(o.status.success(), "{}", common::stderr(&o));
}

/// Sets a file's modification time back to what it was.
fn keep_mtime(path: &Path, then: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(then)
        .unwrap();
}

#[test]
fn a_warm_server_sees_revoked_trust_and_edited_scripts_at_the_next_event() {
    let p = Project::new();
    claude_project(&p, "echo blocked-by-guard >&2; exit 2\n");
    trust(&p, &[]);
    let both = |why: &str| {
        let warm = fire(&p, "PreToolUse", true, &[], &bash());
        let one_shot = fire(&p, "PreToolUse", false, &[], &bash());
        assert_eq!(shown(&warm), shown(&one_shot), "{why}");
        warm
    };
    fire(&p, "PreToolUse", true, &[], &bash());
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    let o = both("trusted");
    assert_eq!(o.status.code(), Some(2));
    assert!(!server_log(&p).contains("loading again"));

    // Revoked: only the trust store changed.
    let revoke = p.run(&["trust", "--revoke", "--workdir", "proj"], &json!({}));
    assert!(revoke.status.success(), "{}", common::stderr(&revoke));
    let o = both("revoked");
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(common::stderr(&o).contains("not trusted"), "{}", common::stderr(&o));
    assert!(server_log(&p).contains("loading again"), "{}", server_log(&p));

    // Trusted again, then the script it runs is edited in place, same
    // size and modification time: the approval no longer covers it.
    trust(&p, &[]);
    assert_eq!(both("trusted again").status.code(), Some(2));
    let script = p.path("proj/.hooks/guard.sh");
    let then = std::fs::metadata(&script).unwrap().modified().unwrap();
    std::fs::write(&script, "echo blocked-by-guard >&2; exit 0\n").unwrap();
    keep_mtime(&script, then);
    let o = both("script edited");
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("changed since it was trusted"),
        "{}",
        common::stderr(&o)
    );
}

#[test]
fn a_runtime_folder_others_may_enter_is_not_used() {
    let p = Project::new();
    picoclaw(&p, "no");
    std::fs::create_dir_all(p.path("run/hookshot")).unwrap();
    std::fs::set_permissions(
        p.path("run/hookshot"),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    let settings = ["--settings", "proj/config.json"];
    let one_shot = fire(&p, "before_tool", false, &settings, &write_to("secrets/k"));
    for _ in 0..3 {
        let warm = fire(&p, "before_tool", true, &settings, &write_to("secrets/k"));
        assert_eq!(shown(&warm), shown(&one_shot));
        std::thread::sleep(Duration::from_millis(300));
    }
    assert!(
        servers(&p, "sock").is_empty(),
        "a server listened in a folder others can enter"
    );
    assert_eq!(starts(&p), 4, "every event ran one-shot");
}

fn alive(pid: i32) -> bool {
    // A zombie has no exe link to read.
    std::fs::read_link(format!("/proc/{pid}/exe")).is_ok()
}

#[test]
fn a_client_that_is_killed_takes_its_event_hooks_with_it_and_an_idle_server_leaves() {
    let p = Project::new();
    claude_project(&p, "echo $$ > pid; exec sleep 30\n");
    let warm = |p: &Project| {
        let mut c = p.command(&["fire", "PreToolUse", "--workdir", "proj", "--trust-project"]);
        c.args(["--warm", "--warm-idle", "2"])
            .env("XDG_RUNTIME_DIR", p.path("run"));
        c
    };
    let mut first = warm(&p).spawn().unwrap();
    drop(first.stdin.take());
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    // The one-shot run of that first event is still waiting on its hook;
    // told to stop, it stops its hook too.
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(first.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    );
    let _ = first.wait();
    let _ = std::fs::remove_file(p.path("proj/pid"));

    let mut client = warm(&p).spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = client.stdin.take().unwrap();
        stdin.write_all(bash().to_string().as_bytes()).unwrap();
    }
    wait_until("the hook to start", || {
        std::fs::read_to_string(p.path("proj/pid")).is_ok_and(|s| s.trim().parse::<i32>().is_ok())
    });
    let hook: i32 = std::fs::read_to_string(p.path("proj/pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(alive(hook));
    client.kill().unwrap();
    client.wait().unwrap();
    wait_until("the hook of the killed client's event to stop", || !alive(hook));
    // Nothing to do for two seconds: the server leaves, socket and all.
    wait_until("the idle server to leave", || servers(&p, "sock").is_empty());
}

/// The pid of the warm server listening under this project's runtime folder.
fn server_pid(p: &Project) -> i32 {
    let run = p.path("run").display().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .find(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                let c = String::from_utf8_lossy(&c);
                c.contains("warm-server") && c.contains(&run)
            })
        })
        .expect("no warm server process")
}

fn zombie_children(pid: i32) -> Vec<i32> {
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    let threads: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let all: String = threads
        .iter()
        .map(|t| std::fs::read_to_string(format!("/proc/{pid}/task/{t}/children")).unwrap_or_default())
        .chain([children])
        .collect::<Vec<_>>()
        .join(" ");
    all.split_whitespace()
        .filter_map(|c| c.parse::<i32>().ok())
        .filter(|c| {
            std::fs::read_to_string(format!("/proc/{c}/stat"))
                .is_ok_and(|s| s.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z')))
        })
        .collect()
}

#[test]
fn background_hooks_handed_off_by_a_warm_server_leave_no_zombie() {
    let p = Project::new();
    p.write(
        "proj/.claude/settings.json",
        &json!({"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [
            {"type": "command", "command": "cat >/dev/null; echo ran >> ../background.log", "async": true}]}]}})
        .to_string(),
    );
    std::fs::create_dir_all(p.path("run")).unwrap();
    std::fs::set_permissions(p.path("run"), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let wrote = json!({"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": "a.txt", "content": "x"}, "tool_response": {"success": true}});
    let args = ["--trust-project"];
    let one_shot = fire(&p, "PostToolUse", false, &args, &wrote);
    fire(&p, "PostToolUse", true, &args, &wrote);
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    for _ in 0..3 {
        assert_eq!(shown(&fire(&p, "PostToolUse", true, &args, &wrote)), shown(&one_shot));
    }
    let ran = || {
        std::fs::read_to_string(p.path("background.log"))
            .unwrap_or_default()
            .lines()
            .count()
    };
    wait_until("every background hook to run", || ran() == 5);
    let server = server_pid(&p);
    wait_until("the server to reap its background jobs", || {
        zombie_children(server).is_empty()
    });
}

#[test]
fn a_project_folder_made_again_at_the_same_path_is_not_served_from_the_old_one() {
    let p = Project::new();
    picoclaw(&p, "the first folder's guard");
    // Relative paths, read from the working directory.
    let run = |warm: bool| {
        let mut c = p.command(&["fire", "before_tool", "--settings", "config.json", "--warm-idle", "30"]);
        if warm {
            c.arg("--warm");
        }
        c.current_dir(p.path("proj")).env("XDG_RUNTIME_DIR", p.path("run"));
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        let _ = child
            .stdin
            .take()
            .unwrap()
            .write_all(write_to("secrets/k").to_string().as_bytes());
        child.wait_with_output().unwrap()
    };
    run(true);
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    assert!(common::stderr(&run(true)).contains("the first folder's guard"));
    // The folder is removed and made again, with another guard.
    std::fs::remove_dir_all(p.path("proj")).unwrap();
    picoclaw(&p, "the second folder's guard");
    let warm = run(true);
    assert_eq!(shown(&warm), shown(&run(false)));
    assert!(
        common::stderr(&warm).contains("the second folder's guard"),
        "{}",
        common::stderr(&warm)
    );
}

/// Waits for `child` at most `limit`; kills it and fails past that.
fn wait_at_most(mut child: std::process::Child, limit: Duration, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{what}: still waiting after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_stopped_server_costs_seconds_and_a_silent_connection_does_not_keep_it() {
    let p = Project::new();
    picoclaw(&p, "secrets are off limits");
    let settings = ["--settings", "proj/config.json"];
    let deny = fire(&p, "before_tool", false, &settings, &write_to("secrets/k"));
    let warm = || {
        let mut c = p.command(&["fire", "before_tool", "--workdir", "proj", "--warm", "--warm-idle", "2"]);
        c.args(settings).env("XDG_RUNTIME_DIR", p.path("run"));
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(write_to("secrets/k").to_string().as_bytes()).unwrap();
        child
    };
    // A connection that never says anything does not keep an idle server.
    wait_at_most(warm(), Duration::from_secs(20), "the first warm fire");
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    let server = server_pid(&p);
    let socket = servers(&p, "sock").pop().expect("the server's socket");
    let _silent = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    let start = Instant::now();
    while alive(server) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "a silent connection keeps the warm server alive"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // A stopped server: the client waits seconds, then runs the event here.
    wait_at_most(warm(), Duration::from_secs(20), "a warm fire that starts a server");
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    let server = nix::unistd::Pid::from_raw(server_pid(&p));
    nix::sys::signal::kill(server, nix::sys::signal::Signal::SIGSTOP).unwrap();
    let stopped = wait_at_most(warm(), Duration::from_secs(20), "a fire whose warm server is stopped");
    nix::sys::signal::kill(server, nix::sys::signal::Signal::SIGCONT).unwrap();
    // The event ran here, with the one-shot's answer (and a warning that
    // the server did not answer).
    assert_eq!(
        stopped.status.code(),
        deny.status.code(),
        "{}",
        common::stderr(&stopped)
    );
    assert_eq!(stopped.stdout, deny.stdout);
    assert!(common::stderr(&stopped).contains("the warm server did not answer"));
    assert!(common::stderr(&stopped).contains("secrets are off limits"));
}

/// Edits the rules of a [`rules_guard`] project with a warm server up: the
/// warm answer is the one-shot one, with the new rules.
fn new_rules_are_seen_warm(p: &Project) {
    let settings = ["--settings", "proj/config.json"];
    p.write("proj/rules.txt", "the new rules say no\n");
    let warm = fire(p, "before_tool", true, &settings, &write_to("secrets/k"));
    let fresh = fire(p, "before_tool", false, &settings, &write_to("secrets/k"));
    assert_eq!(shown(&warm), shown(&fresh));
    assert!(
        common::stderr(&warm).contains("the new rules say no"),
        "{}",
        common::stderr(&warm)
    );
}

/// A picoclaw project whose guard reads its reason from `rules.txt` beside
/// it, at start ("the old rules say no").
fn rules_guard() -> Project {
    let p = Project::new();
    picoclaw(&p, "unused");
    let guard = guard("REASON").replace("\"REASON\"", "RULES").replacen(
        "import json, sys\n",
        "import json, sys\nRULES = open(\"rules.txt\").read().strip()\n",
        1,
    );
    p.write("proj/guard.py", &guard);
    p.write("proj/rules.txt", "the old rules say no\n");
    p
}

#[test]
fn a_process_hook_s_rules_file_beside_it_changed_is_seen_as_one_shot_sees_it() {
    let p = rules_guard();
    let settings = ["--settings", "proj/config.json"];
    fire(&p, "before_tool", true, &settings, &write_to("secrets/k"));
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    let warm = fire(&p, "before_tool", true, &settings, &write_to("secrets/k"));
    assert!(
        common::stderr(&warm).contains("the old rules say no"),
        "{}",
        common::stderr(&warm)
    );
    new_rules_are_seen_warm(&p);
}

/// The differential check: one corpus of events, each fired one-shot and
/// warm, every answer (stdout, stderr, exit code) the same byte for byte.
#[test]
fn a_corpus_answers_byte_for_byte_the_same_warm_and_one_shot() {
    let p = Project::new();
    picoclaw(&p, "secrets are off limits");
    p.write(
        "proj/claude.json",
        &json!({
            "builtins": {"dangerous_confirmation": {"mode": "deny"}, "security_scan": {"mode": "redact"}},
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q 'drop table' && { echo 'no SQL drops' >&2; exit 2; }; exit 0"}]},
                    {"matcher": "Write", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"file_path\": \"safe.txt\", \"content\": \"x\"}}}'"}]},
                    {"matcher": "Read", "hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"no reading\"}'"}]},
                    {"matcher": "Edit", "hooks": [{"type": "command", "command": "exit 1"}, {"type": "command", "command": "sleep 5", "timeout": 1}]}
                ],
                "PostToolUse": [{"hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"checked\"}}'"}]}],
                "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'plain context for the model'"}]}],
                "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"SessionStart\", \"additionalContext\": \"welcome\"}}'"}]}],
                "Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"tests first\"}'"}]}]
            }
        })
        .to_string(),
    );
    let bash = |c: &str| json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": c}});
    let corpus: Vec<(&str, &[&str], Value)> = vec![
        (
            "before_tool",
            &["--settings", "proj/config.json"],
            write_to("secrets/k"),
        ),
        (
            "before_tool",
            &["--settings", "proj/config.json"],
            write_to("notes.txt"),
        ),
        ("PreToolUse", &["--settings", "proj/claude.json"], bash("ls")),
        (
            "PreToolUse",
            &["--settings", "proj/claude.json"],
            bash("psql -c 'drop table users'"),
        ),
        ("PreToolUse", &["--settings", "proj/claude.json"], bash("rm -rf ~")),
        (
            "PreToolUse",
            &["--settings", "proj/claude.json"],
            bash("git push --force origin main"),
        ),
        (
            "PreToolUse",
            &["--settings", "proj/claude.json"],
            bash("export TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        ),
        (
            "PreToolUse",
            &["--settings", "proj/claude.json"],
            json!({"session_id": "s", "tool_name": "Write", "tool_input": {"file_path": "a.txt", "content": "x"}}),
        ),
        (
            "PreToolUse",
            &["--settings", "proj/claude.json"],
            json!({"session_id": "s", "tool_name": "Read", "tool_input": {"file_path": "a.txt"}}),
        ),
        (
            "PreToolUse",
            &["--settings", "proj/claude.json"],
            json!({"session_id": "s", "tool_name": "Edit", "tool_input": {"file_path": "a.txt"}}),
        ),
        (
            "PostToolUse",
            &["--settings", "proj/claude.json"],
            json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a"}}),
        ),
        (
            "UserPromptSubmit",
            &["--settings", "proj/claude.json"],
            json!({"session_id": "s", "prompt": "hello"}),
        ),
        (
            "SessionStart",
            &["--settings", "proj/claude.json"],
            json!({"session_id": "s", "source": "startup"}),
        ),
        (
            "SessionStart",
            &["--settings", "proj/claude.json"],
            json!({"session_id": "s", "source": "resume"}),
        ),
        (
            "Stop",
            &["--settings", "proj/claude.json"],
            json!({"session_id": "s", "stop_hook_active": false}),
        ),
        (
            "BeforeTool",
            &["--settings", "proj/claude.json"],
            json!({"session_id": "s", "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf /"}}),
        ),
    ];
    // Start each context's server, then compare every answer.
    for args in [["--settings", "proj/config.json"], ["--settings", "proj/claude.json"]] {
        let before = servers(&p, "sock").len();
        fire(&p, "SessionEnd", true, &args, &json!({"session_id": "s"}));
        wait_until("a warm server", || servers(&p, "sock").len() > before);
    }
    let started = starts(&p);
    for (event, args, input) in &corpus {
        let one_shot = fire(&p, event, false, args, input);
        let warm = fire(&p, event, true, args, input);
        assert_eq!(shown(&warm), shown(&one_shot), "{event} {input}");
    }
    // The warm answers came from the server: its process hook started once
    // for both warm events, the one-shot fires once each.
    assert_eq!(starts(&p), started + 3, "the warm fires did not run in the warm server");
}

#[test]
fn the_hooks_of_a_server_killed_mid_event_do_not_run_on_beside_the_one_shot_run() {
    let p = Project::new();
    // Its first run waits long; a second run of the event returns at once.
    claude_project(
        &p,
        "[ -e first ] && exit 0; touch first; echo $$ > pid; exec sleep 30\n",
    );
    let warm = |input: &Value| {
        let mut c = p.command(&["fire", "PreToolUse", "--workdir", "proj", "--trust-project"]);
        c.args(["--warm", "--warm-idle", "20"])
            .env("XDG_RUNTIME_DIR", p.path("run"));
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        let _ = child.stdin.take().unwrap().write_all(input.to_string().as_bytes());
        child
    };
    // Start the server with an event no hook matches.
    let read = json!({"session_id": "s", "tool_name": "Read", "tool_input": {"file_path": "a"}});
    wait_at_most(warm(&read), Duration::from_secs(20), "the first warm fire");
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    let server = server_pid(&p);
    let client = warm(&bash());
    wait_until("the hook to start in the server", || {
        std::fs::read_to_string(p.path("proj/pid")).is_ok_and(|s| s.trim().parse::<i32>().is_ok())
    });
    let hook: i32 = std::fs::read_to_string(p.path("proj/pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(server), nix::sys::signal::Signal::SIGKILL).unwrap();
    let out = wait_at_most(client, Duration::from_secs(20), "the client of a killed server");
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert!(common::stderr(&out).contains("the warm server did not answer"));
    wait_until("the killed server's hook to stop", || !alive(hook));
}

#[test]
fn one_server_answers_callers_whose_environments_differ_each_with_its_own() {
    let p = Project::new();
    std::fs::create_dir_all(p.path("run")).unwrap();
    std::fs::set_permissions(p.path("run"), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    // The hook says the variable it got, and whether a warm server ran it.
    p.write(
        "proj/claude.json",
        &json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
            "command": "echo \"FOO=$FOO by $(tr '\\0' ' ' < /proc/$PPID/cmdline | grep -o warm-server)\""}]}]}})
        .to_string(),
    );
    let fire_with = |foo: &str| {
        let mut c = p.command(&[
            "fire",
            "UserPromptSubmit",
            "--workdir",
            "proj",
            "--settings",
            "proj/claude.json",
        ]);
        c.args(["--warm", "--warm-idle", "20"])
            .env("XDG_RUNTIME_DIR", p.path("run"))
            .env("FOO", foo);
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        let _ = child
            .stdin
            .take()
            .unwrap()
            .write_all(br#"{"session_id": "s", "prompt": "hi"}"#);
        wait_at_most(child, Duration::from_secs(20), "a warm fire")
    };
    fire_with("first");
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    for foo in ["a", "b", "c"] {
        let out = fire_with(foo);
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            said.contains(&format!("FOO={foo} by warm-server")),
            "{said} {}",
            common::stderr(&out)
        );
    }
    assert_eq!(servers(&p, "sock").len(), 1, "a server per environment");
}

/// A picoclaw guard that exits when an event's arguments mention "crash"
/// (after a moment, so that another event queues behind it) and denies
/// writes under secrets/.
fn crashing_guard() -> String {
    guard("secrets are off limits").replace(
        "    params = msg.get(\"params\") or {}\n",
        "    params = msg.get(\"params\") or {}\n    if \"crash\" in json.dumps(params):\n        import time, os\n        time.sleep(0.3)\n        os._exit(1)\n",
    )
}

#[test]
fn an_event_that_crashes_the_warm_process_hook_lets_no_other_event_through() {
    let p = Project::new();
    picoclaw(&p, "secrets are off limits");
    p.write("proj/guard.py", &crashing_guard());
    let settings = ["--settings", "proj/config.json"];
    let spawn = |path: &str| {
        let mut c = p.command(&[
            "fire",
            "before_tool",
            "--workdir",
            "proj",
            "--warm",
            "--warm-idle",
            "20",
        ]);
        c.args(settings).env("XDG_RUNTIME_DIR", p.path("run"));
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        let _ = child
            .stdin
            .take()
            .unwrap()
            .write_all(write_to(path).to_string().as_bytes());
        child
    };
    wait_at_most(spawn("notes.txt"), Duration::from_secs(20), "the first warm fire");
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    // Started in the server, then one event crashes it while another waits.
    wait_at_most(spawn("notes.txt"), Duration::from_secs(20), "a warm fire");
    let crasher = spawn("crash.txt");
    std::thread::sleep(Duration::from_millis(100));
    let bystander = spawn("secrets/k");
    let crashed = wait_at_most(crasher, Duration::from_secs(20), "the crashing event");
    let other = wait_at_most(bystander, Duration::from_secs(20), "the other event");
    assert!(
        common::stderr(&crashed).contains("exited"),
        "{}",
        common::stderr(&crashed)
    );
    assert_eq!(other.status.code(), Some(2), "{}", common::stderr(&other));
    assert!(common::stderr(&other).contains("secrets are off limits"));
    // During the restart backoff, still asked.
    let next = wait_at_most(spawn("secrets/k"), Duration::from_secs(20), "an event in the backoff");
    assert_eq!(next.status.code(), Some(2), "{}", common::stderr(&next));
}

#[test]
fn a_warm_server_s_audit_log_follows_logrotate() {
    let p = Project::new();
    picoclaw(&p, "secrets are off limits");
    p.write(
        "proj/audit.json",
        &json!({"builtins": {"audit_log": {"path": "audit.jsonl"}}}).to_string(),
    );
    let settings = ["--settings", "proj/audit.json"];
    let event = json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    fire(&p, "PreToolUse", true, &settings, &event);
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    fire(&p, "PreToolUse", true, &settings, &event);
    let log = p.path("proj/audit.jsonl");
    wait_until("the server's record", || {
        std::fs::read_to_string(&log).is_ok_and(|t| t.lines().count() >= 2)
    });
    std::fs::rename(&log, p.path("proj/audit.jsonl.1")).unwrap();
    fire(&p, "PreToolUse", true, &settings, &event);
    wait_until("a record in the new log", || {
        std::fs::read_to_string(&log).is_ok_and(|t| t.lines().count() == 1)
    });
}

/// No cap on what a warm server watches may make its answer differ from a
/// one-shot `fire`: with more files beside a process hook's program than
/// it watches, the event runs one-shot, and an edited rules file among
/// them is seen.
#[test]
fn too_many_files_beside_a_process_hook_never_make_warm_differ() {
    let p = rules_guard();
    // Far more than a server watches: wherever the directory lists
    // rules.txt, it is past the cap almost always.
    for i in 0..3000 {
        std::fs::write(p.path(&format!("proj/data-{i}.txt")), "x").unwrap();
    }
    let settings = ["--settings", "proj/config.json"];
    fire(&p, "before_tool", true, &settings, &write_to("secrets/k"));
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    fire(&p, "before_tool", true, &settings, &write_to("secrets/k"));
    new_rules_are_seen_warm(&p);
}

/// One slow event (a guard walking a long command) does not hold up the
/// server's other callers: they are answered warm, not after the client's
/// silence limit by running the event a second time one-shot.
#[test]
fn a_slow_event_does_not_stall_the_other_warm_clients() {
    let p = Project::new();
    p.write(
        "home/.config/hookshot/settings.json",
        &json!({"builtins": {"dangerous_confirmation": {"mode": "deny"}}}).to_string(),
    );
    std::fs::create_dir_all(p.path("run")).unwrap();
    std::fs::set_permissions(p.path("run"), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let bash = |command: &str| json!({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": command}});
    fire(&p, "PreToolUse", true, &[], &bash("ls"));
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    // Seconds of walking for the guard (the walk is slow on long chains).
    let slow_input = bash(&format!("{}ls", "cd a;".repeat(2000)));
    let slow = {
        let mut c = p.command(&["fire", "PreToolUse", "--workdir", "proj", "--warm", "--warm-idle", "30"]);
        c.env("XDG_RUNTIME_DIR", p.path("run"));
        let mut child = c.spawn().unwrap();
        let _ = common::write_stdin(&mut child, slow_input.to_string().as_bytes());
        child
    };
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..4 {
        let quick = fire(&p, "PreToolUse", true, &[], &bash("rm -rf /"));
        let (out, err, code) = shown(&quick);
        assert_eq!(code, Some(2), "{out}{err}");
        assert!(
            !err.contains("did not answer"),
            "the quick event waited behind the slow one: {err}"
        );
    }
    let slow = slow.wait_with_output().unwrap();
    assert!(
        !common::stderr(&slow).contains("did not answer"),
        "{}",
        common::stderr(&slow)
    );
}

#[test]
fn warm_stop_ends_every_server_and_the_next_event_starts_afresh() {
    let p = Project::new();
    claude_project(&p, "echo started >> starts.log; exit 0\n");
    let warm = |p: &Project| {
        let mut c = p.command(&["fire", "PreToolUse", "--workdir", "proj", "--trust-project"]);
        c.args(["--warm", "--warm-idle", "60"])
            .env("XDG_RUNTIME_DIR", p.path("run"));
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        let _ = child.stdin.take().unwrap().write_all(bash().to_string().as_bytes());
        child.wait_with_output().unwrap()
    };
    let manage = |action: &str| {
        let o = p
            .command(&["warm", action])
            .env("XDG_RUNTIME_DIR", p.path("run"))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    assert_eq!(warm(&p).status.code(), Some(0));
    wait_until("a warm server", || !servers(&p, "sock").is_empty());
    let pid = server_pid(&p);
    assert!(manage("list").contains("\n1 warm server(s) in "));
    assert!(manage("stop").starts_with("1 warm server(s) told to stop"));
    wait_until("the stopped server to leave", || !alive(pid));
    assert!(servers(&p, "sock").is_empty());
    assert!(manage("list").contains("0 warm server(s)"));
    // The next warm event runs, and starts a new server.
    assert_eq!(warm(&p).status.code(), Some(0));
    wait_until("a new warm server", || !servers(&p, "sock").is_empty());
    assert_ne!(server_pid(&p), pid);
    manage("stop");
}
