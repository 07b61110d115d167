"""Drift: each installed agent's own description of its hooks (drift.py;
Claude Code, Codex, gemini-cli, Qwen Code, Cline and GitHub Copilot CLI)
against what hookshot was checked against (known.json). A release that
adds an event, an input field or an answer field fails here, naming it;
review it (does hookshot pass it on, merge it, block on it?), then add it
to known.json with what hookshot does. Also: the events known.json calls
registered are exactly the ones `hookshot install` registers.

Runs on the pinned agents, or the newest with HOOKSHOT_AGENTS=latest."""

import json
import os
import subprocess
import tempfile
import unittest

import drift
import harness

HOOKSHOT = os.environ.get("HOOKSHOT_BIN", "")
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "known.json")) as f:
    KNOWN = json.load(f)


def registered(agent):
    """The events `hookshot install --agent AGENT` registers."""
    with tempfile.TemporaryDirectory() as home:
        env = {"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
               "XDG_DATA_HOME": os.path.join(home, ".local", "share"), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        subprocess.run([HOOKSHOT, "install", "--agent", agent], env=env, cwd=home, check=True, capture_output=True)
        if agent == "cline":
            # One script per event, named after it.
            return sorted(os.listdir(os.path.join(home, ".cline", "hooks")))
        path = {"claude": ".claude/settings.json", "gemini": ".gemini/settings.json", "codex": ".codex/hooks.json",
                "qwen": ".qwen/settings.json"}[agent]
        with open(os.path.join(home, path)) as f:
            return sorted(json.load(f)["hooks"])


class Drift(unittest.TestCase):
    def compare(self, agent, found, registers=True):
        version = harness.agent(agent)[1]
        known = KNOWN[agent]
        new = []
        for part in ("events", "input", "output"):
            if part not in found:
                continue
            items = found[part]
            names = set(items) if part == "events" else {f for fs in items.values() for f in fs}
            new += [f"{part}: {n}" for n in sorted(names - set(known.get(part, {})))]
        self.assertEqual(
            new, [],
            f"{agent} {version} describes hook items hookshot was not checked against "
            f"(known.json was checked against {KNOWN['checked_against'][agent]}): review each, then add it")
        if registers:
            table = sorted(e for e, note in known["events"].items() if note == "registered")
            self.assertEqual(registered(agent), table, f"{agent}: known.json's registered events are not install's")

    def test_codex(self):
        self.compare("codex", drift.codex(harness.codex_binary()))

    def test_claude(self):
        self.compare("claude", drift.claude(harness.claude_binary()))

    def test_qwen(self):
        # Qwen Code's bundle names its events and reads its answers as
        # gemini-cli's does (its fork), across cli.js and its chunks.
        root = os.path.join(harness.install(*harness.agent("qwen")), "node_modules", "@qwen-code", "qwen-code")
        parts = [drift.gemini(root), drift.gemini(os.path.join(root, "chunks"))]
        self.compare("qwen", {"events": sorted({e for p in parts for e in p["events"]}),
                              "output": {"*": sorted({f for p in parts for f in p["output"]["*"]})}})

    def test_cline(self):
        self.compare("cline", drift.cline(harness.install(*harness.agent("cline"))))

    def test_copilot(self):
        # Its own camelCase events; install registers Claude Code's names
        # (test_copilot.py checks those on the real CLI).
        self.compare("copilot", drift.copilot(harness.copilot_sdk_types()), registers=False)

    def test_gemini(self):
        bundle = os.path.join(harness.install(*harness.agent("gemini")), "node_modules", "@google", "gemini-cli", "bundle")
        self.compare("gemini", drift.gemini(bundle))

    def test_the_readers_still_find_what_they_read(self):
        """A reader that finds nothing (the agent changed how it ships its
        description) would make every check pass: each must still see the
        items hookshot has long relied on."""
        bundle = os.path.join(harness.install(*harness.agent("gemini")), "node_modules", "@google", "gemini-cli", "bundle")
        for agent, found, needed in (
            ("codex", drift.codex(harness.codex_binary()), "hookSpecificOutput.permissionDecision"),
            ("claude", drift.claude(harness.claude_binary()), "hookSpecificOutput.updatedInput"),
            ("gemini", drift.gemini(bundle), "hookSpecificOutput.tool_input"),
        ):
            outputs = {f for fs in found["output"].values() for f in fs}
            self.assertIn(needed, outputs, agent)
            self.assertGreaterEqual(len(found["events"]), 11, agent)
        cline = drift.cline(harness.install(*harness.agent("cline")))
        self.assertIn("cancel", cline["output"]["*"])
        self.assertIn("taskId", cline["input"]["*"])
        self.assertGreaterEqual(len(cline["events"]), 10)
        copilot = drift.copilot(harness.copilot_sdk_types())
        self.assertIn("preToolUse", copilot["events"])
        self.assertIn("toolArgs", copilot["input"]["*"])
        self.assertIn("permissionDecision", copilot["output"]["*"])


if __name__ == "__main__":
    unittest.main()
