//! The trust store: which project and extension settings the user has
//! approved, for which project, with what content.
//!
//! An approval is bound to three things: the folder it was given for (the
//! project root, or the user's config folder for user extensions), the
//! settings file's path inside that folder, and the SHA-256 of the file's
//! bytes together with the SHA-256 of every file inside the folder that its
//! hooks' command lines name (`.hooks/check.sh`,
//! `$CLAUDE_PROJECT_DIR/.hooks/guard.py`). So:
//! - editing the settings or one of those scripts makes the file untrusted
//!   again, so a pulled commit cannot slip a new hook in;
//! - a file trusted in project A and reached from project B (a symlink, a
//!   copy) is untrusted in B, whose own scripts it would run.
//!
//! Checking trust never parses the settings file: an untrusted file is only
//! hashed. The store is JSON, written atomically (temporary file, then
//! rename) under an exclusive lock, mode 0600; a store that cannot be read
//! is an error, never an empty store.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

use hookshot_core::HookAction;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::SettingsFile;
use crate::read::{ReadError, read_capped, sha256_hex};

/// The largest script hashed for trust, and the largest store read.
const MAX_COVERED_BYTES: u64 = 64 << 20;
/// At most this many files are bound to one settings file. Past it (or
/// past `MAX_COVERED_BYTES` for one file) hookshot refuses to trust the
/// file: an approval that leaves some of what runs unbound is none.
pub const MAX_COVERED_FILES: usize = 4096;

/// What a cover holds for a name that did not exist when the file was
/// trusted: its appearance withdraws the approval.
pub const ABSENT: &str = "absent";

/// The folders where agents and hookshot keep hook scripts and their shared
/// code: every file under them is covered by every approval in the
/// project, whether a command names it or not (a script sources its
/// neighbours). Settings files hookshot reads there are approved on their
/// own and left out.
pub fn hook_folders() -> impl Iterator<Item = &'static str> {
    use hookshot_core::Agent;
    Agent::ALL
        .into_iter()
        .map(Agent::hooks_folder)
        // Cline runs the hook files of each of its folders.
        .chain(
            hookshot_core::agent::CLINE_HOOK_DIRS
                .iter()
                .copied()
                .filter(|d| *d != Agent::Cline.hooks_folder()),
        )
        .chain([".hookshot"])
}

/// One approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustEntry {
    /// The folder the approval holds in (canonical).
    pub project: String,
    /// The settings file, relative to `project`.
    pub file: String,
    /// SHA-256 of the settings file's bytes.
    pub sha256: String,
    /// Scripts its hooks name, relative to `project`, with their SHA-256.
    #[serde(default)]
    pub covers: BTreeMap<String, String>,
}

