//! Where a path written in a command or a tool call really points: joined
//! onto the directory it is used in, `..` taken after each symlink is
//! followed (as the kernel does), and sorted into the places the rules
//! tell apart.

use std::path::{Component, Path, PathBuf};

/// The places that matter to the rules.
#[derive(Debug, Clone)]
pub struct Places {
    /// The project, resolved.
    pub root: PathBuf,
    /// Scratch directories (`/tmp`, `/var/tmp`, `$TMPDIR`), resolved.
    scratch: Vec<PathBuf>,
    /// The user's home, for `~`.
    pub home: Option<PathBuf>,
}

/// What a resolved path is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Strictly inside the project.
    Project,
    /// The project directory itself.
    Root,
    /// Strictly inside a scratch directory that does not hold the project.
    Scratch,
    /// `/dev/null`, the standard streams, the terminal, `/dev/fd/N`.
    Harmless,
    /// Any other device.
    Device,
    /// Anywhere else.
    Outside,
}

/// `/dev/null`, the standard streams, the terminal, `/dev/fd/N`.
fn harmless(p: &Path) -> bool {
    [
        "/dev/null",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/stdin",
        "/dev/tty",
        "/dev/zero",
    ]
    .iter()
    .any(|h| p == Path::new(h))
        || p.starts_with("/dev/fd")
        || p.starts_with("/proc/self/fd")
}

fn real(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

impl Places {
    /// The places around `root`, with scratch directories and home as
    /// given (tests pin them; [`Places::of_this_machine`] reads them).
    pub fn new(root: &Path, scratch: &[PathBuf], home: Option<PathBuf>) -> Places {
        let mut scratch: Vec<PathBuf> = scratch.iter().map(|s| real(s)).collect();
        scratch.dedup();
        Places {
            root: real(root),
            scratch,
            home,
        }
    }

    /// The places around `root` on this machine.
    pub fn of_this_machine(root: &Path) -> Places {
        let mut scratch = vec![PathBuf::from("/tmp"), PathBuf::from("/var/tmp")];
        scratch.extend(std::env::var_os("TMPDIR").map(PathBuf::from));
        let home = hookshot_core::paths::home();
        Places::new(root, &scratch, home)
    }

    /// `path` as a command uses it in `cwd` (None: a directory a `cd` made
    /// unknowable); absolute and `~` paths do not need one.
    pub fn at(&self, cwd: &Option<PathBuf>, path: &str, follow_last: bool) -> Option<PathBuf> {
        let cwd = if path.starts_with('/') || path.starts_with('~') {
            PathBuf::from("/")
        } else {
            cwd.clone()?
        };
        self.resolve(&cwd, path, follow_last)
    }

    /// `path` as used in `cwd`: `~` is home (None when home is unknown),
    /// every component but the last is followed through symlinks, and the
    /// last one too when `follow_last` (a write follows it; `rm -r link`
    /// removes the link, `rm -r link/` what it points to).
    pub fn resolve(&self, cwd: &Path, path: &str, follow_last: bool) -> Option<PathBuf> {
        let joined = if path == "~" || path.starts_with("~/") {
            self.home
                .as_ref()?
                .join(path.trim_start_matches('~').trim_start_matches('/'))
        } else {
            cwd.join(path)
        };
        // The standard streams are symlinks to wherever output goes (a
        // log file, a pipe): writing to them is not writing there.
        let lexical = hookshot_core::paths::lexical_join(Path::new("/"), &joined.to_string_lossy());
        if harmless(&lexical) {
            return Some(lexical);
        }
        let parts: Vec<Component<'_>> = joined.components().collect();
        let mut out = PathBuf::from("/");
        for (i, c) in parts.iter().enumerate() {
            match c {
                Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
                Component::ParentDir => {
                    out.pop();
                }
                Component::Normal(name) => {
                    out.push(name);
                    let last = i + 1 == parts.len();
                    if (!last || follow_last || path.ends_with('/'))
                        && let Ok(r) = std::fs::canonicalize(&out)
                    {
                        out = r;
                    }
                }
            }
        }
        Some(out)
    }

    /// Which place `p` (resolved) is.
    pub fn classify(&self, p: &Path) -> Place {
        if harmless(p) {
            return Place::Harmless;
        }
        if p.starts_with("/dev") {
            return Place::Device;
        }
        if p == self.root {
            return Place::Root;
        }
        if p.starts_with(&self.root) {
            return Place::Project;
        }
        // A scratch path that holds the project is the project's parent,
        // not scratch; one in (or holding) the home is the user's, not
        // scratch either.
        let homely = self.home.as_ref().is_some_and(|h| p.starts_with(h) || h.starts_with(p));
        if !homely && !self.root.starts_with(p) && self.scratch.iter().any(|s| p != s && p.starts_with(s)) {
            return Place::Scratch;
        }
        Place::Outside
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlinks_are_followed_before_dot_dot_and_last_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("etclink")).unwrap();
        let places = Places::new(&root, &[], None);
        let r = |p: &str, follow| places.resolve(&places.root, p, follow).unwrap();
        assert_eq!(r("etclink/passwd", false), Path::new("/etc/passwd"));
        assert_eq!(places.classify(&r("etclink", false)), Place::Project);
        assert_eq!(places.classify(&r("etclink", true)), Place::Outside);
        assert_eq!(places.classify(&r("etclink/", false)), Place::Outside);
        assert_eq!(places.classify(&r("src/../..", false)), Place::Outside);
        assert_eq!(places.classify(&r(".", false)), Place::Root);
        assert_eq!(places.classify(&r("/dev/null", true)), Place::Harmless);
        // Wherever stderr leads (here: a file outside), it is stderr.
        assert_eq!(places.classify(&r("/dev/stderr", true)), Place::Harmless);
        assert_eq!(places.classify(&r("/dev/fd/2", true)), Place::Harmless);
        assert_eq!(places.classify(&r("/dev/sda", true)), Place::Device);
        assert_eq!(places.resolve(&places.root, "~/x", false), None);
    }

    #[test]
    fn scratch_never_holds_the_project_or_the_home() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        std::fs::create_dir_all(&root).unwrap();
        let places = Places::new(&root, &[dir.path().to_path_buf()], Some(dir.path().join("home")));
        let r = |p: &str| places.classify(&places.resolve(&places.root, p, false).unwrap());
        assert_eq!(r("../other/x"), Place::Scratch);
        assert_eq!(r(".."), Place::Outside);
        assert_eq!(r("../.."), Place::Outside);
        assert_eq!(r("../home/.ssh"), Place::Outside);
    }
}
