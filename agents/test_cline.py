"""Real Cline (its CLI) against a local model, each scenario natively (an
executable in `~/.cline/hooks/`, answering in Cline's words) and under
hookshot (`hookshot install --agent cline` writes one script per event
there, running `hookshot fire --agent cline EVENT`; the hook is in
hookshot's settings in Claude Code's format), asserted side by side."""

import json
import os
import unittest

import harness

HOOKSHOT = os.environ.get("HOOKSHOT_BIN", "")

WRITE = {"tool": "run_commands", "input": {"commands": ["echo hi > out.txt"]}}
DONE = {"text": "done"}


def hook_file(place, event, body):
    path = place.write(f"home/.cline/hooks/{event}", "#!/bin/sh\n" + body + "\n")
    os.chmod(path, 0o755)


class Scenario(unittest.TestCase):
    def place(self, native, hookshot_settings):
        """`native`: {event: shell body answering as Cline}; under hookshot
        (`hookshot_settings` given) each of those events runs hookshot."""
        place = harness.Place()
        self.addCleanup(place.remove)
        if hookshot_settings is None:
            for event, body in native.items():
                hook_file(place, event, body)
        else:
            place.write("home/.config/hookshot/settings.json", hookshot_settings)
            place.hookshot(HOOKSHOT, "install", "--agent", "cline")
            self.assertIn("fire --agent cline PreToolUse", place.read("home/.cline/hooks/PreToolUse"))
        return place

    def both(self, check, native, hookshot_settings, turns, prompt="do the task"):
        for under in (False, True):
            with self.subTest(under_hookshot=under):
                place = self.place(native, hookshot_settings if under else None)
                run = harness.run_cline(place, turns, prompt=prompt)
                check(place, run)


def claude_hook(event, command, matcher=None):
    group = {"hooks": [{"type": "command", "command": command}]}
    if matcher:
        group["matcher"] = matcher
    return {"hooks": {event: [group]}}


class Cline(Scenario):
    def test_a_pre_tool_hook_cancels_the_command_and_the_task(self):
        """Cline's `cancel` before a tool: the command never runs and the
        task ends (one model request). Under hookshot, a Claude Code guard
        on `Bash` (exit 2) meets Cline's shell tool and does the same."""
        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"), run.stdout[-2000:])
            self.assertEqual(len(run.script.main_requests()), 1, run.stdout[-2000:])

        self.both(check, {"PreToolUse": "cat >/dev/null; echo '{\"cancel\": true, \"errorMessage\": \"no shell\"}'"},
                  claude_hook("PreToolUse", "echo 'no shell' >&2; exit 2", matcher="Bash"), [WRITE, DONE])

    def test_an_allowed_command_runs(self):
        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"), run.stdout[-2000:])
            self.assertEqual(len(run.script.main_requests()), 2)

        self.both(check, {"PreToolUse": "cat >/dev/null; echo '{}'"},
                  claude_hook("PreToolUse", "exit 0", matcher="Bash"), [WRITE, DONE])

    def test_a_rewrite_of_the_command(self):
        """Cline's `overrideInput`; under hookshot a Claude Code hook's
        `updatedInput` for `Bash`, given back in Cline's shell tool's shape."""
        rewrite = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                          "updatedInput": {"command": "echo rewritten > out.txt"}}}

        def check(place, run):
            self.assertEqual(place.read("project/out.txt").strip(), "rewritten", run.stdout[-2000:])

        self.both(check,
                  {"PreToolUse": "cat >/dev/null; echo '{\"overrideInput\": {\"commands\": [\"echo rewritten > out.txt\"]}}'"},
                  claude_hook("PreToolUse", f"echo '{json.dumps(rewrite)}'", matcher="Bash"), [WRITE, DONE])

    def test_context_after_a_tool_reaches_the_model(self):
        """Cline 3.0.65 adds a PostToolUse hook's `contextModification` to
        what the model reads next (measured: one on UserPromptSubmit or
        TaskStart reaches no request). Under hookshot, a Claude Code hook's
        `additionalContext` after the tool does the same."""
        answer = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "codename kiwi"}}

        def check(place, run):
            requests = run.script.main_requests()
            self.assertEqual(len(requests), 2, run.stdout[-2000:])
            self.assertNotIn("codename kiwi", json.dumps(requests[0]))
            self.assertIn("codename kiwi", json.dumps(requests[1]))

        self.both(check, {"PostToolUse": "cat >/dev/null; echo '{\"contextModification\": \"codename kiwi\"}'"},
                  claude_hook("PostToolUse", f"echo '{json.dumps(answer)}'", matcher="Bash"), [WRITE, DONE])

    def test_a_stop_hook_runs_when_the_task_completes(self):
        """Cline's TaskComplete fires at the end of every task; under
        hookshot a Claude Code Stop hook runs there (a notifier, say). Cline
        ends the task whatever it answers (one model request either way)."""
        def check(place, run):
            self.assertEqual(place.read("done.txt").strip(), "the task is done", run.stdout[-2000:])
            self.assertEqual(len(run.script.main_requests()), 1, run.stdout[-2000:])

        notify = "cat >/dev/null; echo 'the task is done' > \"$HOME/../done.txt\""
        self.both(check, {"TaskComplete": notify + "; echo '{}'"}, claude_hook("Stop", notify), [DONE])