impl TrustEntry {
    /// Whether this approval holds for the settings file's `bytes` and for
    /// everything it covers as they are now: `Err` says what changed.
    pub fn holds(&self, bytes: &[u8]) -> Result<(), String> {
        if self.sha256 != sha256_hex(bytes) {
            return Err("changed since it was trusted".into());
        }
        let scope = Path::new(&self.project);
        for (rel, digest) in &self.covers {
            cover_holds(scope, rel, digest)?;
        }
        Ok(())
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct StoreFile {
    version: u32,
    trusted: Vec<TrustEntry>,
}

const VERSION: u32 = 2;

/// Why the trust store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// Unreadable (permissions, not a regular file, too large).
    #[error("{}: cannot read the trust store: {source}", path.display())]
    Read {
        /// The store.
        path: PathBuf,
        /// Why.
        source: ReadError,
    },
    /// Not a store this hookshot wrote.
    #[error(
        "{}: the trust store is corrupt ({reason}); nothing it approved is trusted. Move it away and run `hookshot trust` again",
        path.display()
    )]
    Corrupt {
        /// The store.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Could not be written.
    #[error("{}: cannot write the trust store: {source}", path.display())]
    Write {
        /// The store.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

type Key = (String, String);

#[derive(Debug, Clone)]
enum Change {
    Put(TrustEntry),
    Remove(Key),
}

/// Approved settings files.
#[derive(Debug, Clone, Default)]
pub struct TrustStore {
    path: PathBuf,
    entries: BTreeMap<Key, TrustEntry>,
    changes: Vec<Change>,
}

fn key_of(e: &TrustEntry) -> Key {
    (e.project.clone(), e.file.clone())
}

fn read_store(path: &Path) -> Result<BTreeMap<Key, TrustEntry>, TrustError> {
    let bytes = match read_capped(path, MAX_COVERED_BYTES) {
        Ok(b) => b,
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(source) => {
            return Err(TrustError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let corrupt = |reason: String| TrustError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| corrupt(format!("invalid JSON: {e}")))?;
    // hookshot 0.1 kept `{path: digest}`, bound to no project: such
    // approvals are not carried over (they are what the symlink bypass
    // used), and saying so beats reading them as nothing.
    if value.as_object().is_some_and(|m| m.values().all(Value::is_string)) && value.get("version").is_none() {
        return Err(corrupt(
            "it was written by an older hookshot whose approvals were not bound to a project".into(),
        ));
    }
    let file: StoreFile = serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))?;
    if file.version != VERSION {
        return Err(corrupt(format!("unknown version {}", file.version)));
    }
    Ok(file.trusted.into_iter().map(|e| (key_of(&e), e)).collect())
}

/// `path` relative to `base`, if it lies inside it (lexically).
fn inside(base: &Path, path: &Path) -> Option<PathBuf> {
    let rel = path.strip_prefix(base).ok()?;
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    Some(rel.to_path_buf())
}

/// The words of a command line that may name a file: split at blanks and
/// shell operators, quotes removed, the project variables expanded.
fn path_words(command: &str, project: &Path) -> Vec<String> {
    let text = expand_project(command, project);
    // The shell splits at blanks, not at every Unicode space: a no-break
    // space inside a name is part of it.
    text.split(|c: char| matches!(c, ' ' | '\t' | '\n') || ";|&()<>`".contains(c))
        .map(|w| w.replace(['"', '\''], ""))
        .filter(|w| !w.is_empty() && !w.starts_with('-'))
        .collect()
}

/// The files that a long-lived process started for this hook runs (a
/// persistent process's program and arguments, an MCP server's command and
/// arguments, resolved against `project`), as they exist now. A process
/// started once keeps running what it read at start, so whoever keeps one
/// alive across events watches these to restart it when they change.
///
/// Besides the files its command line names, this is the program it finds
/// on `PATH` (`python3` upgraded under it is another program) and the
/// files beside each named file (the rules file or module a script keeps
/// next to itself, read at start): what a fresh start would read
/// differently.
///
/// The flag is false when a folder holds more than `MAX_SIBLINGS` such
/// files: then not all of what a fresh start reads is listed, and a server
/// that keeps processes alive cannot tell it is still what one-shot runs.
pub fn process_files(action: &HookAction, project: &Path) -> (Vec<PathBuf>, bool) {
    let (words, base, program) = match action {
        HookAction::Persistent { process, .. } => (hook_words(action, project), project, process.argv.first()),
        HookAction::McpTool { spawn: Some(s), .. } => (
            stdio_words(s, project),
            s.cwd.as_deref().unwrap_or(project),
            Some(&s.command),
        ),
        _ => return (Vec::new(), true),
    };
    let mut named: Vec<PathBuf> = words
        .iter()
        .map(|w| hookshot_core::paths::lexical_join(base, w))
        .filter(|p| p.is_file())
        .collect();
    if let Some(program) = program.filter(|p| !p.contains('/'))
        && let Some(found) = std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|d| d.join(program))
                .find(|p| p.is_file())
        })
    {
        named.push(found);
    }
    let mut out = named.clone();
    // Beside the project's own files only: a folder like /usr/bin holds
    // thousands of unrelated programs.
    for dir in named
        .iter()
        .filter(|f| f.starts_with(project))
        .filter_map(|f| f.parent())
    {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        let mut beside = 0;
        for e in entries.flatten() {
            let path = e.path();
            if e.file_type().is_ok_and(|t| t.is_file()) && !runtime_file(&path) && !out.contains(&path) {
                beside += 1;
                if beside > MAX_SIBLINGS {
                    return (out, false);
                }
                out.push(path);
            }
        }
    }
    (out, true)
}

/// At most this many files beside one of a process's files are watched;
/// past it, [`process_files`] says it could not list them all.
const MAX_SIBLINGS: usize = 256;

