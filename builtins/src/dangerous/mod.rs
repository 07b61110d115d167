//! `dangerous_confirmation`: asks (or denies) before destructive shell
//! commands and file writes outside the project.
//!
//! A command is parsed as the shell parses it (see `shell.rs`) and every
//! program it would run is judged (see `rules.rs`); paths are resolved
//! against the directory they are used in and through symlinks (see
//! `places.rs`). What cannot be known before the command runs (a variable, a
//! substitution) counts as dangerous where it matters. The facade runs this
//! hook on the final tool input, after every other hook's rewrites.
//!
//! Covered: recursive deletion outside the project or of the whole
//! project; writes outside the project (redirections, `tee`, `cp`, `mv`,
//! `install`, `ln`, `dd`, `truncate`, `shred`, `sed -i`, and file tools);
//! `git push --force`/deleting pushes, `git reset --hard`, `git clean -f`;
//! recursive `chmod`/`chown` outside the project or to world-writable;
//! disk and file-system tools; stopping the machine; downloads run by a
//! shell or interpreter; programs, scripts and `eval` text that cannot be
//! known; infrastructure and data destruction (`catalogue.rs`). Not
//! covered: what an arbitrary program or script file does (`python
//! cleanup.py`, `make clean`), git aliases.

mod catalogue;
mod places;
mod rules;
mod shell;

use std::path::PathBuf;

use hookshot_core::{Decision, EventKind, Hook, HookOutput};
use regex::Regex;
use serde_json::{Map, Value};

pub use places::{Place, Places};

/// The files a hook's command line runs or reads, as the shell resolves
/// them in `project`: every known word of every program it runs (after
/// `cd`, quoting, escapes, `sh -c` and the like), joined onto the folder it
/// is used in, symlinks followed; and apart, the files it only writes
/// (redirection targets, what `tee`, `touch` and `mkdir` make), which are
/// its output, not code it runs. What trust binds an approval to
/// ([`hookshot_registry::covered_files`]). Walked on a thread with a large
/// stack, as the guard walks; a command that cannot be walked gives none
/// (the registry's blank-split words still count).
pub fn command_paths(command: &str, project: &std::path::Path) -> hookshot_registry::CommandFiles {
    let places = Places::of_this_machine(project);
    let walk = || {
        let mut walker = Walker::new(&places);
        walker.script(command, &mut Some(places.root.clone()));
        let resolved = |a: &Arg, cwd: &Option<PathBuf>| {
            a.known()
                .filter(|a| !a.starts_with('-'))
                .and_then(|a| places.at(cwd, a, true))
        };
        // How often each file is named as a word of a program, and how
        // often of those as what a writer makes: a file named only as
        // output (or only by a redirection) is written, never run. One
        // also named elsewhere (`tee x; sh x`) stays bound.
        let mut named: Vec<PathBuf> = walker.words.iter().filter_map(|(a, cwd)| resolved(a, cwd)).collect();
        let mut made: Vec<PathBuf> = Vec::new();
        let mut unbound: Vec<String> = Vec::new();
        let mut redirected: Vec<PathBuf> = Vec::new();
        for f in &walker.found {
            match f {
                shell::Found::Write { target, cwd } => redirected.extend(resolved(target, cwd)),
                shell::Found::Delete { target, cwd, .. } => named.extend(resolved(target, cwd)),
                shell::Found::Run(run) => {
                    let program = run.argv.first().and_then(Arg::known).map(shell::base);
                    if matches!(program, Some("tee" | "touch" | "mkdir")) {
                        made.extend(run.argv[1..].iter().filter_map(|a| resolved(a, &run.cwd)));
                    }
                }
                shell::Found::Danger(_) => {}
            }
        }
        for (argv, cwd) in &walker.lines {
            unbound.extend(unbindable(argv, |a| {
                a.known()
                    .and_then(|a| places.at(cwd, a, true))
                    .is_some_and(|p| p.is_dir())
            }));
        }
        let count = |list: &[PathBuf], p: &PathBuf| list.iter().filter(|q| *q == p).count();
        let mut written: Vec<PathBuf> = made.iter().chain(&redirected).cloned().collect();
        written.sort();
        written.dedup();
        written.retain(|p| count(&named, p) <= count(&made, p));
        named.retain(|p| !written.contains(p));
        unbound.dedup();
        hookshot_registry::CommandFiles {
            named,
            written,
            unbound,
        }
    };
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("hookshot-trust-walk".into())
            .stack_size(64 << 20)
            .spawn_scoped(scope, walk)
            .ok()
            .and_then(|w| w.join().ok())
            .unwrap_or_default()
    })
}
use shell::{Arg, Walker};