class UnderHookshotOnly(Scenario):
    def test_install_leaves_the_users_own_hook_and_uninstall_takes_out_only_its_own(self):
        """Cline runs one file per event: a user's own PreToolUse stays (and
        keeps cancelling), hookshot's scripts go on the other events and
        leave with uninstall."""
        place = harness.Place()
        self.addCleanup(place.remove)
        hook_file(place, "PreToolUse", "cat >/dev/null; echo '{\"cancel\": true, \"errorMessage\": \"mine\"}'")
        mine = place.read("home/.cline/hooks/PreToolUse")
        p = place.hookshot(HOOKSHOT, "install", "--agent", "cline", check=False)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("your own PreToolUse hook", p.stderr)
        self.assertIn("fire --agent cline PostToolUse", place.read("home/.cline/hooks/PostToolUse"))
        run = harness.run_cline(place, [WRITE, DONE])
        self.assertFalse(place.exists("project/out.txt"), run.stdout[-2000:])
        place.hookshot(HOOKSHOT, "uninstall", "--agent", "cline")
        self.assertEqual(place.read("home/.cline/hooks/PreToolUse"), mine)
        self.assertFalse(place.exists("home/.cline/hooks/PostToolUse"))
        self.assertFalse(place.exists("home/.cline/hooks/TaskStart"))

    def test_a_hand_written_hook_file_running_hookshot(self):
        place = harness.Place()
        self.addCleanup(place.remove)
        place.write("home/.config/hookshot/settings.json", claude_hook("PreToolUse", "exit 2", matcher="Bash"))
        hook_file(place, "PreToolUse", f"exec '{HOOKSHOT}' fire --agent cline PreToolUse")
        run = harness.run_cline(place, [WRITE, DONE])
        self.assertFalse(place.exists("project/out.txt"), run.stdout[-2000:])

    def test_built_ins_refuse_a_force_push(self):
        place = self.place({"PreToolUse": ""}, {"builtins": {"dangerous_confirmation": {"mode": "deny"}}})
        push = {"tool": "run_commands", "input": {"commands": ["touch ran.txt", "git push --force origin main"]}}
        run = harness.run_cline(place, [push, DONE])
        # Neither command of the call ran, and the task ended there.
        self.assertFalse(place.exists("project/ran.txt"), run.stdout[-2000:])
        self.assertEqual(len(run.script.main_requests()), 1, run.stdout[-2000:])

    def test_its_own_hook_file_guards_claude_code_under_hookshot(self):
        """Cline's own project hook file (`.clinerules/hooks/PreToolUse`):
        natively Cline runs it; under hookshot, Claude Code calling hookshot
        (its project registration) runs the same file, trusted, with the
        payload Cline gives it, and its `cancel` blocks Claude Code's Bash."""
        guard = ("#!/bin/sh\ncat > \"$HOME/../seen-$$.json\"; "
                 "echo '{\"cancel\": true, \"errorMessage\": \"no shell in this repo\"}'\n")
        seen = []
        for under in (False, True):
            with self.subTest(under_hookshot=under):
                place = harness.Place()
                self.addCleanup(place.remove)
                path = place.write("project/.clinerules/hooks/PreToolUse", guard)
                os.chmod(path, 0o755)
                if under:
                    place.hookshot(HOOKSHOT, "trust", "--yes")
                    place.hookshot(HOOKSHOT, "install", "--agent", "claude", "--project")
                    bash = {"tool": "Bash", "input": {"command": "echo hi > out.txt", "description": "write"}}
                    run = harness.run_claude(place, [bash, DONE])
                    self.assertIn("no shell in this repo", run.shown_to_model())
                else:
                    run = harness.run_cline(place, [WRITE, DONE])
                self.assertFalse(place.exists("project/out.txt"), run.stdout[-2000:])
                inputs = sorted(f for f in os.listdir(place.root) if f.startswith("seen-"))
                self.assertEqual(len(inputs), 1, inputs)
                seen.append(json.loads(place.read(inputs[0])))
        native, under = seen
        self.assertEqual(list(native), list(under))
        for key in ("sessionContext", "workspaceInfo", "tool_call", "preToolUse"):
            self.assertEqual(list(native[key]), list(under[key]), key)
        self.assertEqual(native["tool_call"]["name"], under["tool_call"]["name"])
        self.assertEqual(native["tool_call"]["input"], under["tool_call"]["input"])
        self.assertEqual(native["preToolUse"], under["preToolUse"])


if __name__ == "__main__":
    unittest.main()
