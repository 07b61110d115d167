"""Real Qwen Code (a gemini-cli fork that reads Claude Code's hook format)
against a local model, each scenario natively (the hook in Qwen Code's own
`~/.qwen/settings.json`) and under hookshot (`hookshot install --agent qwen
--import`), asserted side by side: a change in Qwen Code shows up as a
failing native half, not as a hookshot bug."""

import json
import os
import unittest

import harness

HOOKSHOT = os.environ.get("HOOKSHOT_BIN", "")

SHELL = {"tool": "run_shell_command", "input": {"command": "echo hi > out.txt"}}
DONE = {"text": "done"}
GUARD = "cat >/dev/null; echo 'qwen guard says no' >&2; exit 2"
# What a hook was given: its input and the variables agents set for hooks.
RECORD = ("cat > \"$HOME/../seen-$$.json\"; "
          "printf '%s\\n' \"QWEN_PROJECT_DIR=$QWEN_PROJECT_DIR\" \"CLAUDE_PROJECT_DIR=$CLAUDE_PROJECT_DIR\" "
          "\"GEMINI_PROJECT_DIR=$GEMINI_PROJECT_DIR\" \"GEMINI_CWD=${GEMINI_CWD-unset}\" "
          "\"JCLI_CWD=${JCLI_CWD-unset}\" > \"$HOME/../vars-$$.txt\"")


def tool_hook(command, matcher="Bash", event="PreToolUse", **extra):
    return {event: [{"matcher": matcher, "hooks": [dict({"type": "command", "command": command}, **extra)]}]}


