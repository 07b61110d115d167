//! How big a regular expression's automaton gets, estimated from its
//! syntax alone: a one-shot `fire` need not compile a matcher to know it
//! is far below the `regex` crate's size limit (compiling ten
//! `^mcp__x__.*` matchers in full cost it more than everything else it
//! does).

use regex_syntax::hir::{Class, Hir, HirKind};

/// An NFA of at most this many states is far below the `regex` crate's
/// size limit (10 MiB, some 250,000 states).
const SMALL_NFA: u64 = 20_000;

/// Whether `pattern` parses (with the `regex` crate's defaults) and its
/// automaton is certainly within the engine's size limit; `false` when it
/// does not parse or might be large (then compile it to know).
pub fn is_small(pattern: &str) -> bool {
    crate::regex_parse::with_parsed(pattern, |p| p.as_ref().is_ok_and(is_small_hir))
}

/// [`is_small`] of a parsed pattern.
pub fn is_small_hir(hir: &Hir) -> bool {
    nfa_size(hir) <= SMALL_NFA
}

/// An upper bound of the states of the `regex` crate's NFA for `hir`
/// (saturating: a huge counted repetition is just huge). A Unicode class
/// costs up to a few dozen UTF-8 states per range.
fn nfa_size(hir: &Hir) -> u64 {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 1,
        HirKind::Literal(l) => l.0.len() as u64,
        HirKind::Class(Class::Unicode(c)) => 16 + 32 * c.ranges().len() as u64,
        HirKind::Class(Class::Bytes(c)) => 1 + c.ranges().len() as u64,
        HirKind::Repetition(r) => {
            let copies = u64::from(r.max.unwrap_or(r.min).max(r.min)).saturating_add(1);
            nfa_size(&r.sub).saturating_mul(copies)
        }
        HirKind::Capture(c) => nfa_size(&c.sub).saturating_add(2),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs
            .iter()
            .fold(subs.len() as u64, |n, s| n.saturating_add(nfa_size(s))),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn small_and_large() {
        assert!(is_small("^mcp__srv0__.*|Write_0"));
        assert!(!is_small("(?:a{1000}){1000}"));
        assert!(!is_small("(unclosed"));
    }

    /// Patterns with counted repetitions and Unicode classes, small and
    /// large.
    fn sized() -> impl Strategy<Value = String> {
        let atom = prop::sample::select(vec!["a", ".", "\\w", "[a-z]", "\\pL", "(?:ab|cd)", "\\d"]);
        let count = prop::sample::select(vec!["", "*", "+", "{3}", "{50}", "{1,400}", "{2000}"]);
        prop::collection::vec((atom, count), 1..4).prop_map(|parts| {
            let inner: String = parts.iter().map(|(a, c)| format!("{a}{c}")).collect();
            format!("(?:{inner}){{1,30}}")
        })
    }

    proptest! {
        /// What the estimate calls small, the engine compiles: skipping the
        /// compile never lets a pattern over the size limit through.
        #[test]
        fn a_small_estimate_compiles(p in sized()) {
            if is_small(&p) {
                prop_assert!(regex::Regex::new(&p).is_ok(), "{}", p);
            }
        }
    }
}
