"""Real Claude Code against a local model, each scenario natively (the hook in
Claude Code's own settings) and under hookshot (`hookshot install --agent
claude --import`), asserted side by side: a change in Claude Code shows up as
a failing native half, not as a hookshot bug."""

import json
import os
import unittest

import harness

HOOKSHOT = os.environ.get("HOOKSHOT_BIN", "")

WRITE = {"tool": "Bash", "input": {"command": "echo hi > out.txt", "description": "write a file"}}
DONE = {"text": "done"}


def settings(hooks, **extra):
    return dict({"hooks": hooks}, **extra)


def bash_hook(command, matcher="Bash", event="PreToolUse", **extra):
    return {event: [{"matcher": matcher, "hooks": [dict({"type": "command", "command": command}, **extra)]}]}


class Scenario(unittest.TestCase):
    """Helpers: a place per run, the hook installed natively or under hookshot."""

    def place(self, user_settings, under_hookshot, hookshot_settings=None):
        place = harness.Place()
        self.addCleanup(place.remove)
        place.write("home/.claude/settings.json", user_settings)
        if hookshot_settings:
            place.write("home/.config/hookshot/settings.json", hookshot_settings)
        if under_hookshot:
            p = place.hookshot(HOOKSHOT, "install", "--agent", "claude", "--import")
            self.assertNotIn("guard", place.read("home/.claude/settings.json").replace("hookshot", ""))
            self.assertIn("fire --agent claude", place.read("home/.claude/settings.json"), p.stdout)
        return place

    def both(self, check, user_settings, turns, hookshot_settings=None, prompt="do the task"):
        for under in (False, True):
            with self.subTest(under_hookshot=under):
                place = self.place(user_settings, under, hookshot_settings)
                run = harness.run_claude(place, turns, prompt=prompt)
                self.assertEqual(run.rc, 0, run.stderr[-2000:])
                check(place, run)


