//! Most matchers written as regexes are literals in disguise: `write_file`
//! (a substring, since gemini's regexes are unanchored), `Edit|Write`,
//! `^mcp__srv7__.*` (a prefix), `.*_file$` (a suffix). Each becomes a probe
//! that a hash map or one Aho-Corasick automaton answers; only what is not a
//! literal stays a regex. A `RegexSet` of thousands of patterns falls off
//! the regex crate's fast paths, and planning would cost milliseconds.
//!
//! The shortcut must mean exactly what the regex means, so the pattern is
//! classified from its parsed form (regex-syntax's HIR, as the regex crate
//! itself sees it), never from its text: `\<` is a word boundary, not `<`;
//! `.` does not match a newline, so `^foo.*$` is "starts with foo and is one
//! line", a probe that only holds for targets without a newline.

use regex_syntax::hir::{Dot, Hir, HirKind, Look};

/// How one matcher alternative tests a target; with [`Classified::one_line`]
/// the probe holds only for targets without a newline.
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

/// A probe, and whether it also needs the target to be one line (it came
/// from a `.` that cannot cross a newline, between two anchors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classified {
    /// The test.
    pub probe: Probe,
    /// Holds only for a target without `\n`.
    pub one_line: bool,
}

/// What a `.*` (greedy or lazy) matches: anything, or anything but `\n`.
fn dot_star(h: &Hir) -> Option<bool> {
    let HirKind::Repetition(r) = h.kind() else { return None };
    if r.min != 0 || r.max.is_some() {
        return None;
    }
    if *r.sub == Hir::dot(Dot::AnyChar) || *r.sub == Hir::dot(Dot::AnyByte) {
        Some(true)
    } else if *r.sub == Hir::dot(Dot::AnyCharExceptLF) || *r.sub == Hir::dot(Dot::AnyByteExceptLF) {
        Some(false)
    } else {
        None
    }
}

/// The items of one alternative in order, groups opened.
fn items(h: &Hir, out: &mut Vec<Hir>) {
    match h.kind() {
        HirKind::Concat(parts) => parts.iter().for_each(|p| items(p, out)),
        HirKind::Capture(c) => items(&c.sub, out),
        _ => out.push(h.clone()),
    }
}

/// One alternative as a probe: `[anchor] [.*] [literal] [.*] [anchor]`.
fn alternative(h: &Hir, full: bool) -> Option<Classified> {
    let mut parts = Vec::new();
    items(h, &mut parts);
    let mut parts = parts.as_slice();
    let mut start = full;
    let mut end = full;
    while let Some((first, rest)) = parts.split_first() {
        match first.kind() {
            HirKind::Look(Look::Start) => start = true,
            HirKind::Empty => {}
            _ => break,
        }
        parts = rest;
    }
    while let Some((last, rest)) = parts.split_last() {
        match last.kind() {
            HirKind::Look(Look::End) => end = true,
            HirKind::Empty => {}
            _ => break,
        }
        parts = rest;
    }
    // `.*` next to an unanchored edge changes nothing; next to an anchor it
    // reaches that edge, which (when `.` stops at newlines) only a one-line
    // target lets it do.
    let mut lead = None;
    if let Some((first, rest)) = parts.split_first()
        && let Some(any) = dot_star(first)
    {
        lead = Some(any);
        parts = rest;
    }
    let mut trail = None;
    if let Some((last, rest)) = parts.split_last()
        && let Some(any) = dot_star(last)
    {
        trail = Some(any);
        parts = rest;
    }
    let lit: String = match parts {
        [] => String::new(),
        [one] => match one.kind() {
            HirKind::Literal(l) => String::from_utf8(l.0.to_vec()).ok()?,
            _ => return None,
        },
        _ => return None,
    };
    let dots = [lead, trail];
    // A `.` that stops at newlines and runs into an anchor constrains the
    // target. With both edges anchored and no dot that crosses newlines,
    // the constraint is exactly "no newline anywhere"; any other mix ("foo
    // in the first line") is left to the regex engine.
    let reaches_anchor = (lead == Some(false) && start) || (trail == Some(false) && end);
    let one_line = reaches_anchor;
    if one_line && (!(start && end) || dots.contains(&Some(true)) || lit.contains('\n')) {
        return None;
    }
    if lit.is_empty() && (lead.is_some() || trail.is_some()) {
        return Some(Classified {
            probe: Probe::Any,
            one_line,
        });
    }
    let pinned_start = start && lead.is_none();
    let pinned_end = end && trail.is_none();
    let probe = match (pinned_start, pinned_end) {
        _ if lit.is_empty() && !(pinned_start && pinned_end) => Probe::Any,
        (true, true) => Probe::Exact(lit),
        (true, false) => Probe::Prefix(lit),
        (false, true) => Probe::Suffix(lit),
        (false, false) => Probe::Contains(lit),
    };
    Some(Classified { probe, one_line })
}

