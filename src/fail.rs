//! The one error type of the command line: what a command returns when
//! the user must fix something.

/// A failure the user must fix: printed, exit 1.
#[derive(Debug)]
pub(crate) enum Fail {
    /// A usage or input problem, printed after the program name.
    Usage(String),
    /// Settings diagnostics, printed as they are: they start with
    /// `path:line:column:` so editors and terminals link them.
    Settings(String),
}

impl Fail {
    /// The failure as printed on stderr.
    pub(crate) fn message(&self) -> String {
        let text = match self {
            Fail::Settings(diagnostics) => diagnostics.clone(),
            Fail::Usage(msg) => format!("hookshot: {msg}"),
        };
        // Messages quote settings text and path names: a terminal must not
        // be able to hide any of it. Our own line breaks stay.
        hookshot_core::display::escaped_lines(&text)
    }
}

impl From<hookshot::Error> for Fail {
    fn from(e: hookshot::Error) -> Self {
        Fail::Settings(e.to_string())
    }
}
