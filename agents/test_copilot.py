"""Real GitHub Copilot CLI (offline, a bring-your-own model on the
Responses API) against a local model. Natively, a hook in Copilot CLI's
own `~/.copilot/hooks/*.json`, named by Claude Code's event names (which
switch its payload to Claude Code's shape); under hookshot, the same hook
in hookshot's settings and `hookshot install --agent copilot`, which
registers in `~/.copilot/hooks/hookshot.json`. Asserted side by side, so a
change in Copilot CLI shows up as a failing native half."""

import json
import os
import unittest

import harness

HOOKSHOT = os.environ.get("HOOKSHOT_BIN", "")

SHELL = {"tool": "bash", "input": {"command": "echo hi > out.txt", "description": "write a file"}}
DONE = {"text": "done"}
RECORD = ("cat > \"$HOME/../seen-$$.json\"; "
          "printf '%s\\n' \"COPILOT_CLI=$COPILOT_CLI\" \"COPILOT_PROJECT_DIR=$COPILOT_PROJECT_DIR\" "
          "\"CLAUDE_PROJECT_DIR=$CLAUDE_PROJECT_DIR\" \"GEMINI_PROJECT_DIR=${GEMINI_PROJECT_DIR-unset}\" "
          "> \"$HOME/../vars-$$.txt\"")


def hook(command, event="PreToolUse", matcher=None, **extra):
    group = {"hooks": [dict({"type": "command", "command": command}, **extra)]}
    if matcher:
        group["matcher"] = matcher
    return {event: [group]}


