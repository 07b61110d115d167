//! OpenTelemetry export against a real OTLP receiver: one built on the
//! protocol's own message types (PyPI's `opentelemetry-proto`, installed
//! by the test into a virtual environment under the target directory).

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::Project;
use serde_json::{Value, json};

/// A Python that has `opentelemetry-proto`, set up once per target dir.
fn python() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("otlp-venv");
    let python = venv.join("bin/python");
    let ready = |p: &Path| {
        Command::new(p)
            .args(["-c", "import opentelemetry.proto, google.protobuf"])
            .status()
            .is_ok_and(|s| s.success())
    };
    if !ready(&python) {
        let made = Command::new("python3").arg("-m").arg("venv").arg(&venv).status();
        assert!(made.is_ok_and(|s| s.success()), "python3 -m venv {venv:?} failed");
        let pip = Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "opentelemetry-proto",
            ])
            .status();
        assert!(pip.is_ok_and(|s| s.success()), "pip install opentelemetry-proto failed");
    }
    python
}

/// The receiver, listening; killed on drop.
struct Receiver {
    child: Child,
    port: u16,
    out: PathBuf,
}

impl Receiver {
    fn start(out: PathBuf) -> Receiver {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/otlp_receiver.py");
        let mut child = Command::new(python())
            .arg(script)
            .arg(&out)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().unwrap_or_else(|_| panic!("receiver said {line:?}"));
        Receiver { child, port, out }
    }

    /// Every export received so far.
    fn exports(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.out)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every span of the trace exports: (name, attributes as key -> value).
fn spans(exports: &[Value]) -> Vec<(String, Value)> {
    let mut found = Vec::new();
    for e in exports.iter().filter(|e| e["path"] == "/v1/traces") {
        for rs in e["body"]["resourceSpans"].as_array().into_iter().flatten() {
            for ss in rs["scopeSpans"].as_array().into_iter().flatten() {
                for s in ss["spans"].as_array().into_iter().flatten() {
                    let mut attrs = serde_json::Map::new();
                    for a in s["attributes"].as_array().into_iter().flatten() {
                        let v = a["value"].as_object().and_then(|v| v.values().next()).cloned();
                        attrs.insert(a["key"].as_str().unwrap().to_string(), v.unwrap_or(Value::Null));
                    }
                    found.push((s["name"].as_str().unwrap().to_string(), Value::Object(attrs)));
                }
            }
        }
    }
    found
}

fn metric_names(exports: &[Value]) -> Vec<String> {
    let mut names = Vec::new();
    for e in exports.iter().filter(|e| e["path"] == "/v1/metrics") {
        for rm in e["body"]["resourceMetrics"].as_array().into_iter().flatten() {
            for sm in rm["scopeMetrics"].as_array().into_iter().flatten() {
                for m in sm["metrics"].as_array().into_iter().flatten() {
                    names.push(m["name"].as_str().unwrap().to_string());
                }
            }
        }
    }
    names
}

#[test]
fn fire_exports_hook_spans_and_metrics_to_an_otlp_receiver_only_when_configured() {
    let p = Project::new();
    let receiver = Receiver::start(p.path("exports.jsonl"));
    p.write(
        "proj/.hookshot/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "cat >/dev/null; echo 'not today' >&2; exit 2"},
            {"type": "command", "command": "exit 7"}]}]}})
        .to_string(),
    );
    let input = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
    // Off by default: nothing is sent.
    let out = p.fire("PreToolUse", &input, &[], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(receiver.exports().is_empty(), "{:?}", receiver.exports());

    let endpoint = format!("http://127.0.0.1:{}", receiver.port);
    let out = p.fire(
        "PreToolUse",
        &input,
        &[],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint), ("OTEL_SERVICE_NAME", "")],
    );
    // The answer is the same with export on.
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not today"));
    let exports = receiver.exports();
    let spans = spans(&exports);
    let event = spans
        .iter()
        .find(|(n, _)| n == "event")
        .unwrap_or_else(|| panic!("{spans:?}"));
    assert_eq!(event.1["event"], "BeforeTool", "{event:?}");
    let hooks: Vec<_> = spans.iter().filter(|(n, _)| n == "hook").collect();
    assert_eq!(hooks.len(), 2, "{spans:?}");
    assert!(hooks.iter().any(|(_, a)| a["exit_code"] == "2"), "{hooks:?}");
    assert!(
        hooks
            .iter()
            .any(|(_, a)| a["exit_code"] == "7" && a["failure"] == "crash"),
        "{hooks:?}"
    );
    let resource = &exports.iter().find(|e| e["path"] == "/v1/traces").unwrap()["body"]["resourceSpans"][0]["resource"];
    assert!(resource.to_string().contains("\"hookshot\""), "{resource}");
    let names = metric_names(&exports);
    for m in ["hookshot.events", "hookshot.hook.runs", "hookshot.hook.duration"] {
        assert!(names.iter().any(|n| n == m), "{m} not in {names:?}");
    }
}

#[test]
fn a_collector_that_is_down_changes_no_answer() {
    let p = Project::new();
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    p.write(
        "proj/.hookshot/settings.json",
        &json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "cat >/dev/null; exit 2"}]}]}})
            .to_string(),
    );
    let endpoint = format!("http://127.0.0.1:{port}");
    let out = p.fire(
        "PreToolUse",
        &json!({"tool_name": "Bash"}),
        &[],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("OpenTelemetry"), "{stderr}");
}
