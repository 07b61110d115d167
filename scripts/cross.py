#!/usr/bin/env python3
"""Builds hookshot for the platforms agents run on, from this Linux x86_64
machine, and tests each binary wherever this machine can run it.

    scripts/cross.py [--acceptance DIR]...

- Installs what it needs when missing: the Rust standard library of each
  target (`rustup target add`), zig and cargo-zigbuild (from PyPI), and
  qemu-user (Debian's `qemu-user`, with apt-get, when run as root).
- Linux arm64 (static musl): builds the binary and the unit tests of the
  library crates, runs those tests and every acceptance scenario under
  `qemu-aarch64`.
- Linux x64 musl, and macOS arm64 and x64: builds and links the binary
  (zig links macOS binaries without an SDK). A Mac is needed to run them.

Exits non-zero, naming the step, when anything fails. The dev profile is
used: what is tested is the code, not the packaging (scripts/package.py
--target TRIPLE builds the LTO binary and the packages of one platform).
"""

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_DIR = os.path.join(ROOT, "target", "cross")
ARM = "aarch64-unknown-linux-musl"
MUSL = "x86_64-unknown-linux-musl"
LINKED_ONLY = ["aarch64-apple-darwin", "x86_64-apple-darwin"]
LIBRARIES = ["hookshot-core", "hookshot-platform", "hookshot-builtins", "hookshot-registry",
             "hookshot-planner", "hookshot-aggregator"]


def step(name, cmd, **kw):
    print(f"cross: {name}: {' '.join(cmd)}", flush=True)
    r = subprocess.run(cmd, **kw)
    if r.returncode != 0:
        sys.exit(f"cross: {name} failed (exit {r.returncode})")
    return r


def tools():
    installed = subprocess.check_output(["rustup", "target", "list", "--installed"], text=True).split()
    missing = [t for t in [ARM, *LINKED_ONLY] if t not in installed]
    if missing:
        step("rust targets", ["rustup", "target", "add", *missing])
    if not shutil.which("cargo-zigbuild"):
        step("zig and cargo-zigbuild", [sys.executable, "-m", "pip", "install", "-q", "ziglang", "cargo-zigbuild"])
    if not shutil.which("qemu-aarch64"):
        if os.geteuid() != 0:
            sys.exit("cross: qemu-aarch64 is missing: install Debian's qemu-user")
        step("qemu-user", ["apt-get", "install", "-y", "-q", "qemu-user"], stdout=subprocess.DEVNULL)


def zigbuild(target, *extra, capture=False):
    cmd = ["cargo", "zigbuild", "--locked", "--target", target, *extra]
    env = dict(os.environ, CARGO_TARGET_DIR=TARGET_DIR)
    if capture:
        return step(f"build {target}", cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True).stdout
    return step(f"build {target}", cmd, cwd=ROOT, env=env)


def end_to_end(name, run, examples=True):
    """The checks every binary that runs here passes: its version, the
    shipped examples' tests, and a guard refusing `rm -rf ~` (`run`: the
    command line that starts the binary). `hookshot test` starts the
    binary again for each case, which an arm64 binary under qemu-user
    cannot do without binfmt_misc (not mounted here): `examples=False`
    leaves that check to the acceptance scenarios, which start it through
    a wrapper."""
    step(f"{name}: --version", [*run, "--version"])
    if examples:
        step(f"{name}: the shipped examples' tests", [*run, "test", "examples/tests"], cwd=ROOT)
    with tempfile.TemporaryDirectory() as home:
        config = os.path.join(home, ".config", "hookshot")
        os.makedirs(config)
        with open(os.path.join(config, "settings.json"), "w") as f:
            json.dump({"builtins": {"dangerous_confirmation": {"mode": "deny"}}}, f)
        env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"))
        p = subprocess.run([*run, "check", "rm -rf ~"], env=env, cwd=home, capture_output=True, text=True)
        if p.returncode != 2:
            sys.exit(f"cross: {name}: `rm -rf ~` was not refused (exit {p.returncode}):\n{p.stdout}{p.stderr}")
        print(f"cross: {name}: a guard refuses `rm -rf ~`")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--acceptance", action="append", default=[],
                    help="another folder of acceptance scenarios to run with the arm64 binary (repeatable); "
                         "the project's own integration-tests/scenarios always run (tests/scenarios.rs)")
    args = ap.parse_args()
    tools()
    zigbuild(ARM, "--bin", "hookshot")
    binary = os.path.join(TARGET_DIR, ARM, "debug", "hookshot")
    out = subprocess.run(["qemu-aarch64", binary, "--version"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"cross: the arm64 binary does not run under qemu: {out.stderr}")
    print(f"cross: arm64 under qemu: {out.stdout.strip()}")
    end_to_end("arm64 under qemu", ["qemu-aarch64", binary], examples=os.path.exists("/proc/sys/fs/binfmt_misc/qemu-aarch64"))
    # The tests of the library crates, run under qemu.
    listing = zigbuild(ARM, "--tests", "--message-format=json", *[a for p in LIBRARIES for a in ("-p", p)],
                       capture=True)
    for line in listing.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
            step(f"tests of {m['target']['name']} on arm64", ["qemu-aarch64", m["executable"], "-q"],
                 cwd=os.path.dirname(m["manifest_path"]))
    # Every acceptance scenario, with the arm64 binary.
    wrapper = os.path.join(TARGET_DIR, "hookshot-arm64")
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\nexec qemu-aarch64 {binary} \"$@\"\n")
    os.chmod(wrapper, 0o755)
    env = dict(os.environ, HOOKSHOT_SCENARIOS_BIN=wrapper)
    if args.acceptance:
        env["HOOKSHOT_SCENARIOS"] = ":".join(os.path.abspath(a) for a in args.acceptance)
    step("acceptance scenarios on arm64", ["cargo", "test", "--locked", "--test", "scenarios"], cwd=ROOT, env=env)
    # The static x86_64 musl binary runs here natively: the same checks.
    zigbuild(MUSL, "--bin", "hookshot")
    musl = os.path.join(TARGET_DIR, MUSL, "debug", "hookshot")
    end_to_end("x86_64 musl", [musl])
    env = dict(os.environ, HOOKSHOT_SCENARIOS_BIN=musl)
    step("acceptance scenarios on x86_64 musl", ["cargo", "test", "--locked", "--test", "scenarios"], cwd=ROOT, env=env)
    for target in LINKED_ONLY:
        zigbuild(target, "--bin", "hookshot")
        print(f"cross: {target}: built and linked "
              f"({os.path.getsize(os.path.join(TARGET_DIR, target, 'debug', 'hookshot')) >> 20} MiB, dev profile)")
    print("cross: ok")


if __name__ == "__main__":
    main()