/// Why a program run as `argv` runs code an approval cannot bind: code it
/// finds by its own rules in the project (a package manager's scripts and
/// dependencies, a build file's recipes, a module path, a folder handed to
/// an interpreter). `None` when every file it runs is one of its words.
/// `is_dir` says whether a word names a folder.
fn unbindable(argv: &[Arg], is_dir: impl Fn(&Arg) -> bool) -> Option<String> {
    let program = shell::base(argv.first()?.known()?);
    let args = &argv[1..];
    // `make --version` asks the program about itself.
    let about_itself = |a: &Arg| matches!(a.known(), Some("--version" | "--help" | "-v" | "-V" | "-h"));
    if !args.is_empty() && args.iter().all(about_itself) {
        return None;
    }
    let first = args.iter().find_map(|a| a.known().filter(|a| !a.starts_with('-')));
    let has = |flags: &[&str]| {
        args.iter()
            .filter_map(Arg::known)
            .any(|a| flags.iter().any(|f| a == *f || a.starts_with(&format!("{f}="))))
    };
    let why = match program {
        "npx" | "pnpx" | "bunx" => format!("{program} runs a package the project's node_modules may provide"),
        "npm" | "pnpm" | "bun"
            if matches!(
                first,
                Some(
                    "run"
                        | "run-script"
                        | "rs"
                        | "test"
                        | "t"
                        | "tst"
                        | "start"
                        | "stop"
                        | "restart"
                        | "exec"
                        | "x"
                        | "install"
                        | "i"
                        | "ci"
                        | "rebuild"
                        | "dlx"
                )
            ) =>
        {
            format!(
                "{program} {} runs the project's package.json scripts or dependencies",
                first.unwrap_or_default()
            )
        }
        "yarn" => "yarn runs the project's package.json scripts or dependencies".to_string(),
        "make" | "gmake" | "just" | "rake" | "gradle" | "gradlew" | "mvn" | "mvnw" => {
            format!("{program} runs the recipes of the project's build file")
        }
        "cargo" if matches!(first, Some("run" | "test" | "build" | "xtask" | "bench")) => {
            "cargo builds and runs the project's code and build scripts".to_string()
        }
        "go" if matches!(first, Some("run" | "test" | "generate" | "build")) => {
            "go builds and runs the project's packages".to_string()
        }
        p if shell_interpreter_with_modules(p) && has(&["-m"]) => {
            format!("{program} -m runs a module found on the project's import path")
        }
        // Code given inline that imports: it finds modules in the folder it
        // runs in (the project), by the interpreter's own rules.
        p if (shell_interpreter_with_modules(p) && inline_code(args, &["-c"], &["import"]))
            || (matches!(p, "node" | "deno" | "bun")
                && inline_code(args, &["-e", "--eval", "-p", "--print"], &["require", "import"]))
            || (p == "ruby" && inline_code(args, &["-e"], &["require", "load"]))
            || (p == "perl" && inline_code(args, &["-e", "-E"], &["require", "use ", "do "])) =>
        {
            format!("{program} runs inline code that loads modules from the project's folder")
        }
        "node" | "deno" | "bun" | "tsx" | "ts-node"
            if has(&["-r", "--require", "--import", "--loader", "--experimental-loader"]) =>
        {
            format!("{program} loads a module the project's node_modules may provide")
        }
        p if shell_interpreter_with_modules(p) || matches!(p, "node" | "deno" | "ruby" | "perl" | "php") => {
            let dir = args.iter().find(|a| a.known().is_some_and(|a| !a.starts_with('-')))?;
            if !is_dir(dir) {
                return None;
            }
            format!(
                "{program} runs the folder {} (its entry point and what it imports)",
                dir.shown()
            )
        }
        _ => return None,
    };
    Some(why)
}

/// Whether the code an option in `flags` gives inline mentions one of
/// `loads` (a module import, a `require`).
fn inline_code(args: &[Arg], flags: &[&str], loads: &[&str]) -> bool {
    args.windows(2).any(|w| {
        w[0].known().is_some_and(|f| flags.contains(&f))
            && w[1].known().is_some_and(|code| loads.iter().any(|l| code.contains(l)))
    })
}

