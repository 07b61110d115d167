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

/// The user's home: `$HOME` when it is absolute. Every stage reads it
/// here, so a relative or empty `HOME` means "no home" everywhere (a rule
/// on `~/.ssh` then matches nothing, rather than `/.ssh` in one place and
/// `./.ssh` in another).
pub fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from).filter(|h| h.is_absolute())
}

/// An XDG base directory: `$var` when it is absolute, else `home_rel`
/// under an absolute `$HOME`. A relative value is invalid (XDG Base
/// Directory spec) and ignored: honouring it would put the user's files
/// wherever hookshot runs, such as inside a project.
pub fn xdg_dir(var: &str, home_rel: &str) -> Option<PathBuf> {
    let absolute = |name: &str| std::env::var_os(name).map(PathBuf::from).filter(|p| p.is_absolute());
    absolute(var).or_else(|| home().map(|h| h.join(home_rel)))
}

/// What a file that is not a regular file is, in words.
pub fn file_kind(ft: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_symlink() {
        "a symlink"
    } else if ft.is_dir() {
        "a directory"
    } else if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
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
