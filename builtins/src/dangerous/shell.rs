//! A command line as the shell would run it, found without running it:
//! parsed by `brush-parser` (POSIX and bash syntax), every simple command of
//! every list, pipeline, compound command, function body, command and
//! process substitution and here-document fed to a shell is visited, and
//! programs that run other programs (`sudo`, `env`, `xargs`, `sh -c`,
//! `eval`, `find -exec`, ...) are looked through to the program they run.
//!
//! What cannot be known before the command runs (a variable, a
//! substitution's output) stays unknown; the rules treat it as dangerous
//! where it matters, never as safe.

use std::path::{Path, PathBuf};

use brush_parser::ast::{
    self, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, IoFileRedirectKind, IoFileRedirectTarget,
    IoRedirect, Pipeline, SimpleCommand,
};
use brush_parser::word::{self, TildeExpr, WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions};

use super::places::Places;

/// How deep `sh -c`, `eval` and substitutions may nest before the command
/// is called unknowable.
const MAX_DEPTH: usize = 12;

/// How deeply constructs may nest in one script before it is called
/// unknowable: the parser recurses once per level, and a stack overflow
/// would abort hookshot (a crash the agent reads as "go on").
const MAX_NESTING: usize = 100;

/// The longest command checked (bytes).
const MAX_SCRIPT: usize = 1024 * 1024;

/// An upper bound of how deeply `text` nests: brackets and compound
/// keywords, quotes ignored (a bracket in a string can only make the
/// bound larger).
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut backtick = false;
    for word in text.split(|c: char| c.is_whitespace() || c == ';') {
        match word {
            "if" | "while" | "until" | "for" | "case" | "select" => depth += 1,
            "fi" | "done" | "esac" => depth = depth.saturating_sub(1),
            _ => {}
        }
        deepest = deepest.max(depth);
        for c in word.chars() {
            match c {
                '(' | '{' | '[' => depth += 1,
                ')' | '}' | ']' => depth = depth.saturating_sub(1),
                '`' => {
                    backtick = !backtick;
                    if backtick {
                        depth += 1;
                    } else {
                        depth = depth.saturating_sub(1);
                    }
                }
                _ => {}
            }
            deepest = deepest.max(depth);
        }
    }
    deepest
}

/// Whether `text` is small and shallow enough to walk on any thread: at
/// most 8 levels of nesting (its scripts within scripts included, since
/// their brackets and keywords are part of the text) and 16 KiB.
pub fn shallow(text: &str) -> bool {
    text.len() <= 16 * 1024 && nesting(text) <= 8
}

/// Alternatives one word may expand to by brace expansion before it is
/// called unknown.
const MAX_BRACES: usize = 64;

/// One argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// Its text, quotes removed.
    Known(String),
    /// Decided when the command runs.
    Unknown {
        /// As written.
        raw: String,
        /// Unquoted, so it may become several words (or none).
        split: bool,
        /// It comes from a download (`$(curl ...)`, `<(wget ...)`).
        download: bool,
    },
}

impl Arg {
    /// The text, when known.
    pub fn known(&self) -> Option<&str> {
        match self {
            Arg::Known(s) => Some(s),
            Arg::Unknown { .. } => None,
        }
    }

    /// As written or known, for messages.
    pub fn shown(&self) -> &str {
        match self {
            Arg::Known(s) => s,
            Arg::Unknown { raw, .. } => raw,
        }
    }

    fn unknown(raw: &str) -> Arg {
        Arg::Unknown {
            raw: raw.to_string(),
            split: true,
            download: false,
        }
    }
}

/// A program about to run.
#[derive(Debug, Clone)]
pub struct Run {
    /// Its words, the program first (wrappers already looked through).
    pub argv: Vec<Arg>,
    /// The directory it runs in, None when a `cd` made it unknowable.
    pub cwd: Option<PathBuf>,
}

/// What the walk found.
#[derive(Debug, Clone)]
pub enum Found {
    /// A program runs.
    Run(Run),
    /// A file is written by a redirection.
    Write {
        /// The target.
        target: Arg,
        /// The directory the redirection is made in.
        cwd: Option<PathBuf>,
    },
    /// A tree is deleted by something other than `rm` (`find -delete`).
    Delete {
        /// The tree.
        target: Arg,
        /// The directory it is named in.
        cwd: Option<PathBuf>,
        /// The command, for messages.
        by: &'static str,
        /// Everything under it goes (no test narrows what `find` finds):
        /// the project itself is then the whole project.
        whole: bool,
    },
    /// Dangerous whatever the rules say: the reason.
    Danger(String),
}

/// What a command reads on standard input.
#[derive(Debug, Clone, Default)]
struct Stdin {
    /// A download.
    download: bool,
    /// The output of an earlier part of a pipeline.
    piped: bool,
    /// A here-document or here-string whose text is known.
    script: Option<String>,
    /// A file redirected in (`psql < drop.sql`): as written, and where it
    /// is when that can be known.
    file: Option<(String, Option<PathBuf>)>,
}

const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh", "rbash",
];
const INTERPRETERS: &[&str] = &[
    "python", "python2", "python3", "perl", "ruby", "node", "nodejs", "php", "deno", "bun", "lua",
];
const DOWNLOADERS: &[&str] = &["curl", "wget", "fetch", "http", "https", "xh", "aria2c", "lwp-request"];

/// Whether a script operand names standard input.
fn is_stdin(a: &Arg) -> bool {
    matches!(a.known(), Some("-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"))
}

/// The text `echo` or `printf` of known words prints (roughly: what a
/// program reading it would see).
fn printed(argv: &[Arg]) -> Option<String> {
    let (name, args) = argv.split_first()?;
    if !matches!(name.known().map(base), Some("echo" | "printf")) {
        return None;
    }
    let words: Option<Vec<&str>> = args.iter().map(Arg::known).collect();
    let words: Vec<&str> = words?
        .into_iter()
        .filter(|w| !matches!(*w, "-n" | "-e" | "-E" | "-ne" | "-en"))
        .collect();
    Some(words.join(" ").replace("\\n", "\n"))
}

/// Programs that run what they read on standard input as statements:
/// what a here-document or a pipe gives them is judged as their argument.
fn reads_statements(program: &str) -> bool {
    super::catalogue::SQL_CLIENTS.contains(&program)
        || matches!(program, "redis-cli" | "valkey-cli" | "mongo" | "mongosh")
}

/// The command lines a one-line program hands to the shell, when they are
/// literal: `os.system("…")`, `subprocess.run("…", shell=True)` or a list
/// of words (`subprocess.run(["rm", "-rf", "/x"])`), `execSync("…")`,
/// `system("…")`, `exec("…")`, backticks and `%x(…)`.
fn shell_outs(code: &str) -> Vec<String> {
    static CALL: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(concat!(
            r#"(?:\b(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|execSync|execFileSync|spawnSync|system|popen|shell_exec|passthru|proc_open|IO\.popen|Kernel\.system|Deno\.Command)\s*\(?\s*"#,
            r#"(?:[rfbu]?"((?:[^"\\]|\\.)*)"|[rfbu]?'((?:[^'\\]|\\.)*)'|\[([^\]]*)\]))"#,
            r#"|\.exec\s*\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')"#,
            r#"|`([^`]+)`|%x\(([^)]*)\)"#
        ))
        .ok()
    });
    static WORD: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r#""((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'"#).ok());
    let (Some(call), Some(word)) = (CALL.as_ref(), WORD.as_ref()) else {
        return Vec::new();
    };
    call.captures_iter(code)
        .filter_map(|c| {
            if let Some(list) = c.get(3) {
                let words: Vec<String> = word
                    .captures_iter(list.as_str())
                    .filter_map(|w| w.get(1).or_else(|| w.get(2)))
                    .map(|w| shell_word(w.as_str()))
                    .collect();
                return (!words.is_empty()).then(|| words.join(" "));
            }
            [1, 2, 4, 5, 6, 7]
                .into_iter()
                .find_map(|i| c.get(i))
                .map(|m| m.as_str().to_string())
        })
        .collect()
}

