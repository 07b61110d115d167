#!/usr/bin/env python3
"""Lays out hookshot's npm packages and Python wheel from one native binary
and the workspace's one version number.

    scripts/package.py --out DIR [--binary PATH] [--target TRIPLE]

Without --binary it builds one, static on Linux (`cargo static-build`'s
flags), for --target when given: another machine's target is built with
`cargo zigbuild` (zig as the C compiler and linker: `pip install ziglang
cargo-zigbuild`, and `rustup target add TRIPLE`), which links macOS
binaries without an SDK. DIR receives:

- `hookshot-cli-<platform>-<version>.tgz`: the platform package holding the
  binary (`hookshot-cli-linux-x64`, `hookshot-cli-linux-x64-musl`, ...),
  with `os`, `cpu` (and `libc`) so npm installs only the one that fits;
- `hookshot-cli-<version>.tgz`: the `hookshot-cli` package, whose `bin`
  (`hookshot`) is a small node launcher that finds the platform package's
  binary (every platform package is an optional dependency, the way Claude
  Code and Codex ship theirs);
- `hookshot_cli-<version>-py3-none-<tag>.whl`: a wheel whose only content
  is the binary as the script `hookshot` (what maturin's `bindings = "bin"`
  makes), tagged with the oldest manylinux (or musllinux) its C library
  symbols allow, for `pipx install` / `uv tool install`.

The packages are called `hookshot-cli`: on both npm and PyPI the name
`hookshot` belongs to other, unrelated projects (npm's installs a command
called `hookshot` too), which a user must never get by mistake.

Publishing needs credentials and is not done here. Only the Python standard
library and `npm` (for `npm pack`) are needed.
"""

import argparse
import base64
import hashlib
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAUNCHER = os.path.join(ROOT, "packaging", "npm", "hookshot-cli")
# What a package's page shows (npm, PyPI) and the licence every package carries.
PACKAGE_README = os.path.join(ROOT, "packaging", "README.md")
LICENSE = os.path.join(ROOT, "LICENSE")
# The packages' name (see above: `hookshot` is taken on npm and PyPI).
NAME = "hookshot-cli"

# Rust target triple -> (npm os, npm cpu, libc or None, wheel arch).
TARGETS = {
    "x86_64-unknown-linux-gnu": ("linux", "x64", "glibc", "x86_64"),
    "x86_64-unknown-linux-musl": ("linux", "x64", "musl", "x86_64"),
    "aarch64-unknown-linux-gnu": ("linux", "arm64", "glibc", "aarch64"),
    "aarch64-unknown-linux-musl": ("linux", "arm64", "musl", "aarch64"),
    "aarch64-apple-darwin": ("darwin", "arm64", None, "arm64"),
    "x86_64-apple-darwin": ("darwin", "x64", None, "x86_64"),
}
# Every platform package the launcher may find, whether built here or not.
PLATFORMS = ["linux-x64", "linux-x64-musl", "linux-arm64", "linux-arm64-musl", "darwin-arm64", "darwin-x64"]
# The oldest macOS each macOS binary runs on (Rust's own minimum per
# architecture), which its wheel's tag names.
MACOS = {"arm64": "11_0", "x86_64": "10_12"}
# The wheel's file name spells the project name with `_` (PEP 427).
DIST = NAME.replace("-", "_")


def workspace():
    meta = json.loads(subprocess.check_output(
        ["cargo", "metadata", "--format-version", "1", "--no-deps", "--locked"], cwd=ROOT))
    cli = next(p for p in meta["packages"] if any(t["name"] == "hookshot" and "bin" in t["kind"]
                                                  for t in p["targets"]))
    return cli["version"], cli.get("license") or "Apache-2.0", cli.get("description") or "", cli.get("repository")


def host_target():
    out = subprocess.check_output(["rustc", "-vV"], text=True)
    return re.search(r"^host: (\S+)", out, re.M).group(1)


