"""Real gemini-cli replaying a recorded model session (`--fake-responses`),
each scenario natively (the hook in gemini-cli's own settings) and under
hookshot (`hookshot install --agent gemini --import`), asserted side by
side."""

import json
import os
import re
import unittest

import harness

HOOKSHOT = os.environ.get("HOOKSHOT_BIN", "")

WRITE = {"tool": "write_file", "input": {"file_path": "out.txt", "content": "hi"}}
DONE = {"text": "done"}


def hook(command, matcher="write_file", event="BeforeTool", timeout=10000):
    group = {"hooks": [{"type": "command", "command": command, "name": "guard", "timeout": timeout}]}
    if matcher:
        group["matcher"] = matcher
    return dict(harness.GEMINI_AUTH, hooks={event: [group]})


def hooks(*files):
    """One settings value holding the events of several `hook(...)`."""
    out = dict(harness.GEMINI_AUTH, hooks={})
    for f in files:
        out["hooks"].update(f["hooks"])
    return out


def echo(value):
    return f"echo '{json.dumps(value)}'"


def context(event, text):
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


class Scenario(unittest.TestCase):
    """Helpers: a place per run, the hook natively or under hookshot."""

    def place(self, settings, under_hookshot, hookshot_settings=None):
        place = harness.Place()
        self.addCleanup(place.remove)
        place.write("home/.gemini/settings.json", settings)
        if hookshot_settings:
            place.write("home/.config/hookshot/settings.json", hookshot_settings)
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


class GeminiCli(Scenario):
    def test_a_block_by_exit_code_2(self):
        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertIn("no writes today", run.shown_to_model())

        self.both(check, hook("echo 'no writes today' >&2; exit 2"), [WRITE, DONE])

    def test_a_block_by_json(self):
        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertIn("json says no", run.shown_to_model())

        self.both(check, hook("echo '{\"decision\": \"deny\", \"reason\": \"json says no\"}'"), [WRITE, DONE])

    def test_a_rewrite_of_the_tool_input(self):
        rewrite = {"hookSpecificOutput": {"hookEventName": "BeforeTool",
                                          "tool_input": {"file_path": "rewritten.txt", "content": "x"}}}

        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertTrue(place.exists("project/rewritten.txt"), run.stdout[-2000:] + run.stderr[-2000:])

        self.both(check, hook(echo(rewrite)), [WRITE, DONE])

    def test_context_after_a_tool(self):
        # gemini-cli 0.61 takes no additionalContext from BeforeTool (its
        # model never sees one, natively or under hookshot): context for a
        # tool comes after it.
        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"))
            self.assertIn("remember the tests", run.shown_to_model())

        self.both(check, hook(echo(context("AfterTool", "remember the tests")), event="AfterTool"), [WRITE, DONE])

    def test_context_at_session_start_and_on_the_prompt(self):
        def check(place, run):
            first = run.first_request()
            self.assertIn("codename kiwi", first)
            self.assertIn("prompt context pear", first)

        self.both(check, hooks(hook(echo(context("SessionStart", "codename kiwi")), matcher=None, event="SessionStart"),
                               hook(echo(context("BeforeAgent", "prompt context pear")), matcher=None,
                                    event="BeforeAgent")), [DONE])

    def test_an_after_agent_hook_makes_the_agent_go_on(self):
        once = ("[ -e went-on ] && { echo '{}'; exit 0; }; touch went-on; "
                "echo '{\"decision\": \"deny\", \"reason\": \"run the tests first\"}'")

        def check(place, run):
            self.assertGreaterEqual(len(run.script.main_requests()), 2)
            self.assertIn("run the tests first", run.shown_to_model())

        self.both(check, hook(once, matcher=None, event="AfterAgent"), [DONE, {"text": "tests run"}])

    def test_a_hook_that_crashes_or_times_out_does_not_block(self):
        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"), run.stdout[-2000:] + run.stderr[-2000:])

        crash_and_timeout = dict(harness.GEMINI_AUTH, hooks={"BeforeTool": [{"matcher": "write_file", "hooks": [
            {"type": "command", "command": "echo broken >&2; exit 1", "name": "crash"},
            {"type": "command", "command": "sleep 5", "name": "slow", "timeout": 1000}]}]})
        self.both(check, crash_and_timeout, [WRITE, DONE])

    def test_an_allowed_write_happens(self):
        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"), run.stdout[-2000:] + run.stderr[-2000:])

        self.both(check, hook("exit 0"), [WRITE, DONE])

    def test_matchers_are_javascript_regular_expressions(self):
        """A look-ahead fires on write_file; `\\<write_file` means a
        literal `<` in JavaScript and fires on nothing."""
        settings = dict(harness.GEMINI_AUTH, hooks={"BeforeTool": [
            {"matcher": "^(?!read_file$).*", "hooks": [
                {"type": "command", "command": "echo 'look-ahead says no' >&2; exit 2", "name": "ahead"}]},
            {"matcher": "\\<write_file", "hooks": [
                {"type": "command", "command": "echo 'boundary says no' >&2; exit 2", "name": "boundary"}]}]})

        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertIn("look-ahead says no", run.shown_to_model())
            self.assertNotIn("boundary says no", run.shown_to_model())

        self.both(check, settings, [WRITE, DONE])

    def test_a_hooks_env_and_the_variables_in_its_command(self):
        """gemini-cli adds a hook's own `env` to its environment and
        replaces `$GEMINI_PROJECT_DIR` (and its other variables) in the
        command text before the shell reads it: inside single quotes too."""
        settings = dict(harness.GEMINI_AUTH, hooks={"BeforeTool": [{"matcher": "write_file", "hooks": [
            {"type": "command", "name": "env", "env": {"HOOK_COLOUR": "teal"},
             "command": "echo \"$HOOK_COLOUR\" > \"$HOME/colour\"; echo '$GEMINI_PROJECT_DIR' > \"$HOME/dir\""}]}]})

        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"))
            self.assertEqual(place.read("home/colour").strip(), "teal")
            self.assertEqual(place.read("home/dir").strip(), os.path.join(place.root, "project"))

        self.both(check, settings, [WRITE, DONE])

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

    def test_the_plans_folder_is_the_one_gemini_cli_names(self):
        """`GEMINI_PLANS_DIR` where the user's settings name a folder of
        the project (`general.plan.directory`), and where they name one
        outside it, which gemini-cli refuses."""
        dump = "echo \"plans=${GEMINI_PLANS_DIR-unset}\" > \"$HOME/plans\""
        for folder in (".gemini/plans", "../elsewhere"):
            seen = {}
            for under in (False, True):
                with self.subTest(folder=folder, under_hookshot=under):
                    place = self.place(dict(hook(dump), general={"plan": {"directory": folder}}), under)
                    run = harness.run_gemini(place, [WRITE, DONE])
                    self.assertEqual(run.rc, 0, run.stderr[-2000:])
                    seen[under] = re.sub(r"/[0-9a-f-]{36}/", "/SESSION/",
                                         place.read("home/plans").replace(str(place.root), "ROOT"))
            self.assertEqual(seen[True], seen[False], folder)
            if folder == ".gemini/plans":
                self.assertIn("project/.gemini/plans", seen[False])


