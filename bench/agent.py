#!/usr/bin/env python3
"""A real Claude Code session, natively and under hookshot, same run.

Each round runs one headless session of each kind (interleaved, so the
machine's drift hits both alike) against a local model server playing the
same script: four Bash tool calls, then text. The hooks are the same: a
PreToolUse guard and a PostToolUse note, in Claude Code's own settings
(native) or moved under hookshot by `hookshot install --agent claude
--import`. Reports the median session time of each and the ratio.

    python3 bench/agent.py [--rounds N] [--hookshot target/release/hookshot]
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "agents"))
import harness  # noqa: E402

HOOKS = {"hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "grep -q 'rm -rf' && { echo no >&2; exit 2; }; exit 0"}]}],
    "PostToolUse": [{"hooks": [{"type": "command", "command": "echo checked"}]}],
}}
TURNS = [{"tool": "Bash", "input": {"command": f"echo {i} > f{i}.txt", "description": "write"}} for i in range(4)]
TURNS.append({"text": "done"})


def session(hookshot, under):
    place = harness.Place()
    try:
        place.write("home/.claude/settings.json", HOOKS)
        if under:
            place.hookshot(hookshot, "install", "--agent", "claude", "--import")
        run = harness.run_claude(place, list(TURNS))
        if run.rc != 0 or not place.exists("project/f3.txt"):
            raise SystemExit(f"the session failed ({'hookshot' if under else 'native'}):\n{run.stderr[-2000:]}")
        return run.seconds
    finally:
        place.remove()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--hookshot", default="target/release/hookshot")
    args = ap.parse_args()
    hookshot = os.path.abspath(args.hookshot)
    session(hookshot, False)  # warm the caches
    native, under = [], []
    for _ in range(args.rounds):
        native.append(session(hookshot, False))
        under.append(session(hookshot, True))
    n, h = statistics.median(native), statistics.median(under)
    # Each round's pair ran back to back: the median of their ratios is
    # the figure least moved by the machine's drift.
    paired = statistics.median(u / v for u, v in zip(under, native))
    print(f"claude code session, {args.rounds} rounds: native {n:.3f} s, under hookshot {h:.3f} s, "
          f"ratio of medians {h / n:.2f}x, median of paired ratios {paired:.2f}x")


if __name__ == "__main__":
    main()
