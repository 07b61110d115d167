#!/usr/bin/env python3
"""`hookshot fire` as an agent runs it, against the spawn floor, same run.

Each program is started with posix_spawn and waited for; the runs are
interleaved (one of each per round, in a new random order every round) so
the machine's drift hits all of them alike; the median of N rounds is reported, and each as a ratio to
/bin/true. Cases:

- true:      /bin/true, the floor of starting any program;
- minimal:   a Rust program that reads one file and prints {} (the
             practical floor for a program that answers);
- nomatch:   hookshot fire BeforeTool with ten hooks whose matchers do not
             match the tool;
- version:   hookshot --version, the floor of starting hookshot at all;
- regex:     ten Claude Code hooks whose matchers are the regular
             expressions users write for MCP tools
             (`^mcp__srv0__.*|Write_0`), none matching;
- regexreal: ten whose matchers no literal probe can stand for
             (`^mcp__srv0__(?:read|write)_[a-z]+$|Write_0[0-9]`), none
             matching: each needs the regex crate;
- lookahead: ten JavaScript-only matchers (`^(?!mcp__srv0__)Write_0$`),
             on the ECMAScript engine, none matching;
- match1:    hookshot fire with one matching command hook (`true`), beside
             the hook alone spawned the same way (`hook`).

    cargo static-build
    python3 bench/fire.py [--rounds N] [--hookshot BINARY] [--baseline OLD_BINARY]

The default binary is the static build agents are meant to start
(`cargo static-build`: target/x86_64-unknown-linux-gnu/dist/hookshot),
else target/release/hookshot; the table names the one measured.
"""

import argparse
import atexit
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def spawn_wait(argv, env, stdin_fd, devnull):
    t = time.perf_counter_ns()
    pid = os.posix_spawn(
        argv[0],
        argv,
        env,
        file_actions=[
            (os.POSIX_SPAWN_DUP2, stdin_fd, 0),
            (os.POSIX_SPAWN_DUP2, devnull, 1),
            (os.POSIX_SPAWN_DUP2, devnull, 2),
        ],
    )
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter_ns() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv} exited {os.waitstatus_to_exitcode(status)}")
    return elapsed


def write_nomatch(folder):
    """Writes `nomatch.json` in `folder`: ten BeforeTool hooks whose
    matchers name tools no test event uses; returns its path."""
    path = os.path.join(folder, "nomatch.json")
    with open(path, "w") as f:
        json.dump({"hooks": {"BeforeTool": [
            {"matcher": f"write_file_{i}|run_shell_command_{i}",
             "hooks": [{"type": "command", "command": f"echo {i}", "name": f"h{i}"}]}
            for i in range(10)]}}, f)
    return path


def write_regex(folder, name, shape):
    """Writes `name` in `folder`: ten Claude Code PreToolUse hooks whose
    matchers are `shape.format(i=i)`; returns its path."""
    path = os.path.join(folder, name)
    os.makedirs(os.path.join(folder, ".claude"), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"hooks": {"PreToolUse": [
            {"matcher": shape.format(i=i),
             "hooks": [{"type": "command", "command": f"echo {i}"}]}
            for i in range(10)]}}, f)
    return path


