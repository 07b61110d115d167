#!/usr/bin/env python3
"""A picoclaw process hook: JSON-RPC 2.0 over stdio, one message per line.

Started once and kept running; answers hook.hello, then each
hook.before_tool: deny_tool for writes under secrets/, continue otherwise.
"""
import json
import sys

for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    if msg.get("id") is None:
        continue  # a notification (observed event): nothing to answer
    method, params = msg.get("method"), msg.get("params") or {}
    if method == "hook.hello":
        result = {"ok": True, "name": "guard"}
    elif method == "hook.before_tool" and "secrets/" in json.dumps(params.get("arguments", {})):
        result = {"action": "deny_tool", "reason": "secrets/ is off limits"}
    else:
        result = {"action": "continue"}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
