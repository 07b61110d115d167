#!/usr/bin/env python3
"""Calling hookshot from Python through its JSON-RPC sidecar (standard library only).

    python3 examples/sidecar/client.py [HOOKSHOT_BINARY]

HOOKSHOT_BINARY defaults to `hookshot` on PATH, else the clone's
target/debug or target/release build.

Starts `hookshot serve` with the example settings, asks it whether two tool
calls may run, and shuts it down.
"""
import itertools
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def default_binary():
    """`hookshot` on PATH, else the clone's own build (the debug one the
    README's commands make, else a release one)."""
    import shutil
    for candidate in (shutil.which("hookshot"), os.path.join(ROOT, "target", "debug", "hookshot"),
                      os.path.join(ROOT, "target", "release", "hookshot")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("no hookshot found: pass its path (python3 examples/sidecar/client.py PATH), or build it (cargo build)")


class Hookshot:
    """A hookshot sidecar: one JSON-RPC message per line over a pipe."""

    def __init__(self, binary, *settings, workdir=ROOT):
        args = [binary, "serve", "--workdir", workdir]
        for s in settings:
            args += ["--settings", s]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.ids = itertools.count(1)

    def call(self, method, params=None):
        request = {"jsonrpc": "2.0", "id": next(self.ids), "method": method}
        if params is not None:
            request["params"] = params
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        if "error" in reply:
            raise RuntimeError(reply["error"]["message"])
        return reply["result"]

    def fire(self, event, event_input):
        return self.call("fire", {"event": event, "input": event_input})

    def close(self):
        self.call("shutdown")
        self.proc.wait(timeout=10)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else default_binary()
    hooks = Hookshot(binary, os.path.join(ROOT, "examples", "gemini", "settings.json"))
    try:
        for path in ["notes.txt", "config/.env"]:
            result = hooks.fire("BeforeTool", {"tool_name": "write_file",
                                               "tool_input": {"file_path": path, "content": "x"}})
            verdict = "blocked: " + result["reason"] if result["blocked"] else "allowed"
            print(f"write_file {path}: {verdict}")
        print(f"{len(hooks.call('list'))} hooks configured")
    finally:
        hooks.close()


if __name__ == "__main__":
    main()