/// Files a running process writes beside itself (logs, pid files, locks,
/// databases, editor droppings): watching them would restart it after each
/// of its own writes.
fn runtime_file(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.ends_with('~')
        || name.starts_with(".#")
        || matches!(
            ext.as_str(),
            "log"
                | "pid"
                | "lock"
                | "sock"
                | "db"
                | "sqlite"
                | "sqlite3"
                | "db-journal"
                | "db-wal"
                | "tmp"
                | "swp"
                | "pyc"
        )
}

/// The words of a stdio MCP server's command line that may name a file.
fn stdio_words(server: &hookshot_core::McpStdio, project: &Path) -> Vec<String> {
    std::iter::once(&server.command)
        .chain(&server.args)
        .flat_map(|a| path_words(a, project))
        .collect()
}

/// The words of a hook's action that may name a file.
fn hook_words(action: &HookAction, project: &Path) -> Vec<String> {
    match action {
        HookAction::Command { command } => path_words(command, project),
        HookAction::Exec { program, args } => std::iter::once(program)
            .chain(args)
            .flat_map(|a| path_words(a, project))
            .collect(),
        HookAction::Persistent { process, .. } => process.argv.iter().flat_map(|a| path_words(a, project)).collect(),
        HookAction::InProcess { .. }
        | HookAction::Llm { .. }
        | HookAction::Judge { .. }
        | HookAction::Http { .. }
        | HookAction::McpTool { .. }
        | HookAction::Unsupported { .. } => Vec::new(),
    }
}

/// A command line's candidate file names, each joined onto the folder it
/// is named in: what the shell would run and read, found by a parser that
/// knows quoting, escapes and `cd` (the facade passes the built-ins' shell
/// walker). The registry alone only splits at blanks.
pub type CommandPaths<'a> = &'a dyn Fn(&str, &Path) -> CommandFiles;

/// What one command line does with files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandFiles {
    /// Files it may run or read.
    pub named: Vec<PathBuf>,
    /// Files it only writes (`>> hook.log`, `touch done`, `tee out`): its
    /// output, never bound by an approval, or the first run of a hook that
    /// logs would withdraw its own approval and switch the guard off.
    pub written: Vec<PathBuf>,
    /// Why it runs code no approval can bind (`npm run`, `make`, `python
    /// -m`, `npx`): the user must be told before approving.
    pub unbound: Vec<String>,
}

/// What an approval of one settings file binds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Covers {
    /// Files (and `DIR/` listings) inside the scope, with their digests.
    pub files: BTreeMap<String, String>,
    /// What its hooks run that no approval can bind, each with the hook's
    /// command: `hookshot trust` approves such a file only when the user
    /// says so knowingly.
    pub unbound: Vec<String>,
}

