//! The project's own acceptance scenarios (`integration-tests/scenarios`),
//! run by `cargo test` as a user runs them: `hookshot replay FIXTURE
//! --settings … --workdir work --prompt … --transcript …` in a fresh
//! folder with an empty home, then every expectation of the scenario
//! checked. The format is the acceptance suite's (docs/SCENARIOS.md):
//! `scenario.json` with `fixture`, `prompt`, `settings`, `files`,
//! `expect`, and a `hooks/` folder copied to `work/.hooks/`.
//!
//! `HOOKSHOT_SCENARIOS=DIR[:DIR…]` runs other folders of scenarios the
//! same way (a scenario folder, or a folder of them);
//! `HOOKSHOT_SCENARIOS_BIN=PROGRAM` runs them with another build of
//! hookshot (`scripts/cross.py`: the arm64 binary under qemu).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

const LIMIT: Duration = Duration::from_secs(60);
const SCENARIO_KEYS: [&str; 6] = ["about", "fixture", "prompt", "settings", "files", "expect"];
const TRANSCRIPT_CHECKS: [&str; 12] = [
    "tool_calls",
    "no_tool_call",
    "tool_call_count",
    "model_request_count",
    "model_request_contains",
    "model_request_not_contains",
    "model_response_contains",
    "model_response_not_contains",
    "events_in_order",
    "hook_events",
    "hook_records",
    "stop_reason_contains",
];
const OTHER_CHECKS: [&str; 15] = [
    "exit_code",
    "max_seconds",
    "files_exist",
    "files_absent",
    "file_equals",
    "file_contains",
    "stdout_contains",
    "stdout_not_contains",
    "hook_log_contains",
    "hook_log_not_contains",
    "hook_log_lines",
    "hook_runs",
    "hook_order",
    "hook_log_entries",
    "hook_inputs",
];

/// What one replay left behind.
struct Run {
    work: PathBuf,
    code: Option<i32>,
    secs: f64,
    stdout: String,
    stderr: String,
    log: Vec<Value>,
    log_raw: String,
    transcript: Option<Vec<Value>>,
}

fn jsonl(text: &str) -> Vec<Value> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| match serde_json::from_str::<Value>(l) {
            Ok(v @ Value::Object(_)) => v,
            _ => json!({"_unparsed": l}),
        })
        .collect()
}

fn clip(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 200 {
        format!("{}...", text.chars().take(200).collect::<String>())
    } else {
        text
    }
}

fn deep_subset(small: &Value, big: &Value) -> bool {
    match (small, big) {
        (Value::Object(s), Value::Object(b)) => s.iter().all(|(k, v)| b.get(k).is_some_and(|bv| deep_subset(v, bv))),
        (Value::Array(s), Value::Array(b)) => s.iter().all(|sv| b.iter().any(|bv| deep_subset(sv, bv))),
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => small == big,
    }
}

fn contains_text(v: &Value, text: &str) -> bool {
    fn leaves<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    out.push(k);
                    leaves(v, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|v| leaves(v, out)),
            Value::String(s) => out.push(s),
            _ => {}
        }
    }
    let mut all = Vec::new();
    leaves(v, &mut all);
    all.iter().any(|s| s.contains(text)) || v.to_string().contains(text)
}

fn get_path<'a>(v: &'a Value, dotted: &str) -> Option<&'a Value> {
    dotted.split('.').try_fold(v, |v, part| v.as_object()?.get(part))
}

/// Why `obj` does not satisfy a MATCH spec (`subset`, `has_fields`,
/// `field_contains`).
fn match_problems(obj: &Value, spec: &Value) -> Vec<String> {
    let mut why = Vec::new();
    if let Some(subset) = spec.get("subset")
        && !deep_subset(subset, obj)
    {
        why.push(format!("subset {}", clip(subset)));
    }
    for field in spec.get("has_fields").and_then(Value::as_array).into_iter().flatten() {
        let field = field.as_str().unwrap_or_default();
        if matches!(get_path(obj, field), None | Some(Value::Null)) || get_path(obj, field) == Some(&json!("")) {
            why.push(format!("field {field:?} missing or empty"));
        }
    }
    for (field, text) in spec
        .get("field_contains")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let text = text.as_str().unwrap_or_default();
        let hay = match get_path(obj, field) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(v) => Some(v.to_string()),
            None => None,
        };
        if !hay.is_some_and(|h| h.contains(text)) {
            why.push(format!("field {field:?} lacks {text:?}"));
        }
    }
    why
}

