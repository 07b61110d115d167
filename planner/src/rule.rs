//! Claude Code's `if` on a handler: one permission rule (`Bash(git *)`,
//! `Edit(*.ts)`, `WebFetch(domain:example.com)`), compiled once, tested
//! against a tool call after the group's matcher chose the hook.
//!
//! Claude Code documents the rule as best-effort and errs towards running
//! the hook: a Bash command it cannot take apart, or one whose words come
//! from `$VAR`, `$(...)` or backticks, runs the hook whenever the rule says
//! more than the command's name. hookshot does the same, so a guard behind
//! an `if` is never skipped on a command it could not read.

use globset::{GlobBuilder, GlobMatcher};
use hookshot_core::ToolRule;
use regex::Regex;

/// A rule ready to test.
#[derive(Debug, Clone)]
pub struct CompiledRule {
    tool: String,
    test: Test,
}

#[derive(Debug, Clone)]
enum Test {
    /// Every call of the tool.
    Any,
    /// A shell command: each subcommand against the pattern. `name_only`:
    /// the pattern names the command and nothing more (`rm *`).
    Shell { pattern: Regex, name_only: bool },
    /// A file path, gitignore-style, relative patterns from the working
    /// directory (`src/**`), ones without `/` at any depth (`*.ts`).
    Path { glob: GlobMatcher, relative: bool },
    /// A URL whose host is this domain or under it.
    Domain(String),
    /// The tool's main argument against a glob.
    Argument(GlobMatcher),
    /// A regular expression found anywhere in the tool's main argument
    /// (Cursor's matcher of its shell events, on the whole command).
    Search(Regex),
}

const SHELL_TOOLS: &[&str] = &["Bash", "run_shell_command", "shell", "Shell", "PowerShell"];
const PATH_TOOLS: &[&str] = &[
    "Edit",
    "Write",
    "Read",
    "MultiEdit",
    "NotebookEdit",
    "Glob",
    "Grep",
    "write_file",
    "read_file",
    "replace",
    "edit_file",
    "create_file",
];

impl CompiledRule {
    /// Compiles `rule`; the registry checked its syntax already.
    pub fn new(rule: &ToolRule) -> Result<CompiledRule, String> {
        let tool = rule.tool.clone();
        let Some(p) = rule.pattern.as_deref() else {
            return Ok(CompiledRule { tool, test: Test::Any });
        };
        if rule.regex {
            let test = Test::Search(Regex::new(p).map_err(|e| e.to_string())?);
            return Ok(CompiledRule { tool, test });
        }
        // `npm run test:*` is the older spelling of `npm run test *`.
        let p = match p.strip_suffix(":*") {
            Some(head) => format!("{head} *"),
            None => p.to_string(),
        };
        let test = if SHELL_TOOLS.contains(&tool.as_str()) {
            let head = p.trim_end_matches('*').trim_end();
            let name_only = !head.contains(char::is_whitespace);
            Test::Shell {
                pattern: shell_pattern(&p)?,
                name_only,
            }
        } else if PATH_TOOLS.contains(&tool.as_str()) {
            let (glob, relative) = if let Some(abs) = p.strip_prefix("//") {
                (format!("/{abs}"), false)
            } else if let Some(rest) = p.strip_prefix("~/") {
                // Without a home only a path written with `~` itself matches.
                match hookshot_core::paths::home() {
                    Some(h) => (format!("{}/{rest}", h.display()), false),
                    None => (p.clone(), false),
                }
            } else if !p.trim_start_matches("./").contains('/') {
                (format!("**/{}", p.trim_start_matches("./")), false)
            } else {
                (p.trim_start_matches("./").trim_start_matches('/').to_string(), true)
            };
            let glob = GlobBuilder::new(&glob)
                .literal_separator(true)
                .build()
                .map_err(|e| e.to_string())?
                .compile_matcher();
            Test::Path { glob, relative }
        } else if let Some(domain) = p.strip_prefix("domain:") {
            Test::Domain(domain.to_ascii_lowercase())
        } else {
            Test::Argument(
                GlobBuilder::new(&p)
                    .build()
                    .map_err(|e| e.to_string())?
                    .compile_matcher(),
            )
        };
        Ok(CompiledRule { tool, test })
    }

