//! Cline's own hook files (3.0.65): one script per event, named after it
//! (`PreToolUse`, `PreToolUse.py`, ...), in a project's `.clinerules/hooks/`
//! and `.cline/hooks/` and the user's `~/.cline/hooks/`. Nothing in one is
//! settings: the file is the hook, run as Cline runs it (by its `#!`
//! line, else by its extension, else with `bash`), with Cline's payload,
//! so that a guard written for Cline guards the other agents too.

use super::*;

/// How long Cline waits for a hook of a tool call (`toolCallTimeoutMs`).
const TIMEOUT: Duration = Duration::from_secs(120);

/// The hook file `path` (Cline's `name` event), its text `text`.
pub(super) fn hook_file(path: &Path, text: &str, name: &'static str, source: SourceKind) -> SettingsFile {
    let event = hookshot_core::agent::cline_event(name).unwrap_or(EventKind::BeforeTool);
    let mut argv = interpreter(path, text);
    argv.push(path.display().to_string());
    let program = argv.remove(0);
    // A task's start is a session's start from nothing; its resumption
    // one from where it stopped (the session start's `source`).
    let matcher = match name {
        "TaskStart" => MatcherSpec::Exact(vec!["startup".into(), "clear".into()]),
        "TaskResume" => MatcherSpec::Exact(vec!["resume".into()]),
        _ => MatcherSpec::Any,
    };
    let hook = HookDef {
        identity: path.display().to_string(),
        name: None,
        event,
        dialect: Dialect::Claude,
        matcher,
        model_prefix: None,
        action: HookAction::Exec { program, args: argv },
        timeout: TIMEOUT,
        sequential: false,
        fail: FailPolicy::Open,
        retry: 0,
        source,
        provenance: Provenance {
            file: Some(path.to_path_buf()),
            line: 1,
            column: 1,
            pointer: String::new(),
        },
        options: hookshot_core::HookOptions {
            own_event: Some(name.to_string()),
            ..Default::default()
        },
    };
    SettingsFile {
        dialect: Some(Dialect::Claude),
        hooks: vec![hook],
        ..SettingsFile::default()
    }
}

/// The program Cline runs a hook file with, before the file's path (its
/// `gl`): the `#!` line's words (`env X` is `X`; a shell or Python by its
/// name, found on `PATH`), else by the extension (`.sh` with `bash`, `.js`
/// with `node`, `.ts` with `bun run`, `.py` with `python3`, `.ps1` with
/// `pwsh -File`), else `bash`.
fn interpreter(path: &Path, text: &str) -> Vec<String> {
    let first = text.lines().next().unwrap_or("").trim();
    if let Some(line) = first.strip_prefix("#!") {
        let mut words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        while let Some(head) = words.first() {
            let name = head.rsplit(['/', '\\']).next().unwrap_or(head).to_ascii_lowercase();
            match name.as_str() {
                "env" => {
                    words.remove(0);
                }
                "bash" | "sh" | "zsh" | "python3" | "python" => {
                    words[0] = name;
                    break;
                }
                _ => break,
            }
        }
        if !words.is_empty() {
            return words;
        }
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let words: &[&str] = match ext.as_str() {
        "js" | "mjs" | "cjs" => &["node"],
        "ts" | "mts" | "cts" => &["bun", "run"],
        "py" => &["python3"],
        "ps1" => &["pwsh", "-File"],
        _ => &["bash"],
    };
    words.iter().map(|w| w.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As Cline's `gl` picks them.
    #[test]
    fn the_program_is_the_one_cline_would_run() {
        let run = |path: &str, text: &str| interpreter(Path::new(path), text);
        assert_eq!(run("/h/PreToolUse", "#!/bin/sh\nexit 0"), ["sh"]);
        assert_eq!(run("/h/PreToolUse", "#!/usr/bin/env python3\n"), ["python3"]);
        assert_eq!(
            run("/h/PreToolUse", "#!/usr/bin/env -S node --x\n"),
            ["-S", "node", "--x"]
        );
        assert_eq!(
            run("/h/PreToolUse", "#!/opt/guard --strict\n"),
            ["/opt/guard", "--strict"]
        );
        assert_eq!(run("/h/PreToolUse.py", "import sys"), ["python3"]);
        assert_eq!(run("/h/PreToolUse.TS", ""), ["bun", "run"]);
        assert_eq!(run("/h/PreToolUse", "echo hi"), ["bash"]);
    }
}
