"""Real Qwen Code (a gemini-cli fork that reads Claude Code's hook format),
which hookshot does not support as an agent yet, against a local model:
a guard blocks natively, and the same guard in hookshot's settings blocks
through a hand-written `hookshot fire` registration in Qwen Code's file,
its reason reaching the model without hookshot's note for the user."""

import os
import unittest

import harness

HOOKSHOT = os.environ.get("HOOKSHOT_BIN", "")

SHELL = {"tool": "run_shell_command", "input": {"command": "echo hi > out.txt"}}
DONE = {"text": "done"}
GUARD = "cat >/dev/null; echo 'qwen guard says no' >&2; exit 2"


class QwenCode(unittest.TestCase):
    def test_a_guard_blocks_natively_and_through_hookshot(self):
        for under in (False, True):
            with self.subTest(under_hookshot=under):
                place = harness.Place()
                self.addCleanup(place.remove)
                if under:
                    # hookshot's settings name the tool in Claude Code's words.
                    place.write("home/.config/hookshot/settings.json", {"hooks": {"PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": GUARD}]}]}})
                    place.write("home/.qwen/settings.json", {"hooks": {"PreToolUse": [
                        {"hooks": [{"type": "command", "command": f"{HOOKSHOT} fire PreToolUse"}]}]}})
                else:
                    place.write("home/.qwen/settings.json", {"hooks": {"PreToolUse": [
                        {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": GUARD}]}]}})
                run = harness.run_qwen(place, [SHELL, DONE])
                self.assertEqual(run.rc, 0, run.stderr[-2000:])
                self.assertFalse(place.exists("project/out.txt"))
                shown = run.shown_to_model()
                self.assertTrue("qwen guard says no" in shown, "the block's reason did not reach the model")
                self.assertFalse("hookshot: warning" in shown, "hookshot's note for the user reached the model")


if __name__ == "__main__":
    unittest.main()