fn count_ok(n: usize, want: &Value) -> Result<bool, String> {
    match want {
        Value::Number(x) => Ok(x.as_u64() == Some(n as u64)),
        Value::Object(m) => {
            let bound = |k: &str| m.get(k).and_then(Value::as_f64);
            Ok(bound("min").is_none_or(|lo| n as f64 >= lo) && bound("max").is_none_or(|hi| n as f64 <= hi))
        }
        other => Err(format!("bad COUNT {other}")),
    }
}

fn is_subsequence(wanted: &[Value], seen: &[Value]) -> bool {
    let mut it = seen.iter();
    wanted.iter().all(|w| it.any(|s| s == w))
}

fn name_matches(want: &Value, got: Option<&Value>) -> bool {
    match (want, got) {
        (Value::Array(names), Some(g)) => names.contains(g),
        (w, Some(g)) => w == g,
        _ => false,
    }
}

fn entry_event(entry: &Value) -> Option<String> {
    entry
        .get("event")
        .and_then(Value::as_str)
        .filter(|e| !e.is_empty())
        .or_else(|| entry.get("input")?.get("hook_event_name")?.as_str())
        .map(String::from)
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array().into_iter().flatten().filter_map(Value::as_str).collect()
}

fn read(path: &Path) -> Option<String> {
    std::fs::read(path)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn records<'a>(r: &'a Run, kind: &str) -> Vec<&'a Value> {
    r.transcript
        .iter()
        .flatten()
        .filter(|t| t.get("type").and_then(Value::as_str) == Some(kind))
        .collect()
}

fn counts(keys: impl Iterator<Item = Option<String>>) -> Map<String, Value> {
    let mut seen = Map::new();
    for k in keys {
        let k = k.unwrap_or_else(|| "null".into());
        let n = seen.get(&k).and_then(Value::as_u64).unwrap_or(0);
        seen.insert(k, json!(n + 1));
    }
    seen
}

