//! The verdicts: which of the things a command was found to do are
//! dangerous, and why.

use std::path::{Path, PathBuf};

use super::places::{Place, Places};
use super::shell::{Arg, Found, Run, base};

/// Why `found` is dangerous, if it is. `links` are the symlinks the same
/// command makes before (`ln -s`), which the file system does not know of
/// yet.
pub fn judge(places: &Places, found: &Found, links: &std::collections::HashSet<PathBuf>) -> Option<String> {
    let cx = Cx { places, links };
    match found {
        Found::Danger(why) => Some(why.clone()),
        Found::Write { target, cwd } => write(&cx, target, cwd, "writes"),
        Found::Delete { target, cwd, by, whole } => delete(&cx, target, cwd, by, *whole),
        Found::Run(run) => program(&cx, run),
    }
}

/// What the rules look at besides the command.
pub struct Cx<'a> {
    /// The places.
    pub places: &'a Places,
    /// Symlinks made earlier in the command (a set: a command that makes
    /// thousands is looked up per path, not scanned).
    pub links: &'a std::collections::HashSet<PathBuf>,
}

impl Cx<'_> {
    /// A symlink made earlier in the command that `resolved` goes
    /// through (or is, when `follow`).
    fn through_link(&self, resolved: &Path, follow: bool) -> Option<&PathBuf> {
        if self.links.is_empty() {
            return None;
        }
        resolved
            .ancestors()
            .filter(|a| follow || *a != resolved)
            .find_map(|a| self.links.get(a))
    }
}

/// `path`, and where it really is when that differs.
fn shown(path: &str, resolved: &Path) -> String {
    if Path::new(path) == resolved {
        path.to_string()
    } else {
        format!("{path} (that is {})", resolved.display())
    }
}

/// Where `target` is, or why that cannot be known.
fn place(cx: &Cx<'_>, target: &Arg, cwd: &Option<PathBuf>, follow: bool) -> Result<(Place, String), String> {
    let Some(path) = target.known() else {
        return Err(format!("`{}`, which cannot be known before it runs", target.shown()));
    };
    let resolved = locate(cx, path, path, cwd, follow)?;
    Ok((cx.places.classify(&resolved), shown(path, &resolved)))
}

/// Where `path` really is, or why that cannot be known (`named` is how
/// the command wrote it).
fn locate(cx: &Cx<'_>, named: &str, path: &str, cwd: &Option<PathBuf>, follow: bool) -> Result<PathBuf, String> {
    let Some(resolved) = cx.places.at(cwd, path, follow) else {
        return Err(format!(
            "{named}, in a directory that cannot be known before it runs (after a `cd`)"
        ));
    };
    match cx.through_link(&resolved, follow) {
        Some(link) => Err(format!(
            "{named}, through the symlink {} the command makes first",
            link.display()
        )),
        None => Ok(resolved),
    }
}

/// A file written (or moved, or overwritten).
pub fn write(cx: &Cx<'_>, target: &Arg, cwd: &Option<PathBuf>, verb: &str) -> Option<String> {
    write_at(cx, target, cwd, verb, true)
}

/// A write that follows a symlink at `target` itself only when `follow`
/// (`ln -s` makes the link; it does not write through it).
fn write_at(cx: &Cx<'_>, target: &Arg, cwd: &Option<PathBuf>, verb: &str, follow: bool) -> Option<String> {
    match place(cx, target, cwd, follow) {
        Err(why) => Some(format!("{verb} {why}")),
        Ok((Place::Device, p)) => Some(format!("{verb} the device {p}")),
        Ok((Place::Outside, p)) => Some(format!("{verb} {p}, outside the project")),
        Ok(_) => None,
    }
}