/// The files inside `scope` that a settings file's hooks run or may read,
/// each with its SHA-256 (or [`ABSENT`]): what an approval covers besides
/// the settings file.
///
/// - every word of its command lines that names a file in the project,
///   found by `paths` (after `cd`, quotes and escapes) and by splitting at
///   blanks; exec-form programs and arguments, persistent processes' argv
///   and MCP servers' command lines word by word, unsplit;
/// - names that do not exist yet but look like files (a `/` or a `.`), as
///   [`ABSENT`];
/// - every file under the [`hook_folders`] of `scope`, and each of their
///   folders' listings (`DIR/`), so a file added there is seen.
///
/// More than [`MAX_COVERED_FILES`] files, or one over
/// `MAX_COVERED_BYTES`, is an error: hookshot will not trust what it
/// cannot bind.
///
/// `folders` are more folders to cover whole (a Claude Code plugin's root,
/// for its `hooks/hooks.json`).
pub fn covered_files(
    scope: &Path,
    project: &Path,
    file: &SettingsFile,
    paths: CommandPaths<'_>,
    folders: &[PathBuf],
) -> Result<Covers, String> {
    let expand = |w: &str| expand_project(w, project);
    // Joined, not normalised: `link/../x.sh` is where the kernel goes.
    let mut names: Vec<PathBuf> = Vec::new();
    let mut unbound: Vec<String> = Vec::new();
    let mut whole = |w: &str, base: &Path| names.push(base.join(expand(w)));
    for h in &file.hooks {
        // A hook that runs in a folder of its own (Copilot CLI's `cwd`)
        // names its scripts from there.
        let joined = h.options.cwd.as_ref().map(|c| project.join(c));
        let project = joined.as_deref().unwrap_or(project);
        match &h.action {
            HookAction::Command { command } => {
                let text = expand(command);
                let files = paths(&text, project);
                let shown = hookshot_core::display::escaped(command);
                unbound.extend(files.unbound.iter().map(|why| format!("{why} (`{shown}`)")));
                if command.contains("CDPATH") {
                    unbound.push(format!(
                        "it sets CDPATH, so a `cd` may lead elsewhere than approved (`{shown}`)"
                    ));
                }
                for p in files.named {
                    whole(&p.display().to_string(), project);
                }
                for w in path_words(command, project) {
                    let path = project.join(expand(&w));
                    // The blank split cannot tell `>> log` from `sh log`:
                    // the walker can.
                    if !files.written.iter().any(|f| same_file(f, &path)) {
                        whole(&w, project);
                    }
                }
            }
            HookAction::Exec { program, args } => {
                for w in std::iter::once(program).chain(args) {
                    whole(w, project);
                }
            }
            HookAction::Persistent { process, .. } => {
                let base = process.dir.as_deref().unwrap_or(project);
                for w in &process.argv {
                    whole(w, base);
                }
            }
            _ => {}
        }
    }
    // A project's security_scan rules decide what is rewritten in tool
    // inputs and outputs: as much the approval's as a script.
    for r in file.builtins.iter().flat_map(|b| &b.rules) {
        whole(&r.path.display().to_string(), project);
    }
    for d in &file.mcp_servers {
        if let Ok(s) = &d.how {
            let base = s.cwd.as_deref().unwrap_or(project);
            for w in std::iter::once(&s.command).chain(&s.args) {
                whole(w, base);
            }
        }
        whole(&d.defined_in.display().to_string(), project);
    }
    let mut out = BTreeMap::new();
    let too_many = || {
        format!(
            "its hooks run or name more than {MAX_COVERED_FILES} files in the project; an approval cannot bind them all, so it is not given"
        )
    };
    for path in names {
        // Every link on the way is bound by its text, and the first missing
        // folder by its absence: retargeting `cur -> tools/v2`, or making
        // `lnk` for `lnk/../x.sh`, would run other code under the approval.
        for (rel, digest) in links_on_the_way(scope, &path) {
            out.entry(rel).or_insert(digest);
        }
        // The kernel takes `..` after following each symlink.
        let real = std::fs::canonicalize(&path).ok();
        match real {
            Some(real) if real.is_file() => {
                let Some(rel) = inside(scope, &real) else { continue };
                if let std::collections::btree_map::Entry::Vacant(slot) = out.entry(rel.display().to_string()) {
                    slot.insert(digest_of(&real)?);
                }
            }
            Some(_) => {}
            None => {
                let path = hookshot_core::paths::lexical_join(Path::new("/"), &path.display().to_string());
                let Some(rel) = inside(scope, &path) else { continue };
                let name = rel.display().to_string();
                if name.contains('/') || name.contains('.') {
                    out.entry(name).or_insert_with(|| ABSENT.to_string());
                }
            }
        }
        if out.len() > MAX_COVERED_FILES {
            return Err(too_many());
        }
    }
    // A script whose `#!` names its interpreter by a relative path runs
    // that file, found from the hook's folder (the project).
    let interpreters: Vec<PathBuf> = out
        .iter()
        .filter(|(rel, digest)| *digest != ABSENT && !rel.ends_with('/'))
        .filter_map(|(rel, _)| relative_interpreter(&scope.join(rel)))
        .map(|i| project.join(i))
        .collect();
    for path in interpreters {
        match std::fs::canonicalize(&path) {
            Ok(real) if real.is_file() => {
                if let Some(rel) = inside(scope, &real) {
                    let digest = digest_of(&real)?;
                    out.entry(rel.display().to_string()).or_insert(digest);
                }
            }
            _ => {
                if let Some(rel) = inside(
                    scope,
                    &hookshot_core::paths::lexical_join(Path::new("/"), &path.display().to_string()),
                ) {
                    out.entry(rel.display().to_string())
                        .or_insert_with(|| ABSENT.to_string());
                }
            }
        }
    }
    let extra = folders
        .iter()
        .filter_map(|f| inside(scope, f))
        .map(|r| r.display().to_string());
    for folder in hook_folders().chain([IMPORTED]).map(str::to_string).chain(extra) {
        for (rel, digest) in folder_covers(scope, &folder)? {
            out.insert(rel, digest);
            if out.len() > MAX_COVERED_FILES {
                return Err(too_many());
            }
        }
    }
    unbound.sort();
    unbound.dedup();
    Ok(Covers { files: out, unbound })
}

