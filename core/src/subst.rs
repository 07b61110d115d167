//! References in settings text, one scanner for every place that fills
//! them: `${name}` (MCP server definitions' `${VAR:-default}`, an
//! `mcp_tool` hook's `${tool_input.file_path}`, Claude Code's path
//! placeholders in an exec-form hook, gemini-cli's `${extensionPath}`),
//! `{{name}}` (jcli's prompt templates), and `$NAME` with `${NAME}` read
//! as a shell reads them (Claude Code's `http` hook headers, the project
//! variables trust resolves in a hook's command). gemini-cli's own
//! `$GEMINI_*` replacement in a command line is not one of them: it is
//! plain text replacement in a fixed order, and the runner copies it
//! exactly, prefixes and all.

/// `s` with each `open`…`close` reference replaced by what `value` gives
/// for the text between them; text from an unclosed `open` on stays as
/// written. The first error `value` gives is the result.
pub fn delimited<E>(
    s: &str,
    open: &str,
    close: &str,
    mut value: impl FnMut(&str) -> Result<String, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(open) {
        let Some(end) = rest[i + open.len()..].find(close) else {
            break;
        };
        out.push_str(&rest[..i]);
        out.push_str(&value(&rest[i + open.len()..i + open.len() + end])?);
        rest = &rest[i + open.len() + end + close.len()..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `s` with each `${name}` replaced by what `value` gives for `name`.
pub fn braced<E>(s: &str, value: impl FnMut(&str) -> Result<String, E>) -> Result<String, E> {
    delimited(s, "${", "}", value)
}

/// `${name}` references whose `value` is `None` stay as written.
pub fn braced_known(s: &str, mut value: impl FnMut(&str) -> Option<String>) -> String {
    let filled = braced(s, |name| {
        Ok::<_, std::convert::Infallible>(value(name).unwrap_or_else(|| format!("${{{name}}}")))
    });
    filled.unwrap_or_else(|never| match never {})
}

/// `$NAME` and `${NAME}` as a shell reads them (a name runs on over
/// letters, digits and `_`), each replaced by what `value` gives for it;
/// `None` keeps the reference as written. A `$` starting no name, and an
/// unclosed `${`, stay as they are.
pub fn dollar(s: &str, mut value: impl FnMut(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (name, used) = match after.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) => (&inner[..end], end + 2),
                None => ("", 0),
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], end)
            }
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        match value(name) {
            Some(v) => out.push_str(&v),
            None => out.push_str(&rest[i..i + 1 + used]),
        }
        rest = &after[used..];
    }
    out.push_str(rest);
    out
}

/// Whether `value`, pasted into a shell command line as text (bare, or
/// inside single or double quotes), can change nothing but how the line
/// splits into words: no quote, `$`, backtick, backslash, operator, glob,
/// newline or other control character. Where an agent's own textual
/// replacement of a variable must be reproduced, only such a value is
/// pasted: a path name or an input value is data, never code.
pub fn shell_inert(value: &str) -> bool {
    value.chars().all(|c| {
        c == ' ' || "_./-+,:@%=".contains(c) || !(c.is_control() || c.is_ascii_punctuation() || c.is_whitespace())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_replaced_and_an_unclosed_one_kept() {
        let upper = |n: &str| Ok::<_, ()>(n.to_uppercase());
        assert_eq!(braced("a ${b} c${d}", upper), Ok("a B cD".to_string()));
        assert_eq!(braced("$x ${open", upper), Ok("$x ${open".to_string()));
        assert_eq!(
            braced("${a}${b}", |n| if n == "b" { Err(n.to_string()) } else { Ok(n.into()) }),
            Err("b".into())
        );
        assert_eq!(
            delimited("{{ a }} and {{b}} {{open", "{{", "}}", |n| Ok::<_, ()>(
                n.trim().to_uppercase()
            )),
            Ok("A and B {{open".to_string())
        );
    }

    #[test]
    fn only_values_that_cannot_become_code_are_inert() {
        for ok in ["/home/a/My Project", "/p/q-1.2_x+y,z:@%=", "/srv/café", ""] {
            assert!(shell_inert(ok), "{ok:?}");
        }
        for bad in [
            "x'; touch PWNED; '",
            "a\"b",
            "$(id)",
            "`id`",
            "a;b",
            "a\nb",
            "a|b",
            "a&b",
            "a>b",
            "a\\b",
            "*",
            "~",
            "a\tb",
            "a\u{a0}b",
            "a\u{2028}b",
        ] {
            assert!(!shell_inert(bad), "{bad:?}");
        }
    }

    #[test]
    fn unknown_braced_names_stay_as_written() {
        let known = |n: &str| (n == "a").then(|| "1".to_string());
        assert_eq!(braced_known("${a}/${b}/${", known), "1/${b}/${");
    }

    #[test]
    fn dollar_names_end_where_a_shell_ends_them() {
        let known = |n: &str| (n == "HOME").then(|| "/h".to_string());
        assert_eq!(
            dollar("$HOME/x ${HOME}y $HOMEY $5 $ ${", known),
            "/h/x /hy $HOMEY $5 $ ${"
        );
        let empty_for_all = |_: &str| Some(String::new());
        assert_eq!(dollar("cost $5 and $", empty_for_all), "cost  and $");
        assert_eq!(dollar("${unclosed", empty_for_all), "${unclosed");
    }
}
