"""Real Codex against a local model, each scenario natively (the hook in
Codex's own `hooks.json`) and under hookshot (the same hook in hookshot's
settings, hookshot registered with `hookshot install --agent codex`),
asserted side by side. Codex keeps the hooks it has in place on `--import`
(its approvals are bound to their places), so the hookshot half puts the
hook in hookshot's own file."""

import json
import os
import unittest

import harness

HOOKSHOT = os.environ.get("HOOKSHOT_BIN", "")

WRITE = {"tool": "exec_command", "input": {"cmd": "echo hi > out.txt"}}
DONE = {"text": "done"}


def hook(command, matcher="Bash", event="PreToolUse"):
    return {"hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]}}


class Codex(unittest.TestCase):
    def place(self, hooks, under_hookshot):
        place = harness.Place()
        self.addCleanup(place.remove)
        if under_hookshot:
            place.write("home/.config/hookshot/settings.json", hooks)
            place.hookshot(HOOKSHOT, "install", "--agent", "codex")
            self.assertIn("fire --agent codex", place.read("home/.codex/hooks.json"))
        else:
            place.write("home/.codex/hooks.json", hooks)
        return place

    def both(self, check, hooks, turns):
        for under in (False, True):
            with self.subTest(under_hookshot=under):
                place = self.place(hooks, under)
                run = harness.run_codex(place, turns)
                self.assertEqual(run.rc, 0, run.stderr[-2000:])
                check(place, run)

    def test_a_block_by_exit_code_2(self):
        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertIn("no shell today", run.shown_to_model())

        self.both(check, hook("echo 'no shell today' >&2; exit 2"), [WRITE, DONE])

    def test_a_block_by_json(self):
        deny = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": "json says no"}}

        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertIn("json says no", run.shown_to_model())

        self.both(check, hook(f"echo '{json.dumps(deny)}'"), [WRITE, DONE])

    def test_a_hook_that_crashes_does_not_block(self):
        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"), run.stdout[-2000:])

        self.both(check, hook("echo broken >&2; exit 1"), [WRITE, DONE])

    def test_context_after_a_tool(self):
        ctx = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "remember the tests"}}

        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"))
            self.assertIn("remember the tests", run.shown_to_model())

        self.both(check, hook(f"echo '{json.dumps(ctx)}'", event="PostToolUse"), [WRITE, DONE])

    def test_a_rewrite_of_the_tool_input(self):
        allow = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                        "updatedInput": {"command": "echo rewritten > rewritten.txt"}}}

        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertTrue(place.exists("project/rewritten.txt"), run.stdout[-2000:])

        self.both(check, hook(f"echo '{json.dumps(allow)}'"), [WRITE, DONE])

    def test_uninstall_gives_back_the_file_and_the_behaviour(self):
        original = hook("echo 'no shell today' >&2; exit 2")
        place = harness.Place()
        self.addCleanup(place.remove)
        place.write("home/.codex/hooks.json", original)
        place.hookshot(HOOKSHOT, "install", "--agent", "codex")
        place.hookshot(HOOKSHOT, "uninstall", "--agent", "codex")
        self.assertEqual(json.loads(place.read("home/.codex/hooks.json")), original)
        run = harness.run_codex(place, [WRITE, DONE])
        self.assertFalse(place.exists("project/out.txt"))
        self.assertIn("no shell today", run.shown_to_model())

    def test_a_hook_gets_what_codex_gives_it(self):
        """Environment names, input fields and shell behaviour at PreToolUse,
        natively and under hookshot: the same, but for HOOKSHOT_ variables."""
        dump = ("env | cut -d= -f1 | grep -v '^HOOKSHOT_' | sort > \"$HOME/env\"; "
                "python3 -c 'import json,sys; print(sorted(json.load(sys.stdin)))' > \"$HOME/input\"; "
                "echo 'x\\ny' > \"$HOME/shell\"")
        seen = {}
        for under in (False, True):
            place = self.place(hook(dump), under)
            run = harness.run_codex(place, [WRITE, DONE])
            self.assertEqual(run.rc, 0, run.stderr[-2000:])
            seen[under] = {k: place.read(f"home/{k}") for k in ("env", "input", "shell")}
        for key, native in seen[False].items():
            self.assertEqual(seen[True][key], native, key)


if __name__ == "__main__":
    unittest.main()