    /// Whether a call of `tool` with main argument `argument` (the command,
    /// the file path, the URL), made in `cwd`, matches.
    pub fn matches(&self, tool: Option<&str>, argument: Option<&str>, cwd: Option<&str>) -> bool {
        // `Bash(git *)` holds for gemini's run_shell_command too.
        if !tool.is_some_and(|t| hookshot_core::tools::same_tool(t, &self.tool)) {
            return false;
        }
        let Some(arg) = argument else {
            return matches!(self.test, Test::Any);
        };
        match &self.test {
            Test::Any => true,
            Test::Shell { pattern, name_only } => match subcommands(arg) {
                None => true,
                Some((subs, dynamic)) => subs.iter().any(|s| pattern.is_match(s)) || dynamic && !name_only,
            },
            Test::Path { glob, relative } => {
                if *relative {
                    let cwd = cwd.unwrap_or("");
                    let rel = arg
                        .strip_prefix(cwd)
                        .map(|r| r.trim_start_matches('/'))
                        .filter(|_| !cwd.is_empty())
                        .unwrap_or(arg);
                    glob.is_match(rel)
                } else {
                    glob.is_match(arg)
                }
            }
            Test::Domain(d) => host_of(arg).is_some_and(|h| h == *d || h.ends_with(&format!(".{d}"))),
            Test::Argument(g) => g.is_match(arg),
            Test::Search(r) => r.is_match(arg),
        }
    }
}

/// `git *` as a whole-subcommand regex: `*` is any text, and a trailing
/// ` *` also admits the bare command (`git`).
fn shell_pattern(p: &str) -> Result<Regex, String> {
    let (body, optional_tail) = match p.strip_suffix(" *") {
        Some(b) => (b, true),
        None => (p, false),
    };
    let mut re = String::from("^");
    for part in body.split('*').enumerate() {
        if part.0 > 0 {
            re.push_str(".*");
        }
        re.push_str(&regex::escape(part.1));
    }
    if optional_tail {
        re.push_str("(?:\\s.*)?");
    }
    re.push('$');
    Regex::new(&re).map_err(|e| e.to_string())
}

fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    let host = host.split(':').next()?;
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// The simple commands of a shell command line, each with its leading
/// `VAR=value` words removed, including those inside `$(...)` and
/// backticks; and whether any word is computed (`$VAR`, substitutions).
/// `None` when the line cannot be taken apart (an unclosed quote or
/// substitution).
pub fn subcommands(line: &str) -> Option<(Vec<String>, bool)> {
    let mut out = Vec::new();
    let mut dynamic = false;
    split_into(line, &mut out, &mut dynamic, 0)?;
    let subs = out
        .into_iter()
        .map(|s| strip_assignments(&s))
        .filter(|s| !s.is_empty())
        .collect();
    Some((subs, dynamic))
}

fn split_into(line: &str, out: &mut Vec<String>, dynamic: &mut bool, depth: usize) -> Option<()> {
    if depth > 16 {
        return None;
    }
    let chars: Vec<char> = line.chars().collect();
    let mut cur = String::new();
    let mut i = 0;
    let (mut single, mut double) = (false, false);
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if !single => {
                cur.push(c);
                if let Some(n) = chars.get(i + 1) {
                    cur.push(*n);
                }
                i += 2;
                continue;
            }
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '$' if !single && chars.get(i + 1) == Some(&'(') => {
                *dynamic = true;
                let end = closing(&chars, i + 1)?;
                let inner: String = chars[i + 2..end].iter().collect();
                split_into(&inner, out, dynamic, depth + 1)?;
                cur.extend(&chars[i..=end]);
                i = end + 1;
                continue;
            }
            '`' if !single => {
                *dynamic = true;
                let end = i + 1 + chars[i + 1..].iter().position(|&x| x == '`')?;
                let inner: String = chars[i + 1..end].iter().collect();
                split_into(&inner, out, dynamic, depth + 1)?;
                cur.extend(&chars[i..=end]);
                i = end + 1;
                continue;
            }
            '$' if !single
                && chars
                    .get(i + 1)
                    .is_some_and(|n| n.is_ascii_alphanumeric() || matches!(n, '_' | '{')) =>
            {
                *dynamic = true;
            }
            ';' | '&' | '|' | '\n' | '(' | ')' if !single && !double => {
                out.push(std::mem::take(&mut cur));
                i += 1;
                continue;
            }
            _ => {}
        }
        cur.push(c);
        i += 1;
    }
    if single || double {
        return None;
    }
    out.push(cur);
    Some(())
}

