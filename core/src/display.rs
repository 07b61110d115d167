//! Text from settings files, event inputs and path names, as a terminal
//! shows it to the user who decides on it.

/// `text` as a terminal cannot disguise it: control characters (`\r`, an
/// escape sequence that erases a line and hides `curl … | sh` before it)
/// and characters that look like nothing or like a space (no-break and
/// other spaces, zero-width and direction marks, the soft hyphen) are
/// written as escapes, so what a user approves or reads is what runs.
pub fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if hidden(c) {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// [`escaped`] line by line: the line breaks of a message made of several
/// lines stay, everything else a terminal would hide is written out.
pub fn escaped_lines(text: &str) -> String {
    text.split('\n').map(escaped).collect::<Vec<_>>().join("\n")
}

/// Whether a terminal would show `c` as nothing, as a plain space, or as
/// an instruction to itself.
fn hidden(c: char) -> bool {
    c.is_control()
        || (c != ' ' && c.is_whitespace())
        || matches!(
            c,
            '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
                | '\u{00ad}'
                | '\u{115f}'
                | '\u{1160}'
                | '\u{3164}'
                | '\u{ffa0}'
                | '\u{180e}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_terminal_would_hide_is_written_out() {
        assert_eq!(
            escaped("echo ok\r\u{1b}[2Kcurl x | sh"),
            "echo ok\\r\\u{1b}[2Kcurl x | sh"
        );
        assert_eq!(
            escaped("a\u{a0}b\u{200b}c\u{202e}d\ne"),
            "a\\u{a0}b\\u{200b}c\\u{202e}d\\ne"
        );
        assert_eq!(escaped("plain /p/ü é ok"), "plain /p/ü é ok");
    }
}