/// A tree deleted by `by`; when `whole`, deleting the project itself (or
/// all it holds, `rm -r *`) is dangerous too.
fn delete(cx: &Cx<'_>, target: &Arg, cwd: &Option<PathBuf>, by: &str, whole: bool) -> Option<String> {
    let places = cx.places;
    let Some(path) = target.known() else {
        return Some(format!(
            "`{by}` of `{}`, which cannot be known before it runs",
            target.shown()
        ));
    };
    // A glob deletes what it matches in the directory before it.
    let parts: Vec<&str> = path.split('/').collect();
    let globbed = parts.iter().position(|p| p.contains(['*', '?', '[']));
    let (dir, glob) = match globbed {
        Some(i) => {
            let dir = parts[..i].join("/");
            let dir = if dir.is_empty() && path.starts_with('/') {
                "/".to_string()
            } else {
                dir
            };
            (if dir.is_empty() { ".".to_string() } else { dir }, Some(parts[i]))
        }
        None => (path.to_string(), None),
    };
    let follow = glob.is_some() || path.ends_with('/');
    let resolved = match locate(cx, path, &dir, cwd, follow) {
        Ok(r) => r,
        Err(why) => return Some(format!("`{by}` of {why}")),
    };
    let everything = glob.is_none_or(|g| g.chars().all(|c| matches!(c, '*' | '.' | '?')));
    let mut p = places.classify(&resolved);
    // What a glob matches lies strictly inside its directory.
    if glob.is_some() && !(p == Place::Root && everything) {
        p = places.classify(&resolved.join("x"));
    }
    let s = shown(&dir, &resolved);
    // A repository's `.git` (or anything in it) holds every commit and
    // stash not pushed anywhere.
    if whole && p != Place::Outside && resolved.components().any(|c| c.as_os_str() == ".git") {
        return Some(format!("`{by}` of {s}: the repository's history"));
    }
    match p {
        Place::Outside => Some(format!("`{by}` of {}, outside the project", shown_glob(&s, glob))),
        Place::Device => Some(format!("`{by}` of the device {s}")),
        Place::Root if whole && everything => Some(format!("`{by}` of {path}: the whole project")),
        _ => None,
    }
}

fn shown_glob(dir: &str, glob: Option<&str>) -> String {
    match glob {
        Some(g) => format!("{g} in {dir}"),
        None => dir.to_string(),
    }
}

/// Operands and option values of a GNU-style command (options may follow
/// operands; `--` ends them). `valued` short options take a value.
struct Parsed<'a> {
    operands: Vec<&'a Arg>,
    /// Operands after `--` start here (`git checkout -- .`).
    after_dashdash: Option<usize>,
    /// Known option words (values not included), clusters split.
    flags: Vec<String>,
    /// `(option, value)` pairs for valued options.
    values: Vec<(String, &'a Arg)>,
}

impl Parsed<'_> {
    fn has(&self, f: &str) -> bool {
        self.flags.iter().any(|x| x == f)
    }
}

fn parse<'a>(args: &'a [Arg], valued: &str, long_valued: &[&str]) -> Parsed<'a> {
    let mut p = Parsed {
        operands: Vec::new(),
        after_dashdash: None,
        flags: Vec::new(),
        values: Vec::new(),
    };
    let mut i = 0;
    let mut ended = false;
    while i < args.len() {
        let a = &args[i];
        match a.known() {
            Some("--") if !ended => {
                ended = true;
                p.after_dashdash = Some(p.operands.len());
            }
            Some(s) if !ended && s.starts_with("--") => {
                let name = s.split_once('=').map_or(s, |(n, _)| n);
                p.flags.push(name.to_string());
                if long_valued.contains(&s)
                    && let Some(v) = args.get(i + 1)
                {
                    p.values.push((s.to_string(), v));
                    i += 1;
                }
            }
            Some(s) if !ended && s.len() > 1 && s.starts_with('-') => {
                for (k, c) in s[1..].char_indices() {
                    p.flags.push(format!("-{c}"));
                    if valued.contains(c) {
                        if s.len() == 1 + k + c.len_utf8()
                            && let Some(v) = args.get(i + 1)
                        {
                            p.values.push((format!("-{c}"), v));
                            i += 1;
                        }
                        break;
                    }
                }
            }
            _ => p.operands.push(a),
        }
        i += 1;
    }
    p
}