/// One word as the shell would read it back (single-quoted unless plain).
fn shell_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+~".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// A SQL file a client is told to run by option: `psql -f FILE` (or
/// `--file=FILE`), sqlite3's and duckdb's `.read FILE`, mysql's `source FILE`.
fn sql_file_option(program: &str, args: &[Arg]) -> Option<String> {
    let words: Vec<&str> = args.iter().filter_map(Arg::known).collect();
    if program == "psql" {
        if let Some(i) = words.iter().position(|w| *w == "-f" || *w == "--file") {
            return words.get(i + 1).map(|s| s.to_string());
        }
        if let Some(f) = words.iter().find_map(|w| {
            w.strip_prefix("--file=")
                .or_else(|| w.strip_prefix("-f").filter(|r| !r.is_empty()))
        }) {
            return Some(f.to_string());
        }
    }
    words.iter().find_map(|w| {
        let w = w.trim();
        w.strip_prefix(".read ")
            .or_else(|| w.strip_prefix("source "))
            .or_else(|| w.strip_prefix("\\i "))
            .map(|f| f.trim().trim_end_matches(';').to_string())
    })
}

/// The SQL a client will read from `path`: `Ok(None)` when there is no
/// such file (the client runs nothing); `Err` when it cannot be read
/// before it runs (a place not known after a `cd`, not a regular file,
/// over 1 MiB, unreadable): a guard reads what a client would run, never
/// a device or a pipe, and what it cannot read it does not let through.
fn read_sql(path: Option<&Path>) -> Result<Option<String>, String> {
    let path = path.ok_or("in a directory that cannot be known before it runs")?;
    let meta = match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
        Ok(meta) => meta,
    };
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > 1 << 20 {
        return Err("larger than 1 MiB".into());
    }
    std::fs::read_to_string(path).map(Some).map_err(|e| e.to_string())
}

/// The shell command lines a database client's text runs: psql's and
/// mysql's `\!` (and mysql's `system`), sqlite3's `.shell` and `.system`,
/// each to the end of its line.
fn shell_escapes(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut rest = line.trim_start();
        // psql runs `\! cmd` anywhere a backslash command may start.
        if let Some(i) = rest.find("\\!") {
            out.push(rest[i + 2..].trim().to_string());
            rest = "";
        }
        let lower = rest.to_ascii_lowercase();
        for prefix in [".shell ", ".system ", "system "] {
            if lower.starts_with(prefix) {
                out.push(rest[prefix.len()..].trim().to_string());
            }
        }
    }
    out.retain(|l| !l.is_empty());
    out
}

/// Whether a project runner's call runs a program: `uv run`, `poetry
/// run`, `bundle exec`, `pnpm exec`, `npm exec`, `yarn exec`, `pnpm dlx`,
/// `bun x` (after the runner's own options).
fn runs_a_program(name: &str, args: &[Arg]) -> bool {
    let sub = options(args, "", &["--directory", "--project", "--prefix", "--cwd", "-C"]).rest;
    let Some(sub) = args.get(sub).and_then(Arg::known) else {
        return false;
    };
    match name {
        "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" => sub == "run",
        "bundle" => sub == "exec",
        "pnpm" => matches!(sub, "exec" | "dlx"),
        "npm" => matches!(sub, "exec" | "x"),
        "yarn" => matches!(sub, "exec" | "dlx"),
        "bun" => sub == "x",
        _ => false,
    }
}

/// Where the command a container runs starts in `docker run|exec ...`
/// (after the image or the container); `None` for other subcommands.
fn inner_at(name: &str, args: &[Arg]) -> Option<usize> {
    // The global options before the subcommand, as the catalogue reads them.
    let g = options(args, "Hcl", super::catalogue::valued(name)).rest;
    let sub = args.get(g).and_then(Arg::known)?;
    let sub_at = match sub {
        "container" => g + 1,
        _ => g,
    };
    let verb = args.get(sub_at).and_then(Arg::known)?;
    let valued: &[&str] = &[
        "-v",
        "--volume",
        "-e",
        "--env",
        "--env-file",
        "--name",
        "-w",
        "--workdir",
        "-u",
        "--user",
        "--entrypoint",
        "--network",
        "--net",
        "-p",
        "--publish",
        "--mount",
        "--platform",
        "-l",
        "--label",
        "--cpus",
        "-m",
        "--memory",
        "--volumes-from",
        "--add-host",
        "-h",
        "--hostname",
        "--pull",
        "--restart",
        "--log-driver",
        "--log-opt",
        "--cap-add",
        "--cap-drop",
        "--device",
        "--tmpfs",
        "--ipc",
        "--pid",
        "--security-opt",
        "--ulimit",
        "--gpus",
        "--cidfile",
        "--label-file",
        "--dns",
        "--expose",
        "--shm-size",
        "--stop-signal",
        "--stop-timeout",
        "--runtime",
        "--detach-keys",
        "--group-add",
        "--userns",
        "--uts",
        "--cgroupns",
        "--health-cmd",
        "--isolation",
    ];
    match verb {
        "run" | "exec" => {
            let o = options(&args[sub_at + 1..], "vewuphlm", valued);
            // The image, or the container, then its command.
            Some(sub_at + 1 + o.rest + 1)
        }
        _ => None,
    }
}

/// The last path component of a program name.
pub fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Options of a program that runs another: where its operands start, and
/// the options seen with their values.
struct Options {
    /// Index of the first operand.
    rest: usize,
    /// Short or long option names with their value, if any.
    seen: Vec<(String, Option<Arg>)>,
}

impl Options {
    fn has(&self, name: &str) -> bool {
        self.seen.iter().any(|(n, _)| n == name)
    }

    fn value(&self, names: &[&str]) -> Option<&Arg> {
        self.seen
            .iter()
            .rev()
            .find(|(n, _)| names.contains(&n.as_str()))
            .and_then(|(_, v)| v.as_ref())
    }
}

/// Reads options from `args`: short options in clusters, those in
/// `short_valued` taking a value (attached or next); `--name=value`, and
/// `--name value` for names in `long_valued`; `--` ends them. An unknown
/// word ends them too (it may be the program).
fn options(args: &[Arg], short_valued: &str, long_valued: &[&str]) -> Options {
    let mut o = Options {
        rest: args.len(),
        seen: Vec::new(),
    };
    let mut i = 0;
    while i < args.len() {
        let Some(a) = args[i].known() else {
            o.rest = i;
            return o;
        };
        if a == "--" {
            o.rest = i + 1;
            return o;
        }
        if let Some(long) = a.strip_prefix("--") {
            if let Some((name, value)) = long.split_once('=') {
                o.seen.push((format!("--{name}"), Some(Arg::Known(value.to_string()))));
            } else if long_valued.contains(&a) {
                o.seen.push((a.to_string(), args.get(i + 1).cloned()));
                i += 1;
            } else {
                o.seen.push((a.to_string(), None));
            }
        } else if a.len() > 1 && a.starts_with('-') {
            for (k, c) in a[1..].char_indices() {
                if short_valued.contains(c) {
                    let attached = &a[1 + k + c.len_utf8()..];
                    if attached.is_empty() {
                        o.seen.push((format!("-{c}"), args.get(i + 1).cloned()));
                        i += 1;
                    } else {
                        o.seen.push((format!("-{c}"), Some(Arg::Known(attached.to_string()))));
                    }
                    break;
                }
                o.seen.push((format!("-{c}"), None));
            }
        } else {
            o.rest = i;
            return o;
        }
        i += 1;
    }
    o
}

/// The scripts of every `$(...)` (not `$((`) and backquoted part of
/// `text`, nested ones included, whatever quotes they are in: what runs
/// when the text is expanded, over-approximated.
fn embedded_substitutions(text: &str) -> Vec<String> {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == '$' && b.get(i + 1) == Some(&'(') && b.get(i + 2) != Some(&'(') {
            let mut depth = 0;
            let start = i + 2;
            let mut j = i + 1;
            while j < b.len() {
                match b[j] {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            let inner: String = b[start..j.min(b.len())].iter().collect();
            out.extend(embedded_substitutions(&inner));
            out.push(inner);
            i = j;
        } else if b[i] == '`' {
            let end = b[i + 1..].iter().position(|c| *c == '`').map_or(b.len(), |e| i + 1 + e);
            out.push(b[i + 1..end].iter().collect());
            i = end;
        }
        i += 1;
    }
    out
}

/// Drops `NAME=value` words (environment settings of `env`, `sudo`).
fn skip_assignments(args: &[Arg]) -> usize {
    args.iter()
        .take_while(|a| {
            a.known().is_some_and(|s| {
                s.split_once('=')
                    .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_'))
            })
        })
        .count()
}

/// Walks commands, collecting what they do.
pub struct Walker<'a> {
    places: &'a Places,
    /// What was found, in order.
    pub found: Vec<Found>,
    depth: usize,
    /// Downloads run so far: a substitution that runs one prints it.
    downloads: usize,
    /// Symlinks the command makes (`ln -s`), resolved: a path through one
    /// of them leads who knows where.
    pub links: Vec<PathBuf>,
    /// Every word of every program run, wrappers and scripts included, with
    /// the directory it is used in: what may name a file the command runs
    /// or reads.
    pub words: Vec<(Arg, Option<PathBuf>)>,
    /// Every program line the walk looked at, wrappers included (`npx
    /// eslint .` as well as `eslint .`), with the directory it runs in.
    pub lines: Vec<(Vec<Arg>, Option<PathBuf>)>,
    /// Whether `cd NAME` may go elsewhere than `./NAME`: `CDPATH` is set
    /// (in the environment or by the command) or `shopt -s cdable_vars`.
    cd_elsewhere: bool,
}

