#!/usr/bin/env python3
"""Builds hookshot for the platforms agents run on, from this Linux x86_64
machine, and tests each binary wherever this machine can run it.

    scripts/cross.py [--acceptance DIR]...
    scripts/cross.py --packages-of BINARY

- Installs what it needs when missing: the Rust standard library of each
  target (`rustup target add`), zig and cargo-zigbuild (from PyPI), and
  qemu-user (Debian's `qemu-user`, with apt-get, when run as root).
- Linux arm64 (static musl): builds the binary and the unit tests of the
  library crates, runs those tests and every acceptance scenario under
  `qemu-aarch64`.
- Linux x64 musl, and macOS arm64 and x64: builds and links the binary
  (zig links macOS binaries without an SDK). A Mac is needed to run them.
- The Linux arm64 and x64 musl binaries' packages (scripts/package.py)
  installed as a user on that platform would: npm, from a local registry
  this script serves, told the platform (`--os`, `--cpu`, `--libc`),
  resolves the launcher's optional dependency for it (and, not told,
  skips it: its `cpu`/`libc` fields say where it runs); the launcher,
  with node reporting that platform, runs that package's binary; pip
  installs the wheel for that platform's tag. Each installed binary runs
  (arm64 under qemu).

Exits non-zero, naming the step, when anything fails. The dev profile is
used: what is tested is the code, not the packaging (scripts/package.py
--target TRIPLE builds the LTO binary and the packages of one platform).
"""

import argparse
import base64
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import threading
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