class ClaudeCode(Scenario):
    def test_a_block_by_exit_code_2(self):
        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertIn("no shell today", run.shown_to_model())

        self.both(check, settings(bash_hook("echo 'no shell today' >&2; exit 2")), [WRITE, DONE])

    def test_a_block_by_json(self):
        deny = harness.deny_json("json says no")

        def check(place, run):
            harness.blocked_with(self, place, run, "json says no")

        self.both(check, settings(bash_hook(f"echo '{json.dumps(deny)}'")), [WRITE, DONE])

    def test_a_rewrite_of_the_tool_input(self):
        allow = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                        "updatedInput": {"command": "echo rewritten > rewritten.txt"}}}

        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertTrue(place.exists("project/rewritten.txt"), run.stdout[-2000:])

        self.both(check, settings(bash_hook(f"echo '{json.dumps(allow)}'")), [WRITE, DONE])

    def test_context_before_and_after_a_tool(self):
        before = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "before the write"}}
        after = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "remember the tests"}}

        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"))
            self.assertIn("before the write", run.shown_to_model())
            self.assertIn("remember the tests", run.shown_to_model())

        hooks = dict(bash_hook(f"echo '{json.dumps(before)}'"),
                     **bash_hook(f"echo '{json.dumps(after)}'", event="PostToolUse"))
        self.both(check, settings(hooks), [WRITE, DONE])


    def test_context_at_session_start_and_on_the_prompt(self):
        start = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "codename kiwi"}}
        hooks = {
            "SessionStart": [{"hooks": [{"type": "command", "command": f"echo '{json.dumps(start)}'"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'prompt context pear'"}]}],
        }

        def check(place, run):
            first = run.first_request()
            self.assertIn("codename kiwi", first)
            self.assertIn("prompt context pear", first)

        self.both(check, settings(hooks), [DONE])

    def test_a_stop_hook_makes_the_agent_go_on(self):
        def check(place, run):
            self.assertGreaterEqual(len(run.script.main_requests()), 2)
            self.assertIn("run the tests first", run.shown_to_model())

        self.both(check, settings({"Stop": [{"hooks": [{"type": "command", "command": harness.STOP_ONCE}]}]}),
                  [DONE, {"text": "tests run"}])

    def test_a_hook_that_crashes_or_times_out_does_not_block(self):
        hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "echo broken >&2; exit 1"},
            {"type": "command", "command": "sleep 5", "timeout": 1}]}]}

        def check(place, run):
            self.assertTrue(place.exists("project/out.txt"), run.stdout[-2000:])

        self.both(check, settings(hooks), [WRITE, DONE])

    def test_matchers_are_javascript_regular_expressions(self):
        """A look-ahead fires on Bash; `\\<Bash` means a literal `<` in
        JavaScript and fires on nothing (a word boundary in Rust's regex)."""
        hooks = {"PreToolUse": [
            {"matcher": "^(?!Read$).*", "hooks": [{"type": "command", "command": "echo 'look-ahead says no' >&2; exit 2"}]},
            {"matcher": "\\<Bash", "hooks": [{"type": "command", "command": "echo 'boundary says no' >&2; exit 2"}]}]}

        def check(place, run):
            self.assertFalse(place.exists("project/out.txt"))
            self.assertIn("look-ahead says no", run.shown_to_model())
            self.assertNotIn("boundary says no", run.shown_to_model())

        self.both(check, settings(hooks), [WRITE, DONE])

    def test_uninstall_gives_back_the_file_and_the_behaviour(self):
        original = settings(bash_hook("echo 'no shell today' >&2; exit 2"))
        place = self.place(original, True)
        place.hookshot(HOOKSHOT, "uninstall", "--agent", "claude")
        self.assertEqual(json.loads(place.read("home/.claude/settings.json")), original)
        run = harness.run_claude(place, [WRITE, DONE])
        self.assertFalse(place.exists("project/out.txt"))
        self.assertIn("no shell today", run.shown_to_model())


    def test_a_hook_gets_what_claude_code_gives_it(self):
        """Environment, input fields and shell, natively and under hookshot:
        the same, but for hookshot's own HOOKSHOT_ variables."""
        dump = ("env | cut -d= -f1 | grep -v '^HOOKSHOT_' | sort > \"$HOME/env-EV\"; "
                "python3 -c 'import json,sys; print(sorted(json.load(sys.stdin)))' > \"$HOME/input-EV\"; "
                "echo 'x\\ny' > \"$HOME/shell-EV\"")
        events = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]
        hooks = {ev: [{"hooks": [{"type": "command", "command": dump.replace("EV", ev)}]}] for ev in events}
        seen = {}
        for under in (False, True):
            place = self.place(settings(hooks), under)
            run = harness.run_claude(place, [WRITE, DONE])
            self.assertEqual(run.rc, 0, run.stderr[-2000:])
            seen[under] = {f"{kind}-{ev}": place.read(f"home/{kind}-{ev}")
                           for ev in events for kind in ("env", "input", "shell")}
        for key, native in seen[False].items():
            self.assertEqual(seen[True][key], native, key)

    def test_hooks_run_through_the_shell_prefix(self):
        """With CLAUDE_CODE_SHELL_PREFIX set, Claude Code runs each
        shell-form hook through it (an audit wrapper): under hookshot the
        user's hook goes through it too, and its block still blocks."""
        guard = "echo 'prefix guard says no' >&2; exit 2"
        for under in (False, True):
            with self.subTest(under_hookshot=under):
                place = self.place(settings(bash_hook(guard)), under)
                place.write("bin/audit.sh", '#!/bin/sh\nprintf "%s\\n" "$1" >> "$HOME/audit.log"\nexec /bin/sh -c "$1"\n',
                            mode=0o755)
                run = harness.run_claude(place, [WRITE, DONE],
                                         extra_env={"CLAUDE_CODE_SHELL_PREFIX": f"{place.root}/bin/audit.sh"})
                self.assertEqual(run.rc, 0, run.stderr[-2000:])
                self.assertFalse(place.exists("project/out.txt"))
                self.assertIn("prefix guard says no", run.shown_to_model())
                self.assertIn(guard, place.read("home/audit.log").splitlines())

    def test_a_guard_that_logs_to_a_file_keeps_guarding(self):
        """A project guard that appends to a log on every call (the
        commonest thing hooks do) still blocks on the third tool call: its
        own log file must not withdraw its approval."""
        guard = ('echo ran >> "$CLAUDE_PROJECT_DIR"/hook.log; '
                 'grep -q forbidden && { echo "the guard says no" >&2; exit 2; }; exit 0')
        turns = [
            {"tool": "Bash", "input": {"command": "echo a > a.txt", "description": "first"}},
            {"tool": "Bash", "input": {"command": "echo b > b.txt", "description": "second"}},
            {"tool": "Bash", "input": {"command": "echo forbidden > c.txt", "description": "third"}},
            DONE,
        ]
        for under in (False, True):
            with self.subTest(under_hookshot=under):
                place = self.place(settings({}), False)
                place.write("project/.claude/settings.json", settings(bash_hook(guard)))
                if under:
                    # The project's guard moves under hookshot, approved as
                    # it is (it already ran in the project).
                    place.hookshot(HOOKSHOT, "install", "--agent", "claude", "--project", "--import")
                    self.assertNotIn("hook.log", place.read("project/.claude/settings.json"))
                run = harness.run_claude(place, turns)
                self.assertEqual(run.rc, 0, run.stderr[-2000:])
                self.assertTrue(place.exists("project/a.txt") and place.exists("project/b.txt"), run.stdout[-2000:])
                self.assertFalse(place.exists("project/c.txt"), run.stdout[-3000:])
                self.assertIn("the guard says no", run.shown_to_model())
                self.assertEqual(place.read("project/hook.log").count("ran"), 3)
                self.assertNotIn("not trusted", run.stdout)


