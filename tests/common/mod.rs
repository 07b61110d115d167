//! What the CLI tests share: a project folder with a home of its own, and
//! `hookshot fire` run in it.

#![allow(dead_code, reason = "each test binary uses a part of it")]

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// Writes `bytes` to `child`'s stdin and closes it (the end of the input).
pub fn write_stdin(child: &mut std::process::Child, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    child.stdin.take().expect("stdin is piped").write_all(bytes)
}

/// The binary under test.
pub fn hookshot() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hookshot"))
}

/// A temporary folder holding `proj/` (the workdir) and `home/`.
pub struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("proj")).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        Project { dir }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// The user's hookshot settings holding only the closed failure policy.
    pub fn closed_policy(&self) -> PathBuf {
        self.write(
            "home/.config/hookshot/settings.json",
            r#"{"hooksConfig": {"onFailure": "closed"}}"#,
        )
    }

    /// The JSON a hook saved at `rel` (what it was given, say).
    pub fn read_json(&self, rel: &str) -> Value {
        let text = std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel}: not JSON ({e}): {text}"))
    }

    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    /// `hookshot ARGS` in the folder holding `proj/`, with its own home and
    /// none of an agent's variables; all three streams piped.
    pub fn command(&self, args: &[&str]) -> Command {
        self.command_of(env!("CARGO_BIN_EXE_hookshot").as_ref(), args)
    }

    /// [`Project::command`] with another copy of the binary.
    pub fn command_of(&self, program: &std::path::Path, args: &[&str]) -> Command {
        let mut c = Command::new(program);
        c.args(args)
            .current_dir(self.dir.path())
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("home/.config"))
            .env("XDG_DATA_HOME", self.path("home/.local/share"))
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("CLAUDE_ENV_FILE")
            .env_remove("GEMINI_PROJECT_DIR")
            .env_remove("HOOKSHOT_DEPTH")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    /// [`Project::command`] run with `input` on stdin.
    pub fn run(&self, args: &[&str], input: &Value) -> Output {
        let mut child = self.command(args).spawn().unwrap();
        let _ = write_stdin(&mut child, input.to_string().as_bytes());
        child.wait_with_output().unwrap()
    }

    /// `hookshot fire EVENT` in `proj/`, the project trusted, with `args`.
    pub fn fire(&self, event: &str, input: &Value, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = self.command(&["fire", event, "--workdir", "proj", "--trust-project"]);
        c.args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        let _ = child.stdin.take().unwrap().write_all(input.to_string().as_bytes());
        child.wait_with_output().unwrap()
    }
}

/// The hookshot command an agent's settings file registers for `event`,
/// as the agent would find it.
pub fn registered_command(settings: &std::path::Path, event: &str) -> String {
    let text = std::fs::read_to_string(settings).unwrap();
    let doc: Value = serde_json::from_str(&hookshot_registry::blank_comments(&text).unwrap_or(text)).unwrap();
    doc["hooks"][event]
        .as_array()
        .unwrap_or_else(|| panic!("no {event} in {doc}"))
        .iter()
        .flat_map(|g| g["hooks"].as_array().unwrap())
        .filter_map(|h| h["command"].as_str())
        .find(|c| c.contains(" fire "))
        .unwrap_or_else(|| panic!("no hookshot entry for {event} in {doc}"))
        .to_string()
}