/// The interpreter a script's `#!` line names by a relative path (the
/// kernel, or `env`, finds it from the current folder), if any.
fn relative_interpreter(script: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(script).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = std::str::from_utf8(line.split(|b| *b == b'\n').next()?).ok()?;
    let mut words = line.split_whitespace();
    let mut program = words.next()?;
    if Path::new(program).file_name().is_some_and(|n| n == "env") {
        program = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
    }
    (program.contains('/') && !program.starts_with('/')).then(|| PathBuf::from(program))
}

/// Whether two names lead to the same place: the kernel's reading where
/// the file exists, else the lexical one.
fn same_file(a: &Path, b: &Path) -> bool {
    let real = |p: &Path| {
        std::fs::canonicalize(p)
            .unwrap_or_else(|_| hookshot_core::paths::lexical_join(Path::new("/"), &p.display().to_string()))
    };
    a == b || real(a) == real(b)
}

/// The symlinks inside `scope` that the kernel passes through to reach
/// `path` (each with the digest of its text), and the first component that
/// does not exist (as [`ABSENT`]): what else must stay as it is for `path`
/// to name the same file.
fn links_on_the_way(scope: &Path, path: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut at = PathBuf::new();
    let last = path.components().count().saturating_sub(1);
    for (i, c) in path.components().enumerate() {
        at.push(c);
        if !matches!(c, Component::Normal(_)) {
            continue;
        }
        // Where this entry is: its folder as the kernel resolves it.
        let Some(entry) = at
            .parent()
            .and_then(|d| std::fs::canonicalize(d).ok())
            .zip(at.file_name())
            .map(|(d, n)| d.join(n))
        else {
            break;
        };
        let Some(rel) = inside(scope, &entry) else { continue };
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                if let Ok(target) = std::fs::read_link(&at) {
                    out.push((
                        rel.display().to_string(),
                        sha256_hex(target.as_os_str().as_encoded_bytes()),
                    ));
                }
            }
            Ok(_) => {}
            // A missing last name is the caller's to judge (a bare word
            // like `bash` is a program, not a file); a missing folder on
            // the way is a place a link can appear later.
            Err(_) => {
                if i < last {
                    out.push((rel.display().to_string(), ABSENT.to_string()));
                }
                break;
            }
        }
    }
    out
}

