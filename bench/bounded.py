#!/usr/bin/env python3
"""Bounded-input figures: peak RSS and wall time of hookshot on hostile sizes.

    python3 bench/bounded.py [path/to/hookshot] > table.md

Each case runs the release binary as a child process; peak RSS is the
child's ru_maxrss (getrusage of children, read after each case in a fresh
interpreter so that cases do not share a maximum). The baseline row is the
same binary firing a trivial event, measured in the same run.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HOOKSHOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/hookshot")

MEASURE = r"""
import resource, subprocess, sys, time, json
args = json.loads(sys.argv[1])
stdin = open(args["stdin"], "rb") if args.get("stdin") else subprocess.DEVNULL
t = time.monotonic()
p = subprocess.run(args["argv"], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=args["cwd"])
wall = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"wall": wall, "rss_kib": rss, "code": p.returncode,
                  "stdout": p.stdout[-300:].decode("utf-8", "replace"),
                  "stderr": p.stderr[-300:].decode("utf-8", "replace")}))
"""


def measure(argv, cwd, stdin=None):
    spec = json.dumps({"argv": argv, "cwd": cwd, "stdin": stdin})
    out = subprocess.run([sys.executable, "-c", MEASURE, spec], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def settings(dir, hooks, name="settings.json"):
    path = os.path.join(dir, name)
    with open(path, "w") as f:
        json.dump({"hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": hooks}]}}, f)
    return path


def cmd(command, timeout_ms=60000):
    return {"type": "command", "command": command, "timeout": timeout_ms}


def fire(dir, settings_path, stdin):
    return measure([HOOKSHOT, "fire", "BeforeTool", "--settings", settings_path, "--workdir", dir], dir, stdin)


def write(dir, name, data):
    path = os.path.join(dir, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def main():
    rows = []
    with tempfile.TemporaryDirectory() as d:
        small = write(d, "small.json", json.dumps({"tool_name": "write_file", "tool_input": {"content": "x"}}).encode())
        big = write(d, "big.json", json.dumps({"tool_name": "write_file",
                                               "tool_input": {"content": "x" * (100 << 20)}}).encode())
        deep = write(d, "deep.json", b'{"tool_name": "write_file", "tool_input": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
        reads = settings(d, [cmd("cat >/dev/null")], "reads.json")

        rows.append(("baseline: one hook, 60-byte input", fire(d, reads, small)))
        rows.append(("100 MB input, hook reads it", fire(d, reads, big)))
        ten = settings(d, [cmd(f"cat >/dev/null # {i}") for i in range(10)], "ten.json")
        rows.append(("100 MB input, 10 hooks read it in parallel", fire(d, ten, big)))
        deaf = settings(d, [cmd("exec sleep 0.2")], "deaf.json")
        rows.append(("100 MB input, hook never reads stdin", fire(d, deaf, big)))
        rows.append(("100k-deep JSON input", fire(d, reads, deep)))
        loud = settings(d, [cmd("head -c 1000000000 /dev/zero")], "loud.json")
        rows.append(("1 GB hook output (cap 1 MiB)", fire(d, loud, small)))
        many = settings(d, [cmd(f"exit 0 # {i}") for i in range(1000)], "many.json")
        rows.append(("1,000 parallel hooks", fire(d, many, small)))

        deep_settings = write(d, "deep-settings.json", b'{"hooks": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
        rows.append(("100k-deep settings JSON (validate)",
                     measure([HOOKSHOT, "validate", deep_settings], d)))
        deep_yaml = write(d, "hooks.yaml", b"stop: " + b"[" * 100_000 + b"]" * 100_000 + b"\n")
        rows.append(("100k-deep settings YAML (validate)", measure([HOOKSHOT, "validate", deep_yaml], d)))

        line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "fire",
                           "params": {"event": "BeforeTool", "input": {"tool_name": "write_file"}}})
        requests = write(d, "requests.jsonl", ((line + "\n") * 10_000).encode())
        quick = settings(d, [cmd("exit 0")], "quick.json")
        rows.append(("10,000 pipelined serve requests, one hook each",
                     measure([HOOKSHOT, "serve", "--settings", quick, "--workdir", d], d, requests)))

    base = rows[0][1]
    print("| case | exit | peak RSS | wall | RSS / baseline |")
    print("|---|---|---|---|---|")
    for name, r in rows:
        print(f"| {name} | {r['code']} | {r['rss_kib'] / 1024:.1f} MiB | {r['wall']:.2f} s "
              f"| {r['rss_kib'] / base['rss_kib']:.1f}x |")
        if r["code"] not in (0, 2):
            print(f"|   ↳ stderr: {r['stderr'].strip().splitlines()[-1] if r['stderr'].strip() else ''} | | | | |")


if __name__ == "__main__":
    main()