def build(target):
    """Builds the binary the packages carry: linked statically and at a
    fixed address, as `cargo static-build` makes it (agents start it on
    every event; see .cargo/config.toml). The target is always named, so
    the flags reach only hookshot's own code, never build scripts or
    proc-macros."""
    flags = ["-C", "relocation-model=static"]
    if target.endswith("-gnu"):
        flags = ["-C", "target-feature=+crt-static"] + flags
    if "apple" in target:
        # macOS wants position-independent executables, linked to its
        # libSystem (it has no static C library).
        flags = []
    cross = target != host_target()
    if cross and target.endswith("-gnu"):
        # zig links glibc only dynamically; `.2.17` below asks for the
        # oldest glibc Rust supports, so the binary runs on every
        # distribution.
        flags = []
    if cross and "linux" in target:
        # This machine's `strip` reads only its own architecture: the
        # linker leaves the symbols out instead.
        flags += ["-C", "strip=symbols"]
    build_cmd = ["zigbuild"] if cross else ["build"]
    zig_target = target + (".2.17" if cross and target.endswith("-gnu") else "")
    cmd = ["cargo", *build_cmd, "--profile", "dist", "--locked", "--bin", "hookshot", "--target", zig_target]
    if flags:
        cmd += ["--config", f"target.{target}.rustflags = {json.dumps(flags)}"]
    subprocess.check_call(cmd, cwd=ROOT)
    target_dir = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target_dir, target, "dist", "hookshot")


def stripped(binary, work):
    """A copy of `binary` without symbols (a third of its size: every user
    downloads it), when `strip` is at hand; else the binary itself."""
    strip = shutil.which("strip")
    if not strip:
        return binary
    copy = os.path.join(work, "hookshot.stripped")
    shutil.copy2(binary, copy)
    if subprocess.run([strip, copy], stderr=subprocess.DEVNULL).returncode != 0:
        return binary
    return copy


def glibc_needed(binary):
    """The newest GLIBC_x.y symbol version the binary asks for, or None (a
    static binary asks for none)."""
    with open(binary, "rb") as f:
        data = f.read()
    versions = {tuple(int(n) for n in m.groups()) for m in re.finditer(rb"GLIBC_(\d+)\.(\d+)", data)}
    return max(versions) if versions else None


def wheel_tag(binary, libc, arch):
    if arch in MACOS and libc is None:
        return f"macosx_{MACOS[arch]}_{arch}"
    if libc == "musl":
        return f"musllinux_1_2_{arch}"
    major, minor = glibc_needed(binary) or (2, 17)
    # manylinux2014 (glibc 2.17) is the oldest tag pip still reads.
    major, minor = max((major, minor), (2, 17))
    return f"manylinux_{major}_{minor}_{arch}"


def npm_pack(folder, out):
    name = subprocess.check_output(["npm", "pack", "--silent", "--pack-destination", out], cwd=folder,
                                   text=True).strip().splitlines()[-1]
    return os.path.join(out, name)


def add_readme_and_licence(folder, manifest, repository):
    """The package README, the LICENSE and, when the workspace names one,
    the repository: what a user reads on the registry's page."""
    shutil.copy2(PACKAGE_README, os.path.join(folder, "README.md"))
    shutil.copy2(LICENSE, os.path.join(folder, "LICENSE"))
    manifest["files"] = manifest["files"] + ["README.md", "LICENSE"]
    if repository:
        manifest["repository"] = {"type": "git", "url": repository}
        manifest["homepage"] = repository


