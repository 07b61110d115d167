//! Matchers: a dialect's matcher string compiled to a [`MatcherSpec`].

use super::*;

pub use hookshot_core::RegexFlavour;

/// How the agent whose hooks `file` holds reads a regex matcher: Claude
/// Code's and gemini-cli's files JavaScript, Codex's files (the same format
/// as Claude Code's) and jcli's the `regex` crate; picoclaw's Go RE2 reads
/// as the `regex` crate does.
pub fn flavour_of(dialect: Dialect, file: &std::path::Path) -> RegexFlavour {
    hookshot_core::Agent::of_hook_file(dialect, file).regex_flavour()
}

/// A matcher string as `dialect` defines it. gemini: tool events match by
/// unanchored regex, trigger events exactly. Claude (and jcli): `*` or empty
/// for all, plain names and `A|B` lists exactly, `Tool(glob)` filters on the
/// tool's main argument (`Bash(git push*)`, `Write(src/**)`), anything else
/// a full regex. Regular expressions are read in `flavour`.
pub fn compile_matcher(
    m: &str,
    dialect: Dialect,
    event: EventKind,
    flavour: RegexFlavour,
) -> Result<MatcherSpec, String> {
    let m = m.trim();
    if m.is_empty() || m == "*" {
        return Ok(MatcherSpec::Any);
    }
    if matches!(dialect, Dialect::Claude | Dialect::Jcli)
        && let Some(filters) = tool_arg_filters(m)?
    {
        return Ok(MatcherSpec::ToolArgs(filters));
    }
    let trigger = matches!(event.match_target(), MatchTarget::Trigger(_));
    match dialect {
        Dialect::Gemini | Dialect::Picoclaw if !trigger => unanchored(m, flavour),
        Dialect::Gemini | Dialect::Picoclaw => Ok(MatcherSpec::Exact(vec![m.to_string()])),
        // Copilot CLI's own format: a regex that must match the whole name
        // (1.0.102: "hooks with matcher run only for tool names that fully
        // match the regex").
        Dialect::Copilot => unanchored(&format!("^(?:{m})$"), flavour),
        // Claude Code: letters, digits, `_`, `-`, spaces, `,` and `|` only
        // make a list of exact names (split on `|` or `,`); FileChanged and
        // StopFailure allow letters, digits, `_` and `|` only. Anything
        // else is a JavaScript regex tested anywhere in the value.
        Dialect::Claude | Dialect::Cursor => {
            // Codex (its files are read in the `regex` crate's flavour)
            // takes only `[A-Za-z0-9_|]` as a list of exact names: `Bash,
            // Write` and `mcp__a-b__t` are regexes there.
            let narrow =
                matches!(event, EventKind::FileChanged | EventKind::StopFailure) || flavour == RegexFlavour::Rust;
            let exact = m
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|' || !narrow && matches!(c, '-' | ' ' | ','));
            if exact {
                let names: Vec<String> = m
                    .split(if narrow { &['|'][..] } else { &['|', ','][..] })
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(str::to_string)
                    .collect();
                return Ok(MatcherSpec::Exact(names));
            }
            unanchored(m, flavour)
        }
        Dialect::Jcli => {
            let is_names = m.split('|').all(|n| {
                !n.is_empty()
                    && n.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.'))
            });
            if is_names && !m.contains('.') {
                return Ok(MatcherSpec::Exact(m.split('|').map(str::to_string).collect()));
            }
            regex_check(m)?;
            Ok(MatcherSpec::FullRegex(m.to_string()))
        }
    }
}

/// A matcher as an agent that searches plain names reads it
/// ([`hookshot_core::Agent::searches_plain_matchers`], Qwen Code): `""`,
/// `*` and `.*` match all; one starting with `^` or `(` is an unanchored
/// regex as written; any other is an unanchored regex of its trimmed,
/// non-empty `|` entries (a stray `|` adds nothing; only `|` matches
/// nothing). Its exact comparison of each entry is part of that search.
pub fn searched_matcher(m: &str, flavour: RegexFlavour) -> Result<MatcherSpec, String> {
    let m = m.trim();
    if m.is_empty() || m == "*" || m == ".*" {
        return Ok(MatcherSpec::Any);
    }
    if m.starts_with('^') || m.starts_with('(') {
        return unanchored(m, flavour);
    }
    let entries = top_level_alternatives(m);
    let entries: Vec<&str> = entries.iter().map(|e| e.trim()).filter(|e| !e.is_empty()).collect();
    if entries.iter().any(|e| *e == "*" || *e == ".*") {
        return Ok(MatcherSpec::Any);
    }
    if entries.is_empty() {
        return Ok(MatcherSpec::Exact(Vec::new()));
    }
    unanchored(&entries.join("|"), flavour)
}

