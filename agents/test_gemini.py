"""Real gemini-cli replaying a recorded model session (`--fake-responses`),
each scenario natively (the hook in gemini-cli's own settings) and under
hookshot (`hookshot install --agent gemini --import`), asserted side by
side."""

import json
import os
import unittest

import harness

HOOKSHOT = os.environ.get("HOOKSHOT_BIN", "")

WRITE = {"tool": "write_file", "input": {"file_path": "out.txt", "content": "hi"}}
DONE = {"text": "done"}


def hook(command, matcher="write_file", event="BeforeTool"):
    return dict(harness.GEMINI_AUTH, hooks={event: [{"matcher": matcher, "hooks": [
        {"type": "command", "command": command, "name": "guard", "timeout": 10000}]}]})


class GeminiCli(unittest.TestCase):
    def place(self, settings, under_hookshot):
        place = harness.Place()
        self.addCleanup(place.remove)
        place.write("home/.gemini/settings.json", settings)
        if under_hookshot:
            place.hookshot(HOOKSHOT, "install", "--agent", "gemini", "--import")
            self.assertIn("fire --agent gemini", place.read("home/.gemini/settings.json"))
        return place

    def both(self, check, settings, turns):
        for under in (False, True):
            with self.subTest(under_hookshot=under):
                place = self.place(settings, under)
                run = harness.run_gemini(place, turns)
                self.assertEqual(run.rc, 0, run.stderr[-2000:])
                check(place, run)

    def test_a_block_by_exit_code_2(self):
        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))

        self.both(check, hook("echo 'no writes today' >&2; exit 2"), [WRITE, DONE])

    def test_a_block_by_json(self):
        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))

        self.both(check, hook("echo '{\"decision\": \"deny\", \"reason\": \"json says no\"}'"), [WRITE, DONE])

    def test_an_allowed_write_happens(self):
        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"), run.stdout[-2000:] + run.stderr[-2000:])

        self.both(check, hook("exit 0"), [WRITE, DONE])

    def test_uninstall_gives_back_the_file_and_the_behaviour(self):
        original = hook("echo 'no writes today' >&2; exit 2")
        place = self.place(original, True)
        place.hookshot(HOOKSHOT, "uninstall", "--agent", "gemini")
        self.assertEqual(json.loads(place.read("home/.gemini/settings.json")), original)
        run = harness.run_gemini(place, [WRITE, DONE])
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        self.assertFalse(place.exists("project/out.txt"))

    def test_a_hook_gets_what_gemini_cli_gives_it(self):
        """Environment names and input fields at BeforeTool, natively and
        under hookshot: the same, but for HOOKSHOT_ variables."""
        dump = ("env | cut -d= -f1 | grep -v '^HOOKSHOT_' | sort > \"$HOME/env\"; "
                "python3 -c 'import json,sys; print(sorted(json.load(sys.stdin)))' > \"$HOME/input\"")
        seen = {}
        for under in (False, True):
            place = self.place(hook(dump), under)
            run = harness.run_gemini(place, [WRITE, DONE])
            self.assertEqual(run.rc, 0, run.stderr[-2000:])
            seen[under] = {k: place.read(f"home/{k}") for k in ("env", "input")}
        for key, native in seen[False].items():
            self.assertEqual(seen[True][key], native, key)


if __name__ == "__main__":
    unittest.main()
