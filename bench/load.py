#!/usr/bin/env python3
"""Load + plan time against the number of hooks (issue 18, target 2).

    python3 bench/load.py [HOOKSHOT] [N ...]

For each N, writes a gemini settings file with N BeforeTool hooks whose
matchers are N distinct tool names (literal substrings for the planner, the
case that was quadratic), then times, as whole processes, `hookshot validate`
(parse only) and `hookshot bench BeforeTool --plan-only` (load, compile the
planner, plan). The baseline measured in the same run is the same commands
on 10 hooks; the table gives seconds and the ratio to that baseline.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/hookshot")
SIZES = [int(n) for n in sys.argv[2:]] or [10, 1000, 10000, 100000]
RUNS = 3


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
        rows = []
        for n in [10] + SIZES:
            files = settings(n, d)
            flags = [a for f in files for a in ("--settings", f)]
            v = best([BIN, "validate"] + files, d)
            p = best([BIN, "bench", "BeforeTool", "--input", inp, "--plan-only",
                      "--iterations", "1", "--json"] + flags, d)
            rows.append((n, v, p))
        base_v, base_p = rows[0][1], rows[0][2]
        print("| hooks | validate s | x 10 hooks | load+plan s | x 10 hooks |")
        print("|---:|---:|---:|---:|---:|")
        for n, v, p in rows[1:]:
            print(f"| {n} | {v:.3f} | {v / base_v:.1f} | {p:.3f} | {p / base_p:.1f} |")


if __name__ == "__main__":
    main()
