//! An event's regex matchers, compiled only when a target could match one
//! of them. A one-shot `fire` plans a single event for a single tool name;
//! compiling a `RegexSet` of every MCP-tool matcher (`^mcp__srv__.*_write$`)
//! to search one name like `Bash` cost more than the rest of planning. Each
//! pattern's prefix literals (from `regex-syntax`'s extractor) say what a
//! name must contain for the pattern to match it; when no pattern's
//! literals occur in the name, nothing is compiled.

use std::sync::OnceLock;

use regex::{Regex, RegexSet};
use regex_syntax::hir::Hir;
use regex_syntax::hir::literal::{ExtractKind, Extractor};

/// The regex matchers of one event.
#[derive(Debug)]
pub(crate) struct Regexes {
    patterns: Vec<String>,
    /// For each pattern, literals one of which every match begins with,
    /// so every name it matches contains one; `None`: any name may match.
    required: Vec<Option<Vec<Vec<u8>>>>,
    compiled: OnceLock<Compiled>,
}

#[derive(Debug)]
enum Compiled {
    Set(RegexSet),
    /// When the patterns together are over the engine's size limit, each
    /// alone (a pattern over it alone never matches: the registry refused
    /// it with its line already).
    Each(Vec<Option<Regex>>),
}

impl Regexes {
    /// The matchers (each pattern as the engine gets it, with the parsed
    /// form of what must match), checked: the index and message of the
    /// first that may be large and does not compile.
    pub(crate) fn new(entries: Vec<(String, Hir)>) -> Result<Regexes, (usize, String)> {
        let mut patterns = Vec::with_capacity(entries.len());
        let mut required = Vec::with_capacity(entries.len());
        for (i, (p, hir)) in entries.into_iter().enumerate() {
            if !hookshot_core::regex_size::is_small_hir(&hir) {
                Regex::new(&p).map_err(|e| (i, e.to_string()))?;
            }
            required.push(prefixes(&hir));
            patterns.push(p);
        }
        Ok(Regexes {
            patterns,
            required,
            compiled: OnceLock::new(),
        })
    }

    /// The indexes of the patterns that match `name`.
    pub(crate) fn matches(&self, name: &str) -> Vec<usize> {
        let bytes = name.as_bytes();
        let possible = self.required.iter().any(|r| match r {
            None => true,
            Some(lits) => lits.iter().any(|l| contains(bytes, l)),
        });
        if !possible {
            return Vec::new();
        }
        match self.compiled.get_or_init(|| self.compile()) {
            Compiled::Set(set) => set.matches(name).into_iter().collect(),
            Compiled::Each(each) => each
                .iter()
                .enumerate()
                .filter(|(_, r)| r.as_ref().is_some_and(|r| r.is_match(name)))
                .map(|(i, _)| i)
                .collect(),
        }
    }

    fn compile(&self) -> Compiled {
        match RegexSet::new(&self.patterns) {
            Ok(set) => Compiled::Set(set),
            Err(_) => Compiled::Each(self.patterns.iter().map(|p| Regex::new(p).ok()).collect()),
        }
    }
}

/// The literals every match of `hir` begins with, when they are few and
/// none is empty (an empty one says nothing).
fn prefixes(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(hir);
    let lits = seq.literals()?;
    if lits.is_empty() || lits.iter().any(|l| l.as_bytes().is_empty()) {
        return None;
    }
    Some(lits.iter().map(|l| l.as_bytes().to_vec()).collect())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.len() <= haystack.len() && haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn regexes(patterns: &[String]) -> Result<Regexes, (usize, String)> {
        let parsed = patterns
            .iter()
            .map(|p| (p.clone(), regex_syntax::Parser::new().parse(p).unwrap()));
        Regexes::new(parsed.collect())
    }

    #[test]
    fn nothing_is_compiled_for_a_name_no_pattern_can_match() {
        let r = regexes(&["^mcp__srv0__(?:read|write)_[a-z]+$".into(), "Write_0[0-9]".into()]).unwrap();
        assert!(r.matches("Bash").is_empty());
        assert!(r.compiled.get().is_none());
        assert_eq!(r.matches("mcp__srv0__write_x"), [0]);
        assert_eq!(r.matches("Write_07"), [1]);
        assert!(r.compiled.get().is_some());
        // No literal to require: compiled for any name.
        let any = regexes(&["^[a-z]+$".into()]).unwrap();
        assert_eq!(any.matches("bash"), [0]);
        // Over the engine's size limit: the planner's error, at load.
        assert!(regexes(&["ok".into(), "(?:a{1000}){1000}".into()]).is_err_and(|(i, _)| i == 1));
    }

    proptest! {
        /// Skipping the compile never loses a match: the lazy matchers
        /// match exactly what one `RegexSet` of the same patterns matches.
        #[test]
        fn the_prefilter_never_loses_a_match(
            patterns in prop::collection::vec("(\\^)?(mcp|Write|ab|(?i:x)|[a-c])(_|\\.\\*|[0-9]+|\\|b)?(\\$)?", 1..5),
            names in prop::collection::vec("[a-cA-Cmpx_W0-9.]{0,8}", 8),
        ) {
            let lazy = regexes(&patterns).unwrap();
            let set = RegexSet::new(&patterns).unwrap();
            for n in &names {
                let want: Vec<usize> = set.matches(n).into_iter().collect();
                prop_assert_eq!(lazy.matches(n), want, "{:?} on {:?}", patterns, n);
            }
        }
    }
}
