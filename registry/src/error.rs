//! Registry errors: every problem with a settings file names the file, line,
//! column and JSON pointer of the bad value.

use std::fmt;
use std::path::PathBuf;

use hookshot_core::Provenance;

/// One problem found in a settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where.
    pub at: Provenance,
    /// What is wrong, in words a user can act on.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.at)?;
        if !self.at.pointer.is_empty() {
            write!(f, "{}: ", self.at.pointer)?;
        }
        f.write_str(&self.message)
    }
}

/// Why settings could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read (missing, not a plain file, too large).
    #[error("{}: cannot read settings: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: crate::read::ReadError,
    },
    /// The file is not UTF-8.
    #[error("{}:{line}: settings are not UTF-8 (bad byte at offset {offset})", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The line of the first bad byte.
        line: usize,
        /// Its byte offset.
        offset: usize,
    },
    /// The file is not valid JSON (or YAML).
    #[error("{0}")]
    Syntax(Diagnostic),
    /// The file parsed but its content is wrong; every problem is listed.
    #[error("{}", join(.0))]
    Invalid(Vec<Diagnostic>),
}

fn join(d: &[Diagnostic]) -> String {
    d.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
}

impl Error {
    /// Every diagnostic this error carries.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            Error::Read { path, source } => vec![Diagnostic {
                at: Provenance {
                    file: Some(path.clone()),
                    ..Provenance::default()
                },
                message: format!("cannot read settings: {source}"),
            }],
            Error::NotUtf8 { path, line, offset } => vec![Diagnostic {
                at: Provenance {
                    file: Some(path.clone()),
                    line: *line,
                    ..Provenance::default()
                },
                message: format!("settings are not UTF-8 (bad byte at offset {offset})"),
            }],
            Error::Syntax(d) => vec![d.clone()],
            Error::Invalid(ds) => ds.clone(),
        }
    }
}

impl Diagnostic {
    /// A problem at `line`:`column` of `path`, not at a JSON value.
    pub(crate) fn at_line(path: &std::path::Path, line: usize, column: usize, message: String) -> Diagnostic {
        Diagnostic {
            at: Provenance {
                file: Some(path.to_path_buf()),
                line,
                column,
                pointer: String::new(),
            },
            message,
        }
    }
}

impl Error {
    /// A file that does not parse, at `line`:`column`.
    pub(crate) fn syntax(path: &std::path::Path, line: usize, column: usize, message: String) -> Error {
        Error::Syntax(Diagnostic::at_line(path, line, column, message))
    }
}