/// `word` with the project variables the agents set replaced by `project`.
fn expand_project(word: &str, project: &Path) -> String {
    const VARS: [&str; 4] = ["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "GEMINI_CWD", "JCLI_CWD"];
    let project = project.display().to_string();
    hookshot_core::subst::dollar(word, |name| VARS.contains(&name).then(|| project.clone()))
}

fn digest_of(path: &Path) -> Result<String, String> {
    match read_capped(path, MAX_COVERED_BYTES) {
        Ok(bytes) => Ok(sha256_hex(&bytes)),
        Err(ReadError::TooLarge) => Err(format!(
            "it runs {}, which is larger than {} MiB; hookshot will not trust what it cannot hash",
            path.display(),
            MAX_COVERED_BYTES >> 20
        )),
        Err(e) => Err(format!("it runs {}, which cannot be read ({e})", path.display())),
    }
}

/// Whether a path under a hook folder is approved on its own, so the
/// walk of the hook folders leaves it out: hookshot's settings files, the
/// imported settings (`install --import` writes them, which must not
/// withdraw the project's other approvals; the rest of that folder is
/// walked on its own, [`IMPORTED`]), and the extensions folder (each
/// extension's approval covers its own folder whole, scripts included).
fn own_settings(rel: &Path) -> bool {
    let s = rel.to_string_lossy();
    matches!(
        s.as_ref(),
        ".hookshot/settings.json" | ".hookshot/hooks.yaml" | ".hookshot/extensions" | IMPORTED
    ) || (rel.parent() == Some(Path::new(IMPORTED)) && rel.extension().is_some_and(|e| e == "json"))
}

/// Where `install --import` keeps the hooks it moved out of an agent's file.
const IMPORTED: &str = ".hookshot/imported";

/// Every file under `scope/folder` with its digest, and every folder's
/// listing as `DIR/` with the digest of its names: the same walk for
/// trusting and for checking, so both see the same tree. Symlinks are
/// covered as links (their target's text), never followed into folders.
fn folder_covers(scope: &Path, folder: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut stack = vec![scope.join(folder)];
    // Folders reached through links are walked once (a link cycle ends).
    let mut walked: Vec<PathBuf> = Vec::new();
    while let Some(dir) = stack.pop() {
        let real = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
        if walked.contains(&real) {
            continue;
        }
        walked.push(real);
        let Some(rel_dir) = inside(scope, &dir) else { continue };
        let Some((listing, entries)) = listing_of(scope, &dir) else {
            continue;
        };
        for (path, rel, kind) in entries {
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                out.push((rel.display().to_string(), digest_of(&path)?));
            } else if kind.is_symlink() {
                let target = std::fs::read_link(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                out.push((
                    rel.display().to_string(),
                    sha256_hex(target.as_os_str().as_encoded_bytes()),
                ));
                // What the link leads to inside the project is shared code
                // as much as a file beside it: covered too.
                if let Ok(real) = std::fs::canonicalize(&path)
                    && let Some(real_rel) = inside(scope, &real)
                {
                    if real.is_dir() {
                        stack.push(real);
                    } else if real.is_file() {
                        out.push((real_rel.display().to_string(), digest_of(&real)?));
                    }
                }
            }
            if out.len() > MAX_COVERED_FILES {
                return Err(format!(
                    "{} holds more than {MAX_COVERED_FILES} files; an approval cannot bind them all, so it is not given",
                    scope.join(folder).display()
                ));
            }
        }
        out.push((format!("{}/", rel_dir.display()), listing));
    }
    Ok(out)
}

/// A folder's entry: its path, its path inside the scope, its type.
type Entry = (PathBuf, PathBuf, std::fs::FileType);

/// The digest of the names in one folder (settings approved on their own
/// left out), and its entries; `None` when it cannot be read.
fn listing_of(scope: &Path, dir: &Path) -> Option<(String, Vec<Entry>)> {
    let mut entries = Vec::new();
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let path = e.path();
        let Some(rel) = inside(scope, &path) else { continue };
        if own_settings(&rel) {
            continue;
        }
        let Ok(kind) = e.file_type() else { continue };
        entries.push((path, rel, kind));
    }
    entries.sort_by(|a, b| a.1.cmp(&b.1));
    let names: Vec<String> = entries.iter().map(|(_, r, _)| r.display().to_string()).collect();
    Some((sha256_hex(names.join("\n").as_bytes()), entries))
}

/// Whether one cover still holds: `Err` says how it changed.
fn cover_holds(scope: &Path, rel: &str, digest: &str) -> Result<(), String> {
    if let Some(dir) = rel.strip_suffix('/') {
        return match listing_of(scope, &scope.join(dir)) {
            Some((d, _)) if d == digest => Ok(()),
            Some(_) => Err(format!(
                "files were added to or removed from {rel} since it was trusted"
            )),
            None => Err(format!("{rel} is gone since it was trusted")),
        };
    }
    let path = scope.join(rel);
    if digest == ABSENT {
        return match std::fs::symlink_metadata(&path) {
            Err(_) => Ok(()),
            Ok(_) => Err(format!(
                "names {rel}, which did not exist when it was trusted and does now"
            )),
        };
    }
    let meta = std::fs::symlink_metadata(&path);
    // Named files are kept under their real path, so a link here is one a
    // covered folder holds: covered as a link.
    if meta.as_ref().is_ok_and(|m| m.file_type().is_symlink()) {
        let target = std::fs::read_link(&path).map_err(|e| format!("runs {rel}, which cannot be read ({e})"))?;
        return if sha256_hex(target.as_os_str().as_encoded_bytes()) == digest {
            Ok(())
        } else {
            Err(format!("runs {rel}, which changed since it was trusted"))
        };
    }
    match read_capped(&path, MAX_COVERED_BYTES) {
        Ok(b) if sha256_hex(&b) == digest => Ok(()),
        Ok(_) => Err(format!("runs {rel}, which changed since it was trusted")),
        Err(err) => Err(format!("runs {rel}, which cannot be read ({err})")),
    }
}

impl TrustStore {
    /// Opens the store at `path`; a missing store trusts nothing, an
    /// unreadable or corrupt one is an error.
    pub fn open(path: PathBuf) -> Result<TrustStore, TrustError> {
        let entries = read_store(&path)?;
        Ok(TrustStore {
            path,
            entries,
            changes: Vec::new(),
        })
    }