fn first_some<T>(items: impl IntoIterator<Item = Option<T>>) -> Option<T> {
    items.into_iter().flatten().next()
}

/// Why the program `run` is dangerous, if it is.
fn program(cx: &Cx<'_>, run: &Run) -> Option<String> {
    let name = base(run.argv.first()?.known()?);
    let args = &run.argv[1..];
    let cwd = &run.cwd;
    match name {
        "rm" => rm(cx, args, cwd),
        // rimraf (and its kin) is `rm -rf` as a program.
        "rimraf" | "del-cli" | "rmrf" => {
            let p = parse(args, "", &[]);
            first_some(p.operands.iter().map(|t| delete(cx, t, cwd, name, true)))
        }
        "unlink" => first_some(
            args.iter()
                .filter(|t| t.known().is_some())
                .map(|t| delete(cx, t, cwd, "unlink", false)),
        ),
        "git" => git(args),
        "chmod" | "chown" | "chgrp" => ownership(cx, name, args, cwd),
        "dd" => first_some(args.iter().map(|a| {
            match a {
                Arg::Known(s) => s
                    .strip_prefix("of=")
                    .and_then(|t| write(cx, &Arg::Known(t.into()), cwd, "`dd` writes")),
                Arg::Unknown { raw, .. } if raw.starts_with("of=") || raw.starts_with('$') => {
                    Some(format!("`dd` writes to `{raw}`, which cannot be known before it runs"))
                }
                Arg::Unknown { .. } => None,
            }
        })),
        "shutdown" | "reboot" | "halt" | "poweroff" => Some(format!("`{name}` stops the machine")),
        "systemctl" | "init" | "telinit" => {
            let p = parse(args, "", &[]);
            let stops = p
                .operands
                .first()
                .and_then(|a| a.known())
                .is_some_and(|s| matches!(s, "poweroff" | "reboot" | "halt" | "kexec" | "0" | "6"));
            stops
                .then(|| format!("`{name}` stops the machine"))
                .or_else(|| super::catalogue::judge(name, args))
        }
        n if n.starts_with("mkfs")
            || matches!(
                n,
                "mke2fs"
                    | "fdisk"
                    | "sfdisk"
                    | "cfdisk"
                    | "parted"
                    | "gdisk"
                    | "sgdisk"
                    | "wipefs"
                    | "lvremove"
                    | "vgremove"
                    | "pvremove"
            ) =>
        {
            Some(format!("`{n}` rewrites partitions or file systems"))
        }
        "tee" => {
            let p = parse(args, "", &[]);
            first_some(p.operands.iter().map(|t| write(cx, t, cwd, "`tee` writes")))
        }
        "truncate" | "shred" => {
            let p = parse(
                args,
                "srn",
                &["--size", "--reference", "--iterations", "--random-source"],
            );
            let verb = format!("`{name}` overwrites");
            first_some(p.operands.iter().map(|t| write(cx, t, cwd, &verb)))
        }
        "cp" | "install" | "ln" | "mv" => copy(cx, name, args, cwd),
        "sed" => {
            let p = parse(args, "efl", &["--expression", "--file", "--line-length"]);
            let in_place = p.has("-i") || p.has("--in-place");
            if !in_place {
                return None;
            }
            let script_given = p.has("-e") || p.has("-f") || p.has("--expression") || p.has("--file");
            let files = p.operands.iter().skip(usize::from(!script_given));
            first_some(files.map(|t| write(cx, t, cwd, "`sed -i` edits")))
        }
        "rsync" => rsync(cx, args, cwd),
        // awk's in-place edit (`gawk -i inplace`) writes every file it reads.
        "awk" | "gawk" => {
            let known: Vec<&str> = args.iter().filter_map(Arg::known).collect();
            let in_place = known.iter().any(|a| matches!(*a, "-iinplace" | "--include=inplace"))
                || known
                    .windows(2)
                    .any(|w| matches!(w[0], "-i" | "--include") && w[1] == "inplace");
            if !in_place {
                return None;
            }
            let p = parse(
                args,
                "fvFil",
                &["--file", "--assign", "--field-separator", "--include", "--load"],
            );
            let program_given = p.has("-f") || p.has("--file");
            let files = p.operands.iter().skip(usize::from(!program_given));
            first_some(files.map(|t| write(cx, t, cwd, "`awk -i inplace` edits")))
        }
        // perl's `-i` (`-pi -e`, `-i.bak`) edits every file it reads.
        "perl"
            if args.iter().filter_map(Arg::known).any(|a| {
                // A cluster before its `-e` code; `-M`, `-m`, `-I` and `-x` take
                // the rest of the word as their value (`-MFile::Path`).
                a.strip_prefix('-').is_some_and(|c| {
                    !c.starts_with(['-', 'M', 'm', 'I', 'x'])
                        && c.split(['e', 'E']).next().is_some_and(|head| head.contains('i'))
                })
            }) =>
        {
            let p = parse(args, "eEIMmx", &[]);
            let script_given = p.has("-e") || p.has("-E");
            let files = p.operands.iter().skip(usize::from(!script_given));
            first_some(files.map(|t| write(cx, t, cwd, "`perl -i` edits")))
        }
        "setfacl" => ownership(cx, name, args, cwd),
        // An interpreter's one-liner, or a framework's own command run by
        // it (`python manage.py flush`, `php artisan db:wipe`).
        n if is_interpreter(n) => one_liner(cx, n, args, cwd).or_else(|| super::catalogue::judge(stem(n), args)),
        _ => super::catalogue::judge(name, args),
    }
}

