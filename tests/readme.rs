//! The README's first-screen commands, run exactly as written (each line
//! by `sh -c`, with `hookshot` on PATH being this build) in a fresh home
//! and project: a newcomer copies them, so each must work as shown.

mod common;

use common::Project;

/// The lines of the fenced block that follows the README line starting
/// with `intro`.
fn block_after(intro: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let from = readme.find(intro).unwrap_or_else(|| panic!("README has no {intro:?}"));
    let rest = &readme[from..];
    let start = rest.find("```sh\n").unwrap() + "```sh\n".len();
    let end = rest[start..].find("```").unwrap();
    rest[start..start + end]
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// The clone's `examples/` inside the project, as the README's lines run
/// from a clone's top folder.
fn link_examples(p: &Project) {
    std::os::unix::fs::symlink(
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples"),
        p.path("proj/examples"),
    )
    .unwrap();
}

/// Runs one README line as written; it must succeed. Its stdout.
fn run(p: &Project, line: &str) -> String {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_hookshot")).parent().unwrap();
    let out = p
        .command_of("sh".as_ref(), &["-c", line])
        .current_dir(p.path("proj"))
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("XDG_STATE_HOME", p.path("home/.local/state"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{line}\n{said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    said
}

#[test]
fn the_protection_block_works_as_written() {
    let p = Project::new();
    let lines = block_after("Protection in one command");
    assert!(lines.len() >= 5, "{lines:?}");
    let settings = p.path("home/.claude/settings.json");
    for line in &lines {
        let said = run(&p, line);
        if line.contains("--dry-run") {
            assert!(!settings.exists(), "{line}");
            assert!(said.contains("dry run: nothing was written"), "{said}");
        } else if line.contains("uninstall --all") {
            assert!(!settings.exists(), "{said}");
        } else if line.contains("install") {
            assert!(
                std::fs::read_to_string(&settings)
                    .unwrap()
                    .contains("fire --agent claude")
            );
        } else if line.contains("check") {
            assert!(said.contains("ASKS YOU FIRST"), "{said}");
        } else if line.starts_with("hookshot log") {
            assert!(said.contains("PreToolUse Bash  ask"), "{said}");
        }
    }
}

#[test]
fn the_quick_start_block_works_as_written() {
    let p = Project::new();
    let claude =
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#;
    p.write("home/.claude/settings.json", claude);
    for line in block_after("## Quick start") {
        run(&p, &line);
    }
    // Installed, imported, uninstalled: the file as it was.
    assert_eq!(
        std::fs::read_to_string(p.path("home/.claude/settings.json")).unwrap(),
        claude
    );
}

#[test]
fn the_writing_and_testing_block_works_as_written() {
    let p = Project::new();
    // The block runs from a clone's top folder: its examples, and what
    // `--record` writes, in a folder of the test's own.
    link_examples(&p);
    for line in block_after("## Writing and testing hooks") {
        let said = run(&p, &line);
        if line.starts_with("hookshot explain") {
            assert!(said.starts_with("PreToolUse (claude)"), "{said}");
        }
    }
    let recorded: Vec<_> = std::fs::read_dir(p.path("proj/tests/recorded")).unwrap().collect();
    assert_eq!(recorded.len(), 1);
}

/// Copies a folder (the example session) so a run writes nothing into the
/// clone.
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn the_first_command_replays_the_example_session_as_written() {
    let p = Project::new();
    let first = block_after("# hookshot").into_iter().next().unwrap();
    // `cargo run -- ARGS` is this build with ARGS.
    let args = first
        .strip_prefix("cargo run -- ")
        .expect("the README starts with `cargo run -- ...`");
    copy_dir(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/session")),
        &p.path("proj/examples/session"),
    );
    let said = run(&p, &format!("hookshot {args}"));
    // The model writes the notes, then the hook refuses the force push.
    assert!(p.path("proj/examples/session/work/NOTES.md").exists(), "{said}");
    let transcript = std::fs::read_to_string(p.path("proj/examples/session/transcript.jsonl")).unwrap();
    assert!(transcript.contains("push --force"), "{transcript}");
    assert!(said.to_lowercase().contains("force"), "{said}");
}

#[test]
fn the_fire_example_and_the_completion_lines_work_as_written() {
    let p = Project::new();
    link_examples(&p);
    // `cargo run -- fire ...`: the example's hook refuses writing a
    // `.env` file, exit 2 with the reason, as the README says.
    let fire = block_after("## Firing events by hand").into_iter().next().unwrap();
    let args = fire
        .strip_prefix("cargo run -- ")
        .expect("the example runs `cargo run -- fire ...`");
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_hookshot"));
    let out = p
        .command_of("sh".as_ref(), &["-c", &format!("{} {args}", bin.display())])
        .current_dir(p.path("proj"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // The completion script lands where bash-completion looks; the man
    // page renders (`man` itself is not on every machine).
    let block = block_after("The packages are built from one version number");
    for line in &block {
        if line.starts_with("hookshot man") && which("man").is_none() {
            run(&p, "hookshot man > /dev/null");
            continue;
        }
        run(&p, line);
    }
    let script = std::fs::read_to_string(p.path("home/.local/share/bash-completion/completions/hookshot")).unwrap();
    assert!(script.contains("PreToolUse"), "{}", &script[..200.min(script.len())]);
}

fn which(program: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}