/// One expectation: the problems it finds in the run.
fn check(r: &Run, key: &str, want: &Value) -> Result<Vec<String>, String> {
    let mut bad = Vec::new();
    let in_work = |p: &str| r.work.join(p);
    match key {
        "exit_code" => {
            if r.code != want.as_i64().map(|c| c as i32) {
                bad.push(format!(
                    "exit code {:?}, expected {want}; stderr: {}",
                    r.code,
                    r.stderr.trim()
                ));
            }
        }
        "max_seconds" => {
            if r.secs > want.as_f64().ok_or("not a number")? {
                bad.push(format!("replay took {:.1} s, limit {want} s", r.secs));
            }
        }
        "files_exist" => bad.extend(
            strings(want)
                .into_iter()
                .filter(|p| !in_work(p).exists())
                .map(|p| format!("file {p} missing")),
        ),
        "files_absent" => bad.extend(
            strings(want)
                .into_iter()
                .filter(|p| in_work(p).exists())
                .map(|p| format!("file {p} exists")),
        ),
        "file_equals" | "file_contains" => {
            for (p, text) in want.as_object().ok_or("not an object")? {
                let text = text.as_str().ok_or("not a string")?;
                let got = read(&in_work(p));
                let ok = got.as_deref().is_some_and(|g| {
                    if key == "file_equals" {
                        g == text
                    } else {
                        g.contains(text)
                    }
                });
                if !ok {
                    bad.push(format!("file {p} is {got:?}, expected {key} {text:?}"));
                }
            }
        }
        "stdout_contains" => bad.extend(
            strings(want)
                .into_iter()
                .filter(|t| !r.stdout.contains(t))
                .map(|t| format!("stdout lacks {t:?}; stdout: {}", r.stdout.trim())),
        ),
        "stdout_not_contains" => bad.extend(
            strings(want)
                .into_iter()
                .filter(|t| r.stdout.contains(t))
                .map(|t| format!("stdout contains {t:?}")),
        ),
        "hook_log_contains" => bad.extend(
            strings(want)
                .into_iter()
                .filter(|t| !r.log_raw.contains(t))
                .map(|t| format!("hook log lacks {t:?}")),
        ),
        "hook_log_not_contains" => bad.extend(
            strings(want)
                .into_iter()
                .filter(|t| r.log_raw.contains(t))
                .map(|t| format!("hook log contains {t:?}")),
        ),
        "hook_log_lines" | "hook_runs" => {
            let seen = if key == "hook_runs" {
                counts(
                    r.log
                        .iter()
                        .map(|e| e.get("hook").and_then(Value::as_str).map(String::from)),
                )
            } else {
                counts(r.log.iter().map(entry_event))
            };
            for (name, n) in want.as_object().ok_or("not an object")? {
                let got = seen.get(name).and_then(Value::as_u64).unwrap_or(0) as usize;
                if !count_ok(got, n)? {
                    bad.push(format!(
                        "{key} {name}: {got}, expected {n} (all: {})",
                        Value::Object(seen.clone())
                    ));
                }
            }
        }
        "hook_order" => {
            let mut first: Vec<Value> = Vec::new();
            for e in &r.log {
                let h = e.get("hook").cloned().unwrap_or(Value::Null);
                if !first.contains(&h) {
                    first.push(h);
                }
            }
            if !is_subsequence(want.as_array().ok_or("not a list")?, &first) {
                bad.push(format!(
                    "hooks {want} did not first run in that order; order seen: {first:?}"
                ));
            }
        }
        "hook_log_entries" => {
            for w in want.as_array().ok_or("not a list")? {
                if !r.log.iter().any(|e| deep_subset(w, e)) {
                    bad.push(format!("no hook log line contains {}", clip(w)));
                }
            }
        }
        "hook_inputs" => {
            for spec in want.as_array().ok_or("not a list")? {
                let cands: Vec<&Value> = r
                    .log
                    .iter()
                    .filter(|e| {
                        spec.get("event")
                            .is_none_or(|ev| entry_event(e).as_deref() == ev.as_str())
                    })
                    .filter(|e| spec.get("hook").is_none_or(|h| e.get("hook") == Some(h)))
                    .collect();
                let input = |e: &Value| e.get("input").cloned().unwrap_or(Value::Null);
                if !cands.iter().any(|e| match_problems(&input(e), spec).is_empty()) {
                    bad.push(match cands.first() {
                        None => format!("no logged call for {}", clip(spec)),
                        Some(e) => format!(
                            "no logged input matches {}: {}",
                            clip(spec),
                            match_problems(&input(e), spec).join("; ")
                        ),
                    });
                }
            }
        }
        "tool_calls" | "no_tool_call" => {
            let calls = records(r, "tool_call");
            for w in want.as_array().ok_or("not a list")? {
                let hits = calls.iter().filter(|c| {
                    name_matches(&w["name"], c.get("name"))
                        && w.get("status").is_none_or(|s| c.get("status") == Some(s))
                        && w.get("args_subset")
                            .is_none_or(|a| deep_subset(a, c.get("args").unwrap_or(&json!({}))))
                });
                match (key, hits.count()) {
                    ("tool_calls", 0) => bad.push(format!("no tool_call {}", clip(w))),
                    ("no_tool_call", n) if n > 0 => bad.push(format!("unexpected tool_call {}", clip(w))),
                    _ => {}
                }
            }
        }
        "tool_call_count" | "model_request_count" => {
            let kind = if key == "tool_call_count" {
                "tool_call"
            } else {
                "model_request"
            };
            let n = records(r, kind).len();
            if !count_ok(n, want)? {
                bad.push(format!("{n} {kind} records, expected {want}"));
            }
        }
        "model_request_contains"
        | "model_request_not_contains"
        | "model_response_contains"
        | "model_response_not_contains" => {
            let kind = if key.starts_with("model_request") {
                "model_request"
            } else {
                "model_response"
            };
            let recs = records(r, kind);
            for t in strings(want) {
                let found = recs.iter().any(|q| contains_text(q, t));
                if found == key.ends_with("not_contains") {
                    bad.push(format!("{key}: {t:?} ({} records)", recs.len()));
                }
            }
        }
        "events_in_order" => {
            let seen: Vec<Value> = records(r, "hook_event")
                .iter()
                .map(|t| t.get("event").cloned().unwrap_or(Value::Null))
                .collect();
            if !is_subsequence(want.as_array().ok_or("not a list")?, &seen) {
                bad.push(format!("hook events {want} not in this order among {seen:?}"));
            }
        }
        "hook_events" | "hook_records" => {
            for spec in want.as_array().ok_or("not a list")? {
                let of_event = records(r, "hook_event")
                    .into_iter()
                    .filter(|t| t.get("event") == spec.get("event"));
                let cands: Vec<&Value> = if key == "hook_events" {
                    of_event.collect()
                } else {
                    of_event
                        .flat_map(|t| t.get("hooks").and_then(Value::as_array).into_iter().flatten())
                        .collect()
                };
                if !cands.iter().any(|c| match_problems(c, spec).is_empty()) {
                    let detail = cands
                        .first()
                        .map_or("none recorded".into(), |c| match_problems(c, spec).join("; "));
                    bad.push(format!("no {key} entry of {} matches: {detail}", spec["event"]));
                }
            }
        }
        "stop_reason_contains" => {
            let stops = records(r, "stop");
            for t in strings(want) {
                if !stops.iter().any(|s| {
                    s.get("reason")
                        .map(|r| r.as_str().map_or(r.to_string(), String::from))
                        .is_some_and(|r| r.contains(t))
                }) {
                    bad.push(format!("no stop record's reason contains {t:?}"));
                }
            }
        }
        other => return Err(format!("unknown expectation {other:?}")),
    }
    Ok(bad)
}

