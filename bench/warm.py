#!/usr/bin/env python3
"""`hookshot fire --warm` against one-shot `fire`, same run (issue 18, target 3).

Every case is one `hookshot fire` process, started with posix_spawn and
waited for, the cases interleaved round by round; medians of N rounds,
each as a ratio to the no-match one-shot fire:

- nomatch:      fire BeforeTool, ten hooks whose matchers do not match;
- process:      fire before_tool whose only hook is a picoclaw process
                hook (examples/tests/picoclaw, a Python guard), one-shot:
                the interpreter starts, handshakes and stops every event;
- process_warm: the same with --warm: a warm server keeps the guard
                running; the client connects, sends, prints;
- nomatch_warm: the no-match case with --warm.

Before timing, each warm case runs until it is answered warm (the first
one starts the server), and every case's stdout is checked to be the
one-shot answer.

    python3 bench/warm.py [--rounds N] [--hookshot target/release/hookshot]
"""

import argparse
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fire import interleaved, write_nomatch  # noqa: E402


def output(argv, env, inp):
    with open(inp) as f:
        r = subprocess.run(argv, env=env, stdin=f, capture_output=True, text=True)
    return r.returncode, r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--hookshot", default="target/release/hookshot")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    hookshot = os.path.abspath(args.hookshot)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    work = tempfile.mkdtemp(prefix="hookshot-warm-bench.")
    # Gone at exit, whatever happens (warm servers leave with their sockets).
    atexit.register(shutil.rmtree, work, True)
    home = os.path.join(work, "home")
    runtime = os.path.join(work, "run")
    os.makedirs(home)
    os.makedirs(runtime, mode=0o700)
    shutil.copytree(os.path.join(repo, "examples/tests/picoclaw/hooks"), os.path.join(work, "hooks"))
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump({"hooks": {"enabled": True, "processes": {"guard": {
            "command": ["python3", "hooks/guard.py"], "intercept": ["before_tool"]}}}}, f)
    nomatch = write_nomatch(work)
    inp = os.path.join(work, "input.json")
    with open(inp, "w") as f:
        json.dump({"session_id": "s", "cwd": work, "tool_name": "write_file",
                   "tool_input": {"file_path": "notes.txt", "content": "x"}}, f)

    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
           "XDG_CONFIG_HOME": os.path.join(home, ".config"), "XDG_RUNTIME_DIR": runtime}
    base = [hookshot, "fire"]
    at = ["--workdir", work, "--input", inp]
    cases = {
        "nomatch": base + ["BeforeTool"] + at + ["--settings", nomatch],
        "process": base + ["before_tool"] + at + ["--settings", "config.json"],
        "process_warm": base + ["before_tool", "--warm"] + at + ["--settings", "config.json"],
        "nomatch_warm": base + ["BeforeTool", "--warm"] + at + ["--settings", nomatch],
    }
    os.chdir(work)
    expected = {k: output(v, env, inp) for k, v in cases.items() if not k.endswith("_warm")}
    run_dir = os.path.join(runtime, "hookshot")

    def sockets():
        return {f for f in os.listdir(run_dir) if f.endswith(".sock")} if os.path.isdir(run_dir) else set()

    for name in ("process_warm", "nomatch_warm"):
        before = sockets()
        # The first warm fire answers one-shot and starts the server.
        output(cases[name], env, inp)
        deadline = time.time() + 30
        while not sockets() - before:
            if time.time() > deadline:
                sys.exit(f"{name}: no warm server started")
            time.sleep(0.05)
        time.sleep(0.5)
        got = output(cases[name], env, inp)
        want = expected[name.removesuffix("_warm")]
        if got != want:
            sys.exit(f"{name}: answered {got}, one-shot answers {want}")
    med = interleaved(cases, env, inp, args.rounds, warmup=3)
    for f in sockets():
        os.unlink(os.path.join(run_dir, f))  # the servers leave within a second
    base_ms = med["nomatch"]
    result = {"rounds": args.rounds, "median_ms": med,
              "ratio_to_nomatch": {k: v / base_ms for k, v in med.items()}}
    if args.json:
        print(json.dumps(result))
        return
    print(f"{args.rounds} interleaved rounds, median wall time of one `hookshot fire`")
    print("| case | ms | x no-match one-shot fire |")
    print("|---|---:|---:|")
    for k in cases:
        print(f"| {k} | {med[k]:.3f} | {med[k] / base_ms:.2f} |")


if __name__ == "__main__":
    main()