fn is_interpreter(name: &str) -> bool {
    matches!(
        stem(name),
        "python" | "node" | "nodejs" | "perl" | "ruby" | "php" | "deno" | "bun"
    )
}

/// A program's name without its version (`python3.12` is `python`).
fn stem(name: &str) -> &str {
    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
}

/// An interpreter's one-line program (`-c`, `-e`, `--eval`) that deletes a
/// literal path: `python -c "shutil.rmtree('/x')"`, `node -e
/// "fs.rmSync('/x', {recursive: true})"`, `perl -e 'rmtree("/x")'`. The
/// path is judged as `rm -r` would judge it; a path the code computes is
/// not seen (as a script file's is not).
fn one_liner(cx: &Cx<'_>, name: &str, args: &[Arg], cwd: &Option<PathBuf>) -> Option<String> {
    // The argument: a literal path, or the home directory as each
    // language names it (`process.env.HOME`, `os.homedir()`,
    // `Path.home()`, `os.path.expanduser("~")`, `$ENV{HOME}`, ...).
    static CALLS: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(concat!(
            r#"(?:shutil\.rmtree|os\.remove|os\.unlink|os\.rmdir|os\.removedirs|rmSync|rmdirSync|unlinkSync|fs(?:\.promises)?\.(?:rm|rmdir|unlink)|rmtree|remove_tree|unlink|FileUtils\.rm_rf|FileUtils\.rm_r|FileUtils\.rm|File\.delete|Deno\.remove(?:Sync)?)\s*\(?\s*"#,
            r#"(?:['"]([^'"]+)['"]|(process\.env\.HOME|(?:os\.|require\(['"](?:node:)?os['"]\)\.)homedir\(\)|(?:pathlib\.)?Path\.home\(\)|os\.path\.expanduser\(\s*['"]~/?['"]\s*\)|os\.environ\[['"]HOME['"]\]|\$ENV\{['"]?HOME['"]?\}|Dir\.home|ENV\[['"]HOME['"]\]|Deno\.env\.get\(['"]HOME['"]\)))"#
        ))
        .ok()
    });
    let re = CALLS.as_ref()?;
    let code = args.windows(2).find_map(|w| match w[0].known() {
        Some("-c" | "-e" | "-E" | "--eval" | "-p" | "--print" | "-r") => w[1].known(),
        _ => None,
    })?;
    let by = format!("{name} one-liner");
    // A file opened for writing, or written whole, by a literal path.
    static WRITES: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(concat!(
            r#"(?:\bopen\s*\(\s*['"]([^'"]+)['"]\s*,\s*['"][wax+]"#,
            r#"|(?:writeFileSync|appendFileSync|writeFile|appendFile|truncateSync|File\.write|IO\.write|File\.open|Deno\.writeTextFile(?:Sync)?|Deno\.writeFile(?:Sync)?|Deno\.truncate(?:Sync)?)\s*\(\s*['"]([^'"]+)['"]"#,
            r#"|Path\(\s*['"]([^'"]+)['"]\s*\)\.(?:write_text|write_bytes|unlink|rmdir))"#
        ))
        .ok()
    });
    if let Some(w) = WRITES.as_ref()
        && let Some(found) = first_some(w.captures_iter(code).map(|c| {
            let path = c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3))?.as_str().to_string();
            write(cx, &Arg::Known(path), cwd, &format!("`{by}` writes"))
        }))
    {
        return Some(found);
    }
    first_some(re.captures_iter(code).map(|c| {
        let path = match (c.get(1), &cx.places.home) {
            (Some(literal), _) => literal.as_str().to_string(),
            (None, Some(home)) => home.display().to_string(),
            (None, None) => return Some(format!("`{by}` deletes the home directory")),
        };
        delete(cx, &Arg::Known(path), cwd, &by, true)
    }))
}