class UnderHookshotOnly(Scenario):
    """What only hookshot does, with the native behaviour it replaces."""

    def test_the_closed_policy_blocks_a_hook_that_crashes_or_times_out(self):
        for name, command, timeout in (("crashes", "exit 1", 10000), ("times out", "sleep 5", 1000)):
            with self.subTest(hook=name):
                place = self.place(hook(command, timeout=timeout), True, {"hooksConfig": {"onFailure": "closed"}})
                run = harness.run_gemini(place, [WRITE, DONE])
                self.assertEqual(run.rc, 0, run.stderr[-2000:])
                self.assertFalse(place.exists("project/out.txt"))
                self.assertIn("fail-closed", run.shown_to_model())

    def test_built_ins_refuse_a_force_push(self):
        place = self.place(dict(harness.GEMINI_AUTH), True, {"builtins": {"dangerous_confirmation": {"mode": "deny"}}})
        push = {"tool": "run_shell_command", "input": {"command": "git push --force origin main"}}
        run = harness.run_gemini(place, [push, DONE])
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        self.assertIn("rewrites the remote", run.shown_to_model())
        self.assertIn("dangerous_confirmation", run.shown_to_model())

    def test_an_untrusted_project_hook_does_not_run_until_trusted(self):
        place = self.place(dict(harness.GEMINI_AUTH), True)
        no = {"hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [
            {"type": "command", "command": "echo 'the project says no' >&2; exit 2"}]}]}}
        harness.untrusted_until_trusted(self, place, harness.run_gemini, HOOKSHOT, no, [WRITE, DONE])

    def test_hookshot_removed_after_install_is_a_warning_not_silence(self):
        place = harness.Place()
        self.addCleanup(place.remove)
        copy = place.copy_of(HOOKSHOT)
        place.write("home/.gemini/settings.json", hook("exit 0"))
        place.hookshot(copy, "install", "--agent", "gemini", "--import")
        os.remove(copy)
        run = harness.run_gemini(place, [WRITE, DONE])
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        self.assertTrue(place.exists("project/out.txt"))
        self.assertIn("hookshot could not run (it is not installed there any more): the hooks of BeforeTool did not run", run.stderr)


if __name__ == "__main__":
    unittest.main()
