#!/usr/bin/env python3
"""Load + plan time against the number of hooks (issue 18, target 2).

    python3 bench/load.py [HOOKSHOT] [N ...]

For each N, writes a gemini settings file with N BeforeTool hooks whose
matchers are N distinct tool names (literal substrings for the planner, the
case that was quadratic), then times, as whole processes, `hookshot validate`
(parse only), `hookshot list` (load, compile, print every hook), `hookshot
fire` on a tool no matcher names (load, compile, plan, answer) and `hookshot
bench BeforeTool --plan-only` (load, compile the planner, plan). The
baseline measured in the same run is the same commands on 10 hooks; the
table gives seconds (best of 5) and the ratio to that baseline.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/hookshot")
SIZES = [int(n) for n in sys.argv[2:]] or [10, 1000, 10000, 100000]
RUNS = 5


CHUNK = 10000  # hooks per file: settings files are capped at 4 MiB


def settings(n, d):
    """Writes n hooks into files of at most CHUNK hooks; returns their paths."""
    paths = []
    for start in range(0, n, CHUNK):
        groups = [{"matcher": f"tool_{i}_x", "hooks": [{"type": "command", "command": f"true {i}", "timeout": 5000}]}
                  for i in range(start, min(n, start + CHUNK))]
        path = os.path.join(d, f"s{n}-{start}.json")
        with open(path, "w") as f:
            json.dump({"hooks": {"BeforeTool": groups}}, f)
        paths.append(path)
    return paths


def best(cmd, cwd):
    times = []
    for _ in range(RUNS):
        t = time.perf_counter()
        r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - t)
        if r.returncode != 0:
            sys.exit(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.decode()[:400]}")
    return min(times)


def main():
    with tempfile.TemporaryDirectory() as d:
        inp = os.path.join(d, "in.json")
        with open(inp, "w") as f:
            json.dump({"tool_name": "tool_7_x", "tool_input": {}}, f)
        miss = os.path.join(d, "miss.json")
        with open(miss, "w") as f:
            json.dump({"tool_name": "no_such_tool", "tool_input": {}}, f)
        rows = []
        for n in [10] + SIZES:
            files = settings(n, d)
            flags = [a for f in files for a in ("--settings", f)]
            rows.append((n, [
                best([BIN, "validate"] + files, d),
                best([BIN, "list"] + flags, d),
                best([BIN, "fire", "BeforeTool", "--input", miss] + flags, d),
                best([BIN, "bench", "BeforeTool", "--input", inp, "--plan-only",
                      "--iterations", "1", "--json"] + flags, d),
            ]))
        base = rows[0][1]
        names = ["validate", "list", "fire", "load+plan"]
        print("| hooks | " + " | ".join(f"{c} s | x 10 hooks" for c in names) + " |")
        print("|---:|" + "---:|---:|" * len(names))
        for n, times in rows[1:]:
            cells = " | ".join(f"{t:.3f} | {t / b:.1f}" for t, b in zip(times, base))
            print(f"| {n} | {cells} |")

if __name__ == "__main__":
    main()