/// `rsync --delete`: the destination loses what the source lacks, so a
/// destination outside the project (or on another host) is a deletion
/// there.
fn rsync(cx: &Cx<'_>, args: &[Arg], cwd: &Option<PathBuf>) -> Option<String> {
    let p = parse(args, "e", &["--rsh", "--exclude", "--include", "--filter"]);
    if !p
        .flags
        .iter()
        .any(|f| f.starts_with("--delete") || f == "--remove-source-files")
    {
        return None;
    }
    let dest = p.operands.last()?;
    match dest.known() {
        Some(d) if d.contains(':') && !d.starts_with('/') && !d.starts_with('.') => {
            Some(format!("`rsync --delete` into {d}, on another host"))
        }
        _ => delete(cx, dest, cwd, "rsync --delete", true),
    }
}

fn rm(cx: &Cx<'_>, args: &[Arg], cwd: &Option<PathBuf>) -> Option<String> {
    let p = parse(args, "", &[]);
    // An unquoted unknown word may itself be `-r`.
    let maybe = p.operands.iter().any(|a| matches!(a, Arg::Unknown { split: true, .. }));
    let recursive = p.has("-r") || p.has("-R") || p.has("--recursive") || maybe;
    if !recursive {
        // A single file outside the project (`rm ~/.bashrc`) is as gone;
        // a name computed at run time (`rm "$f"` in a loop) is the
        // everyday case and is not asked about.
        return first_some(
            p.operands
                .iter()
                .filter(|t| t.known().is_some())
                .map(|t| delete(cx, t, cwd, "rm", false)),
        );
    }
    first_some(p.operands.iter().map(|t| delete(cx, t, cwd, "rm -r", true)))
}