/// The index of the `)` closing the `(` at `open`, quotes respected.
fn closing(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0;
    let (mut single, mut double) = (false, false);
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' if !single => i += 1,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '(' if !single && !double => depth += 1,
            ')' if !single && !double => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn strip_assignments(cmd: &str) -> String {
    let mut rest = cmd.trim();
    loop {
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..word_end];
        let is_assignment = word
            .split_once('=')
            .is_some_and(|(name, _)| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        if !is_assignment || word_end == rest.len() && word.is_empty() {
            return rest.to_string();
        }
        rest = rest[word_end..].trim_start();
        if rest.is_empty() {
            return String::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(tool: &str, pattern: &str) -> CompiledRule {
        CompiledRule::new(&ToolRule {
            tool: tool.into(),
            pattern: Some(pattern.into()),
            regex: false,
        })
        .unwrap()
    }

    /// Cursor's matcher of `beforeShellExecution` searches the whole
    /// command, for gemini-cli's shell tool too.
    #[test]
    fn a_regex_rule_searches_the_main_argument() {
        let r = CompiledRule::new(&ToolRule {
            tool: "Bash".into(),
            pattern: Some("git\\s+push|^rm ".into()),
            regex: true,
        })
        .unwrap();
        assert!(r.matches(Some("Bash"), Some("cd x && git  push origin"), None));
        assert!(r.matches(Some("run_shell_command"), Some("rm -rf b"), None));
        assert!(!r.matches(Some("Bash"), Some("echo rm x"), None));
        assert!(!r.matches(Some("Write"), Some("git push"), None));
    }

    /// The table from Claude Code's hooks reference ("Bash `if` matching").
    #[test]
    fn claude_bash_table() {
        let bash = |p: &str, cmd: &str| rule("Bash", p).matches(Some("Bash"), Some(cmd), None);
        assert!(bash("git *", "FOO=bar git push"));
        assert!(bash("git *", "npm test && git push"));
        assert!(bash("rm *", "echo $(rm -rf /)"));
        assert!(bash("rm *", "echo `rm -rf /`"));
        assert!(!bash("rm *", "echo $(date)"));
        assert!(bash("git push *", "echo $(date)"));
        assert!(!bash("git *", "npm test"));
        assert!(!bash("ls *", "lsof"));
        assert!(bash("ls *", "ls"));
        assert!(bash("npm run test:*", "npm run test --watch"));
        // Cannot be taken apart: the hook runs.
        assert!(bash("git *", "echo 'unclosed"));
        assert!(!rule("Bash", "rm *").matches(Some("Write"), Some("rm -rf /"), None));
    }

    #[test]
    fn file_rules() {
        let edit = |p: &str, path: &str| rule("Edit", p).matches(Some("Edit"), Some(path), Some("/proj"));
        assert!(edit("*.ts", "/proj/src/deep/a.ts"));
        assert!(!edit("*.ts", "/proj/src/a.js"));
        assert!(edit("src/**", "/proj/src/a/b.rs"));
        assert!(!edit("src/**", "/proj/lib/src/b.rs"));
        assert!(edit("**/src/**", "/proj/lib/src/b.rs"));
        assert!(edit("//etc/**", "/etc/passwd"));
    }

    #[test]
    fn domains() {
        let r = rule("WebFetch", "domain:example.com");
        assert!(r.matches(Some("WebFetch"), Some("https://docs.example.com/x"), None));
        assert!(r.matches(Some("WebFetch"), Some("https://user@example.com:8080/"), None));
        assert!(!r.matches(Some("WebFetch"), Some("https://example.com.evil.io/"), None));
    }
}