/// Python under its usual names (`python3.12`, `pypy3`).
fn shell_interpreter_with_modules(program: &str) -> bool {
    program.starts_with("python") || program.starts_with("pypy")
}

/// `:(){ :|:& };:` and its renamings: a function whose body pipes itself
/// into itself in the background.
fn fork_bomb(command: &str) -> bool {
    static BOMB: std::sync::LazyLock<Option<Regex>> = std::sync::LazyLock::new(|| {
        Regex::new(r"(?:^|[\s;&|(])(?:function\s+)?([^\s(){};|&]+)\s*\(\s*\)\s*\{([^}]*)\}").ok()
    });
    let Some(re) = BOMB.as_ref() else { return false };
    re.captures_iter(command).any(|c| {
        let name = regex::escape(&c[1]);
        Regex::new(&format!(r"(?:^|[\s;&|{{]){name}\s*\|\s*{name}\s*&")).is_ok_and(|calls| calls.is_match(&c[2]))
    })
}

/// Tools that write the file named by their path argument, in every
/// dialect hookshot reads: gemini-cli, Claude Code, picoclaw, jcli, and
/// common MCP editors.
const FILE_WRITERS: &[&str] = &[
    "write_file",
    "replace",
    "edit",
    "edit_file",
    "create_file",
    "append_file",
    "delete_file",
    "remove_file",
    "move_file",
    "str_replace_editor",
    "str_replace_based_edit_tool",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
];

/// Arguments that name the file a tool writes.
const PATH_KEYS: &[&str] = &[
    "file_path",
    "absolute_path",
    "path",
    "notebook_path",
    "filename",
    "file",
    "target_file",
    "destination",
    "source",
];

/// Arguments that name the directory a shell tool runs in.
const DIR_KEYS: &[&str] = &["dir_path", "directory", "workdir", "cwd"];

/// The hook.
#[derive(Debug)]
pub struct DangerousConfirmation {
    /// Ask (the default) or deny.
    pub decision: Decision,
    /// Extra patterns over the raw command.
    pub patterns: Vec<Regex>,
    /// The project and the places around it.
    pub places: Places,
}

impl DangerousConfirmation {
    /// The hook for the project at `workdir`, on this machine.
    pub fn new(decision: Decision, patterns: Vec<Regex>, workdir: &std::path::Path) -> DangerousConfirmation {
        DangerousConfirmation {
            decision,
            patterns,
            places: Places::of_this_machine(workdir),
        }
    }

    /// Why `command`, run in `cwd` (the project when None), is dangerous.
    pub fn check_command(&self, command: &str, cwd: Option<PathBuf>) -> Option<String> {
        if let Some(p) = self.patterns.iter().find(|p| p.is_match(command)) {
            return Some(format!("matches the configured pattern `{}`", p.as_str()));
        }
        if fork_bomb(command) {
            return Some("a fork bomb: a function that starts itself twice in the background".into());
        }
        let cwd = Some(cwd.unwrap_or_else(|| self.places.root.clone()));
        self.walk(shell::shallow(command), |walker| {
            walker.script(command, &mut cwd.clone())
        })
    }

