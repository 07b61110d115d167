#!/usr/bin/env python3
"""A real agent session, natively and under hookshot, same run.

Each round runs one headless session of each kind (interleaved, so the
machine's drift hits both alike) against a local model server playing the
same script: four shell or write tool calls, then text. The hooks are the
same: a guard before each tool and a note after it, in the agent's own
settings (native) or under hookshot (`hookshot install --agent X
--import`; for Codex, whose approvals stay with its own file, the hooks in
hookshot's settings and `hookshot install --agent codex`). Reports the
median session time of each and the ratio.

    python3 bench/agent.py [--agent claude|codex|gemini] [--rounds N]
                           [--hookshot target/release/hookshot]
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "agents"))
import harness  # noqa: E402

GUARD = "grep -q 'rm -rf' && { echo no >&2; exit 2; }; exit 0"


def claude_like(tool, before, after):
    return {"hooks": {
        before: [{"matcher": tool, "hooks": [{"type": "command", "command": GUARD}]}],
        after: [{"hooks": [{"type": "command", "command": "echo checked"}]}],
    }}


AGENTS = {
    "claude": {
        "hooks": claude_like("Bash", "PreToolUse", "PostToolUse"),
        "file": "home/.claude/settings.json",
        "turns": [{"tool": "Bash", "input": {"command": f"echo {i} > f{i}.txt", "description": "write"}}
                  for i in range(4)],
        "run": harness.run_claude,
    },
    "codex": {
        "hooks": claude_like("Bash", "PreToolUse", "PostToolUse"),
        "file": "home/.codex/hooks.json",
        "turns": [{"tool": "exec_command", "input": {"cmd": f"echo {i} > f{i}.txt"}} for i in range(4)],
        "run": harness.run_codex,
    },
    "gemini": {
        "hooks": dict(claude_like("write_file", "BeforeTool", "AfterTool"), **harness.GEMINI_AUTH),
        "file": "home/.gemini/settings.json",
        "turns": [{"tool": "write_file", "input": {"file_path": f"f{i}.txt", "content": str(i)}}
                  for i in range(4)],
        "run": harness.run_gemini,
    },
}


def session(agent, hookshot, under):
    a = AGENTS[agent]
    place = harness.Place()
    try:
        if agent == "codex" and under:
            place.write("home/.config/hookshot/settings.json", a["hooks"])
            place.hookshot(hookshot, "install", "--agent", "codex")
        else:
            place.write(a["file"], a["hooks"])
            if under:
                place.hookshot(hookshot, "install", "--agent", agent, "--import")
        run = a["run"](place, list(a["turns"]) + [{"text": "done"}])
        if run.rc != 0 or not place.exists("project/f3.txt"):
            raise SystemExit(f"the session failed ({'hookshot' if under else 'native'}):\n{run.stderr[-2000:]}")
        return run.seconds
    finally:
        place.remove()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--agent", choices=sorted(AGENTS), default="claude")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--hookshot", default="target/release/hookshot")
    args = ap.parse_args()
    hookshot = os.path.abspath(args.hookshot)
    session(args.agent, hookshot, False)  # warm the caches
    native, under = [], []
    for _ in range(args.rounds):
        native.append(session(args.agent, hookshot, False))
        under.append(session(args.agent, hookshot, True))
    n, h = statistics.median(native), statistics.median(under)
    # Each round's pair ran back to back: the median of their ratios is
    # the figure least moved by the machine's drift.
    paired = statistics.median(u / v for u, v in zip(under, native))
    print(f"{args.agent} session, {args.rounds} rounds: native {n:.3f} s, under hookshot {h:.3f} s, "
          f"ratio of medians {h / n:.2f}x, median of paired ratios {paired:.2f}x")


if __name__ == "__main__":
    main()
