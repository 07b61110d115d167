#!/usr/bin/env python3
"""A picoclaw process hook (JSON-RPC 2.0 over stdio, one message per line).

Usage: pico.py [MODE]. Every request or notification it reads is appended to
calls.log beside this file as {"hook": "pico", "method": ..., "input": params}.

Modes:
  normal      hello ok; before_llm injects my_plugin_tool; before_tool answers
              my_plugin_tool itself (respond), denies a call whose arguments
              mention "deny" (deny_tool), aborts the turn on "abort"
              (abort_turn), else continues; approve_tool refuses arguments
              mentioning "unapproved".
  crash_once  like normal, but the first before_tool writes half an answer
              and exits (a marker file makes it crash only once).
  crash_always hello ok, then exits on any other request.
  crash_on_word like normal, but a before_tool whose arguments mention
              "crash" waits 0.3 s and exits (requests queued behind it are
              never read).
  no_hello    never answers hook.hello.
  reverse     answers before_tool requests in batches of 8, in reverse order.
  unknown_ids answers every request first with a wrong id, then rightly.
  big_lines   writes a 10 MB line of garbage before each answer.
  deaf        answers hello, then never reads its input again.
  mute        answers hello, then reads everything and answers nothing.
  slow_exit   like normal, but takes 0.2 s to act on each notification
              (it still logs them all before it exits at end of input).

Each log line also carries the PICO_TAG environment variable, if set.
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODE = sys.argv[1] if len(sys.argv) > 1 else "normal"


def log(method, params):
    with open(os.path.join(HERE, "calls.log"), "a") as f:
        f.write(json.dumps({"hook": "pico", "method": method, "input": params,
                            "tag": os.environ.get("PICO_TAG")}) + "\n")


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def answer(method, params):
    if method == "hook.hello":
        return {"ok": True, "name": "pico"}
    if method == "hook.before_llm":
        tools = params.get("tools") or []
        tools.append({"type": "function", "function": {
            "name": "my_plugin_tool", "description": "a tool the hook implements",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}})
        return {"action": "modify", "request": {"model": params.get("model"), "tools": tools}}
    if method == "hook.before_tool":
        args = json.dumps(params.get("arguments", {}))
        if params.get("tool") == "my_plugin_tool":
            q = params.get("arguments", {}).get("query", "")
            return {"action": "respond", "result": {"for_llm": "plugin says: " + q, "silent": False, "is_error": False}}
        if "deny" in args:
            return {"action": "deny_tool", "reason": "pico denies this call"}
        if "abort" in args:
            return {"action": "abort_turn", "reason": "pico aborts the turn"}
        return {"action": "continue"}
    if method == "hook.approve_tool":
        if "unapproved" in json.dumps(params.get("arguments", {})):
            return {"approved": False, "reason": "pico does not approve"}
        return {"approved": True}
    return {"action": "continue"}


def main():
    batch = []
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        msg = json.loads(line)
        method, params, mid = msg.get("method"), msg.get("params") or {}, msg.get("id")
        log(method, params)
        if mid is None:
            if MODE == "slow_exit":
                time.sleep(0.2)
            continue
        if MODE == "deaf" and method != "hook.hello":
            time.sleep(3600)
        if MODE == "mute" and method != "hook.hello":
            continue
        if method == "hook.hello" and MODE == "no_hello":
            continue
        if MODE == "crash_always" and method != "hook.hello":
            os._exit(1)
        if MODE == "crash_on_word" and method == "hook.before_tool" and "crash" in json.dumps(params):
            time.sleep(0.3)
            os._exit(1)
        if method == "hook.before_tool" and MODE == "crash_once":
            marker = os.path.join(HERE, "crashed")
            if not os.path.exists(marker):
                open(marker, "w").close()
                sys.stdout.write('{"jsonrpc": "2.0", "id": %d, "res' % mid)
                sys.stdout.flush()
                os._exit(1)
        reply = {"jsonrpc": "2.0", "id": mid, "result": answer(method, params)}
        if MODE == "deaf":
            send(reply)
            time.sleep(3600)
        if MODE == "reverse" and method == "hook.before_tool":
            batch.append(reply)
            if len(batch) == 8:
                for r in reversed(batch):
                    send(r)
                batch = []
            continue
        if MODE == "unknown_ids":
            send({"jsonrpc": "2.0", "id": mid + 100000, "result": {"action": "deny_tool", "reason": "wrong id"}})
        if MODE == "big_lines":
            sys.stdout.write("x" * (10 << 20) + "\n")
        send(reply)


if __name__ == "__main__":
    main()