def npm_registry(folder):
    """Serves the npm packages in `folder` as a registry does (a packument
    per name, its tarballs), on a local port: npm resolves optional
    dependencies for another platform only from a registry. Unknown names
    are 404, as for a platform package not published. Returns its URL."""
    docs = {}

    class Registry(http.server.BaseHTTPRequestHandler):
        def log_message(self, *_):
            pass

        def do_GET(self):
            path = self.path.split("?")[0]
            body, kind = None, "application/json"
            if path.startswith("/-/") and os.path.isfile(os.path.join(folder, os.path.basename(path))):
                with open(os.path.join(folder, os.path.basename(path)), "rb") as f:
                    body, kind = f.read(), "application/octet-stream"
            elif path.lstrip("/") in docs:
                body = json.dumps(docs[path.lstrip("/")]).encode()
            self.send_response(200 if body is not None else 404)
            body = b"{}" if body is None else body
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Registry)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    for name in os.listdir(folder):
        if not name.endswith(".tgz"):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        with tarfile.open(os.path.join(folder, name)) as t:
            manifest = json.load(t.extractfile("package/package.json"))
        manifest["dist"] = {"tarball": f"{url}/-/{name}", "shasum": hashlib.sha1(data).hexdigest(),
                            "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()}
        doc = docs.setdefault(manifest["name"], {"name": manifest["name"], "versions": {}, "dist-tags": {}})
        doc["versions"][manifest["version"]] = manifest
        doc["dist-tags"]["latest"] = manifest["version"]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return url


# Node reporting another platform (AS_PLATFORM: os-cpu-libc) to the npm
# launcher, and starting the binary it picks through RUN_WITH (qemu for
# arm64), saying which one it picked.
AS_PLATFORM_JS = """
const [os_, cpu, libc] = process.env.AS_PLATFORM.split("-");
Object.defineProperty(process, "platform", { value: os_ });
Object.defineProperty(process, "arch", { value: cpu });
const header = libc === "musl" ? {} : { glibcVersionRuntime: "2.36" };
Object.defineProperty(process, "report", { value: { getReport: () => ({ header }) } });
const cp = require("node:child_process");
const spawnSync = cp.spawnSync;
cp.spawnSync = (file, args, opts) => {
  process.stderr.write(`launcher picked ${file}\n`);
  const run = process.env.RUN_WITH ? process.env.RUN_WITH.split(" ") : [];
  return run.length ? spawnSync(run[0], [...run.slice(1), file, ...args], opts) : spawnSync(file, args, opts);
};
"""


def installed_like_a_user(name, target, binary, run, foreign=True):
    """The packages of `binary` for `target`, installed as a user on that
    platform installs them (see the module's help); `run`: how this
    machine starts a binary of that platform. For this machine's own
    platform (`foreign=False`) npm not told the platform installs the
    package too: that is `npm install -g hookshot-cli` here."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import package
    os_, cpu, libc, _ = package.TARGETS[target]
    platform = f"{os_}-{cpu}" + (f"-{libc}" if libc == "musl" else "")
    with tempfile.TemporaryDirectory() as work:
        dist = os.path.join(work, "dist")
        step(f"{name}: packages", [sys.executable, os.path.join(ROOT, "scripts", "package.py"), "--binary", binary,
                                   "--target", target, "--out", dist], stdout=subprocess.DEVNULL)
        url = npm_registry(dist)

        def npm_install(prefix, *flags):
            step(f"{name}: npm install {' '.join(flags)}",
                 ["npm", "install", "--global", "--no-audit", "--no-fund", "--prefix", prefix, "--registry", url,
                  "--cache", os.path.join(work, "npm-cache"), *flags, "hookshot-cli"],
                 stdout=subprocess.DEVNULL)
            return os.path.join(prefix, "lib", "node_modules", "hookshot-cli", "node_modules",
                                f"hookshot-cli-{platform}", "bin", "hookshot")

        told = npm_install(os.path.join(work, "told"), "--os", os_, "--cpu", cpu, *(["--libc", libc] if libc else []))
        if not os.path.isfile(told):
            sys.exit(f"cross: {name}: npm told {platform} did not install hookshot-cli-{platform}")
        step(f"{name}: the binary npm installed", [*run, told, "--version"])
        untold = npm_install(os.path.join(work, "untold"))
        if foreign and os.path.isfile(untold):
            sys.exit(f"cross: {name}: npm installed hookshot-cli-{platform} on this machine unasked: "
                     "its os/cpu/libc fields do not say where it runs")
        if not foreign:
            if not os.path.isfile(untold):
                sys.exit(f"cross: {name}: `npm install -g hookshot-cli` did not install hookshot-cli-{platform}")
            p = subprocess.run([os.path.join(work, "untold", "bin", "hookshot"), "--version"],
                               capture_output=True, text=True)
            if p.returncode != 0 or not p.stdout.startswith("hookshot "):
                sys.exit(f"cross: {name}: the installed `hookshot` does not run: {p.stdout}{p.stderr}")
            print(f"cross: {name}: `npm install -g hookshot-cli` from a registry installs and runs "
                  f"hookshot-cli-{platform}")
        preload = os.path.join(work, "as-platform.js")
        with open(preload, "w") as f:
            f.write(AS_PLATFORM_JS)
        launcher = os.path.join(work, "told", "bin", "hookshot")
        env = dict(os.environ, AS_PLATFORM=f"{os_}-{cpu}-{libc or 'glibc'}", RUN_WITH=" ".join(run))
        p = subprocess.run(["node", "-r", preload, launcher, "--version"], env=env, capture_output=True, text=True)
        if p.returncode != 0 or f"launcher picked {os.path.realpath(told)}" not in p.stderr.replace(
                told, os.path.realpath(told)) or not p.stdout.startswith("hookshot "):
            sys.exit(f"cross: {name}: the npm launcher on {platform} did not run hookshot-cli-{platform}:\n"
                     f"{p.stdout}{p.stderr}")
        print(f"cross: {name}: the npm launcher on {platform} runs hookshot-cli-{platform}")
        wheel = next(f for f in os.listdir(dist) if f.endswith(".whl"))
        tag = wheel[:-4].rsplit("-", 1)[1]
        into = os.path.join(work, "wheel")
        step(f"{name}: pip install of the {tag} wheel",
             [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--only-binary=:all:", "--platform", tag,
              "--target", into, os.path.join(dist, wheel)], env=dict(os.environ, PIP_ROOT_USER_ACTION="ignore"))
        step(f"{name}: the binary pip installed", [*run, os.path.join(into, "bin", "hookshot"), "--version"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--acceptance", action="append", default=[],
                    help="another folder of acceptance scenarios to run with the arm64 binary (repeatable); "
                         "the project's own integration-tests/scenarios always run (tests/scenarios.rs)")
    ap.add_argument("--packages-of", metavar="BINARY",
                    help="only install the packages of BINARY, built for this machine, as a user here does "
                         "(npm from a registry, the launcher, pip; what tests/packages.rs runs in CI)")
    args = ap.parse_args()
    if args.packages_of:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import package
        installed_like_a_user("this machine", package.host_target(), os.path.abspath(args.packages_of), [],
                              foreign=False)
        print("cross: ok")
        return
    tools()
    zigbuild(ARM, "--bin", "hookshot")
    binary = os.path.join(TARGET_DIR, ARM, "debug", "hookshot")
    out = subprocess.run(["qemu-aarch64", binary, "--version"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"cross: the arm64 binary does not run under qemu: {out.stderr}")
    print(f"cross: arm64 under qemu: {out.stdout.strip()}")
    end_to_end("arm64 under qemu", ["qemu-aarch64", binary], examples=os.path.exists("/proc/sys/fs/binfmt_misc/qemu-aarch64"))
    installed_like_a_user("arm64", ARM, binary, ["qemu-aarch64"])
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
    installed_like_a_user("x86_64 musl", MUSL, musl, [])
    env = dict(os.environ, HOOKSHOT_SCENARIOS_BIN=musl)
    step("acceptance scenarios on x86_64 musl", ["cargo", "test", "--locked", "--test", "scenarios"], cwd=ROOT, env=env)
    for target in LINKED_ONLY:
        zigbuild(target, "--bin", "hookshot")
        print(f"cross: {target}: built and linked "
              f"({os.path.getsize(os.path.join(TARGET_DIR, target, 'debug', 'hookshot')) >> 20} MiB, dev profile)")
    print("cross: ok")


if __name__ == "__main__":
    main()
