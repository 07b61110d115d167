#!/usr/bin/env python3
"""Scenario hook: logs its call to calls.log, then answers with NAME.json
(stdout) and NAME.err (stderr) from this folder, exiting with EXIT.
Usage: respond.py NAME [EXIT]. NAME.json may hold a list: the Nth call gets
the Nth item (the last one repeats)."""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
name = sys.argv[1]
code = int(sys.argv[2]) if len(sys.argv) > 2 else 0
raw = sys.stdin.read()
try:
    event = json.loads(raw)
except ValueError:
    event = {"unparsed_stdin": raw[:2000]}
log = os.path.join(here, "calls.log")
calls = 0
if os.path.exists(log):
    with open(log) as f:
        calls = sum(1 for line in f if json.loads(line).get("hook") == name)
with open(log, "a") as f:
    f.write(json.dumps({"hook": name, "input": event}) + "\n")
out = os.path.join(here, name + ".json")
if os.path.exists(out):
    with open(out) as f:
        answer = json.load(f)
    if isinstance(answer, list):
        answer = answer[min(calls, len(answer) - 1)]
    sys.stdout.write(answer if isinstance(answer, str) else json.dumps(answer))
err = os.path.join(here, name + ".err")
if os.path.exists(err):
    with open(err) as f:
        sys.stderr.write(f.read())
sys.exit(code)