class QwenCode(unittest.TestCase):
    def place(self, hooks, under_hookshot, hookshot_settings=None):
        place = harness.Place()
        self.addCleanup(place.remove)
        place.write("home/.qwen/settings.json", {"hooks": hooks})
        if hookshot_settings:
            place.write("home/.config/hookshot/settings.json", hookshot_settings)
        if under_hookshot:
            p = place.hookshot(HOOKSHOT, "install", "--agent", "qwen", "--import")
            written = place.read("home/.qwen/settings.json")
            self.assertIn("fire --agent qwen", written, p.stdout)
            self.assertNotIn("qwen guard", written)
        return place

    def both(self, check, hooks, turns, hookshot_settings=None):
        for under in (False, True):
            with self.subTest(under_hookshot=under):
                place = self.place(hooks, under, hookshot_settings)
                run = harness.run_qwen(place, turns)
                self.assertEqual(run.rc, 0, run.stderr[-2000:])
                check(place, run)

    def test_a_block_by_exit_code_2_with_claude_codes_tool_name(self):
        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertIn("qwen guard says no", run.shown_to_model())
            self.assertNotIn("hookshot: warning", run.shown_to_model())

        # Qwen Code takes Claude Code's `Bash` for its run_shell_command.
        self.both(check, tool_hook(GUARD), [SHELL, DONE])

    def test_a_block_by_json(self):
        deny = harness.deny_json("json says no")

        def check(place, run):
            harness.blocked_with(self, place, run, "json says no")

        self.both(check, tool_hook(f"echo '{json.dumps(deny)}'", matcher="run_shell_command"), [SHELL, DONE])

    def test_a_matcher_of_part_of_a_name_fires(self):
        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertIn("qwen guard says no", run.shown_to_model())

        # `run` is searched in `run_shell_command` (an unanchored regex).
        self.both(check, tool_hook(GUARD, matcher="run"), [SHELL, DONE])

    def test_a_rewrite_is_not_applied_by_qwen_code(self):
        # Qwen Code 0.24.4 documents `updatedInput` but its PreToolUse
        # output has no reader for it (PreToolUseHookOutput): the call runs
        # as the model wrote it, natively and under hookshot alike.
        allow = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                        "updatedInput": {"command": "echo rewritten > rewritten.txt"}}}

        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"), run.stdout[-2000:])
            self.assertFalse(place.exists("project/rewritten.txt"))

        self.both(check, tool_hook(f"echo '{json.dumps(allow)}'"), [SHELL, DONE])

    def test_a_hook_that_crashes_or_times_out_does_not_block(self):
        hooks = {"PreToolUse": [{"matcher": "run_shell_command", "hooks": [
            {"type": "command", "command": "echo broken >&2; exit 1"},
            {"type": "command", "command": "sleep 5", "timeout": 1}]}]}

        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"), run.stdout[-2000:])

        self.both(check, hooks, [SHELL, DONE])

    def test_a_hook_gets_the_input_and_variables_qwen_code_gives_it(self):
        seen = {}

        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"))
            inputs = [f for f in os.listdir(place.root) if f.startswith("seen-")]
            varfiles = [f for f in os.listdir(place.root) if f.startswith("vars-")]
            self.assertEqual(len(inputs), 1, inputs)
            given = json.loads(place.read(inputs[0]))
            variables = place.read(varfiles[0]).replace(place.project, "<project>")
            seen.setdefault("runs", []).append((given, variables))

        self.both(check, tool_hook(RECORD, matcher="run_shell_command"), [SHELL, DONE])
        (native, native_vars), (under, under_vars) = seen["runs"]
        self.assertEqual(native_vars, under_vars)
        for key in ("hook_event_name", "tool_name", "tool_input", "permission_mode"):
            self.assertEqual(native.get(key), under.get(key), key)
        # hookshot adds no field Qwen Code does not send (it may leave out
        # Qwen Code's own bookkeeping ids, which only Qwen Code can know).
        self.assertEqual(set(under) - set(native), set(), (sorted(native), sorted(under)))

    def test_the_guards_of_install_guards_protect_qwen_code(self):
        place = harness.Place()
        self.addCleanup(place.remove)
        place.write("home/.qwen/settings.json", {})
        place.hookshot(HOOKSHOT, "install", "--agent", "qwen", "--guards")
        place.write("home/work/keep.txt", "mine")
        wipe = {"tool": "run_shell_command", "input": {"command": "rm -rf ~/work"}}
        run = harness.run_qwen(place, [wipe, DONE])
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        # dangerous_confirmation asks; headless, Qwen Code takes a question
        # as a denial, and the model is told why.
        self.assertTrue(place.exists("home/work/keep.txt"), run.stdout[-2000:])
        self.assertIn("rm -rf", run.shown_to_model())

    def test_an_untrusted_project_hook_does_not_run_until_trusted(self):
        place = self.place({}, True)
        harness.untrusted_until_trusted(self, place, harness.run_qwen, HOOKSHOT,
                                        {"hooks": tool_hook("echo 'the project says no' >&2; exit 2")},
                                        [SHELL, DONE])

    def test_uninstall_puts_qwen_codes_file_back(self):
        place = harness.Place()
        self.addCleanup(place.remove)
        mine = '{\n  "model": {"name": "gpt-mock"}\n}\n'
        place.write("home/.qwen/settings.json", mine)
        place.hookshot(HOOKSHOT, "install", "--agent", "qwen")
        place.hookshot(HOOKSHOT, "uninstall", "--agent", "qwen")
        self.assertEqual(place.read("home/.qwen/settings.json"), mine)
        run = harness.run_qwen(place, [SHELL, DONE])
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        self.assertTrue(place.exists("project/out.txt"))

    def test_a_hand_written_registration_is_told_qwen_code_by_its_variable(self):
        place = harness.Place()
        self.addCleanup(place.remove)
        # hookshot's settings name the tool in Claude Code's words.
        place.write("home/.config/hookshot/settings.json", {"hooks": tool_hook(GUARD)})
        place.write("home/.qwen/settings.json", {"hooks": {"PreToolUse": [
            {"hooks": [{"type": "command", "command": f"{HOOKSHOT} fire PreToolUse"}]}]}})
        run = harness.run_qwen(place, [SHELL, DONE])
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        self.assertFalse(place.exists("project/out.txt"))
        shown = run.shown_to_model()
        self.assertIn("qwen guard says no", shown)
        self.assertNotIn("hookshot: warning", shown)


if __name__ == "__main__":
    unittest.main()