def interleaved(cases, env, stdin_path, rounds, warmup):
    """Median wall time in ms of each case (name -> argv), each run with
    `stdin_path` on stdin, one run of every case per round so that the
    machine's drift hits all of them alike."""
    devnull = os.open(os.devnull, os.O_RDWR)
    stdin_fd = os.open(stdin_path, os.O_RDONLY)
    times = {k: [] for k in cases}
    for _ in range(warmup):
        for argv in cases.values():
            os.lseek(stdin_fd, 0, 0)
            spawn_wait(argv, env, stdin_fd, devnull)
    # Each round in a new order: in a fixed one a case runs right after
    # the same one in every round and inherits its warm caches (an older
    # binary measured after itself came out 5% faster than it was).
    order = list(cases)
    for _ in range(rounds):
        random.shuffle(order)
        for name in order:
            os.lseek(stdin_fd, 0, 0)
            times[name].append(spawn_wait(cases[name], env, stdin_fd, devnull))
    os.close(stdin_fd)
    os.close(devnull)
    return {k: statistics.median(v) / 1e6 for k, v in times.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=150)
    static = "target/x86_64-unknown-linux-gnu/dist/hookshot"
    ap.add_argument("--hookshot", default=static if os.path.exists(static) else "target/release/hookshot")
    ap.add_argument("--baseline", help="an older hookshot binary whose hookshot cases run in the same rounds (named old:<case>)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="hookshot-fire-bench.")
    # Gone at exit, whatever happens (warm servers leave with their sockets).
    atexit.register(shutil.rmtree, work, True)
    # Each binary is run from a fresh copy, as an installed one is: the
    # file a linker just wrote sits in the page cache in small pieces and
    # took 13% more page faults (and ran up to 20% slower) than the same
    # bytes copied, which made a binary compared with an older copy of
    # itself look slower than it is.
    hookshot = os.path.join(work, "hookshot-under-test")
    shutil.copyfile(os.path.abspath(args.hookshot), hookshot)
    os.chmod(hookshot, 0o755)
    home = os.path.join(work, "home")
    os.makedirs(home)
    inp = os.path.join(work, "input.json")
    with open(inp, "w") as f:
        json.dump({"session_id": "s", "cwd": work, "hook_event_name": "BeforeTool",
                   "tool_name": "read_file", "tool_input": {"absolute_path": "/etc/hosts"}}, f)
    nomatch = write_nomatch(work)
    # In `.claude/`: read as Claude Code's, with JavaScript's regexes.
    regex = write_regex(work, ".claude/regex.json", "^mcp__srv{i}__.*|Write_{i}")
    regexreal = write_regex(work, ".claude/regexreal.json", r"^mcp__srv{i}__(?:read|write)_[a-z]+$|Write_{i}[0-9]")
    lookahead = write_regex(work, ".claude/lookahead.json", "^(?!mcp__srv{i}__)Write_{i}$")
    match1 = os.path.join(work, "match1.json")
    with open(match1, "w") as f:
        json.dump({"hooks": {"BeforeTool": [
            {"matcher": "read_file", "hooks": [{"type": "command", "command": "/bin/true", "name": "t"}]}]}}, f)
    src = os.path.join(work, "minimal.rs")
    with open(src, "w") as f:
        f.write('fn main() { let a: Vec<String> = std::env::args().collect();'
                ' let _ = std::fs::read(&a[1]).unwrap(); println!("{{}}"); }\n')
    minimal = os.path.join(work, "minimal")
    subprocess.run(["rustc", "-O", "-o", minimal, src], check=True)

    env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config")}
    fire = [hookshot, "fire", "BeforeTool", "--workdir", work, "--input", inp, "--settings"]
    cases = {
        "true": ["/bin/true"],
        "minimal": [minimal, inp],
        "version": [hookshot, "--version"],
        "nomatch": fire + [nomatch],
        "regex": fire + [regex],
        "regexreal": fire + [regexreal],
        "lookahead": fire + [lookahead],
        "hook": ["/bin/true"],
        "match1": fire + [match1],
    }
    if args.baseline:
        old = os.path.join(work, "hookshot-baseline")
        shutil.copyfile(os.path.abspath(args.baseline), old)
        os.chmod(old, 0o755)
        for k in [k for k, argv in cases.items() if argv[0] == hookshot]:
            cases[f"old:{k}"] = [old] + cases[k][1:]
    med = interleaved(cases, env, inp, args.rounds, warmup=5)
    floor = med["true"]
    result = {"rounds": args.rounds, "median_ms": med,
              "ratio_to_true": {k: v / floor for k, v in med.items()},
              "match1_minus_hook_ms": med["match1"] - med["hook"]}
    if args.json:
        print(json.dumps(result))
        return
    print(f"{args.hookshot}: {args.rounds} interleaved rounds, median wall time, posix_spawn + wait")
    print("| case | ms | x /bin/true |")
    print("|---|---:|---:|")
    for k in ("true", "minimal", "version", "nomatch", "regex", "regexreal", "lookahead", "hook", "match1"):
        print(f"| {k} | {med[k]:.3f} | {med[k] / floor:.2f} |")
    for k in [k for k in med if k.startswith("old:")]:
        print(f"| {k} | {med[k]:.3f} | {med[k] / floor:.2f} |")
    print(f"\nmatch1 - hook alone: {result['match1_minus_hook_ms']:.3f} ms "
          f"(hookshot's own cost when one hook runs)")


if __name__ == "__main__":
    main()
