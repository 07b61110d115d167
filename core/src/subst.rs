//! `${name}` references in settings text, shared by the places that fill
//! them: MCP server definitions (`${VAR:-default}`) and an `mcp_tool`
//! hook's arguments (`${tool_input.file_path}`).

/// `s` with each `${name}` replaced by what `value` gives for `name` (the
/// text between the braces); text from an unclosed `${` on stays as
/// written. The first error `value` gives is the result.
pub fn braced<E>(s: &str, mut value: impl FnMut(&str) -> Result<String, E>) -> Result<String, E> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        let Some(end) = rest[i..].find('}') else { break };
        out.push_str(&rest[..i]);
        out.push_str(&value(&rest[i + 2..i + end])?);
        rest = &rest[i + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
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
    }
}