class UnderHookshotOnly(Scenario):
    """What only hookshot does, with the native behaviour it replaces."""

    def test_the_closed_policy_does_not_make_claude_loop_at_stop(self):
        """A Stop hook that times out under the closed policy is a warning:
        a block at Stop would make Claude Code go on working forever."""
        stop = {"Stop": [{"hooks": [{"type": "command", "command": "sleep 5", "timeout": 1}]}]}
        place = self.place(settings(stop), True, {"hooksConfig": {"onFailure": "closed"}})
        run = harness.run_claude(place, [DONE, DONE, DONE, DONE])
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        self.assertEqual(len(run.script.main_requests()), 1, run.stdout[-3000:])

    def test_the_closed_policy_blocks_a_hook_that_crashes_or_times_out(self):
        for name, hook in (("crashes", bash_hook("exit 1")), ("times out", bash_hook("sleep 5", timeout=1))):
            with self.subTest(hook=name):
                # The registration carries the policy it was installed under.
                place = self.place(settings(hook), True, {"hooksConfig": {"onFailure": "closed"}})
                run = harness.run_claude(place, [WRITE, DONE])
                self.assertFalse(place.exists("project/out.txt"))
                self.assertIn("fail-closed", run.shown_to_model())

    def test_built_ins_refuse_a_force_push(self):
        place = self.place(settings({}), True, {"builtins": {"dangerous_confirmation": {"mode": "deny"}}})
        push = {"tool": "Bash", "input": {"command": "git push --force origin main", "description": "push"}}
        run = harness.run_claude(place, [push, DONE])
        self.assertIn("force", run.shown_to_model().lower())
        self.assertIn("dangerous", run.shown_to_model().lower())

    def test_a_secret_typed_into_the_prompt_never_reaches_the_model(self):
        """Claude Code fires no model-request event: security_scan blocks a
        prompt holding a secret at UserPromptSubmit, and Claude leaves the
        prompt out of what it shows (suppressOriginalPrompt)."""
        place = self.place(settings({}), True, {"builtins": {"security_scan": {"mode": "redact"}}})
        run = harness.run_claude(place, [DONE], prompt="deploy with key AKIAIOSFODNN7EXAMPLE please")
        self.assertEqual(run.script.main_requests(), [])
        self.assertTrue(all("AKIAIOSFODNN7EXAMPLE" not in json.dumps(r) for r in run.script.requests))
        self.assertIn("your prompt holds secrets (aws_access_key)", run.stdout)

    def test_an_untrusted_project_hook_does_not_run_until_trusted(self):
        place = self.place(settings({}), True)
        harness.untrusted_until_trusted(self, place, harness.run_claude, HOOKSHOT,
                                        settings(bash_hook("echo 'the project says no' >&2; exit 2")), [WRITE, DONE])

    def test_cursors_own_guard_file_guards_claude_code(self):
        """Cursor's own project file (`.cursor/hooks.json`, flat entries,
        its payload and answers), trusted: Claude Code calling hookshot runs
        its shell guard (matcher on the command) and its file guard (Cursor's
        `Write` with `path`), and their denials in Cursor's words block."""
        shell = "cat > \"$HOME/../seen-shell.json\"; echo '{\"permission\": \"deny\", \"agent_message\": \"no writes by shell here\"}'"
        files = ("i=$(cat); case $i in *'\"path\":\"'*'.env\"'*) "
                 "echo '{\"permission\": \"deny\", \"agent_message\": \"no .env files\"}';; esac")
        place = self.place(settings({}), True)
        place.write("project/.cursor/hooks.json", {"version": 1, "hooks": {
            "beforeShellExecution": [{"command": shell, "matcher": "echo .*>"}],
            "preToolUse": [{"command": files, "matcher": "Write"}]}})
        place.hookshot(HOOKSHOT, "trust", "--yes")
        env = {"tool": "Write", "input": {"file_path": os.path.join(place.project, ".env"), "content": "A=1\n"}}
        run = harness.run_claude(place, [WRITE, env, DONE])
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        harness.blocked_with(self, place, run, "no writes by shell here")
        self.assertIn("no .env files", run.shown_to_model())
        self.assertFalse(place.exists("project/.env"))
        seen = json.loads(place.read("seen-shell.json"))
        self.assertEqual((seen["hook_event_name"], seen["command"]), ("beforeShellExecution", WRITE["input"]["command"]))

    def test_a_cursor_stop_hook_stops_at_its_loop_limit(self):
        """A Cursor stop hook that always asks to go on: Claude Code caps
        nothing, hookshot caps it at its `loop_limit`, as Cursor does."""
        place = self.place(settings({}), True)
        place.write("project/.cursor/hooks.json", {"version": 1, "hooks": {"stop": [
            {"loop_limit": 2, "command": "echo '{\"followup_message\": \"check once more\"}'"}]}})
        place.hookshot(HOOKSHOT, "trust", "--yes")
        run = harness.run_claude(place, [DONE] * 6)
        self.assertEqual(run.rc, 0, run.stderr[-2000:])
        self.assertEqual(len(run.script.main_requests()), 3, run.stdout[-3000:])

    def test_hookshot_removed_after_install_is_a_warning_not_silence(self):
        place = self.place(settings(bash_hook("exit 0")), False)
        copy = place.copy_of(HOOKSHOT)
        place.hookshot(copy, "install", "--agent", "claude", "--import")
        os.remove(copy)
        run = harness.run_claude(place, [WRITE, DONE])
        self.assertTrue(place.exists("project/out.txt"))
        self.assertIn("hookshot could not run (it is not installed there any more)", run.stdout)


if __name__ == "__main__":
    unittest.main()
