//! Matchers: a dialect's matcher string compiled to a [`MatcherSpec`].

use super::*;

/// A matcher string as `dialect` defines it. gemini: tool events match by
/// unanchored regex, trigger events exactly. Claude (and jcli): `*` or empty
/// for all, plain names and `A|B` lists exactly, `Tool(glob)` filters on the
/// tool's main argument (`Bash(git push*)`, `Write(src/**)`), anything else
/// a full regex.
pub fn compile_matcher(m: &str, dialect: Dialect, event: EventKind) -> Result<MatcherSpec, String> {
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
        Dialect::Gemini | Dialect::Picoclaw if !trigger => {
            regex_check(m)?;
            Ok(MatcherSpec::Regex(m.to_string()))
        }
        Dialect::Gemini | Dialect::Picoclaw => Ok(MatcherSpec::Exact(vec![m.to_string()])),
        // Claude Code: letters, digits, `_`, `-`, spaces, `,` and `|` only
        // make a list of exact names (split on `|` or `,`); FileChanged and
        // StopFailure allow letters, digits, `_` and `|` only. Anything
        // else is a JavaScript regex tested anywhere in the value.
        Dialect::Claude => {
            let narrow = matches!(event, EventKind::FileChanged | EventKind::StopFailure);
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
            regex_check(m)?;
            Ok(MatcherSpec::Regex(m.to_string()))
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

/// Plain names need no check; anything else is compiled, not only parsed:
/// a regex can parse and still be refused by the engine (over its size
/// limit), and that must be this file's problem, named with its line, not
/// a planner error that stops every other file's hooks.
fn regex_check(m: &str) -> Result<(), String> {
    if hookshot_core::literal_alternatives(m).is_some() {
        return Ok(());
    }
    regex::Regex::new(m).map(|_| ()).map_err(|e| {
        format!(
            "invalid matcher regex \"{m}\": {}",
            e.to_string().lines().last().unwrap_or("").trim()
        )
    })
}