def platform_package(binary, version, license, os_, cpu, libc, out, work, repository=None):
    name = f"{NAME}-{os_}-{cpu}" + ("-musl" if libc == "musl" else "")
    folder = os.path.join(work, name)
    os.makedirs(os.path.join(folder, "bin"))
    shutil.copy2(binary, os.path.join(folder, "bin", "hookshot"))
    os.chmod(os.path.join(folder, "bin", "hookshot"), 0o755)
    manifest = {
        "name": name,
        "version": version,
        "description": f"hookshot's native binary for {os_}-{cpu}" + (" (static, musl)" if libc == "musl" else ""),
        "license": license,
        "os": [os_],
        "cpu": [cpu],
        "files": ["bin/hookshot"],
        "preferUnplugged": True,
    }
    # Each Linux package names its C library, as esbuild's and biome's do:
    # npm then installs the musl one on Alpine and the glibc one elsewhere,
    # never both (the static musl build would run on glibc too, but a
    # glibc machine would download both binaries on every install).
    if libc:
        manifest["libc"] = [libc]
    add_readme_and_licence(folder, manifest, repository)
    with open(os.path.join(folder, "package.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    return npm_pack(folder, out)


def main_package(version, license, description, out, work, repository=None):
    folder = os.path.join(work, NAME)
    shutil.copytree(LAUNCHER, folder)
    os.chmod(os.path.join(folder, "bin", "hookshot.js"), 0o755)
    manifest = {
        "name": NAME,
        "version": version,
        "description": description,
        "license": license,
        "bin": {"hookshot": "bin/hookshot.js"},
        "files": ["bin/hookshot.js"],
        "engines": {"node": ">=18"},
        "optionalDependencies": {f"{NAME}-{p}": version for p in PLATFORMS},
    }
    add_readme_and_licence(folder, manifest, repository)
    with open(os.path.join(folder, "package.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    return npm_pack(folder, out)


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def wheel(binary, version, license, description, tag, out, repository=None):
    """A wheel holding the binary as its one script (PEP 427), with the
    package README as its description and the LICENSE in its dist-info."""
    dist = f"{DIST}-{version}"
    files = []
    with open(binary, "rb") as f:
        files.append((f"{dist}.data/scripts/hookshot", f.read(), 0o755))
    with open(PACKAGE_README, encoding="utf-8") as f:
        readme = f.read()
    with open(LICENSE, "rb") as f:
        files.append((f"{dist}.dist-info/LICENSE", f.read(), 0o644))
    urls = f"Project-URL: Repository, {repository}\n" if repository else ""
    metadata = (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\n"
                f"Summary: {description}\nLicense: {license}\n{urls}Requires-Python: >=3.8\n"
                f"Description-Content-Type: text/markdown\n\n{readme}")
    files.append((f"{dist}.dist-info/METADATA", metadata.encode(), 0o644))
    wheel_meta = f"Wheel-Version: 1.0\nGenerator: hookshot scripts/package.py\nRoot-Is-Purelib: false\nTag: py3-none-{tag}\n"
    files.append((f"{dist}.dist-info/WHEEL", wheel_meta.encode(), 0o644))
    record_name = f"{dist}.dist-info/RECORD"
    record = "\n".join([record_line(n, d) for n, d, _ in files] + [f"{record_name},,", ""])
    files.append((record_name, record.encode(), 0o644))
    path = os.path.join(out, f"{dist}-py3-none-{tag}.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, mode in files:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return path


def package(target, out, binary=None):
    """The platform package of `target`, the launcher package and the
    wheel, from `binary` (built for `target` when not given)."""
    os_, cpu, libc, arch = TARGETS[target]
    version, license, description, repository = workspace()
    binary = os.path.abspath(binary) if binary else build(target)
    if not os.path.isfile(binary):
        sys.exit(f"package.py: no binary at {binary}")
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        binary = stripped(binary, work)
        return [
            platform_package(binary, version, license, os_, cpu, libc, out, work, repository),
            main_package(version, license, description, out, work, repository),
            wheel(binary, version, license, description, wheel_tag(binary, libc, arch), out, repository),
        ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for the tarballs and the wheel")
    ap.add_argument("--binary", help="an already built hookshot binary (default: build one)")
    ap.add_argument("--target", help="its Rust target triple (default: this machine's)")
    ap.add_argument("--all", action="store_true",
                    help="every target's packages (other targets built with cargo zigbuild; see scripts/cross.py)")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    if args.all:
        if args.binary or args.target:
            sys.exit("package.py: --all builds every target itself; it takes no --binary or --target")
        targets = list(TARGETS)
    else:
        targets = [args.target or host_target()]
    for target in targets:
        if target not in TARGETS:
            sys.exit(f"package.py: no package layout for {target} (known: {', '.join(TARGETS)})")
    made = []
    for target in targets:
        made.extend(package(target, out, args.binary))
    for m in dict.fromkeys(made):
        print(m)


if __name__ == "__main__":
    main()
