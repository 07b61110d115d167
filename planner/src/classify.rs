//! Most matchers written as regexes are literals in disguise: `write_file`
//! (a substring, since gemini's regexes are unanchored), `Edit|Write`,
//! `^mcp__srv7__.*` (a prefix), `.*_file$` (a suffix). Each becomes a probe
//! that a hash map or one Aho-Corasick automaton answers; only what is not a
//! literal stays a regex. A `RegexSet` of thousands of patterns falls off
//! the regex crate's fast paths, and planning would cost milliseconds.

/// How one matcher alternative tests a target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// Any target.
    Any,
    /// The target equals the text.
    Exact(String),
    /// The target starts with the text.
    Prefix(String),
    /// The target ends with the text.
    Suffix(String),
    /// The target contains the text.
    Contains(String),
}

/// A literal's text if `s` is one (letters, digits and safe punctuation,
/// or escaped punctuation); `None` if it has regex syntax.
fn literal(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e) if e.is_ascii_punctuation() => out.push(e),
                _ => return None,
            },
            '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '^' | '$' | '|' => return None,
            c if c.is_alphanumeric()
                || matches!(
                    c,
                    '_' | '-'
                        | ':'
                        | '/'
                        | '@'
                        | '='
                        | ','
                        | ' '
                        | '#'
                        | '%'
                        | '&'
                        | '~'
                        | '!'
                        | '<'
                        | '>'
                        | '\''
                        | '"'
                        | ';'
                ) =>
            {
                out.push(c)
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Splits at top-level `|`, or `None` if the pattern has groups or classes
/// (where a `|` may not be top level).
fn alternatives(p: &str) -> Option<Vec<&str>> {
    if p.contains(['(', ')', '[', ']']) {
        return None;
    }
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = p.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'|' => {
                out.push(&p[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&p[start..]);
    Some(out)
}

/// The probes equivalent to regex `pattern`, or `None` if it needs the regex
/// engine. `full` means the whole target must match (Claude's rule);
/// otherwise a match anywhere counts (gemini's rule).
pub fn probes(pattern: &str, full: bool) -> Option<Vec<Probe>> {
    let mut out = Vec::new();
    for alt in alternatives(pattern)? {
        let mut a = alt;
        let mut start = full;
        let mut end = full;
        if let Some(rest) = a.strip_prefix('^') {
            a = rest;
            start = true;
        }
        if a.ends_with('$') && !a.ends_with("\\$") {
            a = &a[..a.len() - 1];
            end = true;
        }
        // `.*` at an edge unanchors that edge (after ^ or before $ too).
        if let Some(rest) = a.strip_prefix(".*") {
            a = rest;
            start = false;
        }
        if a.ends_with(".*") && !a.ends_with("\\.*") {
            a = &a[..a.len() - 2];
            end = false;
        }
        let lit = literal(a)?;
        out.push(match (start, end) {
            _ if lit.is_empty() && !(start && end) => Probe::Any,
            (true, true) => Probe::Exact(lit),
            (true, false) => Probe::Prefix(lit),
            (false, true) => Probe::Suffix(lit),
            (false, false) => Probe::Contains(lit),
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<Vec<Probe>> {
        probes(s, false)
    }

    #[test]
    fn literals_and_anchors() {
        assert_eq!(p("write_file"), Some(vec![Probe::Contains("write_file".into())]));
        assert_eq!(p("^write_.*"), Some(vec![Probe::Prefix("write_".into())]));
        assert_eq!(p("^ls$"), Some(vec![Probe::Exact("ls".into())]));
        assert_eq!(p("_file$"), Some(vec![Probe::Suffix("_file".into())]));
        assert_eq!(
            p("read_file|^mcp__srv1__.*"),
            Some(vec![
                Probe::Contains("read_file".into()),
                Probe::Prefix("mcp__srv1__".into())
            ])
        );
        assert_eq!(p("a\\.b"), Some(vec![Probe::Contains("a.b".into())]));
        assert_eq!(p(".*"), Some(vec![Probe::Any]));
        assert_eq!(
            probes("Edit|Write", true),
            Some(vec![Probe::Exact("Edit".into()), Probe::Exact("Write".into())])
        );
        assert_eq!(probes("mcp__.*", true), Some(vec![Probe::Prefix("mcp__".into())]));
    }

    #[test]
    fn regex_syntax_stays_a_regex() {
        for pat in ["mcp__srv\\d+__.*", "a.b", "(a|b)c", "[ab]", "a+", "x?", "a{2}", "\\w+"] {
            assert_eq!(p(pat), None, "{pat}");
        }
    }
}
