//! Path arithmetic shared by the workdir sandbox, the dangerous-command
//! check and the trust store's script coverage: all must agree on what lies
//! inside the project.

use std::path::{Component, Path, PathBuf};

/// `path` joined onto `base` (unless absolute) with `.` and `..` resolved
/// lexically, without touching the file system.
pub fn lexical_join(base: &Path, path: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in base.join(path).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_dots_lexically() {
        let base = Path::new("/work/p");
        assert_eq!(lexical_join(base, "a/../b/./c"), Path::new("/work/p/b/c"));
        assert_eq!(lexical_join(base, "../../.."), Path::new("/"));
        assert_eq!(lexical_join(base, "/etc/x"), Path::new("/etc/x"));
    }
}
