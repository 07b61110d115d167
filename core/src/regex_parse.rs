//! One parse of each matcher per process. The registry checks a matcher
//! when it reads a settings file and the planner classifies it right
//! after, in the same process: parsing every regex matcher twice was a
//! tenth of a one-shot `fire` with ten of them (most of it regex-syntax's
//! translation of `.` and classes into Unicode sets).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError};

use regex_syntax::hir::Hir;

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
    let p = regex_syntax::Parser::new().parse(pattern).map_err(|e| e.to_string());
    f(parsed.entry(pattern.to_string()).or_insert(p))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
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
