use std::path::PathBuf;

use serde_json::json;

use super::*;

/// A project with `build/`, `src/`, `node_modules/` and `etclink -> /etc`,
/// a scratch directory beside it and a home of its own.
struct Fixture {
    _dir: tempfile::TempDir,
    scratch: PathBuf,
    hook: DangerousConfirmation,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    for d in ["build", "src", "node_modules"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::os::unix::fs::symlink("/etc", root.join("etclink")).unwrap();
    let scratch = dir.path().join("scratch");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let hook = DangerousConfirmation {
        decision: Decision::Ask,
        patterns: vec![Regex::new("DROP TABLE").unwrap()],
        places: Places::new(&root, std::slice::from_ref(&scratch), Some(home)),
    };
    Fixture {
        scratch: std::fs::canonicalize(&scratch).unwrap(),
        _dir: dir,
        hook,
    }
}

fn table() -> Vec<(bool, String)> {
    include_str!("commands.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (verdict, command) = l.split_once(' ').expect("verdict and command");
            let dangerous = match verdict {
                "ask" => true,
                "ok" => false,
                other => panic!("unknown verdict {other:?} in {l:?}"),
            };
            (dangerous, command.trim_start().replace('⏎', "\n"))
        })
        .collect()
}

#[test]
fn every_command_in_the_table_gets_its_verdict() {
    let f = fixture();
    let table = table();
    assert!(table.len() > 250, "the table shrank to {}", table.len());
    let mut wrong = Vec::new();
    for (dangerous, command) in &table {
        let command = command.replace("%SCRATCH%", &f.scratch.display().to_string());
        let verdict = f.hook.check_command(&command, None);
        if verdict.is_some() != *dangerous {
            wrong.push(format!("{command:?}: {verdict:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong verdicts:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn reasons_name_what_was_found() {
    let f = fixture();
    let why = |c: &str| f.hook.check_command(c, None).unwrap();
    assert_eq!(why("sudo -u root rm -rf /"), "`rm -r` of /, outside the project");
    assert_eq!(
        why("rm -rf etclink/"),
        "`rm -r` of etclink/ (that is /etc), outside the project"
    );
    assert_eq!(why("rm -rf ./*"), "`rm -r` of ./*: the whole project");
    assert_eq!(why("R=rm; $R -rf /"), "cannot tell which program `$R` runs");
    assert_eq!(why("curl -s x | sh"), "a download piped into `sh` runs unreviewed code");
    assert_eq!(
        why("git -C . push -f"),
        "`git push --force` rewrites the remote's history"
    );
    assert!(
        why("cd \"$X\" && rm -rf build").contains("cannot be known"),
        "{}",
        why("cd \"$X\" && rm -rf build")
    );
    assert_eq!(
        why("psql -c 'DROP TABLE users'"),
        "matches the configured pattern `DROP TABLE`"
    );
}

fn call(f: &Fixture, tool: &str, args: serde_json::Value) -> HookOutput {
    let input = json!({"tool_name": tool, "tool_input": args});
    f.hook.call(EventKind::BeforeTool, input.as_object().unwrap())
}

#[test]
fn file_tools_of_every_dialect_are_checked_through_symlinks() {
    let f = fixture();
    for tool in [
        "write_file",
        "replace",
        "edit_file",
        "create_file",
        "Write",
        "Edit",
        "MultiEdit",
    ] {
        let out = call(&f, tool, json!({"file_path": "etclink/passwd", "content": ""}));
        assert_eq!(out.decision, Decision::Ask, "{tool}");
        assert!(out.reason.unwrap().contains("(that is /etc/passwd)"), "{tool}");
        let out = call(&f, tool, json!({"file_path": "src/a.rs", "content": ""}));
        assert_eq!(out.decision, Decision::Undecided, "{tool}");
    }
    let out = call(&f, "NotebookEdit", json!({"notebook_path": "/etc/x.ipynb"}));
    assert_eq!(out.decision, Decision::Ask);
    let out = call(&f, "write_file", json!({"path": "../../etc/passwd"}));
    assert_eq!(out.decision, Decision::Ask);
}

#[test]
fn codex_shell_words_and_patches_are_checked() {
    let f = fixture();
    let out = call(&f, "shell", json!({"command": ["bash", "-lc", "rm -rf /"]}));
    assert_eq!(out.decision, Decision::Ask);
    let out = call(&f, "shell", json!({"command": ["cargo", "test"]}));
    assert_eq!(out.decision, Decision::Undecided);
    let patch =
        "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: ../outside.txt\n+z\n*** End Patch";
    let out = call(&f, "apply_patch", json!({"input": patch}));
    assert!(out.reason.unwrap().contains("../outside.txt"));
    // The same patch sent through the shell tool: as words, and as a
    // heredoc in a script.
    let out = call(&f, "shell", json!({"command": ["apply_patch", patch]}));
    assert!(out.reason.unwrap_or_default().contains("../outside.txt"));
    let script = format!("apply_patch <<'EOF'\n{patch}\nEOF");
    let out = call(&f, "shell", json!({"command": ["bash", "-lc", script]}));
    assert!(out.reason.unwrap_or_default().contains("../outside.txt"));
    let out = call(
        &f,
        "Bash",
        json!({"command": format!("apply_patch <<'EOF'\n{patch}\nEOF")}),
    );
    assert!(out.reason.unwrap_or_default().contains("../outside.txt"));
    // Codex's parser trims each line before it reads a marker: padded
    // markers name files all the same.
    let padded = "  *** Begin Patch\n\t*** Delete File: /etc/hosts  \n   *** Add File: src/ok.rs\n+x\n*** End Patch";
    let out = call(&f, "apply_patch", json!({"input": padded}));
    assert!(out.reason.unwrap_or_default().contains("/etc/hosts"));
}

#[test]
fn the_shell_tools_directory_is_where_relative_paths_start() {
    let f = fixture();
    // gemini-cli's run_shell_command runs in `dir_path`.
    let out = call(
        &f,
        "run_shell_command",
        json!({"command": "rm -rf ../build", "dir_path": "src"}),
    );
    assert_eq!(out.decision, Decision::Undecided);
    let out = call(
        &f,
        "run_shell_command",
        json!({"command": "rm -rf ../..", "dir_path": "src"}),
    );
    assert_eq!(out.decision, Decision::Ask);
}

#[test]
fn deny_mode_blocks() {
    let mut f = fixture();
    f.hook.decision = Decision::Block;
    let out = call(&f, "Bash", json!({"command": "if true; then rm -rf /; fi"}));
    assert_eq!(out.decision, Decision::Block);
    assert!(out.reason.unwrap().starts_with("dangerous_confirmation: "));
}

#[test]
fn brace_expansion_and_ansi_c_quotes_are_expanded() {
    assert_eq!(super::shell::braces("a{b,c}d"), ["abd", "acd"]);
    assert_eq!(super::shell::braces("x{1..3}"), ["x1", "x2", "x3"]);
    assert_eq!(super::shell::braces("{a}"), ["{a}"]);
    let f = fixture();
    assert!(f.hook.check_command("$'\\x72m' -rf /", None).is_some());
}

#[test]
fn deep_or_huge_commands_ask_instead_of_crashing() {
    let f = fixture();
    for (open, close) in [
        ("( ", " )"),
        ("((", "))"),
        ("$(", ")"),
        ("{ ", "; }"),
        ("f() { ", "; }"),
        ("if true; then ", "; fi"),
    ] {
        let cmd = format!("{}true{}", open.repeat(5000), close.repeat(5000));
        let why = f.hook.check_command(&cmd, None).expect("asks");
        assert!(why.contains("levels deep"), "{why}");
        // Within the limit, the command is checked (and never allowed).
        let cmd = format!("{}rm -rf /{}", open.repeat(90), close.repeat(90));
        let why = f.hook.check_command(&cmd, None);
        assert!(why.is_some(), "{open}");
        let cmd = format!("{}rm -rf /{}", open.repeat(8), close.repeat(8));
        let why = f.hook.check_command(&cmd, None);
        assert!(why.as_deref().is_some_and(|w| w.contains("rm -r")), "{open}: {why:?}");
    }
    let huge = format!("echo {}", "x".repeat(1100 * 1024));
    assert!(f.hook.check_command(&huge, None).unwrap().contains("longer than"));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// Whatever the text, the check ends with a verdict: no panic, no
    /// hang, no crash.
    #[test]
    fn any_text_gets_a_verdict(cmd in "[a-z $(){}|&;<>'\"`\\\n*~/.=-]{0,80}") {
        let f = fixture();
        let _ = f.hook.check_command(&cmd, None);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// The walker is total on shell-like noise: whatever it is given, it
    /// answers without failing (a checker failure would read "dangerous",
    /// and hide a bug behind a question).
    #[test]
    fn the_walker_answers_every_shell_like_text(text in r#"([a-z~./*-]{0,4}|[ ;|&<>(){}$`'"\\=\[\]!#:]|rm -rf|\$\(|\$\{|\$\(\(|<<EOF|\n|docker run a |ssh h |uv run |cd |psql |ln -s |xargs |parallel |::: |kubectl -n x |perl -pi -e |awk -i inplace |CDPATH=/ ){0,24}"#) {
        let f = fixture();
        let verdict = f.hook.check_command(&text, None);
        proptest::prop_assert!(
            !verdict.as_deref().is_some_and(|v| v.contains("could not be checked")),
            "{text:?}: {verdict:?}"
        );
    }
}

/// A database client runs the SQL of a file redirected in or named by its
/// option: the file's text is judged, as a here-document's is; a file
/// that is not there runs nothing.
#[test]
fn sql_in_files_a_client_reads_is_judged() {
    let f = fixture();
    let root = f._dir.path().join("p");
    std::fs::write(root.join("drop.sql"), "-- cleanup\nDROP TABLE users;\n").unwrap();
    std::fs::write(root.join("init.sql"), "CREATE TABLE users (id int);\n").unwrap();
    std::fs::write(root.join("escape.sql"), "SELECT 1;\n\\! rm -rf /etc\n").unwrap();
    for c in [
        "psql < drop.sql",
        "mysql app < src/../drop.sql",
        "psql -f drop.sql",
        "psql --file=drop.sql",
        "sqlite3 app.db '.read drop.sql'",
        "psql < escape.sql",
    ] {
        assert!(f.hook.check_command(c, None).is_some(), "{c}");
    }
    // A file too large to read, a folder, or one in a place not known
    // after a `cd`: what the client would run cannot be read first.
    std::fs::write(root.join("big.sql"), "SELECT 1;\n".repeat(120_000)).unwrap();
    for c in ["psql < big.sql", "psql -f src", "cd \"$X\"; psql < init.sql"] {
        let why = f.hook.check_command(c, None);
        assert!(
            why.as_deref().is_some_and(|w| w.contains("cannot be read")),
            "{c}: {why:?}"
        );
    }
    for c in [
        "psql < init.sql",
        "psql -f init.sql",
        "psql < missing.sql",
        "sqlite3 app.db < init.sql",
    ] {
        assert_eq!(f.hook.check_command(c, None), None, "{c}");
    }
}
