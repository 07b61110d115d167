//! `hookshot test`: declarative cases for hooks. A case names an event, its
//! input, the settings (files or inline) and what the answer must be; the
//! case runs as the agent would run it, through `hookshot fire` as a real
//! process, so exit codes, dialects and failure policy are the real ones.
//! `fire --record DIR` writes cases in this same format.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::case::{Case, Expect, SUFFIX, SettingsRef, decision_word};
use crate::fail::Fail;

#[derive(clap::Args, Debug)]
pub(crate) struct TestArgs {
    /// Case files, or directories searched for `*.test.json` files
    /// (default: the current directory).
    paths: Vec<PathBuf>,
    /// Also write the results as JUnit XML to FILE, for CI.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Run only the cases whose name contains this text.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
}

/// One case's result.
struct Ran {
    file: PathBuf,
    name: String,
    took: Duration,
    /// Why it failed; empty when it passed.
    failures: Vec<String>,
    /// fire's stderr, shown when the case failed.
    stderr: String,
}

pub(crate) async fn run(args: TestArgs) -> Result<u8, Fail> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths
    };
    let mut files = Vec::new();
    for p in &paths {
        find_cases(p, &mut files).map_err(|e| Fail::Usage(format!("{}: {e}", p.display())))?;
    }
    if files.is_empty() {
        return Err(Fail::Usage(format!(
            "test: no case files (*{SUFFIX}) in {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let exe = std::env::current_exe().map_err(|e| Fail::Usage(format!("cannot find this program: {e}")))?;
    let mut results = Vec::new();
    for file in files {
        let cases = match read_cases(&file) {
            Ok(cases) => cases,
            Err(why) => {
                let r = Ran {
                    name: file.display().to_string(),
                    file,
                    took: Duration::ZERO,
                    failures: vec![why],
                    stderr: String::new(),
                };
                report(&r);
                results.push(r);
                continue;
            }
        };
        let several = cases.len() > 1;
        for (i, case) in cases.into_iter().enumerate() {
            let name = case.name.clone().unwrap_or_else(|| {
                let stem = file.file_name().and_then(|n| n.to_str()).unwrap_or("case");
                let stem = stem.strip_suffix(SUFFIX).unwrap_or(stem);
                if several {
                    format!("{stem}#{}", i + 1)
                } else {
                    stem.to_string()
                }
            });
            if args.filter.as_deref().is_some_and(|f| !name.contains(f)) {
                continue;
            }
            let started = Instant::now();
            let (failures, stderr) = match run_case(&exe, &file, &case).await {
                Ok(answer) => (check(&case.expect, &answer), answer.stderr),
                Err(why) => (vec![why], String::new()),
            };
            let r = Ran {
                file: file.clone(),
                name,
                took: started.elapsed(),
                failures,
                stderr,
            };
            report(&r);
            results.push(r);
        }
    }
    let failed = results.iter().filter(|r| !r.failures.is_empty()).count();
    println!("{} passed, {failed} failed", results.len() - failed);
    if let Some(path) = &args.junit {
        std::fs::write(path, junit(&results)).map_err(|e| Fail::Usage(format!("{}: {e}", path.display())))?;
    }
    Ok(u8::from(failed > 0 || results.is_empty()))
}

fn report(r: &Ran) {
    let ms = r.took.as_secs_f64() * 1000.0;
    if r.failures.is_empty() {
        println!("ok   {} ({ms:.0} ms)", r.name);
        return;
    }
    println!("FAIL {} ({}, {ms:.0} ms)", r.name, r.file.display());
    for f in &r.failures {
        println!("       {f}");
    }
    for line in r.stderr.lines().take(20) {
        println!("       | {line}");
    }
}

/// Case files under `path`, sorted: `path` itself when it is a file.
fn find_cases(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if !path.is_dir() {
        std::fs::metadata(path)?;
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(path)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        // Symlinked directories are not followed: a loop would never end.
        let is_dir = p.symlink_metadata().is_ok_and(|m| m.is_dir());
        if is_dir {
            find_cases(&p, out)?;
        } else if p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(SUFFIX))
        {
            out.push(p);
        }
    }
    Ok(())
}

/// The cases of one file: one object, or an array of them.
fn read_cases(file: &Path) -> Result<Vec<Case>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: cannot read: {e}", file.display()))?;
    let at = |e: serde_json::Error| format!("{}:{}:{}: {e}", file.display(), e.line(), e.column());
    let value: Value = serde_json::from_str(&text).map_err(at)?;
    let one = |v: Value| serde_json::from_value::<Case>(v);
    let cases = match value {
        Value::Array(items) => items.into_iter().map(one).collect::<Result<Vec<_>, _>>(),
        other => one(other).map(|c| vec![c]),
    };
    // from_value knows no positions; the message names the field.
    cases.map_err(|e| format!("{}: not a test case: {e}", file.display()))
}

/// What `fire` did with the case.
struct Answer {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

async fn run_case(exe: &Path, file: &Path, case: &Case) -> Result<Answer, String> {
    use tokio::io::AsyncWriteExt;
    let base = file.parent().unwrap_or(Path::new("."));
    let scratch = tempfile::tempdir().map_err(|e| format!("cannot make a scratch directory: {e}"))?;
    let mut cmd = tokio::process::Command::new(exe);
    cmd.arg("fire").arg(&case.event).arg("--input").arg("-");
    if let Some(agent) = &case.agent {
        cmd.arg("--agent").arg(agent);
    }
    for (i, s) in case.settings.iter().enumerate() {
        let path = match s {
            SettingsRef::File(p) => base.join(p),
            SettingsRef::Inline(doc) => {
                let p = scratch.path().join(format!("settings-{}.json", i + 1));
                let text = serde_json::to_vec_pretty(doc).map_err(|e| e.to_string())?;
                std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))?;
                p
            }
        };
        cmd.arg("--settings").arg(path);
    }
    if let Some(d) = &case.dialect {
        cmd.arg("--dialect").arg(d);
    }
    cmd.arg("--workdir")
        .arg(base.join(case.workdir.as_deref().unwrap_or(Path::new("."))));
    if case.trust_project {
        cmd.arg("--trust-project");
    }
    if case.agent_user_files {
        cmd.arg("--agent-user-files");
    }
    if let Some(m) = &case.hook_model {
        cmd.arg("--hook-model").arg(base.join(m));
    }
    if case.hermetic {
        for (var, dir) in [
            ("HOME", "home"),
            ("XDG_CONFIG_HOME", "config"),
            ("XDG_STATE_HOME", "state"),
        ] {
            let d = scratch.path().join(dir);
            std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
            cmd.env(var, d);
        }
        // Not run by an agent: no agent's variable tells one, and its own
        // files are not left to it (the case's `agent` names one when it
        // matters).
        for var in hookshot::Agent::ALL.into_iter().flat_map(hookshot::Agent::hook_vars) {
            cmd.env_remove(var);
        }
    }
    cmd.envs(&case.env)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let pid = child.id();
    let input = serde_json::to_vec(&case.input).map_err(|e| e.to_string())?;
    if let Some(mut stdin) = child.stdin.take() {
        // A case whose hooks never read their input still finishes.
        tokio::spawn(async move {
            let _ = stdin.write_all(&input).await;
        });
    }
    let limit = Duration::from_secs_f64(case.timeout.unwrap_or(60.0).clamp(0.1, 3600.0));
    let done = child.wait_with_output();
    tokio::pin!(done);
    let out = match tokio::time::timeout(limit, &mut done).await {
        Ok(out) => out,
        Err(_) => {
            // `fire` takes its hooks with it on SIGTERM.
            let signal = |s| {
                if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
                    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), s);
                }
            };
            signal(nix::sys::signal::Signal::SIGTERM);
            if tokio::time::timeout(Duration::from_secs(5), &mut done).await.is_err() {
                signal(nix::sys::signal::Signal::SIGKILL);
                let _ = done.await;
            }
            return Err(format!(
                "did not finish within {:.1}s (the case's timeout)",
                limit.as_secs_f64()
            ));
        }
    }
    .map_err(|e| format!("fire: {e}"))?;
    Ok(Answer {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).trim().to_string(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// Every way the answer differs from what the case expects.
fn check(expect: &Expect, answer: &Answer) -> Vec<String> {
    let mut failures = Vec::new();
    // A hook that could not run, or settings that could not load, is
    // allowed by the open policy: a case that expects the event to go on
    // ("allow", exit 0) would pass without its hook ever running. Unless
    // the case is about that warning (it names `message` or `stderr`), it
    // fails. (A case expecting a block under the closed policy is about
    // exactly such a failure.)
    let expects_block = expect.exit == Some(2)
        || expect
            .decision
            .as_deref()
            .is_some_and(|d| matches!(d, "block" | "deny"));
    if expect.message.is_none() && expect.stderr.is_none() && !expects_block {
        for line in answer.stderr.lines().filter(|l| l.starts_with("hookshot: warning:")) {
            failures.push(format!(
                "{line} (the case passes only if its hooks run; expect the warning with \"message\" or \"stderr\" if that is what it tests)"
            ));
        }
    }
    let json: Option<Value> = serde_json::from_str(&answer.stdout).ok();
    let out = json
        .as_ref()
        .and_then(Value::as_object)
        .map(crate::case::verdict_of)
        .unwrap_or_default();
    if let Some(want) = &expect.exit
        && answer.code != Some(*want)
    {
        failures.push(format!(
            "exit code: expected {want}, got {}",
            answer
                .code
                .map_or("none (killed by a signal)".into(), |c| c.to_string())
        ));
    }
    if let Some(want) = &expect.decision {
        // Killed by a signal: no exit code, the answer alone decides.
        let got = decision_word(answer.code.unwrap_or(-1), &out);
        let want_norm = match want.as_str() {
            "deny" => "block",
            other => other,
        };
        if !["block", "allow", "ask", "stop", "none"].contains(&want_norm) {
            failures.push(format!(
                "expect.decision: unknown decision \"{want}\" (use block, allow, ask, stop or none)"
            ));
        } else if want_norm != got {
            failures.push(format!("decision: expected {want}, got {got}"));
        }
    }
    if let Some(want) = &expect.reason {
        let said = [
            out.reason.as_deref(),
            out.stop_reason.as_deref(),
            Some(answer.stderr.as_str()),
        ];
        if !said.iter().flatten().any(|s| s.contains(want.as_str())) {
            failures.push(format!(
                "reason: expected it to contain {want:?}, got {:?}",
                out.reason.or(out.stop_reason).unwrap_or_default()
            ));
        }
    }
    if let Some(want) = &expect.context
        && !out.additional_context.as_deref().unwrap_or("").contains(want.as_str())
    {
        failures.push(format!(
            "context: expected it to contain {want:?}, got {:?}",
            out.additional_context.unwrap_or_default()
        ));
    }
    if let Some(want) = &expect.message
        && !out.system_message.as_deref().unwrap_or("").contains(want.as_str())
    {
        failures.push(format!(
            "message: expected it to contain {want:?}, got {:?}",
            out.system_message.clone().unwrap_or_default()
        ));
    }
    if let Some(want) = &expect.output {
        match &json {
            Some(got) => {
                if let Some(path) = differs(want, got, String::new()) {
                    failures.push(format!("output: {path}"));
                }
            }
            None => failures.push(format!("output: the answer is not JSON: {:?}", answer.stdout)),
        }
    }
    if let Some(want) = &expect.stdout
        && !answer.stdout.contains(want.as_str())
    {
        failures.push(format!(
            "stdout: expected it to contain {want:?}, got {:?}",
            answer.stdout
        ));
    }
    if let Some(want) = &expect.stderr
        && !answer.stderr.contains(want.as_str())
    {
        failures.push(format!("stderr: expected it to contain {want:?}"));
    }
    failures
}

/// Where `got` does not hold `want`: objects may have more keys, arrays and
/// scalars must be equal (arrays element by element, by the same rule).
fn differs(want: &Value, got: &Value, at: String) -> Option<String> {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w.iter().find_map(|(k, wv)| {
            let here = format!("{at}/{k}");
            match g.get(k) {
                Some(gv) => differs(wv, gv, here),
                None => Some(format!("{here}: missing (expected {wv})")),
            }
        }),
        (Value::Array(w), Value::Array(g)) if w.len() == g.len() => w
            .iter()
            .zip(g)
            .enumerate()
            .find_map(|(i, (wv, gv))| differs(wv, gv, format!("{at}/{i}"))),
        _ if want == got => None,
        _ => Some(format!(
            "{}: expected {want}, got {got}",
            if at.is_empty() { "/" } else { at.as_str() }
        )),
    }
}

/// The results as JUnit XML (one suite; a case file is a class).
fn junit(results: &[Ran]) -> String {
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let failed = results.iter().filter(|r| !r.failures.is_empty()).count();
    let total: f64 = results.iter().map(|r| r.took.as_secs_f64()).sum();
    let mut x = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"{}\" failures=\"{failed}\" time=\"{total:.3}\">\n  <testsuite name=\"hookshot\" tests=\"{}\" failures=\"{failed}\" time=\"{total:.3}\">\n",
        results.len(),
        results.len()
    );
    for r in results {
        x.push_str(&format!(
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
            esc(&r.file.display().to_string()),
            esc(&r.name),
            r.took.as_secs_f64()
        ));
        if r.failures.is_empty() {
            x.push_str("/>\n");
        } else {
            x.push_str(&format!(
                ">\n      <failure message=\"{}\">{}</failure>\n      <system-err>{}</system-err>\n    </testcase>\n",
                esc(&r.failures[0]),
                esc(&r.failures.join("\n")),
                esc(&r.stderr)
            ));
        }
    }
    x.push_str("  </testsuite>\n</testsuites>\n");
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn output_is_a_subset_match_that_names_the_first_difference() {
        let got = json!({"hookSpecificOutput": {"permissionDecision": "deny", "x": 1}, "list": [1, {"a": 2, "b": 3}]});
        assert_eq!(
            differs(
                &json!({"hookSpecificOutput": {"permissionDecision": "deny"}}),
                &got,
                String::new()
            ),
            None
        );
        assert_eq!(differs(&json!({"list": [1, {"a": 2}]}), &got, String::new()), None);
        assert_eq!(
            differs(
                &json!({"hookSpecificOutput": {"permissionDecision": "allow"}}),
                &got,
                String::new()
            )
            .as_deref(),
            Some("/hookSpecificOutput/permissionDecision: expected \"allow\", got \"deny\"")
        );
        assert_eq!(
            differs(&json!({"list": [1]}), &got, String::new()).as_deref(),
            Some("/list: expected [1], got [1,{\"a\":2,\"b\":3}]")
        );
        assert_eq!(
            differs(&json!({"nope": true}), &got, String::new()).as_deref(),
            Some("/nope: missing (expected true)")
        );
    }

    #[test]
    fn a_block_is_read_from_the_exit_code_and_from_the_answer() {
        let expect = Expect {
            decision: Some("deny".into()),
            reason: Some("rm -rf".into()),
            ..Expect::default()
        };
        let by_exit = Answer {
            code: Some(2),
            stdout: String::new(),
            stderr: "blocked: rm -rf is not allowed".into(),
        };
        assert!(check(&expect, &by_exit).is_empty());
        let claude = Answer {
            code: Some(0),
            stdout: json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf"}}).to_string(),
            stderr: String::new(),
        };
        assert!(check(&expect, &claude).is_empty(), "{:?}", check(&expect, &claude));
        let allowed = Answer {
            code: Some(0),
            stdout: "{}".into(),
            stderr: String::new(),
        };
        let failures = check(&expect, &allowed);
        assert_eq!(failures.len(), 2, "{failures:?}");
        assert!(failures[0].contains("expected deny, got none"), "{failures:?}");
    }

    #[test]
    fn a_case_does_not_pass_when_its_hook_could_not_run() {
        let warned = Answer {
            code: Some(0),
            stdout: r#"{"systemMessage":"hookshot warning: hook g exited with code 127"}"#.into(),
            stderr: "hookshot: warning: hook g exited with code 127: not found\n".into(),
        };
        let goes_on = Expect {
            exit: Some(0),
            ..Expect::default()
        };
        let failures = check(&goes_on, &warned);
        assert!(failures.len() == 1 && failures[0].contains("code 127"), "{failures:?}");
        let about_it = Expect {
            message: Some("code 127".into()),
            ..goes_on
        };
        assert!(check(&about_it, &warned).is_empty());
    }

    #[test]
    fn unknown_fields_in_a_case_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x.test.json");
        std::fs::write(&f, r#"{"event": "PreToolUse", "expect": {"decisoin": "block"}}"#).unwrap();
        let e = read_cases(&f).unwrap_err();
        assert!(e.contains("unknown field `decisoin`"), "{e}");
    }

    #[test]
    fn junit_escapes_and_counts() {
        let r = Ran {
            file: "a&b.test.json".into(),
            name: "<x>".into(),
            took: Duration::from_millis(5),
            failures: vec!["decision: expected \"block\"".into()],
            stderr: String::new(),
        };
        let x = junit(&[r]);
        assert!(x.contains("failures=\"1\""), "{x}");
        assert!(x.contains("classname=\"a&amp;b.test.json\" name=\"&lt;x&gt;\""), "{x}");
        assert!(x.contains("message=\"decision: expected &quot;block&quot;\""), "{x}");
    }
}