fn fixture_of(dir: &Path, name: &str) -> Option<PathBuf> {
    let here = dir.join(name);
    if here.is_file() {
        return Some(here);
    }
    let beside = dir.parent()?.join("fixtures").join(name);
    (!name.contains('/') && beside.is_file()).then_some(beside)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs one scenario; the problems found (none: it passed).
fn run_scenario(dir: &Path) -> Vec<String> {
    let spec: Value = match read(&dir.join("scenario.json")).map(|t| serde_json::from_str(&t)) {
        Some(Ok(v)) => v,
        other => return vec![format!("scenario.json unreadable: {other:?}")],
    };
    let mut problems: Vec<String> = spec
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !SCENARIO_KEYS.contains(&k.as_str()))
        .map(|(k, _)| format!("scenario.json: unknown key {k:?}"))
        .collect();
    let Some(fixture) = spec["fixture"].as_str().and_then(|f| fixture_of(dir, f)) else {
        problems.push(format!("fixture {} not found", spec["fixture"]));
        return problems;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    match dir.join("hooks") {
        hooks if hooks.is_dir() => copy_dir(&hooks, &work.join(".hooks")),
        _ => std::fs::create_dir_all(work.join(".hooks")).unwrap(),
    }
    for (rel, text) in spec["files"].as_object().into_iter().flatten() {
        let path = work.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text.as_str().unwrap_or_default()).unwrap();
    }
    let home = tmp.path().join("home");
    std::fs::create_dir_all(home.join(".config")).unwrap();
    let transcript = tmp.path().join("transcript.jsonl");
    let program = std::env::var_os("HOOKSHOT_SCENARIOS_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_hookshot").into());
    let mut cmd = Command::new(program);
    cmd.arg("replay").arg(&fixture);
    for (i, s) in spec["settings"].as_array().into_iter().flatten().enumerate() {
        let (ext, text) = match s {
            Value::String(yaml) => ("yaml", yaml.clone()),
            doc => ("json", serde_json::to_string_pretty(doc).unwrap()),
        };
        let path = tmp.path().join(format!("settings-{}.{ext}", i + 1));
        std::fs::write(&path, text).unwrap();
        cmd.arg("--settings").arg(path);
    }
    cmd.arg("--workdir")
        .arg(&work)
        .arg("--prompt")
        .arg(spec["prompt"].as_str().unwrap_or_default())
        .arg("--transcript")
        .arg(&transcript);
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if ["GEMINI_", "CLAUDE_", "HOOKSHOT_"].iter().any(|p| k.starts_with(p)) {
            cmd.env_remove(&*k);
        }
    }
    // Output to files: a process a hook leaves behind cannot hold pipes open.
    let (out, err) = (tmp.path().join("stdout.txt"), tmp.path().join("stderr.txt"));
    cmd.current_dir(tmp.path())
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let start = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let pgid = nix::unistd::Pid::from_raw(child.id() as i32);
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > LIMIT {
            let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            problems.push(format!("replay did not finish in {} s", LIMIT.as_secs()));
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let secs = start.elapsed().as_secs_f64();
    let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
    let log_raw = read(&work.join(".hooks/calls.log")).unwrap_or_default();
    let run = Run {
        code,
        secs,
        stdout: read(&out).unwrap_or_default(),
        stderr: read(&err).unwrap_or_default(),
        log: jsonl(&log_raw),
        log_raw,
        transcript: read(&transcript).map(|t| jsonl(&t)),
        work,
    };
    for (key, want) in spec["expect"].as_object().into_iter().flatten() {
        if !TRANSCRIPT_CHECKS.contains(&key.as_str()) && !OTHER_CHECKS.contains(&key.as_str()) {
            problems.push(format!("unknown expectation {key:?}"));
            continue;
        }
        if TRANSCRIPT_CHECKS.contains(&key.as_str()) && run.transcript.is_none() {
            problems.push("no transcript was written".into());
            continue;
        }
        match check(&run, key, want) {
            Ok(found) => problems.extend(found),
            Err(why) => problems.push(format!("expectation {key} is malformed: {why}")),
        }
    }
    problems
}