fn git(args: &[Arg]) -> Option<String> {
    // Global options come before the subcommand; some take a value.
    let mut i = 0;
    let sub = loop {
        let a = args.get(i)?;
        let Some(s) = a.known() else {
            return Some(format!(
                "`git {}`: which git command runs cannot be known before it runs",
                a.shown()
            ));
        };
        if matches!(
            s,
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env" | "--super-prefix"
        ) {
            i += 2;
        } else if s.starts_with('-') {
            i += 1;
        } else {
            break s;
        }
    };
    let rest = &args[i + 1..];
    if matches!(sub, "push" | "reset" | "clean")
        && let Some(u) = rest.iter().find(|a| a.known().is_none())
    {
        return Some(format!(
            "`git {sub}` with `{}`, which cannot be known before it runs (it could be a forcing option)",
            u.shown()
        ));
    }
    let p = parse(rest, "o", &["--push-option", "--repo", "--receive-pack", "--exec"]);
    let words: Vec<&str> = p.operands.iter().filter_map(|a| a.known()).collect();
    match sub {
        "push" => {
            let forced = p.has("--force")
                || p.has("-f")
                || p.has("--force-with-lease")
                || p.has("--force-if-includes")
                || words.iter().any(|w| w.starts_with('+'));
            let deletes = p.has("--delete")
                || p.has("-d")
                || p.has("--mirror")
                || p.has("--prune")
                || words.iter().skip(1).any(|w| w.starts_with(':'));
            if forced {
                Some("`git push --force` rewrites the remote's history".into())
            } else if deletes {
                Some("`git push` that deletes or overwrites remote branches".into())
            } else {
                None
            }
        }
        "reset" if p.has("--hard") => Some("`git reset --hard` discards uncommitted work".into()),
        // Both move the branch and rewrite the working tree to match.
        "reset" if p.has("--keep") || p.has("--merge") => {
            Some("`git reset --keep`/`--merge` moves the branch away from its commits and rewrites files".into())
        }
        "clean" if (p.has("-f") || p.has("--force")) && !p.has("-n") && !p.has("--dry-run") => {
            Some("`git clean -f` deletes untracked files".into())
        }
        _ => GIT_LOSSES
            .iter()
            .find(|(name, loses, _)| *name == sub && loses(&p, &words, rest))
            .map(|(_, _, why)| (*why).to_string()),
    }
}

/// Git commands that lose work as surely as `reset --hard`: the
/// subcommand, when it does (its parsed options, its known operands, its
/// words), and why. Near misses stay allowed: `checkout BRANCH`,
/// `restore --staged`, `branch -d`, `stash`/`stash pop`, plain `gc`.
type GitLoss = (&'static str, fn(&Parsed<'_>, &[&str], &[Arg]) -> bool, &'static str);
const GIT_LOSSES: &[GitLoss] = &[
    (
        "checkout",
        |p, words, _| {
            p.has("-f")
                || p.has("--force")
                || p.after_dashdash.is_some_and(|at| at < p.operands.len())
                || words.iter().any(|w| matches!(*w, "." | ":/" | "*"))
        },
        "`git checkout` of paths discards their uncommitted changes",
    ),
    (
        "checkout",
        |p, _, _| p.has("-B"),
        "`git checkout -B` resets an existing branch to another commit",
    ),
    (
        "fetch",
        |_, words, _| words.iter().any(|w| w.starts_with('+') && w.contains(':')),
        "`git fetch +src:dst` overwrites a local branch whatever it holds",
    ),
    (
        "prune",
        |_, _, rest| rest.iter().filter_map(Arg::known).any(|w| w.starts_with("--expire")),
        "`git prune --expire` deletes unreachable commits for good",
    ),
    (
        "restore",
        |p, words, _| !words.is_empty() && (!p.has("--staged") && !p.has("-S") || p.has("--worktree") || p.has("-W")),
        "`git restore` of the working tree discards uncommitted changes",
    ),
    (
        "stash",
        |_, words, _| matches!(words.first(), Some(&"drop" | &"clear")),
        "`git stash drop`/`clear` loses stashed work",
    ),
    (
        "branch",
        |p, words, _| {
            p.has("-D")
                || (p.has("-d") || p.has("--delete")) && (p.has("-f") || p.has("--force"))
                // `git branch -f main HEAD~5` moves an existing branch.
                || (p.has("-f") || p.has("--force")) && words.len() >= 2
                || p.has("-C") || p.has("-M")
        },
        "`git branch -D`/`-f` deletes or moves a branch whether or not its commits are kept elsewhere",
    ),
    (
        "reflog",
        |_, words, _| matches!(words.first(), Some(&"expire" | &"delete")),
        "`git reflog expire` removes the record that recovers lost commits",
    ),
    (
        "gc",
        |_, _, rest| {
            rest.iter()
                .filter_map(Arg::known)
                .any(|w| matches!(w, "--prune=now" | "--prune=all") || w.starts_with("--prune=") && w.ends_with(".now"))
        },
        "`git gc --prune=now` deletes unreachable commits for good",
    ),
    (
        "filter-branch",
        |_, _, _| true,
        "`git filter-branch` rewrites the whole history",
    ),
    (
        "filter-repo",
        |_, _, _| true,
        "`git filter-repo` rewrites the whole history",
    ),
    (
        "update-ref",
        |p, _, _| p.has("-d") || p.has("--delete"),
        "`git update-ref -d` deletes a ref",
    ),
    (
        "switch",
        |p, _, _| p.has("-f") || p.has("--force") || p.has("--discard-changes"),
        "`git switch --discard-changes` discards uncommitted changes",
    ),
    (
        "worktree",
        |p, words, _| words.first() == Some(&"remove") && (p.has("-f") || p.has("--force")),
        "`git worktree remove --force` deletes a worktree with its uncommitted changes",
    ),
];