    /// Runs a walk and judges what it found. The parser and the walk
    /// recurse per nesting level, and an overflow would crash hookshot (a
    /// crash the agent reads as "go on"): a `shallow` command is walked
    /// where it is, any other on a thread of its own with a large stack,
    /// where a panic too ends in "dangerous".
    fn walk(&self, shallow: bool, run: impl FnOnce(&mut Walker<'_>) + Send) -> Option<String> {
        let judge = move || {
            let mut walker = Walker::new(&self.places);
            run(&mut walker);
            let links: std::collections::HashSet<PathBuf> = walker.links.iter().cloned().collect();
            walker.found.iter().find_map(|f| rules::judge(&self.places, f, &links))
        };
        let failed = "the command could not be checked (the checker failed)";
        if shallow {
            return std::panic::catch_unwind(std::panic::AssertUnwindSafe(judge))
                .unwrap_or_else(|_| Some(failed.into()));
        }
        std::thread::scope(|scope| {
            let worker = std::thread::Builder::new()
                .name("hookshot-dangerous".into())
                .stack_size(64 << 20)
                .spawn_scoped(scope, judge);
            match worker {
                Ok(w) => w.join().unwrap_or_else(|_| Some(failed.into())),
                Err(_) => Some("the command could not be checked (no thread to check it on)".into()),
            }
        })
    }

    /// Why the words `argv` (an exec-form command) are dangerous.
    fn check_argv(&self, argv: &[&str], cwd: PathBuf) -> Option<String> {
        let joined = argv.join(" ");
        if let Some(p) = self.patterns.iter().find(|p| p.is_match(&joined)) {
            return Some(format!("matches the configured pattern `{}`", p.as_str()));
        }
        let shallow = argv.iter().all(|w| shell::shallow(w));
        let argv: Vec<Arg> = argv.iter().map(|w| Arg::Known((*w).to_string())).collect();
        self.walk(shallow, |walker| walker.argv(argv, &mut Some(cwd)))
    }

    /// Where the tool runs: the event's `cwd`, then the tool's own
    /// directory argument.
    fn cwd_of(&self, input: &Map<String, Value>, args: &Map<String, Value>) -> PathBuf {
        let root = &self.places.root;
        let base = input
            .get("cwd")
            .and_then(Value::as_str)
            .and_then(|c| self.places.resolve(root, c, true))
            .unwrap_or_else(|| root.clone());
        DIR_KEYS
            .iter()
            .find_map(|k| args.get(*k).and_then(Value::as_str))
            .and_then(|d| self.places.resolve(&base, d, true))
            .unwrap_or(base)
    }

    /// Why a tool call is dangerous, if it is.
    pub fn check(&self, input: &Map<String, Value>) -> Option<String> {
        let tool = input.get("tool_name").and_then(Value::as_str).unwrap_or("");
        let args = input.get("tool_input").and_then(Value::as_object)?;
        let cwd = self.cwd_of(input, args);
        match args.get("command") {
            Some(Value::String(command)) => {
                if let Some(why) = self.check_command(command, Some(cwd.clone())) {
                    return Some(why);
                }
            }
            // Codex's shell tool takes the words themselves.
            Some(Value::Array(words)) => {
                let words: Option<Vec<&str>> = words.iter().map(Value::as_str).collect();
                if let Some(why) = words.and_then(|w| self.check_argv(&w, cwd.clone())) {
                    return Some(why);
                }
            }
            _ => {}
        }
        // A patch as the apply_patch tool's input, or sent through the
        // shell tool: in a script (a heredoc) or as one of its words.
        let patch = ["input", "patch", "command"]
            .iter()
            .filter_map(|k| args.get(*k))
            .flat_map(|v| match v {
                Value::Array(words) => words.iter().filter_map(Value::as_str).collect(),
                other => other.as_str().into_iter().collect::<Vec<_>>(),
            })
            .find(|t| t.contains("*** Begin Patch"));
        if let Some(patch) = patch {
            return patched_files(patch).find_map(|f| self.write_check(tool, f, &cwd));
        }
        if !FILE_WRITERS.contains(&tool) {
            return None;
        }
        PATH_KEYS
            .iter()
            .filter_map(|k| args.get(*k).and_then(Value::as_str))
            .find_map(|path| self.write_check(tool, path, &cwd))
    }

    fn write_check(&self, tool: &str, path: &str, cwd: &std::path::Path) -> Option<String> {
        rules::write(
            &rules::Cx {
                places: &self.places,
                links: &std::collections::HashSet::new(),
            },
            &Arg::Known(path.to_string()),
            &Some(cwd.to_path_buf()),
            &format!("`{tool}` writes"),
        )
    }
}

/// The files an `apply_patch` patch (Codex's format) adds, changes,
/// deletes or moves to. Codex trims a line before reading its marker, so
/// a padded marker counts too.
fn patched_files(patch: &str) -> impl Iterator<Item = &str> {
    patch.lines().map(str::trim_start).filter_map(|l| {
        [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ]
        .iter()
        .find_map(|p| l.strip_prefix(p))
        .map(str::trim)
    })
}

impl Hook for DangerousConfirmation {
    fn call(&self, event: EventKind, input: &Map<String, Value>) -> HookOutput {
        if !matches!(
            event,
            EventKind::BeforeTool | EventKind::PermissionRequest | EventKind::PreSkillShellCommand
        ) {
            return HookOutput::default();
        }
        match self.check(input) {
            Some(why) => HookOutput {
                decision: self.decision,
                reason: Some(format!("dangerous_confirmation: {why}")),
                ..HookOutput::default()
            },
            None => HookOutput::default(),
        }
    }
}

#[cfg(test)]
mod tests;