fn scenarios_in(dir: &Path) -> Vec<PathBuf> {
    if dir.join("scenario.json").is_file() {
        return vec![dir.to_path_buf()];
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("scenario.json").is_file())
        .collect();
    found.sort();
    found
}

#[test]
fn the_projects_own_scenarios_pass() {
    let mut dirs = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("integration-tests/scenarios")];
    if let Some(more) = std::env::var_os("HOOKSHOT_SCENARIOS") {
        dirs.extend(std::env::split_paths(&more));
    }
    let scenarios: Vec<PathBuf> = dirs.iter().flat_map(|d| scenarios_in(d)).collect();
    assert!(
        scenarios.len() >= 20,
        "only {} scenarios found in {dirs:?}",
        scenarios.len()
    );
    // Two at a time: each is a replay with its own hooks, and CI has two cores.
    let results: Vec<(PathBuf, Vec<String>)> = std::thread::scope(|s| {
        let chunks: Vec<_> = scenarios.chunks(scenarios.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| s.spawn(move || chunk.iter().map(|d| (d.clone(), run_scenario(d))).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let failed: Vec<String> = results
        .iter()
        .filter(|(_, p)| !p.is_empty())
        .map(|(d, p)| format!("FAIL {}: {}", d.display(), p.join(" | ")))
        .collect();
    eprintln!("{} scenarios, {} failed", results.len(), failed.len());
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn a_scenario_whose_expectation_is_not_met_fails() {
    // The runner itself must be able to fail: a copy of a passing scenario
    // with one expectation turned around.
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("integration-tests/scenarios");
    let one = scenarios_in(&src)
        .into_iter()
        .find(|d| read(&d.join("scenario.json")).is_some_and(|t| t.contains("\"exit_code\"")))
        .expect("a scenario with an exit_code expectation");
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("scenarios").join("turned");
    copy_dir(&one, &copy);
    let mut spec: Value = serde_json::from_str(&read(&copy.join("scenario.json")).unwrap()).unwrap();
    let code = spec["expect"]["exit_code"].as_i64().unwrap();
    spec["expect"]["exit_code"] = json!(code + 1);
    if let Some(f) = spec["fixture"].as_str()
        && !copy.join(f).exists()
    {
        spec["fixture"] = json!(fixture_of(&one, f).unwrap());
    }
    std::fs::write(copy.join("scenario.json"), spec.to_string()).unwrap();
    let problems = run_scenario(&copy);
    assert!(
        problems.iter().any(|p| p.contains("exit code")),
        "the turned expectation went unnoticed: {problems:?}"
    );
}