class CopilotCli(unittest.TestCase):
    def place(self, hooks, under_hookshot):
        place = harness.Place()
        self.addCleanup(place.remove)
        if under_hookshot:
            place.write("home/.config/hookshot/settings.json", {"hooks": hooks})
            p = place.hookshot(HOOKSHOT, "install", "--agent", "copilot")
            self.assertIn("fire --agent copilot", place.read("home/.copilot/hooks/hookshot.json"), p.stdout)
        else:
            place.write("home/.copilot/hooks/mine.json", {"version": 1, "hooks": hooks})
        return place

    def both(self, check, hooks, turns):
        for under in (False, True):
            with self.subTest(under_hookshot=under):
                place = self.place(hooks, under)
                run = harness.run_copilot(place, turns)
                self.assertEqual(run.rc, 0, run.stderr[-2000:])
                check(place, run, under)

    def test_a_block_by_exit_code_2(self):
        def check(place, run, under):
            self.assertFalse(place.exists("project/out.txt"))
            # Natively Copilot CLI drops the reason of an exit 2; hookshot
            # answers it with a JSON denial, which carries it.
            if under:
                self.assertIn("no shell today", run.shown_to_model())
            else:
                self.assertIn("hook exited with code 2", run.shown_to_model())

        self.both(check, hook("echo 'no shell today' >&2; exit 2", matcher="Bash"), [SHELL, DONE])

    def test_a_block_by_json(self):
        deny = harness.deny_json("json says no")

        def check(place, run, under):
            harness.blocked_with(self, place, run, "json says no")

        self.both(check, hook(f"echo '{json.dumps(deny)}'"), [SHELL, DONE])

    def test_a_rewrite_of_the_tool_input(self):
        allow = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                        "updatedInput": {"command": "echo rewritten > rewritten.txt"}}}

        def check(place, run, under):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertTrue(place.exists("project/rewritten.txt"), run.stdout[-2000:])

        self.both(check, hook(f"echo '{json.dumps(allow)}'"), [SHELL, DONE])

    def test_context_after_a_tool_and_at_session_start(self):
        after = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "remember the tests"},
                 "additionalContext": "remember the tests"}
        start = {"additionalContext": "codename kiwi"}
        hooks = dict(hook(f"echo '{json.dumps(after)}'", event="PostToolUse"),
                     **hook(f"echo '{json.dumps(start)}'", event="SessionStart"))

        def check(place, run, under):
            self.assertTrue(place.exists("project/out.txt"))
            self.assertIn("remember the tests", run.shown_to_model())
            self.assertIn("codename kiwi", run.first_request())

        self.both(check, hooks, [SHELL, DONE])

    def test_a_stop_hook_makes_the_agent_go_on(self):
        def check(place, run, under):
            self.assertGreaterEqual(len(run.script.main_requests()), 2)
            self.assertIn("run the tests first", run.shown_to_model())

        self.both(check, hook(harness.STOP_ONCE, event="Stop"), [DONE, {"text": "tests run"}])

    def test_a_hook_that_crashes_denies_and_one_that_times_out_does_not(self):
        # Copilot CLI fails closed before a tool ("hook errored"), and lets
        # the tool run after a timeout; hookshot called by it does the same.
        cases = [
            ("crash", "echo broken >&2; exit 1", {}, {}, False),
            ("timeout", "sleep 5", {"timeoutSec": 1}, {"timeout": 1}, True),
        ]
        for name, command, native_extra, hookshot_extra, runs in cases:
            for under in (False, True):
                with self.subTest(name, under_hookshot=under):
                    extra = hookshot_extra if under else native_extra
                    place = self.place(hook(command, **extra), under)
                    run = harness.run_copilot(place, [SHELL, DONE])
                    self.assertEqual(run.rc, 0, run.stderr[-2000:])
                    self.assertEqual(place.exists("project/out.txt"), runs, run.stdout[-2000:])

    def test_a_hook_gets_the_input_and_variables_copilot_gives_it(self):
        seen = []

        def check(place, run, under):
            inputs = sorted(f for f in os.listdir(place.root) if f.startswith("seen-"))
            varfiles = sorted(f for f in os.listdir(place.root) if f.startswith("vars-"))
            self.assertEqual(len(inputs), 1, inputs)
            seen.append((json.loads(place.read(inputs[0])), place.read(varfiles[0]).replace(place.project, "<p>")))

        self.both(check, hook(RECORD, matcher="Bash"), [SHELL, DONE])
        (native, native_vars), (under, under_vars) = seen
        self.assertEqual(native_vars, under_vars)
        for key in ("hook_event_name", "tool_name", "tool_input"):
            self.assertEqual(native.get(key), under.get(key), key)

    def test_the_guards_of_install_guards_protect_copilot(self):
        place = harness.Place()
        self.addCleanup(place.remove)
        place.hookshot(HOOKSHOT, "install", "--agent", "copilot", "--guards")
        place.write("home/work/keep.txt", "mine")
        wipe = {"tool": "bash", "input": {"command": "rm -rf ~/work", "description": "clean"}}
        run = harness.run_copilot(place, [wipe, DONE])
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        # dangerous_confirmation asks; Copilot CLI, unable to ask, denies.
        self.assertTrue(place.exists("home/work/keep.txt"), run.stdout[-2000:])
        self.assertIn("rm -rf", run.shown_to_model())

    def test_uninstall_puts_the_hooks_folder_back(self):
        place = harness.Place()
        self.addCleanup(place.remove)
        place.write("home/.config/hookshot/settings.json", {"hooks": hook("exit 2")})
        place.hookshot(HOOKSHOT, "install", "--agent", "copilot")
        place.hookshot(HOOKSHOT, "uninstall", "--agent", "copilot")
        self.assertFalse(place.exists("home/.copilot/hooks/hookshot.json"))
        run = harness.run_copilot(place, [SHELL, DONE])
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        self.assertTrue(place.exists("project/out.txt"))

    def test_copilot_running_the_claude_code_registration_is_answered_as_itself(self):
        place = harness.Place()
        self.addCleanup(place.remove)
        # Claude Code's project registration, which Copilot CLI runs too,
        # beside a hook of the project's Claude Code settings.
        place.write("home/.config/hookshot/settings.json",
                    {"hooks": hook("echo 'the guard says no' >&2; exit 2", matcher="Bash")})
        place.write("project/.claude/settings.json", {"hooks": hook("touch \"$HOME/../claude-hook-$$\"")})
        place.hookshot(HOOKSHOT, "trust", "--yes")
        place.hookshot(HOOKSHOT, "install", "--agent", "claude", "--project")
        run = harness.run_copilot(place, [SHELL, DONE])
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        self.assertFalse(place.exists("project/out.txt"))
        self.assertIn("the guard says no", run.shown_to_model())
        self.assertNotIn("hookshot: warning", run.shown_to_model())
        # Copilot CLI runs the project's Claude Code hook itself; hookshot
        # does not run it a second time.
        ran = [f for f in os.listdir(place.root) if f.startswith("claude-hook-")]
        self.assertEqual(len(ran), 1, ran)

    def test_its_own_camelcase_events_run_hookshot_and_are_answered_in_their_shape(self):
        # Copilot CLI's own format: camelCase events, flat `bash` entries,
        # its payload (`toolName`, `toolArgs`) and its answers at the top.
        # Natively a hook denies in its words and an agentStop hook makes
        # it go on; under hookshot a Claude Code guard and Stop hook do the
        # same through a hand-written `hookshot fire` (one names the agent,
        # one leaves it to COPILOT_CLI).
        deny = {"permissionDecision": "deny", "permissionDecisionReason": "no shell today"}
        go_on = ("[ -e went-on ] && exit 0; touch went-on; "
                 "echo '{\"decision\": \"block\", \"reason\": \"run the tests first\"}'")
        for under in (False, True):
            with self.subTest(under_hookshot=under):
                place = harness.Place()
                self.addCleanup(place.remove)
                if under:
                    place.write("home/.config/hookshot/settings.json", {"hooks": dict(
                        hook("echo 'no shell today' >&2; exit 2", matcher="Bash"),
                        **hook(harness.STOP_ONCE, event="Stop"))})
                    entries = {"preToolUse": [{"type": "command", "bash": f"'{HOOKSHOT}' fire --agent copilot preToolUse"}],
                               "agentStop": [{"type": "command", "bash": f"'{HOOKSHOT}' fire agentStop"}]}
                else:
                    entries = {"preToolUse": [{"type": "command", "bash": f"echo '{json.dumps(deny)}'"}],
                               "agentStop": [{"type": "command", "bash": go_on}]}
                place.write("home/.copilot/hooks/mine.json", {"version": 1, "hooks": entries})
                run = harness.run_copilot(place, [SHELL, DONE, {"text": "tests run"}])
                self.assertEqual(run.rc, 0, run.stderr[-2000:])
                harness.blocked_with(self, place, run, "no shell today")
                self.assertIn("run the tests first", run.shown_to_model())

    def test_its_own_guard_file_guards_claude_code_under_hookshot(self):
        # Copilot CLI's own project file (camelCase event, a flat `bash`
        # entry, its matcher on its own tool name, a `cwd`): natively
        # Copilot CLI runs it; under hookshot, Claude Code calling hookshot
        # (its project registration) runs the same file, trusted, with the
        # payload, variables and folder Copilot CLI gives it, and the deny
        # it answers in Copilot CLI's words blocks Claude Code's Bash.
        deny = json.dumps({"permissionDecision": "deny", "permissionDecisionReason": "no shell in this repo"})
        guard = {"version": 1, "hooks": {"preToolUse": [{
            "type": "command", "matcher": "bash", "cwd": "sub",
            "bash": ("cat > \"$HOME/../seen-$$.json\"; printf '%s\\n' \"COPILOT_CLI=$COPILOT_CLI\" "
                     "\"COPILOT_HOOK_DIR=$COPILOT_HOOK_DIR\" \"COPILOT_PROJECT_DIR=$COPILOT_PROJECT_DIR\" "
                     "\"PWD=$(pwd)\" > \"$HOME/../vars-$$.txt\"; echo '" + deny + "'")}]}}
        seen = []
        for under in (False, True):
            with self.subTest(under_hookshot=under):
                place = harness.Place()
                self.addCleanup(place.remove)
                os.makedirs(os.path.join(place.project, "sub"))
                place.write("project/.github/hooks/guard.json", guard)
                if under:
                    place.hookshot(HOOKSHOT, "trust", "--yes")
                    place.hookshot(HOOKSHOT, "install", "--agent", "claude", "--project")
                    run = harness.run_claude(place, [{"tool": "Bash", "input": SHELL["input"]}, DONE])
                else:
                    run = harness.run_copilot(place, [SHELL, DONE])
                self.assertEqual(run.rc, 0, run.stderr[-2000:])
                harness.blocked_with(self, place, run, "no shell in this repo")
                inputs = sorted(f for f in os.listdir(place.root) if f.startswith("seen-"))
                varfiles = sorted(f for f in os.listdir(place.root) if f.startswith("vars-"))
                self.assertEqual(len(inputs), 1, inputs)
                seen.append((json.loads(place.read(inputs[0])), place.read(varfiles[0]).replace(place.project, "<p>")))
        (native, native_vars), (under, under_vars) = seen
        self.assertEqual(native_vars, under_vars)
        self.assertEqual(list(native), list(under))
        for key in ("toolName", "toolArgs", "cwd"):
            self.assertEqual(type(native[key]), type(under[key]), key)
        self.assertEqual(native["toolName"], under["toolName"])
        self.assertEqual(native["toolArgs"]["command"], under["toolArgs"]["command"])


if __name__ == "__main__":
    unittest.main()
