//! The npm packages and the wheel, installed as a user installs them:
//! `scripts/package.py` lays them out around the binary under test, npm
//! installs the tarballs into a fresh prefix and pip the wheel into a fresh
//! venv, and each installed `hookshot` runs with no Rust toolchain on PATH:
//! `--version`, `install --agent claude` into a fresh home, and one event
//! through the command it registered, which must be the native binary (the
//! node launcher adds no process to the hook path). Also: `install` run
//! from a package runner's cache (`npx`) registers a lasting copy, and
//! `npm install -g hookshot-cli` from a registry resolves this machine's
//! platform package (scripts/cross.py serves the registry).
//!
//! Needs `npm` and Python 3 with `venv`; when either is missing the tests
//! fail and say why. Left out of `cargo test` (ignored, with the reason);
//! `.ci/run` runs them: `cargo test --test packages -- --ignored`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

/// The packages, laid out once for every test of this binary.
fn packages() -> &'static Path {
    static OUT: OnceLock<tempfile::TempDir> = OnceLock::new();
    OUT.get_or_init(|| {
        let out = tempfile::tempdir().unwrap();
        let status = Command::new("python3")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/package.py"))
            .args(["--binary", env!("CARGO_BIN_EXE_hookshot"), "--out"])
            .arg(out.path())
            .stdout(Stdio::null())
            .status()
            .expect("python3 runs scripts/package.py");
        assert!(
            status.success(),
            "scripts/package.py failed (it needs npm for `npm pack`)"
        );
        out
    })
    .path()
}

fn one(ext: &str, prefix: &str) -> PathBuf {
    std::fs::read_dir(packages())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            name.ends_with(ext) && name.starts_with(prefix)
        })
        .unwrap_or_else(|| panic!("no {prefix}*{ext} in the packages"))
}

/// `./NAME` of a package in the packages folder.
fn relative(package: &Path) -> String {
    format!("./{}", package.file_name().unwrap().to_string_lossy())
}

/// PATH for a user who installed the package and nothing of Rust's.
fn user_path(bin: &Path) -> String {
    format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display())
}

fn run(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().expect("the command starts");
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `hookshot` of an installed package, used as a user would: the version,
/// an install for Claude Code, and a PreToolUse event through what it
/// registered (a user hook refuses `rm`). Returns the registered program.
fn used_like_a_user(hookshot: &Path, bin: &Path) -> String {
    let home = tempfile::tempdir().unwrap();
    let env = |c: &mut Command| {
        c.env_clear()
            .env("HOME", home.path())
            .env("PATH", user_path(bin))
            .current_dir(home.path());
    };
    let mut version = Command::new(hookshot);
    version.arg("--version");
    env(&mut version);
    let out = run(&mut version);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(env!("CARGO_PKG_VERSION")),
        "{out:?}"
    );
    let mut install = Command::new(hookshot);
    install.args(["install", "--agent", "claude"]);
    env(&mut install);
    run(&mut install);
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join(".claude/settings.json")).unwrap()).unwrap();
    let command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .expect("a registered command")
        .to_string();
    // The program first (`PROGRAM fire --agent claude PreToolUse || ...`).
    let program = command
        .split_once(" fire ")
        .map(|(p, _)| p)
        .expect("the registration names its program")
        .to_string();
    std::fs::create_dir_all(home.path().join(".config/hookshot")).unwrap();
    std::fs::write(
        home.path().join(".config/hookshot/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo 'no rm here' >&2; exit 2"}]}]}}"#,
    )
    .unwrap();
    let mut event = Command::new("/bin/sh");
    event
        .args(["-c", &command])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    env(&mut event);
    let mut child = event.spawn().unwrap();
    let input = serde_json::json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"}, "cwd": home.path()});
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no rm here"));
    program
}

#[test]
#[ignore = "end-to-end: npm and pip installs, 20 s; .ci/run's end-to-end step runs them (cargo test -- --ignored)"]
fn every_package_carries_the_readme_and_the_licence() {
    for prefix in ["hookshot-cli-0", "hookshot-cli-linux-"] {
        let out = run(Command::new("tar").arg("tzf").arg(one(".tgz", prefix)));
        let listing = String::from_utf8_lossy(&out.stdout);
        for file in ["package/README.md", "package/LICENSE"] {
            assert!(listing.lines().any(|l| l == file), "{prefix}: no {file} in\n{listing}");
        }
    }
    let wheel = std::fs::File::open(one(".whl", "hookshot_cli-")).unwrap();
    let mut zip = zip_listing(wheel);
    zip.sort();
    assert!(zip.iter().any(|n| n.ends_with(".dist-info/LICENSE")), "{zip:?}");
}

/// The names in a zip file (its central directory), read with the
/// standard library: `unzip` is not on every CI image.
fn zip_listing(mut file: std::fs::File) -> Vec<String> {
    use std::io::Read;
    let mut data = Vec::new();
    file.read_to_end(&mut data).unwrap();
    let mut names = Vec::new();
    let mut i = 0;
    while i + 46 <= data.len() {
        if data[i..i + 4] == [0x50, 0x4b, 0x01, 0x02] {
            let n = u16::from_le_bytes([data[i + 28], data[i + 29]]) as usize;
            let extra = u16::from_le_bytes([data[i + 30], data[i + 31]]) as usize;
            let comment = u16::from_le_bytes([data[i + 32], data[i + 33]]) as usize;
            names.push(String::from_utf8_lossy(&data[i + 46..i + 46 + n]).into_owned());
            i += 46 + n + extra + comment;
        } else {
            i += 1;
        }
    }
    names
}

