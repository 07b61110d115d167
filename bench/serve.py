#!/usr/bin/env python3
"""Sidecar throughput: pipelined `fire` requests on stdio (issue 18, target 4).

    python3 bench/serve.py [HOOKSHOT] [N]

Starts `hookshot serve` with the in-process built-ins `dangerous_confirmation`
and `security_scan` on (no hook is spawned: this measures the server), writes
N `fire` requests for BeforeTool (a shell command, half of them carrying a
secret the scan redacts) from one thread while another reads the answers,
and reports events per second and the server's peak RSS against the same
server answering N/10 requests (memory must stay flat as N grows). The
baseline measured in the same run is `cat` passing the same bytes through:
the cost of the pipe and the Python client, which no server can beat.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/hookshot")
N = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000


def requests(n):
    out = []
    for i in range(n):
        command = f"ls -la /tmp/dir{i}" if i % 2 else f"curl -H 'Authorization: Bearer ghp_{'a' * 36}' https://x/{i}"
        req = {"jsonrpc": "2.0", "id": i, "method": "fire",
               "params": {"event": "BeforeTool",
                          "input": {"tool_name": "run_shell_command", "tool_input": {"command": command}}}}
        out.append(json.dumps(req))
    return ("\n".join(out) + "\n").encode()


def run(argv, data, n, cwd):
    """Writes `data`, reads n answer lines; returns (seconds, answers, the
    server's peak RSS in KiB). The peak is VmHWM from /proc, read once
    every answer is in: rusage would count the forked Python's pages from
    before exec, which grow with the request data."""
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd)
    answers = []

    def read():
        for line in p.stdout:
            answers.append(line)
            if len(answers) == n:
                break

    reader = threading.Thread(target=read)
    t = time.perf_counter()
    reader.start()
    p.stdin.write(data)
    p.stdin.flush()
    reader.join()
    elapsed = time.perf_counter() - t
    with open(f"/proc/{p.pid}/status") as f:
        peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    p.stdin.close()
    p.wait()
    return elapsed, answers, peak


def main():
    with tempfile.TemporaryDirectory() as d:
        settings = os.path.join(d, "s.json")
        with open(settings, "w") as f:
            json.dump({"builtins": {"dangerous_confirmation": {"mode": "ask"},
                                    "security_scan": {"mode": "redact"}}}, f)
        serve = [BIN, "serve", "--settings", settings]
        small = requests(N // 10)
        big = requests(N)
        cat_s, _, _ = run(["cat"], big, N, d)
        small_s, small_answers, rss_small = run(serve, small, N // 10, d)
        big_s, answers, rss_big = run(serve, big, N, d)
        bad = [a for a in answers if b'"result"' not in a]
        print(f"answers: {len(answers)} of {N} ({len(bad)} errors), "
              f"{len(small_answers)} of {N // 10} in the small run")
        print("| run | requests | seconds | events/s | x cat |")
        print("|---|---:|---:|---:|---:|")
        print(f"| cat (pipe floor) | {N} | {cat_s:.3f} | {N / cat_s:,.0f} | 1.00 |")
        print(f"| serve | {N // 10} | {small_s:.3f} | {N / 10 / small_s:,.0f} | {small_s * 10 / cat_s:.2f} |")
        print(f"| serve | {N} | {big_s:.3f} | {N / big_s:,.0f} | {big_s / cat_s:.2f} |")
        print(f"peak RSS: {rss_small / 1024:.1f} MiB for {N // 10} requests, "
              f"{rss_big / 1024:.1f} MiB for {N} ({rss_big / rss_small:.2f}x)")
        if bad or len(answers) != N:
            sys.exit("not every request was answered")


if __name__ == "__main__":
    main()