    /// An empty store that would be written at `path`.
    pub fn empty(path: PathBuf) -> TrustStore {
        TrustStore {
            path,
            ..TrustStore::default()
        }
    }

    /// Where the store lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Why `file` (relative to `scope`) with these bytes is not trusted, or
    /// `Ok` when it is.
    pub fn check(&self, scope: &Path, file: &Path, bytes: &[u8]) -> Result<(), String> {
        self.approval(scope, file)
            .ok_or_else(|| "was never trusted for this project".to_string())?
            .holds(bytes)
    }

    /// The approval given for `file` (relative to `scope`), if any.
    pub fn approval(&self, scope: &Path, file: &Path) -> Option<&TrustEntry> {
        self.entries
            .get(&(scope.display().to_string(), file.display().to_string()))
    }

    /// Whether `file` (relative to `scope`) with these bytes is trusted.
    pub fn is_trusted(&self, scope: &Path, file: &Path, bytes: &[u8]) -> bool {
        self.check(scope, file, bytes).is_ok()
    }

    /// Trusts `file` (relative to `scope`) as it is now, with the scripts
    /// its hooks name ([`covered_files`]).
    pub fn trust(&mut self, scope: &Path, file: &Path, bytes: &[u8], covers: BTreeMap<String, String>) {
        let e = TrustEntry {
            project: scope.display().to_string(),
            file: file.display().to_string(),
            sha256: sha256_hex(bytes),
            covers,
        };
        self.entries.insert(key_of(&e), e.clone());
        self.changes.push(Change::Put(e));
    }

    /// Withdraws every approval given for `scope`; returns how many.
    pub fn revoke(&mut self, scope: &Path) -> usize {
        let scope = scope.display().to_string();
        let keys: Vec<Key> = self.entries.keys().filter(|(p, _)| *p == scope).cloned().collect();
        for k in &keys {
            self.entries.remove(k);
            self.changes.push(Change::Remove(k.clone()));
        }
        keys.len()
    }

    /// Every approval, by project then file.
    pub fn entries(&self) -> impl Iterator<Item = &TrustEntry> {
        self.entries.values()
    }

    /// Writes this store's changes: under an exclusive lock, onto what is on
    /// disk now (so concurrent `hookshot trust` runs all land), into a
    /// temporary file that replaces the store in one rename.
    pub fn save(&mut self) -> Result<(), TrustError> {
        let write_err = |source: std::io::Error| TrustError::Write {
            path: self.path.clone(),
            source,
        };
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(write_err)?;
        let mut lock_path = self.path.clone().into_os_string();
        lock_path.push(".lock");
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&lock_path)
            .map_err(write_err)?;
        let _lock = nix::fcntl::Flock::lock(lock, nix::fcntl::FlockArg::LockExclusive)
            .map_err(|(_, e)| write_err(std::io::Error::from(e)))?;
        let mut entries = read_store(&self.path)?;
        for c in self.changes.drain(..) {
            match c {
                Change::Put(e) => {
                    entries.insert(key_of(&e), e);
                }
                Change::Remove(k) => {
                    entries.remove(&k);
                }
            }
        }
        let file = StoreFile {
            version: VERSION,
            trusted: entries.values().cloned().collect(),
        };
        let text = serde_json::to_string_pretty(&file).map_err(|e| write_err(std::io::Error::other(e)))?;
        // Durable: a lost write would lose the user's approval.
        let how = hookshot_core::atomic::Replace {
            mode: 0o600,
            durable: true,
        };
        hookshot_core::atomic::replace(&self.path, how, |f| {
            f.write_all(text.as_bytes())?;
            f.write_all(b"\n")
        })
        .map_err(write_err)?;
        self.entries = entries;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approval_is_bound_to_project_and_content() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = TrustStore::empty(dir.path().join("trusted.json"));
        let a = Path::new("/p/a");
        let f = Path::new(".claude/settings.json");
        s.trust(a, f, b"{}", BTreeMap::new());
        assert!(s.is_trusted(a, f, b"{}"));
        assert!(!s.is_trusted(a, f, b"{ }"));
        assert!(!s.is_trusted(Path::new("/p/b"), f, b"{}"));
        s.save().unwrap();
        let reopened = TrustStore::open(s.path().to_path_buf()).unwrap();
        assert!(reopened.is_trusted(a, f, b"{}"));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(s.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn corrupt_and_legacy_stores_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("trusted.json");
        std::fs::write(&p, "{\"a\": ").unwrap();
        assert!(matches!(TrustStore::open(p.clone()), Err(TrustError::Corrupt { .. })));
        std::fs::write(&p, "{\"/p/.gemini/settings.json\": \"abc\"}").unwrap();
        let e = TrustStore::open(p.clone()).unwrap_err();
        assert!(e.to_string().contains("older hookshot"), "{e}");
        // A save never replaces a store it cannot read.
        let mut s = TrustStore::empty(p.clone());
        s.trust(Path::new("/p"), Path::new("x"), b"", BTreeMap::new());
        assert!(s.save().is_err());
        assert!(std::fs::read_to_string(&p).unwrap().contains("abc"));
    }

