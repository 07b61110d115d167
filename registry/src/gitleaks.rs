//! gitleaks rule files, for `security_scan`'s `rules_file`: a user's own
//! secret formats in the format teams already keep them in
//! (`.gitleaks.toml`: `[[rules]]` with `id`, `regex`, `secretGroup`,
//! `entropy`, `keywords`, and allowlists of `regexes` and `stopwords`).
//!
//! A rules file only adds: its allowlists apply to its own rules, never to
//! the built-in ones, so a file a project ships cannot hide a secret the
//! built-in rules find. Rules that match file paths only (no `regex`) have
//! nothing to match in a tool call and are reported as skipped.

use std::path::Path;

use regex::Regex;
use serde::Deserialize;
use toml::Spanned;

/// One rule, compiled.
#[derive(Debug, Clone)]
pub struct SecretRule {
    /// What it finds, as shown in `***REDACTED:id***`.
    pub id: String,
    /// The pattern.
    pub regex: Regex,
    /// The capture group that is the secret (`None`: the first group that
    /// took part, else the whole match, as gitleaks does).
    pub secret_group: Option<usize>,
    /// Bits of entropy per character the secret must reach (0: none).
    pub entropy: f64,
    /// Words, one of which must occur (any case) for the rule to run;
    /// lower-cased. Empty: always runs.
    pub keywords: Vec<String>,
    /// What makes a finding of this rule no secret.
    pub allow: Vec<Allow>,
}

/// An allowlist of a rule (or the file's, for all its rules).
#[derive(Debug, Clone, Default)]
pub struct Allow {
    /// Patterns that clear a finding when they match its target.
    pub regexes: Vec<Regex>,
    /// What the regexes are matched against.
    pub target: Target,
    /// Words that clear a finding whose secret contains one (any case);
    /// lower-cased.
    pub stopwords: Vec<String>,
}

/// What an allowlist's regexes look at (`regexTarget`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Target {
    /// The secret (gitleaks' default).
    #[default]
    Secret,
    /// The whole match.
    Match,
    /// The line the match is on.
    Line,
}

/// A rules file read: its rules, and what was left out and why.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The rules.
    pub rules: Vec<SecretRule>,
    /// Rules skipped, each with `file:line:column` and why.
    pub skipped: Vec<String>,
}

