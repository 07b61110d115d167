//! The rooms of the house, checked: which crate may depend on which, which
//! module of the command line may import which, and what an embedder of
//! the library gets. A change that runs an arrow the wrong way fails here
//! with the file that did it, instead of in a review months later.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `hookshot-*` crates a member's `[dependencies]` names (not its
/// dev-dependencies: tests may use anything).
fn our_dependencies(manifest: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let mut in_deps = false;
    let mut deps = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps
            && let Some(name) = line.split(['.', ' ', '=']).next()
            && (name == "hookshot" || name.starts_with("hookshot-"))
        {
            deps.insert(name.to_string());
        }
    }
    deps
}

#[test]
fn each_crate_depends_only_on_the_rooms_below_it() {
    // The stages know the core and nothing else of ours; the built-ins are
    // hooks built from settings (core and registry); only the facade wires
    // stages together, and only the command line and the replay loop sit
    // above it.
    let allowed: BTreeMap<&str, &[&str]> = BTreeMap::from([
        ("core", &[][..]),
        // What the system answers differently on Linux and macOS, and the
        // one foreign call: a floor of its own, under anything that asks.
        ("platform", &[][..]),
        ("registry", &["hookshot-core"][..]),
        ("planner", &["hookshot-core"][..]),
        ("runner", &["hookshot-core", "hookshot-platform"][..]),
        ("aggregator", &["hookshot-core"][..]),
        ("builtins", &["hookshot-core", "hookshot-registry"][..]),
        (
            "facade",
            &[
                "hookshot-core",
                "hookshot-platform",
                "hookshot-registry",
                "hookshot-planner",
                "hookshot-runner",
                "hookshot-aggregator",
                "hookshot-builtins",
            ][..],
        ),
        ("replay", &["hookshot", "hookshot-core", "hookshot-runner"][..]),
    ]);
    let mut wrong = Vec::new();
    for (member, may) in &allowed {
        let manifest = root().join(member).join("Cargo.toml");
        for dep in our_dependencies(&manifest) {
            if !may.contains(&dep.as_str()) {
                wrong.push(format!("{}: depends on {dep}", manifest.display()));
            }
        }
    }
    let members = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    for member in members
        .lines()
        .find(|l| l.starts_with("members"))
        .unwrap()
        .split('"')
        .skip(1)
        .step_by(2)
    {
        if member != "integration-tests" && !allowed.contains_key(member) {
            wrong.push(format!(
                "{member}: a workspace member this test does not place in a room"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The `crate::NAME` modules a file of the command line refers to.
fn crate_refs(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("crate::") {
        // `hookshot_crate::` and the like are not ours.
        if text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let name: String = text[i + 7..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    // `use crate::{a, b}` names several at once.
    for (i, _) in text.match_indices("crate::{") {
        let inner = &text[i + 8..];
        let inner = &inner[..inner.find('}').unwrap_or(0)];
        out.extend(
            inner
                .split(',')
                .filter_map(|p| p.trim().split("::").next())
                .filter(|s| !s.is_empty())
                .map(String::from),
        );
    }
    out.remove("");
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top module of the command line a file of `src/` belongs to
/// (`cmd` for every command, `main` for main.rs).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

#[test]
fn no_command_imports_another_and_shared_modules_import_no_command() {
    let src = root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    // Module -> the modules it refers to, for the cycle check.
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let module = module_of(&src, file);
        let refs = crate_refs(&text);
        if module == "cmd" {
            let own = file.file_stem().unwrap().to_string_lossy().to_string();
            if refs.contains("cmd")
                && text
                    .match_indices("crate::cmd::")
                    .any(|(i, _)| !text[i + 12..].starts_with(&own))
            {
                wrong.push(format!("{}: a command imports another command", file.display()));
            }
        } else if module != "main" {
            for top in ["cmd", "Cli", "Command", "Global", "LogFormat"] {
                if refs.contains(top) {
                    wrong.push(format!(
                        "{}: a shared module imports crate::{top}, which is above it",
                        file.display()
                    ));
                }
            }
        }
        if module != "main" {
            let e = edges.entry(module.clone()).or_default();
            e.extend(refs.into_iter().filter(|r| *r != module));
        }
    }
    // No circle among the shared modules and the commands' folder.
    let modules: BTreeSet<String> = edges.keys().cloned().collect();
    for start in &modules {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        while let Some((at, path)) = stack.pop() {
            for next in edges.get(&at).into_iter().flatten().filter(|n| modules.contains(*n)) {
                if next == start {
                    wrong.push(format!("a circle of imports: {} -> {start}", path.join(" -> ")));
                } else if !path.contains(next) && path.len() < modules.len() {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn normal_dependencies(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-p",
            "hookshot",
        ])
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn crate_names(tree: &str) -> BTreeSet<String> {
    tree.lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(String::from)
        .collect()
}

#[test]
fn an_embedder_gets_the_engine_and_only_the_clients_it_asks_for() {
    let full = crate_names(&normal_dependencies(&[]));
    let cli_only = [
        "clap",
        "clap_complete",
        "clap_mangen",
        "indicatif",
        "tracing-subscriber",
        "opentelemetry",
        "opentelemetry_sdk",
        "opentelemetry-otlp",
        "tracing-opentelemetry",
    ];
    let leaked: Vec<_> = cli_only.iter().filter(|c| full.contains(**c)).collect();
    assert!(
        leaked.is_empty(),
        "the library depends on command-line crates: {leaked:?}"
    );
    assert!(
        full.contains("ureq") && full.contains("rmcp"),
        "the default features have http and MCP"
    );
    let bare = crate_names(&normal_dependencies(&["--no-default-features"]));
    let clients: Vec<_> = ["ureq", "rmcp", "rustls"]
        .into_iter()
        .filter(|c| bare.contains(*c))
        .collect();
    assert!(clients.is_empty(), "--no-default-features still brings {clients:?}");
}