#[test]
#[ignore = "end-to-end: npm and pip installs, 20 s; .ci/run's end-to-end step runs them (cargo test -- --ignored)"]
fn the_npm_packages_install_and_register_the_native_binary() {
    let prefix = tempfile::tempdir().unwrap();
    let out = Command::new("npm")
        .args([
            "install",
            "--global",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--prefix",
        ])
        .arg(prefix.path())
        // As the README says: relative paths starting with `./` (npm reads
        // `dist/x.tgz` as a GitHub repository).
        .arg(relative(&one(".tgz", "hookshot-cli-0")))
        .arg(relative(&one(".tgz", "hookshot-cli-linux-")))
        .current_dir(packages())
        .output()
        .expect("npm is installed (Node.js)");
    assert!(
        out.status.success(),
        "npm install: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bin = prefix.path().join("bin");
    let program = used_like_a_user(&bin.join("hookshot"), &bin);
    assert!(
        program.ends_with("/hookshot-cli-linux-x64/bin/hookshot") && !program.ends_with(".js"),
        "install registered {program}, not the platform package's native binary"
    );
    // The launcher gives the binary's exit code back unchanged.
    let status = Command::new(bin.join("hookshot"))
        .args(["validate", "/nonexistent/settings.json"])
        .env("PATH", user_path(&bin))
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let native = Command::new(env!("CARGO_BIN_EXE_hookshot"))
        .args(["validate", "/nonexistent/settings.json"])
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), native.code());
    assert_ne!(native.code(), Some(0));
}

#[test]
#[ignore = "end-to-end: npm and pip installs, 20 s; .ci/run's end-to-end step runs them (cargo test -- --ignored)"]
fn the_wheel_installs_into_a_venv() {
    let venv = tempfile::tempdir().unwrap();
    run(Command::new("python3").args(["-m", "venv"]).arg(venv.path()));
    run(Command::new(venv.path().join("bin/pip"))
        .args(["install", "--no-index", "--quiet", "--disable-pip-version-check"])
        .arg(relative(&one(".whl", "hookshot_cli-")))
        .current_dir(packages()));
    let bin = venv.path().join("bin");
    let program = used_like_a_user(&bin.join("hookshot"), &bin);
    assert_eq!(
        Path::new(&program),
        std::fs::canonicalize(bin.join("hookshot")).unwrap(),
        "install registered {program}"
    );
}

/// `npm install -g hookshot-cli` as a user runs it, from a registry (one
/// `scripts/cross.py` serves on a local port): npm resolves the launcher's
/// optional dependency for this machine (os, cpu, libc) and `hookshot`
/// runs it; told another machine's platform, npm takes that package and
/// the launcher, with node reporting that platform, picks it; pip installs
/// the wheel for its tag.
#[test]
#[ignore = "end-to-end: npm and pip installs, 20 s; .ci/run's end-to-end step runs them (cargo test -- --ignored)"]
fn npm_resolves_this_machines_package_from_a_registry() {
    let out = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/cross.py"))
        .args(["--packages-of", env!("CARGO_BIN_EXE_hookshot")])
        .output()
        .expect("python3 runs scripts/cross.py");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        said.contains("`npm install -g hookshot-cli` from a registry installs and runs hookshot-cli-"),
        "{said}"
    );
}

/// `npx hookshot install` runs the binary from npm's cache, which npm
/// cleans: install registers a copy of its own instead.
#[test]
#[ignore = "end-to-end: npm and pip installs, 20 s; .ci/run's end-to-end step runs them (cargo test -- --ignored)"]
fn install_from_a_package_runners_cache_registers_a_lasting_copy() {
    let home = tempfile::tempdir().unwrap();
    let cached = home
        .path()
        .join(".npm/_npx/4f6a1c2e/node_modules/hookshot-cli-linux-x64/bin/hookshot");
    std::fs::create_dir_all(cached.parent().unwrap()).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_hookshot"), &cached).unwrap();
    let out = run(Command::new(&cached)
        .args(["install", "--agent", "claude"])
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", "/usr/bin:/bin"));
    let settings = std::fs::read_to_string(home.path().join(".claude/settings.json")).unwrap();
    let lasting = std::fs::canonicalize(home.path())
        .unwrap()
        .join(".local/share/hookshot/bin/hookshot");
    assert!(
        settings.contains(&format!("\"{} fire ", lasting.display())),
        "{settings}"
    );
    assert!(!settings.contains("_npx"), "{settings}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("lasting copy"));
    let version = run(Command::new(&lasting).arg("--version"));
    assert!(String::from_utf8_lossy(&version.stdout).contains(env!("CARGO_PKG_VERSION")));
}

/// What the README tells a new user to run: `npx hookshot-cli install
/// --agent claude` (here from the local tarballs, npm's cache in a fresh
/// home): it works, and what it registers outlives npx's cache.
#[test]
#[ignore = "end-to-end: npm and pip installs, 20 s; .ci/run's end-to-end step runs them (cargo test -- --ignored)"]
fn npx_hookshot_cli_install_works() {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new("npx")
        .args(["--yes", "--offline", "--package"])
        .arg(one(".tgz", "hookshot-cli-0"))
        .arg("--package")
        .arg(one(".tgz", "hookshot-cli-linux-"))
        .args(["hookshot", "install", "--agent", "claude"])
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("npm_config_cache", home.path().join(".npm"))
        .env("npm_config_update_notifier", "false")
        .output()
        .expect("npx is installed (Node.js)");
    assert!(out.status.success(), "npx: {}", String::from_utf8_lossy(&out.stderr));
    let settings = std::fs::read_to_string(home.path().join(".claude/settings.json")).unwrap();
    assert!(
        settings.contains("/.local/share/hookshot/bin/hookshot fire ") && !settings.contains("_npx"),
        "{settings}"
    );
}