/// The folders of the system whose files' modes and owners the machine
/// depends on (but `/usr/local`, which users manage themselves).
const SYSTEM_DIRS: &[&str] = &[
    "/etc", "/bin", "/sbin", "/usr", "/lib", "/lib64", "/lib32", "/boot", "/var/lib", "/root",
];

/// Whether a chmod mode takes a right away from the owner (`000`, `0644`
/// is not; `a-r`, `u-w`, `-x`, `a=`).
fn takes_away(mode: &str) -> bool {
    if !mode.is_empty() && mode.chars().all(|c| c.is_digit(8)) {
        let digits: Vec<u32> = mode.chars().filter_map(|c| c.to_digit(8)).collect();
        let owner = digits
            .len()
            .checked_sub(3)
            .and_then(|i| digits.get(i))
            .copied()
            .unwrap_or(0);
        return owner & 6 != 6;
    }
    mode.split(',').any(|clause| {
        let who: String = clause.chars().take_while(|c| "ugoa".contains(*c)).collect();
        let ops = &clause[who.len()..];
        let owner = who.is_empty() || who.contains('u') || who.contains('a');
        owner
            && (ops.starts_with('-') && ops[1..].contains(['r', 'w', 'x'])
                || ops.starts_with('=') && !ops[1..].contains('r'))
    })
}

/// Whether a chmod mode gives others write access.
fn world_writable(mode: &str) -> bool {
    if !mode.is_empty() && mode.chars().all(|c| c.is_digit(8)) {
        return mode
            .chars()
            .last()
            .and_then(|c| c.to_digit(8))
            .is_some_and(|d| d & 2 != 0);
    }
    mode.split(',').any(|clause| {
        let who: String = clause.chars().take_while(|c| "ugoa".contains(*c)).collect();
        let ops = &clause[who.len()..];
        (who.contains('o') || who.contains('a'))
            && ops
                .split(['-'])
                .next()
                .is_some_and(|granting| (granting.contains('+') || granting.contains('=')) && granting.contains('w'))
    })
}