/// What an agent does with a registered command: its shell runs it in
/// `proj/`, with the agent's variables `env` and the event on stdin.
pub fn agent_runs(p: &Project, command: &str, input: &[u8], env: &[(&str, String)]) -> Output {
    let mut agent = Command::new("sh");
    agent
        .args(["-c", command])
        .current_dir(p.path("proj"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .env("HOME", p.path("home"))
        .env("XDG_CONFIG_HOME", p.path("home/.config"))
        // Warm servers of these tests live, and leave, with the project.
        .env("XDG_RUNTIME_DIR", p.path("run"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        agent.env(k, v);
    }
    let mut child = agent.spawn().unwrap();
    // A shell that finds no hookshot exits without reading: a closed pipe
    // here is part of what is being tested, not a failure of the test.
    let _ = write_stdin(&mut child, input);
    child.wait_with_output().unwrap()
}

/// Runs `c`, again while the kernel says its program is still open for
/// writing: a copy just written can be held open for a moment by a process
/// another test thread forked before its exec (ETXTBSY).
pub fn output_of_copy(c: &mut Command) -> Output {
    for _ in 0..100 {
        match c.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other.unwrap(),
        }
    }
    c.output().unwrap()
}

/// A copy of the binary under test at `bin/hookshot`, to install from and
/// then take away.
pub fn installed_copy(p: &Project) -> PathBuf {
    let exe = p.path("bin/hookshot");
    copy_of_this_build(&exe);
    exe
}

/// Copies the binary under test to `to` (its folders made) from a child
/// process: a file this process held open for writing could be inherited
/// by another test thread's fork at that moment, and running the copy would
/// fail with "text file busy".
pub fn copy_of_this_build(to: &std::path::Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    let ok = Command::new("cp")
        .arg(env!("CARGO_BIN_EXE_hookshot"))
        .arg(to)
        .status()
        .unwrap()
        .success();
    assert!(ok, "cp to {}", to.display());
}

pub fn stdout(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&o.stdout)))
}

/// `fire --agent AGENT EVENT` with `fields` over `base` (the agent's
/// common input fields): the JSON answer and the exit code.
pub fn fire_as_agent(p: &Project, agent: &str, event: &str, mut base: Value, fields: Value) -> (Value, Option<i32>) {
    for (k, v) in fields.as_object().unwrap() {
        base[k] = v.clone();
    }
    let o = p.fire(event, &base, &["--agent", agent], &[]);
    let answer = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| {
        panic!(
            "{event}: not JSON: {:?} / {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (answer, o.status.code())
}

/// `fire EVENT --agent claude` in the trusted project: the exit code, the
/// JSON answer (`Null` when there is none) and what was said on stderr.
pub fn fire_as_claude(p: &Project, event: &str, input: &Value) -> (Option<i32>, Value, String) {
    let o = p.fire(event, input, &["--agent", "claude"], &[]);
    (
        o.status.code(),
        serde_json::from_slice(&o.stdout).unwrap_or(Value::Null),
        stderr(&o),
    )
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A real HTTP server on a loopback port, answering every request with
/// one status and body (after an optional delay) and keeping what it was
/// sent.
pub struct HttpServer {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// Each request: its head (request line and headers) and its body.
    pub seen: std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>,
}

impl HttpServer {
    pub fn start(status: u16, body: &str, delay: std::time::Duration) -> HttpServer {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (log, body) = (std::sync::Arc::clone(&seen), body.to_string());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    head.push_str(&line);
                }
                let mut sent = vec![0; length];
                let _ = reader.read_exact(&mut sent);
                log.lock()
                    .unwrap()
                    .push((head, String::from_utf8_lossy(&sent).into_owned()));
                std::thread::sleep(delay);
                let mut stream = stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        HttpServer { url, seen }
    }
}

/// A Python that has the `mcp` package of `tests/mcp/requirements.txt`: a
/// virtualenv under the target folder, made on first use (PyPI must be
/// reachable then). The mcp_tool tests run a real MCP server written with
/// that reference SDK, never a stand-in.
pub fn mcp_python() -> PathBuf {
    static PYTHON: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let venv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mcp-venv");
            let python = venv.join("bin").join("python");
            let reqs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/requirements.txt");
            let wanted = std::fs::read_to_string(&reqs).unwrap();
            let stamp = venv.join("hookshot-requirements.txt");
            if python.exists() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) {
                return python;
            }
            let run = |c: &mut Command, what: &str| {
                let o = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(
                    o.status.success(),
                    "{what} failed: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
            };
            let _ = std::fs::remove_dir_all(&venv);
            run(
                Command::new("python3").args(["-m", "venv"]).arg(&venv),
                "python3 -m venv (the mcp_tool tests need Python 3.10 or later)",
            );
            run(
                Command::new(&python)
                    .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
                    .arg(&reqs),
                "pip install -r tests/mcp/requirements.txt (PyPI must be reachable)",
            );
            std::fs::write(&stamp, wanted).unwrap();
            python
        })
        .clone()
}

/// The test MCP server's script.
pub fn mcp_server_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/guard_server.py")
}
