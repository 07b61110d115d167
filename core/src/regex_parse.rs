//! One parse of each matcher per process. The registry checks a matcher
//! when it reads a settings file and the planner classifies it right
//! after, in the same process: parsing every regex matcher twice was a
//! tenth of a one-shot `fire` with ten of them (most of it regex-syntax's
//! translation of `.` and classes into Unicode sets).
//!
//! The shape most matchers that are not plain names have (`^mcp__srv__.*`,
//! `.*_file$`, `^Edit$|Write`: names with anchors and `.*`) is not parsed
//! at all: its tree is built directly, with the same constructors the
//! parser's translator uses; a proptest checks it against the parser.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError};

use regex_syntax::hir::{Dot, Hir, Look, Repetition};

/// A running server that reloads edited settings keeps parsing new
/// patterns: past this many the memory starts again, empty.
const KEPT: usize = 4096;

/// The tree, or the parser's error in words.
type Parsed = Result<Hir, String>;

static PARSED: LazyLock<Mutex<HashMap<String, Parsed>>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// `pattern` parsed with the `regex` crate's defaults, as
/// `regex_syntax::Parser::new().parse` gives it (its error in words), each
/// distinct pattern parsed once.
pub fn parse(pattern: &str) -> Parsed {
    with_parsed(pattern, Clone::clone)
}

/// `f` of the parsed `pattern`, without a copy of it.
pub fn with_parsed<T>(pattern: &str, f: impl FnOnce(&Parsed) -> T) -> T {
    let mut parsed = PARSED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(p) = parsed.get(pattern) {
        return f(p);
    }
    if parsed.len() >= KEPT {
        parsed.clear();
    }
    let p = match names_with_anchors(pattern) {
        Some(hir) => Ok(hir),
        None => regex_syntax::Parser::new().parse(pattern).map_err(|e| e.to_string()),
    };
    f(parsed.entry(pattern.to_string()).or_insert(p))
}

/// The tree of `pattern` when it is alternatives of a name (letters,
/// digits, `_`, `-`, `:`) with an optional `^` and `.*` before it and an
/// optional `.*` and `$` after it; `None` for anything else.
fn names_with_anchors(pattern: &str) -> Option<Hir> {
    let alternatives = pattern
        .split('|')
        .map(|alt| {
            let (start, alt) = strip(alt, "^", true);
            let (lead, alt) = strip(alt, ".*", true);
            let (end, alt) = strip(alt, "$", false);
            let (trail, name) = strip(alt, ".*", false);
            let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':');
            if name.is_empty() || !name.chars().all(plain) {
                return None;
            }
            let dot_star = || {
                Hir::repetition(Repetition {
                    min: 0,
                    max: None,
                    greedy: true,
                    sub: Box::new(Hir::dot(Dot::AnyCharExceptLF)),
                })
            };
            let mut items = Vec::with_capacity(5);
            items.extend(start.then(|| Hir::look(Look::Start)));
            items.extend(lead.then(dot_star));
            items.push(Hir::literal(name.as_bytes()));
            items.extend(trail.then(dot_star));
            items.extend(end.then(|| Hir::look(Look::End)));
            Some(Hir::concat(items))
        })
        .collect::<Option<Vec<Hir>>>()?;
    Some(Hir::alternation(alternatives))
}

/// `text` without `affix` at its start (or end), and whether it was there.
fn strip<'a>(text: &'a str, affix: &str, start: bool) -> (bool, &'a str) {
    let rest = if start {
        text.strip_prefix(affix)
    } else {
        text.strip_suffix(affix)
    };
    rest.map_or((false, text), |r| (true, r))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Patterns of the shape [`names_with_anchors`] reads, and near misses
    /// (escapes, classes, other repetitions, empty alternatives).
    fn near_names() -> impl Strategy<Value = String> {
        let part = prop::sample::select(vec![
            "^",
            ".*",
            "$",
            "a",
            "Write",
            "mcp__srv0__",
            "-",
            ":",
            "_",
            "9",
            ".",
            "\\.",
            "*",
            "+",
            ".+",
            "(",
            "[a]",
            "",
            "é",
        ]);
        let alt = prop::collection::vec(part, 0..5).prop_map(|p| p.concat());
        prop::collection::vec(alt, 1..4).prop_map(|a| a.join("|"))
    }

    #[test]
    fn names_with_anchors_are_read_without_the_parser() {
        for p in ["^mcp__srv0__.*|Write_0", ".*_file$", "^Edit$|Write", "Bash"] {
            assert!(names_with_anchors(p).is_some(), "{p}");
        }
        for p in ["^mcp__srv0__(?:read|write)_[a-z]+$", "a.b", "^$", "a||b", "\\.x"] {
            assert!(names_with_anchors(p).is_none(), "{p}");
        }
    }

    proptest! {
        /// Where the shortcut builds a tree, it is the tree the parser
        /// builds: the planner's probes and the size check cannot tell.
        #[test]
        fn the_shortcut_is_the_parse(p in near_names()) {
            if let Some(hir) = names_with_anchors(&p) {
                prop_assert_eq!(Ok(hir), regex_syntax::Parser::new().parse(&p), "{}", p);
            }
        }

        /// The kept parse is the parse: same tree, same error, however
        /// often and in whatever order patterns are asked for.
        #[test]
        fn a_kept_parse_is_the_parse(ps in prop::collection::vec("[a.|*(]{0,6}|\\\\p\\{[A-Za-z]{1,3}\\}", 1..8)) {
            for p in ps.iter().chain(ps.iter().rev()) {
                let fresh = regex_syntax::Parser::new().parse(p).map_err(|e| e.to_string());
                prop_assert_eq!(parse(p), fresh);
            }
        }
    }
}