fn ownership(cx: &Cx<'_>, name: &str, args: &[Arg], cwd: &Option<PathBuf>) -> Option<String> {
    // setfacl's ACL comes with its option (`-m u:x:rwx`), not as an operand.
    let setfacl = name == "setfacl";
    let p = if setfacl {
        parse(
            args,
            "mMxX",
            &[
                "--modify",
                "--modify-file",
                "--remove",
                "--remove-file",
                "--set",
                "--set-file",
            ],
        )
    } else {
        parse(args, "", &[])
    };
    let recursive = p.has("-R") || p.has("--recursive");
    let reference = setfacl || p.flags.iter().any(|f| f == "--reference");
    if !recursive {
        // One file's mode or owner: the system's files (`chmod 000
        // /etc/passwd`, `chown me /etc/sudoers`) and the home folder itself
        // lock the machine or its user out; the user's own files
        // (`chmod 600 ~/.ssh/id_rsa`) and the project's are theirs.
        // (`chmod +x /usr/local/bin/tool` adds a right and stays allowed.)
        let targets = if reference {
            &p.operands[..]
        } else {
            p.operands.get(1..).unwrap_or_default()
        };
        let mode = (name == "chmod" && !reference)
            .then(|| p.operands.first().and_then(|m| m.known()))
            .flatten();
        let locks = match mode {
            Some(m) => takes_away(m) || world_writable(m),
            None => name != "setfacl",
        };
        if !locks {
            return None;
        }
        let home = cx.places.home.as_deref();
        return first_some(targets.iter().map(|t| match place(cx, t, cwd, true) {
            Ok((Place::Outside, shown_as)) => {
                let at = cx.places.at(cwd, t.known()?, true)?;
                let users = home.is_some_and(|h| at.starts_with(h) && at != h);
                let system = SYSTEM_DIRS.iter().any(|d| at.starts_with(d)) && !at.starts_with("/usr/local")
                    || at == Path::new("/");
                (!users && (system || home == Some(at.as_path())))
                    .then(|| format!("`{name}` of {shown_as}, a file of the system or the home folder itself"))
            }
            _ => None,
        }));
    }
    let (spec, targets) = match p.operands.split_first() {
        Some((spec, targets)) if !reference => (Some(*spec), targets),
        _ => (None, p.operands.as_slice()),
    };
    if name == "chmod"
        && let Some(spec) = spec
    {
        match spec.known() {
            None => {
                return Some(format!(
                    "`chmod -R` with the mode `{}`, which cannot be known before it runs",
                    spec.shown()
                ));
            }
            Some(mode) if world_writable(mode) => {
                return Some(format!("`chmod -R {mode}` makes a whole tree writable by everyone"));
            }
            Some(_) => {}
        }
    }
    first_some(targets.iter().map(|t| match place(cx, t, cwd, true) {
        Err(why) => Some(format!("`{name} -R` of {why}")),
        Ok((Place::Outside | Place::Device, p)) => Some(format!("`{name} -R` of {p}, outside the project")),
        Ok(_) => None,
    }))
}

/// `cp`, `install`, `ln`: the destination is written; `mv` also takes
/// its sources away from where they are.
fn copy(cx: &Cx<'_>, name: &str, args: &[Arg], cwd: &Option<PathBuf>) -> Option<String> {
    let p = parse(
        args,
        "tSmogT",
        &["--target-directory", "--suffix", "--mode", "--owner", "--group"],
    );
    let target_dir = p
        .values
        .iter()
        .find(|(o, _)| o == "-t" || o == "--target-directory")
        .map(|(_, v)| *v);
    let (sources, dest): (&[&Arg], Option<&Arg>) = match target_dir {
        Some(d) => (&p.operands, Some(d)),
        None if p.operands.len() >= 2 => {
            let (last, sources) = p.operands.split_last()?;
            (sources, Some(*last))
        }
        None => (&p.operands, None),
    };
    let verb = format!("`{name}` writes");
    let moved = if name == "mv" { sources } else { &[] };
    let follow = name != "ln";
    first_some(
        dest.map(|d| write_at(cx, d, cwd, &verb, follow))
            .into_iter()
            .chain(moved.iter().map(|s| write(cx, s, cwd, "`mv` moves"))),
    )
}