/// What a regex matcher is: probes, or a regex (parsed once, for the
/// engine's use) that needs the engine.
pub enum Matcher {
    Probes(Vec<Classified>),
    Regex(Hir),
}

/// [`probes`], with the parsed form when it needs the engine; a pattern
/// that does not parse is the parser's error, in words.
pub fn matcher(pattern: &str, full: bool) -> Result<Matcher, String> {
    if hookshot_core::literal_alternatives(pattern).is_some() {
        return Ok(Matcher::Probes(probes(pattern, full).unwrap_or_default()));
    }
    let hir = hookshot_core::regex_parse::parse(pattern)?;
    Ok(match probes_of(&hir, full) {
        Some(p) => Matcher::Probes(p),
        None => Matcher::Regex(hir),
    })
}

/// The probes equivalent to regex `pattern`, or `None` if it needs the regex
/// engine. `full` means the whole target must match (Claude's rule);
/// otherwise a match anywhere counts (gemini's rule).
pub fn probes(pattern: &str, full: bool) -> Option<Vec<Classified>> {
    if let Some(alts) = hookshot_core::literal_alternatives(pattern) {
        // What the parsed form of plain names gives, without parsing.
        let probe = |lit: &str| match (lit.is_empty(), full) {
            (_, true) => Probe::Exact(lit.to_string()),
            (true, false) => Probe::Any,
            (false, false) => Probe::Contains(lit.to_string()),
        };
        return Some(
            alts.map(|a| Classified {
                probe: probe(a),
                one_line: false,
            })
            .collect(),
        );
    }
    let hir = hookshot_core::regex_parse::parse(pattern).ok()?;
    probes_of(&hir, full)
}

fn probes_of(hir: &Hir, full: bool) -> Option<Vec<Classified>> {
    let mut top = hir;
    while let HirKind::Capture(c) = top.kind() {
        top = &c.sub;
    }
    match top.kind() {
        HirKind::Alternation(alts) => alts.iter().map(|a| alternative(a, full)).collect(),
        _ => alternative(top, full).map(|c| vec![c]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<Vec<Probe>> {
        probes(s, false).map(|v| v.into_iter().map(|c| c.probe).collect())
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
            probes("Edit|Write", true).map(|v| v.into_iter().map(|c| c.probe).collect::<Vec<_>>()),
            Some(vec![Probe::Exact("Edit".into()), Probe::Exact("Write".into())])
        );
    }

    #[test]
    fn a_dot_that_reaches_an_anchor_needs_one_line() {
        let c = probes("mcp__.*", true).unwrap();
        assert_eq!(c[0].probe, Probe::Prefix("mcp__".into()));
        assert!(c[0].one_line, "Claude's whole-name rule anchors the end");
        let c = probes("^foo.*$", false).unwrap();
        assert_eq!((c[0].probe.clone(), c[0].one_line), (Probe::Prefix("foo".into()), true));
        let c = probes("(?s)^foo.*$", false).unwrap();
        assert_eq!(
            (c[0].probe.clone(), c[0].one_line),
            (Probe::Prefix("foo".into()), false)
        );
        // Only one edge anchored: "foo in the first line" is no probe.
        assert_eq!(p("^.*foo"), None);
        assert_eq!(p("foo.*$"), None);
    }

    #[test]
    fn regex_syntax_stays_a_regex() {
        for pat in [
            "mcp__srv\\d+__.*",
            "a.b",
            "(a|b)c",
            "[ab]",
            "a+",
            "x?",
            "a{2}",
            "\\w+",
            "\\<write_file\\>",
            "\\bls\\b",
            "(?m)^ls$",
            "(?i)bash",
        ] {
            assert_eq!(p(pat), None, "{pat}");
        }
    }
}