impl<'a> Walker<'a> {
    /// A walker over `places`.
    pub fn new(places: &'a Places) -> Walker<'a> {
        Walker {
            places,
            cd_elsewhere: std::env::var_os("CDPATH").is_some_and(|v| !v.is_empty()),
            found: Vec::new(),
            depth: 0,
            downloads: 0,
            links: Vec::new(),
            words: Vec::new(),
            lines: Vec::new(),
        }
    }

    fn danger(&mut self, why: String) {
        self.found.push(Found::Danger(why));
    }

    /// Each of `targets` is written, from `cwd`.
    fn writes(&mut self, targets: impl IntoIterator<Item = Arg>, cwd: &Option<PathBuf>) {
        for target in targets {
            self.found.push(Found::Write {
                target,
                cwd: cwd.clone(),
            });
        }
    }

    /// Walks a script run in `cwd`; one that does not parse is dangerous.
    pub fn script(&mut self, text: &str, cwd: &mut Option<PathBuf>) {
        self.parse_and_walk(text, cwd, true);
    }

    /// Walks `text` if it parses as commands; text that does not is not a
    /// finding here.
    fn commands_if_any(&mut self, text: &str, cwd: &Option<PathBuf>) {
        self.parse_and_walk(text, &mut cwd.clone(), false);
    }

    /// Parses `text` and walks it, within the bounds that keep the parser
    /// from overflowing its stack; a text past them is dangerous unparsed.
    fn parse_and_walk(&mut self, text: &str, cwd: &mut Option<PathBuf>, unparsable_is_danger: bool) {
        if self.depth >= MAX_DEPTH {
            self.danger(format!("commands nest more than {MAX_DEPTH} deep"));
            return;
        }
        if text.len() > MAX_SCRIPT {
            self.danger(format!("the command is longer than {MAX_SCRIPT} bytes"));
            return;
        }
        if nesting(text) > MAX_NESTING {
            self.danger(format!("the command nests more than {MAX_NESTING} levels deep"));
            return;
        }
        let options = ParserOptions::default();
        let mut parser = Parser::new(std::io::BufReader::new(text.as_bytes()), &options);
        match parser.parse_program() {
            Ok(program) => {
                self.depth += 1;
                for list in &program.complete_commands {
                    self.list(list, cwd);
                }
                self.depth -= 1;
            }
            Err(e) if unparsable_is_danger => {
                self.danger(format!("the command cannot be parsed as a shell command ({e})"));
            }
            Err(_) => {}
        }
    }

    /// Walks one program given as words (an exec-form command).
    pub fn argv(&mut self, argv: Vec<Arg>, cwd: &mut Option<PathBuf>) {
        self.invoke_with(argv, cwd, Stdin::default());
    }

    fn list(&mut self, list: &CompoundList, cwd: &mut Option<PathBuf>) {
        for item in &list.0 {
            let and_or = &item.0;
            self.pipeline(&and_or.first, cwd);
            for next in &and_or.additional {
                let (ast::AndOr::And(p) | ast::AndOr::Or(p)) = next;
                self.pipeline(p, cwd);
            }
        }
    }

    fn pipeline(&mut self, p: &Pipeline, cwd: &mut Option<PathBuf>) {
        if let [only] = p.seq.as_slice() {
            self.command(only, cwd, Stdin::default());
            return;
        }
        // Each part of a pipeline runs in a subshell: a `cd` there stays
        // there. What a download writes flows into every later part.
        let mut download = false;
        // What `echo`/`printf` of known words feeds the next part: a
        // database client runs it (`echo 'DROP TABLE t' | psql`).
        let mut text: Option<String> = None;
        for c in &p.seq {
            let mut own = cwd.clone();
            let piped = !std::ptr::eq(c, &p.seq[0]);
            let before = self.lines.len();
            download |= self.command(
                c,
                &mut own,
                Stdin {
                    download,
                    piped,
                    script: text.take(),
                    file: None,
                },
            );
            text = self
                .lines
                .get(before..)
                .and_then(<[_]>::last)
                .and_then(|(argv, _)| printed(argv));
        }
    }

    /// Walks one command; true when it is a download.
    fn command(&mut self, c: &Command, cwd: &mut Option<PathBuf>, stdin: Stdin) -> bool {
        match c {
            Command::Simple(s) => self.simple(s, cwd, stdin),
            Command::Compound(cc, redirects) => {
                if let Some(r) = redirects {
                    let mut stdin = stdin;
                    for io in &r.0 {
                        self.redirect(io, cwd, &mut stdin);
                    }
                }
                self.compound(cc, cwd);
                false
            }
            Command::Function(f) => {
                let mut own = cwd.clone();
                self.compound(&f.body.0, &mut own);
                false
            }
            Command::ExtendedTest(t, _) => {
                self.substitutions_in(&t.to_string(), cwd);
                false
            }
        }
    }

    fn compound(&mut self, cc: &CompoundCommand, cwd: &mut Option<PathBuf>) {
        match cc {
            CompoundCommand::BraceGroup(b) => self.list(&b.list, cwd),
            CompoundCommand::Subshell(s) => self.list(&s.list, &mut cwd.clone()),
            CompoundCommand::ForClause(f) => {
                for w in f.values.iter().flatten() {
                    self.expand(&w.value, cwd);
                }
                self.repeated(&f.body.list, cwd);
            }
            CompoundCommand::ArithmeticForClause(f) => {
                self.substitutions_in(&cc.to_string(), cwd);
                self.repeated(&f.body.list, cwd);
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                self.list(&w.0, cwd);
                self.repeated(&w.1.list, cwd);
            }
            CompoundCommand::CaseClause(c) => {
                self.expand(&c.value.value, cwd);
                let branches: Vec<&CompoundList> = c.cases.iter().filter_map(|i| i.cmd.as_ref()).collect();
                for item in &c.cases {
                    for p in &item.patterns {
                        self.expand(&p.value, cwd);
                    }
                }
                self.branches(&branches, cwd);
            }
            CompoundCommand::IfClause(i) => {
                self.list(&i.condition, cwd);
                let mut branches = vec![&i.then];
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.list(c, cwd);
                    }
                    branches.push(&e.body);
                }
                self.branches(&branches, cwd);
            }
            CompoundCommand::Arithmetic(a) => {
                self.substitutions_in(&cc.to_string(), cwd);
                // `((cmd))` is arithmetic to bash but two subshells to
                // dash and other POSIX shells: what parses as commands is
                // judged as commands.
                self.commands_if_any(&a.expr.value, cwd);
            }
            CompoundCommand::Coprocess(c) => {
                self.command(&c.body, &mut cwd.clone(), Stdin::default());
            }
        }
    }

    /// A loop body: when it moves, its next round starts elsewhere.
    fn repeated(&mut self, body: &CompoundList, cwd: &mut Option<PathBuf>) {
        let before = cwd.clone();
        self.list(body, cwd);
        if *cwd != before {
            *cwd = None;
            self.list(body, cwd);
        }
    }

    /// Alternative branches: each starts where the command is; after
    /// them the directory is known only if none moved.
    fn branches(&mut self, branches: &[&CompoundList], cwd: &mut Option<PathBuf>) {
        let mut moved = false;
        for b in branches {
            let mut own = cwd.clone();
            self.list(b, &mut own);
            moved |= own != *cwd;
        }
        if moved {
            *cwd = None;
        }
    }

    /// Walks the substitutions inside text that is not a command word
    /// (test expressions, arithmetic).
    fn substitutions_in(&mut self, text: &str, cwd: &Option<PathBuf>) {
        if let Ok(pieces) = word::parse(text, &ParserOptions::default()) {
            let mut own = cwd.clone();
            self.pieces(&pieces, &mut own);
        }
    }

    /// Walks the substitutions among word pieces; true when one downloads.
    fn pieces(&mut self, pieces: &[WordPieceWithSource], cwd: &mut Option<PathBuf>) -> bool {
        let mut download = false;
        for p in pieces {
            match &p.piece {
                WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                    download |= self.substitution(s, cwd);
                }
                WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    download |= self.pieces(inner, cwd);
                }
                _ => {}
            }
        }
        download
    }

    /// Walks `$(...)`; true when what it prints may come from a download.
    fn substitution(&mut self, script: &str, cwd: &Option<PathBuf>) -> bool {
        let before = self.downloads;
        self.script(script, &mut cwd.clone());
        self.downloads > before
    }

    /// Walks a process substitution's commands; true when it downloads.
    fn process_substitution(&mut self, list: &CompoundList, cwd: &Option<PathBuf>) -> bool {
        let before = self.downloads;
        self.list(list, &mut cwd.clone());
        self.downloads > before
    }

    /// The words `raw` becomes: brace expansion, quotes removed, `~` as
    /// home; unknown when a part of it is decided at run time.
    fn expand(&mut self, raw: &str, cwd: &Option<PathBuf>) -> Vec<Arg> {
        let Ok(pieces) = word::parse(raw, &ParserOptions::default()) else {
            return vec![Arg::unknown(raw)];
        };
        let mut w = Expansion {
            alternatives: vec![String::new()],
            unknown: false,
            split: false,
            download: false,
        };
        self.expand_pieces(&pieces, false, cwd, &mut w);
        // `${x@P}` expands x's value as a prompt, running its `$(...)`:
        // a value set at run time cannot be known.
        if raw.contains("@P}") {
            self.danger(format!(
                "`{raw}` runs what the variable's value substitutes (prompt expansion)"
            ));
        }
        // The parser keeps a parameter expansion's operands and an
        // arithmetic expression as text (`${x:-$(cmd)}`, `$((1+$(cmd)))`):
        // the substitutions in them run all the same.
        if (raw.contains("${") || raw.contains("$((") || raw.contains("$["))
            && (raw.contains("$(") || raw.contains('`'))
        {
            for script in embedded_substitutions(raw) {
                w.download |= self.substitution(&script, cwd);
            }
        }
        if w.unknown || w.alternatives.len() > MAX_BRACES {
            return vec![Arg::Unknown {
                raw: raw.to_string(),
                split: w.split || w.alternatives.len() > MAX_BRACES,
                download: w.download,
            }];
        }
        w.alternatives.into_iter().map(Arg::Known).collect()
    }

    fn expand_pieces(
        &mut self,
        pieces: &[WordPieceWithSource],
        quoted: bool,
        cwd: &Option<PathBuf>,
        w: &mut Expansion,
    ) {
        for p in pieces {
            match &p.piece {
                WordPiece::Text(t) if quoted => w.append(t),
                WordPiece::Text(t) => {
                    let options = braces(t);
                    w.multiply(&options);
                }
                WordPiece::SingleQuotedText(t) => w.append(t),
                WordPiece::AnsiCQuotedText(t) => w.append(&ansi_c(t)),
                WordPiece::EscapeSequence(e) => {
                    let c = e.strip_prefix('\\').unwrap_or(e);
                    if c != "\n" {
                        w.append(c);
                    }
                }
                WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.expand_pieces(inner, true, cwd, w);
                }
                WordPiece::TildeExpansion(t) => {
                    let known = match t {
                        TildeExpr::Home => self.places.home.as_ref().map(|h| h.display().to_string()),
                        TildeExpr::WorkingDir => cwd.as_ref().map(|c| c.display().to_string()),
                        _ => None,
                    };
                    match known {
                        Some(k) => w.append(&k),
                        None => w.unknown = true,
                    }
                }
                WordPiece::ParameterExpansion(_) | WordPiece::ArithmeticExpression(_) => {
                    w.unknown = true;
                    w.split |= !quoted;
                }
                WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                    w.download |= self.substitution(s, cwd);
                    w.unknown = true;
                    w.split |= !quoted;
                }
            }
        }
    }

    fn simple(&mut self, s: &SimpleCommand, cwd: &mut Option<PathBuf>, mut stdin: Stdin) -> bool {
        let mut argv = Vec::new();
        let prefix = s.prefix.iter().flat_map(|p| &p.0);
        for item in prefix {
            match item {
                // `X=$(...)` runs what it substitutes; the value itself is
                // only the command's environment.
                CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                    self.cd_elsewhere |= w.value.starts_with("CDPATH=");
                    let set = self.expand(&w.value, cwd);
                    self.command_settings(&set, cwd);
                }
                other => self.item(other, cwd, &mut stdin, &mut argv),
            }
        }
        if let Some(name) = &s.word_or_name {
            argv.extend(self.expand(&name.value, cwd));
        }
        for item in s.suffix.iter().flat_map(|p| &p.0) {
            self.item(item, cwd, &mut stdin, &mut argv);
        }
        if argv.is_empty() {
            return false;
        }
        self.invoke_with(argv, cwd, stdin)
    }

    fn item(
        &mut self,
        item: &CommandPrefixOrSuffixItem,
        cwd: &Option<PathBuf>,
        stdin: &mut Stdin,
        argv: &mut Vec<Arg>,
    ) {
        match item {
            CommandPrefixOrSuffixItem::Word(w) | CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                argv.extend(self.expand(&w.value, cwd));
            }
            CommandPrefixOrSuffixItem::IoRedirect(io) => self.redirect(io, cwd, stdin),
            CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                let download = self.process_substitution(&sub.list, cwd);
                argv.push(Arg::Unknown {
                    raw: format!("<({})", sub.list),
                    split: false,
                    download,
                });
            }
        }
    }

    fn redirect(&mut self, io: &IoRedirect, cwd: &Option<PathBuf>, stdin: &mut Stdin) {
        let reads_stdin = |fd: &Option<i32>| matches!(fd, None | Some(0));
        match io {
            IoRedirect::File(fd, kind, target) => match target {
                IoFileRedirectTarget::Filename(w) => {
                    let writes = matches!(
                        kind,
                        IoFileRedirectKind::Write
                            | IoFileRedirectKind::Append
                            | IoFileRedirectKind::Clobber
                            | IoFileRedirectKind::ReadAndWrite
                    );
                    // Expanded either way: a substitution in it runs.
                    let targets = self.expand(&w.value, cwd);
                    if writes {
                        self.writes(targets, cwd);
                    } else {
                        if reads_stdin(fd)
                            && let [Arg::Known(t)] = targets.as_slice()
                        {
                            stdin.file = Some((t.clone(), self.places.at(cwd, t, true)));
                        }
                        // What `sh < script` reads: a file it may run.
                        self.words.extend(targets.into_iter().map(|t| (t, cwd.clone())));
                    }
                }
                IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                    let download = self.process_substitution(&sub.list, cwd);
                    if matches!(kind, IoFileRedirectKind::Read) && reads_stdin(fd) {
                        stdin.download |= download;
                    }
                }
                // `>&name` with a name, not a descriptor, writes a file.
                IoFileRedirectTarget::Duplicate(w)
                    if matches!(kind, IoFileRedirectKind::DuplicateOutput)
                        && !w.value.chars().all(|c| c.is_ascii_digit() || c == '-') =>
                {
                    let targets = self.expand(&w.value, cwd);
                    self.writes(targets, cwd);
                }
                IoFileRedirectTarget::Duplicate(_) | IoFileRedirectTarget::Fd(_) => {}
            },
            IoRedirect::HereDocument(fd, doc) => {
                if doc.requires_expansion {
                    self.substitutions_in(&doc.doc.value, cwd);
                }
                if reads_stdin(fd) {
                    stdin.script = Some(doc.doc.value.clone());
                }
            }
            IoRedirect::HereString(fd, w) => {
                let words = self.expand(&w.value, cwd);
                if reads_stdin(fd) {
                    match words.as_slice() {
                        [Arg::Known(text)] => stdin.script = Some(text.clone()),
                        _ => stdin.download |= words.iter().any(|a| matches!(a, Arg::Unknown { download: true, .. })),
                    }
                }
            }
            IoRedirect::OutputAndError(w, _) => {
                let targets = self.expand(&w.value, cwd);
                self.writes(targets, cwd);
            }
        }
    }

    /// Runs `argv`, looking through programs that run other programs;
    /// true when the program is a download. Only a `cd` that is not
    /// wrapped moves `cwd`.
    fn invoke_with(&mut self, mut argv: Vec<Arg>, cwd: &mut Option<PathBuf>, mut stdin: Stdin) -> bool {
        let mut here = cwd.clone();
        let mut wrapped = false;
        loop {
            if !wrapped {
                self.words.extend(argv.iter().map(|a| (a.clone(), here.clone())));
            }
            self.lines.push((argv.clone(), here.clone()));
            let name = match argv.first() {
                None => return false,
                Some(Arg::Known(s)) => base(s).to_string(),
                Some(Arg::Unknown { raw, download, .. }) => {
                    let from = if *download { " (it comes from a download)" } else { "" };
                    self.danger(format!("cannot tell which program `{raw}` runs{from}"));
                    return false;
                }
            };
            let args = &argv[1..];
            if name == "shopt" && args.iter().any(|a| a.known() == Some("cdable_vars"))
                || matches!(name.as_str(), "export" | "declare" | "typeset" | "local" | "readonly")
                    && args.iter().any(|a| a.known().is_some_and(|w| w.starts_with("CDPATH=")))
            {
                self.cd_elsewhere = true;
            }
            // Where the wrapped program's words start, within `args`.
            let start = match name.as_str() {
                "cd" | "pushd" => {
                    let o = options(args, "", &[]);
                    let moved = match args.get(o.rest) {
                        None => self.places.home.clone(),
                        Some(Arg::Known(t)) if t == "-" => None,
                        // Through CDPATH or a variable's value, a bare name
                        // can lead anywhere.
                        Some(Arg::Known(t)) if self.cd_elsewhere && !t.starts_with(['/', '.', '~']) => None,
                        // A `cd` that fails leaves the shell where it was,
                        // and the commands after it run there: a target not
                        // known to exist makes the place unknown.
                        Some(Arg::Known(t)) => self.places.at(&here, t, true).filter(|p| p.is_dir()),
                        Some(Arg::Unknown { .. }) => None,
                    };
                    if !wrapped {
                        *cwd = moved;
                    }
                    return false;
                }
                "popd" => {
                    if !wrapped {
                        *cwd = None;
                    }
                    return false;
                }
                "sudo" => {
                    let o = options(
                        args,
                        "CDghpRrTtUu",
                        &[
                            "--chdir",
                            "--close-from",
                            "--group",
                            "--host",
                            "--prompt",
                            "--chroot",
                            "--role",
                            "--type",
                            "--command-timeout",
                            "--other-user",
                            "--user",
                        ],
                    );
                    if let Some(dir) = o.value(&["-D", "--chdir"]) {
                        here = dir.known().and_then(|d| self.places.at(&here, d, true));
                    }
                    if o.has("-e") || o.has("--edit") {
                        // sudoedit: every operand is a file it writes.
                        self.writes(args[o.rest..].to_vec(), &here);
                        return false;
                    }
                    let settings = skip_assignments(&args[o.rest..]);
                    self.command_settings(&args[o.rest..o.rest + settings], &here);
                    o.rest + settings
                }
                "doas" => options(args, "uC", &[]).rest,
                "env" => {
                    let o = options(args, "uCSP", &["--unset", "--chdir", "--split-string"]);
                    if let Some(dir) = o.value(&["-C", "--chdir"]) {
                        here = dir.known().and_then(|d| self.places.at(&here, d, true));
                    }
                    let settings = skip_assignments(&args[o.rest..]);
                    self.command_settings(&args[o.rest..o.rest + settings], &here);
                    let rest = o.rest + settings;
                    if let Some(split) = o.value(&["-S", "--split-string"]) {
                        let Some(text) = split.known() else {
                            self.danger(format!("`env -S` runs `{}`, which cannot be known", split.shown()));
                            return false;
                        };
                        let mut words: Vec<Arg> = text.split_whitespace().map(|w| Arg::Known(w.to_string())).collect();
                        words.extend_from_slice(&args[rest..]);
                        argv = words;
                        wrapped = true;
                        continue;
                    }
                    rest
                }
                "nice" => options(args, "n", &["--adjustment"]).rest,
                "time" => options(args, "fo", &["--format", "--output"]).rest,
                "stdbuf" => options(args, "ioe", &["--input", "--output", "--error"]).rest,
                "timeout" => options(args, "sk", &["--signal", "--kill-after"]).rest + 1,
                "ionice" => options(args, "cnpPu", &["--class", "--classdata", "--pid", "--pgid", "--uid"]).rest,
                "chrt" | "taskset" => options(args, "", &["--cpu-list"]).rest + 1,
                "chroot" => {
                    here = None;
                    options(args, "", &["--userspec", "--groups"]).rest + 1
                }
                "exec" => options(args, "a", &[]).rest,
                "command" => {
                    let o = options(args, "", &[]);
                    if o.has("-v") || o.has("-V") {
                        return false;
                    }
                    o.rest
                }
                "setsid" => options(args, "", &[]).rest,
                // Project runners run a program in the project's environment.
                "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" | "bundle" | "pnpm" | "yarn" | "npm" | "bun"
                    if runs_a_program(&name, args) =>
                {
                    let sub = options(args, "", &["--directory", "--project", "--prefix", "--cwd", "-C"]).rest;
                    let o = options(
                        &args[sub + 1..],
                        "pC",
                        &[
                            "--with",
                            "--with-requirements",
                            "--with-editable",
                            "--python",
                            "--package",
                            "--extra",
                            "--group",
                            "--env-file",
                            "--directory",
                            "--project",
                            "--index",
                            "--default-index",
                            "--index-url",
                            "--extra-index-url",
                            "--find-links",
                            "--filter",
                            "--workspace",
                            "--prefix",
                            "--cwd",
                            "--script",
                        ],
                    );
                    sub + 1 + o.rest
                }
                // Runners that run a package's program: `uvx rimraf ~`.
                "uvx" | "pipx" => {
                    let o = options(args, "", &["--from", "--with", "--python", "--spec", "--index-url"]);
                    let run = usize::from(name == "pipx" && args.get(o.rest).and_then(Arg::known) == Some("run"));
                    if name == "pipx" && run == 0 {
                        self.found.push(Found::Run(Run { argv, cwd: here }));
                        return false;
                    }
                    o.rest + run
                }
                // A container or a pod: the command runs there, where every
                // place is unknown (a mounted folder may be the user's home).
                "docker" | "podman" | "nerdctl" if inner_at(&name, args).is_some() => {
                    self.found.push(Found::Run(Run {
                        argv: argv.clone(),
                        cwd: here.clone(),
                    }));
                    here = None;
                    inner_at(&name, args).unwrap_or(args.len())
                }
                "kubectl" | "oc" if args.iter().any(|a| a.known() == Some("exec")) => {
                    here = None;
                    args.iter()
                        .position(|a| a.known() == Some("--"))
                        .map_or(args.len(), |i| i + 1)
                }
                // A remote host runs the words after the host as one
                // command line, in its shell.
                "ssh" => {
                    let o = options(args, "BbcDEeFIiJLlmOoPpQRSWw", &[]);
                    let words: Option<Vec<&str>> = args
                        .get(o.rest + 1..)
                        .unwrap_or_default()
                        .iter()
                        .map(Arg::known)
                        .collect();
                    match words {
                        Some(words) if !words.is_empty() => self.script(&words.join(" "), &mut None),
                        Some(_) => {}
                        None => self.danger("`ssh` runs a remote command that cannot be known".into()),
                    }
                    return false;
                }
                "script" => {
                    let o = options(
                        args,
                        "cEeIOT",
                        &[
                            "--command",
                            "--echo",
                            "--log-in",
                            "--log-out",
                            "--log-timing",
                            "--logging-format",
                        ],
                    );
                    if let Some(cmd) = o.value(&["-c", "--command"]) {
                        self.script_arg("script -c", &cmd.clone(), &here);
                    }
                    return false;
                }
                // `parallel CMD ::: ARGS`: the command with each argument.
                "parallel" => {
                    let o = options(
                        args,
                        "jSX",
                        &["--jobs", "--sshlogin", "--joblog", "--results", "--delay", "--timeout"],
                    );
                    let rest = &args[o.rest..];
                    let sep = rest
                        .iter()
                        .position(|a| matches!(a.known(), Some(":::" | "::::" | ":::+")));
                    let (cmd, inputs) = match sep {
                        Some(i) => (&rest[..i], &rest[i + 1..]),
                        None => (rest, &[][..]),
                    };
                    let unknown_input = || Arg::Unknown {
                        raw: "(an input of parallel)".into(),
                        split: true,
                        download: stdin.download,
                    };
                    let mut inner: Vec<Arg> = cmd.to_vec();
                    if inner.iter().any(|a| a.known().is_some_and(|s| s.contains("{}"))) {
                        for a in inner.iter_mut() {
                            if a.known().is_some_and(|s| s.contains("{}")) {
                                *a = unknown_input();
                            }
                        }
                    } else if inputs.is_empty() {
                        inner.push(unknown_input());
                    } else {
                        inner.extend(
                            inputs
                                .iter()
                                .filter(|a| !matches!(a.known(), Some(":::" | "::::" | ":::+")))
                                .cloned(),
                        );
                    }
                    argv = inner;
                    stdin = Stdin::default();
                    wrapped = true;
                    continue;
                }
                "chronic" | "systemd-run" | "unshare" | "firejail" | "proxychains" | "proxychains4" | "torsocks"
                | "xvfb-run" | "dbus-launch" | "catchsegv" => {
                    options(
                        args,
                        "",
                        &[
                            "--unit",
                            "--property",
                            "-p",
                            "--setenv",
                            "-E",
                            "--uid",
                            "--gid",
                            "--working-directory",
                            "--profile",
                            "-f",
                        ],
                    )
                    .rest
                }
                "strace" | "ltrace" => options(args, "abeEIoOpPsSuUX", &[]).rest,
                // Package runners run the package's program: `npx rimraf /`.
                "npx" | "bunx" | "pnpx" => options(args, "pc", &["--package", "--call"]).rest,
                "nohup" | "builtin" | "busybox" | "toybox" | "unbuffer" | "caffeinate" => options(args, "", &[]).rest,
                "flock" => {
                    let o = options(args, "wEc", &["--timeout", "--conflict-exit-code", "--command"]);
                    // `flock [options] file -c command` or `flock file program...`.
                    let after_file = args.get(o.rest + 1).and_then(Arg::known);
                    let script = o.value(&["-c", "--command"]).or_else(|| {
                        matches!(after_file, Some("-c" | "--command"))
                            .then(|| args.get(o.rest + 2))
                            .flatten()
                    });
                    if let Some(script) = script {
                        self.script_arg("flock -c", &script.clone(), &here);
                        return false;
                    }
                    o.rest + 1
                }
                "sudoedit" => {
                    let o = options(
                        args,
                        "CDghpRrTtUu",
                        &["--chdir", "--group", "--host", "--prompt", "--user"],
                    );
                    self.writes(args[o.rest..].to_vec(), &here);
                    return false;
                }
                "watch" | "su" | "runuser" => {
                    let o = options(
                        args,
                        "cgsGwn",
                        &["--command", "--group", "--shell", "--supp-group", "--interval"],
                    );
                    if name == "watch" {
                        self.command_words("watch", &args[o.rest..], &here);
                    } else if let Some(script) = o.value(&["-c", "--command"]) {
                        self.script_arg(&format!("{name} -c"), script, &here);
                    } else {
                        // `su - root -c CMD`: options may follow the user.
                        let at = args.iter().position(|a| matches!(a.known(), Some("-c" | "--command")));
                        let inline = args
                            .iter()
                            .find_map(|a| a.known().and_then(|s| s.strip_prefix("--command=")));
                        match (at.and_then(|i| args.get(i + 1)), inline) {
                            (Some(script), _) => self.script_arg(&format!("{name} -c"), script, &here),
                            (None, Some(script)) => {
                                self.script_arg(&format!("{name} -c"), &Arg::Known(script.to_string()), &here)
                            }
                            (None, None) => {}
                        }
                    }
                    return false;
                }
                "xargs" => {
                    let o = options(
                        args,
                        "adEILnPs",
                        &[
                            "--arg-file",
                            "--delimiter",
                            "--eof",
                            "--max-lines",
                            "--max-args",
                            "--max-procs",
                            "--max-chars",
                            "--process-slot-var",
                        ],
                    );
                    let replace = o
                        .value(&["-I", "--replace"])
                        .and_then(Arg::known)
                        .map(str::to_string)
                        .or_else(|| (o.has("-i") || o.has("--replace")).then(|| "{}".to_string()));
                    let input = |raw: &str, split| Arg::Unknown {
                        raw: raw.to_string(),
                        split,
                        download: stdin.download,
                    };
                    let mut cmd: Vec<Arg> = args[o.rest..].to_vec();
                    if cmd.is_empty() {
                        cmd.push(Arg::Known("echo".into()));
                    }
                    match &replace {
                        Some(r) => {
                            for a in cmd.iter_mut().skip(1) {
                                if let Arg::Known(s) = a
                                    && s.contains(r.as_str())
                                {
                                    *a = input(s, false);
                                }
                            }
                        }
                        None => cmd.push(input("(the input of xargs)", true)),
                    }
                    argv = cmd;
                    stdin = Stdin::default();
                    wrapped = true;
                    continue;
                }
                "eval" => {
                    let words: Option<Vec<&str>> = args.iter().map(Arg::known).collect();
                    match words {
                        Some(words) if !wrapped => self.script(&words.join(" "), cwd),
                        Some(words) => self.script(&words.join(" "), &mut here),
                        None => {
                            let raw: Vec<&str> = args.iter().map(Arg::shown).collect();
                            self.danger(format!("`eval` of text that cannot be known (`{}`)", raw.join(" ")));
                        }
                    }
                    return false;
                }
                "source" | "." => {
                    match args.first() {
                        Some(file) if is_stdin(file) && stdin.download => {
                            self.danger(format!("a download piped into `{name}` runs unreviewed code"));
                        }
                        Some(file) if is_stdin(file) => {
                            if let Some(text) = stdin.script.clone() {
                                self.script(&text, cwd);
                            }
                        }
                        Some(file) if file.known().is_none() => self.unknown_script(&name, file),
                        _ => {}
                    }
                    return false;
                }
                "trap" => {
                    // `trap 'CODE' SIGNAL...`: the code runs later, in this shell.
                    match args.iter().find(|a| a.known().is_none_or(|s| !s.starts_with('-'))) {
                        Some(Arg::Known(code)) if args.len() > 1 => self.script(&code.clone(), &mut here.clone()),
                        Some(code @ Arg::Unknown { .. }) if args.len() > 1 => {
                            self.danger(format!(
                                "`trap` runs `{}`, which cannot be known before it runs",
                                code.shown()
                            ));
                        }
                        _ => {}
                    }
                    return false;
                }
                "git" => {
                    self.git_config_commands(args, &here);
                    // `git submodule foreach CMD`: CMD runs in each
                    // submodule, through the shell.
                    if let Some(at) = args.iter().position(|a| a.known() == Some("foreach"))
                        && args[..at].iter().any(|a| a.known() == Some("submodule"))
                    {
                        let cmd = &args[at + 1..];
                        let skip = cmd
                            .iter()
                            .take_while(|a| matches!(a.known(), Some("--recursive" | "-q" | "--quiet")))
                            .count();
                        self.command_words("git submodule foreach", &cmd[skip..], &here);
                    }
                    self.found.push(Found::Run(Run { argv, cwd: here }));
                    return false;
                }
                "ln" => {
                    self.links_made(args, &here);
                    self.found.push(Found::Run(Run { argv, cwd: here }));
                    return false;
                }
                "find" => {
                    self.find(args, &here);
                    return false;
                }
                n if SHELLS.contains(&n) => {
                    self.shell(n, args, &here, &stdin);
                    return false;
                }
                n if INTERPRETERS.contains(&n) || n.starts_with("python3.") => {
                    self.interpreter(n, args, &stdin, &here);
                    // Its one-line program is judged too (`-c "shutil.rmtree(...)"`).
                    self.found.push(Found::Run(Run { argv, cwd: here }));
                    return false;
                }
                n => {
                    let download = DOWNLOADERS.contains(&n);
                    self.downloads += usize::from(download);
                    let mut argv = argv;
                    if reads_statements(n) {
                        // What it reads: a here-document, a file redirected
                        // in or named by its option (`psql -f`), read now.
                        let named = sql_file_option(n, &argv[1..]).map(|f| {
                            let at = self.places.at(&here, &f, true);
                            (f, at)
                        });
                        argv.extend(stdin.script.take().map(Arg::Known));
                        for (written, at) in [stdin.file.take(), named].into_iter().flatten() {
                            match read_sql(at.as_deref()) {
                                Ok(text) => argv.extend(text.map(Arg::Known)),
                                Err(why) => self
                                    .danger(format!("`{n}` runs the SQL of {written}, which cannot be read ({why})")),
                            }
                        }
                        // Its own escapes to the shell (`psql -c '\\! rm
                        // -rf ~'`, sqlite3's `.shell`) run commands here.
                        let escapes: Vec<String> = argv[1..]
                            .iter()
                            .filter_map(Arg::known)
                            .flat_map(shell_escapes)
                            .collect();
                        for line in escapes {
                            self.commands_if_any(&line, &here);
                        }
                    }
                    self.found.push(Found::Run(Run { argv, cwd: here }));
                    return download;
                }
            };
            argv = argv.get(1 + start..).map(<[Arg]>::to_vec).unwrap_or_default();
            wrapped = true;
        }
    }

    /// Words a program joins into one command line for the shell (`watch
    /// CMD`, `git submodule foreach CMD`): walked as a script in `cwd`; a
    /// word that cannot be known makes the call dangerous.
    fn command_words(&mut self, program: &str, words: &[Arg], cwd: &Option<PathBuf>) {
        match words.iter().map(Arg::known).collect::<Option<Vec<&str>>>() {
            Some(words) => self.script(&words.join(" "), &mut cwd.clone()),
            None => self.danger(format!("`{program}` runs a command that cannot be known")),
        }
    }

    /// `NAME=value` settings whose value a program later runs as a
    /// command (git's `GIT_SSH_COMMAND`, pagers, editors, `BASH_ENV`): the
    /// value is walked as a script; one that cannot be known is dangerous.
    fn command_settings(&mut self, settings: &[Arg], cwd: &Option<PathBuf>) {
        const RUN: &[&str] = &[
            "GIT_SSH_COMMAND",
            "GIT_SSH",
            "GIT_PAGER",
            "PAGER",
            "MANPAGER",
            "GIT_EDITOR",
            "GIT_SEQUENCE_EDITOR",
            "EDITOR",
            "VISUAL",
            "GIT_EXTERNAL_DIFF",
            "GIT_ASKPASS",
            "SSH_ASKPASS",
            "GIT_PROXY_COMMAND",
            "LESSOPEN",
            "LESSCLOSE",
            "BASH_ENV",
            "ENV",
            "PROMPT_COMMAND",
            "PS4",
        ];
        for s in settings {
            match s {
                Arg::Known(word) => {
                    if let Some((name, value)) = word.split_once('=')
                        && RUN.contains(&name)
                    {
                        // Walking a prompt (`PS4`) as a script finds what
                        // its `$(...)` runs; the others run the whole value.
                        self.script(value, &mut cwd.clone());
                    }
                }
                Arg::Unknown { raw, .. } => {
                    if let Some((name, _)) = raw.split_once('=')
                        && RUN.contains(&name)
                    {
                        self.danger(format!(
                            "`{raw}`: a command {name} runs that cannot be known before it runs"
                        ));
                    }
                }
            }
        }
    }

    /// `git -c key=value` with a key whose value git runs as a command
    /// (an alias starting with `!`, `core.sshCommand`, `core.pager`, ...).
    fn git_config_commands(&mut self, args: &[Arg], cwd: &Option<PathBuf>) {
        const RUN: &[&str] = &[
            "core.sshcommand",
            "core.pager",
            "core.editor",
            "core.fsmonitor",
            "core.askpass",
            "sequence.editor",
            "diff.external",
            "gpg.program",
        ];
        let mut i = 0;
        while i + 1 < args.len() {
            if args[i].known() == Some("-c") {
                match args[i + 1].known() {
                    Some(setting) => {
                        let (key, value) = setting.split_once('=').unwrap_or((setting, ""));
                        let key = key.to_ascii_lowercase();
                        // `filter.<driver>.clean`, `diff.<driver>.textconv`,
                        // `merge.<driver>.driver`: commands git runs too.
                        let driver = key.rsplit_once('.').is_some_and(|(section, leaf)| {
                            let section = section.split('.').next().unwrap_or("");
                            matches!(
                                (section, leaf),
                                ("filter", "clean" | "smudge" | "process")
                                    | ("diff", "textconv" | "command")
                                    | ("merge", "driver")
                            )
                        });
                        let script = if key.starts_with("alias.") || key.starts_with("credential.") {
                            value.strip_prefix('!')
                        } else {
                            (RUN.contains(&key.as_str()) || driver).then_some(value)
                        };
                        if let Some(script) = script {
                            self.script(script, &mut cwd.clone());
                        }
                    }
                    None => self.danger(format!(
                        "`git -c {}`: a setting that cannot be known may run a command",
                        args[i + 1].shown()
                    )),
                }
                i += 1;
            } else if args[i].known().is_some_and(|a| !a.starts_with('-')) {
                return;
            }
            i += 1;
        }
    }

    /// `ln -s target name`: the names it makes are symlinks, though they do
    /// not exist yet when the command is judged.
    fn links_made(&mut self, args: &[Arg], cwd: &Option<PathBuf>) {
        let symbolic = args
            .iter()
            .filter_map(Arg::known)
            .any(|a| a == "--symbolic" || (a.starts_with('-') && !a.starts_with("--") && a.contains('s')));
        let operands: Vec<&str> = args
            .iter()
            .filter_map(Arg::known)
            .filter(|a| !a.starts_with('-'))
            .collect();
        if !symbolic || operands.len() < 2 {
            return;
        }
        let name = operands[operands.len() - 1];
        let target = operands[operands.len() - 2];
        let Some(mut at) = self.places.at(cwd, name, false) else {
            return;
        };
        // `ln -s /etc dir/` makes `dir/etc`.
        if at.is_dir() || name.ends_with('/') {
            at.push(Path::new(target).file_name().unwrap_or_default());
        }
        self.links.push(at);
    }

    fn unknown_script(&mut self, program: &str, script: &Arg) {
        match script {
            Arg::Unknown { download: true, .. } => {
                self.danger(format!("a download run by `{program}` runs unreviewed code"));
            }
            _ => self.danger(format!(
                "`{program}` runs a script that cannot be known (`{}`)",
                script.shown()
            )),
        }
    }

    /// A script given as an argument (`sh -c`, `su -c`, `flock -c`).
    fn script_arg(&mut self, program: &str, script: &Arg, cwd: &Option<PathBuf>) {
        match script.known() {
            Some(text) => self.script(text, &mut cwd.clone()),
            None => self.unknown_script(program, script),
        }
    }

    /// A shell: its `-c` script, its script file, or what it reads.
    fn shell(&mut self, name: &str, args: &[Arg], cwd: &Option<PathBuf>, stdin: &Stdin) {
        let (mut inline, mut from_stdin) = (false, false);
        let mut i = 0;
        while let Some(a) = args.get(i).and_then(Arg::known) {
            if a == "--" || a == "-" {
                i += 1;
                break;
            }
            if a.starts_with("--") {
                if matches!(a, "--rcfile" | "--init-file") {
                    i += 1;
                }
            } else if a.len() > 1 && (a.starts_with('-') || a.starts_with('+')) {
                for c in a[1..].chars() {
                    match c {
                        'c' => inline = true,
                        's' => from_stdin = true,
                        'o' | 'O' => i += 1,
                        _ => {}
                    }
                }
            } else {
                break;
            }
            i += 1;
        }
        let operand = args.get(i);
        if inline {
            if let Some(script) = operand {
                self.script_arg(&format!("{name} -c"), script, cwd);
            }
            return;
        }
        match operand {
            Some(file) if !from_stdin && !is_stdin(file) => {
                if file.known().is_none() {
                    self.unknown_script(name, file);
                }
            }
            _ if stdin.download => {
                self.danger(format!("a download piped into `{name}` runs unreviewed code"));
            }
            _ => match &stdin.script {
                Some(text) => self.script(text, &mut cwd.clone()),
                // `... | base64 -d | sh`: a script made by the pipeline,
                // which cannot be known before it runs.
                None if stdin.piped => {
                    self.danger(format!(
                        "`{name}` runs a script piped into it, which cannot be known before it runs"
                    ));
                }
                None => {}
            },
        }
    }

    /// An interpreter that reads its program from a download.
    fn interpreter(&mut self, name: &str, args: &[Arg], stdin: &Stdin, cwd: &Option<PathBuf>) {
        let inline = args.iter().filter_map(Arg::known).any(|a| {
            matches!(a, "--eval" | "--print")
                || (a.starts_with('-') && !a.starts_with("--") && a[1..].contains(['c', 'e', 'm', 'E', 'r']))
        });
        // Its one-line program's calls to the shell run command lines
        // here: `python -c 'os.system("rm -rf ~")'`.
        let code = args.windows(2).find_map(|w| match w[0].known() {
            Some("-c" | "-e" | "-E" | "--eval" | "-p" | "--print" | "-r") => w[1].known(),
            _ => None,
        });
        for line in code.map(shell_outs).unwrap_or_default() {
            self.commands_if_any(&line, cwd);
        }
        let operand = args
            .iter()
            .find(|a| a.known().is_none_or(|s| !s.starts_with('-') || s == "-"));
        match operand {
            Some(script @ Arg::Unknown { download: true, .. }) => self.unknown_script(name, script),
            Some(file @ Arg::Known(_)) if !is_stdin(file) => {}
            _ if stdin.download && !inline => {
                self.danger(format!("a download piped into `{name}` runs unreviewed code"));
            }
            _ if stdin.piped && !inline => {
                self.danger(format!(
                    "`{name}` runs a program piped into it, which cannot be known before it runs"
                ));
            }
            _ => {}
        }
    }

    /// `find`: what `-delete` removes and what `-exec` runs.
    fn find(&mut self, args: &[Arg], cwd: &Option<PathBuf>) {
        let starts_at = args
            .iter()
            .position(|a| {
                a.known()
                    .is_some_and(|s| s.starts_with('-') || matches!(s, "(" | "!" | ","))
            })
            .unwrap_or(args.len());
        let mut starts: Vec<Arg> = args[..starts_at].to_vec();
        if starts.is_empty() {
            starts.push(Arg::Known(".".into()));
        }
        let whole = !find_narrows(&args[starts_at..]);
        let mut i = starts_at;
        while i < args.len() {
            match args[i].known() {
                Some("-delete") => {
                    for s in &starts {
                        self.found.push(Found::Delete {
                            target: s.clone(),
                            cwd: cwd.clone(),
                            by: "find -delete",
                            whole,
                        });
                    }
                }
                Some(action @ ("-exec" | "-execdir" | "-ok" | "-okdir")) => {
                    let end = args[i + 1..]
                        .iter()
                        .position(|a| matches!(a.known(), Some(";" | "+")))
                        .map_or(args.len(), |e| i + 1 + e);
                    let cmd = &args[i + 1..end];
                    // `-exec rm {}` on everything found empties the start.
                    let removes = cmd.first().and_then(Arg::known).is_some_and(|p| base(p) == "rm");
                    for s in starts.iter().filter(|_| whole && removes) {
                        self.found.push(Found::Delete {
                            target: s.clone(),
                            cwd: cwd.clone(),
                            by: "find -exec rm",
                            whole,
                        });
                    }
                    for s in &starts {
                        // `{}` is something under the starting point.
                        let found = s.known().map(|s| format!("{}/…", s.trim_end_matches('/')));
                        let argv = cmd
                            .iter()
                            .map(|a| match (a, &found) {
                                (Arg::Known(w), Some(f)) if w.contains("{}") => Arg::Known(w.replace("{}", f)),
                                (Arg::Known(w), None) if w.contains("{}") => Arg::unknown(w),
                                _ => a.clone(),
                            })
                            .collect();
                        // -execdir runs in the found thing's folder.
                        let mut at = if action.ends_with("dir") {
                            found.as_ref().and_then(|f| self.places.at(cwd, f, true))
                        } else {
                            cwd.clone()
                        };
                        self.invoke_with(argv, &mut at, Stdin::default());
                    }
                    i = end;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

/// Whether a `find` expression tests what it finds (`-name`, `-type`,
/// `-newer`, ...) rather than taking everything under its starting points:
/// options, actions and operators narrow nothing.
fn find_narrows(expr: &[Arg]) -> bool {
    const TAKES_ALL: &[&str] = &[
        "-delete",
        "-depth",
        "-d",
        "-xdev",
        "-mount",
        "-print",
        "-print0",
        "-follow",
        "-noleaf",
        "-daystart",
        "-ignore_readdir_race",
        "-noignore_readdir_race",
        "-true",
        "-ls",
        "-warn",
        "-nowarn",
        "(",
        ")",
        "!",
        ",",
        "-a",
        "-and",
        "-o",
        "-or",
        "-not",
    ];
    const VALUED: &[&str] = &["-maxdepth", "-mindepth", "-regextype", "-files0-from"];
    let mut i = 0;
    while i < expr.len() {
        match expr[i].known() {
            Some("-exec" | "-execdir" | "-ok" | "-okdir") => {
                // Skip the command to its `;` or `+`.
                i += expr[i + 1..]
                    .iter()
                    .position(|a| matches!(a.known(), Some(";" | "+")))
                    .map_or(expr.len(), |e| e + 1);
            }
            Some(v) if VALUED.contains(&v) => i += 1,
            Some(w) if TAKES_ALL.contains(&w) => {}
            // A word that cannot be known may be nothing at all (`$X`
            // empty): only a known test narrows.
            None => {}
            Some(_) => return true,
        }
        i += 1;
    }
    false
}

/// A word being expanded: its alternatives so far (brace expansion).
struct Expansion {
    alternatives: Vec<String>,
    unknown: bool,
    split: bool,
    download: bool,
}

impl Expansion {
    fn append(&mut self, s: &str) {
        for a in &mut self.alternatives {
            a.push_str(s);
        }
    }

    fn multiply(&mut self, options: &[String]) {
        if let [one] = options {
            self.append(one);
            return;
        }
        let mut next = Vec::with_capacity(self.alternatives.len() * options.len());
        for a in &self.alternatives {
            for o in options {
                next.push(format!("{a}{o}"));
                if next.len() > MAX_BRACES {
                    self.alternatives = next;
                    return;
                }
            }
        }
        self.alternatives = next;
    }
}

/// Bash brace expansion of unquoted text: `a{b,c}d` is `abd acd`,
/// `{1..3}` is `1 2 3`. Text without a complete brace list is itself.
pub(super) fn braces(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let Some(open) = text.find('{') else {
        return vec![text.to_string()];
    };
    let mut depth = 0;
    let mut commas = Vec::new();
    let mut close = None;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            b',' if depth == 1 => commas.push(i),
            _ => {}
        }
    }
    let Some(close) = close else {
        return vec![text.to_string()];
    };
    let (head, body, tail) = (&text[..open], &text[open + 1..close], &text[close + 1..]);
    let members: Vec<String> = if commas.is_empty() {
        match sequence(body) {
            Some(seq) => seq,
            None => {
                // Not a list: the braces are literal; expand what follows.
                return braces(tail)
                    .into_iter()
                    .map(|t| format!("{head}{{{body}}}{t}"))
                    .collect();
            }
        }
    } else {
        let mut parts = Vec::new();
        let mut from = open + 1;
        for &c in &commas {
            parts.push(text[from..c].to_string());
            from = c + 1;
        }
        parts.push(text[from..close].to_string());
        parts.iter().flat_map(|p| braces(p)).collect()
    };
    let tails = braces(tail);
    let mut out = Vec::new();
    for m in &members {
        for t in &tails {
            out.push(format!("{head}{m}{t}"));
            if out.len() > MAX_BRACES {
                return out;
            }
        }
    }
    out
}

/// `1..5`, `a..e` (a step is ignored: the ends and what lies between).
fn sequence(body: &str) -> Option<Vec<String>> {
    let mut parts = body.split("..");
    let (a, b) = (parts.next()?, parts.next()?);
    if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        let (lo, hi) = (x.min(y), x.max(y));
        return Some((lo..=hi).take(MAX_BRACES + 1).map(|n| n.to_string()).collect());
    }
    let (mut x, mut y) = (a.chars(), b.chars());
    match (x.next(), x.next(), y.next(), y.next()) {
        (Some(x), None, Some(y), None) => {
            let (lo, hi) = (x.min(y), x.max(y));
            Some((lo..=hi).map(String::from).collect())
        }
        _ => None,
    }
}

/// The text of `$'...'` with its escapes decoded (the common ones).
fn ansi_c(body: &str) -> String {
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('x') => {
                let hex: String = std::iter::from_fn(|| chars.next_if(char::is_ascii_hexdigit))
                    .take(2)
                    .collect();
                if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(c);
                }
            }
            Some(d @ '0'..='7') => {
                let mut oct = d.to_string();
                oct.extend(std::iter::from_fn(|| chars.next_if(|c| ('0'..='7').contains(c))).take(2));
                if let Some(c) = u32::from_str_radix(&oct, 8).ok().and_then(char::from_u32) {
                    out.push(c);
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}