#[derive(Deserialize)]
struct RawFile {
    #[serde(default)]
    rules: Vec<RawRule>,
    allowlist: Option<RawAllow>,
    #[serde(default)]
    allowlists: Vec<RawAllow>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawRule {
    id: Spanned<String>,
    regex: Option<Spanned<String>>,
    secret_group: Option<usize>,
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
    allowlist: Option<RawAllow>,
    #[serde(default)]
    allowlists: Vec<RawAllow>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawAllow {
    #[serde(default)]
    regexes: Vec<Spanned<String>>,
    regex_target: Option<Spanned<String>>,
    #[serde(default)]
    stopwords: Vec<String>,
}

/// A rules file as one load read it: what a built-in is started from, and
/// what tells a later load that it changed. Two reads are equal when they
/// read the same bytes from the same path.
#[derive(Debug, Clone)]
pub struct RulesFile {
    /// Where it is (resolved).
    pub path: std::path::PathBuf,
    /// SHA-256 of what was read (empty when nothing could be).
    pub digest: String,
    /// Its rules, or why they cannot be used.
    pub loaded: Result<std::sync::Arc<Loaded>, String>,
}

impl PartialEq for RulesFile {
    fn eq(&self, other: &RulesFile) -> bool {
        self.path == other.path && self.digest == other.digest
    }
}

impl RulesFile {
    /// Reads and parses the file at `path`, once. An error names the file,
    /// the line and column, and the field.
    pub fn read(path: &Path) -> RulesFile {
        let (digest, loaded) = match crate::read_settings(path) {
            Ok(bytes) => {
                let digest = crate::sha256_hex(&bytes);
                let loaded = String::from_utf8(bytes)
                    .map_err(|_| format!("{}: not UTF-8 text", path.display()))
                    .and_then(|text| parse(path, &text));
                (digest, loaded)
            }
            Err(e) => (String::new(), Err(format!("{}: {e}", path.display()))),
        };
        RulesFile {
            path: path.to_path_buf(),
            digest,
            loaded: loaded.map(std::sync::Arc::new),
        }
    }
}

/// The rules in a rules file's text; `path` names it in messages.
pub fn parse(path: &Path, text: &str) -> Result<Loaded, String> {
    let at = |offset: usize| {
        let (line, column) = crate::toml::line_col(text, offset);
        format!("{}:{line}:{column}", path.display())
    };
    let raw: RawFile = ::toml::from_str(text).map_err(|e| {
        let place = e.span().map_or_else(|| at(0), |s| at(s.start));
        format!("{place}: invalid gitleaks rules: {}", e.message().trim())
    })?;
    let compile = |field: &str, s: &Spanned<String>| {
        Regex::new(s.get_ref()).map_err(|e| {
            let why = e.to_string();
            let why = why.lines().last().unwrap_or("").trim().to_string();
            format!("{}: {field}: invalid regex: {why}", at(s.span().start))
        })
    };
    let allow = |raw: &RawAllow, field: &str| -> Result<Allow, String> {
        let target = match raw.regex_target.as_ref().map(|t| t.get_ref().as_str()) {
            None | Some("secret") => Target::Secret,
            Some("match") => Target::Match,
            Some("line") => Target::Line,
            Some(other) => {
                let span = raw.regex_target.as_ref().map_or(0, |t| t.span().start);
                return Err(format!(
                    "{}: {field}.regexTarget: expected \"secret\", \"match\" or \"line\", found \"{other}\"",
                    at(span)
                ));
            }
        };
        Ok(Allow {
            regexes: raw
                .regexes
                .iter()
                .map(|r| compile(&format!("{field}.regexes"), r))
                .collect::<Result<_, _>>()?,
            target,
            stopwords: raw.stopwords.iter().map(|w| w.to_lowercase()).collect(),
        })
    };
    let mut shared = Vec::new();
    for a in raw.allowlist.iter().chain(&raw.allowlists) {
        shared.push(allow(a, "allowlist")?);
    }
    let mut out = Loaded::default();
    for (i, r) in raw.rules.iter().enumerate() {
        let field = format!("rules[{i}]");
        let id = r.id.get_ref().trim();
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)) {
            return Err(format!(
                "{}: {field}.id: expected letters, digits, '_', '-' or '.', found \"{id}\"",
                at(r.id.span().start)
            ));
        }
        let Some(regex) = &r.regex else {
            out.skipped.push(format!(
                "{}: rule \"{id}\" has no regex (a rule on file paths only has nothing to match in a tool call)",
                at(r.id.span().start)
            ));
            continue;
        };
        let compiled = compile(&format!("{field}.regex"), regex)?;
        if let Some(g) = r.secret_group
            && g >= compiled.captures_len()
        {
            return Err(format!(
                "{}: {field}.secretGroup: the regex has {} group(s), not {g}",
                at(regex.span().start),
                compiled.captures_len() - 1
            ));
        }
        let mut allows = shared.clone();
        for a in r.allowlist.iter().chain(&r.allowlists) {
            allows.push(allow(a, &format!("{field}.allowlist"))?);
        }
        out.rules.push(SecretRule {
            id: id.to_string(),
            regex: compiled,
            secret_group: r.secret_group,
            entropy: r.entropy.unwrap_or(0.0),
            keywords: r.keywords.iter().map(|k| k.to_lowercase()).collect(),
            allow: allows,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rules_and_names_the_line_of_a_bad_one() {
        let text = r#"
title = "ours"

[[rules]]
id = "acme-token"
regex = '''acme_([a-z0-9]{24})'''
secretGroup = 1
keywords = ["ACME_"]
[rules.allowlist]
stopwords = ["EXAMPLE"]

[[rules]]
id = "secrets-dir"
path = '''secrets/'''
"#;
        let loaded = parse(Path::new("g.toml"), text).unwrap();
        assert_eq!(loaded.rules.len(), 1);
        let r = &loaded.rules[0];
        assert_eq!(
            (r.id.as_str(), r.secret_group, r.keywords.as_slice()),
            ("acme-token", Some(1), &["acme_".to_string()][..])
        );
        assert_eq!(r.allow[0].stopwords, ["example"]);
        assert_eq!(loaded.skipped.len(), 1);
        assert!(loaded.skipped[0].starts_with("g.toml:13:"), "{:?}", loaded.skipped);

        let bad = "[[rules]]\nid = \"x\"\nregex = '''(unclosed'''\n";
        let e = parse(Path::new("g.toml"), bad).unwrap_err();
        assert!(e.starts_with("g.toml:3:9: rules[0].regex: invalid regex"), "{e}");
        let e = parse(Path::new("g.toml"), "[[rules]]\nid = 3\n").unwrap_err();
        assert!(e.starts_with("g.toml:2:"), "{e}");
        let e = parse(
            Path::new("g.toml"),
            "[[rules]]\nid = \"x\"\nregex = 'a(b)'\nsecretGroup = 2\n",
        )
        .unwrap_err();
        assert!(e.contains("secretGroup: the regex has 1 group(s), not 2"), "{e}");
    }
}