    #[test]
    fn covered_scripts_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir(p.join(".hooks")).unwrap();
        std::fs::write(p.join(".hooks/check.sh"), "exit 2").unwrap();
        let hook = |command: &str| hookshot_core::HookDef {
            dialect: hookshot_core::Dialect::Claude,
            source: hookshot_core::SourceKind::Project,
            ..hookshot_core::HookDef::new(
                "",
                hookshot_core::EventKind::BeforeTool,
                HookAction::Command {
                    command: command.into(),
                },
            )
        };
        let file = crate::SettingsFile {
            hooks: vec![
                hook("bash .hooks/check.sh"),
                hook("python3 \"$CLAUDE_PROJECT_DIR\"/.hooks/check.sh && cat /etc/passwd ../outside"),
            ],
            ..Default::default()
        };
        let covers = covered_files(p, p, &file, &|_, _| CommandFiles::default(), &[])
            .unwrap()
            .files;
        assert_eq!(covers.keys().collect::<Vec<_>>(), [".hooks/check.sh"]);
        let mut s = TrustStore::empty(p.join("store.json"));
        let f = Path::new(".claude/settings.json");
        s.trust(p, f, b"{}", covers);
        assert!(s.is_trusted(p, f, b"{}"));
        std::fs::write(p.join(".hooks/check.sh"), "exit 0").unwrap();
        let why = s.check(p, f, b"{}").unwrap_err();
        assert!(why.contains(".hooks/check.sh"), "{why}");
    }

    /// Copilot CLI runs a hook with a `cwd` there: the script it names from
    /// there is what the approval binds, so swapping it is seen.
    #[test]
    fn a_hook_run_in_its_own_folder_binds_its_scripts_there() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir_all(p.join("tools")).unwrap();
        std::fs::write(p.join("tools/guard.sh"), "exit 0").unwrap();
        let mut hook = hookshot_core::HookDef::new(
            "h",
            hookshot_core::EventKind::BeforeTool,
            HookAction::Command {
                command: "./guard.sh".into(),
            },
        );
        hook.options.cwd = Some("tools".into());
        let file = crate::SettingsFile {
            hooks: vec![hook],
            ..Default::default()
        };
        let covers = covered_files(p, p, &file, &|_, _| CommandFiles::default(), &[])
            .unwrap()
            .files;
        assert_eq!(covers.keys().collect::<Vec<_>>(), ["tools/guard.sh"]);
    }

    #[test]
    fn a_plugin_folder_is_covered_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        let root = p.join("plugins/guard");
        std::fs::create_dir_all(root.join("hooks/lib")).unwrap();
        std::fs::write(root.join("hooks/lib/shared.sh"), "exit 0").unwrap();
        let file = crate::SettingsFile::default();
        let covers = covered_files(
            p,
            p,
            &file,
            &|_, _| CommandFiles::default(),
            std::slice::from_ref(&root),
        )
        .unwrap()
        .files;
        assert!(covers.contains_key("plugins/guard/hooks/lib/shared.sh"), "{covers:?}");
        let mut s = TrustStore::empty(p.join("store.json"));
        let f = Path::new("plugins/guard/hooks/hooks.json");
        s.trust(p, f, b"{}", covers);
        assert!(s.is_trusted(p, f, b"{}"));
        std::fs::write(root.join("hooks/lib/new.sh"), "echo new").unwrap();
        let why = s.check(p, f, b"{}").unwrap_err();
        assert!(
            why.contains("added to or removed from plugins/guard/hooks/lib/"),
            "{why}"
        );
    }
}