/// `m` split at each `|` outside `[...]` and groups and not escaped.
fn top_level_alternatives(m: &str) -> Vec<&str> {
    let (mut out, mut start, mut depth, mut class, mut escaped) = (Vec::new(), 0, 0i32, false, false);
    for (i, c) in m.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' if !class => class = true,
            ']' if class => class = false,
            '(' if !class => depth += 1,
            ')' if !class => depth -= 1,
            '|' if !class && depth == 0 => {
                out.push(&m[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&m[start..]);
    out
}

/// `Bash(git push*)|Write(src/**)`: each alternative a tool name and a glob
/// over its main argument (Claude's permission-rule syntax; `:*` is `*`).
/// `None` when the matcher is not of that form.
fn tool_arg_filters(m: &str) -> Result<Option<Vec<(String, String)>>, String> {
    if !m.ends_with(')') || !m.contains('(') {
        return Ok(None);
    }
    let mut out = Vec::new();
    let mut rest = m;
    while !rest.is_empty() {
        let Some(open) = rest.find('(') else { return Ok(None) };
        let tool = &rest[..open];
        if tool.is_empty() || !tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Ok(None);
        }
        let Some(close) = rest[open..].find(')').map(|i| open + i) else {
            return Ok(None);
        };
        let inner = &rest[open + 1..close];
        // `Notebook(Edit|Read)` is a regex group: globs never use `|`.
        if inner.contains('|') {
            return Ok(None);
        }
        let glob = inner.replace(":*", "*");
        globset::Glob::new(&glob).map_err(|e| format!("invalid argument glob \"{glob}\" in \"{m}\": {}", e.kind()))?;
        out.push((tool.to_string(), glob));
        rest = &rest[close + 1..];
        match rest.strip_prefix('|') {
            Some(r) => rest = r,
            None if rest.is_empty() => {}
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// Whether JavaScript's `new RegExp(m)` throws: gemini-cli then compares
/// the matcher with the tool name as plain text.
pub(crate) fn javascript_rejects(m: &str) -> bool {
    regress::Regex::with_flags(m.trim(), "").is_err()
}

/// A regex tested anywhere in the target, in `flavour`. A JavaScript
/// pattern the `regex` crate reads the same way runs there (linear time,
/// in one set with the others); any other runs on an ECMAScript engine.
fn unanchored(m: &str, flavour: RegexFlavour) -> Result<MatcherSpec, String> {
    if flavour == RegexFlavour::Rust || hookshot_core::literal_alternatives(m).is_some() || reads_the_same(m) {
        regex_check(m)?;
        return Ok(MatcherSpec::Regex(m.to_string()));
    }
    regress::Regex::with_flags(m, "").map_err(|e| format!("invalid matcher regex \"{m}\": {e}"))?;
    if let Some(at) = nested_repetition(m) {
        // The ECMAScript engine backtracks: `(a+)+$` takes exponential time
        // on a long enough name, and a hook that hangs the agent is worse
        // than one refused with its line.
        return Err(format!(
            "matcher regex \"{m}\" repeats a group that itself repeats (at \"{at}\"): a JavaScript engine can take exponential time on it; hookshot refuses it (write it without the nested repetition)"
        ));
    }
    Ok(MatcherSpec::Script(m.to_string()))
}

/// Whether the `regex` crate reads the JavaScript pattern `m` (no flags) as
/// JavaScript does, on the names matchers see (tool names, sources,
/// triggers: no line breaks). Conservative: literals, `.`, `|`, groups and
/// `(?:`, classes of plain characters, the quantifiers, `^`, `$` and
/// escaped punctuation. Look-arounds, back-references, letter escapes
/// (`\d` is ASCII in JavaScript, Unicode in `regex`; `\<` is a literal
/// `<` in JavaScript, a word boundary in `regex`), `[^]`, inline flags,
/// braces that are not a quantifier and class set operations are not.
fn reads_the_same(m: &str) -> bool {
    const PUNCT: &str = ".*+?()[]{}|\\/^$-";
    let c: Vec<char> = m.chars().collect();
    let mut i = 0;
    let mut class: Option<usize> = None;
    while i < c.len() {
        let ch = c[i];
        if let Some(start) = class {
            match ch {
                '\\' => match c.get(i + 1) {
                    Some(x) if PUNCT.contains(*x) => i += 1,
                    _ => return false,
                },
                '[' => return false,
                ']' if i == start => return false,
                ']' => class = None,
                '&' | '~' | '-' if c.get(i + 1) == Some(&ch) => return false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match ch {
            '\\' => match c.get(i + 1) {
                Some(x) if PUNCT.contains(*x) => i += 1,
                _ => return false,
            },
            '[' => {
                let start = if c.get(i + 1) == Some(&'^') { i + 2 } else { i + 1 };
                class = Some(start);
                i = start;
                continue;
            }
            '(' if c.get(i + 1) == Some(&'?') && c.get(i + 2) != Some(&':') => return false,
            '{' => {
                let Some(len) = c[i + 1..].iter().position(|x| *x == '}') else {
                    return false;
                };
                let inner: String = c[i + 1..i + 1 + len].iter().collect();
                let mut parts = inner.splitn(2, ',');
                let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
                let ok = parts.next().is_some_and(digits) && parts.next().is_none_or(|s| s.is_empty() || digits(s));
                if !ok || i == 0 {
                    return false;
                }
                i += len + 1;
            }
            '}' => return false,
            _ => {}
        }
        i += 1;
    }
    class.is_none()
}

/// The first group of `m` that repeats (`*`, `+`, `{n,}`) while holding a
/// repetition itself, as the text from the group's start; `None` when none.
fn nested_repetition(m: &str) -> Option<String> {
    let c: Vec<char> = m.chars().collect();
    // For each open group: where it starts, whether it holds a repetition.
    let mut open: Vec<(usize, bool)> = Vec::new();
    let repeats = |at: usize| match c.get(at) {
        Some('*' | '+') => true,
        Some('{') => {
            let inner: String = c[at + 1..].iter().take_while(|x| **x != '}').collect();
            inner.ends_with(',')
                || inner
                    .split(',')
                    .nth(1)
                    .is_some_and(|n| n.parse::<u32>().is_ok_and(|n| n > 1))
        }
        _ => false,
    };
    let mut i = 0;
    let mut in_class = false;
    while i < c.len() {
        match c[i] {
            '\\' => i += 1,
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            _ if in_class => {}
            '(' => open.push((i, false)),
            ')' => {
                if let Some((start, inner)) = open.pop() {
                    if inner && repeats(i + 1) {
                        return Some(c[start..=(i + 1).min(c.len() - 1)].iter().collect());
                    }
                    if let Some(outer) = open.last_mut() {
                        outer.1 |= inner || repeats(i + 1);
                    }
                }
            }
            _ if repeats(i) => {
                if let Some(g) = open.last_mut() {
                    g.1 = true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Plain names need no check; anything else is parsed, and compiled too
/// when it could be large: a regex can parse and still be refused by the
/// engine (over its size limit), and that must be this file's problem,
/// named with its line, not a planner error that stops every other file's
/// hooks. Compiling every matcher in full cost a one-shot `fire` more than
/// everything else it does (ten `^mcp__x__.*` matchers: 2 ms), for
/// patterns far below any limit.
fn regex_check(m: &str) -> Result<(), String> {
    if hookshot_core::literal_alternatives(m).is_some() {
        return Ok(());
    }
    if hookshot_core::regex_size::is_small(m) {
        return Ok(());
    }
    regex::Regex::new(m).map(|_| ()).map_err(|e| {
        format!(
            "invalid matcher regex \"{m}\": {}",
            e.to_string().lines().last().unwrap_or("").trim()
        )
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::reads_the_same;

    /// Patterns of the JavaScript syntax both engines share, and some they
    /// do not (`\d`, look-arounds, `\<`), mixed.
    fn pattern() -> impl Strategy<Value = String> {
        let atom = prop_oneof![
            "[abAB_:/0-]".prop_map(|s| s.to_string()),
            Just(".".to_string()),
            Just("\\.".to_string()),
            Just("[ab]".to_string()),
            Just("[^a_]".to_string()),
            Just("[a-c]".to_string()),
            Just("\\d".to_string()),
            Just("\\<".to_string()),
            Just("(?!a)".to_string()),
        ];
        let quantified = (
            atom,
            prop_oneof![Just(""), Just("*"), Just("+"), Just("?"), Just("{1,2}"), Just("{2}")],
        )
            .prop_map(|(a, q)| format!("{a}{q}"));
        let seq = prop::collection::vec(quantified, 1..4).prop_map(|v| v.concat());
        let group = prop_oneof![
            seq.clone(),
            seq.clone().prop_map(|s| format!("({s})")),
            seq.clone().prop_map(|s| format!("(?:{s})+")),
        ];
        (prop::collection::vec(group, 1..3), any::<bool>(), any::<bool>()).prop_map(|(alts, start, end)| {
            format!(
                "{}{}{}",
                if start { "^" } else { "" },
                alts.join("|"),
                if end { "$" } else { "" }
            )
        })
    }

    proptest! {
        /// Whatever `reads_the_same` lets the `regex` crate run matches
        /// exactly what the ECMAScript engine matches, on names (any text
        /// without a carriage return or a line or paragraph separator,
        /// which `.` in JavaScript also excludes).
        #[test]
        fn what_reads_the_same_matches_the_same(p in pattern(), names in prop::collection::vec("[abAB_:/0.\n٣-]{0,6}", 8)) {
            let Ok(js) = regress::Regex::with_flags(&p, "") else { return Ok(()) };
            if reads_the_same(&p) {
                let rust = regex::Regex::new(&p);
                prop_assert!(rust.is_ok(), "{p}: {rust:?}");
                let rust = rust.unwrap();
                for n in &names {
                    prop_assert_eq!(rust.is_match(n), js.find(n).is_some(), "{} on {:?}", p, n);
                }
            }
        }
    }

    #[test]
    fn the_letter_escapes_and_look_arounds_do_not_read_the_same() {
        for p in [
            "\\d", "\\w", "\\b", "\\<", "(?=a)", "(?i)a", "[^]", "[]a]", "a{", "{2}", "[a&&b]", "a\\1",
        ] {
            assert!(!reads_the_same(p), "{p}");
        }
        for p in ["^mcp__.*", "Edit|Write", "a{2,}", "[\\]a]", "x\\.y", "(?:ab)+$"] {
            assert!(reads_the_same(p), "{p}");
        }
    }
}
